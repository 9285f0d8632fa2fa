// Reads a workload YAML file (the schema in docs/plan.md, "The workload file") into a Workload.
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
#include <vector>

#include "gpuplan/status.h"
#include "gpuplan/workload.h"

namespace YAML {
class Node;
}

namespace gpuplan::io {

// Parses `text`; `file` names it in errors. The result passed ValidateWorkload().
Result<Workload> ParseWorkloadYaml(std::string_view text, const std::string& file);

// The workload of mapping `node` of a larger document (a campaign's job or service) whose own
// keys `extra_keys` are the caller's to read; errors as ParseWorkloadYaml's, with `file`'s lines.
Result<Workload> ReadWorkloadNode(const YAML::Node& node, const std::string& file,
                                  const std::vector<std::string_view>& extra_keys);

// Reads and parses the file at `path`.
Result<Workload> LoadWorkloadYaml(const std::string& path);

// The compute precisions a workload may name, shared with the CLI flags (int8 and tf32 are
// peak-table columns, not workload precisions); the most used first, as messages list them.
inline constexpr EnumNames<Precision, 5> kWorkloadPrecisionNames = {{{Precision::kBf16, "bf16"},
                                                                     {Precision::kFp16, "fp16"},
                                                                     {Precision::kFp32, "fp32"},
                                                                     {Precision::kFp8, "fp8"},
                                                                     {Precision::kFp64, "fp64"}}};
// Case-insensitive; nullopt for any other name.
constexpr std::optional<Precision> ParseWorkloadPrecision(std::string_view name) {
  return ParseName(kWorkloadPrecisionNames, name, NameCase::kIgnore);
}

// Whether `key` is a top-level key of a workload file ("task", "constraints", ...).
bool IsWorkloadKey(std::string_view key);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_WORKLOAD_YAML_H_
