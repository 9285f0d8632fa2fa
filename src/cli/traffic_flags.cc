// The traffic flags of `plan` and `explain` (workload_flags.h): a service's requests per second
// over a day, and the request lengths' 90th percentiles.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "cli/workload_flags.h"

namespace gpuplan::cli {
namespace {

Status Usage(const std::string& msg) { return Status::InvalidArgument(msg); }

// "2,2,3,...": 24 rates, each 0 to 1e6.
Result<std::vector<double>> ParseDay(const char* flag, const std::string& text) {
  std::vector<double> day;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    std::optional<double> v = ParseAmount(item);
    if (!v || item.find_first_not_of("0123456789.eE+- ") != std::string::npos || *v > 1e6) {
      return Usage(
          fmt::format("{}: value {} \"{}\": expected a rate from 0 to 1000000 "
                      "requests/s",
                      flag, day.size(), item));
    }
    day.push_back(*v);
    start = comma + 1;
  }
  if (day.size() != 24) {
    return Usage(
        fmt::format("{}: expected 24 comma-separated rates, one per hour from 00:00 "
                    "local time, got {}",
                    flag, day.size()));
  }
  return day;
}

}  // namespace

void AddTrafficFlags(CLI::App* cmd, WorkloadFlags* f) {
  cmd->add_option("--hourly-rps", f->hourly_rps,
                  "Inference: the day's traffic, 24 comma-separated requests/s from 00:00 local "
                  "time (inference.traffic.hourly_rps)");
  cmd->add_option("--weekend-hourly-rps", f->weekend_hourly_rps,
                  "Inference: Saturday's and Sunday's 24 rates (default: as weekdays)");
  cmd->add_option("--base-rps", f->base_rps, "Inference: requests/s outside the peak hours");
  cmd->add_option("--peak-rps", f->peak_rps, "Inference: requests/s in the peak hours");
  cmd->add_option("--peak-hours", f->peak_hours,
                  "Inference: the peak, FROM-TO hours local time (19-22; 22-2 wraps midnight)");
  cmd->add_option("--timezone", f->timezone,
                  "Inference: the traffic's local time: +08:00, UTC-5 or Asia/Shanghai "
                  "(default UTC+8)");
  cmd->add_option("--scale-up-minutes", f->scale_up_minutes,
                  "Inference: minutes from asking for an instance to its engine loading the "
                  "weights (default 10, an assumption)");
  cmd->add_option("--prompt-tokens-p90", f->prompt_tokens_p90,
                  "Inference: 90th percentile prompt tokens (the KV cache is sized for it)");
  cmd->add_option("--output-tokens-p90", f->output_tokens_p90,
                  "Inference: 90th percentile output tokens (the KV cache is sized for it)");
}

Status ApplyTrafficFlags(const WorkloadFlags& f, Workload& w) {
  if (f.prompt_tokens_p90)
    w.inference.prompt_tokens_p90 = f.prompt_tokens_p90;
  if (f.output_tokens_p90)
    w.inference.output_tokens_p90 = f.output_tokens_p90;
  const bool hourly = !f.hourly_rps.empty();
  const bool peaked = f.base_rps || f.peak_rps || !f.peak_hours.empty();
  const bool extras = !f.weekend_hourly_rps.empty() || !f.timezone.empty() || f.scale_up_minutes;
  if (!hourly && !peaked) {
    if (extras && (!w.inference.traffic || f.requests_per_s)) {
      return Usage(
          "--weekend-hourly-rps, --timezone and --scale-up-minutes shape a traffic "
          "profile: give --hourly-rps or --base-rps --peak-rps --peak-hours too");
    }
  } else if (hourly && peaked) {
    return Usage("give either --hourly-rps or --base-rps/--peak-rps/--peak-hours, not both");
  } else if (f.requests_per_s) {
    return Usage(
        "--requests-per-s is a constant rate and --hourly-rps/--peak-rps a day's "
        "profile: give one");
  }
  // A constant rate on the command line replaces a profile from the file.
  if (f.requests_per_s && !hourly && !peaked)
    w.inference.traffic.reset();
  TrafficProfile t = w.inference.traffic.value_or(TrafficProfile{});
  if (hourly) {
    Result<std::vector<double>> day = ParseDay("--hourly-rps", f.hourly_rps);
    if (!day.ok())
      return day.status();
    t.hourly_rps = *day;
  } else if (peaked) {
    if (!f.base_rps || !f.peak_rps || f.peak_hours.empty())
      return Usage(
          "--base-rps, --peak-rps and --peak-hours go together (e.g. --base-rps 2 "
          "--peak-rps 30 --peak-hours 19-22)");
    if (!(*f.base_rps >= 0 && *f.peak_rps >= *f.base_rps && *f.peak_rps <= 1e6)) {
      return Usage(
          fmt::format("--peak-rps: expected a rate from --base-rps ({:g}) to 1000000, "
                      "got {:g}",
                      *f.base_rps, *f.peak_rps));
    }
    std::optional<std::vector<double>> day =
        TrafficFromPeak(*f.base_rps, *f.peak_rps, f.peak_hours);
    if (!day) {
      return Usage(
          fmt::format("--peak-hours: expected FROM-TO hours from 0 to 24 (19-22 = "
                      "19:00 to 22:00), got \"{}\"",
                      f.peak_hours));
    }
    t.hourly_rps = *day;
  }
  if (!f.weekend_hourly_rps.empty()) {
    Result<std::vector<double>> day = ParseDay("--weekend-hourly-rps", f.weekend_hourly_rps);
    if (!day.ok())
      return day.status();
    t.weekend_hourly_rps = *day;
  }
  if (!f.timezone.empty()) {
    t.utc_offset_hours = ParseUtcOffset(f.timezone);
    t.timezone = f.timezone;
    if (!t.utc_offset_hours) {
      return Usage(
          fmt::format("--timezone: expected a UTC offset (+08:00, UTC-5) or a zone "
                      "without daylight saving time (Asia/Shanghai, UTC), got \"{}\"",
                      f.timezone));
    }
  }
  if (f.scale_up_minutes)
    t.scale_up_minutes = f.scale_up_minutes;
  if (hourly || peaked || extras) {
    w.inference.traffic = std::move(t);
    // A profile given on the command line replaces a constant rate from the file.
    if (hourly || peaked)
      w.inference.requests_per_s.reset();
  }
  return Status::Ok();
}

}  // namespace gpuplan::cli
