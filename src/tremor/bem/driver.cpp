#include "tremor/bem/driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <numbers>
#include <utility>

#include <unistd.h>

#include "tremor/backend/memory_info.hpp"
#include "tremor/bem/generate.hpp"
#include "tremor/bem/interior.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/log.hpp"

namespace tremor::bem {

namespace {

std::string point_text(const std::array<double, 3>& p) {
  return str("(", number(p[0]), ", ", number(p[1]), ", ", number(p[2]), ")");
}

// "interior point 3 (line at m.toml:20, point 2 of 10) at (x, y, z)".
std::string describe_point(const BemProblem& problem, std::size_t k) {
  for (const BemPointGroup& group : problem.point_groups)
    if (k >= group.first && k < group.first + group.count)
      return str("interior point ", k + 1, " (", group.kind == "points" ? "'points'" : group.kind, " at ", group.origin,
                 ", ", k - group.first + 1, " of ", group.count, ") at ", point_text(problem.interior_points[k]));
  return str("interior point ", k + 1, " at ", point_text(problem.interior_points[k]));
}

// Refuses interior points on the boundary or on the wrong side of it (interior.hpp): the
// representation u(p) = G t - H u holds inside the solid only (elsewhere it gives 0, or a
// meaningless field above an open surface).
void check_interior_points(const BemProblem& problem, const BoundaryMesh& mesh, Solid solid, double diagonal) {
  const std::vector<PointLocation> located = locate_points(mesh, problem.interior_points);
  for (std::size_t k = 0; k < located.size(); ++k) {
    const Index label = mesh.element_labels[static_cast<std::size_t>(located[k].nearest)];
    // Rounding of coordinates given in decimal: a point meant to be on the surface.
    if (located[k].distance <= 1e-9 * diagonal)
      throw Error(str(describe_point(problem, k), " lies on the boundary (element ", label,
                      "): interior points must lie inside the solid, off its surface"));
    if (!in_solid(located[k].winding, solid))
      throw Error(str(describe_point(problem, k), " lies outside the solid (",
                      solid == Solid::Inside    ? "outside the body's surface"
                      : solid == Solid::Outside ? "inside the cavity"
                                                : "on the side the normals point to",
                      "; the nearest element is ", label, "): displacements are computed inside the solid only"));
  }
}

ElementConditions translate_conditions(const BemProblem& problem, const BoundaryMesh& mesh) {
  const Index ne = mesh.n_elements();
  ElementConditions out;
  out.values.kind.assign(3 * static_cast<std::size_t>(ne), Prescribed::Traction);
  out.values.value.assign(3 * static_cast<std::size_t>(ne), Complex());
  out.prescribed.assign(3 * static_cast<std::size_t>(ne), 0);
  out.pressure.assign(static_cast<std::size_t>(ne), std::nullopt);
  std::vector<int> owner(static_cast<std::size_t>(ne), -1);
  for (std::size_t b = 0; b < problem.boundary.size(); ++b) {
    const BemBoundaryCondition& condition = problem.boundary[b];
    const auto found = mesh.element_sets.find(condition.element_set);
    TREMOR_CHECK(found != mesh.element_sets.end(), condition.origin, ": the mesh has no element set '",
                 condition.element_set, "'");
    const std::vector<Index>& members = found->second;
    for (const Index e : members) {
      int& o = owner[static_cast<std::size_t>(e)];
      if (o >= 0)
        throw Error(str(condition.origin, ": element ", mesh.element_labels[static_cast<std::size_t>(e)],
                        " already has a boundary condition, from set '",
                        problem.boundary[static_cast<std::size_t>(o)].element_set, "' (",
                        problem.boundary[static_cast<std::size_t>(o)].origin,
                        "); each element takes its condition from one set"));
      o = static_cast<int>(b);
      const ElementGeometry g = element_geometry(mesh, e);
      if (condition.pressure)
        out.pressure[static_cast<std::size_t>(e)] = Complex(condition.pressure->real(), condition.pressure->imag());
      for (int c = 0; c < 3; ++c) {
        const std::size_t k = 3 * static_cast<std::size_t>(e) + static_cast<std::size_t>(c);
        std::complex<double> value = 0.0;
        Prescribed kind = Prescribed::Traction;
        if (condition.pressure) {
          value = -(*condition.pressure) * g.normal[static_cast<std::size_t>(c)];  // t = -p n
        } else if (const auto& component = condition.components[static_cast<std::size_t>(c)]) {
          value = component->value;
          if (component->kind == BemPrescribed::Displacement) kind = Prescribed::Displacement;
        }
        out.values.kind[k] = kind;
        out.values.value[k] = Complex(value.real(), value.imag());
        out.prescribed[k] = kind == Prescribed::Displacement ? 1 : 0;
      }
    }
    out.set_sizes.push_back(static_cast<Index>(members.size()));
    if (condition.prescribes_displacement()) {
      out.force_sets.push_back(condition.element_set);
      out.force_members.push_back(members);
      std::array<std::complex<double>, 3> u{};
      for (int c = 0; c < 3; ++c) {
        const auto& component = condition.components[static_cast<std::size_t>(c)];
        const bool given = component && component->kind == BemPrescribed::Displacement;
        u[static_cast<std::size_t>(c)] = given ? component->value : std::complex<double>(std::nan(""), 0.0);
      }
      out.set_displacement.push_back(u);
    }
  }
  out.n_free = static_cast<Index>(std::count(owner.begin(), owner.end(), -1));
  return out;
}

// H and G (9 n^2 values each) must fit one array: refused naming the mesh and what would fit.
void check_fits(const BoundaryMesh& mesh, const BemMeshSource& source, ElementOrder order, Index n_nodes) {
  try {
    check_node_count(n_nodes);
  } catch (const Error& e) {
    const bool linear = order != ElementOrder::Constant;
    const Index n_constant = mesh.n_elements();
    bool constant_fits = true;
    try {
      check_node_count(n_constant);
    } catch (const Error&) {
      constant_fits = false;
    }
    throw Error(str(source.origin, ": ", mesh.source, ": ", group_digits(mesh.n_elements()),
                    order == ElementOrder::Quadratic ? " quadratic elements have "
                    : linear                         ? " linear elements have "
                                                     : " constant elements have ",
                    group_digits(n_nodes),
                    " collocation nodes, too many for the dense solver: ", e.what(),
                    "; use the hierarchical matrix (solver = \"hmatrix\" or \"auto\" in [bem], --solver hmatrix), ",
                    linear && constant_fits ? str("constant elements (--elements constant or elements = "
                                                  "\"constant\" in [bem]: ",
                                                  group_digits(n_constant), " nodes) or a coarser mesh")
                                            : std::string("or a coarser mesh")));
  }
}

std::vector<std::complex<double>> complex_of(const std::vector<Complex>& values) {
  std::vector<std::complex<double>> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = {values[i].re, values[i].im};
  return out;
}

// The machine's memory (0 where the system does not say).
double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && size > 0 ? static_cast<double>(pages) * static_cast<double>(size) : 0.0;
}

// Thrown from the per-frequency callback when the Observer asked to stop.
struct Stopped {};

}  // namespace

Observer::~Observer() = default;

BoundaryMesh build_boundary_mesh(const BemMeshSource& source, BemElements elements) {
  const SurfaceElements shape(
      source.shape == BemElementShape::Triangle ? ElementShape::Triangle : ElementShape::Quadrilateral,
      source.order.value_or(elements == BemElements::Quadratic ? 2 : 1), source.serendipity);
  BoundaryMesh mesh;
  try {
    switch (source.kind) {
      case BemMeshKind::File: mesh = boundary_mesh(source.surface, source.path); break;
      case BemMeshKind::Sphere: mesh = sphere(source.sphere.radius, source.sphere.divisions, shape); break;
      case BemMeshKind::Box:
        mesh = box(source.box.size[0], source.box.size[1], source.box.size[2], source.box.divisions[0],
                   source.box.divisions[1], source.box.divisions[2], shape);
        break;
      case BemMeshKind::Halfspace:
        mesh = halfspace_patch(source.halfspace.size[0], source.halfspace.size[1], source.halfspace.divisions[0],
                               source.halfspace.divisions[1], shape, source.halfspace.foundation);
        break;
      case BemMeshKind::HalfspaceDisc:
        mesh = halfspace_disc(source.disc.radius, source.disc.foundation_radius, source.disc.divisions,
                              source.disc.max_cell, shape);
        break;
    }
  } catch (const Error& e) {
    // A generator's limits (too many elements, a foundation between cell centres) belong to [bem.mesh].
    if (source.kind == BemMeshKind::File) throw;
    throw Error(str(source.origin, ": ", e.what()));
  }
  // The generators orient a sphere and a box for a body (normals outward); a cavity's point inward.
  const bool generated_closed = source.kind == BemMeshKind::Sphere || source.kind == BemMeshKind::Box;
  if (generated_closed && source.solid == BemSolid::Outside) flip_orientation(mesh);
  if (source.flip) flip_orientation(mesh);
  return mesh;
}

Solid solid_of(BemSolid solid) {
  switch (solid) {
    case BemSolid::Inside: return Solid::Inside;
    case BemSolid::Outside: return Solid::Outside;
    case BemSolid::Open: return Solid::Open;
  }
  return Solid::Open;
}

Mesh surface_mesh(const BoundaryMesh& boundary) {
  Mesh mesh(3);
  mesh.coordinates = boundary.coordinates;
  mesh.node_labels.assign(boundary.node_labels.begin(), boundary.node_labels.end());
  for (Index e = 0; e < boundary.n_elements(); ++e) {
    const int n = boundary.n_vertices(e);
    ElementBlock& block = mesh.block_for(n == 3 ? ElementType::Tri3 : ElementType::Quad4);
    for (int v = 0; v < n; ++v)
      block.connectivity.push_back(boundary.connectivity[4 * static_cast<std::size_t>(e) + v]);
    block.labels.push_back(boundary.element_labels[static_cast<std::size_t>(e)]);
  }
  return mesh;
}

namespace {

// The memory a backend's dense solve or hierarchical matrix may take: the GPU's, or this machine's.
double backend_memory(const Exec& exec) {
  return exec.backend() == Backend::Cuda ? static_cast<double>(memory_info(exec).total_bytes)
                                         : physical_memory_bytes();
}

// Plan::method and solver_why from the settings' solver, the size and the backend ("auto": dense
// where H and G fit and it is the faster); a dense solve that would not fit is refused, naming
// the model file's line.
void choose_solver(Plan& plan, const BemProblem& problem) {
  const BoundaryMesh& mesh = plan.mesh;
  const bool gpu = plan.exec.backend() == Backend::Cuda;
  // The dense solver holds H and G (9 n^2 complex values each) where the backend runs; it fits
  // while one array holds each and both take at most 80% of that memory.
  bool dense_fits = true;
  try {
    check_node_count(plan.n_nodes);
  } catch (const Error&) {
    dense_fits = false;
  }
  const double dense_bytes = 2.0 * 9.0 * 16.0 * static_cast<double>(plan.n_nodes) * static_cast<double>(plan.n_nodes);
  const double room = backend_memory(plan.exec);
  const bool dense_room = room <= 0.0 || dense_bytes <= 0.8 * room;
  const char* where = gpu ? "the GPU's " : "this machine's ";
  const Index dense_limit = gpu ? gpu_dense_unknowns : host_dense_unknowns;
  const BemSolver solver = plan.settings.solver;
  if (solver == BemSolver::HMatrix) {
    plan.method = SolverMethod::Compressed;
    plan.solver_why = "asked for";
  } else if (solver == BemSolver::Dense) {
    plan.method = SolverMethod::Dense;
    plan.solver_why = "asked for";
  } else if (!dense_fits || !dense_room) {
    plan.method = SolverMethod::Compressed;
    plan.solver_why = str("auto: H and G would take ", si(dense_bytes), "B",
                          dense_fits ? str(", more than 80% of ", where, si(room), "B")
                                     : std::string(" (more than one array holds)"));
  } else if (3 * plan.n_nodes > dense_limit) {
    plan.method = SolverMethod::Compressed;
    plan.solver_why = str("auto: ", group_digits(3 * plan.n_nodes), " unknowns, above the ", group_digits(dense_limit),
                          " where it outruns the dense solve on a ", gpu ? "GPU" : "CPU");
  } else {
    plan.method = SolverMethod::Dense;
    plan.solver_why = str("auto: ", group_digits(3 * plan.n_nodes), " unknowns, at most the ",
                          group_digits(dense_limit),
                          " where the dense solve is the faster on a ", gpu ? "GPU" : "CPU");
  }
  if (plan.method != SolverMethod::Dense) return;
  check_fits(mesh, problem.mesh, plan.order, plan.n_nodes);
  if (!dense_room)
    throw Error(str(problem.mesh.origin, ": ", mesh.source, ": the dense solver's H and G of ",
                    group_digits(plan.n_nodes), " collocation nodes would take ", si(dense_bytes), "B, more than 80% ",
                    "of ", where, si(room), "B: use the hierarchical matrix ",
                    "(solver = \"hmatrix\" or \"auto\" in [bem], --solver hmatrix) or a coarser mesh"));
}

// The compressed method's cluster tree and memory estimate (Plan::tree, hmatrix_estimate), refused
// where the estimate will not fit. The blocks live where the backend runs: a GPU's memory, or this
// machine's. ACA builds the admissible blocks on the host either way and holds them there until
// they are stored (on the host, beside their stored copy: twice).
void plan_hmatrix(Plan& plan, const BemProblem& problem) {
  const BoundaryMesh& mesh = plan.mesh;
  const bool gpu = plan.exec.backend() == Backend::Cuda;
  plan.tree = std::make_shared<const ClusterTree>(cluster_tree(mesh, plan.order, plan.hmatrix.leaf_size));
  plan.hmatrix_estimate = estimate_hmatrix(*plan.tree, plan.hmatrix.eta, 6, hmatrix_estimate_rank);
  const HMatrixEstimate& e = plan.hmatrix_estimate;
  const double host = physical_memory_bytes();
  const double device = backend_memory(plan.exec);
  const double host_need = gpu ? 16.0 * e.far_values : 16.0 * (e.near_values + 2.0 * e.far_values);
  const auto refuse = [&](const char* where, double need, double memory) {
    throw Error(str(problem.mesh.origin, ": ", mesh.source, ": the hierarchical matrix of ",
                    group_digits(plan.n_nodes), " collocation nodes would take about ", si(e.bytes()),
                    "B (near field ", si(16.0 * e.near_values), "B, the admissible blocks ",
                    si(16.0 * e.far_values), "B at rank ", hmatrix_estimate_rank, "), ", si(need), "B of it in ",
                    where, ", more than 80% of its ", si(memory), "B: use a coarser mesh or fewer nodes per element"));
  };
  if (gpu && device > 0.0 && e.bytes() > 0.8 * device) refuse("the GPU's memory", e.bytes(), device);
  if (host > 0.0 && host_need > 0.8 * host) refuse("this machine's memory", host_need, host);
}

}  // namespace

Plan plan_bem(const BemProblem& problem, const RunOptions& options) {
  const auto started = Clock::now();
  TREMOR_CHECK(!problem.frequencies.empty(), problem.source, ": no frequencies to solve");
  Plan plan;
  BemOptions& settings = plan.settings;
  settings = problem.options;
  settings.backend = options.backend.over(settings.backend);
  settings.free_term = options.free_term.value_or(settings.free_term);
  if (options.gauss > 0) settings.gauss = options.gauss;
  settings.elements = options.elements.value_or(settings.elements);
  settings.solver = options.solver.value_or(settings.solver);
  if (options.tolerance > 0.0) settings.tolerance = options.tolerance;
  TREMOR_CHECK(settings.tolerance > 0.0 && settings.tolerance < 0.1, "the compressed solver's tolerance ",
               settings.tolerance, " lies outside (0, 0.1)");
  plan.allow_coarse = options.allow_coarse;
  plan.keep_boundary_fields = options.keep_boundary_fields;

  plan.mesh = build_boundary_mesh(problem.mesh, settings.elements);
  const BoundaryMesh& mesh = plan.mesh;
  plan.solid = solid_of(problem.mesh.solid);
  try {
    plan.report = check_boundary_mesh(mesh, plan.solid);
  } catch (const Error& e) {
    // The check speaks of the solver's names; say what they are in the model file.
    const std::string what = e.what();
    if (what.find("Solid::") == std::string::npos && what.find("flip_orientation") == std::string::npos) throw;
    throw Error(str(what, " [", problem.mesh.origin, ": solid = \"", to_string(problem.mesh.solid), "\"",
                    problem.mesh.flip ? ", flip = true" : "",
                    "; in the model file Solid::Inside is \"inside\" or \"body\", Solid::Outside \"outside\" or "
                    "\"cavity\", Solid::Open \"open\", and flip_orientation is flip = true]"));
  }
  const MeshReport& report = plan.report;
  plan.order = settings.elements == BemElements::Quadratic ? ElementOrder::Quadratic
               : settings.elements == BemElements::Linear  ? ElementOrder::Linear
                                                            : ElementOrder::Constant;
  if (plan.order == ElementOrder::Quadratic && !mesh.quadratic())
    throw Error(str(problem.mesh.origin, ": quadratic elements need a second-order surface mesh; ", mesh.source,
                    " has straight-sided elements (",
                    problem.mesh.kind == BemMeshKind::File ? "mesh it in Gmsh with Mesh.ElementOrder = 2"
                                                           : "leave out order = 1 or give order = 2",
                    ", or use elements = \"linear\")"));
  plan.n_nodes = first_nodes(mesh, plan.order).back();
  plan.exec = Exec::make(resolve_backend(settings.backend));
  choose_solver(plan, problem);
  plan.hmatrix.tolerance = settings.tolerance;
  if (plan.method == SolverMethod::Compressed) plan_hmatrix(plan, problem);

  IntegrationOptions& integration = plan.integration;
  integration.gauss = settings.gauss;
  integration.singular_gauss = settings.singular_gauss;
  integration.near_ratio = settings.near_ratio;
  integration.max_depth = settings.max_depth;
  integration.layout = settings.layout == BemLayout::Thread ? PairLayout::ThreadPerPair : PairLayout::BlockPerPair;
  plan.free_term = settings.free_term;
  if (plan.free_term == BemFreeTerm::Auto)
    plan.free_term = report.closed ? BemFreeTerm::RigidBody : BemFreeTerm::Direct;
  if (plan.free_term == BemFreeTerm::RigidBody && !report.closed)
    throw Error(str(problem.mesh.origin, ": the rigid_body free term needs a closed surface; ", mesh.source,
                    " is open (", group_digits(report.n_boundary_edges), " rim edges): use free_term = \"direct\""));
  plan.free_choice = {plan.free_term == BemFreeTerm::RigidBody ? FreeTerm::RigidBody : FreeTerm::Direct,
                      plan.solid == Solid::Outside ? 1.0 : 0.0};

  plan.highest = *std::max_element(problem.frequencies.begin(), problem.frequencies.end());
  plan.lowest = *std::min_element(problem.frequencies.begin(), problem.frequencies.end());
  plan.min_per_wavelength = bem_min_per_wavelength(settings);
  plan.resolution = check_wavelength(mesh, problem.material.shear_wave_speed() / plan.highest,
                                     plan.min_per_wavelength, plan.order == ElementOrder::Quadratic ? 2 : 1);

  plan.conditions = translate_conditions(problem, mesh);
  if (!problem.interior_points.empty()) check_interior_points(problem, mesh, plan.solid, report.box.diagonal());
  for (const auto& p : problem.interior_points)
    plan.interior_points.insert(plan.interior_points.end(), p.begin(), p.end());

  const Index ne = mesh.n_elements();
  plan.centroids.resize(3 * static_cast<std::size_t>(ne));
  plan.normals.resize(3 * static_cast<std::size_t>(ne));
  plan.areas.resize(static_cast<std::size_t>(ne));
  for (Index e = 0; e < ne; ++e) {
    const ElementGeometry g = element_geometry(mesh, e);
    for (std::size_t c = 0; c < 3; ++c) {
      plan.centroids[3 * static_cast<std::size_t>(e) + c] = g.centroid[c];
      plan.normals[3 * static_cast<std::size_t>(e) + c] = g.normal[c];
    }
    plan.areas[static_cast<std::size_t>(e)] = g.area;
  }
  if (plan.order != ElementOrder::Constant) {
    plan.node_positions = node_positions(mesh, plan.order);
    const std::vector<Index> first = first_nodes(mesh, plan.order);
    plan.node_elements.resize(static_cast<std::size_t>(plan.n_nodes));
    for (Index e = 0; e < ne; ++e)
      for (Index p = first[static_cast<std::size_t>(e)]; p < first[static_cast<std::size_t>(e) + 1]; ++p)
        plan.node_elements[static_cast<std::size_t>(p)] = e;
  }
  plan.setup_seconds = seconds_since(started);
  return plan;
}

void check_resolution(const Plan& plan) {
  if (plan.resolution.sufficient) return;
  // The message says what to refine; the frequency it was measured at and the way out are ours.
  const double minimum = plan.min_per_wavelength;
  const std::string coarse = str(plan.resolution.message, " (at ", number(plan.highest), " Hz, the highest frequency)");
  const bool far = plan.resolution.elements_per_wavelength < 0.5 * minimum;
  if (far && !plan.allow_coarse)
    throw Error(str(coarse, "; fewer than half the minimum (", number(0.5 * minimum),
                    ") are refused: run with --allow-coarse to solve it anyway"));
  log::warn(coarse);
}

RunResult run_bem(const BemProblem& problem, const Plan& plan, Observer* observer) {
  check_resolution(plan);
  if (observer) observer->on_start(plan);

  RunResult out;
  out.setup_seconds = plan.setup_seconds;
  const BoundaryMesh& mesh = plan.mesh;
  const ElementOrder order = plan.order;
  const ElementConditions& conditions = plan.conditions;
  const std::size_t nf = problem.frequencies.size();
  const auto ne = static_cast<std::size_t>(mesh.n_elements());
  const std::vector<double> node_area = node_areas(mesh, order);
  const std::vector<Index> first_node = first_nodes(mesh, order);
  std::vector<double> omegas;
  for (const double frequency : problem.frequencies) omegas.push_back(2.0 * std::numbers::pi * frequency);

  auto frequency_start = Clock::now();
  const auto each = [&](FrequencyResult& r) {
    FrequencySolution s;
    s.wall_seconds = seconds_since(frequency_start);
    s.index = out.frequencies.size();
    s.frequency = problem.frequencies[s.index];
    s.displacement = complex_of(element_centre_values(mesh, order, r.u));
    s.traction = complex_of(element_centre_values(mesh, order, r.t));
    s.interior = complex_of(r.interior);
    if (order != ElementOrder::Constant) {
      s.node_displacement = complex_of(r.u);
      s.node_traction = complex_of(r.t);
    }
    // The resultant force on each set with a prescribed displacement: the traction at its elements'
    // nodes times their areas (the dynamic stiffness when divided by the displacement).
    s.forces.assign(3 * conditions.force_sets.size(), std::complex<double>());
    for (std::size_t f = 0; f < conditions.force_sets.size(); ++f)
      for (const Index e : conditions.force_members[f])
        for (Index p = first_node[static_cast<std::size_t>(e)]; p < first_node[static_cast<std::size_t>(e) + 1]; ++p)
          for (std::size_t c = 0; c < 3; ++c) {
            const Complex v = r.t[3 * static_cast<std::size_t>(p) + c];
            s.forces[3 * f + c] += std::complex<double>(v.re, v.im) * node_area[static_cast<std::size_t>(p)];
          }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.stiffness.assign(s.forces.size(), std::complex<double>(nan, nan));
    for (std::size_t f = 0; f < conditions.force_sets.size(); ++f)
      for (std::size_t c = 0; c < 3; ++c) {
        const std::complex<double> given = conditions.set_displacement[f][c];
        if (std::isnan(given.real()) || std::abs(given) == 0.0) continue;
        s.stiffness[3 * f + c] = s.forces[3 * f + c] / given;
      }
    double largest = -1.0;
    const std::vector<std::complex<double>>& u = s.displacement;
    for (std::size_t e = 0; e < ne; ++e) {
      const double m = std::sqrt(std::norm(u[3 * e]) + std::norm(u[3 * e + 1]) + std::norm(u[3 * e + 2]));
      if (m > largest) {
        largest = m;
        s.largest_element = e;
      }
    }
    s.largest_displacement = largest;
    s.result = std::move(r);

    if (observer) observer->on_frequency(plan, s);
    out.solve_seconds += s.wall_seconds;
    if (!plan.keep_boundary_fields) {
      for (auto* field : {&s.displacement, &s.traction, &s.node_displacement, &s.node_traction})
        std::vector<std::complex<double>>().swap(*field);
      std::vector<Complex>().swap(s.result.u);
      std::vector<Complex>().swap(s.result.t);
    }
    out.frequencies.push_back(std::move(s));
    if (observer && out.frequencies.size() < nf && observer->stop_requested()) throw Stopped{};
    frequency_start = Clock::now();
  };
  try {
    solve_frequencies(plan.exec, mesh, problem.material.density, problem.material.lambda, problem.material.mu,
                      problem.material.damping_ratio, omegas, conditions_at_nodes(mesh, order, conditions.values, conditions.pressure),
                      {order, plan.integration, plan.free_choice, plan.method, plan.hmatrix, plan.tree},
                      plan.interior_points, each);
  } catch (const Stopped&) {
    out.status = RunStatus::Stopped;
  } catch (const std::exception& e) {
    out.status = RunStatus::Failed;
    out.message = e.what();
  }
  return out;
}

RunResult run_bem(const BemProblem& problem, const RunOptions& options, Observer* observer) {
  return run_bem(problem, plan_bem(problem, options), observer);
}

}  // namespace tremor::bem
