// The top pick's why (src/core/plan/why.h).
#include "plan/why.h"

#include <cmath>

#include "gpuplan/estimate.h"
#include "gpuplan/framework.h"
#include "gpuplan/layout_search.h"
#include "gpuplan/plan_ranges.h"
#include "gpuplan/strings.h"
#include "plan/latency.h"
#include "plan/search.h"
#include "plan/show_bar.h"
#include "serving/fleet_plan.h"

namespace gpuplan::planner {
namespace {

using strings::Num;

// Why a training pick uses memory savers the search added (offload, optimizer in backward,
// activation offload): nothing fits without them, or they beat the best layout without them,
// searched here on the pick's hardware with the savers ruled out (the plan's own search may
// have stopped that part early once the savers' layout beat it).
std::string SaversWhy(const PlanInputs& in, const Candidate& best) {
  const Workload& w = in.w;
  const perf::Layout& l = best.layout;
  const bool pinned = w.offload || w.optimizer_in_backward || w.activation_offload;
  if (pinned ||
      (l.offload == perf::Offload::kNone && !l.optimizer_in_backward && !l.activation_offload)) {
    return "";
  }
  double without = 0;
  const InstanceType* t = in.catalog.FindInstance(best.instance);
  if (Result<perf::Hardware> hw =
          t ? PlanHardware(in, *t, best.nodes) : Status::NotFound(best.instance);
      hw.ok()) {
    perf::LayoutPins pins = perf::PinsFrom(w);
    pins.offload = perf::Offload::kNone;
    pins.optimizer_in_backward = false;
    pins.activation_offload = false;
    const perf::LayoutSearch s = perf::SearchLayout(w, in.arch, *hw, in.cal, pins);
    if (s.ok)
      without = s.estimate.time.step_s;
  }
  return (without > 0 ? "; these memory savers beat the best layout without them (" + Num(without) +
                            " s per step)"
                      : "; nothing fits without these memory savers") +
         " (host RAM " + Num(best.estimate.memory.host_gib) + " of " +
         Num(best.estimate.memory.host_capacity_gib) + " GiB usable per node)";
}

// What the job's hours add to its work: the stops a synchronous job of this many GPUs meets and
// the checkpoints that bound the rework (perf::TrainingJob); "" when they add under 0.5%.
std::string StopsWhy(const PlanInputs& in, const Candidate& best) {
  const perf::Estimate::Job& job = best.estimate.job;
  if (!(job.mtbf_hours > 0) || job.Goodput() > 0.995)
    return "";
  const std::string stops = job.interruptions < 0.1 ? std::string("a stop is unlikely")
                                                    : Num(job.interruptions) + " expected stops";
  return "; the " + Num(job.hours) + " h include a checkpoint every " +
         Num(job.checkpoint_interval_hours) + " h taking " + Num(job.checkpoint_minutes) +
         " min and " + stops + " (one per " + Num(job.mtbf_hours) + " h at " +
         Num(in.cal.interruptions_per_gpu_hour * 1e5) + " per 100,000 GPU-hours, " +
         Num(in.cal.restart_minutes) + " min each to restart): goodput " +
         Num(job.Goodput() * 100) + "%";
}

// A speech model's speed as its users measure it: seconds of audio transcribed per second, and
// the real-time factor (processing time over audio time) of one instance.
std::string AudioRate(const PlanInputs& in, const Candidate& best) {
  if (in.arch.gen.modality != Modality::kSpeech || !best.estimate.inference)
    return "";
  const double audio_per_s = best.estimate.inference->requests_per_s /
                             std::max(best.nodes_per_copy, 1) * kSpeechWindowSeconds;
  return audio_per_s > 0 ? "; " + Num(audio_per_s) +
                               " s of audio per second per instance (real-time factor 1/" +
                               Num(audio_per_s) + ")"
                         : "";
}

// What the top pick's speed rests on: memory and layout for training, copies and latency for
// serving, price per TFLOPS for rendering and HPC.
std::string WhyFits(const PlanInputs& in, const Candidate& best) {
  const Workload& w = in.w;
  const Catalog& catalog = in.catalog;
  if (w.IsTraining()) {
    const perf::Estimate::Memory& m = best.estimate.memory;
    // The headroom the fit test left at the workload's memory confidence (the model's memory
    // error).
    const std::string headroom =
        m.checked_gib != m.per_gpu_gib
            ? " (" + Num(m.checked_gib) + " at p" +
                  std::to_string(std::lround(w.memory_confidence * 100)) +
                  " of the model's memory error: " + Num(m.capacity_gib - m.checked_gib) +
                  " GiB headroom)"
            : "";
    std::string why = "fits at " + Num(m.per_gpu_gib) + " of " + Num(m.capacity_gib) +
                      " GiB per GPU" + headroom + " with " + perf::DescribeLayout(best.layout) +
                      ", " + Num(best.estimate.time.step_s) + " s per step, MFU " +
                      Num(best.estimate.throughput.mfu * 100) + "% (" +
                      std::string(best.estimate.mfu_basis) + ")";
    why += SaversWhy(in, best);
    why += StopsWhy(in, best);
    if (std::string framework = FrameworkWhy(w, best.layout); !framework.empty())
      why += "; " + framework;
    return why;
  }
  if (best.estimate.inference) {
    const perf::InferenceTimes& inf = *best.estimate.inference;
    if (w.inference.output_tokens > 0) {
      return std::to_string(best.copies) +
             (best.copies == 1 ? " model copy of " : " model copies of ") +
             std::to_string(best.gpus_per_copy) +
             " GPU(s) each (tp=" + std::to_string(best.layout.tp) +
             (best.layout.pp > 1 ? " pp=" + std::to_string(best.layout.pp) : "") +
             (best.layout.ep > 1 ? " ep=" + std::to_string(best.layout.ep) +
                                       ": experts over every GPU, attention data parallel over " +
                                       std::to_string(best.layout.dp) + " ranks"
                                 : "") +
             ") on " + std::to_string(best.nodes) + " instance(s); each instance serves " +
             Num(inf.requests_per_s / std::max(best.nodes_per_copy, 1)) + " requests/s at batch " +
             std::to_string(inf.batch) + (best.layout.ep > 1 ? " per rank" : " per copy") +
             " (TTFT " + Num(inf.ttft_ms) + " ms, TPOT " + Num(inf.tpot_ms) + " ms, " +
             Num(best.estimate.memory.per_gpu_gib) + " of " +
             Num(best.estimate.memory.capacity_gib) + " GiB per GPU)" + AudioRate(in, best);
    }
    return "each instance processes " + Num(inf.requests_per_s) + " samples/s at batch " +
           std::to_string(inf.batch) + " (" + Num(inf.ttft_ms) + " ms per batch, " +
           Num(best.estimate.memory.per_gpu_gib) + " GiB per GPU)";
  }
  const InstanceType* t = catalog.FindInstance(best.instance);
  return "the lowest price per " + std::string(w.task == Task::kHpc ? "FP64" : "FP32") +
         " TFLOPS among types that can " + (w.task == Task::kHpc ? "run FP64 work" : "render") +
         " (" + Num(t ? t->gpu_count : 0) + " x " + best.gpu + ")";
}

// A shown job that nearly ties the top pick on the objective and is far better on the other
// measure, which a user would rather take: a score (what the ranking compares: cost, or hours,
// at the workload's confidence) within options.near_tie_score (2%) of the pick's and at least
// options.near_tie_gain (20%) fewer hours (under a cost objective) or less cost (under a time
// objective); "" when none is. Spot ranked at
// its PAYG cap is left out: its own price cannot be relied on. The first such in rank order
// (its index into `at`).
std::string NearTie(const Workload& w, const PlanOptions& options,
                    const std::vector<Candidate>& shown, size_t& at) {
  const double tie_share = options.near_tie_score, gain_share = options.near_tie_gain;
  const Candidate& best = shown[0];
  const auto job = [](const Candidate& c) {
    return c.price_known && !c.monthly && c.job_hours > 0 && c.cost.total.amount() > 0 &&
           c.score > 0 && c.spot_ranked_at_payg == 0;
  };
  if (!job(best))
    return "";
  const bool by_time = RanksByTime(w);
  const double best_hours = best.job_hours, best_cost = best.cost.total.amount();
  for (size_t i = 1; i < shown.size(); ++i) {
    const Candidate& c = shown[i];
    if (!job(c) || c.cost.total.currency() != best.cost.total.currency() ||
        c.score > best.score * (1 + tie_share)) {
      continue;
    }
    const double hours = c.job_hours, money = c.cost.total.amount();
    if (by_time ? money > best_cost * (1 - gain_share) : hours > best_hours * (1 - gain_share))
      continue;
    at = i;
    const std::string what = std::to_string(c.nodes) + " x " + c.instance + " " +
                             std::string(cost::ModeName(c.billing)) + " in " + c.region;
    if (by_time) {
      return "near tie: " + what + " takes " + Num(hours) + " h instead of " + Num(best_hours) +
             " h for " + c.cost.total.ToString() + " (" + Num(100 * (1 - money / best_cost)) +
             "% less)";
    }
    const double more = money - best_cost;
    return "near tie: " + what + " finishes in " + Num(hours) + " h instead of " + Num(best_hours) +
           " h for " + c.cost.total.ToString() + " (" +
           (std::abs(more) < 0.005 ? std::string("the same cost")
                                   : Money(std::abs(more), best.cost.total.currency()).ToString() +
                                         (more > 0 ? " more" : " less")) +
           ")";
  }
  return "";
}

}  // namespace

std::string WhyBest(const PlanInputs& in, const Plan& plan, const std::string& currency) {
  const Workload& w = in.w;
  const std::vector<Candidate>& shown = plan.candidates;
  const LatencyTargets& targets = plan.latency;
  const bool spot_alternative = plan.spot_alternative.has_value();
  const Candidate& best = shown[0];
  std::string why = std::to_string(best.nodes) + " x " + best.instance + " (" +
                    std::to_string(best.gpus) + " x " + best.gpu + ") in " +
                    (best.region.empty() ? "any region" : best.region) + ", " +
                    (!best.price_known ? std::string("price unknown")
                     : best.fleet      ? serving::FleetSummary(*best.fleet)
                                       : std::string(cost::ModeName(best.billing))) +
                    ": ";
  why += WhyFits(in, best);
  if (best.estimate.inference && (targets.ttft_ms || targets.tpot_ms))
    why += "; within " + TargetsText(targets);
  why += !best.price_known ? (best.job_hours > 0 ? "; " + Num(best.job_hours) + " h" : "") + "; " +
                                 best.price_hint
         : best.monthly       ? "; " + best.monthly->per_month.ToString() + " per month"
         : best.job_hours > 0 ? "; " + Num(best.job_hours) + " h for " + best.cost.total.ToString()
                              : "; " + best.cost.total.ToString() + " per hour";
  if (std::string sure = ConfidenceWhy(w, best, currency); !sure.empty())
    why += "; " + sure;
  if (best.spot_ranked_at_payg > 0) {
    why += "; ranked as if spot cost its PAYG cap " +
           Money(best.spot_ranked_at_payg, best.cost.total.currency()).ToString() +
           "/h: its own spot price cannot be relied on (see the spot-price-not-ranked advice)";
  } else if (spot_alternative) {
    why += "; spot looks cheaper only at a price that cannot be relied on (see the notes)";
  }
  size_t tie_at = 0;
  if (std::string tie = NearTie(w, in.options, shown, tie_at); !tie.empty())
    why += "; " + tie;
  if (shown.size() > 1 && tie_at != 1) {
    const Candidate& next = shown[1];
    why += "; next best " + std::to_string(next.nodes) + " x " + next.instance + " " +
           (next.price_known ? std::string(cost::ModeName(next.billing)) : "price unknown") + " (" +
           (next.job_hours > 0 ? Num(next.job_hours) + " h, " : "") +
           (!next.price_known ? "cost unknown"
            : next.monthly    ? next.monthly->per_month.ToString() + " per month"
                              : next.cost.total.ToString()) +
           ")";
  }
  return why;
}

}  // namespace gpuplan::planner
