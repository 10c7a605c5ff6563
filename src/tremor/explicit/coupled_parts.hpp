#pragma once
// A decomposed run of a model with fluids (docs/architecture.md, "Fluids in a decomposed run"):
// the solid's subdomains and the fluid's, part s of both stepped together. The model's elements,
// solid and fluid, are split by METIS balancing each kind over the parts; then the two elements
// of every face where the fluid meets the solid are put in one part (the solid's), so that the
// part holding a face holds its nodes on both sides, and the coupling needs nothing from another
// part: its terms C p and C^T u are summed over the parts with the solid's forces and the fluid's.
#include <string>
#include <vector>

#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/parts.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/model/model.hpp"
#include "tremor/partition/domains.hpp"

namespace tremor::explicit_fe {

struct CoupledDecomposition {
  partition::Decomposition solid;  // of the solid's mesh (fem::solid_part)
  partition::Decomposition fluid;  // of the fluid's (FluidSetup::mesh)
};

// The model's decomposition into n_domains parts: `solid` the model's solid (fem::solid_part),
// `fluid` its fluid; `element_domain`, where given, each of the whole model's elements' subdomain
// (a decomposition file's), else METIS's with two balance constraints, the solid's elements and the
// fluid's each weighted by their nodes. Either way the elements of a face on the interface then
// take the solid element's part. Throws tremor::Error where a part is left without a solid or a
// fluid element (every part steps both), naming it and `file`, the decomposition file the parts
// came from where given.
CoupledDecomposition decompose_coupled(const Model& solid, const FluidSetup& fluid, int n_domains,
                                       const std::vector<int>* element_domain = nullptr,
                                       const std::string& file = {});

// Each of the whole model's elements' subdomain, in the model's element order (a decomposition
// file's, which decompose_coupled takes back as it was).
std::vector<int> whole_element_domains(const CoupledDecomposition& coupled, const FluidSetup& fluid);

// The whole model's histories (make_histories of the model with its fluid) of the solid, their
// located points' elements numbered as the solid's (the model's less the fluid's: fem::solid_part).
std::vector<History> solid_histories(const std::vector<History>& whole, const FluidSetup& fluid);
// The histories a decomposed run merges its parts' samples into, as a run on one domain gives them:
// the solid's (their elements numbered as the whole model's), then the fluid's (records_fluid),
// those of pressure first as a FluidTerm orders them.
std::vector<History> merged_histories(const std::vector<History>& whole);

// Gives each part (decompose_model of `solid` by coupled.solid) its part of the fluid
// (fluid_part) and the receivers at the fluid's points it owns (`fluid_histories`: the model's
// histories of records_fluid, those of pressure first; a node to the first part holding it in the
// fluid, a position or a node's gradient stencil to its fluid element's part, a footprint's mean
// split among the parts owning its nodes, each its share), whose maps follow
// the solid's in ModelPart::history_of and history_points (their histories numbered from
// `first_history`). Its snapshot nodes are dealt again: a node of the fluid's faces on the solid
// to the first part holding it on both sides (the solid's motion, the fluid's pressure), a node
// only fluid elements hold to the part of the first of them (whose gradient a receiver there
// reads; ModelPart::fluid_snapshot_nodes), any other to its solid's owner. With `only` >= 0 only
// that part gets its fluid; every part gets its maps.
void add_fluid_parts(std::vector<ModelPart>& parts, const Model& solid, const FluidSetup& fluid,
                     const CoupledDecomposition& coupled, const std::vector<History>& fluid_histories,
                     int first_history, int only = -1);

}  // namespace tremor::explicit_fe
