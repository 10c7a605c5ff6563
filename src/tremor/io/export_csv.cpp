#include "tremor/io/export_csv.hpp"
#include "tremor/io/export_files.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "tremor/core/error.hpp"
#include "tremor/io/file.hpp"
#include "tremor/io/result_file.hpp"
#include "tremor/io/result_hdf5.hpp"

namespace tremor::io {

namespace fs = std::filesystem;
using h5::Handle;

namespace {

std::vector<std::string> columns_of(const std::vector<std::string>& points, const std::vector<std::string>& quantities,
                                    int dimension) {
  static constexpr std::array<char, 3> axes{'x', 'y', 'z'};
  std::vector<std::string> columns;
  for (const auto& point : points)
    for (const auto& quantity : quantities) {
      const Quantity q = parse_quantity(quantity);
      if (q == Quantity::Pressure) {  // a scalar: one column
        columns.push_back(str(point, "_", quantity_letter(q)));
        continue;
      }
      for (int c = 0; c < dimension; ++c)
        columns.push_back(str(point, "_", quantity_letter(q), axes.at(static_cast<std::size_t>(c))));
    }
  return columns;
}

}  // namespace

std::vector<std::string> history_columns(const std::vector<long long>& node_labels,
                                         const std::vector<std::string>& quantities, int dimension) {
  std::vector<std::string> points;
  for (long long label : node_labels) points.push_back(str(label));
  return columns_of(points, quantities, dimension);
}

std::vector<std::string> position_columns(std::size_t n_positions, const std::vector<std::string>& quantities,
                                          int dimension) {
  std::vector<std::string> points;
  for (std::size_t p = 1; p <= n_positions; ++p) points.push_back(str("p", p));
  return columns_of(points, quantities, dimension);
}

namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

// Samples read and printed per block, bounding memory for long histories.
constexpr hsize_t block_bytes = hsize_t{8} << 20;

}  // namespace

void write_export_file(const fs::path& path, const char* kind, const std::function<void(std::FILE*)>& write) {
  write_export_file_at(path, kind, [&](const fs::path& temporary) {
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    std::unique_ptr<std::FILE, FileCloser> out(fd >= 0 ? ::fdopen(fd, "wb") : nullptr);
    if (!out) {
      const std::string reason = std::strerror(errno);
      if (fd >= 0) ::close(fd);
      throw Error(str(path.string(), ": cannot create ", temporary.string(), " (", reason, ")"));
    }
    write(out.get());
    const bool written = std::fflush(out.get()) == 0 && std::ferror(out.get()) == 0;
    const std::string reason = std::strerror(errno);
    if (std::fclose(out.release()) != 0 || !written)
      throw Error(str(path.string(), ": cannot write the ", kind, " (", written ? std::strerror(errno) : reason, ")"));
  });
}

void write_export_file_at(const fs::path& path, const char* kind, const std::function<void(const fs::path&)>& write) {
  fs::path temporary = path;
  temporary += ".partial";
  OutputClaim claim = OutputClaim::lock(temporary, true, path, kind);
  claim.truncate();
  const auto remove_temporary = [&] {
    std::error_code ignored;
    fs::remove(temporary, ignored);  // still claimed: no other writer has it
    claim.keep();
  };
  try {
    write(temporary);
    const int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    const bool synced = fd >= 0 && ::fsync(fd) == 0;  // on the disk before it is named
    const std::string reason = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    if (!synced) throw Error(str(path.string(), ": cannot sync the ", kind, " (", reason, ")"));
    check_output_path(path, kind);  // (a link or FIFO put there since: refused, not replaced)
  } catch (...) {
    remove_temporary();
    throw;
  }
  claim.keep();
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    remove_temporary();
    throw Error(str(path.string(), ": cannot rename ", temporary.string(), " to it (", error.message(), ")"));
  }
}

void check_export_path(const fs::path& path, const char* kind) {
  check_output_path(path, kind);
  fs::path temporary = path;
  temporary += ".partial";
  check_output_path(temporary, kind);
}

std::string HistorySet::said() const {
  return shot.empty() ? str("history set '", name, "'") : str("history set '", name, "' of shot '", shot, "'");
}

void PlannedNames::add(const std::string& name, const std::string& source) {
  const auto [at, added] = sources_.emplace(name, source);
  if (!added && at->second != source)
    throw Error(str(result_, ": ", at->second, " and ", source, " both become ", kind_, " '", name,
                    "'; nothing was written: rename one of them"));
}

std::vector<HistorySet> history_sets(hid_t file, const std::string& result) {
  std::vector<HistorySet> sets;
  for (const h5::HistoriesGroup& at : h5::histories_groups(file, result)) {
    Handle histories = h5::open_group(file, at.path, result);
    for (const auto& name : h5::group_members(histories.get(), result, "cannot list " + at.path))
      sets.push_back({at.path, at.shot, name});
  }
  return sets;
}

namespace {

// Writes `csv` (write_export_file): its header is `time` and `columns`; its n_samples rows, `row`
// values each after the time, come from read(first, count, times, values) a block at a time.
void write_csv(const fs::path& csv, const std::vector<std::string>& columns, hsize_t n_samples, hsize_t row,
               const std::function<void(hsize_t, hsize_t, double*, double*)>& read) {
  write_export_file(csv, "CSV file", [&](std::FILE* out) {
    std::fputs("time", out);
    for (const auto& column : columns) std::fprintf(out, ",%s", column.c_str());
    std::fputc('\n', out);
    const hsize_t block = std::max<hsize_t>(1, block_bytes / std::max<hsize_t>(1, row * sizeof(double)));
    std::vector<double> times, values;
    for (hsize_t first = 0; first < n_samples; first += block) {
      const hsize_t count = std::min(block, n_samples - first);
      times.resize(count);
      values.resize(count * row);
      read(first, count, times.data(), values.data());
      for (hsize_t s = 0; s < count; ++s) {
        std::fprintf(out, "%.17g", times[s]);
        const double* sample = values.data() + s * row;
        for (hsize_t v = 0; v < row; ++v) std::fprintf(out, ",%.17g", sample[v]);
        if (std::fputc('\n', out) == EOF) return;  // (the error is the stream's: write_export_file reports it)
      }
    }
  });
}

// The history in `group`, `where` in the file.
void export_one(hid_t group, const std::string& where, const std::string& result, const fs::path& csv) {
  const auto quantities = h5::read_strings_attribute(group, "quantities", result);
  const auto dimension = h5::read_int_attribute(group, "dimension", result);
  if (dimension < 1 || dimension > 3) throw Error(str(result, ": ", where, ": dimension ", dimension, " is not 1..3"));
  // A history at nodes names its columns by node label; one at positions by p1, p2, ...
  const bool at_positions = H5Lexists(group, "positions", H5P_DEFAULT) > 0;
  std::vector<std::string> columns;
  std::size_t n_points = 0;
  if (at_positions) {
    Handle positions = h5::open_dataset(group, "positions", result);
    const auto position_dims = h5::dataset_dims(positions.get(), result, where + "/positions");
    n_points = position_dims.empty() ? 0 : position_dims[0];
    columns = position_columns(n_points, quantities, static_cast<int>(dimension));
  } else {
    Handle labels_set = h5::open_dataset(group, "node_labels", result);
    const auto label_dims = h5::dataset_dims(labels_set.get(), result, where + "/node_labels");
    std::vector<long long> labels(label_dims.empty() ? 0 : label_dims[0]);
    if (!labels.empty())
      h5::check(H5Dread(labels_set.get(), H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels.data()), result,
                "cannot read " + where + "/node_labels");
    n_points = labels.size();
    columns = history_columns(labels, quantities, static_cast<int>(dimension));
  }
  Handle time_set = h5::open_dataset(group, "time", result);
  Handle values_set = h5::open_dataset(group, "values", result);
  const auto time_dims = h5::dataset_dims(time_set.get(), result, where + "/time");
  const auto value_dims = h5::dataset_dims(values_set.get(), result, where + "/values");
  if (time_dims.size() != 1 || value_dims.size() != 4 || value_dims[0] != time_dims[0] ||
      value_dims[1] != n_points || value_dims[2] != quantities.size())
    throw Error(str(result, ": ", where, ": the shapes of time, values and ",
                    at_positions ? "positions" : "node_labels", " disagree"));
  // (Pressure, alone in its history, has one component.)
  const hsize_t components = quantities.size() == 1 && quantities[0] == "pressure" ? 1 : static_cast<hsize_t>(dimension);
  if (value_dims.size() == 4 && value_dims[3] != components)
    throw Error(str(result, ": ", where, ": the shapes of time, values and ",
                    at_positions ? "positions" : "node_labels", " disagree"));
  const hsize_t n_samples = time_dims[0];
  const hsize_t row = value_dims[1] * value_dims[2] * value_dims[3];
  write_csv(csv, columns, n_samples, row, [&](hsize_t first, hsize_t count, double* times, double* values) {
    const auto read = [&](hid_t dataset, std::vector<hsize_t> dims, double* data, const std::string& what) {
      Handle file_space = h5::open_or_fail(H5Dget_space(dataset), H5Sclose, result, what);
      std::vector<hsize_t> start(dims.size(), 0);
      start[0] = first;
      dims[0] = count;
      h5::check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, dims.data(), nullptr),
                result, what);
      Handle memory_space = h5::simple_space(dims, result);
      h5::check(H5Dread(dataset, H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), H5P_DEFAULT, data), result,
                "cannot read " + what);
    };
    read(time_set.get(), time_dims, times, where + "/time");
    read(values_set.get(), value_dims, values, where + "/values");
  });
}

// An array's full-matrix capture, /fmc/<name>: a column per transmitter and receiver written,
// t<i>_r<j>, of the A-scans' samples, the time first.
void export_fmc(hid_t fmc, const std::string& name, const std::string& result, const fs::path& csv) {
  const std::string where = "/fmc/" + name;
  Handle group = h5::open_group(fmc, name, result);
  const double dt = h5::read_double_attribute(group.get(), "dt", result);
  const double t0 = h5::read_double_attribute(group.get(), "t0", result);
  Handle data = h5::open_dataset(group.get(), "data", result);
  const auto dims = h5::dataset_dims(data.get(), result, where + "/data");
  if (dims.size() != 3) throw Error(str(result, ": ", where, "/data is not [transmitter][receiver][sample]"));
  std::vector<std::string> columns;
  for (hsize_t i = 0; i < dims[0]; ++i)
    for (hsize_t j = 0; j < dims[1]; ++j) columns.push_back(str("t", i, "_r", j));
  const std::vector<double> all = h5::read_doubles(group.get(), "data", result, where + "/data");
  const hsize_t row = dims[0] * dims[1];
  write_csv(csv, columns, dims[2], row, [&](hsize_t first, hsize_t count, double* times, double* values) {
    for (hsize_t k = 0; k < count; ++k) {
      times[k] = t0 + static_cast<double>(first + k) * dt;
      for (hsize_t scan = 0; scan < row; ++scan) values[k * row + scan] = all[scan * dims[2] + first + k];
    }
  });
}

}  // namespace

Handle open_for_export(const fs::path& result_path, const fs::path& out_dir, ExportSummary& summary) {
  const std::string result = result_path.string();
  Handle file;
  try {
    file = h5::open_result(result);
  } catch (const Error&) {
    // HDF5 says only that its lock was refused ("Resource temporarily unavailable").
    if (locked_by_a_writer(result_path))
      throw Error(str(result, ": another process is writing this result file (a run, or tremor image adding its "
                              "maps); try again once it has ended"));
    throw;
  }
  {
    Handle metadata = h5::open_group(file.get(), "metadata", result);
    summary.status = h5::read_string_attribute(metadata.get(), "status", result);
  }
  std::error_code error;
  fs::create_directories(out_dir, error);
  if (error || !fs::is_directory(out_dir))
    throw Error(str(out_dir.string(), ": cannot create the output folder (", error.message(), ")"));
  return file;
}

ExportSummary export_histories(const fs::path& result_path, const fs::path& out_dir) {
  const std::string result = result_path.string();
  ExportSummary summary;
  const Handle file = open_for_export(result_path, out_dir, summary);
  // /histories, then each shot's (a model with shots), named "<shot>.<history>.csv". Every CSV's
  // name (and its temporary's) is checked before any is written: a symbolic link, FIFO, device or
  // folder there is refused, and nothing written.
  struct Planned {
    std::string histories, name;
    fs::path csv;
  };
  std::vector<Planned> planned;
  PlannedNames names(result, "CSV file");
  for (const HistorySet& set : history_sets(file.get(), result)) {
    planned.push_back({set.path, set.name, out_dir / (set.file_stem() + ".csv")});
    names.add(planned.back().csv.string(), set.said());
    check_export_path(planned.back().csv, "CSV file");
  }
  // Full-matrix captures: "fmc.<array>.csv".
  std::vector<Planned> captures;
  if (H5Lexists(file.get(), "fmc", H5P_DEFAULT) > 0) {
    Handle fmc = h5::open_group(file.get(), "fmc", result);
    for (const auto& name : h5::group_members(fmc.get(), result, "cannot list /fmc")) {
      captures.push_back({"/fmc", name, out_dir / ("fmc." + name + ".csv")});
      names.add(captures.back().csv.string(), str("the full-matrix capture of array '", name, "'"));
      check_export_path(captures.back().csv, "CSV file");
    }
  }
  for (const Planned& one : planned) {
    Handle histories = h5::open_group(file.get(), one.histories, result);
    Handle group = h5::open_group(histories.get(), one.name, result);
    export_one(group.get(), one.histories + "/" + one.name, result, one.csv);
    summary.files.push_back(one.csv);
  }
  for (const Planned& one : captures) {
    Handle fmc = h5::open_group(file.get(), "fmc", result);
    export_fmc(fmc.get(), one.name, result, one.csv);
    summary.files.push_back(one.csv);
  }
  return summary;
}

}  // namespace tremor::io
