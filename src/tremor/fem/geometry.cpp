#include "tremor/fem/geometry.hpp"

#include <cmath>
#include <string>

#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/element_survey.hpp"

namespace tremor::fem {

namespace {

std::string prefix(std::string_view source) { return source.empty() ? std::string() : str(source, ": "); }

}  // namespace

void check_geometry(const Mesh& mesh, std::string_view source) {
  std::vector<double> x;
  for (const ElementBlock& block : mesh.blocks) {
    with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      const std::string name = element_name(block.type, block.order);
      TREMOR_CHECK(E::dim == mesh.dim(), prefix(source), name, " elements in a ", mesh.dim(), "D mesh");
      const StiffnessRule<E> rule = stiffness_rule<E>();
      for (Index e = 0; e < block.n_elements(); ++e) {
        x.resize(static_cast<std::size_t>(block.n_element_nodes() * mesh.dim()));
        mesh.element_coordinates(block, e, x.data());
        const Label label = block.labels[static_cast<std::size_t>(e)];
        for (double value : x)
          TREMOR_CHECK(std::isfinite(value), prefix(source), "element ", label, " (", name,
                       ") has a node with a non-finite coordinate");
        const ElementSize size = vertex_distances<E>(x.data());
        int point = 0;
        const double worst = worst_det<E>(x.data(), &point);
        const std::string where = point < rule.n_points ? str("quadrature point ", point)
                                                        : str("node ", point - rule.n_points);
        const double relative = relative_det<E>(worst, size.max_length);
        TREMOR_CHECK(relative > -degenerate_tolerance, prefix(source), "element ", label, " (", name,
                     ") is inverted: det J = ", worst, " at its ", where,
                     " (check the node ordering against docs/elements.md)");
        TREMOR_CHECK(relative > degenerate_tolerance, prefix(source), "element ", label, " (", name,
                     ") is degenerate: det J = ", worst, " at its ", where, ", ", relative,
                     " of its size ", size.max_length, "^", E::dim, " (collapsed or flat element)");
      }
    });
  }
}

std::vector<ElementSize> element_sizes(const Mesh& mesh) {
  std::vector<ElementSize> sizes;
  sizes.reserve(static_cast<std::size_t>(mesh.n_elements()));
  std::vector<double> x;
  for (const ElementBlock& block : mesh.blocks) {
    with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      TREMOR_CHECK(E::dim == mesh.dim(), element_name(block.type, block.order), " elements in a ", mesh.dim(),
                   "D mesh");
      for (Index e = 0; e < block.n_elements(); ++e) {
        x.resize(static_cast<std::size_t>(block.n_element_nodes() * mesh.dim()));
        mesh.element_coordinates(block, e, x.data());
        sizes.push_back(vertex_distances<E>(x.data()));
      }
    });
  }
  return sizes;
}

}  // namespace tremor::fem
