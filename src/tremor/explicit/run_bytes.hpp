#pragma once
// What an explicit run holds, in bytes, counted by the pre-flight (solver.cpp) before any of it is
// allocated: the elements, the operator, the integrator's state, the receivers' and snapshots'
// buffers, a PML's and the memory variables' state. Each function counts one thing; the pre-flight
// adds them up for Preflight::memory_bytes (and `tremor info`'s estimate).
#include <cstddef>

#include "tremor/explicit/pml.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/stiffness_damping.hpp"

namespace tremor::explicit_fe {

// fem::DeviceElements: coordinates, connectivity, per element its section (4 B), stiffness
// factor and damping (8 B each) and, with a colouring, its place in the colour lists (4 B).
std::size_t element_bytes(const Mesh& mesh, bool coloured);

// Memory variables per point of an attenuating model (OperatorSizes::memory_per_point): the most
// solids a point keeps of its materials in use (coarse-grained: 1) x n_voigt; 0 where none attenuates.
std::size_t memory_per_point(const Model& model);

// The moduli a kind that takes a material field at each GLL point keeps (OperatorEntry::
// moduli_per_point): two values in Real per point of each block where an element does.
std::size_t point_moduli_bytes(const Model& model, std::size_t real_size);

// The stiffness-proportional damping of the materials the sections use, s (element_betas by
// section: a section without elements counts too).
ElementBetas model_betas(const Model& model);
double largest_beta(const Model& model);

// Integrator state (central_difference.hpp): U_prev, U_curr and K u in Real per DOF, A (and C'
// where damped) per node (a model holding a node in some components only keeps them per DOF, up
// to 2/3 of them more than counted here; one numbering a PML's nodes last keeps C' for those only,
// up to a third of a Real per DOF less); while it is set up, the mass and damping in double and
// A (and C') per DOF, beside them a flag per DOF or the coefficients per node. The loads are per
// loaded DOF: not counted.
// `after`: bytes made once the state is (a per-step term's, such as the PML's), beside the loop's.
std::size_t state_bytes(std::size_t n_dofs, int dim, std::size_t real_size, bool damped, std::size_t after);

// The receivers' buffer in the Exec's memory (Recorder): two time levels of a row per recorded point
// and component, for buffered_recording_steps() steps.
std::size_t recorder_bytes(const Model& model, std::size_t real_size);

// Snapshot buffers in the Exec's memory (snapshots.hpp): the DOF list, the staging displacement
// and, with velocity, u_k-1 and the velocity in double; with pressure, a fluid node and a staged
// value per node. The page-locked host slots are not counted; the rows of a fluid's motion are
// fluid_snapshot_bytes'.
std::size_t snapshot_bytes(const Model& model, int every, std::size_t real_size);

// The snapshot taker's rows of a fluid's motion (snapshots.cpp): at each snapshot node only fluid
// elements hold, dim rows (a target and an offset each) of the gradient's non-zero entries (a node
// and a weight each): the P + 1 nodes of a line through it on a GLL element (the others'
// derivatives vanish there where the element is affine), every node of the element otherwise;
// with velocity, a Real per row besides. `solid`: the model's solid part.
std::size_t fluid_snapshot_bytes(const FluidSetup& fluid, const Model& solid, int every, std::size_t real_size);

// memory_estimate's, with the geometric factors of an element-by-element kind when known.
// `split`: a decomposed run's element-by-element operator in two parts (Preflight::overlap), each
// part's elements on all of its subdomain's nodes. `host`: the run's Exec is the host's.
// `betas`: the model's stiffness-proportional damping (model_betas), whose term keeps a velocity
// (and an operator's product, or an operator of its own) in the loop.
std::size_t estimate(const Mesh& mesh, const op::OperatorEntry& op, Size stiffness_nnz, std::size_t real_size,
                     bool coloured, bool damped, Index max_neighbours, std::size_t geometry_values,
                     bool split = false, bool host = false, const ElementBetas& betas = {},
                     std::size_t memory_per_point = 0, const PmlBytes& pml = {});

}  // namespace tremor::explicit_fe
