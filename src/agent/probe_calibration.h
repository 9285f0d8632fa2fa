// The calibration file `gpuplan probe --save FILE` writes: measured efficiency of one instance.
//
// JSON, documented in docs/on-instance.md ("Calibration file"):
//   {"format": "gpuplan-probe-calibration", "version": 1, "created": "2026-11-30T14:08:56Z",
//    "instance_type": "ecs.gn8v.4xlarge", "gpu": "H200-141G-SXM", "gpu_count": 1,
//    "efficiency": {"gemm_bf16": 0.74, "memory_bandwidth": 0.89, ...},
//    "measured": {"gemm_bf16_tflops": 731.9, "memory_bandwidth_gbs": 4270.0, ...}}
// `efficiency` is measured / catalog peak (mean over GPUs); estimate and plan scale the built-in
// calibration of that GPU by it relative to a healthy GPU's (ApplyCalibration).
//
// Thread safety: plain values and pure functions.
#ifndef GPUPLAN_SRC_AGENT_PROBE_CALIBRATION_H_
#define GPUPLAN_SRC_AGENT_PROBE_CALIBRATION_H_

#include <map>
#include <string>
#include <string_view>

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/status.h"

namespace gpuplan::agent {

struct ProbeReport;

inline constexpr std::string_view kCalibrationFormat = "gpuplan-probe-calibration";
inline constexpr int kCalibrationVersion = 1;

struct ProbeCalibration {
  std::string created;        // UTC ISO-8601
  std::string instance_type;  // "" when the probe did not know it
  std::string gpu;            // catalog GPU name, "" when unknown
  int gpu_count = 0;
  // Key: metric id without its unit suffix ("gemm_bf16", "memory_bandwidth", "h2d", "d2h",
  // "p2p", "allreduce_busbw", "gemm_fp32", "gemm_tf32", "gemm_fp16"); value: measured / peak.
  std::map<std::string, double> efficiency;
  // Key: metric id ("gemm_bf16_tflops", ...); value: the mean measured value over GPUs.
  std::map<std::string, double> measured;
};

// Efficiencies of the metrics that have both a measurement and a catalog peak.
ProbeCalibration CalibrationFromReport(const ProbeReport& report);

std::string CalibrationToJson(const ProbeCalibration& calibration);

// Parses and validates a calibration file; errors name `name`, the field and the expected form
// (format and version must match; efficiencies must be numbers in (0, 1.05]).
Result<ProbeCalibration> ParseCalibration(std::string_view json, std::string_view name);
Result<ProbeCalibration> LoadCalibration(const std::string& path);

// Scales `cal`'s fitted GEMM efficiency (for `precision`: gemm_fp16, gemm_fp32 (the CUDA-core
// fraction) or gemm_bf16) and memory-bandwidth efficiency of the measured GPU by measured /
// healthy (probe_verdict.h HealthyFraction: what a healthy GPU of the model reaches in the same
// probe kernel), for that GPU model only (Calibration::OverrideGpu). Returns the GPU it applied
// to. Errors: the file names no GPU or one the catalog does not know; `expected_gpu` is given
// and differs.
Result<const Gpu*> ApplyCalibration(const ProbeCalibration& probe, const Catalog& catalog,
                                    Precision precision, Calibration* cal,
                                    const Gpu* expected_gpu = nullptr);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_PROBE_CALIBRATION_H_
