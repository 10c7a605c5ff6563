#include "tremor/fem/geometry.hpp"

#include <cmath>
#include <string>

#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/element_survey.hpp"

namespace tremor::fem {

namespace {

// Copies the node coordinates of one element into x (node-major, dim per node).
void gather(const Mesh& mesh, const ElementBlock& block, Index element, std::vector<double>& x) {
  const int dim = mesh.dim();
  const auto nodes = block.nodes(element);
  x.resize(nodes.size() * static_cast<std::size_t>(dim));
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    const auto xyz = mesh.node(nodes[a]);
    for (int c = 0; c < dim; ++c) x[a * static_cast<std::size_t>(dim) + static_cast<std::size_t>(c)] = xyz[static_cast<std::size_t>(c)];
  }
}

template <class E>
ElementSize vertex_distances(const double* x) {
  ElementSize size{1e300, 0.0};
  for (int v = 0; v < E::n_vertices; ++v)
    for (int w = v + 1; w < E::n_vertices; ++w) {
      double d2 = 0.0;
      for (int c = 0; c < E::dim; ++c) {
        const double d = x[vertex_node<E>(v) * E::dim + c] - x[vertex_node<E>(w) * E::dim + c];
        d2 += d * d;
      }
      const double d = std::sqrt(d2);
      size.min_length = std::min(size.min_length, d);
      size.max_length = std::max(size.max_length, d);
    }
  return size;
}

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
        gather(mesh, block, e, x);
        const Label label = block.labels[static_cast<std::size_t>(e)];
        for (double value : x)
          TREMOR_CHECK(std::isfinite(value), prefix(source), "element ", label, " (", name,
                       ") has a node with a non-finite coordinate");
        const ElementSize size = vertex_distances<E>(x.data());
        double scale = 1.0;  // max_length^dim, as fem::relative_det (element_survey.hpp) forms it
        for (int d = 0; d < E::dim; ++d) scale *= size.max_length;
        scale /= reference_volume<E>();
        // The worst point: quadrature points first, then the nodes.
        double worst = 1e300;
        std::string where;
        for (int p = 0; p < rule.n_points + E::n_nodes; ++p) {
          double xi[E::dim];
          if (p < rule.n_points) {
            for (int j = 0; j < E::dim; ++j) xi[j] = rule.point(p)[j];
          } else {
            E::node(p - rule.n_points, xi);
          }
          const double det = jacobian_determinant<E>(x.data(), xi);
          if (det < worst) {
            worst = det;
            where = p < rule.n_points ? str("quadrature point ", p) : str("node ", p - rule.n_points);
          }
        }
        const double relative = scale > 0.0 ? worst / scale : 0.0;
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
        gather(mesh, block, e, x);
        sizes.push_back(vertex_distances<E>(x.data()));
      }
    });
  }
  return sizes;
}

}  // namespace tremor::fem
