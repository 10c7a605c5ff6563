#include "tremor/io/checkpoint_file.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "tremor/core/error.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/result_hdf5.hpp"

namespace tremor::io {

namespace fs = std::filesystem;
using h5::Handle;

namespace {

constexpr const char* format_name = "tremor explicit checkpoint";
constexpr std::int64_t format_version = 1;

void write_vector(hid_t parent, const std::string& name, const std::vector<double>& values, const std::string& file) {
  const std::array<hsize_t, 1> dims{values.size()};
  h5::write_doubles(parent, name, values, dims, file);
}

std::vector<double> read_vector(hid_t parent, const std::string& name, const std::string& file) {
  {
    Handle dataset = h5::open_dataset(parent, name, file);
    if (h5::dataset_dims(dataset.get(), file, name).size() != 1)
      throw Error(str(file, ": ", name, " is not a vector; not a tremor checkpoint"));
  }
  return h5::read_doubles(parent, name, file, name);
}

void write_pending(hid_t parent, const std::string& name, const CheckpointPending& pending, const std::string& file) {
  Handle group = h5::create_group(parent, name, file);
  h5::set_attribute(group.get(), "active", std::int64_t{pending.active ? 1 : 0}, file);
  h5::set_attribute(group.get(), "step", pending.step, file);
  write_vector(group.get(), "before", pending.before, file);
  write_vector(group.get(), "at", pending.at, file);
}

CheckpointPending read_pending(hid_t parent, const std::string& name, const std::string& file) {
  Handle group = h5::open_group(parent, name, file);
  CheckpointPending pending;
  pending.active = h5::read_int_attribute(group.get(), "active", file) != 0;
  pending.step = h5::read_int_attribute(group.get(), "step", file);
  pending.before = read_vector(group.get(), "before", file);
  pending.at = read_vector(group.get(), "at", file);
  return pending;
}

// Offsets that partition `values`, element by element, or an Error naming the file and group.
void check_offsets(const std::string& file, const char* group, const std::vector<std::int64_t>& offsets,
                   const std::vector<double>& values) {
  bool ordered = !offsets.empty() && offsets.front() == 0 && offsets.back() == static_cast<std::int64_t>(values.size());
  for (std::size_t e = 1; ordered && e < offsets.size(); ++e) ordered = offsets[e] >= offsets[e - 1];
  if (!ordered)
    throw Error(str(file, ": ", group, ": offsets that do not partition its ", values.size(),
                    " values; a torn or altered checkpoint"));
}

// A PML's nodes and their values (pml_nodes, pml_node_values in `parent`), the same count each.
void read_pml_nodes(hid_t parent, const std::string& file, const char* group, std::vector<std::int64_t>& nodes,
                    std::vector<double>& values) {
  nodes = h5::read_int64(parent, "pml_nodes", file, str(group, "/pml_nodes"));
  values = read_vector(parent, "pml_node_values", file);
  if (nodes.empty() || values.size() % nodes.size() != 0)
    throw Error(str(file, ": ", group, ": ", values.size(), " PML node values for ", nodes.size(),
                    " nodes; a torn or altered checkpoint"));
}

// The shortest %g text that reads back to `value`, so two different steps never print alike.
std::string shortest(double value) {
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

// The whole checkpoint, as one HDF5 file at `file`.
void write_contents(const std::string& file, const Checkpoint& checkpoint) {
  Handle access = h5::writer_access(file);
  Handle handle = h5::open_or_fail(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose,
                                   file, "cannot create the checkpoint");
  const hid_t root = handle.get();
  h5::set_attribute(root, "format", std::string(format_name), file);
  h5::set_attribute(root, "format_version", format_version, file);
  h5::set_attribute(root, "tremor_version", std::string(TREMOR_VERSION), file);
  h5::set_attribute(root, "model_hash", checkpoint.model_hash, file);
  h5::set_attribute(root, "precision", checkpoint.precision, file);
  h5::set_attribute(root, "operator", checkpoint.operator_kind, file);
  h5::set_attribute(root, "backend", checkpoint.backend, file);
  h5::set_attribute(root, "ordering", checkpoint.ordering, file);
  h5::set_attribute(root, "time_step", checkpoint.time_step, file);
  h5::set_attribute(root, "total_steps", checkpoint.total_steps, file);
  h5::set_attribute(root, "checkpoint_every", checkpoint.checkpoint_every, file);
  h5::set_attribute(root, "shots_together", checkpoint.shots_together, file);
  h5::set_attribute(root, "shots_parallel", std::int64_t{checkpoint.shots_parallel ? 1 : 0}, file);
  h5::set_attribute(root, "shot", checkpoint.shot, file);
  h5::set_attribute(root, "step", checkpoint.step, file);
  if (checkpoint.at_rest) h5::set_attribute(root, "at_rest", std::int64_t{1}, file);
  h5::set_attribute(root, "wall_time", checkpoint.wall_time, file);
  h5::set_attribute(root, "n_snapshots", checkpoint.n_snapshots, file);
  write_vector(root, "previous", checkpoint.previous, file);
  write_vector(root, "current", checkpoint.current, file);
  Handle receivers = h5::create_group(root, "receivers", file);
  h5::set_attribute(receivers.get(), "count", static_cast<std::int64_t>(checkpoint.receivers.size()), file);
  for (std::size_t r = 0; r < checkpoint.receivers.size(); ++r)
    write_pending(receivers.get(), str(r), checkpoint.receivers[r], file);
  write_pending(root, "snapshot", checkpoint.snapshot, file);
  if (!checkpoint.memory_offsets.empty()) {  // (absent for a run without memory variables)
    Handle memory = h5::create_group(root, "memory_variables", file);
    const std::array<hsize_t, 1> n_offsets{checkpoint.memory_offsets.size()};
    h5::write_int64(memory.get(), "offsets", checkpoint.memory_offsets, n_offsets, file);
    write_vector(memory.get(), "values", checkpoint.memory, file);
    if (!checkpoint.pml_nodes.empty()) {
      const std::array<hsize_t, 1> n_nodes{checkpoint.pml_nodes.size()};
      h5::write_int64(memory.get(), "pml_nodes", checkpoint.pml_nodes, n_nodes, file);
      write_vector(memory.get(), "pml_node_values", checkpoint.pml_node_values, file);
    }
  }
  if (!checkpoint.fluid_current.empty()) {  // (absent without fluids)
    Handle fluid = h5::create_group(root, "fluid", file);
    write_vector(fluid.get(), "previous", checkpoint.fluid_previous, file);
    write_vector(fluid.get(), "current", checkpoint.fluid_current, file);
    if (!checkpoint.fluid_pml_offsets.empty()) {  // (absent without a PML)
      const std::array<hsize_t, 1> n_offsets{checkpoint.fluid_pml_offsets.size()};
      const std::array<hsize_t, 1> n_nodes{checkpoint.fluid_pml_nodes.size()};
      h5::write_int64(fluid.get(), "pml_offsets", checkpoint.fluid_pml_offsets, n_offsets, file);
      write_vector(fluid.get(), "pml_values", checkpoint.fluid_pml, file);
      h5::write_int64(fluid.get(), "pml_nodes", checkpoint.fluid_pml_nodes, n_nodes, file);
      write_vector(fluid.get(), "pml_node_values", checkpoint.fluid_pml_node_values, file);
    }
  }
  std::vector<std::string> names;
  std::vector<std::int64_t> counts;
  for (const auto& [name, count] : checkpoint.history_samples) {
    names.push_back(name);
    counts.push_back(count);
  }
  Handle samples = h5::create_group(root, "history_samples", file);
  h5::set_attribute(samples.get(), "names", names, file);
  const std::array<hsize_t, 1> dims{counts.size()};
  h5::write_int64(samples.get(), "counts", counts, dims, file);
  h5::check(handle.reset(), file, "cannot close the checkpoint (disk full?)");
}

}  // namespace

void write_checkpoint(const fs::path& path, const Checkpoint& checkpoint) {
  h5::silence_errors();
  write_file_atomically(
      path, [&checkpoint](const fs::path& temporary) { write_contents(temporary.string(), checkpoint); }, "checkpoint");
}

Checkpoint read_checkpoint(const fs::path& path) {
  h5::silence_errors();
  const std::string file = path.string();
  std::error_code error;
  if (!fs::is_regular_file(path, error)) throw Error(str(file, ": no such checkpoint"));
  if (H5Fis_hdf5(file.c_str()) <= 0) {
    h5::error_stack();
    throw Error(str(file, ": not a tremor checkpoint (not an HDF5 file)"));
  }
  Handle handle = h5::open_or_fail(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, file,
                                   "cannot open the checkpoint");
  const hid_t root = handle.get();
  if (!h5::has_attribute(root, "format") || h5::read_string_attribute(root, "format", file) != format_name)
    throw Error(str(file, ": not a tremor checkpoint"));
  const std::int64_t version = h5::read_int_attribute(root, "format_version", file);
  if (version != format_version)
    throw Error(str(file, ": checkpoint format version ", version, "; this tremor reads version ", format_version));
  Checkpoint checkpoint;
  checkpoint.model_hash = h5::read_string_attribute(root, "model_hash", file);
  checkpoint.precision = h5::read_string_attribute(root, "precision", file);
  checkpoint.operator_kind = h5::read_string_attribute(root, "operator", file);
  checkpoint.backend = h5::read_string_attribute(root, "backend", file);
  if (h5::has_attribute(root, "ordering")) checkpoint.ordering = h5::read_string_attribute(root, "ordering", file);
  checkpoint.time_step = h5::read_double_attribute(root, "time_step", file);
  checkpoint.total_steps = h5::read_int_attribute(root, "total_steps", file);
  checkpoint.checkpoint_every = h5::read_int_attribute(root, "checkpoint_every", file);
  if (h5::has_attribute(root, "shots_together"))
    checkpoint.shots_together = h5::read_int_attribute(root, "shots_together", file);
  checkpoint.shots_parallel =
      h5::has_attribute(root, "shots_parallel") && h5::read_int_attribute(root, "shots_parallel", file) != 0;
  if (h5::has_attribute(root, "shot")) checkpoint.shot = h5::read_int_attribute(root, "shot", file);
  checkpoint.step = h5::read_int_attribute(root, "step", file);
  checkpoint.at_rest = h5::has_attribute(root, "at_rest") && h5::read_int_attribute(root, "at_rest", file) != 0;
  checkpoint.wall_time = h5::read_double_attribute(root, "wall_time", file);
  checkpoint.n_snapshots = h5::read_int_attribute(root, "n_snapshots", file);
  checkpoint.previous = read_vector(root, "previous", file);
  checkpoint.current = read_vector(root, "current", file);
  {
    Handle receivers = h5::open_group(root, "receivers", file);
    const std::int64_t count = h5::read_int_attribute(receivers.get(), "count", file);
    for (std::int64_t r = 0; r < count; ++r) checkpoint.receivers.push_back(read_pending(receivers.get(), str(r), file));
  }
  checkpoint.snapshot = read_pending(root, "snapshot", file);
  if (H5Lexists(root, "memory_variables", H5P_DEFAULT) > 0) {
    Handle memory = h5::open_group(root, "memory_variables", file);
    checkpoint.memory_offsets = h5::read_int64(memory.get(), "offsets", file, "memory_variables/offsets");
    checkpoint.memory = read_vector(memory.get(), "values", file);
    check_offsets(file, "memory_variables", checkpoint.memory_offsets, checkpoint.memory);
    if (H5Lexists(memory.get(), "pml_nodes", H5P_DEFAULT) > 0)
      read_pml_nodes(memory.get(), file, "memory_variables", checkpoint.pml_nodes, checkpoint.pml_node_values);
  }
  if (H5Lexists(root, "fluid", H5P_DEFAULT) > 0) {
    Handle fluid = h5::open_group(root, "fluid", file);
    checkpoint.fluid_previous = read_vector(fluid.get(), "previous", file);
    checkpoint.fluid_current = read_vector(fluid.get(), "current", file);
    if (checkpoint.fluid_previous.size() != checkpoint.fluid_current.size() || checkpoint.fluid_current.empty())
      throw Error(str(file, ": fluid: the potential at ", checkpoint.fluid_previous.size(), " and ",
                      checkpoint.fluid_current.size(), " nodes at its two steps; a torn or altered checkpoint"));
    if (H5Lexists(fluid.get(), "pml_offsets", H5P_DEFAULT) > 0) {
      checkpoint.fluid_pml_offsets = h5::read_int64(fluid.get(), "pml_offsets", file, "fluid/pml_offsets");
      checkpoint.fluid_pml = read_vector(fluid.get(), "pml_values", file);
      check_offsets(file, "fluid", checkpoint.fluid_pml_offsets, checkpoint.fluid_pml);
      read_pml_nodes(fluid.get(), file, "fluid", checkpoint.fluid_pml_nodes, checkpoint.fluid_pml_node_values);
    }
  }
  Handle samples = h5::open_group(root, "history_samples", file);
  const auto names = h5::read_strings_attribute(samples.get(), "names", file);
  Handle counts_set = h5::open_dataset(samples.get(), "counts", file);
  const auto dims = h5::dataset_dims(counts_set.get(), file, "history_samples/counts");
  if (dims.size() != 1 || dims[0] != names.size())
    throw Error(str(file, ": history_samples: ", names.size(), " names but not as many counts"));
  std::vector<std::int64_t> counts(names.size());
  if (!counts.empty())
    h5::check(H5Dread(counts_set.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, counts.data()), file,
              "cannot read history_samples/counts");
  for (std::size_t h = 0; h < names.size(); ++h) checkpoint.history_samples[names[h]] = counts[h];
  if (checkpoint.previous.size() != checkpoint.current.size() || checkpoint.step < 0 ||
      checkpoint.step > checkpoint.total_steps)
    throw Error(str(file, ": inconsistent checkpoint (step ", checkpoint.step, " of ", checkpoint.total_steps, ", ",
                    checkpoint.previous.size(), " and ", checkpoint.current.size(), " DOFs)"));
  if (checkpoint.at_rest && (checkpoint.step != 0 || !checkpoint.current.empty() || !checkpoint.receivers.empty() ||
                             !checkpoint.memory.empty() || !checkpoint.fluid_current.empty()))
    throw Error(str(file, ": inconsistent checkpoint: before shot ", checkpoint.shot + 1, " (at rest) but holding a "
                    "state at step ", checkpoint.step));
  return checkpoint;
}

std::vector<std::string> checkpoint_mismatches(const Checkpoint& saved, const Checkpoint& now) {
  std::vector<std::string> out;
  const auto compare = [&](const char* what, const auto& a, const auto& b) {
    if (a != b) out.push_back(str(what, ": the checkpoint's run had ", a, ", this one has ", b));
  };
  compare("model hash (the model file, the files it reads, its mesh and signal tables)", saved.model_hash,
          now.model_hash);
  compare("precision", saved.precision, now.precision);
  compare("operator", saved.operator_kind, now.operator_kind);
  compare("backend", saved.backend, now.backend);
  compare("node ordering", saved.ordering, now.ordering);
  if (saved.time_step != now.time_step)
    out.push_back(str("time step: the checkpoint's run had ", shortest(saved.time_step), " s, this one has ",
                      shortest(now.time_step), " s"));
  compare("steps", saved.total_steps, now.total_steps);
  return out;
}

}  // namespace tremor::io
