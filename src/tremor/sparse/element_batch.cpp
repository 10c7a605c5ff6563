#include "tremor/sparse/element_batch.hpp"


#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/sparse/element_kernels.hpp"

namespace tremor::sparse {

namespace {

using detail::fits_local;
using detail::local_doubles;

using fem::ElementArrays;

// Stiffness of every element of the block (element-matrices paper, section 3.1, Eq. 5; one
// thread per element, section 3.2): gather -> fem::element_stiffness -> times the absorbing
// factor -> store. Full: the matrix is built in the thread's memory and written once (hex8,
// tet10), or built in place in the output (larger). Upper: built in the thread's memory or its
// workspace slot, then the upper triangle stored.
// Traffic per element: n_nodes indices (4 B), n_nodes * dim coordinates, D (n_voigt^2) and
// thickness, section (4 B), factor (8 B) read; n_values doubles written (plus the n_dof^2
// workspace doubles written and read for a large element's Upper).
template <class E>
void stiffness_batch(const Exec& exec, fem::ElementArrays in, Index n_elements, bool upper, double* out,
                     detail::Workspace& workspace) {
  constexpr int dim = E::dim, n_dof = E::n_nodes * dim, N = n_dof * n_dof;
  const fem::StiffnessRule<E> rule = fem::stiffness_rule<E>();
  const Size n_values = upper ? Size(n_dof) * (n_dof + 1) / 2 : Size(N);
  const Size per_item = upper && !fits_local<N> ? N : 0;
  const Index chunk = workspace.chunk_items(n_elements, per_item);
  double* scratch = workspace.reserve(per_item * chunk);
  for (Index begin = 0; begin < n_elements; begin += chunk) {
    const Index count = n_elements - begin < chunk ? n_elements - begin : chunk;
    forall(exec, count, [=] TREMOR_LAMBDA(Index i) {
      const Index e = begin + i;
      double x[n_dof];
      fem::gather_coordinates<E>(in.coordinates, in.connectivity + static_cast<Size>(e) * E::n_nodes, x);
      double* target = out + static_cast<Size>(e) * n_values;
      double local[local_doubles<N>];
      double* K = fits_local<N> ? local : (upper ? scratch + static_cast<Size>(i) * N : target);
      const int s = in.section[e];
      fem::element_stiffness<E>(x, in.material.voigt(s), in.thickness[s], rule, K);
      const double f = in.factor[e];
      if (upper) {
        Size k = 0;
        for (int r = 0; r < n_dof; ++r)
          for (int c = r; c < n_dof; ++c) target[k++] = f * K[r * n_dof + c];
      } else if (fits_local<N>) {
        for (int k = 0; k < N; ++k) target[k] = f * K[k];
      } else if (f != 1.0) {
        for (int k = 0; k < N; ++k) target[k] *= f;
      }
    });
  }
}

// Consistent mass of every element (section 3.1, Eq. 6): fem::consistent_mass (the scalar
// n_nodes^2 matrix, in the thread's memory or its workspace slot), then the DOF matrix
// (fem::consistent_mass_dofs straight into the output for Full; its upper triangle for Upper).
// Traffic per element: n_nodes indices, n_nodes * dim coordinates, density and thickness read;
// n_values doubles written.
template <class E>
void mass_batch(const Exec& exec, fem::ElementArrays in, Index n_elements, bool upper, double* out,
                detail::Workspace& workspace) {
  constexpr int n = E::n_nodes, dim = E::dim, n_dof = n * dim, N = n * n;
  const fem::MassRule<E> rule = fem::mass_rule<E>();
  const Size n_values = upper ? Size(n_dof) * (n_dof + 1) / 2 : Size(n_dof) * n_dof;
  const Size per_item = fits_local<N> ? 0 : N;
  const Index chunk = workspace.chunk_items(n_elements, per_item);
  double* scratch = workspace.reserve(per_item * chunk);
  for (Index begin = 0; begin < n_elements; begin += chunk) {
    const Index count = n_elements - begin < chunk ? n_elements - begin : chunk;
    forall(exec, count, [=] TREMOR_LAMBDA(Index i) {
      const Index e = begin + i;
      double x[n_dof];
      fem::gather_coordinates<E>(in.coordinates, in.connectivity + static_cast<Size>(e) * n, x);
      double local[local_doubles<N>];
      double* M = fits_local<N> ? local : scratch + static_cast<Size>(i) * N;
      const int s = in.section[e];
      fem::consistent_mass<E>(x, in.density[s] * in.thickness[s], rule, M);
      double* target = out + static_cast<Size>(e) * n_values;
      if (!upper) {
        fem::consistent_mass_dofs<E>(M, target);
        return;
      }
      Size k = 0;  // the entries of consistent_mass_dofs: M_ab on equal components, 0 elsewhere
      for (int r = 0; r < n_dof; ++r)
        for (int c = r; c < n_dof; ++c) target[k++] = r % dim == c % dim ? M[(r / dim) * n + c / dim] : 0.0;
    });
  }
}

// Lumped mass of every element (section 3.2.2, the diagonal only): fem::lumped_mass with the
// element's default lumping, the nodal value repeated for each component.
// Traffic per element: as mass_batch's reads; n_dof doubles written.
template <class E>
void lumped_batch(const Exec& exec, fem::ElementArrays in, Index n_elements, double* out) {
  constexpr int n = E::n_nodes, dim = E::dim, n_dof = n * dim;
  const fem::LumpingRule<E> rule = fem::lumping_rule<E>();
  forall(exec, n_elements, [=] TREMOR_LAMBDA(Index e) {
    double x[n_dof], m[n];
    fem::gather_coordinates<E>(in.coordinates, in.connectivity + static_cast<Size>(e) * n, x);
    const int s = in.section[e];
    fem::lumped_mass<E>(x, in.density[s] * in.thickness[s], rule, m);
    double* target = out + static_cast<Size>(e) * n_dof;
    for (int a = 0; a < n; ++a)
      for (int c = 0; c < dim; ++c) target[a * dim + c] = m[a];
  });
}

}  // namespace

Size values_per_element(ElementMatrix matrix, MatrixStorage storage, int n_dof) {
  const Size d = n_dof;
  if (matrix == ElementMatrix::LumpedMass) return d;
  return storage == MatrixStorage::Upper ? d * (d + 1) / 2 : d * d;
}

namespace {

const fem::DeviceElementBlock& block_of(const fem::DeviceElements& elements, int block) {
  TREMOR_CHECK(block >= 0 && block < static_cast<int>(elements.blocks.size()), "element matrices: block ", block,
               " of ", elements.blocks.size());
  return elements.blocks[static_cast<std::size_t>(block)];
}

}  // namespace

DeviceArray<double> element_matrices(const Exec& exec, const fem::DeviceElements& elements, int block,
                                     ElementMatrix matrix, MatrixStorage storage) {
  const fem::DeviceElementBlock& b = block_of(elements, block);
  const Size per_element = values_per_element(matrix, storage, b.n_element_nodes * elements.dim);
  const Size total = per_element * b.n_elements;
  TREMOR_CHECK(total <= Size(2147483647), "element matrices: ", b.n_elements, " elements x ", per_element,
               " values exceed the 2^31 - 1 values of one array; compute fewer elements per call");
  DeviceArray<double> out(exec, static_cast<Index>(total));
  element_matrices(exec, elements, block, matrix, storage, out.data());
  return out;
}

void element_matrices(const Exec& exec, const fem::DeviceElements& elements, int block, ElementMatrix matrix,
                      MatrixStorage storage, double* out) {
  fem::check_space(exec, elements, "element matrices");
  const fem::DeviceElementBlock& b = block_of(elements, block);
  const fem::ElementArrays in = fem::arrays_of(elements, b);
  const bool upper = storage == MatrixStorage::Upper;
  detail::Workspace workspace(exec);
  fem::with_element(b.type, b.order, [&](auto element) {
    using E = decltype(element);
    switch (matrix) {
      case ElementMatrix::Stiffness: return stiffness_batch<E>(exec, in, b.n_elements, upper, out, workspace);
      case ElementMatrix::ConsistentMass: return mass_batch<E>(exec, in, b.n_elements, upper, out, workspace);
      case ElementMatrix::LumpedMass: return lumped_batch<E>(exec, in, b.n_elements, out);
    }
  });
}

}  // namespace tremor::sparse
