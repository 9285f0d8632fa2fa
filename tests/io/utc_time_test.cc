// Strict RFC 3339 parsing of timestamps and dates from outside (issue 32: malformed dates such as
// 2026-11-2XY11:00:00Z and 9999-99-99T99:99:99Z were imported without an age).
#include "io/utc_time.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuplan::io {
namespace {

TEST(UtcTimeTest, ParseRfc3339AcceptsWellFormedTimes) {
  struct Case {
    const char* name;
    const char* text;
    int64_t want_seconds;
    const char* want_date;
  };
  const Case kCases[] = {
      {"epoch", "1970-01-01T00:00:00Z", 0, "1970-01-01"},
      {"aliyun_spot", "2026-11-29T10:00:00Z", 1795946400, "2026-11-29"},
      {"lowercase_t_z", "2026-11-29t10:00:00z", 1795946400, "2026-11-29"},
      {"fraction", "2026-11-29T10:00:00.123456Z", 1795946400, "2026-11-29"},
      {"offset_behind_utc_crosses_midnight", "2026-11-29T23:30:00-02:00", 1796002200, "2026-11-30"},
      {"offset_ahead_of_utc", "2026-11-30T01:00:00+08:00", 1795971600, "2026-11-29"},
      {"leap_day", "2024-02-29T12:00:00Z", 1709208000, "2024-02-29"},
      {"leap_second", "2016-12-31T23:59:60Z", 1483228800, "2017-01-01"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::optional<UtcTime> t = ParseRfc3339(c.text);
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->unix_seconds, c.want_seconds);
    EXPECT_EQ(t->utc_date, c.want_date);
  }
}

TEST(UtcTimeTest, ParseRfc3339RefusesEverythingElse) {
  struct Case {
    const char* name;
    std::string text;
  };
  const Case kCases[] = {
      {"issue32_letters_in_day", "2026-11-2XY11:00:00Z"},
      {"issue32_all_nines", "9999-99-99T99:99:99Z"},
      {"issue32_multibyte_in_day",
       "2026-11-2\xC7\x87"
       "11:00:00Z"},
      {"empty", ""},
      {"date_only", "2026-11-29"},
      {"no_seconds", "2026-11-29T10:00Z"},
      {"no_zone", "2026-11-29T10:00:00"},
      {"space_separator", "2026-11-29 10:00:00Z"},
      {"trailing_text", "2026-11-29T10:00:00Zjunk"},
      {"february_30", "2026-02-30T00:00:00Z"},
      {"february_29_not_leap", "2025-02-29T00:00:00Z"},
      {"month_13", "2026-13-01T00:00:00Z"},
      {"day_0", "2026-11-00T00:00:00Z"},
      {"hour_24", "2026-11-29T24:00:00Z"},
      {"minute_60", "2026-11-29T10:60:00Z"},
      {"second_61", "2026-11-29T10:00:61Z"},
      {"empty_fraction", "2026-11-29T10:00:00.Z"},
      {"offset_without_colon", "2026-11-29T10:00:00+0800"},
      {"offset_hour_24", "2026-11-29T10:00:00+24:00"},
      {"sign_in_year", "+026-11-29T10:00:00Z"},
      {"nul_inside", std::string("2026-11-29T10:00:00Z\0", 21)},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_FALSE(ParseRfc3339(c.text).has_value());
  }
}

TEST(UtcTimeTest, IsRfc3339DateChecksTheCalendar) {
  struct Case {
    const char* text;
    bool want;
  };
  const Case kCases[] = {
      {"2026-11-30", true},  {"2024-02-29", true}, {"2000-02-29", true},   {"1900-02-29", false},
      {"2026-02-30", false}, {"2026-11-3", false}, {"2026-11-30T", false}, {"2026-1X-30", false},
      {"9999-99-99", false}, {"", false}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(IsRfc3339Date(c.text), c.want);
  }
}

}  // namespace
}  // namespace gpuplan::io
