// io::write_file_atomically (io/file.hpp): the file is the complete new one or, after any failure,
// the previous one; the temporary never outlives the call; every error names the file and why.
#include "tremor/io/file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

#include "support/support.hpp"
#include "tremor/core/error.hpp"
#include "tremor/mesh/adjacency.hpp"
#include "tremor/mesh/generate.hpp"
#include "tremor/partition/block_file.hpp"
#include "tremor/partition/partition.hpp"

namespace tremor {
namespace TREMOR_TEST_FILE {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) { return io::read_file(path.string(), "test file"); }

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// The names in `folder`, sorted: what a call left behind.
std::string listing(const fs::path& folder) {
  std::string names;
  std::vector<std::string> entries;
  for (const auto& entry : fs::directory_iterator(folder)) entries.push_back(entry.path().filename().string());
  std::sort(entries.begin(), entries.end());
  for (const auto& name : entries) names += name + " ";
  return names;
}

// The message of the tremor::Error `call` throws ("" when it throws none).
template <class Call>
std::string error_of(Call&& call) {
  try {
    call();
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override { folder_ = test::temporary_directory("io_file"); }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
};

TEST_F(AtomicWrite, WritesAndReplaces) {
  const fs::path path = folder_ / "out.txt";
  io::write_file_atomically(path, "first version\n", "test file");
  EXPECT_EQ(read_text(path), "first version\n");
  // Shorter, then longer and with NUL bytes: the new contents exactly, nothing of the old.
  io::write_file_atomically(path, "v2", "test file");
  EXPECT_EQ(read_text(path), "v2");
  const std::string binary = std::string("a\0b\0c", 5) + std::string(100000, 'x');
  io::write_file_atomically(path, binary, "test file");
  EXPECT_EQ(read_text(path), binary);
  io::write_file_atomically(path, "", "test file");
  EXPECT_EQ(read_text(path), "");
  EXPECT_EQ(listing(folder_), "out.txt ");
}

TEST_F(AtomicWrite, ReplacesATemporaryLeftByACrash) {
  const fs::path path = folder_ / "out.txt";
  write_text(folder_ / "out.txt.tmp", "torn");
  io::write_file_atomically(path, "whole", "test file");
  EXPECT_EQ(read_text(path), "whole");
  EXPECT_EQ(listing(folder_), "out.txt ");
}

TEST_F(AtomicWrite, RelativePathInTheWorkingFolder) {
  const fs::path before = fs::current_path();
  fs::current_path(folder_);
  io::write_file_atomically("plain.txt", "here", "test file");  // no folder part: the folder is "."
  fs::current_path(before);
  EXPECT_EQ(read_text(folder_ / "plain.txt"), "here");
}

TEST_F(AtomicWrite, MissingFolderIsNamedAndNothingIsCreated) {
  const fs::path path = folder_ / "no" / "such" / "out.txt";
  const std::string message = error_of([&] { io::write_file_atomically(path, "x", "block file"); });
  EXPECT_NE(message.find(path.string() + ": cannot write the block file"), std::string::npos) << message;
  EXPECT_NE(message.find("the folder " + (folder_ / "no" / "such").string() + " does not exist"), std::string::npos)
      << message;
  EXPECT_EQ(listing(folder_), "");

  // The writer of the callback form is not called at all.
  bool called = false;
  const std::string callback_message =
      error_of([&] { io::write_file_atomically(path, [&](const fs::path&) { called = true; }, "checkpoint"); });
  EXPECT_FALSE(called);
  EXPECT_NE(callback_message.find(path.string() + ": cannot write the checkpoint"), std::string::npos)
      << callback_message;
  EXPECT_EQ(listing(folder_), "");
}

// A folder that cannot be written in, in a way that holds for root too (mode bits do not): the
// "folder" is a regular file.
TEST_F(AtomicWrite, FolderThatIsAFileGivesTheSystemsReason) {
  write_text(folder_ / "plain", "not a folder");
  const fs::path path = folder_ / "plain" / "out.txt";
  const std::string message = error_of([&] { io::write_file_atomically(path, "x", "test file"); });
  EXPECT_NE(message.find(path.string() + ": cannot write the test file: the folder " + (folder_ / "plain").string() +
                         " is not a folder"),
            std::string::npos)
      << message;
  EXPECT_EQ(read_text(folder_ / "plain"), "not a folder");
  EXPECT_EQ(listing(folder_), "plain ");
}

TEST_F(AtomicWrite, ReadOnlyFolderGivesTheSystemsReason) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes in read-only folders; FolderThatIsAFile covers the error path";
  const fs::path locked = folder_ / "locked";
  fs::create_directory(locked);
  write_text(locked / "out.txt", "old");
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  const std::string message = error_of([&] { io::write_file_atomically(locked / "out.txt", "new", "test file"); });
  fs::permissions(locked, fs::perms::owner_all);
  EXPECT_NE(message.find("(Permission denied)"), std::string::npos) << message;
  EXPECT_EQ(read_text(locked / "out.txt"), "old");
  EXPECT_EQ(listing(locked), "out.txt ");
}

// Lowers the limit on the size of files this process writes, so that a write fails part way as on
// a full disk (EFBIG instead of ENOSPC; SIGXFSZ, which would end the process, ignored meanwhile).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    active_ = setrlimit(RLIMIT_FSIZE, &lowered) == 0;
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_handler_);
  }
  bool active() const { return active_; }

 private:
  rlimit saved_{};
  void (*previous_handler_)(int) = nullptr;
  bool active_ = false;
};

TEST_F(AtomicWrite, FailedWriteKeepsTheOldFile) {
  const fs::path path = folder_ / "out.txt";
  write_text(path, "old contents");
  std::string message;
  {
    const FileSizeLimit limit(4096);
    ASSERT_TRUE(limit.active());
    message = error_of([&] { io::write_file_atomically(path, std::string(20000, 'n'), "test file"); });
  }
  EXPECT_NE(message.find(path.string() + ": cannot write the test file: cannot write " + path.string() + ".tmp ("),
            std::string::npos)
      << message;
  EXPECT_EQ(read_text(path), "old contents");
  EXPECT_EQ(listing(folder_), "out.txt ");
}

TEST_F(AtomicWrite, TargetThatIsNotARegularFileIsRefusedBeforeAnything) {
  // A folder, a symbolic link or a FIFO is refused before the temporary exists (docs/running.md,
  // "What tremor promises about your files"): never replaced, never followed, never written into.
  const fs::path path = folder_ / "taken";
  fs::create_directory(path);
  write_text(path / "inside", "kept");
  const std::string message = error_of([&] { io::write_file_atomically(path, "x", "test file"); });
  EXPECT_NE(message.find(path.string() + ": refusing to write the test file there: it is a folder"),
            std::string::npos)
      << message;
  const fs::path link = folder_ / "link";
  fs::create_symlink(path / "inside", link);
  const std::string link_message = error_of([&] { io::write_file_atomically(link, "x", "test file"); });
  EXPECT_NE(link_message.find("it is a symbolic link"), std::string::npos) << link_message;
  EXPECT_EQ(read_text(path / "inside"), "kept");
  fs::remove(link);
  EXPECT_EQ(read_text(path / "inside"), "kept");
  EXPECT_EQ(listing(folder_), "taken ");
}

TEST_F(AtomicWrite, TemporaryThatCannotBeCreatedIsNotRemoved) {
  // Something else occupies the temporary's name: the call fails without touching it or the target.
  const fs::path path = folder_ / "out.txt";
  write_text(path, "old");
  fs::create_directory(folder_ / "out.txt.tmp");
  write_text(folder_ / "out.txt.tmp" / "inside", "theirs");
  const std::string message = error_of([&] { io::write_file_atomically(path, "new", "test file"); });
  EXPECT_NE(message.find(path.string() + ".tmp: refusing to write the test file there: it is a folder"),
            std::string::npos)
      << message;
  EXPECT_EQ(read_text(path), "old");
  EXPECT_EQ(read_text(folder_ / "out.txt.tmp" / "inside"), "theirs");
}

TEST_F(AtomicWrite, WriterGetsAnEmptyTemporaryBesideTheTarget) {
  const fs::path path = folder_ / "data.h5";
  write_text(path, "old");
  io::write_file_atomically(
      path,
      [&](const fs::path& temporary) {
        EXPECT_EQ(temporary.parent_path(), folder_);
        EXPECT_NE(temporary, path);
        EXPECT_TRUE(fs::is_regular_file(temporary));
        EXPECT_EQ(fs::file_size(temporary), 0u);
        EXPECT_EQ(read_text(path), "old");  // the target is untouched while the writer runs
        write_text(temporary, "written by name");
      },
      "test file");
  EXPECT_EQ(read_text(path), "written by name");
  EXPECT_EQ(listing(folder_), "data.h5 ");
}

TEST_F(AtomicWrite, WriterErrorIsRethrownAndTheOldFileKept) {
  const fs::path path = folder_ / "data.h5";
  write_text(path, "old");
  const std::string message = error_of([&] {
    io::write_file_atomically(
        path,
        [](const fs::path& temporary) {
          write_text(temporary, "half");
          throw Error(temporary.string() + ": cannot close (disk full?)");
        },
        "test file");
  });
  EXPECT_EQ(message, (folder_ / "data.h5.tmp").string() + ": cannot close (disk full?)");
  EXPECT_EQ(read_text(path), "old");
  EXPECT_EQ(listing(folder_), "data.h5 ");
}

// What `tremor partition` does: the encoded block file written atomically reads back as the
// partition, and the encoding is byte for byte what write_block_file writes.
TEST_F(AtomicWrite, BlockFileReadsBack) {
  const Mesh mesh = generate_rectangle({0.0, 0.0}, {1.0, 0.5}, {40, 20}, ElementType::Tri3);
  const NodeGraph graph = node_graph(mesh);
  const partition::BlockPartition blocks = partition::partition_mesh(mesh, graph);
  ASSERT_GT(blocks.n_blocks, 1);  // loads between blocks are in the file
  const std::string bytes = partition::encode_block_file(blocks);
  const fs::path path = folder_ / "mesh.blocks";
  io::write_file_atomically(path, bytes, "block file");
  const partition::BlockPartition read = partition::read_block_file(path, graph);
  EXPECT_EQ(read.slot_node, blocks.slot_node);
  EXPECT_EQ(read.load_start, blocks.load_start);
  EXPECT_EQ(read.fingerprint, blocks.fingerprint);
  EXPECT_EQ(read.partitioner, blocks.partitioner);
  partition::write_block_file(folder_ / "direct.blocks", blocks);
  EXPECT_EQ(read_text(folder_ / "direct.blocks"), bytes);
}

}  // namespace
}  // namespace tremor
