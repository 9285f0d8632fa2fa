#include "io/utc_time.h"

#include <fmt/format.h>

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

// `n` ASCII digits at `pos` (no sign, no spaces), or -1.
int Digits(std::string_view s, size_t pos, size_t n) {
  if (pos + n > s.size())
    return -1;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-compatible low-level
// date algorithms", days_from_civil).
int64_t DaysFromCivil(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return int64_t{era} * 146097 + doe - 719468;
}

// The inverse of DaysFromCivil, formatted "YYYY-MM-DD".
std::string CivilFromDays(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return fmt::format("{:04}-{:02}-{:02}", y, m, d);
}

// Reads "YYYY-MM-DD" at the start of `s` into y, m, d; false unless the date exists.
bool ReadDate(std::string_view s, int* y, int* m, int* d) {
  if (s.size() < 10 || s[4] != '-' || s[7] != '-')
    return false;
  *y = Digits(s, 0, 4);
  *m = Digits(s, 5, 2);
  *d = Digits(s, 8, 2);
  return *y >= 0 && *m >= 1 && *m <= 12 && *d >= 1 && *d <= DaysInMonth(*y, *m);
}

}  // namespace

std::string UtcNow() { return FormatNow("%Y-%m-%dT%H:%M:%SZ"); }

std::string UtcToday() { return FormatNow("%Y-%m-%d"); }

bool IsRfc3339Date(std::string_view text) {
  int y = 0, m = 0, d = 0;
  return text.size() == 10 && ReadDate(text, &y, &m, &d);
}

std::optional<UtcTime> ParseRfc3339(std::string_view s) {
  int y = 0, mo = 0, d = 0;
  if (!ReadDate(s, &y, &mo, &d) || s.size() < 20 || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  const int h = Digits(s, 11, 2), mi = Digits(s, 14, 2), sec = Digits(s, 17, 2);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60)
    return std::nullopt;
  size_t pos = 19;
  if (s[pos] == '.') {  // time-secfrac: at least one digit
    const size_t start = ++pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9')
      ++pos;
    if (pos == start)
      return std::nullopt;
  }
  if (pos >= s.size())
    return std::nullopt;
  int offset_minutes = 0;
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    const int oh = Digits(s, pos + 1, 2), om = Digits(s, pos + 4, 2);
    if (pos + 6 > s.size() || s[pos + 3] != ':' || oh < 0 || oh > 23 || om < 0 || om > 59)
      return std::nullopt;
    offset_minutes = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size())
    return std::nullopt;
  UtcTime t;
  // A local time with offset +HH:MM is that much ahead of UTC.
  t.unix_seconds = DaysFromCivil(y, mo, d) * 86400 + int64_t{h} * 3600 + int64_t{mi} * 60 + sec -
                   int64_t{offset_minutes} * 60;
  int64_t days = t.unix_seconds / 86400;
  if (t.unix_seconds % 86400 < 0)
    --days;
  t.utc_date = CivilFromDays(days);
  return t;
}

}  // namespace gpuplan::io
