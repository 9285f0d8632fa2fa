#include "agent/probe_calibration.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "agent/probe.h"
#include "agent/probe_verdict.h"
#include "io/file_util.h"

namespace gpuplan::agent {
namespace {

// The efficiency key of a metric id: its name without the unit suffix.
std::string EfficiencyKey(const std::string& id) {
  for (std::string_view suffix : {"_tflops", "_gbs"}) {
    if (id.size() > suffix.size() &&
        id.compare(id.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return id.substr(0, id.size() - suffix.size());
    }
  }
  return "";
}

}  // namespace

ProbeCalibration CalibrationFromReport(const ProbeReport& r) {
  struct Sum {
    double measured = 0, ratio = 0;
    int n = 0, with_peak = 0;
  };
  std::map<std::string, Sum> sums;
  for (const ProbeMetric& m : r.metrics) {
    if (!m.measured || EfficiencyKey(m.id).empty())
      continue;
    Sum& s = sums[m.id];
    s.measured += *m.measured;
    ++s.n;
    if (m.peak && *m.peak > 0) {
      s.ratio += *m.measured / *m.peak;
      ++s.with_peak;
    }
  }
  std::map<std::string, double> efficiency, measured;
  for (const auto& [id, s] : sums) {
    measured[id] = s.measured / s.n;
    if (s.with_peak > 0)
      efficiency[EfficiencyKey(id)] = s.ratio / s.with_peak;
  }
  return ProbeCalibration{.created = r.measured_at,
                          .instance_type = r.instance_type,
                          .gpu = r.gpu_model,
                          .gpu_count = static_cast<int>(r.devices.size()),
                          .efficiency = std::move(efficiency),
                          .measured = std::move(measured)};
}

std::string CalibrationToJson(const ProbeCalibration& c) {
  nlohmann::json j;
  j["format"] = kCalibrationFormat;
  j["version"] = kCalibrationVersion;
  j["created"] = c.created;
  j["instance_type"] = c.instance_type.empty() ? nlohmann::json() : nlohmann::json(c.instance_type);
  j["gpu"] = c.gpu.empty() ? nlohmann::json() : nlohmann::json(c.gpu);
  j["gpu_count"] = c.gpu_count;
  j["efficiency"] = c.efficiency;
  j["measured"] = c.measured;
  return j.dump(2) + "\n";
}

Result<ProbeCalibration> ParseCalibration(std::string_view text, std::string_view name) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return Status::InvalidArgument(fmt::format("{}: not valid JSON", name));
  }
  auto bad = [&](std::string_view field, std::string_view want) {
    return Status::InvalidArgument(fmt::format("{}: field \"{}\": expected {}", name, field, want));
  };
  if (!j.is_object())
    return bad("(top level)", "an object");
  if (!j.contains("format") || j["format"] != kCalibrationFormat) {
    return bad("format", fmt::format("\"{}\"", kCalibrationFormat));
  }
  if (!j.contains("version") || !j["version"].is_number_integer() ||
      j["version"].get<int>() != kCalibrationVersion) {
    return bad("version", std::to_string(kCalibrationVersion));
  }
  ProbeCalibration c;
  auto text_field = [&](const char* key, std::string* out) -> Status {
    if (!j.contains(key) || j[key].is_null())
      return Status::Ok();
    if (!j[key].is_string())
      return bad(key, "a string or null");
    *out = j[key].get<std::string>();
    return Status::Ok();
  };
  if (Status s = text_field("created", &c.created); !s.ok())
    return s;
  if (Status s = text_field("instance_type", &c.instance_type); !s.ok())
    return s;
  if (Status s = text_field("gpu", &c.gpu); !s.ok())
    return s;
  if (j.contains("gpu_count")) {
    if (!j["gpu_count"].is_number_integer() || j["gpu_count"].get<long long>() < 0 ||
        j["gpu_count"].get<long long>() > 1024) {
      return bad("gpu_count", "a whole number from 0 to 1024");
    }
    c.gpu_count = j["gpu_count"].get<int>();
  }
  auto number_map = [&](const char* key, std::map<std::string, double>* out, double max) -> Status {
    if (!j.contains(key))
      return Status::Ok();
    if (!j[key].is_object())
      return bad(key, "an object of numbers");
    for (const auto& [k, v] : j[key].items()) {
      const std::string field = std::string(key) + "." + k;
      if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > max) {
        return bad(field, fmt::format("a number greater than 0 and at most {}", max));
      }
      (*out)[k] = v.get<double>();
    }
    return Status::Ok();
  };
  // Efficiencies above 1.05 would be measurements above the datasheet peak (see probe_verdict).
  if (Status s = number_map("efficiency", &c.efficiency, 1.05); !s.ok())
    return s;
  if (Status s = number_map("measured", &c.measured, 1e9); !s.ok())
    return s;
  return c;
}

Result<ProbeCalibration> LoadCalibration(const std::string& path) {
  Result<std::string> text = io::ReadFile(path);
  if (!text.ok())
    return text.status();
  return ParseCalibration(*text, path);
}

Result<const Gpu*> ApplyCalibration(const ProbeCalibration& probe, const Catalog& catalog,
                                    Precision precision, Calibration* cal,
                                    const Gpu* expected_gpu) {
  if (probe.gpu.empty()) {
    return Status::InvalidArgument(
        "the probe calibration names no GPU (the probe could not identify it); rerun "
        "'gpuplan probe --instance TYPE --save FILE'");
  }
  const Gpu* gpu = catalog.FindGpu(probe.gpu);
  if (gpu == nullptr) {
    return Status::NotFound("the probe calibration was measured on \"" + probe.gpu +
                            "\", which the catalog does not know");
  }
  if (expected_gpu != nullptr && gpu != expected_gpu) {
    return Status::InvalidArgument("the probe calibration was measured on " + gpu->name +
                                   ", but the estimate is for " + expected_gpu->name);
  }
  const char* gemm_key = precision == Precision::kFp16   ? "gemm_fp16"
                         : precision == Precision::kFp32 ? "gemm_fp32"
                                                         : "gemm_bf16";
  // The probe's large square GEMM and copy kernel show how this instance compares with a
  // healthy GPU of its model (clocks, power cap, a throttled or damaged card). The fitted
  // fractions also carry losses those kernels do not see (GEMM shapes, the kernels between
  // GEMMs), so the measurement scales them: fitted x measured / healthy.
  auto ratio = [&](const char* key, const char* metric) -> std::optional<double> {
    auto it = probe.efficiency.find(key);
    const std::optional<double> healthy = HealthyFraction(metric);
    if (it == probe.efficiency.end() || !healthy)
      return std::nullopt;
    return it->second / *healthy;
  };
  const ArchEfficiency fitted = cal->For(*gpu);
  GpuEfficiency measured;
  const std::string metric = std::string(gemm_key) + "_tflops";
  if (std::optional<double> r = ratio(gemm_key, metric.c_str())) {
    (precision == Precision::kFp32 ? measured.simt_fraction : measured.gemm_fraction) = std::min(
        1.0, (precision == Precision::kFp32 ? fitted.simt_fraction : fitted.gemm_fraction) * *r);
  }
  if (std::optional<double> r = ratio("memory_bandwidth", "memory_bandwidth_gbs")) {
    measured.memory_bw_fraction = std::min(1.0, fitted.memory_bw_fraction * *r);
  }
  cal->OverrideGpu(*gpu, measured);
  return gpu;
}

}  // namespace gpuplan::agent
