// Reads a workload YAML file (the schema in README.md "Workload file") into a Workload.
//
// Errors name the file, line and column, the field and what was expected:
//   job.yaml:4:10: field "seq_len": expected a whole number >= 1, got "long"
//   job.yaml:7:1: unknown key "optimiser"; did you mean "optimizer"?
// yaml-cpp exceptions never escape.
#ifndef GPUPLAN_SRC_IO_WORKLOAD_YAML_H_
#define GPUPLAN_SRC_IO_WORKLOAD_YAML_H_

#include <optional>
#include <string>
#include <string_view>

#include "gpuplan/status.h"
#include "gpuplan/workload.h"

namespace gpuplan::io {

// Parses `text`; `file` names it in errors. The result passed ValidateWorkload().
Result<Workload> ParseWorkloadYaml(std::string_view text, const std::string& file);

// Reads and parses the file at `path`.
Result<Workload> LoadWorkloadYaml(const std::string& path);

// The workload's spellings, shared with the CLI flags (case-insensitive): a billing mode
// ("payg", "spot", "subscription" = monthly, or a catalog BillingName), and a compute precision
// (bf16, fp16, fp32, fp8, fp64; int8 and tf32 are not workload precisions). nullopt otherwise.
std::optional<Billing> ParseBillingMode(std::string_view name);
std::optional<Precision> ParseWorkloadPrecision(std::string_view name);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_WORKLOAD_YAML_H_
