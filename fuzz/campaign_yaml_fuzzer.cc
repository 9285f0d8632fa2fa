// libFuzzer target: the campaign file parser must return a value or a Status for any input,
// never crash, hang or throw. `file:` keys are refused (allow_files = false), so no input can
// make it open a file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/campaign_yaml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::Result<gpuplan::campaign::CampaignSpec> spec =
      gpuplan::io::ParseCampaignYaml(text, "fuzz.yaml", false);
  if (spec.ok()) {
    // A parsed campaign is valid by contract.
    if (!gpuplan::campaign::ValidateCampaign(*spec).ok())
      __builtin_trap();
  }
  return 0;
}
