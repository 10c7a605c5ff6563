// `tremor info FILE`: a summary of a model (.toml), an Abaqus input (.inp) or a Gmsh mesh (.msh):
// element counts per type, sets, materials, sections, bounding box, element sizes, loads (body
// forces among them), the explicit and static solvers' settings, the stable time step of the
// explicit solver and the memory it will need.
#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "tremor/cli/commands.hpp"
#include "tremor/cli/options.hpp"
#include "tremor/core/format.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/solver.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/fem/geometry.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/io/load.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/model/model.hpp"
#include "tremor/model/material_field.hpp"
#include "tremor/model/microstructure.hpp"
#include "tremor/model/pml.hpp"

namespace tremor::cli {

namespace {

const char* axis_name(int d) { return d == 0 ? "x" : d == 1 ? "y" : "z"; }

template <class Member>
void print_sets(const char* heading, const std::map<std::string, std::vector<Member>>& sets) {
  std::printf("%-18s%zu\n", heading, sets.size());
  std::size_t shown = 0;
  for (const auto& [name, members] : sets) {
    if (++shown > 20) {
      std::printf("  ... and %zu more\n", sets.size() - 20);
      break;
    }
    std::printf("  %-24s %s\n", name.c_str(), group_digits(static_cast<long long>(members.size())).c_str());
  }
}

void print_element_sizes(const Model& model) {
  if (model.mesh.n_elements() == 0) return;
  fem::check_geometry(model.mesh, model.mesh_source());
  const auto sizes = fem::element_sizes(model.mesh);
  double smallest = sizes.front().min_length, largest = sizes.front().max_length;
  for (const auto& s : sizes) {
    smallest = std::min(smallest, s.min_length);
    largest = std::max(largest, s.max_length);
  }
  std::printf("%-18ssmallest %sm, largest %sm (distance between two vertices of an element)\n", "element size",
              si(smallest).c_str(), si(largest).c_str());
}

// The explicit solver's stable step (central difference, lumped mass): 2 / sqrt(max_e lambda_e),
// an upper bound of the global one; docs/elements.md derives it.
void print_time_step(const Model& model) {
  if (model.materials.empty() || model.sections.empty()) {
    std::printf("%-18sneeds materials and sections (a mesh file alone has none)\n", "stable time step");
    return;
  }
  // With fluids: the coupled bound (explicit_fe::with_fluid), as the run takes.
  const explicit_fe::StableStep estimate = explicit_fe::stable_step(model, Exec::openmp());
  std::printf("%-18s%ss (%s); the explicit solver uses 0.9 of it by default\n", "stable time step",
              si(estimate.dt).c_str(), estimate.by.c_str());
  if (model.explicit_step && model.explicit_step->duration > 0)
    std::printf("  steps for %ss    %s at 0.9 x the stable step\n", si(model.explicit_step->duration).c_str(),
                group_digits(static_cast<long long>(std::ceil(model.explicit_step->duration / (0.9 * estimate.dt))))
                    .c_str());
}

void print_material(const Material& m) {
  if (m.field) {
    std::printf("  %-16s isotropic, %s", m.name.c_str(), m.field->describe().c_str());
  } else {
    std::printf("  %-16s rho %g kg/m^3", m.name.c_str(), m.density);
    if (m.fluid) {
      std::printf(", fluid: bulk modulus %sPa, sound speed %.0f m/s\n", si(m.bulk_modulus).c_str(), m.sound_speed());
      return;
    }
    if (m.isotropic) {
      const double lambda = m.lambda(), mu = m.mu();
      const double youngs = mu * (3 * lambda + 2 * mu) / (lambda + mu);
      const double poisson = lambda / (2 * (lambda + mu));
      std::printf(", isotropic: E %sPa, nu %.4g", si(youngs).c_str(), poisson);
    } else {
      std::printf(", anisotropic (6x6 Voigt stiffness)");
    }
  }
  std::printf("%s wave speeds %.0f..%.0f m/s", m.field ? ";" : ",", m.min_wave_speed(), m.max_wave_speed());
  if (m.damping_alpha > 0) std::printf(", damping alpha %g 1/s", m.damping_alpha);
  if (m.damping_beta > 0) std::printf(", damping beta %g s", m.damping_beta);
  std::printf("\n");
  if (const Microstructure* g = m.grains.get()) {
    if (g->from_file()) {
      std::printf("    grains: orientations of %zu elements from %s\n", g->labels.size(), g->file.c_str());
    } else {
      std::printf("    grains: Voronoi, mean size %sm, seed %llu", si(g->size).c_str(),
                  static_cast<unsigned long long>(g->seed));
      if (g->elongation != std::array<double, 3>{1.0, 1.0, 1.0})
        std::printf(", elongated %g x %g x %g", g->elongation[0], g->elongation[1], g->elongation[2]);
      if (g->fibre_texture)
        std::printf(", fibre texture: <001> along (%.3g, %.3g, %.3g), spread %.3g deg\n", g->fibre[0], g->fibre[1],
                    g->fibre[2], g->spread * 180.0 / std::numbers::pi);
      else
        std::printf(", random orientations\n");
    }
  }
}

std::string signal_text(const Signal& signal) {
  // One point: the same value at all times (a static model's load without a signal).
  if (signal.kind == SignalKind::Tabulated && signal.table.size() == 1) return "constant";
  std::string text(to_string(signal.kind));
  if (signal.kind == SignalKind::ToneBurst)
    text += str(" ", si(signal.frequency), "Hz, ", signal.cycles, " cycles");
  else if (signal.kind == SignalKind::Ricker)
    text += str(" ", si(signal.frequency), "Hz");
  else if (signal.kind == SignalKind::Gaussian)
    text += str(" b = ", signal.sharpness, " 1/s^2, t0 = ", si(signal.centre), "s");
  return text;
}

// "(0, 0, -9.81)" with dim components.
std::string vector_text(const std::array<double, 3>& v, int dim) {
  std::string text = "(";
  for (int d = 0; d < dim; ++d) text += str(d ? ", " : "", v[static_cast<std::size_t>(d)]);
  return text + ")";
}

// Body forces: the set, the acceleration or force per volume, and the elements they cover.
void print_body_forces(const Model& model) {
  if (model.body_forces.empty()) return;
  const int dim = model.mesh.dim();
  const auto non_zero = [](const std::array<double, 3>& v) { return v[0] != 0.0 || v[1] != 0.0 || v[2] != 0.0; };
  std::printf("%-18s%zu\n", "body forces", model.body_forces.size());
  for (const BodyForce& force : model.body_forces) {
    const std::string where = force.element_set.empty() ? std::string("all elements") : force.element_set;
    std::printf("  %-24s ", where.c_str());
    const bool per_volume = non_zero(force.force_per_volume);
    if (non_zero(force.acceleration) || !per_volume)
      std::printf("acceleration %s m/s^2", vector_text(force.acceleration, dim).c_str());
    if (per_volume)
      std::printf("%sforce %s N/m^3", non_zero(force.acceleration) ? ", " : "",
                  vector_text(force.force_per_volume, dim).c_str());
    std::printf(" on %s elements", group_digits(static_cast<long long>(force.elements.size())).c_str());
    if (!force.amplitude.empty()) std::printf(", amplitude %s", force.amplitude.c_str());
    std::printf("\n");
  }
}

// The static solver's settings (the model file's [static], or an Abaqus *STATIC step).
void print_static(const Model& model) {
  if (!model.static_settings) return;
  const StaticSettings& s = *model.static_settings;
  std::printf("%-18s", "static");
  if (!s.step_name.empty()) std::printf("step %s: ", s.step_name.c_str());
  std::printf("%s, %s preconditioner, tolerance %g, at most %d iterations, %s matrix, %s assembly, backend %s\n",
              std::string(to_string(s.precision)).c_str(),
              std::string(name_of(s.preconditioner, preconditioner_names)).c_str(), s.tolerance, s.max_iterations,
              std::string(name_of(s.format, static_format_names)).c_str(),
              std::string(name_of(s.assembly, static_assembly_names)).c_str(),
              std::string(name_of(s.backend, backend_names)).c_str());
}

// The model file's sources, prescribed displacements, receivers, absorbing layers, snapshots and
// solver settings: what a run will do, checked before running it.
// The holes, notches and cracks cut into the mesh, and what each did there.
void print_defects(const Model& model) {
  if (!model.holes.empty()) std::printf("%-18s%zu\n", "holes, notches", model.holes.size());
  const bool plane = model.mesh.dim() == 2;
  const auto point = [&](const std::array<double, 3>& p) {
    return str("(", si(p[0]), "m, ", si(p[1]), "m", plane ? "" : str(", ", si(p[2]), "m"), ")");
  };
  const auto direction = [&](const std::array<double, 3>& v) {
    return str("(", v[0], ", ", v[1], plane ? "" : str(", ", v[2]), ")");
  };
  for (const Hole& h : model.holes) {
    std::string shape;
    if (h.kind == Hole::Kind::side_drilled)
      shape = str("radius ", si(h.radius), "m at ", point(h.centre), plane ? "" : str(" along ", direction(h.axis)));
    else if (h.kind == Hole::Kind::flat_bottom)
      shape = str("radius ", si(h.radius), "m, its bottom at ", point(h.centre), ", out along ", direction(h.axis));
    else
      shape = str("width ", si(h.width), "m", plane ? "" : str(", length ", si(h.length), "m along ", direction(h.along)),
                  ", its bottom at ", point(h.centre), ", out along ", direction(h.axis));
    std::printf("  %-24s %s, %s: %s elements removed, its wall %s faces\n", h.name.c_str(), h.kind_name(),
                shape.c_str(), group_digits(h.removed).c_str(), group_digits(h.wall_faces).c_str());
  }
  if (!model.cracks.empty()) std::printf("%-18s%zu\n", "cracks", model.cracks.size());
  for (const Crack& c : model.cracks) {
    std::string points;
    for (const auto& p : c.points) {
      if (!points.empty()) points += ' ';
      points += point(p);
    }
    std::printf("  %-24s %s: %s faces on it, %s nodes split\n", c.name.c_str(), points.c_str(),
                group_digits(c.faces).c_str(), group_digits(c.copied_nodes).c_str());
  }
}

void print_excitation(const Model& model) {
  const auto of_arrays = static_cast<std::size_t>(std::count_if(
      model.transducers.begin(), model.transducers.end(), [](const Transducer& t) { return !t.array.empty(); }));
  if (model.transducers.size() > of_arrays)
    std::printf("%-18s%zu\n", "transducers", model.transducers.size() - of_arrays);
  for (const Transducer& t : model.transducers) {
    if (!t.array.empty()) continue;  // with its array, below
    if (t.mode == Transducer::Mode::Piston) {
      const bool plane = model.mesh.dim() == 2;
      std::printf("  %-24s piston at (%sm, %sm%s) on '%s': %s of %sm %s, %s faces, %s%s, %s\n", t.name.c_str(),
                  si(t.position[0]).c_str(), si(t.position[1]).c_str(),
                  plane ? "" : str(", ", si(t.position[2]), "m").c_str(), t.surface.c_str(), plane ? "strip" : "disc",
                  si(t.radius).c_str(), plane ? "half-width" : "radius",
                  group_digits(static_cast<long long>(t.piston_faces.size())).c_str(), si(t.amplitude).c_str(),
                  t.drive == Transducer::Drive::Velocity ? "m/s normal velocity" : "Pa pressure",
                  signal_text(t.signal).c_str());
      continue;
    }
    std::printf("  %-24s %s at (%sm, %sm) on '%s'%s: ", t.name.c_str(), t.mode == Transducer::Mode::A0 ? "A0" : "S0",
                si(t.position[0]).c_str(), si(t.position[1]).c_str(), t.surface.c_str(),
                t.mode == Transducer::Mode::S0 ? str(" and '", t.opposite, "'").c_str() : "");
    if (t.radius > 0.0)
      std::printf("disc of %sm radius, %s faces of %.4g mm^2 each side", si(t.radius).c_str(),
                  group_digits(static_cast<long long>(t.faces.empty() ? 0 : t.faces.front())).c_str(), t.area * 1e6);
    else
      std::printf("point force");
    std::printf(", %sN, %s\n", si(t.amplitude).c_str(), signal_text(t.signal).c_str());
  }
  if (!model.arrays.empty()) std::printf("%-18s%zu\n", "arrays", model.arrays.size());
  for (const TransducerArray& a : model.arrays) {
    const bool plane = model.mesh.dim() == 2;
    const std::string count = a.rows > 1 ? str(a.columns(), " x ", a.rows, " (", group_digits(a.n_elements), ")")
                                         : group_digits(a.n_elements);
    const std::string pitch = a.rows > 1 ? str(si(a.pitch), "m x ", si(a.row_pitch), "m") : str(si(a.pitch), "m");
    std::printf("  %-24s %s elements, pitch %s, %sm wide%s, %s '%s' at (%sm, %sm%s), %s, %s%s\n", a.name.c_str(),
                count.c_str(), pitch.c_str(), si(a.width).c_str(), plane ? "" : str(" x ", si(a.length), "m").c_str(),
                a.immersion ? "in the fluid on" : "on", a.surface.c_str(), si(a.centre[0]).c_str(),
                si(a.centre[1]).c_str(), plane ? "" : str(", ", si(a.centre[2]), "m").c_str(),
                a.immersion ? str(si(a.amplitude), "m/s normal velocity").c_str() : str(si(a.amplitude), "Pa").c_str(),
                signal_text(a.signal).c_str(), a.fmc ? ", full-matrix capture (a shot per element)" : "");
  }
  if (!model.shots.empty())
    std::printf("%-18s%zu, stepped one after another on one set-up\n", "shots", model.shots.size());
  for (const Shot& shot : model.shots)
    if (shot.array.empty()) std::printf("  %-24s fires %s\n", shot.name.c_str(), listed(shot.transducers).c_str());
  for (const TransducerArray& a : model.arrays)
    if (a.fmc)
      std::printf("  %-24s each element of array '%s' in turn\n", str(a.element_name(0), " ...").c_str(),
                  a.name.c_str());
  if (!model.defects.empty()) std::printf("%-18s%zu\n", "defects", model.defects.size());
  for (std::size_t k = 0; k < model.defects.size(); ++k) {
    const Defect& d = model.defects[k];
    std::printf("  %-24s %s, ", d.name.c_str(), d.side == Defect::Side::Top ? "top" : "bottom");
    if (d.map)
      std::printf("depth map of %s x %s points from (%sm, %sm) every %sm x %sm", group_digits(d.map->nx).c_str(),
                  group_digits(d.map->ny).c_str(), si(d.map->origin[0]).c_str(), si(d.map->origin[1]).c_str(),
                  si(d.map->spacing[0]).c_str(), si(d.map->spacing[1]).c_str());
    else
      std::printf("random outline of %d points at %sm..%sm from (%sm, %sm), up to %sm deep, seed %llu", d.outline_points,
                  si(d.inner_radius).c_str(), si(d.outer_radius).c_str(), si(d.centre[0]).c_str(), si(d.centre[1]).c_str(),
                  si(d.max_depth).c_str(), static_cast<unsigned long long>(d.seed));
    if (k < model.defect_effects.size())
      std::printf(": %s surface corners %s, the deepest by %sm", group_digits(model.defect_effects[k].corners).c_str(),
                  d.side == Defect::Side::Top ? "lowered" : "raised", si(model.defect_effects[k].deepest).c_str());
    std::printf("\n");
  }
  print_defects(model);
  if (!model.point_sources.empty()) std::printf("%-18s%zu\n", "point sources", model.point_sources.size());
  for (const PointSource& source : model.point_sources) {
    std::string where = str("node set ", source.node_set);
    if (source.node_set.empty() && source.position) {
      where = "at (";
      for (int d = 0; d < model.mesh.dim(); ++d) where += str(d ? ", " : "", (*source.position)[static_cast<std::size_t>(d)]);
      where += ")";
    }
    if (!source.name.empty()) where = str(source.name, " ", where);
    // A step smoothed by a Gaussian rate (a CMTSOLUTION's moment): its final value.
    const bool step = source.integrated == 1 && source.signal.kind == SignalKind::Gaussian;
    const double scale = step ? std::sqrt(std::numbers::pi / source.signal.sharpness) : 1.0;
    const std::string how = step ? str("a step centred at ", si(source.signal.centre), "s, its rate ",
                                       signal_text(source.signal))
                                 : str(source.integrated ? "the integral of " : "", signal_text(source.signal));
    if (source.moment) {
      // M0 = sqrt(M:M / 2) (Silver & Jordan 1982); Mw = (2/3)(log10 M0 - 9.1), M0 in N m.
      const std::array<double, 6>& m = *source.moment;
      double mm = 0.0;
      for (std::size_t k = 0; k < 6; ++k) mm += (k < 3 ? 1.0 : 2.0) * m[k] * m[k];
      const double m0 = std::abs(source.amplitude) * scale * std::sqrt(mm / 2.0);
      std::printf("  %-24s moment tensor, M0 %sN m (Mw %.2f), %s", where.c_str(), si(m0).c_str(),
                  2.0 / 3.0 * (std::log10(m0) - 9.1), how.c_str());
      if (source.delay > 0) std::printf(", delay %ss", si(source.delay).c_str());
      std::printf("\n");
      continue;
    }
    std::printf("  %-24s %s%s, %s", where.c_str(), si(source.amplitude * scale).c_str(),
                source.volume ? "m^3 volume" : "N", how.c_str());
    if (source.delay > 0) std::printf(", delay %ss", si(source.delay).c_str());
    std::printf("\n");
  }
  if (!model.prescribed.empty())
    std::printf("%-18s%zu\n", "prescribed", model.prescribed.size());
  for (const PrescribedDisplacement& p : model.prescribed)
    std::printf("  %-24s %sm, %s\n", p.node_set.c_str(), si(p.amplitude).c_str(), signal_text(p.signal).c_str());
  if (!model.receivers.empty()) std::printf("%-18s%zu\n", "receivers", model.receivers.size());
  for (const Receiver& r : model.receivers) {
    std::printf("  %-24s ", r.name.c_str());
    if (r.grid)
      std::printf("grid of %s x %s points on '%s' from (%sm, %sm) to (%sm, %sm)", group_digits(r.grid->count[0]).c_str(),
                  group_digits(r.grid->count[1]).c_str(), r.grid->surface.c_str(), si(r.grid->min[0]).c_str(),
                  si(r.grid->min[1]).c_str(), si(r.grid->max[0]).c_str(), si(r.grid->max[1]).c_str());
    else if (r.nodes.empty())
      std::printf("%zu %s", r.positions.size(), r.point_names.empty() ? "positions" : "stations");
    else
      std::printf("%s nodes", group_digits(static_cast<long long>(r.nodes.size())).c_str());
    std::printf(", %s%s%s%s every %d step%s\n", r.displacement ? "u" : "", r.velocity ? " v" : "",
                r.acceleration ? " a" : "", r.pressure ? "p" : "", r.every_n_steps, r.every_n_steps == 1 ? "" : "s");
  }
  if (!model.absorbing.empty()) std::printf("%-18s%zu\n", "absorbing layers", model.absorbing.size());
  for (const std::string& line : describe_pml(model, pml_profile(model))) std::printf("  %s\n", line.c_str());
  for (const AbsorbingLayer& layer : model.absorbing) {
    if (layer.kind == AbsorbingKind::Pml) continue;  // above
    std::string where = layer.element_set.empty() ? std::string() : str("set ", layer.element_set);
    for (BoxFace face : layer.faces) where += str(where.empty() ? "" : " ", to_string(face));
    std::printf("  %-24s %s, thickness %sm, alpha_max %s1/s (d/L)^%g, design frequency %sHz\n", where.c_str(),
                std::string(to_string(layer.kind)).c_str(), si(layer.thickness).c_str(),
                si(layer_alpha_max(model, layer)).c_str(), layer.power, si(design_frequency(model, layer)).c_str());
  }
  if (model.output && model.output->snapshots()) {
    const OutputSettings& output = *model.output;
    std::printf("%-18s", "snapshots");
    if (output.snapshot_every > 0)
      std::printf("every %d steps", output.snapshot_every);
    else
      std::printf("every %ss", si(output.snapshot_interval).c_str());
    std::printf(", %s%s%s%s, %s\n", "displacement", output.magnitude ? ", magnitude" : "",
                output.velocity ? ", velocity" : "", output.pressure ? ", pressure" : "",
                output.snapshot_node_set.empty() ? "all nodes"
                                                 : str("node set ", output.snapshot_node_set).c_str());
  }
  if (model.explicit_settings) {
    const ExplicitSettings& e = *model.explicit_settings;
    std::printf("%-18sduration %ss, %s, %s operator, backend %s", "explicit", si(e.duration).c_str(),
                e.precision.c_str(), e.operator_kind.c_str(), e.backend.c_str());
    if (e.time_step > 0)
      std::printf(", time step %ss", si(e.time_step).c_str());
    else
      std::printf(", time step %g x stable", e.safety_factor);
    std::printf("\n");
  }
}

// The explicit solver's DOF and K's entries, and the memory a run takes: for a model the explicit
// solver can run, the run's own estimate, from its pre-flight on the host (the operator "auto"
// takes, memory variables, layers and fluid included; its warnings are the run's to give), up to
// 20M DOF, where that takes seconds; else the mesh's alone, with the model's operator or the
// reference.
void print_explicit_solver(const Model& model) {
  const Mesh& mesh = model.mesh;
  const Size dof = static_cast<Size>(mesh.n_nodes()) * mesh.dim();
  const Size nnz = node_graph_entries(mesh) * mesh.dim() * mesh.dim();
  // The model's operator when it names one that takes the mesh, else the reference (scalar CSR).
  const op::OperatorEntry* named =
      model.explicit_settings ? explicit_fe::operators().find(model.explicit_settings->operator_kind) : nullptr;
  const op::OperatorEntry& entry =
      named && named->takes(mesh) ? *named : explicit_fe::operators().reference();
  const fem::Unknowns unknowns = fem::count_unknowns(model);
  const std::string potentials =
      unknowns.potentials ? str(" and ", group_digits(unknowns.potentials), " fluid potentials") : std::string();
  std::printf("%-18s%s DOF%s, stiffness %s non-zeros\n", "explicit solver",
              group_digits(unknowns.displacements).c_str(), potentials.c_str(), group_digits(nnz).c_str());
  std::size_t run_bytes[2] = {0, 0};
  std::string run_operator[2];
  const auto estimate = [&] {
    const log::Quiet quiet;
    for (const int k : {0, 1}) {
      explicit_fe::RunOptions options;
      options.precision = k == 0 ? "double" : "float";
      options.backend = "openmp";
      const explicit_fe::Preflight p = explicit_fe::preflight(model, options);
      run_bytes[k] = p.memory_bytes;
      run_operator[k] = std::string(p.operator_kind());
    }
    (void)log::take_warnings();
  };
  if (dof <= Size(20'000'000)) {
    try {
      estimate();
    } catch (const Error& e) {  // (not a model the explicit solver runs as it stands: said)
      (void)log::take_warnings();
      run_bytes[0] = run_bytes[1] = 0;
      std::printf("  run               refused as it stands: %s\n", e.what());
    }
  }
  if (run_bytes[0] > 0) {
    // ("auto" may take another operator in each precision.)
    const std::string operators =
        run_operator[0] == run_operator[1]
            ? str("the ", run_operator[0], " operator")
            : str("the ", run_operator[0], " operator in double, ", run_operator[1], " in single");
    std::printf("  memory            %sB in double, %sB in single precision (a run's estimate on the host, %s)\n",
                si(static_cast<double>(run_bytes[0])).c_str(), si(static_cast<double>(run_bytes[1])).c_str(),
                operators.c_str());
    return;
  }
  std::printf("  memory            %sB in double, %sB in single precision (state + %s)\n",
              si(static_cast<double>(explicit_fe::memory_estimate(mesh, entry, nnz, 8))).c_str(),
              si(static_cast<double>(explicit_fe::memory_estimate(mesh, entry, nnz, 4))).c_str(),
              entry.reference ? "CSR stiffness" : str("the ", entry.name, " operator").c_str());
}

void run_info(const std::string& path, std::optional<int> order) {
  const Model model = io::load_model(path, order);
  const Mesh& mesh = model.mesh;
  std::printf("%-18s%s\n", "file", path.c_str());
  if (!model.title.empty()) std::printf("%-18s%s\n", "title", model.title.c_str());
  std::printf("%-18s%dD, %s nodes, %s elements\n", "mesh", mesh.dim(), group_digits(mesh.n_nodes()).c_str(),
              group_digits(mesh.n_elements()).c_str());
  for (const auto& block : mesh.blocks)
    std::printf("  %-24s %s\n", element_name(block.type, block.order).c_str(),
                group_digits(block.n_elements()).c_str());
  double lower[3], upper[3];
  mesh.bounding_box(lower, upper);
  std::printf("%-18s", "bounding box");
  for (int d = 0; d < mesh.dim(); ++d) std::printf("%s [%g, %g]  ", axis_name(d), lower[d], upper[d]);
  std::printf("m\n");
  print_element_sizes(model);
  print_sets("node sets", mesh.node_sets);
  print_sets("element sets", mesh.element_sets);
  print_sets("surfaces", mesh.face_sets);

  std::printf("%-18s%zu\n", "materials", model.materials.size());
  for (const auto& m : model.materials) {
    print_material(m);
    // Its attenuation resolved for this model (a band from its sources): what the run will fit.
    if (m.attenuation) {
      try {
        std::printf("    attenuation %s\n", describe(resolve_attenuation(model, m), m).c_str());
      } catch (const Error& error) {
        std::printf("    attenuation: %s\n", error.what());
      }
    }
  }
  const bool fields = std::any_of(model.materials.begin(), model.materials.end(),
                                  [](const Material& m) { return m.field != nullptr; });
  const bool grains = std::any_of(model.materials.begin(), model.materials.end(),
                                  [](const Material& m) { return m.grains != nullptr; });
  if (fields || grains) {
    // What the elements sampled (at their centres), and their grains: the distinct materials the
    // kernels read.
    const ElementMaterials rows = element_materials(model);
    const bool at_points = std::any_of(model.mesh.blocks.begin(), model.mesh.blocks.end(), [](const ElementBlock& b) {
      return b.n_elements() > 0 && takes_field_at_points(b.type, b.order);
    });
    std::printf("  (%s: %zu distinct materials%s)\n",
                fields && grains ? "fields sampled at element centres, and grains"
                : fields         ? "fields sampled at element centres"
                                 : "grains",
                rows.rows.size() - model.sections.size(),
                fields && at_points ? "; GLL elements take grid fields at every node as well" : "");
  }
  std::printf("%-18s%zu\n", "sections", model.sections.size());
  for (const auto& s : model.sections) {
    const bool fluid = model.material(s.material).fluid;
    std::printf("  %-24s -> %s, %s", s.element_set.c_str(), s.material.c_str(),
                fluid ? "fluid" : to_string(s.formulation).c_str());
    if (s.formulation != Formulation::Solid) std::printf(", thickness %sm", si(s.thickness).c_str());
    std::printf("\n");
  }
  // Where fluids meet solids: the faces the coupling integrates over (refused where they meet
  // otherwise: fem/coupling.hpp).
  if (model.has_fluids()) {
    const fem::FluidSolidInterface interface = fem::fluid_solid_interface(model);
    std::printf("%-18s%zu faces, %zu nodes\n", "fluid-solid", interface.faces.size(), interface.nodes().size());
  }
  if (!model.fixed.empty() || !model.loads.empty() || !model.amplitudes.empty() || !model.histories.empty()) {
    std::printf("%-18s%zu fixed-dof groups, %zu load groups, %zu amplitudes, %zu history outputs\n", "loads & outputs",
                model.fixed.size(), model.loads.size(), model.amplitudes.size(), model.histories.size());
  }
  if (!model.surface_loads.empty()) {
    std::printf("%-18s%zu\n", "surface loads", model.surface_loads.size());
    for (const SurfaceLoad& load : model.surface_loads) {
      std::printf("  %-24s ", (load.name.empty() ? load.surface : load.name).c_str());
      if (load.pressure) {
        std::printf("pressure %sPa", si(*load.pressure).c_str());
      } else {
        std::printf("traction (");
        for (int d = 0; d < mesh.dim(); ++d)
          std::printf("%s%sPa", d ? ", " : "", si(load.traction[static_cast<std::size_t>(d)]).c_str());
        std::printf(")");
      }
      std::printf(" on %s faces", group_digits(static_cast<long long>(load.faces.size())).c_str());
      if (!load.name.empty()) std::printf(" of '%s'", load.surface.c_str());
      if (load.signal)
        std::printf(", %s signal", std::string(to_string(load.signal->kind)).c_str());
      else if (!load.amplitude.empty())
        std::printf(", amplitude %s", load.amplitude.c_str());
      std::printf("\n");
    }
  }
  print_body_forces(model);
  print_excitation(model);
  print_static(model);
  if (model.explicit_step) {
    std::printf("%-18s%s: duration %ss", "explicit step", model.explicit_step->name.c_str(),
                si(model.explicit_step->duration).c_str());
    if (model.explicit_step->fixed_increment > 0)
      std::printf(", fixed increment %ss", si(model.explicit_step->fixed_increment).c_str());
    std::printf("\n");
  }

  print_time_step(model);

  print_explicit_solver(model);
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Summarise a model (.toml), an Abaqus input (.inp) or a Gmsh mesh (.msh)");
  auto file = std::make_shared<std::string>();
  auto order = std::make_shared<std::optional<int>>();
  cmd->add_option("FILE", *file, "model, .inp or .msh file")->required();
  add_order_option(cmd, *order);
  cmd->callback([file, order] { run_info(*file, *order); });
}

}  // namespace tremor::cli
