#pragma once
// Consistent nodal forces of a model's distributed loads, computed once on the host by every
// solver (the explicit solver scales them by their time functions each step, the static solver
// adds them into f):
//
//   surface load   f_a = t int_face N_a (traction, or -p n) dA      (faces.hpp)
//   body force     f_a = t int_element (rho g + b) N_a dV           (element_body_force)
//
// N_a the shape functions of the face or element, t the section thickness in 2D (1 in 3D and
// where no section applies), rho the density of each element's section material.
//
// Both return (DOF, force) pairs sorted by DOF (node * dim + component), one per loaded DOF, with
// the contributions of neighbouring faces or elements summed and zero sums left out.
#include <utility>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/model/model.hpp"

namespace tremor::fem {

// The nodal forces of a surface load at time function 1. Throws tremor::Error naming the load's
// origin for a face out of range or degenerate.
std::vector<std::pair<Index, double>> surface_forces(const Model& model, const SurfaceLoad& load);
// A piston's share of its faces per node (model/transducer.hpp): (node, t int N_a dA) over the part
// of its faces within its radius of its centre (fem::disc_weights), t the section's thickness in
// 2D (1 in 3D), the nodes ascending; an array's element (Transducer::array set) over its whole
// faces. The sum is the piston's area (times t). Throws as surface_forces does.
std::vector<std::pair<Index, double>> piston_areas(const Model& model, const Transducer& piston);

// The nodal forces of a body force (at amplitude 1): every element of `force.elements`, with the
// density and thickness of its section (Model::element_sections). Throws tremor::Error naming
// the force's origin and the element for an element out of range, one without a section when
// the force has an acceleration (it needs the density), and an inverted or degenerate element.
std::vector<std::pair<Index, double>> body_forces(const Model& model, const BodyForce& force);

}  // namespace tremor::fem
