#pragma once
// The `sem` stiffness operator: K u on a mesh of GLL hexahedra (or, in 2D, quadrilaterals) of
// order 1..8 without K, element by element by sum factorisation (sum_factorised.hpp; the
// multi-GPU spectral-element paper, section 2). Per element: gather the (P + 1)^d nodes' u, the
// gradient at the quadrature points (the GLL nodes, sums along the lines through each), the
// pointwise stress through the geometric factors and the section's material (isotropic or 21
// constants; 2D plane strain or plane stress, times the thickness; a material field's lambda and
// mu at each GLL point, fem/point_materials.hpp), the transposed sums,
// scatter-add scaled by the absorbing layers' stiffness factor (elements whose factor is 0 are
// left out). One body for every backend
// (forall_blocks): a GPU block holds one element or several, with a thread per point (the point
// kernel) or, for hexahedra, per column of points along z (the column kernel, Kernel below), u
// and the flux in shared memory; the host runs the same steps thread index by thread index.
//
// Geometric factors (Geometry below): recomputed at each point from the element's vertices where
// the elements are trilinear, else stored per element and point, J^-1 (9 values) and w det J
// times the stiffness factor (1), in Real, computed on the Exec at set-up from the GLL node
// coordinates by the same gradient. The scatter is colour by colour (deterministic: each DOF
// receives its elements' forces in a fixed order) when the elements carry a colouring, atomic
// otherwise.
#include <algorithm>
#include <cstddef>
#include <span>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/sem/point_state.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/model/pml.hpp"
#include "tremor/operator/operator.hpp"
#include "tremor/operator/state_columns.hpp"
#include "tremor/operator/registry.hpp"

namespace tremor::sem {

// values in Real, each rounded from double: what the operator's arrays in Real are made from.
template <class Real>
std::vector<Real> rounded(std::span<const double> values) {
  std::vector<Real> out(values.size());
  std::transform(values.begin(), values.end(), out.begin(), [](double x) { return static_cast<Real>(x); });
  return out;
}

// Where the Jacobian at a point comes from, per element block. Auto: for a block of
// parallelepipeds (boxes, structured hex8 meshes raised to order P), J^-1 and det J once per
// element (10 values); for a block of elements on the trilinear map of their vertices (any hex8
// mesh raised to order P), J recomputed at each point from the 8 vertices (25 values per
// element); otherwise (curved elements) J^-1 and w det J stored per point (10 values per
// point). Stored: per point everywhere, for the comparison (docs/sem.md has the measurements).
enum class Geometry { Auto, Stored };

// How the hexahedra's kernel spreads an element over threads: Points, a thread per point,
// every sweep through shared memory; Columns, a thread per column of n points along z, the z
// sweeps and the flux in registers (operator_apply.hpp, apply_columns). Auto chooses by order,
// precision and scatter, as measured (operator_setup.cpp, columns_by_default). Quadrilaterals
// take the point kernel.
enum class Kernel { Auto, Points, Columns };

template <class Real>
class SemOperator final : public op::Operator<Real> {
 public:
  // On elements built on their Exec. deterministic: scatter colour by colour (the elements must
  // carry a colouring), else with atomics. Throws tremor::Error for elements that are not GLL
  // hexahedra or quadrilaterals, or whose Jacobian is not positive at a point (naming the
// element).
  // time_step > 0 on attenuating elements: it keeps their memory variables (fem/viscoelastic.hpp),
  // N x 6 (2D: N x 3) values per GLL point in Real, advanced by a step of that length in every
  // apply; 0: the unrelaxed moduli's K, stateless.
  // With `pml` (and a time step), the elements are a PML's (explicit/pml.hpp): at each GLL point the
  // flux of the stretched coordinates (fem/pml_law.hpp) with its memory variables, dim^3 per point,
  // and d and alpha there (2 dim) in Real; the point kernel; GLL orders 2 and more.
  SemOperator(std::shared_ptr<const fem::DeviceElements> elements, bool deterministic,
              Geometry geometry = Geometry::Auto, Kernel kernel = Kernel::Auto, double time_step = 0.0,
              const PmlProfile* pml = nullptr);

  const Exec& exec() const override { return exec_; }
  Index n_dofs() const override { return n_dofs_; }
  std::string_view name() const override { return "sem"; }
  // Per element its nodes (4 B each), its colour-list place (4 B, when coloured) and its section
  // (4 B); its 25 corner values (trilinear blocks) or per point 10 geometric factors
  // (sizeof(Real) each); per section 36 material constants; the 1D basis; per point the moduli of
  // a material field (2); the memory variables, read and written.
  std::size_t bytes() const override;
  std::string details() const override;
  // Per element: the sums along lines of nodes, 36 n^4 (3D) or 16 n^3 (2D) for n = P + 1 (order 1:
  // every shape function at every point), and per point the
  // gradient, strain, stress (isotropic or 21 constants), flux, the Jacobian where recomputed and
  // the scatter's adds (operator_setup.cpp, element_flops).
  double flops() const override { return flops_; }
  void apply_unchecked(const Real* u, Real* ku) const override;
  bool adds() const override { return true; }
  void add_unchecked(const Real* u, Real* ku) const override;
  // add_unchecked with its kernels queued on `exec`, a stream of the same device, in place of its
  // own (a per-step term's beside the stiffness's apply: backend/side_stream.hpp).
  // With a PML's grid damping (model/pml.hpp), `previous`: the displacement a step back (null:
  // the layer's elements without it).
  void add_on(const Exec& exec, const Real* u, Real* ku, const Real* previous = nullptr) const;
  // Several vectors at once (Operator::apply_batch): where every block takes the column kernel
  // (Kernel; by default on hexahedra of GLL order 2 and more scattered by atomics), there is no
  // state and no block reads moduli per point, several threads per column with one vector or more
  // each, each element's indices, geometry and material read once for 16 floats or 4 doubles
  // (operator_apply.hpp), each vector's sums those of apply() on it alone; else vector by vector
  // (the default).
  void apply_batch_unchecked(const Real* u, Real* ku, int columns) const override;
  void add_batch_unchecked(const Real* u, Real* ku, int columns) const override;
  bool fuses_batch() const override { return batches_; }
  bool deterministic() const { return coloured_; }
  Size state_size() const override;
  void reset_state() override;
  void keep_states(int columns) override;
  int state_columns() const override { return memory_columns_.columns(); }
  void select_state(int column) const override;
  // Each element's memory variables, then its PML's, its block's count per element.
  std::vector<Size> state_offsets() const override;
  std::vector<double> get_state() const override;
  void set_state(std::span<const double> values) override;
  // The geometric factors it keeps, all blocks (Geometry): what its memory model counts.
  std::size_t geometry_values() const;

 private:
  Exec exec_;
  Index n_dofs_ = 0;
  bool coloured_ = false;
  double flops_ = 0.0;
  std::shared_ptr<const fem::DeviceElements> elements_;
  std::vector<DeviceArray<Real>> geometry_;  // per block: affine, 10 (2D: 5) per element;
                                             // trilinear, 25 (bilinear, 9) per element (corners,
                                             // scale); else 10 (5) per point, point fastest
  std::vector<char> columns_;                // per block: the column kernel (Kernel::Columns)
  std::vector<char> mode_;                   // per block: how the Jacobians are had (layout.hpp's Mode)
  std::vector<DeviceArray<Real>> basis_;     // per block: Basis1d<P>::values (G, points, weights, B)
  // Per block where some of its elements have a stiffness factor of 0 (a PML's, which its own term
  // evaluates: explicit/pml.hpp), the others: by colour (offsets, n_colours + 1) where coloured,
  // else one list; no offsets where the block evaluates all.
  std::vector<DeviceArray<Index>> evaluated_;
  std::vector<std::vector<Index>> evaluated_offsets_;
  void leave_out_unstiffened(const fem::DeviceElementBlock& block, const std::vector<double>& factors);
  DeviceArray<Real> material_;               // fem::material_stride per section: D, row-major, in Real
  DeviceArray<int> kinds_;                   // per section: its fem::LawKind
  // Per block where its elements take a material field at their GLL points (fem/point_materials.hpp):
  // per element lambda at each point, then mu (Memory::moduli in operator_apply.hpp), in Real;
  // else empty.
  std::vector<DeviceArray<Real>> moduli_;
  // Attenuating elements in a time loop: the sections' step coefficients (fem::solids_stride each)
  // and per block the memory variables, the most solids of any section x n_voigt per point, as
  // point_state.hpp's PointState lays them (the applies, const, advance them).
  DeviceArray<Real> records_;
  mutable std::vector<DeviceArray<Real>> memory_;
  Size memory_values(std::size_t b) const;
  PointState memory_layout(std::size_t b) const;
  void memory_by_element(std::size_t b, std::vector<Real>& by_element, bool to_device) const;
  std::vector<DeviceArray<Real>> coarse_;  // per block: coarse-grained solids' weights (fem::coarse_weights)
  bool coarse_only_ = false;               // every attenuating section coarse-grained
  void keep_memory_variables(double dt);
  // A PML's: per block its points' variables and stretching (Memory in operator_apply.hpp), the step.
  mutable std::vector<DeviceArray<Real>> pml_;
  std::vector<DeviceArray<Real>> stretch_;
  std::vector<DeviceArray<int>> pml_axes_;  // per element, its stretched axes (fem::pml_flux)
  std::vector<DeviceArray<Real>> grid_rate_;  // per element, its grid damping's beta / dt (empty: none)
  Size pml_touched_ = 0;  // the PML's values read or written per apply (its axes' variables twice, d, alpha)
  double time_step_ = 0.0;
  void keep_pml(const PmlProfile& profile, double dt);
  // Shots stepped together: the memory variables and the PML's of the others (keep_states).
  mutable op::StateColumns<Real> memory_columns_, pml_columns_;
  bool batches_ = false;  // fuses_batch(), settled by the constructor
  // add_on for `n_columns` vectors interleaved (1: one).
  void add_columns(const Exec& exec, const Real* u, Real* ku, int n_columns, const Real* previous = nullptr) const;
};

// Empty when the sem operator takes the mesh (GLL hexahedra only); else why not, naming the first
// block of another type and what to do.
std::string unsupported_mesh(const Mesh& mesh);

// Bytes of the operator's own arrays on `mesh` in precision real_size besides the elements it
// shares (the memory model): `geometry_values` geometric factors (SemOperator::geometry_values();
// 0: unknown, taken as 10 per point, the most), the materials and the 1D bases.
std::size_t loop_bytes(const Mesh& mesh, std::size_t real_size, std::size_t geometry_values);
// What its constructor holds at most besides them: per element the corners (25, bilinear 9) and
// the affine factors (10, 2D 5) in Real, a flag (4 B) and a scale (8 B), until the block's kind is
// known.
std::size_t setup_bytes(const Mesh& mesh, std::size_t real_size);

// Adds "sem" to `registry`.
void register_operators(op::Registry& registry);

extern template class SemOperator<float>;
extern template class SemOperator<double>;

}  // namespace tremor::sem
