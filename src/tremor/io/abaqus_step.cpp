// The Abaqus reader's step and what it applies: *AMPLITUDE, *BOUNDARY, *CLOAD, *DSLOAD, *DLOAD,
// *STEP with its procedure (*DYNAMIC, EXPLICIT or *STATIC), output requests and *END STEP.
#include "tremor/io/abaqus_reader.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "tremor/core/error.hpp"

namespace tremor::io::abaqus {

void Reader::amplitude(const KeywordLine& keyword) {
  check_parameters(keyword, {"NAME", "DEFINITION", "TIME", "VALUE", "SMOOTH", "FIXEDINTERVAL", "BEGIN", "INPUT"});
  if (keyword.has("INPUT")) fail(keyword.where, "*AMPLITUDE, INPUT= is not supported; use *INCLUDE, INPUT= instead");
  Amplitude result;
  result.name = required_name(keyword, "NAME");
  for (const auto& other : model_.amplitudes)
    if (other.name == result.name) fail(keyword.where, "amplitude '" + result.name + "' is defined twice");
  const std::string definition = option(keyword, "DEFINITION");
  const std::string time = option(keyword, "TIME");
  // tremor's model has one step starting at time 0, where step time and total time agree.
  if (!time.empty() && time != "STEPTIME" && time != "TOTALTIME")
    fail(keyword.where, "*AMPLITUDE, TIME=" + shown(time) + " is not supported (STEP TIME or TOTAL TIME)");
  if (keyword.has("SMOOTH")) ignore("*AMPLITUDE, SMOOTH (interpolation stays piecewise linear)", keyword.where);

  std::vector<Field> values;
  for (Record& record : read_records()) values.insert(values.end(), record.fields.begin(), record.fields.end());
  if (values.empty()) fail(keyword.where, "*AMPLITUDE '" + result.name + "' has no data");

  if (definition.empty() || definition == "TABULAR") {
    if (values.size() % 2 != 0)
      fail(values.back().where,
           str("*AMPLITUDE '", result.name, "' needs (time, value) pairs but has ", values.size(), " entries"));
    for (std::size_t k = 0; k < values.size(); k += 2) {
      const double t = real_or(values[k], 0.0, "a time");
      const double v = real_or(values[k + 1], 0.0, "an amplitude value");
      if (!result.points.empty() && !(t > result.points.back().first))
        fail(values[k].where, str("*AMPLITUDE '", result.name, "': times must increase, but ", t, " follows ",
                                  result.points.back().first));
      result.points.emplace_back(t, v);
    }
  } else if (definition == "EQUALLYSPACED") {
    if (!keyword.has("FIXEDINTERVAL"))
      fail(keyword.where, "*AMPLITUDE, DEFINITION=EQUALLY SPACED needs FIXED INTERVAL=<time step>");
    const double interval = parameter_real(keyword, "FIXEDINTERVAL");
    if (!(interval > 0.0)) fail(keyword.where, str("*AMPLITUDE: FIXED INTERVAL must be positive, got ", interval));
    const double begin = keyword.has("BEGIN") ? parameter_real(keyword, "BEGIN") : 0.0;
    for (std::size_t k = 0; k < values.size(); ++k)
      result.points.emplace_back(begin + interval * static_cast<double>(k),
                                 real_or(values[k], 0.0, "an amplitude value"));
  } else {
    fail(keyword.where,
         "*AMPLITUDE, DEFINITION=" + shown(definition) + " is not supported (TABULAR or EQUALLY SPACED)");
  }
  model_.amplitudes.push_back(std::move(result));
}

void Reader::boundary(const KeywordLine& keyword) {
  check_parameters(keyword, {"OP", "AMPLITUDE", "TYPE", "FIXED"});
  const std::string type = option(keyword, "TYPE");
  if (!type.empty() && type != "DISPLACEMENT")
    fail(keyword.where, "*BOUNDARY, TYPE=" + shown(type) + " is not supported (only prescribed displacements)");
  const std::string op = option(keyword, "OP");
  if (!op.empty() && op != "NEW" && op != "MOD")
    fail(keyword.where, "*BOUNDARY, OP=" + shown(op) + " (expected NEW or MOD)");
  // OP=NEW in a step releases the conditions of the model data (there is no earlier step).
  if (op == "NEW" && in_step_ && !released_boundaries_) {
    fixed_.erase(fixed_.begin(), fixed_.begin() + static_cast<std::ptrdiff_t>(fixed_before_step_));
    released_boundaries_ = true;
  }
  const std::string amplitude_name = optional_name(keyword, "AMPLITUDE");
  // FIXED holds the displacement at the start of the step: zero, as tremor's one step starts at rest.
  const bool hold = keyword.has("FIXED");

  while (src_.data_follows()) {
    const Record record = read_line_record();
    const auto& f = record.fields;
    if (f.size() < 2 || f[1].text.empty())
      fail(record.where,
           "*BOUNDARY expects: node or node set, first degree of freedom[, last degree of freedom"
           "[, displacement]], or node or node set and a type such as ENCASTRE");
    const std::vector<Index> nodes = nodes_of(f[0]);
    auto add = [&](int component, double value, bool implied) {
      PendingFixed entry;
      entry.dof.nodes = nodes;
      entry.dof.component = component;
      entry.dof.value = value;
      entry.dof.amplitude = amplitude_name;
      entry.dof.origin = src_.where(record.where);
      entry.where = record.where;
      entry.implied = implied;
      fixed_.push_back(std::move(entry));
    };
    if (!abaqus::parse_integer(f[1].text)) {
      const std::string named = abaqus::to_name(f[1].text);
      // The translations each named type fixes; its rotations do not exist on solid elements.
      static const std::map<std::string, std::vector<int>> named_types = {
          {"ENCASTRE", {0, 1, 2}}, {"PINNED", {0, 1, 2}}, {"XSYMM", {0}},     {"YSYMM", {1}},
          {"ZSYMM", {2}},          {"XASYMM", {1, 2}},    {"YASYMM", {0, 2}}, {"ZASYMM", {0, 1}}};
      const auto it = named_types.find(named);
      if (it == named_types.end())
        fail(f[1].where, "bad number '" + shown(f[1].text) +
                             "' where a degree of freedom or a boundary type (ENCASTRE, PINNED, XSYMM, YSYMM, "
                             "ZSYMM, XASYMM, YASYMM, ZASYMM) was expected");
      for (std::size_t k = 2; k < f.size(); ++k)
        if (!f[k].text.empty()) fail(f[k].where, "*BOUNDARY with type " + named + " takes no further entries");
      for (int component : it->second) add(component, 0.0, true);
      continue;
    }
    if (f.size() > 4) fail(f[4].where, "*BOUNDARY takes at most 4 entries per line");
    const int first = dof(f[1]);
    const int last = (f.size() > 2 && !f[2].text.empty()) ? dof(f[2]) : first;
    if (last < first) fail(f[2].where, str("last degree of freedom ", last, " is below the first, ", first));
    const double value = (f.size() > 3 && !hold) ? real_or(f[3], 0.0, "a displacement") : 0.0;
    for (int d = first; d <= last; ++d) {
      if (d <= 3)
        add(d - 1, value, false);
      else if (d == FixedDof::pressure + 1)  // the acoustic pressure of AC elements
        add(FixedDof::pressure, value, false);
      else
        ignore("*BOUNDARY on degrees of freedom 4 to 7 and above 8 (rotations and others that solids and fluids "
               "lack)", record.where);
    }
  }
}

void Reader::cload(const KeywordLine& keyword) {
  check_parameters(keyword, {"OP", "AMPLITUDE", "FOLLOWER"});
  if (keyword.has("FOLLOWER")) ignore("*CLOAD, FOLLOWER (loads keep their direction)", keyword.where);
  const std::string amplitude_name = optional_name(keyword, "AMPLITUDE");
  while (src_.data_follows()) {
    const Record record = read_line_record();
    const auto& f = record.fields;
    if (f.size() < 2 || f.size() > 3)
      fail(record.where, "*CLOAD expects: node or node set, degree of freedom, magnitude");
    const std::vector<Index> nodes = nodes_of(f[0]);
    const int component = dof(f[1]);
    const double magnitude = f.size() > 2 ? real_or(f[2], 0.0, "a load magnitude") : 0.0;
    if (component == FixedDof::pressure + 1) {  // (ignored, not refused: a deck read for its mesh alone may have it)
      ignore("*CLOAD on degree of freedom 8 (a volume acceleration at an acoustic node, not read: a fluid is driven "
             "by a [[source]] with 'volume', or a [[transducer]] piston, in a model file reading this mesh)",
             record.where);
      continue;
    }
    if (component > 3) {
      ignore("*CLOAD on degrees of freedom 4 to 7 and above 8 (moments and others that solids and fluids lack)",
             record.where);
      continue;
    }
    PendingLoad entry;
    entry.load.nodes = nodes;
    entry.load.component = component - 1;
    entry.load.magnitude = magnitude;
    entry.load.amplitude = amplitude_name;
    entry.load.origin = src_.where(record.where);
    entry.where = record.where;
    loads_.push_back(std::move(entry));
  }
}

// The pressure or traction of a *DSLOAD or *DLOAD line from its load type and the entries after
// the magnitude; false for a load type tremor does not apply.
bool Reader::surface_load_value(const std::string& load_type, const std::vector<Field>& f, std::size_t magnitude_at,
                        SurfaceLoad& load) {
  const double magnitude = f.size() > magnitude_at ? real_or(f[magnitude_at], 0.0, "a load magnitude") : 0.0;
  if (load_type == "P") {
    if (f.size() > magnitude_at + 1) fail(f[magnitude_at + 1].where, "a pressure takes one magnitude");
    load.pressure = magnitude;
    return true;
  }
  if (load_type == "TRVEC") {
    // Magnitude, then the direction (x, y, z), normalised as Abaqus does.
    std::array<double, 3> direction{0.0, 0.0, 0.0};
    for (std::size_t d = 0; d < 3 && magnitude_at + 1 + d < f.size(); ++d)
      direction[d] = real_or(f[magnitude_at + 1 + d], 0.0, "a direction component");
    const double norm =
        std::sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
    if (!(norm > 0.0)) fail(f[0].where, "a TRVEC traction needs a non-zero direction after its magnitude");
    for (std::size_t d = 0; d < 3; ++d) load.traction[d] = magnitude * direction[d] / norm;
    return true;
  }
  return false;
}

void Reader::dsload(const KeywordLine& keyword) {
  check_parameters(keyword, {"OP", "AMPLITUDE"});
  const std::string amplitude_name = optional_name(keyword, "AMPLITUDE");
  while (src_.data_follows()) {
    const Record record = read_line_record();
    const auto& f = record.fields;
    if (f.size() < 2 || f[1].text.empty())
      fail(record.where, "*DSLOAD expects: surface, load type (P or TRVEC), magnitude[, direction]");
    PendingSurfaceLoad entry;
    entry.load.surface = abaqus::to_name(f[0].text);
    const auto surface = surfaces_.find(entry.load.surface);
    if (surface == surfaces_.end())
      fail(f[0].where,
           "undefined surface '" + entry.load.surface + "' (surfaces must be defined before their loads)");
    const std::string load_type = abaqus::to_name(f[1].text);
    if (!surface_load_value(load_type, f, 2, entry.load)) {
      ignore(str("*DSLOAD of type ", shown(load_type), " (tremor applies P and TRVEC)"), record.where);
      continue;
    }
    entry.faces = surface->second;
    entry.load.amplitude = amplitude_name;
    entry.load.origin = src_.where(record.where);
    entry.where = record.where;
    surface_loads_.push_back(std::move(entry));
  }
}

void Reader::dload(const KeywordLine& keyword) {
  check_parameters(keyword, {"OP", "AMPLITUDE"});
  const std::string amplitude_name = optional_name(keyword, "AMPLITUDE");
  while (src_.data_follows()) {
    const Record record = read_line_record();
    const auto& f = record.fields;
    if (f.size() < 2 || f[1].text.empty())
      fail(record.where,
           "*DLOAD expects: element or element set, load type (P1 to P6, GRAV, BX, BY or BZ), magnitude[, direction]");
    const std::string load_type = abaqus::to_name(f[1].text);
    if (load_type == "GRAV" || load_type == "BX" || load_type == "BY" || load_type == "BZ") {
      body_force(record, load_type, amplitude_name);
      continue;
    }
    // Face pressures are P1..P6; other types (CENTRIF, BXNU, ...) are not applied.
    if (load_type.size() != 2 || load_type[0] != 'P' || load_type[1] < '1' || load_type[1] > '9') {
      ignore(str("*DLOAD of type ", shown(load_type),
                 " (tremor applies the face pressures P1 to P6 and the body forces GRAV, BX, BY, BZ)"),
             record.where);
      continue;
    }
    if (f.size() > 3) fail(f[3].where, "*DLOAD with a face pressure takes one magnitude");
    PendingSurfaceLoad entry;
    entry.faces = faces_of(elements_of(f[0]), f[1], 'P', "a face pressure type");
    entry.load.surface = str(abaqus::to_name(f[0].text), " ", load_type);
    entry.load.pressure = f.size() > 2 ? real_or(f[2], 0.0, "a load magnitude") : 0.0;
    entry.load.amplitude = amplitude_name;
    entry.load.origin = src_.where(record.where);
    entry.where = record.where;
    surface_loads_.push_back(std::move(entry));
  }
}

// A *DLOAD body force: GRAV, magnitude, direction (an acceleration of the magnitude along the
// normalised direction, times each element's density), or BX, BY, BZ, magnitude (a force per
// unit volume along x, y, z, the same whatever the density). GRAV without an element or set
// acts on the whole model, as Abaqus/CAE writes a gravity load on the whole model.
void Reader::body_force(const Record& record, const std::string& load_type, const std::string& amplitude_name) {
  const auto& f = record.fields;
  const bool gravity = load_type == "GRAV";
  PendingBodyForce entry;
  if (f[0].text.empty()) {
    if (!gravity)
      fail(f[0].where, str("*DLOAD ", load_type,
                           " needs an element or element set (only GRAV may leave it blank, for the whole model)"));
    entry.everywhere = true;
  } else {
    entry.definitions = elements_of(f[0]);
    entry.force.element_set = abaqus::to_name(f[0].text);
  }
  const double magnitude = f.size() > 2 ? real_or(f[2], 0.0, "a load magnitude") : 0.0;
  if (gravity) {
    if (f.size() < 4)
      fail(record.where, "*DLOAD GRAV needs the direction of gravity after its magnitude: magnitude, x, y, z");
    if (f.size() > 6) fail(f[6].where, "*DLOAD GRAV takes a magnitude and 3 direction components");
    std::array<double, 3> direction{0.0, 0.0, 0.0};
    for (std::size_t d = 0; d + 3 < f.size(); ++d) direction[d] = real_or(f[3 + d], 0.0, "a direction component");
    const double norm =
        std::sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
    if (!(norm > 0.0) || !std::isfinite(norm))
      fail(f[3].where, "*DLOAD GRAV: the direction is the zero vector; expected the direction of gravity");
    if (mesh_dim_ == 2 && direction[2] != 0.0)
      fail(f[5].where, "*DLOAD GRAV: the direction has a z component, but a 2D model's gravity lies in its plane");
    for (std::size_t d = 0; d < 3; ++d) entry.force.acceleration[d] = magnitude * direction[d] / norm;
  } else {
    if (f.size() > 3)
      fail(f[3].where, str("*DLOAD ", load_type, " takes one magnitude (a force per unit volume)"));
    const auto component = static_cast<std::size_t>(load_type[1] - 'X');
    if (component == 2 && mesh_dim_ == 2) {
      ignore("*DLOAD BZ in a 2D model", record.where);
      return;
    }
    entry.force.force_per_volume[component] = magnitude;
  }
  entry.force.amplitude = amplitude_name;
  entry.force.origin = src_.where(record.where);
  entry.where = record.where;
  body_forces_.push_back(std::move(entry));
}

void Reader::step(const KeywordLine& keyword) {
  if (in_step_)
    fail(keyword.where, "*STEP inside the step begun at " + src_.where(step_where_) + " (missing *END STEP)");
  if (steps_ > 0)
    fail(keyword.where, "a second *STEP: tremor reads one step, with *STATIC or *DYNAMIC, EXPLICIT (the first "
                        "begins at " + src_.where(step_where_) + "); give each analysis its own deck");
  check_parameters(keyword, {"NAME", "NLGEOM", "INC", "PERTURBATION", "UNSYMM", "EXTRAPOLATION", "AMPLITUDE"});
  const abaqus::Parameter* nlgeom = keyword.find("NLGEOM");
  if (nlgeom != nullptr && (!nlgeom->has_value || abaqus::to_name(nlgeom->value) == "YES"))
    ignore("*STEP, NLGEOM=YES (tremor is geometrically linear)", keyword.where);
  if (keyword.has("AMPLITUDE")) ignore("*STEP, AMPLITUDE (loads without an amplitude are constant)", keyword.where);
  step_name_ = keyword.has("NAME") ? optional_name(keyword, "NAME") : std::string("STEP-1");
  skip_data();  // an optional step title
  in_step_ = true;
  ++steps_;
  step_where_ = keyword.where;
  fixed_before_step_ = fixed_.size();
}

void Reader::dynamic(const KeywordLine& keyword) {
  check_parameters(keyword, {"EXPLICIT", "DIRECT", "DIRECTUSERCONTROL", "FIXEDTIMEINCREMENTATION", "ELEMENTBYELEMENT",
                             "IMPROVEDDTMETHOD", "ALPHA", "SOLVER", "ADIABATIC", "APPLICATION", "HAFTOL", "HALFINC"});
  // CalculiX writes EXPLICIT=0..3 (2 and 3: explicit structural integration, bare EXPLICIT = 3).
  const abaqus::Parameter* explicit_flag = keyword.find("EXPLICIT");
  bool is_explicit = explicit_flag != nullptr;
  if (is_explicit && explicit_flag->has_value) {
    const auto level = abaqus::parse_integer(explicit_flag->value);
    if (!level || *level < 0 || *level > 3)
      fail(keyword.where, "*DYNAMIC, EXPLICIT=" + shown(explicit_flag->value) + " (expected 0 to 3)");
    is_explicit = *level >= 2;
  }
  set_procedure(keyword, is_explicit ? "*DYNAMIC, EXPLICIT" : "*DYNAMIC");
  if (!is_explicit) {
    ignore("*DYNAMIC (implicit)", keyword.where);
    skip_data();
    return;
  }
  if (!src_.data_follows())
    fail(keyword.where, "*DYNAMIC, EXPLICIT needs a data line: [time increment], time period");
  const Record record = read_line_record();
  no_data(keyword);
  if (record.fields.size() < 2 || record.fields[1].text.empty())
    fail(record.where, "*DYNAMIC, EXPLICIT data line: [time increment], time period (the period is missing)");
  ExplicitStep result;
  result.name = step_name_;
  result.duration = real(record.fields[1], "the time period of the step");
  if (!(result.duration > 0.0))
    fail(record.fields[1].where, str("the time period of the step must be positive, got ", result.duration));
  const double increment = real_or(record.fields[0], 0.0, "a time increment");
  if (increment < 0.0) fail(record.fields[0].where, str("the time increment must not be negative, got ", increment));
  // DIRECT USER CONTROL (Abaqus) and DIRECT (CalculiX) take the increment as given. FIXED TIME
  // INCREMENTATION alone fixes the initial stable increment, which 0 leaves to the solver.
  const bool user_increment = keyword.has("DIRECTUSERCONTROL") || keyword.has("DIRECT");
  if (user_increment && increment == 0.0)
    fail(record.where, "*DYNAMIC, EXPLICIT with DIRECT USER CONTROL needs the time increment as the first entry");
  if (user_increment || keyword.has("FIXEDTIMEINCREMENTATION")) result.fixed_increment = increment;
  if (result.fixed_increment > result.duration)
    fail(record.fields[0].where, str("the time increment ", result.fixed_increment,
                                     " exceeds the time period of the step, ", result.duration));
  model_.explicit_step = result;
}

// The step's procedure: one per step (tremor reads one step, so one per deck).
void Reader::set_procedure(const KeywordLine& keyword, const char* name) {
  if (!procedure_.empty())
    fail(keyword.where, str(keyword.display, ": the step already has the procedure ", procedure_, " (at ",
                            src_.where(procedure_where_), "); a step holds one procedure, either *STATIC or "
                            "*DYNAMIC, EXPLICIT"));
  procedure_ = name;
  procedure_where_ = keyword.where;
}

// *STATIC: a linear static step, K u = f with the step's loads and boundary conditions. The
// solver's settings are tremor's defaults (StaticSettings).
void Reader::static_procedure(const KeywordLine& keyword) {
  // DIRECT and the time bookkeeping concern increments, which a linear step does not take.
  check_parameters(keyword, {"DIRECT", "TIMERESET", "TOTALTIMEATSTART", "SOLVER", "RIKS"});
  if (keyword.has("SOLVER"))
    ignore("*STATIC, SOLVER (tremor solves by preconditioned conjugate gradients)", keyword.where);
  if (keyword.has("RIKS"))
    fail(keyword.where, "*STATIC, RIKS asks for an arc-length (nonlinear) analysis; tremor's static solver is "
                        "linear: remove RIKS for a linear solve at the loads' full magnitude");
  set_procedure(keyword, "*STATIC");
  // The data line's initial increment, time period and bounds: a linear step applies its loads
  // at once, so they are read and not used.
  if (src_.data_follows()) {
    const Record record = read_line_record();
    for (const Field& field : record.fields) (void)real_or(field, 0.0, "a time increment or period");
    if (src_.data_follows())
      fail(src_.peek()->where, "*STATIC takes one data line (its time increments), not more");
  }
  StaticSettings settings;
  settings.step_name = step_name_;
  settings.origin = src_.where(keyword.where);
  model_.static_settings = settings;
  // Histories requested before this line belong to the static step too.
  for (const auto& [display, where] : history_origin_)
    ignore(display + " in a *STATIC step (the static solver writes its own result file)", where);
  model_.histories.clear();
  history_origin_.clear();
}

// An output request of a static step, listed in the warning.
void Reader::ignore_static_output(const KeywordLine& keyword) {
  ignore(keyword.display + " in a *STATIC step (the static solver writes its own result file)", keyword.where);
  skip_data();
}

Schedule Reader::schedule(const KeywordLine& keyword, const Schedule& inherited) {
  const int given =
      int(keyword.has("FREQUENCY")) + int(keyword.has("TIMEINTERVAL")) + int(keyword.has("NUMBERINTERVAL"));
  if (given > 1) fail(keyword.where, keyword.display + ": give one of FREQUENCY, TIME INTERVAL, NUMBER INTERVAL");
  if (keyword.has("TIMEPOINTS"))
    ignore(keyword.display + ", TIME POINTS (output every increment instead)", keyword.where);
  if (given == 0) return inherited;
  Schedule result;
  if (keyword.has("FREQUENCY")) {
    const long long every = parameter_integer(keyword, "FREQUENCY");
    if (every < 0 || every > std::numeric_limits<int>::max())
      fail(keyword.where, str(keyword.display, ": FREQUENCY must be 0 or positive, got ", every));
    result.none = every == 0;
    result.every_n_steps = std::max(1, static_cast<int>(every));
  } else if (keyword.has("TIMEINTERVAL")) {
    result.every_time = parameter_real(keyword, "TIMEINTERVAL");
    if (!(result.every_time > 0.0))
      fail(keyword.where, str(keyword.display, ": TIME INTERVAL must be positive, got ", result.every_time));
  } else {
    const long long intervals = parameter_integer(keyword, "NUMBERINTERVAL");
    if (intervals <= 0)
      fail(keyword.where, str(keyword.display, ": NUMBER INTERVAL must be positive, got ", intervals));
    if (!model_.explicit_step)
      fail(keyword.where, keyword.display + ", NUMBER INTERVAL needs the step's *DYNAMIC, EXPLICIT before it");
    result.every_time = model_.explicit_step->duration / static_cast<double>(intervals);
  }
  return result;
}

void Reader::output(const KeywordLine& keyword) {
  check_parameters(keyword, {"FIELD", "HISTORY", "FREQUENCY", "TIMEINTERVAL", "NUMBERINTERVAL", "VARIABLE", "OP",
                             "TIMEPOINTS", "TIMEMARKS", "NAME"});
  const bool field = keyword.has("FIELD"), history = keyword.has("HISTORY");
  if (field == history) fail(keyword.where, "*OUTPUT needs exactly one of FIELD or HISTORY");
  if (static_step()) return ignore_static_output(keyword);
  no_data(keyword);
  if (field) {
    output_mode_ = OutputMode::Field;
    ignore("*OUTPUT, FIELD (field output)", keyword.where);
    return;
  }
  output_mode_ = OutputMode::History;
  output_schedule_ = schedule(keyword, Schedule{});
}

void Reader::node_output(const KeywordLine& keyword) {
  if (static_step()) return ignore_static_output(keyword);
  check_parameters(keyword, {"NSET", "FREQUENCY", "TIMEINTERVAL", "NUMBERINTERVAL", "TIMEPOINTS", "GLOBAL", "TOTALS",
                             "OUTPUT", "SUMMARY", "VARIABLE", "LASTITERATIONS", "CONTACTELEMENTS"});
  // *NODE OUTPUT after *OUTPUT, FIELD asks for field output, which the model does not hold.
  if (keyword.name == "NODEOUTPUT" && output_mode_ == OutputMode::Field) {
    skip_data();
    return;
  }
  const Schedule when = schedule(keyword, output_mode_ == OutputMode::History ? output_schedule_ : Schedule{});
  HistoryOutput history;
  if (keyword.has("NSET")) {
    history.name = optional_name(keyword, "NSET");
    history.nodes = node_set(history.name, keyword.where);
  } else {
    history.name = "ALL";
    history.nodes.resize(static_cast<std::size_t>(model_.mesh.n_nodes()));
    for (Index i = 0; i < model_.mesh.n_nodes(); ++i) history.nodes[static_cast<std::size_t>(i)] = i;
  }
  bool wanted[3] = {false, false, false};  // U, V, A
  for (const Record& record : read_records())
    for (const Field& field : record.fields) {
      if (field.text.empty()) continue;
      const std::string variable = abaqus::to_name(field.text);
      if (variable.empty()) continue;
      // U, V, A and their components (U1, U2, U3) and magnitudes (UT) all select the vector.
      const bool component =
          variable.size() == 1 ||
          (variable.size() == 2 && (variable[1] == 'T' || (variable[1] >= '1' && variable[1] <= '3')));
      const std::size_t kind = std::string_view("UVA").find(variable[0]);
      if (component && kind != std::string_view::npos)
        wanted[kind] = true;
      else
        ignore(keyword.display + " variable " + shown(variable), field.where);
    }
  for (int k = 0; k < 3; ++k)
    if (wanted[k]) history.variables.push_back(std::string(1, "UVA"[k]));
  if (history.variables.empty()) {
    ignore(keyword.display + " without U, V or A", keyword.where);
    return;
  }
  if (when.none) return;
  history.every_n_steps = when.every_n_steps;
  history.every_time = when.every_time;
  model_.histories.push_back(std::move(history));
  history_origin_.emplace_back(keyword.display, keyword.where);
}

void Reader::end_step(const KeywordLine& keyword) {
  check_parameters(keyword, {});
  no_data(keyword);
  in_step_ = false;
  output_mode_ = OutputMode::None;
}

}  // namespace tremor::io::abaqus
