// The spot termination notice: parsing what the metadata item
// /latest/meta-data/instance/spot/termination-time returns.
//
// Alibaba Cloud answers 404 while the instance is not scheduled for reclaim and, once it is, a UTC
// timestamp such as `2015-01-05T18:02:00Z`, the reclaim time (reference notes §3.2, source S13).
// A false notice would make a training job checkpoint and stop for nothing, so only a
// well-formed ISO-8601 UTC timestamp counts; anything else is garbage to be logged and ignored.
#ifndef GPUPLAN_SRC_AGENT_SPOT_NOTICE_H_
#define GPUPLAN_SRC_AGENT_SPOT_NOTICE_H_

#include <string_view>

#include "gpuplan/status.h"

namespace gpuplan::agent {

// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+00:00)`, optionally surrounded by whitespace, into
// seconds since the Unix epoch. Fields are range-checked (month 1-12, day within the month with
// leap years, hour 0-23, minute 0-59, second 0-59) and the year must be 2000-2199, since an
// epoch-zero or far-future value is a broken service, not a reclaim. Returns kInvalidArgument
// with a message quoting (up to 40 characters of) the input and the expected form otherwise.
Result<double> ParseTerminationTime(std::string_view body);

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
// REQUIRES: 1 <= month <= 12.
long long DaysFromCivil(long long year, unsigned month, unsigned day);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_SPOT_NOTICE_H_
