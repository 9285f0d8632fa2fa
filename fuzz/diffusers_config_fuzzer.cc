// libFuzzer target: the diffusers pipeline reader must return an architecture or a Status for
// any component config, never crash, hang or throw; an architecture it returns is valid. The
// input is every component's config.json (transformer, text encoder and VAE) under a fixed
// model_index.json, so one input reaches each reader.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "io/diffusers_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view kIndex =
      R"({"_class_name": "FuzzPipeline", "transformer": ["diffusers", "T"],
          "text_encoder": ["transformers", "E"], "vae": ["diffusers", "V"]})";
  gpuplan::Result<gpuplan::io::HfModelConfig> c = gpuplan::io::ParseDiffusersPipeline(
      kIndex, "fuzz/model_index.json",
      [&](const std::string&) -> gpuplan::Result<std::string> { return text; });
  if (c.ok()) {
    if (!gpuplan::ValidateModelArch(c->arch).ok())
      __builtin_trap();
    if (!(c->arch.params > 0) || !(c->arch.gen.aux_params >= 0))
      __builtin_trap();
  }
  return 0;
}
