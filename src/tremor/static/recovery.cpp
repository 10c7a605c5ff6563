#include "tremor/static/recovery.hpp"

#include <array>
#include <cmath>

#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_matrices.hpp"
#include "tremor/model/material_field.hpp"

namespace tremor::static_fe {

double von_mises_3d(const double* s) {
  const double a = s[0] - s[1], b = s[1] - s[2], c = s[2] - s[0];
  return std::sqrt(0.5 * (a * a + b * b + c * c) + 3.0 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]));
}

double von_mises_2d(const double* s, double sigma_zz) {
  const double full[6] = {s[0], s[1], sigma_zz, 0.0, 0.0, s[2]};
  return von_mises_3d(full);
}

namespace {

// Per row of the section table (a section's, or a material field's sample: ElementMaterials), the
// out-of-plane stress of a 2D strain (e_xx, e_yy, g_xy): the material's 3D row zz for plane strain
// (e_zz = 0), zero for plane stress.
std::vector<std::array<double, 3>> out_of_plane_rows(const Model& model) {
  std::vector<std::array<double, 3>> rows;
  const ElementMaterials materials = element_materials(model);
  for (std::size_t r = 0; r < materials.rows.size(); ++r) {
    const Section& section = model.sections[static_cast<std::size_t>(materials.row_section[r])];
    std::array<double, 3> row{0.0, 0.0, 0.0};
    if (section.formulation != Formulation::PlaneStress) {
      const auto& C = materials.rows[r].stiffness;  // 6x6 row-major, Voigt 3D
      row = {C[2 * 6 + 0], C[2 * 6 + 1], C[2 * 6 + 5]};
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

Recovery recover(const Model& model, const fem::SectionTable& table, std::span<const double> u) {
  const Mesh& mesh = model.mesh;
  const int dim = mesh.dim(), nv = table.n_voigt;
  const auto n_nodes = static_cast<std::size_t>(mesh.n_nodes());
  TREMOR_CHECK(u.size() == n_nodes * static_cast<std::size_t>(dim), "stress recovery: ", u.size(),
               " displacement values for ", n_nodes, " nodes");
  Recovery out;
  out.stress.assign(n_nodes * static_cast<std::size_t>(nv), 0.0);
  out.von_mises.assign(n_nodes, 0.0);
  out.internal_force.assign(n_nodes * static_cast<std::size_t>(dim), 0.0);
  std::vector<int> count(n_nodes, 0);
  std::vector<double> sigma_zz(dim == 2 ? n_nodes : 0, 0.0);
  const auto rows = out_of_plane_rows(model);
  Index global = 0;
  for (const ElementBlock& block : mesh.blocks) {
    fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      constexpr int n_dof = E::n_nodes * E::dim;
      const auto rule = fem::stiffness_rule<E>();
      std::vector<double> x(n_dof), ue(n_dof), f(n_dof);
      for (Index e = 0; e < block.n_elements(); ++e, ++global) {
        const auto nodes = block.nodes(e);
        for (int a = 0; a < E::n_nodes; ++a) {
          const auto node = static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)]);
          for (int c = 0; c < E::dim; ++c) {
            x[static_cast<std::size_t>(a * E::dim + c)] = mesh.node(static_cast<Index>(node))[static_cast<std::size_t>(c)];
            ue[static_cast<std::size_t>(a * E::dim + c)] = u[node * static_cast<std::size_t>(dim) + static_cast<std::size_t>(c)];
          }
        }
        const auto s = static_cast<std::size_t>(table.element_section[static_cast<std::size_t>(global)]);
        // The section's tangent: the stresses and forces of the assembled K the solution solved.
        const fem::AnisotropicLaw<E::dim, double> tangent{table.D[s].data()};
        fem::apply_element_stiffness<E>(x.data(), tangent, table.thickness[s], rule, ue.data(), f.data());
        for (int a = 0; a < E::n_nodes; ++a) {
          const auto node = static_cast<std::size_t>(nodes[static_cast<std::size_t>(a)]);
          for (int c = 0; c < E::dim; ++c)
            out.internal_force[node * static_cast<std::size_t>(dim) + static_cast<std::size_t>(c)] +=
                f[static_cast<std::size_t>(a * E::dim + c)];
          double xi[3] = {0.0, 0.0, 0.0}, strain[6] = {};
          E::node(a, xi);
          fem::element_strain<E>(x.data(), ue.data(), xi, strain);
          double sigma[6] = {};
          tangent.stress(strain, sigma);
          for (int k = 0; k < nv; ++k)
            out.stress[node * static_cast<std::size_t>(nv) + static_cast<std::size_t>(k)] += sigma[k];
          if constexpr (E::dim == 2) {
            const auto& row = rows[s];
            sigma_zz[node] += row[0] * strain[0] + row[1] * strain[1] + row[2] * strain[2];
          }
          ++count[node];
        }
      }
    });
  }
  for (std::size_t n = 0; n < n_nodes; ++n) {
    if (count[n] == 0) continue;
    double* s = out.stress.data() + n * static_cast<std::size_t>(nv);
    for (int k = 0; k < nv; ++k) s[k] /= count[n];
    out.von_mises[n] = dim == 3 ? von_mises_3d(s) : von_mises_2d(s, sigma_zz[n] / count[n]);
  }
  return out;
}

}  // namespace tremor::static_fe
