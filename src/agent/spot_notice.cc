#include "agent/spot_notice.h"

#include <fmt/format.h>

#include <cctype>
#include <string>

namespace gpuplan::agent {
namespace {

constexpr std::string_view kExpectedForm =
    "expected an ISO-8601 UTC timestamp like 2015-01-05T18:02:00Z";

std::string Quote(std::string_view s) {
  std::string out;
  for (char ch : s.substr(0, 40)) {
    const auto u = static_cast<unsigned char>(ch);
    out += (u >= 0x20 && u < 0x7f) ? ch : '?';
  }
  if (s.size() > 40)
    out += "...";
  return "\"" + out + "\"";
}

bool IsSpace(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

// Reads exactly `width` decimal digits at s[*pos]; false when any is not a digit.
bool Digits(std::string_view s, size_t* pos, size_t width, unsigned* value) {
  if (*pos + width > s.size())
    return false;
  unsigned v = 0;
  for (size_t i = 0; i < width; ++i) {
    const char ch = s[*pos + i];
    if (ch < '0' || ch > '9')
      return false;
    v = v * 10 + static_cast<unsigned>(ch - '0');
  }
  *pos += width;
  *value = v;
  return true;
}

bool Expect(std::string_view s, size_t* pos, char ch) {
  if (*pos >= s.size() || s[*pos] != ch)
    return false;
  ++*pos;
  return true;
}

bool IsLeap(unsigned y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(unsigned y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

}  // namespace

long long DaysFromCivil(long long year, unsigned month, unsigned day) {
  // http://howardhinnant.github.io/date_algorithms.html#days_from_civil
  year -= month <= 2 ? 1 : 0;
  const long long era = (year >= 0 ? year : year - 399) / 400;
  const auto yoe = static_cast<unsigned>(year - era * 400);
  const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

Result<double> ParseTerminationTime(std::string_view body) {
  std::string_view s = body;
  while (!s.empty() && IsSpace(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back()))
    s.remove_suffix(1);
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("termination-time {}: {}; {}", Quote(body), why, kExpectedForm));
  };
  if (s.empty())
    return bad("empty");
  size_t pos = 0;
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!Digits(s, &pos, 4, &year) || !Expect(s, &pos, '-') || !Digits(s, &pos, 2, &month) ||
      !Expect(s, &pos, '-') || !Digits(s, &pos, 2, &day) || !Expect(s, &pos, 'T') ||
      !Digits(s, &pos, 2, &hour) || !Expect(s, &pos, ':') || !Digits(s, &pos, 2, &minute) ||
      !Expect(s, &pos, ':') || !Digits(s, &pos, 2, &second)) {
    return bad("not in the form YYYY-MM-DDTHH:MM:SS");
  }
  double fraction = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    double scale = 0.1;
    const size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      fraction += scale * (s[pos] - '0');
      scale /= 10;
      ++pos;
    }
    if (pos == start || pos - start > 9)
      return bad("fractional seconds need 1 to 9 digits");
  }
  const std::string_view zone = s.substr(pos);
  if (zone != "Z" && zone != "+00:00") {
    return bad(zone.empty() ? "no time zone (a UTC time ends in Z)" : "not a UTC time");
  }
  if (year < 2000 || year > 2199)
    return bad("year out of range 2000-2199");
  if (month < 1 || month > 12)
    return bad("month out of range");
  if (day < 1 || day > DaysInMonth(year, month))
    return bad("day out of range for the month");
  if (hour > 23 || minute > 59 || second > 59)
    return bad("time of day out of range");
  const long long days = DaysFromCivil(year, month, day);
  const long long secs = days * 86400 + hour * 3600LL + minute * 60LL + second;
  return static_cast<double>(secs) + fraction;
}

}  // namespace gpuplan::agent
