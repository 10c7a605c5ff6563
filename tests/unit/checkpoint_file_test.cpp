// The checkpoint file (io/checkpoint_file.hpp): written atomically, read back exactly, and a run
// with other settings is told what differs.
#include "tremor/io/checkpoint_file.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/support.hpp"
#include "tremor/core/error.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

namespace fs = std::filesystem;

io::Checkpoint sample_checkpoint() {
  io::Checkpoint c;
  c.model_hash = "fnv1a64:0123456789abcdef";
  c.precision = "float";
  c.operator_kind = "matrix_free";
  c.backend = "serial";
  c.time_step = 6.274e-8;
  c.total_steps = 80;
  c.checkpoint_every = 20;
  c.step = 40;
  c.wall_time = 1.25;
  // Values that are not short binary fractions, and a float widened to double.
  for (int i = 0; i < 7; ++i) {
    c.previous.push_back(std::sin(0.3 * i) * 1e-9);
    c.current.push_back(static_cast<double>(static_cast<float>(std::cos(0.7 * i) * 1e-9)));
  }
  c.receivers.push_back(io::CheckpointPending{true, 40, {1.0 / 3.0, 2.0}, {-1e-300, 5.0}});
  c.receivers.push_back(io::CheckpointPending{});
  c.snapshot = io::CheckpointPending{true, 40, {0.1, 0.2, 0.3}, {0.4, 0.5, 0.6}};
  c.history_samples = {{"probe", 41}, {"surface", 20}};
  c.n_snapshots = 3;
  return c;
}

void expect_same_pending(const io::CheckpointPending& a, const io::CheckpointPending& b) {
  EXPECT_EQ(a.active, b.active);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.before, b.before);
  EXPECT_EQ(a.at, b.at);
}

TEST(CheckpointFile, RoundTripIsExactAndLeavesNoTemporary) {
  const fs::path folder = test::temporary_directory("checkpoint_file");
  const fs::path path = folder / "run.h5.checkpoint";
  const io::Checkpoint written = sample_checkpoint();
  io::write_checkpoint(path, written);
  // Overwriting an existing checkpoint replaces it (the rename of the new one).
  io::Checkpoint newer = written;
  newer.step = 60;
  io::write_checkpoint(path, newer);
  EXPECT_FALSE(fs::exists(folder / "run.h5.checkpoint.tmp"));

  const io::Checkpoint read = io::read_checkpoint(path);
  EXPECT_EQ(read.model_hash, written.model_hash);
  EXPECT_EQ(read.precision, "float");
  EXPECT_EQ(read.operator_kind, "matrix_free");
  EXPECT_EQ(read.backend, "serial");
  EXPECT_EQ(read.time_step, written.time_step);
  EXPECT_EQ(read.total_steps, 80);
  EXPECT_EQ(read.checkpoint_every, 20);
  EXPECT_EQ(read.step, 60);
  EXPECT_EQ(read.wall_time, 1.25);
  EXPECT_EQ(read.previous, written.previous);  // exact: float64 stored as float64
  EXPECT_EQ(read.current, written.current);
  ASSERT_EQ(read.receivers.size(), 2u);
  expect_same_pending(read.receivers[0], written.receivers[0]);
  expect_same_pending(read.receivers[1], written.receivers[1]);
  expect_same_pending(read.snapshot, written.snapshot);
  EXPECT_EQ(read.history_samples, written.history_samples);
  EXPECT_EQ(read.n_snapshots, 3);
  EXPECT_TRUE(io::checkpoint_mismatches(read, written).empty());
  EXPECT_TRUE(read.memory_offsets.empty());  // none written: none read
  EXPECT_TRUE(read.memory.empty());
  EXPECT_TRUE(read.fluid_current.empty());  // (a solid run's: no fluid group)
  fs::remove_all(folder);
}

// A checkpoint at rest before any history was declared (the first batch of shots stepped together
// at its start): no history names, written and read back (HDF5 refused the empty list's buffer).
TEST(CheckpointFile, ACheckpointOfNoHistoryRoundTrips) {
  const fs::path folder = test::temporary_directory("checkpoint_no_history");
  const fs::path path = folder / "run.h5.checkpoint";
  io::Checkpoint written = sample_checkpoint();
  written.history_samples.clear();
  io::write_checkpoint(path, written);
  EXPECT_TRUE(io::read_checkpoint(path).history_samples.empty());
  fs::remove_all(folder);
}

// The memory variables of attenuating elements, by element: read back exactly; offsets that do not
// partition the values are a torn or altered file.
TEST(CheckpointFile, MemoryVariablesRoundTrip) {
  const fs::path folder = test::temporary_directory("checkpoint_memory");
  const fs::path path = folder / "run.h5.checkpoint";
  io::Checkpoint written = sample_checkpoint();
  written.memory_offsets = {0, 3, 3, 5};  // three elements, the second without
  written.memory = {1.0 / 3.0, -2e-310, 7.0, static_cast<double>(0.1f), 1e300};
  written.pml_nodes = {2, 5};
  written.pml_node_values = {1.5, -2.5, 1e-30, 4.0};
  io::write_checkpoint(path, written);
  const io::Checkpoint read = io::read_checkpoint(path);
  EXPECT_EQ(read.memory_offsets, written.memory_offsets);
  EXPECT_EQ(read.memory, written.memory);
  EXPECT_EQ(read.pml_nodes, written.pml_nodes);
  EXPECT_EQ(read.pml_node_values, written.pml_node_values);

  written.memory_offsets = {0, 3, 2, 5};
  io::write_checkpoint(path, written);
  try {
    (void)io::read_checkpoint(path);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("memory_variables: offsets that do not partition"), std::string::npos)
        << error.what();
  }
  fs::remove_all(folder);
}

// A fluid's potential at its two levels: read back exactly; levels of different sizes are a torn
// or altered file.
TEST(CheckpointFile, AFluidsPotentialRoundTrips) {
  const fs::path folder = test::temporary_directory("checkpoint_fluid");
  const fs::path path = folder / "run.h5.checkpoint";
  io::Checkpoint written = sample_checkpoint();
  written.fluid_previous = {1.0 / 3.0, -2e-310, static_cast<double>(0.1f)};
  written.fluid_current = {1e300, 0.0, -7.5};
  io::write_checkpoint(path, written);
  const io::Checkpoint read = io::read_checkpoint(path);
  EXPECT_EQ(read.fluid_previous, written.fluid_previous);
  EXPECT_EQ(read.fluid_current, written.fluid_current);
  EXPECT_TRUE(read.fluid_pml_offsets.empty());  // none written: none read
  // A PML in the fluid: its elements' values by the model's elements, its nodes' (2 each).
  written.fluid_pml_offsets = {0, 0, 3, 3, 4};
  written.fluid_pml = {1.5, -2.0, 1e-300, 4.0};
  written.fluid_pml_nodes = {2, 7};
  written.fluid_pml_node_values = {0.25, -0.5, 1.0 / 3.0, 8.0};
  io::write_checkpoint(path, written);
  const io::Checkpoint with_pml = io::read_checkpoint(path);
  EXPECT_EQ(with_pml.fluid_pml_offsets, written.fluid_pml_offsets);
  EXPECT_EQ(with_pml.fluid_pml, written.fluid_pml);
  EXPECT_EQ(with_pml.fluid_pml_nodes, written.fluid_pml_nodes);
  EXPECT_EQ(with_pml.fluid_pml_node_values, written.fluid_pml_node_values);
  written.fluid_pml_node_values.pop_back();  // 3 values for 2 nodes
  io::write_checkpoint(path, written);
  test::expect_contains(test::error_of([&] { (void)io::read_checkpoint(path); }),
                        {"fluid: 3 PML node values for 2 nodes"});
  written.fluid_pml_node_values.push_back(8.0);
  written.fluid_pml_offsets.back() = 5;  // offsets past the values
  io::write_checkpoint(path, written);
  test::expect_contains(test::error_of([&] { (void)io::read_checkpoint(path); }),
                        {"fluid: offsets that do not partition its 4 values"});
  written.fluid_pml_offsets.clear();
  written.fluid_previous.pop_back();
  io::write_checkpoint(path, written);
  try {
    (void)io::read_checkpoint(path);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("fluid: the potential at 2 and 3 nodes"), std::string::npos)
        << error.what();
  }
  fs::remove_all(folder);
}

TEST(CheckpointFile, MismatchesNameEachDifference) {
  const io::Checkpoint saved = sample_checkpoint();
  io::Checkpoint now = saved;
  now.precision = "double";
  now.time_step = 6.2740000001e-8;
  now.step = 0;  // the state does not count
  const auto mismatches = io::checkpoint_mismatches(saved, now);
  ASSERT_EQ(mismatches.size(), 2u);
  EXPECT_EQ(mismatches[0], "precision: the checkpoint's run had float, this one has double");
  EXPECT_NE(mismatches[1].find("time step: the checkpoint's run had 6.274e-08 s, this one has 6.2740000001"),
            std::string::npos)
      << mismatches[1];
  now = saved;
  now.model_hash = "fnv1a64:ffff";
  now.total_steps = 81;
  EXPECT_EQ(io::checkpoint_mismatches(saved, now).size(), 2u);
}

TEST(CheckpointFile, ReadErrorsNameTheFile) {
  const fs::path folder = test::temporary_directory("checkpoint_errors");
  const auto expect_error = [](const fs::path& path, const std::string& piece) {
    try {
      io::read_checkpoint(path);
      FAIL() << "expected an error";
    } catch (const Error& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(path.string()), std::string::npos) << message;
      EXPECT_NE(message.find(piece), std::string::npos) << message;
    }
  };
  expect_error(folder / "none.checkpoint", "no such checkpoint");
  { std::ofstream(folder / "text.checkpoint") << "not hdf5"; }
  expect_error(folder / "text.checkpoint", "not a tremor checkpoint");
  fs::remove_all(folder);
}

}  // namespace
}  // namespace tremor
