// Fuzzes what the spot watcher trusts from the network: the termination-time parser and the
// probe's calibration-file parser. Neither may crash, and a parsed notice must be a time the
// parser's contract allows (years 2000-2199).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "agent/probe_calibration.h"
#include "agent/spot_notice.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::Result<double> t = gpuplan::agent::ParseTerminationTime(text);
  // 2000-01-01T00:00:00Z and 2200-01-01T00:00:00Z.
  if (t.ok() && (*t < 946684800.0 || *t >= 7258118400.0))
    std::abort();
  (void)gpuplan::agent::ParseCalibration(text, "fuzz.json");
  return 0;
}
