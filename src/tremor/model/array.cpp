#include "tremor/model/array.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"
#include "tremor/core/vec3.hpp"
#include "tremor/model/model.hpp"

namespace tremor {

namespace {

using vec3::Vec;
using vec3::dot;
using vec3::minus;
using vec3::cross;
using vec3::norm;

std::string format_vec(const Vec& v, int dim) {
  std::string out = "(";
  for (int d = 0; d < dim; ++d) out += str(d ? ", " : "", v[static_cast<std::size_t>(d)]);
  return out + ")";
}

}  // namespace

std::string TransducerArray::element_name(Index k) const {
  std::string digits = std::to_string(k);
  const std::size_t digits_of = std::to_string(std::max<Index>(n_elements - 1, 0)).size();
  if (digits.size() < digits_of) digits.insert(0, digits_of - digits.size(), '0');
  return str(name, ".", digits);
}

namespace {

// Refuses, naming the array (`at`), a layout that cannot be: counts, lengths, overlaps.
void check_layout(const TransducerArray& array, int dim, const std::string& at) {
  TREMOR_CHECK(!array.name.empty(), at, ": an array needs a name");
  TREMOR_CHECK(array.n_elements >= 1 && array.n_elements <= 4096, at, " has ", array.n_elements,
               " elements; expected 1 to 4096");
  TREMOR_CHECK(std::isfinite(array.width) && array.width > 0.0, at, ": its element width is ", array.width,
               " m; expected a positive length");
  if (array.columns() > 1) {
    TREMOR_CHECK(std::isfinite(array.pitch) && array.pitch > 0.0, at, ": its pitch is ", array.pitch,
                 " m; expected a positive length");
    TREMOR_CHECK(array.width <= array.pitch, at, ": its elements overlap (width ", array.width, " m, pitch ",
                 array.pitch, " m); an element's width is at most the pitch");
  }
  TREMOR_CHECK(array.rows >= 1 && array.n_elements % array.rows == 0, at, " has ", array.rows, " rows of ",
               array.n_elements, " elements; expected rows that divide the elements evenly");
  TREMOR_CHECK(array.rows == 1 || dim == 3, at, " has ", array.rows, " rows: a 2D model's array is one line");
  if (array.rows > 1) {
    TREMOR_CHECK(std::isfinite(array.row_pitch) && array.row_pitch > 0.0, at, ": its row pitch is ", array.row_pitch,
                 " m; expected a positive length");
    TREMOR_CHECK(array.length <= array.row_pitch, at, ": its rows overlap (length ", array.length, " m, row pitch ",
                 array.row_pitch, " m); an element's length is at most the row pitch");
  }
  if (dim == 3)
    TREMOR_CHECK(std::isfinite(array.length) && array.length > 0.0, at, ": its elevation length is ", array.length,
                 " m; a 3D array's elements need a positive length across the array");
  else
    TREMOR_CHECK(array.length == 0.0, at, " has an elevation length, which a 2D model has no room for (its elements "
                 "are strips of the section)");
  TREMOR_CHECK(std::isfinite(array.amplitude), at, ": its amplitude is not finite");
  TREMOR_CHECK(array.every_n_steps >= 1, at, " records every ", array.every_n_steps, " steps; expected at least 1");
  for (const double c : array.centre) TREMOR_CHECK(std::isfinite(c), at, ": its centre is not finite");

}
// What `array` becomes in `model`: its receiver, each element's transducer and surface load (the
// pressure that makes `amplitude` over the `nominal` footprint), and with fmc its shots.
void add_elements(Model& model, const TransducerArray& array, double nominal, const std::string& at) {
  // Names: the receiver's, and each element's transducer and shot.
  for (const Receiver& r : model.receivers)
    TREMOR_CHECK(r.name != array.name, at, ": receiver '", array.name, "' exists already (", r.origin,
                 "); the array's receiver takes its name");
  for (Index k = 0; k < array.n_elements; ++k) {
    const std::string name = array.element_name(k);
    for (const Transducer& t : model.transducers)
      TREMOR_CHECK(t.name != name, at, ": its element ", k, " is transducer '", name, "', a name ", t.origin,
                   " has already");
    if (array.fmc)
      for (const Shot& shot : model.shots)
        TREMOR_CHECK(shot.name != name, at, ": its element ", k, " fires in shot '", name, "', a name ", shot.origin,
                     " has already");
  }

  Receiver receiver;
  receiver.name = array.name;
  receiver.origin = array.origin;
  receiver.positions = array.element_centres;
  receiver.footprints = array.footprints;
  receiver.every_n_steps = array.every_n_steps;
  receiver.displacement = !array.immersion;
  receiver.pressure = array.immersion;
  model.receivers.push_back(std::move(receiver));
  for (Index k = 0; k < array.n_elements; ++k) {
    const auto e = static_cast<std::size_t>(k);
    Transducer t;
    t.name = array.element_name(k);
    t.mode = Transducer::Mode::ArrayElement;
    t.position = array.element_centres[e];
    t.amplitude = array.amplitude;
    t.signal = array.signal;
    t.delay = array.delay;
    t.surface = array.surface;
    t.origin = array.origin;
    t.array = array.name;
    t.faces.push_back(array.footprints[e].size());
    t.area = array.areas[e];
    if (array.immersion) {
      // A piston of the footprint's whole faces (fem::piston_areas), its velocity scaled so that
      // each element moves the nominal area's volume however the mesh cuts it.
      t.mode = Transducer::Mode::Piston;
      t.drive = Transducer::Drive::Velocity;
      t.piston_faces = array.footprints[e];
      t.amplitude = array.amplitude * nominal / array.areas[e];
    } else {
      SurfaceLoad load;
      load.name = t.name;
      load.surface = array.surface;
      load.faces = array.footprints[e];
      load.pressure = array.amplitude * nominal / array.areas[e];  // positive: into the part
      load.signal = array.signal;
      load.delay = array.delay;
      load.origin = array.origin;
      load.transducer = t.name;
      model.surface_loads.push_back(std::move(load));
    }
    if (array.fmc) {
      Shot shot;
      shot.name = t.name;
      shot.transducers = {t.name};
      shot.origin = array.origin;
      shot.array = array.name;
      shot.transmitter = k;
      model.shots.push_back(std::move(shot));
    }
    model.transducers.push_back(std::move(t));
  }
}

// The mesh's depth under `array` along its normal: over every node, or, given the elements'
// sections (a contact array on a solid beside a fluid, steel under water), over the solid's
// elements' nodes alone: the solid's far side, not the water's beyond it, is the back wall.
double depth_under(const Model& model, const TransducerArray& array, const std::vector<int>& sections) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  double depth = 0.0;
  const auto reach = [&](Index node) {
    Vec p{0.0, 0.0, 0.0};
    for (int d = 0; d < dim; ++d) p[static_cast<std::size_t>(d)] = mesh.node(node)[d];
    depth = std::max(depth, dot(minus(p, array.centre), array.normal));
  };
  if (sections.empty()) {
    for (Index node = 0; node < mesh.n_nodes(); ++node) reach(node);
    return depth;
  }
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      const int section = sections[static_cast<std::size_t>(global)];
      if (section >= 0 && model.material(model.sections[static_cast<std::size_t>(section)].material).fluid) continue;
      for (const Index node : block.nodes(e)) reach(node);
    }
  return depth;
}

}  // namespace

void add_array(Model& model, TransducerArray array) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  const std::string at = str(array.origin.empty() ? model.source : array.origin, ": array '", array.name, "'");
  check_layout(array, dim, at);
  // The surface: it must be flat (one normal), its faces' normals summed for the outward one.
  const auto set = mesh.face_sets.find(array.surface);
  TREMOR_CHECK(set != mesh.face_sets.end() && !set->second.empty(), at, ": the mesh has no surface '",
               array.surface, "'");
  const std::vector<Face>& faces = set->second;
  std::vector<FacePlane> shapes;
  shapes.reserve(faces.size());
  Vec outward{0.0, 0.0, 0.0};
  for (const Face& face : faces) {
    shapes.push_back(face_plane(mesh, face));
    for (std::size_t d = 0; d < 3; ++d) outward[d] += shapes.back().normal[d];
  }
  const double total = norm(outward);
  TREMOR_CHECK(total > 0.0, at, ": surface '", array.surface, "' has no area");
  for (double& c : outward) c /= total;
  for (std::size_t f = 0; f < faces.size(); ++f) {
    const double size = norm(shapes[f].normal);
    // A kink of about 0.1 degree or more: not one plane (a flat surface's faces agree to rounding).
    TREMOR_CHECK(size > 0.0 && dot(shapes[f].normal, outward) >= size * (1.0 - 1e-6), at, ": surface '",
                 array.surface, "' is not flat (its face at ", format_vec(shapes[f].centre, dim),
                 " turns away from the others); an array stands on a flat surface");
  }
  array.normal = {0.0 - outward[0], 0.0 - outward[1], 0.0 - outward[2]};  // (0.0 - : no -0 components)

  // The direction along the array: given, or the first axis in the surface.
  if (norm(array.direction) == 0.0) {
    for (int d = 0; d < dim && norm(array.direction) == 0.0; ++d)
      if (std::abs(outward[static_cast<std::size_t>(d)]) < 1e-9) array.direction[static_cast<std::size_t>(d)] = 1.0;
    TREMOR_CHECK(norm(array.direction) > 0.0, at, ": surface '", array.surface,
                 "' lies along no axis; give the array's direction");
  }
  for (const double c : array.direction) TREMOR_CHECK(std::isfinite(c), at, ": its direction is not finite");
  const double length = norm(array.direction);
  for (double& c : array.direction) c /= length;
  TREMOR_CHECK(std::abs(dot(array.direction, outward)) < 1e-6, at, ": its direction ",
               format_vec(array.direction, dim), " does not lie in surface '", array.surface, "' (normal ",
               format_vec(outward, dim), ")");
  if (dim == 3) array.elevation = cross(array.normal, array.direction);

  // The surface's extent along and across the array (its depth once its side is known).
  double extent = 0.0;
  for (const FacePlane& s : shapes) extent = std::max(extent, norm(minus(s.centre, shapes.front().centre)));
  const double tolerance = 1e-9 * std::max(extent, array.width);
  const double off = dot(minus(array.centre, shapes.front().centre), outward);
  TREMOR_CHECK(std::abs(off) <= 1e-6 * std::max(extent, array.width), at, ": its centre ",
               format_vec(array.centre, dim), " is not on surface '", array.surface, "' (", std::abs(off),
               " m from its plane)");
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, across_lo = lo, across_hi = -lo;
  for (const Face& face : faces) {
    const ElementRef ref = mesh.locate(face.element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(ref.block)];
    int local[8];
    const int n = face_vertices(block.type, block.order, face.face, local);
    for (int a = 0; a < n; ++a) {
      const auto x = mesh.node(block.nodes(ref.element)[static_cast<std::size_t>(local[a])]);
      Vec p{0.0, 0.0, 0.0};
      for (int d = 0; d < dim; ++d) p[static_cast<std::size_t>(d)] = x[d];
      const Vec r = minus(p, array.centre);
      lo = std::min(lo, dot(r, array.direction));
      hi = std::max(hi, dot(r, array.direction));
      across_lo = std::min(across_lo, dot(r, array.elevation));
      across_hi = std::max(across_hi, dot(r, array.elevation));
    }
  }

  // Each element's footprint: the faces whose centres lie within it, each in one element only.
  std::vector<bool> taken(faces.size(), false);
  const double half_width = 0.5 * array.width, half_length = 0.5 * array.length;
  const double nominal = dim == 3 ? array.width * array.length : array.width;
  // Whether a face is a fluid's (immersion): its element's section's material.
  const std::vector<int> sections = model.has_fluids() ? model.element_sections() : std::vector<int>{};
  const auto in_fluid = [&](const Face& face) {
    const int section = sections.empty() ? -1 : sections[static_cast<std::size_t>(face.element)];
    return section >= 0 && model.material(model.sections[static_cast<std::size_t>(section)].material).fluid;
  };
  const Index columns = array.columns();
  for (Index k = 0; k < array.n_elements; ++k) {
    // Along the array (its column) and across it (its row), from the array's centre.
    const auto offset = [](Index i, Index n, double pitch) {
      return (static_cast<double>(i) - 0.5 * static_cast<double>(n - 1)) * pitch;
    };
    const double s = offset(k % columns, columns, array.pitch), r = offset(k / columns, array.rows, array.row_pitch);
    Vec c = array.centre;
    for (std::size_t d = 0; d < 3; ++d) c[d] += s * array.direction[d] + r * array.elevation[d];
    TREMOR_CHECK(s - half_width >= lo - tolerance && s + half_width <= hi + tolerance &&
                     (dim == 2 ||
                      (r - half_length >= across_lo - tolerance && r + half_length <= across_hi + tolerance)),
                 at, ": its element ", k, " centred at ", format_vec(c, dim), " runs off surface '", array.surface,
                 "'");
    std::vector<Face> footprint;
    double area = 0.0;
    for (std::size_t f = 0; f < faces.size(); ++f) {
      const Vec to = minus(shapes[f].centre, c);
      if (taken[f] || std::abs(dot(to, array.direction)) > half_width + tolerance ||
          (dim == 3 && std::abs(dot(to, array.elevation)) > half_length + tolerance))
        continue;
      taken[f] = true;
      footprint.push_back(faces[f]);
      area += norm(shapes[f].normal);
    }
    TREMOR_CHECK(!footprint.empty(), at, ": no face of surface '", array.surface, "' has its centre within element ",
                 k, " (", array.width, " m wide, centred at ", format_vec(c, dim),
                 "); refine the mesh under the array");
    // One side for the whole array: every face a fluid's (immersion) or every face a solid's.
    if (k == 0) array.immersion = in_fluid(footprint.front());
    for (const Face& face : footprint)
      TREMOR_CHECK(in_fluid(face) == array.immersion, at, ": its array element ", k, " centred at ",
                   format_vec(c, dim), " stands on ", in_fluid(face) ? "a fluid's" : "a solid's",
                   " face (mesh element ", model.mesh.element_label(face.element),
                   ") where its array element 0 stands on ",
                   array.immersion ? "a fluid's" : "a solid's",
                   ": an array stands in a fluid (immersion) or on a solid (contact), not on both");
    array.element_centres.push_back(c);
    array.footprints.push_back(std::move(footprint));
    array.areas.push_back(area);
  }
  array.depth = depth_under(model, array, array.immersion ? std::vector<int>{} : sections);
  // Faces far larger than the elements cut their footprints coarsely: say so once.
  const auto [smallest, largest] = std::minmax_element(array.areas.begin(), array.areas.end());
  if (*smallest < 0.8 * nominal || *largest > 1.2 * nominal)
    log::warn(str(at, ": its elements' footprints are resolved by few faces (",
                  std::round(*smallest / nominal * 1000.0) / 10.0, " to ", std::round(*largest / nominal * 1000.0) / 10.0,
                  "% of the element's area); each pushes with its nominal force, but a finer mesh under the array "
                  "places it better"));

  add_elements(model, array, nominal, at);
  model.arrays.push_back(std::move(array));
}

}  // namespace tremor
