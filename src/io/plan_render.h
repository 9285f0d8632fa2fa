// Renderings of a Plan: JSON (the contract in docs/plan.md, "JSON output"), an aligned terminal
// report, and Markdown for design reviews. Renderers only format; the Plan holds every number.
#ifndef GPUPLAN_SRC_IO_PLAN_RENDER_H_
#define GPUPLAN_SRC_IO_PLAN_RENDER_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "gpuplan/plan.h"

namespace gpuplan::io {

// {"workload": {...}, "candidates": [...], "pareto": [...], "rejected": [{instance, reason}],
//  "evaluated": N, "notes": [...]}. Each candidate has instance, region, nodes, gpus, layout,
// billing, fits, memory{per_gpu_gib, capacity_gib, breakdown}, time{job_hours, step_s,
// breakdown}, throughput{...}, cost{total, currency, per_hour, ...}, advice[{rule, severity,
// message}], storage, image, why.
nlohmann::json PlanJson(const Workload& w, const planner::Plan& plan);
// The same with the model's size ("model": ModelJson) when the plan has an architecture.
nlohmann::json PlanJson(const Workload& w, const planner::Plan& plan, const ModelArch& arch);
nlohmann::json CandidateJson(const planner::Candidate& c);

// `gpuplan explain TYPE --json`: {"instance", "candidates": every way the plan runs on TYPE
// (from `mine`, a plan limited to it), "rejected", "winner": the overall plan's first choice}.
// With `w`, "why_not_first": why the type's best ranks below the winner (planner::WhyRanksBelow;
// absent when it is the winner).
nlohmann::json ExplainJson(const std::string& instance, const planner::Plan& overall,
                           const planner::Plan& mine, const Workload* w = nullptr);

// The values the workload did not give (planner::Plan::assumptions, DeriveDefaults):
// [{"field", "value", "why"}], and as text "Assumed:\n  field = value: why\n..." ("" when none).
nlohmann::json AssumptionsJson(const std::vector<Assumption>& assumed);
std::string AssumedText(const std::vector<Assumption>& assumed);

// The terminal report: the ranked table, a "why" under the winner, its breakdowns and advice,
// the Pareto front and a summary of rejected types.
std::string PlanText(const Workload& w, const planner::Plan& plan);

// The same as a Markdown document.
std::string PlanMarkdown(const Workload& w, const planner::Plan& plan);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_PLAN_RENDER_H_
