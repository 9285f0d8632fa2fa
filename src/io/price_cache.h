// The local price cache: prices and market data fetched by `gpuplan prices refresh` (origin api)
// or read by `gpuplan prices import` (origin import), kept in one JSON file,
// $XDG_CACHE_HOME/gpuplan/prices.json (default ~/.cache/gpuplan/prices.json).
//
// Writes are atomic (io::WriteFileAtomic): a reader sees the old or the new file, and a failed
// refresh never touches it. Every change goes through UpdatePriceCache, which holds an advisory
// lock (`dir`/prices.json.lock) from the read to the rename, so concurrent `prices import`,
// `prices add` and `prices refresh` runs wait for each other and merge instead of losing rows.
// File shape (version 1):
//   {"version": 1,
//    "prices": [{"instance", "region", "zone", "billing", "price", "currency", "unit",
//                "source": "api"|"import", "as_of", "trust", "notes"}],
//    "stock": [{"instance", "region", "zone", "status", "status_category", "as_of", "source"}],
//    "spot_advice": [{"instance", "region", "zone", "interruption_rate", "interrupt_rate_desc",
//                     "average_spot_discount_pct", "as_of", "source"}],
//    "complete_stock_regions": ["cn-hangzhou"]}
#ifndef GPUPLAN_SRC_IO_PRICE_CACHE_H_
#define GPUPLAN_SRC_IO_PRICE_CACHE_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/status.h"

namespace gpuplan::io {

struct PriceCache {
  std::vector<Price> prices;  // origin kApi or kImport
  cost::MarketData market;
  bool empty() const {
    return prices.empty() && market.stock.empty() && market.spot_advice.empty();
  }
};

// "$XDG_CACHE_HOME/gpuplan" when `xdg_cache_home` is set and not empty, else
// "$HOME/.cache/gpuplan"; kInvalidArgument when neither is set. Arguments are the values of the
// environment variables (nullptr when unset); only src/cli reads the environment.
Result<std::string> PriceCacheDir(const char* xdg_cache_home, const char* home);
// `dir`/prices.json.
std::string PriceCachePath(const std::string& dir);

// The cache in `dir`; an empty cache when the file does not exist. A corrupt file is
// kInvalidArgument naming the file and the fix.
Result<PriceCache> ReadPriceCache(const std::string& dir);
// Atomically replaces the cache file. Without the lock (UpdatePriceCache) a concurrent writer's
// rows can be lost; use it only for a cache nobody else writes.
Status WritePriceCache(const std::string& dir, const PriceCache& cache);
// Read-modify-write under the cache's lock: waits for the lock, reads the cache (empty when
// absent), calls `update` on it and, when that returns OK, writes it atomically. Returns the
// first error (of the lock, the read, `update` or the write); on error the file is unchanged.
Status UpdatePriceCache(const std::string& dir,
                        const std::function<Status(PriceCache* cache)>& update);

std::string PriceCacheToJson(const PriceCache& cache);
// Parses the JSON above; errors name `file`, the entry index and the field.
Result<PriceCache> PriceCacheFromJson(std::string_view text, const std::string& file);

// Rows of `update` replace rows of `cache` with the same key (prices: instance, region, zone,
// billing, origin; stock and advice: instance, region, zone, origin). A region that `update`
// lists as complete first loses its old stock rows of the same origin.
void MergePriceCache(const PriceCache& update, PriceCache* cache);

// Adds the cached prices whose instance type the catalog knows (Catalog::Overlay keeps builtin
// rows; lookups rank api > import > builtin). Returns how many rows were skipped as unknown.
int ApplyPriceCache(const PriceCache& cache, Catalog* catalog);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_PRICE_CACHE_H_
