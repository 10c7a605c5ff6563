#pragma once
// The fluid of a model (docs/model-file.md, "Fluids"): its elements and nodes apart from the
// solid's, one value per node, the displacement potential chi (rho u = grad chi, p = -chi_tt;
// Komatitsch, Barnes and Tromp 2000, Geophysics 65, eq. 4), so that
//
//   M_f chi_tt + K_f chi = (coupling, sources),   M_f = lumped t int N_a / kappa,
//   K_f = t int (1 / rho) grad N_a . grad N_b    (fem::FluidLaw, fem::apply_fluid_stiffness),
//
// stepped by the same central differences as the solid (CentralDifference with one DOF per node).
// FluidField holds the fluid's own numbering: a node of the model that fluid elements hold is a
// fluid node, numbered in the model's order; a node on a fluid-solid face is both a solid node
// and a fluid node, and the two fields meet only through the coupling (fem/coupling.hpp).
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/backend/side_stream.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/explicit/parts.hpp"
#include "tremor/explicit/pml.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/explicit/step_term.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/model.hpp"
#include "tremor/model/pml.hpp"
#include "tremor/operator/operator.hpp"
#include "tremor/operator/spectrum.hpp"
#include "tremor/sem/fluid.hpp"

namespace tremor::explicit_fe {

// The fluid's elements as a model of their own: `model.mesh` the fluid elements (blocks by type
// and order, in the model's order) on the fluid nodes, its element sets those of the model's
// sections restricted to them; the model's materials and sections.
struct FluidMesh {
  Model model;
  // The model's node of each fluid node, and its global element of each fluid element: ascending
  // (a part's, fluid_part: its own nodes, then those it shares, each ascending; its elements in
  // the model's order).
  std::vector<Index> nodes;
  std::vector<Index> elements;
  Index n_model_elements = 0;  // the model's elements, fluid and solid
  // The fluid's sections as the element kernels read them: per section of the model D[0] = 1 / rho
  // (a fluid's; 0 for a solid's, which no fluid element has), `density` the mass's coefficient
  // 1 / kappa, thickness as the section's; per fluid element the absorbing layers' damping and
  // stiffness factor (alid, srm: the model's profile at its elements; empty without layers).
  fem::SectionTable table;
  Index n_nodes() const { return static_cast<Index>(nodes.size()); }
};
// Empty (no node, no element) without fluid sections.
FluidMesh fluid_mesh(const Model& model);

// The fluid's lumped mass per fluid node: t int N_a / kappa dV lumped as the solid's mass is
// (sparse::assemble_lumped_mass with 1 / kappa for rho), with the fluid mesh's element colouring
// where the caller has made it.
std::vector<double> fluid_lumped_mass(const FluidMesh& fluid, const Exec& exec,
                                      const fem::ElementColouring* colouring = nullptr);

// The absorbing layers' damping per fluid node, sum_e alpha_e M_f,e lumped as fluid_lumped_mass;
// empty where no layer covers a fluid element (undamped).
std::vector<double> fluid_lumped_damping(const FluidMesh& fluid, const Exec& exec);

// The largest eigenvalue of M_f^-1 K_f (op::largest_eigenvalue: Lanczos on the fluid's operator in
// double, on `exec`), which bounds the fluid's stable step as the solid's bounds its own:
// dt <= 2 / sqrt(lambda). Throws tremor::Error for a fluid of no element.
op::Spectrum fluid_spectrum(const FluidMesh& fluid, const Exec& exec);

// K_f chi, element by element without K_f: on GLL hexahedra and quadrilaterals of order 2 or more
// by sum factorisation in Real (sem/fluid.hpp), on other elements each element's forces in double
// (fem::apply_fluid_stiffness on its stiffness rule); summed colour by colour with plain adds (the
// same bits every run) or, built with `atomic` on a GPU, by atomic adds in one launch per block.
template <class Real>
class FluidOperator final : public op::Operator<Real> {
 public:
  // `geometry`: sem::Geometry::Stored keeps the sum-factorised kernels' factors per point (for the
  // comparison).
  FluidOperator(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements, bool atomic = false,
                sem::Geometry geometry = sem::Geometry::Auto);

  const Exec& exec() const override { return exec_; }
  Index n_dofs() const override { return elements_->n_nodes; }
  std::string_view name() const override { return "fluid"; }
  std::size_t bytes() const override;
  bool adds() const override { return true; }
  void apply_unchecked(const Real* chi, Real* f) const override;
  void add_unchecked(const Real* chi, Real* f) const override;
  // Shots stepped together: each element's work for each shot as for one (a thread, or a group of
  // threads, per element and shot), reading its data once from memory for the shots side by side;
  // each shot's sums those of one alone.
  void apply_batch_unchecked(const Real* chi, Real* f, int columns) const override;
  void add_batch_unchecked(const Real* chi, Real* f, int columns) const override;
  bool fuses_batch() const override { return true; }
  // f += K_f chi for `shots` interleaved (1: add_unchecked).
  void add_shots(const Real* chi, Real* f, int shots) const;
  // The same, the elements that `stepped` marks (per block, per element of the block; a block null
  // or past its end: none) taking the step of their inner nodes in `inner`'s range where they
  // would add K chi there (sem::FluidKernels::add; blocks that steps_inner only).
  void add_stepping(const Real* chi, Real* f, int shots, const op::InnerStep<Real>& inner,
                    std::span<const unsigned char* const> stepped) const;
  bool steps_inner(std::size_t block) const { return sum_factorised_->steps_inner(block); }

 private:
  Exec exec_;
  std::shared_ptr<const fem::DeviceElements> elements_;
  bool atomic_ = false;
  std::unique_ptr<const sem::FluidKernels<Real>> sum_factorised_;  // the blocks it takes
};

extern template class FluidOperator<float>;
extern template class FluidOperator<double>;

// A run's fluid, made once by the pre-flight (its solid is fem::solid_part): the fluid's mesh, its
// faces on the solid, its lumped mass and the stable step it allows.
struct FluidSetup {
  FluidMesh mesh;
  fem::FluidSolidInterface interface;
  std::vector<double> mass;        // fluid_lumped_mass
  std::vector<double> damping;     // fluid_lumped_damping (empty: undamped)
  op::Spectrum spectrum;           // of M_f^-1 K_f (fluid_spectrum)
  double stable_dt = 0.0;          // s, 2 / sqrt(spectrum.largest) (with_fluid rounds it)
  double largest_element = 0.0;    // m, the largest distance between two nodes of a fluid element
  double slowest = 0.0;            // m/s, the lowest sound speed of the fluids in use
  // The model's PML layers (model/pml.hpp; any() false without one): the fluid's elements and
  // nodes inside them are the FluidTerm's PML's (explicit/pml.hpp, PmlField::Fluid).
  PmlProfile pml;
  PmlNodeProfile pml_nodes;  // the mass side's d and alpha at the layers' nodes (a part's in its numbers)
  // A part's (fluid_part): the whole fluid's node of each of its nodes, and the whole fluid's node
  // count. Empty and 0: the whole fluid.
  std::vector<Index> whole_nodes;
  Index n_whole_nodes = 0;
};
// Throws tremor::Error for a model without fluid elements, or one whose fluid meets its solid
// otherwise than across whole faces (fem::fluid_solid_interface).
FluidSetup fluid_setup(const Model& model, const Exec& exec);
// Part `domain` of a run's fluid (a subdomain of a decomposition of fluid.mesh.model.mesh): its
// elements on its nodes (local numbers: its own nodes first, then those it shares), the faces of
// its elements on the solid, and the whole fluid's mass and damping at its nodes (which sum every
// part's already). The spectrum and sizes are the whole fluid's.
FluidSetup fluid_part(const FluidSetup& fluid, const partition::Subdomain& domain);
// The coupling's bound on the coupled step (with_fluid, explicit/solver.hpp): mu >= the largest
// eigenvalue of M_s^-1 C M_f^-1 C^T, the stiffness the fluid's lumped mass adds to the solid at the
// interface, by Gershgorin's theorem on M_s^-1/2 C M_f^-1 C^T M_s^-1/2. `solid_mass`: the solid's
// lumped mass per DOF (dim per node) in the model's numbering, on the host.
double coupling_bound(const FluidSetup& fluid, std::span<const double> solid_mass);

// What a run's FluidTerm holds on its Exec, with state of `real_size` bytes (the pre-flight's
// estimate): the fluid's elements, its integrator's state and coefficients, the interface's rows.
std::size_t fluid_run_bytes(const FluidSetup& fluid, std::size_t real_size);

// The fluid's loads as a Loading of one value per fluid node (FluidMesh numbering): each volume
// source (PointSource::volume) of V(t) = amplitude signal(t - delay) at its nodes becomes the load
// -V(t) of M_f chi_tt + K_f chi = F (a volume injected raises the pressure -chi_tt), the loads of
// transducers `shot` does not fire left out; each pressure-release node (FixedDof::pressure) held
// at chi = 0. A piston (Transducer::Mode::Piston) driven by velocity v(t) becomes the volume
// sources A_a int v dt at its faces' nodes (A_a: fem::piston_areas); driven by pressure, chi held at
// -amplitude int int signal at its nodes within the radius (the FluidTerm's pressure there its
// second difference). Throws tremor::Error, naming the source, the piston or the boundary, for a
// volume source, a piston or a pressure-release node at a node no fluid element holds, and a
// piston with no area (or, driven by pressure, no node) within its radius.
Loading fluid_loading(const Model& model, const FluidMesh& fluid, const Shot* shot = nullptr);

// The priority of a run's stream on a GPU, created with it: with a fluid Raised, a stream of its own
// whose priority the fluid's term sets per step (FluidTerm::start_forces); without, Lowest, the
// default stream's. (An exchange's side stream stays Highest.)
StreamPriority solid_stream_priority(bool fluid);

// Whether `history` is a fluid's (of pressure, or of motion from the potential): the FluidTerm's.
inline bool records_fluid(const History& history) {
  return history.records(Quantity::Pressure) || history.potential;
}

// The fluid-solid interface's node pairs by row, as FluidTerm's kernels read them (its arrays): row
// r (interface node r: its solid node solid[r] in the subdomain's numbering, fluid node fluid[r])
// holds columns col[k] (interface nodes) with coefficients C[k dim + c], k in [offsets[r],
// offsets[r + 1]). `diagonal`: each row holds its own column only (GLL faces' nodal rule), k = r,
// which the kernels then read without offsets and col (two dependent loads fewer a row).
struct InterfaceRows {
  Index n = 0;
  int dim = 3;
  const Index *solid = nullptr, *fluid = nullptr, *offsets = nullptr, *col = nullptr;
  const double* C = nullptr;
  bool diagonal = false;
};

// The fluid of a run as a per-step term of its solid (step_term.hpp): at each step, from the
// solid's displacement u_n and the fluid's potential chi_n,
//
//   M_f a_n = F_n - K_f chi_n - C^T u_n,   chi_n+1 by central differences,   f_solid += -C a_n,
//
// a_n = chi_tt at t_n, so that the solid feels the traction -p n = chi_tt n of the fluid at the same
// time level as its own K u (fem/coupling.hpp; Komatitsch, Barnes and Tromp 2000, eqs. 7-9: the
// fluid is stepped first, then the solid takes its acceleration). C is applied node pair by node
// pair from rows by node (no atomics: the same bits every run). The pressure p_n = -a_n, exact
// where a second difference of chi would lose digits, is what the receivers of pressure record: at
// each step's forces, as a level (p_n is known once chi_n+1 is, as a velocity is: a pressure history
// has no sample at the run's last step, receivers.hpp).
//
// Where the run adds by atomics on a GPU, the fluid's own work (its loads, K_f chi, its update and
// C p, added by atomics) is queued on a stream beside the solid's (start_forces), so that its
// kernels run at the same time as the solid's apply; its arrays live on that stream, and add_forces
// makes the solid's later work, and the recorders, wait for it. The fluid's stream is Raised; the
// solid's apply is queued Lowest, below the fluid's K_f, and the rest of the solid's step Highest
// (set_stream_priority from start_forces and add_forces), so that its short kernels take blocks as
// soon as the fluid's retire. Where the fluid has more than twice the solid's nodes, C^T u is added
// by atomics from the solid's stream while K_f chi runs, the fluid's update waiting for it, and the
// fluid's next K_f need not wait for the solid's update (leads).
//
// In a PML (FluidSetup::pml) the layer's fluid elements leave K_f for the term's PML (PmlTerm with
// PmlField::Fluid, on the same stream): their stretched flux joins K_f chi, and at the layer's
// nodes the mass side's damping joins the integrator's and its nodal force M_f R the summed forces.
//
// A decomposed run's part of the fluid (fluid_part) steps its own elements and faces; its forces
// f_f at the nodes it shares with other parts are summed over them between the two halves of its
// step (fluid_forces, then the exchange, then add_forces), as the solid's are, so that a shared
// node's potential is the same in every part. Each face is one part's, so C p and C^T u are summed
// with the solid's forces and the fluid's.
//
// Shots stepped together (`columns`, central_difference.hpp): the potential, its forces and the
// pressure hold every shot's, fluid node i of shot s at i * columns + s, as the solid's fields; one
// update, the coupling's passes a thread per row and shot, K_f a thread (group) per element and
// shot (FluidOperator::add_batch_unchecked); each shot's loads its own (load_shots), its receivers recorded in
// turn. Each shot's bits are those it steps alone. Its step then follows the solid's apply (still on
// its own stream where it has one): the applies that go shot by shot write each shot's forces back
// whole, which adds from beside would meet.
template <class Real>
class FluidTerm final : public StepTerm<Real> {
 public:
  // `fluid`: the run's fluid, or a part of it (fluid_part); `solid`: the subdomain's numbering of
  // the model's nodes (every node of the fluid's faces must be held); `loading` the whole fluid's
  // (fluid_loading), which a part restricts to its nodes; `histories` the receivers at its nodes
  // (make_histories: of pressure, and of motion from the potential), in the model's numbering.
  // `atomic`: on a GPU, K_f sums by atomic adds (as the run's assembly, sparse::RaceStrategy),
  // else colour by colour. `columns`: the shots stepped together (`histories` one shot's: each
  // shot records them), every one loaded by `loading` until load_shots. A part of a fluid steps
  // its shots side by side too (fluid_forces).
  // `inner_steps`: the whole fluid's inner nodes stepped by their element's kernel
  // (inner_nodes_stepped); false: by the update (for a comparison). `lead`: leads() where it may;
  // false: never (for a comparison).
  FluidTerm(const Exec& exec, const FluidSetup& fluid, const Numbering& solid, Loading loading,
            std::vector<History> histories, double dt, bool atomic, int columns = 1, bool inner_steps = true,
            bool lead = true);

  std::string_view name() const override { return "fluid-solid coupling"; }
  bool start_forces(const CentralDifference<Real>& scheme, View<Real> forces) override;
  void add_forces(const CentralDifference<Real>& scheme, View<Real> forces) override;
  void start_from_rest() override;

  // A part's first half of a step (before add_forces): the loads, and f_f = K_f chi_n + C^T u_n
  // from the solid's displacement, into the fluid's forces, which it returns for the exchange to
  // sum over the parts.
  View<Real> fluid_forces(const CentralDifference<Real>& scheme);
  bool is_part() const { return !whole_.empty(); }
  // The whole fluid's node of each of its nodes (the whole fluid's own order but where it keeps the
  // inner nodes last); its number of the model's node `node`, -1 where it holds none.
  std::vector<Index> whole_nodes() const;
  Index fluid_node(Index node) const { return numbering_.local_node(node); }
  // The model's node of its node `local` (fluid_node's inverse).
  Index model_node(Index local) const { return numbering_.global_node(local); }
  // The node of the FluidSetup it was made from (its mesh's numbering) of its node `local`: the
  // same but where it keeps the inner nodes last (the whole fluid's GLL hexahedra).
  Index setup_node(Index local) const {
    return order_.empty() ? local : order_[static_cast<std::size_t>(local)];
  }

  // The coupling's two passes over the interface's rows, which each step makes (public for the
  // benchmark that times them alone, queued on the Exec given to the constructor): f_f += C^T u from
  // the solid's displacement `u` (the subdomain's numbering) into the fluid's forces `fluid_forces`
  // (a fluid node each), and solid_forces += C p from the pressure of the last step taken.
  void add_solid_motion(View<const Real> u, View<Real> fluid_forces) const;
  void add_fluid_traction(View<Real> solid_forces) const;
  // Two of the step's kernels queued alone on the fluid's stream (work_exec()), for a benchmark
  // that times them (the state they leave is no step's): K_f chi into the fluid's forces, the inner
  // nodes' steps taken (inner_nodes_stepped), and the update (without loads or pressure).
  void time_operator();
  void time_update();
  const Exec& work_exec() const { return work_; }
  // Whether each interface row holds its own column only (InterfaceRows::diagonal).
  bool diagonal_coupling() const { return diagonal_; }
  // The fluid's nodes (its numbering) whose pressure is read besides its receivers' and the
  // interface's: the snapshots' (SnapshotTaker::pressure_nodes). The step computes p there and at
  // those, and at every node only where they are more than an eighth of the fluid's
  // (writes_pressure_everywhere).
  void read_pressure_at(std::vector<Index> nodes);
  bool writes_pressure_everywhere() const { return everywhere_; }
  // Whether the snapshots read the fluid's potential (SnapshotTaker::reads_fluid_motion), on the
  // solid's stream after its update.
  void read_motion_by_snapshots(bool reads) { motion_snapshots_ = reads; }
  // Whether the fluid's stream starts a step's K_f chi as soon as its last update is done, without
  // waiting for the solid's update and what follows it on the solid's stream: where the fluid
  // steps beside the solid as the step's critical path (C^T u on the solid's stream, which the
  // fluid's stream waits for before its pressure), without a PML, and where nothing on the solid's
  // stream reads the potential, which K_f's inner steps write (receivers or snapshots of the
  // fluid's motion). The solid's update and loads then run beside the next K_f. Not at a run's or
  // shot's first step, nor after the fluid's state was set from the solid's stream (a checkpoint,
  // a shot's loads): start_forces waits for the solid's stream then.
  bool leads() const {
    return lead_ && motion_beside_ && !pml_ && !motion_snapshots_ && motion_recorder_->histories().empty();
  }
  // The fluid's nodes whose step their own element's kernel takes now (the inner points of GLL
  // hexahedra of order 2 or more, with no load; not in an element where a pressure is read at one,
  // nor where the update writes it everywhere): the update skips them.
  Index inner_nodes_stepped() const { return inner_stepped_; }

  // The fluid's potential chi now, and its pressure -chi_tt at the last step taken, at the nodes
  // where it is read (the receivers', the interface's and those of read_pressure_at).
  const CentralDifference<Real>& fluid_scheme() const { return *scheme_; }
  View<const Real> pressure() const { return pressure_.view(); }
  std::vector<Real> pressure_on_host() const { return pressure_.to_host(); }  // (0 where not read)
  Index n_fluid_nodes() const { return scheme_->n_dofs(); }

  // A shot's loads (the whole fluid's: fluid_loading with the shot), or a kept set-up's run's, in
  // place of the last: the same held DOFs (a model with shots takes no piston driven by pressure,
  // which holds its nodes only when it fires). Throws tremor::Error where they differ.
  void load_shot(Loading loading);
  // The same for shots stepped together: one loading per column (the last repeated where fewer).
  void load_shots(std::vector<Loading> loadings);
  int columns() const { return scheme_->columns(); }

  // The receivers in the fluid, on two recorders of the fluid's nodes: of pressure (p_n, recorded at
  // each step's forces) and of motion from the potential (History::potential: chi's two levels
  // after each step, as the solid's receivers record u). The time loop flushes them with the
  // subdomain's; histories() completes them and gives every sample, the pressure's first, in
  // the model's numbering; with several columns, shot by shot (each shot's pressure's, then its
  // motion's).
  void set_on_sample(const typename Recorder<Real>::Callback& on_sample);
  // Each sample completed passed to to(k, history, sample), k the history's place in histories().
  // histories_per_shot(): a shot's (all of them where one shot is stepped).
  std::size_t histories_per_shot() const {
    return (pressure_recorder_->histories().size() + motion_recorder_->histories().size()) /
           static_cast<std::size_t>(columns());
  }
  void route_samples(std::function<void(std::size_t, const History&, std::size_t)> to);
  // Other receivers in the fluid (a kept set-up's run, explicit/simulation.hpp): the recorders
  // made anew for `histories` as the constructor makes them, with no sample and no callback.
  void set_histories(std::vector<History> histories);
  void flush_samples();
  void restart_samples();  // a new run's step 0 (a model's next shot)
  // `take`: moved out (the run's end); else copied (a shot's, the recorders restarting after).
  std::vector<History> histories(bool take);

  // A checkpoint's part (SolverState): chi's two levels, widened to double, written at its nodes
  // into the whole fluid's (resized to the whole fluid's nodes where empty), and the samples
  // waiting for the next step (after flush_samples()), one per fluid history in histories() order.
  void get_state(std::vector<double>& previous, std::vector<double>& current) const;
  std::vector<PendingSample> pending() const;
  // Continues from a checkpoint at `step` (the solid's): chi's levels of the whole fluid as
  // get_state gave them (a part takes its nodes'), and the pending samples as pending() did.
  // p_step follows at the step's forces, as in the run that wrote it. Throws tremor::Error on a
  // count or size mismatch.
  void restore(std::span<const double> previous, std::span<const double> current, long long step,
               std::vector<PendingSample> pending);
  // Its PML's state (none without one): its elements' by the model's element (ElementValues), its
  // nodes' by the model's node (dim values each); and back from a checkpoint's (SolverState's
  // fluid_pml_*), each element and node of its own found there. Throws tremor::Error where one is
  // missing or of another size.
  bool has_pml() const { return pml_ != nullptr; }
  void get_pml_state(ElementValues& elements, ElementValues& nodes) const;
  void restore_pml(const SolverState& state);

 private:
  Exec exec_;
  std::unique_ptr<SideStream> beside_;  // where the run adds by atomics on a GPU
  Exec work_;                           // the fluid's own work's: beside_->side(), or exec_
  bool started_ = false;                // the step's work queued beside the apply (start_forces)
  bool lead_ = true;                    // leads() allowed (the constructor's `lead`)
  bool motion_snapshots_ = false;       // read_motion_by_snapshots
  bool joined_ = false;                 // the solid's stream joined the fluid's last step; nothing set since
  // The step's work on work_ (loads, K_f chi + C^T u, the pressure where read and C p, the update), C p by
  // atomics where `atomic`; the motion's step-0 levels recorded first (on exec_).
  void queue_step(const CentralDifference<Real>& scheme, View<Real> forces, bool atomic);
  // The step's first half on work_: the loads, and K_f chi + C^T u into the fluid's forces.
  View<Real> queue_forces(const CentralDifference<Real>& scheme);
  View<Real> apply_operator();  // K_f chi_n into the fluid's forces, the inner nodes' steps taken
  void record_start(long long step);
  Loading own(Loading whole) const;  // the whole fluid's loads at its nodes
  std::vector<Index> pml_model_nodes() const;  // the model's node of each of pml_'s
  InterfaceRows rows() const {
    return {solid_.size(), dim_, solid_.data(), fluid_.data(), offsets_.data(), col_.data(), C_.data(), diagonal_};
  }
  int dim_ = 3;
  Numbering numbering_;       // its fluid nodes as the model's (FluidMesh::nodes; dim 1)
  std::vector<Index> whole_;  // a part's: the whole fluid's node of each of its own (FluidSetup)
  Index n_whole_ = 0;         // the whole fluid's nodes
  std::shared_ptr<const fem::DeviceElements> elements_;
  std::unique_ptr<FluidOperator<Real>> stiffness_;
  std::unique_ptr<PmlTerm<Real>> pml_;        // its layer's elements and nodes, or null
  std::vector<Index> pml_elements_;           // the model's element of each of pml_'s
  bool layers_ = false;                       // the model's fluid has PML layers (a part may hold none)
  std::unique_ptr<CentralDifference<Real>> scheme_;
  Loading loading_;
  std::unique_ptr<Loading> stacked_;            // shots stepped together: their loadings' (Loading::stacked)
  const Loading& stepped() const { return stacked_ ? *stacked_ : loading_; }
  std::unique_ptr<DeviceLoading<Real>> loads_;  // reads stepped()
  DeviceArray<Index> solid_, fluid_, offsets_, col_;  // the interface's rows (InterfaceRows)
  DeviceArray<double> C_;
  bool diagonal_ = false;  // InterfaceRows::diagonal
  bool motion_beside_ = false;  // C^T u queued on the solid's stream (queue_forces)
  bool atomic_traction_ = false;  // C p added into the solid's forces by atomics (a GPU's atomic run)
  DeviceArray<Real> pressure_;  // -a_n per fluid node: where it is read (plan_pressure)
  // Where the step computes p: besides the diagonal interface rows' nodes (each row's C p taken from
  // it in the same pass), at read_at_ (the receivers', the snapshots' and, where rows hold other
  // columns, the interface's), before the update; or, where those are more than an eighth of the nodes,
  // at every node by the update itself (everywhere_), C p after it.
  std::vector<Index> read_by_snapshots_;
  DeviceArray<Index> read_at_;
  bool everywhere_ = false;
  void plan_pressure();
  // The whole fluid (no part, no PML) keeps the nodes whose step their own element takes (K_f's
  // kernels: op::InnerStep) last, [inner_first_, inner_last_): order_ the whole fluid's node of
  // each of its own (empty: the whole fluid's order), inner_element_ each inner node's (block,
  // element in the block). stepped_ (per block, per element) marks the elements that take the
  // step, stepped_at_ their data; listed_ the field entries of the others' inner nodes, which the
  // update takes (plan_inner, after plan_pressure's list of the nodes read).
  std::vector<Index> order_;
  Index inner_first_ = 0, inner_last_ = 0;
  std::vector<std::pair<int, Index>> inner_element_;
  std::vector<DeviceArray<unsigned char>> stepped_;
  std::vector<const unsigned char*> stepped_at_;
  DeviceArray<Index> listed_;
  Index inner_stepped_ = 0;
  void plan_inner(const std::vector<Index>& read);
  std::size_t whole_of(std::size_t i) const {  // (a part is never renumbered: setup_node's identity there)
    return static_cast<std::size_t>(is_part() ? whole_[i] : setup_node(static_cast<Index>(i)));
  }
  bool forces_ready_ = false;       // fluid_forces queued this step's first half
  View<Real> forces_;               // the fluid's forces (K_f chi + C^T u, its PML's), queue_forces
  std::unique_ptr<Recorder<Real>> pressure_recorder_;  // reads pressure_
  std::unique_ptr<Recorder<Real>> motion_recorder_;    // reads chi's levels
  bool motion_started_ = false;                        // chi's step-0 levels recorded
};

extern template class FluidTerm<float>;
extern template class FluidTerm<double>;

}  // namespace tremor::explicit_fe
