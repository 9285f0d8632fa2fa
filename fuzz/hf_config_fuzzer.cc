// libFuzzer target: the Hugging Face config.json reader must return an architecture or a Status
// for any input, never crash, hang or throw; an architecture it returns is valid.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::Result<gpuplan::io::HfModelConfig> c =
      gpuplan::io::ParseHfModelConfig(text, "fuzz/config.json");
  if (c.ok()) {
    if (!gpuplan::ValidateModelArch(c->arch).ok())
      __builtin_trap();
    // Parameter counts of a valid shape are finite and positive.
    const double n = c->arch.Params(), a = c->arch.ActiveParams();
    if (!(n > 0) || !(a > 0) || a > n * (1 + 1e-9))
      __builtin_trap();
  }
  return 0;
}
