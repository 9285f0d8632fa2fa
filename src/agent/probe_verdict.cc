#include "agent/probe_verdict.h"

#include <fmt/format.h>

#include <algorithm>

#include "gpuplan/catalog.h"
#include "gpuplan/enum_names.h"
#include "gpuplan/strings.h"

namespace gpuplan::agent {
namespace {

using strings::Num;

// Verdict bands around the healthy value: within 10% is normal run-to-run and machine-to-machine
// spread for these tests; below 60% something is clearly wrong (a throttled or mis-slotted GPU, a
// PCIe link at x8, P2P disabled). A measurement more than 5% above the datasheet peak cannot be
// right: boost clocks are already in the datasheet figures.
constexpr double kOkBand = 0.9;
constexpr double kLowBand = 0.6;
constexpr double kAbovePeak = 1.05;

struct Fraction {
  std::string_view id;
  double healthy;
};
// Share of the datasheet peak a healthy machine reaches in this probe's tests. Basis: inferred
// from commonly published measurements, to be replaced per machine by `gpuplan probe --save`:
//  - FP32 SGEMM (CUDA cores) at 8192^3 reaches 80-95% of peak on A100/H100-class parts.
//  - Tensor-core GEMMs (TF32/BF16/FP16) at 8192^3 with cuBLASLt reach 70-90% of the dense peak
//    (lower on power-capped parts such as A10/L20, higher on A100).
//  - A device-to-device copy kernel (STREAM copy) reaches 85-92% of HBM peak bandwidth.
//  - Pinned host<->device copies reach 75-85% of the PCIe x16 one-direction rate (protocol
//    overhead of TLP headers and flow control).
//  - cudaMemcpyPeer over NVLink reaches 75-85% of the one-direction NVLink rate.
//  - nccl-tests all_reduce_perf bus bandwidth at large messages reaches 70-85% of the
//    one-direction NVLink rate on NVSwitch boards.
constexpr Fraction kFractions[] = {
    {"gemm_fp32_tflops", 0.80},
    {"gemm_tf32_tflops", 0.70},
    {"gemm_bf16_tflops", 0.70},
    {"gemm_fp16_tflops", 0.70},
    {"memory_bandwidth_gbs", 0.85},
    {"h2d_gbs", 0.75},
    {"d2h_gbs", 0.75},
    {"p2p_gbs", 0.75},
    {"allreduce_busbw_gbs", 0.70},
};

std::optional<Precision> GemmPrecision(std::string_view id) {
  if (id == "gemm_fp32_tflops")
    return Precision::kFp32;
  if (id == "gemm_tf32_tflops")
    return Precision::kTf32;
  if (id == "gemm_bf16_tflops")
    return Precision::kBf16;
  if (id == "gemm_fp16_tflops")
    return Precision::kFp16;
  return std::nullopt;
}

// One-direction GPU-to-GPU peak: half the bidirectional NVLink total on NVLink/NVSwitch boards,
// else the PCIe x16 rate (P2P through the PCIe switch or host bridge).
std::pair<double, std::string> GpuToGpuPeak(const Gpu& g, const InstanceType* t) {
  const bool nvlink = t ? t->interconnect != Interconnect::kPcie : g.nvlink_gbs > 0;
  if (nvlink && g.nvlink_gbs > 0) {
    return {g.nvlink_gbs / 2,
            fmt::format("{} NVLink {} GB/s bidirectional / 2", g.name, Num(g.nvlink_gbs))};
  }
  return {g.PcieGbs(), fmt::format("{} PCIe gen{} x16", g.name, g.pcie_gen)};
}

// Sets peak/expected/basis of a fraction-of-peak metric.
void SetPeak(ProbeMetric& m, double peak, const std::string& what) {
  if (peak <= 0)
    return;
  const double f = HealthyFraction(m.id).value_or(1.0);
  m.peak = peak;
  m.expected = peak * f;
  m.basis = fmt::format("{} = {} {}; healthy x{}", what, Num(peak), m.unit, Num(f));
}

void Expect(const Gpu* g, const InstanceType* t, ProbeMetric& m) {
  if (std::optional<Precision> p = GemmPrecision(m.id)) {
    if (g && g->Tflops(*p)) {
      SetPeak(m, *g->Tflops(*p), fmt::format("{} dense {} peak", g->name, PrecisionName(*p)));
    }
    return;
  }
  if (m.id == "memory_bandwidth_gbs") {
    if (g)
      SetPeak(m, g->memory_bandwidth_gbs, g->name + " memory bandwidth");
  } else if (m.id == "h2d_gbs" || m.id == "d2h_gbs") {
    if (g)
      SetPeak(m, g->PcieGbs(), fmt::format("{} PCIe gen{} x16", g->name, g->pcie_gen));
  } else if (m.id == "p2p_gbs" || m.id == "allreduce_busbw_gbs") {
    if (g) {
      auto [peak, what] = GpuToGpuPeak(*g, t);
      SetPeak(m, peak, what);
    }
  } else if (m.id == "gpu_count") {
    m.comparison = Comparison::kExactCount;
    if (t && !t->vgpu()) {
      m.expected = t->whole_gpus();
      m.basis = fmt::format("{} has {} GPUs", t->name, t->whole_gpus());
    }
  } else if (m.id == "gpu_memory_gib") {
    m.comparison = Comparison::kAtLeast;
    // The driver reports total memory after ECC and its reservations; the catalog's usable figure
    // is that number, and 5% below it leaves room for driver versions that reserve more.
    const double want = t && t->vgpu() ? t->gpu_memory_gib : g ? g->EffectiveMemoryGib() : 0;
    if (want > 0) {
      m.peak = want;
      m.expected = want * 0.95;
      m.basis = fmt::format("catalog {} GiB per GPU, at least 95%", Num(want));
    }
  } else if (m.id == "pcie_gen") {
    m.comparison = Comparison::kAtLeast;
    if (g && g->pcie_gen > 0) {
      m.peak = g->pcie_gen;
      m.expected = g->pcie_gen;
      m.basis = fmt::format("{} is a PCIe gen{} part", g->name, g->pcie_gen);
    }
  } else if (m.id == "vcpu_count") {
    m.comparison = Comparison::kExactCount;
    if (t) {
      m.expected = t->vcpu;
      m.basis = fmt::format("{} has {} vCPU", t->name, t->vcpu);
    }
  } else if (m.id == "host_memory_gib") {
    m.comparison = Comparison::kAtLeast;
    // MemTotal excludes what firmware and the kernel keep (typically 2-6% of nominal RAM).
    if (t) {
      m.peak = t->memory_gib;
      m.expected = t->memory_gib * 0.9;
      m.basis = fmt::format("{} has {} GiB RAM, at least 90% visible", t->name, Num(t->memory_gib));
    }
  } else if (m.id == "network_gbps") {
    if (t && t->network_gbps > 0) {
      m.peak = t->network_gbps;
      m.expected = t->network_gbps;
      m.basis = fmt::format("{} baseline VPC bandwidth", t->name);
    }
  } else {
    m.comparison = Comparison::kInformational;
  }
}

}  // namespace

constexpr EnumNames<Verdict, 6> kVerdictNames = {{{Verdict::kOk, "ok"},
                                                  {Verdict::kLow, "low"},
                                                  {Verdict::kBad, "bad"},
                                                  {Verdict::kHigh, "high"},
                                                  {Verdict::kNoExpectation, "n/a"},
                                                  {Verdict::kNotMeasured, "not-measured"}}};
std::string_view VerdictName(Verdict v) { return NameOf(kVerdictNames, v); }

std::optional<double> HealthyFraction(std::string_view metric_id) {
  for (const Fraction& f : kFractions) {
    if (f.id == metric_id)
      return f.healthy;
  }
  return std::nullopt;
}

Verdict Judge(const ProbeMetric& m) {
  if (!m.measured)
    return Verdict::kNotMeasured;
  if (!m.expected || m.comparison == Comparison::kInformational)
    return Verdict::kNoExpectation;
  const double got = *m.measured;
  const double want = *m.expected;
  switch (m.comparison) {
    case Comparison::kExactCount:
      return got == want ? Verdict::kOk : Verdict::kBad;
    case Comparison::kAtLeast:
      if (got >= want)
        return Verdict::kOk;
      // Within 10% short (a driver reserving more memory) is worth a look; further short (a PCIe
      // generation down halves bandwidth, a GPU with half the memory) is wrong.
      return got >= want * kOkBand ? Verdict::kLow : Verdict::kBad;
    case Comparison::kFractionOfPeak:
      if (m.peak && got > *m.peak * kAbovePeak)
        return Verdict::kHigh;
      if (want <= 0)
        return Verdict::kNoExpectation;
      if (got >= want * kOkBand)
        return Verdict::kOk;
      if (got >= want * kLowBand)
        return Verdict::kLow;
      return Verdict::kBad;
    case Comparison::kInformational:
      break;
  }
  return Verdict::kNoExpectation;
}

void ApplyExpectations(const Gpu* gpu, const InstanceType* type,
                       std::vector<ProbeMetric>& metrics) {
  for (ProbeMetric& m : metrics) {
    m.peak.reset();
    m.expected.reset();
    m.basis.clear();
    m.comparison = Comparison::kFractionOfPeak;
    Expect(gpu, type, m);
    m.verdict = Judge(m);
  }
}

}  // namespace gpuplan::agent
