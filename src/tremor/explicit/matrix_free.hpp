#pragma once
// The "matrix_free" stiffness operator: ku = K u element by element, without K (pogo paper
// section 2.1's K U_curr term), on every element type. Three ways to sum the elements' forces:
//
//   reference (`--deterministic` on a GPU; the registry's reference set-up, the Model
//     constructors): element by element in double (fem::apply_element_stiffness, the geometry
//     recomputed from the node coordinates every apply), scatter-add rounded to Real, one element
//     colour at a time: each DOF receives its elements' forces in colour order, the same bits
//     every run.
//   tiled on a GPU (a GPU run's default): the linear elements (tri3, quad4, tet4, hex8) in tiles
//     of nearby elements (fem/element_tiles.hpp), a GPU block per tile and a thread per element:
//     the tile's nodes' coordinates (relative to the tile, in Real) and u staged in shared memory,
//     K_e u_e in Real by edge differences (fem/linear_evaluation.hpp; one Jacobian per element
//     where a block's elements are all affine), each node's forces summed in
//     the tile in a fixed order, then one atomic add per tile node to ku. The other element types
//     take the reference's kernel with atomic adds. Sums in another order than the reference's:
//     equal to it to rounding; where a node's tiles add in another order the last bits vary run
//     to run. On the host, an operator built not deterministic (`matrix_free:atomic` in `tremor
//     bench`, the unit tests) runs this same kernel body through forall_blocks, a host thread per
//     GPU block: the GPU kernel's host check, not a fast path.
//   tiled on the host (every host run's, deterministic: Serial and OpenMP): the same tiles and element
//     arithmetic, a host thread per chunk of neighbouring tiles with the elements in SIMD batches
//     (explicit/matrix_free_host.hpp), the chunks colour by colour (a colour's chunks share no
//     node) with plain adds: the same bits for any number of threads. Blocks of other types take the
//     reference's kernel colour by colour where the elements carry colour lists (a run's do),
//     else with atomic adds. Equal to the reference to rounding (K_e u_e in Real, not double).
//
// u and ku hold n_dofs() values, DOFs node-major, in the memory of the operator's Exec.
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/element_tiles.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/model.hpp"
#include "tremor/operator/operator.hpp"
#include "tremor/operator/state_columns.hpp"

namespace tremor::explicit_fe {

template <class Real>
class MatrixFreeOperator final : public op::Operator<Real> {
 public:
  // The reference (deterministic) from the model: its sections and a colouring.
  MatrixFreeOperator(const Exec& exec, const Model& model);
  // From a table and colouring built once (fem::section_table, fem::colour_elements).
  MatrixFreeOperator(const Exec& exec, const Model& model, const fem::SectionTable& table,
                     const fem::ElementColouring& colouring);
  // On elements built once on exec, tiled (tile: elements per tile, 0 for fem::default_tile).
  // deterministic (the elements must carry a colouring): the same bits every run; on a GPU the
  // reference, on the host the tiles colour by colour and the other blocks' elements too.
  // With a time_step where a section attenuates (fem/viscoelastic.hpp), every block takes the
  // reference's kernel with the memory variables of each point of the stiffness rule (N x n_voigt
  // per point in double, advanced once per apply: a run's time loop applies it once a step),
  // colour by colour where the elements carry colours, else with atomic adds.
  MatrixFreeOperator(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements, bool deterministic = true,
                     int tile = 0, double time_step = 0.0);

  Index n_dofs() const override { return n_dofs_; }
  void apply_unchecked(const Real* u, Real* ku) const override;
  bool adds() const override { return true; }
  void add_unchecked(const Real* u, Real* ku) const override;
  std::string_view name() const override { return "matrix_free"; }
  const Exec& exec() const override { return exec_; }
  // Deterministic: node coordinates (8 B x dim per node), connectivity (4 B per element node),
  // per element its section (4 B), its place in the colour lists (4 B) and its absorbing-layer
  // stiffness factor (8 B), and the per-section D and thickness. Tiled: the coordinates, the
  // tiles (fem::ElementTiles) and, where a block is not tiled, the reference's arrays.
  // No geometry is stored per quadrature point: Jacobians are recomputed on every apply.
  std::size_t bytes() const override;
  // The tiled kernel's arithmetic (the reference's is not counted: 0).
  double flops() const override { return flops_; }
  std::string details() const override;
  // The memory variables (attenuating sections): per element its points' together, in the blocks'
  // order, as op::Operator describes.
  Size state_size() const override;
  void reset_state() override;
  void keep_states(int columns) override;
  int state_columns() const override { return memory_columns_.columns(); }
  void select_state(int column) const override { memory_columns_.select(memory_, column); }
  std::vector<Size> state_offsets() const override;
  std::vector<double> get_state() const override;
  void set_state(std::span<const double> values) override;
  // The same bits every run: the reference, or tiles on the host with every other block coloured.
  bool deterministic() const { return tiles_ ? host_ && coloured_ : n_colours() > 0; }
  bool reference() const { return !tiles_; }
  int n_colours() const { return elements_ ? elements_->n_colours : 0; }

 private:
  // reference: the reference kernel (deterministic must be true), else tiles.
  MatrixFreeOperator(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements, bool deterministic, int tile,
                     bool reference, double time_step = 0.0);
  void keep_memory_variables(double dt);
  // ku += K_e u_e by the reference's kernel for the elements of `block` of one colour (plain adds),
  // or for all of them with atomic adds (colour -1).
  void apply_block(const fem::DeviceElementBlock& block, int colour, const Real* u, Real* ku) const;

  Exec exec_;
  Index n_dofs_ = 0;
  bool host_ = false;      // tiles on a host Exec: colour by colour (matrix_free_host.hpp)
  bool coloured_ = false;  // tiled: the untiled blocks colour by colour (the elements' colour lists)
  // The elements in exec_'s memory: every block in the reference, those not tiled otherwise
  // (null when every block is tiled: the tiles are all an apply reads).
  std::shared_ptr<const fem::DeviceElements> elements_;
  std::optional<fem::ElementTiles<Real>> tiles_;
  double flops_ = 0.0;
  DeviceArray<double> records_;             // fem::solids_stride per section, where attenuating
  // Per block, values_ per point of each element's rule (advanced by every apply).
  mutable std::vector<DeviceArray<double>> memory_;
  mutable op::StateColumns<double> memory_columns_;  // the other shots' stepped together (keep_states)
  int values_ = 0;                           // the most solids x n_voigt
};

extern template class MatrixFreeOperator<float>;
extern template class MatrixFreeOperator<double>;

}  // namespace tremor::explicit_fe
