// How sure the performance model is: the spread of measured / predicted over the shipped
// validation sets, per regime, turned into p10-p90 ranges around every prediction.
//
//   uncertainty::Table table = ...;  // data/uncertainty.csv, loaded at the edge
//   uncertainty::Band b = uncertainty::Lookup(table, uncertainty::TimeRegime(w, arch, hw));
//   double p90_hours = point_hours * b.p90;  // the time the job takes with 90% confidence
//
// A ratio here is always "true / predicted" of a quantity that grows with cost: step time (a
// throughput measurement enters inverted) or memory. A regime is a path from general to
// specific ("time/lora/Ampere/1node/dense"); a regime with fewer than the table's minimum rows
// borrows its nearest ancestor's percentiles and names it (Band::from).
//
// Thread safety: pure functions over values.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_UNCERTAINTY_H_
#define GPUPLAN_INCLUDE_GPUPLAN_UNCERTAINTY_H_

#include <map>
#include <string>
#include <vector>

#include "gpuplan/estimate.h"
#include "gpuplan/model.h"
#include "gpuplan/status.h"
#include "gpuplan/workload.h"

namespace gpuplan::uncertainty {

// Percentiles of true / predicted for one regime.
struct Band {
  std::string regime;  // the regime asked for (or the nearest one the table knows)
  std::string from;    // the regime whose rows gave the percentiles (== regime unless thin)
  int rows = 0;        // measurements in `regime` itself
  int from_rows = 0;   // measurements behind the percentiles (rows of `from`)
  int sources = 0;     // distinct sources among `rows`
  double p10 = 1, p50 = 1, p90 = 1;

  bool FellBack() const { return from != regime; }
  // The ratio at percentile `p` (0.1..0.9): linear between p10, p50 and p90.
  double At(double p) const;
  // The inverse: the percentile at which true / predicted reaches `ratio`, i.e. the chance
  // the truth is at most `ratio` x the prediction; clamped to 0.1..0.9 (the table knows no
  // more: 0.9 reads "at least 90%", 0.1 "at most 10%").
  double ChanceAtMost(double ratio) const;
};

struct Table {
  std::map<std::string, Band> regimes;  // by Band::regime
  int min_rows = 10;                    // a regime with fewer rows falls back to its parent ...
  int min_sources = 4;     // ... and so does one measured by fewer sources (errors differ
                           // more between sources than within one)
  std::string model_hash;  // hash of the predictions the ratios were computed from
  std::string commit;      // the git commit of the model (informational)
  std::string sources;     // the validation files it was fitted on
};

// One measurement: its regime path (general to specific) and true / predicted.
struct Sample {
  std::vector<std::string> path;  // e.g. {"time", "lora", "Ampere", "1node", "dense"}
  double ratio = 1;
  std::string source;  // who measured it
};

// The q-th percentile (0..1) of `values` by linear interpolation between closest ranks
// (numpy's default, Hyndman-Fan type 7). REQUIRES: values non-empty. Sorts `values`.
double Percentile(std::vector<double>& values, double q);

// Fits a table: every sample counts in its regime and every ancestor; a regime with fewer
// than `min_rows` samples or `min_sources` sources takes its nearest ancestor's percentiles
// (the root always its own). The percentiles are those of a run by a source the samples do
// not include, from a random-effects model of the log ratio (the source as the group): the
// between-source variance by one-way ANOVA moments, the centre the sources' precision-weighted
// mean, a new source's offset normal with that variance plus the centre's own (its spread
// widened by t(0.9, k - 1) / z(0.9) for k sources), the run's error within its source the
// measured within-source residuals (each source counting once).
// REQUIRES: every ratio > 0.
Table Fit(const std::vector<Sample>& samples, int min_rows, int min_sources);

// The band for `path`: the most specific regime of the path the table holds (a regime the
// validation sets never saw uses its ancestor). An empty table gives a 1/1/1 band named "none".
Band Lookup(const Table& table, const std::vector<std::string>& path);

// "a/b/c" from {"a","b","c"}.
std::string Join(const std::vector<std::string>& path);

// The regime of a run's step time and of its peak memory: the task kind (pretrain, full,
// lora, qlora; prefill, decode for eager engines, serving for vLLM/TensorRT-LLM), the GPU
// architecture, training: one node or the link between nodes / inference: the engine, then
// dense or moe.
std::vector<std::string> TimeRegime(const Workload& w, const ModelArch& arch,
                                    const perf::Hardware& hw);
std::vector<std::string> MemoryRegime(const Workload& w, const ModelArch& arch,
                                      const perf::Hardware& hw);

// The training fit test's allowance for the model's memory error (perf::Hardware::
// memory_error_ratio): true / predicted peak memory at `w.memory_confidence` in the memory
// regime of `hw` (0.5 = the median error, about 0.94 on the shipped table; 0.9, the default =
// p90, about 1.22). 1 with an empty table.
double MemoryErrorRatio(const Table& table, const Workload& w, const ModelArch& arch,
                        const perf::Hardware& hw);

// A true / predicted ratio as the error it means: "+4.75%" for 1.0475, "-7.12%" for 0.9288.
std::string ErrorPercent(double ratio);

// A range of a quantity: the point prediction and its p10 and p90.
struct Range {
  double point = 0, p10 = 0, p90 = 0;
};
// `point` scaled by the band (time or memory).
Range Scale(double point, const Band& b);

}  // namespace gpuplan::uncertainty

#endif  // GPUPLAN_INCLUDE_GPUPLAN_UNCERTAINTY_H_
