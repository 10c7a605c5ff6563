#pragma once
// The fluid of a model (docs/model-file.md, "Fluids"): its elements and nodes apart from the
// solid's, one value per node, the displacement potential chi (rho u = grad chi, p = -chi_tt;
// Komatitsch, Barnes and Tromp 2000, Geophysics 65, eq. 4), so that
//
//   M_f chi_tt + K_f chi = (coupling, sources),   M_f = lumped t int N_a / kappa,
//   K_f = t int (1 / rho) grad N_a . grad N_b    (fem::FluidLaw, fem::apply_fluid_stiffness),
//
// stepped by the same central differences as the solid (CentralDifference with one DOF per node).
// FluidField holds the fluid's own numbering: a node of the model that fluid elements hold is a
// fluid node, numbered in the model's order; a node on a fluid-solid face is both a solid node
// and a fluid node, and the two fields meet only through the coupling (fem/coupling.hpp).
#include <memory>
#include <string_view>
#include <vector>

#include "tremor/backend/exec.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/device_elements.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/model/model.hpp"
#include "tremor/operator/operator.hpp"
#include "tremor/operator/spectrum.hpp"

namespace tremor::explicit_fe {

// The fluid's elements as a model of their own: `model.mesh` the fluid elements (blocks by type
// and order, in the model's order) on the fluid nodes, its element sets those of the model's
// sections restricted to them; the model's materials and sections.
struct FluidMesh {
  Model model;
  std::vector<Index> nodes;     // the model's node of each fluid node, ascending
  std::vector<Index> elements;  // the model's global element of each fluid element, ascending
  // The fluid's sections as the element kernels read them: per section of the model D[0] = 1 / rho
  // (a fluid's; 0 for a solid's, which no fluid element has), `density` the mass's coefficient
  // 1 / kappa, thickness as the section's; undamped.
  fem::SectionTable table;
  Index n_nodes() const { return static_cast<Index>(nodes.size()); }
};
// Empty (no node, no element) without fluid sections.
FluidMesh fluid_mesh(const Model& model);

// The fluid's lumped mass per fluid node: t int N_a / kappa dV lumped as the solid's mass is
// (sparse::assemble_lumped_mass with 1 / kappa for rho), with the fluid mesh's element colouring
// where the caller has made it.
std::vector<double> fluid_lumped_mass(const FluidMesh& fluid, const Exec& exec,
                                      const fem::ElementColouring* colouring = nullptr);

// The largest eigenvalue of M_f^-1 K_f (op::largest_eigenvalue: Lanczos on the fluid's operator in
// double, on `exec`), which bounds the fluid's stable step as the solid's bounds its own:
// dt <= 2 / sqrt(lambda). Throws tremor::Error for a fluid of no element.
op::Spectrum fluid_spectrum(const FluidMesh& fluid, const Exec& exec);

// K_f chi, element by element without K_f: each element's forces in double
// (fem::apply_fluid_stiffness on its stiffness rule), summed colour by colour with plain adds
// (the same bits every run) or, built with `atomic` on a GPU, by atomic adds in one launch.
template <class Real>
class FluidOperator final : public op::Operator<Real> {
 public:
  FluidOperator(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements, bool atomic = false);

  const Exec& exec() const override { return exec_; }
  Index n_dofs() const override { return elements_->n_nodes; }
  std::string_view name() const override { return "fluid"; }
  std::size_t bytes() const override;
  bool adds() const override { return true; }
  void apply_unchecked(const Real* chi, Real* f) const override;
  void add_unchecked(const Real* chi, Real* f) const override;

 private:
  Exec exec_;
  std::shared_ptr<const fem::DeviceElements> elements_;
  bool atomic_ = false;
};

extern template class FluidOperator<float>;
extern template class FluidOperator<double>;

}  // namespace tremor::explicit_fe
