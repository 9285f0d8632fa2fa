// Reading and atomically writing whole files, and an advisory lock for read-modify-write cycles.
//
// Thread safety: the functions are reentrant. A FileLock belongs to one thread at a time; two
// FileLocks on the same path exclude each other across threads and processes (flock(2) locks an
// open file description).
#ifndef GPUPLAN_SRC_IO_FILE_UTIL_H_
#define GPUPLAN_SRC_IO_FILE_UTIL_H_

#include <string>
#include <string_view>

#include "gpuplan/status.h"

namespace gpuplan::io {

// The whole file, or kNotFound / kIoError naming the path.
Result<std::string> ReadFile(const std::string& path);

// Writes `content` to a temporary file next to `path`, flushes it, then renames it over `path`
// and flushes the directory, so readers see the old or the new file, never a torn one, and a
// crash leaves one of the two. Creates missing parent directories. The new file keeps the mode
// of the file it replaces (0644 for a new one). Two writers of the same path do not tear it, but
// the last rename wins: a read-modify-write must hold a FileLock (see UpdatePriceCache).
Status WriteFileAtomic(const std::string& path, std::string_view content);

// An exclusive advisory lock (flock(2)) on a lock file, held from Acquire until destruction.
// The lock file is separate from the data file, because WriteFileAtomic's rename replaces the
// data file's inode and a lock on the old one would no longer exclude anyone.
//
//   FileLock lock;
//   if (Status s = lock.Acquire(dir + "/prices.json.lock"); !s.ok()) return s;
//   ... read, modify, WriteFileAtomic ...
class FileLock {
 public:
  FileLock() = default;
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  // Blocks until this object holds the lock on `path` (created, with missing parent directories,
  // when absent). kIoError naming the path when the file cannot be opened or locked.
  // REQUIRES: not already held.
  Status Acquire(const std::string& path);

 private:
  int fd_ = -1;
};

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_FILE_UTIL_H_
