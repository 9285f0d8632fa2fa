// libFuzzer target: the workload YAML parser must return a value or a Status for any input,
// never crash, hang or throw.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/workload_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::Result<gpuplan::Workload> w = gpuplan::io::ParseWorkloadYaml(text, "fuzz.yaml");
  if (w.ok()) {
    // A parsed workload is valid by contract.
    if (!gpuplan::ValidateWorkload(*w).ok())
      __builtin_trap();
  }
  return 0;
}
