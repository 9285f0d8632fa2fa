#include "agent/nvml_telemetry.h"

#include <gtest/gtest.h>

#include "agent/cuda_probe.h"

namespace gpuplan::agent {
namespace {

TEST(NvmlTelemetryTest, MissingOrWrongLibrarySaysWhy) {
  struct Case {
    const char* name;
    const char* library;
    const char* want;
  };
  const Case kCases[] = {
      {"no_driver", "libnvidia-ml-does-not-exist.so.1", "cannot load libnvidia-ml-does-not-exist"},
      {"not_nvml", "libm.so.6", "NVML has no nvmlInit_v2"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::string why;
    EXPECT_EQ(OpenNvml(&why, c.library), nullptr);
    EXPECT_NE(why.find(c.want), std::string::npos) << why;
  }
}

TEST(CudaProbePluginTest, MissingOrWrongPluginSaysWhy) {
  struct Case {
    const char* name;
    const char* path;
    const char* want;
  };
  const Case kCases[] = {
      {"absent", "/nonexistent/libgpuplan_cuda_probe.so",
       "/nonexistent/libgpuplan_cuda_probe.so: not found"},
      {"not_a_plugin", "libm.so.6", "libm.so.6: no symbol gpuplan_cuda_probe_run"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::string why;
    EXPECT_EQ(LoadCudaProbePlugin(c.path, &why), nullptr);
    EXPECT_NE(why.find(c.want), std::string::npos) << why;
    EXPECT_NE(why.find("GPUPLAN_CUDA_PROBE"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace gpuplan::agent
