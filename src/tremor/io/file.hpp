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

// check_output_path for an output written by write_file_atomically: `path` and its `<path>.tmp`,
// before a run whose output comes late (a checkpoint, after many steps) has done any work.
void check_atomic_output_path(const std::filesystem::path& path, const char* what);

// Whether `a` and `b` name one file: the same device and inode when both exist (however spelled,
// through links or hard links); otherwise whether they would be one file once created (the same
// path after std::filesystem::weakly_canonical: two outputs spelled differently).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

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

// Whether another process holds an exclusive lock on `path` (flock): a writer of it (OutputClaim,
// FileUpdate), which readers locking as HDF5 does are refused by. False when it cannot be opened.
bool locked_by_a_writer(const std::filesystem::path& path);

// A change to an existing file made so that a failure at any moment leaves the file as it was:
// the file is held (an exclusive lock), copied beside itself, the copy changed, synced and renamed
// over the file only when complete (tremor image adding maps to a result file). Readers that opened
// the file before keep reading the old one. A symbolic link is followed: the file it names is
// changed, the link stays. Killed mid-way, it leaves `<file>.tmp`, which the next update replaces.
class FileUpdate {
 public:
  FileUpdate() = default;
  FileUpdate(FileUpdate&& other) noexcept;
  FileUpdate& operator=(FileUpdate&& other) noexcept;
  FileUpdate(const FileUpdate&) = delete;
  FileUpdate& operator=(const FileUpdate&) = delete;
  ~FileUpdate();  // removes a copy never renamed over the file, then lets go of the file

  // Holds `path`: refused (a tremor::Error naming `path` and the kind of file, `what`) when it is
  // missing, not a regular file, read-only, or another process has it open with a lock: a writer
  // of it (tremor's OutputClaim), a reader through HDF5 (which locks what it opens), another
  // update. The caller then reads the file without a lock of its own (which would conflict with
  // this one).
  static FileUpdate hold(const std::filesystem::path& path, const char* what);

  // The file changed (for a symbolic link, the file it names).
  const std::filesystem::path& file() const { return file_; }

  // Copies the file to `<file>.tmp` (claimed as OutputClaim does; a reflink where the file system
  // shares blocks, else copy_file_range, else reads and writes), with the file's permissions;
  // `change` changes the copy, named by its path, throwing on failure; the copy is synced. On any
  // failure the copy is removed and a tremor::Error says why and that the file is unchanged.
  void prepare(const std::function<void(const std::filesystem::path& copy)>& change);
  // Renames the prepared copy over the file, then syncs the folder. Refused, the copy removed and
  // the file unchanged, when the file was replaced since it was held (a run that finished writing it).
  void commit();

 private:
  [[noreturn]] void abandon(const std::string& why);  // removes the copy, throws saying the file is unchanged
  void release() noexcept;

  void discard() noexcept;  // removes the copy (while its claim still holds it), then lets the claim go

  int fd_ = -1;  // the file, locked
  const char* what_ = "file";
  std::filesystem::path path_, file_, copy_;
  OutputClaim copy_claim_;
  bool prepared_ = false;
};

}  // namespace tremor::io
