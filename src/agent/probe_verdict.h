// What `gpuplan probe` expects of an instance, and the verdict on what it measured.
//
// Pure functions over catalog values (no I/O): the catalog gives the datasheet peaks (GPU TFLOPS,
// memory bandwidth, PCIe generation, NVLink, vCPU, RAM, network); each kind of measurement has a
// "healthy fraction", the share of the peak a well-configured machine reaches in this probe's
// test. The verdict compares the measurement with peak x healthy fraction.
//
//   std::vector<ProbeMetric> metrics = ...;  // measured values
//   ApplyExpectations(gpu, type, metrics);   // fills peak, expected, verdict
//
// Thread safety: pure; safe from any thread.
#ifndef GPUPLAN_SRC_AGENT_PROBE_VERDICT_H_
#define GPUPLAN_SRC_AGENT_PROBE_VERDICT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {
struct Gpu;
struct InstanceType;
}  // namespace gpuplan

namespace gpuplan::agent {

enum class Verdict {
  kOk,             // within 10% of what a healthy machine reaches, or an exact match
  kLow,            // 60-90% of the healthy value: check clocks, power cap, PCIe slot, drivers
  kBad,            // below 60% of the healthy value, or a count that does not match
  kHigh,           // above the datasheet peak: the catalog has the wrong GPU, or a test bug
  kNoExpectation,  // measured, but nothing to compare with (unknown instance, no catalog fact)
  kNotMeasured,    // could not be measured here; `note` says why
};
// "ok", "low", "bad", "high", "n/a", "not-measured".
std::string_view VerdictName(Verdict v);

// How a metric is compared with its expectation.
enum class Comparison {
  kFractionOfPeak,  // throughput: measured / peak against the healthy fraction
  kExactCount,      // GPU count, vCPU count: must equal
  kAtLeast,         // capacity (memory, PCIe generation): at least the expected value
  kInformational,   // no catalog fact exists (disk, CPU GFLOPS): reported without a verdict
};

struct ProbeMetric {
  std::string id;     // stable key, e.g. "gemm_bf16_tflops" (JSON and calibration files)
  std::string label;  // for the table, e.g. "GEMM BF16 dense"
  std::string unit;   // "TFLOPS", "GB/s", "MB/s", "IOPS", "count", "GiB", "gen", "Gbit/s"
  int gpu = -1;       // GPU index, or -1 for the whole machine
  std::optional<double> measured;
  std::optional<double> peak;      // the catalog's datasheet figure
  std::optional<double> expected;  // what a healthy machine reaches (peak x healthy fraction)
  Comparison comparison = Comparison::kFractionOfPeak;
  std::string basis;  // where the expectation comes from, e.g. "catalog H200-141G-SXM bf16 x 0.70"
  std::string note;   // why it was not measured, or how it was measured
  Verdict verdict = Verdict::kNotMeasured;
};

// The healthy fraction of peak for a metric id ("gemm_bf16_tflops", "memory_bandwidth_gbs",
// "h2d_gbs", ...), or nullopt when the id is not a fraction-of-peak metric. The sources of each
// value are in probe_verdict.cc.
std::optional<double> HealthyFraction(std::string_view metric_id);

// Fills peak, expected, basis and verdict of every metric from the catalog facts. `gpu` and
// `type` may be null (unknown instance): metrics then get kNoExpectation, or kNotMeasured when
// nothing was measured. Metrics ids it knows: gpu_count, gpu_memory_gib, pcie_gen,
// gemm_{fp32,tf32,bf16,fp16}_tflops, memory_bandwidth_gbs, h2d_gbs, d2h_gbs, p2p_gbs,
// allreduce_busbw_gbs, vcpu_count, host_memory_gib, network_gbps; others are informational.
void ApplyExpectations(const Gpu* gpu, const InstanceType* type, std::vector<ProbeMetric>& metrics);

// The verdict for one metric whose peak/expected are already set.
Verdict Judge(const ProbeMetric& metric);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_PROBE_VERDICT_H_
