#include "agent/probe_verdict.h"

#include <gtest/gtest.h>

#include "gpuplan/catalog.h"
#include "io/catalog_loader.h"

namespace gpuplan::agent {
namespace {

const Catalog& Embedded() {
  static const Catalog* catalog = [] {
    auto* c = new Catalog(*io::LoadCatalog(""));
    c->Validate();
    return c;
  }();
  return *catalog;
}

TEST(ProbeVerdictTest, MeasuredAgainstCatalogExpectations) {
  struct Case {
    const char* name;
    const char* instance;  // "" = unknown instance and GPU
    const char* metric;
    std::optional<double> measured;
    Verdict want;
    std::optional<double> want_expected;
  };
  // gn7i-c8g1.2xlarge: 1 x A10 (BF16 dense 125 TFLOPS, 600 GB/s, PCIe gen4 = 32 GB/s one way,
  // 22731 MiB usable), 8 vCPU, 30 GiB. gn7e-c16g1.32xlarge: 8 x A100-80G-SXM (NVLink 600 GB/s
  // bidirectional), 128 vCPU.
  const Case kCases[] = {
      {"a10_bf16_healthy", "ecs.gn7i-c8g1.2xlarge", "gemm_bf16_tflops", 90, Verdict::kOk, 87.5},
      {"a10_bf16_just_ok", "ecs.gn7i-c8g1.2xlarge", "gemm_bf16_tflops", 79, Verdict::kOk, 87.5},
      {"a10_bf16_throttled", "ecs.gn7i-c8g1.2xlarge", "gemm_bf16_tflops", 60, Verdict::kLow, 87.5},
      {"a10_bf16_broken", "ecs.gn7i-c8g1.2xlarge", "gemm_bf16_tflops", 40, Verdict::kBad, 87.5},
      {"a10_above_datasheet", "ecs.gn7i-c8g1.2xlarge", "gemm_bf16_tflops", 140, Verdict::kHigh,
       87.5},
      {"a10_fp32", "ecs.gn7i-c8g1.2xlarge", "gemm_fp32_tflops", 26, Verdict::kOk, 24.96},
      {"a10_memory", "ecs.gn7i-c8g1.2xlarge", "memory_bandwidth_gbs", 500, Verdict::kOk, 510},
      {"h2d_gen4", "ecs.gn7i-c8g1.2xlarge", "h2d_gbs", 25, Verdict::kOk, 24},
      {"h2d_at_x8", "ecs.gn7i-c8g1.2xlarge", "h2d_gbs", 12, Verdict::kBad, 24},
      {"gpu_count_matches", "ecs.gn7i-c8g1.2xlarge", "gpu_count", 1, Verdict::kOk, 1},
      {"gpu_missing", "ecs.gn7e-c16g1.32xlarge", "gpu_count", 7, Verdict::kBad, 8},
      {"vcpu_matches", "ecs.gn7i-c8g1.2xlarge", "vcpu_count", 8, Verdict::kOk, 8},
      {"vcpu_short", "ecs.gn7i-c8g1.2xlarge", "vcpu_count", 4, Verdict::kBad, 8},
      {"gpu_memory_as_driver_reports", "ecs.gn7i-c8g1.2xlarge", "gpu_memory_gib", 22.2,
       Verdict::kOk, 22731.0 / 1024 * 0.95},
      {"gpu_memory_half", "ecs.gn7i-c8g1.2xlarge", "gpu_memory_gib", 11, Verdict::kBad,
       22731.0 / 1024 * 0.95},
      {"pcie_gen_ok", "ecs.gn7i-c8g1.2xlarge", "pcie_gen", 4, Verdict::kOk, 4},
      {"pcie_gen_down", "ecs.gn7i-c8g1.2xlarge", "pcie_gen", 3, Verdict::kBad, 4},
      {"host_memory_visible", "ecs.gn7i-c8g1.2xlarge", "host_memory_gib", 29.4, Verdict::kOk, 27},
      {"nvlink_p2p", "ecs.gn7e-c16g1.32xlarge", "p2p_gbs", 240, Verdict::kOk, 225},
      {"nvlink_allreduce_low", "ecs.gn7e-c16g1.32xlarge", "allreduce_busbw_gbs", 150, Verdict::kLow,
       210},
      {"pcie_allreduce", "ecs.gn7i-2x.8xlarge", "allreduce_busbw_gbs", 21, Verdict::kOk, 22.4},
      {"not_measured", "ecs.gn7i-c8g1.2xlarge", "gemm_fp16_tflops", std::nullopt,
       Verdict::kNotMeasured, 87.5},
      {"disk_is_informational", "ecs.gn7i-c8g1.2xlarge", "disk_seq_read_mbs", 900,
       Verdict::kNoExpectation, std::nullopt},
      {"unknown_instance", "", "gemm_bf16_tflops", 90, Verdict::kNoExpectation, std::nullopt},
      {"unknown_instance_count", "", "vcpu_count", 8, Verdict::kNoExpectation, std::nullopt},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const InstanceType* t = *c.instance ? Embedded().FindInstance(c.instance) : nullptr;
    ASSERT_TRUE(t || !*c.instance);
    const Gpu* g = t ? &Embedded().GpuOf(*t) : nullptr;
    std::vector<ProbeMetric> metrics(1);
    metrics[0].id = c.metric;
    metrics[0].measured = c.measured;
    ApplyExpectations(g, t, metrics);
    EXPECT_EQ(VerdictName(metrics[0].verdict), VerdictName(c.want));
    ASSERT_EQ(metrics[0].expected.has_value(), c.want_expected.has_value());
    if (c.want_expected) {
      EXPECT_NEAR(*metrics[0].expected, *c.want_expected, 1e-6);
      EXPECT_FALSE(metrics[0].basis.empty());
    }
  }
}

TEST(ProbeVerdictTest, HealthyFractionsAreFractions) {
  for (const char* id :
       {"gemm_fp32_tflops", "gemm_tf32_tflops", "gemm_bf16_tflops", "gemm_fp16_tflops",
        "memory_bandwidth_gbs", "h2d_gbs", "d2h_gbs", "p2p_gbs", "allreduce_busbw_gbs"}) {
    SCOPED_TRACE(id);
    ASSERT_TRUE(HealthyFraction(id));
    EXPECT_GT(*HealthyFraction(id), 0.5);
    EXPECT_LT(*HealthyFraction(id), 1.0);
  }
  EXPECT_FALSE(HealthyFraction("vcpu_count"));
}

}  // namespace
}  // namespace gpuplan::agent
