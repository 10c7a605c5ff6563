#include "tremor/fem/device_elements.hpp"

#include <span>

#include "tremor/core/error.hpp"

namespace tremor::fem {

namespace {

template <class T>
DeviceArray<T> upload(const Exec& exec, const std::vector<T>& values) {
  return DeviceArray<T>(exec, std::span<const T>(values));
}

}  // namespace

DeviceElements::DeviceElements(const Exec& exec_, const Mesh& mesh, const SectionTable& table,
                               const ElementColouring& colouring)
    : exec(exec_), dim(mesh.dim()), n_voigt(table.n_voigt), n_nodes(mesh.n_nodes()), n_colours(colouring.n_colours) {
  const auto n_total = static_cast<std::size_t>(mesh.n_elements());
  TREMOR_CHECK(table.dim == mesh.dim() && table.element_section.size() == n_total,
               "device elements: the section table describes ", table.element_section.size(), " elements in ",
               table.dim, "D, the mesh has ", n_total, " in ", mesh.dim(), "D");
  TREMOR_CHECK(table.element_stiffness_factor.empty() || table.element_stiffness_factor.size() == n_total,
               "device elements: ", table.element_stiffness_factor.size(), " stiffness factors for ", n_total,
               " elements");
  const bool coloured = !colouring.blocks.empty();
  TREMOR_CHECK(!coloured || (colouring.blocks.size() == mesh.blocks.size() && colouring.colour.size() == n_total),
               "device elements: the colouring was made for another mesh (", colouring.blocks.size(), " blocks, ",
               colouring.colour.size(), " elements; the mesh has ", mesh.blocks.size(), " and ", n_total, ")");
  TREMOR_CHECK(static_cast<Size>(mesh.n_nodes()) * dim <= Size(2147483647), "device elements: ", mesh.n_nodes(),
               " nodes x ", dim, " components exceed the DOF index range");
  coordinates = upload(exec, mesh.coordinates);
  Index global = 0;
  for (std::size_t b = 0; b < mesh.blocks.size(); ++b) {
    const ElementBlock& source = mesh.blocks[b];
    const auto n = static_cast<std::size_t>(source.n_elements());
    TREMOR_CHECK(!coloured || colouring.blocks[b].elements.size() == n, "device elements: the colouring of block ", b,
                 " lists ", colouring.blocks[b].elements.size(), " elements, the block has ", n);
    std::vector<int> section(n);
    std::vector<double> factor(n), alpha(n);
    for (std::size_t e = 0; e < n; ++e) {
      const auto g = static_cast<std::size_t>(global) + e;
      section[e] = table.element_section[g];
      TREMOR_CHECK(section[e] >= 0 && static_cast<std::size_t>(section[e]) < table.D.size(),
                   "device elements: element ", mesh.element_label(static_cast<Index>(g)), " has no section");
      factor[e] = table.stiffness_factor(g);
      alpha[e] = table.alpha(g);
    }
    DeviceElementBlock block;
    block.type = source.type;
    block.order = source.order;
    block.n_element_nodes = source.n_element_nodes();
    block.n_elements = source.n_elements();
    block.first = global;
    block.connectivity = upload(exec, source.connectivity);
    block.section = upload(exec, section);
    block.stiffness_factor = upload(exec, factor);
    block.alpha = upload(exec, alpha);
    if (coloured) {
      block.colour_elements = upload(exec, colouring.blocks[b].elements);
      block.colour_offsets = colouring.blocks[b].offsets;
    } else {
      block.colour_offsets.assign(1, 0);
    }
    blocks.push_back(std::move(block));
    global += source.n_elements();
  }
  std::vector<double> d, t, rho;
  std::vector<int> kinds;
  for (std::size_t s = 0; s < table.D.size(); ++s) {
    d.insert(d.end(), table.D[s].begin(), table.D[s].end());
    kinds.push_back(static_cast<int>(law_kind(table.D[s].data(), table.n_voigt)));
    t.push_back(table.thickness[s]);
    rho.push_back(table.density[s]);
  }
  D = upload(exec, d);
  law = upload(exec, kinds);
  solids = table.solids;
  fields = table.fields;
  thickness = upload(exec, t);
  density = upload(exec, rho);
}

Index DeviceElements::n_elements() const {
  Index n = 0;
  for (const DeviceElementBlock& block : blocks) n += block.n_elements;
  return n;
}

std::size_t DeviceElements::bytes() const {
  std::size_t total =
      static_cast<std::size_t>(coordinates.size() + D.size() + thickness.size() + density.size()) * sizeof(double) +
      static_cast<std::size_t>(law.size()) * sizeof(int);
  for (const DeviceElementBlock& block : blocks)
    total += static_cast<std::size_t>(block.connectivity.size() + block.colour_elements.size()) * sizeof(Index) +
             static_cast<std::size_t>(block.section.size()) * sizeof(int) +
             static_cast<std::size_t>(block.stiffness_factor.size() + block.alpha.size()) * sizeof(double);
  return total;
}

}  // namespace tremor::fem
