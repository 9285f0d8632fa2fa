#include "agent/nvml_telemetry.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace gpuplan::agent {
namespace {

// The few NVML declarations gpuplan needs, copied from nvml.h (CUDA 12/13, stable ABI since
// NVML 4): results are ints (0 = NVML_SUCCESS), devices opaque pointers.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

class NvmlTelemetry : public GpuTelemetry {
 public:
  ~NvmlTelemetry() override {
    if (shutdown_)
      shutdown_();
    if (handle_)
      dlclose(handle_);
  }

  // Resolves the symbols and calls nvmlInit; false with `*why` on failure.
  bool Open(const std::string& library, std::string* why) {
    handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      const char* e = dlerror();
      *why = fmt::format("cannot load {} (no NVIDIA driver?): {}", library, e ? e : "unknown");
      return false;
    }
    bool ok = Sym("nvmlInit_v2", &init_, why) && Sym("nvmlShutdown", &shutdown_fn_, why) &&
              Sym("nvmlErrorString", &error_string_, why) &&
              Sym("nvmlDeviceGetCount_v2", &get_count_, why) &&
              Sym("nvmlDeviceGetHandleByIndex_v2", &get_handle_, why) &&
              Sym("nvmlDeviceGetName", &get_name_, why) &&
              Sym("nvmlDeviceGetMemoryInfo", &get_memory_, why) &&
              Sym("nvmlDeviceGetUtilizationRates", &get_util_, why);
    if (!ok)
      return false;
    // Optional: older drivers or some GPUs lack these; readings then stay unknown.
    OptionalSym("nvmlDeviceGetPowerUsage", &get_power_);
    OptionalSym("nvmlDeviceGetEnforcedPowerLimit", &get_power_limit_);
    OptionalSym("nvmlDeviceGetMaxPcieLinkGeneration", &get_pcie_gen_);
    OptionalSym("nvmlDeviceGetMaxPcieLinkWidth", &get_pcie_width_);
    OptionalSym("nvmlSystemGetDriverVersion", &get_driver_);
    if (NvmlReturn r = init_(); r != kNvmlSuccess) {
      *why = "nvmlInit failed: " + Error(r);
      return false;
    }
    shutdown_ = shutdown_fn_;
    return true;
  }

  Result<std::vector<GpuInfo>> Devices() override {
    Result<std::vector<NvmlDevice>> handles = Handles();
    if (!handles.ok())
      return handles.status();
    std::string driver;
    if (get_driver_) {
      char buf[96] = {};
      if (get_driver_(buf, sizeof buf) == kNvmlSuccess)
        driver = buf;
    }
    std::vector<GpuInfo> out;
    for (size_t i = 0; i < handles->size(); ++i) {
      NvmlDevice d = (*handles)[i];
      GpuInfo info;
      info.index = static_cast<int>(i);
      info.driver_version = driver;
      char name[96] = {};
      if (get_name_(d, name, sizeof name) == kNvmlSuccess)
        info.name = name;
      NvmlMemory m{};
      if (get_memory_(d, &m) == kNvmlSuccess) {
        info.memory_total_gib = static_cast<double>(m.total) / kGib;
      }
      unsigned int v = 0;
      if (get_pcie_gen_ && get_pcie_gen_(d, &v) == kNvmlSuccess) {
        info.pcie_gen_max = static_cast<int>(v);
      }
      if (get_pcie_width_ && get_pcie_width_(d, &v) == kNvmlSuccess) {
        info.pcie_width_max = static_cast<int>(v);
      }
      if (get_power_limit_ && get_power_limit_(d, &v) == kNvmlSuccess) {
        info.power_limit_w = v / 1000.0;
      }
      out.push_back(std::move(info));
    }
    return out;
  }

  Result<std::vector<GpuSample>> Sample() override {
    Result<std::vector<NvmlDevice>> handles = Handles();
    if (!handles.ok())
      return handles.status();
    std::vector<GpuSample> out;
    for (size_t i = 0; i < handles->size(); ++i) {
      NvmlDevice d = (*handles)[i];
      GpuSample s;
      s.index = static_cast<int>(i);
      NvmlUtilization u{};
      if (NvmlReturn r = get_util_(d, &u); r != kNvmlSuccess) {
        return Status::Unavailable(fmt::format("GPU {} utilisation: {}", i, Error(r)));
      }
      s.util_pct = u.gpu;
      s.mem_util_pct = u.memory;
      NvmlMemory m{};
      if (get_memory_(d, &m) == kNvmlSuccess) {
        s.mem_used_gib = static_cast<double>(m.used) / kGib;
        s.mem_total_gib = static_cast<double>(m.total) / kGib;
      }
      unsigned int mw = 0;
      if (get_power_ && get_power_(d, &mw) == kNvmlSuccess)
        s.power_w = mw / 1000.0;
      if (get_power_limit_ && get_power_limit_(d, &mw) == kNvmlSuccess) {
        s.power_limit_w = mw / 1000.0;
      }
      out.push_back(s);
    }
    return out;
  }

 private:
  // A handle per GPU, in NVML's index order.
  Result<std::vector<NvmlDevice>> Handles() const {
    unsigned int count = 0;
    if (NvmlReturn r = get_count_(&count); r != kNvmlSuccess) {
      return Status::Unavailable("nvmlDeviceGetCount: " + Error(r));
    }
    std::vector<NvmlDevice> handles(count, nullptr);
    for (unsigned int i = 0; i < count; ++i) {
      if (NvmlReturn r = get_handle_(i, &handles[i]); r != kNvmlSuccess) {
        return Status::Unavailable(fmt::format("GPU {}: {}", i, Error(r)));
      }
    }
    return handles;
  }

  template <typename Fn>
  bool Sym(const char* name, Fn** fn, std::string* why) {
    *fn = reinterpret_cast<Fn*>(dlsym(handle_, name));
    if (!*fn)
      *why = fmt::format("NVML has no {} (driver too old?)", name);
    return *fn != nullptr;
  }
  template <typename Fn>
  void OptionalSym(const char* name, Fn** fn) {
    *fn = reinterpret_cast<Fn*>(dlsym(handle_, name));
  }
  std::string Error(NvmlReturn r) const {
    const char* s = error_string_ ? error_string_(r) : nullptr;
    return s ? fmt::format("{} (NVML error {})", s, r) : fmt::format("NVML error {}", r);
  }

  void* handle_ = nullptr;
  NvmlReturn (*init_)() = nullptr;
  NvmlReturn (*shutdown_fn_)() = nullptr;
  NvmlReturn (*shutdown_)() = nullptr;  // set once init succeeded
  const char* (*error_string_)(NvmlReturn) = nullptr;
  NvmlReturn (*get_count_)(unsigned int*) = nullptr;
  NvmlReturn (*get_handle_)(unsigned int, NvmlDevice*) = nullptr;
  NvmlReturn (*get_name_)(NvmlDevice, char*, unsigned int) = nullptr;
  NvmlReturn (*get_memory_)(NvmlDevice, NvmlMemory*) = nullptr;
  NvmlReturn (*get_util_)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*get_power_)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*get_power_limit_)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*get_pcie_gen_)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*get_pcie_width_)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*get_driver_)(char*, unsigned int) = nullptr;
};

}  // namespace

std::unique_ptr<GpuTelemetry> OpenNvml(std::string* why, const std::string& library) {
  auto nvml = std::make_unique<NvmlTelemetry>();
  if (!nvml->Open(library, why))
    return nullptr;
  return nvml;
}

}  // namespace gpuplan::agent
