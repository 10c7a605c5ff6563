#pragma once
// H and G of the boundary-element solver (paper section 2, eq. 2; Algorithm 2) for constant
// elements (one collocation node per element, at its reference centre) and discontinuous linear
// and quadratic ones (one per vertex, or per geometry node of a second-order element:
// integration.hpp). Every node carries a displacement and a traction vector;
// the nodes are numbered element by element (element e's are first_node[e] .. first_node[e+1]).
// Block (i, p) of each, 3 x 3, integrates t* and u* of a unit load at node i against node p's
// shape function N_p over p's element S:
//
//   H_ip = c_i delta_ip + int_S t*(xi_i, x) N_p(x) dS,     G_ip = int_S u*(xi_i, x) N_p(x) dS,
//
// so that H u = G t. Matrices are column-major, 3m x 3m for m nodes, leading dimension 3m: entry
// (3 i + a, 3 p + b) is load direction a at node i, component b at node p.
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/bem/boundary_mesh.hpp"
#include "tremor/bem/complex.hpp"
#include "tremor/bem/fundamental.hpp"
#include "tremor/bem/integration.hpp"

namespace tremor::bem {

// How the CUDA backend spreads the pairs (the host backends run one pair per iteration):
enum class PairLayout {
  ThreadPerPair,  // the portable forall body, one thread per (i, j)
  BlockPerPair,   // paper section 3.1: a block of g x g threads per pair, one quadrature point
                  // each, reduced by warp shuffles and shared memory in a fixed order
};

struct IntegrationOptions {
  int gauss = 8;            // g: g x g points per element or subdivision piece (the paper's 8)
  int singular_gauss = 8;   // per Duffy triangle of the element holding the collocation point
  double near_ratio = 2.0;  // subdivide a piece closer to the point than near_ratio x its diameter
  int max_depth = 6;        // at most this many halvings
  PairLayout layout = PairLayout::BlockPerPair;
};

// How c_i + PV int t*_static over the collocation point's own element is found (the strongly
// singular part; the rest, t*_dynamic - t*_static, is bounded and integrated by quadrature: eq. 4).
enum class FreeTerm {
  // Rigid-body motion of a closed surface: c_i + PV int_S t*_static = alpha I with alpha 0 when
  // the solid is inside the surface and 1 when it is outside (the sphere at infinity takes -I),
  // so the own element's part is alpha I - sum_{j != i} int_Sj t*_static.
  RigidBody,
  // Directly, for open surfaces too: c = I/2 at a point inside a smooth element, and the principal
  // value over the element's tangent plane along its edges (curved or warped elements add the
  // difference between the element and its projection, a weakly singular integral).
  Direct,
};

// The boundary on the device: coordinates (3 per mesh node), connectivity (4 per element, -1 as a
// triangle's fourth), a second-order mesh's mid-edge and centre nodes (5 per element, -1 where
// absent; nullptr for straight-sided elements), each element's first collocation node
// (n_elements + 1 entries) and each node's element (n_nodes entries), in the memory space of the
// Exec that uses it.
struct BoundaryView {
  const double* coordinates = nullptr;
  const Index* connectivity = nullptr;
  const Index* mid_nodes = nullptr;
  Index n_elements = 0;
  ElementOrder order = ElementOrder::Constant;
  const Index* first_node = nullptr;
  const Index* node_element = nullptr;
  Index n_nodes = 0;

  TREMOR_HOST_DEVICE ElementNodes element(Index e) const {
    return gather_element(coordinates, connectivity, mid_nodes, e);
  }
};

// first_node of the mesh's elements for `order` (n_elements + 1 entries). Quadratic elements need
// a second-order mesh (tremor::Error otherwise).
std::vector<Index> first_nodes(const BoundaryMesh& mesh, ElementOrder order);

// The one owner of a boundary's arrays in an Exec's space.
class DeviceBoundary {
 public:
  DeviceBoundary(const Exec& exec, const BoundaryMesh& mesh, ElementOrder order);
  BoundaryView view() const;
  Index n_nodes() const { return n_nodes_; }

 private:
  DeviceArray<double> coordinates_;
  DeviceArray<Index> connectivity_, mid_nodes_, first_node_, node_element_;
  Index n_elements_ = 0, n_nodes_ = 0;
  ElementOrder order_ = ElementOrder::Constant;
};

// What integrates a pair besides the pair itself: the boundary, the medium at one frequency, the
// quadrature, the free term (as assemble() takes it) and the collocation points (3 per node), all
// in the memory space of the Exec that uses them.
struct PairIntegration {
  BoundaryView boundary;
  Medium medium;
  IntegrationOptions options;
  FreeTerm free_term = FreeTerm::RigidBody;
  double rigid_alpha = 0.0;
  const Complex* row_sums = nullptr;
  const double* points = nullptr;
};

// Pairs integrated where they are wanted (the compressed solver's near-field blocks, rows and
// columns: bem/hmatrix_source.hpp), all arrays in the Exec's space. Pair q is node[q] against
// element[q]; for each of the element's nodes b (or, where `only` is given, node only[q] >= 0
// alone), its 3 x 3 blocks of H and g_scale G, with the free term where assemble() adds it, go
// to columns 6 b' + c (H) and 6 b' + 3 + c (G), b' = b, or 0 for one node: entry (a, k) at
// out[offset[q] + a + k stride[q]]; where `column` is given and column[q] >= 0, the one node's
// column column[q] (0-5) alone, at out[offset[q] + a].
struct PairTargets {
  const Index* node = nullptr;
  const Index* element = nullptr;
  const int* only = nullptr;
  const int* column = nullptr;
  const Size* offset = nullptr;
  const Size* stride = nullptr;
  Index n_pairs = 0;
};

void integrate_pairs(const Exec& exec, const PairIntegration& pairs, const PairTargets& targets, double g_scale,
                     Complex* out);

// Throws when H or G of n nodes (9 n^2 values each) would not fit one array: at most 15,446 nodes
// (34.4 GB each, 68.7 GB together, about what one 80 GB GPU holds): as many constant elements,
// 5,148 linear triangles, 3,861 linear quadrilaterals, 2,574 quadratic triangles or 1,716 9-node
// quadrilaterals.
void check_node_count(Index n);

// The collocation points (3 per node).
void collocation_points(const Exec& exec, BoundaryView boundary, double* points);

// sum over the elements S not holding node i of int_S t*_static(xi_i, x) dS, 9 per node (row-major
// 3 x 3): the rigid-body sums (the shape functions sum to 1). They depend on the moduli only, not
// on the frequency. Deterministic: partial sums over fixed chunks of elements, added in order.
DeviceArray<Complex> static_row_sums(const Exec& exec, BoundaryView boundary, const Medium& medium,
                                     const IntegrationOptions& options);

// H and G (each 9 m^2 complex values for m nodes, in exec's space). `rigid_alpha` is the alpha of
// FreeTerm::RigidBody and `row_sums` its static_row_sums; both unused for FreeTerm::Direct.
void assemble(const Exec& exec, BoundaryView boundary, const Medium& medium, const IntegrationOptions& options,
                       FreeTerm free_term, double rigid_alpha, const Complex* row_sums, Complex* H, Complex* G);

// Displacements (3 per point) at points inside the solid, off the boundary (c = I there):
// u(x) = sum_p G_xp t_p - H_xp u_p from the boundary solution u, t (3 per node).
void interior_displacements(const Exec& exec, BoundaryView boundary, const Medium& medium,
                            const IntegrationOptions& options, const double* points, Index n_points,
                            const Complex* u, const Complex* t, Complex* out);

}  // namespace tremor::bem
