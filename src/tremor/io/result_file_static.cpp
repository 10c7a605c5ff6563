// The result file's /static (docs/output-format.md): a static solution of `tremor static` node by
// node, the solver's record, and the XDMF file that shows it on the mesh.
#include "tremor/io/result_file_impl.hpp"

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "tremor/core/error.hpp"

namespace tremor::io {

namespace fs = std::filesystem;
using h5::Handle;

namespace {

// Voigt component names in tremor's order (model/material.hpp).
std::vector<std::string> voigt_names(int dim) {
  if (dim == 2) return {"xx", "yy", "xy"};
  return {"xx", "yy", "zz", "yz", "xz", "xy"};
}

}  // namespace

void ResultFile::Impl::write_static(const StaticFields& fields) {
  require_open();
  if (has_static) throw Error(str(path.string(), ": the static solution is already written"));
  const auto nodes = static_cast<hsize_t>(n_nodes);
  const auto check_size = [&](std::span<const double> values, std::size_t per_node, const char* what) {
    if (values.size() != static_cast<std::size_t>(nodes) * per_node)
      throw Error(str(path.string(), ": static ", what, " has ", values.size(), " values; expected ",
                      static_cast<std::size_t>(nodes) * per_node, " (", nodes, " nodes x ", per_node, ")"));
  };
  n_voigt = dim == 2 ? 3 : 6;
  const auto d = static_cast<std::size_t>(dim);
  check_size(fields.displacement, d, "displacement");
  check_size(fields.stress, static_cast<std::size_t>(n_voigt), "stress");
  check_size(fields.von_mises, 1, "von Mises stress");
  check_size(fields.reaction, d, "reaction force");
  Handle group = h5::create_group(handle.get(), "static", file);
  const hid_t g = group.get();
  const std::array<hsize_t, 2> vector_dims{nodes, static_cast<hsize_t>(dim)};
  const std::array<hsize_t, 2> stress_dims{nodes, static_cast<hsize_t>(n_voigt)};
  const std::array<hsize_t, 1> scalar_dims{nodes};
  const auto write = [&](const char* name, std::span<const double> values, std::span<const hsize_t> dims,
                         const char* units) {
    h5::write_doubles(g, name, values, dims, file);
    Handle dataset = h5::open_dataset(g, name, file);
    h5::set_attribute(dataset.get(), "units", std::string(units), file);
    return dataset;
  };
  write("displacement", fields.displacement, vector_dims, "m");
  std::vector<double> magnitude(static_cast<std::size_t>(nodes));
  for (std::size_t n = 0; n < magnitude.size(); ++n) {
    double sum = 0.0;
    for (std::size_t c = 0; c < d; ++c) sum += fields.displacement[n * d + c] * fields.displacement[n * d + c];
    magnitude[n] = std::sqrt(sum);
  }
  write("magnitude", magnitude, scalar_dims, "m");
  Handle stress = write("stress", fields.stress, stress_dims, "Pa");
  h5::set_attribute(stress.get(), "components", voigt_names(dim), file);
  write("von_mises", fields.von_mises, scalar_dims, "Pa");
  write("reaction_force", fields.reaction, vector_dims, "N");
  const std::array<hsize_t, 1> history_dims{static_cast<hsize_t>(fields.residual_history.size())};
  h5::write_doubles(g, "residual_history", fields.residual_history, history_dims, file);
  h5::set_attribute(g, "converged", std::int64_t{fields.converged ? 1 : 0}, file);
  h5::set_attribute(g, "iterations", fields.iterations, file);
  h5::set_attribute(g, "relative_residual", fields.relative_residual, file);
  h5::set_attribute(g, "tolerance", fields.tolerance, file);
  h5::set_attribute(g, "preconditioner", fields.preconditioner, file);
  has_static = true;
}

void ResultFile::Impl::write_static_xdmf(const fs::path& xdmf) const {
  // One grid on the whole mesh; each stress component its own scalar (a column of /static/stress).
  std::vector<XdmfField> fields;
  fields.push_back(XdmfField{"displacement", dim, {"/static/displacement"}});
  fields.push_back(XdmfField{"magnitude", 1, {"/static/magnitude"}});
  fields.push_back(XdmfField{"von_mises", 1, {"/static/von_mises"}});
  const std::vector<std::string> names = voigt_names(dim);
  for (int k = 0; k < n_voigt; ++k)
    fields.push_back(XdmfField{str("stress_", names[static_cast<std::size_t>(k)]), 1, {"/static/stress"}, k, n_voigt});
  fields.push_back(XdmfField{"reaction_force", dim, {"/static/reaction_force"}});
  write_xdmf(xdmf, path.filename().string(), full_mesh, {}, fields);
}

void ResultFile::write_static(const StaticFields& fields) {
  impl().writing([&] { impl().write_static(fields); });
}

}  // namespace tremor::io
