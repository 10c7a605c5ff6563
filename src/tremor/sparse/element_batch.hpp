#pragma once
// Element matrices of many elements at once (element-matrices paper, section 3: one element per
// thread, every element's matrix written to its own place in one output array). One block per
// call, so the launch is homogeneous and templated on the element type (fem/dispatch.hpp); the
// kernel bodies are fem/element_matrices.hpp's, on the Exec's backend: the same code on the CPU
// and the GPU, in double.
//
// Output: element-major, element e of the block at e * values_per_element(...). Symmetric
// matrices may be stored as their upper triangle, row by row (the paper's symmetric output,
// section 3.2.2): entries (r, c), c >= r, of row 0, then row 1, ... : n_dof (n_dof + 1) / 2
// values instead of n_dof^2 (300 instead of 576 for hex8).
#include <cstddef>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/fem/device_elements.hpp"

namespace tremor::sparse {

enum class ElementMatrix {
  Stiffness,       // factor_e K_e: fem::element_stiffness (default rule) times the element's absorbing factor
  ConsistentMass,  // the DOF matrix of fem::consistent_mass (rho * thickness): M_ab delta_cd
  LumpedMass,      // the diagonal of the lumped DOF matrix (fem::lumped_mass): n_dof values, storage ignored
};

enum class MatrixStorage { Full, Upper };

// Values stored per element: n_dof^2 (Full), n_dof (n_dof + 1) / 2 (Upper), n_dof (LumpedMass).
Size values_per_element(ElementMatrix matrix, MatrixStorage storage, int n_dof);

// The matrices of every element of block `block` of `elements`, computed on exec (whose memory
// must hold `elements`; the result is there too). Throws tremor::Error when the output would
// exceed 2^31 - 1 values (e.g. more than 3.7M hex8 stiffness matrices at once: call per block).
DeviceArray<double> element_matrices(const Exec& exec, const fem::DeviceElements& elements, int block,
                                     ElementMatrix matrix, MatrixStorage storage);
// The same into `out`: n_elements x values_per_element doubles in exec's memory.
void element_matrices(const Exec& exec, const fem::DeviceElements& elements, int block, ElementMatrix matrix,
                      MatrixStorage storage, double* out);

}  // namespace tremor::sparse
