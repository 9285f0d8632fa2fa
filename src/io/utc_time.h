// The wall clock in UTC, formatted for logs, API signatures and dates in reports, and strict
// parsing of the timestamps and dates that arrive from outside (API responses, price caches).
//
// Thread safety: reentrant (gmtime_r); the parsers are pure.
#ifndef GPUPLAN_SRC_IO_UTC_TIME_H_
#define GPUPLAN_SRC_IO_UTC_TIME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan::io {

// Now as ISO 8601 UTC to the second: "2026-11-30T18:54:30Z".
std::string UtcNow();
// Today's UTC date: "2026-11-30".
std::string UtcToday();

// A moment parsed from RFC 3339.
struct UtcTime {
  int64_t unix_seconds = 0;  // seconds since 1970-01-01T00:00:00Z (fractions dropped)
  std::string utc_date;      // the UTC calendar date of the moment, "YYYY-MM-DD"
};

// Parses an RFC 3339 date-time (section 5.6): "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)",
// with "t"/"z" accepted as RFC 3339 allows. Every field is range-checked (month 1-12, the day
// within its month, leap years, hour 0-23, minute 0-59, second 0-60, offset below 24 h).
// Returns nullopt for anything else: no trailing text, no missing seconds or zone.
std::optional<UtcTime> ParseRfc3339(std::string_view text);

// True when `text` is a calendar date "YYYY-MM-DD" (RFC 3339 full-date) that exists.
bool IsRfc3339Date(std::string_view text);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_UTC_TIME_H_
