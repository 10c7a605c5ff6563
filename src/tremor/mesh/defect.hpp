#pragma once
// Thickness-loss defects of a plate: the randomly shaped corrosion patches of the guided-wave
// imaging application of the multi-GPU spectral-element paper (section 5, Fig. 16), or a measured
// depth map. A defect lowers the top surface of a plate (or raises its bottom) by a depth d(x, y)
// over its footprint in the x-y plane; the plate is the mesh's bounding box in z, its thickness
// direction.
//
// The paper's recipe (kind "random"): the footprint's outline joins `outline_points` points at
// equal angles around `centre`, each at a random radius between `inner_radius` and
// `outer_radius` (the paper's R1 and R2); every element corner inside it is lowered by a random
// depth in (0, max_depth]. The paper picks its outline among the mesh's corner nodes; here the
// outline is a polygon of its own, so a defect is the same shape on any mesh. Random numbers
// come from a fixed hash of the seed and of the outline point's number or the corner's position
// (x and y rounded to 1 nm), never from the standard library's distributions, so the same seed
// gives the same defect on every machine, and the corners' depths do not depend on how the nodes
// are numbered.
//
// A depth map (kind "map"): depths on a regular x-y grid, interpolated bilinearly at each corner;
// zero outside the grid. Its footprint is where the depth is positive.
//
// How the mesh follows (apply_defects): each element corner at height z moves by
// -d (z - z0) / (z1 - z0) for a top defect (d (z1 - z) / (z1 - z0) for a bottom one), so the
// loss is spread through the thickness and no layer of elements folds; every other node (the
// mid-edge nodes of hex20, the GLL points of hex-gllP) moves by the trilinear interpolation of
// its element's corners' displacements at its place in the element, so the GLL elements stay
// smooth and conforming. Only z changes.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/mesh/mesh.hpp"

namespace tremor {

// Depths (m) on a regular grid: depth[j * nx + i] at (origin[0] + i spacing[0], origin[1] + j spacing[1]).
struct DepthGrid {
  std::array<double, 2> origin{0.0, 0.0};
  std::array<double, 2> spacing{0.0, 0.0};
  Index nx = 0, ny = 0;
  std::vector<double> depth;

  // Bilinear between the grid points; 0 outside the grid.
  double at(double x, double y) const;
};

// A depth map's grid from the text of its file (`file` in errors): one row of depths (m) a line,
// separated by commas, semicolons or whitespace, x increasing along a row and y from row to row;
// every row as long as the first; blank lines, lines starting with '#' and a header line skipped.
// Depths must be finite and not negative. Throws "FILE:LINE: ..." naming the value.
DepthGrid parse_depth_grid(std::string_view text, const std::string& file, std::array<double, 2> origin,
                           std::array<double, 2> spacing);

struct Defect {
  enum class Side { Top, Bottom };
  std::string name;
  Side side = Side::Top;
  // Kind "random" (the paper's recipe), when `map` is empty.
  std::array<double, 2> centre{0.0, 0.0};
  double inner_radius = 0.0, outer_radius = 0.0;  // m: R1 < R2
  int outline_points = 0;                          // >= 3
  double max_depth = 0.0;                          // m
  std::uint64_t seed = 0;
  // Kind "map".
  std::optional<DepthGrid> map;
  std::string origin;  // "file:line", for messages

  // The outline's points (random kind), counter-clockwise from the +x axis.
  std::vector<std::array<double, 2>> outline() const;
  // Whether (x, y) lies in the footprint.
  bool inside(double x, double y) const;
  // The depth (m) given to an element corner at (x, y): 0 outside the footprint.
  double corner_depth(double x, double y) const;
  // The largest depth it can give.
  double deepest() const;
};

// What apply_defects did, per defect: the corners it moved and the deepest loss it made.
struct DefectEffect {
  Index corners = 0;
  double deepest = 0.0;  // m
};

// At each point (x, y, z) on a surface of the plate `mesh` (after apply_defects): whether it lies
// in a defect's footprint (1), and the loss of thickness there (m): its height below the plate's
// top, or above its bottom, whichever surface the points lie nearer on average (the plate's
// extent in z is its thickness where no defect is).
void defects_at(const Mesh& mesh, std::span<const Defect> defects, std::span<const std::array<double, 3>> points,
                std::vector<unsigned char>& footprint, std::vector<double>& depth);

// Lowers (raises) the plate's surface of hexahedra (hex8, hex20, hex-gllP, in one or several
// blocks) by each defect in turn, as above. Throws tremor::Error naming `source`, the defect and
// the element: a 2D mesh or other element types, a defect deeper than 90% of the plate, one that
// touches no corner, and an element left inverted (det J not positive at a corner) or too thin
// (a vertical edge below 10% of its length) by the defects.
std::vector<DefectEffect> apply_defects(Mesh& mesh, std::span<const Defect> defects, std::string_view source);

}  // namespace tremor
