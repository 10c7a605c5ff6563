#include "tremor/explicit/run_bytes.hpp"

#include <algorithm>
#include <vector>

#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/receivers.hpp"
#include "tremor/model/material_field.hpp"

namespace tremor::explicit_fe {

std::size_t element_bytes(const Mesh& mesh, bool coloured) {
  std::size_t total = static_cast<std::size_t>(mesh.n_nodes()) * static_cast<std::size_t>(mesh.dim()) * sizeof(double);
  for (const ElementBlock& block : mesh.blocks)
    total += block.connectivity.size() * sizeof(Index) +
             static_cast<std::size_t>(block.n_elements()) *
                 (sizeof(int) + 2 * sizeof(double) + (coloured ? sizeof(Index) : 0));
  return total;
}

std::size_t memory_per_point(const Model& model) {
  int most = 0;
  for (const Section& section : model.sections) {
    const Material& material = model.material(section.material);
    if (material.attenuation)
      most = std::max(most, material.attenuation->coarse_grained ? 1 : material.attenuation->solids);
  }
  return static_cast<std::size_t>(most) * (model.mesh.dim() == 3 ? 6 : 3);
}

std::size_t point_moduli_bytes(const Model& model, std::size_t real_size) {
  if (std::none_of(model.materials.begin(), model.materials.end(),
                   [](const Material& m) { return m.field && !m.field->by_element(); }))
    return 0;
  std::size_t points = 0;
  const std::vector<int> sections = model.element_sections();
  Index first = 0;
  for (const ElementBlock& block : model.mesh.blocks) {
    const Index n = block.n_elements();
    bool any = false;
    for (Index e = 0; e < n && takes_field_at_points(block.type, block.order) && !any; ++e) {
      const int s = sections[static_cast<std::size_t>(first + e)];
      const Material* material = s < 0 ? nullptr : &model.material(model.sections[static_cast<std::size_t>(s)].material);
      any = material && material->field && !material->field->by_element();
    }
    if (any) points += block.connectivity.size();
    first += n;
  }
  return points * 2 * real_size;
}

ElementBetas model_betas(const Model& model) {
  ElementBetas betas;
  for (const Section& section : model.sections) betas.take(model.material(section.material).damping_beta);
  return betas;
}
double largest_beta(const Model& model) { return model_betas(model).largest; }

std::size_t state_bytes(std::size_t n_dofs, int dim, std::size_t real_size, bool damped, std::size_t after) {
  const double coefficients = (damped ? 2.0 : 1.0) * static_cast<double>(real_size), per_node = coefficients / dim;
  const double setup = (damped ? 2.0 : 1.0) * sizeof(double) + coefficients + std::max(1.0, per_node);
  const double loop = 3.0 * static_cast<double>(real_size) + per_node;
  const auto n = static_cast<double>(n_dofs);
  return static_cast<std::size_t>(std::max(n * setup, n * loop + static_cast<double>(after)));
}

std::size_t recorder_bytes(const Model& model, std::size_t real_size) {
  std::size_t points = 0;
  for (const Receiver& r : model.receivers)
    points += r.grid ? static_cast<std::size_t>(r.grid->n_points()) : std::max(r.nodes.size(), r.positions.size());
  const std::size_t pair = 2 * points * static_cast<std::size_t>(model.mesh.dim()) * real_size;
  return pair == 0 ? 0 : pair * static_cast<std::size_t>(buffered_recording_steps(pair));
}

std::size_t snapshot_bytes(const Model& model, int every, std::size_t real_size) {
  if (every <= 0 || !model.output) return 0;
  const OutputSettings& output = *model.output;
  const std::size_t nodes = output.snapshot_nodes.empty() ? static_cast<std::size_t>(model.mesh.n_nodes())
                                                          : output.snapshot_nodes.size();
  const std::size_t n = nodes * static_cast<std::size_t>(model.mesh.dim());
  return n * (sizeof(Index) + real_size + (output.velocity ? real_size + sizeof(double) : 0)) +
         (output.pressure ? nodes * (sizeof(Index) + real_size) : 0);
}

std::size_t fluid_snapshot_bytes(const FluidSetup& fluid, const Model& solid, int every, std::size_t real_size) {
  if (every <= 0 || !solid.output) return 0;
  const OutputSettings& output = *solid.output;
  std::vector<bool> held(static_cast<std::size_t>(solid.mesh.n_nodes()), false);
  for (const ElementBlock& block : solid.mesh.blocks)
    for (const Index node : block.connectivity) held[static_cast<std::size_t>(node)] = true;
  std::size_t only_fluid = 0;
  const auto count = [&](Index node) {
    only_fluid += !held[static_cast<std::size_t>(node)] &&
                  std::binary_search(fluid.mesh.nodes.begin(), fluid.mesh.nodes.end(), node);
  };
  if (output.snapshot_nodes.empty())
    for (Index node = 0; node < solid.mesh.n_nodes(); ++node) count(node);
  else
    for (const Index node : output.snapshot_nodes) count(node);
  std::size_t entries = 0;
  for (const ElementBlock& block : fluid.mesh.model.mesh.blocks) {
    const bool gll = block.type == ElementType::HexGLL || block.type == ElementType::QuadGLL;
    entries = std::max(entries, static_cast<std::size_t>(gll ? block.order + 1 : block.n_element_nodes()));
  }
  const auto dim = static_cast<std::size_t>(solid.mesh.dim());
  return only_fluid * dim *
         (2 * sizeof(Index) + entries * (sizeof(Index) + sizeof(double)) + (output.velocity ? real_size : 0));
}

std::size_t estimate(const Mesh& mesh, const op::OperatorEntry& op, Size stiffness_nnz, std::size_t real_size,
                     bool coloured, bool damped, Index max_neighbours, std::size_t geometry_values, bool split,
                     bool host, const ElementBetas& betas, std::size_t memory_values, const PmlBytes& pml) {
  const auto n = static_cast<std::size_t>(mesh.n_nodes()) * static_cast<std::size_t>(mesh.dim());
  const bool colours = coloured || op.needs_colouring;
  const std::size_t elements = element_bytes(mesh, colours);
  op::OperatorSizes sizes{&mesh, stiffness_nnz, max_neighbours, real_size, elements, geometry_values};
  sizes.memory_per_point = memory_values;
  sizes.coloured = colours;
  sizes.host = host;
  const std::size_t mass = n * sizeof(double) * (damped ? 2 : 1);
  // The time loop: the operator (the elements for the element-by-element kinds) and the integrator
  // state. Split in two, the parts' elements hold the coordinates twice; while the parts are built,
  // the whole's elements are held too.
  const std::size_t coordinates = n * sizeof(double);
  const std::size_t loop = op.loop_bytes(sizes) + (split ? coordinates : 0) +
                           state_bytes(n, mesh.dim(), real_size, damped, pml.state) + pml.elements;
  // The set-up's peak: elements, mass and damping, and what building the operator holds (K in
  // double while its format is filled), or the operator built (an assembled kind's own arrays;
  // an element-by-element one's loop bytes are the elements). The row lengths the converters stage
  // (4 B per row) are freed before the format is allocated.
  // Split, the two parts are built one after the other, each while its own elements are held:
  // about half of the whole's set-up bytes at a time.
  const std::size_t built = op.setup_bytes(sizes) / (split ? 2 : 1);
  const std::size_t kept = op.needs_assembly ? op.loop_bytes(sizes) : 0;
  const std::size_t setup =
      elements + mass + std::max(built, kept) + (split ? elements + coordinates : 0) + pml.elements;
  if (!betas.any()) return std::max(setup, loop);
  // Stiffness-proportional damping: the velocity, and the product of an operator that does not add
  // (the assembled kinds); where beta differs by element or the run's K keeps memory variables, an
  // operator of its own, built (from its own elements, held since the mass) once the run's is.
  const std::size_t vectors = n * real_size * (op.needs_assembly ? 2 : 1);
  // (An attenuating run's K keeps memory variables: the term then has an operator of its own.)
  if (betas.uniform && memory_values == 0) return std::max(setup, loop + vectors);
  const std::size_t own = op.loop_bytes(sizes);
  return std::max({setup + elements, loop + elements + std::max(op.setup_bytes(sizes), own), loop + own + vectors});
}

std::size_t memory_estimate(const Mesh& mesh, const op::OperatorEntry& op, Size stiffness_nnz,
                            std::size_t real_size, bool coloured, bool damped, Index max_neighbours) {
  return estimate(mesh, op, stiffness_nnz, real_size, coloured, damped, max_neighbours, 0);
}

}  // namespace tremor::explicit_fe
