#include "tremor/explicit/matrix_free.hpp"
#include "tremor/explicit/matrix_free_host.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/backend/forall_blocks.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/linear_evaluation.hpp"
#include "tremor/fem/viscoelastic.hpp"

namespace tremor::explicit_fe {

namespace {

// ku += factor f_e at an element's nodes: plain adds where the elements are one colour's (they
// share no node), atomics otherwise.
template <class E, class Real>
TREMOR_HOST_DEVICE inline void add_element(Real* ku, const Index* nodes, double factor, const double* fe,
                                            bool coloured) {
  if (coloured) {
    fem::scatter_add<E>(ku, nodes, factor, fe);
    return;
  }
  for (int a = 0; a < E::n_nodes; ++a)
    for (int c = 0; c < E::dim; ++c)
      atomic_add(ku + static_cast<Size>(nodes[a]) * E::dim + c, static_cast<Real>(factor * fe[a * E::dim + c]));
}

// ku += K_e u_e for the n elements of one block of type E: `list` one colour's elements (they
// share no node: plain adds, in colour order, deterministic), or every element of the block
// (list null: atomic adds). Geometry gathered and K_e u_e evaluated in double
// (fem::apply_element_stiffness: evaluate -> the section's pointwise law -> integrate at every
// point of the default stiffness rule). Traffic per element: n_nodes indices, n_nodes * dim
// coordinates (8 B), n_nodes * dim u reads and ku read-modify-writes (sizeof(Real)), the section's
// law (its D, n_voigt^2 x 8 B, and kind), the element's absorbing-layer stiffness factor (8 B;
// K_e scales with D, so K_e u_e is scaled).
// Where Viscous (attenuating sections, fem/viscoelastic.hpp): the section's law with the memory
// variables of each point of the stiffness rule, `values` (the most solids x n_voigt) per point in
// double, element by element at state[(e points + q) values], advanced by the step the sections'
// records are made for (fem::solids_record, solids_stride per section).
template <class E, class Real, bool Viscous = false>
void apply_elements(const Exec& exec, Index n, const Index* list, const fem::ElementArrays in, const Real* u,
                    Real* ku, const double* records = nullptr, double* state = nullptr, int values = 0) {
  const fem::StiffnessRule<E> rule = fem::stiffness_rule<E>();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    constexpr int n_dof = E::n_nodes * E::dim;
    (void)records, (void)state, (void)values, (void)rule;  // (captured outside if constexpr)
    const Index e = list ? list[i] : i;
    const Index* nodes = in.connectivity + static_cast<Size>(e) * E::n_nodes;
    double x[n_dof], ue[n_dof], fe[n_dof];
    fem::gather_coordinates<E>(in.coordinates, nodes, x);
    fem::gather_values<E>(u, nodes, ue);
    const int s = in.section[e];
    const fem::SectionLaw<E::dim, double> elastic(in.material, s);
    if constexpr (Viscous) {
      const double* record = records + static_cast<Size>(s) * fem::solids_stride;
      const int per = values;  // (the point's law takes the kernel's locals only)
      double* own = state + static_cast<Size>(e) * rule.n_points * per;
      const auto at = [&elastic, record, own, per](int q) {
        return fem::ViscoelasticPoint<E::dim, double, fem::SectionLaw<E::dim, double>>{elastic, record, own + q * per,
                                                                                     1};
      };
      fem::apply_element_stiffness<E>(x, at, in.thickness[s], rule, ue, fe);
    } else {
      fem::apply_element_stiffness<E>(x, elastic, in.thickness[s], rule, ue, fe);
    }
    add_element<E>(ku, nodes, in.factor[e], fe, list != nullptr);
  });
}

// Before a loop of a variable trip count in a device kernel (a tile node's incidences): unrolled
// by 4, so that the loads of four iterations are in flight at once (tri2d 39.2 -> 39.9 and tet4
// 14.6 -> 15.2 GDOF-steps/s in float). Nothing on the host.
#if defined(__CUDA_ARCH__)
#define TREMOR_UNROLL_BY_4 _Pragma("unroll 4")
#else
#define TREMOR_UNROLL_BY_4
#endif

// A node's dim values as one load or store: 2D pairs are aligned to their size (a 64- or 128-bit
// shared-memory access, half the wavefronts of two scalar ones at a 2D node's stride); 3D stays
// scalar.
template <class T, int n>
struct alignas(n == 2 ? 2 * sizeof(T) : alignof(T)) NodeValues {
  T v[n];
};
template <int n, class T>
TREMOR_HOST_DEVICE inline NodeValues<T, n> load_node(const T* base, Index k) {
  return *reinterpret_cast<const NodeValues<T, n>*>(base + static_cast<Size>(k) * n);
}
template <int n, class T>
TREMOR_HOST_DEVICE inline void store_node(T* base, int k, const NodeValues<T, n>& value) {
  *reinterpret_cast<NodeValues<T, n>*>(base + k * n) = value;
}

// K_e u_e of slot s from the tile's shared arrays (coordinates relative to the tile): in 2D each
// element node's coordinates and u read as pairs into registers first; in 3D read where
// linear_stiffness_action asks for them (a hex8's 48 values held at once would cost registers,
// and so blocks).
template <class E, bool Affine, class Real, class Law>
TREMOR_HOST_DEVICE inline void tile_element(const Real* xs, const Real* us, const int* local, const Law& law,
                                            Real scale, Real* fe) {
  constexpr int dim = E::dim, nn = E::n_nodes;
  if constexpr (dim == 2) {
    NodeValues<Real, dim> x[nn];
    NodeValues<Real, dim> v[nn];
    TREMOR_UNROLL
    for (int a = 0; a < nn; ++a) {
      x[a] = load_node<dim>(xs, local[a]);
      v[a] = load_node<dim>(us, local[a]);
    }
    fem::linear_stiffness_action<E, Affine>([&](int a, int c) { return x[a].v[c]; },
                                            [&](int a, int c) { return v[a].v[c]; }, law, scale, fe);
  } else {
    fem::linear_stiffness_action<E, Affine>([&](int a, int c) { return xs[local[a] * dim + c]; },
                                            [&](int a, int c) { return us[local[a] * dim + c]; }, law, scale, fe);
  }
}

// ku[at .. at + 2) += {x, y}: where `pair` (at is 8-byte aligned), one vector atomic in float on
// the GPU (sm_90's float2 atomicAdd), else one per component.
template <class Real>
TREMOR_HOST_DEVICE inline void atomic_add_pair(Real* at, const NodeValues<Real, 2>& value, [[maybe_unused]] bool pair) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (sizeof(Real) == 4) {
    if (pair) {
      atomicAdd(reinterpret_cast<float2*>(at), make_float2(value.v[0], value.v[1]));
      return;
    }
  }
#endif
  atomic_add(at, value.v[0]);
  atomic_add(at + 1, value.v[1]);
}

// ku += K u for the tiles of one block of linear elements E (fem/element_tiles.hpp, built with
// kernel_coordinates), Affine where the block's elements all are. Per tile (a GPU block): its
// incidences into shared memory (16-byte words where the tile's start on one), and a thread per
// tile node its coordinates (relative to the tile, in Real, read in tile order), u and the end of
// its incidences, every load of the node issued before the first store (the tile's
// loads are latency-bound: they were half the kernel's stall samples on tri3 and tet4 when each
// node's offsets and each component were loaded in a loop of their own); a thread per element
// computes K_e u_e in Real (fem::linear_stiffness_action, reading the shared arrays) and writes its
// element nodes' forces to shared memory; then each tile node's element forces are summed in slot
// order and the sum added to ku (atomic: a node of several tiles). Summing through block-scope
// atomics in shared memory instead was measured as fast on hex8 in float and 19-27% slower on tri3
// and tet4 (many elements per node contend). Deriving the element nodes' local indices in shared
// memory from the incidences (each tile node marking its own) instead of reading them saved a byte
// per element node but cost L1 throughput, the tri3 kernel's limit (92% of L1 with it). Shared
// memory per tile: n_nodes x tile x 2 (rounded up to 16 bytes) + max_nodes x (2 dim x
// sizeof(Real) + 2) + n_nodes x tile x dim x sizeof(Real) bytes.
template <class E, bool Affine, class Real>
void apply_tiles(const Exec& exec, const fem::TileView<Real> t, const fem::MaterialView<Real> material, const Real* u,
                 Real* ku) {
  constexpr int dim = E::dim, nn = E::n_nodes;
  struct alignas(16) Words {  // 8 incidences: one 16-byte load
    std::uint16_t v[8];
  };
  const int element_nodes = nn * t.tile;
  const int padded = (element_nodes + 7) / 8 * 8;  // incidences, in whole 16-byte words
  const bool wide = element_nodes % 8 == 0;        // every tile's incidences start on 16 bytes
  const std::size_t shared = static_cast<std::size_t>(padded) * sizeof(std::uint16_t) +
                             static_cast<std::size_t>(t.max_nodes) * dim * 2 * sizeof(Real) +
                             static_cast<std::size_t>(element_nodes) * dim * sizeof(Real) +
                             static_cast<std::size_t>(t.max_nodes) * sizeof(std::uint16_t);
  TREMOR_CHECK(t.coordinates, "element tiles: the kernel reads tiles built with kernel_coordinates");
  // u and ku as 2D pairs where each starts on a pair's size (a subrange of a larger vector might
  // not, nor a host allocation); the tiles' coordinates are an allocation of their own.
  const auto starts_pair = [](const auto* p) { return reinterpret_cast<std::uintptr_t>(p) % (2 * sizeof(*p)) == 0; };
  const bool pairs = dim == 2 && starts_pair(u) && starts_pair(ku);
  forall_blocks<fem::max_tile>(exec, t.n_tiles, t.tile, shared, [=] TREMOR_LAMBDA(const BlockContext& ctx) {
    const Index first = t.node_offsets[ctx.block];
    const int n_nodes = static_cast<int>(t.node_offsets[ctx.block + 1] - first), n = n_nodes * dim;
    const int count = t.counts[ctx.block];
    // [incidences | coordinates | u | forces [a * tile + slot][c] | each node's incidences' end]
    auto* incidences = ctx.shared<std::uint16_t>();
    Real* xs = reinterpret_cast<Real*>(incidences + padded);
    Real* us = xs + t.max_nodes * dim;
    Real* fs = us + t.max_nodes * dim;
    auto* ends = reinterpret_cast<std::uint16_t*>(fs + element_nodes * dim);
    const std::uint16_t* tile_incidences = t.incidences + static_cast<Size>(ctx.block) * element_nodes;
    const std::uint16_t* tile_ends = t.incidence_ends + first;
    // Each slot's tile indices, section and scale, loaded first and kept in registers across the
    // node loads (their latency then overlaps those instead of opening the elements' phase: tri2d
    // 39.1 -> 39.2 and tet4 14.1 -> 14.6 GDOF-steps/s in float), except a hex8 in double, whose
    // kernel is at its registers' limit (18.5 -> 14.8 carried).
    struct Slot {
      int nodes[nn];
      int section;
      Real scale;
    };
    const auto load_slot = [&](int s, Slot& slot) {
      const Size at = t.property(ctx.block, s);
      TREMOR_UNROLL
      for (int a = 0; a < nn; ++a) slot.nodes[a] = t.local[(static_cast<Size>(ctx.block) * nn + a) * t.tile + s];
      slot.section = t.section[at];
      slot.scale = t.scale[at];
    };
    constexpr bool carry = !(nn == 8 && sizeof(Real) == 8);
    Carried<Slot, carry ? fem::max_tile : 1> slots;
    if (carry) for_each_thread(ctx, count, [&](int s) { load_slot(s, slots[s]); });
    if (wide) {
      for_each_thread(ctx, (count * nn + 7) / 8, [&](int k) {
        reinterpret_cast<Words*>(incidences)[k] = reinterpret_cast<const Words*>(tile_incidences)[k];
      });
    } else {
      for_each_thread(ctx, count * nn, [&](int k) { incidences[k] = tile_incidences[k]; });
    }
    for_each_thread(ctx, n_nodes, [&](int k) {
      const Index node = t.node(ctx.block, first + k);
      const std::uint16_t end = tile_ends[k];
      NodeValues<Real, dim> x, v;
      if constexpr (dim == 2) {
        x = load_node<dim>(t.coordinates, first + k);
      } else {
        TREMOR_UNROLL
        for (int c = 0; c < dim; ++c) x.v[c] = t.coordinates[static_cast<Size>(first + k) * dim + c];
      }
      if (pairs) {
        v = load_node<dim>(u, node);
      } else {
        TREMOR_UNROLL
        for (int c = 0; c < dim; ++c) v.v[c] = u[static_cast<Size>(node) * dim + c];
      }
      store_node<dim>(xs, k, x);
      store_node<dim>(us, k, v);
      ends[k] = end;
    });
    ctx.sync();
    for_each_thread(ctx, count, [&](int s) {
      Slot loaded;
      if (!carry) load_slot(s, loaded);
      const Slot& slot = carry ? slots[s] : loaded;
      Real fe[nn * dim];
      const fem::SectionLaw<dim, Real> law(material, slot.section);
      tile_element<E, Affine, Real>(xs, us, slot.nodes, law, slot.scale, fe);
      TREMOR_UNROLL
      for (int a = 0; a < nn; ++a) {
        NodeValues<Real, dim> f;
        TREMOR_UNROLL
        for (int c = 0; c < dim; ++c) f.v[c] = fe[a * dim + c];
        store_node<dim>(fs, a * t.tile + s, f);
      }
    });
    ctx.sync();
    if (dim == 3) {  // (a plain if: nvcc refuses a first capture inside if constexpr)
      // A thread per tile node sums its element nodes' forces, every component in one pass over its
      // incidences, into us (u is read no more); then a thread per node and component adds them to
      // ku, a warp's adds to consecutive entries. Measured against a thread per node and component
      // summing alone: hex8 5-7% and tet4 1-4% faster.
      for_each_thread(ctx, n_nodes, [&](int node) {
        Real sum[dim] = {};
        TREMOR_UNROLL_BY_4
        for (int j = node ? ends[node - 1] : 0; j < ends[node]; ++j) {
          const Real* f = fs + incidences[j] * dim;
          TREMOR_UNROLL
          for (int c = 0; c < dim; ++c) sum[c] += f[c];
        }
        TREMOR_UNROLL
        for (int c = 0; c < dim; ++c) us[node * dim + c] = sum[c];
      });
      ctx.sync();
      for_each_thread(ctx, n, [&](int k) {
        atomic_add(ku + static_cast<Size>(t.node(ctx.block, first + k / dim)) * dim + k % dim, us[k]);
      });
    } else {
      // 2D: a thread per tile node sums its forces as pairs and adds the pair to ku.
      for_each_thread(ctx, n_nodes, [&](int node) {
        NodeValues<Real, 2> sum = {};
        TREMOR_UNROLL_BY_4
        for (int j = node ? ends[node - 1] : 0; j < ends[node]; ++j) {
          const NodeValues<Real, 2> f = load_node<2>(fs, incidences[j]);
          sum.v[0] += f.v[0];
          sum.v[1] += f.v[1];
        }
        atomic_add_pair(ku + static_cast<Size>(t.node(ctx.block, first + node)) * 2, sum, pairs);
      });
    }
  });
}

bool tiled_type(ElementType type, int order) {
  return fem::with_element(type, order, [](auto element) { return fem::linear_evaluation_takes<decltype(element)>; });
}

// The tiled kernel's flops per element of type E, as linear_stiffness_action spells them (a
// multiply-add 2): the reference gradients of the coordinates (one line per direction where
// affine) and of u, the inverse Jacobian (once where affine, else per point), per point the
// gradient, the strain, the law (isotropic 15 in 3D and 9 in 2D, else 2 nv^2) and the flux, the
// integration's transposed differences, and the sums of the tile nodes' forces (one add per
// element node and component).
template <class E>
double tiled_flops(bool isotropic, bool affine) {
  constexpr int dim = E::dim, nv = fem::voigt_size<dim>;
  using Ev = fem::LinearEvaluation<E, double>;
  constexpr int lines = Ev::n_lines, points = Ev::n_points;
  // One field's reference gradient on `l` lines: per direction its differences, and on tensor
  // elements with more than one line the interpolation to each (l multiply-adds) and a halving.
  auto gradient = [&](int l) { return dim * (l + (Ev::simplex ? 0.0 : l == 1 ? 1.0 : l * (2.0 * l + 1.0))); };
  affine = affine || Ev::simplex;
  const double inverse = dim == 2 ? 9.0 : 42.0;
  const double law = isotropic ? (dim == 3 ? 15.0 : 9.0) : 2.0 * nv * nv;
  const double point = (affine ? 0.0 : inverse) + 2.0 * dim * dim * dim /* gradient */ + (nv - dim) /* strain */ +
                       law + 2.0 /* scale */ + dim * dim * (2.0 * dim + 2.0) /* flux */;
  const double integrate = dim * dim * lines * (Ev::simplex ? 2.0 : 2.0 * lines + 3.0);
  return dim * (gradient(affine ? 1 : lines) + gradient(lines)) + (affine ? inverse : 0.0) + points * point + integrate +
         E::n_nodes * dim;
}

}  // namespace

template <class Real>
MatrixFreeOperator<Real>::MatrixFreeOperator(const Exec& exec, const Model& model)
    : MatrixFreeOperator(exec, model, fem::section_table(model), fem::colour_elements(model.mesh)) {}

template <class Real>
MatrixFreeOperator<Real>::MatrixFreeOperator(const Exec& exec, const Model& model, const fem::SectionTable& table,
                                             const fem::ElementColouring& colouring)
    : MatrixFreeOperator(exec, std::make_shared<const fem::DeviceElements>(exec, model.mesh, table, colouring), true,
                         0, true) {}

template <class Real>
MatrixFreeOperator<Real>::MatrixFreeOperator(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements,
                                             bool deterministic, int tile, double time_step)
    : MatrixFreeOperator(exec, std::move(elements), deterministic, tile,
                         deterministic && exec.backend() == Backend::Cuda, time_step) {}

template <class Real>
MatrixFreeOperator<Real>::MatrixFreeOperator(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements,
                                             bool deterministic, int tile, bool reference, double time_step)
    : exec_(exec), n_dofs_(elements->n_dofs()), elements_(std::move(elements)) {
  TREMOR_CHECK(elements_->exec.space() == exec.space(), "matrix-free operator: the elements are in ",
               elements_->exec.describe(), "'s memory; ", exec.describe(), " was given");
  if (deterministic)
    TREMOR_CHECK(elements_->n_colours > 0 || elements_->n_elements() == 0,
                 "matrix-free operator: the elements were built without a colouring");
  if (time_step > 0.0 && elements_->attenuates()) {  // the reference's kernel, with memory variables
    keep_memory_variables(time_step);
    return;
  }
  if (reference) return;
  host_ = exec.backend() != Backend::Cuda;
  coloured_ = deterministic;
  tiles_.emplace(*elements_, tiled_type, tile, !(host_ && coloured_));
  bool all_tiled = true;
  // Flops: every element at the isotropic law's count, or the anisotropic one's where any section
  // is anisotropic (an upper bound on a mixed mesh).
  const std::vector<int> kinds = elements_->law.to_host();
  const bool isotropic = std::all_of(kinds.begin(), kinds.end(), [](int k) { return k == int(fem::LawKind::Isotropic); });
  for (const fem::TileBlock<Real>& t : tiles_->blocks) {
    if (t.n_tiles == 0 && t.n_elements > 0) all_tiled = false;
    if (t.n_tiles > 0)
      fem::with_element(t.type, t.order, [&](auto element) {
        using E = decltype(element);
        if constexpr (fem::linear_evaluation_takes<E>) flops_ += double(t.n_elements) * tiled_flops<E>(isotropic, t.affine);
      });
  }
  if (!all_tiled) flops_ = 0.0;  // the reference kernel's blocks are not counted
  // With every block tiled the elements are needed no more: the tiles hold their coordinates (or a
  // host's triangles their geometry).
  if (all_tiled) elements_.reset();
}

template <class Real>
void MatrixFreeOperator<Real>::keep_memory_variables(double dt) {
  const fem::DeviceElements& els = *elements_;
  TREMOR_CHECK(!fem::any_coarse(els.solids), "the matrix_free operator keeps every solid's memory variables at "
               "each point, not coarse-grained ones (q_coarse_grained): use sem");
  int most = 0;
  records_ = DeviceArray<double>(exec_, std::span<const double>(fem::solids_records(els.solids, dt, most)));
  values_ = most * els.n_voigt;
  for (const fem::DeviceElementBlock& block : els.blocks) {
    const Size points = static_cast<Size>(block.n_elements) * fem::stiffness_rule_points(block.type, block.order);
    memory_.emplace_back(exec_, static_cast<Index>(points * values_));
  }
  reset_state();
}

template <class Real>
Size MatrixFreeOperator<Real>::state_size() const {
  Size total = 0;
  for (const DeviceArray<double>& values : memory_) total += values.size();
  return total;
}

template <class Real>
void MatrixFreeOperator<Real>::reset_state() {
  for (DeviceArray<double>& values : memory_) fill_zero(exec_, values.data(), values.size());
  memory_columns_.reset(exec_);
}

template <class Real>
void MatrixFreeOperator<Real>::keep_states(int columns) {
  select_state(0);
  memory_columns_.keep(exec_, memory_, columns);
}

// Element by element: each element's points' variables together, in the blocks' order.
template <class Real>
std::vector<Size> MatrixFreeOperator<Real>::state_offsets() const {
  if (memory_.empty()) return {};
  std::vector<Size> offsets{0};
  for (std::size_t b = 0; b < memory_.size(); ++b) {
    const Index n = elements_->blocks[b].n_elements;
    for (Index e = 0; e < n; ++e) offsets.push_back(offsets.back() + memory_[b].size() / n);
  }
  return offsets;
}

template <class Real>
std::vector<double> MatrixFreeOperator<Real>::get_state() const {
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(state_size()));
  for (const DeviceArray<double>& block : memory_) {
    const std::vector<double> held = block.to_host();
    values.insert(values.end(), held.begin(), held.end());
  }
  return values;
}

template <class Real>
void MatrixFreeOperator<Real>::set_state(std::span<const double> values) {
  op::Operator<Real>::set_state(values);  // the count
  for (DeviceArray<double>& block : memory_) {
    block.copy_from_host(std::vector<double>(values.begin(), values.begin() + block.size()));
    values = values.subspan(static_cast<std::size_t>(block.size()));
  }
}

template <class Real>
void MatrixFreeOperator<Real>::apply_unchecked(const Real* u, Real* ku) const {
  fill_zero(exec_, ku, n_dofs_);
  add_unchecked(u, ku);
}

template <class Real>
void MatrixFreeOperator<Real>::add_unchecked(const Real* u, Real* ku) const {
  if (tiles_) {
    for (std::size_t b = 0; b < tiles_->blocks.size(); ++b) {
      const fem::TileBlock<Real>& t = tiles_->blocks[b];
      if (t.n_elements == 0) continue;
      if (t.n_tiles == 0) {  // a type without tiles: the reference's kernel, colour by colour on the host
        const fem::DeviceElementBlock& block = elements_->blocks[b];
        if (coloured_)
          for (int c = 0; c < elements_->n_colours; ++c) apply_block(block, c, u, ku);
        else
          apply_block(block, -1, u, ku);
      } else if (host_ && coloured_) {
        add_tiles_on_host(exec_, t, tiles_->material(), u, ku);
      } else {
        fem::with_element(t.type, t.order, [&](auto element) {
          using E = decltype(element);
          if constexpr (fem::linear_evaluation_takes<E>) {
            if (E::simplex || t.affine)
              apply_tiles<E, true, Real>(exec_, t.view(), tiles_->material(), u, ku);
            else if constexpr (!E::simplex)
              apply_tiles<E, false, Real>(exec_, t.view(), tiles_->material(), u, ku);
          }
        });
      }
    }
    return;
  }
  // The reference's kernel (with the memory variables where they are kept): colour by colour, or
  // with atomics where the elements carry no colours (an attenuating run's without --deterministic).
  if (elements_->n_colours == 0)
    for (const fem::DeviceElementBlock& block : elements_->blocks) apply_block(block, -1, u, ku);
  for (int c = 0; c < elements_->n_colours; ++c)
    for (const fem::DeviceElementBlock& block : elements_->blocks) apply_block(block, c, u, ku);
}

template <class Real>
void MatrixFreeOperator<Real>::apply_block(const fem::DeviceElementBlock& block, int colour, const Real* u,
                                           Real* ku) const {
  const Index n = colour < 0 ? block.n_elements : block.n_in(colour);
  if (n == 0) return;
  const Index* list = colour < 0 ? nullptr : block.in(colour);
  fem::with_element(block.type, block.order, [&](auto element) {
    using E = decltype(element);
    if (memory_.empty()) {
      apply_elements<E, Real>(exec_, n, list, fem::arrays_of(*elements_, block), u, ku);
      return;
    }
    const auto b = static_cast<std::size_t>(&block - elements_->blocks.data());
    apply_elements<E, Real, true>(exec_, n, list, fem::arrays_of(*elements_, block), u, ku, records_.data(),
                                  memory_[b].data(), values_);
  });
}

template <class Real>
std::size_t MatrixFreeOperator<Real>::bytes() const {
  std::size_t total = tiles_ ? tiles_->bytes() : 0;
  if (!elements_) return total;
  // What an apply reads of the elements: not the densities, which DeviceElements also holds for
  // the mass kernels.
  total += static_cast<std::size_t>(elements_->coordinates.size() + elements_->D.size() + elements_->thickness.size()) *
           sizeof(double);
  for (const fem::DeviceElementBlock& block : elements_->blocks)
    total += static_cast<std::size_t>(block.connectivity.size()) * sizeof(Index) +
             static_cast<std::size_t>(block.section.size()) * (sizeof(int) + sizeof(Index) + sizeof(double));
  // The memory variables, read and written back: counted twice.
  return total + static_cast<std::size_t>(2 * state_size() + records_.size()) * sizeof(double);
}

template <class Real>
std::string MatrixFreeOperator<Real>::details() const {
  if (!tiles_)
    return str(n_colours() > 0 ? str(n_colours(), " colours") : std::string("atomic scatter"),
               memory_.empty() ? "" : ", memory variables at the stiffness rule's points");
  const int tile = std::max_element(tiles_->blocks.begin(), tiles_->blocks.end(), [](const auto& a, const auto& b) {
                     return a.tile < b.tile;
                   })->tile;
  char per_element[32];
  std::snprintf(per_element, sizeof per_element, "%.2f", tiles_->nodes_per_element());
  return str("tiles of ", tile, " elements, ", per_element, " nodes per element");
}

template class MatrixFreeOperator<float>;
template class MatrixFreeOperator<double>;

}  // namespace tremor::explicit_fe
