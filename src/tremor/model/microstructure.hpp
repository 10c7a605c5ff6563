#pragma once
// Grain microstructures: each element of an anisotropic material its own crystal orientation (a
// polycrystal's grains, a weld's columns), read per element from a file or generated as a Voronoi
// tessellation of the material's elements (docs/model-file.md, "Grains").
//
// Orientations are Bunge's Euler angles (phi1, Phi, phi2), rotations about Z, X', Z'' (Bunge
// 1982, "Texture analysis in materials science", section 2.2): the matrix
//
//   g = | c1 c2 - s1 s2 c    s1 c2 + c1 s2 c   s2 s |
//       | -c1 s2 - s1 c2 c   -s1 s2 + c1 c2 c  c2 s |      (c1 = cos phi1, s2 = sin phi2,
//       | s1 s               -c1 s             c    |       c = cos Phi, s = sin Phi)
//
// takes a vector's model (sample) coordinates to the crystal's, x_c = g x_s: its rows are the
// crystal's axes in the model's. The material's `stiffness` is the crystal's, in crystal axes;
// in the model's axes C_ijkl = g_mi g_nj g_ok g_pl C^c_mnop (rotated_stiffness).
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/model/material.hpp"

namespace tremor {

using Orientation = std::array<double, 9>;  // g, row-major: crystal axes in model coordinates

// g of Bunge's angles (radians).
Orientation bunge_orientation(double phi1, double Phi, double phi2);
// Bunge's angles (radians; phi1, phi2 in [0, 2 pi), Phi in [0, pi]) of a rotation matrix; where
// Phi is 0 or pi, phi2 = 0 and phi1 takes the whole rotation about z.
std::array<double, 3> bunge_angles(const Orientation& g);

// A cubic crystal's stiffness in its axes, from C11, C12 and C44 (Pa).
Voigt6 cubic_stiffness(double c11, double c12, double c44);

// A crystal's Voigt stiffness (engineering shear strains) in the model's axes: the fourth-order
// tensor rotated by g^T, C_ijkl = g_mi g_nj g_ok g_pl C^c_mnop, back in Voigt form.
Voigt6 rotated_stiffness(const Voigt6& crystal, const Orientation& g);

// How the grains are made. Exactly one of: orientations per element label (a file), or a Voronoi
// tessellation of the material's elements with `count` seeds (`size` given: volume / size^dim,
// divided by the elongation's product) drawn uniformly over their bounding box by a generator
// seeded with `seed`; each element takes its centre's nearest seed, distances measured with each
// axis divided by its elongation (grains `elongation[i]` times longer along axis i: a weld's
// columns).
struct Microstructure {
  std::string origin;  // "file:line" of the material's grains table
  // From a file: element label -> orientation.
  std::string file;
  std::vector<Label> labels;
  std::vector<Orientation> orientations;
  // Generated.
  double size = 0.0;  // m, the mean grain size (the side of a cube of a grain's volume; a square in 2D)
  std::uint64_t seed = 1;
  std::array<double, 3> elongation{1.0, 1.0, 1.0};
  // Texture of generated grains: uniformly random orientations, or a fibre: each grain's crystal
  // z axis (<001>) along `fibre` tilted by a Gaussian angle of standard deviation `spread`
  // (radians) in a random direction, its rotation about that axis random.
  bool fibre_texture = false;
  std::array<double, 3> fibre{0.0, 0.0, 1.0};  // unit vector
  double spread = 0.0;                          // rad

  bool from_file() const { return !file.empty(); }
};

// The grains of `elements` (global indices, ascending) of `mesh`: each element's grain and each
// grain's orientation. From a file, a grain per distinct orientation, in order of first use; an
// element the file does not list is refused, naming it. Generated, the grains are the Voronoi
// cells that hold an element, numbered by seed; the same seed gives the same grains.
struct Grains {
  std::vector<int> grain_of;               // per entry of `elements`
  std::vector<Orientation> orientations;   // per grain
};
Grains assign_grains(const Microstructure& micro, const Mesh& mesh, std::span<const Index> elements,
                     const std::string& material);

// Voigt, Reuss and Hill averages of a crystal's stiffness over uniformly random orientations: the
// bulk and shear moduli (Pa) of the untextured polycrystal's bounds (Hill 1952): Voigt the mean
// stiffness, Reuss the inverse of the mean compliance, Hill their mean.
struct PolycrystalModuli {
  double bulk_voigt, shear_voigt, bulk_reuss, shear_reuss;
  double bulk_hill() const { return 0.5 * (bulk_voigt + bulk_reuss); }
  double shear_hill() const { return 0.5 * (shear_voigt + shear_reuss); }
};
PolycrystalModuli polycrystal_moduli(const Voigt6& crystal);

}  // namespace tremor
