#pragma once
// The boundary-element system as a hierarchical matrix (Hackbusch; Bebendorf 2000; Kurz, Rain &
// Rjasanow 2002): the collocation nodes ordered by a cluster tree of the elements, the pairs of
// clusters far apart relative to their size (admissible) stored as low-rank products U V^T found
// by adaptive cross approximation (ACA) from a few of their rows and columns and recompressed by
// SVD, the others (near field) stored dense. Memory and a product A x grow as N log N for a fixed
// accuracy where the dense matrix grows as N^2; GMRES with the near field's diagonal blocks as a
// preconditioner solves A x = b with products alone.
//
// Entries come from an EntrySource in batches, by node: nodes' 3 rows over ranges of column nodes,
// nodes' w columns over ranges of row nodes, or dense blocks; the BEM's (pair integration on an
// Exec, bem/hmatrix_source) or a stored matrix's (tests). The tree, ACA's arithmetic, the
// recompression and GMRES run on the host; the blocks live, and products run, on an Exec.
// Indices below are the tree's node numbering unless they say otherwise: a cluster's nodes are
// contiguous there.
#include <array>
#include <complex>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"

#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/bem/complex.hpp"
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
// side), asked for in batches: ACA's rows and columns of every admissible block at one step, the
// near field's blocks at once, so that a GPU integrates them in a few launches.
class EntrySource {
 public:
  // One node's entries: its 3 rows over the columns of nodes [begin, end), out[a + 3 c] (3 x
  // w (end - begin), column-major), or its w columns over the rows of nodes [begin, end),
  // out[r + 3 (end - begin) c], or its column `column` (0 <= column < w) alone, out[r]. `out` on
  // the host.
  struct Request {
    Index node = 0, begin = 0, end = 0;
    Scalar* out = nullptr;
    int column = -1;  // columns: -1 for all w
  };
  // A block: the rows of cluster `rows`, the columns of `cols`, column-major with leading
  // dimension 3 rows->n_nodes(), at `offset` in the output.
  struct BlockRequest {
    const Cluster* rows = nullptr;
    const Cluster* cols = nullptr;
    Size offset = 0;
  };
  virtual ~EntrySource();
  virtual int width() const { return 3; }
  virtual void rows(std::span<const Request> requests) const = 0;
  virtual void columns(std::span<const Request> requests) const = 0;
  // The blocks into `out`, in exec's memory space.
  virtual void blocks(const Exec& exec, std::span<const BlockRequest> requests, Scalar* out) const = 0;

  // One request of each kind, on the host.
  void node_rows(Index node, Index begin, Index end, Scalar* out) const;
  void node_columns(Index node, Index begin, Index end, Scalar* out) const;
  void block(const Cluster& rows, const Cluster& cols, Scalar* out) const;
};

// A stored matrix of n nodes (3n x 3n, column-major) as a source, in the tree's numbering.
class DenseSource : public EntrySource {
 public:
  DenseSource(const Scalar* A, Index n_nodes) : A_(A), n_(3 * static_cast<Size>(n_nodes)) {}
  void rows(std::span<const Request> requests) const override;
  void columns(std::span<const Request> requests) const override;
  void blocks(const Exec& exec, std::span<const BlockRequest> requests, Scalar* out) const override;

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

// ACA with partial pivoting on the block (rows, cols), a node at a time: rank-one updates u v^T
// from one residual row and one residual column each, for each of the node's 3 rows in turn (a
// vector problem's components may be uncoupled in a block, as on a flat surface, where one row's
// pivots never reach the others), then the node where the new columns' residual is largest;
// until two nodes in a row add less than tolerance |S| (S the sum so far, its Frobenius norm
// updated exactly), or the rank reaches max_rank (then not converged).
//
// A step asks for the rows of one node (next_node()), which give the step's pivot columns and
// their residual values in those rows; then for the pivot columns (wanted_columns()); so many
// blocks step together, their requests batched.
class AcaBlock {
 public:
  AcaBlock(const Cluster& rows, const Cluster& cols, int width, double tolerance, Index max_rank);
  // The node (tree numbering) whose rows come next, or -1 when the block is done.
  Index next_node() const { return finished_ ? -1 : rows_.first + next_; }
  // Its 3 rows over the block's columns, as EntrySource::rows writes them.
  void take_rows(const Scalar* rows3);
  // The columns take_columns wants (w node + column of the node, the tree's numbering), each over
  // the block's rows.
  const std::vector<Index>& wanted_columns() const { return wanted_; }
  // Appends the requests for them, EntrySource::columns's, written one after another from `out`.
  void column_requests(Scalar* out, std::vector<EntrySource::Request>& into) const;
  void take_columns(const Scalar* columns);  // wanted_columns().size() x m values, in that order
  bool finished() const { return finished_; }
  bool converged() const { return converged_; }
  LowRank take_result() { return std::move(out_); }

 private:
  void end_step(bool any, double step2);
  Cluster rows_, cols_;
  int w_;
  double tolerance_;
  Index max_rank_;
  LowRank out_;
  std::vector<char> node_used_, column_used_;
  std::vector<double> pull_;       // the step's new columns' residual per node
  std::vector<Index> pivots_;      // the step's pivot columns
  std::vector<Scalar> pending_v_;  // their rows, normalised (n each)
  std::vector<Index> wanted_;
  double largest_seen_ = 0.0;  // the largest entry fetched: the scale below which a pivot is zero
  double frobenius2_ = 0.0;    // |S|^2 of the sum so far
  Index next_ = 0, empty_nodes_ = 0;
  int quiet_ = 0;
  bool finished_ = false, converged_ = false;
};

// One block's ACA with its own requests to `source`.
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
  Index aca_steps = 0;                                // batched ACA steps (rows, then columns, of every block)
  double near_seconds = 0.0, aca_seconds = 0.0, recompress_seconds = 0.0;
  double aca_entry_seconds = 0.0;  // of aca_seconds, in the source's rows and columns
  double store_seconds = 0.0;      // the blocks laid out in exec's memory (the near field's entries apart)
};

class BlockProduct;  // bem/hmatrix_product.hpp

class HMatrix {
 public:
  // Builds every block from `source`: the near field in one batch, ACA's steps of every
  // admissible block batched together, recompression on the host (OpenMP); stores the blocks in
  // exec's memory, where products run.
  HMatrix(const Exec& exec, const ClusterTree& tree, const EntrySource& source, const HMatrixOptions& options = {});
  ~HMatrix();
  HMatrix(const HMatrix&) = delete;
  HMatrix& operator=(const HMatrix&) = delete;

  Index rows() const { return 3 * n_nodes_; }
  Index columns() const { return width_ * n_nodes_; }
  // y = A x (x: w N values, y: 3 N, the tree's numbering, on the host).
  void multiply(const Scalar* x, Scalar* y) const;
  // x <- D^-1 x (3 N values, on the host), D the square matrix whose block of leaf cluster c is
  // `diagonal(c, block)`: given the near-field block of c with itself (3n x w n), it writes D's
  // 3n x 3n block; inverted here once (LAPACK): the block-Jacobi preconditioner, applied on exec.
  using DiagonalOf = std::function<void(const Cluster& c, const Scalar* block, Scalar* out)>;
  void factor_diagonal(const DiagonalOf& diagonal);
  void precondition(Scalar* x) const;
  const HMatrixStats& stats() const { return stats_; }

 private:
  struct Block {
    int row = 0, col = 0;
    Size offset = 0;  // dense: its values in near_; low rank: U's in U_
    Size v_offset = 0;
    Index rank = -1;  // -1: dense
  };
  Exec exec_;
  const ClusterTree* tree_;
  Index n_nodes_ = 0;
  int width_ = 3;
  std::vector<Block> blocks_;
  std::vector<int> diagonal_;  // the dense blocks on the diagonal
  DeviceArray<Complex> near_, U_, V_, inverses_;
  mutable DeviceArray<Complex> x_, y_;  // staging for host vectors
  std::unique_ptr<BlockProduct> product_, preconditioner_;
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
