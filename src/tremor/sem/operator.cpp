#include "tremor/sem/operator.hpp"
#include "tremor/sem/point_state.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>

#include "tremor/fem/device_elements.hpp"
#include "tremor/operator/registry.hpp"

namespace tremor::sem {

namespace {

template <class Real>
std::unique_ptr<op::Operator<Real>> make_sem(const op::OperatorInputs& inputs) {
  return std::make_unique<SemOperator<Real>>(inputs.elements, inputs.deterministic, Geometry::Auto, Kernel::Auto,
                                             inputs.time_step);
}

// The reference: the elements built on the Exec from the section table and colouring, scattered
// colour by colour.
template <class Real>
std::unique_ptr<op::Operator<Real>> sem_from_host(const op::ReferenceInputs& inputs) {
  return std::make_unique<SemOperator<Real>>(
      std::make_shared<const fem::DeviceElements>(*inputs.exec, inputs.model->mesh, *inputs.table, *inputs.colouring),
      true);
}

// The memory model: the elements it keeps and its own arrays; building it, the corners and
// affine factors of the largest block besides.
std::size_t sem_loop_bytes(const op::OperatorSizes& s) {
  // GLL points, every element's own: where the memory variables are kept (PointState's rows padded
  // where the column kernel applies a block: a run's, scattered by atomics; the bench's sem:columns
  // colour by colour pads them too, up to 9% more than counted here at order 8)
  std::size_t points = 0;
  for (const ElementBlock& block : s.mesh->blocks) {
    const PointState state = point_state(s.mesh->dim(), block.order, !s.coloured);
    points += block.type == ElementType::HexGLL || block.type == ElementType::QuadGLL
                  ? static_cast<std::size_t>(state.size(block.n_elements(), 1))
                  : block.connectivity.size();
  }
  return s.element_bytes + loop_bytes(*s.mesh, s.real_size, s.geometry_values) +
         points * s.memory_per_point * s.real_size;
}
std::size_t sem_setup_bytes(const op::OperatorSizes& s) {
  return loop_bytes(*s.mesh, s.real_size, s.geometry_values) + setup_bytes(*s.mesh, s.real_size);
}

// Several vectors read the elements' data once (SemOperator::fuses_batch) on hexahedra of GLL
// order 2 and more, scattered by atomics (the column kernel's: colour by colour, the point kernel
// applies the vectors one by one, whose sums the column kernel's would not equal to the bit).
bool sem_fuses_batch_on(const Mesh& mesh, bool coloured) {
  return !coloured && std::all_of(mesh.blocks.begin(), mesh.blocks.end(), [](const ElementBlock& block) {
    return block.connectivity.empty() || (block.type == ElementType::HexGLL && block.order >= 2);
  });
}

// Float only: stepped 16 together the gll4 plate ran 1.02x (affine) and 1.18x (geometry stored
// per point) the DOF-steps/s of one after another, double 0.95x and 1.08x (docs/benchmarks.md).
bool sem_batch_gains(std::size_t real_size) { return real_size == sizeof(float); }

}  // namespace

void register_operators(op::Registry& registry) {
  op::OperatorEntry entry{"sem",
                          "no K: GLL hexahedra and quadrilaterals by sum factorisation (1D matrices along each direction), "
                          "geometric factors per GLL point",
                          false,
                          false,
                          false,
                          op::all_backends,
                          sem_loop_bytes,
                          sem_setup_bytes,
                          make_sem<float>,
                          make_sem<double>};
  entry.unsupported = unsupported_mesh;
  entry.splits = true;  // by elements: it adds into K u
  entry.auto_where_it_takes = true;
  entry.evaluates_laws = true;
  entry.carries_memory_variables = true;
  entry.coarse_grains_memory_variables = true;
  entry.moduli_per_point = true;
  entry.fuses_batch = true;
  entry.fuses_batch_on = sem_fuses_batch_on;
  entry.batch_gains = sem_batch_gains;
  entry.reference_float = sem_from_host<float>;
  entry.reference_double = sem_from_host<double>;
  registry.add(entry);
}

}  // namespace tremor::sem
