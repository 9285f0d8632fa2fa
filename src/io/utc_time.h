// The wall clock in UTC, formatted for logs, API signatures and dates in reports.
//
// Thread safety: reentrant (gmtime_r).
#ifndef GPUPLAN_SRC_IO_UTC_TIME_H_
#define GPUPLAN_SRC_IO_UTC_TIME_H_

#include <string>

namespace gpuplan::io {

// Now as ISO 8601 UTC to the second: "2026-11-30T18:54:30Z".
std::string UtcNow();
// Today's UTC date: "2026-11-30".
std::string UtcToday();

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_UTC_TIME_H_
