// The advice, storage and image of a shown candidate (src/core/plan/annotate.h).
#include "plan/annotate.h"

#include <cmath>
#include <optional>
#include <string>

#include "gpuplan/estimate.h"
#include "gpuplan/provision.h"
#include "gpuplan/rules.h"
#include "gpuplan/strings.h"
#include "plan/latency.h"
#include "plan/spot.h"

namespace gpuplan::planner {

using strings::Num;

namespace {

// The served weights of the whole model, GiB: what one GPU would hold with no parallelism.
std::optional<double> CheckpointGib(const Workload& w, const ModelArch& arch, const Gpu& g,
                                    const Calibration& cal) {
  perf::Layout one;
  Workload single = w;
  single.inference.batch = 1;
  const Result<perf::Estimate> e =
      perf::EstimateRun(single, arch, perf::HardwareFor(g, 1, 1), one, cal);
  if (!e.ok() || !(e->memory.breakdown.weights > 0))
    return std::nullopt;
  return e->memory.breakdown.weights;
}

}  // namespace

void Annotate(const PlanInputs& in, const LatencyTargets& targets, Candidate& c) {
  const Workload& w = in.w;
  const ModelArch& arch = in.arch;
  const Catalog& catalog = in.catalog;
  const Calibration& cal = in.cal;
  const PlanOptions& options = in.options;
  const bool serving = w.IsServing();
  const InstanceType* t = catalog.FindInstance(c.instance);
  const Gpu& g = catalog.GpuOf(*t);
  rules::Context ctx;
  ctx.workload = &w;
  ctx.instance = t;
  ctx.gpu = &g;
  ctx.architecture = catalog.ArchitectureOf(g);
  ctx.calibration = &cal;
  ctx.ratios = &options.ratios;
  ctx.storage = &catalog.storage;
  // Copies of a service are independent: only the instances one copy spans talk to each other.
  const bool copies_independent = !w.IsTraining();
  ctx.nodes = copies_independent ? c.nodes_per_copy : c.nodes;
  ctx.tp = c.layout.tp;
  ctx.pp = c.layout.pp;
  ctx.dp = c.layout.dp;
  ctx.billing = c.billing;
  ctx.job_hours = c.job_hours;
  ctx.step_s = w.IsTraining() ? c.estimate.time.step_s : 0;
  ctx.dp_comm_s = c.estimate.time.breakdown.dp_comm;
  ctx.tp_comm_s = w.IsTraining() ? c.estimate.time.breakdown.tp_comm : 0;
  ctx.head_stage_extra = w.IsTraining() ? c.estimate.time.head_stage_extra : 0;
  ctx.ep_comm_s = c.estimate.time.breakdown.ep_comm;
  ctx.serving_s = w.IsTraining() ? 0 : c.estimate.time.step_s;
  ctx.memory_per_gpu_gib = c.estimate.memory.per_gpu_gib;
  ctx.memory_capacity_gib = c.estimate.memory.capacity_gib;
  ctx.memory_p90_gib = c.ranges && w.IsTraining() ? c.ranges->memory_gib.p90 : 0;
  ctx.loss_gib = w.IsTraining() ? c.estimate.memory.loss_gib : 0;
  ctx.samples_per_s = c.estimate.throughput.samples_per_s_per_gpu * c.gpus;
  ctx.tokens_per_s = c.estimate.throughput.tokens_per_s_per_gpu * c.gpus;
  ctx.vocab = arch.vocab;
  ctx.modality = arch.gen.modality;
  ctx.checkpoint_interval_hours = c.cost.checkpoint_interval_hours;
  ctx.spot_cost_lower_bound = c.cost.lower_bound || c.spot_cost_low.has_value();
  c.advice = rules::Check(ctx);
  c.storage = ChooseStorage(w, *t, ctx.nodes, rules::RequiredReadMbs(ctx), cal, catalog.storage);
  if (copies_independent) {
    // Each instance keeps the weights on its own disk, plus room for the engine's caches: the
    // checkpoint once (the weights of the model on one GPU at the served bytes), not the sum
    // over the copy's GPUs, which repeats what they replicate (attention data parallelism).
    const double weights_gib = CheckpointGib(w, arch, g, cal)
                                   .value_or(c.estimate.memory.breakdown.weights * c.gpus_per_copy);
    const double need_gib = std::ceil(weights_gib + cal.serving_disk_extra_gib);
    if (c.storage.kind != "local_nvme" && c.storage.size_gib < need_gib) {
      c.storage.size_gib = need_gib;
      c.storage.why = c.storage.kind + " of " + Num(need_gib) +
                      " GiB on each instance: the model's " + Num(weights_gib) +
                      " GiB of weights plus " + Num(cal.serving_disk_extra_gib) +
                      " GiB for the image and the engine's caches";
    }
  }
  if (serving && c.copies > 1) {
    c.advice.push_back(
        {"service-load-balancer", rules::Severity::kInfo,
         std::to_string(c.copies) + " independent model copies on " + std::to_string(c.nodes) +
             " instances: put a load balancer (ALB/NLB, or the engine's router) in front; "
             "no network between copies is needed"});
  }
  if (c.spare_instances > 0) {
    c.advice.push_back({"spot-service-spare-copies", rules::Severity::kWarning,
                        "spot for a service: " + std::to_string(c.spare_instances) +
                            " spare instance(s) included (one per ten, at least one) so a "
                            "reclaim (5-minute notice, "
                            "about 15 minutes to replace) keeps the rate; requests in flight on "
                            "a reclaimed copy fail "
                            "and must be retried"});
  }
  if (!c.price_known)
    c.advice.push_back({"price-unknown", rules::Severity::kWarning, c.price_hint});
  if (std::optional<rules::Advice> a = LatencyAdvice(w, targets, cal, c))
    c.advice.push_back(std::move(*a));
  if (c.spot_ranked_at_payg > 0)
    c.advice.push_back({"spot-price-not-ranked", rules::Severity::kWarning, SpotNotRankedWhy(c)});
  c.image = ChooseImage(catalog.ArchitectureOf(g), g, *t);
}

}  // namespace gpuplan::planner
