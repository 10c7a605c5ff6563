#include "tremor/bench/fluid.hpp"

#include <cstdio>
#include <memory>
#include <sstream>
#include <utility>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/bench/report.hpp"
#include "tremor/bench/timing.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/central_difference.hpp"
#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/explicit/subdomain.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/source.hpp"

namespace tremor::bench {

namespace {

struct Filling {
  const char* name;
  int steel_layers;  // elements of steel from the bottom; the rest water (all: no water)
};

struct Row {
  long long side = 0;
  std::string filling;
  Index nodes = 0, fluid_nodes = 0, interface_nodes = 0;  // fluid_nodes: those no steel element holds
  double step_seconds = 0.0, node_seconds = 0.0;          // a step; a fluid (or, solid: a solid) node's share
  double coupling_seconds = 0.0;  // the coupling's two passes a step, timed alone (with fluids)
  double operator_seconds = 0.0;  // the fluid's stiffness operator, K_f chi added by atomics, timed alone
  double update_seconds = 0.0;    // the fluid's update (CentralDifference::advance) writing no p (the run's
                                  // where p is read at few nodes: computed apart, with C p, not timed)
  double everywhere_seconds = 0.0;  // the same writing p at every node
  double coloured_seconds = 0.0;  // the same colour by colour
  double stored_seconds = 0.0;    // the run's way (atomics on a GPU) with the factors stored per point
  Index inner_stepped = 0;        // the fluid's nodes whose step K_f's kernels take (FluidTerm's, no receiver)
  double plain_step_seconds = 0.0;  // a step of the same run with every node stepped by the update
  double plain_node_seconds = 0.0;
  double run_operator_seconds = 0.0, run_update_seconds = 0.0;  // FluidTerm's K_f and update, taking them so
  double late_step_seconds = 0.0;  // a step of the same run with the fluid waiting for the solid's update
  double late_node_seconds = 0.0;
};

// The box `n` elements a side of 1 mm GLL hexahedra of order `order`, its lowest `steel_layers`
// layers steel and the rest water, a Ricker force at the bottom's centre.
Model box(long long n, int order, int steel_layers, const FluidArgs& args) {
  Model model;
  model.source = str("tremor bench fluid ", n);
  const auto cells = static_cast<Size>(n);
  const double side = 1e-3 * static_cast<double>(n);
  model.mesh = generate_box({0.0, 0.0, 0.0}, {side, side, side}, {cells, cells, cells}, ElementType::HexGLL, order);
  const ElementBlock& block = model.mesh.blocks.front();
  // The sets by the elements' centres before any shear.
  for (Index e = 0; e < block.n_elements(); ++e) {
    double z = 0.0;  // the element's centre, by its nodes
    for (const Index node : block.nodes(e)) z += model.mesh.node(node)[2];
    z /= static_cast<double>(block.nodes(e).size());
    model.mesh.element_sets[z < 1e-3 * steel_layers ? "steel" : "water"].push_back(e);
  }
  if (args.shape == "trilinear")  // each coordinate moved by up to a tenth of an element: bilinear in the others
    for (Index i = 0; i < model.mesh.n_nodes(); ++i) {
      double* x = model.mesh.coordinates.data() + static_cast<std::size_t>(i) * 3;
      const double u = x[0] / side, v = x[1] / side, w = x[2] / side;
      x[0] += 1e-4 * v * w;
      x[1] += 1e-4 * u * w;
      x[2] += 1e-4 * u * v;
    }
  model.materials.push_back(Material::from_youngs("steel", 210e9, 0.3, 7850.0));
  model.materials.push_back(Material::from_sound_speed("water", 1480.0, 1000.0));
  model.sections.push_back({"steel", "steel", Formulation::Solid, 1.0});
  if (steel_layers < n) model.sections.push_back({"water", "water", Formulation::Solid, 1.0});
  PointSource force;
  force.direction = {0.0, 0.0, 1.0};
  force.signal = Signal::ricker(2e5);  // (resolved at order 2: no warning in the way)
  force.origin = "bench";
  const double centre[] = {0.5 * side, 0.5 * side, 0.0};
  force.nodes = {nearest_node(model.mesh, centre)};
  model.point_sources.push_back(force);
  ExplicitSettings settings;
  settings.precision = args.precision;
  settings.duration = 1.0;  // replaced by the steps asked for, at the run's own step
  model.explicit_settings = settings;
  model.validate();
  return model;
}

// `work` done `steps` times between two synchronisations of exec: seconds each, the median of five
// such runs after a first.
template <class Work>
double seconds_each(const Exec& exec, int steps, Work&& work) {
  const auto run = [&] {
    exec.synchronize();
    const auto start = Clock::now();
    for (int s = 0; s < steps; ++s) work();
    exec.synchronize();
    return seconds_since(start);
  };
  return median(warm_then_time(5, 0.0, run)) / steps;
}

// Parts of a step with fluids timed alone on the run's Exec, set up as the run sets them up: the
// coupling's two passes over the interface's rows (FluidTerm's add_solid_motion and
// add_fluid_traction), and the fluid's stiffness operator (K_f chi added, FluidOperator) by atomics,
// colour by colour and with its factors stored per point. Their cost does not depend on the values
// (zeros here).
template <class Real>
void time_parts(const Model& model, const explicit_fe::Preflight& p, int steps, Row& row) {
  const Exec exec = Exec::make(p.backend);
  const explicit_fe::FluidSetup& fluid = *p.fluid;
  const bool atomic = p.assembly == sparse::RaceStrategy::Atomics;
  {
    const explicit_fe::Numbering numbering = explicit_fe::one_domain_numbering(*p.solid, p);
    const explicit_fe::FluidTerm<Real> term(exec, fluid, numbering, explicit_fe::fluid_loading(model, fluid.mesh), {},
                                            p.dt, atomic);
    const Index n_solid = numbering.n_local_nodes() * numbering.dim();
    DeviceArray<Real> u(exec, n_solid), forces(exec, n_solid), fluid_forces(exec, fluid.mesh.n_nodes());
    fill_zero(exec, u.data(), u.size());
    fill_zero(exec, forces.data(), forces.size());
    fill_zero(exec, fluid_forces.data(), fluid_forces.size());
    row.coupling_seconds = seconds_each(exec, steps, [&] {
      term.add_solid_motion(std::as_const(u).view(), fluid_forces.view());
      term.add_fluid_traction(forces.view());
    });
  }
  {  // K_f and the update as the run's FluidTerm has them: the inner nodes' steps in K_f's kernels
    explicit_fe::FluidTerm<Real> term(exec, fluid, explicit_fe::one_domain_numbering(*p.solid, p),
                                      explicit_fe::fluid_loading(model, fluid.mesh), {}, p.dt, atomic);
    row.inner_stepped = term.inner_nodes_stepped();
    row.run_operator_seconds = seconds_each(term.work_exec(), steps, [&] { term.time_operator(); });
    row.run_update_seconds = seconds_each(term.work_exec(), steps, [&] { term.time_update(); });
  }
  // The operator by atomics where the run adds by atomics on a GPU, and colour by colour (the
  // run's way with --deterministic, and the host's).
  const auto elements = std::make_shared<const fem::DeviceElements>(exec, fluid.mesh.model.mesh, fluid.mesh.table,
                                                                     fem::colour_elements(fluid.mesh.model.mesh));
  DeviceArray<Real> chi(exec, fluid.mesh.n_nodes()), f(exec, fluid.mesh.n_nodes());
  fill_zero(exec, chi.data(), chi.size());
  fill_zero(exec, f.data(), f.size());
  for (const bool by_atomics : {false, true}) {
    if (by_atomics && !(atomic && exec.space() == MemorySpace::Device)) continue;
    const explicit_fe::FluidOperator<Real> K(exec, elements, by_atomics);
    const double seconds = seconds_each(exec, steps, [&] { K.add(std::as_const(chi).view(), f.view()); });
    (by_atomics ? row.operator_seconds : row.coloured_seconds) = seconds;
  }
  {  // the fluid's update as FluidTerm's (undamped: no layer in the box): p computed where it is read
     // (the interface, the receivers) apart, or written by the update at every node
    const explicit_fe::FluidOperator<Real> K(exec, elements, atomic);
    explicit_fe::CentralDifference<Real> scheme(exec, K, fluid.mass, fluid.damping, p.dt, {}, 1);
    DeviceArray<Real> pressure(exec, fluid.mesh.n_nodes());
    row.update_seconds = seconds_each(exec, steps, [&] { scheme.advance({}, {}, {}, {}); });
    row.everywhere_seconds = seconds_each(exec, steps, [&] { scheme.advance({}, {}, {}, {}, pressure.view()); });
  }
  // The run's way with every factor stored per point (6 a point), against the kernels' own
  // geometry (per element on a box, the vertices on a trilinear one).
  const explicit_fe::FluidOperator<Real> stored(exec, elements, atomic, sem::Geometry::Stored);
  row.stored_seconds = seconds_each(exec, steps, [&] { stored.add(std::as_const(chi).view(), f.view()); });
}

Row measure(long long n, const Filling& filling, const FluidArgs& args) {
  const int layers = filling.steel_layers < 0 ? static_cast<int>(n) : filling.steel_layers;
  const Model model = box(n, args.order, layers, args);
  explicit_fe::RunOptions options;
  options.backend = args.backend;
  options.check_every = args.steps;
  // One pre-flight (its Lanczos is seconds on a large box): the steps re-planned at its dt, then
  // given to the run.
  explicit_fe::Preflight p = explicit_fe::preflight(model, options);
  options.duration = p.dt * static_cast<double>(args.steps);
  explicit_fe::plan_steps(p, model, options);
  options.preflight = &p;
  const explicit_fe::ExplicitRun run = explicit_fe::run_explicit(model, options);
  TREMOR_CHECK(run.ok(), "bench fluid: the ", filling.name, " box of ", n, "^3 elements: ", run.message);
  TREMOR_CHECK(run.dof_steps_per_second > 0.0, "bench fluid: the ", filling.name, " box of ", n,
               "^3 elements ran its ", args.steps, " steps in no measurable time: ask for more (--steps)");
  Row row;
  row.side = n;
  row.filling = filling.name;
  row.nodes = model.mesh.n_nodes();
  const Index plane = (static_cast<Index>(n) * args.order + 1) * (static_cast<Index>(n) * args.order + 1);
  const Index steel_planes = static_cast<Index>(layers) * args.order + 1;
  row.fluid_nodes = layers < n ? row.nodes - steel_planes * plane : 0;
  row.interface_nodes = layers < n ? plane : 0;
  row.step_seconds = static_cast<double>(p.n_dofs) / run.dof_steps_per_second;
  if (p.fluid) {
    // The same run with one of the pre-flight's switches off: a step's seconds.
    const auto step_without = [&](bool explicit_fe::Preflight::* option, const char* what) {
      p.*option = false;
      const explicit_fe::ExplicitRun other = explicit_fe::run_explicit(model, options);
      p.*option = true;
      TREMOR_CHECK(other.ok() && other.dof_steps_per_second > 0.0, "bench fluid: the ", filling.name, " box of ", n,
                   "^3 elements, ", what, ": ", other.message);
      return static_cast<double>(p.n_dofs) / other.dof_steps_per_second;
    };
    using explicit_fe::Preflight;
    row.plain_step_seconds = step_without(&Preflight::fluid_inner_steps, "its inner nodes stepped by the update");
    row.late_step_seconds = step_without(&Preflight::fluid_leads, "the fluid waiting for the solid's update");
  }
  if (p.fluid) {
    if (p.precision == Precision::Float)
      time_parts<float>(model, p, args.steps, row);
    else
      time_parts<double>(model, p, args.steps, row);
  }
  return row;
}

}  // namespace

void run_fluid(const FluidArgs& args) {
  TREMOR_CHECK(args.order >= 1 && args.order <= 8, "bench fluid: GLL order ", args.order, "; expected 1 to 8");
  TREMOR_CHECK(args.steps >= 1, "bench fluid: steps must be at least 1");
  if (!args.output_dir.empty()) make_output_dir(args.output_dir);
  RunRecord record(args.commit, args.note);
  TREMOR_CHECK(args.shape == "box" || args.shape == "trilinear", "bench fluid: shape '", args.shape,
               "'; expected box or trilinear");
  std::printf("bench fluid: boxes (%s) of GLL hexahedra of order %d, %s, backend %s, %d steps a run\n",
              args.shape.c_str(), args.order, args.precision.c_str(), args.backend.c_str(), args.steps);
  std::vector<Row> rows;
  for (const long long n : args.sizes) {
    TREMOR_CHECK(n >= 2, "bench fluid: a box of ", n, " elements a side; at least 2");
    const Filling fillings[] = {{"solid", -1}, {"mixed", static_cast<int>(n / 2)}, {"water", 1}};
    double solid_node = 0.0;
    for (const Filling& filling : fillings) {
      Row row = measure(n, filling, args);
      if (row.fluid_nodes == 0) {  // the first run of a size: once more, the faster kept (a cold start's cost out)
        const Row again = measure(n, filling, args);
        if (again.step_seconds < row.step_seconds) row = again;
      }
      if (row.fluid_nodes == 0) {
        solid_node = row.step_seconds / static_cast<double>(row.nodes);
        row.node_seconds = solid_node;
      } else {
        // (a step less its solid nodes at the solid's cost, over the fluid's own nodes)
        const auto per_fluid_node = [&](double step) {
          return (step - solid_node * static_cast<double>(row.nodes - row.fluid_nodes)) /
                 static_cast<double>(row.fluid_nodes);
        };
        row.node_seconds = per_fluid_node(row.step_seconds);
        row.plain_node_seconds = per_fluid_node(row.plain_step_seconds);
        row.late_node_seconds = per_fluid_node(row.late_step_seconds);
      }
      rows.push_back(row);
    }
  }
  record.finish();
  std::ostringstream json, md;
  json << "{\n  \"benchmark\": \"fluid\"";
  record.json_provenance(json);
  record.json_machine(json);
  json << ",\n  \"order\": " << args.order << ",\n  \"precision\": " << json_string(args.precision)
       << ",\n  \"backend\": " << json_string(args.backend) << ",\n  \"shape\": " << json_string(args.shape)
       << ",\n  \"steps\": " << args.steps << ",\n  \"cases\": [";
  md << "# A fluid node's cost per step (" << args.precision << ", GLL order " << args.order << ", " << args.shape
     << ")\n\n"
     << "Date " << record.date << ", commit " << record.commit << ", backend " << args.backend
     << ". A box of 1 mm GLL hexahedra: all steel (solid), steel below half its height under water (mixed), one "
        "element of steel under water (water). A step from the time loop's rate; a node's cost: the solid run's "
        "step over its nodes, or a run's step less its solid nodes at that cost over its fluid's own nodes. The "
        "coupling: its two passes over the interface (C^T u into the fluid, C p into the solid) timed alone, a step's, "
        "and their share of the run's step; the fluid's operator (K_f chi) timed alone, a step's, adding by atomics (the "
        "run's way on a GPU) and colour by colour (with --deterministic, and on the host), and the run's way with its "
        "factors stored per point; the fluid's update (its central difference) timed alone, writing no pressure (the "
        "run's way where few nodes read it: it computes it apart, at the interface with C p) and writing it at every "
        "node; both as the run's fluid has them, the step of the nodes that one element alone holds taken by its "
        "kernel (their count, without receivers) and the update skipping them; and the run's step with every fluid "
        "node stepped by the update in the same call, side by side; and the run's step with the fluid waiting for "
        "the solid's update before its K_f, where it leads (FluidTerm::leads).\n\n"
     << "| box | filling | nodes | fluid nodes | interface nodes | us a step | ps a node | fluid / solid node | "
        "coupling us | coupling / step | fluid operator us, atomics | colours | stored per point | fluid update us | "
        "writing p everywhere | nodes stepped in K_f | K_f so us | update so us | us a step, every node by the update | "
        "fluid / solid node so | us a step, the fluid waiting for the solid's update | fluid / solid node so |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::printf("\n%-8s %-7s %12s %12s %10s %12s %10s %8s %11s %9s %11s %11s %11s %11s %11s %12s %11s %11s %11s %8s"
              " %11s %8s\n",
              "box", "filling", "nodes", "fluid", "interface", "us a step", "ps a node", "f / s", "coupling us",
              "coupling", "operator us", "colours us", "stored us", "update us", "p at all us", "stepped in K",
              "K so us", "update so", "step so us", "f / s so", "late us", "f / s");
  double solid_node = 0.0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (r.fluid_nodes == 0) solid_node = r.node_seconds;
    const std::string ratio = r.fluid_nodes > 0 ? fixed(r.node_seconds / solid_node, 2) : "-";
    const std::string coupling = r.fluid_nodes > 0 ? fixed(r.coupling_seconds * 1e6, 2) : "-";
    const std::string share = r.fluid_nodes > 0 ? fixed(100.0 * r.coupling_seconds / r.step_seconds, 1) + "%" : "-";
    const std::string op = r.fluid_nodes > 0 && r.operator_seconds > 0.0 ? fixed(r.operator_seconds * 1e6, 2) : "-";
    const std::string coloured = r.fluid_nodes > 0 ? fixed(r.coloured_seconds * 1e6, 2) : "-";
    const std::string stored = r.fluid_nodes > 0 ? fixed(r.stored_seconds * 1e6, 2) : "-";
    const std::string update = r.fluid_nodes > 0 ? fixed(r.update_seconds * 1e6, 2) : "-";
    const std::string everywhere = r.fluid_nodes > 0 ? fixed(r.everywhere_seconds * 1e6, 2) : "-";
    const std::string stepped = r.fluid_nodes > 0 ? group_digits(r.inner_stepped) : "-";
    const std::string run_op = r.fluid_nodes > 0 ? fixed(r.run_operator_seconds * 1e6, 2) : "-";
    const std::string run_update = r.fluid_nodes > 0 ? fixed(r.run_update_seconds * 1e6, 2) : "-";
    const std::string plain = r.fluid_nodes > 0 ? fixed(r.plain_step_seconds * 1e6, 1) : "-";
    const std::string plain_ratio = r.fluid_nodes > 0 ? fixed(r.plain_node_seconds / solid_node, 2) : "-";
    const std::string late = r.fluid_nodes > 0 ? fixed(r.late_step_seconds * 1e6, 1) : "-";
    const std::string late_ratio = r.fluid_nodes > 0 ? fixed(r.late_node_seconds / solid_node, 2) : "-";
    json << (i ? "," : "") << "\n    {\"side\": " << r.side << ", \"filling\": " << json_string(r.filling)
         << ", \"nodes\": " << r.nodes << ", \"fluid_nodes\": " << r.fluid_nodes
         << ", \"interface_nodes\": " << r.interface_nodes << ", \"step_microseconds\": " << fixed(r.step_seconds * 1e6, 3)
         << ", \"node_picoseconds\": " << fixed(r.node_seconds * 1e12, 2)
         << ", \"coupling_microseconds\": " << fixed(r.coupling_seconds * 1e6, 3)
         << ", \"fluid_operator_microseconds\": " << fixed(r.operator_seconds * 1e6, 3)
         << ", \"fluid_operator_coloured_microseconds\": " << fixed(r.coloured_seconds * 1e6, 3)
         << ", \"fluid_operator_stored_microseconds\": " << fixed(r.stored_seconds * 1e6, 3)
         << ", \"fluid_update_microseconds\": " << fixed(r.update_seconds * 1e6, 3)
         << ", \"fluid_update_pressure_everywhere_microseconds\": " << fixed(r.everywhere_seconds * 1e6, 3)
         << ", \"inner_nodes_stepped\": " << r.inner_stepped
         << ", \"fluid_operator_inner_steps_microseconds\": " << fixed(r.run_operator_seconds * 1e6, 3)
         << ", \"fluid_update_inner_apart_microseconds\": " << fixed(r.run_update_seconds * 1e6, 3)
         << ", \"step_inner_by_update_microseconds\": " << fixed(r.plain_step_seconds * 1e6, 3)
         << ", \"node_inner_by_update_picoseconds\": " << fixed(r.plain_node_seconds * 1e12, 2)
         << ", \"step_fluid_waiting_microseconds\": " << fixed(r.late_step_seconds * 1e6, 3)
         << ", \"node_fluid_waiting_picoseconds\": " << fixed(r.late_node_seconds * 1e12, 2) << "}";
    md << "| " << r.side << "^3 | " << r.filling << " | " << group_digits(r.nodes) << " | " << group_digits(r.fluid_nodes)
       << " | " << group_digits(r.interface_nodes) << " | " << fixed(r.step_seconds * 1e6, 1) << " | "
       << fixed(r.node_seconds * 1e12, 1) << " | " << ratio << " | " << coupling << " | " << share << " | " << op
       << " | " << coloured << " | " << stored << " | " << update << " | " << everywhere << " | " << stepped << " | "
       << run_op << " | " << run_update << " | " << plain << " | " << plain_ratio << " | " << late << " | "
       << late_ratio << " |\n";
    std::printf("%5lld^3 %-7s %12s %12s %10s %12.1f %10.1f %8s %11s %9s %11s %11s %11s %11s %11s %12s %11s %11s"
                " %11s %8s %11s %8s\n",
                r.side,
                r.filling.c_str(), group_digits(r.nodes).c_str(), group_digits(r.fluid_nodes).c_str(), group_digits(r.interface_nodes).c_str(),
                r.step_seconds * 1e6, r.node_seconds * 1e12, ratio.c_str(), coupling.c_str(), share.c_str(), op.c_str(),
                coloured.c_str(), stored.c_str(), update.c_str(), everywhere.c_str(), stepped.c_str(), run_op.c_str(),
                run_update.c_str(), plain.c_str(), plain_ratio.c_str(), late.c_str(), late_ratio.c_str());
  }
  json << "\n  ]\n}\n";
  if (!args.output_dir.empty()) write_report_to(args.output_dir, "fluid", json.str(), md.str());
}

}  // namespace tremor::bench
