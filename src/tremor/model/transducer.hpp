#pragma once
// Transducers on a plate (guided-wave inspection; the multi-GPU spectral-element paper, section
// 5): a point force, or a disc of uniform pressure, pushing into the plate's top surface (A0: one
// side) or into both its surfaces at the same place (S0: opposite forces on the top and the
// bottom, which excite the symmetric mode and cancel the antisymmetric one). A transducer becomes
// the point sources or surface loads that do this (add_transducer); the model keeps it for
// `tremor info`.
//
// A piston stands on a fluid's surface instead (immersion testing, docs/model-file.md "Fluids"):
// the part of the surface within its radius of its centre (a disc in 3D; in 2D, a section through
// the disc's axis, a strip of half-width the radius) moves into the fluid at a normal velocity, or
// holds the fluid's pressure, amplitude * signal(t - delay), the rest of the surface rigid (a
// baffle). The fluid's loading (explicit_fe::fluid_loading) turns its faces into volume sources or
// a held potential.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/faces.hpp"
#include "tremor/model/signal.hpp"

namespace tremor {

struct Model;

struct Transducer {
  // ArrayElement: an element of an array (model/array.hpp), a uniform pressure on its footprint.
  enum class Mode { A0, S0, Piston, ArrayElement };
  enum class Drive { Velocity, Pressure };  // a piston's
  std::string name;
  // m: x and y on the plate; a piston's centre, dim coordinates (z = 0 in 2D)
  std::array<double, 3> position{0.0, 0.0, 0.0};
  double radius = 0.0;                       // m: 0 a point force, else a disc; a piston's > 0
  Mode mode = Mode::A0;
  Drive drive = Drive::Velocity;
  // N: the force on each surface (a disc's pressure times its area); a piston's m/s or Pa
  double amplitude = 1.0;
  Signal signal;
  double delay = 0.0;          // s
  std::string surface = "zmax";   // the surface it stands on
  std::string opposite = "zmin";  // S0: the surface under it
  std::string origin;             // "file:line"
  // What it became: per surface (one for A0, two for S0), the node of a point force or the faces
  // of a disc, and a disc's area (m^2, projected on x-y).
  std::vector<Index> nodes;
  std::vector<std::size_t> faces;
  double area = 0.0;
  // A piston's: the faces of its surface that reach within its radius of its centre (what of each
  // lies within, the fluid's loading integrates).
  std::vector<Face> piston_faces;
  // An array's element: the array's name (empty: none); its footprint's face count in `faces` and
  // area (length in 2D) in `area`, its centre in `position`.
  std::string array;
};

// A shot: transducers fired together. A model with shots is stepped once per shot, in order, on
// one set-up (explicit/solver.hpp): in each, the loads of its transducers act and those of the
// other transducers do not; every other load (sources, tractions, body forces, prescribed
// displacements) acts in every shot.
struct Shot {
  std::string name;
  std::vector<std::string> transducers;  // names of the model's transducers
  std::string origin;                    // "file:line"
  // A full-matrix capture's (model/array.hpp): element `transmitter` of `array` fires alone, and
  // the array's receiver gives row `transmitter` of /fmc/<array>. Empty and -1: none.
  std::string array;
  Index transmitter = -1;
};

// Whether `shot` fires the load of `transducer` (a load's PointSource/SurfaceLoad::transducer): a
// load of no transducer always acts; with no shot (null) every load does.
bool fires(const Shot* shot, const std::string& transducer);

// Why `name` cannot name a shot, empty when it can. A shot's name is its group of the result file
// (/shots/<name>): an HDF5 link name, so not empty, not "." or "..", without '/', and (so that
// it reads back whole and prints) without NUL or other control characters.
std::string shot_name_problem(std::string_view name);
// The same of a receiver's name, which names its histories' group (/histories/<name>).
std::string receiver_name_problem(std::string_view name);
// `name` in double quotes, control characters, quotes and backslashes escaped ("\x00", "\n"):
// how messages show a name that may hold anything.
std::string quoted_name(std::string_view name);

// Adds `shot` to `model`, after its transducers. Throws tremor::Error naming shot.origin: a name
// shot_name_problem refuses or a repeated one, no transducers, a name no transducer has or that
// several share, a transducer listed twice.
void add_shot(Model& model, Shot shot);

// Adds the point sources (the node of `surface` nearest the position in x-y, pushed along the
// surface's inward z) or surface loads (the faces of `surface` whose centres lie within the
// radius, at the pressure that makes `amplitude` over their area) of `t` to `model`, and `t`
// itself. Throws tremor::Error naming t.origin: a surface the mesh lacks or that is not normal to
// z, a position over no face of it, a disc that holds no face centre. A piston keeps its faces
// (piston_faces) and adds no load here; refused: a radius of 0, a surface the mesh lacks, a centre
// farther from the surface than its largest face, a 2D model's plate modes.
void add_transducer(Model& model, Transducer t);

}  // namespace tremor
