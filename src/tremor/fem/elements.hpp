#pragma once
// Reference elements: shape functions N_a(xi), their gradients dN_a/dxi_j and node positions, for
// every ElementType. Node orderings are those of mesh/element_type.hpp (docs/elements.md draws
// them). Reference domains: the unit simplex (vertex 0 at the origin) for triangles and
// tetrahedra, [-1, 1]^d for quadrilaterals and hexahedra.
//
// Each element is a stateless struct with static TREMOR_HOST_DEVICE functions and compile-time
// sizes, so kernels are templated on it and need no virtual calls, heap or exceptions:
//   shape(xi, N)        N[n_nodes]
//   gradients(xi, dN)   dN[a * dim + j] = dN_a / dxi_j
//   node(a, xi)         reference coordinates of node a
// plus the default quadrature degrees (stiffness_degree, mass_degree) and the lumping rule.
#include "tremor/core/config.hpp"
#include "tremor/core/polynomials.hpp"
#include "tremor/mesh/element_type.hpp"

namespace tremor::fem {

// How the lumped (diagonal) mass is formed.
enum class Lumping {
  RowSum,  // m_a = sum_b M_ab = int rho N_a (linear elements: all positive)
  Hrz,     // Hinton-Rock-Zienkiewicz: diagonal of M scaled to the element mass (quadratic elements)
  Nodal,   // M integrated on the element's own GLL nodes: diagonal by construction
};

namespace detail {

// Barycentric coordinates of the unit simplex and their constant gradients.
template <int Dim>
TREMOR_HOST_DEVICE inline void barycentric(const double* xi, double* lambda) {
  double rest = 1.0;
  for (int d = 0; d < Dim; ++d) {
    lambda[d + 1] = xi[d];
    rest -= xi[d];
  }
  lambda[0] = rest;
}
template <int Dim>
TREMOR_HOST_DEVICE inline double barycentric_gradient(int i, int j) {
  return i == 0 ? -1.0 : (i - 1 == j ? 1.0 : 0.0);
}

// Quadratic simplex (tri6, tet10): vertices L(2L - 1), mid-edges 4 L_i L_j.
template <int Dim, int NNodes>
TREMOR_HOST_DEVICE inline void quadratic_simplex_shape(const int (*edges)[2], const double* xi, double* N) {
  double lambda[Dim + 1];
  barycentric<Dim>(xi, lambda);
  for (int v = 0; v <= Dim; ++v) N[v] = lambda[v] * (2.0 * lambda[v] - 1.0);
  for (int e = 0; e < NNodes - Dim - 1; ++e) N[Dim + 1 + e] = 4.0 * lambda[edges[e][0]] * lambda[edges[e][1]];
}
template <int Dim, int NNodes>
TREMOR_HOST_DEVICE inline void quadratic_simplex_gradients(const int (*edges)[2], const double* xi, double* dN) {
  double lambda[Dim + 1];
  barycentric<Dim>(xi, lambda);
  for (int v = 0; v <= Dim; ++v)
    for (int j = 0; j < Dim; ++j) dN[v * Dim + j] = (4.0 * lambda[v] - 1.0) * barycentric_gradient<Dim>(v, j);
  for (int e = 0; e < NNodes - Dim - 1; ++e) {
    const int p = edges[e][0], q = edges[e][1];
    for (int j = 0; j < Dim; ++j)
      dN[(Dim + 1 + e) * Dim + j] =
          4.0 * (lambda[p] * barycentric_gradient<Dim>(q, j) + lambda[q] * barycentric_gradient<Dim>(p, j));
  }
}

// Serendipity quadrilateral/hexahedron from the node's reference coordinates c (each -1, 0, 1):
// corners prod(1 + xi_k c_k) (sum xi_k c_k - (Dim - 1)) / 2^Dim,
// mid-edges (zero in direction m) (1 - xi_m^2) prod_{k != m}(1 + xi_k c_k) / 2^(Dim - 1).
template <int Dim>
TREMOR_HOST_DEVICE inline void serendipity(const double* c, const double* xi, double& value, double* gradient) {
  int mid = -1;
  for (int k = 0; k < Dim; ++k)
    if (c[k] == 0.0) mid = k;
  double f[Dim];
  for (int k = 0; k < Dim; ++k) f[k] = (k == mid) ? 1.0 - xi[k] * xi[k] : 1.0 + xi[k] * c[k];
  double product = 1.0;
  for (int k = 0; k < Dim; ++k) product *= f[k];
  if (mid >= 0) {
    const double scale = 1.0 / (1 << (Dim - 1));
    value = scale * product;
    for (int j = 0; j < Dim; ++j) {
      double others = 1.0;
      for (int k = 0; k < Dim; ++k)
        if (k != j) others *= f[k];
      gradient[j] = scale * others * (j == mid ? -2.0 * xi[j] : c[j]);
    }
  } else {
    const double scale = 1.0 / (1 << Dim);
    double sum = -(Dim - 1.0);
    for (int k = 0; k < Dim; ++k) sum += xi[k] * c[k];
    value = scale * product * sum;
    for (int j = 0; j < Dim; ++j) {
      double others = 1.0;
      for (int k = 0; k < Dim; ++k)
        if (k != j) others *= f[k];
      gradient[j] = scale * c[j] * (others * sum + product);
    }
  }
}

// Vertex coordinates of [-1, 1]^d in tremor's order (counter-clockwise, bottom then top).
TREMOR_HOST_DEVICE inline double cube_vertex(int v, int j) {
  const int pattern[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                             {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  return pattern[v][j];
}

}  // namespace detail

// ------------------------------------------------------------------------------- simplices

struct Tri3 {
  static constexpr ElementType type = ElementType::Tri3;
  static constexpr int order = 1, dim = 2, n_nodes = 3, n_vertices = 3;
  static constexpr bool simplex = true;
  static constexpr int stiffness_degree = 0, mass_degree = 2;
  static constexpr Lumping lumping = Lumping::RowSum;
  TREMOR_HOST_DEVICE static void shape(const double* xi, double* N) { detail::barycentric<2>(xi, N); }
  TREMOR_HOST_DEVICE static void gradients(const double*, double* dN) {
    for (int a = 0; a < 3; ++a)
      for (int j = 0; j < 2; ++j) dN[a * 2 + j] = detail::barycentric_gradient<2>(a, j);
  }
  TREMOR_HOST_DEVICE static void node(int a, double* xi) {
    xi[0] = a == 1 ? 1.0 : 0.0;
    xi[1] = a == 2 ? 1.0 : 0.0;
  }
};

struct Tri6 {
  static constexpr ElementType type = ElementType::Tri6;
  static constexpr int order = 1, dim = 2, n_nodes = 6, n_vertices = 3;
  static constexpr bool simplex = true;
  static constexpr int stiffness_degree = 2, mass_degree = 4;
  static constexpr Lumping lumping = Lumping::Hrz;
  TREMOR_HOST_DEVICE static void shape(const double* xi, double* N) {
    const int edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    detail::quadratic_simplex_shape<2, 6>(edges, xi, N);
  }
  TREMOR_HOST_DEVICE static void gradients(const double* xi, double* dN) {
    const int edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    detail::quadratic_simplex_gradients<2, 6>(edges, xi, dN);
  }
  TREMOR_HOST_DEVICE static void node(int a, double* xi) {
    const double table[6][2] = {{0, 0}, {1, 0}, {0, 1}, {0.5, 0}, {0.5, 0.5}, {0, 0.5}};
    xi[0] = table[a][0];
    xi[1] = table[a][1];
  }
};

struct Tet4 {
  static constexpr ElementType type = ElementType::Tet4;
  static constexpr int order = 1, dim = 3, n_nodes = 4, n_vertices = 4;
  static constexpr bool simplex = true;
  static constexpr int stiffness_degree = 0, mass_degree = 2;
  static constexpr Lumping lumping = Lumping::RowSum;
  TREMOR_HOST_DEVICE static void shape(const double* xi, double* N) { detail::barycentric<3>(xi, N); }
  TREMOR_HOST_DEVICE static void gradients(const double*, double* dN) {
    for (int a = 0; a < 4; ++a)
      for (int j = 0; j < 3; ++j) dN[a * 3 + j] = detail::barycentric_gradient<3>(a, j);
  }
  TREMOR_HOST_DEVICE static void node(int a, double* xi) {
    for (int j = 0; j < 3; ++j) xi[j] = (a == j + 1) ? 1.0 : 0.0;
  }
};

struct Tet10 {
  static constexpr ElementType type = ElementType::Tet10;
  static constexpr int order = 1, dim = 3, n_nodes = 10, n_vertices = 4;
  static constexpr bool simplex = true;
  static constexpr int stiffness_degree = 2, mass_degree = 4;
  static constexpr Lumping lumping = Lumping::Hrz;
  TREMOR_HOST_DEVICE static void shape(const double* xi, double* N) {
    const int edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
    detail::quadratic_simplex_shape<3, 10>(edges, xi, N);
  }
  TREMOR_HOST_DEVICE static void gradients(const double* xi, double* dN) {
    const int edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
    detail::quadratic_simplex_gradients<3, 10>(edges, xi, dN);
  }
  TREMOR_HOST_DEVICE static void node(int a, double* xi) {
    const int edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
    if (a < 4) {
      Tet4::node(a, xi);
      return;
    }
    double p[3], q[3];
    Tet4::node(edges[a - 4][0], p);
    Tet4::node(edges[a - 4][1], q);
    for (int j = 0; j < 3; ++j) xi[j] = 0.5 * (p[j] + q[j]);
  }
};

// -------------------------------------------------------------------- quadrilaterals, hexahedra

struct Quad4 {
  static constexpr ElementType type = ElementType::Quad4;
  static constexpr int order = 1, dim = 2, n_nodes = 4, n_vertices = 4;
  static constexpr bool simplex = false;
  // Per-direction degrees: grad N is linear in the other direction, N^2 quadratic.
  static constexpr int stiffness_degree = 2, mass_degree = 2;
  static constexpr Lumping lumping = Lumping::RowSum;
  TREMOR_HOST_DEVICE static void node(int a, double* xi) {
    xi[0] = detail::cube_vertex(a, 0);
    xi[1] = detail::cube_vertex(a, 1);
  }
  TREMOR_HOST_DEVICE static void shape(const double* xi, double* N) {
    for (int a = 0; a < 4; ++a) {
      double c[2];
      node(a, c);
      N[a] = 0.25 * (1.0 + c[0] * xi[0]) * (1.0 + c[1] * xi[1]);
    }
  }
  TREMOR_HOST_DEVICE static void gradients(const double* xi, double* dN) {
    for (int a = 0; a < 4; ++a) {
      double c[2];
      node(a, c);
      dN[a * 2] = 0.25 * c[0] * (1.0 + c[1] * xi[1]);
      dN[a * 2 + 1] = 0.25 * c[1] * (1.0 + c[0] * xi[0]);
    }
  }
};

struct Quad8 {
  static constexpr ElementType type = ElementType::Quad8;
  static constexpr int order = 1, dim = 2, n_nodes = 8, n_vertices = 4;
  static constexpr bool simplex = false;
  static constexpr int stiffness_degree = 4, mass_degree = 4;
  static constexpr Lumping lumping = Lumping::Hrz;
  TREMOR_HOST_DEVICE static void node(int a, double* xi) {
    const double table[8][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {0, -1}, {1, 0}, {0, 1}, {-1, 0}};
    xi[0] = table[a][0];
    xi[1] = table[a][1];
  }
  TREMOR_HOST_DEVICE static void shape(const double* xi, double* N) {
    double g[2];
    for (int a = 0; a < 8; ++a) {
      double c[2];
      node(a, c);
      detail::serendipity<2>(c, xi, N[a], g);
    }
  }
  TREMOR_HOST_DEVICE static void gradients(const double* xi, double* dN) {
    double value;
    for (int a = 0; a < 8; ++a) {
      double c[2];
      node(a, c);
      detail::serendipity<2>(c, xi, value, dN + a * 2);
    }
  }
};

struct Hex8 {
  static constexpr ElementType type = ElementType::Hex8;
  static constexpr int order = 1, dim = 3, n_nodes = 8, n_vertices = 8;
  static constexpr bool simplex = false;
  static constexpr int stiffness_degree = 2, mass_degree = 2;
  static constexpr Lumping lumping = Lumping::RowSum;
  TREMOR_HOST_DEVICE static void node(int a, double* xi) {
    for (int j = 0; j < 3; ++j) xi[j] = detail::cube_vertex(a, j);
  }
  TREMOR_HOST_DEVICE static void shape(const double* xi, double* N) {
    for (int a = 0; a < 8; ++a) {
      double c[3];
      node(a, c);
      N[a] = 0.125 * (1.0 + c[0] * xi[0]) * (1.0 + c[1] * xi[1]) * (1.0 + c[2] * xi[2]);
    }
  }
  TREMOR_HOST_DEVICE static void gradients(const double* xi, double* dN) {
    for (int a = 0; a < 8; ++a) {
      double c[3];
      node(a, c);
      const double f0 = 1.0 + c[0] * xi[0], f1 = 1.0 + c[1] * xi[1], f2 = 1.0 + c[2] * xi[2];
      dN[a * 3] = 0.125 * c[0] * f1 * f2;
      dN[a * 3 + 1] = 0.125 * c[1] * f0 * f2;
      dN[a * 3 + 2] = 0.125 * c[2] * f0 * f1;
    }
  }
};

struct Hex20 {
  static constexpr ElementType type = ElementType::Hex20;
  static constexpr int order = 1, dim = 3, n_nodes = 20, n_vertices = 8;
  static constexpr bool simplex = false;
  static constexpr int stiffness_degree = 4, mass_degree = 4;
  static constexpr Lumping lumping = Lumping::Hrz;
  TREMOR_HOST_DEVICE static void node(int a, double* xi) {
    if (a < 8) {
      Hex8::node(a, xi);
      return;
    }
    const int edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                              {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (int j = 0; j < 3; ++j)
      xi[j] = 0.5 * (detail::cube_vertex(edges[a - 8][0], j) + detail::cube_vertex(edges[a - 8][1], j));
  }
  TREMOR_HOST_DEVICE static void shape(const double* xi, double* N) {
    double g[3];
    for (int a = 0; a < 20; ++a) {
      double c[3];
      node(a, c);
      detail::serendipity<3>(c, xi, N[a], g);
    }
  }
  TREMOR_HOST_DEVICE static void gradients(const double* xi, double* dN) {
    double value;
    for (int a = 0; a < 20; ++a) {
      double c[3];
      node(a, c);
      detail::serendipity<3>(c, xi, value, dN + a * 3);
    }
  }
};

// Tensor-product Lagrange elements on the GLL points of order P (P + 1 points per direction),
// nodes lexicographic with x fastest: a = i + (P + 1) (j + (P + 1) k).
template <int Dim, int P>
struct GllElement {
  static_assert(P >= 1 && P <= max_gll_order, "GLL order must be 1..8");
  static constexpr ElementType type = Dim == 2 ? ElementType::QuadGLL : ElementType::HexGLL;
  static constexpr int order = P, dim = Dim, n_1d = P + 1;
  static constexpr int n_nodes = Dim == 2 ? n_1d * n_1d : n_1d * n_1d * n_1d;
  static constexpr int n_vertices = Dim == 2 ? 4 : 8;
  static constexpr bool simplex = false;
  // grad N has degree P per direction: 2P for stiffness and mass (P + 1 Gauss points, exact on
  // affine elements; stiffness_rule takes the (P + 1)-point GLL rule on the nodes from order 2,
  // element_matrices.hpp). The lumped mass uses that GLL rule too.
  static constexpr int stiffness_degree = 2 * P, mass_degree = 2 * P;
  static constexpr Lumping lumping = Lumping::Nodal;

  TREMOR_HOST_DEVICE static void node(int a, double* xi) {
    double x[n_1d];
    gll_points(n_1d, x);
    for (int d = 0; d < Dim; ++d) {
      xi[d] = x[a % n_1d];
      a /= n_1d;
    }
  }
  TREMOR_HOST_DEVICE static void shape(const double* xi, double* N) {
    double x[n_1d], value[Dim][n_1d], derivative[n_1d];
    gll_points(n_1d, x);
    for (int d = 0; d < Dim; ++d) lagrange(n_1d, x, xi[d], value[d], derivative);
    for (int a = 0; a < n_nodes; ++a) {
      int rest = a;
      double product = 1.0;
      for (int d = 0; d < Dim; ++d) {
        product *= value[d][rest % n_1d];
        rest /= n_1d;
      }
      N[a] = product;
    }
  }
  TREMOR_HOST_DEVICE static void gradients(const double* xi, double* dN) {
    double x[n_1d], value[Dim][n_1d], derivative[Dim][n_1d];
    gll_points(n_1d, x);
    for (int d = 0; d < Dim; ++d) lagrange(n_1d, x, xi[d], value[d], derivative[d]);
    for (int a = 0; a < n_nodes; ++a) {
      int index[Dim];
      int rest = a;
      for (int d = 0; d < Dim; ++d) {
        index[d] = rest % n_1d;
        rest /= n_1d;
      }
      for (int j = 0; j < Dim; ++j) {
        double product = 1.0;
        for (int d = 0; d < Dim; ++d) product *= (d == j) ? derivative[d][index[d]] : value[d][index[d]];
        dN[a * Dim + j] = product;
      }
    }
  }
};

template <int P>
using QuadGll = GllElement<2, P>;
template <int P>
using HexGll = GllElement<3, P>;

// Node index of vertex v (0..n_vertices) of an element: the corner nodes come first except for the
// GLL types, whose corners sit at the ends of the lexicographic rows.
template <class E>
TREMOR_HOST_DEVICE constexpr int vertex_node(int v) {
  if constexpr (E::type == ElementType::QuadGLL || E::type == ElementType::HexGLL) {
    const int n = E::order + 1;
    const int i = (v == 1 || v == 2 || v == 5 || v == 6) ? n - 1 : 0;
    const int j = (v == 2 || v == 3 || v == 6 || v == 7) ? n - 1 : 0;
    const int k = v >= 4 ? n - 1 : 0;
    return i + n * (j + n * k);
  } else {
    return v;
  }
}

}  // namespace tremor::fem
