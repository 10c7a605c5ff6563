#include "tremor/explicit/fluid.hpp"

#include <algorithm>

#include "tremor/backend/atomic.hpp"
#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/coupling.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/sparse/assemble.hpp"

namespace tremor::explicit_fe {

FluidMesh fluid_mesh(const Model& model) {
  const Mesh& mesh = model.mesh;
  const std::vector<bool> fluid = fem::fluid_elements(model);
  FluidMesh out;
  out.model.source = model.source;
  out.model.mesh_file = model.mesh_file;
  out.model.materials = model.materials;
  out.model.sections = model.sections;
  // The fluid nodes, in the model's order, and each model node's fluid number (-1: none).
  std::vector<Index> number(static_cast<std::size_t>(mesh.n_nodes()), -1);
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global)
      if (fluid[static_cast<std::size_t>(global)])
        for (const Index node : block.nodes(e)) number[static_cast<std::size_t>(node)] = 0;
  for (Index node = 0; node < mesh.n_nodes(); ++node)
    if (number[static_cast<std::size_t>(node)] == 0) {
      number[static_cast<std::size_t>(node)] = static_cast<Index>(out.nodes.size());
      out.nodes.push_back(node);
    }
  Mesh& into = out.model.mesh;
  into = Mesh(mesh.dim());
  for (const Index node : out.nodes) into.add_node(mesh.node_labels[static_cast<std::size_t>(node)], mesh.node(node));
  // Each fluid element's block in the fluid mesh, then its global number: the fluid mesh's order.
  std::vector<std::pair<std::size_t, Index>> order;
  global = 0;
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      if (!fluid[static_cast<std::size_t>(global)]) continue;
      ElementBlock& to = into.block_for(block.type, block.order);
      for (const Index node : block.nodes(e)) to.connectivity.push_back(number[static_cast<std::size_t>(node)]);
      to.labels.push_back(block.labels[static_cast<std::size_t>(e)]);
      order.emplace_back(static_cast<std::size_t>(&to - into.blocks.data()), global);
    }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Index> place(static_cast<std::size_t>(mesh.n_elements()), -1);  // fluid element of each
  for (const auto& [block, e] : order) {
    place[static_cast<std::size_t>(e)] = static_cast<Index>(out.elements.size());
    out.elements.push_back(e);
  }
  for (const auto& [name, members] : mesh.element_sets) {
    std::vector<Index> kept;
    for (const Index e : members)
      if (place[static_cast<std::size_t>(e)] >= 0) kept.push_back(place[static_cast<std::size_t>(e)]);
    std::sort(kept.begin(), kept.end());
    into.element_sets[name] = std::move(kept);
  }
  // The table: D[0] = 1 / rho, the mass's coefficient 1 / kappa in `density`.
  fem::SectionTable& table = out.table;
  table.dim = mesh.dim();
  table.n_voigt = table.dim == 2 ? 3 : 6;
  for (const Section& section : model.sections) {
    const Material& material = model.material(section.material);
    std::array<double, fem::material_stride> D{};
    D[0] = material.fluid ? 1.0 / material.density : 0.0;
    table.D.push_back(D);
    table.thickness.push_back(table.dim == 2 ? section.thickness : 1.0);
    table.density.push_back(material.fluid ? 1.0 / material.bulk_modulus : 0.0);
    table.damping_alpha.push_back(0.0);
    table.damping_beta.push_back(0.0);
  }
  table.element_section = out.model.element_sections();
  return out;
}

std::vector<double> fluid_lumped_mass(const FluidMesh& fluid, const Exec& exec,
                                      const fem::ElementColouring* colouring) {
  const Exec host = exec.space() == MemorySpace::Host ? exec : exec.host();
  const fem::ElementColouring own = colouring ? fem::ElementColouring{} : fem::colour_elements(fluid.model.mesh);
  const std::vector<double> per_dof =
      sparse::assemble_lumped_mass(fluid.model, fluid.table, colouring ? *colouring : own, host);
  const auto dim = static_cast<std::size_t>(fluid.table.dim);
  std::vector<double> mass(fluid.nodes.size());
  for (std::size_t i = 0; i < mass.size(); ++i) mass[i] = per_dof[i * dim];
  return mass;
}

namespace {

// f += K_f chi over the `n` elements listed of one block of type E (one colour's where `atomic` is
// false: they share no node).
template <class E, class Real>
void add_fluid_elements(const Exec& exec, Index n, const Index* list, const fem::ElementArrays in, bool atomic,
                        const Real* chi, Real* f) {
  const fem::StiffnessRule<E> rule = fem::stiffness_rule<E>();
  forall(exec, n, [=] TREMOR_LAMBDA(Index i) {
    constexpr int nn = E::n_nodes;
    const Index e = list ? list[i] : i;
    const Index* nodes = in.connectivity + static_cast<Size>(e) * nn;
    double x[nn * E::dim], value[nn], fe[nn];
    fem::gather_coordinates<E>(in.coordinates, nodes, x);
    for (int a = 0; a < nn; ++a) value[a] = static_cast<double>(chi[nodes[a]]);
    const int s = in.section[e];
    const fem::FluidLaw<E::dim, double> law{in.material.voigt(s)[0]};
    fem::apply_fluid_stiffness<E>(x, law, in.thickness[s], rule, value, fe);
    for (int a = 0; a < nn; ++a) {
      if (atomic)
        atomic_add(f + nodes[a], static_cast<Real>(fe[a]));
      else
        f[nodes[a]] += static_cast<Real>(fe[a]);
    }
  });
}

}  // namespace

template <class Real>
FluidOperator<Real>::FluidOperator(const Exec& exec, std::shared_ptr<const fem::DeviceElements> elements, bool atomic)
    : exec_(exec), elements_(std::move(elements)), atomic_(atomic && exec.space() == MemorySpace::Device) {
  TREMOR_CHECK(elements_, "the fluid operator needs its elements");
  fem::check_space(exec_, *elements_, "the fluid operator");
  TREMOR_CHECK(atomic_ || elements_->n_colours > 0 || elements_->n_elements() == 0,
               "the fluid operator adds colour by colour: its elements need a colouring");
}

template <class Real>
std::size_t FluidOperator<Real>::bytes() const {
  return elements_->bytes();
}

template <class Real>
void FluidOperator<Real>::apply_unchecked(const Real* chi, Real* f) const {
  fill_zero(exec_, f, n_dofs());
  add_unchecked(chi, f);
}

template <class Real>
void FluidOperator<Real>::add_unchecked(const Real* chi, Real* f) const {
  const fem::DeviceElements& els = *elements_;
  const int passes = atomic_ ? 1 : els.n_colours;
  for (int c = 0; c < passes; ++c)
    for (const fem::DeviceElementBlock& block : els.blocks) {
      const Index n = atomic_ ? block.n_elements : block.n_in(c);
      if (n == 0) continue;
      const Index* list = atomic_ ? nullptr : block.in(c);
      fem::with_element(block.type, block.order, [&](auto element) {
        add_fluid_elements<decltype(element), Real>(exec_, n, list, fem::arrays_of(els, block), atomic_, chi, f);
      });
    }
}

op::Spectrum fluid_spectrum(const FluidMesh& fluid, const Exec& exec) {
  TREMOR_CHECK(!fluid.elements.empty(), "the stable step of a fluid: the model has no fluid element");
  const fem::ElementColouring colouring = fem::colour_elements(fluid.model.mesh);
  const auto elements = std::make_shared<const fem::DeviceElements>(exec, fluid.model.mesh, fluid.table, colouring);
  const FluidOperator<double> K(exec, elements, exec.space() == MemorySpace::Device);
  const std::vector<double> mass = fluid_lumped_mass(fluid, exec, &colouring);
  const DeviceArray<double> on_exec(exec, std::span<const double>(mass));
  return op::largest_eigenvalue(K, on_exec.data());
}

template class FluidOperator<float>;
template class FluidOperator<double>;

}  // namespace tremor::explicit_fe
