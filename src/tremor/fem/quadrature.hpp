#pragma once
// Quadrature rules on the reference domains: tensor Gauss-Legendre and Gauss-Lobatto-Legendre on
// [-1, 1]^d, and rules on the unit triangle {x, y >= 0, x + y <= 1} and unit tetrahedron
// {x, y, z >= 0, x + y + z <= 1}. Rules are fixed-size, trivially copyable structs so a kernel can
// build one or receive one by value.
//
// `degree` is what a rule integrates exactly: for tensor rules every monomial x^a y^b (z^c) with
// each exponent <= degree; for simplex rules every polynomial of total degree <= degree.
#include "tremor/core/config.hpp"
#include "tremor/core/polynomials.hpp"

namespace tremor::fem {

template <int Dim, int MaxPoints>
struct QuadratureRule {
  static constexpr int dim = Dim;
  static constexpr int max_points = MaxPoints;
  int n_points = 0;
  int degree = -1;
  double points[MaxPoints * Dim] = {};  // point q at points[q * Dim .. q * Dim + Dim)
  double weights[MaxPoints] = {};

  TREMOR_HOST_DEVICE const double* point(int q) const { return points + q * Dim; }
};

constexpr int ipow(int base, int exponent) {
  int r = 1;
  for (int i = 0; i < exponent; ++i) r *= base;
  return r;
}

// Gauss-Legendre points per direction that integrate degree `degree` exactly.
constexpr int gauss_points_for_degree(int degree) { return degree < 1 ? 1 : (degree + 2) / 2; }

// Tensor product of the n-point Gauss-Legendre (lobatto = false) or GLL (lobatto = true) rule;
// points in lexicographic order, x fastest (for GLL they coincide with the GLL element nodes).
template <int Dim, int MaxPoints>
TREMOR_HOST_DEVICE void tensor_rule(int n, bool lobatto, QuadratureRule<Dim, MaxPoints>& rule) {
  double x[max_points_1d], w[max_points_1d];
  if (lobatto)
    gauss_lobatto(n, x, w);
  else
    gauss_legendre(n, x, w);
  rule.n_points = ipow(n, Dim);
  rule.degree = lobatto ? 2 * n - 3 : 2 * n - 1;
  for (int q = 0; q < rule.n_points; ++q) {
    int rest = q;
    double weight = 1.0;
    for (int d = 0; d < Dim; ++d) {
      const int i = rest % n;
      rest /= n;
      rule.points[q * Dim + d] = x[i];
      weight *= w[i];
    }
    rule.weights[q] = weight;
  }
}

// ---------------------------------------------------------------------------------------------
// Simplex rules, all fully symmetric (invariant under every permutation of the barycentric
// coordinates), with positive weights and all points strictly inside:
//   triangle degree 1: centroid; degree 2: 3 points (Strang & Fix 1973, table 4.1);
//   degree 4: 6 points (Dunavant 1985, "High degree efficient symmetrical Gaussian quadrature
//   rules for the triangle", rule 4); degree 5: 7 points (Radon 1948, Dunavant rule 5);
//   degree 6: 12 points (S21 + S21 + S111, Dunavant rule 6); degree 7: 15 points
//   (S21 + S111 + S111); degree 8: 16 points (S3 + 3 S21 + S111, Dunavant rule 8);
//   tetrahedron degree 1: centroid; degree 2: 4 points (Keast 1986, rule 2);
//   degree 5: 14 points (Walkington 2000, "Quadrature on simplices of arbitrary dimension";
//   also Keast 1986 rule 6); degree 6: 24 points (3 S31 + S211, the structure of Keast's 24-point rule);
//   degree 7: 35 points (S4 + S31 + S22 + 2 S211); degree 8: 46 points (4 S31 + S22 + 2 S211).
// The digits of the degree-4 triangle and degree-5 tetrahedron rules were re-solved from their
// moment equations in double; those of degrees 6..8 are solved, and polished to 50 digits, by
// tools/quadrature/derive_simplex_rules.py (its README: how to rerun it). S21 is the orbit of
// (a, a, 1 - 2a), S111 of (a, b, c), S31 of (a, a, a, 1 - 3a), S22 of (a, a, 1/2 - a, 1/2 - a),
// S211 of (a, a, b, c). Weights are per point and sum to the area 1/2 or volume 1/6.
// There is no rule above degree 8: a request for more gets the degree-8 rule, and rule.degree
// says so.
// ---------------------------------------------------------------------------------------------

constexpr int triangle_points(int degree) {
  if (degree <= 1) return 1;
  if (degree <= 2) return 3;
  if (degree <= 4) return 6;
  if (degree <= 5) return 7;
  if (degree <= 6) return 12;
  if (degree <= 7) return 15;
  return 16;
}

constexpr int tetrahedron_points(int degree) {
  if (degree <= 1) return 1;
  if (degree <= 2) return 4;
  if (degree <= 5) return 14;
  if (degree <= 6) return 24;
  if (degree <= 7) return 35;
  return 46;
}

namespace detail {

// Adds the orbit of a barycentric point under all permutations of its coordinates: every distinct
// ordering of lambda[0..Dim] (coordinates meant to be equal must be passed bitwise equal), each
// with `weight`; the Cartesian point is (lambda[1], ..., lambda[Dim]) (vertex 0 at the origin).
// Orderings are visited by lexicographic next-permutation of the sorted coordinates, which gives
// each distinct one once: 1, 3 or 6 points on the triangle, 1, 4, 6, 12 or 24 on the tetrahedron.
template <int Dim, int MaxPoints>
TREMOR_HOST_DEVICE void add_orbit(QuadratureRule<Dim, MaxPoints>& rule, const double (&lambda)[Dim + 1],
                                  double weight) {
  constexpr int n = Dim + 1;
  double v[n];
  for (int i = 0; i < n; ++i) {  // insertion sort, ascending
    double x = lambda[i];
    int j = i;
    for (; j > 0 && v[j - 1] > x; --j) v[j] = v[j - 1];
    v[j] = x;
  }
  while (true) {
    for (int d = 0; d < Dim; ++d) rule.points[rule.n_points * Dim + d] = v[d + 1];
    rule.weights[rule.n_points++] = weight;
    int i = n - 2;
    while (i >= 0 && !(v[i] < v[i + 1])) --i;
    if (i < 0) break;
    int j = n - 1;
    while (!(v[i] < v[j])) --j;
    double t = v[i];
    v[i] = v[j];
    v[j] = t;
    for (int a = i + 1, b = n - 1; a < b; ++a, --b) {
      t = v[a];
      v[a] = v[b];
      v[b] = t;
    }
  }
}

// The orbits of (a, a, 1 - 2a) on the triangle, and of (a, a, a, 1 - 3a) and
// (a, a, 1/2 - a, 1/2 - a) on the tetrahedron.
template <int MaxPoints>
TREMOR_HOST_DEVICE void add_s21(QuadratureRule<2, MaxPoints>& rule, double a, double weight) {
  add_orbit(rule, {a, a, 1.0 - 2.0 * a}, weight);
}
template <int MaxPoints>
TREMOR_HOST_DEVICE void add_s31(QuadratureRule<3, MaxPoints>& rule, double a, double weight) {
  add_orbit(rule, {a, a, a, 1.0 - 3.0 * a}, weight);
}
template <int MaxPoints>
TREMOR_HOST_DEVICE void add_s22(QuadratureRule<3, MaxPoints>& rule, double a, double weight) {
  const double b = 0.5 - a;
  add_orbit(rule, {a, a, b, b}, weight);
}

}  // namespace detail

// A rule on the unit triangle exact for total degree `degree` (0..8; area 1/2).
template <int MaxPoints>
TREMOR_HOST_DEVICE void triangle_rule(int degree, QuadratureRule<2, MaxPoints>& rule) {
  static_assert(MaxPoints >= 1);
  rule.n_points = 0;
  if (degree <= 1) {
    rule.degree = 1;
    rule.points[0] = rule.points[1] = 1.0 / 3.0;
    rule.weights[0] = 0.5;
    rule.n_points = 1;
  } else if (degree <= 2) {
    rule.degree = 2;
    detail::add_s21(rule, 1.0 / 6.0, 1.0 / 6.0);
  } else if (degree <= 4) {
    rule.degree = 4;
    detail::add_s21(rule, 0.4459484909159647, 0.11169079483900536);
    detail::add_s21(rule, 0.09157621350977131, 0.0549758718276613);
  } else if (degree <= 5) {
    rule.degree = 5;
    const double s15 = sqrt(15.0);
    rule.points[0] = rule.points[1] = 1.0 / 3.0;
    rule.weights[0] = 9.0 / 80.0;
    rule.n_points = 1;
    detail::add_s21(rule, (6.0 - s15) / 21.0, (155.0 - s15) / 2400.0);
    detail::add_s21(rule, (6.0 + s15) / 21.0, (155.0 + s15) / 2400.0);
  } else if (degree <= 6) {
    rule.degree = 6;
    // S21 + S21 + S111, 12 points
    detail::add_orbit(rule, {0.24928674517091043, 0.24928674517091043, 0.50142650965817914}, 0.058393137863189684);
    detail::add_orbit(rule, {0.063089014491502227, 0.063089014491502227, 0.87382197101699555}, 0.025422453185103409);
    detail::add_orbit(rule, {0.053145049844816945, 0.31035245103378439, 0.63650249912139867}, 0.041425537809186785);
  } else if (degree <= 7) {
    rule.degree = 7;
    // S21 + S111 + S111, 15 points
    detail::add_orbit(rule, {0.064930513159164857, 0.064930513159164857, 0.87013897368167026}, 0.026538900895116208);
    detail::add_orbit(rule, {0.043863471792372474, 0.31355918438493152, 0.64257734382269605}, 0.034637341039708447);
    detail::add_orbit(rule, {0.19838447668150672, 0.28457558424917034, 0.517039939069323}, 0.035426541846066785);
  } else {
    rule.degree = 8;
    // S3 + S21 + S21 + S21 + S111, 16 points
    detail::add_orbit(rule, {1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0}, 0.072157803838893586);
    detail::add_orbit(rule, {0.050547228317030977, 0.050547228317030977, 0.89890554336593809}, 0.01622924881159904);
    detail::add_orbit(rule, {0.17056930775176021, 0.17056930775176021, 0.65886138449647957}, 0.051608685267359122);
    detail::add_orbit(rule, {0.45929258829272318, 0.45929258829272318, 0.081414823414553694}, 0.04754581713364231);
    detail::add_orbit(rule, {0.0083947774099576052, 0.26311282963463811, 0.72849239295540424}, 0.013615157087217496);
  }
}

// A rule on the unit tetrahedron exact for total degree `degree` (0..8; volume 1/6).
template <int MaxPoints>
TREMOR_HOST_DEVICE void tetrahedron_rule(int degree, QuadratureRule<3, MaxPoints>& rule) {
  static_assert(MaxPoints >= 1);
  rule.n_points = 0;
  if (degree <= 1) {
    rule.degree = 1;
    rule.points[0] = rule.points[1] = rule.points[2] = 0.25;
    rule.weights[0] = 1.0 / 6.0;
    rule.n_points = 1;
  } else if (degree <= 2) {
    rule.degree = 2;
    detail::add_s31(rule, (5.0 - sqrt(5.0)) / 20.0, 1.0 / 24.0);
  } else if (degree <= 5) {
    rule.degree = 5;
    detail::add_s31(rule, 0.09273525031089114, 0.012248840519393638);
    detail::add_s31(rule, 0.31088591926330067, 0.018781320953002605);
    detail::add_s22(rule, 0.045503704125650093, 0.007091003462846954);
  } else if (degree <= 6) {
    rule.degree = 6;
    // S31 + S31 + S31 + S211, 24 points
    detail::add_orbit(rule, {0.21460287125915203, 0.21460287125915203, 0.21460287125915203, 0.35619138622254393},
                      0.0066537917096945818);
    detail::add_orbit(rule, {0.32233789014227548, 0.32233789014227548, 0.32233789014227548, 0.032986329573173469},
                      0.0092261969239424545);
    detail::add_orbit(rule, {0.040673958534611351, 0.040673958534611351, 0.040673958534611351, 0.87797812439616596},
                      0.0016795351758867739);
    detail::add_orbit(rule, {0.063661001875017525, 0.063661001875017525, 0.26967233145831582, 0.60300566479164919},
                      0.0080357142857142849);
  } else if (degree <= 7) {
    rule.degree = 7;
    // S4 + S31 + S22 + S211 + S211, 35 points
    detail::add_orbit(rule, {0.25, 0.25, 0.25, 0.25}, 0.015914214910688475);
    detail::add_orbit(rule, {0.31570114977820279, 0.31570114977820279, 0.31570114977820279, 0.052896550665391603},
                      0.0070549302016611713);
    detail::add_orbit(rule, {0.050489822598396371, 0.050489822598396371, 0.44951017740160365, 0.44951017740160365},
                      0.0053161546388095964);
    detail::add_orbit(rule, {0.021265472541483248, 0.021265472541483248, 0.14663881381848495, 0.81083024109854851},
                      0.0013517951383172236);
    detail::add_orbit(rule, {0.18883383102600104, 0.18883383102600104, 0.047160700360997884, 0.57517163758700007},
                      0.0062011884547224366);
  } else {
    rule.degree = 8;
    // S31 + S31 + S31 + S31 + S22 + S211 + S211, 46 points
    detail::add_orbit(rule, {0.18493290678561952, 0.18493290678561952, 0.18493290678561952, 0.44520127964314143},
                      0.0087553891971643098);
    detail::add_orbit(rule, {0.10701943510077686, 0.10701943510077686, 0.10701943510077686, 0.67894169469766941},
                      0.0043407940802199863);
    detail::add_orbit(rule, {0.041945439238364149, 0.041945439238364149, 0.041945439238364149, 0.87416368228490759},
                      0.0012260487747514858);
    detail::add_orbit(rule, {0.3142316030103508, 0.3142316030103508, 0.3142316030103508, 0.057305190968947657},
                      0.0069195459602662008);
    detail::add_orbit(rule, {0.064256828882376549, 0.064256828882376549, 0.43574317111762345, 0.43574317111762345},
                      0.0060323157047713879);
    detail::add_orbit(rule, {0.20418478052261063, 0.20418478052261063, 0.0083231212598369533, 0.58330731769494182},
                      0.0025989305074511243);
    detail::add_orbit(rule, {0.021468201585906992, 0.021468201585906992, 0.23921027864246081, 0.71785331818572518},
                      0.0011932078582514102);
  }
}

}  // namespace tremor::fem
