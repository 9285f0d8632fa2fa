// Defaults derived from the work, and the assumptions a plan rests on.
//
// A workload read from a file or flags marks what its author left unset (Workload::unset).
// DeriveDefaults fills those fields from the job and the model as published instead of one
// fixed value for every job, and lists every value the author did not give, derived or not,
// with where it comes from. `plan`, `explain`, `estimate` and the web page show the list
// ("Assumed:" in text, `assumptions[{field, value, why}]` in JSON).
//
//   std::vector<Assumption> assumed;
//   Workload w = DeriveDefaults(asked, arch, cal, &assumed);
//   // pre-training llama-2-13b on 300B tokens: w.global_batch == 1024 (2M tokens per step)
//
// Thread safety: pure functions over const inputs.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_DEFAULTS_H_
#define GPUPLAN_INCLUDE_GPUPLAN_DEFAULTS_H_

#include <string>
#include <vector>

#include "gpuplan/calibration.h"
#include "gpuplan/model.h"
#include "gpuplan/workload.h"

namespace gpuplan {

// One value the workload's author did not give.
struct Assumption {
  std::string field;  // the workload key: "global_batch", "inference.output_tokens"
  std::string value;  // as the key would take it: "1024", "fp8"
  std::string why;    // where the value comes from
};

// `w` with each field it marks unset (Workload::unset) derived from the work and `arch`:
//  - global_batch of a pre-training: the tokens per optimizer step published runs of the
//    model's size chose (Calibration::pretrain_batch_mtokens_*), at most the job's tokens over
//    pretrain_min_steps, in whole sequences rounded to a power of two;
//  - precision of an inference: fp8 when the weights are released in FP8
//    (ModelArch::release) and no weight_bits is given; with routed experts released in MXFP4
//    (gpt-oss), bf16 over 4-bit MXFP4 experts (weight_bits, weight_format, quantized_layers);
//  - inference.output_tokens of a reasoning model (ModelArch::reasoning):
//    Calibration::reasoning_output_tokens (at most a given output_tokens p90).
// Every other unset field keeps its default (confidence is the planner's to list: it checks a
// deadline or budget, planner::MakePlan). Appends one Assumption per unset field that
// matters to `w`'s task to `*assumed` (when not null). The result keeps `w.unset`, so deriving
// it again gives the same workload. Rendering and HPC jobs (no model) are returned as they are.
Workload DeriveDefaults(const Workload& w, const ModelArch& arch, const Calibration& cal,
                        std::vector<Assumption>* assumed);

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_DEFAULTS_H_
