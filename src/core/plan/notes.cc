// The plan's notes and assumptions (src/core/plan/notes.h).
#include "plan/notes.h"

#include <algorithm>
#include <cmath>

#include "gpuplan/strings.h"
#include "plan/show_bar.h"
#include "plan/spot.h"

namespace gpuplan::planner {

using strings::Num;

// The real routes, and that their speed and price are unknown.
extern const char kNoNvidiaNote[] =
    "without NVIDIA: Alibaba Cloud sells no Huawei Ascend or Cambricon instances (Ascend is sold "
    "on Huawei Cloud, outside gpuplan's scope). Its own accelerator is the T-Head PPU (Zhenwu "
    "810E, 96 GB HBM2e, 16 per node), offered through PAI (DSW/DLC/EAS node types "
    "ml.gp7vf.16.40xlarge and ml.gp7vf.16.46xlarge), Lingjun nodes in ACK, ACS and Function "
    "Compute, mostly in cn-wulanchabu and through sales or an allowlist; ECS's API also lists PPU "
    "(ecs.gp7-*) and AMD MI308X (ecs.ebmga8.48xlarge) types with no product page or price. "
    "Unknown: no public price, memory bandwidth or dense BF16/FP8 TFLOPS exists for the PPU, so "
    "gpuplan cannot plan or price it: ask Alibaba sales for a quote and availability "
    "(DescribeAvailableResource), and benchmark your model on a PPU node first (PyTorch runs "
    "through a CUDA-compatible stack; SGLang and vLLM PPU builds exist). Hanguang 800 (ebman1) "
    "and the FPGA types cannot train or serve LLMs. Source: data/SOURCES.md V1";

// The limits and modes a plan assumes when the workload gives none: the node limit and the
// billing modes (for the "Assumed:" list).
void AssumePlanLimits(const Workload& w, const PlanOptions& options,
                      const std::vector<Billing>& modes, std::vector<Assumption>& assumed) {
  if (w.task == Task::kRendering || w.task == Task::kHpc || w.unset.Count() == 0)
    return;  // a workload built in code gives everything
  if (w.unset.confidence && (w.constraints.deadline_hours || w.constraints.budget)) {
    assumed.push_back({"confidence", Num(w.confidence),
                       "the deadline and budget are checked at p" +
                           std::to_string(std::lround(w.confidence * 100)) +
                           " of the model's time and cost error"});
  }
  if (!w.constraints.max_nodes && !w.constraints.max_gpus) {
    assumed.push_back({"constraints.max_nodes", std::to_string(options.default_max_nodes),
                       "gpuplan's node limit when neither max_nodes nor max_gpus is given; every "
                       "node count up to it is tried"});
  }
  if (w.constraints.billing.empty() && !modes.empty()) {
    std::string names;
    for (Billing b : modes)
      names += (names.empty() ? "" : ", ") + std::string(BillingName(b));
    assumed.push_back({"constraints.billing", "[" + names + "]",
                       w.IsService() ? "a service is priced pay-as-you-go and by subscription, "
                                       "never spot unless billing lists it"
                                     : "a job is priced pay-as-you-go and spot"});
  }
}

void AddNotes(const Workload& w, bool no_nvidia, const std::string& currency,
              const LatencyMisses& misses, Plan& plan) {
  // "As of" is the date of the oldest price the shown candidates rest on, not today.
  for (const Candidate& c : plan.candidates) {
    const cost::PriceQuote* q = PriceUsed(c);
    if (!q || q->as_of.empty())
      continue;
    if (plan.prices_as_of.empty() || q->as_of < plan.prices_as_of) {
      plan.prices_as_of = q->as_of;
      plan.prices_age_days = q->age_days;
    }
  }
  std::string as_of =
      plan.prices_as_of.empty() ? "none known" : "as of " + plan.prices_as_of + " (the oldest used";
  if (!plan.prices_as_of.empty()) {
    as_of += plan.prices_age_days ? ", " + std::to_string(*plan.prices_age_days) + " days old" : "";
    as_of += plan.prices_age_days && *plan.prices_age_days > kStalePriceDays
                 ? "; stale: refresh with 'gpuplan prices refresh --region R')"
                 : ")";
  }
  plan.notes.push_back("prices: " + as_of +
                       "; costs are instance-only (disks and bandwidth extra), in " + currency);
  const size_t unpriced =
      static_cast<size_t>(std::count_if(plan.candidates.begin(), plan.candidates.end(),
                                        [](const Candidate& c) { return !c.price_known; }));
  if (unpriced > 0) {
    plan.notes.push_back(
        std::to_string(unpriced) + " shown candidate(s) have no known price" +
        (RanksByTime(w) ? " (ranked by time with the rest)"
                        : " (ranked by time after every priced one)") +
        ": 'gpuplan prices refresh --region R', 'gpuplan prices import FILE' or "
        "'gpuplan prices add TYPE AMOUNT --region R --billing payg' brings a price");
  }
  if (plan.spot_alternative)
    plan.notes.push_back(SpotAlternativeNote(*plan.spot_alternative, plan.candidates.front()));
  if (no_nvidia)
    plan.notes.push_back(kNoNvidiaNote);
  if (std::string note = DefaultTargetsNote(plan.latency); !note.empty())
    plan.notes.push_back(note);

  if (plan.candidates.empty()) {
    if (std::string note = NoSetupMeetsNote(w, plan.latency, misses); !note.empty())
      plan.notes.push_back(note);
  }
  const bool serving = w.IsServing();
  if (w.task == Task::kRendering || w.task == Task::kHpc) {
    plan.notes.push_back(
        std::string("gpuplan has no speed model for ") + std::string(TaskName(w.task)) +
        ": types that can do it are ranked by price per " +
        (w.task == Task::kHpc ? "FP64" : "FP32") + " TFLOPS; benchmark your own scene or solver");
  } else if (!w.TotalTokens() && !w.samples && !serving) {
    plan.notes.push_back(
        "no amount of work given (tokens or samples): costs are per hour and ranking is by cost "
        "per million tokens");
  }
}

std::string TieNote(const Plan& plan) {
  if (plan.candidates.size() < 2)
    return "";
  const Candidate &a = plan.candidates[0], &b = plan.candidates[1];
  if (a.score != b.score || a.price_known != b.price_known)
    return "";
  return "tie: " + std::to_string(a.nodes) + " x " + a.instance + " and " +
         std::to_string(b.nodes) + " x " + b.instance + " score alike on the objective; " +
         kTieBreakRule;
}

}  // namespace gpuplan::planner
