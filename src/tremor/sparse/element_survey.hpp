#pragma once
// The pre-flight's pass over every element on the Exec that holds them (a GPU's memory for CUDA):
// the stable time step (fem/time_step.hpp: 2 / sqrt of the largest lambda_max(M_e^-1 K_e)), the
// longest element (the wavelength check) and the geometry check (fem/geometry.hpp). One thread per
// element (fem/element_survey.hpp), three doubles per element copied back and reduced on the host
// in element order, so the element named is the one the host functions name. Elements too large
// for a thread's K_e (hex20, hex27 and the GLL elements of higher order) are measured on the host.
//
// On a host Exec the results are those of fem::stable_time_step, fem::element_sizes and
// fem::check_geometry bit for bit (the same functions); on a GPU to rounding.
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/model/model.hpp"
#include "tremor/sparse/assemble.hpp"
#include "tremor/fem/device_elements.hpp"

namespace tremor::sparse {

struct ElementSurvey {
  double stable_dt = 0.0;     // s: 2 / sqrt(max lambda_e)
  Index stable_element = -1;  // global index of the element setting it
  double largest_element = 0.0;  // m: longest vertex distance of any element
  // The element that resolves its slowest wave worst (the largest longest vertex distance over its
  // material's slowest wave speed: a material field's sample, or its section's): that distance and
  // that speed, for the points-per-wavelength check that follows the local speeds.
  double coarsest_element = 0.0;  // m
  double coarsest_speed = 0.0;    // m/s
};

// Throws tremor::Error naming the element (by fem::check_geometry's message, or time_step's) when
// an element is inverted, degenerate, has a non-finite coordinate or no positive eigenvalue.
// `elements` must have been built from model.mesh and `table` (fem::section_table(model, false): the
// survey is the geometry check).
// eigenvalues false: sizes and geometry only, stable_dt left 0 (the caller estimates the step
// globally: explicit_fe's stable step of high-order GLL meshes).
ElementSurvey survey_elements(const Exec& exec, const fem::DeviceElements& elements, const Model& model,
                              const fem::SectionTable& table, bool eigenvalues = true);

}  // namespace tremor::sparse
