// Loads data/frameworks.csv (embedded): one training framework per row with the layouts and
// memory savers it runs (gpuplan/framework.h), each with its docs source and the date read.
#ifndef GPUPLAN_SRC_IO_FRAMEWORK_CSV_H_
#define GPUPLAN_SRC_IO_FRAMEWORK_CSV_H_

#include <string>
#include <string_view>

#include "gpuplan/framework.h"
#include "gpuplan/status.h"
#include "gpuplan/workload.h"

namespace gpuplan::io {

// Parses the table; `file` names it in errors, which give file:line and the field (a yes/no
// that is neither, a ZeRO stage outside 0-3, a missing source or date, a name listed twice or
// spelled "auto", model-parallel ZeRO stages without tp or pp ...).
Result<FrameworkTable> ParseFrameworks(std::string_view text, const std::string& file);

// The embedded data/frameworks.csv.
Result<FrameworkTable> LoadFrameworks();

// Sets w.frameworks from w.framework and the embedded table (FrameworksFor): what every edge
// that builds a workload for the search (CLI, HTTP API) calls after ValidateWorkload. Errors
// name the field "framework".
Status ResolveFrameworks(Workload& w);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_FRAMEWORK_CSV_H_
