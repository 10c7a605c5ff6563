#include "tremor/sparse/assemble.hpp"

#include <algorithm>
#include <exception>

#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/geometry.hpp"
#include "tremor/fem/point_materials.hpp"
#include "tremor/fem/colouring.hpp"

namespace tremor::sparse {

namespace {

std::string prefix(const Model& model) { return model.source.empty() ? std::string() : str(model.source, ": "); }

void check_host(const Exec& exec, const char* what) {
  TREMOR_CHECK(exec.space() == MemorySpace::Host, what, " runs on the host; ", exec.describe(), " was given");
}

// Runs body(E{}, block, element, thread buffer) over every element, colour by colour, blocks in
// order within a colour, in parallel within one (colour, block) when exec is OpenMP. Elements of
// one colour share no node, so the body may add into nodal arrays.
template <class Body>
void for_each_element_coloured(const Exec& exec, const Mesh& mesh, const fem::ElementColouring& colouring, Body body) {
  const bool parallel = exec.backend() == Backend::OpenMP;
  for (int c = 0; c < colouring.n_colours; ++c)
    for (int b = 0; b < mesh.n_blocks(); ++b) {
      const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(b)];
      const Index n = colouring.n_in(b, c);
      const Index* elements = colouring.in(b, c);
      if (n == 0) continue;
      fem::with_element(block.type, block.order, [&](auto element) {
        // An exception must not leave the parallel region: the one of the lowest element is kept
        // (the same message whatever the thread count) and rethrown after it.
        std::exception_ptr error;
        Index error_at = n;
#pragma omp parallel if (parallel)
        {
          std::vector<double> buffer;  // per thread: element coordinates, matrices
#pragma omp for schedule(static)
          for (Index i = 0; i < n; ++i) {
            try {
              body(element, b, elements[i], buffer);
            } catch (...) {
#pragma omp critical(tremor_assembly_error)
              if (i < error_at) {
                error_at = i;
                error = std::current_exception();
              }
            }
          }
        }
        if (error) std::rethrow_exception(error);
      });
    }
}

// Lumped nodal mass of every element, times weight(table, global element), added into per-DOF values.
template <class Weight>
std::vector<double> assemble_lumped(const Model& model, const fem::SectionTable& table, const fem::ElementColouring& colouring,
                                    const Exec& exec, Weight weight) {
  check_host(exec, "lumped mass assembly");
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim();
  std::vector<double> lumped(static_cast<std::size_t>(mesh.n_nodes()) * static_cast<std::size_t>(dim), 0.0);
  std::vector<Index> first(mesh.blocks.size(), 0);  // global index of each block's first element
  for (std::size_t b = 1; b < first.size(); ++b) first[b] = first[b - 1] + mesh.blocks[b - 1].n_elements();
  // A material field's density at the nodes of the elements that take it there, over the row's.
  std::vector<std::vector<double>> ratios(mesh.blocks.size());
  for (std::size_t b = 0; b < mesh.blocks.size() && !table.fields.empty(); ++b) {
    const ElementBlock& block = mesh.blocks[b];
    const std::span<const int> rows(table.element_section.data() + first[b],
                                    static_cast<std::size_t>(block.n_elements()));
    ratios[b] = fem::density_ratios(
        fem::point_materials(table.fields, dim, mesh.coordinates, block.type, block.order, block.connectivity, rows),
        table.fields, rows);
  }
  for_each_element_coloured(exec, mesh, colouring, [&](auto element, int b, Index e, std::vector<double>& buffer) {
    using E = decltype(element);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(b)];
    const auto nodes = block.nodes(e);
    buffer.resize(static_cast<std::size_t>(E::n_nodes * (E::dim + 1)));
    double* x = buffer.data();
    double* m = x + E::n_nodes * E::dim;
    mesh.element_coordinates(block, e, x);
    const auto global = static_cast<std::size_t>(first[static_cast<std::size_t>(b)] + e);
    const auto s = static_cast<std::size_t>(table.element_section[global]);
    const std::vector<double>& ratio = ratios[static_cast<std::size_t>(b)];
    fem::lumped_mass<E>(x, table.density[s] * table.thickness[s], fem::lumping_rule<E>(), m,
                        ratio.empty() ? nullptr : ratio.data() + static_cast<std::size_t>(e) * E::n_nodes);
    const double w = weight(table, global);
    for (int a = 0; a < E::n_nodes; ++a)
      for (int c = 0; c < dim; ++c)
        lumped[static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)]) * static_cast<std::size_t>(dim) +
               static_cast<std::size_t>(c)] += w * m[a];
  });
  return lumped;
}

}  // namespace

CsrMatrix assemble_stiffness(const Model& model, const Exec& exec) {
  return assemble_stiffness(model, fem::section_table(model), fem::colour_elements(model.mesh), exec);
}

CsrMatrix assemble_stiffness(const Model& model, const fem::SectionTable& table, const fem::ElementColouring& colouring,
                             const Exec& exec) {
  check_host(exec, "stiffness assembly");
  const Mesh& mesh = model.mesh;
  CsrMatrix K = stiffness_pattern(mesh);
  const int dim = mesh.dim();
  std::vector<Index> first(mesh.blocks.size(), 0);
  for (std::size_t b = 1; b < first.size(); ++b) first[b] = first[b - 1] + mesh.blocks[b - 1].n_elements();
  for_each_element_coloured(exec, mesh, colouring, [&](auto element, int b, Index e, std::vector<double>& buffer) {
    using E = decltype(element);
    constexpr int n_dof = E::n_nodes * E::dim;
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(b)];
    const auto nodes = block.nodes(e);
    // K_e can be large (hex-gll8: 2187^2 doubles), so it lives in the thread's heap buffer.
    buffer.resize(static_cast<std::size_t>(n_dof + n_dof * n_dof));
    double* x = buffer.data();
    double* Ke = x + n_dof;
    mesh.element_coordinates(block, e, x);
    const Index global = first[static_cast<std::size_t>(b)] + e;
    const auto s = static_cast<std::size_t>(table.element_section[static_cast<std::size_t>(global)]);
    const double min_det = fem::element_stiffness<E>(x, table.D[s].data(), table.thickness[s], Ke);
    // check_geometry() has passed; this guards the invariant at the quadrature points used here.
    TREMOR_CHECK(min_det > 0.0, prefix(model), "element ", mesh.element_label(global), " (",
                 element_name(block.type, block.order), ") is inverted: det J = ", min_det);
    // An absorbing layer's stiffness factor scales D, so K_e, as a whole.
    const double factor = table.stiffness_factor(static_cast<std::size_t>(global));
    if (factor != 1.0)
      for (int k = 0; k < n_dof * n_dof; ++k) Ke[k] *= factor;
    for (int a = 0; a < E::n_nodes; ++a) {
      const Index row_node = nodes[static_cast<std::size_t>(a)];
      for (int bn = 0; bn < E::n_nodes; ++bn) {
        const Index col_node = nodes[static_cast<std::size_t>(bn)];
        for (int i = 0; i < dim; ++i) {
          // The dim columns of node col_node are consecutive in every row of the pattern.
          const Size k = K.find(row_node * dim + i, col_node * dim);
          TREMOR_ASSERT(k >= 0);
          for (int j = 0; j < dim; ++j)
            K.values[static_cast<std::size_t>(k + j)] += Ke[(a * dim + i) * n_dof + bn * dim + j];
        }
      }
    }
  });
  return K;
}

std::vector<double> assemble_lumped_mass(const Model& model, const fem::SectionTable& table,
                                         const fem::ElementColouring& colouring, const Exec& exec) {
  return assemble_lumped(model, table, colouring, exec, [](const fem::SectionTable&, std::size_t) { return 1.0; });
}

std::vector<double> assemble_lumped_mass(const Model& model, const Exec& exec) {
  return assemble_lumped_mass(model, fem::section_table(model), fem::colour_elements(model.mesh), exec);
}

std::vector<double> assemble_lumped_damping(const Model& model, const fem::SectionTable& table,
                                            const fem::ElementColouring& colouring, const Exec& exec) {
  return assemble_lumped(model, table, colouring, exec,
                         [](const fem::SectionTable& t, std::size_t e) { return t.alpha(e); });
}

std::vector<double> assemble_lumped_damping(const Model& model, const Exec& exec) {
  return assemble_lumped_damping(model, fem::section_table(model), fem::colour_elements(model.mesh), exec);
}

}  // namespace tremor::sparse
