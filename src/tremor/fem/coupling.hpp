#pragma once
// Where a model's fluid sections meet its solid ones, and the coupling integrals on each face
// (docs/model-file.md, "Fluids"). With the fluid's displacement potential chi (rho u = grad chi,
// p = -chi_tt), the two sides exchange, over each shared face,
//   into the fluid:  int_face N_a u . n dA        (the normal displacement the solid imposes)
//   into the solid:  int_face N_a chi_tt n dA     (the traction -p n the fluid exerts),
// n out of the solid into the fluid: one matrix C_ab = int N_a N_b n dA (fem::coupling_matrix)
// serves both, transposed, which keeps the coupled system's energy (Komatitsch, Barnes and
// Tromp 2000, Geophysics 65, eqs. 7-9; Chaljub et al. 2003). Host-side set-up.
#include <vector>

#include "tremor/mesh/faces.hpp"
#include "tremor/model/model.hpp"

namespace tremor::fem {

struct CouplingFace {
  Face fluid, solid;
  std::vector<Index> nodes;  // the face's nodes, in the solid face's order
  // C[(a n + b) dim + c]: int N_a N_b n_c dA over the face, n out of the solid (its face's outward
  // normal), a, b in the order of `nodes`; in 2D times the sections' thickness. A GLL face takes
  // its nodal rule (diagonal C, as a spectral element's lumped mass), any other the exact one.
  std::vector<double> C;
};

struct FluidSolidInterface {
  std::vector<CouplingFace> faces;
  std::vector<Index> nodes() const;  // every node of the faces, ascending
};

// Whether each global element's section is a fluid's (false where it has none).
std::vector<bool> fluid_elements(const Model& model);

// The unknowns a run of `model` solves for: dim displacements per node a solid element holds, one
// potential per node a fluid element holds (a node on the interface has both; a model without
// sections counts as solid). What a pre-flight and `tremor info` report.
struct Unknowns {
  Size displacements = 0;
  Size potentials = 0;
};
Unknowns count_unknowns(const Model& model);

// The faces a fluid element shares with a solid one, sorted by their fluid face. Throws
// tremor::Error, naming the mesh and both elements, where the two meet otherwise than across
// whole faces of the same nodes: at an edge or a corner only, faces of elements of different
// types or orders on the same corners (a non-conforming interface), or 2D sections of different
// thickness.
FluidSolidInterface fluid_solid_interface(const Model& model);

// The model's solid: `model` without its fluid elements and fluid sections, every node kept (a
// node only fluid elements hold has no solid mass: the solid's integrator holds it at rest). Its
// elements keep the model's order less the fluid ones, and its element and face sets keep their
// solid members, renumbered. Throws tremor::Error, naming the load, for a surface load on a face of
// a fluid element or a point force on a node no solid element holds (forces act on solids; a
// fluid takes volume sources), and for a history output there. Its receivers of pressure, and of
// motion at nodes only fluid elements hold, are left out (the fluid's).
Model solid_part(const Model& model);

}  // namespace tremor::fem
