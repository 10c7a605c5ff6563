#pragma once
// K_e u_e of a GLL hexahedron of order P by sum factorisation: the portable element body of the
// `sem` operator (issue: spectral elements; the multi-GPU spectral-element paper, section 2, and
// the matrix-free tensor-product evaluation of Kronbichler and Kormann 2012, section 3).
//
// The element's (P + 1)^3 nodal values are interpolated and differentiated to the (P + 1)^3
// Gauss-Legendre points one direction at a time with the 1D matrices B (values) and G
// (derivatives): 3 sweeps of (P + 1)^4 multiply-adds per derivative instead of (P + 1)^6. At each
// point the Jacobian (from the node coordinates, the same sweeps), the strain, the pointwise
// stress fem::stress (sigma = D eps) and the flux w det J sigma J^-T follow; the transposed
// sweeps (B^T, G^T) integrate the flux back onto the nodes. The quadrature is that of the
// assembled GLL elements (fem::stiffness_rule: P + 1 Gauss points per direction, exact on
// affine elements, the paper's full Gauss-Legendre integration), so this equals
// fem::apply_element_stiffness<HexGll<P>> to rounding.
//
// Work arrays are fixed-size members of the Hex<P> object (a few times 3 (P + 1)^3 doubles): on
// the host one per thread; the GPU kernels keep them in shared memory instead.
#include "tremor/core/config.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/fem/element_matrices.hpp"

namespace tremor::sem {

// The 1D matrices of a GLL element of order P at the P + 1 Gauss-Legendre points: B[q][i] =
// l_i(x_q), G[q][i] = l_i'(x_q), l_i the Lagrange polynomials on the GLL points; w the weights.
template <int P>
struct Basis1d {
  static constexpr int n = P + 1;
  double B[n][n];
  double G[n][n];
  double w[n];

  TREMOR_HOST_DEVICE Basis1d() {
    double nodes[n], points[n];
    gll_points(n, nodes);
    gauss_legendre(n, points, w);
    for (int q = 0; q < n; ++q) lagrange(n, nodes, points[q], B[q], G[q]);
  }
};

template <int P>
class Hex {
 public:
  static constexpr int n = P + 1, n_nodes = n * n * n;

  // f = K_e u_e for the element with node coordinates x and displacements u (node-major,
  // x[a * 3 + c], a = i + n (j + n k)); D the section's 6 x 6 Voigt matrix, row-major.
  TREMOR_HOST_DEVICE void apply(const Basis1d<P>& b, const double* x, const double* D, const double* u, double* f) {
    // Reference derivatives at the points: dx[c][alpha][q], du[c][alpha][q].
    for (int c = 0; c < 3; ++c) {
      gradient(b, x + c, dx_[c]);
      gradient(b, u + c, du_[c]);
    }
    for (int q = 0; q < n_nodes; ++q) {
      const int qi = q % n, qj = q / n % n, qk = q / (n * n);
      double J[3][3];  // J[c][alpha] = d x_c / d xi_alpha
      for (int c = 0; c < 3; ++c)
        for (int a = 0; a < 3; ++a) J[c][a] = dx_[c][a][q];
      double inv[3][3];  // inv[alpha][beta] = d xi_alpha / d x_beta
      const double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                         J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
      fem::invert<3>(&J[0][0], det, &inv[0][0]);
      double grad[3][3];  // grad[c][beta] = d u_c / d x_beta
      for (int c = 0; c < 3; ++c)
        for (int beta = 0; beta < 3; ++beta) {
          double sum = 0.0;
          for (int a = 0; a < 3; ++a) sum += du_[c][a][q] * inv[a][beta];
          grad[c][beta] = sum;
        }
      // Voigt strain xx, yy, zz, yz, xz, xy with engineering shears (fem::strain_column's order).
      const double strain[6] = {grad[0][0], grad[1][1], grad[2][2], grad[1][2] + grad[2][1],
                                grad[0][2] + grad[2][0], grad[0][1] + grad[1][0]};
      double sigma[6];
      fem::stress<6>(D, strain, sigma);
      const double scale = b.w[qi] * b.w[qj] * b.w[qk] * det;
      const double S[3][3] = {{sigma[0], sigma[5], sigma[4]}, {sigma[5], sigma[1], sigma[3]}, {sigma[4], sigma[3], sigma[2]}};
      // flux[c][alpha] = scale * sum_beta S[c][beta] inv[alpha][beta]: what dN_a/dxi_alpha meets.
      for (int c = 0; c < 3; ++c)
        for (int a = 0; a < 3; ++a) {
          double sum = 0.0;
          for (int beta = 0; beta < 3; ++beta) sum += S[c][beta] * inv[a][beta];
          du_[c][a][q] = scale * sum;  // the derivatives are spent: the flux takes their place
        }
    }
    for (int c = 0; c < 3; ++c) integrate(b, du_[c], f + c);
  }

 private:
  // d v / d xi_alpha at every point, out[alpha][q], for v[a * 3] (one component of a node-major
  // field): along x with B or G, then y, then z (Kronbichler and Kormann 2012, Eq. 6).
  TREMOR_HOST_DEVICE void gradient(const Basis1d<P>& b, const double* v, double (*out)[n_nodes]) {
    // Sweep 1, x: value and derivative, t_[0] = B v, t_[1] = G v, indexed (qi, j, k).
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int qi = 0; qi < n; ++qi) {
          double value = 0.0, slope = 0.0;
          for (int i = 0; i < n; ++i) {
            const double vi = v[(i + n * (j + n * k)) * 3];
            value += b.B[qi][i] * vi;
            slope += b.G[qi][i] * vi;
          }
          t_[0][qi + n * (j + n * k)] = value;
          t_[1][qi + n * (j + n * k)] = slope;
        }
    // Sweep 2, y: s_[0] = B B v, s_[1] = B G v (d/dx), s_[2] = G B v (d/dy), indexed (qi, qj, k).
    for (int k = 0; k < n; ++k)
      for (int qj = 0; qj < n; ++qj)
        for (int qi = 0; qi < n; ++qi) {
          double bb = 0.0, bg = 0.0, gb = 0.0;
          for (int j = 0; j < n; ++j) {
            const int at = qi + n * (j + n * k);
            bb += b.B[qj][j] * t_[0][at];
            bg += b.B[qj][j] * t_[1][at];
            gb += b.G[qj][j] * t_[0][at];
          }
          const int to = qi + n * (qj + n * k);
          s_[0][to] = bb;
          s_[1][to] = bg;
          s_[2][to] = gb;
        }
    // Sweep 3, z: d/dx = B B G v, d/dy = B G B v with B along z; d/dz = G along z of B B v.
    for (int qk = 0; qk < n; ++qk)
      for (int qj = 0; qj < n; ++qj)
        for (int qi = 0; qi < n; ++qi) {
          double dx = 0.0, dy = 0.0, dz = 0.0;
          for (int k = 0; k < n; ++k) {
            const int at = qi + n * (qj + n * k);
            dx += b.B[qk][k] * s_[1][at];
            dy += b.B[qk][k] * s_[2][at];
            dz += b.G[qk][k] * s_[0][at];
          }
          const int to = qi + n * (qj + n * qk);
          out[0][to] = dx;
          out[1][to] = dy;
          out[2][to] = dz;
        }
  }

  // f[a * 3] = sum_q sum_alpha dN_a/dxi_alpha(q) flux[alpha][q]: the transposed sweeps, z first.
  TREMOR_HOST_DEVICE void integrate(const Basis1d<P>& b, double (*flux)[n_nodes], double* f) {
    // Sweep z: s_[0] = B^T flux_x, s_[1] = B^T flux_y, s_[2] = G^T flux_z, indexed (qi, qj, k).
    for (int k = 0; k < n; ++k)
      for (int qj = 0; qj < n; ++qj)
        for (int qi = 0; qi < n; ++qi) {
          double fx = 0.0, fy = 0.0, fz = 0.0;
          for (int qk = 0; qk < n; ++qk) {
            const int at = qi + n * (qj + n * qk);
            fx += b.B[qk][k] * flux[0][at];
            fy += b.B[qk][k] * flux[1][at];
            fz += b.G[qk][k] * flux[2][at];
          }
          const int to = qi + n * (qj + n * k);
          s_[0][to] = fx;
          s_[1][to] = fy;
          s_[2][to] = fz;
        }
    // Sweep y: t_[0] = B^T (x part) + B^T (z part) (both B along y), t_[1] = G^T (y part).
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int qi = 0; qi < n; ++qi) {
          double along_x = 0.0, rest = 0.0;
          for (int qj = 0; qj < n; ++qj) {
            const int at = qi + n * (qj + n * k);
            along_x += b.B[qj][j] * s_[0][at];
            rest += b.B[qj][j] * s_[2][at] + b.G[qj][j] * s_[1][at];
          }
          const int to = qi + n * (j + n * k);
          t_[0][to] = along_x;
          t_[1][to] = rest;
        }
    // Sweep x: G^T on the x part, B^T on the rest.
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          double sum = 0.0;
          for (int qi = 0; qi < n; ++qi) {
            const int at = qi + n * (j + n * k);
            sum += b.G[qi][i] * t_[0][at] + b.B[qi][i] * t_[1][at];
          }
          f[(i + n * (j + n * k)) * 3] = sum;
        }
  }

  double dx_[3][3][n_nodes];  // d x_c / d xi_alpha at the points
  double du_[3][3][n_nodes];  // d u_c / d xi_alpha at the points, then the flux
  double t_[2][n_nodes];      // sweep scratch
  double s_[3][n_nodes];
};

}  // namespace tremor::sem
