#include "cli/output.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

namespace gpuplan::cli {

void AddFormatFlags(CLI::App* cmd, OutputFormat* format, bool csv) {
  auto* json = cmd->add_flag_callback(
      "--json", [format] { *format = OutputFormat::kJson; }, "Print JSON (one document)");
  if (csv) {
    auto* c = cmd->add_flag_callback(
        "--csv", [format] { *format = OutputFormat::kCsv; }, "Print CSV with a header row");
    json->excludes(c);
  }
}

void Emit(std::ostream& out, OutputFormat format, const io::Table& table,
          const nlohmann::json& json) {
  switch (format) {
    case OutputFormat::kJson:
      out << json.dump(2) << "\n";
      break;
    case OutputFormat::kCsv:
      out << io::RenderCsv(table);
      break;
    case OutputFormat::kTable:
      out << io::RenderAligned(table);
      break;
  }
}

}  // namespace gpuplan::cli
