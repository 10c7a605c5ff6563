#include "tremor/io/file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <unistd.h>

#include "tremor/core/error.hpp"

namespace tremor::io {

std::string read_file(const std::string& path, const char* what, std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) throw Error(str(path, ": no such ", what));
  if (!fs::is_regular_file(status)) throw Error(str(path, ": not a regular file; expected a ", what));
  const std::uintmax_t size = fs::file_size(path, error);
  if (error) throw Error(str(path, ": cannot read the ", what, " (", error.message(), ")"));
  if (size > max_bytes)
    throw Error(str(path, ": ", size, " bytes is too large for a ", what, " (the limit is ", max_bytes, ")"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(str(path, ": cannot open the ", what, " (", std::strerror(errno), ")"));
  std::string bytes(static_cast<std::size_t>(size), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(size)) || in.gcount() != static_cast<std::streamsize>(size))
    throw Error(str(path, ": cannot read the ", what, " (it changed or shrank while being read)"));
  return bytes;
}

void sync_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw Error(str(path.string(), ": cannot open to sync (", std::strerror(errno), ")"));
  const int status = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (status != 0) throw Error(str(path.string(), ": cannot sync (", std::strerror(error), "; disk full?)"));
}

}  // namespace tremor::io
