// The model file's receivers and shots: [[receiver]] (nodes, positions, grids), [output],
// [[transducer]] and [[shot]]; and read_excitation, which reads every load, receiver and shot.
#include "tremor/io/model_file_parts.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <span>
#include <tuple>

#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/seismic_files.hpp"

namespace tremor::io::model_file {

using detail::choice;

namespace {

constexpr std::string_view receiver_keys[] = {"name",   "node_set", "positions", "grid",
                                              "record", "every",    "stations",  "surface"};
constexpr std::string_view grid_keys[] = {"min", "max", "count", "surface"};
// A grid's points are one history's; past this a grid is a mistake (or a snapshot's work).
constexpr Index largest_grid = 10'000'000;

ReceiverGrid read_grid(const Table& owner, const Mesh& mesh) {
  const toml::node& node = *owner.node("grid");
  if (!node.as_table())
    owner.fail("grid", str("'grid' must be a table such as { min = [-0.05, -0.05], max = [0.05, 0.05], count = "
                           "[101, 101], surface = \"zmax\" }, got ", detail::describe(node)));
  const Table table = owner.inline_table(*node.as_table(), str(owner.where(), ": grid"));
  table.only(grid_keys);
  if (mesh.dim() != 3) table.fail_at(table.line(), "a grid lies on a surface of a 3D mesh; this mesh is 2D");
  ReceiverGrid grid;
  grid.min = plane_pair(table, "min", "x and y of the grid's first point, m");
  grid.max = plane_pair(table, "max", "x and y of the grid's last point, m");
  const auto count = table.integers("count", 2);
  if (!count) table.fail_at(table.line(), "missing 'count' (the points along x and along y, such as [101, 101])");
  for (std::size_t a = 0; a < 2; ++a) {
    if ((*count)[a] < 1 || (*count)[a] > largest_grid)
      table.fail("count", str("'count'[", a, "] is ", (*count)[a], "; expected a number of points, at least 1"));
    grid.count[a] = static_cast<Index>((*count)[a]);
    if (grid.count[a] > 1 && !(grid.max[a] > grid.min[a]))
      table.fail("max", str("'max'[", a, "] is ", grid.max[a], ", not above 'min'[", a, "] (", grid.min[a], ") with ",
                            grid.count[a], " points along ", "xy"[a]));
  }
  if (grid.count[0] * grid.count[1] > largest_grid)
    table.fail("count", str(grid.count[0], " x ", grid.count[1], " points; a grid holds at most ", largest_grid));
  std::tie(grid.surface, grid.faces) = surface_of(table, mesh);
  return grid;
}

constexpr std::string_view recordable[] = {"displacement", "velocity", "acceleration", "pressure"};

// A receiver's sampling, 'every' so many steps (1 when absent).
int every_of(const Table& table) {
  const auto every = table.integer("every");
  if (every && (*every < 1 || *every > std::numeric_limits<int>::max()))
    table.fail("every", str("'every' is ", *every, "; expected a number of steps, at least 1"));
  return every ? static_cast<int>(*every) : 1;
}

// A STATIONS file's stations as positions named "NET.STA": in 3D x = longorUTM, y = latorUTM and
// z = surface - burial; in 2D (SPECFEM2D's order) x = the third field and y = the fourth - burial.
// The elevation is not used. Each refused, naming its line, outside the mesh's bounding box.
void read_stations(Table& table, const Bounds& bounds, const std::string& base_dir, Receiver& receiver) {
  const std::string file =
      referenced_file(table, "stations", "STATIONS file", "the path of a STATIONS file", base_dir).string();
  const int dim = bounds.dim;
  const double surface = table.has("surface") ? *table.number("surface") : bounds.upper[dim - 1];
  for (const Station& station : parse_stations(read_file(file, "STATIONS file"), file)) {
    const std::array<double, 3> x = dim == 3 ? std::array<double, 3>{station.lon, station.lat, surface - station.burial}
                                             : std::array<double, 3>{station.lat, station.lon - station.burial, 0.0};
    for (int d = 0; d < dim; ++d)
      if (!(x[static_cast<std::size_t>(d)] >= bounds.lower[d] - bounds.tolerance &&
            x[static_cast<std::size_t>(d)] <= bounds.upper[d] + bounds.tolerance))
        throw Error(str(file, ":", station.line, ": station ", station.network, ".", station.name, " at (", x[0], ", ",
                        x[1], dim == 3 ? str(", ", x[2]) : std::string(), ") lies outside the model (its bounding box ",
                        bounds.span(), ")"));
    receiver.positions.push_back(x);
    receiver.point_names.push_back(str(station.network, ".", station.name));
  }
}

Receiver read_receiver(Table& table, const Mesh& mesh, const Bounds& bounds, const std::string& base_dir) {
  table.only(receiver_keys);
  Receiver receiver;
  receiver.origin = origin_of(table);
  receiver.name = table.required_string("name", "the receiver's name, naming its histories");
  if (const std::string problem = receiver_name_problem(receiver.name); !problem.empty()) table.fail("name", problem);
  name_where(table);
  if (int(table.has("node_set")) + int(table.has("positions")) + int(table.has("grid")) + int(table.has("stations")) != 1)
    table.fail_at(table.line(), "a receiver takes one of 'node_set' (record at its nodes), 'positions' (record at "
                                "points, interpolated), 'grid' (a grid of points on a surface) and 'stations' (a "
                                "STATIONS file)");
  if (table.has("surface") && !table.has("stations"))
    table.fail("surface", "'surface' (the height burials count down from) goes with 'stations'");
  if (table.has("stations")) {
    read_stations(table, bounds, base_dir, receiver);
  } else if (table.has("node_set")) {
    std::tie(receiver.node_set, receiver.nodes) = node_set_of(table, mesh);
  } else if (table.has("grid")) {
    receiver.grid = read_grid(table, mesh);
  } else {
    const toml::node& node = *table.node("positions");
    const auto* array = node.as_array();
    if (!array || array->empty())
      table.fail("positions", str("'positions' must be an array of points such as [[0.01, 0.0]], got ",
                                  detail::describe(node)));
    for (std::size_t i = 0; i < array->size(); ++i)
      receiver.positions.push_back(position_in(table, (*array)[i], bounds, str("'positions'[", i, "]")));
  }
  if (table.has("record")) {
    receiver.displacement = false;
    for (const std::size_t k : choice_list(table, "record", recordable,
                                           "an array such as [\"displacement\", \"velocity\"]", "a string",
                                           [](std::size_t, const std::string& what) {
                                             return str("cannot record '", what, "'",
                                                        suggestion(what, recordable), "; expected ",
                                                        choices(recordable));
                                           }))
      (k == 0 ? receiver.displacement : k == 1 ? receiver.velocity : k == 2 ? receiver.acceleration : receiver.pressure) =
          true;
  }
  receiver.every_n_steps = every_of(table);
  return receiver;
}

constexpr std::string_view output_keys[] = {"snapshot_every", "snapshot_interval", "snapshot_fields",
                                            "snapshot_node_set", "flush_seconds"};
constexpr std::string_view snapshot_fields[] = {"displacement", "magnitude", "velocity", "pressure"};

OutputSettings read_output(const Table& table, const Mesh& mesh) {
  table.only(output_keys);
  OutputSettings output;
  output.origin = origin_of(table);
  if (table.has("snapshot_every") && table.has("snapshot_interval"))
    table.fail("snapshot_interval", "give either 'snapshot_every' (steps) or 'snapshot_interval' (seconds), not both");
  if (const auto every = table.integer("snapshot_every")) {
    if (*every < 1 || *every > std::numeric_limits<int>::max())
      table.fail("snapshot_every", str("'snapshot_every' is ", *every, "; expected a number of steps, at least 1"));
    output.snapshot_every = static_cast<int>(*every);
  }
  output.snapshot_interval = non_negative(table, "snapshot_interval", "s between snapshots");
  if (table.has("snapshot_interval") && output.snapshot_interval == 0.0)
    table.fail("snapshot_interval", "'snapshot_interval' is 0; expected a positive time in s");
  const bool snapshots = output.snapshots();
  for (std::string_view key : {"snapshot_fields", "snapshot_node_set"})
    if (table.has(key) && !snapshots)
      table.fail(key, str("'", key, "' needs 'snapshot_every' or 'snapshot_interval' (when to take snapshots)"));
  if (table.has("snapshot_fields")) {
    for (const std::size_t k : choice_list(table, "snapshot_fields", snapshot_fields,
                                           "an array such as [\"displacement\", \"velocity\"]", "a string",
                                           [](std::size_t, const std::string& what) {
                                             return str("no snapshot field '", what, "'",
                                                        suggestion(what, snapshot_fields), "; expected ",
                                                        choices(snapshot_fields));
                                           })) {
      output.magnitude = output.magnitude || snapshot_fields[k] == "magnitude";
      output.velocity = output.velocity || snapshot_fields[k] == "velocity";
      output.pressure = output.pressure || snapshot_fields[k] == "pressure";
    }
  }
  if (table.has("snapshot_node_set")) {
    std::tie(output.snapshot_node_set, output.snapshot_nodes) = node_set_of(table, mesh, "snapshot_node_set");
    std::sort(output.snapshot_nodes.begin(), output.snapshot_nodes.end());
    output.snapshot_nodes.erase(std::unique(output.snapshot_nodes.begin(), output.snapshot_nodes.end()),
                                output.snapshot_nodes.end());
  }
  if (table.has("flush_seconds")) {
    output.flush_seconds = positive(table, "flush_seconds", "s of wall time between flushes of the result file");
  }
  return output;
}

constexpr std::string_view transducer_keys[] = {"name",  "position", "radius",  "mode",     "amplitude",
                                                "signal", "delay",   "surface", "opposite", "drive"};
constexpr std::string_view transducer_modes[] = {"A0", "S0", "piston"};
constexpr std::string_view piston_drives[] = {"velocity", "pressure"};

Transducer read_transducer(Table& table, const Bounds& bounds, const std::string& base_dir) {
  name_where(table);
  table.only(transducer_keys);
  Transducer t;
  t.origin = origin_of(table);
  t.name = table.string("name").value_or(table.where());
  const std::string mode = choice(table, "mode", transducer_modes).value_or("A0");
  t.mode = mode == "piston" ? Transducer::Mode::Piston : mode == "S0" ? Transducer::Mode::S0 : Transducer::Mode::A0;
  const bool piston = t.mode == Transducer::Mode::Piston;
  if (piston) {
    // A piston's centre on a fluid's surface, as a source's position.
    if (!table.has("position")) table.fail_at(table.line(), "missing 'position' (the piston's centre, m)");
    t.position = position_in(table, *table.node("position"), bounds, "'position'");
    if (!table.has("radius")) table.fail_at(table.line(), "missing 'radius' (the piston's, m; in 2D the strip's half-width)");
    if (!table.has("surface")) table.fail_at(table.line(), "missing 'surface' (the fluid's surface the piston stands on)");
    if (table.has("opposite")) table.fail("opposite", "a piston has no 'opposite' surface (that is an S0 transducer's)");
    t.drive = choice(table, "drive", piston_drives).value_or("velocity") == "pressure" ? Transducer::Drive::Pressure
                                                                                       : Transducer::Drive::Velocity;
  } else {
    if (table.has("drive")) table.fail("drive", "'drive' is a piston's (mode = \"piston\"); a plate's transducer is a force");
    t.position = {0.0, 0.0, 0.0};
    const auto xy = plane_pair(table, "position", "x and y of the transducer's centre on the plate, m");
    t.position[0] = xy[0];
    t.position[1] = xy[1];
  }
  t.radius = non_negative(table, "radius", piston ? "m" : "m; 0 or absent: a point force");
  t.amplitude = table.number("amplitude", 1.0);
  t.delay = non_negative(table, "delay", "s");
  t.surface = table.string("surface").value_or("zmax");
  t.opposite = table.string("opposite").value_or("zmin");
  t.signal = read_signal(table, base_dir);
  return t;
}

constexpr std::string_view array_keys[] = {"name",   "elements", "pitch",     "width", "length", "centre", "direction",
                                           "surface", "amplitude", "signal", "delay", "fmc",    "every"};

TransducerArray read_array(Table& table, const Mesh& mesh, const Bounds& bounds, const std::string& base_dir) {
  name_where(table);
  table.only(array_keys);
  TransducerArray a;
  a.origin = origin_of(table);
  a.name = table.required_string("name", "the array's name: its receiver's, and its elements' \"<name>.<k>\"");
  if (const std::string problem = receiver_name_problem(a.name); !problem.empty()) table.fail("name", problem);
  if (!table.has("elements")) table.fail_at(table.line(), "missing 'elements' (how many elements the array has)");
  // A count, or a matrix array's [along, across] (3D).
  const bool matrix = table.node("elements")->is_array();
  if (matrix && mesh.dim() != 3)
    table.fail("elements", "'elements' = [along, across] is a 3D model's matrix array; a 2D array is one line: "
                           "elements = N");
  const std::vector<std::int64_t> counts =
      matrix ? *table.integers("elements", 2) : std::vector<std::int64_t>{table.integer("elements").value_or(0)};
  const std::int64_t total = matrix ? counts[0] * counts[1] : counts[0];
  if (std::any_of(counts.begin(), counts.end(), [](std::int64_t n) { return n < 1 || n > 4096; }) || total > 4096)
    table.fail("elements", str("'elements' makes ", total, matrix ? str(" (", counts[0], " x ", counts[1], ")") : "",
                               "; expected 1 to 4096 elements"));
  a.n_elements = static_cast<Index>(total);
  a.rows = matrix ? static_cast<Index>(counts[1]) : 1;
  a.width = positive(table, "width", "m, each element's width along the array");
  if (table.has("pitch") && table.node("pitch")->is_array()) {
    if (!matrix)
      table.fail("pitch", "'pitch' = [along, across] is a matrix array's (elements = [along, across]); give one number");
    const std::vector<double> pitches = *table.numbers("pitch", 2);
    if (!(pitches[0] > 0.0 && pitches[1] > 0.0))
      table.fail("pitch", str("'pitch' is [", pitches[0], ", ", pitches[1], "]; expected positive lengths (m)"));
    a.pitch = pitches[0];
    a.row_pitch = pitches[1];
  } else if (a.columns() > 1 || table.has("pitch")) {
    a.pitch = positive(table, "pitch", "m, between the elements' centres");
  }
  if (a.rows > 1 && !(a.row_pitch > 0.0))
    table.fail_at(table.line("pitch"), str("a matrix array of ", a.rows, " rows needs 'pitch' = [along, across] (m)"));
  if (a.columns() > 1 && a.width > a.pitch)
    table.fail("width", str("'width' ", a.width, " m is above the pitch ", a.pitch, " m: the elements would overlap"));
  if (mesh.dim() == 3)
    a.length = positive(table, "length", "m, the elements' elevation length, across the array");
  else if (table.has("length"))
    table.fail("length", "'length' is a 3D array's elevation; a 2D model's elements are strips of its section");
  if (a.rows > 1 && a.length > a.row_pitch)
    table.fail("length", str("'length' ", a.length, " m is above the row pitch ", a.row_pitch,
                             " m: the rows would overlap"));
  if (!table.has("centre")) table.fail_at(table.line(), "missing 'centre' (the array's centre on the surface, m)");
  a.centre = position_in(table, *table.node("centre"), bounds, "'centre'");
  if (table.has("direction")) a.direction = direction_of(table, "direction", mesh.dim());
  if (!table.has("surface")) table.fail_at(table.line(), "missing 'surface' (the flat surface the array stands on)");
  a.surface = surface_of(table, mesh).first;
  a.amplitude = table.number("amplitude", 1.0);
  if (a.amplitude == 0.0)
    table.fail("amplitude", "'amplitude' is 0: the elements would excite nothing, and every A-scan be zero");
  a.delay = non_negative(table, "delay", "s");
  a.signal = read_signal(table, base_dir);
  a.fmc = table.boolean("fmc").value_or(false);
  a.every_n_steps = every_of(table);
  return a;
}

constexpr std::string_view shot_keys[] = {"name", "transducers"};

Shot read_shot(Table& table) {
  name_where(table);
  table.only(shot_keys);
  Shot shot;
  shot.origin = origin_of(table);
  shot.name = table.required_string("name", "the shot's name: its group of the result file");
  if (const std::string problem = shot_name_problem(shot.name); !problem.empty()) table.fail("name", problem);
  shot.transducers = table.strings("transducers").value_or(std::vector<std::string>{});
  return shot;
}

}  // namespace

void read_excitation(const Table& root, Model& model, const std::string& base_dir) {
  if (const auto table = root.table("explicit")) model.explicit_settings = read_explicit(*table, base_dir);
  if (const auto table = root.table("static")) model.static_settings = read_static(*table);
  // A static model's loads need no signal: the static solver takes them at their full amplitude.
  const bool signal_optional = model.static_settings && !model.explicit_settings;
  const Bounds bounds(model.mesh);
  for (Table table : root.tables("source"))
    for (PointSource& source : read_source(table, model.mesh, bounds, base_dir, signal_optional))
      model.point_sources.push_back(std::move(source));
  for (Table table : root.tables("traction"))
    model.surface_loads.push_back(read_traction(table, model.mesh, base_dir, signal_optional));
  for (Table table : root.tables("transducer")) add_transducer(model, read_transducer(table, bounds, base_dir));
  for (const Table& table : root.tables("body_force")) model.body_forces.push_back(read_body_force(table, model.mesh));
  for (Table table : root.tables("prescribed_displacement"))
    model.prescribed.push_back(read_prescribed(table, model.mesh, base_dir, signal_optional));
  std::map<std::string, long> receiver_lines;
  for (Table table : root.tables("receiver")) {
    Receiver receiver = read_receiver(table, model.mesh, bounds, base_dir);
    const auto [first, inserted] = receiver_lines.emplace(receiver.name, table.line("name"));
    if (!inserted)
      table.fail("name", str("receiver '", receiver.name, "' is already defined at line ", first->second));
    model.receivers.push_back(std::move(receiver));
  }
  // After the receivers, whose names its receiver must not take, and before the shots, which may
  // fire its elements.
  for (Table table : root.tables("array")) add_array(model, read_array(table, model.mesh, bounds, base_dir));
  for (Table table : root.tables("shot")) add_shot(model, read_shot(table));
  if (!model.shots.empty())
    for (const TransducerArray& a : model.arrays)
      if (!a.fmc && std::none_of(model.transducers.begin(), model.transducers.end(), [&](const Transducer& t) {
            return t.array == a.name && std::any_of(model.shots.begin(), model.shots.end(),
                                                    [&](const Shot& shot) { return fires(&shot, t.name); });
          }))
        log::warn(str(a.origin, ": array '", a.name, "' fires in no shot (the model has shots, and 'fmc' is off)"));
  if (!model.shots.empty())
    for (const Transducer& t : model.transducers)  // (an array's elements: said of their array above)
      if (t.array.empty() &&
          std::none_of(model.shots.begin(), model.shots.end(), [&](const Shot& shot) { return fires(&shot, t.name); }))
        log::warn(str(t.origin, ": transducer '", t.name, "' is in no shot: it never fires"));
  if (const auto table = root.table("output")) model.output = read_output(*table, model.mesh);
}

}  // namespace tremor::io::model_file
