// The interactive checklist behind `gpuplan wizard`: asks the questions a careful engineer answers
// before buying GPUs and turns the answers into workload YAML.
#ifndef GPUPLAN_SRC_CLI_WIZARD_H_
#define GPUPLAN_SRC_CLI_WIZARD_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "gpuplan/model.h"
#include "gpuplan/status.h"

namespace gpuplan::cli {

// Asks each question on `out`, reads answers from `in` (an empty line takes the default, "?"
// prints help), re-asks after an invalid answer (three tries), and returns the workload as YAML
// text that io::ParseWorkloadYaml accepts. Errors: end of input, or three invalid answers.
// Regions must be among `known_regions` (planner::KnownRegions).
Result<std::string> AskWorkload(std::istream& in, std::ostream& out, const ModelZoo& zoo,
                                const std::vector<std::string>& known_regions);

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_WIZARD_H_
