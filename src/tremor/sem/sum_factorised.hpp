#pragma once
// The sum-factorised steps of K_e u_e on a GLL hexahedron of order P: the portable body of the
// `sem` operator (operator.hpp; the multi-GPU spectral-element paper, section 2, and the
// tensor-product evaluation of Kronbichler and Kormann 2012, section 3).
//
// The element's n^3 nodal values (n = P + 1) are interpolated and differentiated to the n^3
// Gauss-Legendre points one direction at a time with the 1D matrices B (values) and G
// (derivatives): 8 n^4 multiply-adds per component instead of 3 n^6. At each point the strain,
// the pointwise stress sigma = D eps and the flux w det J sigma J^-T follow; the transposed sweeps
// (B^T, G^T) integrate the flux back onto the nodes, another 8 n^4. The quadrature is that of
// the assembled GLL elements (fem::stiffness_rule: n Gauss points per direction, exact on affine
// elements, the paper's full Gauss-Legendre integration), so the result equals
// fem::apply_element_stiffness<HexGll<P>> to rounding.
//
// Each step is a function of one point (or node) index p in [0, n^3), lexicographic with x
// fastest (p = i + n (j + n k), the GLL node order), reading arrays of n^3 values written by the
// step before: a kernel runs a step for every p of an element (for_each_thread), then a barrier,
// then the next step (operator.cpp). Arrays are component-major: v[c * n^3 + p].
#include "tremor/core/config.hpp"
#include "tremor/core/polynomials.hpp"

namespace tremor::sem {

// The 1D matrices of a GLL element of order P at the P + 1 Gauss-Legendre points, row-major:
// B[q * n + i] = l_i(x_q), G[q * n + i] = l_i'(x_q), l_i the Lagrange polynomials on the GLL
// points; the Gauss points x_q and weights w_q. Computed in double on the host.
template <int P>
struct Basis1d {
  static constexpr int n = P + 1;
  double B[n * n];
  double G[n * n];
  double points[n];
  double w[n];

  Basis1d() {
    double nodes[n];
    gll_points(n, nodes);
    gauss_legendre(n, points, w);
    for (int q = 0; q < n; ++q) lagrange(n, nodes, points[q], B + q * n, G + q * n);
  }
};

template <int P, class T>
struct HexSweeps {
  static constexpr int n = P + 1, n2 = n * n, n3 = n * n * n;

  // A row (stride 1) or column (stride n) of B and G from `first`, into registers: each step
  // applies it to 3 components, and the arrays it writes share memory with B and G, so the
  // compiler would otherwise reload the coefficients after every store.
  TREMOR_HOST_DEVICE static void coefficients(const T* B, const T* G, int first, int stride, T (&b)[n], T (&g)[n]) {
    for (int m = 0; m < n; ++m) {
      b[m] = B[first + m * stride];
      g[m] = G[first + m * stride];
    }
  }

  // Step 1, along x, for p = (qi, j, k): t0 = B v and t1 = G v for the 3 components of v.
  TREMOR_HOST_DEVICE static void along_x(const T* B, const T* G, int p, const T* v, T* t0, T* t1) {
    const int qi = p % n, row = p - qi;
    T b[n], g[n];
    coefficients(B, G, qi * n, 1, b, g);
    for (int c = 0; c < 3; ++c) {
      T value = T(0), slope = T(0);
      for (int i = 0; i < n; ++i) {
        const T vi = v[c * n3 + row + i];
        value += b[i] * vi;
        slope += g[i] * vi;
      }
      t0[c * n3 + p] = value;
      t1[c * n3 + p] = slope;
    }
  }

  // Step 2, along y, for p = (qi, qj, k): s[3c] = B B v, s[3c + 1] = B G v (towards d/dxi),
  // s[3c + 2] = G B v (towards d/deta).
  TREMOR_HOST_DEVICE static void along_y(const T* B, const T* G, int p, const T* t0, const T* t1, T* s) {
    const int qi = p % n, qj = p / n % n, base = qi + n2 * (p / n2);
    T b[n], g[n];
    coefficients(B, G, qj * n, 1, b, g);
    for (int c = 0; c < 3; ++c) {
      T bb = T(0), bg = T(0), gb = T(0);
      for (int j = 0; j < n; ++j) {
        const int at = c * n3 + base + n * j;
        bb += b[j] * t0[at];
        bg += b[j] * t1[at];
        gb += g[j] * t0[at];
      }
      s[(3 * c + 0) * n3 + p] = bb;
      s[(3 * c + 1) * n3 + p] = bg;
      s[(3 * c + 2) * n3 + p] = gb;
    }
  }

  // Step 3, along z, for the point p = (qi, qj, qk): d[c][alpha] = d v_c / d xi_alpha there.
  TREMOR_HOST_DEVICE static void along_z(const T* B, const T* G, int p, const T* s, T (&d)[3][3]) {
    const int base = p % n2, qk = p / n2;
    T b[n], g[n];
    coefficients(B, G, qk * n, 1, b, g);
    for (int c = 0; c < 3; ++c) {
      T dx = T(0), dy = T(0), dz = T(0);
      for (int k = 0; k < n; ++k) {
        const int at = base + n2 * k;
        dx += b[k] * s[(3 * c + 1) * n3 + at];
        dy += b[k] * s[(3 * c + 2) * n3 + at];
        dz += g[k] * s[(3 * c + 0) * n3 + at];
      }
      d[c][0] = dx;
      d[c][1] = dy;
      d[c][2] = dz;
    }
  }

  // Transposed step 3, for p = (qi, qj, k), from the flux f[(3c + alpha) n^3 + q] (what
  // d N_a / d xi_alpha meets at point q): s[3c] = B^T f_xi, s[3c + 1] = B^T f_eta,
  // s[3c + 2] = G^T f_zeta, all along z.
  TREMOR_HOST_DEVICE static void back_z(const T* B, const T* G, int p, const T* f, T* s) {
    const int base = p % n2, k = p / n2;
    T b[n], g[n];
    coefficients(B, G, k, n, b, g);
    for (int c = 0; c < 3; ++c) {
      T fx = T(0), fy = T(0), fz = T(0);
      for (int qk = 0; qk < n; ++qk) {
        const int at = base + n2 * qk;
        fx += b[qk] * f[(3 * c + 0) * n3 + at];
        fy += b[qk] * f[(3 * c + 1) * n3 + at];
        fz += g[qk] * f[(3 * c + 2) * n3 + at];
      }
      s[(3 * c + 0) * n3 + p] = fx;
      s[(3 * c + 1) * n3 + p] = fy;
      s[(3 * c + 2) * n3 + p] = fz;
    }
  }

  // Transposed step 2, for p = (qi, j, k): t0 = B^T s[3c] (the xi part), t1 = B^T s[3c + 2] +
  // G^T s[3c + 1] (the zeta and eta parts, both B^T along x next), along y.
  TREMOR_HOST_DEVICE static void back_y(const T* B, const T* G, int p, const T* s, T* t0, T* t1) {
    const int qi = p % n, j = p / n % n, base = qi + n2 * (p / n2);
    T b[n], g[n];
    coefficients(B, G, j, n, b, g);
    for (int c = 0; c < 3; ++c) {
      T along_xi = T(0), rest = T(0);
      for (int qj = 0; qj < n; ++qj) {
        const int at = base + n * qj;
        along_xi += b[qj] * s[(3 * c + 0) * n3 + at];
        rest += b[qj] * s[(3 * c + 2) * n3 + at] + g[qj] * s[(3 * c + 1) * n3 + at];
      }
      t0[c * n3 + p] = along_xi;
      t1[c * n3 + p] = rest;
    }
  }

  // Steps 2 and 3, the pointwise physics and transposed step 3 for a whole column (qi, qj) = c2 of
  // points along z in one thread (the column kernel, operator.cpp): step 2 at its n points from
  // step 1's t0 and t1 (shared memory, written by other threads) into registers; then for each
  // point qk the gradient d (the z contractions in registers) and flux(p, d, f) the flux there;
  // the transposed z sweep's 9 n sums written at the end over the column's own entries of s (no
  // other thread reads or writes them in this step). Per point no shared-memory traffic for the
  // z sweeps, against along_z's and back_z's 9 n reads each. Two ways to the transposed sums,
  // chosen by precision as measured (docs/benchmarks.md): in float accumulated in registers as
  // each flux is found (18 n values per thread); in double, where those registers spill, the
  // fluxes stored in the column's entries, then read back and summed (9 n values per thread, 9
  // more writes and reads per point).
  template <class Flux>
  TREMOR_HOST_DEVICE static void column(const T* B, const T* G, int c2, const T* t0, const T* t1, T* s, Flux&& flux) {
    constexpr bool sums_in_registers = sizeof(T) <= sizeof(float);
    const int qi = c2 % n, qj = c2 / n;
    T y[9][n];
    {
      T b[n], g[n];
      coefficients(B, G, qj * n, 1, b, g);
      for (int k = 0; k < n; ++k)
        for (int c = 0; c < 3; ++c) {
          T bb = T(0), bg = T(0), gb = T(0);
          for (int j = 0; j < n; ++j) {
            const int at = c * n3 + qi + n * j + n2 * k;
            bb += b[j] * t0[at];
            bg += b[j] * t1[at];
            gb += g[j] * t0[at];
          }
          y[3 * c + 0][k] = bb;
          y[3 * c + 1][k] = bg;
          y[3 * c + 2][k] = gb;
        }
    }
    [[maybe_unused]] T sum[sums_in_registers ? 9 : 1][n];
    if constexpr (sums_in_registers)
      for (auto& row : sum)
        for (T& value : row) value = T(0);
    for (int qk = 0; qk < n; ++qk) {
      T b[n], g[n];
      coefficients(B, G, qk * n, 1, b, g);
      T d[3][3];
      for (int c = 0; c < 3; ++c) {
        T dx = T(0), dy = T(0), dz = T(0);
        for (int k = 0; k < n; ++k) {
          dx += b[k] * y[3 * c + 1][k];
          dy += b[k] * y[3 * c + 2][k];
          dz += g[k] * y[3 * c + 0][k];
        }
        d[c][0] = dx;
        d[c][1] = dy;
        d[c][2] = dz;
      }
      T f[3][3];
      flux(c2 + n2 * qk, d, f);
      if constexpr (sums_in_registers) {
        for (int c = 0; c < 3; ++c)
          for (int k = 0; k < n; ++k) {
            sum[3 * c + 0][k] += b[k] * f[c][0];
            sum[3 * c + 1][k] += b[k] * f[c][1];
            sum[3 * c + 2][k] += g[k] * f[c][2];
          }
      } else {
        for (int c = 0; c < 3; ++c)
          for (int alpha = 0; alpha < 3; ++alpha) s[(3 * c + alpha) * n3 + c2 + n2 * qk] = f[c][alpha];
      }
    }
    if constexpr (sums_in_registers) {
      for (int m = 0; m < 9; ++m)
        for (int k = 0; k < n; ++k) s[m * n3 + c2 + n2 * k] = sum[m][k];
    } else {
      // y is spent: the fluxes take its registers. s[3c + alpha] at node k = the sum over qk of
      // B (alpha < 2) or G (alpha = 2) [qk][k] times the flux component at qk.
      T flux_at[9][n];
      for (int m = 0; m < 9; ++m)
        for (int qk = 0; qk < n; ++qk) flux_at[m][qk] = s[m * n3 + c2 + n2 * qk];
      for (int k = 0; k < n; ++k) {
        T b[n], g[n];
        coefficients(B, G, k, n, b, g);
        for (int c = 0; c < 3; ++c) {
          T fx = T(0), fy = T(0), fz = T(0);
          for (int qk = 0; qk < n; ++qk) {
            fx += b[qk] * flux_at[3 * c + 0][qk];
            fy += b[qk] * flux_at[3 * c + 1][qk];
            fz += g[qk] * flux_at[3 * c + 2][qk];
          }
          s[(3 * c + 0) * n3 + c2 + n2 * k] = fx;
          s[(3 * c + 1) * n3 + c2 + n2 * k] = fy;
          s[(3 * c + 2) * n3 + c2 + n2 * k] = fz;
        }
      }
    }
  }

  // Transposed step 1, for the node p = (i, j, k): its force, out[c] = G^T t0 + B^T t1 along x.
  TREMOR_HOST_DEVICE static void back_x(const T* B, const T* G, int p, const T* t0, const T* t1, T (&out)[3]) {
    const int i = p % n, row = p - i;
    T b[n], g[n];
    coefficients(B, G, i, n, b, g);
    for (int c = 0; c < 3; ++c) {
      T sum = T(0);
      for (int qi = 0; qi < n; ++qi) sum += g[qi] * t0[c * n3 + row + qi] + b[qi] * t1[c * n3 + row + qi];
      out[c] = sum;
    }
  }
};

// The same on a GLL quadrilateral of order P (2D, 2 components): n^2 points, p = i + n j. Step 1
// along x gives t0 = B v and t1 = G v; step 2 along y the gradient, d/dxi = B t1 and
// d/deta = G t0: 4 n^3 multiply-adds per component. The transposed steps integrate the flux
// f[(2c + alpha) n^2 + q] back: along y t0 = B^T f_xi and t1 = G^T f_eta, along x
// G^T t0 + B^T t1.
template <int P, class T>
struct QuadSweeps {
  static constexpr int n = P + 1, n2 = n * n;

  // Step 1, along x, for p = (qi, j).
  TREMOR_HOST_DEVICE static void along_x(const T* B, const T* G, int p, const T* v, T* t0, T* t1) {
    const int qi = p % n, row = p - qi;
    T b[n], g[n];
    HexSweeps<P, T>::coefficients(B, G, qi * n, 1, b, g);
    for (int c = 0; c < 2; ++c) {
      T value = T(0), slope = T(0);
      for (int i = 0; i < n; ++i) {
        const T vi = v[c * n2 + row + i];
        value += b[i] * vi;
        slope += g[i] * vi;
      }
      t0[c * n2 + p] = value;
      t1[c * n2 + p] = slope;
    }
  }

  // Step 2, along y, for the point p = (qi, qj): d[c][alpha] = d v_c / d xi_alpha there.
  TREMOR_HOST_DEVICE static void along_y(const T* B, const T* G, int p, const T* t0, const T* t1, T (&d)[2][2]) {
    const int qi = p % n, qj = p / n;
    T b[n], g[n];
    HexSweeps<P, T>::coefficients(B, G, qj * n, 1, b, g);
    for (int c = 0; c < 2; ++c) {
      T dx = T(0), dy = T(0);
      for (int j = 0; j < n; ++j) {
        dx += b[j] * t1[c * n2 + qi + n * j];
        dy += g[j] * t0[c * n2 + qi + n * j];
      }
      d[c][0] = dx;
      d[c][1] = dy;
    }
  }

  // Transposed step 2, for p = (qi, j), along y.
  TREMOR_HOST_DEVICE static void back_y(const T* B, const T* G, int p, const T* f, T* t0, T* t1) {
    const int qi = p % n, j = p / n;
    T b[n], g[n];
    HexSweeps<P, T>::coefficients(B, G, j, n, b, g);
    for (int c = 0; c < 2; ++c) {
      T along_xi = T(0), along_eta = T(0);
      for (int qj = 0; qj < n; ++qj) {
        along_xi += b[qj] * f[(2 * c + 0) * n2 + qi + n * qj];
        along_eta += g[qj] * f[(2 * c + 1) * n2 + qi + n * qj];
      }
      t0[c * n2 + p] = along_xi;
      t1[c * n2 + p] = along_eta;
    }
  }

  // Transposed step 1, for the node p = (i, j): its force, G^T t0 + B^T t1 along x.
  TREMOR_HOST_DEVICE static void back_x(const T* B, const T* G, int p, const T* t0, const T* t1, T (&out)[2]) {
    const int i = p % n, row = p - i;
    T b[n], g[n];
    HexSweeps<P, T>::coefficients(B, G, i, n, b, g);
    for (int c = 0; c < 2; ++c) {
      T sum = T(0);
      for (int qi = 0; qi < n; ++qi) sum += g[qi] * t0[c * n2 + row + qi] + b[qi] * t1[c * n2 + row + qi];
      out[c] = sum;
    }
  }
};

// The flux at one point: f[c][alpha] = scale * sum_beta sigma_{c beta} inv[alpha][beta], where
// sigma = D eps and eps is the symmetric part of grad u, grad[c][beta] = sum_alpha d[c][alpha]
// inv[alpha][beta]; inv = J^-1 (d xi_alpha / d x_beta) and scale = w det J. D is the 6 x 6 Voigt
// matrix row-major (xx, yy, zz, yz, xz, xy, engineering shears, as fem::strain_column); an
// isotropic section passes lambda and mu instead (a fifth of the flops).
template <class T>
TREMOR_HOST_DEVICE inline void flux(const T (&d)[3][3], const T (&inv)[3][3], T scale, const T* D, bool isotropic,
                                    T lambda, T mu, T (&f)[3][3]) {
  T g[3][3];
  for (int c = 0; c < 3; ++c)
    for (int beta = 0; beta < 3; ++beta) g[c][beta] = d[c][0] * inv[0][beta] + d[c][1] * inv[1][beta] + d[c][2] * inv[2][beta];
  const T strain[6] = {g[0][0], g[1][1], g[2][2], g[1][2] + g[2][1], g[0][2] + g[2][0], g[0][1] + g[1][0]};
  T sigma[6];
  if (isotropic) {
    const T volume = lambda * (strain[0] + strain[1] + strain[2]);
    for (int m = 0; m < 3; ++m) sigma[m] = volume + T(2) * mu * strain[m];
    for (int m = 3; m < 6; ++m) sigma[m] = mu * strain[m];
  } else {
    for (int m = 0; m < 6; ++m) {
      T sum = T(0);
      for (int l = 0; l < 6; ++l) sum += D[m * 6 + l] * strain[l];
      sigma[m] = sum;
    }
  }
  const T S[3][3] = {{sigma[0], sigma[5], sigma[4]}, {sigma[5], sigma[1], sigma[3]}, {sigma[4], sigma[3], sigma[2]}};
  for (int c = 0; c < 3; ++c)
    for (int alpha = 0; alpha < 3; ++alpha)
      f[c][alpha] = scale * (S[c][0] * inv[alpha][0] + S[c][1] * inv[alpha][1] + S[c][2] * inv[alpha][2]);
}

// The same in 2D (plane strain or plane stress, whichever D is): D is 3 x 3 row-major (xx, yy,
// xy); isotropic, lambda = D[0][1] and mu = D[2][2] (both formulations have that form).
template <class T>
TREMOR_HOST_DEVICE inline void flux(const T (&d)[2][2], const T (&inv)[2][2], T scale, const T* D, bool isotropic,
                                    T lambda, T mu, T (&f)[2][2]) {
  T g[2][2];
  for (int c = 0; c < 2; ++c)
    for (int beta = 0; beta < 2; ++beta) g[c][beta] = d[c][0] * inv[0][beta] + d[c][1] * inv[1][beta];
  const T strain[3] = {g[0][0], g[1][1], g[0][1] + g[1][0]};
  T sigma[3];
  if (isotropic) {
    const T area = lambda * (strain[0] + strain[1]);
    sigma[0] = area + T(2) * mu * strain[0];
    sigma[1] = area + T(2) * mu * strain[1];
    sigma[2] = mu * strain[2];
  } else {
    for (int m = 0; m < 3; ++m) sigma[m] = D[m * 3] * strain[0] + D[m * 3 + 1] * strain[1] + D[m * 3 + 2] * strain[2];
  }
  const T S[2][2] = {{sigma[0], sigma[2]}, {sigma[2], sigma[1]}};
  for (int c = 0; c < 2; ++c)
    for (int alpha = 0; alpha < 2; ++alpha)
      f[c][alpha] = scale * (S[c][0] * inv[alpha][0] + S[c][1] * inv[alpha][1]);
}

// The Jacobian J[c][alpha] = d x_c / d xi_alpha at (xi, eta, zeta) of the trilinear map of an
// element's 8 vertices (fem::vertex_node's order: 0-3 counter-clockwise at zeta = -1, 4-7 above),
// given as x[3 v + c] relative to vertex 0 (whose entries are not read): 7 x 9 multiply-adds
// instead of 10 stored factors per point, for elements whose nodes sit on that map.
template <class T>
TREMOR_HOST_DEVICE inline void vertex_signs(int v, T& sx, T& sy, T& sz) {
  sx = (v == 1 || v == 2 || v == 5 || v == 6) ? T(1) : T(-1);
  sy = (v == 2 || v == 3 || v == 6 || v == 7) ? T(1) : T(-1);
  sz = v >= 4 ? T(1) : T(-1);
}

template <class T>
TREMOR_HOST_DEVICE inline void trilinear_jacobian(const T* x, T xi, T eta, T zeta, T (&J)[3][3]) {
  for (auto& row : J)
    for (T& value : row) value = T(0);
  for (int v = 1; v < 8; ++v) {
    T sx, sy, sz;
    vertex_signs(v, sx, sy, sz);
    const T a = T(0.125) * (T(1) + sx * xi), b = T(1) + sy * eta, c = T(1) + sz * zeta;
    const T d_xi = T(0.125) * sx * b * c, d_eta = a * sy * c, d_zeta = a * b * sz;
    for (int k = 0; k < 3; ++k) {
      J[k][0] += x[3 * v + k] * d_xi;
      J[k][1] += x[3 * v + k] * d_eta;
      J[k][2] += x[3 * v + k] * d_zeta;
    }
  }
}

// The same for the bilinear map of a quadrilateral's 4 vertices (x[2 v + c], vertex_signs' x and
// y signs), at (xi, eta).
template <class T>
TREMOR_HOST_DEVICE inline void bilinear_jacobian(const T* x, T xi, T eta, T (&J)[2][2]) {
  for (auto& row : J)
    for (T& value : row) value = T(0);
  for (int v = 1; v < 4; ++v) {
    T sx, sy, sz;
    vertex_signs(v, sx, sy, sz);
    const T d_xi = T(0.25) * sx * (T(1) + sy * eta), d_eta = T(0.25) * (T(1) + sx * xi) * sy;
    for (int k = 0; k < 2; ++k) {
      J[k][0] += x[2 * v + k] * d_xi;
      J[k][1] += x[2 * v + k] * d_eta;
    }
  }
}

// det and inverse of a 2 x 2 Jacobian.
template <class T>
TREMOR_HOST_DEVICE inline T invert_jacobian(const T (&J)[2][2], T (&inv)[2][2]) {
  const T det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  const T r = T(1) / det;
  inv[0][0] = J[1][1] * r;
  inv[0][1] = -J[0][1] * r;
  inv[1][0] = -J[1][0] * r;
  inv[1][1] = J[0][0] * r;
  return det;
}

// det and inverse of the Jacobian J[c][alpha] = d x_c / d xi_alpha: inv[alpha][beta].
template <class T>
TREMOR_HOST_DEVICE inline T invert_jacobian(const T (&J)[3][3], T (&inv)[3][3]) {
  const T c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1], c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2],
          c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  const T det = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
  const T r = T(1) / det;
  inv[0][0] = c00 * r;
  inv[1][0] = c01 * r;
  inv[2][0] = c02 * r;
  inv[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) * r;
  inv[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) * r;
  inv[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) * r;
  inv[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) * r;
  inv[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) * r;
  inv[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) * r;
  return det;
}

}  // namespace tremor::sem
