// A training job's hours: its steps at the estimated step time, then the stops a synchronous job
// of that many GPUs meets and the checkpoints that bound what each stop loses
// (include/gpuplan/estimate.h TrainingJob, CheckpointSeconds).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"

namespace gpuplan::perf {

Estimate::Job TrainingJob(const Workload& w, int gpus, double step_s, const Calibration& cal,
                          double checkpoint_s) {
  Estimate::Job job;
  const std::optional<double> total = w.TotalTokens();
  if (!total)
    return job;
  const double tokens_per_step = static_cast<double>(w.global_batch) * w.seq_len;
  job.steps = std::ceil(*total / tokens_per_step);
  job.work_hours = job.steps * step_s / 3600;
  job.hours = job.work_hours;
  job.checkpoint_minutes = checkpoint_s / 60;
  // Any GPU, link or host that fails stops every rank of a synchronous job (Dubey et al. 2024,
  // Llama 3, section 3.3.4), so the job's stops come at the per-GPU rate times its GPUs.
  const double stops_per_hour = cal.interruptions_per_gpu_hour * gpus;
  if (!(stops_per_hour > 0) || !(job.work_hours > 0)) {
    job.gpu_hours = job.hours * gpus;
    return job;
  }
  job.mtbf_hours = 1 / stops_per_hour;
  const double checkpoint_h = checkpoint_s / 3600;
  // With no checkpoint cost Young/Daly's interval shrinks to nothing: the rework goes with it.
  const double interval =
      std::min(checkpoint_h > 0 ? cost::YoungDalyInterval(checkpoint_h, job.mtbf_hours) : 0.0,
               job.work_hours);
  job.checkpoint_interval_hours = interval;
  const double lost_per_stop = cal.restart_minutes / 60 + interval / 2;
  const std::optional<double> wall = cost::InterruptedWallHours(
      job.work_hours, interval > 0 ? checkpoint_h / interval : 0.0, lost_per_stop, job.mtbf_hours);
  job.hours = wall ? *wall : std::numeric_limits<double>::infinity();
  job.interruptions = job.hours / job.mtbf_hours;
  job.gpu_hours = job.hours * gpus;
  return job;
}

double CheckpointSeconds(const Workload& w, const Estimate& e, const Layout& layout,
                         const Hardware& hw, const Calibration& cal) {
  if (!w.IsTraining() || !(cal.checkpoint_write_gbps_per_node > 0))
    return 0;
  const MemoryBreakdown& b = e.memory.breakdown;
  const double gpu_gib = w.method == Method::kFull ? b.weights + b.optimizer : b.adapters;
  // Data-parallel replicas hold the same states unless ZeRO shards them over data (and context)
  // parallel ranks; then every GPU's share is its own. One copy of each state is written.
  const long long distinct = static_cast<long long>(layout.tp) * layout.pp *
                             (layout.zero >= 1 ? static_cast<long long>(layout.dp) * layout.cp : 1);
  const double writers = static_cast<double>(std::min<long long>(hw.gpus_per_node, distinct));
  const double host_gib = layout.offload != Offload::kNone ? e.memory.host_gib : 0;
  const double node_gib = gpu_gib * writers + host_gib;
  return node_gib * (1ull << 30) / (cal.checkpoint_write_gbps_per_node * 1e9);
}

}  // namespace gpuplan::perf
