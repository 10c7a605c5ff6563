// The fluid of a run as a per-step term of its solid (fluid.hpp, FluidTerm): its set-up, the
// coupling's passes, its step beside or after the solid's apply, its receivers and checkpoints.
#include "tremor/explicit/fluid.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <utility>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/mesh/reorder.hpp"

namespace tremor::explicit_fe {

namespace {

// visit(k, column) for each entry of row r: (r, r) alone where each row holds its own column only
// (InterfaceRows::diagonal), without reading the row's offsets and columns.
template <class Visit>
TREMOR_HOST_DEVICE inline void for_each_column(const InterfaceRows& rows, Index r, const Visit& visit) {
  if (rows.diagonal) {
    visit(r, r);
    return;
  }
  for (Index k = rows.offsets[r]; k < rows.offsets[r + 1]; ++k) visit(k, rows.col[k]);
}

// f_f += C^T u_n: the normal displacement the solid imposes on the fluid (one row per interface
// node), each of `shots` stepped together (fields interleaved: node i of shot s at i shots + s) by a
// thread of its own, summing as one shot's does.
template <class Real>
void add_normal_motion(const Exec& exec, const InterfaceRows& rows, int shots, const Real* u, Real* f, bool atomic) {
  const int dim = rows.dim;
  const Index *solid = rows.solid, *fluid = rows.fluid;
  const double* C = rows.C;
  forall(exec, static_cast<Index>(static_cast<Size>(rows.n) * shots), [=] TREMOR_LAMBDA(Index t) {
    const Index r = t / shots, s = t % shots;
    double sum = 0.0;
    for_each_column(rows, r, [&](Index k, Index column) {
      for (int c = 0; c < dim; ++c)
        sum += C[k * dim + c] * static_cast<double>(u[(static_cast<Size>(solid[column]) * dim + c) * shots + s]);
    });
    Real* out = f + static_cast<Size>(fluid[r]) * shots + s;
    if (atomic)
      atomic_add(out, static_cast<Real>(sum));
    else
      *out += static_cast<Real>(sum);
  });
}

// One column's C p, the product rounded as written on a GPU (not contracted into the add that takes
// it): the same bits from add_traction and from pressure_where_read, whose add follows it at once.
TREMOR_HOST_DEVICE inline double coupling_product(double c, double p) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(c, p);
#else
  return c * p;
#endif
}

// The solid's internal force -C chi_tt = C p: the fluid's traction -p n on the faces (by atomics
// beside the solid's apply, which adds to the same nodes), of each of `shots` as add_normal_motion.
template <class Real>
void add_traction(const Exec& exec, const InterfaceRows& rows, int shots, const Real* p, Real* forces, bool atomic) {
  const int dim = rows.dim;
  const Index *solid = rows.solid, *fluid = rows.fluid;
  const double* C = rows.C;
  forall(exec, static_cast<Index>(static_cast<Size>(rows.n) * shots), [=] TREMOR_LAMBDA(Index t) {
    const Index r = t / shots, s = t % shots;
    double sum[3] = {0.0, 0.0, 0.0};
    for_each_column(rows, r, [&](Index k, Index column) {
      const double pressure = static_cast<double>(p[static_cast<Size>(fluid[column]) * shots + s]);
      for (int c = 0; c < dim; ++c) sum[c] += coupling_product(C[k * dim + c], pressure);
    });
    for (int c = 0; c < dim; ++c) {
      Real* out = forces + (static_cast<Size>(solid[r]) * dim + c) * shots + s;
      if (atomic)
        atomic_add(out, static_cast<Real>(sum[c]));
      else
        *out += static_cast<Real>(sum[c]);
    }
  });
}

// p_n = -a_n (Deceleration: the bits the update would write) at the fluid's nodes `at` and, where each
// interface row holds its own column (rows.diagonal), at each row's node with C p added into the
// solid's forces in the same pass (as add_traction: by atomics where `atomic`), for each of `shots`;
// before the update, from the step's forces. A node held (a piston's, a pressure release's) keeps
// the p it has.
template <class Real>
void pressure_where_read(const Exec& exec, const InterfaceRows& rows, View<const Index> at, int shots,
                         const Deceleration<Real>& deceleration, Real* p, Real* forces, bool atomic) {
  const int dim = rows.dim;
  const Index *solid = rows.solid, *fluid = rows.fluid, *nodes = at.data;
  const Index n_rows = rows.diagonal ? rows.n : 0;
  const double* C = rows.C;
  const Deceleration<Real> d = deceleration;
  forall(exec, static_cast<Index>(static_cast<Size>(n_rows + at.size) * shots), [=] TREMOR_LAMBDA(Index t) {
    const Index k = t / shots, s = t % shots;
    const Index i = (k < n_rows ? fluid[k] : nodes[k - n_rows]) * shots + s;
    if (d.moves(i)) p[i] = d.at(i);
    if (k >= n_rows) return;
    const double pressure = static_cast<double>(p[i]);
    for (int c = 0; c < dim; ++c) {
      Real* out = forces + (static_cast<Size>(solid[k]) * dim + c) * shots + s;
      const auto value = static_cast<Real>(coupling_product(C[k * dim + c], pressure));
      if (atomic)
        atomic_add(out, value);
      else
        *out += value;
    }
  });
}

// p_n = -(chi_n+1 - 2 chi_n + chi_n-1) / dt^2 where the potential is prescribed (a piston's pressure),
// chi_n+1 the value it takes.
template <class Real>
void prescribed_pressure(const Exec& exec, View<const Index> held, View<const Real> ahead, View<const Real> now,
                         View<const Real> before, double dt, View<Real> pressure) {
  const Index* dofs = held.data;
  const Real *next = ahead.data, *current = now.data, *previous = before.data;
  Real* p = pressure.data;
  const double dt2 = dt * dt;
  forall(exec, held.size, [=] TREMOR_LAMBDA(Index k) {
    const Index i = dofs[k];
    p[i] = static_cast<Real>(-(static_cast<double>(next[k]) - 2.0 * static_cast<double>(current[i]) +
                               static_cast<double>(previous[i])) / dt2);
  });
}

// The nodes of `mesh` (a whole fluid's) whose step their element can take (sem::FluidKernels::add's
// inner step): the inner points' (1 <= i, j, k < P) of its GLL hexahedra of order 2 or more, where
// one element alone holds them (a conforming mesh's always), that `touched` leaves out (held,
// loaded, on the solid). In element order, each element's in its points' order; `element_of` gets
// each one's (block, element in the block).
std::vector<Index> inner_nodes(const Mesh& mesh, const std::vector<bool>& touched,
                               std::vector<std::pair<int, Index>>& element_of) {
  std::vector<unsigned char> uses(static_cast<std::size_t>(mesh.n_nodes()), 0);
  for (const ElementBlock& block : mesh.blocks)
    for (const Index node : block.connectivity)
      if (uses[static_cast<std::size_t>(node)] < 2) ++uses[static_cast<std::size_t>(node)];
  std::vector<Index> inner;
  element_of.clear();
  for (std::size_t b = 0; b < mesh.blocks.size(); ++b) {
    const ElementBlock& block = mesh.blocks[b];
    if (block.type != ElementType::HexGLL || !sem::fluid_takes(block.type, block.order)) continue;
    const Index per = nodes_per_element(block.type, block.order), n1 = block.order + 1;
    const auto inside = [&](Index c) { return c > 0 && c < n1 - 1; };
    for (Index e = 0; e < block.n_elements(); ++e)
      for (Index a = 0; a < per; ++a) {
        if (!inside(a % n1) || !inside(a / n1 % n1) || !inside(a / (n1 * n1))) continue;
        const Index node = block.connectivity[static_cast<std::size_t>(e) * static_cast<std::size_t>(per) +
                                              static_cast<std::size_t>(a)];
        if (uses[static_cast<std::size_t>(node)] != 1 || touched[static_cast<std::size_t>(node)]) continue;
        inner.push_back(node);
        element_of.emplace_back(static_cast<int>(b), e);
      }
  }
  return inner;
}

}  // namespace

StreamPriority solid_stream_priority(bool fluid) { return fluid ? StreamPriority::Raised : StreamPriority::Lowest; }

template <class Real>
FluidTerm<Real>::FluidTerm(const Exec& exec, const FluidSetup& fluid, const Numbering& solid, Loading loading,
                           std::vector<History> histories, double dt, bool atomic, int columns, bool inner_steps,
                           bool lead)
    : exec_(exec),
      work_(exec),
      lead_(lead),
      dim_(fluid.mesh.table.dim),
      numbering_(solid.n_model_nodes(), 1, fluid.mesh.nodes),
      whole_(fluid.whole_nodes),
      n_whole_(fluid.whole_nodes.empty() ? fluid.mesh.n_nodes() : fluid.n_whole_nodes),
      // (not own(): order_ is made below)
      loading_(fluid.whole_nodes.empty() ? std::move(loading) : loading.restricted(fluid.whole_nodes)) {
  const FluidMesh& mesh = fluid.mesh;
  const bool atomics = atomic && exec.space() == MemorySpace::Device;
  atomic_traction_ = atomics;
  // (A part's step is split by the exchange of its forces: on the run's stream.)
  // (between the two levels of the run's stream: solid_stream_priority)
  if (atomics && exec.backend() == Backend::Cuda && !is_part())
    beside_ = std::make_unique<SideStream>(exec, StreamPriority::Raised);
  work_ = beside_ ? beside_->side() : exec;
  const Exec& on = work_;
  // A PML's elements leave K_f for its term; its nodes' damping joins the layers' (pml.hpp).
  fem::SectionTable table = mesh.table;
  std::vector<double> damping = fluid.damping;
  // (Every part of a fluid with layers steps with a damping, those without a layer's element too:
  // a shared node's update is then the same arithmetic in every part.)
  layers_ = fluid.pml.any();
  if (layers_) {
    if (damping.empty()) damping.assign(fluid.mass.size(), 0.0);
    add_pml_damping(fluid.pml_nodes, dt, fluid.mass, damping);
  }
  const std::vector<Index> layer = pml_elements(mesh.model, fluid.pml);
  // (A part may hold nodes of the layer's inner plane and none of its elements: their mass side.)
  if (!layer.empty() || fluid.pml_nodes.size() > 0) {
    std::shared_ptr<const fem::DeviceElements> layer_elements;
    if (!layer.empty()) {
      std::vector<Index> order;
      layer_elements = pml_layer_elements(on, mesh.model.mesh, table, layer, order);
      for (const Index e : order) pml_elements_.push_back(mesh.elements[static_cast<std::size_t>(e)]);
      without_pml(table, layer);
    }
    pml_ = std::make_unique<PmlTerm<Real>>(on, std::move(layer_elements), fluid.pml, fluid.pml_nodes,
                                           pml_node_mass(fluid.pml_nodes, fluid.mass), dt, true, PmlField::Fluid);
  }
  // The whole fluid without a PML renumbered with the nodes whose step their element takes last
  // (inner_nodes; its update skips them: update_apart), the others in their order.
  std::vector<double> mass = fluid.mass;
  std::optional<Mesh> renumbered;
  if (inner_steps && !is_part() && !pml_) {
    std::vector<bool> touched(static_cast<std::size_t>(mesh.n_nodes()), false);
    for (const Index dof : loading_.constrained_dofs()) touched[static_cast<std::size_t>(dof)] = true;
    for (const Index dof : loading_.loaded_dofs()) touched[static_cast<std::size_t>(dof)] = true;
    for (const Index node : fluid.interface.nodes()) touched[static_cast<std::size_t>(numbering_.local_node(node))] = true;
    const std::vector<Index> inner = inner_nodes(mesh.model.mesh, touched, inner_element_);
    if (!inner.empty()) {
      std::vector<bool> is_inner(touched.size(), false);
      for (const Index node : inner) is_inner[static_cast<std::size_t>(node)] = true;
      for (Index node = 0; node < mesh.n_nodes(); ++node)
        if (!is_inner[static_cast<std::size_t>(node)]) order_.push_back(node);
      inner_first_ = static_cast<Index>(order_.size());
      order_.insert(order_.end(), inner.begin(), inner.end());
      inner_last_ = static_cast<Index>(order_.size());
      renumbered = mesh.model.mesh;
      renumber_nodes(*renumbered, order_);
      const auto permuted = [&](const std::vector<double>& values) {
        std::vector<double> out(values.size());
        for (std::size_t i = 0; i < order_.size() && !values.empty(); ++i)
          out[i] = values[static_cast<std::size_t>(order_[i])];
        return out;
      };
      mass = permuted(mass);
      damping = permuted(damping);
      std::vector<Index> model_nodes(order_.size());
      for (std::size_t i = 0; i < order_.size(); ++i) model_nodes[i] = mesh.nodes[static_cast<std::size_t>(order_[i])];
      numbering_ = Numbering(solid.n_model_nodes(), 1, std::move(model_nodes));
      loading_ = loading_.restricted(order_);
    }
  }
  const Mesh& stepped_mesh = renumbered ? *renumbered : mesh.model.mesh;
  elements_ = std::make_shared<const fem::DeviceElements>(
      on, stepped_mesh, table, atomics ? fem::ElementColouring{} : fem::colour_elements(stepped_mesh));
  stiffness_ = std::make_unique<FluidOperator<Real>>(on, elements_, atomics);
  const std::vector<Index> held = loading_.constrained_dofs();
  scheme_ = std::make_unique<CentralDifference<Real>>(on, *stiffness_, mass, std::span<const double>(damping), dt,
                                                      held, 1, columns);
  if (inner_first_ < inner_last_) {
    for (std::size_t b = 0; b < elements_->blocks.size(); ++b)
      stepped_.emplace_back(on, stiffness_->steps_inner(b) ? elements_->blocks[b].n_elements : Index(0));
    for (const DeviceArray<unsigned char>& flags : stepped_) stepped_at_.push_back(flags.size() > 0 ? flags.data() : nullptr);
  }
  if (pml_ && columns > 1) pml_->keep_columns(columns, scheme_->n_dofs());
  if (columns > 1) {
    const std::vector<const Loading*> same(static_cast<std::size_t>(columns), &loading_);
    stacked_ = std::make_unique<Loading>(Loading::stacked(same));
  }
  loads_ = std::make_unique<DeviceLoading<Real>>(on, stepped(), dt);
  // The node pairs of every face, summed where faces share them, as rows by interface node.
  const std::vector<Index> nodes = fluid.interface.nodes();
  const auto row_of = [&](Index node) {
    return static_cast<Index>(std::lower_bound(nodes.begin(), nodes.end(), node) - nodes.begin());
  };
  const auto d = static_cast<std::size_t>(dim_);
  std::map<std::pair<Index, Index>, std::array<double, 3>> pairs;
  for (const fem::CouplingFace& face : fluid.interface.faces) {
    const std::size_t n = face.nodes.size();
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b) {
        const double* c = face.C.data() + (a * n + b) * d;
        if (std::all_of(c, c + d, [](double v) { return v == 0.0; })) continue;  // (a nodal rule's zeros)
        std::array<double, 3>& sum = pairs[{row_of(face.nodes[a]), row_of(face.nodes[b])}];
        for (std::size_t k = 0; k < d; ++k) sum[k] += c[k];
      }
  }
  std::vector<Index> solid_node, fluid_node, offsets{0}, col;
  std::vector<double> C;
  for (const Index node : nodes) {
    const Index local = solid.local_node(node);
    TREMOR_CHECK(local >= 0, "the fluid-solid interface's node ", node, " is not in the subdomain");
    solid_node.push_back(local);
    fluid_node.push_back(numbering_.local_node(node));
  }
  for (const auto& [pair, c] : pairs) {
    while (static_cast<Index>(offsets.size()) <= pair.first) offsets.push_back(static_cast<Index>(col.size()));
    col.push_back(pair.second);
    C.insert(C.end(), c.begin(), c.begin() + static_cast<std::ptrdiff_t>(d));
  }
  while (offsets.size() <= nodes.size()) offsets.push_back(static_cast<Index>(col.size()));
  diagonal_ = col.size() == nodes.size();
  for (std::size_t r = 0; r < nodes.size() && diagonal_; ++r)
    diagonal_ = offsets[r] == static_cast<Index>(r) && col[r] == static_cast<Index>(r);
  // Beside the solid, C^T u on the solid's stream where the fluid's is the step's critical path: a
  // fluid node costs about half a solid node a step (docs/benchmarks.md), so where the fluid has
  // more than twice the solid's own nodes (those of the solid's numbering no fluid element holds,
  // and the interface's).
  const Index solid_nodes = solid.n_local_nodes() - numbering_.n_local_nodes() + static_cast<Index>(nodes.size());
  // (Not with shots stepped together: K_f applies them one by one, gathering and scattering each
  // shot's forces, which atomics from another stream would meet.)
  motion_beside_ = beside_ && columns == 1 && numbering_.n_local_nodes() > 2 * solid_nodes;
  solid_ = DeviceArray<Index>(on, std::span<const Index>(solid_node));
  fluid_ = DeviceArray<Index>(on, std::span<const Index>(fluid_node));
  offsets_ = DeviceArray<Index>(on, std::span<const Index>(offsets));
  col_ = DeviceArray<Index>(on, std::span<const Index>(col));
  C_ = DeviceArray<double>(on, std::span<const double>(C));
  pressure_ = DeviceArray<Real>(on, scheme_->field_size());
  fill_zero(on, pressure_.data(), pressure_.size());
  on.synchronize();  // (the Exec's work may read them next)
  set_histories(std::move(histories));
}

template <class Real>
void FluidTerm<Real>::set_histories(std::vector<History> histories) {
  joined_ = false;
  // The receivers in the fluid on its nodes (each a fluid node: make_histories).
  std::vector<History> pressure, motion;
  for (History& history : histories) {
    history.for_each_node([&](Index& node) {
      const Index local = numbering_.local_node(node);
      TREMOR_CHECK(local >= 0, "history '", history.name, "' reads node ", node, ", which no fluid element ",
                   is_part() ? "of the subdomain " : "", "holds");
      node = local;
    });
    (history.potential ? motion : pressure).push_back(std::move(history));
  }
  const int shots = columns();
  const double dt = scheme_->dt();
  pressure_recorder_ = std::make_unique<Recorder<Real>>(exec_, repeat_for_shots(std::move(pressure), shots), dt,
                                                        scheme_->n_dofs(), 0, shots);
  motion_recorder_ = std::make_unique<Recorder<Real>>(exec_, repeat_for_shots(std::move(motion), shots), dt,
                                                      scheme_->n_dofs(), 1, shots);
  motion_started_ = false;
  plan_pressure();
}

template <class Real>
void FluidTerm<Real>::read_pressure_at(std::vector<Index> nodes) {
  read_by_snapshots_ = std::move(nodes);
  plan_pressure();
}

template <class Real>
void FluidTerm<Real>::plan_pressure() {
  std::vector<Index> nodes = read_by_snapshots_;
  for (const History& history : pressure_recorder_->histories()) {
    nodes.insert(nodes.end(), history.nodes.begin(), history.nodes.end());
    for (const Location& location : history.locations)
      nodes.insert(nodes.end(), location.nodes.begin(), location.nodes.end());
  }
  std::vector<Index> interface = fluid_.to_host();  // the rows' fluid nodes
  std::sort(interface.begin(), interface.end());
  if (!diagonal_)  // (add_traction reads p at the rows' columns' nodes after this pass)
    nodes.insert(nodes.end(), interface.begin(), interface.end());
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  if (diagonal_) {  // (the diagonal rows' own nodes are theirs)
    std::vector<Index> others;
    std::set_difference(nodes.begin(), nodes.end(), interface.begin(), interface.end(), std::back_inserter(others));
    nodes = std::move(others);
  }
  // Where p is read at more than an eighth of the nodes, the update writes it at every one: one value
  // a node more in its pass of six, where the pass over the nodes read moves six values a node read
  // (its index, A, both levels and the force read, p written), more where they lie apart.
  everywhere_ = 8 * static_cast<Size>(nodes.size()) > static_cast<Size>(scheme_->n_dofs());
  work_.synchronize();  // (no kernel reads the last list any more)
  read_at_ = everywhere_ ? DeviceArray<Index>() : DeviceArray<Index>(work_, std::span<const Index>(nodes));
  plan_inner(nodes);
  work_.synchronize();
}

template <class Real>
void FluidTerm<Real>::plan_inner(const std::vector<Index>& read) {
  if (inner_first_ == inner_last_) return;
  // Every element takes its inner nodes' step but those holding one whose pressure is read (its
  // K chi then summed for it) or a load (moved into K chi before the update); none where the
  // update writes the pressure everywhere. The update takes the steps they leave.
  std::vector<std::vector<unsigned char>> steps(stepped_.size());
  for (std::size_t b = 0; b < stepped_.size(); ++b)
    steps[b].assign(static_cast<std::size_t>(stepped_[b].size()), everywhere_ ? 0 : 1);
  const auto leave = [&](Index node) {
    if (node < inner_first_ || node >= inner_last_) return;
    const auto& [block, element] = inner_element_[static_cast<std::size_t>(node - inner_first_)];
    steps[static_cast<std::size_t>(block)][static_cast<std::size_t>(element)] = 0;
  };
  for (const Index node : read) leave(node);
  for (const Index entry : stepped().loaded_dofs()) leave(entry / columns());
  std::vector<Index> listed;
  for (Index node = inner_first_; node < inner_last_ && !everywhere_; ++node) {
    const auto& [block, element] = inner_element_[static_cast<std::size_t>(node - inner_first_)];
    if (steps[static_cast<std::size_t>(block)][static_cast<std::size_t>(element)] == 0)
      for (int s = 0; s < columns(); ++s) listed.push_back(static_cast<Index>(static_cast<Size>(node) * columns() + s));
  }
  for (std::size_t b = 0; b < stepped_.size(); ++b)
    if (stepped_[b].size() > 0) stepped_[b].copy_from_host(std::span<const unsigned char>(steps[b]));
  listed_ = DeviceArray<Index>(work_, std::span<const Index>(listed));
  inner_stepped_ = everywhere_ ? 0
                              : inner_last_ - inner_first_ -
                                    static_cast<Index>(listed.size() / static_cast<std::size_t>(columns()));
  if (everywhere_)
    scheme_->update_apart(0, 0);
  else
    scheme_->update_apart(inner_first_, inner_last_, std::as_const(listed_).view());
}

template <class Real>
void FluidTerm<Real>::set_on_sample(const typename Recorder<Real>::Callback& on_sample) {
  pressure_recorder_->set_on_sample(on_sample);
  motion_recorder_->set_on_sample(on_sample);
}

template <class Real>
void FluidTerm<Real>::route_samples(std::function<void(std::size_t, const History&, std::size_t)> to) {
  // (Shot by shot: shot s's pressure histories, then its motion's; one shot: all of them so.)
  const auto shots = static_cast<std::size_t>(columns());
  const std::size_t n_pressure = pressure_recorder_->histories().size() / shots;
  const std::size_t per_shot = n_pressure + motion_recorder_->histories().size() / shots;
  for (Recorder<Real>* recorder : {pressure_recorder_.get(), motion_recorder_.get()}) {
    const std::size_t first = recorder == motion_recorder_.get() ? n_pressure : 0;
    const std::size_t of_shot = recorder == motion_recorder_.get() ? per_shot - n_pressure : n_pressure;
    recorder->set_on_sample([recorder, first, of_shot, per_shot, to](const History& history, std::size_t sample) {
      const auto j = static_cast<std::size_t>(&history - recorder->histories().data());
      to(place_among_shots(j, of_shot, first, per_shot), history, sample);
    });
  }
}

template <class Real>
std::vector<Index> FluidTerm<Real>::whole_nodes() const {
  if (is_part()) return whole_;
  if (!order_.empty()) return order_;
  std::vector<Index> all(static_cast<std::size_t>(n_whole_));
  std::iota(all.begin(), all.end(), Index(0));
  return all;
}

template <class Real>
Loading FluidTerm<Real>::own(Loading whole) const {
  return is_part()          ? whole.restricted(whole_)
         : !order_.empty() ? whole.restricted(order_)
                           : std::move(whole);
}

template <class Real>
void FluidTerm<Real>::flush_samples() {
  pressure_recorder_->flush();
  motion_recorder_->flush();
}

template <class Real>
void FluidTerm<Real>::load_shot(Loading loading) {
  std::vector<Loading> one;
  one.push_back(std::move(loading));
  load_shots(std::move(one));
}

template <class Real>
void FluidTerm<Real>::load_shots(std::vector<Loading> loadings) {
  const int shots = columns();
  TREMOR_CHECK(!loadings.empty() && static_cast<int>(loadings.size()) <= shots, loadings.size(),
               " shots' loads for a fluid stepping ", shots, " together");
  for (Loading& loading : loadings) {
    loading = own(std::move(loading));
    TREMOR_CHECK(loading.constrained_dofs() == loading_.constrained_dofs(),
                 "the loads hold other nodes of the fluid than the set-up's: its pressure-release boundaries and "
                 "pistons driven by pressure are the set-up's");
  }
  exec_.synchronize();  // (the last step's work done)
  work_.synchronize();
  joined_ = false;
  loads_.reset();  // (it reads loading_ or stacked_)
  if (shots == 1) {
    loading_ = std::move(loadings.front());
  } else {  // (the last repeated where fewer)
    std::vector<const Loading*> stacked;
    for (int s = 0; s < shots; ++s)
      stacked.push_back(&loadings[std::min(static_cast<std::size_t>(s), loadings.size() - 1)]);
    stacked_ = std::make_unique<Loading>(Loading::stacked(stacked));
  }
  loads_ = std::make_unique<DeviceLoading<Real>>(work_, stepped(), scheme_->dt());
  plan_pressure();  // (the elements that take their inner nodes' step: none holding a load)
}

template <class Real>
void FluidTerm<Real>::restart_samples() {
  pressure_recorder_->restart();
  motion_recorder_->restart();
  motion_started_ = false;
  joined_ = false;
}

template <class Real>
std::vector<History> FluidTerm<Real>::histories(bool take) {
  flush_samples();
  const auto of = [&](Recorder<Real>& recorder) { return take ? recorder.take_histories() : recorder.histories(); };
  // Shot by shot: its pressure's, then its motion's.
  std::vector<History> histories = by_shot({of(*pressure_recorder_), of(*motion_recorder_)}, columns());
  for (History& history : histories)
    history.for_each_node([&](Index& node) { node = numbering_.global_node(node); });
  return histories;
}

template <class Real>
void FluidTerm<Real>::get_state(std::vector<double>& previous, std::vector<double>& current) const {
  TREMOR_CHECK(columns() == 1, "a checkpoint of ", columns(), " shots stepped together: it holds one shot");
  std::vector<Real> before, now;
  scheme_->get_state(before, now);
  const auto n = static_cast<std::size_t>(n_whole_);
  if (previous.empty()) previous.assign(n, 0.0);
  if (current.empty()) current.assign(n, 0.0);
  TREMOR_CHECK(previous.size() == n && current.size() == n, "a fluid's state of ", current.size(), " values for ", n,
               " fluid nodes");
  for (std::size_t i = 0; i < now.size(); ++i) {
    const std::size_t to = whole_of(i);
    previous[to] = static_cast<double>(before[i]);
    current[to] = static_cast<double>(now[i]);
  }
}

template <class Real>
std::vector<PendingSample> FluidTerm<Real>::pending() const {
  std::vector<PendingSample> pending = pressure_recorder_->pending();
  for (const PendingSample& sample : motion_recorder_->pending()) pending.push_back(sample);
  return pending;
}

template <class Real>
void FluidTerm<Real>::restore(std::span<const double> previous, std::span<const double> current, long long step,
                              std::vector<PendingSample> pending) {
  const auto n = static_cast<std::size_t>(n_whole_);
  TREMOR_CHECK(previous.size() == n && current.size() == n, "checkpoint holds the potential at ", current.size(),
               " fluid nodes; the model's fluid has ", n);
  const std::size_t n_pressure = pressure_recorder_->histories().size();
  TREMOR_CHECK(pending.size() == n_pressure + motion_recorder_->histories().size(), "checkpoint holds ",
               pending.size(), " pending samples of receivers in the fluid; the model has ",
               n_pressure + motion_recorder_->histories().size());
  // (Real widened to double: exact back.) A part takes its nodes'.
  std::vector<Real> before(static_cast<std::size_t>(scheme_->n_dofs())), now(before.size());
  for (std::size_t i = 0; i < now.size(); ++i) {
    const std::size_t from = whole_of(i);
    before[i] = static_cast<Real>(previous[from]);
    now[i] = static_cast<Real>(current[from]);
  }
  exec_.synchronize();
  scheme_->set_state(before, now, step);
  const auto middle = pending.begin() + static_cast<std::ptrdiff_t>(n_pressure);
  pressure_recorder_->restore_pending(std::vector<PendingSample>(pending.begin(), middle));
  motion_recorder_->restore_pending(std::vector<PendingSample>(middle, pending.end()));
  motion_started_ = true;  // its levels up to `step` were recorded by the run that wrote the checkpoint
  joined_ = false;
}

template <class Real>
std::vector<Index> FluidTerm<Real>::pml_model_nodes() const {
  std::vector<Index> nodes;
  for (const Index n : pml_->node_list()) nodes.push_back(numbering_.global_node(n));
  return nodes;
}

template <class Real>
void FluidTerm<Real>::get_pml_state(ElementValues& elements, ElementValues& nodes) const {
  elements = {};
  nodes = {};
  if (!pml_) return;
  work_.synchronize();
  elements.elements = pml_elements_;
  elements.offsets = pml_->state_offsets();
  elements.values = pml_->get_state();
  nodes.elements = pml_model_nodes();
  nodes.values = pml_->get_node_state();
}

template <class Real>
void FluidTerm<Real>::restore_pml(const SolverState& state) {
  if (!pml_) {  // (a part of a fluid with layers may hold none of them)
    TREMOR_CHECK(layers_ || (state.fluid_pml.empty() && state.fluid_pml_node_values.empty()),
                 "the checkpoint holds the state of a PML in the fluid; the model has none");
    return;
  }
  TREMOR_CHECK(!state.fluid_pml_offsets.empty(), "the checkpoint holds no state of the PML in the fluid, which this "
               "run keeps: it was written by a run without it, so this run would not continue it");
  std::vector<Size> taken(state.fluid_pml_offsets.size() - 1, 0);
  const std::vector<double> values =
      take_element_values(pml_->state_offsets(), pml_elements_, state.fluid_pml_offsets, state.fluid_pml, taken);
  const std::vector<double> node_values =
      take_node_values(pml_model_nodes(), state.fluid_pml_nodes, state.fluid_pml_node_values);
  exec_.synchronize();
  work_.synchronize();
  pml_->set_state(values);
  pml_->set_node_state(node_values);
  work_.synchronize();
  joined_ = false;
}

template <class Real>
void FluidTerm<Real>::record_start(long long step) {
  if (motion_started_) return;
  // chi_-1 and chi_0: the motion's step 0
  motion_recorder_->record(step, scheme_->previous_displacement(), scheme_->displacement());
  motion_started_ = true;
}

template <class Real>
bool FluidTerm<Real>::start_forces(const CentralDifference<Real>& scheme, View<Real> forces) {
  // Shots stepped together wait for the solid's apply: an operator that applies them one by one
  // scatters each shot's K u back whole, over the traction's atomic adds from beside.
  if (!beside_ || columns() > 1) return false;
  record_start(scheme.step_count());
  // After the solid's update (u_n) and every reader of the fluid's last step; leading, after its
  // own last update only (its K_f reads chi alone; C^T u follows the solid's update)
  if (!(joined_ && leads())) beside_->fork();
  joined_ = false;
  queue_step(scheme, forces, true);
  // The solid's apply, queued next, below the fluid's work; the rest of its step (C^T u, its
  // update and loads) above it from add_forces on.
  set_stream_priority(exec_, StreamPriority::Lowest);
  started_ = true;
  return true;
}

template <class Real>
void FluidTerm<Real>::add_forces(const CentralDifference<Real>& scheme, View<Real> forces) {
  const long long step = scheme.step_count();
  const bool started = started_;
  if (started_) {
    started_ = false;
  } else {
    record_start(step);
    if (beside_ && !(joined_ && leads())) beside_->fork();
    joined_ = false;
    // (by atomics where the run adds so: a decomposed run's first part of the solid's stiffness adds
    // into the interface's rows from the exchange's stream meanwhile)
    queue_step(scheme, forces, atomic_traction_);
  }
  if (beside_) {
    beside_->join();
    joined_ = true;
  }
  if (started) set_stream_priority(exec_, StreamPriority::Highest);
  pressure_recorder_->record(step, pressure_.view(), pressure_.view());
  motion_recorder_->record(step + 1, scheme_->previous_displacement(), scheme_->displacement());
}

template <class Real>
View<Real> FluidTerm<Real>::queue_forces(const CentralDifference<Real>& scheme) {
  loads_->update(scheme.step_count());
  // K_f chi_n + C^T u_n, and the flux of a PML's elements. Where the fluid's stream is the step's
  // critical path (motion_beside_), C^T u is queued on the solid's to run at the same time as K_f
  // chi, both adding by atomics, and the fluid's stream waits for it: a launch of a few
  // microseconds of dependent loads off the critical path. (A stream of its own measured slower:
  // two more waits between streams a step.)
  const View<Real> forces = apply_operator();
  if (motion_beside_) {
    add_normal_motion(exec_, rows(), columns(), scheme.displacement().data, forces.data, true);
    beside_->fork();
  } else {
    add_normal_motion(work_, rows(), columns(), scheme.displacement().data, forces.data, false);
  }
  if (pml_) pml_->add_element_forces(work_, scheme_->displacement().data, forces.data);
  forces_ = forces;
  return forces;
}

template <class Real>
View<Real> FluidTerm<Real>::apply_operator() {
  if (inner_stepped_ == 0) return scheme_->apply_stiffness();
  // (the inner nodes' steps taken by K_f's kernels, the update skipping them)
  const View<Real> forces = scheme_->zeroed_forces();
  stiffness_->add_stepping(scheme_->displacement().data, forces.data, columns(), scheme_->inner_step(), stepped_at_);
  return forces;
}

template <class Real>
void FluidTerm<Real>::time_operator() {
  (void)apply_operator();
}

template <class Real>
void FluidTerm<Real>::time_update() {
  scheme_->advance({}, {}, {}, {});
}

template <class Real>
View<Real> FluidTerm<Real>::fluid_forces(const CentralDifference<Real>& scheme) {
  TREMOR_CHECK(!beside_, "the fluid's forces apart from its step: a run's whole fluid steps beside the solid");
  record_start(scheme.step_count());
  forces_ready_ = true;
  return queue_forces(scheme);
}

template <class Real>
void FluidTerm<Real>::queue_step(const CentralDifference<Real>& scheme, View<Real> forces, bool atomic) {
  if (forces_ready_) {  // (a part's: its forces summed over the parts since)
    forces_ready_ = false;
  } else {
    TREMOR_CHECK(!is_part(), "a part of a fluid steps after its forces are summed over the parts (fluid_forces)");
    queue_forces(scheme);
  }
  // A PML's nodes' M_f R, once the forces are summed over the parts (each copy of a shared node
  // the same, from its whole mass).
  if (pml_)
    pml_->add_node_forces(work_, scheme_->displacement().data, scheme_->previous_displacement().data, forces_.data);
  // Where the potential is prescribed (a piston's pressure), p from the values it takes, before the
  // update moves chi's levels; at a pressure-release node (held at 0) p stays 0.
  prescribed_pressure(work_, loads_->prescribed_dofs(), loads_->prescribed_values(), scheme_->displacement(),
                      scheme_->previous_displacement(), scheme_->dt(), pressure_.view());
  // Elsewhere p_n = -a_n = (f_f - F + c v) / (M_f + c dt / 2) (c an absorbing layer's damping), from
  // the forces: where it is read, before the update (with C p where the rows are diagonal), or at
  // every node by the update itself (CentralDifference::advance's deceleration).
  if (everywhere_) {
    scheme_->advance(loads_->loaded_dofs(), loads_->loads(), loads_->prescribed_dofs(), loads_->prescribed_values(),
                     pressure_.view());
    add_traction(work_, rows(), columns(), std::as_const(pressure_).data(), forces.data, atomic);
    return;
  }
  scheme_->load(loads_->loaded_dofs(), loads_->loads());
  pressure_where_read(work_, rows(), std::as_const(read_at_).view(), columns(), scheme_->deceleration(),
                      pressure_.data(), forces.data, atomic);
  if (!diagonal_) add_traction(work_, rows(), columns(), std::as_const(pressure_).data(), forces.data, atomic);
  scheme_->advance({}, {}, loads_->prescribed_dofs(), loads_->prescribed_values());
}

template <class Real>
void FluidTerm<Real>::add_solid_motion(View<const Real> u, View<Real> fluid_forces) const {
  add_normal_motion(exec_, rows(), columns(), u.data, fluid_forces.data, false);
}

template <class Real>
void FluidTerm<Real>::add_fluid_traction(View<Real> solid_forces) const {
  add_traction(exec_, rows(), columns(), pressure_.data(), solid_forces.data, false);
}

template <class Real>
void FluidTerm<Real>::start_from_rest() {
  exec_.synchronize();  // (no reader of the last run's levels left)
  const std::vector<Real> zero(static_cast<std::size_t>(scheme_->field_size()), Real(0));
  scheme_->set_state(zero, zero, 0);
  fill_zero(work_, pressure_.data(), pressure_.size());
  if (pml_) pml_->start_from_rest();
  work_.synchronize();
  motion_started_ = false;
  joined_ = false;
}

template class FluidTerm<float>;
template class FluidTerm<double>;

}  // namespace tremor::explicit_fe
