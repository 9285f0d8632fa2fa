// Advice rules: the checks a careful engineer makes before renting GPUs (from the two advice
// articles, corrected), each a named rule with a severity and a short why.
//
//   std::vector<rules::Advice> advice = rules::Check(context);
//
// Thread safety: pure functions.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_RULES_H_
#define GPUPLAN_INCLUDE_GPUPLAN_RULES_H_

#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/workload.h"

namespace gpuplan::rules {

enum class Severity { kInfo, kWarning, kCritical };
std::string_view SeverityName(Severity s);  // "info", "warning", "critical"

struct Advice {
  std::string rule;  // stable id, e.g. "multi-node-needs-erdma"
  Severity severity = Severity::kInfo;
  std::string message;  // what to do and why, one or two sentences
};

// Everything a rule may look at for one candidate.
struct Context {
  const Workload* workload = nullptr;
  const InstanceType* instance = nullptr;
  const Gpu* gpu = nullptr;
  // The GPU's architectures.csv row (Catalog::ArchitectureOf); nullptr = unknown, and the CUDA
  // support rule says nothing.
  const Architecture* architecture = nullptr;
  // Thresholds with sources (calibration.csv) and the price ratios (price_ratios.csv). A null
  // calibration: the rules that compare with one of its thresholds say nothing (it has no
  // values of its own). A null ratios: the defaults of cost::PriceRatios.
  const Calibration* calibration = nullptr;
  const cost::PriceRatios* ratios = nullptr;
  // The storage classes (Catalog::storage, data/storage.csv); nullptr = the rules about disk
  // throughput say nothing.
  const std::vector<StorageClass>* storage = nullptr;
  int nodes = 1;
  int tp = 1;
  int pp = 1;
  int dp = 1;
  Billing billing = Billing::kPayg;
  double job_hours = 0;  // 0 = unknown
  double step_s = 0;     // 0 = not a training step
  double dp_comm_s = 0;  // exposed data-parallel communication per step
  double tp_comm_s = 0;  // exposed tensor-parallel communication per step
  double ep_comm_s = 0;  // exposed MoE expert-parallel all-to-alls per step (or serving batch)
  double serving_s = 0;  // a service: one batch's prefill and decode (0 = not a service)
  // Pipelines: the last stage's extra time over the others' (Estimate::Time::head_stage_extra).
  double head_stage_extra = 0;
  double memory_per_gpu_gib = 0;
  double memory_capacity_gib = 0;
  double memory_p90_gib = 0;  // at p90 of the model's memory error (0 = no error table)
  double loss_gib = 0;  // training: what the loss holds of the logits (Estimate::Memory::loss_gib)
  double samples_per_s = 0;             // whole job (all GPUs), for the data read rate
  double tokens_per_s = 0;              // whole job (all GPUs), when samples are token sequences
  int vocab = 0;                        // decides bytes per stored token (2 or 4)
  Modality modality = Modality::kNone;  // the model's samples (images: CPU JPEG decoding)
  std::optional<double> checkpoint_interval_hours;  // spot: Young/Daly
  bool spot_cost_lower_bound = false;
};

// The read rate the job needs from storage, MB/s (samples/s x sample size); 0 when unknown.
double RequiredReadMbs(const Context& c);

// Every rule that applies to `c`, critical first, then warning, then info; stable order.
std::vector<Advice> Check(const Context& c);

}  // namespace gpuplan::rules

#endif  // GPUPLAN_INCLUDE_GPUPLAN_RULES_H_
