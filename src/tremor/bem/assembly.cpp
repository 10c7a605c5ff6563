#include "tremor/bem/assembly.hpp"

#include <limits>

#include "tremor/backend/forall.hpp"
#include "tremor/bem/assembly_kernels.hpp"
#include "tremor/core/error.hpp"

namespace tremor::bem {

namespace {

// Pairs index one launch and 9 values per pair one array (DeviceArray sizes are Index).
void check_pairs(Index rows, Index columns) {
  TREMOR_CHECK(9 * static_cast<Size>(rows) * columns <= std::numeric_limits<Index>::max(),
               "boundary-element assembly of ", rows, " x ", columns,
               " element pairs: 9 values per pair exceed the 2^31 - 1 entries of one array (at most 15,447 elements)");
}

// Writes pair (i, j)'s blocks, adding the free term to the diagonal block.
TREMOR_HOST_DEVICE inline void write_pair(Index i, Index j, Size ld, bool rigid, double rigid_alpha,
                                          const Complex* row_sums, const Medium& medium, const ElementNodes& e,
                                          const detail::Quadrature& q, detail::PairSums& sums, Complex* H, Complex* G) {
  if (i == j) {
    Complex c[9];
    if (rigid) {
      for (int k = 0; k < 9; ++k)
        c[k] = (k % 4 == 0 ? Complex(rigid_alpha) : Complex()) - row_sums[9 * static_cast<Size>(i) + k];
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
}

#if defined(__CUDACC__)
// Paper section 3.1: block (pair) of g x g threads, each integrating its quadrature points of
// every piece (a near pair's subdivision, or the Duffy triangles), then a reduction of the 36
// doubles of the two 3 x 3 complex blocks: warp shuffles, then the warps' partial sums in shared
// memory added in warp order (the same bits every run). Traffic per pair as the forall kernel.
constexpr int max_block_lanes = max_gauss * max_gauss;

__global__ void __launch_bounds__(max_block_lanes) pair_block_kernel(BoundaryView boundary, Medium medium,
                                                                     detail::Quadrature q, const double* xi_all,
                                                                     bool rigid, double rigid_alpha,
                                                                     const Complex* row_sums, Complex* H, Complex* G) {
  __shared__ double partial[max_block_lanes / 32][36];
  const Index n = boundary.n_elements;
  const Size pair = blockIdx.x;
  const Index i = static_cast<Index>(pair % n), j = static_cast<Index>(pair / n);
  const int lane = threadIdx.x, lanes = blockDim.x;
  const ElementNodes e = gather_element(boundary.coordinates, boundary.connectivity, j);
  detail::PairSums sums{};
  if (i != j)
    detail::regular_pair(medium, e, xi_all + 3 * static_cast<Size>(i), q, KernelPart::Full, true, lane, lanes, sums);
  else
    detail::singular_pair(medium, e, q, lane, lanes, sums);
  double* values = &sums.G[0].re;  // PairSums is 36 contiguous doubles: G then H, re/im
  static_assert(sizeof(detail::PairSums) == 36 * sizeof(double));
  const int warp = lane / 32, in_warp = lane % 32, warps = (lanes + 31) / 32;
  for (int k = 0; k < 36; ++k) {
    double v = values[k];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (in_warp == 0) partial[warp][k] = v;
  }
  __syncthreads();
  if (lane != 0) return;
  for (int k = 0; k < 36; ++k) {
    double v = partial[0][k];
    for (int w = 1; w < warps; ++w) v += partial[w][k];
    values[k] = v;
  }
  write_pair(i, j, 3 * static_cast<Size>(n), rigid, rigid_alpha, row_sums, medium, e, q, sums, H, G);
}
#endif

}  // namespace

void check_element_count(Index n) { check_pairs(n, n); }

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
  if (exec.backend() == Backend::Cuda && options.layout == PairLayout::BlockPerPair && n > 0) {
#if defined(__CUDACC__)
    // g^2 lanes rounded up to whole warps; the spare lanes of the last warp hold zeros.
    const int lanes = (options.gauss * options.gauss + 31) / 32 * 32;
    TREMOR_CHECK(options.singular_gauss <= max_gauss && options.gauss <= max_gauss, "at most ", max_gauss,
                 " Gauss points per direction");
    pair_block_kernel<<<static_cast<unsigned>(static_cast<Size>(n) * n), static_cast<unsigned>(lanes), 0,
                        static_cast<cudaStream_t>(exec.stream())>>>(boundary, medium, q, xi_all, rigid, rigid_alpha,
                                                                    row_sums, H, G);
    TREMOR_CUDA_CHECK(cudaGetLastError());
    exec.synchronize();
    return;
#endif
  }
  forall(exec, n * n, [=] TREMOR_LAMBDA(Index item) {
    const Index i = item % n, j = item / n;
    const ElementNodes e = gather_element(boundary.coordinates, boundary.connectivity, j);
    detail::PairSums sums{};
    if (i != j)
      detail::regular_pair(medium, e, xi_all + 3 * static_cast<Size>(i), q, KernelPart::Full, true, 0, 1, sums);
    else
      detail::singular_pair(medium, e, q, 0, 1, sums);
    write_pair(i, j, ld, rigid, rigid_alpha, row_sums, medium, e, q, sums, H, G);
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
