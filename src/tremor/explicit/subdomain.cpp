#include "tremor/explicit/subdomain.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

#include "tremor/core/error.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/partitioned_operator.hpp"
#include "tremor/explicit/pml.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/reorder.hpp"
#include "tremor/model/renumber.hpp"
#include "tremor/partition/block_file.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::explicit_fe {

SetupClock::SetupClock(const Exec& exec, Clock::time_point start, std::string* last_phase)
    : exec_(exec), start_(start), last_(Clock::now()), last_phase_(last_phase) {}

void SetupClock::lap(std::string name) {
  exec_.synchronize();
  if (last_phase_) *last_phase_ = name;
  phases_.push_back({std::move(name), tremor::lap(last_)});
  phases_.insert(phases_.end(), details_.begin(), details_.end());
  details_.clear();
}

template <class Real>
Subdomain<Real>::~Subdomain() = default;

void HistoryMerge::add(std::size_t part, std::size_t k, double time, std::span<const double> in, std::size_t sample) {
  TREMOR_CHECK(part < maps_.size() && k < maps_[part].size(), "a sample of subdomain ", part, "'s history ", k,
               ", which it does not record");
  const Map& map = maps_[part][k];
  const auto h = static_cast<std::size_t>(map.history);
  History& to = histories_[h];
  const std::size_t point_size = to.quantities.size() * static_cast<std::size_t>(to.components());
  // Samples are staged until every part has filled them: the history holds complete ones only
  // (an observer writes what it holds).
  std::deque<Staged>& open = open_[h];
  const std::size_t done = to.times.size();
  TREMOR_CHECK(sample >= done && sample <= done + open.size(), "history '", to.name, "': sample ", sample,
               " arrived with ", done, " complete and ", open.size(), " open");
  if (sample == done + open.size()) open.push_back({time, std::vector<double>(to.sample_size(), 0.0), 0});
  Staged& staged = open[sample - done];
  TREMOR_CHECK(in.size() == map.points.size() * point_size, "a sample of ", in.size(), " values for ",
               map.points.size(), " points of history '", to.name, "'");
  // Added: a point split among parts (History::surface_means) is the sum of their shares; any
  // other point has one part, and the sample starts at 0.
  for (std::size_t i = 0; i < map.points.size(); ++i)
    for (std::size_t v = 0; v < point_size; ++v)
      staged.values[static_cast<std::size_t>(map.points[i]) * point_size + v] += in[i * point_size + v];
  ++staged.count;
  // Samples complete in order: pass on those every part has filled.
  while (!open.empty() && open.front().count == n_parts_[h]) {
    to.times.push_back(open.front().time);
    to.values.insert(to.values.end(), open.front().values.begin(), open.front().values.end());
    open.pop_front();
    if (on_sample_) on_sample_(to, to.times.size() - 1);
    if (on_column_sample_) on_column_sample_(h / per_shot_, to, to.times.size() - 1);
  }
}

namespace {


}  // namespace

Numbering one_domain_numbering(const Model& model, const Preflight& preflight, const PmlNodeProfile* layer) {
  const Index n = model.mesh.n_nodes();
  const int dim = model.mesh.dim();
  const bool rcm = preflight.ordering == NodeOrdering::Rcm;
  const bool pml = preflight.pml.any();
  if (!rcm && !preflight.fluid && !pml) return Numbering(n, dim);
  std::vector<Index> order = rcm ? reverse_cuthill_mckee(node_graph(model.mesh)) : std::vector<Index>{};
  if (!rcm) {
    order.resize(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Index(0));
  }
  // Each node's place: 0 the solid's undamped nodes, then the PML's nodes by their stretched axes
  // (1 + the axes' bits, as its term groups them: PmlTerm), then the nodes no element of the solid
  // holds (a fluid's own); in the order above within each.
  const int own = (1 << dim) + 1;
  std::vector<unsigned char> place(static_cast<std::size_t>(n), 0);
  if (pml) {
    const PmlNodeProfile made = layer ? PmlNodeProfile{} : pml_node_profile(model.mesh, preflight.pml);
    const PmlNodeProfile& nodes = layer ? *layer : made;
    for (std::size_t i = 0; i < nodes.nodes.size(); ++i)
      place[static_cast<std::size_t>(nodes.nodes[i])] = static_cast<unsigned char>(1 + nodes.axes(i));
  }
  if (preflight.fluid) {
    std::vector<bool> held(static_cast<std::size_t>(n), false);
    for (const ElementBlock& block : model.mesh.blocks)
      for (const Index node : block.connectivity) held[static_cast<std::size_t>(node)] = true;
    for (std::size_t node = 0; node < held.size(); ++node)
      if (!held[node]) place[node] = static_cast<unsigned char>(own);
  }
  // (a counting sort: stable, one pass to count and one to place)
  std::vector<std::size_t> first(static_cast<std::size_t>(own) + 2, 0);
  for (const unsigned char p : place) ++first[p + 1u];
  std::partial_sum(first.begin(), first.end(), first.begin());
  std::vector<Index> sorted(order.size());
  for (const Index node : order) sorted[first[place[static_cast<std::size_t>(node)]]++] = node;
  if (!rcm && std::is_sorted(sorted.begin(), sorted.end())) return Numbering(n, dim);
  return Numbering(n, dim, std::move(sorted));
}

bool is_damped(const Model& model) {
  return !model.absorbing.empty() || std::any_of(model.materials.begin(), model.materials.end(),
                                                 [](const Material& m) { return m.damping_alpha != 0.0; });
}

template <class Real>
std::unique_ptr<Subdomain<Real>> begin_subdomain(const Exec& exec, const Model& original, Numbering numbering,
                                                 ModelPart* part, const Preflight& preflight, SetupClock& clock,
                                                 const Exec* interface_exec, const PmlNodeProfile* layer) {
  if (!part)
    TREMOR_CHECK(numbering.n_local_nodes() == original.mesh.n_nodes(), "a subdomain of ", numbering.n_local_nodes(),
                 " of the model's ", original.mesh.n_nodes(), " nodes without its part of the model");
  auto d = std::make_unique<Subdomain<Real>>(exec, std::move(numbering));
  d->part = part;
  d->n_counted = part ? part->n_owned : d->numbering.n_local_nodes();
  if (part) d->shared_counted = DeviceArray<Index>(exec, std::span<const Index>(part->shared_owned));
  if (part) {
    TREMOR_CHECK(preflight.blocks.empty() && !preflight.op->whole_mesh_only,
                 "the partitioned operator runs on one domain: its block layout is made for the whole mesh");
    d->renumbered = std::move(part->model);
  } else if (!d->numbering.identity()) {
    d->renumbered = renumber_nodes(original, d->numbering.local_to_global());
    clock.lap("model in the subdomain's numbering");
  }
  d->model = d->renumbered ? &*d->renumbered : &original;
  const Model& model = *d->model;
  // Set-up on the Exec (a GPU's for CUDA): the mesh and sections go there once; K, the lumped mass
  // and damping are assembled there by the two-kernel assembly, and K converted to the operator's
  // format there. The host keeps the mesh and the model; no global K exists on it.
  const sparse::RaceStrategy strategy = preflight.assembly;
  // The elements were checked by the pre-flight's survey. A part has its rows of the model's table.
  fem::SectionTable table = part ? std::move(part->table) : fem::section_table(model, false);
  clock.lap("sections");
  // The PML's elements leave the stiffness operator for the PML's term (pml.hpp), theirs on all
  // the subdomain's nodes, coloured.
  const std::vector<Index> in_pml = pml_elements(model, preflight.pml);
  if (!in_pml.empty()) {
    d->pml_elements = pml_layer_elements(exec, model.mesh, table, in_pml, d->pml_element_list);
    without_pml(table, in_pml);
    clock.lap(str("PML: ", in_pml.size(), " elements"));
  }
  const fem::ElementColouring colouring =
      strategy == sparse::RaceStrategy::Colouring || preflight.op->needs_colouring
          ? fem::colour_elements(model.mesh)
          : fem::ElementColouring{};
  if (!colouring.blocks.empty()) clock.lap("element colouring");
  d->elements = std::make_shared<const fem::DeviceElements>(exec, model.mesh, table, colouring);
  clock.lap(exec.space() == MemorySpace::Device ? "elements to the GPU" : "element arrays");
  // The first part beside the rest: rows always; elements where they add by atomics.
  const bool atomics = strategy == sparse::RaceStrategy::Atomics && !preflight.op->needs_colouring;
  if (part && preflight.overlap && interface_exec && (preflight.op->needs_assembly || atomics))
    d->interface_exec = *interface_exec;
  if (part && preflight.overlap && !preflight.op->needs_assembly) {  // the element-by-element kinds
    // The elements touching a shared node, and the rest: each its own mesh on the subdomain's
    // nodes (its own colouring) and its rows of the table. Not split where either would be empty.
    std::vector<Index> touching, interior;
    Index e = 0;
    for (const ElementBlock& block : model.mesh.blocks)
      for (Index k = 0; k < block.n_elements(); ++k, ++e) {
        const auto nodes = block.nodes(k);
        const bool shared = std::any_of(nodes.begin(), nodes.end(), [&](Index n) { return n >= part->n_owned; });
        (shared ? touching : interior).push_back(e);
      }
    if (!touching.empty() && !interior.empty()) {
      for (auto [list, into] : {std::pair{&touching, &d->interface_elements}, std::pair{&interior, &d->interior_elements}}) {
        std::vector<Index> order;
        const Mesh mesh = on_all_nodes(model.mesh, *list, order);
        const bool first = list == &touching;
        *into = std::make_shared<const fem::DeviceElements>(
            first && d->interface_exec ? *d->interface_exec : exec, mesh, table_rows(table, order),
            colouring.blocks.empty() ? fem::ElementColouring{} : fem::colour_elements(mesh));
      }
      clock.lap(str("elements split: ", touching.size(), " touching a shared node, ", interior.size(), " interior"));
      d->stiffness_elements = std::move(touching);  // (subdomain_mesh keeps each list's order)
      d->stiffness_elements.insert(d->stiffness_elements.end(), interior.begin(), interior.end());
    }
  }
  d->betas = element_betas(table);
  // An operator of the term's own also where the run's keeps memory variables (applied once a step).
  if (d->betas.any() && (!d->betas.uniform || table.attenuates())) {
    d->beta_elements = std::make_shared<const fem::DeviceElements>(exec, model.mesh, beta_weighted(table), colouring);
    clock.lap("elements weighted by their stiffness-proportional damping");
  }
  d->mass = sparse::assemble_lumped_mass<double>(exec, *d->elements, strategy);
  if (is_damped(original)) d->damping = sparse::assemble_lumped_damping<double>(exec, *d->elements, strategy);
  clock.lap(is_damped(original) ? "lumped mass and damping" : "lumped mass");
  if (preflight.pml.any()) {
    // The mass side (pml.hpp): the damping rho sum d_m joins C, and the term keeps this subdomain's
    // share of the mass at the layer's nodes (the exchange sums the shares like K u), also in a
    // subdomain holding none of the layer's elements but nodes of its inner plane. d and alpha
    // from the whole model: a shared node's copies have the same, the elements of every part
    // around it weighed.
    const PmlNodeProfile made = layer ? PmlNodeProfile{} : pml_node_profile(original.mesh, preflight.pml);
    d->pml_nodes = (layer ? *layer : made).in_numbering(d->numbering.local_to_global());
    if (d->pml_nodes.size() > 0) {
      const std::vector<double> mass = d->mass.to_host();
      std::vector<double> damping = d->damping.to_host();
      add_pml_damping(d->pml_nodes, preflight.dt, mass, damping);
      d->damping.copy_from_host(damping);
      d->pml_mass = pml_node_mass(d->pml_nodes, mass);
      clock.lap(str("PML: ", d->pml_nodes.size(), " nodes' damping and mass"));
    }
  }
  return d;
}

template <class Real>
void finish_subdomain(Subdomain<Real>& d, const Model& original, const Preflight& preflight, SetupClock& clock,
                      Observer* observer, std::mutex& observer_guard) {
  const Exec& exec = d.exec;
  const Model& model = *d.model;
  if (!preflight.blocks.empty()) {
    // The saved partition (of the model's numbering), carried to the subdomain's: no partitioning.
    // The partitioned layout is filled on the host from a host assembly.
    partition::BlockPartition blocks = partition::read_block_file(preflight.blocks, node_graph(original.mesh));
    if (!d.numbering.identity())
      blocks = partition::renumbered(std::move(blocks), d.numbering.local_to_global(), node_graph(model.mesh));
    fem::SectionTable table = fem::section_table(model, false);
    without_pml(table, d.pml_element_list);
    const sparse::CsrMatrix K = sparse::assemble_stiffness(model, table, fem::colour_elements(model.mesh), host_exec(exec));
    d.stiffness = std::make_unique<PartitionedOperator<Real>>(exec, K, model.mesh, std::move(blocks));
    clock.lap("stiffness (host assembly, partitioned layout)");
  } else {
    op::OperatorSetup built;
    if (d.interface_elements) {  // the element-by-element kinds, split by elements
      d.stiffness = std::make_unique<op::SplitOperator<Real>>(
          make_stiffness_operator<Real>(model, preflight.op->name, std::move(d.interface_elements), preflight.assembly,
                                        nullptr, -1, nullptr, preflight.dt),
          make_stiffness_operator<Real>(model, preflight.op->name, std::move(d.interior_elements), preflight.assembly,
                                        nullptr, -1, nullptr, preflight.dt));
    } else {  // the assembled kinds split by rows, the shared nodes' first
      const Index split_at = d.part && preflight.overlap ? d.part->n_owned : -1;
      d.stiffness = make_stiffness_operator<Real>(model, preflight.op->name, d.elements, preflight.assembly, &built,
                                                  split_at, d.interface_exec ? &*d.interface_exec : nullptr,
                                                  preflight.dt);
    }
    d.split = dynamic_cast<const op::SplitOperator<Real>*>(d.stiffness.get());
    const char* parts = !d.split                ? ""
                        : d.split->adds() ? ", in two parts: the elements touching shared nodes, the rest"
                                          : ", in two parts: the shared nodes' rows, the rest";
    if (built.assembly_bytes > 0) {  // K was assembled on the Exec
      clock.detail(str("K by the two-kernel assembly (", to_string(preflight.assembly), ", double)"), built.assembly_seconds);
      clock.detail(str("K to ", preflight.op->name, " in ", to_string(preflight.precision)), built.format_seconds);
    }
    clock.lap(str("stiffness operator (", preflight.op->name, parts, ")"));
  }
  d.elements.reset();  // the element-by-element operators hold their own reference
  d.loading = d.part ? std::move(d.part->loading) : std::make_unique<Loading>(model);
  d.columns = preflight.shots_together;
  if (d.columns > 1) d.stiffness->keep_states(d.columns);  // (attenuation's memory variables, each shot's)
  d.scheme = std::make_unique<CentralDifference<Real>>(exec, *d.stiffness, std::move(d.mass), std::move(d.damping),
                                                       preflight.dt, d.loading->constrained_dofs(), model.mesh.dim(),
                                                       d.columns);
  clock.lap(d.columns > 1 ? str("integrator state (", d.columns, " shots side by side)") : std::string("integrator state"));
  if (d.beta_elements) {
    // sum_e beta_e K_e: an operator of the kind the run uses, but a whole-mesh layout (partitioned),
    // which is made for K's own blocks, gives way to the backend's default.
    const op::OperatorEntry& kind = preflight.op->reads_blocks || preflight.op->whole_mesh_only
                                        ? operators().default_for(exec.backend())
                                        : *preflight.op;
    d.terms.push_back(std::make_unique<StiffnessDamping<Real>>(
        make_stiffness_operator<Real>(model, kind.name, std::move(d.beta_elements), preflight.assembly), preflight.dt,
        d.columns));
    clock.lap(str("stiffness-proportional damping (", kind.name, " weighted by each element's beta)"));
  } else if (d.betas.any()) {
    d.terms.push_back(
        std::make_unique<StiffnessDamping<Real>>(*d.stiffness, *d.betas.uniform, preflight.dt, d.columns));
    clock.lap("stiffness-proportional damping");
  }
  if (d.pml_elements || d.pml_nodes.size() > 0) {
    auto term = std::make_unique<PmlTerm<Real>>(exec, std::move(d.pml_elements), preflight.pml, d.pml_nodes,
                                                d.pml_mass, preflight.dt,
                                                preflight.assembly == sparse::RaceStrategy::Colouring);
    if (d.columns > 1) term->keep_columns(d.columns, d.scheme->n_dofs());
    d.pml = term.get();
    d.terms.push_back(std::move(term));
    d.pml_nodes = {};
    d.pml_mass = {};
    clock.lap("PML");
  }
  // With fluids, the model's histories: the fluid's (pressure, motion from its potential) and the
  // solid's.
  std::vector<History> in_fluid, motion;
  if (preflight.histories)
    for (const History& history : *preflight.histories)
      (records_fluid(history) ? in_fluid : motion).push_back(history);
  if (preflight.fluid) {  // (original: the model's solid, in the model's numbering)
    // A part's fluid and receivers (add_fluid_parts), or the whole fluid's.
    TREMOR_CHECK(!d.part || d.part->fluid, "a subdomain of a model with fluids without its part of the fluid");
    auto term = std::make_unique<FluidTerm<Real>>(
        exec, d.part ? *d.part->fluid : *preflight.fluid, d.numbering, fluid_loading(original, preflight.fluid->mesh),
        d.part ? std::move(d.part->fluid_histories) : std::move(in_fluid), preflight.dt,
        preflight.assembly == sparse::RaceStrategy::Atomics, d.columns, preflight.fluid_inner_steps,
        preflight.fluid_leads);
    d.fluid = term.get();
    d.terms.push_back(std::move(term));
    clock.lap("fluid (its elements, integrator, loads and faces on the solid)");
  }
  if (d.columns > 1) {
    const std::vector<const Loading*> same(static_cast<std::size_t>(d.columns), d.loading.get());
    d.stacked = std::make_unique<Loading>(Loading::stacked(same));
  }
  d.loads = std::make_unique<DeviceLoading<Real>>(exec, d.stepped_loading(), preflight.dt);
  clock.lap("loads");
  std::vector<History> histories = d.part                ? std::move(d.part->histories)
                                   : preflight.histories ? std::move(motion)
                                                         : make_histories(model, preflight.dt);
  if (!d.part && preflight.histories)  // (in the model's numbering)
    for (History& history : histories) d.numbering.to_local(history);
  d.recorder = std::make_unique<Recorder<Real>>(exec, repeat_for_shots(std::move(histories), d.columns), preflight.dt,
                                                model.mesh.n_nodes() * model.mesh.dim(), 0, d.columns);
  clock.lap("receivers");
  // The snapshot nodes are the model's; the taker gathers them at their local numbers (and takes
  // nothing without an observer). A part's are in its own model (ModelPart::snapshot_points),
  // none when it owns none of them.
  if (d.part)  // (with fluids, its part of the fluid's too: ModelPart::fluid_snapshot_nodes)
    d.snapshots = std::make_unique<SnapshotTaker<Real>>(
        exec, model, d.part->snapshot_points.empty() ? 0 : preflight.snapshot_every, preflight.dt, std::vector<Index>{},
        observer, observer_guard, d.part->fluid.get(), d.fluid, std::span<const Index>(d.part->nodes),
        std::span<const Index>(d.part->fluid_snapshot_nodes));
  else
    d.snapshots = std::make_unique<SnapshotTaker<Real>>(exec, original, preflight.snapshot_every, preflight.dt,
                                                        d.numbering.global_to_local(), observer, observer_guard,
                                                        preflight.fluid.get(), d.fluid);
  if (d.fluid) {
    d.fluid->read_pressure_at(d.snapshots->pressure_nodes());
    d.fluid->read_motion_by_snapshots(d.snapshots->reads_fluid_motion());
  }
}

namespace {

// `shot`'s loads on subdomain d: the model's (`model`, in the model's numbering) at a part's nodes,
// or those of d's model.
template <class Real>
Loading shot_loading(const Subdomain<Real>& d, const Model& model, const Shot& shot) {
  return d.part ? Loading(model, &shot).restricted(d.part->nodes) : Loading(*d.model, &shot);
}

}  // namespace

template <class Real>
void load_shot(Subdomain<Real>& d, const Model& model, const Preflight& preflight, const Shot& shot) {
  const double dt = preflight.dt;
  auto loading = std::make_unique<Loading>(shot_loading(d, model, shot));
  // Transducers load and never constrain, so the integrator's constrained DOFs stay right.
  TREMOR_CHECK(loading->constrained_dofs() == d.loading->constrained_dofs(), "shot '", shot.name,
               "' constrains other degrees of freedom than the model");
  d.loads.reset();
  d.loading = std::move(loading);
  d.loads = std::make_unique<DeviceLoading<Real>>(d.exec, *d.loading, dt);
  if (d.fluid) d.fluid->load_shot(fluid_loading(model, preflight.fluid->mesh, &shot));
}

template <class Real>
void load_shots(Subdomain<Real>& d, const Model& model, const Preflight& preflight, std::span<const Shot* const> shots) {
  TREMOR_CHECK(!shots.empty() && static_cast<int>(shots.size()) <= d.columns, shots.size(),
               " shots stepped together on a subdomain set up for ", d.columns);
  if (d.fluid) {  // its fluid's loads, shot by shot
    std::vector<Loading> in_fluid;
    for (const Shot* shot : shots) in_fluid.push_back(fluid_loading(model, preflight.fluid->mesh, shot));
    d.fluid->load_shots(std::move(in_fluid));
  }
  std::vector<Loading> loadings;
  loadings.reserve(static_cast<std::size_t>(d.columns));
  for (int s = 0; s < d.columns; ++s) {
    const Shot& shot = *shots[std::min(static_cast<std::size_t>(s), shots.size() - 1)];
    loadings.push_back(shot_loading(d, model, shot));
    TREMOR_CHECK(loadings.back().constrained_dofs() == d.loading->constrained_dofs(), "shot '", shot.name,
                 "' constrains other degrees of freedom than the model");
  }
  std::vector<const Loading*> stacked;
  for (const Loading& loading : loadings) stacked.push_back(&loading);
  d.loads.reset();
  d.stacked = std::make_unique<Loading>(Loading::stacked(stacked));
  d.loads = std::make_unique<DeviceLoading<Real>>(d.exec, *d.stacked, preflight.dt);
}

template <class Real>
void start_from_rest(Subdomain<Real>& d, double dt) {
  const Loading& loading = d.stepped_loading();
  const std::vector<Index>& dofs = loading.prescribed_dofs();
  std::vector<Real> previous(static_cast<std::size_t>(d.scheme->field_size()), Real(0)), current(previous);
  std::vector<double> values(dofs.size());
  for (auto [t, state] : {std::pair{-dt, &previous}, std::pair{0.0, &current}}) {
    loading.prescribed(t, values);
    for (std::size_t k = 0; k < dofs.size(); ++k)
      (*state)[static_cast<std::size_t>(dofs[k])] = static_cast<Real>(values[k]);
  }
  d.scheme->set_state(previous, current, 0);
  d.stiffness->reset_state();  // the memory variables of attenuating sections
  for (const auto& term : d.terms) term->start_from_rest();
}

template <class Real>
void sum_lumped_mass(Exchange<Real>& exchange, std::span<Subdomain<Real>* const> subdomains) {
  std::vector<View<double>> mass, damping;
  for (Subdomain<Real>* d : subdomains) {
    mass.push_back(d->mass.view());
    damping.push_back(d->damping.view());
  }
  exchange.sum_mass(mass);
  if (subdomains.front()->damping.size() > 0) exchange.sum_mass(damping);  // damped: every subdomain has one
}

template <class Real>
std::unique_ptr<Subdomain<Real>> set_up_subdomain(const Exec& exec, const Model& original, Numbering numbering,
                                                  const Preflight& preflight, Exchange<Real>& exchange,
                                                  SetupClock& clock, Observer* observer, std::mutex& observer_guard,
                                                  const PmlNodeProfile* layer) {
  std::unique_ptr<Subdomain<Real>> d =
      begin_subdomain<Real>(exec, original, std::move(numbering), nullptr, preflight, clock, nullptr, layer);
  Subdomain<Real>* const one[] = {d.get()};
  sum_lumped_mass<Real>(exchange, one);
  finish_subdomain(*d, original, preflight, clock, observer, observer_guard);
  return d;
}

namespace {

// The model's element of each of `local` (the subdomain's elements; empty: the first n_operator).
template <class Real>
std::vector<Index> model_elements(const Subdomain<Real>& d, std::vector<Index> elements, std::size_t n_operator) {
  if (elements.empty()) {
    elements.resize(n_operator);
    std::iota(elements.begin(), elements.end(), Index(0));
  }
  TREMOR_CHECK(elements.size() == n_operator, "state kept for ", n_operator, " elements; the subdomain lists ",
               elements.size());
  if (d.part)
    for (Index& e : elements) e = d.part->elements[static_cast<std::size_t>(e)];
  return elements;
}

// The model's node of each local node listed.
template <class Real>
std::vector<Index> model_nodes(const Subdomain<Real>& d, std::vector<Index> nodes) {
  if (!d.numbering.identity())
    for (Index& n : nodes) n = d.numbering.local_to_global()[static_cast<std::size_t>(n)];
  return nodes;
}

}  // namespace

template <class Real>
std::vector<ElementValues> element_values(const Subdomain<Real>& d) {
  std::vector<ElementValues> pieces;
  ElementValues piece;
  piece.offsets = d.stiffness->state_offsets();
  if (!piece.offsets.empty()) {
    piece.values = d.stiffness->get_state();
    piece.elements = model_elements(d, d.stiffness_elements, piece.offsets.size() - 1);
    pieces.push_back(std::move(piece));
  }
  if (d.pml) {
    ElementValues pml;
    pml.offsets = d.pml->state_offsets();
    pml.values = d.pml->get_state();
    pml.elements = model_elements(d, d.pml_element_list, pml.offsets.size() - 1);
    pieces.push_back(std::move(pml));
  }
  return pieces;
}

template <class Real>
ElementValues pml_node_values(const Subdomain<Real>& d) {
  ElementValues nodes;
  if (!d.pml) return nodes;
  nodes.elements = model_nodes(d, d.pml->node_list());
  nodes.values = d.pml->get_node_state();
  return nodes;
}

void merge_element_values(std::span<const ElementValues> pieces, Index n_elements, std::vector<Size>& offsets,
                          std::vector<double>& values) {
  offsets.clear();
  values.clear();
  const auto n = static_cast<std::size_t>(n_elements);
  std::vector<Size> counts(n, 0);
  bool any = false;
  for (const ElementValues& piece : pieces)
    for (std::size_t k = 0; k < piece.elements.size(); ++k) {
      counts[static_cast<std::size_t>(piece.elements[k])] += piece.offsets[k + 1] - piece.offsets[k];
      any = true;
    }
  if (!any) return;
  offsets.assign(n + 1, 0);
  for (std::size_t e = 0; e < n; ++e) offsets[e + 1] = offsets[e] + counts[e];
  values.resize(static_cast<std::size_t>(offsets.back()));
  std::vector<Size> filled(n, 0);  // what each element has of its values so far
  for (const ElementValues& piece : pieces)
    for (std::size_t k = 0; k < piece.elements.size(); ++k) {
      const auto e = static_cast<std::size_t>(piece.elements[k]);
      std::copy(piece.values.begin() + piece.offsets[k], piece.values.begin() + piece.offsets[k + 1],
                values.begin() + offsets[e] + filled[e]);
      filled[e] += piece.offsets[k + 1] - piece.offsets[k];
    }
}

void merge_node_values(std::span<const ElementValues> nodes, std::vector<Index>& node_list,
                       std::vector<double>& node_values) {
  node_list.clear();
  node_values.clear();
  std::map<Index, std::pair<const ElementValues*, std::size_t>> first;  // (a shared node: its copies agree)
  for (const ElementValues& piece : nodes)
    for (std::size_t k = 0; k < piece.elements.size(); ++k) first.emplace(piece.elements[k], std::pair{&piece, k});
  for (const auto& [node, where] : first) {
    const ElementValues& piece = *where.first;
    const std::size_t per = piece.values.size() / piece.elements.size();
    node_list.push_back(node);
    node_values.insert(node_values.end(), piece.values.begin() + where.second * per,
                       piece.values.begin() + (where.second + 1) * per);
  }
}

std::vector<double> take_element_values(std::span<const Size> mine, std::span<const Index> elements,
                                        std::span<const Size> offsets, std::span<const double> values,
                                        std::vector<Size>& taken) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(mine.back()));
  for (std::size_t k = 0; k < elements.size(); ++k) {
    const auto e = static_cast<std::size_t>(elements[k]);
    TREMOR_CHECK(e + 1 < offsets.size(), "the checkpoint holds memory variables for ", offsets.size() - 1,
                 " elements; the model has more");
    const Size from = offsets[e] + taken[e], count = mine[k + 1] - mine[k];
    TREMOR_CHECK(from + count <= offsets[e + 1], "the checkpoint holds ", offsets[e + 1] - offsets[e],
                 " memory variables for the model's element ", e, "; this run keeps more");
    out.insert(out.end(), values.begin() + from, values.begin() + from + count);
    taken[e] += count;
  }
  return out;
}

std::vector<double> take_node_values(std::span<const Index> nodes, std::span<const Index> node_list,
                                     std::span<const double> node_values) {
  std::map<Index, std::size_t> where;
  for (std::size_t k = 0; k < node_list.size(); ++k) where.emplace(node_list[k], k);
  const std::size_t per = nodes.empty() || node_list.empty() ? 0 : node_values.size() / node_list.size();
  std::vector<double> out;
  for (const Index node : nodes) {
    const auto found = where.find(node);
    TREMOR_CHECK(found != where.end(), "the checkpoint holds no PML state for the model's node ", node,
                 ": it was written for other layer nodes (a layer's inner plane joins its nodes where d is averaged "
                 "as the lumped mass weighs it, docs/model-file.md \"PML\"); run again from the start");
    out.insert(out.end(), node_values.begin() + found->second * per, node_values.begin() + (found->second + 1) * per);
  }
  return out;
}

template <class Real>
void restore_element_values(Subdomain<Real>& d, const SolverState& state) {
  const std::vector<Size> offsets = d.stiffness->state_offsets();
  const std::vector<Size> pml = d.pml ? d.pml->state_offsets() : std::vector<Size>();
  if (offsets.empty() && pml.empty()) return;
  TREMOR_CHECK(!state.memory_offsets.empty(), "the checkpoint holds no memory variables, which this run keeps (",
               offsets.empty() ? "" : "its attenuating elements'", offsets.empty() || pml.empty() ? "" : ", ",
               pml.empty() ? "" : "its PML's",
               "): it was written by a run without them, so this run would not continue it");
  // Each element's values: the operator's first, then the PML's (merge_element_values' order).
  std::vector<Size> taken(state.memory_offsets.size() - 1, 0);
  const auto take = [&](const std::vector<Size>& mine, const std::vector<Index>& elements) {
    return take_element_values(mine, elements, state.memory_offsets, state.memory, taken);
  };
  if (!offsets.empty())
    d.stiffness->set_state(take(offsets, model_elements(d, d.stiffness_elements, offsets.size() - 1)));
  if (!d.pml) return;
  d.pml->set_state(take(pml, model_elements(d, d.pml_element_list, pml.size() - 1)));
  d.pml->set_node_state(take_node_values(model_nodes(d, d.pml->node_list()), state.pml_nodes, state.pml_node_values));
}

template struct Subdomain<float>;
template struct Subdomain<double>;
template std::vector<ElementValues> element_values(const Subdomain<float>&);
template std::vector<ElementValues> element_values(const Subdomain<double>&);
template ElementValues pml_node_values(const Subdomain<float>&);
template ElementValues pml_node_values(const Subdomain<double>&);
template void restore_element_values(Subdomain<float>&, const SolverState&);
template void restore_element_values(Subdomain<double>&, const SolverState&);
template std::unique_ptr<Subdomain<float>> begin_subdomain(const Exec&, const Model&, Numbering, ModelPart*,
                                                           const Preflight&, SetupClock&, const Exec*,
                                                           const PmlNodeProfile*);
template std::unique_ptr<Subdomain<double>> begin_subdomain(const Exec&, const Model&, Numbering, ModelPart*,
                                                            const Preflight&, SetupClock&, const Exec*,
                                                           const PmlNodeProfile*);
template void sum_lumped_mass(Exchange<float>&, std::span<Subdomain<float>* const>);
template void sum_lumped_mass(Exchange<double>&, std::span<Subdomain<double>* const>);
template void finish_subdomain(Subdomain<float>&, const Model&, const Preflight&, SetupClock&, Observer*, std::mutex&);
template void finish_subdomain(Subdomain<double>&, const Model&, const Preflight&, SetupClock&, Observer*, std::mutex&);
template std::unique_ptr<Subdomain<float>> set_up_subdomain(const Exec&, const Model&, Numbering, const Preflight&,
                                                            Exchange<float>&, SetupClock&, Observer*, std::mutex&,
                                                            const PmlNodeProfile*);
template std::unique_ptr<Subdomain<double>> set_up_subdomain(const Exec&, const Model&, Numbering, const Preflight&,
                                                             Exchange<double>&, SetupClock&, Observer*, std::mutex&,
                                                             const PmlNodeProfile*);
template void load_shot(Subdomain<float>&, const Model&, const Preflight&, const Shot&);
template void load_shot(Subdomain<double>&, const Model&, const Preflight&, const Shot&);
template void load_shots(Subdomain<float>&, const Model&, const Preflight&, std::span<const Shot* const>);
template void load_shots(Subdomain<double>&, const Model&, const Preflight&, std::span<const Shot* const>);
template void start_from_rest(Subdomain<float>&, double);
template void start_from_rest(Subdomain<double>&, double);

}  // namespace tremor::explicit_fe
