// The model file's run settings and loads: [explicit], [static], signals, [[source]], [[traction]],
// [[prescribed_displacement]] and [[body_force]] (docs/model-file.md).
#include "tremor/io/model_file_parts.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <span>
#include <tuple>

#include "tremor/core/error.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/limits.hpp"

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

constexpr std::string_view source_keys[] = {"name",   "node_set", "position", "direction",
                                            "amplitude", "volume",  "signal",   "delay"};

// `signal_optional`: the model is static (a [static] table and no [explicit]), where a load without
// a signal is constant.
PointSource read_source(Table& table, const Mesh& mesh, const Bounds& bounds, const std::string& base_dir,
                        bool signal_optional) {
  name_where(table);
  table.only(source_keys);
  PointSource source;
  source.origin = origin_of(table);
  if (table.has("node_set") == table.has("position"))
    table.fail_at(table.line(), "a source takes either 'node_set' (a set of nodes) or 'position' (the node nearest "
                                "a point), not both");
  if (table.has("node_set")) {
    std::tie(source.node_set, source.nodes) = node_set_of(table, mesh);
  } else {
    const auto x = position_in(table, *table.node("position"), bounds, "'position'");
    source.position = x;
    source.nodes = {nearest_node(mesh, x)};
  }
  if (table.has("volume")) {  // a monopole in a fluid
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
  return source;
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
