#include "tremor/bem/assembly.hpp"

#include <limits>

#include "tremor/backend/forall.hpp"
#include "tremor/bem/assembly_kernels.hpp"
#include "tremor/core/error.hpp"

namespace tremor::bem {

namespace {

// Pairs index one launch and 9 values per pair one array (DeviceArray sizes are Index): 9 n^2 <
// 2^31 bounds n by 15,447 elements (2 x 68.7 GB of H and G, about what an 80 GB GPU holds).
void check_pairs(Index rows, Index columns) {
  TREMOR_CHECK(9 * static_cast<Size>(rows) * columns <= std::numeric_limits<Index>::max(),
               "boundary-element assembly of ", rows, " x ", columns,
               " element pairs: 9 values per pair exceed the 2^31 - 1 entries of one array (at most 15,447 elements)");
}

}  // namespace

void collocation_points(const Exec& exec, BoundaryView boundary, double* points) {
  forall(exec, boundary.n_elements, [=] TREMOR_LAMBDA(Index e) {
    const ElementNodes nodes = gather_element(boundary.coordinates, boundary.connectivity, e);
    detail::centre_of(nodes, points + 3 * static_cast<Size>(e));
  });
}

// Traffic per (row, chunk) item: the chunk's elements (4 nodes x 24 B, cached), 9 complex written;
// the sum over chunks reads them back in order.
DeviceArray<Complex> static_row_sums(const Exec& exec, BoundaryView boundary, const Medium& medium,
                                     const IntegrationOptions& options) {
  const Index n = boundary.n_elements;
  const Index chunks = n < 64 ? (n > 0 ? n : 1) : 64;
  check_pairs(n, chunks);
  const detail::Quadrature q = detail::quadrature_of(options);
  DeviceArray<double> points(exec, 3 * n);
  collocation_points(exec, boundary, points.data());
  DeviceArray<Complex> partial(exec, 9 * n * chunks);
  const double* xi_all = points.data();
  Complex* parts = partial.data();
  forall(exec, n * chunks, [=] TREMOR_LAMBDA(Index item) {
    const Index i = item % n, c = item / n;
    const Index begin = static_cast<Index>(static_cast<Size>(n) * c / chunks);
    const Index end = static_cast<Index>(static_cast<Size>(n) * (c + 1) / chunks);
    detail::PairSums sums{};
    for (Index j = begin; j < end; ++j) {
      if (j == i) continue;
      const ElementNodes e = gather_element(boundary.coordinates, boundary.connectivity, j);
      detail::regular_pair(medium, e, xi_all + 3 * static_cast<Size>(i), q, KernelPart::Static, false, 0, 1, sums);
    }
    for (int k = 0; k < 9; ++k) parts[9 * static_cast<Size>(item) + k] = sums.H[k];
  });
  DeviceArray<Complex> sums(exec, 9 * n);
  Complex* out = sums.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    Complex total[9];
    for (Index c = 0; c < chunks; ++c)
      for (int k = 0; k < 9; ++k) total[k] += parts[9 * (static_cast<Size>(c) * n + i) + k];
    for (int k = 0; k < 9; ++k) out[9 * static_cast<Size>(i) + k] = total[k];
  });
  exec.synchronize();
  return sums;
}

// One thread per pair (i, j), i fastest so that neighbouring threads write neighbouring rows of
// the column-major matrices. Traffic per pair: element j's vertices (96 B, cached across the
// threads of a column) and xi_i (24 B); 2 x 9 complex written (288 B). The quadrature points
// (g^2 per piece, more near xi) dominate: each evaluates u* and t* (two complex exponentials).
void assemble_constant(const Exec& exec, BoundaryView boundary, const Medium& medium, const IntegrationOptions& options,
                       FreeTerm free_term, double rigid_alpha, const Complex* row_sums, Complex* H, Complex* G) {
  const Index n = boundary.n_elements;
  check_pairs(n, n);
  TREMOR_CHECK(free_term != FreeTerm::RigidBody || row_sums != nullptr || n == 0,
               "the rigid-body free term needs the static row sums");
  const detail::Quadrature q = detail::quadrature_of(options);
  DeviceArray<double> points(exec, 3 * n);
  collocation_points(exec, boundary, points.data());
  const double* xi_all = points.data();
  const Size ld = 3 * static_cast<Size>(n);
  const bool rigid = free_term == FreeTerm::RigidBody;
  forall(exec, n * n, [=] TREMOR_LAMBDA(Index item) {
    const Index i = item % n, j = item / n;
    const ElementNodes e = gather_element(boundary.coordinates, boundary.connectivity, j);
    detail::PairSums sums{};
    if (i != j) {
      detail::regular_pair(medium, e, xi_all + 3 * static_cast<Size>(i), q, KernelPart::Full, true, 0, 1, sums);
    } else {
      detail::singular_pair(medium, e, q, 0, 1, sums);
      Complex c[9];
      if (rigid) {
        for (int k = 0; k < 9; ++k) c[k] = (k % 4 == 0 ? Complex(rigid_alpha) : Complex()) - row_sums[9 * static_cast<Size>(i) + k];
      } else {
        detail::flat_free_term(medium, e, q.regular, c);
      }
      for (int k = 0; k < 9; ++k) sums.H[k] += c[k];
    }
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const Size at = (3 * static_cast<Size>(i) + a) + (3 * static_cast<Size>(j) + b) * ld;
        H[at] = sums.H[3 * a + b];
        G[at] = sums.G[3 * a + b];
      }
  });
  exec.synchronize();
}

// One thread per point, all elements in order. Traffic per point: every element's vertices and
// its u and t (96 + 96 B, cached), 3 complex written.
void interior_displacements(const Exec& exec, BoundaryView boundary, const Medium& medium,
                            const IntegrationOptions& options, const double* points, Index n_points,
                            const Complex* u, const Complex* t, Complex* out) {
  const Index n = boundary.n_elements;
  const detail::Quadrature q = detail::quadrature_of(options);
  forall(exec, n_points, [=] TREMOR_LAMBDA(Index p) {
    const double* x = points + 3 * static_cast<Size>(p);
    Complex sum[3];
    for (Index j = 0; j < n; ++j) {
      const ElementNodes e = gather_element(boundary.coordinates, boundary.connectivity, j);
      detail::PairSums s{};
      detail::regular_pair(medium, e, x, q, KernelPart::Full, true, 0, 1, s);
      const Complex* uj = u + 3 * static_cast<Size>(j);
      const Complex* tj = t + 3 * static_cast<Size>(j);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) sum[a] += s.G[3 * a + b] * tj[b] - s.H[3 * a + b] * uj[b];
    }
    for (int a = 0; a < 3; ++a) out[3 * static_cast<Size>(p) + a] = sum[a];
  });
  exec.synchronize();
}

}  // namespace tremor::bem
