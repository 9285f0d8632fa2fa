// Output format flags shared by subcommands: a table by default, --json or --csv.
#ifndef GPUPLAN_SRC_CLI_OUTPUT_H_
#define GPUPLAN_SRC_CLI_OUTPUT_H_

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>

#include "io/table.h"

namespace CLI {
class App;
}

namespace gpuplan::cli {

enum class OutputFormat { kTable, kJson, kCsv };

// Adds --json and --csv (mutually exclusive) to `cmd`; `csv` false adds only --json.
void AddFormatFlags(CLI::App* cmd, OutputFormat* format, bool csv = true);

// Writes `table` (kTable/kCsv) or `json` (kJson, pretty-printed, one document) to `out`.
void Emit(std::ostream& out, OutputFormat format, const io::Table& table,
          const nlohmann::json& json);

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_OUTPUT_H_
