#include "tremor/bem/hmatrix_product.hpp"

#include <algorithm>
#include <vector>

#include "tremor/backend/forall.hpp"
#include "tremor/bem/hmatrix.hpp"
#include "tremor/core/error.hpp"

namespace tremor::bem {

namespace {

// Each work item's rows (at most G, of one leaf): every term of the leaf, in block order, its
// columns in order; each row's sum in the same order whatever G.
template <int G>
void gather_rows(const Exec& exec, Index n_items, const Index* item_row, const Index* item_rows,
                 const Index* leaf_of_node, const Index* first_term, const ProductTerm* terms, const Complex* t,
                 const Complex* values, const Complex* U, const Complex* x, Complex* y) {
  forall(exec, n_items, [=] TREMOR_LAMBDA(Index item) {
    const Index first = item_row[item];
    const int count = static_cast<int>(item_rows[item]) < G ? static_cast<int>(item_rows[item]) : G;
    const Index leaf = leaf_of_node[first / 3];
    Complex sum[G];
    for (int g = 0; g < G; ++g) sum[g] = Complex();
    for (Index k = first_term[leaf]; k < first_term[leaf + 1]; ++k) {
      const ProductTerm term = terms[k];
      const Size m = static_cast<Size>(term.m);
      const bool dense = term.t_first < 0;
      const Complex* a = (dense ? values : U) + term.offset + static_cast<Size>(first - term.row_first);
      const Complex* c = dense ? x + term.x_first : t + term.t_first;
      for (Index j = 0; j < term.columns; ++j) {
        const Complex* column = a + static_cast<Size>(j) * m;
        const Complex cj = c[j];
        for (int g = 0; g < count; ++g) sum[g] += column[g] * cj;
      }
    }
    for (int g = 0; g < count; ++g) y[first + g] = sum[g];
  });
}

}  // namespace

BlockProduct::BlockProduct(const Exec& exec, const ClusterTree& tree, int width, std::span<const ProductBlock> blocks)
    : exec_(exec), n_rows_(3 * tree.n_nodes()) {
  // The leaves under each cluster, and each tree node's leaf.
  const std::size_t n_clusters = tree.clusters.size();
  std::vector<Index> leaf_slot(n_clusters, -1);
  Index n_leaves = 0;
  for (std::size_t c = 0; c < n_clusters; ++c)
    if (tree.clusters[c].leaf()) leaf_slot[c] = n_leaves++;
  std::vector<Index> leaf_of_node(static_cast<std::size_t>(tree.n_nodes()), -1);
  for (std::size_t c = 0; c < n_clusters; ++c)
    if (tree.clusters[c].leaf())
      for (Index node = tree.clusters[c].first; node < tree.clusters[c].last; ++node)
        leaf_of_node[static_cast<std::size_t>(node)] = leaf_slot[c];
  const auto leaves_under = [&](int c, auto&& each) {
    std::vector<int> stack{c};
    while (!stack.empty()) {
      const int at = stack.back();
      stack.pop_back();
      const Cluster& cluster = tree.clusters[static_cast<std::size_t>(at)];
      if (cluster.leaf()) {
        each(leaf_slot[static_cast<std::size_t>(at)]);
      } else {
        stack.push_back(cluster.child[1]);
        stack.push_back(cluster.child[0]);
      }
    }
  };
  std::vector<ProductTerm> terms;
  std::vector<ProductCoefficient> coefficients;
  std::vector<std::vector<Index>> by_leaf(static_cast<std::size_t>(n_leaves));
  for (const ProductBlock& b : blocks) {
    const Cluster& rows = tree.clusters[static_cast<std::size_t>(b.row)];
    const Cluster& cols = tree.clusters[static_cast<std::size_t>(b.col)];
    ProductTerm t;
    t.offset = b.offset;
    t.row_first = 3 * rows.first;
    t.m = 3 * rows.n_nodes();
    t.x_first = width * cols.first;
    if (b.rank < 0) {
      t.columns = width * cols.n_nodes();
    } else {
      t.columns = b.rank;
      t.t_first = static_cast<Index>(coefficients.size());
      const Index n = width * cols.n_nodes();
      for (Index k = 0; k < b.rank; ++k)
        coefficients.push_back({b.v_offset + static_cast<Size>(k) * n, n, t.x_first});
    }
    const auto index = static_cast<Index>(terms.size());
    terms.push_back(t);
    leaves_under(b.row, [&](Index leaf) { by_leaf[static_cast<std::size_t>(leaf)].push_back(index); });
  }
  std::vector<Index> first_term(static_cast<std::size_t>(n_leaves) + 1, 0), ordered;
  for (Index l = 0; l < n_leaves; ++l) {
    const auto& list = by_leaf[static_cast<std::size_t>(l)];
    ordered.insert(ordered.end(), list.begin(), list.end());
    first_term[static_cast<std::size_t>(l) + 1] = static_cast<Index>(ordered.size());
  }
  // ProductTerms repeated per leaf, in block order: each row reads its own list.
  std::vector<ProductTerm> per_leaf;
  per_leaf.reserve(ordered.size());
  for (const Index k : ordered) per_leaf.push_back(terms[static_cast<std::size_t>(k)]);
  // Work items: a GPU thread takes a row (a warp's threads read consecutive rows: coalesced); a
  // host thread takes up to host_rows_per_item rows of one leaf (a leaf of 8 nine-node elements)
  // at once, so that each block's columns are read once, not once per row, and the rows' sums
  // vectorise (the products took half the time on 2 cores).
  const Index rows_per_item = this->rows_per_item();
  std::vector<Index> item_row, item_rows;
  for (std::size_t c = 0; c < n_clusters; ++c) {
    if (!tree.clusters[c].leaf()) continue;
    const Index last = 3 * tree.clusters[c].last;
    for (Index row = 3 * tree.clusters[c].first; row < last; row += rows_per_item) {
      item_row.push_back(row);
      item_rows.push_back(std::min(rows_per_item, last - row));
    }
  }
  item_row_ = DeviceArray<Index>(exec, std::span<const Index>(item_row));
  item_rows_ = DeviceArray<Index>(exec, std::span<const Index>(item_rows));
  leaf_of_node_ = DeviceArray<Index>(exec, std::span<const Index>(leaf_of_node));
  first_term_ = DeviceArray<Index>(exec, std::span<const Index>(first_term));
  terms_ = DeviceArray<ProductTerm>(exec, std::span<const ProductTerm>(per_leaf));
  coefficients_ = DeviceArray<ProductCoefficient>(exec, std::span<const ProductCoefficient>(coefficients));
  t_ = DeviceArray<Complex>(exec, static_cast<Index>(coefficients.size()));
}

// Traffic: V and U once each (16 B per value), each dense block once, x and t from cache; y
// written once. Threads of a warp read consecutive rows of the same columns (coalesced).
void BlockProduct::apply(const Complex* values, const Complex* U, const Complex* V, const Complex* x,
                         Complex* y) const {
  const ProductCoefficient* coefficients = coefficients_.data();
  Complex* t = t_.data();
  forall(exec_, coefficients_.size(), [=] TREMOR_LAMBDA(Index k) {
    const ProductCoefficient c = coefficients[k];
    Complex sum;
    for (Index j = 0; j < c.n; ++j) sum += V[c.v_offset + static_cast<Size>(j)] * x[c.x_first + j];
    t[k] = sum;
  });
  const auto gather = rows_per_item() == 1 ? gather_rows<1> : gather_rows<host_rows_per_item>;
  gather(exec_, item_row_.size(), item_row_.data(), item_rows_.data(), leaf_of_node_.data(), first_term_.data(),
         terms_.data(), t, values, U, x, y);
  exec_.synchronize();
}

}  // namespace tremor::bem
