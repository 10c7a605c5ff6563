#include "tremor/sparse/element_survey.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tremor/backend/device_array.hpp"
#include "tremor/backend/forall.hpp"
#include "tremor/core/error.hpp"
#include "tremor/fem/dispatch.hpp"
#include "tremor/fem/element_survey.hpp"
#include "tremor/fem/geometry.hpp"
#include "tremor/fem/point_materials.hpp"
#include "tremor/fem/time_step.hpp"
#include "tremor/sparse/element_kernels.hpp"

namespace tremor::sparse {

namespace {

struct Measures {
  std::vector<double> lambda, longest, relative_det;
};

// One thread per element of a block whose K_e fits a thread. Traffic per element: n_nodes indices
// and n_nodes * dim coordinates read, D, density and thickness of its section, 24 B written.
template <class E>
Measures measure_block(const Exec& exec, const fem::DeviceElements& elements, const fem::DeviceElementBlock& block,
                       bool eigenvalues) {
  const Index n = block.n_elements;
  DeviceArray<double> lambda(exec, n), longest(exec, n), relative(exec, n);
  const fem::ElementArrays in = fem::arrays_of(elements, block);
  double* lambda_out = lambda.data();
  double* longest_out = longest.data();
  double* relative_out = relative.data();
  forall(exec, n, [=] TREMOR_LAMBDA(Index e) {
    double x[fem::survey_dofs<E>];
    fem::gather_coordinates<E>(in.coordinates, in.connectivity + static_cast<Size>(e) * E::n_nodes, x);
    const int s = in.section[e];
    const double length = fem::vertex_distances<E>(x).max_length;
    longest_out[e] = length;
    relative_out[e] = fem::relative_det<E>(fem::worst_det<E>(x), length);
    lambda_out[e] = eigenvalues ? fem::max_eigenvalue_dense<E>(x, in.material.voigt(s), in.density[s], in.thickness[s]) : 1.0;
  });
  return {lambda.to_host(), longest.to_host(), relative.to_host()};
}

// The same on the host, for elements too large for a thread (and the reference's functions).
template <class E>
Measures measure_block_on_host(const Model& model, const fem::SectionTable& table, Index first, const ElementBlock& block,
                               bool eigenvalues) {
  const Index n = block.n_elements();
  Measures out{std::vector<double>(static_cast<std::size_t>(n)), std::vector<double>(static_cast<std::size_t>(n)),
               std::vector<double>(static_cast<std::size_t>(n))};
#pragma omp parallel for schedule(dynamic, 16)
  for (Index e = 0; e < n; ++e) {
    std::vector<double> x(static_cast<std::size_t>(E::n_nodes * E::dim));
    model.mesh.element_coordinates(block, e, x.data());
    const auto s = static_cast<std::size_t>(table.element_section[static_cast<std::size_t>(first + e)]);
    const auto k = static_cast<std::size_t>(e);
    out.longest[k] = fem::vertex_distances<E>(x.data()).max_length;
    out.relative_det[k] = fem::relative_det<E>(fem::worst_det<E>(x.data()), out.longest[k]);
    const auto n_voigt = static_cast<std::size_t>(table.n_voigt);
    out.lambda[k] = eigenvalues ? fem::element_max_eigenvalue(block.type, block.order, x,
                                                              std::span<const double>(table.D[s].data(), n_voigt * n_voigt),
                                                              table.density[s], table.thickness[s])
                                : 1.0;
  }
  return out;
}

}  // namespace

ElementSurvey survey_elements(const Exec& exec, const fem::DeviceElements& elements, const Model& model,
                              const fem::SectionTable& table, bool eigenvalues) {
  const Mesh& mesh = model.mesh;
  TREMOR_CHECK(elements.blocks.size() == mesh.blocks.size() && elements.n_nodes == mesh.n_nodes(),
               "element survey: the device elements were built for another mesh");
  ElementSurvey survey;
  // Each row's slowest wave (the table's rows are element_materials', in order): a section's
  // material's; beyond the sections, a material field's isotropic sample, its shear wave from the
  // row itself (sqrt(mu / rho); an attenuating field's unrelaxed mu), not sampled again.
  std::vector<double> slowest;
  if (table.D.size() >= model.sections.size()) {
    const int nv = table.n_voigt;
    for (std::size_t row = 0; row < table.D.size(); ++row)
      slowest.push_back(row < model.sections.size()
                            ? model.material(model.sections[row].material).min_wave_speed()
                            : std::sqrt(table.D[row][static_cast<std::size_t>(mesh.dim() * (nv + 1))] / table.density[row]));
  }
  double coarsest = 0.0;  // longest / slowest
  double best_lambda = -1.0;
  bool bad = false;
  std::vector<double> lambda(static_cast<std::size_t>(mesh.n_elements()));  // per global element
  // Where elements take a material field at their nodes (fem/point_materials.hpp): per global
  // element the bound of its points' values on its eigenvalue against its row's, else empty.
  std::vector<double> scale;
  for (std::size_t b = 0; b < mesh.blocks.size() && !bad; ++b) {
    const ElementBlock& block = mesh.blocks[b];
    const fem::DeviceElementBlock& device = elements.blocks[b];
    const Measures m = fem::with_element(block.type, block.order, [&](auto element) {
      using E = decltype(element);
      TREMOR_CHECK(E::dim == mesh.dim(), model.mesh_source(), ": ", element_name(block.type, block.order),
                   " elements in a ", mesh.dim(), "D mesh");
      if constexpr (fem::fits_survey<E>)
        return measure_block<E>(exec, elements, device, eigenvalues);
      else
        return measure_block_on_host<E>(model, table, device.first, block, eigenvalues);
    });
    const std::span<const int> rows(table.element_section.data() + device.first,
                                    static_cast<std::size_t>(block.n_elements()));
    const std::vector<fem::PointBound> bounds =
        fem::point_bounds(fem::point_materials(elements, device), table.fields, rows, mesh.dim());
    if (!bounds.empty() && scale.empty()) scale.assign(lambda.size(), 1.0);
    for (Index e = 0; e < block.n_elements(); ++e) {
      const auto k = static_cast<std::size_t>(e);
      // Inverted, degenerate or non-finite: the host check names the element and where (it
      // walks the whole mesh, in order, so the first bad element is named).
      if (!(m.relative_det[k] > fem::degenerate_tolerance) || !(m.lambda[k] > 0.0)) {
        bad = true;
        break;
      }
      const double by_points = bounds.empty() ? 1.0 : bounds[k].scale;
      if (!bounds.empty()) scale[static_cast<std::size_t>(device.first + e)] = by_points;
      lambda[static_cast<std::size_t>(device.first + e)] = m.lambda[k] * by_points;
      best_lambda = std::max(best_lambda, m.lambda[k] * by_points);
      survey.largest_element = std::max(survey.largest_element, m.longest[k]);
      if (!slowest.empty()) {
        const int row = table.element_section[static_cast<std::size_t>(device.first + e)];
        const double speed = !bounds.empty() && bounds[k].slowest > 0.0 ? bounds[k].slowest
                             : row >= 0                                ? slowest[static_cast<std::size_t>(row)]
                                                                       : 0.0;
        if (speed > 0.0 && m.longest[k] / speed > coarsest) {
          coarsest = m.longest[k] / speed;
          survey.coarsest_element = m.longest[k];
          survey.coarsest_speed = speed;
        }
      }
    }
  }
  if (bad) {
    fem::check_geometry(mesh, model.mesh_source());
    (void)fem::stable_time_step(model);  // names the element without a positive eigenvalue
    throw Error(str(model.mesh_source(), ": an element is inverted or degenerate"));  // not reached
  }
  TREMOR_CHECK(best_lambda > 0.0, model.source, ": no elements to estimate a time step from");
  if (!eigenvalues) return survey;
  // The step is the host's (fem::stable_time_step), so a run's time step does not depend on its
  // backend. On a GPU the power iteration can end a few ulp, or where the top two eigenvalues of
  // an element nearly coincide and it stops short of convergence up to ~1e-4, away from the
  // host's; the host recomputes every element within 1e-3 of the largest and takes the first
  // largest, as stable_time_step does. Where very many elements are that close (a structured mesh
  // of equal elements), their kernel's arithmetic is the host's (no FMA contraction), and the first
  // largest found there is recomputed alone.
  const double threshold = best_lambda * (1.0 - 1e-3);
  const auto near = [&](double value) { return value >= threshold; };
  constexpr std::ptrdiff_t max_candidates = 100000;
  std::vector<Index> candidates;
  if (std::count_if(lambda.begin(), lambda.end(), near) > max_candidates) {
    candidates.push_back(static_cast<Index>(std::find(lambda.begin(), lambda.end(), best_lambda) - lambda.begin()));
  } else {
    for (std::size_t e = 0; e < lambda.size(); ++e)
      if (near(lambda[e])) candidates.push_back(static_cast<Index>(e));
  }
  std::vector<double> host(candidates.size());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const ElementRef where = mesh.locate(candidates[i]);
    const ElementBlock& block = mesh.blocks[static_cast<std::size_t>(where.block)];
    std::vector<double> x(static_cast<std::size_t>(block.n_element_nodes() * mesh.dim()));
    mesh.element_coordinates(block, where.element, x.data());
    const auto s = static_cast<std::size_t>(table.element_section[static_cast<std::size_t>(candidates[i])]);
    const auto n_voigt = static_cast<std::size_t>(table.n_voigt);
    host[i] = fem::element_max_eigenvalue(block.type, block.order, x,
                                          std::span<const double>(table.D[s].data(), n_voigt * n_voigt),
                                          table.density[s], table.thickness[s]) *
              (scale.empty() ? 1.0 : scale[static_cast<std::size_t>(candidates[i])]);
  }
  double host_best = -1.0;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (host[i] > host_best) {
      host_best = host[i];
      survey.stable_element = candidates[i];
    }
  TREMOR_CHECK(host_best > 0.0, model.mesh_source(), ": element ", mesh.element_label(survey.stable_element),
               " has no positive stiffness eigenvalue on the host");
  survey.stable_dt = 2.0 / std::sqrt(host_best);
  return survey;
}

}  // namespace tremor::sparse
