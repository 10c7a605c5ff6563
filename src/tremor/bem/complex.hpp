#pragma once
// Complex double for kernels that run on the host and the GPU. Two doubles, real then imaginary:
// the layout of std::complex<double>, cuDoubleComplex and LAPACK's COMPLEX*16, so arrays of it
// are passed to LAPACK and cuSOLVER as they are.
#include <cmath>

#include "tremor/core/config.hpp"

namespace tremor::bem {

struct Complex {
  double re = 0.0;
  double im = 0.0;

  constexpr Complex() = default;
  TREMOR_HOST_DEVICE constexpr Complex(double real, double imag = 0.0) : re(real), im(imag) {}

  TREMOR_HOST_DEVICE constexpr Complex& operator+=(Complex b) {
    re += b.re;
    im += b.im;
    return *this;
  }
  TREMOR_HOST_DEVICE constexpr Complex& operator-=(Complex b) {
    re -= b.re;
    im -= b.im;
    return *this;
  }
  TREMOR_HOST_DEVICE constexpr Complex& operator*=(double s) {
    re *= s;
    im *= s;
    return *this;
  }
};

// Arrays of it are read as 2n doubles (LAPACK, cuSOLVER, the pair kernels' sums).
static_assert(sizeof(Complex) == 2 * sizeof(double) && alignof(Complex) == alignof(double));

TREMOR_HOST_DEVICE constexpr Complex operator+(Complex a, Complex b) { return {a.re + b.re, a.im + b.im}; }
TREMOR_HOST_DEVICE constexpr Complex operator-(Complex a, Complex b) { return {a.re - b.re, a.im - b.im}; }
TREMOR_HOST_DEVICE constexpr Complex operator-(Complex a) { return {-a.re, -a.im}; }
TREMOR_HOST_DEVICE constexpr Complex operator*(Complex a, Complex b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
TREMOR_HOST_DEVICE constexpr Complex operator*(double s, Complex a) { return {s * a.re, s * a.im}; }
TREMOR_HOST_DEVICE constexpr Complex operator*(Complex a, double s) { return {s * a.re, s * a.im}; }
TREMOR_HOST_DEVICE constexpr Complex operator/(Complex a, double s) { return {a.re / s, a.im / s}; }
TREMOR_HOST_DEVICE inline Complex operator/(Complex a, Complex b) {
  // Smith's algorithm: no overflow for large |b|.
  if (fabs(b.re) >= fabs(b.im)) {
    const double r = b.im / b.re, d = b.re + b.im * r;
    return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
  }
  const double r = b.re / b.im, d = b.re * r + b.im;
  return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
}
TREMOR_HOST_DEVICE constexpr bool operator==(Complex a, Complex b) { return a.re == b.re && a.im == b.im; }

TREMOR_HOST_DEVICE constexpr Complex conj(Complex a) { return {a.re, -a.im}; }
TREMOR_HOST_DEVICE inline double abs(Complex a) { return hypot(a.re, a.im); }
TREMOR_HOST_DEVICE inline Complex exp(Complex a) {
  const double m = ::exp(a.re);
  return {m * ::cos(a.im), m * ::sin(a.im)};
}
// Principal square root (branch cut on the negative real axis, result with re >= 0).
TREMOR_HOST_DEVICE inline Complex sqrt(Complex a) {
  if (a.re == 0.0 && a.im == 0.0) return {};
  const double m = hypot(a.re, a.im);
  const double t = ::sqrt(0.5 * (m + fabs(a.re)));
  if (a.re >= 0.0) return {t, a.im / (2.0 * t)};
  return {fabs(a.im) / (2.0 * t), a.im >= 0.0 ? t : -t};
}

}  // namespace tremor::bem
