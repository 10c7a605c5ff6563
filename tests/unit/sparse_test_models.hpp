#pragma once
// Models for the sparse/ and explicit/ operator tests: a generated rectangle or box, interior
// nodes moved deterministically (a distorted, curved interior; the boundary stays straight), and
// two sections split at x = mid-width: an isotropic steel and a fully anisotropic material (every
// normal-shear coupling non-zero, so a transposed or misplaced D entry shows).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <numbers>
#include <string>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/model.hpp"

namespace tremor::test {

struct ModelCase {
  ElementType type;
  int order;
  std::string label;
};

// Deterministic value in [-1, 1) from an integer.
inline double hash_unit(std::uint64_t k) {
  k = (k + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
  k ^= k >> 31;
  k *= 0x94D049BB133111EBull;
  k ^= k >> 29;
  return static_cast<double>(k >> 11) * 0x1.0p-52 - 1.0;
}

inline Material anisotropic_material() {
  // Isotropic lambda = 60 GPa, mu = 40 GPa, plus symmetric couplings well inside positive
  // definiteness (material.validate() checks).
  const double lambda = 60e9, mu = 40e9;
  Voigt6 c{};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) c[static_cast<std::size_t>(6 * i + j)] = lambda + (i == j ? 2 * mu : 0.0);
    c[static_cast<std::size_t>(6 * (i + 3) + i + 3)] = mu;
  }
  const double couplings[][3] = {{0, 5, 9e9}, {1, 5, -7e9}, {0, 3, 5e9}, {2, 4, 6e9}, {3, 5, 4e9}, {0, 1, 5e9}};
  for (const auto& k : couplings) {
    const auto i = static_cast<std::size_t>(k[0]), j = static_cast<std::size_t>(k[1]);
    c[6 * i + j] += k[2];
    c[6 * j + i] += i == j ? 0.0 : k[2];
  }
  Material m = Material::from_stiffness("aniso", c, 2700.0);
  m.damping_alpha = 3000.0;
  return m;
}

// `cells` per direction on [0, 1] x [0, 0.8] (x [0, 0.6]); interior nodes moved by up to
// 2.2 `distortion` of the smallest cell size in each coordinate. Element sets "left" (centroid x < 0.5)
// and "right"; the left half steel (plane strain in 2D), the right anisotropic (plane stress in 2D);
// 2D thickness 0.25 and 0.5.
inline Model two_section_model(ElementType type, int order, Size cells, double distortion,
                               bool two_sections = true) {
  Model model;
  model.source = "test-model";
  const bool is_2d = dimension(type) == 2;
  if (is_2d)
    model.mesh = generate_rectangle({0.0, 0.0}, {1.0, 0.8}, {cells, cells}, type, order);
  else
    model.mesh = generate_box({0.0, 0.0, 0.0}, {1.0, 0.8, 0.6}, {cells, cells, cells}, type, order);
  Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  const double h = 0.6 / static_cast<double>(cells);
  const double upper[3] = {1.0, 0.8, 0.6};
  for (Index n = 0; n < mesh.n_nodes(); ++n) {
    double* x = mesh.coordinates.data() + static_cast<std::size_t>(n) * static_cast<std::size_t>(dim);
    bool interior = true;
    for (int d = 0; d < dim; ++d)
      interior = interior && std::abs(x[d]) > 1e-12 && std::abs(x[d] - upper[d]) > 1e-12;
    if (!interior) continue;
    // A smooth map vanishing on the boundary (curves element edges consistently), plus a small
    // per-node jitter (moves mid-edge and GLL nodes off their straight positions).
    double bubble = 1.0;
    for (int d = 0; d < dim; ++d) bubble *= std::sin(std::numbers::pi * x[d] / upper[d]);
    const double y0 = x[1];
    for (int d = 0; d < dim; ++d) {
      const double wave = std::cos(2.0 * std::numbers::pi * (d == 0 ? y0 : x[0]) + d);
      x[d] += distortion * h * (2.0 * bubble * wave +
                                0.2 * hash_unit(static_cast<std::uint64_t>(n) * 3 + static_cast<std::uint64_t>(d)));
    }
  }
  std::vector<Index> left, right;
  Index global = 0;
  for (const auto& block : mesh.blocks)
    for (Index e = 0; e < block.n_elements(); ++e, ++global) {
      double centroid = 0.0;
      for (Index node : block.nodes(e)) centroid += mesh.node(node)[0];
      centroid /= static_cast<double>(block.n_element_nodes());
      (centroid < 0.5 ? left : right).push_back(global);
    }
  Material steel = Material::from_youngs("steel", 210e9, 0.29, 7850.0);
  steel.damping_alpha = 1000.0;
  model.materials = {steel, anisotropic_material()};
  if (two_sections) {
    mesh.element_sets["left"] = left;
    mesh.element_sets["right"] = right;
    model.sections.push_back({"left", "steel", is_2d ? Formulation::PlaneStrain : Formulation::Solid, is_2d ? 0.25 : 1.0});
    model.sections.push_back({"right", "aniso", is_2d ? Formulation::PlaneStress : Formulation::Solid, is_2d ? 0.5 : 1.0});
  } else {
    model.sections.push_back({"all", "steel", is_2d ? Formulation::PlaneStrain : Formulation::Solid, is_2d ? 0.25 : 1.0});
  }
  return model;
}

// The element families the operator tests cover, on small meshes.
inline std::vector<ModelCase> operator_cases() {
  return {{ElementType::Tri3, 1, "tri3"},         {ElementType::Quad4, 1, "quad4"},
          {ElementType::Quad8, 1, "quad8"},       {ElementType::Tri6, 1, "tri6"},
          {ElementType::QuadGLL, 3, "quad_gll3"}, {ElementType::Tet4, 1, "tet4"},
          {ElementType::Tet10, 1, "tet10"},       {ElementType::Hex8, 1, "hex8"},
          {ElementType::Hex20, 1, "hex20"},       {ElementType::HexGLL, 2, "hex_gll2"}};
}

inline Size cells_for(ElementType type) { return dimension(type) == 2 ? 6 : 3; }

// Deterministic vector in [-1, 1).
inline std::vector<double> test_vector(Index n, std::uint64_t seed) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = hash_unit(seed * 1000003u + static_cast<std::uint64_t>(i));
  return v;
}

// test_vector rounded to Real.
template <class Real>
std::vector<Real> rounded_vector(Index n, std::uint64_t seed) {
  const auto v = test_vector(n, seed);
  return {v.begin(), v.end()};
}

// y = A x on exec through the matrix's spmv (sparse/formats.hpp, sparse/csr.hpp), y poisoned with
// NaN first so an entry the kernel does not write fails.
template <class Real, class Matrix>
std::vector<Real> apply(const Exec& exec, const Matrix& matrix, const std::vector<Real>& x) {
  DeviceArray<Real> dx(exec, std::span<const Real>(x));
  const std::vector<Real> poison(x.size(), std::numeric_limits<Real>::quiet_NaN());
  DeviceArray<Real> dy(exec, std::span<const Real>(poison));
  spmv(exec, matrix, dx.data(), dy.data());
  exec.synchronize();
  return dy.to_host();
}

// The largest |a_i - b_i| and the largest |a_i|, in double.
template <class A, class B>
double max_difference(const std::vector<A>& a, const std::vector<B>& b) {
  double m = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    m = std::max(m, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  return m;
}

template <class A>
double max_abs(const std::vector<A>& a) {
  double m = 0.0;
  for (A v : a) m = std::max(m, std::abs(static_cast<double>(v)));
  return m;
}

template <class Real>
bool same_bits(const std::vector<Real>& a, const std::vector<Real>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Real)) == 0;
}

// `result` holds the bits of the CSR `reference`, entry by entry (a gtest assertion).
template <class Real>
void expect_same_bits(const std::vector<Real>& result, const std::vector<Real>& reference, const std::string& what) {
  ASSERT_EQ(result.size(), reference.size()) << what;
  for (std::size_t i = 0; i < result.size(); ++i)
    ASSERT_EQ(std::memcmp(&result[i], &reference[i], sizeof(Real)), 0)
        << what << ": entry " << i << " is " << result[i] << ", CSR gives " << reference[i];
}

}  // namespace tremor::test
