#include "tremor/explicit/operator.hpp"
#include "tremor/explicit/partitioned_operator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tremor/core/error.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/element_tiles.hpp"
#include "tremor/fem/linear_evaluation.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/partition/block_file.hpp"
#include "tremor/sem/operator.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor::explicit_fe {

// ------------------------------------------------------------------------------------- registry

namespace {

template <class Real>
std::unique_ptr<op::Operator<Real>> make_matrix_free(const op::OperatorInputs& inputs) {
  return std::make_unique<MatrixFreeOperator<Real>>(inputs.elements->exec, inputs.elements, inputs.deterministic, 0,
                                                    inputs.time_step);
}

template <class Real>
std::unique_ptr<op::Operator<Real>> make_partitioned(const op::OperatorInputs& inputs) {
  const Model& model = *inputs.model;
  const Exec& exec = inputs.elements->exec;
  // The partitioners work on the host node graph; the layout is filled from a host K.
  const sparse::CsrMatrix K = sparse::assemble_stiffness(model, fem::section_table(model, false),
                                                         fem::colour_elements(model.mesh), host_exec(exec));
  if (inputs.blocks.empty()) return std::make_unique<PartitionedOperator<Real>>(exec, K, model.mesh);
  return std::make_unique<PartitionedOperator<Real>>(
      exec, K, model.mesh, partition::read_block_file(inputs.blocks, node_graph(model.mesh)));
}

template <class Real>
std::unique_ptr<op::Operator<Real>> matrix_free_from_host(const op::ReferenceInputs& inputs) {
  return std::make_unique<MatrixFreeOperator<Real>>(*inputs.exec, *inputs.model, *inputs.table, *inputs.colouring);
}

template <class Real>
std::unique_ptr<op::Operator<Real>> partitioned_from_host(const op::ReferenceInputs& inputs) {
  return std::make_unique<PartitionedOperator<Real>>(*inputs.exec, *inputs.stiffness, inputs.model->mesh);
}

// The element types matrix_free computes in tiles on a GPU (fem::linear_evaluation_takes).
constexpr op::ElementTypes tiled_types = op::type_bit(ElementType::Tri3) | op::type_bit(ElementType::Quad4) |
                                         op::type_bit(ElementType::Tet4) | op::type_bit(ElementType::Hex8);
static_assert(fem::linear_evaluation_takes<fem::Tri3> && fem::linear_evaluation_takes<fem::Quad4> &&
              fem::linear_evaluation_takes<fem::Tet4> && fem::linear_evaluation_takes<fem::Hex8>);

std::size_t nothing(const op::OperatorSizes&) { return 0; }

// matrix_free in tiles (fem/element_tiles.hpp; a GPU run without colour lists, every host run):
// per element of a tiled type 3 B per node (its one-byte tile index and 16-bit incidence); per
// tile node 6 B (the node and where its incidences end: an upper bound, 4 B where a GPU keeps the
// nodes as 16-bit steps, which depends on the numbering), with the tile nodes per element measured
// on the benchmark's meshes in the default tiles (fem::default_tile: 128 elements on a GPU; on the
// host 256, 128 for hex8): hex8 1.95; tet4 0.63 and 0.51 on the host; tri3 0.71 and 0.65; quad4
// 1.20 and 1.13, an 8 x 16 tile's 153 nodes and a 16 x 16 tile's 289; per tile about 20 B
// (offsets, first node, count, section and scale). The coordinates per tile node in Real (relative
// to its tile), but for a host's triangles, which keep their inverse Jacobians and det J instead. A
// block of another type keeps the elements (all of them are then held).
std::size_t tiles_bytes(const op::OperatorSizes& s) {
  const Mesh& mesh = *s.mesh;
  double bytes = 0.0;
  bool untiled = false;
  for (const ElementBlock& block : mesh.blocks) {
    const double n = static_cast<double>(block.n_elements()), nn = static_cast<double>(block.n_element_nodes());
    double tile_nodes = 0.0;
    switch (block.type) {
      case ElementType::Hex8: tile_nodes = 1.95; break;
      case ElementType::Tet4: tile_nodes = s.host ? 0.51 : 0.63; break;
      case ElementType::Tri3: tile_nodes = s.host ? 0.65 : 0.71; break;
      case ElementType::Quad4: tile_nodes = s.host ? 1.13 : 1.20; break;
      default: untiled = untiled || n > 0.0; continue;
    }
    bytes += n * (3.0 * nn + 6.0 * tile_nodes) + 20.0 * n / fem::default_tile(block.type, !s.host);
    // A host's triangles: their inverse Jacobians and det J (fem::TileBlock::geometry).
    if (s.host && fem::host_keeps_geometry(block.type))
      bytes += n * 5.0 * static_cast<double>(s.real_size);
    else
      bytes += n * tile_nodes * mesh.dim() * static_cast<double>(s.real_size);
  }
  return static_cast<std::size_t>(bytes) + (untiled ? s.element_bytes : 0);
}
// The memory variables of attenuating sections: per point of each element's stiffness rule the
// most solids x n_voigt values in double.
std::size_t memory_variable_bytes(const op::OperatorSizes& s) {
  std::size_t points = 0;
  for (const ElementBlock& block : s.mesh->blocks)
    points += static_cast<std::size_t>(block.n_elements()) *
              static_cast<std::size_t>(fem::stiffness_rule_points(block.type, block.order));
  return points * s.memory_per_point * sizeof(double);
}
// In the loop: the elements (the reference, colour by colour: a GPU's --deterministic; every
// attenuating run's, with its memory variables), or the tiles (a GPU's default, every host run).
// The tiles are built while the elements are held.
std::size_t matrix_free_bytes(const op::OperatorSizes& s) {
  if (s.memory_per_point > 0) return s.element_bytes + memory_variable_bytes(s);
  return s.coloured && !s.host ? s.element_bytes : tiles_bytes(s);
}
std::size_t tiles_while_elements(const op::OperatorSizes& s) {
  return (s.coloured && !s.host) || s.memory_per_point > 0 ? 0 : tiles_bytes(s);
}

// Pogo's layout (partition/block_matrix.hpp): per node slot L links of a dim x dim block and a
// 16-bit target, L the largest node degree, plus the slot's node (4 B); blocks of 512 slots are
// ~95% full (the aligned partitioner's eta), and whole blocks are allocated.
std::size_t partitioned_bytes(const op::OperatorSizes& s) {
  auto links = static_cast<std::size_t>(s.max_neighbours);
  if (links == 0) {
    const NodeGraph graph = node_graph(*s.mesh);
    for (Index node = 0; node < s.mesh->n_nodes(); ++node)
      links = std::max<std::size_t>(links, static_cast<std::size_t>(graph.offsets[node + 1] - graph.offsets[node]));
  }
  const std::size_t block = 512;
  const auto blocks = static_cast<std::size_t>(std::ceil(static_cast<double>(s.n_nodes()) / (0.95 * block)));
  const std::size_t slots = blocks * block;
  return slots * (links * (s.dim() * s.dim() * s.real_size + sizeof(std::int16_t)) + sizeof(Index));
}

}  // namespace

void register_operators(op::Registry& registry) {
  // Filled from a host assembly (no K on the Exec during the set-up).
  op::OperatorEntry partitioned{"partitioned",
                                "K in the pogo paper's GPU block layout (512-node blocks, shared-memory staging)",
                                true,
                                false,
                                true,
                                op::all_backends,
                                partitioned_bytes,
                                nothing,
                                make_partitioned<float>,
                                make_partitioned<double>};
  partitioned.whole_mesh_only = true;  // blocks of the whole node graph
  partitioned.reference_float = partitioned_from_host<float>;
  partitioned.reference_double = partitioned_from_host<double>;
  registry.add(partitioned);
  op::OperatorEntry matrix_free{"matrix_free",
                                "no K: K_e u_e element by element from the coordinates, colour by colour or in tiles",
                                false,
                                false,
                                false,
                                op::all_backends,
                                matrix_free_bytes,
                                tiles_while_elements,
                                make_matrix_free<float>,
                                make_matrix_free<double>};
  matrix_free.splits = true;  // by elements: it adds into K u
  // "auto" (docs/benchmarks.md, "Low-order elements without K" and "CPU: matrix_free in tiles"):
  // matrix_free in tiles where it was measured faster than every assembled kind: on a GPU hex8 and
  // tri3 (quad4, hex8's family, by analogy; not tet4, where block_ell is faster); on the host hex8
  // (not tet4, where block_csr is faster, nor tri3 and quad4, within the machine's noise of
  // block_csr). And on any mesh of the tiled kernel's types where the default's K does not fit the
  // GPU.
  matrix_free.auto_prefers = {
      {op::backend_bit(Backend::Cuda),
       op::type_bit(ElementType::Hex8) | op::type_bit(ElementType::Quad4) | op::type_bit(ElementType::Tri3), true,
       "matrix_free in tiles measured 2.5x (hex8) and 1.6x (tri3) block_ell's speed on a GPU in float, 3.4x and 1.4x "
       "in double, in a third of its memory or less (quad4 by analogy with hex8), docs/benchmarks.md"},
      {op::backend_bit(Backend::OpenMP) | op::backend_bit(Backend::Serial), op::type_bit(ElementType::Hex8), false,
       "matrix_free in tiles measured 1.4-1.9x block_csr's speed on 2 CPU threads in float, 1.1-1.9x in double, at "
       "0.5M and 3M DOF, docs/benchmarks.md"}};
  matrix_free.auto_fits = {op::backend_bit(Backend::Cuda), tiled_types};
  matrix_free.evaluates_laws = true;  // each section's law at every quadrature point
  matrix_free.carries_memory_variables = true;  // at the points of the stiffness rule (the reference's kernel)
  matrix_free.reference_float = matrix_free_from_host<float>;
  matrix_free.reference_double = matrix_free_from_host<double>;
  registry.add(matrix_free);
}

const op::Registry& operators() {
  static const op::Registry registry = [] {
    op::Registry r;
    sparse::register_operators(r);
    register_operators(r);
    sem::register_operators(r);
    r.set_default(Backend::Cuda, "block_ell");
    r.set_default(Backend::OpenMP, "block_csr");
    r.set_default(Backend::Serial, "block_csr");
    return r;
  }();
  return registry;
}

void check_memory_variables(const op::OperatorEntry& entry, const Model& model, const std::string& asked_at) {
  const Material *coarse = nullptr, *attenuating = nullptr;
  for (const Material& material : model.materials) {
    if (!material.attenuation) continue;
    if (!attenuating) attenuating = &material;
    if (!coarse && material.attenuation->coarse_grained) coarse = &material;
  }
  if (!attenuating || (entry.carries_memory_variables && (!coarse || entry.coarse_grains_memory_variables))) return;
  // The kinds that keep them and take the mesh.
  const auto kinds_that = [&](bool op::OperatorEntry::*keeps) {
    std::string kinds;
    for (const op::OperatorEntry& e : operators().entries())
      if (e.*keeps && e.takes(model.mesh)) kinds += str(kinds.empty() ? "" : ", ", e.name);
    return kinds;
  };
  const auto at = [&](const Material& material) {
    const std::string& where = !asked_at.empty() ? asked_at : !material.origin.empty() ? material.origin : model.source;
    return where.empty() ? std::string() : where + ": ";
  };
  if (entry.carries_memory_variables) {
    const std::string kinds = kinds_that(&op::OperatorEntry::coarse_grains_memory_variables);
    throw Error(str(at(*coarse), "material '", coarse->name,
                    "' has coarse-grained memory variables (q_coarse_grained), which the ", entry.name,
                    " operator does not keep (it keeps every solid's at each point): ",
                    kinds.empty() ? std::string("no operator keeps them on this mesh (GLL elements only)")
                                  : str("use ", kinds),
                    ", or leave q_coarse_grained out"));
  }
  const std::string kinds = kinds_that(&op::OperatorEntry::carries_memory_variables);
  throw Error(str(at(*attenuating), "attenuating materials (q_p, q_s, q_kappa, q_mu; '", attenuating->name,
                  "') keep memory variables where the stress is evaluated; the ", entry.name, " operator ",
                  entry.needs_assembly ? "applies an assembled K and evaluates no stress" : "does not keep them",
                  ": use ", kinds.empty() ? std::string("another") : kinds));
}

template <class Real>
std::unique_ptr<op::Operator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                            std::shared_ptr<const fem::DeviceElements> elements,
                                                            sparse::RaceStrategy strategy, op::OperatorSetup* setup,
                                                            Index split_at_node, const Exec* first_exec,
                                                            double time_step) {
  const op::OperatorEntry& entry = operators().parse(kind, elements->exec.backend());
  if (time_step > 0.0 && elements->attenuates()) check_memory_variables(entry, model);
  op::OperatorInputs inputs;
  inputs.time_step = time_step;
  inputs.split_at_node = split_at_node;
  inputs.first_exec = first_exec;
  inputs.model = &model;
  inputs.elements = std::move(elements);
  inputs.deterministic = strategy == sparse::RaceStrategy::Colouring;
  inputs.setup = setup;
  return entry.make<Real>(inputs);
}

template <class Real>
std::unique_ptr<op::Operator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                            const Exec& exec) {
  (void)operators().parse(kind, exec.backend());  // an unknown kind is refused before the model's checks
  return make_stiffness_operator<Real>(model, kind, exec, fem::section_table(model), fem::colour_elements(model.mesh));
}

template <class Real>
std::unique_ptr<op::Operator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                            const Exec& exec, const fem::SectionTable& table,
                                                            const fem::ElementColouring& colouring) {
  const op::OperatorEntry& entry = operators().parse(kind, exec.backend());
  if (!entry.needs_assembly) return make_stiffness_operator<Real>(model, kind, exec, table, colouring, {});
  return make_stiffness_operator<Real>(model, kind, exec, table, colouring,
                                       sparse::assemble_stiffness(model, table, colouring, host_exec(exec)));
}

template <class Real>
std::unique_ptr<op::Operator<Real>> make_stiffness_operator(const Model& model, std::string_view kind,
                                                            const Exec& exec, const fem::SectionTable& table,
                                                            const fem::ElementColouring& colouring,
                                                            const sparse::CsrMatrix& K) {
  op::ReferenceInputs inputs;
  inputs.model = &model;
  inputs.exec = &exec;
  inputs.table = &table;
  inputs.colouring = &colouring;
  inputs.stiffness = &K;
  return operators().parse(kind, exec.backend()).make_reference<Real>(inputs);
}

TREMOR_MAKE_STIFFNESS_OPERATOR(float, )
TREMOR_MAKE_STIFFNESS_OPERATOR(double, )

}  // namespace tremor::explicit_fe
