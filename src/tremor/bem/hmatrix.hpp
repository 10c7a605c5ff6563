#pragma once
// The boundary-element system as a hierarchical matrix (Hackbusch; Bebendorf 2000; Kurz, Rain &
// Rjasanow 2002): the collocation nodes ordered by a cluster tree of the elements, the pairs of
// clusters far apart relative to their size (admissible) stored as low-rank products U V^T found
// by adaptive cross approximation (ACA) from a few of their rows and columns and recompressed by
// SVD, the others (near field) stored dense. Memory and a product A x grow as N log N for a fixed
// accuracy where the dense matrix grows as N^2; GMRES with the near field's diagonal blocks as a
// preconditioner solves A x = b with products alone.
//
// Host side. Entries come from an EntrySource, by node: a node's 3 rows over a range of column
// nodes, a node's 3 columns over a range of row nodes, or a dense block; the BEM's (pair
// integration, bem/hmatrix_source) or a stored matrix's (tests). Indices below are the tree's
// node numbering unless they say otherwise: a cluster's nodes are contiguous there.
#include <array>
#include <complex>
#include <cstddef>
#include <functional>
#include <vector>

#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/bem/integration.hpp"
#include "tremor/core/config.hpp"

namespace tremor::bem {

using Scalar = std::complex<double>;  // the layout of Complex (complex.hpp) and LAPACK's COMPLEX*16

// ---- The cluster tree -----------------------------------------------------------------------

struct Cluster {
  Index begin = 0, end = 0;                // positions [begin, end) in ClusterTree::elements
  Index first = 0, last = 0;               // their collocation nodes [first, last), tree numbering
  std::array<double, 3> lower{}, upper{};  // the box holding the elements' geometry nodes
  int child[2] = {-1, -1};
  bool leaf() const { return child[0] < 0; }
  Index n_nodes() const { return last - first; }
  double diameter() const;
};

// Elements split in two at the median of their centroids along the longest side of their box
// until a cluster holds at most leaf_size elements. A cluster's nodes are its elements' collocation
// nodes, numbered element by element in the tree's order.
struct ClusterTree {
  std::vector<Cluster> clusters;  // [0]: the root, holding every element
  std::vector<Index> elements;    // the mesh's elements in the tree's order
  std::vector<Index> mesh_node;   // per tree node, its node in the mesh's numbering (first_nodes)
  std::vector<Index> start;       // per position in `elements`, its first tree node (n_elements + 1)
  std::vector<Index> position;    // per tree node, its element's position in `elements`
  Index n_nodes() const { return static_cast<Index>(mesh_node.size()); }
};

ClusterTree cluster_tree(const BoundaryMesh& mesh, ElementOrder order, Index leaf_size);

// Far enough apart to be of low rank: min(diam a, diam b) <= eta dist(a, b), the distance between
// their boxes.
bool admissible(const Cluster& a, const Cluster& b, double eta);

// A leaf of the block tree: the rows of cluster `row`, the columns of cluster `col`.
struct BlockLeaf {
  int row = 0, col = 0;
  bool admissible = false;
};

// The leaves of the block tree from (root, root): admissible pairs stop, pairs of leaf clusters
// are near-field blocks, the rest split (both clusters, or the one that is not a leaf).
std::vector<BlockLeaf> block_leaves(const ClusterTree& tree, double eta);

// What the hierarchical matrix of `tree` will store, before any entry is computed: the near field
// exactly (3 rows and `width` columns per pair of its blocks' nodes), each admissible block at
// `rank` (or dense where that rank would not save). Complex values.
struct HMatrixEstimate {
  Index near_blocks = 0, far_blocks = 0;
  double near_values = 0.0, far_values = 0.0;
  double bytes() const { return 16.0 * (near_values + far_values); }
};

HMatrixEstimate estimate_hmatrix(const ClusterTree& tree, double eta, int width, Index rank);

// ---- Entries --------------------------------------------------------------------------------

// A matrix of 3 rows and w columns per node (w = width(): 3 for a square matrix, 6 for the
// boundary elements' H and G side by side, [H G], which give both the system and its right-hand
// side).
class EntrySource {
 public:
  virtual ~EntrySource();
  virtual int width() const { return 3; }
  // The 3 rows of `node` over the columns of nodes [begin, end): out[r * w (end - begin) + c].
  virtual void node_rows(Index node, Index begin, Index end, Scalar* out) const = 0;
  // The w columns of `node` over the rows of nodes [begin, end): out[c * 3 (end - begin) + r].
  virtual void node_columns(Index node, Index begin, Index end, Scalar* out) const = 0;
  // The block of rows of nodes [rows.first, rows.last), columns of nodes [cols.first, cols.last),
  // column-major with leading dimension 3 rows.n_nodes().
  virtual void block(const Cluster& rows, const Cluster& cols, Scalar* out) const = 0;
};

// A stored matrix of n nodes (3n x 3n, column-major) as a source, in the tree's numbering.
class DenseSource : public EntrySource {
 public:
  DenseSource(const Scalar* A, Index n_nodes) : A_(A), n_(3 * static_cast<Size>(n_nodes)) {}
  void node_rows(Index node, Index begin, Index end, Scalar* out) const override;
  void node_columns(Index node, Index begin, Index end, Scalar* out) const override;
  void block(const Cluster& rows, const Cluster& cols, Scalar* out) const override;

 private:
  const Scalar* A_;
  Size n_;
};

// ---- Low-rank blocks ------------------------------------------------------------------------

// A block of m x n values as U V^T (U m x rank, V n x rank, column-major).
struct LowRank {
  Index m = 0, n = 0, rank = 0;
  std::vector<Scalar> U, V;
};

// ACA with partial pivoting on the block (rows, cols): rank-one updates u v^T from one residual
// row and one residual column each, the next row where the last column is largest, until
// |u| |v| <= tolerance |S| (S the sum so far, its Frobenius norm updated exactly), or the rank
// reaches max_rank (then `converged` is false). Rows and columns are fetched a node (3 at a time)
// and kept for the pivots that follow.
LowRank aca(const EntrySource& source, const Cluster& rows, const Cluster& cols, double tolerance, Index max_rank,
            bool* converged = nullptr);

// Recompression: U = Q_U R_U, V = Q_V R_V, R_U R_V^T = W S Z^H, keeping the singular values above
// tolerance times the largest. Never raises the rank.
void recompress(LowRank& block, double tolerance);

// ---- The hierarchical matrix ----------------------------------------------------------------

struct HMatrixOptions {
  double tolerance = 1e-5;  // relative, of each low-rank block (ACA and recompression)
  double eta = 1.0;         // admissibility
  Index leaf_size = 8;      // elements per leaf cluster
};

struct HMatrixStats {
  Index dense_blocks = 0, low_rank_blocks = 0;
  Index max_rank = 0;       // of every admissible block, as ACA and the recompression left it
  double mean_rank = 0.0;   // (blocks then kept dense included)
  std::size_t dense_values = 0, low_rank_values = 0;  // complex values stored
  double compression = 0.0;                           // stored values / (3N)^2
  Index unconverged = 0;                              // admissible blocks whose ACA hit the rank limit
  Index kept_dense = 0;                               // admissible blocks of too high a rank, kept dense
};

class HMatrix {
 public:
  // Builds every block from `source` (OpenMP over the blocks).
  HMatrix(const ClusterTree& tree, const EntrySource& source, const HMatrixOptions& options = {});

  Index rows() const { return 3 * n_nodes_; }
  Index columns() const { return width_ * n_nodes_; }
  // y = A x (x: w N values, y: 3 N, the tree's numbering).
  void multiply(const Scalar* x, Scalar* y) const;
  // x <- D^-1 x (3 N values), D the square matrix whose block of leaf cluster c is
  // `diagonal(c, block)`: given the near-field block of c with itself (3n x w n), it writes D's
  // 3n x 3n block; LU-factored here once: the block-Jacobi preconditioner.
  using DiagonalOf = std::function<void(const Cluster& c, const Scalar* block, Scalar* out)>;
  void factor_diagonal(const DiagonalOf& diagonal);
  void precondition(Scalar* x) const;
  const HMatrixStats& stats() const { return stats_; }

 private:
  struct Dense {
    int row, col;
    std::vector<Scalar> values;  // column-major
  };
  struct Far {
    int row, col;
    LowRank block;
  };
  const ClusterTree* tree_;
  Index n_nodes_ = 0;
  int width_ = 3;
  std::vector<Dense> dense_;
  std::vector<Far> far_;
  std::vector<std::vector<int>> dense_by_row_, far_by_row_;  // per cluster, the blocks of its rows
  std::vector<int> diagonal_;                                  // the dense blocks on the diagonal
  std::vector<std::vector<Scalar>> factors_;                   // their LU factors
  std::vector<std::vector<int>> pivots_;
  HMatrixStats stats_;
};

// ---- GMRES ----------------------------------------------------------------------------------

struct GmresReport {
  int iterations = 0;        // Krylov vectors built, over all restarts
  double residual = 0.0;     // |b - A x| / |b| at the end (recomputed, not the recurrence's)
  bool converged = false;
};

// What a solve with the compressed matrix reports (bem/hmatrix_source.hpp).
struct HMatrixSolveReport {
  HMatrixStats stats;
  GmresReport gmres;
  double build_seconds = 0.0;  // the compressed matrix: ACA, recompression, near field
  double solve_seconds = 0.0;  // the right-hand side, the block-Jacobi factors and GMRES
};

// Restarted GMRES(restart) with right preconditioning, A M^-1 y = b, x = M^-1 y: modified
// Gram-Schmidt and Givens rotations, stopping when the residual's recurrence falls below
// tolerance |b| (then checked against b - A x) or after max_iterations. x holds the initial guess
// and returns the solution.
using Operator = std::function<void(const Scalar* x, Scalar* y)>;
using Preconditioner = std::function<void(Scalar* x)>;
GmresReport gmres(Index n, const Operator& apply, const Preconditioner& precondition, const Scalar* b, Scalar* x,
                  double tolerance, int restart = 50, int max_iterations = 1000);

}  // namespace tremor::bem
