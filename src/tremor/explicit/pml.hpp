#pragma once
// The convolutional PML as a per-step term (step_term.hpp; model/pml.hpp for the layers,
// fem/pml_law.hpp for the equations). The layer's elements leave the stiffness operator (their
// absorbing-layer factor is 0 there, whatever its kind: sem leaves them out of its launches, the
// others scale them by 0) and are evaluated here instead: at every point of their stiffness rule
// (the GLL nodes of spectral elements, the Gauss points of the others) the displacement gradient,
// the stretched gradient's and the flux's memory variables, the section's law (viscoelastic with
// its own memory variables where the section attenuates), the flux F integrated against the test
// functions' gradients and added colour by colour (the same bits every run). At the layer's
// nodes, the mass side: the lumped damping rho sum d_m joins the integrator's C at set-up
// (add_pml_damping), and the nodal force m R is added here each step with the nodes' own memory
// variables, a thread per component of each node, the nodes grouped by their stretched axes.
// Neither needs K u: with sem's atomics on a GPU both are queued before the stiffness's apply on a
// stream of their own (start_forces), their kernels running beside the stiffness's, and every
// force added by atomics.
//
// The grid damping (model/pml.hpp): with it the elements' flux is that of u + (beta_e / dt) (u -
// previous), the displacement a step back read beside u at the element's nodes (beta_e per
// element: the sem kernel keeps beta_e / dt, the generic one takes it from the profile); the mass
// side is unchanged. A fluid's layer has none.
//
// Memory proportional to the layer: per point of its elements dim^3 values (27 in 3D, 8 in 2D)
// in Real, and N x n_voigt in double where the section attenuates; per node of the layer dim^2
// values, d and alpha (2 dim) and its mass in Real (PmlNodeProfile: d and alpha averaged as the
// lumped mass weighs them).
//
// On GLL elements of order 2 and more the sem operator's point kernel evaluates them (its sums
// along lines of nodes, in Real; sem/operator.hpp with a PmlProfile); on the other types a thread
// per element in double, the reference's arithmetic (fem::PointEvaluation), on the host and on a
// GPU alike. Only the axes an element (a point, a node) is stretched in are evaluated, their
// variables read and written: in 3D a face's layer 8 of the 27, an edge's 18 (fem::pml_flux).
//
// Shots stepped together (keep_columns): the variables of each shot, the elements and profile
// once; each shot's forces by the same kernels in turn, its fields gathered into vectors of their
// own and its forces scattered back (op/columns.hpp): the bits of its run alone, none of the reads
// shared. Its work then follows the stiffness's apply (no start_forces beside it, whose atomics
// would meet the scatter).
//
// The same term serves a fluid's layer (PmlField::Fluid, in a FluidTerm: explicit/fluid.hpp): its
// elements' acoustic flux (fem::pml_fluid_flux, dim^2 values a point) by the generic kernel, and
// the mass side on the potential, one component a node (dim values).
#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/backend/side_stream.hpp"
#include "tremor/explicit/step_term.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/model.hpp"
#include "tremor/operator/operator.hpp"
#include "tremor/operator/state_columns.hpp"
#include "tremor/model/pml.hpp"
#include "tremor/sem/operator.hpp"

namespace tremor::explicit_fe {

// Which field the layer stretches: a solid's displacement (dim components a node) or a fluid's
// potential (one).
enum class PmlField { Solid, Fluid };

// The layer's nodes in groups by their stretched axes: group m (bit k where d_k is not 0) from
// first[m] to first[m + 1] (first[2^dim] the count).
struct NodeGroups {
  Index first[9] = {};
};

// The mass side's d and alpha at the layer's nodes. Not the profile at the node: its average over
// the points of the node's lumped mass, weighted as the lumping weighs them (int N_a dV for row
// sums, the HRZ diagonal; on GLL elements the node itself, where the two are the same), per axis:
//
//   d_a = sum_e int d N_a / sum_e int N_a,   alpha_a = sum_e int d alpha N_a / sum_e int d N_a
//
// the row sums of S rho N_a N_b (model/pml.hpp's S, its poles merged into one a node). With d
// taken at the node, the semi-discrete equations of a layer of quad4 (hex8, quad8) elements two to
// eight elements thick have growing modes, near the mesh's highest frequencies and at the lowest
// (docs/verification.md, "PML": their eigenvalues); with the average they have none. The layer's
// nodes are those of its elements, the inner plane's too (d_a > 0 there from the layer's side).
struct PmlNodeProfile {
  int dim = 3;
  Index n_mesh_nodes = 0;        // the numbering's
  std::vector<Index> nodes;      // the mesh's nodes with some d_k > 0, ascending
  std::vector<double> d, alpha;  // dim per node of `nodes`
  Index size() const { return static_cast<Index>(nodes.size()); }
  // The axes node k of `nodes` is stretched in: bit a where d_a is not 0 (the groups a PmlTerm
  // steps its nodes in, and one domain's numbering orders them by).
  int axes(std::size_t k) const {
    int bits = 0;
    const double* at = d.data() + k * static_cast<std::size_t>(dim);
    for (int a = 0; a < dim; ++a) bits |= at[a] != 0.0 ? 1 << a : 0;
    return bits;
  }
  // The profile in another numbering: local_to_whole[i], this one's node of local node i (every
  // node where empty); the nodes ascending in the new numbers.
  PmlNodeProfile in_numbering(std::span<const Index> local_to_whole) const;
  // Values per node of an array of n_values over the numbering's nodes (1 or dim); throws otherwise.
  std::size_t components(std::size_t n_values) const;
};
// Of the mesh's nodes, from every element holding a node of the layer (pml_elements' nodes).
PmlNodeProfile pml_node_profile(const Mesh& mesh, const PmlProfile& profile);

template <class Real>
class PmlTerm final : public StepTerm<Real> {
 public:
  // On `elements` (the layer's elements on the subdomain's nodes, coloured, their factor 1; null
  // in a part that holds some of the layer's nodes, on its inner plane, and none of its elements) and
  // the layer's `nodes` (local numbers, with their d and alpha) with their lumped mass `mass`
  // (this subdomain's share, per node of `nodes`: pml_node_mass), for steps of dt. deterministic: the elements' forces added colour by colour (the
  // same bits every run), else with atomics where the sem kernel takes them (one launch on a GPU
  // rather than one per colour). `field`: a fluid's layer takes the fluid's elements (their D[0]
  // 1 / rho) and nodes, always colour by colour.
  PmlTerm(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements, const PmlProfile& profile,
          const PmlNodeProfile& nodes, std::span<const double> mass, double dt, bool deterministic = true,
          PmlField field = PmlField::Solid);

  std::string_view name() const override { return "PML"; }
  bool start_forces(const CentralDifference<Real>& scheme, View<Real> forces) override;
  void add_forces(const CentralDifference<Real>& scheme, View<Real> forces) override;
  void start_from_rest() override;
  Index n_nodes() const { return static_cast<Index>(nodes_.size()); }
  // Shots stepped together on fields of `field_dofs` values a shot: `columns` sets of variables,
  // each at rest, and the vectors a shot's fields are gathered into.
  void keep_columns(int columns, Index field_dofs);

  // The two halves of add_forces, queued on `exec`: the elements' flux from the field u, and the
  // nodes' m R from u and its last level `previous` (a fluid adds the first before its parts'
  // forces are summed, the second after, at every copy of a shared node with its whole mass);
  // every shot's (keep_columns).
  void add_element_forces(const Exec& exec, const Real* u, Real* f);
  void add_node_forces(const Exec& exec, const Real* u, const Real* previous, Real* f);

  // Its state for a checkpoint, in double (a float state widened exactly): per element of its
  // elements (in their order) as op::Operator's state_offsets / get_state / set_state; and per
  // node of its nodes (node_list(), local numbers), fem::pml_node_values each.
  std::vector<Size> state_offsets() const;
  std::vector<double> get_state() const;
  void set_state(std::span<const double> values);
  const std::vector<Index>& node_list() const { return node_list_; }
  std::vector<double> get_node_state() const;
  void set_node_state(std::span<const double> values);

 private:
  Exec exec_;
  std::shared_ptr<const fem::DeviceElements> elements_;
  PmlProfile profile_;
  double dt_ = 0.0;
  int dim_ = 3;
  PmlField field_ = PmlField::Solid;
  int components_ = 3;  // a node's: dim, or a fluid's 1
  DeviceArray<Index> nodes_;                             // grouped by their axes (groups_)
  std::vector<Index> node_list_;                         // nodes_ on the host
  Index first_node_ = -1;                                // nodes_[k] = first_node_ + k, where so; else -1
  bool atomic_ = false;  // the generic kernel adds by atomics (a GPU's run that adds so)
  NodeGroups groups_;
  // Per node: d and alpha (dim each), its mass; its variables (dim per component: fem::pml_node_values
  // for a solid); each value's nodes in a row (d_k of node i at k n + i).
  DeviceArray<Real> node_d_, node_alpha_, node_mass_;
  std::vector<DeviceArray<Real>> node_state_;            // one array (a vector for StateColumns)
  std::vector<DeviceArray<Real>> point_state_;           // per block: fem::pml_(fluid_)point_values per point
  std::vector<DeviceArray<double>> solid_state_;         // per block, where attenuating: N n_voigt per point
  DeviceArray<double> records_;                          // fem::solids_stride per section, where attenuating
  int solids_ = 0;                                       // the most solids of any section
  std::unique_ptr<sem::SemOperator<Real>> sem_;          // on GLL elements: the sem operator's kernel
  // With sem's atomics on a GPU: a stream beside the stiffness's apply for the step's kernels
  // (start_forces), and whether they are queued there for this step.
  std::unique_ptr<SideStream> beside_;
  bool started_ = false;
  void queue_forces(const Exec& exec, const CentralDifference<Real>& scheme, View<Real> forces);
  // The two halves for one shot's fields, with the variables live (select).
  // (previous: the displacement a step back, for the grid damping; null: without it)
  void add_element_forces_of_one(const Exec& exec, const Real* u, const Real* previous, Real* f);
  void add_node_forces_of_one(const Exec& exec, const Real* u, const Real* previous, Real* f);
  // Shots stepped together (keep_columns): the other shots' variables, and one shot's fields.
  op::StateColumns<Real> node_columns_, point_columns_;
  op::StateColumns<double> solid_columns_;
  DeviceArray<Real> column_u_, column_previous_, column_f_;  // a shot's fields (several shots)
  int columns() const { return node_columns_.columns(); }
  void select(int column);
  // each(u, previous, f) on every shot's fields in turn (previous null: not gathered).
  template <class Each>
  void for_each_shot(const Exec& exec, const Real* u, const Real* previous, Real* f, const Each& each);
};

// The lumped damping of the layers' mass side, rho sum_m d_m per DOF of each node of `nodes`, and
// the average acceleration's share of its cross stiffness (fem::pml_cross), rho cross dt / 2,
// added to `damping` (per DOF, on the host) from the lumped mass `mass` (per DOF: dim or, a
// fluid's, one per node), for steps of dt.
void add_pml_damping(const PmlNodeProfile& nodes, double dt, std::span<const double> mass,
                     std::span<double> damping);

// The lumped mass from `mass` (per DOF: dim or, a fluid's, one per node; a node's first) of each
// node of `nodes`, as a PmlTerm takes them.
std::vector<double> pml_node_mass(const PmlNodeProfile& nodes, std::span<const double> mass);

// The elements listed leave K (their absorbing-layer factor 0 in `table`): the PML evaluates them.
void without_pml(fem::SectionTable& table, std::span<const Index> elements);

// The layer's `elements` (of `mesh`, its rows of `table`) as a PmlTerm takes them: on all of the
// mesh's nodes, coloured, their factor 1; order[k]: the mesh's element of the term's element k.
std::shared_ptr<const fem::DeviceElements> pml_layer_elements(const Exec& exec, const Mesh& mesh,
                                                              const fem::SectionTable& table,
                                                              std::vector<Index> elements, std::vector<Index>& order);

// The bytes a run's PmlTerm holds for `model` (its layers' profile `profile`) in precision
// real_size, for the pre-flight's memory estimate: its elements (on all nodes: their
// coordinates), made with the run's, and its state (the points' and nodes' memory variables, the
// nodes' d, alpha and mass), made once the operator is; `solid_values`: an attenuating model's
// memory variables per point (solids x n_voigt), 0 without. `field`: a fluid's (its FluidMesh's
// model) keeps a fluid's values.
struct PmlBytes {
  std::size_t elements = 0, state = 0;
};
PmlBytes pml_term_bytes(const Model& model, const PmlProfile& profile, std::size_t real_size,
                        std::size_t solid_values, PmlField field = PmlField::Solid);

extern template class PmlTerm<float>;
extern template class PmlTerm<double>;

}  // namespace tremor::explicit_fe
