// A layout made into candidates (src/core/plan/search.h): how many instances the work takes and
// for how long, held to the deadline, then priced (plan/pricing.h) or kept unpriced; and why a
// layout that does not fit does not.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "gpuplan/framework.h"
#include "gpuplan/plan_ranges.h"
#include "gpuplan/strings.h"
#include "gpuplan/uncertainty.h"
#include "plan/search.h"
#include "serving/search.h"

namespace gpuplan::planner {
namespace {

using strings::Num;

std::string MemoryReason(const LayoutResult& r, const InstanceType& t, const Gpu& g, int nodes,
                         const perf::Hardware& hw, double confidence) {
  // Fits at the point but not with the model's memory error: the user may take the risk.
  const double at_confidence = r.min_memory_gib * hw.memory_error_ratio;
  if (r.min_memory_gib > 0 && r.min_memory_gib <= hw.gpu_memory_gib &&
      at_confidence > hw.gpu_memory_gib) {
    const std::string p = "p" + std::to_string(std::lround(confidence * 100));
    return "fits only at the point estimate: needs " + Num(r.min_memory_gib) +
           " GiB per GPU at its leanest layout on " + std::to_string(nodes) + " node(s), " +
           Num(at_confidence) + " GiB at " + p + " of the model's memory error (" +
           uncertainty::ErrorPercent(hw.memory_error_ratio) + ", data/uncertainty.csv), " + g.name +
           " has " + Num(hw.gpu_memory_gib) + " GiB usable; a lower memory_confidence (now " +
           Num(confidence) + ", --memory-confidence) accepts the risk of an OOM";
  }
  if (r.min_memory_gib > 0) {
    std::string why = "needs " + Num(r.min_memory_gib) +
                      " GiB per GPU even at its best layout on " + std::to_string(nodes) +
                      " node(s), " + g.name + " has " + Num(hw.gpu_memory_gib) + " GiB usable (" +
                      Num(t.gpu_memory_gib) + " GiB on the datasheet)";
    // The search also says when offload would fit the GPU but not the host's RAM.
    if (r.reason.find("host RAM") != std::string::npos)
      why += "; " + r.reason;
    return why;
  }
  return r.reason.empty() ? "no layout works" : r.reason;
}

}  // namespace

// Where an unpriced candidate would run: the asked region, or any.
std::string CandidateSearch::UnpricedRegion() const {
  return w_.constraints.regions.empty() ? "" : w_.constraints.regions.front();
}

Candidate CandidateSearch::Base(const InstanceType& t, const Gpu& g) const {
  Candidate base;
  base.instance = t.name;
  base.family = t.family;
  base.preview = t.status == Lifecycle::kPreview;
  base.gpu = g.name;
  return base;
}

// Rendering and FP64 HPC have no speed model: whole instances are ranked by price per unit of
// the capability that matters (FP32 TFLOPS for rendering, FP64 TFLOPS for HPC).
void CandidateSearch::AddByCapability(TypeRun& run) {
  const InstanceType& t = *run.t;
  const Gpu& g = *run.g;
  const Precision key = w_.task == Task::kHpc ? Precision::kFp64 : Precision::kFp32;
  Candidate base = Base(t, g);
  base.gpus = t.whole_gpus();
  const double capacity = g.Tflops(key).value_or(0) * std::max(t.gpu_count, 0.0);
  if (capacity <= 0)
    return;
  const PriceRequest r{.w = w_,
                       .t = t,
                       .base = base,
                       .hours = 0,
                       .units_per_hour = capacity,
                       .serving = false,
                       .explain = true};
  Offered offered =
      run.unpriced ? AddUnpriced(r, UnpricedRegion()) : PriceCandidate(r, run.pricing);
  std::move(offered.candidates.begin(), offered.candidates.end(), std::back_inserter(all_));
  run.any = offered.added;
  if (!offered.rejection.empty())
    run.rejection = std::move(offered.rejection);
}

// Why `lr` does not fit `nodes` x `t`.
std::string CandidateSearch::NoFitReason(const LayoutResult& lr, const InstanceType& t,
                                         const Gpu& g, int nodes, const perf::Hardware& hw) const {
  std::string why = MemoryReason(lr, t, g, nodes, hw, w_.memory_confidence);
  // A serving engine's pool takes only part of the GPU (vLLM's gpu_memory_utilization): say so,
  // or a need below the usable memory reads as a contradiction.
  if (!w_.IsTraining() && lr.min_memory_gib > 0 && w_.inference.engine == Engine::kVllm) {
    why += " of which vLLM's --gpu-memory-utilization " + Num(cal_.vllm_gpu_memory_utilization) +
           " lets the engine use " +
           Num(cal_.EngineMemoryLimitGib(Engine::kVllm, hw.gpu_memory_gib, 0)) + " GiB";
  }
  // Each data-parallel replica needs a sequence of the global batch: beyond global_batch
  // replicas more GPUs cannot shard the states further, which the user may not expect.
  if (w_.IsTraining() && hw.Gpus() > w_.global_batch) {
    why += "; global_batch " + std::to_string(w_.global_batch) + " limits data parallel to " +
           std::to_string(w_.global_batch) + " replicas at micro-batch 1 (" +
           std::to_string(hw.Gpus()) + " GPUs were tried): raise global_batch";
  }
  return why;
}

CandidateSearch::Sizing CandidateSearch::Size(const InstanceType& t, int nodes,
                                              const LayoutResult& lr,
                                              const perf::Hardware& hw) const {
  const perf::Estimate& e = lr.estimate;
  Sizing z{.instances = nodes,
           .copies = w_.IsTraining() ? 1 : serving::CopiesPerGroup(lr.layout),
           .hours = e.job.hours,
           .rejection = ""};
  if (w_.task != Task::kInference || !e.inference)
    return z;
  if (serving_ && e.inference->requests_per_s > 0) {
    // Independent copies: enough groups of `nodes` instances for the rate.
    const int groups =
        static_cast<int>(std::ceil(*w_.inference.PeakRps() / e.inference->requests_per_s - 1e-9));
    z.instances = groups * nodes;
    z.copies = groups * serving::CopiesPerGroup(lr.layout);
    if (w_.constraints.max_gpus && z.instances * t.whole_gpus() > *w_.constraints.max_gpus) {
      z.rejection = "needs " + std::to_string(z.instances) + " instances (" +
                    std::to_string(z.instances * t.whole_gpus()) + " GPUs) for " +
                    Num(*w_.inference.PeakRps()) + " requests/s, over constraints.max_gpus";
      return z;
    }
    z.hours = options_.ratios.hours_per_month;  // a service: one month
  } else if (w_.samples && e.inference->requests_per_s > 0) {
    // Batch inference over a dataset: sequences (images, documents) per second.
    z.hours = *w_.samples * w_.epochs / e.inference->requests_per_s / 3600;
  } else if (w_.tokens && e.inference->tokens_per_s_per_gpu > 0) {
    z.hours = *w_.tokens / (e.inference->tokens_per_s_per_gpu * hw.Gpus()) / 3600;
  }
  return z;
}

// `lr` on `nodes` x `run.t` priced (sized, held to the deadline and budget), or why not.
// `explain`: the costs' notes.
Offered CandidateSearch::Offer(const TypeRun& run, int nodes, const perf::Hardware& hw,
                               const LayoutResult& lr, bool explain) const {
  const InstanceType& t = *run.t;
  const perf::Estimate& e = lr.estimate;
  const Sizing sized = Size(t, nodes, lr, hw);
  if (!sized.rejection.empty())
    return {.added = false, .candidates = {}, .rejection = sized.rejection};
  const Sizing* z = &sized;
  const double hours = z->hours;
  const bool per_hour = hours <= 0;  // no amount of work: price one hour, rank by cost/token
  std::optional<CandidateRanges> ranges;
  if (!options_.uncertainty.regimes.empty()) {
    ranges = TimeRanges(options_.uncertainty, w_, arch_, hw, e, per_hour || serving_ ? 0 : hours);
  }
  const double hours_at_confidence = ranges && !serving_ ? ranges->job_hours_at_confidence : hours;
  if (w_.constraints.deadline_hours && !per_hour &&
      hours_at_confidence > *w_.constraints.deadline_hours) {
    return {.added = false,
            .candidates = {},
            .rejection = std::to_string(nodes) + " node(s): takes " + Num(hours) + " h" +
                         (ranges ? " (p" + std::to_string(std::lround(w_.confidence * 100)) + " " +
                                       Num(hours_at_confidence) + " h)"
                                 : "") +
                         ", deadline " + Num(*w_.constraints.deadline_hours) + " h"};
  }
  Candidate base = Base(t, *run.g);
  base.nodes = z->instances;
  base.gpus = z->instances * t.whole_gpus();
  base.copies = z->copies;
  base.gpus_per_copy = w_.IsTraining() ? base.gpus : hw.Gpus() / serving::CopiesPerGroup(lr.layout);
  base.nodes_per_copy = w_.IsTraining() ? z->instances : nodes;
  base.copies_per_instance_group = w_.IsTraining() ? 1 : serving::CopiesPerGroup(lr.layout);
  base.layout = lr.layout;
  if (const Framework* f = FrameworkFor(w_.frameworks, lr.layout); f && w_.IsTraining())
    base.framework = f->name;
  if (w_.IsTraining())
    base.attention_kernel = AttentionKernelName(AttentionKernelFor(w_.frameworks, lr.layout));
  base.estimate = e;
  base.ranges = ranges;
  const double tokens_per_hour =
      (e.inference ? e.inference->tokens_per_s_per_gpu : e.throughput.tokens_per_s_per_gpu) *
      base.gpus * 3600;
  const PriceRequest r{.w = w_,
                       .t = t,
                       .base = base,
                       .hours = per_hour ? 0 : hours,
                       .units_per_hour = tokens_per_hour,
                       .serving = serving_,
                       .explain = explain};
  return run.unpriced ? AddUnpriced(r, UnpricedRegion()) : PriceCandidate(r, run.pricing);
}

}  // namespace gpuplan::planner
