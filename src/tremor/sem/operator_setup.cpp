// The sem operator's set-up (operator.hpp): each block's shapes surveyed on the Exec (affine,
// trilinear or curved; inverted elements named), its geometric factors, the 1D basis, the
// materials in Real, the elements it evaluates, its flops; the memory model's sizes and the
// refusal of other element types. The kernels that apply it are operator.cpp's.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/fem/elements.hpp"
#include "tremor/fem/point_materials.hpp"
#include "tremor/sem/layout.hpp"
#include "tremor/sem/operator.hpp"

namespace tremor::sem {

namespace {

// The geometric factors of one block's n elements: per element and GLL point q,
// geometry[(e * F + m) * n^Dim + q] = J^-1 [m / Dim][m % Dim] for m < Dim^2 and
// w det J * scale[e] for m = Dim^2 (F = Dim^2 + 1). The node coordinates take the gradient of the
// apply (in double), so the Jacobian is exact for the element's geometry of order P.
// bad[e] = 1 where det J <= 0 at some point.
template <int Dim, int P, class Real>
void compute_geometry(const Exec& exec, Index n, const Index* connectivity, const double* coordinates,
                      const double* scale, const double* basis, Real* geometry, int* bad) {
  using L = Layout<Dim, P>;
  constexpr int n1 = L::n, np = L::points, F = L::factors;
  forall(exec, n, [=] TREMOR_LAMBDA(Index e) { bad[e] = 0; });
  forall_blocks<L::threads>(exec, L::blocks(n), L::threads, L::template shared_bytes<double>(),
                            [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    const double* G = load_and_gather<Dim, P, double>(ctx, basis, n, nullptr, connectivity, coordinates);
    const double* work = G + L::basis_size;
    for_each_thread(ctx, L::per_block * np, [&](int t) {
      const Index e = element_of(ctx, L::per_block, np, t, n, nullptr);
      if (e < 0) return;
      const int p = t % np;
      double J[Dim][Dim], inv[Dim][Dim];
      Steps<Dim, P, double>::gradient(G, p, work + t / np * L::arrays * np, J);
      const double det = invert_jacobian(J, inv);
      const double* w = G + n1 * n1 + n1;  // the GLL weights follow G and the points
      Real* out = geometry + static_cast<Size>(e) * F * np + p;
      for (int m = 0; m < Dim * Dim; ++m) out[m * np] = static_cast<Real>(inv[m / Dim][m % Dim]);
      out[Dim * Dim * np] = static_cast<Real>(weight<Dim, n1>(w, p) * det * scale[e]);
      if (!(det > 0.0)) bad[e] = 1;
    });
  });
}

// How each of a block's n elements is shaped (Shape): on the multilinear (trilinear, bilinear)
// map of its vertices when every node is within 1e-12 of the element's diagonal of that map (a
// generated or elevated hex8 or quad4 mesh, to rounding), and then affine (a parallelepiped or
// parallelogram) when its vertices are too; inverted when det J <= 0 at a GLL point of that map.
// corners[C e ..] = the vertices relative to vertex 0 (Dim 2^Dim values) and the element's scale
// (the absorbing layers' stiffness factor times the section's thickness), what the multilinear
// apply reads; affine[F e ..] = J^-1 (Dim^2 values) and det J times the scale, what the affine
// apply reads.
enum Shape : int { Affine = 0, Curved = 1, Inverted = 2, Trilinear = 3 };

template <int Dim, int P, class Real>
void survey_corners(const Exec& exec, Index n, const Index* connectivity, const double* coordinates,
                    const double* scale, const double* basis, Real* corners, Real* affine, int* flags) {
  using E = fem::GllElement<Dim, P>;
  using L = Layout<Dim, P>;
  constexpr int n1 = L::n, np = L::points, V = L::vertices, C = L::corners, F = L::factors;
  forall(exec, n, [=] TREMOR_LAMBDA(Index e) {
    const Index* nodes = connectivity + static_cast<Size>(e) * np;
    const double* origin = coordinates + static_cast<Size>(nodes[0]) * Dim;
    double x[Dim * V], size2 = 0.0;
    for (int v = 0; v < V; ++v) {
      const double* at = coordinates + static_cast<Size>(nodes[fem::vertex_node<E>(v)]) * Dim;
      double length2 = 0.0;
      for (int c = 0; c < Dim; ++c) {
        x[Dim * v + c] = at[c] - origin[c];
        length2 += x[Dim * v + c] * x[Dim * v + c];
      }
      size2 = size2 > length2 ? size2 : length2;
    }
    double gll[n1];
    gll_points(n1, gll);
    int flag = Affine;
    for (int a = 0; a < np && flag == Affine; ++a) {
      const double xi[3] = {gll[a % n1], gll[a / n1 % n1], Dim == 3 ? gll[a / (n1 * n1)] : 0.0};
      const double* at = coordinates + static_cast<Size>(nodes[a]) * Dim;
      double off2 = 0.0;
      for (int c = 0; c < Dim; ++c) {
        double mapped = 0.0;
        for (int v = 1; v < V; ++v) {
          double s[3];
          vertex_signs(v, s[0], s[1], s[2]);
          double shape = 1.0;
          for (int d = 0; d < Dim; ++d) shape *= 0.5 * (1.0 + s[d] * xi[d]);
          mapped += shape * x[Dim * v + c];
        }
        const double d = at[c] - origin[c] - mapped;
        off2 += d * d;
      }
      if (off2 > 1e-24 * size2) flag = Curved;
    }
    const double* points = basis + n1 * n1;
    for (int q = 0; q < np && flag == Affine; ++q) {
      const double xi[3] = {points[q % n1], points[q / n1 % n1], Dim == 3 ? points[q / (n1 * n1)] : 0.0};
      double J[Dim][Dim], inv[Dim][Dim];
      vertex_jacobian(x, xi, J);
      if (!(invert_jacobian(J, inv) > 0.0)) flag = Inverted;
    }
    // Affine: every vertex at x0 + i a + j b (+ k c) (a, b, c the edges from vertex 0 to vertices
    // 1, 3 and 4, i, j, k in {0, 1}); then J = [a b c] / 2 everywhere.
    constexpr int edge[3] = {1, 3, 4};
    for (int v = 1; v < V && flag == Affine; ++v) {
      double s[3];
      vertex_signs(v, s[0], s[1], s[2]);
      double off2 = 0.0;
      for (int c = 0; c < Dim; ++c) {
        double d = x[Dim * v + c];
        for (int k = 0; k < Dim; ++k)
          if (s[k] > 0) d -= x[Dim * edge[k] + c];
        off2 += d * d;
      }
      if (off2 > 1e-24 * size2) flag = Trilinear;
    }
    if (flag == Affine) {
      double J[Dim][Dim], inv[Dim][Dim];
      for (int c = 0; c < Dim; ++c)
        for (int k = 0; k < Dim; ++k) J[c][k] = 0.5 * x[Dim * edge[k] + c];
      const double det = invert_jacobian(J, inv);
      for (int m = 0; m < Dim * Dim; ++m)
        affine[static_cast<Size>(e) * F + m] = static_cast<Real>(inv[m / Dim][m % Dim]);
      affine[static_cast<Size>(e) * F + Dim * Dim] = static_cast<Real>(det * scale[e]);
    }
    for (int k = 0; k < Dim * V; ++k) corners[static_cast<Size>(e) * C + k] = static_cast<Real>(x[k]);
    corners[static_cast<Size>(e) * C + Dim * V] = static_cast<Real>(scale[e]);
    flags[e] = flag;
  });
}

// Each element's scale of w det J: the absorbing layers' stiffness factor times the section's
// thickness (1 in 3D; 2D integrals are per unit thickness).
DeviceArray<double> element_scale(const Exec& exec, const fem::DeviceElements& els,
                                  const fem::DeviceElementBlock& block) {
  DeviceArray<double> scale(exec, block.n_elements);
  double* out = scale.data();
  const double *factor = block.stiffness_factor.data(), *thickness = els.thickness.data();
  const int* section = block.section.data();
  forall(exec, block.n_elements, [=] TREMOR_LAMBDA(Index e) { out[e] = factor[e] * thickness[section[e]]; });
  return scale;
}

// Floating-point operations of one element's apply, counted from the steps above (a multiply-add
// is 2): the sums along the lines (per point Dim^2 n multiply-adds for the gradient and as many
// back: 3D 36 n^4 per element, 2D 16 n^3; order 1, Dim^2 n^Dim each way), then per point the
// gradient d inv, the strain, the
// stress, the flux with its scale, the Jacobian where it is recomputed (and the weight product),
// and the scatter's adds.
double element_flops(int dim, int order, int mode, bool isotropic) {
  const double n = order + 1, points = dim == 3 ? n * n * n : n * n;
  const double sweeps = order == 1 ? 4.0 * dim * dim * points * points  // every shape function, both ways
                        : dim == 3 ? 36.0 * n * n * n * n : 16.0 * n * n * n;
  double point = 0.0;
  if (dim == 3) {
    point = 54 + 3 + (isotropic ? 15 : 72) + 63 + 3;  // gradient, strain, stress, flux, scatter
    point += mode == AffineMode ? 3 : mode == TrilinearMode ? 270 : 0;
  } else {
    point = 16 + 1 + (isotropic ? 9 : 18) + 20 + 2;
    point += mode == AffineMode ? 2 : mode == TrilinearMode ? 53 : 0;
  }
  return sweeps + points * point;
}

// Whether the hexahedra of an order take the column kernel (apply_columns) unless told: where it
// was measured faster with the atomic scatter (H100, 20M-DOF plates, docs/benchmarks.md), orders
// 2 to 8 in float and double, by 1-17%; at order 1 the point kernel's 16 elements per block do
// better. Colour by colour, each launch one colour's elements, the point kernel.
bool columns_by_default(int order, bool coloured) { return !coloured && order >= 2; }

// Why element block b (0-based) of this type stops the sem operator, and what to do.
std::string refusal(std::size_t b, ElementType type, int order) {
  return str("the sem operator takes GLL hexahedra and quadrilaterals (order 1..", max_gll_order, "); element block ",
             b + 1, " holds ",
             element_name(type, order),
             " elements: raise a hex8, hex20 or hex27 (2D: quad4, quad8 or quad9) mesh to GLL order P with "
             "`[mesh] order = P` in the model file or `--order P`, generate `hex-gllP` or `quad-gllP` elements, or "
             "choose another operator");
}

}  // namespace

std::string unsupported_mesh(const Mesh& mesh) {
  for (std::size_t b = 0; b < mesh.blocks.size(); ++b) {
    const ElementBlock& block = mesh.blocks[b];
    if (!gll(block.type) && block.n_elements() > 0) return refusal(b, block.type, block.order);
  }
  return {};
}

std::size_t loop_bytes(const Mesh& mesh, std::size_t real_size, std::size_t geometry_values) {
  std::size_t total = 0;
  for (const ElementBlock& block : mesh.blocks) {
    if (!gll(block.type) || block.n_elements() == 0) continue;
    const auto points = static_cast<std::size_t>(block.n_element_nodes());
    const auto n_elements = static_cast<std::size_t>(block.n_elements());
    const std::size_t factors = block.type == ElementType::QuadGLL ? 5 : 10;  // J^-1 and w det J per point
    if (geometry_values == 0) total += n_elements * points * factors * real_size;
    // The 1D basis (Basis1d<P>::values: G, points, weights, B), at most 4 (P + 1)^2 values.
    total += 4 * static_cast<std::size_t>(block.order + 1) * static_cast<std::size_t>(block.order + 1) * real_size;
  }
  // (The materials, 36 values and a flag per section, are a few hundred bytes.)
  return total + geometry_values * real_size;
}

std::size_t setup_bytes(const Mesh& mesh, std::size_t real_size) {
  std::size_t most = 0;
  for (const ElementBlock& block : mesh.blocks) {
    if (!gll(block.type)) continue;
    const bool quad = block.type == ElementType::QuadGLL;
    most = std::max(most, static_cast<std::size_t>(block.n_elements()) *
                              ((quad ? 9 + 5 : 25 + 10) * real_size + sizeof(int) + sizeof(double)));
  }
  return most;
}

template <class Real>
SemOperator<Real>::SemOperator(std::shared_ptr<const fem::DeviceElements> elements, bool deterministic,
                               Geometry geometry, Kernel kernel, double time_step, const PmlProfile* pml)
    : exec_(elements->exec), n_dofs_(elements->n_dofs()), elements_(std::move(elements)) {
  const fem::DeviceElements& els = *elements_;
  for (std::size_t b = 0; b < els.blocks.size(); ++b)
    TREMOR_CHECK(gll(els.blocks[b].type) || els.blocks[b].n_elements == 0,
                 refusal(b, els.blocks[b].type, els.blocks[b].order));
  coloured_ = deterministic && els.n_colours > 0;
  TREMOR_CHECK(!deterministic || coloured_ || els.n_elements() == 0,
               "the sem operator: a deterministic scatter needs the elements built with a colouring");
  const std::vector<double> D = els.D.to_host();
  const std::vector<int> kinds = els.law.to_host();
  material_ = DeviceArray<Real>(exec_, std::span<const Real>(rounded<Real>(D)));
  kinds_ = DeviceArray<int>(exec_, std::span<const int>(kinds));
  for (std::size_t b = 0; b < els.blocks.size(); ++b) {
    const fem::DeviceElementBlock& block = els.blocks[b];
    const std::vector<double> factors = block.stiffness_factor.to_host();
    leave_out_unstiffened(block, factors);
    if (!gll(block.type)) {  // an empty block of another type: nothing to apply
      moduli_.emplace_back();
      basis_.emplace_back();
      geometry_.emplace_back();
      mode_.push_back(StoredMode);
      columns_.push_back(false);
      continue;
    }
    // A material field's moduli at each point, where the block's elements take it there.
    const fem::PointMaterials points = fem::point_materials(els, block);
    if (points.empty()) {
      moduli_.emplace_back();
    } else {
      const auto np = static_cast<std::size_t>(points.points);
      std::vector<Real> moduli(static_cast<std::size_t>(block.n_elements) * 2 * np);
      for (Index e = 0; e < block.n_elements; ++e) {
        const double* from = points.of(e);
        Real* to = moduli.data() + static_cast<std::size_t>(e) * 2 * np;
        for (std::size_t k = 0; k < 2 * np; ++k) to[k] = static_cast<Real>(from[k]);
      }
      moduli_.emplace_back(exec_, std::span<const Real>(moduli));
    }
    const DeviceArray<double> scale = element_scale(exec_, els, block);
    with_order(block, [&](auto dim, auto order) {
      constexpr int Dim = decltype(dim)::value, P = decltype(order)::value;
      using L = Layout<Dim, P>;
      const std::vector<double> host = Basis1d<P>().values();
      basis_.emplace_back(exec_, std::span<const Real>(rounded<Real>(host)));
      const DeviceArray<double> exact(exec_, std::span<const double>(host));
      const auto inverted = [&](const std::vector<int>& flags, int value) {
        const auto first = std::find(flags.begin(), flags.end(), value);
        TREMOR_CHECK(first == flags.end(), "the sem operator: element ", block.first + (first - flags.begin()) + 1,
                     " (", element_name(block.type, block.order), ", element block ", b + 1,
                     ") has a Jacobian that is not positive at a GLL point: the element is inverted or degenerate");
      };
      // The shapes first, with the corners and the affine factors: one is kept when every element
      // of the block is trilinear, or affine.
      DeviceArray<Real> corners(exec_, block.n_elements * L::corners), affine(exec_, block.n_elements * L::factors);
      DeviceArray<int> flags(exec_, block.n_elements);
      survey_corners<Dim, P, Real>(exec_, block.n_elements, block.connectivity.data(), els.coordinates.data(),
                                   scale.data(), exact.data(), corners.data(), affine.data(), flags.data());
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
      geometry_.emplace_back(exec_, block.n_elements * L::factors * L::points);
      compute_geometry<Dim, P, Real>(exec_, block.n_elements, block.connectivity.data(), els.coordinates.data(),
                                     scale.data(), exact.data(), geometry_.back().data(), flags.data());
      inverted(flags.to_host(), 1);  // compute_geometry's flag
    });
    const int dim = block.type == ElementType::HexGLL ? 3 : 2;
    const bool columns = kernel == Kernel::Columns ||
                         (kernel == Kernel::Auto && columns_by_default(block.order, coloured_));
    columns_.push_back(dim == 3 && columns && block.order >= 2);  // order 1: points (not collocated)
    std::vector<double> per_section(kinds.size(), 0.0);
    for (std::size_t s = 0; s < per_section.size(); ++s)
      per_section[s] = element_flops(dim, block.order, mode_.back(), kinds[s] == int(fem::LawKind::Isotropic));
    const std::vector<int> sections = block.section.to_host();
    for (std::size_t e = 0; e < sections.size(); ++e)
      flops_ += factors[e] != 0.0 ? per_section[static_cast<std::size_t>(sections[e])] : 0.0;
  }
  // (the PML first: whether it is kept decides where the memory variables lie, memory_layout)
  if (pml) keep_pml(*pml, time_step);
  if (time_step > 0.0 && els.attenuates()) keep_memory_variables(time_step);
  // Several vectors in one pass where every block that has elements takes the column kernel
  // (hexahedra of GLL order 2 and more; by default scattered by atomics) without moduli per point,
  // so that each vector's sums are apply()'s, and nothing keeps state.
  batches_ = state_size() == 0;
  for (std::size_t b = 0; b < els.blocks.size(); ++b)
    if (els.blocks[b].n_elements > 0 && (!columns_[b] || moduli_[b].size() > 0)) batches_ = false;
}

// An element whose stiffness factor is 0 adds nothing: a PML's (explicit/pml.hpp), 9.5% of the
// gll4 plate's elements in bench/models/plate-gll4-pml.toml, evaluated here for nothing before.
// The block's lists of the others from its `factors`, by colour or in one.
template <class Real>
void SemOperator<Real>::leave_out_unstiffened(const fem::DeviceElementBlock& block,
                                              const std::vector<double>& factors) {
  std::vector<Index> list, offsets{0};
  if (std::find(factors.begin(), factors.end(), 0.0) != factors.end()) {
    const std::vector<Index> all = coloured_ ? block.colour_elements.to_host() : std::vector<Index>();
    const std::vector<Index> bounds = coloured_ ? block.colour_offsets : std::vector<Index>{0, block.n_elements};
    for (std::size_t c = 0; c + 1 < bounds.size(); ++c) {
      for (Index k = bounds[c]; k < bounds[c + 1]; ++k) {
        const Index e = coloured_ ? all[static_cast<std::size_t>(k)] : k;
        if (factors[static_cast<std::size_t>(e)] != 0.0) list.push_back(e);
      }
      offsets.push_back(static_cast<Index>(list.size()));
    }
  } else {
    offsets.clear();
  }
  evaluated_.emplace_back(exec_, std::span<const Index>(list));
  evaluated_offsets_.push_back(std::move(offsets));
}

// (operator.hpp declares the class's instantiations extern: this file's members are named here)
#define TREMOR_SEM_SETUP(Real)                                                                                      \
  template SemOperator<Real>::SemOperator(std::shared_ptr<const fem::DeviceElements>, bool, Geometry, Kernel,      \
                                          double, const PmlProfile*);                                              \
  template void SemOperator<Real>::leave_out_unstiffened(const fem::DeviceElementBlock&, const std::vector<double>&);
TREMOR_SEM_SETUP(float)
TREMOR_SEM_SETUP(double)
#undef TREMOR_SEM_SETUP

namespace {

// A fluid's elements' t / rho times their stiffness factor (its sections' D[0] = 1 / rho).
DeviceArray<double> fluid_coefficient(const fem::DeviceElements& els, const fem::DeviceElementBlock& block) {
  DeviceArray<double> scale(els.exec, block.n_elements);
  double* out = scale.data();
  const double *factor = block.stiffness_factor.data(), *thickness = els.thickness.data(), *D = els.D.data();
  const int* section = block.section.data();
  forall(els.exec, block.n_elements, [=] TREMOR_LAMBDA(Index e) {
    out[e] = D[static_cast<Size>(section[e]) * fem::material_stride] * thickness[section[e]] * factor[e];
  });
  return scale;
}

}  // namespace

template <class Real>
DeviceArray<Real> trilinear_corners(const fem::DeviceElements& elements, const fem::DeviceElementBlock& block) {
  DeviceArray<Real> out;
  const DeviceArray<double> scale = fluid_coefficient(elements, block);
  with_order(block, [&](auto dim, auto order) {
    constexpr int Dim = decltype(dim)::value, P = decltype(order)::value;
    if constexpr (Dim == 3) {
      using L = Layout<3, P>;
      const Exec& exec = elements.exec;
      const Index n = block.n_elements;
      const std::vector<double> host = Basis1d<P>().values();
      const DeviceArray<double> basis(exec, std::span<const double>(host));
      DeviceArray<Real> corners(exec, n * L::corners), affine(exec, n * L::factors);
      DeviceArray<int> flags(exec, n);
      survey_corners<3, P, Real>(exec, n, block.connectivity.data(), elements.coordinates.data(), scale.data(),
                                 basis.data(), corners.data(), affine.data(), flags.data());
      const std::vector<int> shapes = flags.to_host();
      if (std::all_of(shapes.begin(), shapes.end(), [](int s) { return s == Affine || s == Trilinear; }))
        out = std::move(corners);
    }
  });
  return out;
}

template DeviceArray<float> trilinear_corners(const fem::DeviceElements&, const fem::DeviceElementBlock&);
template DeviceArray<double> trilinear_corners(const fem::DeviceElements&, const fem::DeviceElementBlock&);

}  // namespace tremor::sem
