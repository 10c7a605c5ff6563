#include "tremor/io/file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
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

// What a file that is not a regular one is, in a user's words.
const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

fs::path folder_of(const fs::path& path) { return path.parent_path().empty() ? fs::path(".") : path.parent_path(); }

}  // namespace

void check_output_path(const fs::path& path, const char* what) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode))
      throw Error(str(path.string(), ": refusing to write the ", what, " there: it is ", kind_of(info.st_mode),
                      ", which tremor would replace; name a regular file or a new one"));
  } else if (errno != ENOENT && errno != ENOTDIR) {
    throw Error(str(path.string(), ": cannot write the ", what, " (", std::strerror(errno), ")"));
  }
  const fs::path folder = folder_of(path);
  std::error_code error;
  if (!fs::is_directory(folder, error))
    throw Error(str(path.string(), ": cannot write the ", what, ": the folder ", folder.string(),
                    fs::exists(folder, error) ? " is not a folder" : " does not exist"));
}

bool same_file(const fs::path& a, const fs::path& b) {
  struct stat first {}, second {};
  const bool a_exists = ::stat(a.c_str(), &first) == 0;
  const bool b_exists = ::stat(b.c_str(), &second) == 0;
  if (a_exists && b_exists) return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
  // Not both there yet (two outputs, say): one file once created when the names resolve alike.
  std::error_code error_a, error_b;
  const fs::path canonical_a = fs::weakly_canonical(a, error_a);
  const fs::path canonical_b = fs::weakly_canonical(b, error_b);
  return !error_a && !error_b && canonical_a == canonical_b;
}

OutputClaim::OutputClaim(OutputClaim&& other) noexcept
    : fd_(other.fd_), created_(other.created_), file_(std::move(other.file_)) {
  other.fd_ = -1;
  other.created_ = false;
}

OutputClaim& OutputClaim::operator=(OutputClaim&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    created_ = other.created_;
    file_ = std::move(other.file_);
    other.fd_ = -1;
    other.created_ = false;
  }
  return *this;
}

OutputClaim::~OutputClaim() { release(); }

void OutputClaim::release() noexcept {
  if (fd_ < 0) return;
  if (created_) ::unlink(file_.c_str());  // still locked: no other writer has it
  ::close(fd_);
  fd_ = -1;
  created_ = false;
}

OutputClaim OutputClaim::lock(const fs::path& file, bool create, const fs::path& output, const char* what) {
  check_output_path(file, what);
  // O_NOFOLLOW: a symbolic link put there since the check is refused, not followed.
  const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  bool created = false;
  int fd = -1;
  if (create) {
    fd = ::open(file.c_str(), flags | O_CREAT | O_EXCL, 0666);
    created = fd >= 0;
  }
  if (fd < 0 && (!create || errno == EEXIST)) fd = ::open(file.c_str(), flags);
  if (fd < 0) {
    const int error = errno;
    if (error == ELOOP)
      throw Error(str(output.string(), ": refusing to write the ", what, ": ", file.string(), " is a symbolic link"));
    throw Error(str(output.string(), ": cannot write the ", what, ": cannot open ", file.string(), " (",
                    std::strerror(error), ")"));
  }
  OutputClaim claim;
  claim.fd_ = fd;
  claim.file_ = file;
  claim.created_ = created;
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    throw Error(str(output.string(), ": refusing to write the ", what, ": ", file.string(), " is not a regular file"));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    claim.created_ = false;  // whoever holds the lock has the file: it stays
    if (error == EWOULDBLOCK)
      throw Error(str(output.string(), ": another process is writing this ", what, " (", file.string(),
                      " is locked); wait for it to end or choose another output"));
    throw Error(str(output.string(), ": cannot lock ", file.string(), " (", std::strerror(error), ")"));
  }
  return claim;
}

int OutputClaim::reserve(std::uint64_t bytes) const {
  if (fd_ < 0) return EBADF;
  const int error = ::posix_fallocate(fd_, 0, static_cast<off_t>(bytes));
  // A file system that cannot allocate ahead (EOPNOTSUPP) leaves the writes to find out.
  return error == EOPNOTSUPP ? 0 : error;
}

void OutputClaim::truncate(std::uint64_t bytes) {
  if (fd_ >= 0 && ::ftruncate(fd_, static_cast<off_t>(bytes)) != 0)
    throw Error(str(file_.string(), ": cannot cut it to ", bytes, " bytes (", std::strerror(errno), ")"));
}

namespace {

fs::path temporary_for(const fs::path& path) {
  fs::path temporary = path;
  temporary += ".tmp";
  return temporary;
}

[[noreturn]] void fail(const fs::path& path, const char* what, const std::string& why) {
  throw Error(str(path.string(), ": cannot write the ", what, ": ", why));
}

}  // namespace

void check_atomic_output_path(const fs::path& path, const char* what) {
  check_output_path(path, what);
  check_output_path(temporary_for(path), what);
}

namespace {

// Checks `path`, then claims and empties the temporary; the messages say why not in the user's terms.
OutputClaim claim_temporary(const fs::path& path, const fs::path& temporary, const char* what) {
  check_output_path(path, what);
  OutputClaim claim = OutputClaim::lock(temporary, true, path, what);
  claim.truncate();
  return claim;
}

void remove_quietly(const fs::path& temporary) {
  std::error_code ignored;
  fs::remove(temporary, ignored);
}

// Renames the finished temporary over `path`, then makes the rename durable.
void replace_with(const fs::path& path, const fs::path& temporary, const char* what, OutputClaim& claim) {
  claim.keep();  // the temporary becomes `path`: nothing of the claim's to remove after this
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
  OutputClaim claim = claim_temporary(path, temporary, what);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) fail(path, what, str("cannot open ", temporary.string(), " (", std::strerror(errno), ")"));
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
  replace_with(path, temporary, what, claim);
}

void write_file_atomically(const fs::path& path, const std::function<void(const fs::path& temporary)>& write,
                           const char* what) {
  const fs::path temporary = temporary_for(path);
  OutputClaim claim = claim_temporary(path, temporary, what);
  try {
    write(temporary);
    sync_file(temporary);  // on the disk before the rename makes it the file
  } catch (...) {
    remove_quietly(temporary);
    throw;
  }
  replace_with(path, temporary, what, claim);
}

}  // namespace tremor::io

namespace tremor::io {

bool locked_by_a_writer(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  const bool locked = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // and with it the shared lock, when it was taken
  return locked;
}

FileUpdate::FileUpdate(FileUpdate&& other) noexcept
    : fd_(other.fd_),
      what_(other.what_),
      path_(std::move(other.path_)),
      file_(std::move(other.file_)),
      copy_(std::move(other.copy_)),
      copy_claim_(std::move(other.copy_claim_)),
      prepared_(other.prepared_) {
  other.fd_ = -1;
  other.copy_.clear();
  other.prepared_ = false;
}

FileUpdate& FileUpdate::operator=(FileUpdate&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = other.fd_;
    what_ = other.what_;
    path_ = std::move(other.path_);
    file_ = std::move(other.file_);
    copy_ = std::move(other.copy_);
    copy_claim_ = std::move(other.copy_claim_);
    prepared_ = other.prepared_;
    other.fd_ = -1;
    other.copy_.clear();
    other.prepared_ = false;
  }
  return *this;
}

FileUpdate::~FileUpdate() { release(); }

void FileUpdate::discard() noexcept {
  if (!copy_.empty()) ::unlink(copy_.c_str());  // still claimed: no other writer has it
  copy_claim_.keep();  // removed above; the name is no longer the claim's to remove
  copy_claim_ = OutputClaim();
  copy_.clear();
  prepared_ = false;
}

void FileUpdate::release() noexcept {
  discard();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

FileUpdate FileUpdate::hold(const fs::path& path, const char* what) {
  FileUpdate update;
  update.what_ = what;
  update.path_ = path;
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  if (!fs::exists(status)) throw Error(str(path.string(), ": no such ", what));
  // A link: the file it names is changed, the link stays a link.
  update.file_ = fs::is_symlink(status) ? fs::canonical(path, error) : path;
  if (error) throw Error(str(path.string(), ": cannot follow the symbolic link (", error.message(), ")"));
  // O_NONBLOCK: a FIFO is not waited on, only refused below.
  update.fd_ = ::open(update.file_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (update.fd_ < 0) throw Error(str(path.string(), ": cannot open the ", what, " (", std::strerror(errno), ")"));
  struct stat info {};
  if (::fstat(update.fd_, &info) != 0 || !S_ISREG(info.st_mode))
    throw Error(str(path.string(), ": not a regular file; expected a ", what));
  if (::faccessat(AT_FDCWD, update.file_.c_str(), W_OK, AT_EACCESS) != 0)
    throw Error(str(path.string(), ": cannot change the ", what, ": it is read-only (", std::strerror(errno), ")"));
  if (::flock(update.fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      throw Error(str(path.string(), ": another process has this ", what,
                      " open (a run still writing it, tremor image or export, or a program reading it through "
                      "HDF5); nothing was written: try again once it has closed the file"));
    throw Error(str(path.string(), ": cannot lock the ", what, " (", std::strerror(errno), ")"));
  }
  return update;
}

namespace {

// Copies `bytes` of `from` to `to` from their starts: a reflink (FICLONE) where the file system
// shares blocks, else copy_file_range (in the kernel, and on some file systems shared too), else
// reads and writes. Returns 0 or the system's error.
int copy_contents(int from, int to, std::uint64_t bytes) {
  if (::ioctl(to, FICLONE, from) == 0) return 0;
  off64_t in = 0, out = 0;
  bool in_kernel = true;
  std::vector<char> buffer;
  while (static_cast<std::uint64_t>(in) < bytes) {
    const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(bytes - static_cast<std::uint64_t>(in), 1u << 30));
    if (in_kernel) {
      const ssize_t copied = ::copy_file_range(from, &in, to, &out, chunk, 0);
      if (copied > 0) continue;
      if (copied == 0) return EIO;  // the file shrank while copied
      if (errno == EINTR) continue;
      // Not offered between these files (an old kernel, two file systems): read and write.
      if (in == 0 && (errno == ENOSYS || errno == EXDEV || errno == EOPNOTSUPP || errno == EINVAL)) {
        in_kernel = false;
        continue;
      }
      return errno;
    }
    buffer.resize(std::min<std::size_t>(chunk, std::size_t{8} << 20));
    const ssize_t got = ::pread(from, buffer.data(), buffer.size(), in);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return errno;
    if (got == 0) return EIO;
    for (ssize_t done = 0; done < got;) {
      const ssize_t put = ::pwrite(to, buffer.data() + done, static_cast<std::size_t>(got - done), out + done);
      if (put < 0 && errno == EINTR) continue;
      if (put < 0) return errno;
      done += put;
    }
    in += got;
    out += got;
  }
  return 0;
}

}  // namespace

void FileUpdate::abandon(const std::string& why) {
  const std::string copy = copy_.string();
  discard();
  throw Error(str(path_.string(), ": cannot update the ", what_, ": ", why, "; ", path_.string(), " is unchanged",
                  copy.empty() ? std::string() : str(" (the update went into a copy, ", copy, ", now removed)")));
}

void FileUpdate::prepare(const std::function<void(const fs::path& copy)>& change) {
  TREMOR_CHECK(fd_ >= 0 && !prepared_, path_.string(), ": an update prepared twice, or of no file");
  std::string why;
  try {
    fs::path copy = file_;
    copy += ".tmp";
    // Claimed before it is truncated: a symbolic link or another writer there is refused.
    copy_claim_ = OutputClaim::lock(copy, true, path_, what_);
    copy_ = copy;
    copy_claim_.truncate();
    struct stat info {};
    if (::fstat(fd_, &info) != 0) throw Error(str("cannot read its size (", std::strerror(errno), ")"));
    const int to = ::open(copy_.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (to < 0) throw Error(str("cannot open ", copy_.string(), " (", std::strerror(errno), ")"));
    int error = ::fchmod(to, info.st_mode & 07777) == 0 ? 0 : errno;
    if (error == 0) error = copy_contents(fd_, to, static_cast<std::uint64_t>(info.st_size));
    if (::close(to) != 0 && error == 0) error = errno;
    if (error != 0) throw Error(str("cannot copy it to ", copy_.string(), " (", std::strerror(error), ")"));
    change(copy_);
    sync_file(copy_);  // on the disk before the rename makes it the file
    prepared_ = true;
    return;
  } catch (const std::exception& e) {
    why = e.what();
  }
  abandon(why);
}

void FileUpdate::commit() {
  TREMOR_CHECK(prepared_, path_.string(), ": an update committed before it was prepared");
  // The file is still the one held and copied: a run finishing in the meantime renames its new
  // file over it, which the copy, made of the old one, must not replace.
  struct stat held {}, now {};
  if (::fstat(fd_, &held) != 0 || ::stat(file_.c_str(), &now) != 0 || held.st_dev != now.st_dev ||
      held.st_ino != now.st_ino) {
    discard();
    throw Error(str(path_.string(), ": another process replaced the ", what_,
                    " while it was being updated (a run that finished writing it?); it is as that process left it: "
                    "try again"));
  }
  copy_claim_.keep();  // the copy becomes the file
  if (::rename(copy_.c_str(), file_.c_str()) != 0) {
    const int error = errno;
    abandon(str("cannot rename ", copy_.string(), " over it (", std::strerror(error), ")"));
  }
  copy_.clear();
  copy_claim_ = OutputClaim();
  prepared_ = false;
  sync_file(folder_of(file_));
}

}  // namespace tremor::io
