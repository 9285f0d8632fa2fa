// The accuracy harness behind `gpuplan validate`: reads measurement rows in the schema of
// shared/data/validation/README.md, predicts each row's metric with the performance model and
// summarises the absolute percentage errors.
//
// Nothing here knows particular rows or sources: a row is turned into a Workload, a ModelArch,
// Hardware and a Layout from its columns alone (and documented note tokens such as impl= and
// vram_budget_gb=), then predicted.
#ifndef GPUPLAN_SRC_IO_VALIDATION_H_
#define GPUPLAN_SRC_IO_VALIDATION_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/model.h"
#include "gpuplan/status.h"
#include "gpuplan/uncertainty.h"

namespace gpuplan::io {

// kInconsistent: the measurement beats what its own labels allow physically (an inference run
// faster than reading the weights its tokens need at the GPU's datasheet bandwidth): its
// precision, GPU count or way of counting is off, so it is reported and not scored.
enum class RowStatus { kOk, kUnsupported, kError, kInconsistent };
std::string_view RowStatusName(RowStatus s);  // "ok", "unsupported", "error", "inconsistent"

struct ValidationRow {
  std::string id;
  std::string metric;
  std::string gpu;
  std::string task;      // the row's task column (pretrain, inference_serving, ...)
  double predicted = 0;  // in the metric's unit; 0 unless status is kOk
  double measured = 0;
  RowStatus status = RowStatus::kOk;
  std::string reason;  // why unsupported / error; notes on assumptions for ok rows
  double ape = 0;      // |predicted - measured| / measured, for kOk rows of numeric metrics
  // For peak_mem_gib rows (a run that fitted): whether the model also says it fits.
  std::optional<bool> implied_fit_ok;
  // Uncertainty (gpuplan/uncertainty.h): the row's source column, its regime path (empty when
  // the metric has no cost direction, e.g. fits), true / predicted in that direction, and
  // whether it is the first row of its run (id up to the first '.') for that quantity: the
  // rows the error model is fitted and checked on (a run's mfu and tokens/s rows are one
  // measurement).
  std::string source;
  std::vector<std::string> regime;
  double ratio = 0;
  bool sample = false;
  // p10-p90 of the metric from the uncertainty table Validate() was given.
  std::optional<std::pair<double, double>> predicted_range;
};

// Error statistics of a group of ok rows.
struct ErrorStats {
  int rows = 0;
  double median_ape = 0;
  double p90_ape = 0;
};

struct ValidationSummary {
  int total = 0, ok = 0, unsupported = 0, errors = 0, inconsistent = 0;
  double supported_fraction = 0;  // ok / (total - inconsistent)
  std::map<std::string, ErrorStats> by_metric;
  std::map<std::string, ErrorStats> by_gpu;
  std::map<std::string, ErrorStats> by_task;
  ErrorStats throughput;  // every time/throughput-like metric pooled
  ErrorStats memory;      // peak_mem_gib and max_seq_len_fit
  int fits_rows = 0;      // fits rows plus peak_mem_gib rows (measured runs that fitted)
  int fits_correct = 0;
  double fits_accuracy = 0;  // fits_correct / fits_rows (1 when there are none)
  // Calibration of the ranges: the share of sample rows whose measurement falls inside the
  // predicted p10-p90 of the table Validate() was given (about 0.8 when honest) ...
  int coverage_rows = 0;
  std::optional<double> coverage_80;
  // ... and held out: the set's sources split in two (alternately in name order), a table
  // fitted on each half checked on the other (nullopt when the set has a single source).
  int heldout_rows = 0;
  std::optional<double> coverage_80_heldout;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  ValidationSummary summary;
};

// Predicts every row of `csv_text` (`file` names it in errors). Errors only for a file that is
// not CSV or lacks required columns; a bad row is reported with status kError.
// `error_model` (optional) gives each row its predicted_range and the summary its coverage.
Result<ValidationReport> Validate(std::string_view csv_text, const std::string& file,
                                  const Catalog& catalog, const ModelZoo& zoo,
                                  const Calibration& cal,
                                  const uncertainty::Table* error_model = nullptr);

// The samples of validated rows for uncertainty::Fit().
std::vector<uncertainty::Sample> UncertaintySamples(const std::vector<ValidationRow>& rows);

// The share of sample rows inside their p10-p90 under `table` (nullopt without rows), and
// their count.
std::pair<std::optional<double>, int> Coverage80(const std::vector<ValidationRow>& rows,
                                                 const uncertainty::Table& table);

// A fingerprint of the model's predictions on `rows` (FNV-1a 64 of id, metric, predicted
// value and ratio of each sample row, in hex): changes whenever the model or its calibration
// moves a prediction the uncertainty table was fitted on.
std::string PredictionsHash(const std::vector<ValidationRow>& rows);

// The median and 90th percentile (nearest-rank) of `values`, which it sorts.
ErrorStats Stats(std::vector<double> values);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_VALIDATION_H_
