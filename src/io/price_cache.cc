#include "io/price_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>

#include "gpuplan/strings.h"
#include "io/file_util.h"
#include "io/text_check.h"
#include "io/utc_time.h"

namespace gpuplan::io {
namespace {

using nlohmann::json;

constexpr int kVersion = 1;

PriceSource ParseOrigin(const std::string& s, bool* ok) {
  *ok = true;
  if (s == "api")
    return PriceSource::kApi;
  if (s == "import")
    return PriceSource::kImport;
  if (s == "user")
    return PriceSource::kUser;
  *ok = false;
  return PriceSource::kImport;
}

// Typed field access that names the file, the array, the index and the field on error.
class Fields {
 public:
  Fields(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {}

  std::string Str(const char* name, bool required = true) {
    auto it = obj_.find(name);
    if (it == obj_.end() || it->is_null()) {
      if (required)
        Fail(name, "is missing; expected a string");
      return "";
    }
    if (!it->is_string()) {
      Fail(name, "expected a string");
      return "";
    }
    std::string value = it->get<std::string>();
    if (std::optional<std::string> why = TextProblem(value)) {
      Fail(name, *why);
      return "";
    }
    return value;
  }
  // A required "YYYY-MM-DD": a row without a real date would have no age and never turn stale.
  std::string Date(const char* name) {
    std::string value = Str(name);
    if (status_.ok() && !IsRfc3339Date(value)) {
      Fail(name, "expected a date YYYY-MM-DD, got \"" + value + "\"");
      return "";
    }
    return value;
  }
  double Num(const char* name) {
    auto it = obj_.find(name);
    if (it == obj_.end() || !it->is_number()) {
      Fail(name, "expected a number");
      return 0;
    }
    return it->get<double>();
  }
  std::optional<double> OptNum(const char* name) {
    auto it = obj_.find(name);
    if (it == obj_.end() || it->is_null())
      return std::nullopt;
    if (!it->is_number()) {
      Fail(name, "expected a number or null");
      return std::nullopt;
    }
    return it->get<double>();
  }
  PriceSource Origin() {
    bool ok = false;
    const std::string s = Str("source");
    PriceSource o = ParseOrigin(s, &ok);
    if (!ok && status_.ok())
      Fail("source", "expected \"api\", \"import\" or \"user\", got \"" + s + "\"");
    return o;
  }
  void Fail(std::string_view field, std::string_view what) {
    if (status_.ok()) {
      status_ = Status::InvalidArgument(fmt::format("{}: field \"{}\" {}", where_, field, what))
                    .AtField(std::string(field));
    }
  }
  const Status& status() const { return status_; }

 private:
  const json& obj_;
  std::string where_;
  Status status_;
};

// An lvalue, so `cond ? entry : EmptyObject()` binds Fields to no temporary.
const json& EmptyObject() {
  static const json kEmpty = json::object();
  return kEmpty;
}

json PriceJson(const Price& p) {
  return json{{"instance", p.instance}, {"region", p.region},
              {"zone", p.zone},         {"billing", BillingName(p.billing)},
              {"price", p.amount},      {"currency", p.currency},
              {"unit", p.unit},         {"source", PriceSourceName(p.origin)},
              {"as_of", p.as_of},       {"trust", p.trust},
              {"notes", p.notes}};
}

// What to do with a broken cache, said after each error about one.
constexpr std::string_view kRebuild = "; delete it or run 'gpuplan prices refresh' to rebuild it";

// One "prices" entry; `where` ("file: prices[3]") is its provenance.
// Where a market row is: instance, region, zone (which may be empty).
template <typename Row>
void ReadPlace(Fields& f, Row& row) {
  row.instance = f.Str("instance");
  row.region = f.Str("region");
  row.zone = f.Str("zone", false);
}

// When a market row was read, and from what (api, import, user).
template <typename Row>
void ReadAsOf(Fields& f, Row& row) {
  row.as_of = f.Date("as_of");
  row.origin = f.Origin();
}

Price PriceFrom(Fields& f, const std::string& where) {
  Price p;
  ReadPlace(f, p);
  const std::string billing = f.Str("billing");
  if (std::optional<Billing> b = ParseBilling(billing, BillingUse::kPriceRow)) {
    p.billing = *b;
  } else if (f.status().ok()) {
    f.Fail("billing", "unknown billing mode \"" + billing + "\"");
  }
  p.amount = f.Num("price");
  if (f.status().ok() && !(p.amount > 0))
    f.Fail("price", "expected a number above 0 (a zero price means not priced)");
  p.currency = f.Str("currency");
  if (f.status().ok() && p.currency != "CNY" && p.currency != "USD") {
    f.Fail("currency", "expected CNY or USD, got \"" + p.currency + "\"");
  }
  p.unit = f.Str("unit");
  if (f.status().ok() && p.unit != "hour" && p.unit != "month" && p.unit != "year") {
    f.Fail("unit", "expected hour, month or year, got \"" + p.unit + "\"");
  }
  p.origin = f.Origin();
  p.as_of = f.Date("as_of");
  p.trust = f.Str("trust", false);
  if (p.trust.empty())
    p.trust = "high";
  p.notes = f.Str("notes", false);
  p.provenance.basis = "doc";
  p.provenance.source = std::string(PriceSourceName(p.origin));
  p.provenance.as_of = p.as_of;
  p.provenance.origin = where;
  return p;
}

// One "stock" entry.
cost::StockRecord StockFrom(Fields& f, const std::string& /*where*/) {
  cost::StockRecord s;
  ReadPlace(f, s);
  s.status = f.Str("status");
  s.status_category = f.Str("status_category", false);
  ReadAsOf(f, s);
  return s;
}

// One "spot_advice" entry.
cost::SpotAdvice SpotAdviceFrom(Fields& f, const std::string& /*where*/) {
  cost::SpotAdvice a;
  ReadPlace(f, a);
  a.interruption_rate = f.Num("interruption_rate");
  if (f.status().ok() && (a.interruption_rate < 0 || a.interruption_rate > 100))
    f.Fail("interruption_rate", "expected a rate from 0 to 1 (or a percent up to 100)");
  a.interrupt_rate_desc = f.Str("interrupt_rate_desc", false);
  a.average_spot_discount_pct = f.OptNum("average_spot_discount_pct");
  if (a.average_spot_discount_pct &&
      (*a.average_spot_discount_pct < 0 || *a.average_spot_discount_pct > 100)) {
    f.Fail("average_spot_discount_pct", "expected a percent from 0 to 100 or null");
  }
  ReadAsOf(f, a);
  return a;
}

// The list `name` of the cache (absent: none), each entry read by `read` into `out`; the first
// bad entry is the error, named "file: name[i]".
template <typename T>
Status ReadEntries(const json& doc, const char* name, const std::string& file,
                   T (*read)(Fields&, const std::string&), std::vector<T>* out) {
  auto it = doc.find(name);
  if (it == doc.end())
    return Status::Ok();
  if (!it->is_array()) {
    return Status::InvalidArgument(file + ": \"" + name + "\" must be a list" +
                                   std::string(kRebuild));
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const json& e = (*it)[i];
    const std::string where = fmt::format("{}: {}[{}]", file, name, i);
    Fields f(e.is_object() ? e : EmptyObject(), where);
    T entry = read(f, where);
    if (!f.status().ok())
      return f.status();
    out->push_back(std::move(entry));
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> PriceCacheDir(const char* xdg_cache_home, const char* home) {
  if (xdg_cache_home && *xdg_cache_home)
    return std::string(xdg_cache_home) + "/gpuplan";
  if (home && *home)
    return std::string(home) + "/.cache/gpuplan";
  return Status::InvalidArgument(
      "cannot locate the price cache: neither XDG_CACHE_HOME nor HOME is set");
}

std::string PriceCachePath(const std::string& dir) { return dir + "/prices.json"; }

std::string PriceCacheToJson(const PriceCache& cache) {
  json prices = json::array(), stock = json::array(), advice = json::array();
  for (const Price& p : cache.prices)
    prices.push_back(PriceJson(p));
  for (const cost::StockRecord& s : cache.market.stock) {
    stock.push_back({{"instance", s.instance},
                     {"region", s.region},
                     {"zone", s.zone},
                     {"status", s.status},
                     {"status_category", s.status_category},
                     {"as_of", s.as_of},
                     {"source", PriceSourceName(s.origin)}});
  }
  for (const cost::SpotAdvice& a : cache.market.spot_advice) {
    json j = {{"instance", a.instance},
              {"region", a.region},
              {"zone", a.zone},
              {"interruption_rate", a.interruption_rate},
              {"interrupt_rate_desc", a.interrupt_rate_desc},
              {"average_spot_discount_pct", nullptr},
              {"as_of", a.as_of},
              {"source", PriceSourceName(a.origin)}};
    if (a.average_spot_discount_pct)
      j["average_spot_discount_pct"] = *a.average_spot_discount_pct;
    advice.push_back(std::move(j));
  }
  json doc = {{"version", kVersion},
              {"prices", prices},
              {"stock", stock},
              {"spot_advice", advice},
              {"complete_stock_regions", cache.market.complete_stock_regions}};
  // Readers refuse invalid UTF-8, so none should reach here; if some does, a replacement
  // character is written rather than nlohmann's type_error 316 thrown at the user.
  return doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<PriceCache> PriceCacheFromJson(std::string_view text, const std::string& file) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  const std::string fix(kRebuild);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::InvalidArgument(file + ": not a gpuplan price cache (invalid JSON)" + fix);
  }
  if (!doc.contains("version") || doc["version"] != kVersion) {
    return Status::InvalidArgument(file + ": unsupported price cache version (expected 1)" + fix);
  }
  PriceCache cache;
  if (Status s = ReadEntries(doc, "prices", file, &PriceFrom, &cache.prices); !s.ok())
    return s;
  if (Status s = ReadEntries(doc, "stock", file, &StockFrom, &cache.market.stock); !s.ok())
    return s;
  if (Status s = ReadEntries(doc, "spot_advice", file, &SpotAdviceFrom, &cache.market.spot_advice);
      !s.ok()) {
    return s;
  }
  auto regions = doc.find("complete_stock_regions");
  if (regions != doc.end() && !regions->is_array()) {
    return Status::InvalidArgument(file + ": \"complete_stock_regions\" must be a list" + fix);
  }
  if (regions != doc.end()) {
    for (const json& r : *regions) {
      if (!r.is_string()) {
        return Status::InvalidArgument(file + ": complete_stock_regions must hold strings" + fix);
      }
      cache.market.complete_stock_regions.push_back(r.get<std::string>());
    }
  }
  return cache;
}

Result<PriceCache> ReadPriceCache(const std::string& dir) {
  const std::string path = PriceCachePath(dir);
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) {
    if (text.status().code() == ErrorCode::kNotFound)
      return PriceCache{};
    return text.status();
  }
  return PriceCacheFromJson(*text, path);
}

Status WritePriceCache(const std::string& dir, const PriceCache& cache) {
  return WriteFileAtomic(PriceCachePath(dir), PriceCacheToJson(cache));
}

Status UpdatePriceCache(const std::string& dir,
                        const std::function<Status(PriceCache* cache)>& update) {
  FileLock lock;
  if (Status s = lock.Acquire(PriceCachePath(dir) + ".lock"); !s.ok())
    return s;
  Result<PriceCache> cache = ReadPriceCache(dir);
  if (!cache.ok())
    return cache.status();
  if (Status s = update(&*cache); !s.ok())
    return s;
  return WritePriceCache(dir, *cache);
}

void MergePriceCache(const PriceCache& update, PriceCache* cache) {
  auto merge = [](auto& mine, const auto& theirs, auto key) {
    for (const auto& row : theirs) {
      auto it =
          std::find_if(mine.begin(), mine.end(), [&](const auto& m) { return key(m) == key(row); });
      if (it != mine.end()) {
        *it = row;
      } else {
        mine.push_back(row);
      }
    }
  };
  auto& stock = cache->market.stock;
  for (const std::string& region : update.market.complete_stock_regions) {
    std::set<PriceSource> origins;
    for (const cost::StockRecord& s : update.market.stock)
      origins.insert(s.origin);
    if (origins.empty())
      origins.insert(PriceSource::kApi);
    std::erase_if(stock, [&](const cost::StockRecord& s) {
      return s.region == region && origins.count(s.origin) > 0;
    });
  }
  merge(cache->prices, update.prices,
        [](const Price& p) { return std::tie(p.instance, p.region, p.zone, p.billing, p.origin); });
  merge(stock, update.market.stock, [](const cost::StockRecord& s) {
    return std::tie(s.instance, s.region, s.zone, s.origin);
  });
  merge(cache->market.spot_advice, update.market.spot_advice,
        [](const cost::SpotAdvice& a) { return std::tie(a.instance, a.region, a.zone, a.origin); });
  auto& regions = cache->market.complete_stock_regions;
  for (const std::string& r : update.market.complete_stock_regions) {
    if (std::find(regions.begin(), regions.end(), r) == regions.end())
      regions.push_back(r);
  }
}

int ApplyPriceCache(const PriceCache& cache, Catalog* catalog) {
  Catalog overlay;
  int skipped = 0;
  for (const Price& p : cache.prices) {
    const InstanceType* t = catalog->FindInstance(p.instance);
    if (!t || !(p.amount > 0)) {
      ++skipped;
      continue;
    }
    Price copy = p;
    copy.instance = t->name;  // the catalog's spelling, so lookups and Validate() agree
    overlay.prices.push_back(std::move(copy));
  }
  catalog->Overlay(overlay);
  return skipped;
}

}  // namespace gpuplan::io
