#include "agent/cuda_probe.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "agent/cuda_probe_abi.h"

namespace gpuplan::agent {
namespace {

constexpr const char* kPluginName = "libgpuplan_cuda_probe.so";

std::string ExecutableDir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return "";
  std::string path(buf, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

class PluginCudaProbe : public CudaProbe {
 public:
  PluginCudaProbe(void* handle, GpuplanCudaProbeRunFn run) : handle_(handle), run_(run) {}
  ~PluginCudaProbe() override {
    // The CUDA runtime registers atexit handlers inside the plugin; unloading it before exit
    // would leave them dangling, so the handle stays open for the life of the process.
    (void)handle_;
  }
  PluginCudaProbe(const PluginCudaProbe&) = delete;
  PluginCudaProbe& operator=(const PluginCudaProbe&) = delete;

  CudaProbeResult Run(const CudaProbeOptions& o) override {
    CudaProbeResult result;
    GpuplanCudaProbeOptions opts{.abi_version = GPUPLAN_CUDA_PROBE_ABI_VERSION,
                                 .seconds_per_test = o.seconds_per_test,
                                 .gemm_size = o.gemm_size,
                                 .memory_test_gib = o.memory_test_gib,
                                 .transfer_mib = o.transfer_mib,
                                 .max_gpus = o.max_gpus};
    GpuplanCudaProbeSink sink;
    sink.ctx = &result;
    sink.device = [](void* ctx, int gpu, const char* name, double memory_gib, int major,
                     int minor) {
      static_cast<CudaProbeResult*>(ctx)->devices.push_back(CudaDevice{.index = gpu,
                                                                       .name = name ? name : "",
                                                                       .memory_gib = memory_gib,
                                                                       .cc_major = major,
                                                                       .cc_minor = minor});
    };
    sink.metric = [](void* ctx, int gpu, const char* id, double value, const char* how) {
      static_cast<CudaProbeResult*>(ctx)->measurements.push_back(
          {gpu, id ? id : "?", value, how ? how : ""});
    };
    sink.skipped = [](void* ctx, int gpu, const char* id, const char* reason) {
      static_cast<CudaProbeResult*>(ctx)->skipped.push_back(
          {gpu, id ? id : "*", reason ? reason : "unknown"});
    };
    const int rc = run_(&opts, &sink);
    if (rc != 0 && result.skipped.empty()) {
      result.skipped.push_back({-1, "*", fmt::format("CUDA plugin failed (code {})", rc)});
    }
    return result;
  }

 private:
  void* handle_;
  GpuplanCudaProbeRunFn run_;
};

}  // namespace

std::unique_ptr<CudaProbe> LoadCudaProbePlugin(const std::string& explicit_path, std::string* why) {
  std::vector<std::string> candidates;
  if (!explicit_path.empty()) {
    candidates.push_back(explicit_path);
  } else if (const char* env = std::getenv("GPUPLAN_CUDA_PROBE"); env && *env) {
    candidates.push_back(env);
  } else {
    if (std::string dir = ExecutableDir(); !dir.empty()) {
      candidates.push_back(dir + "/" + kPluginName);
      candidates.push_back(dir + "/../lib/" + kPluginName);
      candidates.push_back(dir + "/../lib/gpuplan/" + kPluginName);
    }
    candidates.push_back(kPluginName);  // LD_LIBRARY_PATH and the system paths
  }
  std::string errors;
  for (const std::string& path : candidates) {
    // A bare name goes to the loader's search; a path is tried only when the file exists, so the
    // message names the real problem (a missing libcudart, say) rather than every absent path.
    if (path.find('/') != std::string::npos && access(path.c_str(), F_OK) != 0) {
      errors += fmt::format("{}{}: not found", errors.empty() ? "" : "; ", path);
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* e = dlerror();
      errors += fmt::format("{}{}: {}", errors.empty() ? "" : "; ", path, e ? e : "dlopen failed");
      continue;
    }
    auto run = reinterpret_cast<GpuplanCudaProbeRunFn>(dlsym(handle, GPUPLAN_CUDA_PROBE_SYMBOL));
    if (!run) {
      errors += fmt::format("{}{}: no symbol {}", errors.empty() ? "" : "; ", path,
                            GPUPLAN_CUDA_PROBE_SYMBOL);
      dlclose(handle);
      continue;
    }
    return std::make_unique<PluginCudaProbe>(handle, run);
  }
  *why =
      "CUDA probe plugin not loaded (build it with nvcc: cmake -DGPUPLAN_CUDA_PROBE=ON, or "
      "set GPUPLAN_CUDA_PROBE=/path/to/" +
      std::string(kPluginName) + "): " + errors;
  return nullptr;
}

}  // namespace gpuplan::agent
