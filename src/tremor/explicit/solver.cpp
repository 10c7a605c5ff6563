#include "tremor/explicit/solver.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <utility>

#include "tremor/backend/memory.hpp"
#include "tremor/backend/memory_info.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/disjoint_sets.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/loading.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/pml.hpp"
#include "tremor/explicit/run_bytes.hpp"
#include "tremor/explicit/run_setup.hpp"
#include "tremor/explicit/shot_choices.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/fem/viscoelastic.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/model/absorbing.hpp"
#include "tremor/model/attenuation.hpp"
#include "tremor/model/pml.hpp"
#include "tremor/model/material_field.hpp"
#include "tremor/operator/spectrum.hpp"
#include "tremor/parallel/communicator.hpp"
#include "tremor/parallel/nccl_exchange.hpp"
#include "tremor/partition/domain_file.hpp"
#include "tremor/partition/block_file.hpp"
#include "tremor/sem/operator.hpp"
#include "tremor/sparse/element_survey.hpp"
#include "tremor/sparse/two_kernel.hpp"

namespace tremor::explicit_fe {

Observer::~Observer() = default;

namespace {

void warn(Preflight& preflight, const std::string& message) {
  preflight.warnings.push_back(message);
  log::warn(message);
}

// Refuses `bytes` of host memory for `what` when the process may not allocate that much
// (memory::host_available), before any of it is allocated.
void refuse_beyond_host(std::size_t bytes, const std::string& what) {
  const memory::HostAvailable available = memory::host_available();
  if (available.known() && bytes > available.bytes)
    throw Error(str("out of host memory: ", what, " needs about ", si(static_cast<double>(bytes)),
                    "B (estimate), more than the ", available.by,
                    "; run a smaller model, free memory or raise the limit"));
}

// Three significant digits, for messages about estimates.
std::string brief(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// The lowest order of a mesh whose elements are all GLL of order >= 2; else 1.
int gll_order(const Mesh& mesh) {
  int order = 0;
  for (const ElementBlock& block : mesh.blocks) {
    if (block.n_elements() == 0) continue;
    if ((block.type != ElementType::HexGLL && block.type != ElementType::QuadGLL) || block.order < 2) return 1;
    order = order == 0 ? block.order : std::min(order, block.order);
  }
  return std::max(order, 1);
}

// Coarse-grained memory variables spread a material's solids over each element's points
// (fem/viscoelastic.hpp): refused, naming the material, where an element has fewer values of
// i + j + k than solids.
void check_coarse_solids(const Model& model, const Material& material) {
  const int solids = material.attenuation->solids;
  for (const ElementBlock& block : model.mesh.blocks) {
    const bool gll = block.type == ElementType::HexGLL || block.type == ElementType::QuadGLL;
    if (!gll || block.n_elements() == 0 || fem::coarse_solids_fit(solids, block.order + 1, model.mesh.dim())) continue;
    const std::string& where = material.origin.empty() ? model.source : material.origin;
    throw Error(str(where.empty() ? "" : str(where, ": "), "material '", material.name,
                    "': coarse-grained memory variables (q_coarse_grained) spread its ", solids,
                    " solids over an element's points; ", element_name(block.type, block.order), " elements hold ",
                    fem::coarse_solids_most(block.order + 1, model.mesh.dim()),
                    " of them at most: take fewer solids (q_solids) or a higher ",
                    "order (--order)"));
  }
}

// dt rounded down to 3 significant digits.
double round_down(double dt) {
  const double unit = std::pow(10.0, std::floor(std::log10(dt)) - 2.0);
  return std::floor(dt / unit * (1.0 + 1e-15)) * unit;
}

// The global estimate on elements built on exec (without colours: the sem operator scatters by
// atomics; the rounding hides the order of the sums).
StableStep global_step(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements) {
  const DeviceArray<double> mass = sparse::assemble_lumped_mass<double>(exec, *elements, sparse::RaceStrategy::Atomics);
  const sem::SemOperator<double> K(std::move(elements), false);
  const op::Spectrum spectrum = op::largest_eigenvalue(K, mass.data());
  return {round_down(2.0 / std::sqrt(spectrum.largest)), K.geometry_values(), 0,
          str("largest eigenvalue of M^-1 K, ", spectrum.iterations, " Lanczos iterations")};
}

// The stable step from a survey of `elements` (built on exec from the model): the element bound it
// found, or (global) the global estimate, the survey having skipped the eigenvalues.
// Stiffness-proportional damping (stiffness_damping.hpp) shortens it by the largest beta of the
// materials in use: safe where beta differs by element (the element with the largest beta need not
// be the one with omega_max).
// A PML's grid damping (model/pml.hpp) is such a damping too, its beta set by the undamped step:
// the largest of the two shortens it (the layer's elements leave K and their sections' beta).
// `whole`: the model whose PML profile the run takes (with fluids, not only the solid's part).
StableStep step_from(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements, const Model& model,
                     const Model& whole, const sparse::ElementSurvey& survey, bool global) {
  const Label label = global ? 0 : model.mesh.element_label(survey.stable_element);
  StableStep stable =
      global ? global_step(exec, std::move(elements)) : StableStep{survey.stable_dt, 0, label, str("set by element ", label)};
  const double undamped = stable.dt;
  stable.undamped = undamped;
  PmlProfile pml = pml_profile(whole);
  pml.grid_step = undamped;
  const double beta = largest_beta(model), grid = largest_element_beta(model, pml);
  if (beta > 0.0 || grid > 0.0) {
    stable.dt = stable_step_with_damping(undamped, std::max(beta, grid));
    if (global) stable.dt = round_down(stable.dt);  // every backend the same step, as above
    stable.by += str(", x ", brief(stable.dt / undamped),
                     beta >= grid ? str(" for stiffness-proportional damping (beta ", beta, " s)")
                                  : str(" for the PML's grid damping (beta ", grid, " s)"));
  }
  return stable;
}

}  // namespace

namespace {

// The duration: RunOptions', else the model file's [explicit], else its Abaqus step's.
double duration_of(const Model& model, const RunOptions& options) {
  const ExplicitSettings defaults;
  const ExplicitSettings& settings = model.explicit_settings ? *model.explicit_settings : defaults;
  double duration = options.duration.value_or(0.0);
  if (!(duration > 0.0)) duration = settings.duration;
  if (!(duration > 0.0) && model.explicit_step) duration = model.explicit_step->duration;
  TREMOR_CHECK(duration > 0.0 && std::isfinite(duration), model.source,
               ": no duration: give [explicit] duration in the model file, a *DYNAMIC, EXPLICIT step, or a "
               "duration option");
  return duration;
}

}  // namespace

void plan_steps(Preflight& p, const Model& model, const RunOptions& options) {
  p.duration = duration_of(model, options);
  const std::string duration_from = options.duration ? "--duration" : str("the duration in ", model.source);
  const std::string dt_from = p.dt_source == "user"      ? (options.time_step ? "--dt" : "time_step in the model")
                              : p.dt_source == "abaqus" ? "the Abaqus step's increment"
                                                        : str("automatic: ", p.safety_factor, " x the stable step ",
                                                              brief(p.stable_dt), " s, ", p.stable_by);
  // A step longer than the whole run would step once past its end and call that complete (a
  // material of no physical stiffness gives a step of 1e145 s). The pre-flight shortens an
  // automatic one to the duration; a step given, or a kept set-up's (Simulation), is refused.
  TREMOR_CHECK(std::isfinite(p.dt) && p.dt > 0.0, "the time step is ", p.dt, " s (", dt_from,
               "); expected a positive finite step");
  if (p.dt > p.duration)
    throw Error(str("the time step ", brief(p.dt), " s (", dt_from, ") is longer than the duration ", brief(p.duration),
                    " s (", duration_from, "): the run would be one step past its end; give a longer duration, or a "
                    "time step of at most the duration (--dt, [explicit] time_step) if one step is meant"));
  // Steps to reach the duration; 1e-9 absorbs rounding of a duration that is a multiple of dt.
  // Computed in double and refused past max_steps before any conversion, so a huge duration or a
  // tiny step is a clear refusal, never an overflow that runs one step and calls it complete.
  const double planned = std::ceil(p.duration / p.dt * (1.0 - 1e-9));
  if (!(planned <= static_cast<double>(max_steps))) {
    throw Error(str("the run would take ", brief(planned), " steps (duration ", brief(p.duration), " s from ",
                    duration_from, " / time step ", brief(p.dt), " s, ", dt_from, "), more than the ",
                    brief(static_cast<double>(max_steps)),
                    " tremor takes in one run; check the duration and the time step"));
  }
  p.steps = std::max(static_cast<long long>(planned), 1LL);
}

namespace {

// The pre-flight's resolution of a model and its run options into a Preflight, step by step:
// settings from the model and the options, the backend and its Exec, the operator entry, the
// element survey, the time step, the plan of steps, the loads and the resolution's warnings.
struct Resolution {
  const Model& model;
  const RunOptions& options;
  const ExplicitSettings defaults;
  const ExplicitSettings& settings;  // the model file's [explicit], else the defaults
  const Model* with_fluids;          // the model whose solid `model` is (fem::solid_part); null: none
  Preflight p;

  Resolution(const Model& model_, const RunOptions& options_, const Model* with_fluids_)
      : model(model_), options(options_),
        settings(model_.explicit_settings ? *model_.explicit_settings : defaults), with_fluids(with_fluids_) {}

  // The choices parsed once, here (the model reader checked the model file's), and the Exec of the
  // survey (this process's GPU); a CUDA Exec throws, saying why, without a usable GPU.
  Exec choices() {
    p.precision = parse_named(!options.precision.empty() ? options.precision : settings.precision, precision_names,
                              "precision");
    p.ordering = parse_named(!options.ordering.empty() ? options.ordering : settings.ordering, node_ordering_names,
                             "node ordering");
    const Exec exec =
        process_exec(parse_backend(!options.backend.empty() ? options.backend : settings.backend), options, false);
    p.backend = exec.backend();
    return exec;
  }

  // The operator's name parsed into its registry entry, once; a model file's is named by its line.
  // A block file is kept for an operator that reads one.
  void choose_operator() {
    const Backend backend = p.backend;
    const bool from_model = options.operator_kind.empty();
    const std::string& asked = from_model ? settings.operator_kind : options.operator_kind;
    p.op = &operators().parse(asked, backend, from_model ? settings.operator_origin : std::string());
    // "auto": the registry's rules (op::Registry::choose_auto): sem on GLL hexahedra, two orders of
    // magnitude faster there than any assembled kind (docs/benchmarks.md, "Spectral elements"); a
    // kind that prefers the run's backend and element types; else the backend's default. Whether
    // the default fits the GPU is asked by preflight(), once K's pattern is counted.
    if (asked == "auto") {
      op::AutoChoice choice =
          operators().choose_auto(backend, model.mesh, options.deterministic, 0, {}, memory_per_point(model) > 0);
      p.op = choice.entry;
      p.operator_auto = true;
      p.operator_why = std::move(choice.reason);
    }
    if (!p.op->takes(model.mesh))
      throw Error(str(from_model && !settings.operator_origin.empty() ? settings.operator_origin + ": " : "",
                      p.op->unsupported(model.mesh)));
    p.blocks = !options.blocks.empty() ? options.blocks : settings.blocks;
    if (!p.blocks.empty() && !p.op->reads_blocks) {
      warn(p, str("block file ", p.blocks, " is not used: the operator is ", p.op->name,
                  " (a block file serves the partitioned operator)"));
      p.blocks.clear();
    }
  }

  // The assembly's race strategy, the checks' interval, the safety factor, the DOF count.
  void run_settings() {
    // Host backends assemble colour by colour (deterministic, and as fast as atomics there); a GPU
    // with atomics unless determinism is asked for.
    p.assembly = p.backend == Backend::Cuda && !options.deterministic ? sparse::RaceStrategy::Atomics
                                                                      : sparse::RaceStrategy::Colouring;
    TREMOR_CHECK(options.check_every >= 1, "check_every must be at least 1, got ", options.check_every);
    p.safety_factor = options.safety_factor.value_or(settings.safety_factor);
    TREMOR_CHECK(p.safety_factor > 0.0 && p.safety_factor <= 1.0, "safety factor must be in (0, 1], got ",
                 p.safety_factor);
    p.n_dofs = model.mesh.n_nodes() * model.mesh.dim();
  }

  // One pass over the elements on the run's Exec: stable step (into `stable`), longest element,
  // geometry check, and for an assembled kind K's nodal pattern.
  sparse::ElementSurvey survey(const Exec& exec, SetupClock& clock, StableStep& stable) {
    const fem::SectionTable table = fem::section_table(model, false);
    const bool global = global_stable_step(model.mesh);
    // On the host, what the survey allocates must fit first (its elements; for the global estimate
    // the mass, an affine sem operator in double and the Lanczos vectors).
    if (exec.space() == MemorySpace::Host) {
      const std::size_t n =
          static_cast<std::size_t>(model.mesh.n_nodes()) * static_cast<std::size_t>(model.mesh.dim());
      const auto n_elements = static_cast<std::size_t>(model.mesh.n_elements());
      refuse_beyond_host(element_bytes(model.mesh, false) + 3 * sizeof(double) * n_elements +
                             (global ? 6 * sizeof(double) * n + 35 * sizeof(double) * n_elements : 0),
                         "the pre-flight's element survey");
    }
    memory::Account& account = exec.account();
    const std::size_t held_before = account.usage(exec.space()).current;
    account.reset_peak(exec.space());
    const sparse::ElementSurvey survey = [&] {
      const auto elements =
          std::make_shared<const fem::DeviceElements>(exec, model.mesh, table, fem::ElementColouring{});
      const sparse::ElementSurvey out = sparse::survey_elements(exec, *elements, model, table, !global);
      clock.lap(str("element survey (", global ? "" : "stable step, ", "sizes, geometry) on ",
                    to_string(exec.backend())));
      stable = step_from(exec, elements, model, with_fluids ? *with_fluids : model, out, global);
      if (global) clock.lap(str("stable step (", stable.by, ")"));
      if (with_fluids) {
        // The fluid's own bound, by Lanczos on M_f^-1 K_f, and the coupling's, which the solid's
        // lumped mass weighs (with_fluid).
        auto fluid = std::make_shared<FluidSetup>(fluid_setup(*with_fluids, exec));
        const DeviceArray<double> mass =
            sparse::assemble_lumped_mass<double>(exec, *elements, sparse::RaceStrategy::Atomics);
        stable = with_fluid(stable, *fluid, mass.to_host());
        warn_uncoupled_fluid(*with_fluids, *fluid);
        p.fluid = std::move(fluid);
        clock.lap("fluid (its faces on the solid, lumped mass and stable step)");
      }
      if (p.op->needs_assembly) {
        // K's nodal pattern (kernel 1 of the two-kernel assembly) for the memory estimate: its
        // entries and longest row, on the Exec rather than a host node graph.
        const sparse::NodalPattern pattern = sparse::build_nodal_pattern(exec, *elements);
        p.stiffness_entries = pattern.n_entries();
        p.max_neighbours = pattern.max_neighbours;
        clock.lap("nodal pattern (memory estimate)");
      }
      return out;
    }();
    const std::size_t peak = account.usage(exec.space()).peak;
    p.survey_peak_bytes = peak - std::min(held_before, peak);
    p.geometry_values = stable.geometry_values;
    p.stable_dt = stable.dt;
    p.stable_undamped = stable.undamped;
    p.stable_element = stable.element;
    p.stable_by = stable.by;
    return survey;
  }

  // The time step: the one asked (above the stable step only with allow_unstable), else the Abaqus
  // step's fixed increment within the stable step, else the safety factor times the stable step.
  void choose_time_step(const StableStep& stable) {
    const bool allow_unstable = options.allow_unstable || settings.allow_unstable;
    const double user_dt = options.time_step.value_or(settings.time_step);
    const double abaqus_dt = model.explicit_step ? model.explicit_step->fixed_increment : 0.0;
    if (user_dt > 0.0) {
      TREMOR_CHECK(std::isfinite(user_dt), "time step must be finite, got ", user_dt);
      if (user_dt > stable.dt) {
        TREMOR_CHECK(allow_unstable, options.time_step ? "--dt: "
                                      : str(settings.origin.empty() ? model.source : settings.origin,
                                            ": [explicit] time_step: "),
                     "time step ", user_dt, " s is above the stable time step ", stable.dt,
                     " s (", stable.by,
                     "); use a smaller time step, leave it automatic, or ",
                     options.time_step ? "--allow-unstable"
                                       : "allow_unstable = true in [explicit] (or --allow-unstable)",
                     " to run it anyway");
        warn(p, str("time step ", user_dt, " s is above the stable time step ", stable.dt, " s (", stable.by,
                    "); running it as asked (allow_unstable)"));
      }
      p.dt = user_dt;
      p.dt_source = "user";
    } else if (abaqus_dt > 0.0 && abaqus_dt <= stable.dt) {
      p.dt = abaqus_dt;
      p.dt_source = "abaqus";
    } else {
      p.dt = stable.dt * p.safety_factor;
      p.dt_source = "automatic";
      if (abaqus_dt > 0.0)
        warn(p, str(model.source, ": the fixed time increment ", abaqus_dt, " s of step '", model.explicit_step->name,
                    "' is above the stable time step ", stable.dt, " s (", stable.by, "); using ",
                    p.dt, " s (", p.safety_factor, " x stable) instead"));
    }
  }

  // An automatic step longer than the whole run: one step of the duration, said (docs/model-file.md).
  void shorten_to_duration(const StableStep& stable) {
    if (const double duration = duration_of(model, options); p.dt_source == "automatic" && p.dt > duration) {
      warn(p, str("the automatic time step ", brief(p.dt), " s (", p.safety_factor, " x the stable step ",
                  brief(stable.dt), " s, ", stable.by, ") is longer than the duration ", brief(duration),
                  " s: the run is one step of the duration; check the duration, the materials and the mesh"));
      p.dt = duration;
      p.dt_source = "automatic, shortened to the duration";
    }
  }

  // The steps to the duration, the checkpoints' interval checked, the snapshots' interval.
  void plan() {
    plan_steps(p, model, options);
    TREMOR_CHECK(options.checkpoint_every >= 0, "checkpoint_every must not be negative, got ",
                 options.checkpoint_every);
    p.snapshot_every = model.output ? model.output->snapshot_steps(p.dt) : 0;
    TREMOR_CHECK(model.shots.empty() || p.snapshot_every == 0, model.shots.front().origin,
                 ": a model with shots takes no snapshots ([output] snapshot_every): they would mix the shots' "
                 "fields in one series; run a shot alone (a model of its transducers) for its snapshots");
    warn_idle_loads_and_receivers();
  }

  // A load whose delay reaches the run's end acts nothing in it, and a receiver sampling more
  // rarely than the run steps keeps its first sample only: each said once, at its line (an array's
  // elements at the array's, saying how many).
  void warn_idle_loads_and_receivers() {
    struct Late {
      double delay = 0.0;
      std::string origin;
      std::vector<std::string> transducers;
    };
    std::vector<std::pair<std::string, Late>> late;  // by origin (a transducer's name without one), in order
    const auto add = [&](double delay, const std::string& origin, const std::string& transducer) {
      if (delay < p.duration) return;
      const std::string key = origin.empty() ? transducer : origin;
      auto at = std::find_if(late.begin(), late.end(), [&](const auto& one) { return one.first == key; });
      if (at == late.end()) at = late.insert(late.end(), {key, Late{delay, origin, {}}});
      if (!transducer.empty() &&
          std::find(at->second.transducers.begin(), at->second.transducers.end(), transducer) ==
              at->second.transducers.end())
        at->second.transducers.push_back(transducer);
    };
    for (const PointSource& source : model.point_sources) add(source.delay, source.origin, source.transducer);
    for (const SurfaceLoad& load : model.surface_loads) add(load.delay, load.origin, load.transducer);
    for (const auto& entry : late) {
      const Late& one = entry.second;
      const std::vector<std::string>& t = one.transducers;
      const std::string what = t.empty()        ? std::string("a load")
                               : t.size() == 1 ? str("transducer '", t[0], "'")
                                               : str(t.size(), " transducers ('", t.front(), "' to '", t.back(), "')");
      warn(p, str(one.origin.empty() ? model.source : one.origin, ": ", what, t.size() > 1 ? " start" : " starts",
                  " at ", one.delay, " s (", t.size() > 1 ? "their" : "its", " delay), at or after the run's end (",
                  p.duration, " s): ", t.size() > 1 ? "they act" : "it acts", " nothing in this run"));
    }
    for (const Receiver& receiver : model.receivers)
      if (receiver.every_n_steps > p.steps)
        warn(p, str(receiver.origin.empty() ? model.source : receiver.origin, ": receiver '", receiver.name,
                    "' samples every ", receiver.every_n_steps, " steps, more than the run's ", p.steps,
                    ": it records its first sample only"));
  }

  // The loads' highest frequency, the last set-up phase timed.
  void loads(SetupClock& clock) {
    const Loading loading(model);
    p.highest_frequency = loading.highest_frequency();
    p.loads_end = loading.last_change();
    if (p.fluid) {  // (and its volume sources checked: at fluid nodes)
      const Loading in_fluid = fluid_loading(*with_fluids, p.fluid->mesh);
      p.highest_frequency = std::max(p.highest_frequency, in_fluid.highest_frequency());
      p.loads_end = std::max(p.loads_end, in_fluid.last_change());
    }
    clock.lap("loads (highest frequency)");
    if (p.fluid && p.precision == Precision::Float) warn_fluid_drift(with_fluids ? *with_fluids : model);
    // (A deck's loads tremor does not read, say, leave a model at rest: said, not refused.)
    if (model.loads.empty() && model.point_sources.empty() && model.surface_loads.empty() &&
        model.body_forces.empty() && model.prescribed.empty() && model.transducers.empty())
      warn(p, str(model.source, ": nothing loads the model (no source, load, prescribed motion or transducer): it "
                                "stays at rest, every output zero"));
    p.phases = clock.take();
  }

  // A piston whose signal's time integral is not zero (a Gaussian, say) leaves a pressure impulse
  // behind its pulse, and the fluid's potential (chi_tt = -p) then grows as that impulse times t:
  // in float the pressure, taken from K_f chi, loses digits as chi grows (a float run of a water
  // column drifted to 71% of the peak from double's in 9,578 steps, where a tone burst kept 0.19%).
  // Said once, naming the pistons; zero-mean signals (tone bursts, Rickers) do not drift.
  // A region of the fluid (its elements joined through shared nodes) that shares no face with a
  // solid is not coupled to it: its waves never reach the solid, nor the solid's it. Said, naming
  // an element of each such region (the first three) and how many elements they hold; a model of
  // fluid alone is refused by the run itself.
  void warn_uncoupled_fluid(const Model& whole, const FluidSetup& fluid) {
    const Mesh& mesh = whole.mesh;
    if (fluid.mesh.elements.empty() || static_cast<Index>(fluid.mesh.elements.size()) == mesh.n_elements()) return;
    DisjointSets joined(static_cast<std::size_t>(mesh.n_nodes()));  // the fluid's nodes, through its elements
    const auto nodes_of = [&](Index element) {
      const ElementRef at = mesh.locate(element);
      return mesh.blocks[static_cast<std::size_t>(at.block)].nodes(at.element);
    };
    const auto find = [&](Index element) { return joined.root(static_cast<std::size_t>(nodes_of(element).front())); };
    for (const Index element : fluid.mesh.elements)
      for (const Index node : nodes_of(element))
        joined.unite(static_cast<std::size_t>(node), static_cast<std::size_t>(nodes_of(element).front()));
    std::set<std::size_t> coupled;
    for (const fem::CouplingFace& face : fluid.interface.faces) coupled.insert(find(face.fluid.element));
    std::map<std::size_t, std::pair<Index, Index>> regions;  // root: first element, element count
    for (const Index element : fluid.mesh.elements) {
      const std::size_t r = find(element);
      if (coupled.count(r)) continue;
      ++regions.try_emplace(r, element, 0).first->second.second;
    }
    if (regions.empty()) return;
    std::vector<std::string> named;
    Index elements = 0;
    for (const auto& [r, region] : regions) {
      if (named.size() < 3) named.push_back(str(mesh.element_label(region.first)));
      elements += region.second;
    }
    warn(p, str(whole.source, ": ", regions.size() == 1 ? "a region" : str(regions.size(), " regions"),
                " of the fluid (", elements, " element", elements == 1 ? "" : "s", ", with element",
                named.size() == 1 ? " " : "s ", listed_and(named), regions.size() > named.size() ? ", ..." : "",
                ") share", regions.size() == 1 ? "s" : "", " no face with a solid: not coupled to it, its waves "
                "never reach the solid, nor the solid's it (a fluid couples across faces whose nodes both hold)"));
  }

  void warn_fluid_drift(const Model& whole) {
    std::vector<const Transducer*> drifting;
    for (const Transducer& t : whole.transducers) {
      if (t.mode != Transducer::Mode::Piston) continue;
      const double end = t.signal.duration();
      double magnitude = 0.0;
      if (std::isfinite(end) && end > 0.0) {
        constexpr int samples = 4000;
        for (int k = 0; k < samples; ++k) magnitude += std::abs(t.signal.value((k + 0.5) * end / samples));
        magnitude *= end / samples;
      }
      // (1%: a Gaussian's integral is its whole magnitude, a tone burst's and a Ricker's rounding.)
      if (!(magnitude > 0.0) || std::abs(t.signal.integral(end, 1)) > 0.01 * magnitude) drifting.push_back(&t);
    }
    if (drifting.empty()) return;
    const Transducer& first = *drifting.front();
    warn(p, str(first.origin.empty() ? whole.source : first.origin, ": piston '", first.name, "'",
                drifting.size() > 1 ? str(" and ", drifting.size() - 1, " other", drifting.size() == 2 ? "" : "s")
                                    : std::string(),
                " in the fluid: a signal whose time integral is not zero leaves a pressure impulse behind its pulse, "
                "and the fluid's potential then grows with time; in float its pressure loses digits as the run goes "
                "(docs/model-file.md, \"Fluids\"): run in double, or drive it with a zero-mean signal (a tone "
                "burst, a Ricker)"));
  }

  // Points per shortest wavelength, and warnings where the mesh resolves the waves too coarsely, the
  // run is long, or an absorbing layer is thin for its design frequency.
  void check_resolution(const sparse::ElementSurvey& survey, const StableStep& stable) {
    std::set<std::string> used;
    for (const Section& section : model.sections) used.insert(section.material);
    // The element that resolves its own slowest wave worst (a material field's or a section's
    // speed), so a slow layer meshed finely beside fast rock meshed coarsely is judged by each.
    p.min_wave_speed = survey.coarsest_speed;
    p.largest_element = survey.coarsest_element;
    if (!(p.min_wave_speed > 0.0)) {  // (a table not of this model's rows: the slowest and the largest anywhere)
      double slowest = std::numeric_limits<double>::infinity();
      for (const std::string& name : used) slowest = std::min(slowest, model.material(name).min_wave_speed());
      p.min_wave_speed = std::isfinite(slowest) ? slowest : 0.0;
      p.largest_element = survey.largest_element;
    }
    // A fluid counts its sound speed on its own elements: the points per wavelength the worse of the
    // solid's and the fluid's (a water's slow waves do not cross the solid's larger elements).
    if (p.fluid && (p.largest_element == 0.0 || p.fluid->slowest * p.largest_element <
                                                     p.min_wave_speed * p.fluid->largest_element)) {
      p.min_wave_speed = p.fluid->slowest;
      p.largest_element = p.fluid->largest_element;
    }
    p.gll_order = gll_order(model.mesh);
    p.points_per_wavelength = p.highest_frequency > 0.0 && p.largest_element > 0.0
                                  ? p.min_wave_speed / p.highest_frequency / (p.largest_element / p.gll_order)
                                  : std::numeric_limits<double>::infinity();
    if (p.points_per_wavelength < p.wanted_per_wavelength())
      warn(p, str("only ", brief(p.points_per_wavelength), " ", p.wavelength_unit(), " per shortest wavelength (",
                  brief(p.min_wave_speed), " m/s at ", brief(p.highest_frequency), " Hz, in an element of ",
                  brief(p.largest_element), " m",
                  p.gll_order > 1 ? str(" at GLL order ", p.gll_order, "); spectral elements need about 5 or more")
                                  : std::string("); linear elements need about 10 or more")));
    // Stiffness-proportional damping takes the ratio pi f beta at f: above 1 at the loads' highest
    // frequency their waves are overdamped, and the step shrinks by about 1 / (2 beta / dt).
    for (const std::string& name : used) {
      const Material& material = model.material(name);
      const double ratio = std::numbers::pi * p.highest_frequency * material.damping_beta;
      if (ratio > 1.0)
        warn(p, str(material.origin.empty() ? model.source : material.origin, ": material '", name,
                    "': damping_beta ", material.damping_beta, " s is a damping ratio of ", brief(ratio), " at ",
                    brief(p.highest_frequency), " Hz, the loads' highest frequency: their waves are overdamped "
                    "(beta is a time: a ratio zeta at f takes beta = zeta / (pi f))"));
    }
    // The fastest wave sets the stable step (said when the run is long) and the longest wavelength
    // at an absorbing layer's design frequency: layers thinner than about 1.5 wavelengths reflect
    // noticeably (Rajagopal et al. 2012, the ALID the pogo paper uses in section 4.3).
    double fastest = 0.0;
    for (const std::string& name : used) fastest = std::max(fastest, model.material(name).max_wave_speed());
    if (p.steps > long_run_steps)
      warn(p, str(brief(static_cast<double>(p.steps)), " steps planned: the time step ", brief(p.dt),
                  " s is ", stable.by, " and the fastest wave (", brief(fastest),
                  " m/s); a nearly incompressible material (Poisson's ratio close to 0.5) or a tiny element makes "
                  "it small"));
    for (const AbsorbingLayer& layer : model.absorbing) {
      if (layer.kind == AbsorbingKind::Pml) continue;  // (it needs far less: the pre-flight's pml lines)
      const double f0 = design_frequency(model, layer);
      if (!(f0 > 0.0) || !(fastest > 0.0)) continue;
      const double wavelengths = layer.thickness * f0 / fastest;
      if (wavelengths < 1.5)
        warn(p, str(layer.origin.empty() ? model.source : layer.origin, ": absorbing layer (", to_string(layer.kind),
                    ") is ", brief(layer.thickness), " m thick, ", brief(wavelengths),
                    " wavelengths of the fastest wave (", brief(fastest), " m/s) at its design frequency ", brief(f0),
                    " Hz; layers of 1.5 wavelengths or more reflect little"));
    }
  }
};

// Settings, time step and the numbers that need no operator; memory_bytes left 0.
// `last_phase`: the name of each phase as it completes (SetupClock).
Preflight resolve(const Model& model, const RunOptions& options, std::string& last_phase,
                  const Model* with_fluids) {
  Resolution resolution(model, options, with_fluids);
  const Exec exec = resolution.choices();
  resolution.choose_operator();
  resolution.run_settings();
  SetupClock clock(exec, Clock::now(), &last_phase);
  StableStep stable;
  const sparse::ElementSurvey survey = resolution.survey(exec, clock, stable);
  resolution.choose_time_step(stable);
  resolution.shorten_to_duration(stable);
  resolution.plan();
  resolution.loads(clock);
  resolution.check_resolution(survey, stable);
  return std::move(resolution.p);
}

}  // namespace

bool global_stable_step(const Mesh& mesh) {
  bool high_order = false;
  for (const ElementBlock& block : mesh.blocks) {
    if (block.n_elements() == 0) continue;
    if (block.type != ElementType::HexGLL && block.type != ElementType::QuadGLL) return false;
    high_order = high_order || block.order >= 2;
  }
  return high_order;
}

StableStep stable_step(const Model& model, const Exec& exec) {
  // With fluids, the coupled bound from the solid part's step and lumped mass (as the run's).
  const bool fluids = model.has_fluids();
  const Model solid_part = fluids ? fem::solid_part(model) : Model{};
  const Model& solid = fluids ? solid_part : model;
  StableStep step{std::numeric_limits<double>::infinity(), 0, 0, ""};
  std::vector<double> mass;
  if (solid.mesh.n_elements() > 0) {
    const fem::SectionTable table = fem::section_table(solid, false);
    const auto elements = std::make_shared<const fem::DeviceElements>(exec, solid.mesh, table, fem::ElementColouring{});
    const bool global = global_stable_step(solid.mesh);
    step = step_from(exec, elements, solid, model, sparse::survey_elements(exec, *elements, solid, table, !global),
                     global);
    if (fluids) mass = sparse::assemble_lumped_mass<double>(exec, *elements, sparse::RaceStrategy::Atomics).to_host();
  }
  return fluids ? with_fluid(step, fluid_setup(model, exec), mass) : step;
}

StableStep with_fluid(const StableStep& solid, const FluidSetup& fluid, std::span<const double> solid_mass) {
  // The coupled scheme is H-self-adjoint, H = diag(M_s, K_f) (the energy: the solid's kinetic
  // energy and the fluid's, chi_t^T K_f chi_t), with H A = G, G = diag(K_s, 0) + P^T M_f^-1 P and
  // P = [C^T, -K_f]. Splitting (C^T u - K_f chi)^T M_f^-1 (C^T u - K_f chi) by Young's inequality,
  //   lambda_max(A) <= max(lambda_s + (1 + e) mu, (1 + 1 / e) lambda_f)   for every e > 0,
  // mu = lambda_max(M_s^-1 C M_f^-1 C^T) (coupling_bound): the fluid's mass at the interface
  // stiffens the solid there. e balances the two.
  const double lambda_s = 4.0 / (solid.dt * solid.dt), lambda_f = fluid.spectrum.largest;
  const double mu = coupling_bound(fluid, solid_mass);
  double lambda = std::max(lambda_s, lambda_f);
  if (mu > 0.0) {
    const double b = lambda_s + mu - lambda_f;  // mu e^2 + b e - lambda_f = 0
    const double e = 2.0 * lambda_f / (b + std::sqrt(b * b + 4.0 * mu * lambda_f));
    lambda = (1.0 + 1.0 / e) * lambda_f;
  }
  const double dt = round_down(2.0 / std::sqrt(lambda));
  if (dt >= solid.dt) return solid;
  const std::string by = lambda_f >= lambda_s ? str("set by the fluid (largest eigenvalue of its M^-1 K, ",
                                                     fluid.spectrum.iterations, " Lanczos iterations)")
                                               : solid.by;
  return {dt, solid.geometry_values, 0, mu > 0.0 ? by + " and the fluid-solid coupling" : by, solid.undamped};
}

namespace {

// A C-PML (multiaxial 0) amplifies guided waves whose group and phase velocities point apart along
// a face that is not lined and runs through the layer: a plate's backward Lamb modes (Loh et al.
// 2009), and beside a free surface at a high Poisson's ratio (Zeng et al. 2011, Geophysics 76(3)
// T43; seen here at nu 0.405). Seen in steel blocks lined on two faces, the faces between free or
// held, with quad4, quad8 and GLL order 4 (docs/verification.md, "PML"), where lining every face
// or the multi-axial ratio (0.05 to 0.2) kept them decaying (docs/model-file.md, "PML"). Warned
// where some face is not lined, naming the faces; at a high Poisson's ratio, the material too.
void warn_pml_growth(Preflight& p, const Model& model) {
  if (!p.pml.any() || p.pml.multiaxial > 0.0) return;
  std::string open, lined_faces;
  for (int k = 0; k < p.pml.dim; ++k)
    for (int side = 0; side < 2; ++side) {
      std::string& into = p.pml.sides[k][side].active ? lined_faces : open;
      into += str(into.empty() ? "" : ", ", "xyz"[k], side ? "max" : "min");
    }
  if (open.empty()) return;
  warn(p, str("faces ", open, " are not lined and run through the PML on ", lined_faces, ": a C-PML (no "
              "'multiaxial') amplifies guided waves along them whose group and phase velocities point apart, and has "
              "grown so in plain steel blocks (docs/verification.md, \"PML\"); line those faces too, or set "
              "multiaxial = 0.05 to 0.2 and check a long run"));
  constexpr double highest = 0.35;  // between 1/3 (stable in the test of a half-space) and 0.405 (grows)
  std::set<std::string> warned;
  for (const Section& section : model.sections) {
    const Material& material = model.material(section.material);
    if (!material.isotropic || !warned.insert(material.name).second) continue;
    const double nu = material.field ? material.field->max_poisson_ratio()
                                     : material.lambda() / (2.0 * (material.lambda() + material.mu()));
    if (nu > highest)
      warn(p, str("material '", material.name, "' has Poisson's ratio ", nu, ": a free surface running into a PML can "
                  "grow there (above about ", highest, "); set the layer's multiaxial = 0.05 to 0.1 "
                  "(docs/model-file.md, \"PML\")"));
  }
}

// A layer's frequency shift alpha_max (pi f0 by default) is made for the loads' band: one above
// 1 / dt lies beyond anything the step resolves, and the layer's memory variables then grew in runs
// that ended finite (alpha_max dt about 12; 6 decayed): refused, naming the layer. A design
// frequency a decade away from the sources' centre frequencies absorbs them poorly: warned.
void check_pml_frequency(Preflight& p, const Model& model) {
  if (!p.pml.any()) return;
  const std::array<double, 2> band = source_frequencies(model);
  for (const AbsorbingLayer& layer : model.absorbing) {
    if (layer.kind != AbsorbingKind::Pml) continue;
    const std::string at = str(layer.origin.empty() ? model.source : layer.origin, ": absorbing layer (pml)");
    const double alpha_max = layer.alpha_max > 0.0 ? layer.alpha_max : std::numbers::pi * pml_frequency(model, layer);
    const std::string given = layer.alpha_max > 0.0 ? str("alpha_max ", alpha_max, " 1/s")
                                                    : str("alpha_max ", alpha_max, " 1/s (pi x its frequency ",
                                                          pml_frequency(model, layer), " Hz)");
    TREMOR_CHECK(alpha_max * p.dt <= 1.0, at, ": ", given, " times the time step ", p.dt, " s is ",
                 alpha_max * p.dt, ", above 1: a frequency shift beyond what the step resolves, with which the layer "
                 "grows; alpha_max is about pi times the sources' centre frequency (the default)");
    const double f0 = alpha_max / std::numbers::pi;
    if (band[0] > 0.0 && (f0 > 10.0 * band[1] || f0 < 0.1 * band[0]))
      warn(p, str(at, ": ", given, " is made for ", brief(f0), " Hz, a decade or more from the sources' ",
                  band[0] == band[1] ? str(brief(band[0]), " Hz") : str(brief(band[0]), " to ", brief(band[1]), " Hz"),
                  ": the layer absorbs their waves poorly; leave 'frequency' and 'alpha_max' out to take the "
                  "sources'"));
  }
}

// A source or receiver inside a PML: its waves are damped where they start or end, which a layer
// meant to stand outside the region of interest does not intend. Said once for each, naming it.
void warn_inside_pml(Preflight& p, const Model& model) {
  if (!p.pml.any()) return;
  const auto inside = [&](const std::vector<Index>& nodes, const std::vector<std::array<double, 3>>& points) {
    for (const Index node : nodes) {
      double x[3] = {0.0, 0.0, 0.0};
      for (int k = 0; k < model.mesh.dim(); ++k) x[k] = model.mesh.node(node)[k];
      if (p.pml.inside(x)) return true;
    }
    return std::any_of(points.begin(), points.end(),
                       [&](const std::array<double, 3>& x) { return p.pml.inside(x.data()); });
  };
  for (const PointSource& source : model.point_sources) {
    std::vector<std::array<double, 3>> at;
    if (source.position) at.push_back(*source.position);
    if (inside(source.nodes, at))
      warn(p, str(source.origin.empty() ? model.source : source.origin, ": the source",
                  source.name.empty() ? std::string() : str(" '", source.name, "'"),
                  " lies inside a PML, which damps its waves from the start: move it out of the layer"));
  }
  for (const Receiver& receiver : model.receivers)
    if (inside(receiver.nodes, receiver.positions))
      warn(p, str(receiver.origin.empty() ? model.source : receiver.origin, ": receiver '", receiver.name,
                  "' has points inside a PML, whose motion there is the layer's, damped: move them out of it"));
}

// An anisotropic material whose waves' slowness and group velocity point apart along a lined axis
// (Material::pml_margin): a C-PML there grows (Becache et al. 2003), and the multi-axial PML is the
// remedy (Meza-Fajardo and Papageorgiou 2008); the ratio it needs depends on the material.
void warn_pml_anisotropy(Preflight& p, const Model& model) {
  if (!p.pml.any() || p.pml.multiaxial > 0.0) return;
  constexpr double noise = 1e-6;  // the sampled directions' rounding: where the condition holds, margins of 0
  std::set<std::string> warned;
  for (const Section& section : model.sections) {
    const Material& material = model.material(section.material);
    if (material.isotropic || !warned.insert(material.name).second) continue;
    std::string axes;
    for (int k = 0; k < p.pml.dim; ++k) {
      if (!p.pml.sides[k][0].active && !p.pml.sides[k][1].active) continue;
      if (material.pml_margin(k, p.pml.dim) < -noise) axes += str(axes.empty() ? "" : ", ", "xyz"[k]);
    }
    if (!axes.empty())
      warn(p, str("material '", material.name, "' has waves whose slowness and group velocity point apart along ",
                  axes, ": a PML normal to that axis grows in it (Becache et al. 2003); set the layer's multiaxial "
                  "(0.2 kept docs/verification.md's orthotropic medium stable, 0.1 did not) and check a long run"));
  }
}

// Quadratic elements with their HRZ-lumped mass (hex20, tet10, quad8) do not carry a plane wave as
// one: their lumped masses are not in proportion to their consistent nodal loads (a corner's is
// negative), and a plane wave's speed comes out several percent off whatever the spacing along it,
// converging only as the whole mesh is refined (tests/verification/lumped_dispersion_test.cpp:
// hex20 2.4% to 11.6%, tet10 3.1% to 5.3%, quad8 2.6% to 4.6%, where the linear elements and GLL
// order 2 at the same node spacing are within 0.3%).
void warn_quadratic_lumping(Preflight& p, const Model& model) {
  std::set<ElementType> types;
  for (const ElementBlock& block : model.mesh.blocks)
    if (block.type == ElementType::Hex20 || block.type == ElementType::Tet10 || block.type == ElementType::Quad8)
      types.insert(block.type);
  for (const ElementType type : types) {
    const std::string elevate = "--order 2 runs them as GLL elements of order 2 on the same geometry";
    const std::string remedy = type == ElementType::Hex20   ? elevate + ", or mesh with hex8"
                               : type == ElementType::Quad8 ? elevate + ", or mesh with quad4"
                                                            : "mesh with tet4 at the same node spacing, or with "
                                                              "hexahedra run at --order 2";
    warn(p, str(element_name(type), " elements with lumped mass carry waves several percent too fast or too slow "
                "where linear elements at the same node spacing are within 0.3% (docs/elements.md, \"Lumped mass and "
                "wave speed\"): ", remedy));
  }
}

}  // namespace

namespace {

// The subdomains of the decomposition file options.decomposition (Preflight::element_domain),
// read and checked against the mesh here, before a result file exists (with fluids it splits the
// whole model's elements: coupled_parts.hpp), against `processes` or --domains; without one,
// --domains.
int take_decomposition_file(Preflight& p, const Model& whole, const RunOptions& options, int processes) {
  if (options.decomposition.empty()) return options.domains;
  partition::SavedDecomposition file = partition::read_domain_file(options.decomposition, whole.mesh);
  const int saved = file.n_domains;
  p.element_domain = std::make_shared<const std::vector<int>>(std::move(file.element_domain));
  const bool threaded = options.communicator && options.communicator->threaded();
  if (processes > 1)
    TREMOR_CHECK(saved == processes, options.decomposition, ": a decomposition into ", saved,
                 " subdomains, run over ", processes, threaded ? " GPUs" : " processes", ": one subdomain each (",
                 threaded ? "--gpus " : "mpirun -np ", saved, ")");
  else
    TREMOR_CHECK(options.domains == 1 || options.domains == saved, options.decomposition, ": a decomposition into ",
                 saved, " subdomains, and --domains ", options.domains);
  return saved;
}

// Preflight::attenuation: a line per attenuating material (its fit; with a field, each element's
// Q range), the coarse-grained ones' solids checked.
void describe_attenuation(Preflight& p, const Model& model) {
  std::set<std::string> described;
  for (const Section& section : model.sections) {
    const Material& material = model.material(section.material);
    if (!material.attenuation || !described.insert(material.name).second) continue;
    const ResolvedAttenuation resolved = resolve_attenuation(model, material);
    std::string line = describe(resolved, material);
    // 5%: the constant Q the solids are verified to hold (docs/verification.md); a fit worse than
    // that is not the constant Q asked for.
    if (resolved.worst_error() > 0.05)
      warn(p, str(material.origin.empty() ? model.source : material.origin, ": material '", material.name, "': its ",
                  resolved.shear.omega.size(), " standard linear solid", resolved.shear.omega.size() == 1 ? "" : "s",
                  " fit a constant Q over [", brief(resolved.band[0]), " Hz, ", brief(resolved.band[1]),
                  " Hz] only to within ", brief(100.0 * resolved.worst_error()),
                  "%: raise q_solids, or narrow q_band to the sources' frequencies"));
    if (material.field && material.field->has_quality()) {
      const auto q_p = std::minmax_element(material.field->values[3].begin(), material.field->values[3].end());
      const auto q_s = std::minmax_element(material.field->values[4].begin(), material.field->values[4].end());
      line += str(" (its field's first point; each element fits its own Q: Q_P ", *q_p.first, " .. ", *q_p.second,
                  ", Q_S ", *q_s.first, " .. ", *q_s.second, " over the grid)");
    }
    p.attenuation.push_back(std::move(line));
    if (material.attenuation->coarse_grained) check_coarse_solids(model, material);
  }
}

}  // namespace

Preflight preflight(const Model& whole, const RunOptions& options) {
  whole.validate();
  // With fluids, everything below but the fluid's set-up is the solid's.
  const std::shared_ptr<const Model> solid =
      whole.has_fluids() ? std::make_shared<const Model>(fem::solid_part(whole)) : nullptr;
  const Model& model = solid ? *solid : whole;
  TREMOR_CHECK(!solid || solid->mesh.n_elements() > 0, whole.source,
               ": the model has no solid element: a fluid runs coupled to a solid, whose receivers record it "
               "(docs/model-file.md, \"Fluids\")");
  Preflight p;
  std::string phase;  // the last phase completed
  try {
    p = resolve(model, options, phase, solid ? &whole : nullptr);
    p.solid = solid;
    if (solid) p.histories = std::make_shared<const std::vector<History>>(make_histories(whole, p.dt));
  } catch (const std::bad_alloc&) {
    const std::string by = memory::host_available().by;
    throw Error(str("out of host memory in the pre-flight", phase.empty() ? std::string() : str(", after '", phase, "'"),
                    "; ", by.empty() ? std::string("no limit known") : str("the process had ", by)));
  }
  // A decomposition's refusals, before a result file exists.
  TREMOR_CHECK(options.domains >= 1, "the number of subdomains must be at least 1, got ", options.domains);
  const int processes = options.communicator ? options.communicator->size() : 1;
  int domains = take_decomposition_file(p, whole, options, processes);
  p.processes = processes;
  p.threaded = options.communicator && options.communicator->threaded();
  p.exchange = parallel::parse_strategy(options.exchange);
  const std::size_t real_size = tremor::real_size(p.precision);
  const auto dim = static_cast<Size>(model.mesh.dim());
  const Size nnz = p.stiffness_entries * dim * dim;
  // The PML's term (explicit/pml.hpp): its elements made with the run's, its state after the operator.
  p.pml = pml_profile(whole);  // (the whole model's box and waves: a layer may line a fluid's face alone)
  p.pml.grid_step = p.stable_undamped;  // (the solid's: its layer's grid damping)
  const PmlBytes pml = pml_term_bytes(model, p.pml, real_size, memory_per_point(model));
  // The whole run's arrays with operator `op`, `decomposed` or on one domain.
  const auto bytes_of = [&](const op::OperatorEntry& op, bool decomposed) {
    const bool split = options.overlap && decomposed && op.splits && !op.needs_assembly;
    return estimate(model.mesh, op, nnz, real_size, p.assembly == sparse::RaceStrategy::Colouring, is_damped(model),
                    p.max_neighbours, p.geometry_values, split, p.backend != Backend::Cuda, model_betas(model),
                    memory_per_point(model), pml) +
           (op.moduli_per_point ? point_moduli_bytes(model, real_size) : 0) +
           snapshot_bytes(model, p.snapshot_every, real_size) + recorder_bytes(model, real_size);
  };
  const auto run_bytes = [&](const op::OperatorEntry& op) { return bytes_of(op, p.decomposed()); };
  const std::size_t fluid_bytes =
      p.fluid ? fluid_run_bytes(*p.fluid, real_size) + fluid_snapshot_bytes(*p.fluid, model, p.snapshot_every, real_size)
              : 0;
  // "auto" on a GPU: where the default's estimate does not fit the GPU's free memory, a kind that
  // does (op::AutoFallback). Under mpirun each process would decide alone, by its own GPU's memory,
  // so the default stays there; --gpus decides once, by the first GPU's.
  // The GPU's free memory, asked once: "auto" and the shots stepped together read it.
  std::optional<std::size_t> gpu_free;
  const std::function<std::size_t()> free_gpu_bytes = [&] {
    if (!gpu_free) gpu_free = memory_info(process_exec(p.backend, options, false)).free_bytes;
    return *gpu_free;
  };
  p.shots_parallel = choose_shots_parallel(p, whole, options, bytes_of(*p.op, false) + fluid_bytes, free_gpu_bytes);
  if (processes > 1) domains = p.shots_parallel ? 1 : processes;  // the whole model, or a subdomain, each
  if (domains > 1) {
    TREMOR_CHECK(domains <= model.mesh.n_elements(), domains, " subdomains were asked for a mesh of ",
                 model.mesh.n_elements(), " elements: at most one subdomain per element");
    TREMOR_CHECK(p.blocks.empty() && !p.op->whole_mesh_only,
                 "the partitioned operator runs on one domain: its block layout is made for the whole mesh");
    TREMOR_CHECK(p.ordering == NodeOrdering::None, "--ordering rcm renumbers one domain; a run decomposed into ",
                 domains, " subdomains numbers each subdomain's nodes itself (owned first, shared last)");
  }
  if (p.fluid) {
    // A shot's loads replace the last on the same constraints: a piston driven by pressure holds
    // its nodes only when it fires.
    if (!whole.shots.empty())
      for (const Transducer& t : whole.transducers)
        TREMOR_CHECK(t.mode != Transducer::Mode::Piston || t.drive != Transducer::Drive::Pressure,
                     t.origin.empty() ? whole.source : t.origin, ": piston '", t.name,
                     "' is driven by pressure, which holds the fluid at its nodes only when it fires: in a model "
                     "with shots, drive pistons by velocity");
  }
  p.domains = domains;
  // Each process holds its subdomain's arrays, about its share of the whole run's (METIS balances
  // the elements to a few percent; the shared nodes are a thin layer), or side by side the whole.
  const auto shares = static_cast<std::size_t>(p.shots_parallel ? 1 : std::max(processes, 1));
  if (p.operator_auto && p.backend == Backend::Cuda && (processes == 1 || p.threaded)) {
    const std::size_t free_bytes = free_gpu_bytes();
    op::AutoChoice choice = operators().choose_auto(
        p.backend, model.mesh, options.deterministic, free_bytes,
        [&](const op::OperatorEntry& op) { return run_bytes(op) / shares; }, memory_per_point(model) > 0);
    p.op = choice.entry;
    p.operator_why = std::move(choice.reason);
    if (!choice.fits)
      warn(p, str("operator auto: ", p.operator_why, " (estimates): the run may run out of GPU memory; decompose "
                  "the model (--gpus N, mpirun -np N) or run a smaller one"));
  }
  describe_attenuation(p, model);
  if (!p.attenuation.empty())
    check_memory_variables(*p.op, model,
                           options.operator_kind.empty() && model.explicit_settings
                               ? model.explicit_settings->operator_origin
                               : std::string());
  p.pml_layers = describe_pml(whole, p.pml);
  if (p.fluid && p.fluid->pml.any())  // (the fluid's d0 from its own sound speed: FluidSetup::pml)
    for (const std::string& line : describe_pml(whole, p.fluid->pml)) p.pml_layers.push_back(str(line, ", in the fluid"));
  check_pml_frequency(p, model);
  warn_inside_pml(p, model);
  warn_pml_growth(p, model);
  warn_pml_anisotropy(p, model);
  warn_quadratic_lumping(p, model);
  // Stiffness-proportional damping applies its K to every element before the exchange starts:
  // nothing would be left to overlap it with (stiffness_damping.hpp).
  // A PML's forces, and a fluid's traction C p, join K u's before the exchange: an operator split
  // by rows would overwrite the interior rows' share after it (the element-by-element kinds add
  // theirs).
  p.overlap = options.overlap && p.decomposed() && p.op->splits && !(largest_beta(model) > 0.0) &&
              !((p.pml.any() || p.fluid) && p.op->needs_assembly);
  // One domain's K is built as one array of 32-bit indices (the two-kernel assembly, nodal-block
  // CSR in double): refused before any of it is made. A decomposed run builds each subdomain's.
  TREMOR_CHECK(!p.op->needs_assembly || nnz <= Size(2147483647) || p.decomposed(), "the ",
               p.op->name, " operator assembles K, whose ", nnz, " entries (", p.stiffness_entries,
               " node pairs x ", dim * dim, ") exceed the 2^31 - 1 one array holds: decompose the model (--gpus N, ",
               "mpirun -np N or --domains N: each subdomain holds its part of K), or use an element-by-element "
               "operator (matrix_free; sem on GLL meshes)");
  // A block file made for another mesh (or torn, or not one) is refused before the run.
  if (!p.blocks.empty()) (void)partition::read_block_file(p.blocks, node_graph(model.mesh));
  prefer_a_kind_for_shots(p, whole, model.mesh, options, nnz <= Size(2147483647), run_bytes, free_gpu_bytes);
  // The whole run's arrays, and first the pre-flight's survey of the whole model, counted.
  std::size_t run = run_bytes(*p.op) + fluid_bytes;
  const ShotBytes shot = shot_state_bytes(p, model, nnz, real_size, pml);
  run += choose_shots_together(p, whole, options, run, real_size, shot.state, shot.once, free_gpu_bytes);
  // On a GPU the split operator's first part runs on the exchange's stream beside the terms' forces
  // and the interior's apply: where a batch's shots are applied or added one by one (an operator
  // that does not fuse them, memory variables, a PML's term, a fluid's traction), each shot's values
  // gathered and written back whole would meet its atomic adds and the shared rows' sums there.
  if (p.overlap && p.shots_together > 1 && p.backend == Backend::Cuda &&
      (!p.op->fuses(model.mesh, p.assembly == sparse::RaceStrategy::Colouring) || !applied_one_by_one(p).empty() ||
       p.fluid))
    p.overlap = false;
  p.process_memory_bytes = std::max(run / shares, p.survey_peak_bytes);
  p.memory_bytes = p.shots_parallel ? p.process_memory_bytes * static_cast<std::size_t>(processes)
                                    : std::max(run, p.survey_peak_bytes * shares);
  // The host: a host backend's arrays, and the copies the set-up makes there (the section table and
  // colour lists, 28 B per element; the model in another numbering, or in subdomains, a copy of
  // the mesh).
  std::size_t mesh_bytes = static_cast<std::size_t>(model.mesh.n_nodes()) *
                           (static_cast<std::size_t>(model.mesh.dim()) * sizeof(double) + sizeof(Label));
  for (const ElementBlock& block : model.mesh.blocks) mesh_bytes += block.connectivity.size() * sizeof(Index);
  p.host_bytes = (p.backend == Backend::Cuda ? 0 : p.process_memory_bytes) +
                 static_cast<std::size_t>(model.mesh.n_elements()) * 28 +
                 (p.ordering == NodeOrdering::Rcm || p.domains > 1 ? mesh_bytes / shares : 0);
  refuse_beyond_host(p.host_bytes, p.backend == Backend::Cuda ? "the run's set-up on the host"
                                                               : str("the run's arrays (", to_string(p.backend), ")"));
  return p;
}

ExplicitRun run_explicit(const Model& model, const RunOptions& options, Observer* observer) {
  const auto called = Clock::now();
  Preflight p;
  // The caller's pre-flight, or this call's: the same settings, decomposition and checks.
  p = options.preflight ? *options.preflight : preflight(model, options);
  // The run's Exec, whose account counts this run's arrays only: the memory it reports. Over
  // several processes on a host with several GPUs, each takes the GPU of its place on the host
  // (local rank modulo the GPUs), on a stream of its own, which NCCL's internal streams do not
  // synchronise with as they do with the default stream (the overlap needs the exchange's side
  // stream to run beside it). With a fluid on a GPU, a stream of its own whose priority the
  // fluid's term sets per step (solid_stream_priority).
  const Exec exec = process_exec(p.backend, options, true, solid_stream_priority(p.fluid != nullptr));
  const MemorySpace space = exec.space();
  std::string phase;  // the last set-up phase completed
  const std::size_t estimated = p.process_memory_bytes, host_estimated = p.host_bytes, survey = p.survey_peak_bytes;
  try {
    // (A model with fluids sets up its solid, which steps its fluid as a term.)
    const Model& solid = p.solid ? *p.solid : model;
    ExplicitRun run = p.precision == Precision::Float
                          ? run_typed<float>(exec, solid, p, options, observer, called, phase)
                          : run_typed<double>(exec, solid, p, options, observer, called, phase);
    // What the pre-flight's survey held counts too: the estimate covers it.
    run.exec_peak_bytes = std::max(run.exec_peak_bytes, survey);
    return run;
  } catch (const std::bad_alloc&) {
    const memory::HostAvailable available = memory::host_available();
    throw Error(str("out of host memory while setting up the run",
                    phase.empty() ? std::string(", at its start") : str(", after '", phase, "'"),
                    "; the pre-flight estimated ", si(static_cast<double>(host_estimated)), "B on the host",
                    space == MemorySpace::Device ? str(" and ", si(static_cast<double>(estimated)), "B on the GPU")
                                                 : std::string(),
                    "; tremor's arrays held ", si(static_cast<double>(exec.account().usage(MemorySpace::Host).current)),
                    "B of it", available.known() ? str("; ", available.by) : std::string()));
  }
}

}  // namespace tremor::explicit_fe
