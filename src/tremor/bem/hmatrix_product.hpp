#pragma once
// Products with a set of blocks stored on an Exec (the hierarchical matrix's near field and
// low-rank blocks, or its block-Jacobi inverses): y = sum_b A_b x, each block A_b on the rows of
// one cluster and the columns of another, dense (m x n column-major) or low rank (U V^T, U m x k
// and V n x k column-major). One thread per row (on the host, per 216 rows of a leaf) gathers, in
// block order, every block whose row cluster holds it (the path from the root to its leaf): no
// atomics, the same bits every run.
#include <span>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/bem/complex.hpp"

namespace tremor::bem {

struct ClusterTree;

// A block: the rows of cluster `row` (3 per node), the columns of cluster `col` (width per node).
struct ProductBlock {
  int row = 0, col = 0;
  Size offset = 0;    // dense: its values; low rank: U's
  Size v_offset = 0;  // low rank: V's
  Index rank = -1;    // -1: dense
};

// What a row's gather reads of one block.
struct ProductTerm {
  Size offset = 0;        // values or U
  Index row_first = 0;    // the block's first row
  Index m = 0;            // its rows
  Index x_first = 0;      // dense: its first column in x
  Index columns = 0;      // dense: n; low rank: its rank
  Index t_first = -1;     // low rank: its coefficients V^T x in t_; -1: dense
};
// One per rank-one term of a low-rank block: t = V_k^T x.
struct ProductCoefficient {
  Size v_offset = 0;
  Index n = 0, x_first = 0;
};

class BlockProduct {
 public:
  BlockProduct(const Exec& exec, const ClusterTree& tree, int width, std::span<const ProductBlock> blocks);
  // y = A x on exec (x: width values per node, y: 3 per node, the tree's numbering): `values`
  // holds the dense blocks, U and V the low-rank ones.
  void apply(const Complex* values, const Complex* U, const Complex* V, const Complex* x, Complex* y) const;

 private:
  Exec exec_;
  Index n_rows_ = 0;
  static constexpr int host_rows_per_item = 216;
  Index rows_per_item() const { return exec_.space() == MemorySpace::Host ? host_rows_per_item : 1; }
  DeviceArray<Index> item_row_, item_rows_;       // per work item, its first row and its rows
  DeviceArray<Index> leaf_of_node_, first_term_;  // per tree node, its leaf; per leaf, its terms
  DeviceArray<ProductTerm> terms_;
  DeviceArray<ProductCoefficient> coefficients_;
  mutable DeviceArray<Complex> t_;
};

}  // namespace tremor::bem
