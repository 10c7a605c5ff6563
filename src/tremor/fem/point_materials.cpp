#include "tremor/fem/point_materials.hpp"

#include <algorithm>
#include <cmath>

#include "tremor/core/error.hpp"
#include "tremor/model/material_field.hpp"

namespace tremor::fem {

namespace {

// lambda, mu and density of `row`'s law at a point whose field sample is `at`.
std::array<double, 3> law_at(const RowField& row, const FieldSample& at, int dim) {
  if (at == row.sample) return {row.lambda, row.mu, row.density};  // the row's own, to the bit
  const MaterialField& field = *row.field;
  const double density = at[2];
  double mu = at[1], lambda = at[0];
  if (field.properties == FieldProperties::Speeds) {  // as Material::from_speeds
    mu = density * at[1] * at[1];
    lambda = density * at[0] * at[0] - 2.0 * mu;
  }
  if (row.kappa_factor != 1.0 || row.mu_factor != 1.0) {  // unrelaxed, by the row's fit
    const double kappa = (lambda + 2.0 / 3.0 * mu) * row.kappa_factor;
    mu *= row.mu_factor;
    lambda = kappa - 2.0 / 3.0 * mu;
  }
  if (dim == 2 && row.formulation == Formulation::PlaneStress) lambda = 2.0 * lambda * mu / (lambda + 2.0 * mu);
  return {lambda, mu, density};
}

}  // namespace

PointMaterials point_materials(std::span<const RowField> fields, int dim, std::span<const double> coordinates,
                               ElementType type, int order, std::span<const Index> connectivity,
                               std::span<const int> rows) {
  PointMaterials out;
  if (fields.empty() || !takes_field_at_points(type, order) || rows.empty()) return out;
  const bool any = std::any_of(rows.begin(), rows.end(), [&](int row) {
    return row >= 0 && fields[static_cast<std::size_t>(row)].field != nullptr;
  });
  if (!any) return out;
  const auto n = static_cast<Index>(rows.size());
  const int points = static_cast<int>(connectivity.size() / rows.size());
  out.points = points;
  out.values.resize(static_cast<std::size_t>(n) * 3 * static_cast<std::size_t>(points));
  bool outside = false;
#pragma omp parallel for schedule(static)
  for (Index e = 0; e < n; ++e) {
    const RowField& row = fields[static_cast<std::size_t>(rows[static_cast<std::size_t>(e)])];
    const Index* nodes = connectivity.data() + static_cast<Size>(e) * points;
    double* v = out.values.data() + static_cast<Size>(e) * 3 * points;
    double centre[3] = {0.0, 0.0, 0.0};
    if (row.field)
      for (int p = 0; p < points; ++p)
        for (int k = 0; k < dim; ++k) centre[k] += coordinates[static_cast<Size>(nodes[p]) * dim + k] / points;
    for (int p = 0; p < points; ++p) {
      std::array<double, 3> law{row.lambda, row.mu, row.density};
      if (row.field) {
        double x[3];
        inward(coordinates.data() + static_cast<Size>(nodes[p]) * dim, centre, dim, x);
        const auto at = row.field->sample(x);
        if (!at) {
#pragma omp atomic write
          outside = true;
          continue;
        }
        law = law_at(row, *at, dim);
      }
      for (int k = 0; k < 3; ++k) v[k * points + p] = law[static_cast<std::size_t>(k)];
    }
  }
  // (The model's element_materials refuses a node outside its field, naming it.)
  TREMOR_CHECK(!outside, "material field: a GLL point lies outside its field");
  return out;
}

PointMaterials point_materials(const DeviceElements& elements, const DeviceElementBlock& block) {
  if (elements.fields.empty() || !takes_field_at_points(block.type, block.order) || block.n_elements == 0) return {};
  const std::vector<int> rows = block.section.to_host();
  if (std::none_of(rows.begin(), rows.end(),
                   [&](int row) { return elements.fields[static_cast<std::size_t>(row)].field != nullptr; }))
    return {};
  return point_materials(elements.fields, elements.dim, elements.coordinates.to_host(), block.type, block.order,
                         block.connectivity.to_host(), rows);
}

std::vector<double> density_ratios(const PointMaterials& points, std::span<const RowField> fields,
                                   std::span<const int> rows) {
  std::vector<double> out;
  if (points.empty()) return out;
  const auto n = static_cast<std::size_t>(points.points);
  out.resize(rows.size() * n);
  for (std::size_t e = 0; e < rows.size(); ++e) {
    const double row = fields[static_cast<std::size_t>(rows[e])].density;
    const double* rho = points.of(static_cast<Index>(e)) + 2 * n;
    for (std::size_t p = 0; p < n; ++p) out[e * n + p] = rho[p] / row;
  }
  return out;
}

std::vector<PointBound> point_bounds(const PointMaterials& points, std::span<const RowField> fields,
                                     std::span<const int> rows, int dim) {
  std::vector<PointBound> out;
  if (points.empty()) return out;
  out.resize(rows.size());
  const int n = points.points;
  for (std::size_t e = 0; e < rows.size(); ++e) {
    const RowField& row = fields[static_cast<std::size_t>(rows[e])];
    if (!row.field) continue;
    const double* v = points.of(static_cast<Index>(e));
    // D = kappa (1 1^T) + 2 mu (I - 1 1^T / dim) in the plane or space: both parts positive
    // semi-definite, so a point's D is at most max(kappa / kappa_row, mu / mu_row) times the row's.
    const double kappa_row = row.lambda + 2.0 * row.mu / dim;
    double s = 0.0, m = INFINITY, slowest = INFINITY;
    for (int p = 0; p < n; ++p) {
      const double lambda = v[p], mu = v[n + p], rho = v[2 * n + p];
      s = std::max({s, (lambda + 2.0 * mu / dim) / kappa_row, mu / row.mu});
      m = std::min(m, rho / row.density);
      slowest = std::min(slowest, std::sqrt(mu / rho));
    }
    out[e] = {std::max(1.0, s) / m, slowest};
  }
  return out;
}

}  // namespace tremor::fem
