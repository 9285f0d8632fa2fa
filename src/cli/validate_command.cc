// `gpuplan validate FILE.csv [--json]`: the accuracy harness of the performance model.
#include <ostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/output.h"
#include "core/strings.h"
#include "io/calibration_csv.h"
#include "io/file_util.h"
#include "io/model_zoo.h"
#include "io/validation.h"

namespace gpuplan::cli {
namespace {

using strings::Num;

struct ValidateOptions {
  std::string file;
  OutputFormat format = OutputFormat::kTable;
  bool all_rows = false;  // --rows: print every row in the table view
  std::string calibration;  // --calibration FILE instead of the embedded data/calibration.csv
};

std::string Pct(double fraction) { return fmt::format("{:.1f}%", fraction * 100); }

nlohmann::json StatsJson(const io::ErrorStats& s) {
  return {{"rows", s.rows}, {"median_ape", s.median_ape}, {"p90_ape", s.p90_ape}};
}

nlohmann::json ReportJson(const io::ValidationReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const io::ValidationRow& r : report.rows) {
    nlohmann::json j = {{"id", r.id},
                        {"metric", r.metric},
                        {"gpu", r.gpu},
                        {"predicted", r.status == io::RowStatus::kOk
                                          ? nlohmann::json(r.predicted)
                                          : nlohmann::json(nullptr)},
                        {"measured", r.measured},
                        {"status", std::string(io::RowStatusName(r.status))},
                        {"reason", r.reason}};
    if (r.status == io::RowStatus::kOk && r.metric != "fits") j["ape"] = r.ape;
    rows.push_back(std::move(j));
  }
  const io::ValidationSummary& s = report.summary;
  nlohmann::json by_metric = nlohmann::json::object(), by_gpu = nlohmann::json::object(),
                 by_task = nlohmann::json::object();
  for (const auto& [k, v] : s.by_metric) by_metric[k] = StatsJson(v);
  for (const auto& [k, v] : s.by_gpu) by_gpu[k] = StatsJson(v);
  for (const auto& [k, v] : s.by_task) by_task[k] = StatsJson(v);
  nlohmann::json summary = {{"rows", s.total},
                            {"ok", s.ok},
                            {"unsupported", s.unsupported},
                            {"error", s.errors},
                            {"supported_fraction", s.supported_fraction},
                            {"throughput", StatsJson(s.throughput)},
                            {"memory", StatsJson(s.memory)},
                            {"fits", {{"rows", s.fits_rows},
                                      {"correct", s.fits_correct},
                                      {"accuracy", s.fits_accuracy}}},
                            {"by_metric", by_metric},
                            {"by_gpu", by_gpu},
                            {"by_task", by_task}};
  return {{"rows", rows}, {"summary", summary}};
}

std::string ReportText(const io::ValidationReport& report, bool all_rows) {
  std::string out;
  io::Table rows{{"id", "metric", "gpu", "predicted", "measured", "ape", "status", "reason"}, {}};
  for (const io::ValidationRow& r : report.rows) {
    const bool ok = r.status == io::RowStatus::kOk;
    if (!all_rows && ok && r.ape <= 0.35) continue;  // by default: the outliers only
    rows.rows.push_back({r.id, r.metric, r.gpu, ok ? Num(r.predicted) : "-", Num(r.measured),
                         ok && r.metric != "fits" ? Pct(r.ape) : "-",
                         std::string(io::RowStatusName(r.status)), r.reason});
  }
  if (!rows.rows.empty()) {
    out += all_rows ? "Rows:\n" : "Rows not ok or off by more than 35% (--rows for all):\n";
    out += io::RenderAligned(rows) + "\n";
  }
  const io::ValidationSummary& s = report.summary;
  io::Table t{{"group", "rows", "median_ape", "p90_ape"}, {}};
  auto add = [&](const std::string& name, const io::ErrorStats& e) {
    t.rows.push_back({name, std::to_string(e.rows), Pct(e.median_ape), Pct(e.p90_ape)});
  };
  add("throughput (all)", s.throughput);
  add("memory (all)", s.memory);
  for (const auto& [k, v] : s.by_metric) add("metric " + k, v);
  for (const auto& [k, v] : s.by_gpu) add("gpu " + k, v);
  for (const auto& [k, v] : s.by_task) add("task " + k, v);
  out += io::RenderAligned(t);
  out += fmt::format("\n{} rows: {} ok, {} unsupported, {} error ({} supported)\n", s.total, s.ok,
                     s.unsupported, s.errors, Pct(s.supported_fraction));
  if (s.fits_rows > 0) {
    out += fmt::format("fits verdicts: {} of {} right ({})\n", s.fits_correct, s.fits_rows,
                       Pct(s.fits_accuracy));
  }
  return out;
}

void RunValidate(CliContext& ctx, const ValidateOptions& o) {
  Result<std::string> text = io::ReadFile(o.file);
  if (!text.ok()) return ctx.Fail(text.status());
  Result<Catalog> catalog = LoadCliCatalog(ctx);
  if (!catalog.ok()) return ctx.Fail(catalog.status());
  Result<ModelZoo> zoo = io::LoadModelZoo();
  if (!zoo.ok()) return ctx.Fail(zoo.status());
  Result<Calibration> cal = io::LoadCalibration();
  if (!o.calibration.empty()) {
    Result<std::string> cal_text = io::ReadFile(o.calibration);
    if (!cal_text.ok()) return ctx.Fail(cal_text.status());
    cal = io::ParseCalibration(*cal_text, o.calibration);
  }
  if (!cal.ok()) return ctx.Fail(cal.status());
  Result<io::ValidationReport> report = io::Validate(*text, o.file, *catalog, *zoo, *cal);
  if (!report.ok()) return ctx.Fail(report.status());
  if (o.format == OutputFormat::kJson) {
    *ctx.out << ReportJson(*report).dump(2) << "\n";
  } else {
    *ctx.out << ReportText(*report, o.all_rows);
  }
}

}  // namespace

void AddValidateCommand(CLI::App& app, CliContext& ctx) {
  auto opts = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check the performance model against published measurements (a CSV in the schema of "
      "tests/testdata/validation/README.md): per-row predictions and median/p90 absolute "
      "percentage error per metric and per GPU");
  cmd->add_option("file", opts->file, "Measurements CSV")->required();
  cmd->add_flag("--rows", opts->all_rows, "List every row, not only the outliers");
  cmd->add_option("--calibration", opts->calibration,
                  "Calibration CSV to use instead of the embedded data/calibration.csv");
  AddFormatFlags(cmd, &opts->format, /*csv=*/false);
  cmd->callback([&ctx, opts] { RunValidate(ctx, *opts); });
}

}  // namespace gpuplan::cli
