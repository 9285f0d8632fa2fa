// `gpuplan validate FILE.csv [--json]`: the accuracy harness of the performance model.
// `gpuplan validate --fit-uncertainty FILES... -o data/uncertainty.csv`: fits its error model.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/plan_inputs.h"
#include "gpuplan/strings.h"
#include "io/calibration_csv.h"
#include "io/file_util.h"
#include "io/model_zoo.h"
#include "io/uncertainty_csv.h"
#include "io/validation.h"

namespace gpuplan::cli {
namespace {

using strings::Num;

struct ValidateOptions {
  std::string file;
  OutputFormat format = OutputFormat::kTable;
  bool all_rows = false;    // --rows: print every row in the table view
  std::string calibration;  // --calibration FILE instead of the embedded data/calibration.csv
  std::vector<std::string> fit_files;  // --fit-uncertainty FILES...
  std::string fit_out;                 // -o FILE ("-" = stdout)
  std::string commit;                  // --commit: the model's git commit, recorded in the table
  int min_rows = 10;                   // --min-rows
  int min_sources = 4;                 // --min-sources
  std::string uncertainty;  // --uncertainty FILE instead of the embedded data/uncertainty.csv
};

nlohmann::json OptionalJson(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

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
                        {"predicted", r.status == io::RowStatus::kOk ? nlohmann::json(r.predicted)
                                                                     : nlohmann::json(nullptr)},
                        {"measured", r.measured},
                        {"status", std::string(io::RowStatusName(r.status))},
                        {"reason", r.reason}};
    if (r.status == io::RowStatus::kOk && r.metric != "fits")
      j["ape"] = r.ape;
    j["predicted_range"] =
        r.predicted_range
            ? nlohmann::json::array({r.predicted_range->first, r.predicted_range->second})
            : nlohmann::json(nullptr);
    if (!r.regime.empty())
      j["regime"] = uncertainty::Join(r.regime);
    rows.push_back(std::move(j));
  }
  const io::ValidationSummary& s = report.summary;
  nlohmann::json by_metric = nlohmann::json::object(), by_gpu = nlohmann::json::object(),
                 by_task = nlohmann::json::object();
  for (const auto& [k, v] : s.by_metric)
    by_metric[k] = StatsJson(v);
  for (const auto& [k, v] : s.by_gpu)
    by_gpu[k] = StatsJson(v);
  for (const auto& [k, v] : s.by_task)
    by_task[k] = StatsJson(v);
  nlohmann::json summary = {
      {"rows", s.total},
      {"ok", s.ok},
      {"unsupported", s.unsupported},
      {"error", s.errors},
      {"inconsistent", s.inconsistent},
      {"supported_fraction", s.supported_fraction},
      {"throughput", StatsJson(s.throughput)},
      {"memory", StatsJson(s.memory)},
      {"fits", {{"rows", s.fits_rows}, {"correct", s.fits_correct}, {"accuracy", s.fits_accuracy}}},
      {"by_metric", by_metric},
      {"by_gpu", by_gpu},
      {"by_task", by_task},

      {"coverage_80", OptionalJson(s.coverage_80)},
      {"coverage_rows", s.coverage_rows},
      {"coverage_80_heldout", OptionalJson(s.coverage_80_heldout)},
      {"heldout_rows", s.heldout_rows}};
  return {{"rows", rows}, {"summary", summary}};
}

std::string ReportText(const io::ValidationReport& report, bool all_rows) {
  std::string out;
  io::Table rows{{"id", "metric", "gpu", "predicted", "measured", "ape", "status", "reason"}, {}};
  for (const io::ValidationRow& r : report.rows) {
    const bool ok = r.status == io::RowStatus::kOk;
    if (!all_rows && ok && r.ape <= 0.35)
      continue;  // by default: the outliers only
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
  for (const auto& [k, v] : s.by_metric)
    add("metric " + k, v);
  for (const auto& [k, v] : s.by_gpu)
    add("gpu " + k, v);
  for (const auto& [k, v] : s.by_task)
    add("task " + k, v);
  out += io::RenderAligned(t);
  out += fmt::format("\n{} rows: {} ok, {} unsupported, {} error ({} supported)\n", s.total, s.ok,
                     s.unsupported, s.errors, Pct(s.supported_fraction));
  if (s.inconsistent > 0) {
    out += fmt::format(
        "{} row(s) inconsistent: faster than their labels allow physically; listed, not scored\n",
        s.inconsistent);
  }
  if (s.fits_rows > 0) {
    out += fmt::format("fits verdicts: {} of {} right ({})\n", s.fits_correct, s.fits_rows,
                       Pct(s.fits_accuracy));
  }
  if (s.coverage_80) {
    out += fmt::format("p10-p90 ranges hold {} of {} runs ({}; about 80% is calibrated)",
                       std::lround(*s.coverage_80 * s.coverage_rows), s.coverage_rows,
                       Pct(*s.coverage_80));
    out += s.coverage_80_heldout
               ? fmt::format(
                     "; held out (sources split in two, each half checked against a fit "
                     "on the other): {} of {} runs\n",
                     Pct(*s.coverage_80_heldout), s.heldout_rows)
               : std::string("; held out: one source only, no split\n");
  }
  return out;
}

// How the fitted bands hold on the runs they were fitted on: per file and per regime of two
// levels (quantity/task kind), with the band each regime gives a run of its own. The fit is
// for a source it has not seen, so sets whose sources the model was calibrated on sit above
// 80% and sets from other sources nearer it.
std::string CoverageReport(const std::vector<io::ValidationRow>& rows,
                           const uncertainty::Table& table, const ValidateOptions& o) {
  std::map<std::string, std::vector<io::ValidationRow>> by_file, by_regime;
  for (const io::ValidationRow& r : rows) {
    if (!r.sample)
      continue;
    by_file[r.id.substr(0, r.id.find(':'))].push_back(r);
    const size_t depth = std::min<size_t>(2, r.regime.size());
    by_regime[uncertainty::Join({r.regime.begin(), r.regime.begin() + static_cast<long>(depth)})]
        .push_back(r);
  }
  // A set left out of the fit is the sternest check: its sources, and often its kind of work,
  // are new to the table.
  io::Table files{{"set", "runs", "inside p10-p90", "inside, the set left out of the fit"}, {}};
  for (const auto& [file, runs] : by_file) {
    auto [coverage, n] = io::Coverage80(runs, table);
    std::vector<io::ValidationRow> others;
    for (const auto& [other, other_runs] : by_file) {
      if (other != file)
        others.insert(others.end(), other_runs.begin(), other_runs.end());
    }
    std::optional<double> left_out;
    if (!others.empty()) {
      left_out = io::Coverage80(runs, uncertainty::Fit(io::UncertaintySamples(others), o.min_rows,
                                                       o.min_sources))
                     .first;
    }
    files.rows.push_back({file, std::to_string(n), coverage ? Pct(*coverage) : "-",
                          left_out ? Pct(*left_out) : "-"});
  }
  io::Table regimes{{"regime", "runs", "sources", "p10", "p50", "p90", "inside p10-p90"}, {}};
  for (const auto& [regime, runs] : by_regime) {
    const uncertainty::Band b = uncertainty::Lookup(
        table, {regime.substr(0, regime.find('/')), regime.substr(regime.find('/') + 1)});
    auto [coverage, n] = io::Coverage80(runs, table);
    regimes.rows.push_back({regime, std::to_string(n), std::to_string(b.sources),
                            uncertainty::ErrorPercent(b.p10), uncertainty::ErrorPercent(b.p50),
                            uncertainty::ErrorPercent(b.p90), coverage ? Pct(*coverage) : "-"});
  }
  return "p10-p90 coverage on the fitted runs, per set:\n" + io::RenderAligned(files) +
         "\nper regime (its band as true / predicted - 1; deeper regimes have their own):\n" +
         io::RenderAligned(regimes);
}

// Fits data/uncertainty.csv on the validated rows of every file.
void RunFit(CliContext& ctx, const ValidateOptions& o, const Catalog& catalog, const ModelZoo& zoo,
            const Calibration& cal) {
  std::vector<io::ValidationRow> rows;
  std::string sources;
  for (const std::string& file : o.fit_files) {
    Result<std::string> text = io::ReadFile(file);
    if (!text.ok())
      return ctx.Fail(text.status());
    Result<io::ValidationReport> report = io::Validate(*text, file, catalog, zoo, cal);
    if (!report.ok())
      return ctx.Fail(report.status());
    const std::string name = std::filesystem::path(file).filename().string();
    sources += (sources.empty() ? "" : " ") + name;
    for (io::ValidationRow& r : report->rows) {
      r.id = name + ":" + r.id;  // ids are unique within a file only
      rows.push_back(std::move(r));
    }
  }
  uncertainty::Table table =
      uncertainty::Fit(io::UncertaintySamples(rows), o.min_rows, o.min_sources);
  if (table.regimes.empty()) {
    return ctx.Fail(Status::InvalidArgument(
        "--fit-uncertainty: no supported time or memory rows in " + sources));
  }
  table.model_hash = io::PredictionsHash(rows);
  table.commit = o.commit.empty() ? "unknown" : o.commit;
  table.sources = sources;
  const std::string csv = io::WriteUncertainty(table);
  if (o.fit_out == "-") {
    *ctx.out << csv;
    return;
  }
  if (Status s = io::WriteFileAtomic(o.fit_out, csv); !s.ok())
    return ctx.Fail(s);
  auto [coverage, n] = io::Coverage80(rows, table);
  *ctx.out << fmt::format("wrote {}: {} regimes from {} runs of {} (p10-p90 holds {} of them)\n",
                          o.fit_out, table.regimes.size(), n, sources,
                          coverage ? Pct(*coverage) : "-");
  *ctx.out << CoverageReport(rows, table, o);
}

void RunValidate(CliContext& ctx, const ValidateOptions& o) {
  if (o.fit_files.empty() == o.file.empty()) {
    return ctx.Fail(
        Status::InvalidArgument("validate: give either FILE or --fit-uncertainty FILES..."),
        /*usage=*/true);
  }
  if (!o.fit_files.empty() && o.fit_out.empty()) {
    return ctx.Fail(Status::InvalidArgument("--fit-uncertainty needs -o FILE (or -o - for stdout)"),
                    /*usage=*/true);
  }
  Result<ModelData> data = LoadModelData(ctx);
  if (!data.ok())
    return ctx.Fail(data.status());
  if (!o.calibration.empty()) {
    Result<std::string> cal_text = io::ReadFile(o.calibration);
    if (!cal_text.ok())
      return ctx.Fail(cal_text.status());
    Result<Calibration> cal = io::ParseCalibration(*cal_text, o.calibration);
    if (!cal.ok())
      return ctx.Fail(cal.status());
    data->calibration = std::move(*cal);
  }
  const Catalog& catalog = data->catalog;
  const ModelZoo& zoo = data->zoo;
  const Calibration& cal = data->calibration;
  if (!o.fit_files.empty())
    return RunFit(ctx, o, catalog, zoo, cal);
  Result<uncertainty::Table> table = io::LoadUncertainty();
  if (!o.uncertainty.empty()) {
    Result<std::string> u_text = io::ReadFile(o.uncertainty);
    if (!u_text.ok())
      return ctx.Fail(u_text.status());
    table = io::ParseUncertainty(*u_text, o.uncertainty);
  }
  if (!table.ok())
    return ctx.Fail(table.status());
  Result<std::string> text = io::ReadFile(o.file);
  if (!text.ok())
    return ctx.Fail(text.status());
  Result<io::ValidationReport> report = io::Validate(*text, o.file, catalog, zoo, cal, &*table);
  if (!report.ok())
    return ctx.Fail(report.status());
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
  cmd->add_option("file", opts->file, "Measurements CSV");
  cmd->add_option("--fit-uncertainty", opts->fit_files,
                  "Fit the model's error table (p10/p50/p90 of true/predicted per regime) on "
                  "these measurement CSVs instead of validating one")
      ->expected(1, -1);
  cmd->add_option("-o,--output", opts->fit_out,
                  "Where --fit-uncertainty writes the table (data/uncertainty.csv; - = stdout)");
  cmd->add_option("--commit", opts->commit,
                  "Git commit of the model, recorded in the fitted table");
  cmd->add_option("--min-rows", opts->min_rows,
                  "Runs a regime needs before it stops borrowing its parent's percentiles")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--min-sources", opts->min_sources,
                  "Sources a regime needs before it stops borrowing its parent's percentiles")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--uncertainty", opts->uncertainty,
                  "Uncertainty table to check instead of the embedded data/uncertainty.csv");
  cmd->add_flag("--rows", opts->all_rows, "List every row, not only the outliers");
  cmd->add_option("--calibration", opts->calibration,
                  "Calibration CSV to use instead of the embedded data/calibration.csv");
  AddFormatFlags(cmd, &opts->format, /*csv=*/false);
  cmd->callback([&ctx, opts] { RunValidate(ctx, *opts); });
}

}  // namespace gpuplan::cli
