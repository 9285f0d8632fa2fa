// Reading and atomically writing whole files.
#ifndef GPUPLAN_SRC_IO_FILE_UTIL_H_
#define GPUPLAN_SRC_IO_FILE_UTIL_H_

#include <string>
#include <string_view>

#include "gpuplan/status.h"

namespace gpuplan::io {

// The whole file, or kNotFound / kIoError naming the path.
Result<std::string> ReadFile(const std::string& path);

// Writes `content` to a temporary file next to `path`, flushes it, then renames it over `path`,
// so readers see the old or the new file, never a torn one. Creates missing parent directories.
Status WriteFileAtomic(const std::string& path, std::string_view content);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_FILE_UTIL_H_
