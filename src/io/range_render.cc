#include "io/range_render.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "gpuplan/plan_ranges.h"
#include "gpuplan/strings.h"

namespace gpuplan::io {
namespace {

using strings::Num;

// A cost range's ends: whole currency units once the amount passes 100 (cents are noise there).
std::string Amount(double x) { return x >= 100 ? fmt::format("{:.0f}", x) : Num(x); }

bool HasSpread(const uncertainty::Range& r) { return r.p90 > 0 && r.p90 != r.p10; }

nlohmann::json Pair(const uncertainty::Range& r) {
  return r.p90 > 0 ? nlohmann::json::array({r.p10, r.p90}) : nlohmann::json(nullptr);
}

// "time/lora/Ampere/1node/dense (21 runs)" or "... (no runs of its own: time/lora, 24 runs)".
std::string RegimeText(const uncertainty::Band& b) {
  if (!b.FellBack())
    return fmt::format("{} ({} runs)", b.regime, b.rows);
  if (b.rows == 0)
    return fmt::format("{} (no runs of its own: from {}, {} runs)", b.regime, b.from, b.from_rows);
  return fmt::format("{} ({} runs from {} source(s), too few: from {}, {} runs)", b.regime, b.rows,
                     b.sources, b.from, b.from_rows);
}

}  // namespace

std::string RangeText(double point, const uncertainty::Range& r) {
  if (!HasSpread(r))
    return Num(point);
  return fmt::format("{} ({}–{})", Num(point), Num(r.p10), Num(r.p90));
}

std::string HoursCell(const planner::Candidate& c, const std::string& point_text) {
  if (!c.ranges || c.job_hours <= 0 || !HasSpread(c.ranges->job_hours))
    return point_text;
  return fmt::format("{} ({}–{})", point_text, Num(c.ranges->job_hours.p10),
                     Num(c.ranges->job_hours.p90));
}

std::string CostCell(const planner::Candidate& c, const std::string& point_text) {
  if (!c.ranges || !HasSpread(c.ranges->cost))
    return point_text;
  return fmt::format("{} ({}–{})", point_text, Amount(c.ranges->cost.p10),
                     Amount(c.ranges->cost.p90));
}

std::string MemoryVerdict(bool fits, const std::optional<planner::CandidateRanges>& r) {
  if (!fits)
    return "does not fit";
  if (!r)
    return "fits";
  return r->memory_tight ? "tight: may OOM" : "fits with margin";
}

void AddRangesJson(nlohmann::json& j, const planner::Candidate& c) {
  if (!c.ranges)
    return;
  const planner::CandidateRanges& r = *c.ranges;
  j["time"]["job_hours_range"] = c.job_hours > 0 ? Pair(r.job_hours) : nlohmann::json(nullptr);
  j["time"]["step_s_range"] = Pair(r.step_s);
  if (j.contains("cost"))
    j["cost"]["total_range"] = Pair(r.cost);
  j["memory"]["per_gpu_gib_range"] = Pair(r.memory_gib);
  j["memory"]["verdict"] = MemoryVerdict(c.estimate.memory.fits, c.ranges);
  // What the training fit test checked: the prediction with the model's memory error at the
  // confidence (serving engines are checked at the point).
  if (!c.estimate.inference)
    j["memory"]["at_confidence_gib"] = c.estimate.memory.checked_gib;
  nlohmann::json u = {{"time_regime", r.time.regime},
                      {"time_regime_from", r.time.from},
                      {"time_rows", r.time.from_rows},
                      {"memory_regime", r.memory.regime},
                      {"memory_regime_from", r.memory.from},
                      {"confidence", r.confidence},
                      {"job_hours_at_confidence", r.job_hours_at_confidence},
                      {"cost_at_confidence", r.cost_at_confidence}};
  u["stale_spot_cap_per_hour"] = r.stale_spot_cap_per_hour > 0
                                     ? nlohmann::json(r.stale_spot_cap_per_hour)
                                     : nlohmann::json(nullptr);
  u["reclaim_rate_per_hour_range"] =
      r.reclaim_rate_per_hour
          ? nlohmann::json::array({r.reclaim_rate_per_hour->first, r.reclaim_rate_per_hour->second})
          : nlohmann::json(nullptr);
  j["uncertainty"] = u;
}

std::optional<planner::CandidateRanges> EstimateRanges(const uncertainty::Table& table,
                                                       const Workload& w, const ModelArch& arch,
                                                       const perf::Hardware& hw,
                                                       const perf::Estimate& e) {
  if (table.regimes.empty())
    return std::nullopt;
  return planner::TimeRanges(table, w, arch, hw, e, e.job.hours);
}

void AddEstimateRangesJson(nlohmann::json& j, const planner::CandidateRanges& r,
                           const perf::Estimate& e) {
  planner::Candidate c;
  c.estimate = e;
  c.job_hours = e.job.hours;
  c.ranges = r;
  AddRangesJson(j, c);
}

std::string RangeSummary(const planner::Candidate& c) {
  if (!c.ranges)
    return "";
  const planner::CandidateRanges& r = *c.ranges;
  std::string s = "Range (p10–p90 of the model's error on " + RegimeText(r.time) + "):";
  if (r.step_s.point > 0)
    s += " step " + RangeText(r.step_s.point, r.step_s) + " s;";
  if (c.job_hours > 0 && HasSpread(r.job_hours))
    s += " job " + RangeText(c.job_hours, r.job_hours) + " h;";
  if (HasSpread(r.cost))
    s += " cost " +
         (c.monthly ? c.monthly->per_month.ToString() + "/month" : c.cost.total.ToString()) + " (" +
         Amount(r.cost.p10) + "–" + Amount(r.cost.p90) + ");";
  else if (c.monthly && r.cost.p90 > 0)  // a service priced in whole instances at both ends
    s += " cost " + c.monthly->per_month.ToString() +
         "/month from p10 to p90 (the rate needs as many instances at either end);";
  if (r.stale_spot_cap_per_hour > 0) {
    s += fmt::format(" stale spot price: p90 at the PAYG cap of {} per hour;",
                     Num(r.stale_spot_cap_per_hour));
  }
  if (r.reclaim_rate_per_hour) {
    s += fmt::format(" spot reclaims {}–{} per instance-hour;", Num(r.reclaim_rate_per_hour->first),
                     Num(r.reclaim_rate_per_hour->second));
  }
  if (r.memory_gib.point > 0) {
    s += fmt::format(" memory {} GiB of {} per GPU: {} (from {})",
                     RangeText(r.memory_gib.point, r.memory_gib),
                     Num(c.estimate.memory.capacity_gib),
                     MemoryVerdict(c.estimate.memory.fits, c.ranges), RegimeText(r.memory));
  }
  return s + "\n";
}

}  // namespace gpuplan::io
