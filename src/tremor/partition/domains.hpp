#pragma once
// Domain decomposition of a mesh into subdomains, one per device or process (the multi-GPU
// spectral-element paper, section 3: METIS, then each subdomain's own node numbering).
//
// decompose() splits the elements by METIS's k-way partitioning of the element graph (two
// elements adjacent when they share a face: at least as many nodes as the smallest face of the
// mesh's element types), each element weighted by its cost (default: its node count, which
// follows the work of every operator). Each subdomain then numbers the nodes its elements use:
// the nodes it alone holds first, the nodes it shares with other subdomains (the paper's "common
// nodes", whose forces are exchanged) last, each group in the model's order; and lists its
// elements with those touching a shared node first, so that their forces can be exchanged while
// the interior ones are computed. The result is deterministic: METIS runs with a fixed seed.
#include <span>
#include <vector>

#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::partition {

struct Subdomain {
  // The model's node numbers of the subdomain's nodes: local node i is nodes[i]. The first
  // n_owned hold nodes no other subdomain uses; the rest are shared.
  std::vector<Index> nodes;
  Index n_owned = 0;
  // The model's element numbers (over the blocks in order, as Mesh::locate counts them):
  // the first n_interface touch a shared node, the rest do not.
  std::vector<Index> elements;
  Index n_interface = 0;

  Index n_shared() const { return static_cast<Index>(nodes.size()) - n_owned; }
};

struct Decomposition {
  std::vector<int> element_domain;  // per model element, its subdomain in [0, n_domains)
  std::vector<Subdomain> domains;
  // Per model node, how many subdomains use it (1 for an owned node, 0 for a node no element uses).
  std::vector<int> node_multiplicity;

  int n_domains() const { return static_cast<int>(domains.size()); }
};

// Splits mesh into n_domains subdomains. element_cost, when given, holds one positive weight per
// element (over the blocks in order), else each element weighs its node count. Throws
// tremor::Error for n_domains < 1, more subdomains than elements, a cost list of the wrong length
// or a non-positive cost, or a part METIS leaves empty.
Decomposition decompose(const Mesh& mesh, int n_domains, std::span<const double> element_cost = {});

// METIS's answer alone, decompose()'s first step: each element's subdomain, in [0, n_domains).
// The same arguments and errors, but for an empty part, which decomposition_of() finds.
// `constraints` > 1: element_cost holds that many weights per element ([element][constraint], each
// at least 0 and one positive), and METIS balances each over the subdomains (its multi-constraint
// partitioning: a model's solid and fluid elements, say, each shared out evenly).
std::vector<int> element_domains(const Mesh& mesh, int n_domains, std::span<const double> element_cost = {},
                                 int constraints = 1);

// The subdomains of `mesh` whose elements lie in element_domain[e] (one per element, in [0,
// n_domains)): what decompose() builds from METIS's answer. A process given the answer of another
// (a run over several processes: the first decomposes) builds the same subdomains.
Decomposition decomposition_of(const Mesh& mesh, std::vector<int> element_domain, int n_domains);

// The mesh of subdomain d of `mesh`: its nodes in its local numbering (local node i is d.nodes[i],
// label and coordinates kept), its elements in the model's order (local element e is model
// element global_elements[e] on return), each keeping its label. No sets: a subdomain's loads,
// sections and outputs come from the model's.
Mesh subdomain_mesh(const Mesh& mesh, const Subdomain& d, std::vector<Index>& global_elements);

}  // namespace tremor::partition
