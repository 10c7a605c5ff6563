#pragma once
// Singular static systems, found before the solve: K u = f has a unique solution only when the
// prescribed displacements stop every rigid-body motion of every separate body of the mesh (K is
// only positive semi-definite, its null space the rigid motions of each connected part). CG on a
// singular K breaks down or drifts without a word on the cause; this check names the body and the
// motions left free instead.
//
// Per body (a connected component of the mesh's node graph, mesh/adjacency.hpp: nodes linked by
// shared elements; found by union-find over the elements, without building the graph), the rigid
// motions span 6 modes in 3D (translations along x, y, z; rotations about x, y, z) and 3 in 2D
// (translations along x, y; rotation in the plane). The constraints hold the body when these modes,
// restricted to the constrained DOFs, are linearly independent: when the Gram matrix G = Phi_c^T
// Phi_c (m x m, m = 6 or 3; Phi_c holds the modes' values at the constrained DOFs) has full rank.
// Rotations are taken about the centroid P of the body's constrained nodes (the body's centroid
// when none) and divided by the body's radius about P, so every mode's entries are at most 1 and G
// compares like with like. An eigenvalue of G counts as zero when it is at most
// `rigid_mode_tolerance` times the largest: rounding puts the eigenvalues of truly free modes near
// 1e-16 of the largest (6 orders below), while a genuine constraint stays far above: one DOF at a
// tenth of the body's radius from an axis gives an eigenvalue near 1e-2, against a largest
// eigenvalue of at most the number of constrained DOFs, so even among a million constrained DOFs it
// stays near 1e-8 of the largest (2 orders above).
//
// Nodes that no element uses belong to no body and are skipped (constraints.hpp's
// hold_isolated_nodes fixes them). Cost: O(connectivity + constrained DOFs), on the host.
#include <array>
#include <span>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::static_fe {

inline constexpr double rigid_mode_tolerance = 1e-10;

// One rigid motion the constraints leave free.
struct FreeMotion {
  enum class Kind { Translation, Rotation };
  Kind kind = Kind::Translation;
  // Translation: its unit direction. Rotation: its unit axis ((0, 0, 1) in 2D).
  std::array<double, 3> direction{0.0, 0.0, 0.0};
  // Rotation: a point of the axis (m; z = 0 in 2D).
  std::array<double, 3> point{0.0, 0.0, 0.0};
  // Rotation combined with a translation along its axis (a screw motion): that translation per
  // unit of rotation, in m/rad; 0 for a plain rotation.
  double pitch = 0.0;
};

// A body that can still move.
struct MobileBody {
  int body = 0;          // 0-based, bodies ordered by their lowest node index
  Index first_node = 0;  // the body's lowest node index
  Index n_nodes = 0;
  Index n_constrained_dofs = 0;
  // A basis of the free motions, in reduced echelon form over (rotations, translations): each
  // rotation about an axis through the point where it leaves the constraints still, translations
  // along the free directions.
  std::vector<FreeMotion> motions;
};

struct RigidModeReport {
  int n_bodies = 0;
  std::vector<MobileBody> mobile;  // empty when every body is held
};

// The analysis above. constrained_dofs: node-major DOF indices (node * dim + component), any
// order, duplicates allowed.
RigidModeReport find_free_rigid_motions(const Mesh& mesh, std::span<const Index> constrained_dofs);

// "translation along z, rotation about x through (0, 0.5, 1)": the motions of one body, grouped
// (axes named x, y, z when the direction is one; otherwise as a unit vector).
std::string describe_motions(const std::vector<FreeMotion>& motions, int dim);

// Throws tremor::Error when a body can still move: "the body holding node 17 (1 of 2 bodies, 1200
// nodes) can still move: translation along z, rotation about x through (0, 0.5, 1) — fix more
// displacements (*BOUNDARY / [[prescribed_displacement]])", one such sentence per mobile body.
// Nodes are named by label.
void check_rigid_modes(const Mesh& mesh, std::span<const Index> constrained_dofs);

}  // namespace tremor::static_fe
