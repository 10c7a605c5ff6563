// `tremor bem MODEL [-o RESULT]`: the boundary-element solver from the command line (docs/bem.md,
// "Running `tremor bem`"). Reads a [bem] model file, builds and checks the surface mesh, checks
// its resolution against the shear wavelength, solves each frequency in turn and prints what it
// solved and how, then writes the boundary displacements and tractions, the interior displacements
// and the forces on sets with prescribed displacements into one result file (docs/output-format.md,
// /bem) with its XDMF file. A frequency that fails keeps the ones solved before it in the file
// (status "failed: ..."), and the command exits 1.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/bem/generate.hpp"
#include "tremor/bem/solve.hpp"
#include "tremor/cli/commands.hpp"
#include "tremor/cli/options.hpp"
#include "tremor/cli/signals.hpp"
#include "tremor/cli/format.hpp"
#include "tremor/cli/git_commit.hpp"
#include "tremor/cli/model_hash.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/bem_model_file.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/result_file.hpp"
#include "tremor/model/bem_problem.hpp"
#include "tremor/model/model.hpp"

namespace tremor::cli {

namespace {

constexpr double pi = 3.14159265358979323846;
// Interior points of the printed table; the result file and the CSV hold them all.
constexpr std::size_t printed_points = 8;

struct BemArgs {
  std::string model;
  std::string output;
  std::string csv;
  std::string backend;
  std::string free_term;
  std::string elements;
  int gauss = 0;
  bool allow_coarse = false;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// "1.5e+05" style numbers, shortest that reads well.
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// "1.23e-04 - 4.5e-05i", or "1.23e-04" for a real value.
std::string complex_text(std::complex<double> z) {
  char text[64];
  if (z.imag() == 0.0) return number(z.real());
  std::snprintf(text, sizeof text, "%.4g %c %.4gi", z.real(), z.imag() < 0 ? '-' : '+', std::abs(z.imag()));
  return text;
}

std::string point_text(const std::array<double, 3>& p) {
  return str("(", number(p[0]), ", ", number(p[1]), ", ", number(p[2]), ")");
}

bem::Solid solid_of(BemSolid solid) {
  switch (solid) {
    case BemSolid::Inside: return bem::Solid::Inside;
    case BemSolid::Outside: return bem::Solid::Outside;
    case BemSolid::Open: return bem::Solid::Open;
  }
  return bem::Solid::Open;
}

// The boundary mesh the problem describes, oriented with its normals out of the solid.
bem::BoundaryMesh build_mesh(const BemMeshSource& source) {
  const bem::ElementShape shape =
      source.shape == BemElementShape::Triangle ? bem::ElementShape::Triangle : bem::ElementShape::Quadrilateral;
  bem::BoundaryMesh mesh;
  try {
    switch (source.kind) {
      case BemMeshKind::File: mesh = bem::boundary_mesh(source.surface, source.path); break;
      case BemMeshKind::Sphere: mesh = bem::sphere(source.sphere.radius, source.sphere.divisions, shape); break;
      case BemMeshKind::Box:
        mesh = bem::box(source.box.size[0], source.box.size[1], source.box.size[2], source.box.divisions[0],
                        source.box.divisions[1], source.box.divisions[2], shape);
        break;
      case BemMeshKind::Halfspace:
        mesh = bem::halfspace_patch(source.halfspace.size[0], source.halfspace.size[1], source.halfspace.divisions[0],
                                    source.halfspace.divisions[1], shape, source.halfspace.foundation);
        break;
    }
  } catch (const Error& e) {
    // A generator's limits (too many elements, a foundation between cell centres) belong to [bem.mesh].
    if (source.kind == BemMeshKind::File) throw;
    throw Error(str(source.origin, ": ", e.what()));
  }
  // The generators orient a sphere and a box for a body (normals outward); a cavity's point inward.
  const bool generated_closed = source.kind == BemMeshKind::Sphere || source.kind == BemMeshKind::Box;
  if (generated_closed && source.solid == BemSolid::Outside) bem::flip_orientation(mesh);
  if (source.flip) bem::flip_orientation(mesh);
  return mesh;
}

// The surface as a Mesh for the result file's /mesh (a block of tri3 and one of quad4) and its hash.
Mesh surface_mesh(const bem::BoundaryMesh& boundary) {
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

// ---- Interior points ------------------------------------------------------------------------

using Vec = std::array<double, 3>;
Vec sub(const Vec& a, const Vec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
Vec cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double norm(const Vec& a) { return std::sqrt(dot(a, a)); }

// The solid angle the triangle abc subtends at p, positive when its normal (abc counter-clockwise)
// points away from p (Van Oosterom and Strackee, IEEE Trans. Biomed. Eng. 30 (1983) 125).
double solid_angle(const Vec& p, const Vec& a, const Vec& b, const Vec& c) {
  const Vec r1 = sub(a, p), r2 = sub(b, p), r3 = sub(c, p);
  const double l1 = norm(r1), l2 = norm(r2), l3 = norm(r3);
  const double numerator = dot(r1, cross(r2, r3));
  const double denominator = l1 * l2 * l3 + dot(r1, r2) * l3 + dot(r1, r3) * l2 + dot(r2, r3) * l1;
  return 2.0 * std::atan2(numerator, denominator);
}

// Distance from p to the triangle abc (Ericson, Real-Time Collision Detection, 5.1.5).
double triangle_distance(const Vec& p, const Vec& a, const Vec& b, const Vec& c) {
  const Vec ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return norm(ap);
  const Vec bp = sub(p, b);
  const double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return norm(bp);
  const double vc = d1 * d4 - d3 * d2;
  const auto at = [&](const Vec& origin, const Vec& edge, double t) {
    return norm(sub(p, {origin[0] + t * edge[0], origin[1] + t * edge[1], origin[2] + t * edge[2]}));
  };
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return at(a, ab, d1 / (d1 - d3));
  const Vec cp = sub(p, c);
  const double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return norm(cp);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return at(a, ac, d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return at(b, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double denominator = 1.0 / (va + vb + vc);
  const double v = vb * denominator, w = vc * denominator;
  return norm(sub(p, {a[0] + ab[0] * v + ac[0] * w, a[1] + ab[1] * v + ac[1] * w, a[2] + ab[2] * v + ac[2] * w}));
}

// "interior point 3 (line at m.toml:20, point 2 of 10) at (x, y, z)".
std::string describe_point(const BemProblem& problem, std::size_t k) {
  for (const BemPointGroup& group : problem.point_groups)
    if (k >= group.first && k < group.first + group.count)
      return str("interior point ", k + 1, " (", group.kind == "points" ? "'points'" : group.kind, " at ", group.origin,
                 ", ", k - group.first + 1, " of ", group.count, ") at ", point_text(problem.interior_points[k]));
  return str("interior point ", k + 1, " at ", point_text(problem.interior_points[k]));
}

// Refuses interior points on the boundary or on the wrong side of it: the representation
// u(p) = G t - H u holds inside the solid only (elsewhere it gives 0, or a meaningless field
// above an open surface). The side is the winding number of the surface about the point, its
// solid angle over 4 pi: 1 inside a body, 0 around a cavity (-1 in the hole), between 0 and 1/2
// below an open surface and between -1/2 and 0 above it.
void check_interior_points(const BemProblem& problem, const bem::BoundaryMesh& mesh, bem::Solid solid,
                           double diagonal) {
  const auto& points = problem.interior_points;
  const Index ne = mesh.n_elements();
  const auto vertex = [&](Index e, int v) {
    const Index node = mesh.connectivity[4 * static_cast<std::size_t>(e) + static_cast<std::size_t>(v)];
    const double* x = mesh.coordinates.data() + 3 * static_cast<std::size_t>(node);
    return Vec{x[0], x[1], x[2]};
  };
  std::vector<double> winding(points.size()), distance(points.size());
  std::vector<Index> nearest(points.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(points.size()); ++k) {
    const Vec& p = points[static_cast<std::size_t>(k)];
    double angle = 0.0, closest = std::numeric_limits<double>::infinity();
    Index which = 0;
    for (Index e = 0; e < ne; ++e) {
      const Vec a = vertex(e, 0), b = vertex(e, 1), c = vertex(e, 2);
      angle += solid_angle(p, a, b, c);
      double d = triangle_distance(p, a, b, c);
      if (mesh.n_vertices(e) == 4) {
        const Vec q = vertex(e, 3);
        angle += solid_angle(p, a, c, q);
        d = std::min(d, triangle_distance(p, a, c, q));
      }
      if (d < closest) {
        closest = d;
        which = e;
      }
    }
    winding[static_cast<std::size_t>(k)] = angle / (4.0 * pi);
    distance[static_cast<std::size_t>(k)] = closest;
    nearest[static_cast<std::size_t>(k)] = which;
  }
  for (std::size_t k = 0; k < points.size(); ++k) {
    const Index label = mesh.element_labels[static_cast<std::size_t>(nearest[k])];
    // Rounding of coordinates given in decimal: a point meant to be on the surface.
    if (distance[k] <= 1e-9 * diagonal)
      throw Error(str(describe_point(problem, k), " lies on the boundary (element ", label,
                      "): interior points must lie inside the solid, off its surface"));
    const double w = winding[k];
    const bool inside = solid == bem::Solid::Inside ? w > 0.5 : solid == bem::Solid::Outside ? w > -0.5 : w > -0.25;
    if (!inside)
      throw Error(str(describe_point(problem, k), " lies outside the solid (",
                      solid == bem::Solid::Inside    ? "outside the body's surface"
                      : solid == bem::Solid::Outside ? "inside the cavity"
                                                     : "on the side the normals point to",
                      "; the nearest element is ", label, "): displacements are computed inside the solid only"));
  }
}

// ---- Boundary conditions --------------------------------------------------------------------

struct Conditions {
  bem::BoundaryConditions values;
  std::vector<std::int32_t> prescribed;  // 3 per element: 1 where the displacement is given
  std::vector<std::string> force_sets;   // sets with a prescribed displacement
  std::vector<std::vector<Index>> force_members;
  std::vector<std::array<std::complex<double>, 3>> set_displacement;  // uniform value per component, else NaN
  std::vector<std::string> lines;                                     // what to print, one per condition
  Index n_free = 0;                                                   // elements no condition names
};

Conditions translate_conditions(const BemProblem& problem, const bem::BoundaryMesh& mesh) {
  const Index ne = mesh.n_elements();
  Conditions out;
  out.values.kind.assign(3 * static_cast<std::size_t>(ne), bem::Prescribed::Traction);
  out.values.value.assign(3 * static_cast<std::size_t>(ne), bem::Complex());
  out.prescribed.assign(3 * static_cast<std::size_t>(ne), 0);
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
      const bem::ElementGeometry g = bem::element_geometry(mesh, e);
      for (int c = 0; c < 3; ++c) {
        const std::size_t k = 3 * static_cast<std::size_t>(e) + static_cast<std::size_t>(c);
        std::complex<double> value = 0.0;
        bem::Prescribed kind = bem::Prescribed::Traction;
        if (condition.pressure) {
          value = -(*condition.pressure) * g.normal[static_cast<std::size_t>(c)];  // t = -p n
        } else if (const auto& component = condition.components[static_cast<std::size_t>(c)]) {
          value = component->value;
          if (component->kind == BemPrescribed::Displacement) kind = bem::Prescribed::Displacement;
        }
        out.values.kind[k] = kind;
        out.values.value[k] = bem::Complex(value.real(), value.imag());
        out.prescribed[k] = kind == bem::Prescribed::Displacement ? 1 : 0;
      }
    }
    std::string what;
    if (condition.pressure) {
      what = str("pressure ", complex_text(*condition.pressure), " Pa");
    } else {
      for (int c = 0; c < 3; ++c) {
        const auto& component = condition.components[static_cast<std::size_t>(c)];
        if (!component) continue;
        const bool displacement = component->kind == BemPrescribed::Displacement;
        what += str(what.empty() ? "" : ", ", displacement ? "u" : "t", "xyz"[c], " ", complex_text(component->value),
                    displacement ? " m" : " Pa");
      }
    }
    out.lines.push_back(str("'", condition.element_set, "' (", group_digits(static_cast<long long>(members.size())),
                            " elements): ", what));
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

// ---- Output ---------------------------------------------------------------------------------

// Interior displacements as CSV: one row per frequency and point, real and imaginary parts.
void write_interior_csv(const std::filesystem::path& path, const BemProblem& problem,
                        const std::vector<double>& frequencies,
                        const std::vector<std::vector<std::complex<double>>>& interior) {
  std::string text = "frequency,point,x,y,z,ux_re,ux_im,uy_re,uy_im,uz_re,uz_im,u_magnitude\n";
  char row[512];
  for (std::size_t f = 0; f < frequencies.size(); ++f)
    for (std::size_t k = 0; k < problem.interior_points.size(); ++k) {
      const auto& p = problem.interior_points[k];
      const std::complex<double>* u = interior[f].data() + 3 * k;
      const double magnitude = std::sqrt(std::norm(u[0]) + std::norm(u[1]) + std::norm(u[2]));
      std::snprintf(row, sizeof row, "%.17g,%zu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                    frequencies[f], k + 1, p[0], p[1], p[2], u[0].real(), u[0].imag(), u[1].real(), u[1].imag(),
                    u[2].real(), u[2].imag(), magnitude);
      text += row;
    }
  io::write_file_atomically(path, text, "CSV file");
}

// What one frequency gave: times, condition, the largest boundary displacement, the forces (and
// stiffnesses) of the sets with prescribed displacements, the first interior points.
void print_frequency(double frequency, const bem::FrequencyResult& r, const std::vector<std::complex<double>>& u,
                     const std::vector<std::complex<double>>& interior, const std::vector<std::complex<double>>& forces,
                     const Conditions& conditions, const BemProblem& problem, const bem::BoundaryMesh& mesh) {
  const auto ne = static_cast<std::size_t>(mesh.n_elements());
  std::printf(
      "  %-15s assembly %.3g s%s, solve %.3g s (%s), interior %.3g s, condition %s\n",
      str(number(frequency), " Hz").c_str(), r.assembly_seconds,
      r.row_sum_seconds > 0.0 ? str(" + row sums ", number(r.row_sum_seconds), " s").c_str() : "", r.solve_seconds,
      r.solve.backend.c_str(), r.interior_seconds,
      std::isnan(r.solve.reciprocal_condition) ? "not estimated" : number(1.0 / r.solve.reciprocal_condition).c_str());
  std::size_t worst = 0;
  double largest = -1.0;
  for (std::size_t e = 0; e < ne; ++e) {
    const double m = std::sqrt(std::norm(u[3 * e]) + std::norm(u[3 * e + 1]) + std::norm(u[3 * e + 2]));
    if (m > largest) {
      largest = m;
      worst = e;
    }
  }
  std::printf("    max |u|       %sm at element %lld: (%s, %s, %s) m\n", si(largest).c_str(),
              static_cast<long long>(mesh.element_labels[worst]), complex_text(u[3 * worst]).c_str(),
              complex_text(u[3 * worst + 1]).c_str(), complex_text(u[3 * worst + 2]).c_str());
  for (std::size_t s = 0; s < conditions.force_sets.size(); ++s) {
    std::printf("    force on set %s: (%s, %s, %s) N\n", conditions.force_sets[s].c_str(),
                complex_text(forces[3 * s]).c_str(), complex_text(forces[3 * s + 1]).c_str(),
                complex_text(forces[3 * s + 2]).c_str());
    for (std::size_t c = 0; c < 3; ++c) {
      const std::complex<double> given = conditions.set_displacement[s][c];
      if (std::isnan(given.real()) || std::abs(given) == 0.0) continue;
      const std::complex<double> stiffness = forces[3 * s + c] / given;
      std::printf("      stiffness   K_%c%c = F_%c / u_%c = %s N/m (|K| %s N/m, phase %.3g deg)\n", "xyz"[c], "xyz"[c],
                  "xyz"[c], "xyz"[c], complex_text(stiffness).c_str(), number(std::abs(stiffness)).c_str(),
                  std::arg(stiffness) * 180.0 / pi);
    }
  }
  if (!problem.interior_points.empty()) {
    std::printf("    interior      %-8s %-26s %-11s %s\n", "point", "position (m)", "|u| (m)", "u_x, u_y, u_z (m)");
    for (std::size_t k = 0; k < problem.interior_points.size() && k < printed_points; ++k) {
      const std::complex<double>* v = interior.data() + 3 * k;
      std::printf("                  %-8zu %-26s %-11.4g %s, %s, %s\n", k + 1,
                  point_text(problem.interior_points[k]).c_str(),
                  std::sqrt(std::norm(v[0]) + std::norm(v[1]) + std::norm(v[2])), complex_text(v[0]).c_str(),
                  complex_text(v[1]).c_str(), complex_text(v[2]).c_str());
    }
    if (problem.interior_points.size() > printed_points)
      std::printf("                  ... and %zu more points in the result file\n",
                  problem.interior_points.size() - printed_points);
  }
}

// "linear (discontinuous, 3 nodes per triangle)": what the element type means on this mesh.
std::string element_text(bem::ElementOrder order, const bem::MeshReport& report) {
  if (order == bem::ElementOrder::Constant) return "constant (one node per element)";
  std::string per;
  if (report.n_triangles > 0) per += "3 nodes per triangle";
  if (report.n_quadrilaterals > 0) per += str(per.empty() ? "" : ", ", "4 per quadrilateral");
  return str("linear (discontinuous, ", per, ")");
}

// H and G (9 n^2 values each) must fit one array: refused naming the mesh and what would fit.
void check_fits(const bem::BoundaryMesh& mesh, const BemMeshSource& source, bem::ElementOrder order, Index n_nodes) {
  try {
    bem::check_node_count(n_nodes);
  } catch (const Error& e) {
    const bool linear = order == bem::ElementOrder::Linear;
    const Index n_constant = mesh.n_elements();
    bool constant_fits = true;
    try {
      bem::check_node_count(n_constant);
    } catch (const Error&) {
      constant_fits = false;
    }
    throw Error(str(source.origin, ": ", mesh.source, ": ", group_digits(mesh.n_elements()),
                    linear ? " linear elements have " : " constant elements have ", group_digits(n_nodes),
                    " collocation nodes, too many for one run: ", e.what(), "; ",
                    linear && constant_fits ? str("use constant elements (--elements constant or elements = "
                                                  "\"constant\" in [bem]: ",
                                                  group_digits(n_constant), " nodes) or a coarser mesh")
                                            : std::string("use a coarser mesh")));
  }
}

// Thrown from the per-frequency callback when SIGINT or SIGTERM asked to stop.
struct Stopped {};

void bem_command(BemArgs& args) {
  const auto started = std::chrono::steady_clock::now();
  catch_stop_signals();
  // The outputs are checked and the result file claimed before any work: a device, a link, a
  // missing folder or a second writer is refused now, not after the solve.
  const std::filesystem::path output = output_path(args.output, args.model);
  if (!args.csv.empty()) io::check_output_path(args.csv, "CSV file");
  io::OutputClaim claim = io::claim_result_file(output, false);
  BemProblem problem = io::read_bem_model_file(args.model);
  BemOptions& options = problem.options;
  if (!args.backend.empty()) options.backend = args.backend;
  if (!args.free_term.empty()) options.free_term = args.free_term;
  if (args.gauss > 0) options.gauss = args.gauss;
  if (!args.elements.empty()) options.elements = args.elements;

  const bem::BoundaryMesh mesh = build_mesh(problem.mesh);
  const bem::Solid solid = solid_of(problem.mesh.solid);
  bem::MeshReport report;
  try {
    report = bem::check_boundary_mesh(mesh, solid);
  } catch (const Error& e) {
    // The check speaks of the solver's names; say what they are in the model file.
    const std::string what = e.what();
    if (what.find("Solid::") == std::string::npos && what.find("flip_orientation") == std::string::npos) throw;
    throw Error(str(what, " [", problem.mesh.origin, ": solid = \"", to_string(problem.mesh.solid), "\"",
                    problem.mesh.flip ? ", flip = true" : "",
                    "; in the model file Solid::Inside is \"inside\" or \"body\", Solid::Outside \"outside\" or "
                    "\"cavity\", Solid::Open \"open\", and flip_orientation is flip = true]"));
  }
  const Index ne = mesh.n_elements();
  const bem::ElementOrder element_order =
      options.elements == "linear" ? bem::ElementOrder::Linear : bem::ElementOrder::Constant;
  const Index n_nodes = bem::first_nodes(mesh.connectivity, element_order).back();
  check_fits(mesh, problem.mesh, element_order, n_nodes);  // refused before any file is written

  // Settings, resolved.
  const Exec exec = Exec::make(parse_backend(options.backend));
  const std::string backend(to_string(exec.backend()));
  bem::IntegrationOptions integration;
  integration.gauss = options.gauss;
  integration.singular_gauss = options.singular_gauss;
  integration.near_ratio = options.near_ratio;
  integration.max_depth = options.max_depth;
  integration.layout = options.layout == "thread" ? bem::PairLayout::ThreadPerPair : bem::PairLayout::BlockPerPair;
  std::string free_term = options.free_term;
  if (free_term == "auto") free_term = report.closed ? "rigid_body" : "direct";
  if (free_term == "rigid_body" && !report.closed)
    throw Error(str(problem.mesh.origin, ": the rigid_body free term needs a closed surface; ", mesh.source,
                    " is open (", group_digits(report.n_boundary_edges), " rim edges): use free_term = \"direct\""));
  bem::FreeTermChoice free_choice{free_term == "rigid_body" ? bem::FreeTerm::RigidBody : bem::FreeTerm::Direct,
                                  solid == bem::Solid::Outside ? 1.0 : 0.0};

  const BemMaterial& material = problem.material;
  const double highest = *std::max_element(problem.frequencies.begin(), problem.frequencies.end());
  const double lowest = *std::min_element(problem.frequencies.begin(), problem.frequencies.end());
  const bem::WavelengthReport resolution =
      bem::check_wavelength(mesh, material.shear_wave_speed() / highest, options.min_elements_per_wavelength);

  const Conditions conditions = translate_conditions(problem, mesh);
  if (!problem.interior_points.empty()) check_interior_points(problem, mesh, solid, report.box.diagonal());

  const std::size_t nf = problem.frequencies.size();
  std::printf("bem               %s: %s elements, %zu frequenc%s (%s", args.model.c_str(), group_digits(ne).c_str(), nf,
              nf == 1 ? "y" : "ies", number(lowest).c_str());
  if (nf > 1) std::printf(" .. %s", number(highest).c_str());
  std::printf(" Hz), backend %s\n", backend.c_str());
  std::string shapes;
  if (report.n_triangles > 0) shapes += str(group_digits(report.n_triangles), " triangles");
  if (report.n_quadrilaterals > 0)
    shapes += str(shapes.empty() ? "" : " and ", group_digits(report.n_quadrilaterals), " quadrilaterals");
  std::printf("  mesh            %s: %s nodes, %s, %s, area %s m^2, elements %s .. %s m across\n", mesh.source.c_str(),
              group_digits(report.n_nodes).c_str(), shapes.c_str(),
              report.closed ? "closed" : str("open (", group_digits(report.n_boundary_edges), " rim edges)").c_str(),
              number(report.area).c_str(), number(report.min_diameter).c_str(), number(report.max_diameter).c_str());
  std::printf("  elements        %s: %s nodes, %s unknowns\n", element_text(element_order, report).c_str(),
              group_digits(n_nodes).c_str(), group_digits(3 * static_cast<long long>(n_nodes)).c_str());
  std::printf("  solid           %s%s\n", to_string(problem.mesh.solid),
              solid == bem::Solid::Inside    ? " the surface (a body): normals outward"
              : solid == bem::Solid::Outside ? " the surface (a cavity): normals into the hole"
                                             : ": on the side the normals point away from");
  std::printf("  material        density %s kg/m^3, E %sPa, nu %s, damping ratio %s; c_s %s m/s, c_p %s m/s\n",
              number(material.density).c_str(), si(material.youngs_modulus()).c_str(),
              number(material.poisson_ratio()).c_str(), number(material.damping_ratio).c_str(),
              number(material.shear_wave_speed()).c_str(), number(material.p_wave_speed()).c_str());
  std::printf("  resolution      %s elements per shear wavelength at %s Hz (element %lld, %s m across; minimum %s)\n",
              number(resolution.elements_per_wavelength).c_str(), number(highest).c_str(),
              static_cast<long long>(resolution.label), number(resolution.diameter).c_str(),
              number(options.min_elements_per_wavelength).c_str());
  std::printf(
      "  integration     %d x %d Gauss points (%d per singular triangle), near ratio %s, depth %d, free term %s%s\n",
      integration.gauss, integration.gauss, integration.singular_gauss, number(integration.near_ratio).c_str(),
      integration.max_depth, free_term.c_str(),
      exec.backend() == Backend::Cuda ? str(", ", options.layout, " per pair").c_str() : "");
  for (const std::string& line : conditions.lines) std::printf("  boundary        %s\n", line.c_str());
  if (conditions.n_free > 0)
    std::printf("  boundary        %s elements in no set: zero traction\n", group_digits(conditions.n_free).c_str());
  if (!problem.interior_points.empty())
    std::printf("  interior        %s points\n",
                group_digits(static_cast<long long>(problem.interior_points.size())).c_str());
  std::fflush(stdout);

  if (!resolution.sufficient) {
    // The message says what to refine; the frequency it was measured at and the way out are ours.
    const std::string coarse = str(resolution.message, " (at ", number(highest), " Hz, the highest frequency)");
    const bool far = resolution.elements_per_wavelength < 0.5 * options.min_elements_per_wavelength;
    if (far && !args.allow_coarse)
      throw Error(str(coarse, "; fewer than half the minimum (", number(0.5 * options.min_elements_per_wavelength),
                      ") are refused: run with --allow-coarse to solve it anyway"));
    log::warn(coarse);
  }

  // The result file, created before the first solve.
  Model model;
  model.source = args.model;
  model.title = problem.title;
  model.mesh = surface_mesh(mesh);
  io::RunMetadata metadata;
  metadata.git_commit = git_commit;
  metadata.model_path = args.model;
  metadata.model_hash = model_hash(args.model, model);
  metadata.backend = backend;
  metadata.precision = "double";
  metadata.solver = "bem";
  io::ResultFile file = io::ResultFile::create(output, model, metadata, {}, std::move(claim));

  std::vector<Label> labels(mesh.element_labels.begin(), mesh.element_labels.end());
  std::vector<double> centroids(3 * static_cast<std::size_t>(ne)), normals(3 * static_cast<std::size_t>(ne)),
      areas(static_cast<std::size_t>(ne));
  for (Index e = 0; e < ne; ++e) {
    const bem::ElementGeometry g = bem::element_geometry(mesh, e);
    for (std::size_t c = 0; c < 3; ++c) {
      centroids[3 * static_cast<std::size_t>(e) + c] = g.centroid[c];
      normals[3 * static_cast<std::size_t>(e) + c] = g.normal[c];
    }
    areas[static_cast<std::size_t>(e)] = g.area;
  }
  std::vector<double> points;
  for (const auto& p : problem.interior_points) points.insert(points.end(), p.begin(), p.end());
  io::BemSetup setup;
  setup.frequencies = problem.frequencies;
  setup.connectivity = mesh.connectivity;
  setup.element_labels = labels;
  setup.centroids = centroids;
  setup.normals = normals;
  setup.areas = areas;
  setup.prescribed = conditions.prescribed;
  setup.interior_points = points;
  setup.force_sets = conditions.force_sets;
  setup.elements = options.elements;
  const std::vector<double> node_position = element_order == bem::ElementOrder::Linear
                                                ? bem::node_positions(mesh, element_order)
                                                : std::vector<double>();
  std::vector<Index> node_element;  // linear: the element holding each collocation node
  if (element_order == bem::ElementOrder::Linear) {
    const std::vector<Index> first = bem::first_nodes(mesh.connectivity, element_order);
    node_element.resize(static_cast<std::size_t>(n_nodes));
    for (Index e = 0; e < ne; ++e)
      for (Index p = first[static_cast<std::size_t>(e)]; p < first[static_cast<std::size_t>(e) + 1]; ++p)
        node_element[static_cast<std::size_t>(p)] = e;
  }
  setup.node_positions = node_position;
  setup.node_elements = node_element;
  setup.solid = to_string(problem.mesh.solid);
  setup.free_term = free_term;
  setup.gauss = integration.gauss;
  setup.singular_gauss = integration.singular_gauss;
  setup.max_depth = integration.max_depth;
  setup.near_ratio = integration.near_ratio;
  setup.density = material.density;
  setup.lame_lambda = material.lambda;
  setup.shear_modulus = material.mu;
  setup.damping_ratio = material.damping_ratio;
  file.start_bem(setup);

  std::vector<double> solved;
  std::vector<std::vector<std::complex<double>>> interior_rows;
  double solve_wall = 0.0;
  // Each frequency is written and reported as soon as it is solved; a failure keeps those before it.
  const bem::ElementOrder order = element_order;
  const std::vector<double> node_area = bem::node_areas(mesh, order);
  const std::vector<Index> first_node = bem::first_nodes(mesh.connectivity, order);
  std::vector<double> omegas;
  for (const double frequency : problem.frequencies) omegas.push_back(2.0 * pi * frequency);
  auto frequency_start = std::chrono::steady_clock::now();
  const auto complex_of = [](const std::vector<bem::Complex>& values) {
    std::vector<std::complex<double>> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = {values[i].re, values[i].im};
    return out;
  };
  const auto each = [&](bem::FrequencyResult& r) {
    const double frequency = problem.frequencies[solved.size()];
    solve_wall += seconds_since(frequency_start);
    const std::vector<std::complex<double>> u = complex_of(bem::element_centre_values(mesh, order, r.u)),
                                            t = complex_of(bem::element_centre_values(mesh, order, r.t)),
                                            interior = complex_of(r.interior);
    // The resultant force on each set with a prescribed displacement: the traction at its elements'
    // nodes times their areas (the dynamic stiffness when divided by the displacement).
    std::vector<std::complex<double>> forces(3 * conditions.force_sets.size());
    for (std::size_t s = 0; s < conditions.force_sets.size(); ++s)
      for (const Index e : conditions.force_members[s])
        for (Index p = first_node[static_cast<std::size_t>(e)]; p < first_node[static_cast<std::size_t>(e) + 1]; ++p)
          for (std::size_t c = 0; c < 3; ++c) {
            const bem::Complex v = r.t[3 * static_cast<std::size_t>(p) + c];
            forces[3 * s + c] += std::complex<double>(v.re, v.im) * node_area[static_cast<std::size_t>(p)];
          }
    const std::vector<std::complex<double>> node_u =
        order == bem::ElementOrder::Constant ? std::vector<std::complex<double>>() : complex_of(r.u);
    const std::vector<std::complex<double>> node_t =
        order == bem::ElementOrder::Constant ? std::vector<std::complex<double>>() : complex_of(r.t);

    io::BemFrequencyFields fields;
    fields.frequency = frequency;
    fields.displacement = u;
    fields.traction = t;
    fields.node_displacement = node_u;
    fields.node_traction = node_t;
    fields.interior = interior;
    fields.forces = forces;
    fields.reciprocal_condition = r.solve.reciprocal_condition;
    fields.assembly_seconds = r.assembly_seconds + r.row_sum_seconds;
    fields.solve_seconds = r.solve_seconds;
    fields.interior_seconds = r.interior_seconds;
    file.write_bem_frequency(fields);
    file.set_progress(static_cast<std::int64_t>(solved.size() + 1), solve_wall);
    file.flush();
    solved.push_back(frequency);
    interior_rows.push_back(interior);

    print_frequency(frequency, r, u, interior, forces, conditions, problem, mesh);
    std::fflush(stdout);
    if (stop_signal() != 0 && solved.size() < problem.frequencies.size()) throw Stopped{};
    frequency_start = std::chrono::steady_clock::now();
  };
  try {
    bem::solve_frequencies(exec, mesh, material.density, material.lambda, material.mu, material.damping_ratio, omegas,
                           bem::conditions_at_nodes(mesh, order, conditions.values),
                           {order, integration, free_choice}, points, each);
  } catch (const Stopped&) {
    file.finish("incomplete", static_cast<std::int64_t>(solved.size()), solve_wall);
    std::fprintf(stderr, "interrupted by %s after %zu of %zu frequencies; %s holds them (status incomplete)\n",
                 stop_signal_name(), solved.size(), problem.frequencies.size(), file.path().string().c_str());
    throw ExitStatus{128 + stop_signal()};
  } catch (const std::exception& e) {
    const std::string why =
        solved.size() < problem.frequencies.size()
            ? str("at ", number(problem.frequencies[solved.size()]), " Hz: ", e.what())
            : std::string(e.what());
    file.finish(str("failed: ", why), static_cast<std::int64_t>(solved.size()), solve_wall);
    if (file.stopped_writing())  // the message says what the file keeps
      std::fprintf(stderr, "error: %s\n", why.c_str());
    else
      std::fprintf(stderr, "error: %s\n%s holds the %zu frequenc%s solved before it (status failed)\n", why.c_str(),
                   file.path().string().c_str(), solved.size(), solved.size() == 1 ? "y" : "ies");
    throw ExitStatus{1};
  }
  file.finish("complete", static_cast<std::int64_t>(solved.size()), solve_wall);
  if (!args.csv.empty() && !problem.interior_points.empty()) {
    write_interior_csv(args.csv, problem, solved, interior_rows);
    std::printf("  csv             %s\n", args.csv.c_str());
  } else if (!args.csv.empty()) {
    log::warn(str("--csv ", args.csv, ": the model has no interior points; no CSV written"));
  }
  std::printf("  output          %s (complete), %s; %.3g s in all\n", file.path().string().c_str(),
              file.xdmf_path().string().c_str(), seconds_since(started));
  std::fflush(stdout);
}

}  // namespace

void add_bem_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "bem", "Solve 3D elastodynamics in the frequency domain with boundary elements on a [bem] model file (.toml)");
  auto args = std::make_shared<BemArgs>();
  cmd->add_option("MODEL", args->model, "boundary-element model file (.toml with a [bem] table)")->required();
  cmd->add_option("-o,--output", args->output, "result file (default: <model stem>.h5 in the current directory)");
  cmd->add_option("--backend", args->backend, "backend (overrides the model; auto: cuda when a GPU is usable)")
      ->check(CLI::IsMember({"auto", "serial", "openmp", "cuda"}));
  cmd->add_option("--gauss", args->gauss, "Gauss points per direction per element piece (overrides the model; 1-16)")
      ->check(whole(1, 16));
  cmd->add_option("--free-term", args->free_term,
                  "strongly singular part: auto (rigid_body on closed meshes, direct on open), rigid_body, direct")
      ->check(CLI::IsMember({"auto", "rigid_body", "direct"}));
  cmd->add_option("--elements", args->elements,
                  "element type (overrides the model): constant (one node per element) or linear (one per vertex, "
                  "discontinuous)")
      ->check(CLI::IsMember({"constant", "linear"}));
  cmd->add_option("--csv", args->csv, "also write the interior displacements to this CSV file");
  cmd->add_flag("--allow-coarse", args->allow_coarse,
                "run a mesh with fewer than half the minimum elements per shear wavelength (warned, not refused)");
  cmd->callback([args] { bem_command(*args); });
}

}  // namespace tremor::cli
