// `tremor info FILE`: a summary of a model (.toml), an Abaqus input (.inp) or a Gmsh mesh (.msh):
// element counts per type, sets, materials, sections, bounding box, element sizes, the stable time
// step of the explicit solver and the memory it will need.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "tremor/cli/commands.hpp"
#include "tremor/cli/format.hpp"
#include "tremor/io/load.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/model/model.hpp"

namespace tremor::cli {

namespace {

const char* axis_name(int d) { return d == 0 ? "x" : d == 1 ? "y" : "z"; }

void print_sets(const char* heading, const std::map<std::string, std::vector<Index>>& sets) {
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

void print_material(const Material& m) {
  std::printf("  %-16s rho %s kg/m^3", m.name.c_str(), si(m.density).c_str());
  if (m.isotropic) {
    const double lambda = m.lambda(), mu = m.mu();
    const double youngs = mu * (3 * lambda + 2 * mu) / (lambda + mu);
    const double poisson = lambda / (2 * (lambda + mu));
    std::printf(", isotropic: E %sPa, nu %.4g", si(youngs).c_str(), poisson);
  } else {
    std::printf(", anisotropic (6x6 Voigt stiffness)");
  }
  std::printf(", c_max %s m/s, c_min %s m/s", si(m.max_wave_speed()).c_str(), si(m.min_wave_speed()).c_str());
  if (m.damping_alpha > 0) std::printf(", damping alpha %s 1/s", si(m.damping_alpha).c_str());
  std::printf("\n");
}

// Bytes of the explicit solver's state for one precision: displacement at three time levels, force,
// the damping and mass diagonals, plus the assembled stiffness in CSR (values, column indices, row
// offsets) — the largest of its operators (pogo paper eq. 4 form).
double explicit_bytes(Size dof, Size nnz, int real_bytes) {
  const double vectors = 6.0 * static_cast<double>(dof) * real_bytes;
  const int offset_bytes = nnz < (Size(1) << 31) ? 4 : 8;
  const double csr = static_cast<double>(nnz) * (real_bytes + 4) + static_cast<double>(dof + 1) * offset_bytes;
  return vectors + csr;
}

void run_info(const std::string& path) {
  const Model model = io::load_model(path);
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
  for (int d = 0; d < mesh.dim(); ++d) std::printf("%s [%s, %s] m  ", axis_name(d), si(lower[d]).c_str(), si(upper[d]).c_str());
  std::printf("\n");
  print_element_sizes(model);
  print_sets("node sets", mesh.node_sets);
  print_sets("element sets", mesh.element_sets);

  std::printf("%-18s%zu\n", "materials", model.materials.size());
  for (const auto& m : model.materials) print_material(m);
  std::printf("%-18s%zu\n", "sections", model.sections.size());
  for (const auto& s : model.sections) {
    std::printf("  %-24s -> %s, %s", s.element_set.c_str(), s.material.c_str(), to_string(s.formulation).c_str());
    if (s.formulation != Formulation::Solid) std::printf(", thickness %s m", si(s.thickness).c_str());
    std::printf("\n");
  }
  if (!model.fixed.empty() || !model.loads.empty() || !model.amplitudes.empty() || !model.histories.empty()) {
    std::printf("%-18s%zu fixed-dof groups, %zu load groups, %zu amplitudes, %zu history outputs\n", "loads & outputs",
                model.fixed.size(), model.loads.size(), model.amplitudes.size(), model.histories.size());
  }
  if (model.explicit_step) {
    std::printf("%-18s%s: duration %s s", "explicit step", model.explicit_step->name.c_str(),
                si(model.explicit_step->duration).c_str());
    if (model.explicit_step->fixed_increment > 0)
      std::printf(", fixed increment %s s", si(model.explicit_step->fixed_increment).c_str());
    std::printf("\n");
  }

  print_time_step(model);

  const NodeGraph graph = node_graph(mesh);
  const Size dof = static_cast<Size>(mesh.n_nodes()) * mesh.dim();
  const Size nnz = graph.n_entries() * mesh.dim() * mesh.dim();
  std::printf("%-18s%s DOF, stiffness %s non-zeros\n", "explicit solver", group_digits(dof).c_str(),
              group_digits(nnz).c_str());
  std::printf("  memory            %sB in double, %sB in single precision (state + CSR stiffness)\n",
              si(explicit_bytes(dof, nnz, 8)).c_str(), si(explicit_bytes(dof, nnz, 4)).c_str());
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Summarise a model (.toml), an Abaqus input (.inp) or a Gmsh mesh (.msh)");
  auto file = std::make_shared<std::string>();
  cmd->add_option("FILE", *file, "model, .inp or .msh file")->required();
  cmd->callback([file] { run_info(*file); });
}

}  // namespace tremor::cli
