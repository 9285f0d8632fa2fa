// GPU measurements for `gpuplan probe`: GEMM TFLOPS, memory bandwidth, host<->device and
// GPU<->GPU copies, NCCL all-reduce. CudaProbe is the interface; LoadCudaProbePlugin finds and
// dlopens libgpuplan_cuda_probe.so (built from cuda/ where nvcc exists). Tests use
// FakeCudaProbe (tests/testing/agent_fakes.h).
//
// Thread safety: one Run at a time per probe.
#ifndef GPUPLAN_SRC_AGENT_CUDA_PROBE_H_
#define GPUPLAN_SRC_AGENT_CUDA_PROBE_H_

#include <memory>
#include <string>
#include <vector>

#include "gpuplan/status.h"

namespace gpuplan::agent {

struct CudaProbeOptions {
  double seconds_per_test = 0.5;  // timed phase of each test; longer is steadier
  int gemm_size = 8192;           // square GEMM size: large enough to reach peak on H100-class
  double memory_test_gib = 1.0;   // per buffer: far larger than any L2 (H100: 50 MB)
  double transfer_mib = 256;      // per copy: large enough to hide per-copy latency
  int max_gpus = 0;               // 0 = all
};

struct CudaDevice {
  int index = 0;
  std::string name;
  double memory_gib = 0;
  int cc_major = 0, cc_minor = 0;
};

struct CudaMeasurement {
  int gpu = -1;        // -1: whole machine
  std::string metric;  // e.g. "gemm_bf16_tflops"
  double value = 0;
  std::string how;  // short description of the test
};

struct CudaSkip {
  int gpu = -1;
  std::string metric;  // "*" = every GPU metric
  std::string reason;
};

struct CudaProbeResult {
  std::vector<CudaDevice> devices;
  std::vector<CudaMeasurement> measurements;
  std::vector<CudaSkip> skipped;
};

class CudaProbe {
 public:
  virtual ~CudaProbe() = default;
  // Runs the tests. A machine without GPUs gives an OK result with only `skipped` entries.
  virtual CudaProbeResult Run(const CudaProbeOptions& options) = 0;
};

// Finds the plugin: `explicit_path` when given, else $GPUPLAN_CUDA_PROBE, else
// libgpuplan_cuda_probe.so next to the running executable, in ../lib and ../lib/gpuplan from it,
// then the loader's search path. Returns nullptr with `*why` naming what was tried.
std::unique_ptr<CudaProbe> LoadCudaProbePlugin(const std::string& explicit_path, std::string* why);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_CUDA_PROBE_H_
