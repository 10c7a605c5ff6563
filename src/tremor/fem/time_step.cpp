#include "tremor/fem/time_step.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/fem/element_survey.hpp"
#include "tremor/model/material_field.hpp"

namespace tremor::fem {

namespace {

constexpr int dense_limit = 200;

// fits_survey elements: the device survey's own function (element_survey.hpp), so both give the
// same bits; larger ones with K_e on the heap (up to dense_limit DOFs) or matrix-free.
template <class E>
double max_eigenvalue(const double* x, const double* D, double density, double thickness) {
  if constexpr (fits_survey<E>) return max_eigenvalue_dense<E>(x, D, density, thickness);
  constexpr int n_dof = E::n_nodes * E::dim;
  double m[E::n_nodes];
  lumped_mass<E>(x, density * thickness, m);
  std::vector<double> inv_sqrt(n_dof);
  for (int i = 0; i < n_dof; ++i) inv_sqrt[static_cast<std::size_t>(i)] = 1.0 / std::sqrt(m[i / E::dim]);
  const StiffnessRule<E> rule = stiffness_rule<E>();
  if constexpr (n_dof <= dense_limit) {
    std::vector<double> K(static_cast<std::size_t>(n_dof) * n_dof);
    if (!(element_stiffness<E>(x, D, thickness, rule, K.data()) > 0.0)) return -1.0;
    for (int r = 0; r < n_dof; ++r)
      for (int c = 0; c < n_dof; ++c)
        K[static_cast<std::size_t>(r) * n_dof + c] *= inv_sqrt[static_cast<std::size_t>(r)] * inv_sqrt[static_cast<std::size_t>(c)];
    return largest_eigenvalue<n_dof>([&](const double* v, double* w) {
      for (int r = 0; r < n_dof; ++r) {
        double sum = 0.0;
        const double* row = K.data() + static_cast<std::size_t>(r) * n_dof;
        for (int c = 0; c < n_dof; ++c) sum += row[c] * v[c];
        w[r] = sum;
      }
    });
  } else {
    for (int q = 0; q < rule.n_points; ++q)
      if (!(jacobian_determinant<E>(x, rule.point(q)) > 0.0)) return -1.0;
    std::vector<double> u(n_dof);
    return largest_eigenvalue<n_dof>([&](const double* v, double* w) {
      for (int i = 0; i < n_dof; ++i) u[static_cast<std::size_t>(i)] = v[i] * inv_sqrt[static_cast<std::size_t>(i)];
      apply_element_stiffness<E>(x, AnisotropicLaw<E::dim, double>{D}, thickness, rule, u.data(), w);
      for (int i = 0; i < n_dof; ++i) w[i] *= inv_sqrt[static_cast<std::size_t>(i)];
    });
  }
}

}  // namespace

double element_max_eigenvalue(ElementType type, int order, std::span<const double> x, std::span<const double> D,
                              double density, double thickness) {
  return with_element(type, order, [&](auto element) {
    using E = decltype(element);
    TREMOR_CHECK(x.size() == static_cast<std::size_t>(E::n_nodes * E::dim), "element_max_eigenvalue: ",
                 x.size(), " coordinates for a ", element_name(type, order));
    TREMOR_CHECK(D.size() == static_cast<std::size_t>(voigt_size<E::dim> * voigt_size<E::dim>),
                 "element_max_eigenvalue: constitutive matrix of ", D.size(), " entries in ", E::dim, "D");
    return max_eigenvalue<E>(x.data(), D.data(), density, thickness);
  });
}

TimeStepEstimate stable_time_step(const Model& model) {
  model.refuse_fluids("the elements' stable step");
  const Mesh& mesh = model.mesh;
  // A row per section and per distinct sample of a material field (model/material_field.hpp).
  const ElementMaterials materials = element_materials(model);
  const std::vector<int>& owner = materials.element_row;
  TimeStepEstimate best{0.0, -1, 0};
  double best_lambda = -1.0;
  Index first = 0;  // global index of the block's first element
  // Constitutive matrices and densities per row, made once on the host.
  const std::size_t n_rows = materials.rows.size();
  std::vector<std::vector<double>> D(n_rows);
  std::vector<double> density(n_rows), thickness(n_rows);
  for (std::size_t s = 0; s < n_rows; ++s) {
    const Section& section = model.sections[static_cast<std::size_t>(materials.row_section[s])];
    const Material& material = materials.rows[s];
    density[s] = material.density;
    thickness[s] = mesh.dim() == 2 ? section.thickness : 1.0;
    if (mesh.dim() == 2) {
      const Voigt3 plane = plane_stiffness(material, section.formulation);
      D[s].assign(plane.begin(), plane.end());
    } else {
      D[s].assign(material.stiffness.begin(), material.stiffness.end());
    }
  }
  for (const ElementBlock& block : mesh.blocks) {
    const Index n = block.n_elements();
    for (Index e = 0; e < n; ++e)
      TREMOR_CHECK(owner[static_cast<std::size_t>(first + e)] >= 0, model.source, ": element ",
                   block.labels[static_cast<std::size_t>(e)], " has no section (no material)");
    std::vector<double> lambda(static_cast<std::size_t>(n));
    with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      TREMOR_CHECK(E::dim == mesh.dim(), model.source, ": ", element_name(block.type, block.order),
                   " elements in a ", mesh.dim(), "D mesh");
#pragma omp parallel for schedule(dynamic, 16)
      for (Index e = 0; e < n; ++e) {
        double x[E::n_nodes * E::dim];
        mesh.element_coordinates(block, e, x);
        const auto s = static_cast<std::size_t>(owner[static_cast<std::size_t>(first + e)]);
        lambda[static_cast<std::size_t>(e)] = max_eigenvalue<E>(x, D[s].data(), density[s], thickness[s]);
      }
    });
    for (Index e = 0; e < n; ++e) {
      const double value = lambda[static_cast<std::size_t>(e)];
      TREMOR_CHECK(value > 0.0, model.mesh_source(), ": element ", block.labels[static_cast<std::size_t>(e)],
                   " (", element_name(block.type, block.order),
                   ") has no positive stiffness eigenvalue: it is inverted or degenerate");
      if (value > best_lambda) {
        best_lambda = value;
        best = {2.0 / std::sqrt(value), first + e, block.labels[static_cast<std::size_t>(e)]};
      }
    }
    first += n;
  }
  TREMOR_CHECK(best_lambda > 0.0, model.source, ": no elements to estimate a time step from");
  return best;
}

}  // namespace tremor::fem
