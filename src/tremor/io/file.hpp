#pragma once
// Reading a whole input file, with the messages every reader gives for a missing, unreadable or
// non-regular file (a folder, a device such as /dev/zero: refused, never read forever); the rules
// every output follows (docs/running.md, "What tremor promises about your files"): an output is
// a regular file or absent, it is written under a temporary name locked before anything is
// truncated, and renamed to its own name only when complete.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace tremor::io {

// The contents of `path`. `what` names the kind of file in messages ("Gmsh mesh file"); a file
// larger than `max_bytes` is refused with both sizes.
std::string read_file(const std::string& path, const char* what, std::uintmax_t max_bytes = UINTMAX_MAX);

// fsync: `path`'s data and metadata (or, for a folder, its entries: a rename in it) reach the
// disk. Throws tremor::Error naming the path when it cannot be opened or synced.
void sync_file(const std::filesystem::path& path);

// Refuses, before any work, an output that is neither absent nor a regular file: a symbolic link,
// a character or block device, a FIFO, a socket or a folder would be replaced by tremor's file
// (or, for a device, written into). Also refuses a folder that does not exist. `what` names the
// output in messages ("result file").
void check_output_path(const std::filesystem::path& path, const char* what);

// An exclusive lock on the file an output is written into before it gets its own name, taken
// before anything there is truncated, so a second writer of the same output is refused and the
// first one's file stays whole. flock(2) on a descriptor held for the claim's life: the lock
// follows the file through renames and goes with the process, however it ends.
class OutputClaim {
 public:
  OutputClaim() = default;
  OutputClaim(OutputClaim&& other) noexcept;
  OutputClaim& operator=(OutputClaim&& other) noexcept;
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;
  ~OutputClaim();

  // Opens `file` (created empty when absent and `create`), refuses it unless it is a regular file
  // (a symbolic link is not followed), and locks it. Another process's lock is refused naming
  // `output` (the name the user gave) and `file`. Nothing is truncated.
  static OutputClaim lock(const std::filesystem::path& file, bool create, const std::filesystem::path& output,
                          const char* what);

  // Cuts the claimed file to `bytes` (0: empties a stale temporary of an earlier run).
  void truncate(std::uint64_t bytes = 0);
  // The file will be written: the claim no longer removes it. Until then a claim that created
  // its file removes it when it ends (a command refused after claiming its output leaves nothing).
  void keep() { created_ = false; }
  // Makes the claimed file at least `bytes` long, its blocks allocated (posix_fallocate): space a
  // writer then cannot be refused. Returns 0, or the system's error (ENOSPC, EFBIG).
  int reserve(std::uint64_t bytes) const;
  bool held() const { return fd_ >= 0; }
  const std::filesystem::path& file() const { return file_; }

 private:
  void release() noexcept;  // unlocks (removing the file when the claim created it and never kept it)

  int fd_ = -1;
  bool created_ = false;
  std::filesystem::path file_;
};

// Replaces `path` with `contents` so that a failure or a crash at any moment leaves either the
// previous file (or none) or the complete new one, never a torn one: writes `<path>.tmp` in the
// same folder (every write checked), syncs it, renames it over `path`, then syncs the folder (the
// rename itself). `path` must be absent or a regular file and `<path>.tmp` is claimed
// (OutputClaim) before it is truncated: a second writer of the same file is refused. On failure
// removes `<path>.tmp` and throws tremor::Error naming `path`, the kind of file (`what`, "block
// file") and the system's reason (a missing folder, a full disk); an existing `path` is then
// untouched. A `<path>.tmp` left by a crash is replaced.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents, const char* what);

// The same protocol for a writer that creates its file by name (the HDF5 library): `write` gets
// the temporary path, created empty (so a missing or unwritable folder is reported as above
// before it runs), and writes the whole file there, throwing on failure; what it throws is
// rethrown after the temporary is removed.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(const std::filesystem::path& temporary)>& write, const char* what);

}  // namespace tremor::io
