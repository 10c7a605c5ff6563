#pragma once
// Where a point lies in a mesh: the element holding it, its reference coordinates there and the
// element's shape functions at it. Receivers interpolate with them (explicit/receivers.hpp), and a
// point source between nodes spreads its force over the element's nodes by them, and a moment
// tensor by their gradients (fem/point_sources.hpp).
#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::fem {

// Where a position lies: its element (global index), the element's nodes and their shape
// function values N_a(xi) at the position (they sum to 1).
struct Location {
  Index element = -1;
  std::array<double, 3> xi{0.0, 0.0, 0.0};
  std::vector<Index> nodes;
  std::vector<double> weights;
  // A fluid's motion (explicit_fe::History::potential): (d N_a / d x_c)(xi) / rho,
  // [node][component], what turns the potential into the displacement u = grad chi / rho; empty
  // otherwise.
  std::vector<double> gradients;
};

// Finds the element holding `position` (mesh.dim() coordinates) by inverting each candidate
// element's isoparametric map with Newton's method (host, a bounding box test first). A position
// on a shared edge or face takes the first element in element order (the interpolated values
// agree on a conforming mesh). nullopt when no element holds it.
std::optional<Location> locate(const Mesh& mesh, std::span<const double> position);
// The same for many positions (their first mesh.dim() coordinates) in one parallel pass over the
// elements (OpenMP): the result of locate() for each. `among`, when not empty, flags the global
// elements searched (the others hold no position).
std::vector<std::optional<Location>> locate_all(const Mesh& mesh, std::span<const std::array<double, 3>> positions,
                                                const std::vector<bool>& among = {});

// The points of a surface of hexahedra (`faces`) at each (x, y) of `points`: for each, its element,
// the element's reference coordinates there (the face's own coordinate at -1 or +1, the other two
// by Newton's method on the face's x and y) and the nodes whose shape functions are not zero
// there (a face's, for GLL and hex8 elements), with z in position[2]. A point over two faces (on
// an edge between them) takes the first face in the set's order; nullopt where no face lies over
// it. The faces' x-y boxes are binned, so a grid of 10^5 points costs about as many face tests.
struct SurfacePoint {
  Location location;
  std::array<double, 3> position{0.0, 0.0, 0.0};
};
std::vector<std::optional<SurfacePoint>> locate_on_surface(const Mesh& mesh, std::span<const Face> faces,
                                                           std::span<const std::array<double, 2>> points);

// The shape functions' gradients at a location: (d N_a / d x_c)(xi), [node][component] (dim per
// node), from J^T g_a = d N_a / d xi in its element. Throws naming the element where its Jacobian is
// singular there.
std::vector<double> shape_gradients(const Mesh& mesh, const Location& location);

// "(x, y)" or "(x, y, z)": a position in messages.
std::string format_position(const std::array<double, 3>& position, int dim);

}  // namespace tremor::fem
