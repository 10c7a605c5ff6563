#pragma once
// The convolutional perfectly matched layer (`[[absorbing]] kind = "pml"`, docs/model-file.md):
// where each coordinate x_k is stretched in the frequency domain by
//
//   s_k(w) = 1 + d_k / (alpha_k + i w)
//
// (kappa = 1; Komatitsch and Martin 2007, Geophysics 72, SM155), so
// that a wave entering the layer decays as exp(-int d_k dx_k / c) without reflecting at any angle
// in the continuum; alpha_k > 0 keeps grazing and low-frequency waves from growing inside it. On
// faces of the mesh's bounding box of thickness L, at depth X = (distance into the layer) / L:
//
//   d_k = d0 X^N,  d0 = (N + 1) c ln(1 / R) / (2 L),   alpha_k = alpha_max (1 - X),  alpha_max = pi f0
//
// with c the fastest P wave of the model, R the reflection designed for (normal incidence, the
// continuum's) and f0 the design frequency (the profiles of Komatitsch and Martin 2007), unless
// the layer gives alpha_max. Where two
// faces' layers meet (edges, corners) each axis keeps its own profile, and the stretchings
// multiply. The multi-axial variant (Meza-Fajardo and Papageorgiou 2008) adds p d_j to the other
// axes' d in a layer normal to axis j, which keeps waves in anisotropic media whose group and
// phase velocities point apart from growing inside the layer (docs/model-file.md, the stability
// rule); p = 0 is the C-PML itself.
//
// Grid damping. On a mesh the layer meets motion the continuum does not have: near the mesh's
// shortest resolvable wavelength (shear waves at about P pi / h in GLL elements of order P and size
// h) the discrete waves' group velocity turns against their phase, and a coordinate stretching
// amplifies such backward waves as it damps forward ones. Where the layer's interior can hold
// them (three elements and more across in GLL blocks of order 4), the semi-discrete equations
// have a mode that grows at those frequencies, whatever the step (docs/verification.md, "PML";
// tools/pml_eigenvalues.py finds it). The layer's material is therefore given a small
// Kelvin-Voigt viscosity, sigma = C : (eps + beta eps'), stretched as the rest (the PML of that
// material: the filters commute with d/dt), with
//
//   beta = eta (dt_s / 2)^2 max_k d_k,   eta = grid_damping (default 0.3), at most 0.1 dt_s
//
// constant over each element (its nodes' mean), dt_s the pre-flight's undamped stable step
// (2 / omega_max): it damps a mode of angular frequency omega at eta max_k d_k (omega /
// omega_max)^2 / 2, a tenth of d's scale at the grid's frequencies and (omega / omega_max)^2
// less in the band a layer is designed for, where its reflection does not change (-76 dB before
// and after at normal incidence in the test of docs/verification.md). The stable step shrinks as
// for Rayleigh beta (explicit/stiffness_damping.hpp), by xi = beta_e / dt_s of the largest
// element's (eta d0 dt_s / 4, at most 0.1): about 2.5% for a layer one wavelength thick, at most
// 9.5% for a thin one.
//
// The equations it leads to and how they are stepped: fem/pml_law.hpp and explicit/pml.hpp.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tremor/core/config.hpp"

namespace tremor {

struct Model;
struct AbsorbingLayer;

// Default design reflection: -80 dB in the continuum, below what the discretisation reflects.
inline constexpr double default_pml_reflection = 1e-4;
// Default power N of the damping profile.
inline constexpr double default_pml_power = 2.0;
// Default grid damping eta (above), and the largest accepted.
inline constexpr double default_pml_grid_damping = 0.3;
inline constexpr double max_pml_grid_damping = 10.0;
// The grid damping's beta at most this times dt_s: the stable step at most 9.5% shorter, where a
// layer's d dt_s exceeds 0.4 / eta (a layer a small fraction of its design wavelength thick).
inline constexpr double pml_grid_beta_cap = 0.1;

// One face's layer along one axis.
struct PmlSide {
  bool active = false;
  double inner = 0.0;      // the coordinate of the layer's inner plane along the axis
  double thickness = 0.0;  // L, m
  double d0 = 0.0;         // s^-1
  double alpha_max = 0.0;  // s^-1
  double power = default_pml_power;
  double grid_damping = 0.0;  // eta

  // X at `coordinate` along the axis, the depth into the layer over its thickness (0 outside it, 1
  // past it), of the lower face's layer (side 0) or the upper's (1).
  TREMOR_HOST_DEVICE double fraction(double coordinate, int side) const {
    const double depth = side == 0 ? inner - coordinate : coordinate - inner;
    if (!(depth > 0.0)) return 0.0;
    return depth < thickness ? depth / thickness : 1.0;
  }
  // d0 X^N (without pow for the common integer N on a device).
  TREMOR_HOST_DEVICE double d_at(double X) const {
    if (power == 2.0) return d0 * X * X;
    if (power == 1.0) return d0 * X;
    if (power == 3.0) return d0 * X * X * X;
    return d0 * ::pow(X, power);
  }
};

// The stretching of every PML layer of a model, pointwise.
struct PmlProfile {
  int dim = 3;
  PmlSide sides[3][2];     // per axis: the lower face's layer, the upper face's
  double multiaxial = 0.0;  // p
  double alpha_rest = 0.0;  // alpha where an axis has no stretching (its filters then pass all)
  double grid_step = 0.0;   // s: dt_s of the grid damping (0: none; the pre-flight sets it)

  bool any() const {
    for (const auto& axis : sides)
      if (axis[0].active || axis[1].active) return true;
    return false;
  }

  // d_k and alpha_k (s^-1, k < dim) at the point x.
  TREMOR_HOST_DEVICE void at(const double* x, double* d, double* alpha) const {
    double own[3] = {0.0, 0.0, 0.0}, own_alpha[3];
    for (int k = 0; k < dim; ++k) {
      own_alpha[k] = alpha_rest;
      for (int side = 0; side < 2; ++side) {
        const PmlSide& s = sides[k][side];
        if (!s.active) continue;
        const double X = s.fraction(x[k], side);
        if (!(X > 0.0)) continue;
        own[k] = s.d_at(X);
        own_alpha[k] = s.alpha_max * (1.0 - X);
      }
    }
    for (int k = 0; k < dim; ++k) {
      d[k] = own[k];
      alpha[k] = own_alpha[k];
      for (int j = 0; j < dim; ++j)
        if (j != k && own[j] > 0.0) {
          d[k] += multiaxial * own[j];
          if (!(own[k] > 0.0)) alpha[k] = own_alpha[j];
        }
    }
  }

  // The grid damping's beta at x (s): (grid_step / 2)^2 max_k eta_k d_k, each axis's own d (not
  // the multi-axial share).
  TREMOR_HOST_DEVICE double beta(const double* x) const {
    double largest = 0.0;
    for (int k = 0; k < dim; ++k)
      for (int side = 0; side < 2; ++side) {
        const PmlSide& s = sides[k][side];
        if (!s.active || !(s.grid_damping > 0.0)) continue;
        const double X = s.fraction(x[k], side);
        if (!(X > 0.0)) continue;
        const double d = s.d_at(X);  // (the same d as at())
        largest = s.grid_damping * d > largest ? s.grid_damping * d : largest;
      }
    const double beta = 0.25 * grid_step * grid_step * largest;
    return beta < pml_grid_beta_cap * grid_step ? beta : pml_grid_beta_cap * grid_step;
  }

  // The grid damping's beta of an element: the mean of beta over its n nodes (`nodes`, into
  // `coordinates`, dim values per node).
  template <class Node>
  TREMOR_HOST_DEVICE double element_beta(const double* coordinates, const Node* nodes, int n) const {
    double sum = 0.0;
    for (int a = 0; a < n; ++a) {
      double x[3] = {0.0, 0.0, 0.0};
      for (int c = 0; c < dim; ++c) x[c] = coordinates[static_cast<long long>(nodes[a]) * dim + c];
      sum += beta(x);
    }
    return n > 0 ? sum / n : 0.0;
  }

  // The largest beta of any point (a bound on every element's).
  double largest_beta() const {
    double largest = 0.0;
    for (const auto& axis : sides)
      for (const PmlSide& s : axis)
        if (s.active) largest = std::max(largest, s.grid_damping * s.d0);
    return std::min(0.25 * grid_step * grid_step * largest, pml_grid_beta_cap * grid_step);
  }

  // Whether the layer's material has the grid damping's viscosity.
  bool grid_damped() const { return grid_step > 0.0 && largest_beta() > 0.0; }

  // Whether the point is inside a layer (some d_k > 0).
  TREMOR_HOST_DEVICE bool inside(const double* x) const {
    double d[3], alpha[3];
    at(x, d, alpha);
    for (int k = 0; k < dim; ++k)
      if (d[k] > 0.0) return true;
    return false;
  }
};

// The design frequency of a pml layer: its own, else the sources' lowest centre frequency
// (model/attenuation.hpp source_frequencies); throws naming the layer when neither exists.
double pml_frequency(const Model& model, const AbsorbingLayer& layer);

// The profile of the model's pml layers (any() false without one). Throws tremor::Error naming
// the layer for what check_pml_layer refuses. `speed`: the c of d0, where not the model's fastest
// wave (a fluid's layers take its fastest sound speed: explicit/fluid.hpp).
PmlProfile pml_profile(const Model& model, double speed = 0.0);

// Checks a pml layer against the model (absorbing.cpp's check_layer calls it): faces only (no
// element set), each face a boundary of the mesh (its nodes on the face span it), the thickness
// at least two elements of the layer along the face's axis, R in (0, 1), p in [0, 1), a design
// frequency. Throws tremor::Error naming the layer's file and line.
void check_pml_layer(const Model& model, const AbsorbingLayer& layer);

// The nodes on the faces a pml layer lines, in order: the run holds them fixed. The wave reaching
// the layer's outer face has lost ln(1 / R) there and back, so what it sees there does not matter
// to the absorption; held fixed, as SPECFEM terminates its C-PML, the layer has no free outer
// edge, where a free surface running into the layer otherwise meets it in a corner that supports
// a slowly growing mode (docs/model-file.md, "PML").
std::vector<Index> pml_outer_nodes(const Model& model);

// The model's elements that have a node inside a pml layer, in global order.
std::vector<Index> pml_elements(const Model& model, const PmlProfile& profile);

// The largest grid-damping beta of the model's elements in the layer (PmlProfile::element_beta of
// each of pml_elements'), what the kernels take; 0 without grid damping or such elements.
double largest_element_beta(const Model& model, const PmlProfile& profile);

// One line per layer for the pre-flight and `tremor info`: faces, thickness, d0, alpha_max, N, R
// (`profile`: pml_profile(model)).
std::vector<std::string> describe_pml(const Model& model, const PmlProfile& profile);

}  // namespace tremor
