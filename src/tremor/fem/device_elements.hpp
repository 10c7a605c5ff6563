#pragma once
// DeviceElements: the mesh and its sections in the memory of one Exec (a GPU's for a Cuda Exec),
// what every element-by-element kernel reads: the matrix-free stiffness action
// (explicit/operator.hpp), the batched element matrices (sparse/element_batch.hpp), the two-kernel
// assembly (sparse/two_kernel.hpp) and the element survey. Built once on the host from the mesh,
// the section table (sections.hpp) and an element colouring (colouring.hpp); uploaded, then
// read-only. ElementArrays is what one block's kernel captures of it; gather_coordinates(),
// gather_values() and scatter_add() are the gather and scatter of element evaluation
// (element_matrices.hpp).
//
// Sizes: coordinates 8 B x dim per node; per element its nodes (4 B each), section (4 B),
// stiffness factor and damping (8 B each) and place in its block's colour lists (4 B); per
// section D (36 doubles, n_voigt^2 used, row-major), thickness and density (8 B each) and its
// law's kind (4 B, laws.hpp).
#include <cstddef>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/exec.hpp"
#include "tremor/core/config.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/colouring.hpp"
#include "tremor/fem/laws.hpp"
#include "tremor/fem/sections.hpp"
#include "tremor/mesh/element_type.hpp"
#include "tremor/mesh/mesh.hpp"

namespace tremor::fem {

// One element block: a single (type, order), so a launch over it is homogeneous.
struct DeviceElementBlock {
  ElementType type = ElementType::Tri3;
  int order = 1;
  int n_element_nodes = 0;
  Index n_elements = 0;
  Index first = 0;                       // global index of the block's first element
  DeviceArray<Index> connectivity;       // n_element_nodes per element, as ElementBlock
  DeviceArray<int> section;              // per element of the block: index into D, thickness, density
  DeviceArray<double> stiffness_factor;  // per element: the absorbing layers' K_e scale, 1 elsewhere
  DeviceArray<double> alpha;             // per element: mass-proportional damping, s^-1 (SectionTable::alpha)
  DeviceArray<Index> colour_elements;    // the block's elements (indices within it) grouped by colour
  std::vector<Index> colour_offsets;     // host: n_colours + 1, into colour_elements

  // Elements of colour c: in(c)[0 .. n_in(c)), a pointer into the Exec's memory.
  Index n_in(int colour) const {
    return colour_offsets[static_cast<std::size_t>(colour) + 1] - colour_offsets[static_cast<std::size_t>(colour)];
  }
  const Index* in(int colour) const {
    return colour_elements.data() + colour_offsets[static_cast<std::size_t>(colour)];
  }
};

struct DeviceElements {
  DeviceElements() = default;
  // Throws tremor::Error when the table or the colouring was not built for this mesh. An empty
  // colouring (ElementColouring{}) gives no colour lists (n_colours 0): enough for kernels that
  // add with atomics (RaceStrategy::Atomics), and it spares the host the colouring of a large mesh.
  DeviceElements(const Exec& exec, const Mesh& mesh, const SectionTable& table, const ElementColouring& colouring);

  Exec exec = Exec::serial();  // the Exec whose memory holds the arrays
  int dim = 3;
  int n_voigt = 6;
  Index n_nodes = 0;
  int n_colours = 0;
  DeviceArray<double> coordinates;  // dim per node, node-major
  std::vector<DeviceElementBlock> blocks;
  DeviceArray<double> D;          // material_stride per section, n_voigt x n_voigt row-major in the first n_voigt^2
  DeviceArray<int> law;           // per section: its LawKind (law_kind of its D)
  DeviceArray<double> thickness;  // per section (1 in 3D)
  DeviceArray<double> density;    // per section
  // Per section its standard linear solids (SectionTable::solids, on the host: a few values per
  // section, made into a step's coefficients by the operators that keep memory variables); empty
  // where no section attenuates.
  std::vector<SectionSolids> solids;
  bool attenuates() const { return !solids.empty(); }
  // Per section where some samples a grid field (SectionTable::fields, on the host: what the
  // elements that take it at their points sample it with, point_materials.hpp); else empty.
  std::vector<RowField> fields;

  Index n_dofs() const { return n_nodes * dim; }
  MaterialView<double> material() const { return {D.data(), law.data()}; }
  Index n_elements() const;
  int n_sections() const { return static_cast<int>(thickness.size()); }
  // Memory held by all arrays.
  std::size_t bytes() const;
};

// One block's arrays and its sections, as the element kernels capture them.
struct ElementArrays {
  const double* coordinates;
  const Index* connectivity;
  const int* section;
  const double* factor;
  MaterialView<double> material;
  const double* thickness;
  const double* density;
  const double* alpha;  // per element: mass-proportional damping (the lumped damping's weight)
};

inline ElementArrays arrays_of(const DeviceElements& elements, const DeviceElementBlock& block) {
  return {elements.coordinates.data(), block.connectivity.data(), block.section.data(),
          block.stiffness_factor.data(), elements.material(),       elements.thickness.data(),
          elements.density.data(), block.alpha.data()};
}

// The element's node coordinates, node-major (x[a * dim + c]), as fem's kernels take them.
template <class E>
TREMOR_HOST_DEVICE inline void gather_coordinates(const double* coordinates, const Index* nodes, double* x) {
  for (int a = 0; a < E::n_nodes; ++a)
    for (int c = 0; c < E::dim; ++c) x[a * E::dim + c] = coordinates[static_cast<Size>(nodes[a]) * E::dim + c];
}

// The element's nodal values of a field with dim components per node, node-major, in double.
template <class E, class Real>
TREMOR_HOST_DEVICE inline void gather_values(const Real* field, const Index* nodes, double* u) {
  for (int a = 0; a < E::n_nodes; ++a)
    for (int c = 0; c < E::dim; ++c) u[a * E::dim + c] = static_cast<double>(field[static_cast<Size>(nodes[a]) * E::dim + c]);
}

// field += factor * f at the element's nodes, plain adds (the caller's elements share no node: one
// colour, or one thread on the host).
template <class E, class Real>
TREMOR_HOST_DEVICE inline void scatter_add(Real* field, const Index* nodes, double factor, const double* f) {
  for (int a = 0; a < E::n_nodes; ++a)
    for (int c = 0; c < E::dim; ++c)
      field[static_cast<Size>(nodes[a]) * E::dim + c] += static_cast<Real>(factor * f[a * E::dim + c]);
}

// Throws unless exec runs where `elements` live.
inline void check_space(const Exec& exec, const DeviceElements& elements, const char* what) {
  TREMOR_CHECK(exec.space() == elements.exec.space() &&
                   (exec.space() == MemorySpace::Host || exec.device() == elements.exec.device()),
               what, ": the elements live in the memory of ", elements.exec.describe(), ", ", exec.describe(),
               " cannot run on them");
}

}  // namespace tremor::fem
