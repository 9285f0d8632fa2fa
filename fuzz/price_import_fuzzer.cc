// libFuzzer target: aliyun CLI JSON import, the price-cache reader and the price-ratio CSV must
// give an error or a value on any input, never a crash; accepted rows keep their invariants.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "io/price_cache.h"
#include "io/price_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpuplan;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  io::ImportContext ctx;
  ctx.as_of = "2026-11-30";
  ctx.instance = "ecs.gn7i-c8g1.2xlarge";
  ctx.region = "cn-hangzhou";
  if (auto got = io::ParseAliyunResponse(text, "fuzz.json", ctx); got.ok()) {
    for (const Price& p : got->prices) {
      // Zero or negative prices mean "not priced" and must never be imported as free.
      if (!(p.amount > 0))
        std::abort();
      if (p.currency != "CNY" && p.currency != "USD")
        std::abort();
    }
    // What was imported must survive the cache round trip.
    if (!io::PriceCacheFromJson(io::PriceCacheToJson(*got), "fuzz-cache.json").ok())
      std::abort();
  }
  (void)io::PriceCacheFromJson(text, "fuzz-cache.json");
  (void)io::ParsePriceRatios(text, "fuzz.csv");
  return 0;
}
