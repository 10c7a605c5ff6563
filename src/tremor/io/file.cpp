#include "tremor/io/file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

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

namespace {

namespace fs = std::filesystem;

fs::path temporary_for(const fs::path& path) {
  fs::path temporary = path;
  temporary += ".tmp";
  return temporary;
}

fs::path folder_of(const fs::path& path) { return path.parent_path().empty() ? fs::path(".") : path.parent_path(); }

[[noreturn]] void fail(const fs::path& path, const char* what, const std::string& why) {
  throw Error(str(path.string(), ": cannot write the ", what, ": ", why));
}

// Creates (or truncates) the temporary; the message says why not in the user's terms.
int create_temporary(const fs::path& path, const fs::path& temporary, const char* what) {
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd >= 0) return fd;
  const int error = errno;
  std::error_code ignored;
  const fs::path folder = folder_of(path);
  if (error == ENOENT && !fs::exists(folder, ignored))
    fail(path, what, str("the folder ", folder.string(), " does not exist"));
  fail(path, what, str("cannot create ", temporary.string(), " (", std::strerror(error), ")"));
}

void remove_quietly(const fs::path& temporary) {
  std::error_code ignored;
  fs::remove(temporary, ignored);
}

// Renames the finished temporary over `path`, then makes the rename durable.
void replace_with(const fs::path& path, const fs::path& temporary, const char* what) {
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    remove_quietly(temporary);
    fail(path, what, str("cannot rename ", temporary.string(), " over it (", std::strerror(error), ")"));
  }
  sync_file(folder_of(path));
}

}  // namespace

void write_file_atomically(const fs::path& path, std::string_view contents, const char* what) {
  const fs::path temporary = temporary_for(path);
  const int fd = create_temporary(path, temporary, what);
  // Throws, leaving no temporary behind.
  const auto abandon = [&](const char* action, int error) {
    ::close(fd);
    remove_quietly(temporary);
    fail(path, what, str("cannot ", action, " ", temporary.string(), " (", std::strerror(error), ")"));
  };
  const char* data = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      abandon("write", errno);
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  if (::fsync(fd) != 0) abandon("sync", errno);  // on the disk before the rename makes it the file
  if (::close(fd) != 0) {
    const int error = errno;
    remove_quietly(temporary);
    fail(path, what, str("cannot close ", temporary.string(), " (", std::strerror(error), ")"));
  }
  replace_with(path, temporary, what);
}

void write_file_atomically(const fs::path& path, const std::function<void(const fs::path& temporary)>& write,
                           const char* what) {
  const fs::path temporary = temporary_for(path);
  ::close(create_temporary(path, temporary, what));
  try {
    write(temporary);
    sync_file(temporary);  // on the disk before the rename makes it the file
  } catch (...) {
    remove_quietly(temporary);
    throw;
  }
  replace_with(path, temporary, what);
}

}  // namespace tremor::io
