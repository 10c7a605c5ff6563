#include "tremor/partition/domains.hpp"

#include <metis.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/mesh/element_type.hpp"

namespace tremor::partition {

namespace {

// The corners on the smallest face (3D) or edge (2D) of an element type: two elements of a
// conforming mesh sharing at least this many corners share a face.
int face_corners(ElementType type) {
  switch (type) {
    case ElementType::Tri3:
    case ElementType::Tri6:
    case ElementType::Quad4:
    case ElementType::Quad8:
    case ElementType::QuadGLL: return 2;
    case ElementType::Tet4:
    case ElementType::Tet10: return 3;
    case ElementType::Hex8:
    case ElementType::Hex20:
    case ElementType::HexGLL: return 4;
  }
  return 2;
}

// The local nodes at an element's corners, in the order of the linear element's vertices: the
// first ones, or the corners of a GLL element's lattice (x fastest), counter-clockwise from the
// origin on each layer, so that a mesh raised to GLL order P gives METIS what its hex8 (quad4)
// mesh gives. The element graph from corners alone is the graph from every node at a fraction of
// the cost: 8 nodes of a GLL hexahedron of order 4 instead of 125.
std::vector<int> corner_nodes(ElementType type, int order) {
  std::vector<int> corners;
  if (!is_gll(type)) {
    for (int v = 0; v < vertices_per_element(type); ++v) corners.push_back(v);
    return corners;
  }
  const int n = order + 1, layers = type == ElementType::HexGLL ? 2 : 1;
  for (int k = 0; k < layers; ++k)
    for (const auto& [i, j] : {std::pair{0, 0}, std::pair{1, 0}, std::pair{1, 1}, std::pair{0, 1}})
      corners.push_back(i * order + n * (j * order + n * k * order));
  return corners;
}

// METIS's call status as text.
const char* metis_status(int status) {
  switch (status) {
    case METIS_ERROR_INPUT: return "an input error";
    case METIS_ERROR_MEMORY: return "out of memory";
    default: return "an error";
  }
}

}  // namespace

Decomposition decompose(const Mesh& mesh, int n_domains, std::span<const double> element_cost) {
  return decomposition_of(mesh, element_domains(mesh, n_domains, element_cost), n_domains);
}

std::vector<int> element_domains(const Mesh& mesh, int n_domains, std::span<const double> element_cost,
                                 int constraints) {
  const Index n_elements = mesh.n_elements(), n_nodes = mesh.n_nodes();
  TREMOR_CHECK(n_domains >= 1, "the number of subdomains must be at least 1, got ", n_domains);
  TREMOR_CHECK(n_domains <= n_elements, n_domains, " subdomains were asked for a mesh of ", n_elements,
               " elements: at most one subdomain per element");
  TREMOR_CHECK(constraints >= 1 && (constraints == 1 || !element_cost.empty()), constraints,
               " balance constraints: more than one needs the elements' costs");
  TREMOR_CHECK(element_cost.empty() || static_cast<Index>(element_cost.size()) == n_elements * constraints,
               "element costs: ", element_cost.size(), " values for ", n_elements, " elements",
               constraints > 1 ? str(" of ", constraints, " weights each") : std::string());
  TREMOR_CHECK(n_elements <= std::numeric_limits<idx_t>::max() && n_nodes <= std::numeric_limits<idx_t>::max(),
               "the mesh is too large for METIS's 32-bit indices");

  // The elements' corners in METIS's mesh format, their weights, and the face size.
  std::vector<idx_t> eptr{0}, eind, weight;
  eptr.reserve(static_cast<std::size_t>(n_elements) + 1);
  weight.reserve(static_cast<std::size_t>(n_elements));
  const double largest_cost =
      element_cost.empty() ? 1.0 : *std::max_element(element_cost.begin(), element_cost.end());
  int ncommon = std::numeric_limits<int>::max();
  Index element = 0;
  for (const ElementBlock& block : mesh.blocks) {
    if (block.n_elements() > 0) ncommon = std::min(ncommon, face_corners(block.type));
    const std::vector<int> corners = corner_nodes(block.type, block.order);
    for (Index e = 0; e < block.n_elements(); ++e, ++element) {
      const auto nodes = block.nodes(e);
      for (const int c : corners) eind.push_back(static_cast<idx_t>(nodes[static_cast<std::size_t>(c)]));
      eptr.push_back(static_cast<idx_t>(eind.size()));
      if (element_cost.empty()) {
        weight.push_back(static_cast<idx_t>(block.n_element_nodes()));
      } else if (constraints == 1) {
        const double cost = element_cost[static_cast<std::size_t>(element)];
        TREMOR_CHECK(cost > 0.0 && std::isfinite(cost), "element cost ", cost, " of element ", element + 1,
                     " must be a positive number");
        // Integer weights for METIS, 1 to 1000 relative to the largest cost.
        weight.push_back(static_cast<idx_t>(std::max(1.0, std::round(1000.0 * cost / largest_cost))));
      } else {
        bool any = false;
        for (int c = 0; c < constraints; ++c) {
          const double cost = element_cost[static_cast<std::size_t>(element * constraints + c)];
          TREMOR_CHECK(cost >= 0.0 && std::isfinite(cost), "element cost ", cost, " of element ", element + 1,
                       " must be a number at least 0");
          any = any || cost > 0.0;
          // 0 stays 0 (the element is not of this constraint's kind); any other 1 to 1000.
          weight.push_back(cost > 0.0 ? static_cast<idx_t>(std::max(1.0, std::round(1000.0 * cost / largest_cost)))
                                      : idx_t(0));
        }
        TREMOR_CHECK(any, "element ", element + 1, " weighs 0 in every balance constraint");
      }
    }
  }

  std::vector<int> element_domain(static_cast<std::size_t>(n_elements), 0);
  if (n_domains > 1) {
    idx_t ne = static_cast<idx_t>(n_elements), nn = static_cast<idx_t>(n_nodes), common = ncommon, numflag = 0;
    idx_t *xadj = nullptr, *adjncy = nullptr;
    int status = METIS_MeshToDual(&ne, &nn, eptr.data(), eind.data(), &common, &numflag, &xadj, &adjncy);
    TREMOR_CHECK(status == METIS_OK, "METIS could not build the element graph: ", metis_status(status));
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;  // the same subdomains on every run and machine
    options[METIS_OPTION_CONTIG] = 0;
    idx_t ncon = constraints, parts = n_domains, cut = 0;
    // Equal weights say nothing: none (so that a mesh and the same mesh raised to a GLL order,
    // whose elements weigh more, give METIS the same problem).
    const bool uniform = constraints == 1 &&
                         std::all_of(weight.begin(), weight.end(), [&](idx_t w) { return w == weight.front(); });
    std::vector<idx_t> part(static_cast<std::size_t>(n_elements));
    status = METIS_PartGraphKway(&ne, &ncon, xadj, adjncy, uniform ? nullptr : weight.data(), nullptr, nullptr, &parts, nullptr,
                                 nullptr, options, &cut, part.data());
    METIS_Free(xadj);
    METIS_Free(adjncy);
    TREMOR_CHECK(status == METIS_OK, "METIS could not split the mesh into ", n_domains, " subdomains: ",
                 metis_status(status));
    std::transform(part.begin(), part.end(), element_domain.begin(), [](idx_t p) { return static_cast<int>(p); });
  }
  return element_domain;
}

Decomposition decomposition_of(const Mesh& mesh, std::vector<int> element_domain, int n_domains) {
  const Index n_elements = mesh.n_elements(), n_nodes = mesh.n_nodes();
  TREMOR_CHECK(static_cast<Index>(element_domain.size()) == n_elements, "a decomposition of ",
               element_domain.size(), " elements for a mesh of ", n_elements);
  for (const int d : element_domain)
    TREMOR_CHECK(d >= 0 && d < n_domains, "an element in subdomain ", d, " of ", n_domains);
  Decomposition out;
  out.element_domain = std::move(element_domain);
  // The nodes of each global element.
  std::vector<std::span<const Index>> element_nodes;
  element_nodes.reserve(static_cast<std::size_t>(n_elements));
  for (const ElementBlock& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e) element_nodes.push_back(block.nodes(e));
  const auto nodes_of = [&](Index e) { return element_nodes[static_cast<std::size_t>(e)]; };
  // Each subdomain's elements in the model's order, then which subdomains use each node: the
  // multiplicity, counted once per subdomain (last_domain marks the subdomain that last counted
  // a node; subdomains are visited in order), the first subdomain to use it, and the others.
  out.domains.resize(static_cast<std::size_t>(n_domains));
  for (Index e = 0; e < n_elements; ++e)
    out.domains[static_cast<std::size_t>(out.element_domain[static_cast<std::size_t>(e)])].elements.push_back(e);
  out.node_multiplicity.assign(static_cast<std::size_t>(n_nodes), 0);
  std::vector<int> last_domain(static_cast<std::size_t>(n_nodes), -1), first_domain(static_cast<std::size_t>(n_nodes), -1);
  std::vector<std::pair<Index, int>> also;  // (node, a subdomain after its first one)
  std::vector<Size> count(static_cast<std::size_t>(n_domains), 0);
  for (int d = 0; d < n_domains; ++d) {
    for (const Index e : out.domains[static_cast<std::size_t>(d)].elements) {
      for (const Index node : nodes_of(e)) {
        const auto n = static_cast<std::size_t>(node);
        if (last_domain[n] == d) continue;
        last_domain[n] = d;
        if (out.node_multiplicity[n]++ == 0)
          first_domain[n] = d;
        else
          also.emplace_back(node, d);
        ++count[static_cast<std::size_t>(d)];
      }
    }
  }
  std::vector<int>().swap(last_domain);
  // Each subdomain's nodes in the model's order: one pass over the nodes (rather than a sort of
  // each subdomain's list, the cost of the largest meshes), the few shared ones merged in.
  std::sort(also.begin(), also.end());
  std::vector<std::vector<Index>> used(static_cast<std::size_t>(n_domains));
  for (int d = 0; d < n_domains; ++d) used[static_cast<std::size_t>(d)].reserve(static_cast<std::size_t>(count[static_cast<std::size_t>(d)]));
  auto next_also = also.begin();
  for (Index node = 0; node < n_nodes; ++node) {
    const int d = first_domain[static_cast<std::size_t>(node)];
    if (d < 0) continue;
    used[static_cast<std::size_t>(d)].push_back(node);
    for (; next_also != also.end() && next_also->first == node; ++next_also)
      used[static_cast<std::size_t>(next_also->second)].push_back(node);
  }
  std::vector<int>().swap(first_domain);
  for (int d = 0; d < n_domains; ++d) {
    Subdomain& domain = out.domains[static_cast<std::size_t>(d)];
    std::vector<Index>& nodes = used[static_cast<std::size_t>(d)];
    TREMOR_CHECK(!nodes.empty(), "METIS left subdomain ", d + 1, " of ", n_domains,
                 " empty: ask for fewer subdomains");
    const auto shared = [&](auto node) { return out.node_multiplicity[static_cast<std::size_t>(node)] > 1; };
    const auto owned_end = std::stable_partition(nodes.begin(), nodes.end(), [&](Index node) { return !shared(node); });
    domain.n_owned = static_cast<Index>(owned_end - nodes.begin());
    domain.nodes = std::move(nodes);
    const auto interface_end =
        std::stable_partition(domain.elements.begin(), domain.elements.end(), [&](Index e) {
          const auto its_nodes = nodes_of(e);
          return std::any_of(its_nodes.begin(), its_nodes.end(), shared);
        });
    domain.n_interface = static_cast<Index>(interface_end - domain.elements.begin());
  }
  return out;
}

Mesh subdomain_mesh(const Mesh& mesh, const Subdomain& d, std::vector<Index>& global_elements) {
  const int dim = mesh.dim();
  std::vector<Index> local(static_cast<std::size_t>(mesh.n_nodes()), -1);
  Mesh out(dim);
  out.coordinates.reserve(d.nodes.size() * static_cast<std::size_t>(dim));
  out.node_labels.reserve(d.nodes.size());
  for (std::size_t i = 0; i < d.nodes.size(); ++i) {
    const Index node = d.nodes[i];
    TREMOR_CHECK(node >= 0 && node < mesh.n_nodes() && local[static_cast<std::size_t>(node)] < 0,
                 "subdomain node ", i, " is model node ", node, ": out of range or listed twice");
    local[static_cast<std::size_t>(node)] = static_cast<Index>(i);
    out.add_node(mesh.node_labels[static_cast<std::size_t>(node)], mesh.node(node));
  }
  global_elements = d.elements;
  std::sort(global_elements.begin(), global_elements.end());
  for (const Index element : global_elements) {
    TREMOR_CHECK(element >= 0 && element < mesh.n_elements(), "subdomain element ", element, " out of range");
    const ElementRef ref = mesh.locate(element);
    const ElementBlock& from = mesh.blocks[static_cast<std::size_t>(ref.block)];
    ElementBlock& to = out.block_for(from.type, from.order);
    for (const Index node : from.nodes(ref.element)) {
      const Index l = local[static_cast<std::size_t>(node)];
      TREMOR_CHECK(l >= 0, "model element ", from.labels[static_cast<std::size_t>(ref.element)], " uses node ",
                   mesh.node_labels[static_cast<std::size_t>(node)], ", which its subdomain does not hold");
      to.connectivity.push_back(l);
    }
    to.labels.push_back(from.labels[static_cast<std::size_t>(ref.element)]);
  }
  return out;
}

}  // namespace tremor::partition

