#pragma once
// Reading a whole input file, with the messages every reader gives for a missing, unreadable or
// non-regular file (a folder, a device such as /dev/zero: refused, never read forever); writing
// an output file atomically.
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

// Replaces `path` with `contents` so that a failure or a crash at any moment leaves either the
// previous file (or none) or the complete new one, never a torn one: writes `<path>.tmp` in the
// same folder (every write checked), syncs it, renames it over `path`, then syncs the folder (the
// rename itself). On failure removes `<path>.tmp` and throws tremor::Error naming `path`, the
// kind of file (`what`, "block file") and the system's reason (a missing folder, a full disk);
// an existing `path` is then untouched. A `<path>.tmp` left by a crash is replaced.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents, const char* what);

// The same protocol for a writer that creates its file by name (the HDF5 library): `write` gets
// the temporary path, created empty (so a missing or unwritable folder is reported as above
// before it runs), and writes the whole file there, throwing on failure; what it throws is
// rethrown after the temporary is removed.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(const std::filesystem::path& temporary)>& write, const char* what);

}  // namespace tremor::io
