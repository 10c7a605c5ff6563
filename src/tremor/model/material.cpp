#include "tremor/model/material.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tremor/core/error.hpp"
#include "tremor/model/material_field.hpp"

namespace tremor {

namespace {

void check_density(const std::string& name, double density) {
  TREMOR_CHECK(std::isfinite(density) && density > 0.0, "material '", name, "': density must be positive, got ",
               density);
  TREMOR_CHECK(density >= smallest_material_constant && density <= largest_material_constant, "material '", name,
               "': density ", density, " kg/m^3 is outside [", smallest_material_constant, ", ",
               largest_material_constant, "], the magnitudes of a material (docs/model-file.md)");
}

Material make_isotropic(std::string name, double lambda, double mu, double density) {
  check_density(name, density);
  TREMOR_CHECK(std::isfinite(mu) && mu > 0.0, "material '", name, "': shear modulus must be positive, got ", mu);
  TREMOR_CHECK(std::isfinite(lambda) && 3.0 * lambda + 2.0 * mu > 0.0, "material '", name,
               "': bulk modulus lambda + 2 mu / 3 must be positive (lambda = ", lambda, ", mu = ", mu, ")");
  Material m;
  m.name = std::move(name);
  m.density = density;
  m.isotropic = true;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m.stiffness[static_cast<std::size_t>(6 * i + j)] = lambda + (i == j ? 2.0 * mu : 0.0);
  for (int i = 3; i < 6; ++i) m.stiffness[static_cast<std::size_t>(7 * i)] = mu;
  m.validate();  // the magnitudes, of lambda + 2 mu as given or derived
  return m;
}

// Eigenvalues of a symmetric 3x3 matrix (Jacobi rotations; exact enough for wave speeds), and
// with `vectors` its eigenvectors, column k of it (row-major) for eigenvalue k.
std::array<double, 3> symmetric_eigenvalues(std::array<double, 9> a, std::array<double, 9>* vectors = nullptr) {
  if (vectors) *vectors = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
  for (int sweep = 0; sweep < 50; ++sweep) {
    const double off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
    if (off < 1e-30 * (a[0] * a[0] + a[4] * a[4] + a[8] * a[8])) break;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        const double apq = a[static_cast<std::size_t>(3 * p + q)];
        if (apq == 0.0) continue;
        const double app = a[static_cast<std::size_t>(4 * p)], aqq = a[static_cast<std::size_t>(4 * q)];
        const double theta = 0.5 * (aqq - app) / apq;
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 3; ++k) {  // A <- A J (columns p, q)
          const double akp = a[static_cast<std::size_t>(3 * k + p)], akq = a[static_cast<std::size_t>(3 * k + q)];
          a[static_cast<std::size_t>(3 * k + p)] = c * akp - s * akq;
          a[static_cast<std::size_t>(3 * k + q)] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {  // A <- J^T A (rows p, q)
          const double apk = a[static_cast<std::size_t>(3 * p + k)], aqk = a[static_cast<std::size_t>(3 * q + k)];
          a[static_cast<std::size_t>(3 * p + k)] = c * apk - s * aqk;
          a[static_cast<std::size_t>(3 * q + k)] = s * apk + c * aqk;
        }
        if (vectors)
          for (int k = 0; k < 3; ++k) {  // V <- V J
            std::array<double, 9>& v = *vectors;
            const double vkp = v[static_cast<std::size_t>(3 * k + p)], vkq = v[static_cast<std::size_t>(3 * k + q)];
            v[static_cast<std::size_t>(3 * k + p)] = c * vkp - s * vkq;
            v[static_cast<std::size_t>(3 * k + q)] = s * vkp + c * vkq;
          }
      }
  }
  return {a[0], a[4], a[8]};
}

// Voigt index of the symmetric pair (i, j).
constexpr int voigt[3][3] = {{0, 5, 4}, {5, 1, 3}, {4, 3, 2}};

// Christoffel matrix Gamma_ik = C_ijkl n_j n_l for unit direction n, in Voigt form.
std::array<double, 9> christoffel(const Material& m, const double n[3]) {
  std::array<double, 9> g{};
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      double s = 0.0;
      for (int j = 0; j < 3; ++j)
        for (int l = 0; l < 3; ++l) s += m.c(voigt[i][j], voigt[k][l]) * n[j] * n[l];
      g[static_cast<std::size_t>(3 * i + k)] = s;
    }
  return g;
}

template <class Visit>
void for_each_direction(Visit visit) {
  // A latitude-longitude net fine enough (~2 degrees) that the extremal speeds of crystals and
  // composites are found to well under 1%.
  constexpr int n_theta = 90, n_phi = 180;
  for (int a = 0; a <= n_theta; ++a)
    for (int b = 0; b < n_phi; ++b) {
      const double theta = std::numbers::pi * a / n_theta, phi = 2.0 * std::numbers::pi * b / n_phi;
      const double n[3] = {std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)};
      visit(n);
    }
}

}  // namespace

bool positive_definite(const double* a, int n) {
  double l[36] = {};
  for (int j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (int k = 0; k < j; ++k) d -= l[j * n + k] * l[j * n + k];
    if (!(d > 0.0)) return false;
    l[j * n + j] = std::sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (int k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = s / l[j * n + j];
    }
  }
  return true;
}

Material Material::from_youngs(std::string name, double youngs, double poisson, double density) {
  TREMOR_CHECK(std::isfinite(youngs) && youngs > 0.0, "material '", name, "': Young's modulus must be positive, got ",
               youngs);
  TREMOR_CHECK(std::isfinite(poisson) && poisson > -1.0 && poisson < 0.5, "material '", name,
               "': Poisson's ratio must lie in (-1, 0.5), got ", poisson);
  const double lambda = youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
  const double mu = youngs / (2.0 * (1.0 + poisson));
  return make_isotropic(std::move(name), lambda, mu, density);
}

Material Material::from_lame(std::string name, double lambda, double mu, double density) {
  return make_isotropic(std::move(name), lambda, mu, density);
}

Material Material::from_speeds(std::string name, double p_speed, double s_speed, double density) {
  check_density(name, density);
  TREMOR_CHECK(std::isfinite(s_speed) && s_speed > 0.0, "material '", name, "': shear wave speed must be positive, got ",
               s_speed);
  // c_p > c_s * 2/sqrt(3) keeps the bulk modulus positive.
  TREMOR_CHECK(std::isfinite(p_speed) && 3.0 * p_speed * p_speed > 4.0 * s_speed * s_speed, "material '", name,
               "': c_p = ", p_speed, " must exceed 2/sqrt(3) c_s = ", 2.0 / std::sqrt(3.0) * s_speed);
  const double mu = density * s_speed * s_speed;
  const double lambda = density * p_speed * p_speed - 2.0 * mu;
  return make_isotropic(std::move(name), lambda, mu, density);
}

Material Material::from_stiffness(std::string name, const Voigt6& stiffness, double density) {
  Material m;
  m.name = std::move(name);
  m.density = density;
  m.stiffness = stiffness;
  m.isotropic = false;
  m.validate();
  return m;
}

Material Material::from_engineering_constants(std::string name, double e1, double e2, double e3, double nu12,
                                              double nu13, double nu23, double g12, double g13, double g23,
                                              double density) {
  for (double value : {e1, e2, e3, g12, g13, g23})
    TREMOR_CHECK(std::isfinite(value) && value > 0.0, "material '", name,
                 "': engineering constants E and G must be positive, got ", value);
  // Compliance S (Voigt order xx, yy, zz, yz, xz, xy), symmetric: nu_ji / E_j = nu_ij / E_i.
  double s[36] = {};
  s[0] = 1.0 / e1;
  s[7] = 1.0 / e2;
  s[14] = 1.0 / e3;
  s[1] = s[6] = -nu12 / e1;
  s[2] = s[12] = -nu13 / e1;
  s[8] = s[13] = -nu23 / e2;
  s[21] = 1.0 / g23;
  s[28] = 1.0 / g13;
  s[35] = 1.0 / g12;
  TREMOR_CHECK(positive_definite(s, 6), "material '", name,
               "': the engineering constants give a compliance that is not positive definite "
               "(check the Poisson's ratios)");
  // Invert S by Gauss-Jordan elimination (positive definite, so no pivoting needed).
  double a[36], inv[36] = {};
  std::copy(s, s + 36, a);
  for (int i = 0; i < 6; ++i) inv[7 * i] = 1.0;
  for (int col = 0; col < 6; ++col) {
    const double pivot = a[7 * col];
    for (int k = 0; k < 6; ++k) {
      a[6 * col + k] /= pivot;
      inv[6 * col + k] /= pivot;
    }
    for (int row = 0; row < 6; ++row) {
      if (row == col) continue;
      const double f = a[6 * row + col];
      for (int k = 0; k < 6; ++k) {
        a[6 * row + k] -= f * a[6 * col + k];
        inv[6 * row + k] -= f * inv[6 * col + k];
      }
    }
  }
  Voigt6 c{};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) c[static_cast<std::size_t>(6 * i + j)] = 0.5 * (inv[6 * i + j] + inv[6 * j + i]);
  return from_stiffness(std::move(name), c, density);
}

Material Material::from_sound_speed(std::string name, double sound_speed, double density) {
  check_density(name, density);
  TREMOR_CHECK(std::isfinite(sound_speed) && sound_speed > 0.0, "material '", name,
               "': sound speed must be positive, got ", sound_speed);
  Material m;
  m.name = std::move(name);
  m.density = density;
  m.fluid = true;
  m.bulk_modulus = density * sound_speed * sound_speed;
  m.validate();
  return m;
}

double Material::sound_speed() const {
  TREMOR_CHECK(fluid, "material '", name, "' is a solid: it has no sound speed of a fluid");
  return std::sqrt(bulk_modulus / density);
}

double Material::lambda() const {
  TREMOR_CHECK(!fluid, "material '", name, "' is a fluid: it has no Lame constants");
  TREMOR_CHECK(isotropic, "material '", name, "' is anisotropic: it has no Lame constants");
  return c(0, 1);
}

double Material::mu() const {
  TREMOR_CHECK(!fluid, "material '", name, "' is a fluid: it has no Lame constants");
  TREMOR_CHECK(isotropic, "material '", name, "' is anisotropic: it has no Lame constants");
  return c(3, 3);
}

double Material::max_wave_speed() const {
  if (field) return field->max_wave_speed();
  if (fluid) return sound_speed();
  if (isotropic) return std::sqrt((lambda() + 2.0 * mu()) / density);
  double largest = 0.0;
  for_each_direction([&](const double n[3]) {
    const auto ev = symmetric_eigenvalues(christoffel(*this, n));
    largest = std::max({largest, ev[0], ev[1], ev[2]});
  });
  return std::sqrt(largest / density);
}

double Material::min_wave_speed() const {
  if (field) return field->min_wave_speed();
  if (fluid) return sound_speed();
  if (isotropic) return std::sqrt(mu() / density);
  double smallest = INFINITY;
  for_each_direction([&](const double n[3]) {
    const auto ev = symmetric_eigenvalues(christoffel(*this, n));
    smallest = std::min({smallest, ev[0], ev[1], ev[2]});
  });
  return std::sqrt(std::max(smallest, 0.0) / density);
}

double Material::pml_margin(int axis, int dim) const {
  if (isotropic || fluid) return 0.0;
  double margin = 0.0;
  const auto check = [&](const double n[3]) {
    std::array<double, 9> gamma = christoffel(*this, n);
    if (dim == 2)  // plane strain: the in-plane waves; u_z a mode of its own, passed over
      gamma[2] = gamma[5] = gamma[6] = gamma[7] = 0.0, gamma[8] = 1.0;
    std::array<double, 9> g;
    (void)symmetric_eigenvalues(gamma, &g);
    for (int mode = 0; mode < 3; ++mode) {
      if (dim == 2 && std::abs(g[static_cast<std::size_t>(6 + mode)]) > 0.5) continue;
      // rho v V_i = C_ijkl g_j g_k n_l: the group velocity's direction.
      double w[3] = {}, size = 0.0;
      for (int i = 0; i < dim; ++i) {
        for (int j = 0; j < dim; ++j)
          for (int k = 0; k < dim; ++k)
            for (int l = 0; l < dim; ++l)
              w[i] += c(voigt[i][j], voigt[k][l]) * g[static_cast<std::size_t>(3 * j + mode)] *
                      g[static_cast<std::size_t>(3 * k + mode)] * n[l];
        size += w[i] * w[i];
      }
      if (size > 0.0) margin = std::min(margin, n[axis] * w[axis] / std::sqrt(size));
    }
  };
  if (dim == 2) {
    for (int a = 0; a < 720; ++a) {
      const double phi = 2.0 * std::numbers::pi * a / 720, n[3] = {std::cos(phi), std::sin(phi), 0.0};
      check(n);
    }
  } else {
    for_each_direction(check);
  }
  return margin;
}

void Material::validate() const {
  check_density(name, density);
  if (fluid) {
    TREMOR_CHECK(std::isfinite(bulk_modulus) && bulk_modulus >= smallest_material_constant &&
                     bulk_modulus <= largest_material_constant,
                 "material '", name, "': its bulk modulus is ", bulk_modulus, " Pa, outside [",
                 smallest_material_constant, ", ", largest_material_constant,
                 "], the magnitudes of a material (docs/model-file.md)");
    TREMOR_CHECK(std::all_of(stiffness.begin(), stiffness.end(), [](double c) { return c == 0.0; }) && !isotropic,
                 "material '", name, "': a fluid has no elastic stiffness");
    return;
  }
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      TREMOR_CHECK(std::isfinite(c(i, j)), "material '", name, "': stiffness C", i + 1, j + 1, " is not finite");
      const double scale = std::max(std::abs(c(i, j)), std::abs(c(j, i)));
      TREMOR_CHECK(std::abs(c(i, j) - c(j, i)) <= 1e-12 * scale, "material '", name, "': stiffness is not symmetric (C",
                   i + 1, j + 1, " = ", c(i, j), ", C", j + 1, i + 1, " = ", c(j, i), ")");
    }
  TREMOR_CHECK(positive_definite(stiffness.data(), 6), "material '", name,
               "': stiffness matrix is not positive definite");
  double largest = 0.0;
  for (double entry : stiffness) largest = std::max(largest, std::abs(entry));
  TREMOR_CHECK(largest >= smallest_material_constant && largest <= largest_material_constant, "material '", name,
               "': its largest stiffness entry is ", largest, " Pa, outside [", smallest_material_constant, ", ",
               largest_material_constant, "], the magnitudes of a material (docs/model-file.md)");
}

namespace {
constexpr int keep[3] = {0, 1, 5};  // xx, yy, xy: plane strain's rows and columns
}  // namespace

Voigt3 in_plane(const Voigt6& c) {
  Voigt3 d{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      d[static_cast<std::size_t>(3 * i + j)] = c[static_cast<std::size_t>(6 * keep[i] + keep[j])];
  return d;
}

Voigt3 plane_stiffness(const Material& material, Formulation formulation) {
  Voigt3 d = in_plane(material.stiffness);
  if (formulation != Formulation::PlaneStress) return d;
  // Plane stress: sigma_c = 0 for c in {zz, yz, xz} gives D = C_kk - C_kc C_cc^-1 C_ck.
  static constexpr int cond[3] = {2, 3, 4};
  double ccc[9], inv[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) ccc[3 * i + j] = material.c(cond[i], cond[j]);
  const double det = ccc[0] * (ccc[4] * ccc[8] - ccc[5] * ccc[7]) - ccc[1] * (ccc[3] * ccc[8] - ccc[5] * ccc[6]) +
                     ccc[2] * (ccc[3] * ccc[7] - ccc[4] * ccc[6]);
  TREMOR_CHECK(det > 0.0, "material '", material.name, "': cannot condense to plane stress");
  inv[0] = (ccc[4] * ccc[8] - ccc[5] * ccc[7]) / det;
  inv[1] = (ccc[2] * ccc[7] - ccc[1] * ccc[8]) / det;
  inv[2] = (ccc[1] * ccc[5] - ccc[2] * ccc[4]) / det;
  inv[3] = (ccc[5] * ccc[6] - ccc[3] * ccc[8]) / det;
  inv[4] = (ccc[0] * ccc[8] - ccc[2] * ccc[6]) / det;
  inv[5] = (ccc[2] * ccc[3] - ccc[0] * ccc[5]) / det;
  inv[6] = (ccc[3] * ccc[7] - ccc[4] * ccc[6]) / det;
  inv[7] = (ccc[1] * ccc[6] - ccc[0] * ccc[7]) / det;
  inv[8] = (ccc[0] * ccc[4] - ccc[1] * ccc[3]) / det;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0.0;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) s += material.c(keep[i], cond[a]) * inv[3 * a + b] * material.c(cond[b], keep[j]);
      d[static_cast<std::size_t>(3 * i + j)] -= s;
    }
  return d;
}

std::string to_string(Formulation formulation) {
  switch (formulation) {
    case Formulation::Solid: return "solid";
    case Formulation::PlaneStrain: return "plane strain";
    case Formulation::PlaneStress: return "plane stress";
  }
  return "unknown";
}

}  // namespace tremor
