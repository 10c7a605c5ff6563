#include "tremor/explicit/coupled_parts.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "tremor/core/disjoint_sets.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"

namespace tremor::explicit_fe {

namespace {

// The whole model's elements as the solid's (the model's order less the fluid's: fem::solid_part)
// and the fluid's: -1 where the element is the other's.
void whole_elements(const FluidSetup& fluid, std::size_t n_whole, std::vector<Index>& solid_of,
                    std::vector<Index>& fluid_of) {
  solid_of.assign(n_whole, -1);
  fluid_of.assign(n_whole, -1);
  for (std::size_t k = 0; k < fluid.mesh.elements.size(); ++k)
    fluid_of[static_cast<std::size_t>(fluid.mesh.elements[k])] = static_cast<Index>(k);
  Index next = 0;
  for (std::size_t g = 0; g < n_whole; ++g)
    if (fluid_of[g] < 0) solid_of[g] = next++;
}

}  // namespace

CoupledDecomposition decompose_coupled(const Model& solid, const FluidSetup& fluid, int n_domains,
                                       const std::vector<int>* element_domain, const std::string& file) {
  const Mesh& solid_mesh = solid.mesh;
  const Mesh& fluid_mesh = fluid.mesh.model.mesh;
  const auto ns = static_cast<std::size_t>(solid_mesh.n_elements()), nf = static_cast<std::size_t>(fluid_mesh.n_elements());
  std::vector<Index> solid_of, fluid_of;
  whole_elements(fluid, ns + nf, solid_of, fluid_of);
  TREMOR_CHECK(std::count_if(solid_of.begin(), solid_of.end(), [](Index e) { return e >= 0; }) ==
                   static_cast<std::ptrdiff_t>(ns),
               "the model's solid has ", ns, " elements and its fluid ", nf, ", which the model's do not add up to");
  std::vector<int> solid_domain(ns), fluid_domain(nf);
  if (element_domain) {
    TREMOR_CHECK(element_domain->size() == ns + nf, "a decomposition of ", element_domain->size(),
                 " elements for a model of ", ns + nf);
    for (std::size_t g = 0; g < ns + nf; ++g)
      (fluid_of[g] >= 0 ? fluid_domain[static_cast<std::size_t>(fluid_of[g])]
                        : solid_domain[static_cast<std::size_t>(solid_of[g])]) = (*element_domain)[g];
  } else {
    // METIS on the solid's elements and the fluid's on the model's nodes, balancing each kind.
    Mesh both(solid_mesh.dim());
    both.node_labels.assign(static_cast<std::size_t>(solid_mesh.n_nodes()), Label{});
    std::vector<double> cost;
    for (const ElementBlock& block : solid_mesh.blocks) {
      both.blocks.push_back(block);
      for (Index e = 0; e < block.n_elements(); ++e) {
        cost.push_back(block.n_element_nodes());
        cost.push_back(0.0);
      }
    }
    for (const ElementBlock& block : fluid_mesh.blocks) {
      ElementBlock on_model = block;
      for (Index& node : on_model.connectivity) node = fluid.mesh.nodes[static_cast<std::size_t>(node)];
      both.blocks.push_back(std::move(on_model));
      for (Index e = 0; e < block.n_elements(); ++e) {
        cost.push_back(0.0);
        cost.push_back(block.n_element_nodes());
      }
    }
    const std::vector<int> domain = partition::element_domains(both, n_domains, cost, 2);
    std::copy_n(domain.begin(), ns, solid_domain.begin());
    std::copy(domain.begin() + static_cast<std::ptrdiff_t>(ns), domain.end(), fluid_domain.begin());
  }
  // The two elements of each interface face in one group; a group takes the part of its first
  // solid element (groups are small: an element and those across its wet faces).
  DisjointSets groups(ns + nf);
  for (const fem::CouplingFace& face : fluid.interface.faces)
    groups.unite(static_cast<std::size_t>(solid_of[static_cast<std::size_t>(face.solid.element)]),
                 ns + static_cast<std::size_t>(fluid_of[static_cast<std::size_t>(face.fluid.element)]));
  std::vector<int> group_domain(ns + nf, -1);
  for (std::size_t e = 0; e < ns; ++e) {
    int& to = group_domain[groups.root(e)];
    if (to < 0) to = solid_domain[e];
    solid_domain[e] = to;
  }
  for (std::size_t k = 0; k < nf; ++k)
    if (const int to = group_domain[groups.root(ns + k)]; to >= 0) fluid_domain[k] = to;
  // Every part steps a solid and a fluid.
  std::vector<char> has_solid(static_cast<std::size_t>(n_domains), 0), has_fluid(has_solid);
  for (const int d : solid_domain) has_solid[static_cast<std::size_t>(d)] = 1;
  for (const int d : fluid_domain) has_fluid[static_cast<std::size_t>(d)] = 1;
  for (int d = 0; d < n_domains; ++d)
    TREMOR_CHECK(has_solid[static_cast<std::size_t>(d)] && has_fluid[static_cast<std::size_t>(d)],
                 element_domain && !file.empty() ? str(file, ": ") : std::string(), "subdomain ", d + 1, " of ",
                 n_domains, " holds no ", has_solid[static_cast<std::size_t>(d)] ? "fluid" : "solid",
                 " element: a decomposed model with fluids steps a part of its solid and of its fluid in every "
                 "subdomain (docs/model-file.md, \"Fluids\"); ",
                 element_domain && !file.empty() ? "give every subdomain of the file some of each"
                                                 : "ask for fewer subdomains");
  CoupledDecomposition out;
  out.solid = partition::decomposition_of(solid_mesh, std::move(solid_domain), n_domains);
  out.fluid = partition::decomposition_of(fluid_mesh, std::move(fluid_domain), n_domains);
  return out;
}

std::vector<int> whole_element_domains(const CoupledDecomposition& coupled, const FluidSetup& fluid) {
  const std::size_t n_whole = coupled.solid.element_domain.size() + coupled.fluid.element_domain.size();
  std::vector<Index> solid_of, fluid_of;
  whole_elements(fluid, n_whole, solid_of, fluid_of);
  std::vector<int> out(n_whole);
  for (std::size_t g = 0; g < n_whole; ++g)
    out[g] = fluid_of[g] >= 0 ? coupled.fluid.element_domain[static_cast<std::size_t>(fluid_of[g])]
                              : coupled.solid.element_domain[static_cast<std::size_t>(solid_of[g])];
  return out;
}

std::vector<History> solid_histories(const std::vector<History>& whole, const FluidSetup& fluid) {
  std::vector<Index> fluid_elements = fluid.mesh.elements;
  std::sort(fluid_elements.begin(), fluid_elements.end());
  std::vector<History> out;
  for (const History& history : whole) {
    if (records_fluid(history)) continue;
    out.push_back(history);
    for (Location& location : out.back().locations)
      location.element -= static_cast<Index>(
          std::lower_bound(fluid_elements.begin(), fluid_elements.end(), location.element) - fluid_elements.begin());
  }
  return out;
}

namespace {

// The snapshot nodes dealt to the parts (add_fluid_parts).
void deal_snapshot_nodes(std::vector<ModelPart>& parts, const Model& solid, const FluidSetup& fluid,
                         const CoupledDecomposition& coupled) {
  const auto n_model = static_cast<std::size_t>(solid.mesh.n_nodes());
  const std::vector<Index>& listed = solid.output->snapshot_nodes;
  const std::size_t n_listed = listed.empty() ? n_model : listed.size();
  const auto node_of = [&](std::size_t k) { return listed.empty() ? static_cast<Index>(k) : listed[k]; };
  // Per model node: the first part holding it in the solid, and on both sides.
  std::vector<int> in_solid(n_model, -1), both(n_model, -1);
  std::vector<char> here(n_model, 0);
  for (std::size_t s = parts.size(); s-- > 0;)
    for (const Index node : coupled.solid.domains[s].nodes) in_solid[static_cast<std::size_t>(node)] = static_cast<int>(s);
  for (std::size_t s = 0; s < parts.size(); ++s) {
    for (const Index node : coupled.solid.domains[s].nodes) here[static_cast<std::size_t>(node)] = 1;
    for (const Index f : coupled.fluid.domains[s].nodes) {
      const auto node = static_cast<std::size_t>(fluid.mesh.nodes[static_cast<std::size_t>(f)]);
      if (here[node] && both[node] < 0) both[node] = static_cast<int>(s);
    }
    for (const Index node : coupled.solid.domains[s].nodes) here[static_cast<std::size_t>(node)] = 0;
  }
  // Per model node only fluid elements hold: the part of the first of them (the lowest model number).
  std::vector<Index> first_element(n_model, -1);
  std::vector<int> only_fluid(n_model, -1);
  Index k = 0;
  for (const ElementBlock& block : fluid.mesh.model.mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++k) {
      const Index element = fluid.mesh.elements[static_cast<std::size_t>(k)];
      for (const Index f : block.nodes(e)) {
        const auto node = static_cast<std::size_t>(fluid.mesh.nodes[static_cast<std::size_t>(f)]);
        if (in_solid[node] >= 0 || (first_element[node] >= 0 && first_element[node] < element)) continue;
        first_element[node] = element;
        only_fluid[node] = coupled.fluid.element_domain[static_cast<std::size_t>(k)];
      }
    }
  // Each listed node's part: its solid's ones first, then those only its fluid holds.
  std::vector<int> to(n_listed, -1);
  for (std::size_t p = 0; p < n_listed; ++p) {
    const auto node = static_cast<std::size_t>(node_of(p));
    to[p] = only_fluid[node] >= 0 ? only_fluid[node] : both[node] >= 0 ? both[node] : in_solid[node];
  }
  std::vector<Index> local(n_model, -1);
  for (std::size_t s = 0; s < parts.size(); ++s) {
    ModelPart& part = parts[s];
    for (std::size_t i = 0; i < part.nodes.size(); ++i) local[static_cast<std::size_t>(part.nodes[i])] = static_cast<Index>(i);
    std::vector<Index> nodes, points, fluid_points;
    part.fluid_snapshot_nodes.clear();
    for (std::size_t p = 0; p < n_listed; ++p) {
      if (to[p] != static_cast<int>(s)) continue;
      const Index node = node_of(p);
      if (only_fluid[static_cast<std::size_t>(node)] >= 0) {
        part.fluid_snapshot_nodes.push_back(node);
        fluid_points.push_back(static_cast<Index>(p));
      } else {
        nodes.push_back(local[static_cast<std::size_t>(node)]);
        points.push_back(static_cast<Index>(p));
      }
    }
    points.insert(points.end(), fluid_points.begin(), fluid_points.end());
    part.snapshot_points = std::move(points);
    if (part.model.output) part.model.output->snapshot_nodes = std::move(nodes);
    for (const Index node : part.nodes) local[static_cast<std::size_t>(node)] = -1;
  }
}

}  // namespace

std::vector<History> merged_histories(const std::vector<History>& whole) {
  std::vector<History> out;
  for (const History& history : whole)
    if (!records_fluid(history)) out.push_back(history);
  const auto solid = static_cast<std::ptrdiff_t>(out.size());
  for (const History& history : whole)
    if (records_fluid(history)) out.push_back(history);
  std::stable_partition(out.begin() + solid, out.end(), [](const History& history) { return !history.potential; });
  return out;
}

void add_fluid_parts(std::vector<ModelPart>& parts, const Model& solid, const FluidSetup& fluid,
                     const CoupledDecomposition& coupled, const std::vector<History>& fluid_histories,
                     int first_history, int only) {
  const partition::Decomposition& decomposition = coupled.fluid;
  TREMOR_CHECK(decomposition.domains.size() == parts.size(), "a fluid of ", decomposition.domains.size(),
               " parts for a solid of ", parts.size());
  const std::vector<Index>& nodes = fluid.mesh.nodes;  // ascending: the whole fluid's
  // A fluid node belongs to the first part holding it; a fluid element to its part.
  std::vector<int> owner(nodes.size(), -1);
  for (std::size_t s = parts.size(); s-- > 0;)
    for (const Index node : decomposition.domains[s].nodes) owner[static_cast<std::size_t>(node)] = static_cast<int>(s);
  std::vector<int> element_part(static_cast<std::size_t>(fluid.mesh.elements.empty() ? 0
                                                           : *std::max_element(fluid.mesh.elements.begin(),
                                                                               fluid.mesh.elements.end()) + 1),
                                -1);
  for (std::size_t k = 0; k < fluid.mesh.elements.size(); ++k)
    element_part[static_cast<std::size_t>(fluid.mesh.elements[k])] = decomposition.element_domain[k];
  const auto part_of = [&](const History& history, std::size_t q) {
    if (!history.locations.empty()) {  // its element's (a position, or a node's gradient stencil)
      const auto e = static_cast<std::size_t>(history.locations[q].element);
      TREMOR_CHECK(e < element_part.size() && element_part[e] >= 0, "history '", history.name,
                   "' reads a point in element ", e, ", which is no fluid's");
      return element_part[e];
    }
    const Index node = history.nodes[q];
    const auto found = std::lower_bound(nodes.begin(), nodes.end(), node);
    TREMOR_CHECK(found != nodes.end() && *found == node, "history '", history.name, "' reads node ", node,
                 ", which no fluid element holds");
    return owner[static_cast<std::size_t>(found - nodes.begin())];
  };
  for (std::size_t s = 0; s < parts.size(); ++s) {
    ModelPart& part = parts[s];
    if (only < 0 || static_cast<std::size_t>(only) == s)
      part.fluid = std::make_shared<const FluidSetup>(fluid_part(fluid, decomposition.domains[s]));
    for (std::size_t h = 0; h < fluid_histories.size(); ++h) {
      const History& full = fluid_histories[h];
      History mine = full.without_points();
      std::vector<Index> points;
      for (Index p = 0; p < full.n_points(); ++p) {
        const auto q = static_cast<std::size_t>(p);
        if (full.surface_means) {
          // A footprint's mean (an immersed array's): the share over the fluid nodes this part
          // owns, as the solid's parts split theirs (HistoryMerge adds the shares).
          const Location& where = full.locations[q];
          Location share = where;
          share.nodes.clear();
          share.weights.clear();
          for (std::size_t a = 0; a < where.nodes.size(); ++a) {
            const auto found = std::lower_bound(nodes.begin(), nodes.end(), where.nodes[a]);
            TREMOR_CHECK(found != nodes.end() && *found == where.nodes[a], "history '", full.name, "' reads node ",
                         where.nodes[a], ", which no fluid element holds");
            if (owner[static_cast<std::size_t>(found - nodes.begin())] != static_cast<int>(s)) continue;
            share.nodes.push_back(where.nodes[a]);
            share.weights.push_back(where.weights[a]);
          }
          if (share.nodes.empty()) continue;
          mine.positions.push_back(full.positions[q]);
          mine.locations.push_back(std::move(share));
          points.push_back(p);
          continue;
        }
        if (part_of(full, q) != static_cast<int>(s)) continue;
        if (!full.nodes.empty()) {
          mine.nodes.push_back(full.nodes[q]);
          mine.node_labels.push_back(full.node_labels[q]);
        } else {
          mine.positions.push_back(full.positions[q]);
        }
        if (!full.locations.empty()) mine.locations.push_back(full.locations[q]);
        points.push_back(p);
      }
      if (points.empty()) continue;
      part.fluid_histories.push_back(std::move(mine));
      part.history_of.push_back(first_history + static_cast<int>(h));
      part.history_points.push_back(std::move(points));
    }
  }
  if (solid.output) deal_snapshot_nodes(parts, solid, fluid, coupled);
}

}  // namespace tremor::explicit_fe
