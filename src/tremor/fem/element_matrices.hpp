#pragma once
// Element matrices of linear elasticity, templated on the reference element (elements.hpp):
// stiffness K = t int B^T D B dV, consistent mass M = t int rho N^T N dV, lumped mass, the
// stiffness action K u and the nodal forces of a body force; and an acoustic fluid's stiffness
// and its action, one value per node (fluid_stiffness). All are TREMOR_HOST_DEVICE with
// fixed-size local arrays, so the same code is the host reference and the body of a forall()
// kernel. Each is written in the verbs of element evaluation (docs/architecture.md):
//   gather (the caller copies the element's node coordinates, node-major, into x, and its nodal
//     values into u: gather_coordinates, gather_values in device_elements.hpp)
//   -> evaluate at a quadrature point (PointEvaluation::reinit: physical gradients and det J)
//   -> strain (PointEvaluation::strain, B u; unit_strain, a column of B)
//   -> pointwise law (laws.hpp: the section's law for K u, its tangent D for K)
//   -> integrate (PointEvaluation::integrate, f += B^T sigma w det J t; or into K)
//   -> scatter (the caller: scatter_add).
//
// Conventions: DOFs node-major (node a, component c -> a * dim + c); Voigt order (xx, yy, xy) in
// 2D and (xx, yy, zz, yz, xz, xy) in 3D with engineering shear strains, as model/material.hpp;
// D is row-major n_voigt x n_voigt. `thickness` multiplies 2D integrals (pass 1 in 3D).
#include <type_traits>

#include "tremor/core/config.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/elements.hpp"
#include "tremor/fem/laws.hpp"
#include "tremor/fem/quadrature.hpp"

namespace tremor::fem {

// Quadrature points of a rule of `degree` (total degree on simplices, per direction otherwise).
template <class E>
constexpr int rule_points(int degree) {
  if constexpr (E::simplex)
    return E::dim == 2 ? triangle_points(degree) : tetrahedron_points(degree);
  else
    return ipow(gauss_points_for_degree(degree), E::dim);
}

template <class E>
using StiffnessRule = QuadratureRule<E::dim, rule_points<E>(E::stiffness_degree)>;
template <class E>
using MassRule = QuadratureRule<E::dim, rule_points<E>(E::mass_degree)>;
template <class E>
using LumpingRule = QuadratureRule<E::dim, E::lumping == Lumping::Nodal ? E::n_nodes : rule_points<E>(E::mass_degree)>;

// The rule of `degree` for element E: a simplex rule or tensor Gauss-Legendre.
template <class E, int MaxPoints>
TREMOR_HOST_DEVICE void make_rule(int degree, QuadratureRule<E::dim, MaxPoints>& rule) {
  if constexpr (E::simplex) {
    if constexpr (E::dim == 2)
      triangle_rule(degree, rule);
    else
      tetrahedron_rule(degree, rule);
  } else {
    tensor_rule(gauss_points_for_degree(degree), false, rule);
  }
}

// Default rules: exact for K and M on affine elements (docs/elements.md), except K of GLL
// elements of order 2 and more, integrated on their own nodes (the spectral element method's
// rule, the lumped mass's: degree 2P - 1, docs/sem.md).
template <class E>
TREMOR_HOST_DEVICE StiffnessRule<E> stiffness_rule() {
  StiffnessRule<E> rule;
  if constexpr (E::lumping == Lumping::Nodal && E::order >= 2)
    tensor_rule(E::order + 1, true, rule);  // the spectral element method's: on the GLL nodes
  else
    make_rule<E>(E::stiffness_degree, rule);
  return rule;
}
template <class E>
TREMOR_HOST_DEVICE MassRule<E> mass_rule() {
  MassRule<E> rule;
  make_rule<E>(E::mass_degree, rule);
  return rule;
}
// The rule the lumped mass uses: the GLL nodes for GLL elements, the mass rule otherwise.
template <class E>
TREMOR_HOST_DEVICE LumpingRule<E> lumping_rule() {
  LumpingRule<E> rule;
  if constexpr (E::lumping == Lumping::Nodal)
    tensor_rule(E::order + 1, true, rule);
  else
    make_rule<E>(E::mass_degree, rule);
  return rule;
}

// ------------------------------------------------------------------------------------ evaluate

// det J of a Dim x Dim matrix, row-major.
template <int Dim>
TREMOR_HOST_DEVICE double determinant(const double* J) {
  if constexpr (Dim == 2) {
    return J[0] * J[3] - J[1] * J[2];
  } else {
    return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) +
           J[2] * (J[3] * J[7] - J[4] * J[6]);
  }
}

// Jacobian J[i * Dim + j] = dx_i / dxi_j of the map x(xi) = sum_a N_a(xi) x_a; returns det J.
template <int Dim>
TREMOR_HOST_DEVICE double jacobian(int n_nodes, const double* x, const double* dN, double* J) {
  for (int k = 0; k < Dim * Dim; ++k) J[k] = 0.0;
  for (int a = 0; a < n_nodes; ++a)
    for (int i = 0; i < Dim; ++i)
      for (int j = 0; j < Dim; ++j) J[i * Dim + j] += x[a * Dim + i] * dN[a * Dim + j];
  return determinant<Dim>(J);
}

// Inverse of J given its determinant (the caller checks det != 0).
template <int Dim>
TREMOR_HOST_DEVICE void invert(const double* J, double det, double* inverse) {
  const double s = 1.0 / det;
  if constexpr (Dim == 2) {
    inverse[0] = J[3] * s;
    inverse[1] = -J[1] * s;
    inverse[2] = -J[2] * s;
    inverse[3] = J[0] * s;
  } else {
    inverse[0] = (J[4] * J[8] - J[5] * J[7]) * s;
    inverse[1] = (J[2] * J[7] - J[1] * J[8]) * s;
    inverse[2] = (J[1] * J[5] - J[2] * J[4]) * s;
    inverse[3] = (J[5] * J[6] - J[3] * J[8]) * s;
    inverse[4] = (J[0] * J[8] - J[2] * J[6]) * s;
    inverse[5] = (J[2] * J[3] - J[0] * J[5]) * s;
    inverse[6] = (J[3] * J[7] - J[4] * J[6]) * s;
    inverse[7] = (J[1] * J[6] - J[0] * J[7]) * s;
    inverse[8] = (J[0] * J[4] - J[1] * J[3]) * s;
  }
}

// det J at xi (no gradients kept).
template <class E>
TREMOR_HOST_DEVICE double jacobian_determinant(const double* x, const double* xi) {
  double dN[E::n_nodes * E::dim], J[E::dim * E::dim];
  E::gradients(xi, dN);
  return jacobian<E::dim>(E::n_nodes, x, dN, J);
}

// Physical gradients dNdx[a * dim + i] = dN_a / dx_i at xi; returns det J (dNdx is left as the
// reference gradients when det J == 0).
template <class E>
TREMOR_HOST_DEVICE double physical_gradients(const double* x, const double* xi, double* dNdx) {
  constexpr int dim = E::dim;
  double J[dim * dim], inverse[dim * dim];
  E::gradients(xi, dNdx);
  const double det = jacobian<dim>(E::n_nodes, x, dNdx, J);
  if (det == 0.0) return det;
  invert<dim>(J, det, inverse);
  for (int a = 0; a < E::n_nodes; ++a) {
    double g[dim];
    for (int i = 0; i < dim; ++i) {
      g[i] = 0.0;
      for (int j = 0; j < dim; ++j) g[i] += dNdx[a * dim + j] * inverse[j * dim + i];
    }
    for (int i = 0; i < dim; ++i) dNdx[a * dim + i] = g[i];
  }
  return det;
}

// Column (node with gradient g, component c) of the strain-displacement matrix B, in Voigt order.
template <int Dim>
TREMOR_HOST_DEVICE void strain_column(const double* g, int c, double* column) {
  if constexpr (Dim == 2) {
    column[0] = c == 0 ? g[0] : 0.0;
    column[1] = c == 1 ? g[1] : 0.0;
    column[2] = c == 0 ? g[1] : g[0];
  } else {
    column[0] = c == 0 ? g[0] : 0.0;
    column[1] = c == 1 ? g[1] : 0.0;
    column[2] = c == 2 ? g[2] : 0.0;
    column[3] = c == 0 ? 0.0 : (c == 1 ? g[2] : g[1]);
    column[4] = c == 1 ? 0.0 : (c == 0 ? g[2] : g[0]);
    column[5] = c == 2 ? 0.0 : (c == 0 ? g[1] : g[0]);
  }
}

// The evaluation of an element of family E at one quadrature point: the verbs every kernel on
// Lagrange and simplex elements is written in (deal.II's FEEvaluation at a point; the sem
// operator's sum-factorised verbs are sem/sum_factorised.hpp's Collocated).
template <class E>
struct PointEvaluation {
  static constexpr int dim = E::dim, nv = voigt_size<dim>, n_dof = E::n_nodes * dim;
  double dNdx[E::n_nodes * dim];  // dN_a / dx_i, [a * dim + i]
  double det = 0.0;

  // The physical gradients and det J at xi (the reference gradients are kept when det J == 0).
  TREMOR_HOST_DEVICE double reinit(const double* x, const double* xi) { return det = physical_gradients<E>(x, xi, dNdx); }

  // The strain of a unit value of DOF `dof`: column dof of B.
  TREMOR_HOST_DEVICE void unit_strain(int dof, double* strain) const {
    strain_column<dim>(dNdx + (dof / dim) * dim, dof % dim, strain);
  }

  // The strain of the nodal values u: B u, summed DOF by DOF.
  TREMOR_HOST_DEVICE void strain(const double* u, double* strain) const {
    for (int k = 0; k < nv; ++k) strain[k] = 0.0;
    for (int dof = 0; dof < n_dof; ++dof) {
      double column[nv];
      unit_strain(dof, column);
      for (int k = 0; k < nv; ++k) strain[k] += column[k] * u[dof];
    }
  }

  // The stress sigma tested by DOF `dof`'s strain: (B^T sigma)[dof].
  TREMOR_HOST_DEVICE double tested(int dof, const double* sigma) const {
    double column[nv];
    unit_strain(dof, column);
    double sum = 0.0;
    for (int k = 0; k < nv; ++k) sum += column[k] * sigma[k];
    return sum;
  }

  // f += B^T sigma (sigma already weighted by w det J t).
  TREMOR_HOST_DEVICE void integrate(const double* sigma, double* f) const {
    for (int dof = 0; dof < n_dof; ++dof) f[dof] += tested(dof, sigma);
  }

  // A scalar field's verbs (one value per node, a fluid's potential: FluidLaw): its gradient at the
  // point, sum_a values_a grad N_a ...
  TREMOR_HOST_DEVICE void gradient(const double* values, double* g) const {
    for (int i = 0; i < dim; ++i) g[i] = 0.0;
    for (int a = 0; a < E::n_nodes; ++a)
      for (int i = 0; i < dim; ++i) g[i] += dNdx[a * dim + i] * values[a];
  }

  // ... and f_a += grad N_a . flux (flux already weighted by w det J t).
  TREMOR_HOST_DEVICE void integrate_gradient(const double* flux, double* f) const {
    for (int a = 0; a < E::n_nodes; ++a) {
      double sum = 0.0;
      for (int i = 0; i < dim; ++i) sum += dNdx[a * dim + i] * flux[i];
      f[a] += sum;
    }
  }
};

// Strain (Voigt, engineering shear) of the nodal displacements u at xi: B u. Returns det J.
template <class E>
TREMOR_HOST_DEVICE double element_strain(const double* x, const double* u, const double* xi, double* strain) {
  PointEvaluation<E> point;
  const double det = point.reinit(x, xi);
  point.strain(u, strain);
  return det;
}

// ---------------------------------------------------------------------------------- integrate

// Element stiffness K (n_dof x n_dof, row-major, n_dof = n_nodes * dim), symmetric by
// construction (upper triangle computed, then mirrored). Returns the smallest det J met; a value
// <= 0 means the element is inverted or degenerate and K is not meaningful.
template <class E, class Rule>
TREMOR_HOST_DEVICE double element_stiffness(const double* x, const double* D, double thickness, const Rule& rule,
                                            double* K) {
  constexpr int dim = E::dim, nv = voigt_size<dim>, n_dof = E::n_nodes * dim;
  const AnisotropicLaw<dim, double> tangent{D};
  for (int k = 0; k < n_dof * n_dof; ++k) K[k] = 0.0;
  double min_det = 1e300;
  // PointEvaluation's steps on its arrays, spelled out: nvcc 13.0 with --fmad=false (the element
  // survey's kernel) computed other values than the host from the PointEvaluation form of this
  // loop combined with the law, on quad8, tet4 and quad_gll3 elements; this form gives the host's
  // bits (ElementSurveyGpu.EqualsTheHostBitForBit).
  double dNdx[E::n_nodes * dim];
  for (int q = 0; q < rule.n_points; ++q) {
    const double det = physical_gradients<E>(x, rule.point(q), dNdx);  // evaluate
    min_det = det < min_det ? det : min_det;
    const double scale = rule.weights[q] * det * thickness;
    for (int row = 0; row < n_dof; ++row) {
      double column[nv], sigma[nv];
      strain_column<dim>(dNdx + (row / dim) * dim, row % dim, column);  // the unit strain of DOF row
      tangent.stress(column, sigma);  // pointwise: the stress of a unit nodal displacement
      for (int col = row; col < n_dof; ++col) {  // integrate: tested by DOF col's strain
        strain_column<dim>(dNdx + (col / dim) * dim, col % dim, column);
        double sum = 0.0;
        for (int k = 0; k < nv; ++k) sum += column[k] * sigma[k];
        K[row * n_dof + col] += scale * sum;
      }
    }
  }
  for (int row = 0; row < n_dof; ++row)
    for (int col = 0; col < row; ++col) K[row * n_dof + col] = K[col * n_dof + row];
  return min_det;
}

// f = K u without forming K (matrix-free; f has n_dof entries), the stress at each point from
// `law` (laws.hpp: a SectionLaw, or a section's tangent for values equal to K's), or from law(q),
// the law at point q of the rule (a law with the point's own state, fem/viscoelastic.hpp).
template <class E, class Law, class Rule>
TREMOR_HOST_DEVICE void apply_element_stiffness(const double* x, const Law& law, double thickness, const Rule& rule,
                                                const double* u, double* f) {
  constexpr int nv = voigt_size<E::dim>, n_dof = E::n_nodes * E::dim;
  for (int k = 0; k < n_dof; ++k) f[k] = 0.0;
  PointEvaluation<E> point;
  for (int q = 0; q < rule.n_points; ++q) {
    const double det = point.reinit(x, rule.point(q));
    double strain[nv], sigma[nv];
    point.strain(u, strain);
    const double scale = rule.weights[q] * det * thickness;
    if constexpr (std::is_invocable_v<const Law&, int>)
      law(q).stress(strain, sigma);
    else
      law.stress(strain, sigma);
    for (int k = 0; k < nv; ++k) sigma[k] *= scale;
    point.integrate(sigma, f);
  }
}

// An acoustic fluid's element stiffness (n_nodes x n_nodes, row-major): K_ab = t int (1 / rho)
// grad N_a . grad N_b dV, for a displacement potential (FluidLaw), symmetric by construction,
// constants its null space. Its mass is consistent_mass or lumped_mass with t / kappa for rho t.
// Returns the smallest det J met (<= 0: inverted or degenerate).
template <class E, class Rule>
TREMOR_HOST_DEVICE double fluid_stiffness(const double* x, double inverse_density, double thickness, const Rule& rule,
                                          double* K) {
  constexpr int n = E::n_nodes, dim = E::dim;
  for (int k = 0; k < n * n; ++k) K[k] = 0.0;
  double min_det = 1e300;
  PointEvaluation<E> point;
  for (int q = 0; q < rule.n_points; ++q) {
    const double det = point.reinit(x, rule.point(q));
    min_det = det < min_det ? det : min_det;
    const double scale = rule.weights[q] * det * thickness * inverse_density;
    for (int a = 0; a < n; ++a)
      for (int b = a; b < n; ++b) {
        double sum = 0.0;
        for (int i = 0; i < dim; ++i) sum += point.dNdx[a * dim + i] * point.dNdx[b * dim + i];
        K[a * n + b] += scale * sum;
      }
  }
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < a; ++b) K[a * n + b] = K[b * n + a];
  return min_det;
}

// f = K chi of a fluid element without forming K (f has n_nodes entries), the flux at each point
// from `law` (a FluidLaw).
template <class E, class Law, class Rule>
TREMOR_HOST_DEVICE void apply_fluid_stiffness(const double* x, const Law& law, double thickness, const Rule& rule,
                                              const double* chi, double* f) {
  constexpr int dim = E::dim;
  for (int a = 0; a < E::n_nodes; ++a) f[a] = 0.0;
  PointEvaluation<E> point;
  for (int q = 0; q < rule.n_points; ++q) {
    const double det = point.reinit(x, rule.point(q));
    double g[dim], flux[dim];
    point.gradient(chi, g);
    law.flux(g, flux);
    const double scale = rule.weights[q] * det * thickness;
    for (int i = 0; i < dim; ++i) flux[i] *= scale;
    point.integrate_gradient(flux, f);
  }
}

// The number of points of the stiffness rule of an element type.
inline int stiffness_rule_points(ElementType type, int order) {
  return with_element(type, order, [](auto element) { return stiffness_rule<decltype(element)>().n_points; });
}

// Consistent mass, scalar part: M_ab = t int rho N_a N_b dV (n_nodes x n_nodes, row-major). The
// DOF matrix is M_ab * delta_cd for DOFs (a, c), (b, d); consistent_mass_dofs() expands it.
template <class E, class Rule>
TREMOR_HOST_DEVICE void consistent_mass(const double* x, double rho_thickness, const Rule& rule, double* M) {
  constexpr int n = E::n_nodes;
  for (int k = 0; k < n * n; ++k) M[k] = 0.0;
  double N[n], dN[n * E::dim], J[E::dim * E::dim];
  for (int q = 0; q < rule.n_points; ++q) {
    E::shape(rule.point(q), N);
    E::gradients(rule.point(q), dN);
    const double scale = rule.weights[q] * jacobian<E::dim>(n, x, dN, J) * rho_thickness;
    for (int a = 0; a < n; ++a)
      for (int b = a; b < n; ++b) M[a * n + b] += scale * N[a] * N[b];
  }
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < a; ++b) M[a * n + b] = M[b * n + a];
}

// Expands the scalar mass (n_nodes^2) into the DOF matrix (n_dof^2, node-major).
template <class E>
TREMOR_HOST_DEVICE void consistent_mass_dofs(const double* M, double* M_dofs) {
  constexpr int n = E::n_nodes, dim = E::dim, n_dof = n * dim;
  for (int r = 0; r < n_dof; ++r)
    for (int c = 0; c < n_dof; ++c) M_dofs[r * n_dof + c] = (r % dim == c % dim) ? M[(r / dim) * n + c / dim] : 0.0;
}

// Lumped mass per node (the same for each component), m[n_nodes]:
//   RowSum: m_a = t int rho N_a dV;  Nodal: the same integral on the GLL nodes (M diagonal);
//   Hrz: m_a = M_aa * (element mass) / sum_b M_bb, never zero or negative.
// With `factor` (a value per point of the rule), the same lumping of rho f instead of rho, the
// HRZ scaling still that of rho: m_a / (its m_a without) is then the average of f that the node's
// lumped mass weighs (the PML's mass side, explicit/pml.hpp).
// lumped_masses: `count` such lumpings at once, m[k * n_nodes + a] that of factor k, whose values
// at the rule's points are factors[k * n_points + q] (null: one lumping, of rho); the Jacobian had
// once a point for all. `shapes` and `gradients` (null: evaluated here): E::shape and E::gradients
// at the rule's points, [q * n_nodes + a] and [q * n_nodes * dim + ...], a table a block shares.
template <class E, class Rule>
TREMOR_HOST_DEVICE void lumped_masses(const double* x, double rho_thickness, const Rule& rule, int count,
                                      const double* factors, double* m, const double* shapes = nullptr,
                                      const double* gradients = nullptr) {
  constexpr int n = E::n_nodes;
  double N_here[n], dN_here[n * E::dim], J[E::dim * E::dim], plain[n];
  for (int k = 0; k < count * n; ++k) m[k] = 0.0;
  for (int a = 0; a < n; ++a) plain[a] = 0.0;
  double total = 0.0;
  for (int q = 0; q < rule.n_points; ++q) {
    if (!shapes) E::shape(rule.point(q), N_here);
    if (!gradients) E::gradients(rule.point(q), dN_here);
    const double* N = shapes ? shapes + static_cast<std::ptrdiff_t>(q) * n : N_here;
    const double* dN = gradients ? gradients + static_cast<std::ptrdiff_t>(q) * n * E::dim : dN_here;
    const double scale = rule.weights[q] * jacobian<E::dim>(n, x, dN, J) * rho_thickness;
    total += scale;
    for (int a = 0; a < n; ++a) {
      const double share = scale * (E::lumping == Lumping::Hrz ? N[a] * N[a] : N[a]);
      plain[a] += share;
      for (int k = 0; k < count; ++k) m[k * n + a] += factors ? share * factors[k * rule.n_points + q] : share;
    }
  }
  if constexpr (E::lumping == Lumping::Hrz) {
    double diagonal = 0.0;
    for (int a = 0; a < n; ++a) diagonal += plain[a];
    for (int k = 0; k < count * n; ++k) m[k] *= total / diagonal;
  }
}
template <class E, class Rule>
TREMOR_HOST_DEVICE void lumped_mass(const double* x, double rho_thickness, const Rule& rule, double* m,
                                    const double* factor = nullptr) {
  lumped_masses<E>(x, rho_thickness, rule, 1, factor, m);
}

// Consistent nodal forces of a body force by the mass rule: f[a * dim + c] = rho_thickness int
// N_a g_c dV, g a dim-vector constant over the element (an acceleration, with rho * t, or a force
// per volume, with t). The mass rule integrates N_a det J exactly on affine elements, where the
// forces total rho_thickness * g * volume. Returns the smallest det J met (<= 0: inverted).
template <class E>
TREMOR_HOST_DEVICE double element_body_force(const double* x, double rho_thickness, const double* g, double* f) {
  constexpr int n = E::n_nodes, dim = E::dim;
  const MassRule<E> rule = mass_rule<E>();
  for (int k = 0; k < n * dim; ++k) f[k] = 0.0;
  double N[n], dN[n * dim], J[dim * dim];
  double min_det = 1e300;
  for (int q = 0; q < rule.n_points; ++q) {
    E::shape(rule.point(q), N);
    E::gradients(rule.point(q), dN);
    const double det = jacobian<dim>(n, x, dN, J);
    min_det = det < min_det ? det : min_det;
    const double scale = rule.weights[q] * det * rho_thickness;
    for (int a = 0; a < n; ++a)
      for (int c = 0; c < dim; ++c) f[a * dim + c] += scale * N[a] * g[c];
  }
  return min_det;
}

// With the element's default lumping rule.
template <class E>
TREMOR_HOST_DEVICE void lumped_mass(const double* x, double rho_thickness, double* m) {
  const LumpingRule<E> rule = lumping_rule<E>();
  lumped_mass<E>(x, rho_thickness, rule, m);
}

// With the element's default stiffness rule.
template <class E>
TREMOR_HOST_DEVICE double element_stiffness(const double* x, const double* D, double thickness, double* K) {
  const StiffnessRule<E> rule = stiffness_rule<E>();
  return element_stiffness<E>(x, D, thickness, rule, K);
}

// With the element's default stiffness rule.
template <class E>
TREMOR_HOST_DEVICE double fluid_stiffness(const double* x, double inverse_density, double thickness, double* K) {
  const StiffnessRule<E> rule = stiffness_rule<E>();
  return fluid_stiffness<E>(x, inverse_density, thickness, rule, K);
}

// Element volume (area in 2D) by the mass rule.
template <class E>
TREMOR_HOST_DEVICE double element_volume(const double* x) {
  const MassRule<E> rule = mass_rule<E>();
  double volume = 0.0;
  for (int q = 0; q < rule.n_points; ++q) volume += rule.weights[q] * jacobian_determinant<E>(x, rule.point(q));
  return volume;
}

}  // namespace tremor::fem
