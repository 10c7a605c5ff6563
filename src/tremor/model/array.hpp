#pragma once
// Ultrasonic arrays in contact with a part (Holmes, Drinkwater and Wilcox 2005, NDT&E Int. 38):
// N elements of width w at pitch p in a line on a flat surface of the mesh, each pushing into the
// part with a uniform pressure over its footprint (a w x L rectangle in 3D, L the elevation; a
// strip of width w in 2D). Each element becomes a transducer (model/transducer.hpp) and its
// surface load; the array listens through one receiver whose point k is element k's footprint:
// the mean displacement over its faces (explicit_fe::make_histories weighs node a by
// int N_a dA / A, as the pressure loads it, so that A-scan(i, j) = A-scan(j, i) by reciprocity).
// With `fmc` each element fires alone in a shot of its own while all of them listen: a full-matrix
// capture, /fmc/<array> in the result file (docs/output-format.md).
//
// In 3D the elements may stand in rows too (a matrix array): `rows` lines of N / rows elements at
// `row_pitch` across the array, element k in row k / columns, column k % columns.
//
// On a fluid's surface (immersion) each element is a piston instead (model/transducer.hpp): its
// footprint moves into the fluid at a uniform normal velocity, the volume A_a int v dt at each node
// (A_a = int N_a dA over its faces, scaled to the nominal area), the rest of the surface rigid; the
// receiver records the footprint's mean pressure with the same weights, so the capture is
// reciprocal as a contact one is.
//
// A footprint is the surface's faces whose centres lie within it (as a transducer's disc is), each
// face in one element at most, loaded by the pressure that makes `amplitude` over the nominal
// footprint's area: every element pushes with the same force however the mesh cuts it.
#include <array>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/faces.hpp"
#include "tremor/model/signal.hpp"

namespace tremor {

struct Model;

struct TransducerArray {
  std::string name;
  Index n_elements = 0;  // all of them: rows x columns
  Index rows = 1;        // lines of elements across the array (a matrix array, 3D); 1: a linear array
  double pitch = 0.0;   // m, between neighbouring elements' centres
  double row_pitch = 0.0;  // m, between neighbouring rows' centres (rows > 1)
  double width = 0.0;   // m, along the array; at most the pitch
  double length = 0.0;  // m, the elevation (3D, across the array); 0 in 2D
  std::array<double, 3> centre{0.0, 0.0, 0.0};     // m, on the surface (z = 0 in 2D)
  std::array<double, 3> direction{0.0, 0.0, 0.0};  // along the array, in the surface; zero: the default
  std::string surface;                             // the flat surface it stands on
  // Pa over the nominal footprint (w L, or w per unit thickness in 2D); immersed, m/s of normal
  // velocity over it
  double amplitude = 1.0;
  Signal signal;
  double delay = 0.0;  // s
  bool fmc = false;    // one shot per element
  int every_n_steps = 1;  // the receiver's sampling
  std::string origin;     // "file:line"

  // What add_array resolved: the unit direction, the inward unit normal (the way the elements
  // push), the unit elevation axis (normal x direction in 3D), and per element its centre, its
  // faces and their area (length in 2D).
  std::array<double, 3> normal{0.0, 0.0, 0.0}, elevation{0.0, 0.0, 0.0};
  std::vector<std::array<double, 3>> element_centres;
  std::vector<std::vector<Face>> footprints;
  std::vector<double> areas;
  double depth = 0.0;  // m: the mesh's extent from the surface along the normal
  bool immersion = false;  // the surface is a fluid's: pistons and pressure

  Index columns() const { return n_elements / rows; }

  // Element k's transducer and shot: "<name>.<k>", k zero-padded to the digits of N - 1 (so the
  // shots sort in order).
  std::string element_name(Index k) const;
};

// Adds `array` to `model` with what it becomes: per element a transducer (Transducer::array set)
// and a surface load, the receiver named after the array recording each footprint's mean
// displacement, and with `fmc` a shot per element (Shot::array and Shot::transmitter set), after
// the shots the model has (the model file adds its [[shot]]s after its arrays); on a fluid's
// surface per element a piston (Transducer::Mode::Piston, its `array` set) and no load, the
// receiver recording pressure. Throws tremor::Error naming array.origin: a count below 1 or above
// 4096, rows that do not divide it or rows in 2D, a width, pitch or row pitch not positive and
// finite, elements that overlap (width above the pitch, length above the row pitch), an elevation
// in 2D or none in 3D, a surface the mesh lacks or that is not flat, a direction not along it, a
// centre off it, an element running off it or over no face centre, a footprint on both a fluid's
// and a solid's faces, a name a receiver, transducer or shot has already.
void add_array(Model& model, TransducerArray array);

}  // namespace tremor
