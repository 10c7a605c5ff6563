#include "tremor/sem/operator.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/elements.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/sem/sum_factorised.hpp"

namespace tremor::sem {

namespace {

// How a block of threads covers elements of order P: one thread per Gauss point, several elements
// per block where an element has fewer than 128 points (so a block keeps 4 warps busy), the
// threads rounded up to whole warps. Shared memory per element: 18 arrays of n^3 values (the
// gathered u and the sweeps of sum_factorised.hpp, two halves used in turn), plus the 1D basis:
// B, G, the Gauss points and weights (basis_size values).
template <int P>
struct Layout {
  static constexpr int n = P + 1, n3 = n * n * n;
  static constexpr int per_block = n3 >= 128 ? 1 : 128 / n3;
  static constexpr int threads = (per_block * n3 + 31) / 32 * 32;
  static constexpr int arrays = 18;
  static constexpr int basis_size = 2 * n * n + 2 * n;
  template <class T>
  static constexpr std::size_t shared_bytes() {
    return (basis_size + static_cast<std::size_t>(per_block) * arrays * n3) * sizeof(T);
  }
  static Index blocks(Index n_elements) { return (n_elements + per_block - 1) / per_block; }
};

// The start of every element's sweeps in a block (forall_blocks body): each element's 3 values
// per node (u, or the coordinates) gathered into its work arrays, then steps 1 and 2
// (sum_factorised.hpp); after the barrier that ends it, work + 9 n^3 holds what along_z reads.
// The block's elements are list[i] (or i without a list) for i < n. B and G, written into shared
// memory just before, are visible from its first barrier on (the gather does not read them).
template <int P, class T>
TREMOR_HOST_DEVICE void gather_and_sweep(const BlockContext& ctx, const T* B, const T* G, T* work, Index n,
                                         const Index* list, const Index* connectivity, const T* values) {
  using L = Layout<P>;
  using S = HexSweeps<P, T>;
  constexpr int n3 = L::n3;
  for_each_thread(ctx, L::per_block * n3, [&](int t) {
    const int slot = t / n3, p = t % n3;
    const Index i = ctx.block * L::per_block + slot;
    if (i >= n) return;
    const Index e = list ? list[i] : i;
    const Index node = connectivity[static_cast<Size>(e) * n3 + p];
    T* v = work + slot * L::arrays * n3;
    for (int c = 0; c < 3; ++c) v[c * n3 + p] = values[static_cast<Size>(node) * 3 + c];
  });
  ctx.sync();
  for_each_thread(ctx, L::per_block * n3, [&](int t) {
    T* v = work + t / n3 * L::arrays * n3;
    S::along_x(B, G, t % n3, v, v + 3 * n3, v + 6 * n3);
  });
  ctx.sync();
  for_each_thread(ctx, L::per_block * n3, [&](int t) {
    T* v = work + t / n3 * L::arrays * n3;
    S::along_y(B, G, t % n3, v + 3 * n3, v + 6 * n3, v + 9 * n3);
  });
  ctx.sync();
}

// f(std::integral_constant<int, P>) for a block of GLL hexahedra of order P, through
// fem::with_element (the one runtime-to-template switch); nothing for a block of another type
// (only empty ones reach here: the constructor refuses the others).
template <class F>
void with_order(const fem::DeviceElementBlock& block, F&& f) {
  fem::with_element(block.type, block.order, [&](auto element) {
    using E = decltype(element);
    if constexpr (E::type == ElementType::HexGLL) f(std::integral_constant<int, E::order>{});
  });
}

// The geometric factors of one block's n elements: per element and Gauss point q,
// geometry[(e * 10 + m) * n^3 + q] = J^-1 [m / 3][m % 3] for m < 9 and w det J * factor for m = 9.
// The node coordinates take the sweeps of the apply (in double), so the Jacobian is exact for the
// element's geometry of order P. bad[e] = 1 where det J <= 0 at some point.
template <int P, class Real>
void compute_geometry(const Exec& exec, Index n, const Index* connectivity, const double* coordinates,
                      const double* factor, const double* basis, Real* geometry, int* bad) {
  using L = Layout<P>;
  using S = HexSweeps<P, double>;
  constexpr int n1 = L::n, n3 = L::n3;
  forall(exec, n, [=] TREMOR_LAMBDA(Index e) { bad[e] = 0; });
  forall_blocks<L::threads>(exec, L::blocks(n), L::threads, L::template shared_bytes<double>(),
                            [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    double* B = ctx.shared<double>();
    double* G = B + n1 * n1;
    double* work = B + L::basis_size;
    for_each_thread(ctx, L::basis_size, [&](int t) { B[t] = basis[t]; });
    gather_and_sweep<P, double>(ctx, B, G, work, n, nullptr, connectivity, coordinates);
    for_each_thread(ctx, L::per_block * n3, [&](int t) {
      const int slot = t / n3, p = t % n3;
      const Index e = ctx.block * L::per_block + slot;
      if (e >= n) return;
      double J[3][3], inv[3][3];
      S::along_z(B, G, p, work + slot * L::arrays * n3 + 9 * n3, J);
      const double det = invert_jacobian(J, inv);
      const double* w = basis + 2 * n1 * n1 + n1;  // the Gauss weights follow B, G and the points
      Real* out = geometry + static_cast<Size>(e) * 10 * n3 + p;
      for (int m = 0; m < 9; ++m) out[m * n3] = static_cast<Real>(inv[m / 3][m % 3]);
      out[9 * n3] = static_cast<Real>(w[p % n1] * w[p / n1 % n1] * w[p / (n1 * n1)] * det * factor[e]);
      if (!(det > 0.0)) bad[e] = 1;
    });
  });
}

// How each of a block's n elements is shaped (Shape): on the trilinear map of its vertices when
// every node is within 1e-12 of the element's diagonal of that map (a generated or elevated hex8
// mesh, to rounding), and then affine (a parallelepiped) when its vertices are too; inverted when
// det J <= 0 at a Gauss point of that map. corners[25 e ..] = the vertices relative to vertex 0
// (24 values) and the absorbing layers' stiffness factor, what the trilinear apply reads;
// affine[10 e ..] = J^-1 (9 values) and det J times the factor, what the affine apply reads.
enum Shape : int { Affine = 0, Curved = 1, Inverted = 2, Trilinear = 3 };

template <int P, class Real>
void survey_corners(const Exec& exec, Index n, const Index* connectivity, const double* coordinates,
                    const double* factor, const double* basis, Real* corners, Real* affine, int* flags) {
  using E = fem::HexGll<P>;
  constexpr int n1 = P + 1, n3 = n1 * n1 * n1;
  forall(exec, n, [=] TREMOR_LAMBDA(Index e) {
    const Index* nodes = connectivity + static_cast<Size>(e) * n3;
    const double* origin = coordinates + static_cast<Size>(nodes[0]) * 3;
    double x[24], size2 = 0.0;
    for (int v = 0; v < 8; ++v) {
      const double* at = coordinates + static_cast<Size>(nodes[fem::vertex_node<E>(v)]) * 3;
      double length2 = 0.0;
      for (int c = 0; c < 3; ++c) {
        x[3 * v + c] = at[c] - origin[c];
        length2 += x[3 * v + c] * x[3 * v + c];
      }
      size2 = size2 > length2 ? size2 : length2;
    }
    double gll[n1];
    gll_points(n1, gll);
    int flag = Affine;
    for (int a = 0; a < n3 && flag == Affine; ++a) {
      const double xi = gll[a % n1], eta = gll[a / n1 % n1], zeta = gll[a / (n1 * n1)];
      const double* at = coordinates + static_cast<Size>(nodes[a]) * 3;
      double off2 = 0.0;
      for (int c = 0; c < 3; ++c) {
        double mapped = 0.0;
        for (int v = 1; v < 8; ++v) {
          double sx, sy, sz;
          vertex_signs(v, sx, sy, sz);
          mapped += 0.125 * (1.0 + sx * xi) * (1.0 + sy * eta) * (1.0 + sz * zeta) * x[3 * v + c];
        }
        const double d = at[c] - origin[c] - mapped;
        off2 += d * d;
      }
      if (off2 > 1e-24 * size2) flag = Curved;
    }
    const double* points = basis + 2 * n1 * n1;
    for (int q = 0; q < n3 && flag == Affine; ++q) {
      double J[3][3], inv[3][3];
      trilinear_jacobian(x, points[q % n1], points[q / n1 % n1], points[q / (n1 * n1)], J);
      if (!(invert_jacobian(J, inv) > 0.0)) flag = Inverted;
    }
    // Affine: every vertex at x0 + i a + j b + k c (a, b, c the edges from vertex 0, i, j, k in
    // {0, 1}); then J = [a b c] / 2 everywhere.
    for (int v = 1; v < 8 && flag == Affine; ++v) {
      double sx, sy, sz;
      vertex_signs(v, sx, sy, sz);
      double off2 = 0.0;
      for (int c = 0; c < 3; ++c) {
        const double d = x[3 * v + c] - (sx > 0 ? x[3 + c] : 0.0) - (sy > 0 ? x[9 + c] : 0.0) - (sz > 0 ? x[12 + c] : 0.0);
        off2 += d * d;
      }
      if (off2 > 1e-24 * size2) flag = Trilinear;
    }
    if (flag == Affine) {
      double J[3][3], inv[3][3];
      for (int c = 0; c < 3; ++c) {
        J[c][0] = 0.5 * x[3 + c];
        J[c][1] = 0.5 * x[9 + c];
        J[c][2] = 0.5 * x[12 + c];
      }
      const double det = invert_jacobian(J, inv);
      for (int m = 0; m < 9; ++m) affine[static_cast<Size>(e) * 10 + m] = static_cast<Real>(inv[m / 3][m % 3]);
      affine[static_cast<Size>(e) * 10 + 9] = static_cast<Real>(det * factor[e]);
    }
    for (int k = 0; k < 24; ++k) corners[static_cast<Size>(e) * 25 + k] = static_cast<Real>(x[k]);
    corners[static_cast<Size>(e) * 25 + 24] = static_cast<Real>(factor[e]);
    flags[e] = flag;
  });
}

// ku += K_e u_e for the n elements of one block (list[i] for i < n, or i itself without a list).
// Without a list elements share nodes and add by atomics; a list is one colour, whose elements
// share none.
// geometry, by Mode (the Geometry of a block): the stored factors (compute_geometry), the corners
// or the affine factors (survey_corners).
enum Mode : int { StoredMode = 0, TrilinearMode = 1, AffineMode = 2 };

template <int P, class Real, int Mode>
void apply_elements(const Exec& exec, Index n, const Index* list, const Index* connectivity, const int* section,
                    const Real* geometry, const Real* material, const int* isotropic, const Real* basis,
                    const Real* u, Real* ku) {
  using L = Layout<P>;
  using S = HexSweeps<P, Real>;
  constexpr int n1 = L::n, n3 = L::n3;
  forall_blocks<L::threads>(exec, L::blocks(n), L::threads, L::template shared_bytes<Real>(),
                            [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    const Real* factors = geometry;  // (nvcc: captured here, not first inside the if constexpr below)
    Real* B = ctx.shared<Real>();
    Real* G = B + n1 * n1;
    Real* work = B + L::basis_size;
    for_each_thread(ctx, L::basis_size, [&](int t) { B[t] = basis[t]; });
    gather_and_sweep<P, Real>(ctx, B, G, work, n, list, connectivity, u);
    // The last sweep and the pointwise flux, into the first 9 arrays (u and step 1 are spent).
    for_each_thread(ctx, L::per_block * n3, [&](int t) {
      const int slot = t / n3, p = t % n3;
      const Index i = ctx.block * L::per_block + slot;
      if (i >= n) return;
      const Index e = list ? list[i] : i;
      Real* v = work + slot * L::arrays * n3;
      Real d[3][3], inv[3][3], f[3][3], scale;
      S::along_z(B, G, p, v + 9 * n3, d);
      if constexpr (Mode == AffineMode) {
        const Real* g = factors + static_cast<Size>(e) * 10;
        const Real* w = G + n1 * n1 + n1;
        for (int m = 0; m < 9; ++m) inv[m / 3][m % 3] = g[m];
        scale = w[p % n1] * w[p / n1 % n1] * w[p / (n1 * n1)] * g[9];
      } else if constexpr (Mode == TrilinearMode) {
        const Real* corners = factors + static_cast<Size>(e) * 25;
        const Real* points = G + n1 * n1;
        const Real* w = points + n1;
        const int qi = p % n1, qj = p / n1 % n1, qk = p / (n1 * n1);
        Real J[3][3];
        trilinear_jacobian(corners, points[qi], points[qj], points[qk], J);
        scale = w[qi] * w[qj] * w[qk] * invert_jacobian(J, inv) * corners[24];
      } else {
        const Real* g = factors + static_cast<Size>(e) * 10 * n3 + p;
        for (int m = 0; m < 9; ++m) inv[m / 3][m % 3] = g[m * n3];
        scale = g[9 * n3];
      }
      const int s = section[e];
      const Real* D = material + 36 * s;
      flux(d, inv, scale, D, isotropic[s] != 0, D[1], D[21], f);
      for (int c = 0; c < 3; ++c)
        for (int alpha = 0; alpha < 3; ++alpha) v[(3 * c + alpha) * n3 + p] = f[c][alpha];
    });
    ctx.sync();
    for_each_thread(ctx, L::per_block * n3, [&](int t) {
      Real* v = work + t / n3 * L::arrays * n3;
      S::back_z(B, G, t % n3, v, v + 9 * n3);
    });
    ctx.sync();
    for_each_thread(ctx, L::per_block * n3, [&](int t) {
      Real* v = work + t / n3 * L::arrays * n3;
      S::back_y(B, G, t % n3, v + 9 * n3, v, v + 3 * n3);
    });
    ctx.sync();
    // The last transposed sweep and the scatter-add.
    for_each_thread(ctx, L::per_block * n3, [&](int t) {
      const int slot = t / n3, p = t % n3;
      const Index i = ctx.block * L::per_block + slot;
      if (i >= n) return;
      const Index e = list ? list[i] : i;
      Real* v = work + slot * L::arrays * n3;
      Real force[3];
      S::back_x(B, G, p, v, v + 3 * n3, force);
      const Index node = connectivity[static_cast<Size>(e) * n3 + p];
      Real* out = ku + static_cast<Size>(node) * 3;
      if (list) {
        for (int c = 0; c < 3; ++c) out[c] += force[c];
      } else {
        for (int c = 0; c < 3; ++c) atomic_add(out + c, force[c]);
      }
    });
  });
}

// A section's D is isotropic when it has the form of lambda and mu (zeros where it must, equal
// entries to a relative 1e-14): then the flux computes sigma from lambda = D[0][1] and mu = D[3][3].
bool is_isotropic(const double* D) {
  const double lambda = D[1], mu = D[21], scale = std::abs(D[0]);
  const auto near = [&](double a, double b) { return std::abs(a - b) <= 1e-14 * scale; };
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      double expected = 0.0;
      if (i < 3 && j < 3) expected = i == j ? lambda + 2.0 * mu : lambda;
      if (i >= 3 && i == j) expected = mu;
      if (!near(D[i * 6 + j], expected)) return false;
    }
  return true;
}

template <class Real>
std::vector<Real> rounded(std::span<const double> values) {
  std::vector<Real> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), [](double x) { return static_cast<Real>(x); });
  return out;
}

// Why element block b (0-based) of this type stops the sem operator, and what to do.
std::string refusal(std::size_t b, ElementType type, int order) {
  return str("the sem operator takes GLL hexahedra (order 1..", max_gll_order, "); element block ", b + 1, " holds ",
             element_name(type, order),
             " elements: raise a hex8, hex20 or hex27 mesh to GLL order P with `[mesh] order = P` in the model "
             "file or `--order P`, generate `hex-gllP` boxes, or choose another operator");
}

}  // namespace

std::string unsupported_mesh(const Mesh& mesh) {
  for (std::size_t b = 0; b < mesh.blocks.size(); ++b) {
    const ElementBlock& block = mesh.blocks[b];
    if (block.type != ElementType::HexGLL && block.n_elements() > 0) return refusal(b, block.type, block.order);
  }
  return {};
}

std::size_t loop_bytes(const Mesh& mesh, std::size_t real_size, bool coloured) {
  std::size_t total = 0;
  for (const ElementBlock& block : mesh.blocks) {
    const auto n3 = static_cast<std::size_t>(block.n_element_nodes());
    const auto n_elements = static_cast<std::size_t>(block.n_elements());
    total += n_elements * (n3 * (sizeof(Index) + 10 * real_size) + sizeof(int) + (coloured ? sizeof(Index) : 0));
  }
  return total;
}

template <class Real>
SemOperator<Real>::SemOperator(std::shared_ptr<const fem::DeviceElements> elements, bool deterministic,
                               Geometry geometry)
    : exec_(elements->exec), n_dofs_(elements->n_dofs()), elements_(std::move(elements)) {
  const fem::DeviceElements& els = *elements_;
  for (std::size_t b = 0; b < els.blocks.size(); ++b)
    TREMOR_CHECK(els.blocks[b].type == ElementType::HexGLL || els.blocks[b].n_elements == 0,
                 refusal(b, els.blocks[b].type, els.blocks[b].order));
  coloured_ = deterministic && els.n_colours > 0;
  TREMOR_CHECK(!deterministic || coloured_ || els.n_elements() == 0,
               "the sem operator: a deterministic scatter needs the elements built with a colouring");
  const std::vector<double> D = els.D.to_host();
  std::vector<int> isotropic(static_cast<std::size_t>(els.n_sections()));
  for (std::size_t s = 0; s < isotropic.size(); ++s) isotropic[s] = is_isotropic(D.data() + 36 * s) ? 1 : 0;
  material_ = DeviceArray<Real>(exec_, std::span<const Real>(rounded<Real>(D)));
  isotropic_ = DeviceArray<int>(exec_, std::span<const int>(isotropic));
  for (std::size_t b = 0; b < els.blocks.size(); ++b) {
    const fem::DeviceElementBlock& block = els.blocks[b];
    if (block.type != ElementType::HexGLL) {  // an empty block of another type: nothing to apply
      basis_.emplace_back();
      geometry_.emplace_back();
      mode_.push_back(StoredMode);
      continue;
    }
    with_order(block, [&](auto order) {
      constexpr int P = decltype(order)::value, n = P + 1, n3 = n * n * n;
      const Basis1d<P> basis;
      std::vector<double> host(basis.B, basis.B + n * n);
      host.insert(host.end(), basis.G, basis.G + n * n);
      host.insert(host.end(), basis.points, basis.points + n);
      host.insert(host.end(), basis.w, basis.w + n);
      basis_.emplace_back(exec_, std::span<const Real>(rounded<Real>(host)));
      const DeviceArray<double> exact(exec_, std::span<const double>(host));
      const auto inverted = [&](const std::vector<int>& flags, int value) {
        const auto first = std::find(flags.begin(), flags.end(), value);
        TREMOR_CHECK(first == flags.end(), "the sem operator: element ", block.first + (first - flags.begin()) + 1,
                     " (", element_name(block.type, block.order), ", element block ", b + 1,
                     ") has a Jacobian that is not positive at a Gauss point: the element is inverted or degenerate");
      };
      // The shapes first, with the corners and the affine factors: one is kept when every element
      // of the block is trilinear, or affine.
      DeviceArray<Real> corners(exec_, block.n_elements * 25), affine(exec_, block.n_elements * 10);
      DeviceArray<int> flags(exec_, block.n_elements);
      survey_corners<P, Real>(exec_, block.n_elements, block.connectivity.data(), els.coordinates.data(),
                              block.stiffness_factor.data(), exact.data(), corners.data(), affine.data(),
                              flags.data());
      const std::vector<int> shapes = flags.to_host();  // waits for the kernel
      inverted(shapes, Inverted);
      const auto all = [&](auto is) { return std::all_of(shapes.begin(), shapes.end(), is); };
      const bool stored = geometry == Geometry::Stored;
      mode_.push_back(!stored && all([](int s) { return s == Affine; }) ? AffineMode
                      : !stored && all([](int s) { return s == Affine || s == Trilinear; }) ? TrilinearMode
                                                                                           : StoredMode);
      if (mode_.back() != StoredMode) {
        geometry_.push_back(std::move(mode_.back() == AffineMode ? affine : corners));
        return;
      }
      corners = DeviceArray<Real>();
      affine = DeviceArray<Real>();
      geometry_.emplace_back(exec_, block.n_elements * 10 * n3);
      compute_geometry<P, Real>(exec_, block.n_elements, block.connectivity.data(), els.coordinates.data(),
                                block.stiffness_factor.data(), exact.data(), geometry_.back().data(), flags.data());
      inverted(flags.to_host(), 1);  // compute_geometry's flag
    });
  }
}

template <class Real>
void SemOperator<Real>::apply_unchecked(const Real* u, Real* ku) const {
  forall(exec_, n_dofs_, [=] TREMOR_LAMBDA(Index i) { ku[i] = Real(0); });
  const fem::DeviceElements& els = *elements_;
  const int n_passes = coloured_ ? els.n_colours : 1;
  for (int c = 0; c < n_passes; ++c)
    for (std::size_t b = 0; b < els.blocks.size(); ++b) {
      const fem::DeviceElementBlock& block = els.blocks[b];
      const Index n = coloured_ ? block.n_in(c) : block.n_elements;
      if (n == 0) continue;
      const Index* list = coloured_ ? block.in(c) : nullptr;
      with_order(block, [&](auto order) {
        constexpr int P = decltype(order)::value;
        const auto launch = mode_[b] == AffineMode      ? apply_elements<P, Real, AffineMode>
                            : mode_[b] == TrilinearMode ? apply_elements<P, Real, TrilinearMode>
                                                        : apply_elements<P, Real, StoredMode>;
        launch(exec_, n, list, block.connectivity.data(), block.section.data(), geometry_[b].data(), material_.data(),
               isotropic_.data(), basis_[b].data(), u, ku);
      });
    }
}

template <class Real>
std::size_t SemOperator<Real>::bytes() const {
  std::size_t total = static_cast<std::size_t>(material_.size()) * sizeof(Real) +
                      static_cast<std::size_t>(isotropic_.size()) * sizeof(int);
  for (std::size_t b = 0; b < geometry_.size(); ++b) {
    const fem::DeviceElementBlock& block = elements_->blocks[b];
    total += static_cast<std::size_t>(geometry_[b].size() + basis_[b].size()) * sizeof(Real) +
             static_cast<std::size_t>(block.connectivity.size()) * sizeof(Index) +
             static_cast<std::size_t>(block.section.size()) * (sizeof(int) + (coloured_ ? sizeof(Index) : 0));
  }
  return total;
}

template <class Real>
std::string SemOperator<Real>::details() const {
  std::string orders;
  for (const fem::DeviceElementBlock& block : elements_->blocks)
    orders += str(orders.empty() ? "" : ", ", block.order);
  std::string geometry;
  for (const char mode : mode_) {
    const char* name = mode == AffineMode      ? "affine: J per element"
                       : mode == TrilinearMode ? "trilinear: J from the vertices"
                                               : "geometric factors stored per Gauss point";
    if (geometry.find(name) == std::string::npos) geometry += str(geometry.empty() ? "" : " / ", name);
  }
  return str("GLL order ", orders, ", ", geometry, ", ",
             coloured_ ? str(elements_->n_colours, " colours") : std::string("atomic scatter"));
}

namespace {

template <class Real>
std::unique_ptr<op::Operator<Real>> make_sem(const op::OperatorInputs& inputs) {
  return std::make_unique<SemOperator<Real>>(inputs.elements, inputs.deterministic);
}

// The memory model: the operator's arrays besides the elements it keeps.
std::size_t sem_loop_bytes(const op::OperatorSizes& s) {
  return s.element_bytes + loop_bytes(*s.mesh, s.real_size, true);
}
std::size_t nothing(const op::OperatorSizes&) { return 0; }

}  // namespace

void register_operators(op::Registry& registry) {
  op::OperatorEntry entry{"sem",
                          "no K: GLL hexahedra by sum factorisation (1D matrices along each direction), "
                          "geometric factors per Gauss point",
                          false,
                          false,
                          false,
                          op::all_backends,
                          sem_loop_bytes,
                          nothing,
                          make_sem<float>,
                          make_sem<double>};
  entry.unsupported = unsupported_mesh;
  registry.add(entry);
}

template class SemOperator<float>;
template class SemOperator<double>;

}  // namespace tremor::sem
