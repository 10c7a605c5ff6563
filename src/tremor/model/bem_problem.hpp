#pragma once
// A boundary-element problem as a `[bem]` model file states it (docs/bem.md, "Running `tremor
// bem`"; read by io/bem_model_file.hpp): the surface mesh or the generator that makes it, where the
// solid lies, one isotropic damped material, the frequencies, the boundary conditions per element
// set, the interior points where displacements are wanted, and the solver's settings. Plain data;
// `tremor bem` turns it into the solver's inputs (bem/boundary_mesh.hpp, bem/solve.hpp). SI units.
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tremor/core/choice.hpp"
#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/model/backend_setting.hpp"

namespace tremor {

// Where the solid lies relative to the boundary mesh (bem::Solid): inside a closed surface (a
// body, normals outward), outside one (a cavity, normals inward), or on the side of an open surface
// its normals point away from (a half-space's free surface, normals +z).
enum class BemSolid { Inside, Outside, Open };

// Generated elements: quadrilaterals, or each cut into two triangles (bem::ElementShape).
enum class BemElementShape { Quadrilateral, Triangle };

enum class BemMeshKind { File, Sphere, Box, Halfspace, HalfspaceDisc };

// bem::sphere: the cube-projected sphere of `radius` at the origin, `divisions` per cube edge.
struct BemSphere {
  double radius = 0.0;
  Index divisions = 0;
};

// bem::box: the surface of the box of `size` centred at the origin; sets xmin .. zmax per face.
struct BemBox {
  std::array<double, 3> size{};
  std::array<Index, 3> divisions{};
};

// bem::halfspace_patch: the rectangle of `size` at z = 0, solid below; with a foundation (fx, fy)
// the element sets "foundation" (centroids in |x| < fx/2, |y| < fy/2) and "free".
struct BemHalfspace {
  std::array<double, 2> size{};
  std::array<Index, 2> divisions{};
  std::optional<std::array<double, 2>> foundation;
};

// bem::halfspace_disc: the disc of `radius` at z = 0, solid below, around a circular foundation
// of `foundation_radius` (the sets "foundation" and "free"), `divisions` cells per quarter of its
// rim, cells outside growing up to `max_cell`.
struct BemHalfspaceDisc {
  double radius = 0.0;
  double foundation_radius = 0.0;
  Index divisions = 0;
  double max_cell = 0.0;
};

struct BemMeshSource {
  BemMeshKind kind = BemMeshKind::File;
  std::string file;  // File: the path as the model file gives it
  std::string path;  // File: resolved against the model file's folder
  Mesh surface;      // File: the surface read by io::read_gmsh_surface (Tri3, Quad4; Tri6, Quad8, quad9 in 3D)
  BemSphere sphere;
  BemBox box;
  BemHalfspace halfspace;
  BemHalfspaceDisc disc;
  BemElementShape shape = BemElementShape::Quadrilateral;  // generators only
  // Generators: 1 straight-sided, 2 second-order elements on the true surface (6-node triangles,
  // 9-node quadrilaterals, 8-node with `serendipity`); not given: 2 for quadratic elements, else 1.
  std::optional<int> order;
  bool serendipity = false;
  // Reverse every element's orientation after reading or generating (bem::flip_orientation). A
  // generated sphere or box is oriented by `solid` instead (a cavity's normals point inward).
  bool flip = false;
  BemSolid solid = BemSolid::Open;
  std::vector<std::string> element_sets;  // the sets the mesh has, sorted (for messages)
  std::string origin;                     // "FILE:LINE: [bem.mesh]" for messages about the mesh
};

// One isotropic medium with hysteretic damping: moduli lambda (1 + 2 i beta), mu (1 + 2 i beta).
struct BemMaterial {
  double density = 0.0;        // kg/m^3
  double lambda = 0.0;         // Lame's first parameter, Pa
  double mu = 0.0;             // shear modulus, Pa
  double damping_ratio = 0.0;  // beta >= 0 (loss factor 2 beta)
  std::string origin;          // "FILE:LINE: [bem.material]"

  double shear_wave_speed() const;  // sqrt(mu / rho) of the undamped moduli, m/s
  double p_wave_speed() const;      // sqrt((lambda + 2 mu) / rho), m/s
  double youngs_modulus() const;
  double poisson_ratio() const;
};

enum class BemPrescribed { Traction, Displacement };

// What one component of an element set's boundary condition prescribes.
struct BemComponent {
  BemPrescribed kind = BemPrescribed::Traction;
  std::complex<double> value{};  // Pa (traction) or m (displacement); amplitude of e^{i omega t}
};

// The boundary condition of one element set ([[bem.boundary]]): a pressure p (traction -p n on
// every element, n its unit normal out of the solid), or per component x, y, z a traction or a
// displacement. Components left unset have zero traction. Elements in no [[bem.boundary]] set
// have zero traction in every component (a free surface).
struct BemBoundaryCondition {
  std::string element_set;
  std::optional<std::complex<double>> pressure;           // Pa
  std::array<std::optional<BemComponent>, 3> components;  // x, y, z; each empty without pressure
  std::string origin;                                     // "FILE:LINE: [[bem.boundary]] #k 'set'"

  bool prescribes_displacement() const;
};

// Where a run of interior points came from, for messages and outputs.
struct BemPointGroup {
  std::string kind;  // "points", "line" or "grid"
  std::size_t first = 0, count = 0;
  std::string origin;  // "FILE:LINE"
};

// The strongly singular part of H (bem::FreeTerm): "auto" is rigid_body on a closed surface and
// direct on an open one, as bem::plan_bem resolves it.
enum class BemFreeTerm { Auto, RigidBody, Direct };
inline constexpr std::array<Named<BemFreeTerm>, 3> bem_free_term_names{{{"auto", BemFreeTerm::Auto},
                                                                        {"rigid_body", BemFreeTerm::RigidBody},
                                                                        {"direct", BemFreeTerm::Direct}}};

// Constant elements (a collocation node at each centre), discontinuous linear ones (a node per
// vertex) or discontinuous quadratic ones (a node per node of a second-order element)
// (bem::ElementOrder).
enum class BemElements { Constant, Linear, Quadratic };
inline constexpr std::array<Named<BemElements>, 3> bem_element_names{{{"constant", BemElements::Constant},
                                                                      {"linear", BemElements::Linear},
                                                                      {"quadratic", BemElements::Quadratic}}};

// How the system is solved (bem::SolverMethod): dense LU of the whole H and G, the hierarchical
// matrix with GMRES ("hmatrix"), or "auto": dense where H and G fit and it is the faster (up to
// bem::gpu_dense_unknowns on a GPU, bem::host_dense_unknowns on a CPU), the hierarchical matrix
// elsewhere.
enum class BemSolver { Auto, Dense, HMatrix };
inline constexpr std::array<Named<BemSolver>, 3> bem_solver_names{{{"auto", BemSolver::Auto},
                                                                   {"dense", BemSolver::Dense},
                                                                   {"hmatrix", BemSolver::HMatrix}}};

// How CUDA integrates the element pairs (bem::PairLayout): a block per pair or a thread per pair.
enum class BemLayout { Block, Thread };
inline constexpr std::array<Named<BemLayout>, 2> bem_layout_names{{{"block", BemLayout::Block},
                                                                   {"thread", BemLayout::Thread}}};

struct BemOptions {
  int gauss = 8;                      // g x g points per element piece (bem::IntegrationOptions)
  int singular_gauss = 8;             // per Duffy triangle of the singular element
  double near_ratio = 2.0;            // subdivide pieces closer than near_ratio x their diameter
  int max_depth = 6;                  // at most this many halvings
  BemFreeTerm free_term = BemFreeTerm::Auto;
  BemElements elements = BemElements::Constant;
  BemLayout layout = BemLayout::Block;  // CUDA only
  BemSolver solver = BemSolver::Auto;
  double tolerance = 1e-5;            // hmatrix: of each compressed block and of GMRES, relative, in (0, 0.1)
  std::optional<Backend> backend;     // std::nullopt: "auto" (cuda when a GPU is usable, else openmp)
  // Elements per shear wavelength at the highest frequency; not given: 6 for constant and linear
  // elements, 3 (6 points) for quadratic ones (bem_min_per_wavelength).
  std::optional<double> min_elements_per_wavelength;
};

inline double bem_min_per_wavelength(const BemOptions& options) {
  return options.min_elements_per_wavelength.value_or(options.elements == BemElements::Quadratic ? 3.0 : 6.0);
}

struct BemProblem {
  std::string source;  // the model file
  std::string title;
  BemMeshSource mesh;
  BemMaterial material;
  std::vector<double> frequencies;  // Hz, each > 0, in the order given
  std::vector<BemBoundaryCondition> boundary;
  std::vector<std::array<double, 3>> interior_points;  // m
  std::vector<BemPointGroup> point_groups;             // cover interior_points in order
  BemOptions options;
};

// "inside", "outside", "open".
inline const char* to_string(BemSolid solid) {
  switch (solid) {
    case BemSolid::Inside: return "inside";
    case BemSolid::Outside: return "outside";
    case BemSolid::Open: return "open";
  }
  return "?";
}

inline double BemMaterial::shear_wave_speed() const { return std::sqrt(mu / density); }
inline double BemMaterial::p_wave_speed() const { return std::sqrt((lambda + 2.0 * mu) / density); }
inline double BemMaterial::youngs_modulus() const { return mu * (3.0 * lambda + 2.0 * mu) / (lambda + mu); }
inline double BemMaterial::poisson_ratio() const { return lambda / (2.0 * (lambda + mu)); }

inline bool BemBoundaryCondition::prescribes_displacement() const {
  for (const auto& component : components)
    if (component && component->kind == BemPrescribed::Displacement) return true;
  return false;
}

}  // namespace tremor
