#pragma once
// H and G of constant boundary elements (paper section 2, eq. 2; Algorithm 2): one collocation
// point per element, at its reference centre, and one traction and displacement vector per
// element. Block (i, j) of each, 3 x 3, integrates t* and u* of a unit load at collocation point
// i over element j:
//
//   H_ij = c_i delta_ij + int_Sj t*(xi_i, x) dS,     G_ij = int_Sj u*(xi_i, x) dS,
//
// so that H u = G t. Matrices are column-major, 3n x 3n, leading dimension 3n: entry
// (3 i + a, 3 j + b) is load direction a at xi_i, component b on element j.
#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/bem/complex.hpp"
#include "tremor/bem/fundamental.hpp"

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
  // Directly, for open surfaces too: c = I/2 at the centre of a flat element, and the principal
  // value over the flat element in closed form along its edges.
  Direct,
};

// The boundary on the device: coordinates (3 per node), connectivity (4 per element, -1 as a
// triangle's fourth), in the memory space of the Exec that uses it.
struct BoundaryView {
  const double* coordinates = nullptr;
  const Index* connectivity = nullptr;
  Index n_elements = 0;
};

// Throws when H or G of n constant elements (9 n^2 values each) would not fit one array: at most
// 15,447 elements (2 x 68.7 GB, about what one 80 GB GPU holds).
void check_element_count(Index n);

// The collocation points (3 per element): each element's reference centre.
void collocation_points(const Exec& exec, BoundaryView boundary, double* points);

// sum_{j != i} int_Sj t*_static(xi_i, x) dS, 9 per element (row-major 3 x 3): the rigid-body
// sums. They depend on the moduli only, not on the frequency. Deterministic: partial sums over
// fixed chunks of j, then added in chunk order.
DeviceArray<Complex> static_row_sums(const Exec& exec, BoundaryView boundary, const Medium& medium,
                                     const IntegrationOptions& options);

// H and G (each 9 n^2 complex values in exec's space). `rigid_alpha` is the alpha of
// FreeTerm::RigidBody and `row_sums` its static_row_sums; both unused for FreeTerm::Direct.
void assemble_constant(const Exec& exec, BoundaryView boundary, const Medium& medium, const IntegrationOptions& options,
                       FreeTerm free_term, double rigid_alpha, const Complex* row_sums, Complex* H, Complex* G);

// Displacements (3 per point) at points inside the solid, off the boundary (c = I there):
// u(p) = sum_j G_pj t_j - H_pj u_j from the boundary solution u, t (3 per element).
void interior_displacements(const Exec& exec, BoundaryView boundary, const Medium& medium,
                            const IntegrationOptions& options, const double* points, Index n_points,
                            const Complex* u, const Complex* t, Complex* out);

}  // namespace tremor::bem
