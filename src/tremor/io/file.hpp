#pragma once
// Reading a whole input file, with the messages every reader gives for a missing, unreadable or
// non-regular file (a folder, a device such as /dev/zero: refused, never read forever).
#include <cstdint>
#include <filesystem>
#include <string>

namespace tremor::io {

// The contents of `path`. `what` names the kind of file in messages ("Gmsh mesh file"); a file
// larger than `max_bytes` is refused with both sizes.
std::string read_file(const std::string& path, const char* what, std::uintmax_t max_bytes = UINTMAX_MAX);

// fsync: `path`'s data and metadata (or, for a folder, its entries: a rename in it) reach the
// disk. Throws tremor::Error naming the path when it cannot be opened or synced.
void sync_file(const std::filesystem::path& path);

}  // namespace tremor::io
