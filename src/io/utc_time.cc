#include "io/utc_time.h"

#include <chrono>
#include <ctime>

namespace gpuplan::io {
namespace {

std::string FormatNow(const char* format) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

}  // namespace

std::string UtcNow() { return FormatNow("%Y-%m-%dT%H:%M:%SZ"); }

std::string UtcToday() { return FormatNow("%Y-%m-%d"); }

}  // namespace gpuplan::io
