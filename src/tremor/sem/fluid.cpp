#include "tremor/sem/fluid.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/laws.hpp"
#include "tremor/sem/layout.hpp"
#include "tremor/sem/operator.hpp"
#include "tremor/sem/sum_factorised.hpp"

namespace tremor::sem {

bool fluid_takes(ElementType type, int order) { return gll(type) && order >= 2; }

bool fluid_takes(const fem::DeviceElementBlock& block) { return fluid_takes(block.type, block.order); }

namespace {
// The factors of A at a point: its upper triangle, xx, yy, (zz,) then the rest.
constexpr int factors_of(int dim) { return dim * (dim + 1) / 2; }
}  // namespace

std::size_t fluid_factors_at_most(const Mesh& mesh) {
  const auto per_point = static_cast<std::size_t>(factors_of(mesh.dim()));
  std::size_t total = 0;
  for (const ElementBlock& block : mesh.blocks)
    if (fluid_takes(block.type, block.order)) total += block.connectivity.size() * per_point;
  return total;
}

namespace {

// A block of threads over the fluid's elements (quadrilaterals; hexahedra take the column kernel): a
// thread per point, as Layout, with per element the gathered chi and the Dim parts of the flux in
// shared memory.
template <int Dim, int P>
struct FluidLayout : Layout<Dim, P> {
  using L = Layout<Dim, P>;
  static constexpr int arrays = 1 + Dim;
  static constexpr int factors = factors_of(Dim);
  template <class T>
  static constexpr std::size_t shared_bytes() {
    return (L::basis_size + static_cast<std::size_t>(L::per_block) * arrays * L::points) * sizeof(T);
  }
};

// A's entry (alpha, beta) among the factors: the diagonal first, then xy, (xz, yz in 3D).
template <int Dim>
TREMOR_HOST_DEVICE constexpr int factor_of(int alpha, int beta) {
  if (alpha == beta) return alpha;
  const int lo = alpha < beta ? alpha : beta, hi = alpha < beta ? beta : alpha;
  return Dim == 2 ? 2 : lo == 0 ? 3 + hi - 1 : 5;
}

// The element and shot of a kernel's group of threads: its block's (element, shot) pairs are the
// elements' in order, each element's shots together (i / shots, i % shots for pair i < n shots; an
// element -1 past the last).
struct ShotsOf {
  Index n;
  const Index* list;
  int shots;
  TREMOR_HOST_DEVICE Index pair(const BlockContext& ctx, int per_block, int per_pair, int t) const {
    const Index i = ctx.block * per_block + t / per_pair;
    return i >= n * shots ? Index(-1) : i;
  }
  TREMOR_HOST_DEVICE Index element(Index pair) const {
    if (pair < 0) return -1;
    const Index k = shots == 1 ? pair : pair / shots;
    return list ? list[k] : k;
  }
  TREMOR_HOST_DEVICE int shot(Index pair) const { return shots == 1 || pair < 0 ? 0 : static_cast<int>(pair % shots); }
};

// Affine: the factors per element (parallelepipeds: J constant, A = w_p A_e), else per point.
template <int Dim, int P, class Real, bool Affine>
void add_block(const Exec& exec, Index n, const Index* list, bool atomic, const Index* connectivity,
               const Real* factors, const Real* basis, const Real* chi, Real* f, int shots) {
  using L = FluidLayout<Dim, P>;
  using S = Collocated<Dim, P, Real>;
  constexpr int np = L::points, nn = L::n;
  const ShotsOf of{n, list, shots};
  forall_blocks<L::threads>(exec, L::blocks(n * shots), L::threads, L::template shared_bytes<Real>(),
                            [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    Real* G = ctx.shared<Real>();
    Real* work = G + L::basis_size;
    const auto element = [&](int t) { return of.element(of.pair(ctx, L::per_block, np, t)); };
    // Node a of thread t's element in its shot's field.
    const auto at = [&](int t, Index e, int a) {
      return static_cast<Size>(connectivity[static_cast<Size>(e) * np + a]) * shots +
             of.shot(of.pair(ctx, L::per_block, np, t));
    };
    for_each_thread(ctx, L::basis_size, [&](int t) { G[t] = basis[t]; });
    for_each_thread(ctx, L::per_block * np, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      work[t / np * L::arrays * np + t % np] = chi[at(t, e, t % np)];
    });
    ctx.sync();
    // The flux at each point: A (d chi / d xi) through the stored factors.
    for_each_thread(ctx, L::per_block * np, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      const int p = t % np;
      Real* v = work + t / np * L::arrays * np;
      Real d[Dim];
      for (int alpha = 0; alpha < Dim; ++alpha) {
        const int q = S::index(p, alpha), first = p - q * S::stride(alpha);
        Real sum = Real(0);
        for (int m = 0; m < nn; ++m) sum += G[q * nn + m] * v[first + m * S::stride(alpha)];
        d[alpha] = sum;
      }
      const Real* A = Affine ? factors + static_cast<Size>(e) * L::factors
                             : factors + static_cast<Size>(e) * L::factors * np + p;
      const int stride = Affine ? 1 : np;
      const Real scale = Affine ? weight<Dim, nn>(G + nn * nn + nn, p) : Real(1);  // Basis1d::values' w
      for (int alpha = 0; alpha < Dim; ++alpha) {
        Real sum = Real(0);
        for (int beta = 0; beta < Dim; ++beta) sum += A[factor_of<Dim>(alpha, beta) * stride] * d[beta];
        v[(1 + alpha) * np + p] = scale * sum;
      }
    });
    ctx.sync();
    // The force at each node: the fluxes along its Dim lines, weighted by G transposed.
    for_each_thread(ctx, L::per_block * np, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      const int a = t % np;
      const Real* flux = work + t / np * L::arrays * np + np;
      Real force = Real(0);
      for (int alpha = 0; alpha < Dim; ++alpha) {
        const int i = S::index(a, alpha), first = a - i * S::stride(alpha);
        for (int q = 0; q < nn; ++q) force += G[q * nn + i] * flux[alpha * np + first + q * S::stride(alpha)];
      }
      Real* out = f + at(t, e, a);
      if (atomic)
        atomic_add(out, force);
      else
        *out += force;
    });
  });
}

// The column kernel of hexahedra (the sem operator's apply_columns for one component): a thread
// per (i, j) column of an element's points, looping over the n points along z. The column's chi
// and the z part of the transposed sums at its n nodes stay in its registers (Carried); shared
// memory holds the gathered chi and the flux's x and y parts. Per point 4 n reads and 3 writes of
// shared memory against the point kernel's 6 n and 4, and the 1D basis in the constant bank (Line).
// With `inner` (non-empty) the step of the nodes in its range (an element's inner nodes, which it
// alone sums) is taken at the scatter, U_next written where K chi would be added, in the elements
// that `stepped` marks (per element of the block; null: none).
template <int P, class Real, int Mode>
void add_columns(const Exec& exec, Index n, const Index* list, bool atomic, const Index* connectivity,
                 const Real* factors, const Real* basis, const Real* chi, Real* f, int shots,
                 op::InnerStep<Real> inner, const unsigned char* stepped) {
  using L = ColumnLayout<P, 1>;
  constexpr int n1 = L::n, n2 = L::n2, n3 = L::points, nf = factors_of(3);
  static const Line<P, Real> constants = Line<P, Real>::make();
  const Line<P, Real> line = constants;
  const ShotsOf of{n, list, shots};
  forall_blocks<L::threads>(exec, L::blocks(n * shots), L::threads, L::template shared_bytes<Real>(),
                            [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    Real* G = ctx.shared<Real>();
    Real* work = G + L::basis_size;
    const auto element = [&](int t) { return of.element(of.pair(ctx, L::per_block, n2, t)); };
    const auto shot = [&](int t) { return of.shot(of.pair(ctx, L::per_block, n2, t)); };
    const auto arrays = [&](int t) { return work + t / n2 * L::stride; };
    for_each_thread(ctx, L::basis_size, [&](int t) { G[t] = basis[t]; });
    Carried<Column<P, 1, Real>, L::threads> columns;
    gather_columns<P, 1>(ctx, columns, element, arrays, connectivity, chi, shots, shot);
    ctx.sync();
    // The flux A (d chi / d xi) at each point of the column: x and y parts into shared memory, the
    // z part's transposed sums into the column's registers.
    for_each_thread(ctx, L::per_block * n2, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      Real* v = arrays(t);
      Column<P, 1, Real>& mine = columns[t];
      const int c2 = t % n2, i = c2 % n1, j = c2 / n1;
      Real gi[n1], gj[n1];
      for (int m = 0; m < n1; ++m) {
        gi[m] = G[i * n1 + m];
        gj[m] = G[j * n1 + m];
        mine.z[0][m] = Real(0);
      }
      // (Mode a constant: an extended lambda takes no first capture inside if constexpr)
      Real A[nf];  // an affine element's, per element (times the point's weight below)
      if (Mode == AffineMode)
        for (int k = 0; k < nf; ++k) A[k] = factors[static_cast<Size>(e) * nf + k];
      // A trilinear element's J along the column: J0 + zeta J1 (the map is linear in zeta at fixed
      // xi and eta, its d / d zeta column constant), two evaluations from the vertices per column.
      const Real* corners = factors + (Mode == TrilinearMode ? static_cast<Size>(e) * L::corners : Size(0));
      Real J0[3][3], J1[3][3];
      if (Mode == TrilinearMode) {
        trilinear_jacobian(corners, line.points[i], line.points[j], Real(0), J0);
        trilinear_jacobian(corners, line.points[i], line.points[j], Real(1), J1);
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) J1[r][c] -= J0[r][c];
      }
      const Real wij = line.w[i] * line.w[j];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int qk = 0; qk < n1; ++qk) {
        const int p = c2 + n2 * qk;
        Real dx = Real(0), dy = Real(0), dz = Real(0);
        for (int m = 0; m < n1; ++m) {
          dx += gi[m] * v[p - i + m];
          dy += gj[m] * v[p + n1 * (m - j)];
          dz += line.G[qk * n1 + m] * mine.values[0][m];
        }
        Real fx, fy, fz;
        if (Mode == TrilinearMode) {
          // J at the point from the element's vertices; the flux w det J t / rho J^-1 J^-T d, as
          // J^-1 (J^-T d): the gradient in x first.
          Real J[3][3], inv[3][3];
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) J[r][c] = J0[r][c] + line.points[qk] * J1[r][c];
          const Real scale = wij * line.w[qk] * invert_jacobian(J, inv) * corners[L::corners - 1];
          Real g[3];
          for (int beta = 0; beta < 3; ++beta) g[beta] = dx * inv[0][beta] + dy * inv[1][beta] + dz * inv[2][beta];
          fx = scale * (inv[0][0] * g[0] + inv[0][1] * g[1] + inv[0][2] * g[2]);
          fy = scale * (inv[1][0] * g[0] + inv[1][1] * g[1] + inv[1][2] * g[2]);
          fz = scale * (inv[2][0] * g[0] + inv[2][1] * g[1] + inv[2][2] * g[2]);
        } else {
          Real a[nf];
          Real scale = Real(1);
          if (Mode == AffineMode) {
            for (int k = 0; k < nf; ++k) a[k] = A[k];
            scale = wij * line.w[qk];
          } else {
            for (int k = 0; k < nf; ++k) a[k] = factors[(static_cast<Size>(e) * nf + k) * n3 + p];
          }
          // A's entries as factor_of<3> lays them: xx, yy, zz, xy, xz, yz.
          fx = scale * (a[0] * dx + a[3] * dy + a[4] * dz);
          fy = scale * (a[3] * dx + a[1] * dy + a[5] * dz);
          fz = scale * (a[4] * dx + a[5] * dy + a[2] * dz);
        }
        v[n3 + p] = fx;
        v[2 * n3 + p] = fy;
        for (int k = 0; k < n1; ++k) mine.z[0][k] += line.G[qk * n1 + k] * fz;
      }
    });
    ctx.sync();
    for_each_thread(ctx, L::per_block * n2, [&](int t) {
      const Index e = element(t);
      if (e < 0) return;
      const Real* flux = arrays(t) + n3;
      const Column<P, 1, Real>& mine = columns[t];
      const int c2 = t % n2, i = c2 % n1, j = c2 / n1;
      Real ti[n1], tj[n1];  // the columns of G, held across the global stores
      for (int q = 0; q < n1; ++q) {
        ti[q] = G[q * n1 + i];
        tj[q] = G[q * n1 + j];
      }
      // An inner column's inner points (1 <= i, j, k < P) whose step the element takes: their A,
      // C' and U_prev loaded ahead of the sums, together, not each after its own.
      bool inside[n1 - 2] = {};
      typename op::InnerStep<Real>::Level levels[n1 - 2] = {};
      if (i > 0 && i < n1 - 1 && j > 0 && j < n1 - 1 && stepped && stepped[e])
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (int k = 1; k < n1 - 1; ++k) {
          const Index node = connectivity[static_cast<Size>(e) * n3 + c2 + n2 * k];
          inside[k - 1] = inner.takes(node);
          if (inside[k - 1]) levels[k - 1] = inner.level(node, static_cast<Size>(node) * shots + shot(t));
        }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int k = 0; k < n1; ++k) {
        const int a = c2 + n2 * k;
        Real force = mine.z[0][k];
        for (int q = 0; q < n1; ++q) force += ti[q] * flux[a + q - i] + tj[q] * flux[n3 + a + n1 * (q - j)];
        const Index node = connectivity[static_cast<Size>(e) * n3 + a];
        const Size entry = static_cast<Size>(node) * shots + shot(t);
        Real* out = f + entry;
        if (k > 0 && k < n1 - 1 && inside[k - 1])  // (K chi its own: 0 + force, as the update would read it)
          inner.write(entry, levels[k - 1], force, mine.values[0][k]);
        else if (atomic)
          atomic_add(out, force);
        else
          *out += force;
      }
    });
  });
}

// The factors A = w det J s t / rho J^-1 J^-T of one block's elements at their points (s the
// element's stiffness factor, below 1 in an srm layer), in double on
// the host: J from the GLL nodes' coordinates by the same sums along lines (Collocated::gradient
// of the Dim coordinates).
template <int Dim, int P>
std::vector<double> block_factors(const fem::DeviceElementBlock& block, const std::vector<double>& coordinates,
                                  const std::vector<double>& D, const std::vector<double>& thickness, bool per_point) {
  using L = Layout<Dim, P>;
  constexpr int nf = factors_of(Dim);
  using S = Collocated<Dim, P, double>;
  constexpr int np = L::points, nn = L::n;
  const Basis1d<P> basis;
  const std::vector<Index> connectivity = block.connectivity.to_host();
  const std::vector<int> section = block.section.to_host();
  const std::vector<double> stiffness_factor = block.stiffness_factor.to_host();  // srm layers': below 1
  std::vector<double> out(static_cast<std::size_t>(block.n_elements) * nf * np);
  Index bad = -1;
#pragma omp parallel for schedule(static)
  for (Index e = 0; e < block.n_elements; ++e) {
    double x[Dim * np];
    for (int a = 0; a < np; ++a)
      for (int c = 0; c < Dim; ++c)
        x[c * np + a] = coordinates[static_cast<std::size_t>(connectivity[static_cast<std::size_t>(e) * np + a]) * Dim + c];
    const auto s = static_cast<std::size_t>(section[static_cast<std::size_t>(e)]);
    const double coefficient = D[s * fem::material_stride] * thickness[s] *  // t / rho, scaled
                               stiffness_factor[static_cast<std::size_t>(e)];
    double* A = out.data() + static_cast<std::size_t>(e) * nf * np;
    for (int p = 0; p < np; ++p) {
      double J[Dim][Dim], inverse[Dim][Dim];
      S::gradient(basis.G, p, x, J);
      const double det = invert_jacobian(J, inverse);
      if (!(det > 0.0)) {
#pragma omp critical(tremor_fluid_factors)
        bad = bad < 0 ? e : std::min(bad, e);
      }
      const double scale = weight<Dim, nn>(basis.w, p) * det * coefficient;
      for (int alpha = 0; alpha < Dim; ++alpha)
        for (int beta = alpha; beta < Dim; ++beta) {
          double sum = 0.0;
          for (int k = 0; k < Dim; ++k) sum += inverse[alpha][k] * inverse[beta][k];
          A[factor_of<Dim>(alpha, beta) * np + p] = scale * sum;
        }
    }
  }
  TREMOR_CHECK(bad < 0, "fluid element ", block.first + bad, " (global index) has a Jacobian that is not positive at a "
               "point");
  // Parallelepipeds (a box's elements): A = w_p A_e at every point of every element, to rounding,
  // kept once per element, which spares the kernel 6 (2D: 3) loads per point.
  bool affine = !per_point;
  for (Index e = 0; e < block.n_elements && affine; ++e) {
    const double* A = out.data() + static_cast<std::size_t>(e) * nf * np;
    double largest = 0.0;
    for (int k = 0; k < nf * np; ++k) largest = std::max(largest, std::abs(A[k]));
    const double w0 = weight<Dim, nn>(basis.w, 0);
    for (int p = 1; p < np && affine; ++p)
      for (int k = 0; k < nf; ++k)
        affine = affine &&
                 std::abs(A[k * np + p] - weight<Dim, nn>(basis.w, p) / w0 * A[k * np]) <= 1e-12 * largest;
  }
  if (!affine) return out;
  std::vector<double> per_element(static_cast<std::size_t>(block.n_elements) * nf);
  const double w0 = weight<Dim, nn>(basis.w, 0);
  for (Index e = 0; e < block.n_elements; ++e)
    for (int k = 0; k < nf; ++k)
      per_element[static_cast<std::size_t>(e) * nf + static_cast<std::size_t>(k)] =
          out[(static_cast<std::size_t>(e) * nf + static_cast<std::size_t>(k)) * np] / w0;
  return per_element;
}

}  // namespace

template <class Real>
FluidKernels<Real>::FluidKernels(const fem::DeviceElements& elements, Geometry geometry) : elements_(&elements) {
  factors_.resize(elements.blocks.size());
  basis_.resize(elements.blocks.size());
  mode_.assign(elements.blocks.size(), StoredMode);
  if (std::none_of(elements.blocks.begin(), elements.blocks.end(),
                  [](const fem::DeviceElementBlock& block) { return fluid_takes(block); })) return;
  const std::vector<double> coordinates = elements.coordinates.to_host();
  const std::vector<double> D = elements.D.to_host(), thickness = elements.thickness.to_host();
  for (std::size_t b = 0; b < elements.blocks.size(); ++b) {
    const fem::DeviceElementBlock& block = elements.blocks[b];
    if (!fluid_takes(block) || block.n_elements == 0) continue;
    with_order(block, [&](auto dim, auto order) {
      constexpr int Dim = decltype(dim)::value, P = decltype(order)::value;
      if constexpr (P >= 2) {
        const std::vector<double> A =
            block_factors<Dim, P>(block, coordinates, D, thickness, geometry == Geometry::Stored);
        const std::vector<double> values = Basis1d<P>().values();
        basis_[b] = DeviceArray<Real>(elements.exec, std::span<const Real>(rounded<Real>(values)));
        mode_[b] = A.size() == static_cast<std::size_t>(block.n_elements) * factors_of(Dim) ? AffineMode
                                                                                                        : StoredMode;
        if constexpr (Dim == 3)
          if (mode_[b] == StoredMode && geometry == Geometry::Auto) {
            // Hexahedra on the trilinear map of their vertices (a hex8 mesh raised to order P): the
            // vertices and t / rho per element, 25 values, in place of 6 per point.
            DeviceArray<Real> corners = trilinear_corners<Real>(elements, block);
            if (corners.size() > 0) {
              factors_[b] = std::move(corners);
              mode_[b] = TrilinearMode;
              return;
            }
          }
        factors_[b] = DeviceArray<Real>(elements.exec, std::span<const Real>(rounded<Real>(A)));
      }
    });
  }
}

template <class Real>
void FluidKernels<Real>::add(const Exec& exec, std::size_t b, Index n, const Index* list, bool atomic, const Real* chi,
                             Real* f, int shots, const op::InnerStep<Real>& inner,
                             const unsigned char* stepped) const {
  const fem::DeviceElementBlock& block = elements_->blocks[b];
  TREMOR_CHECK(takes(b), "the fluid's sum-factorised kernels do not take block ", b);
  TREMOR_CHECK(!stepped || steps_inner(b), "the fluid's kernels take no inner node's step in block ", b,
               " (quadrilaterals)");
  with_order(block, [&](auto dim, auto order) {
    constexpr int Dim = decltype(dim)::value, P = decltype(order)::value;
    if constexpr (P >= 2) {
      const bool affine = mode_[b] == AffineMode;
      const Real *factors = factors_[b].data(), *basis = basis_[b].data();
      if constexpr (Dim == 3) {  // hexahedra: the column kernel
        const auto launch = [&](auto kernel) {
          kernel(exec, n, list, atomic, block.connectivity.data(), factors, basis, chi, f, shots, inner, stepped);
        };
        affine ? launch(add_columns<P, Real, AffineMode>)
        : mode_[b] == TrilinearMode ? launch(add_columns<P, Real, TrilinearMode>)
                                    : launch(add_columns<P, Real, StoredMode>);
      } else {  // quadrilaterals: the point kernel
        const auto launch = [&](auto kernel) {
          kernel(exec, n, list, atomic, block.connectivity.data(), factors, basis, chi, f, shots);
        };
        affine ? launch(add_block<Dim, P, Real, true>) : launch(add_block<Dim, P, Real, false>);
      }
    }
  });
}

template <class Real>
bool FluidKernels<Real>::steps_inner(std::size_t block) const {
  return takes(block) && elements_->blocks[block].type == ElementType::HexGLL;
}

template <class Real>
const char* FluidKernels<Real>::geometry(std::size_t block) const {
  return mode_[block] == AffineMode ? "per element" : mode_[block] == TrilinearMode ? "trilinear" : "per point";
}

template <class Real>
std::size_t FluidKernels<Real>::bytes() const {
  std::size_t total = 0;
  for (std::size_t b = 0; b < factors_.size(); ++b)
    total += static_cast<std::size_t>(factors_[b].size() + basis_[b].size()) * sizeof(Real);
  return total;
}

template class FluidKernels<float>;
template class FluidKernels<double>;

}  // namespace tremor::sem
