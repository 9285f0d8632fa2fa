// How the calibrated ranges of a candidate (planner::CandidateRanges) are written: JSON fields
// added to a candidate, "point (p10–p90)" texts and the verdict on memory. Every renderer of a
// plan or estimate (terminal, Markdown, JSON, the web page's data) uses these.
#ifndef GPUPLAN_SRC_IO_RANGE_RENDER_H_
#define GPUPLAN_SRC_IO_RANGE_RENDER_H_

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "gpuplan/plan.h"

namespace gpuplan::io {

// Adds to a candidate's JSON (CandidateJson): time.job_hours_range, time.step_s_range,
// cost.total_range (two numbers each, [p10, p90]; null when not known), memory.per_gpu_gib_range,
// memory.verdict, memory.at_confidence_gib (training: what the fit test checked, the prediction
// times the model's memory error at the confidence), and "uncertainty" {time_regime,
// time_regime_from, time_rows, memory_regime, memory_regime_from, confidence,
// job_hours_at_confidence, cost_at_confidence, reclaim_rate_per_hour_range}. Nothing without
// ranges.
void AddRangesJson(nlohmann::json& candidate, const planner::Candidate& c);

// "33.8 (30.1–45.2)"; just the point when `r` has no spread.
std::string RangeText(double point, const uncertainty::Range& r);

// Hours and cost cells of a plan table: "33.8 (30.1–45.2)", "CNY 80,320 (72,100–101,900)".
std::string HoursCell(const planner::Candidate& c, const std::string& point_text);
std::string CostCell(const planner::Candidate& c, const std::string& point_text);

// "fits with margin" / "tight: may OOM" (the p90 memory passes the capacity) / "does not fit".
std::string MemoryVerdict(bool fits, const std::optional<planner::CandidateRanges>& r);

// The ranges of a single estimate (`gpuplan estimate`, POST /api/estimate); nullopt without a
// table.
std::optional<planner::CandidateRanges> EstimateRanges(const uncertainty::Table& table,
                                                       const Workload& w, const ModelArch& arch,
                                                       const perf::Hardware& hw,
                                                       const perf::Estimate& e);
// Adds time.step_s_range, time.job_hours_range, memory.per_gpu_gib_range, memory.verdict,
// memory.at_confidence_gib and "uncertainty" to an estimate's JSON (io::EstimateJson).
void AddEstimateRangesJson(nlohmann::json& j, const planner::CandidateRanges& r,
                           const perf::Estimate& e);

// Lines for the first choice: the ranges, the regime they come from (and its fallback).
std::string RangeSummary(const planner::Candidate& c);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_RANGE_RENDER_H_
