#include "tremor/model/transducer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/model/model.hpp"

namespace tremor {

namespace {

struct FaceGeometry {
  std::array<double, 2> centre{0.0, 0.0};
  double area = 0.0;     // projected on x-y
  double normal_z = 0.0;  // the sign of the outward normal's z, from the corners' orientation
};

// A face's centre, its area projected on x-y (Newell's vector's z) and which way it faces.
FaceGeometry geometry(const Mesh& mesh, const Face& face) {
  const FacePlane plane = face_plane(mesh, face);
  FaceGeometry g;
  g.centre = {plane.centre[0], plane.centre[1]};
  g.area = std::abs(plane.normal[2]);
  g.normal_z = plane.normal[2] > 0.0 ? 1.0 : plane.normal[2] < 0.0 ? -1.0 : 0.0;
  return g;
}

// A piston: the faces of its surface that reach within its radius of its centre, kept for the
// fluid's loading, which integrates what of each lies within (fem::disc_weights).
void add_piston(Model& model, Transducer t, const std::string& at) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  TREMOR_CHECK(t.radius > 0.0 && std::isfinite(t.radius), at, ": piston '", t.name, "': its radius is ", t.radius,
               " m; a piston needs a radius above 0 (in 2D, the strip's half-width)");
  const auto set = mesh.face_sets.find(t.surface);
  TREMOR_CHECK(set != mesh.face_sets.end() && !set->second.empty(), at, ": piston '", t.name,
               "': the mesh has no surface '", t.surface, "'");
  double nearest = std::numeric_limits<double>::infinity(), largest = 0.0;
  double nearest_node = std::numeric_limits<double>::infinity();  // (the distance the refusal gives)
  for (const Face& face : set->second) {
    const ElementRef ref = mesh.locate(face.element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    int local[max_face_nodes];
    const int n = face_nodes(block.type, block.order, face.face, local);
    const auto nodes = block.nodes(ref.element);
    const auto point = [&](int a) { return mesh.node(nodes[static_cast<std::size_t>(local[a])]); };
    // The face's centre of nodes and its reach from there: the ball it lies in.
    std::array<double, 3> centre{0.0, 0.0, 0.0};
    for (int a = 0; a < n; ++a)
      for (int d = 0; d < dim; ++d) centre[static_cast<std::size_t>(d)] += point(a)[d] / n;
    const auto distance = [&](const auto& x, const auto& y) {
      double sum = 0.0;
      for (int d = 0; d < dim; ++d) sum += (x[d] - y[d]) * (x[d] - y[d]);
      return std::sqrt(sum);
    };
    double reach = 0.0;
    for (int a = 0; a < n; ++a) {
      reach = std::max(reach, distance(point(a), centre));
      nearest_node = std::min(nearest_node, distance(point(a), t.position));
    }
    largest = std::max(largest, 2.0 * reach);
    const double from = distance(centre, t.position);
    nearest = std::min(nearest, from - reach);
    // Half again the reach for a curved face's bulge beyond its nodes.
    if (from <= t.radius + 1.5 * reach) t.piston_faces.push_back(face);
  }
  TREMOR_CHECK(nearest <= largest, at, ": piston '", t.name, "' centred at (", t.position[0], ", ", t.position[1],
               dim == 3 ? str(", ", t.position[2]) : std::string(), ") is not on surface '", t.surface,
               "' (its nearest node of the surface is ", si(nearest_node), "m away)");
  model.transducers.push_back(std::move(t));
}

}  // namespace

void add_transducer(Model& model, Transducer t) {
  const Mesh& mesh = model.mesh;
  const std::string at = t.origin.empty() ? model.source : t.origin;
  if (t.mode == Transducer::Mode::Piston) return add_piston(model, std::move(t), at);
  TREMOR_CHECK(mesh.dim() == 3, at, ": transducer '", t.name, "' stands on a plate; the mesh is 2D");
  std::vector<std::string> surfaces{t.surface};
  if (t.mode == Transducer::Mode::S0) surfaces.push_back(t.opposite);
  for (const std::string& name : surfaces) {
    const auto set = mesh.face_sets.find(name);
    TREMOR_CHECK(set != mesh.face_sets.end() && !set->second.empty(), at, ": transducer '", t.name,
                 "': the mesh has no surface '", name, "'");
    // The surface's faces near the position, and which way it faces.
    double nearest = std::numeric_limits<double>::infinity(), normal = 0.0, largest = 0.0;
    std::vector<Face> disc;
    double area = 0.0;
    for (const Face& face : set->second) {
      const FaceGeometry g = geometry(mesh, face);
      normal += g.normal_z;
      largest = std::max(largest, std::sqrt(g.area));
      const double distance = std::hypot(g.centre[0] - t.position[0], g.centre[1] - t.position[1]);
      nearest = std::min(nearest, distance);
      if (t.radius > 0.0 && distance <= t.radius) {
        disc.push_back(face);
        area += g.area;
      }
    }
    TREMOR_CHECK(normal != 0.0, at, ": transducer '", t.name, "': surface '", name,
                 "' does not face up or down (z); a transducer stands on a plate's top or bottom");
    // Pushing into the plate: down on a surface facing up, up on one facing down.
    const double inward = normal > 0.0 ? -1.0 : 1.0;
    TREMOR_CHECK(nearest <= largest, at, ": transducer '", t.name, "' at (", t.position[0], ", ", t.position[1],
                 ") is not over surface '", name, "' (its nearest face centre is ", nearest, " m away)");
    if (t.radius > 0.0) {
      TREMOR_CHECK(!disc.empty(), at, ": transducer '", t.name, "': no face of surface '", name,
                   "' has its centre within its radius ", t.radius, " m; give radius 0 for a point force, or refine "
                   "the mesh under it");
      SurfaceLoad load;
      load.name = str(t.name, surfaces.size() > 1 ? (name == t.surface ? " (top)" : " (bottom)") : "");
      load.surface = name;
      load.faces = disc;
      load.pressure = t.amplitude / area;  // positive: into the plate
      load.signal = t.signal;
      load.delay = t.delay;
      load.origin = at;
      load.transducer = t.name;
      model.surface_loads.push_back(std::move(load));
      t.faces.push_back(disc.size());
      t.area = area;
      continue;
    }
    // A point force at the surface's node nearest the position in x-y.
    Index best = -1;
    double closest = std::numeric_limits<double>::infinity();
    for (const Face& face : set->second) {
      const ElementRef ref = mesh.locate(face.element);
      const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
      int local[max_face_nodes];
      const int n = face_nodes(block.type, block.order, face.face, local);
      for (int a = 0; a < n; ++a) {
        const Index node = block.nodes(ref.element)[static_cast<std::size_t>(local[a])];
        const double d = std::hypot(mesh.node(node)[0] - t.position[0], mesh.node(node)[1] - t.position[1]);
        if (d < closest || (d == closest && node < best)) {
          closest = d;
          best = node;
        }
      }
    }
    PointSource source;
    source.nodes = {best};
    source.position = std::array<double, 3>{t.position[0], t.position[1], mesh.node(best)[2]};
    source.direction = {0.0, 0.0, inward};
    source.amplitude = t.amplitude;
    source.signal = t.signal;
    source.delay = t.delay;
    source.origin = at;
    source.transducer = t.name;
    model.point_sources.push_back(std::move(source));
    t.nodes.push_back(best);
  }
  model.transducers.push_back(std::move(t));
}

bool fires(const Shot* shot, const std::string& transducer) {
  return !shot || transducer.empty() ||
         std::find(shot->transducers.begin(), shot->transducers.end(), transducer) != shot->transducers.end();
}

namespace {

// Why `name` cannot be the HDF5 link name of a `what`'s group (`group` says which), empty when it can.
std::string link_name_problem(std::string_view what, std::string_view name, std::string_view group) {
  if (name.empty()) return str("the ", what, "'s name is empty", group);
  if (name == "." || name == "..") return str("the ", what, "'s name ", quoted_name(name), " is not a group's name", group);
  if (name.find('/') != std::string_view::npos)
    return str("the ", what, "'s name ", quoted_name(name), " holds '/': a ", what, " needs a name without '/'", group);
  for (const char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return str("the ", what, "'s name ", quoted_name(name), " holds a control character", group);
  return {};
}

}  // namespace

std::string shot_name_problem(std::string_view name) {
  return link_name_problem("shot", name, " (a shot's name is its group of the result file, /shots/<name>)");
}

std::string receiver_name_problem(std::string_view name) {
  return link_name_problem("receiver", name,
                           " (a receiver's name is its histories' group of the result file, /histories/<name>)");
}

std::string quoted_name(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

void add_shot(Model& model, Shot shot) {
  const std::string at = shot.origin.empty() ? model.source : shot.origin;
  const std::string problem = shot_name_problem(shot.name);
  TREMOR_CHECK(problem.empty(), at, ": ", problem);
  for (const Shot& other : model.shots)
    TREMOR_CHECK(other.name != shot.name, at, ": shot '", shot.name, "' is named already (", other.origin, ")");
  TREMOR_CHECK(!shot.transducers.empty(), at, ": shot '", shot.name, "' fires no transducer; list their names");
  for (std::size_t i = 0; i < shot.transducers.size(); ++i) {
    const std::string& name = shot.transducers[i];
    const auto count = std::count_if(model.transducers.begin(), model.transducers.end(),
                                     [&](const Transducer& t) { return t.name == name; });
    TREMOR_CHECK(count > 0, at, ": shot '", shot.name, "' fires transducer '", name,
                 "', which the model does not have");
    TREMOR_CHECK(count == 1, at, ": shot '", shot.name, "' fires transducer '", name, "', a name ", count,
                 " transducers share; give each its own name");
    TREMOR_CHECK(std::find(shot.transducers.begin(), shot.transducers.begin() + static_cast<std::ptrdiff_t>(i), name) ==
                     shot.transducers.begin() + static_cast<std::ptrdiff_t>(i),
                 at, ": shot '", shot.name, "' lists transducer '", name, "' twice");
  }
  model.shots.push_back(std::move(shot));
}

}  // namespace tremor
