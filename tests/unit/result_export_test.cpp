#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/io/export_csv.hpp"
#include "tremor/io/export_traces.hpp"
#include "tremor/io/result_file.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/model/model.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

namespace fs = std::filesystem;
using io::Quantity;

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;
};

Csv read_csv(const fs::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  Csv csv;
  std::string line;
  for (bool first = true; std::getline(in, line); first = false) {
    std::istringstream cells(line);
    std::string cell;
    std::vector<double> row;
    while (std::getline(cells, cell, ',')) {
      if (first) {
        csv.header.push_back(cell);
      } else {
        char* end = nullptr;
        row.push_back(std::strtod(cell.c_str(), &end));
        EXPECT_EQ(*end, '\0') << "not a number: " << cell;
      }
    }
    if (!first) csv.rows.push_back(row);
  }
  return csv;
}

class ResultExportTest : public ::testing::Test {
 protected:
  void SetUp() override { folder_ = test::temporary_directory("result_export"); }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }
  fs::path folder_;
};

TEST_F(ResultExportTest, OneCsvPerHistoryMatchingTheValues) {
  Model model;
  model.mesh = generate_box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {1, 1, 1}, ElementType::Hex8);
  for (std::size_t i = 0; i < model.mesh.node_labels.size(); ++i)
    model.mesh.node_labels[i] = 500 + static_cast<Label>(i);
  const fs::path result_path = folder_ / "run.h5";
  const std::vector<Index> nodes{6, 2};
  const std::array<Quantity, 2> quantities{Quantity::Displacement, Quantity::Acceleration};
  const std::vector<Index> single{0};
  const std::array<Quantity, 1> velocity{Quantity::Velocity};
  std::vector<double> all_times, all_values;
  {
    io::ResultFile result = io::ResultFile::create(result_path, model, io::RunMetadata{});
    const int probe = result.add_history("probe", nodes, quantities);
    const int corner = result.add_history("corner", single, velocity);
    // 3 chunks of 4 samples; values spanning many magnitudes and signs.
    for (int chunk = 0; chunk < 3; ++chunk) {
      std::vector<double> times, values, corner_values;
      for (int s = 0; s < 4; ++s) {
        const int sample = 4 * chunk + s;
        times.push_back(1e-7 * sample + 1e-9 / 3.0);
        for (std::size_t v = 0; v < nodes.size() * quantities.size() * 3; ++v)
          values.push_back(std::pow(-1.7, static_cast<double>(v)) * std::exp(-static_cast<double>(sample)) / 3.0e5);
        for (int c = 0; c < 3; ++c) corner_values.push_back(0.1 * sample + c);
      }
      result.append_samples(probe, times, values);
      result.append_samples(corner, times, corner_values);
      all_times.insert(all_times.end(), times.begin(), times.end());
      all_values.insert(all_values.end(), values.begin(), values.end());
    }
    result.finish("complete");
  }

  const fs::path out = folder_ / "csv" / "nested";  // created by the export
  const io::ExportSummary summary = io::export_histories(result_path, out);
  EXPECT_EQ(summary.status, "complete");
  ASSERT_EQ(summary.files.size(), 2u);
  EXPECT_EQ(summary.files[0], out / "corner.csv");
  EXPECT_EQ(summary.files[1], out / "probe.csv");
  for (const auto& entry : fs::directory_iterator(out))
    EXPECT_EQ(entry.path().extension(), ".csv") << "temporary file left: " << entry.path();

  const Csv probe = read_csv(out / "probe.csv");
  EXPECT_EQ(probe.header, (std::vector<std::string>{"time", "506_ux", "506_uy", "506_uz", "506_ax", "506_ay", "506_az",
                                                    "502_ux", "502_uy", "502_uz", "502_ax", "502_ay", "502_az"}));
  ASSERT_EQ(probe.rows.size(), 12u);
  for (std::size_t s = 0; s < 12; ++s) {
    ASSERT_EQ(probe.rows[s].size(), 13u);
    // %.17g round-trips a double exactly; 1e-15 relative leaves room for a strtod that does not.
    EXPECT_NEAR(probe.rows[s][0], all_times[s], 1e-15 * std::abs(all_times[s]));
    for (std::size_t v = 0; v < 12; ++v) {
      const double expected = all_values[s * 12 + v];
      EXPECT_NEAR(probe.rows[s][v + 1], expected, 1e-15 * std::abs(expected)) << s << " " << v;
    }
  }
  const Csv corner = read_csv(out / "corner.csv");
  EXPECT_EQ(corner.header, (std::vector<std::string>{"time", "500_vx", "500_vy", "500_vz"}));
  ASSERT_EQ(corner.rows.size(), 12u);
  EXPECT_EQ(corner.rows[11][3], 0.1 * 11 + 2);
}

TEST_F(ResultExportTest, IncompleteRunExportsWhatWasWritten) {
  Model model;
  model.mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {1, 1}, ElementType::Quad4);
  const fs::path result_path = folder_ / "run.h5";
  {
    io::ResultFile result = io::ResultFile::create(result_path, model, io::RunMetadata{});
    const std::vector<Index> nodes{3};
    const std::array<Quantity, 1> quantities{Quantity::Displacement};
    const int id = result.add_history("top", nodes, quantities);
    const std::vector<double> times{0.0, 1.0};
    const std::vector<double> values{1.0, 2.0, 3.0, 4.0};
    result.append_samples(id, times, values);
  }  // no finish: incomplete
  const io::ExportSummary summary = io::export_histories(result_path, folder_);
  EXPECT_EQ(summary.status, "incomplete");
  const Csv csv = read_csv(folder_ / "top.csv");
  EXPECT_EQ(csv.header, (std::vector<std::string>{"time", "4_ux", "4_uy"}));
  EXPECT_EQ(csv.rows, (std::vector<std::vector<double>>{{0.0, 1.0, 2.0}, {1.0, 3.0, 4.0}}));
}

TEST_F(ResultExportTest, HistoryAtPositionsHasNumberedColumns) {
  Model model;
  model.mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {2, 2}, ElementType::Quad4);
  const fs::path result_path = folder_ / "positions.h5";
  {
    io::ResultFile result = io::ResultFile::create(result_path, model, io::RunMetadata{});
    const std::vector<double> positions{0.25, 0.25, 0.7, 0.9};
    const std::vector<Index> elements{0, 3};
    const std::array<Quantity, 2> quantities{Quantity::Displacement, Quantity::Acceleration};
    const int id = result.add_position_history("points", positions, elements, quantities);
    const std::vector<double> times{0.0, 0.5};
    std::vector<double> values;
    for (int v = 0; v < 16; ++v) values.push_back(v / 3.0);  // not short binary fractions
    result.append_samples(id, times, values);
    result.finish("complete");
  }
  const io::ExportSummary summary = io::export_histories(result_path, folder_ / "csv");
  ASSERT_EQ(summary.files.size(), 1u);
  const Csv csv = read_csv(folder_ / "csv" / "points.csv");
  EXPECT_EQ(csv.header, (std::vector<std::string>{"time", "p1_ux", "p1_uy", "p1_ax", "p1_ay", "p2_ux", "p2_uy",
                                                  "p2_ax", "p2_ay"}));
  ASSERT_EQ(csv.rows.size(), 2u);
  // %.17g reads back to the same double.
  for (std::size_t s = 0; s < 2; ++s)
    for (std::size_t v = 0; v < 8; ++v) EXPECT_EQ(csv.rows[s][v + 1], static_cast<double>(s * 8 + v) / 3.0);
  EXPECT_EQ(io::position_columns(1, {"velocity"}, 3), (std::vector<std::string>{"p1_vx", "p1_vy", "p1_vz"}));
}

// A fluid's pressure is a scalar: one value a point, a column each (<point>_p), with the file's
// unit Pa; a history of pressure beside motion is refused.
TEST_F(ResultExportTest, PressureHasOneColumnAPoint) {
  Model model;
  model.mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {2, 2}, ElementType::Quad4);
  const fs::path result_path = folder_ / "pressure.h5";
  {
    io::ResultFile result = io::ResultFile::create(result_path, model, io::RunMetadata{});
    const std::vector<Index> nodes{4, 7};
    const std::array<Quantity, 1> pressure{Quantity::Pressure};
    const int id = result.add_history("hydrophone", nodes, pressure);
    const std::vector<double> times{0.0, 0.5, 1.0};
    const std::vector<double> values{1.0 / 3.0, 2.0, 3.0, 4.0, 5.0, 6.0};  // [sample][point]
    result.append_samples(id, times, values);
    test::expect_contains(test::error_of([&] { result.append_samples(id, times, std::vector<double>(12, 0.0)); }),
                          {"12 values for 3 samples; expected 6"});
    const std::array<Quantity, 2> mixed{Quantity::Displacement, Quantity::Pressure};
    test::expect_contains(test::error_of([&] { (void)result.add_history("both", nodes, mixed); }),
                          {"history 'both' records pressure beside motion"});
    result.finish("complete");
  }
  const io::ExportSummary summary = io::export_histories(result_path, folder_ / "csv");
  ASSERT_EQ(summary.files.size(), 1u);
  const Csv csv = read_csv(folder_ / "csv" / "hydrophone.csv");
  EXPECT_EQ(csv.header, (std::vector<std::string>{"time", "5_p", "8_p"}));  // node labels from 1
  ASSERT_EQ(csv.rows.size(), 3u);
  EXPECT_EQ(csv.rows[0][1], 1.0 / 3.0);
  EXPECT_EQ(csv.rows[2][2], 6.0);
  EXPECT_EQ(io::position_columns(2, {"pressure"}, 3), (std::vector<std::string>{"p1_p", "p2_p"}));
  EXPECT_EQ(std::string(io::quantity_unit(Quantity::Pressure)), "Pa");
}

TEST_F(ResultExportTest, ErrorsNameTheFile) {
  const fs::path missing = folder_ / "missing.h5";
  try {
    io::export_histories(missing, folder_);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(missing.string()), std::string::npos) << error.what();
  }
  const fs::path text = folder_ / "text.h5";
  { std::ofstream(text) << "not hdf5"; }
  try {
    io::export_histories(text, folder_);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(text.string()), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("not an HDF5"), std::string::npos) << error.what();
  }
}

// A result file of a 2D square whose shots record a history at a node, each (shot, history set) of
// `sets`, with a one-element capture of array "probe" when `capture`.
fs::path shots_file(const fs::path& path, const std::vector<std::pair<std::string, std::string>>& sets, bool capture) {
  Model model;
  model.mesh = generate_rectangle({0.0, 0.0}, {1.0, 1.0}, {1, 1}, ElementType::Quad4);
  io::ResultFile result = io::ResultFile::create(path, model, io::RunMetadata{});
  const std::vector<Index> nodes{3};
  const std::array<Quantity, 1> quantities{Quantity::Displacement};
  const std::vector<std::string> fired{"probe.0"};
  for (const auto& [shot, set] : sets) {
    result.begin_shot(shot, fired);
    result.append_samples(result.add_history(set, nodes, quantities), std::vector<double>{0.0, 1.0},
                          std::vector<double>{1.0, 2.0, 3.0, 4.0});
  }
  if (capture) {
    io::FmcHeader header;
    header.array = "probe";
    header.dim = 2;
    header.n_samples = 2;
    header.elements = {{0.5, 1.0, 0.0}};
    header.dt = 1.0;
    header.shots = fired;
    result.write_fmc_row(header, 0, std::vector<double>{5.0, 6.0});
  }
  result.finish("complete");
  return path;
}

// The message of `export_it`'s refusal, the folder checked empty: nothing written.
template <class Export>
std::string refusal(const fs::path& out, Export&& export_it) {
  try {
    export_it();
  } catch (const Error& error) {
    EXPECT_TRUE(!fs::exists(out) || fs::is_empty(out)) << "written before the refusal";
    return error.what();
  }
  ADD_FAILURE() << "expected a refusal";
  return {};
}

// Two outputs of one name are refused before anything is written, naming both sources: a shot named
// "fmc" beside a capture, a shot and a set that join as another shot and set do, shots that become
// one ASDF tag.
TEST_F(ResultExportTest, OutputsOfOneNameAreRefusedNamingBoth) {
  const fs::path out = folder_ / "out";
  const fs::path fmc = shots_file(folder_ / "fmc.h5", {{"fmc", "probe"}}, true);
  std::string message = refusal(out, [&] { io::export_histories(fmc, out); });
  for (const char* part : {"history set 'probe' of shot 'fmc' and the full-matrix capture of array 'probe' both "
                           "become CSV file", "fmc.probe.csv", "nothing was written"})
    EXPECT_NE(message.find(part), std::string::npos) << message;

  const fs::path joined = shots_file(folder_ / "joined.h5", {{"a", "b.c"}, {"a.b", "c"}}, false);
  message = refusal(out, [&] { io::export_histories(joined, out); });
  EXPECT_NE(message.find("history set 'b.c' of shot 'a' and history set 'c' of shot 'a.b' both become CSV file"),
            std::string::npos) << message;
  message = refusal(out, [&] { io::export_traces(joined, out, io::TraceFormat::Su); });
  EXPECT_NE(message.find("both become SU file"), std::string::npos) << message;
  message = refusal(out, [&] { io::export_traces(joined, out, io::TraceFormat::Sac); });
  EXPECT_NE(message.find("point 4 of history set 'b.c' of shot 'a' and point 4 of history set 'c' of shot 'a.b'"),
            std::string::npos) << message;

  const fs::path tags = shots_file(folder_ / "tags.h5", {{"probe.1", "probe"}, {"probe_1", "probe"}}, false);
  message = refusal(out, [&] { io::export_traces(tags, out, io::TraceFormat::Asdf); });
  EXPECT_NE(message.find("shot 'probe.1' and shot 'probe_1' both become ASDF tag 'probe_1_displacement'"),
            std::string::npos) << message;
  EXPECT_NO_THROW(io::export_histories(tags, out));  // probe.1.probe.csv and probe_1.probe.csv
}

}  // namespace
}  // namespace tremor
