#include "io/price_import.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "gpuplan/strings.h"
#include "io/csv.h"
#include "io/embedded_data.h"
#include "io/json_check.h"
#include "io/text_check.h"
#include "io/utc_time.h"

namespace gpuplan::io {
namespace {

using nlohmann::json;

// Reads one response document, remembering the first error with its JSON path.
class Reader {
 public:
  Reader(const std::string& file, const ImportContext& ctx) : file_(file), ctx_(ctx) {}

  // `parent[outer][inner]` as the API nests lists ({"SpotPrices": {"SpotPriceType": [...]}});
  // a bare list under `outer` is accepted too (SDK-flattened output).
  const json* List(const json& parent, const char* outer, const char* inner,
                   const std::string& path) {
    auto it = parent.find(outer);
    if (it == parent.end() || it->is_null())
      return &Empty();
    if (it->is_array())
      return &*it;
    if (it->is_object()) {
      auto in = it->find(inner);
      if (in == it->end() || in->is_null())
        return &Empty();
      if (in->is_array())
        return &*in;
    }
    Fail(path + "." + outer, fmt::format("expected a list under {}.{}", outer, inner));
    return &Empty();
  }

  std::string Str(const json& obj, const char* key, const std::string& path, bool required) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
      if (required)
        Fail(path + "." + key, "is missing; expected a string");
      return "";
    }
    if (!it->is_string()) {
      Fail(path + "." + key, "expected a string");
      return "";
    }
    // Stored in the cache and printed: refuse what a JSON writer or a terminal cannot take.
    std::string value = it->get<std::string>();
    if (std::optional<std::string> why = TextProblem(value)) {
      Fail(path + "." + key, *why);
      return "";
    }
    return value;
  }

  // Numbers also arrive as numeric strings in some CLI versions.
  std::optional<double> Num(const json& obj, const char* key, const std::string& path,
                            bool required) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) {
      if (required)
        Fail(path + "." + key, "is missing; expected a number");
      return std::nullopt;
    }
    std::optional<double> v;
    if (it->is_number())
      v = it->get<double>();
    if (it->is_string())
      v = ParseDecimal(it->get<std::string>());
    if (v && std::isfinite(*v))
      return v;
    Fail(path + "." + key, "expected a number");
    return std::nullopt;
  }

  void Fail(const std::string& path, const std::string& what) {
    if (status_.ok())
      status_ = Status::InvalidArgument(file_ + ": " + path + ": " + what);
  }
  const Status& status() const { return status_; }
  const ImportContext& ctx() const { return ctx_; }

 private:
  static const json& Empty() {
    static const json kEmpty = json::array();
    return kEmpty;
  }
  const std::string& file_;
  const ImportContext& ctx_;
  Status status_;
};

Price NewPrice(const ImportContext& ctx, std::string what) {
  Price p;
  p.origin = ctx.origin;
  p.trust = "high";
  p.provenance.basis = "doc";
  p.provenance.source = std::string(PriceSourceName(ctx.origin));
  p.notes = std::move(what);
  return p;
}

// DescribePrice: PriceInfo.Price.{TradePrice, Currency, DetailInfos.DetailInfo[]}.
void ReadDescribePrice(const json& doc, Reader& r, PriceCache* out) {
  const ImportContext& ctx = r.ctx();
  if (ctx.instance.empty() || ctx.region.empty()) {
    r.Fail("PriceInfo",
           "a DescribePrice response does not name its instance type and region; "
           "give them (gpuplan prices import --instance T --region R "
           "[--price-unit Hour|Month|Year])");
    return;
  }
  const json& info = doc["PriceInfo"];
  if (!info.is_object() || !info.contains("Price") || !info["Price"].is_object()) {
    r.Fail("PriceInfo.Price", "expected an object");
    return;
  }
  const json& price = info["Price"];
  const std::string currency = r.Str(price, "Currency", "PriceInfo.Price", true);
  std::optional<double> total = r.Num(price, "TradePrice", "PriceInfo.Price", true);
  if (!r.status().ok())
    return;
  // Prefer the instance part alone: quotes include the system disk (Q1 showed CNY 0.21/h for
  // a 100 GiB ESSD PL1), which the catalog's prices exclude.
  double amount = *total;
  std::string what = "DescribePrice TradePrice (includes system disk)";
  const json* details = r.List(price, "DetailInfos", "DetailInfo", "PriceInfo.Price");
  for (size_t i = 0; i < details->size(); ++i) {
    const json& d = (*details)[i];
    if (!d.is_object())
      continue;
    const std::string path = fmt::format("PriceInfo.Price.DetailInfos.DetailInfo[{}]", i);
    if (strings::Lower(r.Str(d, "Resource", path, false)) != "instancetype")
      continue;
    if (std::optional<double> v = r.Num(d, "TradePrice", path, true)) {
      amount = *v;
      what = "DescribePrice TradePrice of the instance type";
    }
  }
  if (!r.status().ok())
    return;
  if (currency != "CNY" && currency != "USD") {
    r.Fail("PriceInfo.Price.Currency", "expected CNY or USD, got \"" + currency + "\"");
    return;
  }
  if (!(amount > 0)) {
    r.Fail("PriceInfo.Price.TradePrice", "must be > 0 (a zero price means not priced)");
    return;
  }
  Price p = NewPrice(ctx, what);
  p.instance = NormalizeInstanceName(ctx.instance);
  p.region = ctx.region;
  p.zone = ctx.zone;
  p.currency = currency;
  p.as_of = ctx.as_of;
  const std::string unit = strings::Lower(ctx.price_unit);
  const double period = ctx.period > 0 ? ctx.period : 1;
  if (unit == "hour") {
    p.billing = ctx.spot ? Billing::kSpot : Billing::kPayg;
    p.unit = "hour";
    p.amount = amount / period;
  } else if (unit == "month") {
    p.billing = Billing::kSubscriptionMonth;
    p.unit = "month";
    p.amount = amount / period;
  } else if (unit == "year") {
    p.billing = Billing::kSubscriptionYear;
    p.unit = "year";
    p.amount = amount / period;
  } else {
    r.Fail("PriceUnit", "expected Hour, Month or Year, got \"" + ctx.price_unit + "\"");
    return;
  }
  out->prices.push_back(std::move(p));
}

// DescribeSpotPriceHistory: Currency, SpotPrices.SpotPriceType[].{ZoneId, InstanceType,
// Timestamp, SpotPrice, OriginPrice}. Keeps the latest observation per type and zone, and the
// OriginPrice (the PAYG price) of that zone.
void ReadSpotHistory(const json& doc, Reader& r, PriceCache* out) {
  const ImportContext& ctx = r.ctx();
  const std::string currency = r.Str(doc, "Currency", "$", true);
  if (r.status().ok() && currency != "CNY" && currency != "USD") {
    r.Fail("Currency", "expected CNY or USD, got \"" + currency + "\"");
  }
  const json* list = r.List(doc, "SpotPrices", "SpotPriceType", "$");
  struct Obs {
    std::string timestamp;
    UtcTime when;
    double spot = 0;
    std::optional<double> origin;
  };
  std::map<std::pair<std::string, std::string>, Obs> latest;  // (instance, zone)
  for (size_t i = 0; i < list->size() && r.status().ok(); ++i) {
    const json& e = (*list)[i];
    const std::string path = fmt::format("SpotPrices.SpotPriceType[{}]", i);
    if (!e.is_object()) {
      r.Fail(path, "expected an object");
      break;
    }
    const std::string zone = r.Str(e, "ZoneId", path, true);
    const std::string type = NormalizeInstanceName(r.Str(e, "InstanceType", path, true));
    const std::string ts = r.Str(e, "Timestamp", path, true);
    std::optional<double> spot = r.Num(e, "SpotPrice", path, true);
    std::optional<double> origin = r.Num(e, "OriginPrice", path, false);
    if (!r.status().ok())
      break;
    // Strictly RFC 3339: a malformed date would leave the price without an age, so it would
    // never be marked stale (issue 32).
    std::optional<UtcTime> when = ParseRfc3339(ts);
    if (!when) {
      r.Fail(path + ".Timestamp",
             "expected an RFC 3339 time like 2026-11-29T10:00:00Z, got \"" + ts + "\"");
      break;
    }
    auto [it, added] = latest.try_emplace({type, zone});
    if (added || when->unix_seconds >= it->second.when.unix_seconds)
      it->second = Obs{ts, *when, *spot, origin};
  }
  if (!r.status().ok())
    return;
  for (const auto& [key, o] : latest) {
    if (!(o.spot > 0))
      continue;
    Price p = NewPrice(ctx, "DescribeSpotPriceHistory SpotPrice at " + o.timestamp);
    p.instance = key.first;
    p.zone = key.second;
    p.region = RegionOfZone(key.second);
    p.billing = Billing::kSpot;
    p.currency = currency;
    p.amount = o.spot;
    p.unit = "hour";
    p.as_of = o.when.utc_date;
    p.trust = "medium";  // one moment of a moving market
    if (o.origin && *o.origin > 0) {
      p.notes += "; spot/PAYG " + strings::Num(o.spot / *o.origin);
      Price payg = p;
      payg.billing = Billing::kPayg;
      payg.amount = *o.origin;
      payg.trust = "high";
      payg.notes = "DescribeSpotPriceHistory OriginPrice (PAYG) at " + o.timestamp;
      out->prices.push_back(std::move(payg));
    }
    out->prices.push_back(std::move(p));
  }
}

// DescribeAvailableResource: AvailableZones.AvailableZone[].{RegionId, ZoneId, Status,
// StatusCategory, AvailableResources.AvailableResource[].{Type, SupportedResources.
// SupportedResource[].{Value, Status, StatusCategory}}}.
void ReadAvailableResource(const json& doc, Reader& r, PriceCache* out) {
  const ImportContext& ctx = r.ctx();
  const json* zones = r.List(doc, "AvailableZones", "AvailableZone", "$");
  for (size_t i = 0; i < zones->size() && r.status().ok(); ++i) {
    const json& z = (*zones)[i];
    const std::string zpath = fmt::format("AvailableZones.AvailableZone[{}]", i);
    if (!z.is_object()) {
      r.Fail(zpath, "expected an object");
      break;
    }
    const std::string zone = r.Str(z, "ZoneId", zpath, true);
    std::string region = r.Str(z, "RegionId", zpath, false);
    if (region.empty())
      region = RegionOfZone(zone);
    const std::string zone_status = r.Str(z, "Status", zpath, false);
    const json* resources = r.List(z, "AvailableResources", "AvailableResource", zpath);
    for (size_t j = 0; j < resources->size() && r.status().ok(); ++j) {
      const json& res = (*resources)[j];
      const std::string rpath =
          fmt::format("{}.AvailableResources.AvailableResource[{}]", zpath, j);
      if (!res.is_object()) {
        r.Fail(rpath, "expected an object");
        break;
      }
      if (r.Str(res, "Type", rpath, false) != "InstanceType")
        continue;
      const json* supported = r.List(res, "SupportedResources", "SupportedResource", rpath);
      for (size_t k = 0; k < supported->size() && r.status().ok(); ++k) {
        const json& s = (*supported)[k];
        const std::string spath =
            fmt::format("{}.SupportedResources.SupportedResource[{}]", rpath, k);
        if (!s.is_object()) {
          r.Fail(spath, "expected an object");
          break;
        }
        cost::StockRecord rec;
        rec.instance = NormalizeInstanceName(r.Str(s, "Value", spath, true));
        rec.region = region;
        rec.zone = zone;
        rec.status = r.Str(s, "Status", spath, false);
        if (rec.status.empty() || zone_status == "SoldOut")
          rec.status = zone_status;
        rec.status_category = r.Str(s, "StatusCategory", spath, false);
        rec.as_of = ctx.as_of;
        rec.origin = ctx.origin;
        if (rec.status != "Available" && rec.status != "SoldOut") {
          r.Fail(spath + ".Status", "expected Available or SoldOut, got \"" + rec.status + "\"");
          break;
        }
        out->market.stock.push_back(std::move(rec));
      }
    }
  }
}

// DescribeSpotAdvice: RegionId, AvailableSpotZones.AvailableSpotZone[].{ZoneId,
// AvailableSpotResources.AvailableSpotResource[].{InstanceType, InterruptionRate,
// InterruptRateDesc, AverageSpotDiscount}}.
void ReadSpotAdvice(const json& doc, Reader& r, PriceCache* out) {
  const ImportContext& ctx = r.ctx();
  const std::string region = r.Str(doc, "RegionId", "$", false);
  const json* zones = r.List(doc, "AvailableSpotZones", "AvailableSpotZone", "$");
  for (size_t i = 0; i < zones->size() && r.status().ok(); ++i) {
    const json& z = (*zones)[i];
    const std::string zpath = fmt::format("AvailableSpotZones.AvailableSpotZone[{}]", i);
    if (!z.is_object()) {
      r.Fail(zpath, "expected an object");
      break;
    }
    const std::string zone = r.Str(z, "ZoneId", zpath, true);
    const json* res = r.List(z, "AvailableSpotResources", "AvailableSpotResource", zpath);
    for (size_t j = 0; j < res->size() && r.status().ok(); ++j) {
      const json& s = (*res)[j];
      const std::string spath =
          fmt::format("{}.AvailableSpotResources.AvailableSpotResource[{}]", zpath, j);
      if (!s.is_object()) {
        r.Fail(spath, "expected an object");
        break;
      }
      cost::SpotAdvice a;
      a.instance = NormalizeInstanceName(r.Str(s, "InstanceType", spath, true));
      a.region = region.empty() ? RegionOfZone(zone) : region;
      a.zone = zone;
      std::optional<double> rate = r.Num(s, "InterruptionRate", spath, true);
      a.interrupt_rate_desc = r.Str(s, "InterruptRateDesc", spath, false);
      a.average_spot_discount_pct = r.Num(s, "AverageSpotDiscount", spath, false);
      a.as_of = ctx.as_of;
      a.origin = ctx.origin;
      if (!r.status().ok())
        break;
      if (*rate < 0 || *rate > 100) {
        r.Fail(spath + ".InterruptionRate", "expected a rate between 0 and 1 (or a percent)");
        break;
      }
      if (a.average_spot_discount_pct &&
          (*a.average_spot_discount_pct < 0 || *a.average_spot_discount_pct > 100)) {
        r.Fail(spath + ".AverageSpotDiscount", "expected a percent from 0 to 100");
        break;
      }
      a.interruption_rate = *rate;
      out->market.spot_advice.push_back(std::move(a));
    }
  }
}

Status ReadDocument(const json& doc, const std::string& file, const ImportContext& ctx,
                    PriceCache* out) {
  if (!doc.is_object()) {
    return Status::InvalidArgument(file + ": expected a JSON object (an aliyun CLI response)");
  }
  Reader r(file, ctx);
  if (doc.contains("PriceInfo")) {
    ReadDescribePrice(doc, r, out);
  } else if (doc.contains("SpotPrices")) {
    ReadSpotHistory(doc, r, out);
  } else if (doc.contains("AvailableZones")) {
    ReadAvailableResource(doc, r, out);
  } else if (doc.contains("AvailableSpotZones")) {
    ReadSpotAdvice(doc, r, out);
  } else if (doc.contains("Code") && doc.contains("Message")) {
    Reader e(file, ctx);
    return Status::InvalidArgument(
        file + ": the file holds an API error, not data: " + e.Str(doc, "Code", "$", false) + ": " +
        e.Str(doc, "Message", "$", false));
  } else {
    return Status::InvalidArgument(
        file +
        ": not a response of DescribePrice, DescribeSpotPriceHistory, "
        "DescribeAvailableResource or DescribeSpotAdvice (expected one of the keys "
        "PriceInfo, SpotPrices, AvailableZones, AvailableSpotZones)");
  }
  return r.status();
}

}  // namespace

std::string RegionOfZone(std::string_view zone) {
  std::string z(zone);
  if (z.size() > 2 && z[z.size() - 2] == '-' &&
      std::isalpha(static_cast<unsigned char>(z.back()))) {
    return z.substr(0, z.size() - 2);  // cn-hangzhou-h
  }
  if (z.size() > 2 && std::isalpha(static_cast<unsigned char>(z.back())) &&
      std::isdigit(static_cast<unsigned char>(z[z.size() - 2]))) {
    return z.substr(0, z.size() - 1);  // us-east-1a
  }
  return z;
}

Result<PriceCache> ParseAliyunResponse(std::string_view text, const std::string& file,
                                       const ImportContext& ctx) {
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    // The strict pass names the line and column where the parser stopped (issue 31).
    const Status at = CheckStrictJson(
        text, file, {.max_depth = 1 << 16, .max_values = std::numeric_limits<size_t>::max()});
    return Status::InvalidArgument((at.ok() ? file + ": malformed JSON" : at.message()) +
                                   "; expected the output of an aliyun "
                                   "CLI call such as 'aliyun ecs DescribeSpotPriceHistory'");
  }
  return ParseAliyunJson(doc, file, ctx);
}

Result<PriceCache> ParseAliyunJson(const json& doc, const std::string& file,
                                   const ImportContext& ctx) {
  // Every row gets a date (its own or this one): a price without one is never treated as fresh.
  if (!IsRfc3339Date(ctx.as_of)) {
    return Status::InvalidArgument(file + ": as-of date must be a date YYYY-MM-DD, got \"" +
                                   ctx.as_of + "\"");
  }
  PriceCache out;
  try {
    if (doc.is_array()) {
      for (size_t i = 0; i < doc.size(); ++i) {
        Status s = ReadDocument(doc[i], fmt::format("{}[{}]", file, i), ctx, &out);
        if (!s.ok())
          return s;
      }
    } else {
      Status s = ReadDocument(doc, file, ctx, &out);
      if (!s.ok())
        return s;
    }
  } catch (const json::exception& e) {
    // Every access is type-checked first; this is a safety net so no input can crash us.
    return Status::InvalidArgument(file + ": unexpected JSON shape: " + e.what());
  }
  return out;
}

Result<cost::PriceRatios> ParsePriceRatios(std::string_view csv_text, const std::string& file) {
  Result<CsvTable> table = CsvTable::Parse(csv_text, file);
  if (!table.ok())
    return table.status();
  if (Status s = table->RequireColumns({"name", "value", "source", "as_of"}); !s.ok())
    return s;
  cost::PriceRatios r;
  r.spot_scenarios.assign(3, 0);
  struct Field {
    const char* name;
    double* target;
    double min, max;
  };
  const Field kFields[] = {
      {"subscription_month_vs_payg", &r.subscription_month_vs_payg, 0.05, 1.5},
      {"hours_per_month", &r.hours_per_month, 672, 744},
      {"reserved_no_upfront_vs_payg", &r.reserved_no_upfront_vs_payg, 0.05, 1},
      {"reserved_partial_hourly_vs_no_upfront", &r.reserved_partial_hourly_vs_no_upfront, 0, 1},
      {"spot_scenario_low", &r.spot_scenarios[0], 0.01, 1},
      {"spot_scenario_mid", &r.spot_scenarios[1], 0.01, 1},
      {"spot_scenario_high", &r.spot_scenarios[2], 0.01, 1},
      {"spot_default", &r.spot_default, 0.01, 1},
      {"spot_floor", &r.spot_floor, 0.01, 1},
      {"cny_per_usd_overseas", &r.cny_per_usd_overseas, 1, 20},
      {"savings_plan_example_1y", &r.savings_plan_example_1y, 0, 0.9},
  };
  std::set<std::string> seen;
  for (const CsvRow& row : table->rows()) {
    CsvRowReader rr(*table, row);
    const std::string name = rr.Text("name", true);
    const Field* field = nullptr;
    for (const Field& f : kFields) {
      if (name == f.name)
        field = &f;
    }
    if (rr.status().ok() && !field)
      rr.Fail("name", "unknown ratio \"" + name + "\"");
    if (field)
      *field->target = rr.Number("value", field->min, field->max);
    rr.Text("source", true);
    rr.Text("as_of", true);
    if (!rr.status().ok())
      return rr.status();
    seen.insert(name);
  }
  for (const Field& f : kFields) {
    if (!seen.count(f.name)) {
      return Status::InvalidArgument(file + ": missing ratio \"" + f.name + "\"");
    }
  }
  return r;
}

Result<cost::PriceRatios> LoadPriceRatios() {
  return ParsePriceRatios(EmbeddedData("price_ratios.csv"), "data/price_ratios.csv");
}

}  // namespace gpuplan::io
