#include "tremor/io/result_file.hpp"

#include <gtest/gtest.h>

// The tests read result files back with the HDF5 C API (linked to the test executables).
#include <hdf5.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/log.hpp"
#include "tremor/io/result_xdmf.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/model.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

namespace fs = std::filesystem;
using io::Quantity;
using io::ResultFile;

// ---- Reading back with the HDF5 C API, independently of the writer's helpers ----

class File {
 public:
  explicit File(const fs::path& path) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    id_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (id_ < 0) throw Error("test: cannot open " + path.string());
  }
  ~File() { H5Fclose(id_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  hid_t id() const { return id_; }

  bool exists(const std::string& path) const {
    // Each component must exist for H5Lexists to answer for the last one.
    std::string prefix;
    std::istringstream parts(path);
    std::string part;
    while (std::getline(parts, part, '/')) {
      if (part.empty()) continue;
      prefix += "/" + part;
      if (H5Lexists(id_, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    }
    return true;
  }

  std::vector<hsize_t> dims(const std::string& path) const {
    const hid_t dataset = open(path);
    const hid_t space = H5Dget_space(dataset);
    std::vector<hsize_t> result(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, result.data(), nullptr);
    H5Sclose(space);
    H5Dclose(dataset);
    return result;
  }

  template <class T>
  std::vector<T> read(const std::string& path, hid_t memory_type) const {
    std::size_t count = 1;
    for (hsize_t d : dims(path)) count *= d;
    std::vector<T> values(count);
    const hid_t dataset = open(path);
    if (count > 0) {
      EXPECT_GE(H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0) << path;
    }
    H5Dclose(dataset);
    return values;
  }
  std::vector<double> doubles(const std::string& path) const { return read<double>(path, H5T_NATIVE_DOUBLE); }
  std::vector<long long> longs(const std::string& path) const { return read<long long>(path, H5T_NATIVE_LLONG); }
  std::vector<int> ints(const std::string& path) const { return read<int>(path, H5T_NATIVE_INT); }

  std::vector<std::string> strings(const std::string& object, const char* name) const {
    const hid_t attribute = H5Aopen_by_name(id_, object.c_str(), name, H5P_DEFAULT, H5P_DEFAULT);
    if (attribute < 0) throw Error("test: no attribute " + object + " " + name);
    const hid_t space = H5Aget_space(attribute);
    const auto count = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    std::vector<char*> texts(count);
    EXPECT_GE(H5Aread(attribute, type, texts.data()), 0);
    std::vector<std::string> values(texts.begin(), texts.end());
    H5Dvlen_reclaim(type, space, H5P_DEFAULT, texts.data());
    H5Tclose(type);
    H5Sclose(space);
    H5Aclose(attribute);
    return values;
  }
  std::string string(const std::string& object, const char* name) const { return strings(object, name).at(0); }

  template <class T>
  T scalar(const std::string& object, const char* name, hid_t memory_type) const {
    const hid_t attribute = H5Aopen_by_name(id_, object.c_str(), name, H5P_DEFAULT, H5P_DEFAULT);
    if (attribute < 0) throw Error("test: no attribute " + object + " " + name);
    T value{};
    EXPECT_GE(H5Aread(attribute, memory_type, &value), 0);
    H5Aclose(attribute);
    return value;
  }
  double real(const std::string& object, const char* name) const {
    return scalar<double>(object, name, H5T_NATIVE_DOUBLE);
  }
  long long integer(const std::string& object, const char* name) const {
    return scalar<long long>(object, name, H5T_NATIVE_LLONG);
  }

 private:
  hid_t open(const std::string& path) const {
    const hid_t dataset = H5Dopen2(id_, path.c_str(), H5P_DEFAULT);
    if (dataset < 0) throw Error("test: no dataset " + path);
    return dataset;
  }
  hid_t id_ = -1;
};

// ---- Models and values ----

// A 4 x 2 quad4 rectangle (15 nodes) with labels that are not 1..n, to see labels carried through.
Model quad_model() {
  Model model;
  model.title = "result test";
  model.mesh = generate_rectangle({0.0, 0.0}, {2.0, 1.0}, {4, 2}, ElementType::Quad4);
  for (std::size_t i = 0; i < model.mesh.node_labels.size(); ++i)
    model.mesh.node_labels[i] = 1000 + 7 * static_cast<Label>(i);
  return model;
}

io::RunMetadata metadata() {
  io::RunMetadata run;
  run.git_commit = "0123abcd";
  run.model_path = "examples/plate/model.toml";
  run.model_hash = "sha256:feedbeef";
  run.backend = "serial";
  run.precision = "double";
  run.time_step = 2.5e-8;
  return run;
}

// A value that differs in every index and is not a short binary fraction.
double sample_value(std::size_t sample, std::size_t node, std::size_t quantity, std::size_t component) {
  return std::sin(0.1 + static_cast<double>(sample)) * 1e-6 + static_cast<double>(node) / 3.0 +
         static_cast<double>(quantity) * 10.0 + static_cast<double>(component) / 7.0;
}

// Times and values for samples [first, first + count) of a history with n_nodes x n_quantities x dim.
void samples(std::size_t first, std::size_t count, std::size_t n_nodes, std::size_t n_quantities, std::size_t dim,
             std::vector<double>& times, std::vector<double>& values) {
  times.clear();
  values.clear();
  for (std::size_t s = first; s < first + count; ++s) {
    times.push_back(static_cast<double>(s) * 2.5e-8);
    for (std::size_t n = 0; n < n_nodes; ++n)
      for (std::size_t q = 0; q < n_quantities; ++q)
        for (std::size_t c = 0; c < dim; ++c) values.push_back(sample_value(s, n, q, c));
  }
}

std::vector<double> field(std::size_t n_values, double scale) {
  std::vector<double> values(n_values);
  for (std::size_t i = 0; i < n_values; ++i) values[i] = scale * std::cos(static_cast<double>(i) + scale);
  return values;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// ---- A minimal XML reader for the XDMF file: balanced tags, DataItems and Time values ----

struct DataItem {
  std::vector<hsize_t> dims;
  std::string file;     // before ':'
  std::string dataset;  // after ':'
};

struct Xdmf {
  std::vector<DataItem> items;
  std::vector<double> times;
  std::map<std::string, int> tag_counts;
  std::vector<std::string> topologies;
};

std::string attribute_value(const std::string& tag, const std::string& name) {
  const auto at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return {};
  const auto begin = at + name.size() + 3;
  return tag.substr(begin, tag.find('"', begin) - begin);
}

Xdmf parse_xdmf(const std::string& text) {
  Xdmf xdmf;
  std::vector<std::string> open;
  std::size_t at = 0;
  while ((at = text.find('<', at)) != std::string::npos) {
    const auto end = text.find('>', at);
    if (end == std::string::npos) throw Error("xdmf: unterminated tag");
    const std::string tag = text.substr(at, end - at + 1);
    if (tag[1] == '?' || tag[1] == '!') {
      at = end + 1;
      continue;
    }
    if (tag[1] == '/') {
      const std::string name = tag.substr(2, tag.size() - 3);
      if (open.empty() || open.back() != name) throw Error("xdmf: </" + name + "> closes nothing open");
      open.pop_back();
      at = end + 1;
      continue;
    }
    const std::string name = tag.substr(1, tag.find_first_of(" />", 1) - 1);
    ++xdmf.tag_counts[name];
    if (name == "Time") xdmf.times.push_back(std::stod(attribute_value(tag, "Value")));
    if (name == "Topology") xdmf.topologies.push_back(attribute_value(tag, "TopologyType"));
    // Only HDF items reference datasets (a HyperSlab wraps one, with its XML selection beside it).
    if (name == "DataItem" && attribute_value(tag, "Format") == "HDF") {
      DataItem item;
      std::istringstream dims(attribute_value(tag, "Dimensions"));
      for (hsize_t d; dims >> d;) item.dims.push_back(d);
      const auto close = text.find("</DataItem>", end);
      const std::string reference = text.substr(end + 1, close - end - 1);
      item.file = reference.substr(0, reference.find(':'));
      item.dataset = reference.substr(reference.find(':') + 1);
      xdmf.items.push_back(item);
    }
    if (tag[tag.size() - 2] != '/') open.push_back(name);
    at = end + 1;
  }
  if (!open.empty()) throw Error("xdmf: <" + open.back() + "> is never closed");
  return xdmf;
}

// Every DataItem names a dataset of the HDF5 file beside it, with the same dimensions.
void expect_references_valid(const Xdmf& xdmf, const fs::path& h5) {
  const File file(h5);
  ASSERT_FALSE(xdmf.items.empty());
  for (const auto& item : xdmf.items) {
    EXPECT_EQ(item.file, h5.filename().string());
    ASSERT_TRUE(file.exists(item.dataset)) << item.dataset;
    EXPECT_EQ(file.dims(item.dataset), item.dims) << item.dataset;
  }
}

// ---- Tests ----

class ResultFileTest : public ::testing::Test {
 protected:
  void SetUp() override { folder_ = test::temporary_directory("result_file"); }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }
  fs::path folder_;
};

TEST_F(ResultFileTest, WritesMeshHistoriesSnapshotsAndMetadata) {
  const Model model = quad_model();
  const fs::path path = folder_ / "run.h5";
  const std::size_t dim = 2;
  const auto n_nodes = static_cast<std::size_t>(model.mesh.n_nodes());
  const std::vector<Index> probe_nodes{3, 0, 7};
  const std::array<Quantity, 2> probe_quantities{Quantity::Displacement, Quantity::Velocity};
  const std::vector<Index> edge_nodes{14};
  const std::array<Quantity, 1> edge_quantities{Quantity::Acceleration};
  std::vector<double> times, values;
  std::vector<std::vector<double>> displacements, velocities;

  {
    ResultFile result = ResultFile::create(path, model, metadata(), io::SnapshotOptions{{}, true, true});
    EXPECT_TRUE(fs::exists(result.partial_path()));
    EXPECT_FALSE(fs::exists(path));
    const int probe = result.add_history("probe", probe_nodes, probe_quantities);
    const int edge = result.add_history("edge", edge_nodes, edge_quantities);
    // Appended in chunks of 1, 5 and 2 samples.
    std::size_t first = 0;
    for (std::size_t count : {1, 5, 2}) {
      samples(first, count, probe_nodes.size(), probe_quantities.size(), dim, times, values);
      result.append_samples(probe, times, values);
      samples(first, count, edge_nodes.size(), edge_quantities.size(), dim, times, values);
      result.append_samples(edge, times, values);
      first += count;
      result.flush();
    }
    for (int s = 0; s < 3; ++s) {
      displacements.push_back(field(n_nodes * dim, 1e-9 * (s + 1)));
      velocities.push_back(field(n_nodes * dim, 0.5 * (s + 1)));
      result.write_snapshot(1e-6 * s, displacements.back(), velocities.back());
    }
    result.set_progress(40, 0.25);
    EXPECT_FALSE(fs::exists(path));
    result.finish("complete", 41, 0.5);
    EXPECT_TRUE(result.finished());
  }
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(fs::path(path.string() + ".partial")));
  EXPECT_TRUE(fs::exists(folder_ / "run.xmf"));

  const File file(path);
  // Mesh.
  EXPECT_EQ(file.dims("/mesh/coordinates"), (std::vector<hsize_t>{n_nodes, dim}));
  EXPECT_EQ(file.doubles("/mesh/coordinates"), model.mesh.coordinates);
  EXPECT_EQ(file.longs("/mesh/node_labels"), std::vector<long long>(model.mesh.node_labels.begin(), model.mesh.node_labels.end()));
  EXPECT_EQ(file.string("/mesh/blocks/block_0", "element_type"), "quad4");
  EXPECT_EQ(file.string("/mesh/blocks/block_0", "xdmf_topology"), "Quadrilateral");
  EXPECT_EQ(file.dims("/mesh/blocks/block_0/connectivity"), (std::vector<hsize_t>{8, 4}));
  EXPECT_EQ(file.ints("/mesh/blocks/block_0/connectivity"), model.mesh.blocks[0].connectivity);
  EXPECT_EQ(file.longs("/mesh/blocks/block_0/labels"),
            std::vector<long long>(model.mesh.blocks[0].labels.begin(), model.mesh.blocks[0].labels.end()));
  EXPECT_EQ(file.integer("/mesh", "dimension"), 2);

  // Histories: all 8 samples, exactly, in the order appended.
  samples(0, 8, probe_nodes.size(), probe_quantities.size(), dim, times, values);
  EXPECT_EQ(file.dims("/histories/probe/values"), (std::vector<hsize_t>{8, 3, 2, 2}));
  EXPECT_EQ(file.doubles("/histories/probe/time"), times);
  EXPECT_EQ(file.doubles("/histories/probe/values"), values);
  EXPECT_EQ(file.longs("/histories/probe/node_labels"), (std::vector<long long>{1021, 1000, 1049}));
  EXPECT_EQ(file.ints("/histories/probe/node_indices"), probe_nodes);
  EXPECT_EQ(file.strings("/histories/probe", "quantities"), (std::vector<std::string>{"displacement", "velocity"}));
  EXPECT_EQ(file.integer("/histories/probe", "dimension"), 2);
  EXPECT_EQ(file.strings("/histories/probe/values", "units"), (std::vector<std::string>{"m", "m/s"}));
  samples(0, 8, 1, 1, dim, times, values);
  EXPECT_EQ(file.doubles("/histories/edge/values"), values);
  EXPECT_EQ(file.strings("/histories/edge", "quantities"), (std::vector<std::string>{"acceleration"}));

  // Snapshots.
  EXPECT_EQ(file.doubles("/snapshots/time"), (std::vector<double>{0.0, 1e-6, 2e-6}));
  EXPECT_EQ(file.integer("/snapshots", "all_nodes"), 1);
  for (std::size_t s = 0; s < 3; ++s) {
    const std::string name = "00000" + std::to_string(s);
    EXPECT_EQ(file.dims("/snapshots/displacement/" + name), (std::vector<hsize_t>{n_nodes, dim}));
    EXPECT_EQ(file.doubles("/snapshots/displacement/" + name), displacements[s]);
    EXPECT_EQ(file.doubles("/snapshots/velocity/" + name), velocities[s]);
    EXPECT_EQ(file.real("/snapshots/displacement/" + name, "time"), 1e-6 * static_cast<double>(s));
    const auto magnitude = file.doubles("/snapshots/magnitude/" + name);
    ASSERT_EQ(magnitude.size(), n_nodes);
    for (std::size_t n = 0; n < n_nodes; ++n)
      EXPECT_EQ(magnitude[n], std::sqrt(displacements[s][2 * n] * displacements[s][2 * n] +
                                        displacements[s][2 * n + 1] * displacements[s][2 * n + 1]));
  }

  // Metadata.
  EXPECT_EQ(file.string("/metadata", "status"), "complete");
  EXPECT_EQ(file.string("/metadata", "tremor_version"), TREMOR_VERSION);
  EXPECT_EQ(file.string("/metadata", "git_commit"), "0123abcd");
  EXPECT_EQ(file.string("/metadata", "model_path"), "examples/plate/model.toml");
  EXPECT_EQ(file.string("/metadata", "model_hash"), "sha256:feedbeef");
  EXPECT_EQ(file.string("/metadata", "model_title"), "result test");
  EXPECT_EQ(file.string("/metadata", "backend"), "serial");
  EXPECT_EQ(file.string("/metadata", "precision"), "double");
  EXPECT_EQ(file.real("/metadata", "time_step"), 2.5e-8);
  EXPECT_EQ(file.integer("/metadata", "step_count"), 41);
  EXPECT_EQ(file.real("/metadata", "wall_time"), 0.5);
  EXPECT_EQ(file.integer("/metadata", "format_version"), 1);
  EXPECT_EQ(file.string("/metadata", "created").size(), 20u);  // 2025-01-31T12:00:00Z

  // XDMF: a temporal collection of 3 grids whose references name existing datasets.
  const Xdmf xdmf = parse_xdmf(read_text(folder_ / "run.xmf"));
  EXPECT_EQ(xdmf.times, (std::vector<double>{0.0, 1e-6, 2e-6}));
  EXPECT_EQ(xdmf.tag_counts.at("Attribute"), 9);  // displacement, magnitude, velocity x 3
  EXPECT_EQ(xdmf.topologies, std::vector<std::string>(3, "Quadrilateral"));
  expect_references_valid(xdmf, path);
}

// A fluid's pressure (SnapshotOptions::pressure): one value per snapshot node, in Pa, NaN where no
// fluid element holds the node (kept as written), a scalar attribute in the XDMF file; a wrong
// count or a field not asked for is refused, and a file continued checks the field is there.
TEST_F(ResultFileTest, PressureIsAScalarFieldOfTheSnapshots) {
  const Model model = quad_model();
  const fs::path path = folder_ / "fluid.h5";
  const auto n_nodes = static_cast<std::size_t>(model.mesh.n_nodes());
  io::SnapshotOptions options;
  options.pressure = true;
  std::vector<std::vector<double>> pressures;
  {
    ResultFile result = ResultFile::create(path, model, metadata(), options);
    for (int s = 0; s < 2; ++s) {
      pressures.push_back(field(n_nodes, 1e3 * (s + 1)));
      pressures.back().front() = std::nan("");  // a node of the solid
      result.write_snapshot(1e-6 * s, field(n_nodes * 2, 1e-9), {}, pressures.back());
    }
    EXPECT_THROW(result.write_snapshot(2e-6, field(n_nodes * 2, 1e-9), {}, field(n_nodes * 2, 1.0)), Error);
    EXPECT_THROW(result.write_snapshot(2e-6, field(n_nodes * 2, 1e-9)), Error);  // no pressure
    result.finish("complete");
  }
  {
    const File file(path);  // (closed before the file is continued: HDF5 locks a file it has open)
    EXPECT_EQ(file.strings("/snapshots/pressure", "units"), std::vector<std::string>{"Pa"});
    for (std::size_t s = 0; s < 2; ++s) {
      const std::string name = "00000" + std::to_string(s);
      EXPECT_EQ(file.dims("/snapshots/pressure/" + name), std::vector<hsize_t>{n_nodes});
      const std::vector<double> written = file.doubles("/snapshots/pressure/" + name);
      ASSERT_EQ(written.size(), n_nodes);
      EXPECT_TRUE(std::isnan(written.front()));
      EXPECT_EQ(std::vector<double>(written.begin() + 1, written.end()),
                std::vector<double>(pressures[s].begin() + 1, pressures[s].end()));
    }
  }
  const Xdmf xdmf = parse_xdmf(read_text(folder_ / "fluid.xmf"));
  EXPECT_EQ(xdmf.tag_counts.at("Attribute"), 4);  // displacement, pressure x 2
  expect_references_valid(xdmf, path);
  // Continued without pressure, or without snapshots of it: of another run.
  EXPECT_THROW(ResultFile::reopen(path, model, metadata(), {}, {}, 2), Error);
  ResultFile::reopen(path, model, metadata(), options, {}, 2).finish("complete");
  ResultFile plain = ResultFile::create(folder_ / "plain.h5", model, metadata());
  EXPECT_THROW(plain.write_snapshot(0.0, field(n_nodes * 2, 1e-9), {}, field(n_nodes, 1.0)), Error);
  plain.finish("complete");
}

TEST_F(ResultFileTest, FlushedPartialFileIsReadable) {
  const Model model = quad_model();
  const fs::path path = folder_ / "flushed.h5";
  ResultFile result = ResultFile::create(path, model, metadata());
  const std::vector<Index> nodes{1, 2};
  const std::array<Quantity, 1> quantities{Quantity::Displacement};
  const int id = result.add_history("probe", nodes, quantities);
  std::vector<double> times, values;
  samples(0, 4, 2, 1, 2, times, values);
  result.append_samples(id, times, values);
  result.set_progress(4, 0.125);
  result.flush();
  // A copy of the `.partial` file as it is on disk now (what a killed process would leave).
  const fs::path copy = folder_ / "copy.h5";
  fs::copy_file(result.partial_path(), copy);
  const File file(copy);
  EXPECT_EQ(file.doubles("/histories/probe/values"), values);
  EXPECT_EQ(file.string("/metadata", "status"), "incomplete");
  EXPECT_EQ(file.integer("/metadata", "step_count"), 4);
  result.finish("complete");
}

// A `.partial` an unfinished run left (killed, without a checkpoint) is not written over by the
// next run to the same result: an HDF5 file there is kept beside it as `<stem>.killed.h5` (then
// `-2`, ...), byte for byte, and said; anything else there is replaced.
TEST_F(ResultFileTest, AKilledRunsPartialFileIsKeptAside) {
  const Model model = quad_model();
  const fs::path path = folder_ / "again.h5", partial = folder_ / "again.h5.partial";
  {
    ResultFile killed = ResultFile::create(path, model, metadata());
    killed.set_progress(7, 0.5);
    killed.flush();
    fs::copy_file(killed.partial_path(), folder_ / "left.h5");
    killed.finish("complete");
  }
  const std::string left = read_text(folder_ / "left.h5");
  for (const char* kept : {"again.killed.h5", "again.killed-2.h5"}) {
    fs::copy_file(folder_ / "left.h5", partial, fs::copy_options::overwrite_existing);
    const log::Quiet quiet;
    ResultFile result = ResultFile::create(path, model, metadata());
    const std::vector<std::string> warnings = log::take_warnings();
    ASSERT_EQ(warnings.size(), 1u);
    test::expect_contains(warnings[0], {"again.h5.partial was left by an earlier run", kept});
    EXPECT_EQ(read_text(folder_ / kept), left);
    EXPECT_EQ(File(folder_ / kept).integer("/metadata", "step_count"), 7);
    result.finish("complete");
    EXPECT_EQ(File(path).string("/metadata", "status"), "complete");
  }
  // Not an HDF5 file (a kill before the library wrote its signature): replaced, nothing said.
  { std::ofstream(partial) << "torn"; }
  const log::Quiet quiet;
  ResultFile result = ResultFile::create(path, model, metadata());
  EXPECT_TRUE(log::take_warnings().empty());
  EXPECT_FALSE(fs::exists(folder_ / "again.killed-3.h5"));
  result.finish("complete");
}

TEST_F(ResultFileTest, PreviousFileKeptUntilFinish) {
  const Model model = quad_model();
  const fs::path path = folder_ / "run.h5";
  { std::ofstream(path) << "previous results"; }
  ResultFile result = ResultFile::create(path, model, metadata());
  result.write_snapshot(0.0, field(30, 1.0));
  result.flush();
  EXPECT_EQ(read_text(path), "previous results");
  result.finish("complete");
  EXPECT_NE(read_text(path), "previous results");
  EXPECT_EQ(File(path).string("/metadata", "status"), "complete");
  EXPECT_FALSE(fs::exists(result.partial_path()));
}

TEST_F(ResultFileTest, DestructorWithoutFinishKeepsDataAsIncomplete) {
  const Model model = quad_model();
  const fs::path path = folder_ / "interrupted.h5";
  std::vector<double> times, values;
  samples(0, 3, 1, 1, 2, times, values);
  {
    ResultFile result = ResultFile::create(path, model, metadata());
    const std::vector<Index> nodes{5};
    const std::array<Quantity, 1> quantities{Quantity::Displacement};
    const int id = result.add_history("probe", nodes, quantities);
    result.append_samples(id, times, values);
    result.write_snapshot(0.0, field(30, 2.0));
    result.set_progress(3, 0.01);
  }
  ASSERT_TRUE(fs::exists(path));
  const File file(path);
  EXPECT_EQ(file.string("/metadata", "status"), "incomplete");
  EXPECT_EQ(file.integer("/metadata", "step_count"), 3);
  EXPECT_EQ(file.doubles("/histories/probe/values"), values);
  EXPECT_EQ(file.doubles("/snapshots/displacement/000000"), field(30, 2.0));
  EXPECT_TRUE(fs::exists(folder_ / "interrupted.xmf"));
}

TEST_F(ResultFileTest, FailedRunKeepsDataWithItsReason) {
  const Model model = quad_model();
  const fs::path path = folder_ / "failed.h5";
  ResultFile result = ResultFile::create(path, model, metadata());
  result.write_snapshot(0.0, field(30, 3.0));
  EXPECT_THROW(result.finish("exploded"), Error);  // not a status
  result.finish("failed: NaN at step 12 (node 1007)", 12, 0.1);
  result.finish("complete");  // ignored: already finished
  const File file(path);
  EXPECT_EQ(file.string("/metadata", "status"), "failed: NaN at step 12 (node 1007)");
  EXPECT_EQ(file.doubles("/snapshots/displacement/000000"), field(30, 3.0));
  EXPECT_THROW(result.write_snapshot(1.0, field(30, 3.0)), Error);
}

TEST_F(ResultFileTest, MixedAndGllBlocksInXdmf) {
  // quad-gll2 elements (4 linear sub-cells each) plus a block of two triangles on the same nodes.
  Model model;
  model.mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {2, 1}, ElementType::QuadGLL, 2);
  ElementBlock& triangles = model.mesh.block_for(ElementType::Tri3);
  triangles.connectivity = {0, 1, 5, 1, 2, 6};
  triangles.labels = {101, 102};
  const fs::path path = folder_ / "mixed.h5";
  ResultFile result = ResultFile::create(path, model, metadata());
  const auto n_values = static_cast<std::size_t>(model.mesh.n_nodes()) * 2;
  result.write_snapshot(0.0, field(n_values, 1.0));
  result.write_snapshot(1.0, field(n_values, 2.0));
  result.finish("complete");

  const File file(path);
  EXPECT_EQ(file.string("/mesh/blocks/block_0", "element_type"), "quad-gll2");
  EXPECT_EQ(file.dims("/mesh/blocks/block_0/connectivity"), (std::vector<hsize_t>{2, 9}));
  EXPECT_EQ(file.dims("/mesh/blocks/block_0/linear_cells"), (std::vector<hsize_t>{8, 4}));
  // The first sub-cell of element 0 spans GLL nodes (0,0) (1,0) (1,1) (0,1) of that element.
  const auto& gll = model.mesh.blocks[0].connectivity;
  const auto cells = file.ints("/mesh/blocks/block_0/linear_cells");
  EXPECT_EQ((std::vector<int>(cells.begin(), cells.begin() + 4)), (std::vector<int>{gll[0], gll[1], gll[4], gll[3]}));
  const Xdmf xdmf = parse_xdmf(read_text(result.xdmf_path()));
  EXPECT_EQ(xdmf.times.size(), 2u);
  // Two blocks: each time step is a spatial collection of two uniform grids.
  EXPECT_EQ(xdmf.topologies, (std::vector<std::string>{"Quadrilateral", "Triangle", "Quadrilateral", "Triangle"}));
  expect_references_valid(xdmf, path);
}

// GLL hexahedra of order 3 drawn as 27 hex8 sub-cells each: in ParaView's vertex order every
// sub-cell has a positive volume, and together they fill the body exactly once (their volumes
// sum to the box's, which overlapping or inverted cells would not give).
TEST_F(ResultFileTest, GllHexahedraAsLinearSubCellsInXdmf) {
  Model model;
  model.mesh = generate_box({0.0, 0.0, 0.0}, {2.0, 1.0, 0.5}, {2, 1, 1}, ElementType::HexGLL, 3);
  const auto& gll = model.mesh.blocks[0].connectivity;
  const std::vector<std::int32_t> cells = io::gll_linear_cells(ElementType::HexGLL, 3, gll);
  ASSERT_EQ(cells.size(), 2u * 27 * 8);
  double total = 0.0;
  for (std::size_t c = 0; c < cells.size() / 8; ++c) {
    // The generated box is affine, so each sub-cell is a box: volume from the edges at vertex 0
    // (to 1, 3 and 4 in hex8 order), their triple product.
    const auto x = [&](int v, int d) {
      return model.mesh.coordinates[static_cast<std::size_t>(cells[c * 8 + static_cast<std::size_t>(v)]) * 3 +
                                    static_cast<std::size_t>(d)];
    };
    std::array<std::array<double, 3>, 3> e{};
    for (int d = 0; d < 3; ++d) {
      e[0][static_cast<std::size_t>(d)] = x(1, d) - x(0, d);
      e[1][static_cast<std::size_t>(d)] = x(3, d) - x(0, d);
      e[2][static_cast<std::size_t>(d)] = x(4, d) - x(0, d);
    }
    const double volume = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                          e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                          e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
    EXPECT_GT(volume, 0.0) << "sub-cell " << c;
    total += volume;
  }
  EXPECT_NEAR(total, 1.0, 1e-12);  // 2 x 1 x 0.5; rounding of the GLL coordinates only

  const fs::path path = folder_ / "gll-hex.h5";
  ResultFile result = ResultFile::create(path, model, metadata());
  result.write_snapshot(0.0, field(static_cast<std::size_t>(model.mesh.n_nodes()) * 3, 1.0));
  result.finish("complete");
  const File file(path);
  EXPECT_EQ(file.string("/mesh/blocks/block_0", "element_type"), "hex-gll3");
  EXPECT_EQ(file.dims("/mesh/blocks/block_0/linear_cells"), (std::vector<hsize_t>{54, 8}));
  EXPECT_EQ(file.ints("/mesh/blocks/block_0/linear_cells"), (std::vector<int>(cells.begin(), cells.end())));
  const Xdmf xdmf = parse_xdmf(read_text(result.xdmf_path()));
  EXPECT_EQ(xdmf.topologies, (std::vector<std::string>{"Hexahedron"}));
  expect_references_valid(xdmf, path);
}

TEST_F(ResultFileTest, SnapshotsOnNodeSubset) {
  Model model = quad_model();
  model.mesh = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {2, 2, 2}, ElementType::Hex8);
  // The bottom two layers of nodes (z = 0 and 0.5): holds the 4 lower hexahedra.
  std::vector<Index> subset;
  for (Index n = 0; n < 18; ++n) subset.push_back(n);
  const fs::path path = folder_ / "subset.h5";
  ResultFile result = ResultFile::create(path, model, metadata(), io::SnapshotOptions{subset, true, false});
  EXPECT_THROW(result.write_snapshot(0.0, field(27 * 3, 1.0)), Error);  // all nodes: wrong size
  result.write_snapshot(0.0, field(18 * 3, 1.0));
  result.finish("complete");

  const File file(path);
  EXPECT_EQ(file.integer("/snapshots", "all_nodes"), 0);
  EXPECT_EQ(file.ints("/snapshots/node_indices"), subset);
  EXPECT_EQ(file.longs("/snapshots/node_labels").back(), 18);
  EXPECT_EQ(file.dims("/snapshots/displacement/000000"), (std::vector<hsize_t>{18, 3}));
  EXPECT_EQ(file.dims("/snapshots/mesh/coordinates"), (std::vector<hsize_t>{18, 3}));
  EXPECT_EQ(file.dims("/snapshots/mesh/block_0"), (std::vector<hsize_t>{4, 8}));
  const Xdmf xdmf = parse_xdmf(read_text(result.xdmf_path()));
  EXPECT_EQ(xdmf.topologies, std::vector<std::string>{"Hexahedron"});
  expect_references_valid(xdmf, path);
}

TEST_F(ResultFileTest, ScatteredSubsetIsShownAsPoints) {
  const Model model = quad_model();
  const std::vector<Index> subset{0, 7, 14};
  const fs::path path = folder_ / "points.h5";
  ResultFile result = ResultFile::create(path, model, metadata(), io::SnapshotOptions{subset, false, false});
  const std::vector<float> displacement(6, 0.5f);
  result.write_snapshot(0.0, std::span<const float>(displacement));
  result.finish("complete");
  const Xdmf xdmf = parse_xdmf(read_text(result.xdmf_path()));
  EXPECT_EQ(xdmf.topologies, std::vector<std::string>{"Polyvertex"});
  expect_references_valid(xdmf, path);
  EXPECT_EQ(File(path).doubles("/snapshots/displacement/000000"), std::vector<double>(6, 0.5));
}

TEST_F(ResultFileTest, NoSnapshotsWritesTheMeshAlone) {
  const Model model = quad_model();
  const fs::path path = folder_ / "mesh_only.h5";
  ResultFile::create(path, model, metadata()).finish("complete");
  const Xdmf xdmf = parse_xdmf(read_text(folder_ / "mesh_only.xmf"));
  EXPECT_TRUE(xdmf.times.empty());
  EXPECT_EQ(xdmf.tag_counts.at("Grid"), 1);
  expect_references_valid(xdmf, path);
}

TEST_F(ResultFileTest, StaticSolutionWithStressColumnsInXdmf) {
  const Model model = quad_model();
  const auto n = static_cast<std::size_t>(model.mesh.n_nodes());
  const fs::path path = folder_ / "static.h5";
  const std::vector<double> u = field(2 * n, 1e-3), stress = field(3 * n, 1e6), mises = field(n, 2e6),
                            reaction = field(2 * n, 5.0), history = {1.0, 0.1, 1e-9};
  io::StaticFields fields;
  fields.displacement = u;
  fields.stress = stress;
  fields.von_mises = mises;
  fields.reaction = reaction;
  fields.converged = true;
  fields.iterations = 2;
  fields.relative_residual = 1e-9;
  fields.tolerance = 1e-8;
  fields.preconditioner = "block_jacobi";
  fields.residual_history = history;
  {
    io::RunMetadata meta = metadata();
    meta.solver = "static";
    ResultFile file = ResultFile::create(path, model, meta);
    io::StaticFields short_stress = fields;
    short_stress.stress = std::span<const double>(stress).first(3 * n - 1);
    EXPECT_THROW(file.write_static(short_stress), Error);  // a wrong size is refused, naming the field
    file.write_static(fields);
    EXPECT_THROW(file.write_static(fields), Error);  // once per file
    file.finish("complete");
  }
  const File file(path);
  EXPECT_EQ(file.doubles("/static/displacement"), u);
  EXPECT_EQ(file.doubles("/static/stress"), stress);
  EXPECT_EQ(file.dims("/static/stress"), (std::vector<hsize_t>{n, 3}));
  EXPECT_EQ(file.doubles("/static/von_mises"), mises);
  EXPECT_EQ(file.doubles("/static/reaction_force"), reaction);
  EXPECT_EQ(file.doubles("/static/residual_history"), history);
  EXPECT_EQ(file.strings("/static/stress", "components"), (std::vector<std::string>{"xx", "yy", "xy"}));
  EXPECT_EQ(file.integer("/static", "iterations"), 2);
  EXPECT_EQ(file.integer("/static", "converged"), 1);
  EXPECT_EQ(file.string("/static", "preconditioner"), "block_jacobi");
  EXPECT_EQ(file.string("/metadata", "solver"), "static");
  const std::vector<double> magnitude = file.doubles("/static/magnitude");
  ASSERT_EQ(magnitude.size(), n);
  EXPECT_DOUBLE_EQ(magnitude[1], std::hypot(u[2], u[3]));
  const std::string text = read_text(folder_ / "static.xmf");
  const Xdmf xdmf = parse_xdmf(text);
  EXPECT_TRUE(xdmf.times.empty());
  expect_references_valid(xdmf, path);
  for (const char* name : {"displacement", "magnitude", "von_mises", "stress_xx", "stress_yy", "stress_xy",
                           "reaction_force"})
    EXPECT_NE(text.find(str("Attribute Name=\"", name, "\"")), std::string::npos) << name;
  // stress_yy is column 1 of the [n][3] stress: start (0, 1), stride (1, 1), count (n, 1).
  EXPECT_NE(text.find(str(">0 1 1 1 ", n, " 1</DataItem>")), std::string::npos);
}

TEST_F(ResultFileTest, RefusesBadInput) {
  const Model model = quad_model();
  ResultFile result = ResultFile::create(folder_ / "bad.h5", model, metadata());
  const std::vector<Index> nodes{1};
  const std::vector<Index> outside{15};
  const std::array<Quantity, 1> quantities{Quantity::Displacement};
  EXPECT_THROW(result.add_history("a/b", nodes, quantities), Error);
  EXPECT_THROW(result.add_history("", nodes, quantities), Error);
  EXPECT_THROW(result.add_history("probe", outside, quantities), Error);
  EXPECT_THROW(result.add_history("probe", {}, quantities), Error);
  const int id = result.add_history("probe", nodes, quantities);
  EXPECT_THROW(result.add_history("probe", nodes, quantities), Error);
  const std::vector<double> times{0.0};
  const std::vector<double> too_few{1.0};
  EXPECT_THROW(result.append_samples(id, times, too_few), Error);
  EXPECT_THROW(result.append_samples(id + 1, times, too_few), Error);
  EXPECT_THROW(result.write_snapshot(0.0, field(30, 1.0), field(30, 1.0)), Error);  // velocity not asked for
  EXPECT_THROW(ResultFile::create(folder_ / "unsorted.h5", model, metadata(), io::SnapshotOptions{{3, 1}, false, false}),
               Error);
  EXPECT_EQ(io::parse_quantity("U"), Quantity::Displacement);
  EXPECT_EQ(io::parse_quantity("acceleration"), Quantity::Acceleration);
  EXPECT_THROW(io::parse_quantity("stress"), Error);
  result.finish("complete");
}

TEST_F(ResultFileTest, MissingFolderIsNamed) {
  const Model model = quad_model();
  const fs::path path = folder_ / "no" / "such" / "run.h5";
  try {
    ResultFile::create(path, model, metadata());
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("does not exist"), std::string::npos) << error.what();
  }
}

TEST_F(ResultFileTest, HistoryAtPositionsStoresCoordinatesAndElements) {
  Model model = quad_model();
  model.mesh.blocks[0].labels[5] = 905;  // element labels are carried through
  const fs::path path = folder_ / "positions.h5";
  const std::vector<double> positions{0.25, 0.25, 1.3, 0.6};
  const std::vector<Index> elements{0, 5};
  const std::array<Quantity, 2> quantities{Quantity::Displacement, Quantity::Velocity};
  std::vector<double> times, values;
  {
    ResultFile result = ResultFile::create(path, model, metadata());
    const int id = result.add_position_history("probe", positions, elements, quantities);
    samples(0, 3, 2, 2, 2, times, values);
    result.append_samples(id, times, values);
    EXPECT_EQ(result.n_samples(id), 3);
    EXPECT_EQ(result.history_id("probe"), id);
    EXPECT_THROW(result.history_id("nothing"), Error);
    const std::vector<Index> outside{0, 99};
    EXPECT_THROW(result.add_position_history("bad", positions, outside, quantities), Error);
    const std::vector<double> short_positions{0.25, 0.25, 1.3};
    EXPECT_THROW(result.add_position_history("bad", short_positions, elements, quantities), Error);
    result.finish("complete");
  }
  const File file(path);
  EXPECT_EQ(file.doubles("/histories/probe/positions"), positions);
  EXPECT_EQ(file.dims("/histories/probe/positions"), (std::vector<hsize_t>{2, 2}));
  EXPECT_EQ(file.ints("/histories/probe/element_indices"), (std::vector<int>{0, 5}));
  EXPECT_EQ(file.longs("/histories/probe/element_labels"), (std::vector<long long>{1, 905}));
  EXPECT_FALSE(file.exists("/histories/probe/node_labels"));
  EXPECT_EQ(file.dims("/histories/probe/values"), (std::vector<hsize_t>{3, 2, 2, 2}));
  EXPECT_EQ(file.doubles("/histories/probe/values"), values);
}

// An interrupted run's file, continued from a checkpoint that counted 3 samples and 2 snapshots:
// what was written after them is dropped, and the continuation follows on as if never stopped.
TEST_F(ResultFileTest, ReopenTruncatesToTheCheckpointAndContinues) {
  const Model model = quad_model();
  const fs::path path = folder_ / "resumed.h5";
  const std::size_t dim = 2, n_nodes = static_cast<std::size_t>(model.mesh.n_nodes());
  const std::vector<Index> nodes{2, 4};
  const std::array<Quantity, 1> quantities{Quantity::Displacement};
  const io::SnapshotOptions options{{}, true, false};
  std::vector<double> times, values;
  {
    ResultFile result = ResultFile::create(path, model, metadata(), options);
    const int id = result.add_history("probe", nodes, quantities);
    samples(0, 5, 2, 1, dim, times, values);
    result.append_samples(id, times, values);
    for (int s = 0; s < 4; ++s) result.write_snapshot(1e-6 * s, field(n_nodes * dim, s + 1.0));
    result.finish("incomplete");  // as on SIGINT: renamed to the final path
  }
  ASSERT_TRUE(fs::exists(path));
  {
    ResultFile result = ResultFile::reopen(path, model, metadata(), options, {{"probe", 3}}, 2);
    EXPECT_FALSE(fs::exists(path));  // back to `.partial` until finished
    EXPECT_TRUE(fs::exists(result.partial_path()));
    const int id = result.history_id("probe");
    EXPECT_EQ(result.n_samples(id), 3);
    EXPECT_EQ(result.n_snapshots(), 2);
    samples(3, 3, 2, 1, dim, times, values);
    result.append_samples(id, times, values);
    result.write_snapshot(2e-6, field(n_nodes * dim, 30.0));
    result.finish("complete");
  }
  const File file(path);
  EXPECT_EQ(file.string("/metadata", "status"), "complete");
  samples(0, 6, 2, 1, dim, times, values);
  EXPECT_EQ(file.doubles("/histories/probe/time"), times);
  EXPECT_EQ(file.doubles("/histories/probe/values"), values);
  EXPECT_EQ(file.doubles("/snapshots/time"), (std::vector<double>{0.0, 1e-6, 2e-6}));
  EXPECT_EQ(file.doubles("/snapshots/displacement/000001"), field(n_nodes * dim, 2.0));
  EXPECT_EQ(file.doubles("/snapshots/displacement/000002"), field(n_nodes * dim, 30.0));
  EXPECT_FALSE(file.exists("/snapshots/displacement/000003"));
  EXPECT_FALSE(file.exists("/snapshots/magnitude/000003"));
  EXPECT_EQ(file.dims("/snapshots/magnitude/000002"), (std::vector<hsize_t>{n_nodes}));
  const Xdmf xdmf = parse_xdmf(read_text(fs::path(path).replace_extension(".xmf")));
  EXPECT_EQ(xdmf.times, (std::vector<double>{0.0, 1e-6, 2e-6}));
  expect_references_valid(xdmf, path);
}

// A model's shots: each shot's histories in its group, known as "<shot>/<name>"; reopened at a
// checkpoint in the first shot, the second shot's group (begun after it) is dropped, to be written
// again, and the first's histories truncated and continued.
TEST_F(ResultFileTest, ShotsHaveGroupsAndReopenDropsTheLaterOnes) {
  const Model model = quad_model();
  const fs::path path = folder_ / "shots.h5";
  const std::size_t dim = 2;
  const std::vector<Index> nodes{2, 4};
  const std::array<Quantity, 1> quantities{Quantity::Displacement};
  const std::vector<std::string> fired{"pzt1", "pzt2"};
  std::vector<double> times, values;
  {
    ResultFile result = ResultFile::create(path, model, metadata(), {});
    result.begin_shot("a", std::span<const std::string>(fired).first(1));
    const int a = result.add_history("probe", nodes, quantities);
    samples(0, 5, 2, 1, dim, times, values);
    result.append_samples(a, times, values);
    result.begin_shot("b", fired);
    const int b = result.add_history("probe", nodes, quantities);  // the same name in another shot
    result.append_samples(b, times, values);
    EXPECT_EQ(result.history_id("a/probe"), a);
    EXPECT_EQ(result.history_id("b/probe"), b);
    EXPECT_EQ(result.sample_counts(), (std::map<std::string, std::int64_t>{{"a/probe", 5}, {"b/probe", 5}}));
    EXPECT_THROW(result.begin_shot("c/d", fired), Error);
    result.finish("incomplete");
  }
  {
    const File file(path);
    EXPECT_EQ(file.doubles("/shots/a/histories/probe/time"), times);
    EXPECT_EQ(file.doubles("/shots/b/histories/probe/values"), values);
    EXPECT_EQ(file.strings("/shots/b", "transducers"), fired);
    EXPECT_FALSE(file.exists("/histories/probe"));
  }
  {
    ResultFile result = ResultFile::reopen(path, model, metadata(), {}, {{"a/probe", 3}}, 0);
    EXPECT_EQ(result.n_samples(result.history_id("a/probe")), 3);
    EXPECT_THROW((void)result.history_id("b/probe"), Error);
    result.begin_shot("a", std::span<const std::string>(fired).first(1));  // continued
    const int a = result.history_id("a/probe");
    samples(3, 3, 2, 1, dim, times, values);
    result.append_samples(a, times, values);
    result.begin_shot("b", fired);  // written again
    const int b = result.add_history("probe", nodes, quantities);
    samples(0, 2, 2, 1, dim, times, values);
    result.append_samples(b, times, values);
    result.finish("complete");
  }
  const File file(path);
  samples(0, 6, 2, 1, dim, times, values);
  EXPECT_EQ(file.doubles("/shots/a/histories/probe/time"), times);
  EXPECT_EQ(file.doubles("/shots/a/histories/probe/values"), values);
  samples(0, 2, 2, 1, dim, times, values);
  EXPECT_EQ(file.doubles("/shots/b/histories/probe/values"), values);
  // A checkpoint that counts part of a shot's histories is of another run.
  EXPECT_THROW(ResultFile::reopen(path, model, metadata(), {}, {{"a/probe", 3}, {"b/other", 1}}, 0), Error);
}

TEST_F(ResultFileTest, ReopenRefusesWhatTheFileCannotHold) {
  const Model model = quad_model();
  const fs::path path = folder_ / "short.h5";
  const std::vector<Index> nodes{2};
  const std::array<Quantity, 1> quantities{Quantity::Displacement};
  std::vector<double> times, values;
  {
    ResultFile result = ResultFile::create(path, model, metadata());
    const int id = result.add_history("probe", nodes, quantities);
    samples(0, 2, 1, 1, 2, times, values);
    result.append_samples(id, times, values);
    result.flush();
  }  // finished as incomplete
  const auto expect_error = [&](const std::map<std::string, std::int64_t>& counts, std::int64_t snapshots,
                                const io::SnapshotOptions& options, const std::string& piece) {
    try {
      ResultFile::reopen(path, model, metadata(), options, counts, snapshots);
      FAIL() << "expected an error about " << piece;
    } catch (const Error& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("short.h5"), std::string::npos) << message;
      EXPECT_NE(message.find(piece), std::string::npos) << message;
    }
  };
  expect_error({{"probe", 5}}, 0, {}, "history 'probe' holds 2 samples, fewer than the 5 the checkpoint counted");
  expect_error({{"probe", 1}}, 1, {}, "holds 0 snapshots, fewer than the 1");
  expect_error({{"probe", 1}, {"other", 0}}, 0, {}, "history 'other', which the file lacks");
  expect_error({}, 0, {}, "history 'probe' is not in the checkpoint");
  expect_error({{"probe", 1}}, 0, io::SnapshotOptions{{}, false, true}, "lack the field 'velocity'");
  // Each refusal put the file back under its own name, where the next attempt found it.
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(folder_ / "short.h5.partial"));
  fs::remove(path);
  expect_error({{"probe", 1}}, 0, {}, "no result file to continue");
}

// A refusal found only at the last history, at a history the file lacks or at the snapshots
// changes nothing: the file keeps its name and every sample and snapshot it held.
TEST_F(ResultFileTest, ReopenRefusedLateLeavesTheFileWhole) {
  const Model model = quad_model();
  const fs::path path = folder_ / "kept.h5";
  const std::size_t dim = 2, n_nodes = static_cast<std::size_t>(model.mesh.n_nodes());
  const std::vector<Index> alpha_nodes{2, 4}, beta_nodes{1};
  const std::array<Quantity, 1> quantities{Quantity::Displacement};
  const io::SnapshotOptions options{{}, true, false};
  std::vector<double> alpha_times, alpha_values, beta_times, beta_values;
  samples(0, 5, alpha_nodes.size(), 1, dim, alpha_times, alpha_values);
  samples(0, 4, beta_nodes.size(), 1, dim, beta_times, beta_values);
  {
    ResultFile result = ResultFile::create(path, model, metadata(), options);
    result.append_samples(result.add_history("alpha", alpha_nodes, quantities), alpha_times, alpha_values);
    result.append_samples(result.add_history("beta", beta_nodes, quantities), beta_times, beta_values);
    for (int s = 0; s < 4; ++s) result.write_snapshot(1e-6 * s, field(n_nodes * dim, s + 1.0));
    result.finish("incomplete");
  }
  const auto expect_refused = [&](const std::map<std::string, std::int64_t>& counts, std::int64_t snapshots,
                                  const io::SnapshotOptions& reopened, const std::string& piece) {
    try {
      ResultFile::reopen(path, model, metadata(), reopened, counts, snapshots);
      FAIL() << "expected an error about " << piece;
    } catch (const Error& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(piece), std::string::npos) << message;
    }
    ASSERT_TRUE(fs::exists(path)) << piece;
    EXPECT_FALSE(fs::exists(folder_ / "kept.h5.partial")) << piece;
    const File file(path);
    EXPECT_EQ(file.string("/metadata", "status"), "incomplete") << piece;
    EXPECT_EQ(file.dims("/histories/alpha/time"), (std::vector<hsize_t>{5})) << piece;
    EXPECT_EQ(file.dims("/histories/alpha/values"), (std::vector<hsize_t>{5, 2, 1, dim})) << piece;
    EXPECT_EQ(file.doubles("/histories/alpha/time"), alpha_times) << piece;
    EXPECT_EQ(file.doubles("/histories/alpha/values"), alpha_values) << piece;
    EXPECT_EQ(file.doubles("/histories/beta/time"), beta_times) << piece;
    EXPECT_EQ(file.doubles("/histories/beta/values"), beta_values) << piece;
    EXPECT_EQ(file.doubles("/snapshots/time"), (std::vector<double>{0.0, 1e-6, 2e-6, 3e-6})) << piece;
    EXPECT_EQ(file.doubles("/snapshots/displacement/000003"), field(n_nodes * dim, 4.0)) << piece;
    EXPECT_EQ(file.dims("/snapshots/magnitude/000003"), (std::vector<hsize_t>{n_nodes})) << piece;
  };
  expect_refused({{"alpha", 3}, {"beta", 9}}, 2, options, "history 'beta' holds 4 samples, fewer than the 9");
  expect_refused({{"alpha", 3}, {"beta", 2}, {"gamma", 0}}, 2, options, "history 'gamma', which the file lacks");
  expect_refused({{"alpha", 3}, {"beta", 2}}, 9, options, "holds 4 snapshots, fewer than the 9");
  expect_refused({{"alpha", 3}, {"beta", 2}}, 2, io::SnapshotOptions{{}, true, true}, "lack the field 'velocity'");
  expect_refused({{"alpha", 3}, {"beta", 2}}, 2, io::SnapshotOptions{{}, false, false},
                 "hold the field 'magnitude'");

  // The same file still continues from a checkpoint that fits it.
  {
    ResultFile result = ResultFile::reopen(path, model, metadata(), options, {{"alpha", 3}, {"beta", 2}}, 2);
    EXPECT_EQ(result.n_samples(result.history_id("alpha")), 3);
    EXPECT_EQ(result.n_samples(result.history_id("beta")), 2);
    EXPECT_EQ(result.n_snapshots(), 2);
    result.finish("complete");
  }
  const File file(path);
  EXPECT_EQ(file.dims("/histories/alpha/time"), (std::vector<hsize_t>{3}));
  EXPECT_EQ(file.dims("/histories/beta/values"), (std::vector<hsize_t>{2, 1, 1, dim}));
  EXPECT_FALSE(file.exists("/snapshots/displacement/000002"));
}

TEST_F(ResultFileTest, UnwritableFolderIsNamed) {
  // /proc refuses new files even to root, so this holds in any CI container.
  const Model model = quad_model();
  const fs::path path = "/proc/tremor_result_test.h5";
  try {
    ResultFile::create(path, model, metadata());
    FAIL() << "expected an error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find("cannot write the result file"), std::string::npos) << message;
  }
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace tremor

namespace tremor {
namespace TREMOR_TEST_FILE {

// A surface of one quadrilateral and one triangle in z = 0 (the boundary-element solver's order:
// the quadrilateral first), with labels 11 and 12.
Model surface_model() {
  Model model;
  model.title = "surface";
  model.mesh = Mesh(3);
  const double xyz[5][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {2, 0, 0}};
  for (int i = 0; i < 5; ++i) model.mesh.add_node(i + 1, xyz[i]);
  ElementBlock& quads = model.mesh.block_for(ElementType::Quad4);
  quads.connectivity = {0, 1, 2, 3};
  quads.labels = {11};
  ElementBlock& triangles = model.mesh.block_for(ElementType::Tri3);
  triangles.connectivity = {1, 4, 2};
  triangles.labels = {12};
  return model;
}

std::vector<std::complex<double>> complex_field(std::size_t n, double scale) {
  std::vector<std::complex<double>> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = {scale * std::cos(static_cast<double>(i) + scale), scale * std::sin(2.0 * static_cast<double>(i))};
  return values;
}

// /bem (docs/output-format.md): the setup, one row per frequency of every per-frequency dataset,
// real and imaginary parts apart, |u| per element, and an XDMF file whose every reference names
// a dataset of the right shape: a Mixed topology (a quadrilateral and a triangle), one time per
// frequency, cell-centred hyperslabs of row k, the interior points as a Polyvertex grid.
TEST_F(ResultFileTest, BemFrequenciesWithMixedCellsAndInteriorPoints) {
  const Model model = surface_model();
  const fs::path path = folder_ / "bem.h5";
  const std::vector<double> frequencies = {10.0, 20.0, 40.0};
  const std::vector<Index> connectivity = {0, 1, 2, 3, 1, 4, 2, -1};
  const std::vector<Label> labels = {11, 12};
  const std::vector<double> centroids = {0.5, 0.5, 0.0, 4.0 / 3.0, 1.0 / 3.0, 0.0}, normals = {0, 0, 1, 0, 0, 1},
                            areas = {1.0, 0.5}, points = {0.5, 0.5, -1.0};
  const std::vector<std::int32_t> prescribed = {0, 0, 1, 0, 0, 0};
  io::BemSetup setup;
  setup.frequencies = frequencies;
  setup.connectivity = connectivity;
  setup.element_labels = labels;
  setup.centroids = centroids;
  setup.normals = normals;
  setup.areas = areas;
  setup.prescribed = prescribed;
  setup.interior_points = points;
  setup.force_sets = {"foundation"};
  setup.solid = "open";
  setup.free_term = BemFreeTerm::Direct;
  setup.gauss = 8;
  setup.damping_ratio = 0.05;
  std::vector<std::vector<std::complex<double>>> u, t, interior, forces;
  {
    io::RunMetadata meta = metadata();
    meta.solver = "bem";
    ResultFile file = ResultFile::create(path, model, meta);
    io::BemSetup short_areas = setup;
    short_areas.areas = std::span<const double>(areas).first(1);
    EXPECT_THROW(file.start_bem(short_areas), Error);  // sizes are checked against the elements
    io::BemSetup constant_with_nodes = setup;
    const std::vector<double> one_position = {0.5, 0.5, 0.0};
    const std::vector<Index> one_element = {0};
    constant_with_nodes.node_positions = one_position;
    constant_with_nodes.node_elements = one_element;
    EXPECT_THROW(file.start_bem(constant_with_nodes), Error);  // constant elements have no separate nodes
    io::BemFrequencyFields early;
    EXPECT_THROW(file.write_bem_frequency(early), Error);  // before start_bem
    file.start_bem(setup);
    EXPECT_THROW(file.start_bem(setup), Error);  // once per file
    for (std::size_t k = 0; k < 2; ++k) {  // two of the three frequencies: a run stopped early
      u.push_back(complex_field(6, 1e-3 * static_cast<double>(k + 1)));
      t.push_back(complex_field(6, 1e4 * static_cast<double>(k + 1)));
      interior.push_back(complex_field(3, 1e-4 * static_cast<double>(k + 1)));
      forces.push_back(complex_field(3, 1e5 * static_cast<double>(k + 1)));
      io::BemFrequencyFields fields;
      fields.frequency = frequencies[k];
      fields.displacement = u.back();
      fields.traction = t.back();
      fields.interior = interior.back();
      fields.forces = forces.back();
      fields.reciprocal_condition = 0.1 * static_cast<double>(k + 1);
      fields.assembly_seconds = 1.5;
      fields.solve_seconds = 0.25;
      fields.interior_seconds = 0.125;
      io::BemFrequencyFields wrong = fields;
      wrong.traction = std::span<const std::complex<double>>(t.back()).first(5);
      EXPECT_THROW(file.write_bem_frequency(wrong), Error);  // a wrong size is refused
      file.write_bem_frequency(fields);
    }
    file.finish("failed: at 40 Hz: singular", 2, 3.0);
  }
  const File file(path);
  EXPECT_EQ(file.string("/metadata", "solver"), "bem");
  EXPECT_EQ(file.string("/metadata", "status"), "failed: at 40 Hz: singular");
  EXPECT_EQ(file.integer("/metadata", "step_count"), 2);
  EXPECT_EQ(file.string("/bem", "solid"), "open");
  EXPECT_EQ(file.string("/bem", "free_term"), "direct");
  // Constant elements: the attribute only; their nodal values are the per-element datasets.
  EXPECT_EQ(file.string("/bem", "elements"), "constant");
  EXPECT_FALSE(file.exists("/bem/nodes"));
  for (const char* name : {"node_displacement_real", "node_displacement_imag", "node_traction_real",
                           "node_traction_imag"})
    EXPECT_FALSE(file.exists(str("/bem/", name))) << name;
  EXPECT_EQ(file.string("/bem", "time_convention"), "exp(+i omega t)");
  EXPECT_EQ(file.integer("/bem", "gauss"), 8);
  EXPECT_EQ(file.real("/bem", "damping_ratio"), 0.05);
  EXPECT_EQ(file.doubles("/bem/frequencies_requested"), frequencies);
  EXPECT_EQ(file.doubles("/bem/frequency"), (std::vector<double>{10.0, 20.0}));
  EXPECT_EQ(file.doubles("/bem/reciprocal_condition"), (std::vector<double>{0.1, 0.2}));
  EXPECT_EQ(file.doubles("/bem/assembly_seconds"), (std::vector<double>{1.5, 1.5}));
  EXPECT_EQ(file.longs("/bem/elements/labels"), (std::vector<long long>{11, 12}));
  EXPECT_EQ(file.ints("/bem/elements/connectivity"), (std::vector<int>{0, 1, 2, 3, 1, 4, 2, -1}));
  EXPECT_EQ(file.ints("/bem/elements/prescribed"), (std::vector<int>{0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(file.doubles("/bem/elements/areas"), areas);
  EXPECT_EQ(file.doubles("/bem/elements/centroids"), centroids);
  // XDMF's Mixed list: 5 then the quadrilateral's 4 vertices, 4 then the triangle's 3.
  EXPECT_EQ(file.ints("/bem/elements/xdmf_cells"), (std::vector<int>{5, 0, 1, 2, 3, 4, 1, 4, 2}));
  EXPECT_EQ(file.dims("/bem/displacement_real"), (std::vector<hsize_t>{2, 2, 3}));
  EXPECT_EQ(file.dims("/bem/displacement_magnitude"), (std::vector<hsize_t>{2, 2}));
  EXPECT_EQ(file.dims("/bem/interior/displacement_imag"), (std::vector<hsize_t>{2, 1, 3}));
  EXPECT_EQ(file.dims("/bem/force_real"), (std::vector<hsize_t>{2, 1, 3}));
  EXPECT_EQ(file.strings("/bem/force_real", "element_sets"), (std::vector<std::string>{"foundation"}));
  const auto parts = [](const std::vector<std::vector<std::complex<double>>>& rows, bool imaginary) {
    std::vector<double> out;
    for (const auto& row : rows)
      for (const auto& z : row) out.push_back(imaginary ? z.imag() : z.real());
    return out;
  };
  EXPECT_EQ(file.doubles("/bem/displacement_real"), parts(u, false));
  EXPECT_EQ(file.doubles("/bem/displacement_imag"), parts(u, true));
  EXPECT_EQ(file.doubles("/bem/traction_real"), parts(t, false));
  EXPECT_EQ(file.doubles("/bem/traction_imag"), parts(t, true));
  EXPECT_EQ(file.doubles("/bem/interior/displacement_real"), parts(interior, false));
  EXPECT_EQ(file.doubles("/bem/force_imag"), parts(forces, true));
  EXPECT_EQ(file.doubles("/bem/interior/points"), points);
  const std::vector<double> magnitude = file.doubles("/bem/displacement_magnitude");
  ASSERT_EQ(magnitude.size(), 4u);
  // Row 1, element 1: (|u_x|^2 + |u_y|^2 + |u_z|^2)^1/2 of the second frequency's second element.
  EXPECT_DOUBLE_EQ(magnitude[3], std::sqrt(std::norm(u[1][3]) + std::norm(u[1][4]) + std::norm(u[1][5])));

  const std::string text = read_text(folder_ / "bem.xmf");
  const Xdmf xdmf = parse_xdmf(text);
  EXPECT_EQ(xdmf.times, (std::vector<double>{10.0, 20.0}));  // the frequencies solved
  expect_references_valid(xdmf, path);
  EXPECT_EQ(xdmf.topologies, (std::vector<std::string>{"Mixed", "Polyvertex", "Mixed", "Polyvertex"}));
  for (const char* name : {"displacement_real", "displacement_imag", "displacement_magnitude", "traction_real",
                           "traction_imag"})
    EXPECT_NE(text.find(str("Attribute Name=\"", name, "\" AttributeType=\"", std::string(name).find("magnitude") ==
                                                                                       std::string::npos
                                                                                   ? "Vector"
                                                                                   : "Scalar",
                            "\" Center=\"Cell\"")),
              std::string::npos)
        << name;
  // Row 1 of a [2][2][3] dataset: start (1, 0, 0), stride 1, count (1, 2, 3).
  EXPECT_NE(text.find(">1 0 0 1 1 1 1 2 3</DataItem>"), std::string::npos);
  // Row 0 of the [2][2] magnitudes, and of the interior points' [2][1] magnitudes.
  EXPECT_NE(text.find(">0 0 1 1 1 2</DataItem>"), std::string::npos);
  EXPECT_NE(text.find(">0 0 1 1 1 1</DataItem>"), std::string::npos);
  EXPECT_NE(text.find("Center=\"Node\""), std::string::npos);  // the interior points' fields

  // A run whose first frequency fails: /bem without rows, the XDMF file the surface alone.
  const fs::path none = folder_ / "none.h5";
  {
    ResultFile empty = ResultFile::create(none, model, metadata());
    empty.start_bem(setup);
    empty.finish("failed: at 10 Hz: singular", 0, 0.0);
  }
  EXPECT_EQ(File(none).dims("/bem/frequency"), (std::vector<hsize_t>{0}));
  const Xdmf surface = parse_xdmf(read_text(folder_ / "none.xmf"));
  EXPECT_TRUE(surface.times.empty());
  EXPECT_EQ(surface.topologies, (std::vector<std::string>{"Mixed"}));
  expect_references_valid(surface, none);
}


// Linear elements (docs/output-format.md, /bem): the collocation nodes (4 in the quadrilateral, 3
// in the triangle) with their element, the nodal displacement and traction per frequency beside
// the element-centre values, which keep the constant-element layout; the XDMF file stays
// cell-centred on the surface.
TEST_F(ResultFileTest, BemLinearElementsWriteTheirNodes) {
  const Model model = surface_model();
  const fs::path path = folder_ / "linear.h5";
  const std::vector<double> frequencies = {10.0, 20.0};
  const std::vector<Index> connectivity = {0, 1, 2, 3, 1, 4, 2, -1};
  const std::vector<Label> labels = {11, 12};
  const std::vector<double> centroids = {0.5, 0.5, 0.0, 4.0 / 3.0, 1.0 / 3.0, 0.0}, normals = {0, 0, 1, 0, 0, 1},
                            areas = {1.0, 0.5};
  const std::vector<std::int32_t> prescribed(6, 0);
  std::vector<double> positions(21);
  for (std::size_t k = 0; k < positions.size(); ++k) positions[k] = 0.125 * static_cast<double>(k);
  const std::vector<Index> node_elements = {0, 0, 0, 0, 1, 1, 1};
  io::BemSetup setup;
  setup.frequencies = frequencies;
  setup.connectivity = connectivity;
  setup.element_labels = labels;
  setup.centroids = centroids;
  setup.normals = normals;
  setup.areas = areas;
  setup.prescribed = prescribed;
  setup.solid = "inside";
  setup.free_term = BemFreeTerm::RigidBody;
  setup.elements = BemElements::Linear;
  setup.node_positions = positions;
  setup.node_elements = node_elements;
  std::vector<std::vector<std::complex<double>>> u, t, node_u, node_t;
  {
    ResultFile file = ResultFile::create(path, model, metadata());
    io::BemSetup without_nodes = setup;
    without_nodes.node_positions = {};
    without_nodes.node_elements = {};
    EXPECT_THROW(file.start_bem(without_nodes), Error);  // linear elements need their nodes
    io::BemSetup short_positions = setup;
    short_positions.node_positions = std::span<const double>(positions).first(20);
    EXPECT_THROW(file.start_bem(short_positions), Error);
    const std::vector<Index> outside = {0, 0, 0, 0, 1, 1, 2};
    io::BemSetup bad_element = setup;
    bad_element.node_elements = outside;
    EXPECT_THROW(file.start_bem(bad_element), Error);  // element 2 of 2
    file.start_bem(setup);
    for (std::size_t k = 0; k < frequencies.size(); ++k) {
      const double scale = static_cast<double>(k + 1);
      u.push_back(complex_field(6, 1e-3 * scale));
      t.push_back(complex_field(6, 1e4 * scale));
      node_u.push_back(complex_field(21, 2e-3 * scale));
      node_t.push_back(complex_field(21, 3e4 * scale));
      io::BemFrequencyFields fields;
      fields.frequency = frequencies[k];
      fields.displacement = u.back();
      fields.traction = t.back();
      fields.node_displacement = node_u.back();
      fields.node_traction = node_t.back();
      io::BemFrequencyFields no_nodes = fields;
      no_nodes.node_traction = {};
      EXPECT_THROW(file.write_bem_frequency(no_nodes), Error);  // every frequency has its nodal solution
      file.write_bem_frequency(fields);
    }
    file.finish("complete", 2, 1.0);
  }
  const File file(path);
  EXPECT_EQ(file.string("/bem", "elements"), "linear");
  EXPECT_EQ(file.dims("/bem/nodes/positions"), (std::vector<hsize_t>{7, 3}));
  EXPECT_EQ(file.doubles("/bem/nodes/positions"), positions);
  EXPECT_EQ(file.string("/bem/nodes/positions", "units"), "m");
  EXPECT_EQ(file.ints("/bem/nodes/element"), (std::vector<int>{0, 0, 0, 0, 1, 1, 1}));
  for (const char* name : {"node_displacement_real", "node_displacement_imag", "node_traction_real",
                           "node_traction_imag"})
    EXPECT_EQ(file.dims(str("/bem/", name)), (std::vector<hsize_t>{2, 7, 3})) << name;
  EXPECT_EQ(file.string("/bem/node_traction_real", "units"), "Pa");
  const auto parts = [](const std::vector<std::vector<std::complex<double>>>& rows, bool imaginary) {
    std::vector<double> out;
    for (const auto& row : rows)
      for (const auto& z : row) out.push_back(imaginary ? z.imag() : z.real());
    return out;
  };
  EXPECT_EQ(file.doubles("/bem/node_displacement_real"), parts(node_u, false));
  EXPECT_EQ(file.doubles("/bem/node_displacement_imag"), parts(node_u, true));
  EXPECT_EQ(file.doubles("/bem/node_traction_real"), parts(node_t, false));
  EXPECT_EQ(file.doubles("/bem/node_traction_imag"), parts(node_t, true));
  // The per-element datasets as for constant elements: the centre values, one row per element.
  EXPECT_EQ(file.dims("/bem/displacement_real"), (std::vector<hsize_t>{2, 2, 3}));
  EXPECT_EQ(file.doubles("/bem/displacement_real"), parts(u, false));
  EXPECT_EQ(file.doubles("/bem/traction_imag"), parts(t, true));

  const std::string text = read_text(folder_ / "linear.xmf");
  const Xdmf xdmf = parse_xdmf(text);
  EXPECT_EQ(xdmf.times, frequencies);
  expect_references_valid(xdmf, path);
  EXPECT_EQ(xdmf.topologies, (std::vector<std::string>{"Mixed", "Mixed"}));
  EXPECT_EQ(text.find("node_"), std::string::npos);  // cell data only
}

}  // namespace
}  // namespace tremor
