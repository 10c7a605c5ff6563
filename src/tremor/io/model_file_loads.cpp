// The model file's run settings and loads: [explicit], [static], signals, [[source]], [[traction]],
// [[prescribed_displacement]] and [[body_force]] (docs/model-file.md).
#include "tremor/io/model_file_parts.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numbers>
#include <span>
#include <tuple>

#include "tremor/core/error.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/limits.hpp"
#include "tremor/io/seismic_files.hpp"

namespace tremor::io::model_file {

using detail::choice;
using detail::named_choice;

constexpr std::string_view signal_kinds[] = {"tone_burst", "gaussian", "ricker", "tabulated"};
constexpr std::string_view tone_burst_keys[] = {"kind", "frequency", "cycles"};
constexpr std::string_view gaussian_keys[] = {"kind", "sharpness", "centre"};
constexpr std::string_view ricker_keys[] = {"kind", "frequency", "centre"};
constexpr std::string_view tabulated_keys[] = {"kind", "file", "points"};
// Signal tables are small; a larger file is not one.
constexpr std::uintmax_t largest_signal_file = 64u << 20;

namespace {

Signal read_tabulated(const Table& signal, const std::string& base_dir) {
  namespace fs = std::filesystem;
  if (signal.has("file") == signal.has("points"))
    signal.fail_at(signal.line(), "a tabulated signal takes either 'file' (a CSV of time,value) or 'points', not both");
  if (signal.has("points")) {
    const toml::node& node = *signal.node("points");
    const auto* array = node.as_array();
    if (!array || array->empty())
      signal.fail("points", str("'points' must be an array of [time, value] pairs, got ", detail::describe(node)));
    std::vector<std::pair<double, double>> points;
    points.reserve(array->size());
    // A finite float or an integer, read without formatting anything unless it fails (a table
    // from Python holds millions of points).
    const auto number = [&](const toml::node& entry, std::size_t i, int k) {
      if (const auto* real = entry.as_floating_point(); real && std::isfinite(real->get())) return real->get();
      if (const auto* integer = entry.as_integer()) return static_cast<double>(integer->get());
      return detail::number_of(entry, signal, str("'points'[", i, "][", k, "]"));  // throws, naming it
    };
    for (std::size_t i = 0; i < array->size(); ++i) {
      const toml::node& pair = (*array)[i];
      const auto* two = pair.as_array();
      if (!two || two->size() != 2)
        signal.fail_at(detail::line_of(pair),
                       str("'points'[", i, "] must be a pair [time, value], got ", detail::describe(pair)));
      const double t = number((*two)[0], i, 0);
      const double v = number((*two)[1], i, 1);
      if (!points.empty() && !(t > points.back().first))
        signal.fail_at(detail::line_of(pair), str("'points'[", i, "] has time ", t, ", not after the previous ",
                                                  points.back().first, "; times must increase strictly"));
      points.emplace_back(t, v);
    }
    try {
      return Signal::tabulated(std::move(points), str(signal.where(), " points"));
    } catch (const Error& error) {  // what the points give (their spacing), at the table's line
      throw_input_error(signal.file(), signal.line("points"), error.what());
    }
  }
  const fs::path path =
      referenced_file(signal, "file", "signal file", "the path of a CSV file of time,value lines", base_dir);
  Signal table = Signal::parse_table(read_file(path.string(), "signal file", largest_signal_file), path.string());
  try {
    table.check(path.string());
  } catch (const Error& error) {
    signal.fail("file", error.what());
  }
  return table;
}

// What a load of a static model without a signal holds: 1 at all times (a step at t = 0 should
// an explicit run be made of the model anyway).
Signal constant_signal() { return Signal::tabulated({{0.0, 1.0}}, "constant"); }

}  // namespace

Signal read_signal(const Table& owner, const std::string& base_dir) {
  if (!owner.has("signal"))
    owner.fail_at(owner.line(), "missing 'signal' (a table such as { kind = \"tone_burst\", frequency = 5e6, "
                                "cycles = 5 })");
  const toml::node& node = *owner.node("signal");
  if (!node.as_table())
    owner.fail("signal", str("'signal' must be a table such as { kind = \"ricker\", frequency = 1e5 }, got ",
                             detail::describe(node)));
  Table signal = owner.inline_table(*node.as_table(), str(owner.where(), ": signal"));
  const std::string kind = signal.required_string("kind", choices(signal_kinds));
  if (std::find(std::begin(signal_kinds), std::end(signal_kinds), kind) == std::end(signal_kinds))
    signal.fail("kind", str("unknown signal kind '", kind, "'", suggestion(kind, signal_kinds),
                            "; expected ", choices(signal_kinds)));
  signal.set_where(str(owner.where(), ": ", kind, " signal"));
  const double no_centre = std::nan("");
  // A frequency (or, squared, a sharpness) within the signals' magnitudes, named by its key.
  const auto rate = [&](std::string_view key, std::string_view meaning, int power) {
    const double value = positive(signal, key, meaning);
    const double lowest = std::pow(smallest_signal_frequency, power), highest = std::pow(largest_signal_frequency, power);
    if (value < lowest || value > highest)
      signal.fail(key, str("'", key, "' is ", value, "; expected ", lowest, " to ", highest, " (", meaning,
                           "): beyond, no signal, and its phase or period overflows"));
    return value;
  };
  // What the signal derives from its keys (the highest frequency) is refused at the table's line.
  try {
    if (kind == "tone_burst") {
      signal.only(tone_burst_keys);
      const double frequency = rate("frequency", "Hz", 1);
      return Signal::tone_burst(frequency, positive(signal, "cycles", "the number of cycles"));
    }
    if (kind == "gaussian") {
      signal.only(gaussian_keys);
      return Signal::gaussian(rate("sharpness", "b in exp(-b (t - centre)^2), 1/s^2", 2),
                              signal.number("centre").value_or(no_centre));
    }
    if (kind == "ricker") {
      signal.only(ricker_keys);
      return Signal::ricker(rate("frequency", "peak frequency, Hz", 1), signal.number("centre").value_or(no_centre));
    }
  } catch (const Error& error) {
    if (std::string_view(error.what()).starts_with(signal.file())) throw;  // named its line already
    throw_input_error(signal.file(), signal.line(), error.what());
  }
  signal.only(tabulated_keys);
  return read_tabulated(signal, base_dir);
}

constexpr std::string_view orderings[] = {"none", "rcm"};

ExplicitSettings read_explicit(const Table& table, const std::string& base_dir) {
  table.only(explicit_keys);
  ExplicitSettings settings;
  settings.origin = origin_of(table);
  settings.duration = positive(table, "duration", "simulated time, s");
  settings.time_step = non_negative(table, "time_step", "s; 0 or absent: the stable step times safety_factor");
  settings.safety_factor = table.number("safety_factor", 0.9);
  if (!(settings.safety_factor > 0.0 && settings.safety_factor <= 1.0))
    table.fail("safety_factor",
               str("'safety_factor' is ", settings.safety_factor, "; expected a number in (0, 1]"));
  settings.precision = choice(table, "precision", solver_precisions()).value_or("double");
  settings.backend = choice(table, "backend", solver_backends()).value_or("auto");
  // Parsed against the operator registry by the run's pre-flight, which names this line.
  settings.operator_kind = table.string("operator").value_or("auto");
  if (table.has("operator")) settings.operator_origin = str(table.file(), ":", table.line("operator"));
  settings.allow_unstable = table.boolean("allow_unstable").value_or(false);
  settings.ordering = choice(table, "ordering", orderings).value_or("none");
  if (table.has("blocks")) {
    // Checked here for existence; read, and matched to the mesh, when a run builds its operator.
    settings.blocks = referenced_file(table, "blocks", "block file", "the path of a block file (tremor partition)",
                                      base_dir, "; `tremor partition MODEL -o FILE` writes one")
                          .string();
  }
  if (settings.time_step > settings.duration)
    table.fail("time_step", str("'time_step' ", settings.time_step, " exceeds 'duration' ", settings.duration));
  return settings;
}

constexpr std::string_view static_keys[] = {"backend", "precision",      "preconditioner", "tolerance",
                                            "format",  "max_iterations", "assembly"};

StaticSettings read_static(const Table& table) {
  table.only(static_keys);
  StaticSettings settings;
  settings.origin = origin_of(table);
  settings.backend = named_choice(table, "backend", backend_names).value_or(settings.backend);
  settings.precision = named_choice(table, "precision", precision_names).value_or(settings.precision);
  settings.preconditioner =
      named_choice(table, "preconditioner", preconditioner_names).value_or(settings.preconditioner);
  settings.format = named_choice(table, "format", static_format_names).value_or(settings.format);
  settings.assembly = named_choice(table, "assembly", static_assembly_names).value_or(settings.assembly);
  if (table.has("tolerance")) {
    settings.tolerance = *table.number("tolerance");
    if (!(settings.tolerance > 0.0 && settings.tolerance < 1.0))
      table.fail("tolerance", str("'tolerance' is ", settings.tolerance,
                                  "; expected a relative residual ||f - K u|| / ||f|| in (0, 1), such as 1e-8"));
  }
  if (const auto iterations = table.integer("max_iterations")) {
    if (*iterations < 1 || *iterations > std::numeric_limits<int>::max())
      table.fail("max_iterations", str("'max_iterations' is ", *iterations, "; expected a count from 1 to ",
                                       std::numeric_limits<int>::max()));
    settings.max_iterations = static_cast<int>(*iterations);
  }
  return settings;
}

constexpr std::string_view source_keys[] = {"name",   "node_set",      "position",      "direction",
                                            "amplitude", "volume",     "signal",        "delay",
                                            "moment_tensor", "cmtsolution", "forcesolution", "source_time_function",
                                            "surface"};

// SPECFEM's half duration of a triangle mimicked by a Gaussian: tau = half duration / 1.628
// (exp(-(t / tau)^2) has the triangle's width where it falls to exp(-1.628^2), about 7%).
constexpr double triangle_to_gaussian = 1.628;

// A position from a seismic file: x east (longorUTM), y north (latorUTM), z = surface - depth;
// refused, naming the file's line, outside the mesh's bounding box.
std::array<double, 3> seismic_position(double lon, double lat, double depth_m, double surface, const Bounds& bounds,
                                       const std::string& at, const char* what) {
  const std::array<double, 3> x{lon, lat, surface - depth_m};
  for (int d = 0; d < 3; ++d)
    if (!(x[static_cast<std::size_t>(d)] >= bounds.lower[d] - bounds.tolerance &&
          x[static_cast<std::size_t>(d)] <= bounds.upper[d] + bounds.tolerance))
      throw Error(str(at, ": ", what, " at (", x[0], ", ", x[1], ", ", x[2], ") lies outside the mesh's bounding box ",
                      bounds.span()));
  return x;
}

// The moment's (or the force's) time function from a half duration: "heaviside" a step smoothed
// by a Gaussian rate, (1 + erf((t - t0) / tau)) / 2, as the Gaussian's integral scaled to 1;
// "gaussian" the pulse exp(-((t - t0) / tau)^2) itself, scaled to unit area when `unit_area`
// (SPECFEM's Gaussian force). t0 = the time shift plus the onset where the rate is 1e-6 of its
// peak, so that the run starts from rest.
void smooth_time_function(PointSource& source, bool step, bool unit_area, double half_duration, double time_shift) {
  const double tau = half_duration / triangle_to_gaussian, b = 1.0 / (tau * tau);
  source.signal = Signal::gaussian(b);
  source.signal.centre += time_shift;
  source.integrated = step ? 1 : 0;
  if (step || unit_area) source.amplitude *= std::sqrt(b / std::numbers::pi);
}

std::vector<PointSource> read_seismic_sources(Table& table, const Mesh& mesh, const Bounds& bounds,
                                              const std::string& base_dir, const std::string& name) {
  const bool cmt = table.has("cmtsolution");
  const char* key = cmt ? "cmtsolution" : "forcesolution";
  for (const char* other : {"node_set", "position", "direction", "amplitude", "volume", "signal", "delay",
                            "moment_tensor", cmt ? "forcesolution" : "cmtsolution"})
    if (table.has(other))
      table.fail(other, str("a source read from '", key, "' takes its position, ", cmt ? "moment" : "force",
                            " and time function from that file; '", other, "' does not go with it"));
  if (mesh.dim() != 3)
    table.fail(key, str("'", key, "' places a source in 3D (x east, y north, z up); a 2D model takes "
                        "'moment_tensor' or 'direction' at a 'position'"));
  const std::filesystem::path path = referenced_file(table, key, cmt ? "CMTSOLUTION file" : "FORCESOLUTION file",
                                                     cmt ? "the path of a CMTSOLUTION file" : "the path of a FORCESOLUTION file",
                                                     base_dir);
  const std::string file = path.string();
  const std::string text = read_file(file, cmt ? "CMTSOLUTION file" : "FORCESOLUTION file");
  // Depths count down from the free surface: the mesh's top unless `surface` says where it is.
  const double surface = table.has("surface") ? *table.number("surface") : bounds.upper[2];
  std::vector<PointSource> out;
  if (cmt) {
    const std::string function = table.string("source_time_function").value_or("heaviside");
    if (function != "heaviside" && function != "gaussian")
      table.fail("source_time_function", str("'source_time_function' of a CMTSOLUTION is \"", function,
                                             "\"; expected \"heaviside\" (the moment a step smoothed by the half "
                                             "duration, its rate a Gaussian) or \"gaussian\" (the moment a pulse)"));
    for (const CmtSolution& c : parse_cmtsolution(text, file)) {
      const std::string at = str(file, ":", c.line);
      if (!(c.half_duration > 0.0))
        throw Error(str(at, ": half duration 0: a moment without one jumps at once and has no highest frequency "
                        "for the mesh to resolve; give the half duration (s) the mesh can carry"));
      if (c.time_shift < 0.0)
        throw Error(str(at, ": time shift ", c.time_shift, " s is negative: the run starts at 0 and the source "
                        "then; give a time shift >= 0"));
      PointSource source;
      source.name = !name.empty() ? name : c.event;
      source.origin = at;
      source.position = seismic_position(c.lon, c.lat, 1e3 * c.depth, surface, bounds, at, "the source");
      // Harvard (r up, t south, p east) into x east, y north, z up; dyne cm into N m.
      constexpr double dyne_cm = 1e-7;
      const auto& m = c.m;  // Mrr, Mtt, Mpp, Mrt, Mrp, Mtp
      source.moment = std::array<double, 6>{m[2] * dyne_cm,  m[1] * dyne_cm, m[0] * dyne_cm,
                                            -m[5] * dyne_cm, m[4] * dyne_cm, -m[3] * dyne_cm};
      smooth_time_function(source, function == "heaviside", false, c.half_duration, c.time_shift);
      out.push_back(std::move(source));
    }
    return out;
  }
  const std::optional<std::string> asked = table.string("source_time_function");
  if (asked && *asked != "gaussian" && *asked != "ricker" && *asked != "heaviside")
    table.fail("source_time_function", str("'source_time_function' of a FORCESOLUTION is \"", *asked,
                                           "\"; expected \"gaussian\" (f0 a half duration, s), \"ricker\" (f0 a "
                                           "peak frequency, Hz) or \"heaviside\" (f0 a half duration)"));
  for (const ForceSolution& f : parse_forcesolution(text, file)) {
    const std::string at = str(file, ":", f.line);
    static constexpr const char* kinds[] = {"gaussian", "ricker", "heaviside"};
    const std::string function = asked ? *asked : f.time_function >= 0 ? kinds[f.time_function] : "gaussian";
    if (asked && f.time_function >= 0 && function != kinds[f.time_function])
      table.fail("source_time_function", str("'source_time_function' is \"", function, "\", and ", at,
                                             " says source time function ", f.time_function, " (\"",
                                             kinds[f.time_function], "\"): give one"));
    if (f.time_shift < 0.0)
      throw Error(str(at, ": time shift ", f.time_shift, " s is negative: the run starts at 0; give a time shift >= 0"));
    PointSource source;
    source.name = !name.empty() ? name : str("FORCE ", f.name);
    source.origin = at;
    source.position = seismic_position(f.lon, f.lat, 1e3 * f.depth, surface, bounds, at, "the force");
    const auto& d = f.east_north_up;
    const double length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    source.direction = {d[0] / length, d[1] / length, d[2] / length};
    source.amplitude = f.factor;
    if (function == "ricker") {
      source.signal = Signal::ricker(f.f0);
      source.signal.centre += f.time_shift;
    } else {
      smooth_time_function(source, function == "heaviside", true, f.f0, f.time_shift);
    }
    out.push_back(std::move(source));
  }
  return out;
}

// `signal_optional`: the model is static (a [static] table and no [explicit]), where a load without
// a signal is constant.
std::vector<PointSource> read_source(Table& table, const Mesh& mesh, const Bounds& bounds, const std::string& base_dir,
                                     bool signal_optional) {
  name_where(table);
  table.only(source_keys);
  const std::string name = table.string("name").value_or("");
  if (table.has("cmtsolution") || table.has("forcesolution"))
    return read_seismic_sources(table, mesh, bounds, base_dir, name);
  for (const char* key : {"source_time_function", "surface"})
    if (table.has(key))
      table.fail(key, str("'", key, "' goes with 'cmtsolution' or 'forcesolution'; a source given here takes its "
                          "time function from 'signal'"));
  PointSource source;
  source.name = name;
  source.origin = origin_of(table);
  if (table.has("node_set") == table.has("position"))
    table.fail_at(table.line(), "a source takes either 'node_set' (a set of nodes) or 'position' (a point, between "
                                "nodes or at one), not both");
  if (table.has("node_set")) {
    std::tie(source.node_set, source.nodes) = node_set_of(table, mesh);
  } else {
    source.position = position_in(table, *table.node("position"), bounds, "'position'");
  }
  if (table.has("moment_tensor")) {
    for (const char* key : {"direction", "volume"})
      if (table.has(key))
        table.fail(key, str("a moment tensor acts through its components; '", key, "' belongs to a ",
                            std::string_view(key) == "volume" ? "volume source" : "point force"));
    if (!table.has("position"))
      table.fail("moment_tensor", "a moment tensor acts at a 'position' (between nodes), not on a node set");
    const int dim = mesh.dim();
    const std::size_t count = dim == 3 ? 6 : 3;
    const std::vector<double> m = *table.numbers("moment_tensor", count);
    std::array<double, 6> moment{};
    if (dim == 3)
      std::copy(m.begin(), m.end(), moment.begin());
    else
      moment = {m[0], m[1], 0.0, m[2], 0.0, 0.0};
    if (std::all_of(m.begin(), m.end(), [](double v) { return v == 0.0; }))
      table.fail("moment_tensor", "the moment tensor is zero (a zero scalar moment): it would radiate nothing");
    source.moment = moment;
    source.amplitude = table.number("amplitude", 1.0);
  } else if (table.has("volume")) {  // a monopole in a fluid
    for (const char* key : {"direction", "amplitude"})
      if (table.has(key))
        table.fail(key, str("a volume source (in a fluid) takes 'volume' (m^3) alone; '", key,
                            "' belongs to a point force"));
    source.volume = true;
    source.amplitude = table.required_number("volume", "m^3, the volume injected at the signal's peak");
  } else {
    source.direction = direction_of(table, "direction", mesh.dim());
    source.amplitude = table.number("amplitude", 1.0);
  }
  source.delay = non_negative(table, "delay", "s");
  source.signal = signal_optional && !table.has("signal") ? constant_signal() : read_signal(table, base_dir);
  return {std::move(source)};
}

constexpr std::string_view traction_keys[] = {"name", "surface", "pressure", "traction", "signal", "delay"};

SurfaceLoad read_traction(Table& table, const Mesh& mesh, const std::string& base_dir, bool signal_optional) {
  name_where(table);
  table.only(traction_keys);
  SurfaceLoad load;
  load.origin = origin_of(table);
  if (const auto name = table.string("name")) load.name = *name;
  std::tie(load.surface, load.faces) = surface_of(table, mesh);
  if (table.has("pressure") == table.has("traction"))
    table.fail_at(table.line(), "a traction takes either 'pressure' (Pa, acting against the outward normal) or "
                                "'traction' (a vector, Pa, global axes), not both");
  if (table.has("pressure"))
    load.pressure = table.required_number("pressure", "Pa, acting against the outward normal");
  else
    load.traction = vector_of(table, "traction", mesh.dim(), str(mesh.dim(), " components, Pa, global axes"));
  load.delay = non_negative(table, "delay", "s");
  // Without a signal the load is constant (SurfaceLoad: no signal and no amplitude).
  if (!signal_optional || table.has("signal")) load.signal = read_signal(table, base_dir);
  return load;
}

constexpr std::string_view prescribed_keys[] = {"name",      "node_set", "direction", "components",
                                                "amplitude", "signal",   "delay"};
constexpr std::string_view axes_names[] = {"x", "y", "z"};

PrescribedDisplacement read_prescribed(Table& table, const Mesh& mesh, const std::string& base_dir,
                                       bool signal_optional) {
  name_where(table);
  table.only(prescribed_keys);
  PrescribedDisplacement p;
  p.origin = origin_of(table);
  if (!table.has("node_set")) table.fail_at(table.line(), "missing 'node_set' (the nodes whose displacement is given)");
  std::tie(p.node_set, p.nodes) = node_set_of(table, mesh);
  if (table.has("direction") == table.has("components"))
    table.fail_at(table.line(), "give either 'direction' (every component constrained, along it) or 'components' "
                                "(those listed constrained, the others free), not both");
  const int dim = mesh.dim();
  const std::span<const std::string_view> axes(axes_names, static_cast<std::size_t>(dim));
  if (table.has("direction")) {
    p.factor = direction_of(table, "direction", dim);
    for (int c = 0; c < dim; ++c) p.components.push_back(c);
  } else {
    const std::string axis_list = str("\"x\", \"y\"", dim == 3 ? " or \"z\"" : "");
    const char* form = "an array of axis names such as [\"y\"]";
    for (const std::size_t c : choice_list(table, "components", axes, form, axis_list,
                                           [&](std::size_t i, const std::string& name) {
                                             return str("'components'[", i, "] is '", name, "'; expected ",
                                                        choices(axes), " in a ", dim, "D model");
                                           })) {
      p.components.push_back(static_cast<int>(c));
      p.factor[c] = 1.0;
    }
    std::sort(p.components.begin(), p.components.end());
  }
  p.amplitude = table.number("amplitude", 1.0);
  p.delay = non_negative(table, "delay", "s");
  p.signal = signal_optional && !table.has("signal") ? constant_signal() : read_signal(table, base_dir);
  return p;
}

constexpr std::string_view body_force_keys[] = {"element_set", "acceleration", "gravity", "direction",
                                                "force_per_volume"};

BodyForce read_body_force(const Table& table, const Mesh& mesh) {
  table.only(body_force_keys);
  BodyForce force;
  force.origin = origin_of(table);
  const int dim = mesh.dim();
  if (table.has("element_set")) {
    std::tie(force.element_set, force.elements) = element_set_of(table, mesh);
    std::sort(force.elements.begin(), force.elements.end());
    force.elements.erase(std::unique(force.elements.begin(), force.elements.end()), force.elements.end());
  } else {
    force.elements.resize(static_cast<std::size_t>(mesh.n_elements()));
    for (std::size_t e = 0; e < force.elements.size(); ++e) force.elements[e] = static_cast<Index>(e);
  }
  const int given = int(table.has("acceleration")) + int(table.has("gravity")) + int(table.has("force_per_volume"));
  if (given != 1)
    table.fail_at(table.line(), "give one of 'acceleration' (m/s^2, a vector), 'gravity' (m/s^2, with 'direction') or "
                                "'force_per_volume' (N/m^3, a vector)");
  if (table.has("direction") && !table.has("gravity"))
    table.fail("direction", "'direction' goes with 'gravity' (its magnitude); 'acceleration' is a whole vector");
  const std::string components = str(dim, " components");
  if (table.has("acceleration")) {
    force.acceleration = vector_of(table, "acceleration", dim, str(components, ", m/s^2, global axes"));
  } else if (table.has("force_per_volume")) {
    force.force_per_volume = vector_of(table, "force_per_volume", dim, str(components, ", N/m^3, global axes"));
  } else {
    const double gravity = table.required_number("gravity", "m/s^2, the magnitude of the acceleration");
    if (!table.has("direction"))
      table.fail("gravity", str("missing 'direction' (", components, ", such as ",
                                dim == 3 ? "[0, 0, -1]" : "[0, -1]", ": the way gravity pulls, normalised)"));
    const std::array<double, 3> direction = direction_of(table, "direction", dim);
    for (std::size_t d = 0; d < 3; ++d) force.acceleration[d] = gravity * direction[d];
  }
  return force;
}

}  // namespace tremor::io::model_file
