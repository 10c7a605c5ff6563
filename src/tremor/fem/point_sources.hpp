#pragma once
// Point sources between nodes. A force at a point x0 inside an element acts on the element's nodes
// as the consistent nodal forces f_a = N_a(x0) F; a moment tensor M at x0, the body force
// -M grad delta(x - x0) (Aki & Richards 2002, eq. 3.23), as f_a = M grad N_a(x0): the forces' sum
// is zero and their first moment sum_a x_a f_a^T is M exactly, for any element whose map is
// isoparametric (sum_a x_a N_a = x). A source at a node of a mesh made of linear elements is
// therefore the nodal force it was; elsewhere it needs no node there. (A force's shape function
// values below 1e-10, what inverting the element's map leaves at a node, are dropped: a force at
// a node acts on that node alone.)
#include <vector>

#include "tremor/model/model.hpp"

namespace tremor::fem {

// The model's forces and moment tensors (`volumes` false) or its fluid's volume sources (true),
// each one at a position placed on the nodes of the element holding its point: a force or a volume
// source with weights N_a(x0); a moment tensor as dim forces, one along each axis i, with weights
// sum_j M_ij dN_a/dx_j (x0), its amplitude, signal and delay kept. Sources on nodes come as they
// are, in the model's order (a moment tensor's forces in its place). A force is placed among solid
// elements, a volume source among fluid ones; a point on a face shared by two elements takes the
// first in element order. Throws naming the source where no such element holds its point.
std::vector<PointSource> placed_sources(const Model& model, bool volumes = false);

}  // namespace tremor::fem
