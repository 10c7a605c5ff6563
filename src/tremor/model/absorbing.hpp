#pragma once
// Absorbing boundary layers for the explicit solver: regions where mass-proportional damping
// alpha grows from 0 at the inner edge to alpha_max at the outer edge, so that waves entering
// them die out before they come back (pogo paper section 4.3, "d = 500 (x/L)^3", after
// Rajagopal et al. 2012, "absorbing layers with increasing damping", ALID). Two kinds:
//
//   alid  alpha(X) = alpha_max X^p, stiffness unchanged;
//   srm   the same alpha, and the stiffness scaled by s(X) = 1 / sqrt(1 + (alpha(X) / omega0)^2)
//         (the stiffness reduction method of Pettit et al. 2014: stiffness falls while damping
//         rises). With mass-proportional damping the element's effective density at omega0 is
//         rho (1 - i alpha / omega0), so |Z| = sqrt(|rho_eff| s E) stays the impedance of the
//         undamped medium: the layer is matched in magnitude at every depth, and the wave slows
//         down inside it (|k| grows by |1 - i alpha / omega0|), so it is absorbed over a shorter
//         distance than with damping alone.
//
// X = d / L in [0, 1] is the depth of the element's centroid into the layer over its thickness L
// (the pogo paper's "fraction of the total depth into the absorbing region"), with omega0 = 2 pi f0
// at the design frequency f0. A layer is one of:
//
//   faces of the mesh's bounding box (xmin ... zmax) and a thickness L: d is the centroid's
//     distance inside the plane at L from the face; in a corner, the largest over the faces;
//   an element set and a thickness L: d is the distance from the centroid to the nearest node
//     the set shares with the rest of the mesh (the layer's inner boundary), capped at L;
//   both: the faces' depth, for the elements of the set only.
//
// Where layers overlap, an element takes the largest alpha and the smallest stiffness factor.
// Element alphas add to the material's own damping_alpha.
//
// A third kind, pml (a convolutional perfectly matched layer on faces of the bounding box), is no
// damping profile: model/pml.hpp resolves it and explicit/pml.hpp steps it. absorbing_profile
// leaves its elements at 0 and 1.
#include <string>
#include <string_view>
#include <vector>

namespace tremor {

struct Model;
struct Signal;

enum class AbsorbingKind : int { Alid, Srm, Pml };
std::string_view to_string(AbsorbingKind kind);

enum class BoxFace : int { XMin, XMax, YMin, YMax, ZMin, ZMax };
std::string_view to_string(BoxFace face);
inline int axis_of(BoxFace face) { return static_cast<int>(face) / 2; }
inline bool is_upper(BoxFace face) { return static_cast<int>(face) % 2 == 1; }

struct AbsorbingLayer {
  AbsorbingKind kind = AbsorbingKind::Alid;
  std::vector<BoxFace> faces;  // of the mesh's bounding box
  std::string element_set;     // empty: every element within `thickness` of the faces
  double thickness = 0.0;      // L, m
  double power = 3.0;          // p (Rajagopal et al. found 3 the best compromise; the pogo paper uses 3)
  double alpha_max = 0.0;      // s^-1; 0: default_alpha_max(power, f0)
  double frequency = 0.0;      // f0, Hz; 0: the sources' highest frequency (highest_source_frequency);
                               // pml: their lowest centre frequency (model/pml.hpp)
  // pml only (model/pml.hpp): the reflection the layer is designed for at normal incidence (0:
  // default_pml_reflection), and the multi-axial ratio p (the other directions stretched by p
  // times the layer's own damping; 0: none).
  double reflection = 0.0;
  double multiaxial = 0.0;
  // pml only: the grid damping eta of the layer's grid-scale motion (model/pml.hpp; negative: the
  // default, default_pml_grid_damping).
  double grid_damping = -1.0;
  std::string origin;          // "file:line" it came from, for messages
};

// Per global element: the layers' added damping and stiffness factor (0 and 1 outside layers).
struct AbsorbingProfile {
  std::vector<double> alpha;             // s^-1
  std::vector<double> stiffness_factor;  // in (0, 1]
  std::vector<double> depth;             // X = d / L of the layer that set alpha (0 outside)
};

// The design frequency of `layer`: its own, else the sources' highest; throws naming the layer
// when neither exists and the layer needs one (an srm layer, or no alpha_max).
double design_frequency(const Model& model, const AbsorbingLayer& layer);

// Default alpha_max, s^-1: (p + 1) ln(1000) f0 / 1.5. In the weakly damped limit a wave in
// damping alpha decays as exp(-alpha x / (2 c)); through a layer of profile alpha_max X^p and
// back it loses exp(-alpha_max L / ((p + 1) c)). For L = 1.5 wavelengths at f0 (L = 1.5 c / f0,
// the guideline usually quoted from Rajagopal et al., below which the pre-flight warns) this
// default makes that round trip 60 dB whatever the wave speed; thicker layers absorb more.
double default_alpha_max(double power, double frequency);

// alpha_max of `layer` (its own, else the default at its design frequency).
double layer_alpha_max(const Model& model, const AbsorbingLayer& layer);

// The profile at depth X in [0, 1]: alpha_max X^p, and the srm stiffness factor (1 for alid).
double absorbing_alpha(double alpha_max, double power, double depth);
double srm_stiffness_factor(double alpha, double frequency);

// The signals of the model's [[source]]s, [[prescribed_displacement]]s and [[traction]]s (those
// that have one) and its pistons (whose loads the fluid's loading makes at the run), in that order.
std::vector<const Signal*> source_signals(const Model& model);

// Highest significant frequency of the model's time functions: the signals of [[source]],
// [[prescribed_displacement]] and [[traction]], and the *AMPLITUDE tables that loads, surface
// loads and boundary conditions use (Signal::highest_frequency); 0 when none.
double highest_source_frequency(const Model& model);

// Checks every layer against the mesh (faces within the dimension, thickness positive and at
// most the model's extent along each face's axis, element set present and not empty, power and
// frequencies positive) and computes the profile. Empty vectors when the model has no layer.
AbsorbingProfile absorbing_profile(const Model& model);

// Checks only (Model::validate calls it).
void validate_absorbing(const Model& model);

}  // namespace tremor
