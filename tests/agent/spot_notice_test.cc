#include "agent/spot_notice.h"

#include <gtest/gtest.h>

namespace gpuplan::agent {
namespace {

TEST(SpotNoticeTest, WellFormedUtcTimestampsAreNotices) {
  struct Case {
    const char* name;
    const char* body;
    double want_unix;
  };
  // 2015-01-05T18:02:00Z is the example in the Alibaba docs (reference notes §3.2).
  const Case kCases[] = {
      {"doc_example", "2015-01-05T18:02:00Z", 1420480920},
      {"trailing_newline", "2026-11-30T14:08:56Z\n", 1796047736},
      {"surrounding_spaces", "  2026-11-30T14:08:56Z \r\n", 1796047736},
      {"plus_zero_offset", "2026-11-30T14:08:56+00:00", 1796047736},
      {"fraction", "2026-11-30T14:08:56.5Z", 1796047736.5},
      {"leap_day", "2028-02-29T00:00:00Z", 1835395200},
      {"end_of_year", "2025-12-31T23:59:59Z", 1767225599},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<double> t = ParseTerminationTime(c.body);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_DOUBLE_EQ(*t, c.want_unix);
  }
}

TEST(SpotNoticeTest, AnythingElseIsGarbageWithAReason) {
  struct Case {
    const char* name;
    std::string body;
    const char* want_reason;
  };
  const Case kCases[] = {
      {"empty", "", "empty"},
      {"html_error_page", "<html><body>502 Bad Gateway</body></html>",
       "not in the form YYYY-MM-DDTHH:MM:SS"},
      {"no_zone", "2026-11-30T14:08:56", "no time zone"},
      {"local_offset", "2026-11-30T14:08:56+08:00", "not a UTC time"},
      {"date_only", "2026-11-30", "not in the form"},
      {"space_separator", "2026-11-30 14:08:56Z", "not in the form"},
      {"month_13", "2026-13-01T00:00:00Z", "month out of range"},
      {"feb_30", "2026-02-30T00:00:00Z", "day out of range"},
      {"feb_29_not_leap", "2027-02-29T00:00:00Z", "day out of range"},
      {"hour_24", "2026-11-30T24:00:00Z", "time of day out of range"},
      {"epoch_zero", "1970-01-01T00:00:00Z", "year out of range"},
      {"trailing_junk", "2026-11-30T14:08:56Zjunk", "not a UTC time"},
      {"two_notices", "2026-11-30T14:08:56Z 2026-11-30T14:08:56Z", "not a UTC time"},
      {"empty_fraction", "2026-11-30T14:08:56.Z", "fractional seconds"},
      {"nul_byte", std::string("2026-11-30T14:08:56Z\0", 21), "not a UTC time"},
      {"json", "{\"termination-time\":\"2026-11-30T14:08:56Z\"}", "not in the form"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<double> t = ParseTerminationTime(c.body);
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.status().message().find(c.want_reason), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find("expected an ISO-8601 UTC timestamp"), std::string::npos);
  }
}

TEST(SpotNoticeTest, LongGarbageIsQuotedShortAndPrintable) {
  Result<double> t = ParseTerminationTime(std::string(5000, '\x01'));
  ASSERT_FALSE(t.ok());
  EXPECT_LT(t.status().message().size(), 200u);
  EXPECT_EQ(t.status().message().find('\x01'), std::string::npos);
}

TEST(SpotNoticeTest, DaysFromCivilMatchesKnownDates) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
}

}  // namespace
}  // namespace gpuplan::agent
