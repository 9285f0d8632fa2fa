#include "io/file_util.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuplan::io {

Result<std::string> ReadFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return Status::NotFound(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) {
    return Status::InvalidArgument(path + ": is a directory, expected a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::IoError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad())
    return Status::IoError(path + ": read failed");
  return buffer.str();
}

namespace {

// The folders above `path`, made when missing.
Status CreateParentDirectories(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path target(path);
  if (target.has_parent_path())
    std::filesystem::create_directories(target.parent_path(), ec);
  if (ec)
    return Status::IoError(fmt::format("{}: cannot create directory: {}", path, ec.message()));
  return Status::Ok();
}

}  // namespace

Status WriteFileAtomic(const std::string& path, std::string_view content) {
  if (Status s = CreateParentDirectories(path); !s.ok())
    return s;
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0)
    return Status::IoError(
        fmt::format("{}: cannot create temp file: {}", path, std::strerror(errno)));
  // mkstemp creates 0600; keep the replaced file's mode, else the usual 0644.
  struct stat old {};
  const mode_t mode = ::stat(path.c_str(), &old) == 0 ? (old.st_mode & 07777) : 0644;
  if (::fchmod(fd, mode) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return Status::IoError(fmt::format("{}: cannot set mode: {}", path, why));
  }
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::IoError(fmt::format("{}: write failed: {}", path, why));
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Status::IoError(fmt::format("{}: flush failed: {}", path, why));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Status::IoError(fmt::format("{}: rename failed: {}", path, why));
  }
  // The rename is durable once the directory is flushed; a failure here loses nothing readers
  // can see, so it is not an error.
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::Ok();
}

FileLock::~FileLock() {
  if (fd_ >= 0)
    ::close(fd_);  // closing the last descriptor releases the flock
}

Status FileLock::Acquire(const std::string& path) {
  assert(fd_ < 0);
  if (Status s = CreateParentDirectories(path); !s.ok())
    return s;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::IoError(
        fmt::format("{}: cannot open lock file: {}", path, std::strerror(errno)));
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR)
      continue;
    const std::string why = std::strerror(errno);
    ::close(fd);
    return Status::IoError(fmt::format("{}: cannot lock: {}", path, why));
  }
  fd_ = fd;
  return Status::Ok();
}

}  // namespace gpuplan::io
