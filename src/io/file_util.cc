#include "io/file_util.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

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

Status WriteFileAtomic(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target(path);
  if (target.has_parent_path())
    fs::create_directories(target.parent_path(), ec);
  if (ec)
    return Status::IoError(fmt::format("{}: cannot create directory: {}", path, ec.message()));
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0)
    return Status::IoError(
        fmt::format("{}: cannot create temp file: {}", path, std::strerror(errno)));
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
  return Status::Ok();
}

}  // namespace gpuplan::io
