// `gpuplan prices [refresh|import|compare|cache]`: show prices with their source and age, fetch
// live prices from the Alibaba Cloud API into the local cache, import aliyun CLI JSON, and
// compare billing modes for a job or a service.
#include <fmt/format.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <sstream>

#include "cli/commands.h"
#include "cli/output.h"
#include "gpuplan/cost.h"
#include "gpuplan/plan.h"
#include "gpuplan/strings.h"
#include "io/file_util.h"
#include "io/price_cache.h"
#include "io/price_import.h"
#include "io/utc_time.h"
#include "net/aliyun_client.h"

namespace gpuplan::cli {
namespace {

using strings::Num;

// An environment value as the io and net functions take it: nullptr when unset.
const char* OrNull(const std::string& value) { return value.empty() ? nullptr : value.c_str(); }

Result<std::string> CacheDir(const CliContext& ctx) { return CliPriceCacheDir(ctx.env); }

// The price cache's folder and what it holds now. A corrupt cache is an error, so that a
// command that writes it never overwrites it silently.
struct CliCache {
  std::string dir;
  io::PriceCache cache;
};
Result<CliCache> ReadCliCache(const CliContext& ctx) {
  Result<std::string> dir = CacheDir(ctx);
  if (!dir.ok())
    return dir.status();
  Result<io::PriceCache> cache = io::ReadPriceCache(*dir);
  if (!cache.ok())
    return cache.status();
  return CliCache{*dir, std::move(*cache)};
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty())
      out.push_back(item);
  }
  return out;
}

Status UnknownInstance(const Catalog& c, const std::string& name) {
  std::vector<std::string> near = c.SuggestInstances(name);
  return Status::NotFound(
      fmt::format("unknown instance type \"{}\"{}", name,
                  near.empty() ? "" : fmt::format("; did you mean {}?", fmt::join(near, ", "))));
}

std::string Age(const std::optional<int>& days) { return days ? std::to_string(*days) : "-"; }

// Unit prices keep up to 4 decimals as the price lists do (9.5326, 0.0838); totals use Num().
std::string PriceText(double v) {
  std::string s = fmt::format("{:.4f}", v);
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  if (!s.empty() && s.back() == '.')
    s.pop_back();
  return s;
}

// Mainland China regions are cn-* except Hong Kong; C1/C2 prices for the others are China-site
// CNY, and the international site bills about CNY / 6.96 in USD there (F1, price_ratios.csv).
bool Overseas(std::string_view region) {
  return region.rfind("cn-", 0) != 0 || region == "cn-hongkong";
}

// ------------------------------------------------------------------------------------------
// gpuplan prices

struct ListOptions {
  std::string instance, region, billing;
  OutputFormat format = OutputFormat::kTable;
};

void RunList(CliContext& ctx, const ListOptions& o) {
  Result<Catalog> c = LoadCliCatalog(ctx);
  if (!c.ok())
    return ctx.Fail(c.status());
  if (!o.instance.empty() && !c->FindInstance(o.instance)) {
    return ctx.Fail(UnknownInstance(*c, o.instance), true);
  }
  std::optional<Billing> billing;
  if (!o.billing.empty()) {
    billing = ParseBilling(o.billing, BillingUse::kPriceRow);
    if (!billing) {
      return ctx.Fail(
          Status::InvalidArgument("--billing: expected " + BillingChoices(BillingUse::kPriceRow) +
                                  ", got \"" + o.billing + "\""),
          true);
    }
  }
  const std::string today = CliToday(ctx.env);
  std::vector<cost::PriceQuote> rows =
      cost::EffectivePrices(*c, o.instance, o.region, billing, today);
  io::Table table{{"instance", "region", "zone", "billing", "price", "currency", "unit", "source",
                   "as_of", "age_days", "trust"},
                  {}};
  nlohmann::json json = nlohmann::json::array();
  for (const cost::PriceQuote& q : rows) {
    const std::string currency(CurrencyName(q.price.currency()));
    table.rows.push_back({q.instance, q.region, q.zone.empty() ? "-" : q.zone,
                          std::string(BillingName(q.billing)), PriceText(q.price.amount()),
                          currency, q.unit, std::string(PriceSourceName(q.source)), q.as_of,
                          Age(q.age_days), q.trust});
    nlohmann::json j = {{"instance", q.instance},
                        {"region", q.region},
                        {"zone", q.zone},
                        {"billing", BillingName(q.billing)},
                        {"price", q.price.amount()},
                        {"currency", currency},
                        {"unit", q.unit},
                        {"source", PriceSourceName(q.source)},
                        {"as_of", q.as_of},
                        {"age_days", nullptr},
                        {"trust", q.trust}};
    if (q.age_days)
      j["age_days"] = *q.age_days;
    json.push_back(std::move(j));
  }
  Emit(*ctx.out, o.format, table, json);
  if (rows.empty()) {
    *ctx.err << "price unknown: no price" << (o.instance.empty() ? "" : " for " + o.instance)
             << (o.region.empty() ? "" : " in " + o.region)
             << "; bring real prices with 'gpuplan prices refresh' or 'gpuplan prices import'\n";
  }
}

// ------------------------------------------------------------------------------------------
// gpuplan prices refresh

struct RefreshOptions {
  std::string region;
  std::string types;
  std::string endpoint;
  double timeout_s = 30;
  int retries = 3;
  double backoff_s = 1;
  bool no_subscription = false;
};

void RunRefresh(CliContext& ctx, const RefreshOptions& o) {
  if (!o.endpoint.empty()) {
    if (Result<net::Endpoint> ep = net::ParseEndpoint(o.endpoint); !ep.ok()) {
      return ctx.Fail(ep.status(), true);
    }
  }
  if (o.timeout_s <= 0 || o.retries < 0 || o.backoff_s < 0) {
    return ctx.Fail(Status::InvalidArgument("--timeout must be > 0, --retries and --backoff >= 0"),
                    true);
  }
  Result<Catalog> c = LoadCliCatalog(ctx);
  if (!c.ok())
    return ctx.Fail(c.status());
  net::RefreshRequest req;
  req.region = o.region;
  req.today = CliToday(ctx.env);
  req.subscription = !o.no_subscription;
  for (const std::string& t : SplitList(o.types)) {
    const InstanceType* known = c->FindInstance(t);
    if (!known)
      return ctx.Fail(UnknownInstance(*c, t), true);
    req.types.push_back(known->name);
  }
  std::optional<std::string> config;
  std::string config_path = "~/.aliyun/config.json";
  if (!ctx.env.home.empty()) {
    config_path = ctx.env.home + "/.aliyun/config.json";
    if (Result<std::string> text = io::ReadFile(config_path); text.ok())
      config = *text;
  }
  Result<net::AliyunCredentials> creds =
      net::CredentialsFrom(OrNull(ctx.env.access_key_id), OrNull(ctx.env.access_key_secret),
                           OrNull(ctx.env.security_token), config, config_path);
  if (!creds.ok())
    return ctx.Fail(creds.status());
  // Read the cache first: a corrupt cache is reported, never silently overwritten.
  Result<CliCache> cached = ReadCliCache(ctx);
  if (!cached.ok())
    return ctx.Fail(cached.status());
  const std::string& dir = cached->dir;

  net::ClientOptions options;
  options.endpoint = o.endpoint;
  options.connect_timeout_s = std::min(o.timeout_s, 10.0);
  options.read_timeout_s = o.timeout_s;
  options.max_attempts = 1 + o.retries;
  options.backoff_initial_s = o.backoff_s;
  net::EcsClient client(*creds, o.region, options);
  net::RefreshReport report;
  Result<io::PriceCache> fetched = net::FetchRegion(client, req, *c, &report);
  if (!fetched.ok()) {
    return ctx.Fail(fetched.status().WithContext(
        "refresh of " + o.region + " failed, cache unchanged (" + io::PriceCachePath(dir) + ")"));
  }
  // Fresh API rows for these types replace every older API row of the region (zones that no
  // longer quote a spot price must not linger).
  std::set<std::string> fetched_types;
  for (const Price& p : fetched->prices)
    fetched_types.insert(p.instance);
  // Merged into the cache as it is now (under its lock), not as it was before the fetch, so
  // an import or add that ran meanwhile is kept.
  Status wrote = io::UpdatePriceCache(dir, [&](io::PriceCache* cache) {
    std::erase_if(cache->prices, [&](const Price& p) {
      return p.origin == PriceSource::kApi && p.region == o.region &&
             fetched_types.count(p.instance);
    });
    io::MergePriceCache(*fetched, cache);
    return Status::Ok();
  });
  if (!wrote.ok())
    return ctx.Fail(wrote);
  *ctx.out << fmt::format(
      "refreshed {} as of {} with key {}: {} types priced, {} spot prices, {} stock records, {} "
      "spot-advice records ({} API requests)\nwrote {}\n",
      o.region, req.today, creds->Redacted(), report.types_priced, report.spot_prices,
      report.stock_records, report.advice_records, client.requests_sent(), io::PriceCachePath(dir));
  for (const std::string& w : report.warnings)
    *ctx.err << "gpuplan: warning: " << w << "\n";
}

// ------------------------------------------------------------------------------------------
// gpuplan prices import

struct ImportOptions {
  std::vector<std::string> files;
  std::string instance, region, zone, price_unit = "Hour", as_of;
  int period = 1;
  bool spot = false;
};

void RunImport(CliContext& ctx, const ImportOptions& o) {
  Result<Catalog> c = LoadCliCatalog(ctx);
  if (!c.ok())
    return ctx.Fail(c.status());
  io::ImportContext ictx;
  ictx.as_of = o.as_of.empty() ? CliToday(ctx.env) : o.as_of;
  if (!io::IsRfc3339Date(ictx.as_of)) {
    return ctx.Fail(
        Status::InvalidArgument("--as-of: expected YYYY-MM-DD, got \"" + o.as_of + "\""), true);
  }
  if (!o.instance.empty() && !c->FindInstance(o.instance)) {
    return ctx.Fail(UnknownInstance(*c, o.instance), true);
  }
  ictx.instance = o.instance.empty() ? "" : c->FindInstance(o.instance)->name;
  ictx.region = o.region;
  ictx.zone = o.zone;
  ictx.price_unit = o.price_unit;
  ictx.period = o.period;
  ictx.spot = o.spot;
  // All files or none: one bad file leaves the cache as it was.
  io::PriceCache imported;
  for (const std::string& file : o.files) {
    Result<std::string> text = io::ReadFile(file);
    if (!text.ok())
      return ctx.Fail(text.status());
    Result<io::PriceCache> rows = io::ParseAliyunResponse(*text, file, ictx);
    if (!rows.ok())
      return ctx.Fail(rows.status().WithContext("import failed, cache unchanged"));
    io::MergePriceCache(*rows, &imported);
  }
  int unknown = 0;
  std::set<std::string> unknown_names;
  std::erase_if(imported.prices, [&](Price& p) {
    const InstanceType* t = c->FindInstance(p.instance);
    if (t)
      p.instance = t->name;
    if (!t)
      unknown_names.insert(p.instance);
    return t == nullptr;
  });
  unknown = static_cast<int>(unknown_names.size());
  Result<std::string> dir = CacheDir(ctx);
  if (!dir.ok())
    return ctx.Fail(dir.status());
  // Under the cache's lock, so concurrent imports wait for each other and all rows survive.
  Status wrote = io::UpdatePriceCache(*dir, [&](io::PriceCache* cache) {
    io::MergePriceCache(imported, cache);
    return Status::Ok();
  });
  if (!wrote.ok())
    return ctx.Fail(wrote);
  *ctx.out << fmt::format(
      "imported {} prices, {} stock records, {} spot-advice records from {} file(s) as of {}\n"
      "wrote {}\n",
      imported.prices.size(), imported.market.stock.size(), imported.market.spot_advice.size(),
      o.files.size(), ictx.as_of, io::PriceCachePath(*dir));
  if (unknown > 0) {
    *ctx.err << fmt::format(
        "gpuplan: warning: skipped prices of {} instance type(s) not in the "
        "catalog (e.g. {})\n",
        unknown, *unknown_names.begin());
  }
}

// ------------------------------------------------------------------------------------------
// gpuplan prices compare

struct CompareOptions {
  std::string instance, region, zone;
  double hours = 0;          // --hours: a job of H hours
  double monthly_hours = 0;  // --monthly-hours: a service running H hours a month
  int instances = 1;
  std::optional<double> reclaim_rate, spot_ratio, savings_plan_rate;
  double restart_min = 15;
  double checkpoint_min = 3;
  std::optional<double> checkpoint_interval_h;
  bool checkpoint_on_notice = false;
  bool no_protection = false;
  int savings_plan_years = 1;
  OutputFormat format = OutputFormat::kTable;
};

nlohmann::json QuoteJson(const cost::PriceQuote& q) {
  nlohmann::json j = {{"price", q.price.amount()},
                      {"currency", CurrencyName(q.price.currency())},
                      {"unit", q.unit},
                      {"source", PriceSourceName(q.source)},
                      {"as_of", q.as_of},
                      {"derived", q.derived},
                      {"basis", q.basis},
                      {"trust", q.trust},
                      {"zone", q.zone}};
  return j;
}

// What a comparison is computed from: the type, its rates in the region, the market data and
// the cost options every mode starts from.
struct CompareInputs {
  Catalog catalog;
  const InstanceType* type = nullptr;  // in `catalog`
  cost::PriceRatios ratios;
  cost::Availability availability;
  cost::BillingRates rates;
  cost::CostOptions base;
  std::string reclaim_source;  // where base.spot.reclaim_rate_per_hour came from
};

// Fills `in` from the options; false after reporting the error.
bool LoadCompareInputs(CliContext& ctx, const CompareOptions& o, CompareInputs& in) {
  if ((o.hours > 0) == (o.monthly_hours > 0)) {
    ctx.Fail(Status::InvalidArgument(
                 "give exactly one of --hours H (a job) or --monthly-hours H (a service)"),
             true);
    return false;
  }
  Result<Catalog> c = LoadCliCatalog(ctx);
  if (!c.ok()) {
    ctx.Fail(c.status());
    return false;
  }
  in.catalog = std::move(*c);
  in.type = in.catalog.FindInstance(o.instance);
  if (!in.type) {
    ctx.Fail(UnknownInstance(in.catalog, o.instance), true);
    return false;
  }
  const std::string& name = in.type->name;
  in.ratios = CliPriceRatios();
  const cost::MarketData market = LoadCliMarketData(ctx);
  in.availability = cost::CheckAvailability(in.catalog, market, name, o.region, o.zone);
  Result<cost::BillingRates> rates = cost::ResolveRates(
      in.catalog, {name, o.region, o.zone, Billing::kPayg}, in.ratios, CliToday(ctx.env));
  if (!rates.ok()) {
    ctx.Fail(rates.status().WithContext("cannot compare billing modes (" + in.availability.reason +
                                        ")"));
    return false;
  }
  in.rates = std::move(*rates);
  cost::SpotRisk& spot = in.base.spot;
  spot.reclaim_rate_per_hour =
      o.reclaim_rate ? o.reclaim_rate : cost::ReclaimRatePerHour(market, name, o.region, o.zone);
  spot.restart_hours = o.restart_min / 60;
  spot.checkpoint_hours = o.checkpoint_min / 60;
  spot.checkpoint_interval_hours = o.checkpoint_interval_h;
  spot.checkpoint_on_notice = o.checkpoint_on_notice;
  spot.protection_hour = !o.no_protection;
  spot.spot_ratio = o.spot_ratio;
  in.base.savings_plan_rate = o.savings_plan_rate;
  in.base.savings_plan_years = o.savings_plan_years;
  in.reclaim_source = o.reclaim_rate               ? "--reclaim-rate"
                      : spot.reclaim_rate_per_hour ? "DescribeSpotAdvice (cache)"
                                                   : "unknown";
  return true;
}

// "2024-12-30 (stale)" for a price older than planner::kStalePriceDays.
std::string AsOfText(const cost::PriceQuote& q) {
  return q.as_of + (planner::PriceStale(q) ? " (stale)" : "");
}

std::string SourceText(const cost::PriceQuote& q) {
  return std::string(PriceSourceName(q.source)) + (q.derived ? " (derived)" : "");
}

// The comparison's rows, one per costed billing mode, as a table and as JSON, with each mode's
// modelling notes for the text output.
struct CompareRows {
  io::Table table;
  nlohmann::json modes = nlohmann::json::array();
  std::vector<std::string> notes;
};

// A job's row in `mode`. Reserved instances and savings plans bill the whole term whether used
// or not: their total is the commitment, and the job's share of it is a column of its own.
void AddJobRow(const CompareInputs& in, const CompareOptions& o, Billing mode, CompareRows& rows) {
  cost::CostOptions opt = in.base;
  opt.mode = mode;
  const std::string name(BillingName(mode));
  nlohmann::json j = {{"mode", name}};
  Result<cost::JobCostEstimate> e = cost::JobCost(in.rates, {o.hours, o.instances}, opt, in.ratios);
  if (!e.ok()) {
    rows.table.rows.push_back(
        {name, "unknown", "-", "-", "-", "-", "-", "-", e.status().message()});
    j["error"] = e.status().message();
    rows.modes.push_back(std::move(j));
    return;
  }
  std::string note = e->lower_bound ? "lower bound" : "";
  if (e->checkpoint_interval_hours) {
    note = "checkpoint every " + Num(*e->checkpoint_interval_hours) + " h (Young/Daly)";
  }
  // A term paid up front is the job's total; one billed by the hour is a commitment beyond it.
  const bool term = e->commitment && !BillingModeOf(mode).prepaid;
  if (term)
    note = "the whole term's commitment; the job's hours are its share";
  if (e->price.derived && note.empty())
    note = "derived price";
  if (planner::PriceStale(e->price)) {
    note += std::string(note.empty() ? "" : "; ") + "stale price (" +
            std::to_string(*e->price.age_days) + " days)";
  }
  const Money total = term ? *e->commitment : e->total;
  rows.table.rows.push_back({name, Num(total.amount()), term ? Num(e->total.amount()) : "-",
                             std::string(CurrencyName(e->total.currency())),
                             PriceText(e->rate_per_hour.amount()), Num(e->wall_hours),
                             SourceText(e->price), AsOfText(e->price), note});
  j.update({{"total", total.amount()},
            {"job_share", term ? nlohmann::json(e->total.amount()) : nlohmann::json(nullptr)},
            {"price_stale", planner::PriceStale(e->price)},
            {"currency", CurrencyName(e->total.currency())},
            {"rate_per_hour", e->rate_per_hour.amount()},
            {"wall_hours", e->wall_hours},
            {"billed_instance_hours", e->billed_instance_hours},
            {"lower_bound", e->lower_bound},
            {"expected_interruptions", e->expected_interruptions},
            {"checkpoint_interval_hours", nullptr},
            {"mtbf_hours", nullptr},
            {"interruption_overhead", e->interruption_overhead.amount()},
            {"commitment", nullptr},
            {"price", QuoteJson(e->price)},
            {"notes", e->notes}});
  if (e->checkpoint_interval_hours)
    j["checkpoint_interval_hours"] = *e->checkpoint_interval_hours;
  if (e->mtbf_hours)
    j["mtbf_hours"] = *e->mtbf_hours;
  if (e->commitment)
    j["commitment"] = e->commitment->amount();
  for (const std::string& n : e->notes)
    rows.notes.push_back(name + ": " + n);
  rows.modes.push_back(std::move(j));
}

// A service's row in `mode`: its cost per month.
void AddServiceRow(const CompareInputs& in, const CompareOptions& o, Billing mode,
                   CompareRows& rows) {
  cost::CostOptions opt = in.base;
  opt.mode = mode;
  const std::string name(BillingName(mode));
  nlohmann::json j = {{"mode", name}};
  Result<cost::MonthlyCostEstimate> e =
      cost::MonthlyCost(in.rates, o.monthly_hours, o.instances, opt, in.ratios);
  if (!e.ok()) {
    rows.table.rows.push_back({name, "unknown", "-", "-", "-", "-", "-", e.status().message()});
    j["error"] = e.status().message();
    rows.modes.push_back(std::move(j));
    return;
  }
  rows.table.rows.push_back(
      {name, Num(e->per_month.amount()), std::string(CurrencyName(e->per_month.currency())),
       PriceText(e->price.HourlyPrice(in.ratios).amount()), Num(100 * e->utilisation) + "%",
       SourceText(e->price), AsOfText(e->price), e->notes.empty() ? "" : e->notes.back()});
  j.update({{"per_month", e->per_month.amount()},
            {"price_stale", planner::PriceStale(e->price)},
            {"currency", CurrencyName(e->per_month.currency())},
            {"utilisation", e->utilisation},
            {"price", QuoteJson(e->price)},
            {"notes", e->notes}});
  rows.modes.push_back(std::move(j));
}

CompareRows CompareModes(const CompareInputs& in, const CompareOptions& o) {
  const bool job = o.hours > 0;
  CompareRows rows;
  rows.table.header = {"mode",
                       job ? "total" : "per_month",
                       "currency",
                       "per_hour",
                       job ? "wall_h" : "utilisation",
                       "price_source",
                       "as_of",
                       "note"};
  if (job)
    rows.table.header.insert(rows.table.header.begin() + 2, "job_share");
  for (Billing mode : BillingModes(BillingUse::kCosted)) {
    if (job) {
      AddJobRow(in, o, mode, rows);
    } else {
      AddServiceRow(in, o, mode, rows);
    }
  }
  return rows;
}

nlohmann::json CompareJson(const CompareInputs& in, const CompareOptions& o,
                           const CompareRows& rows, const Result<cost::BreakEven>& be) {
  const cost::Availability& avail = in.availability;
  nlohmann::json out = {
      {"instance", in.type->name},
      {"region", o.region},
      {"zone", o.zone},
      {"instances", o.instances},
      {"currency", CurrencyName(in.rates.currency())},
      {"availability",
       {{"available", avail.available}, {"reason", avail.reason}, {"zones", avail.zones}}},
      {"reclaim_rate_per_hour", nullptr},
      {"reclaim_rate_source", in.reclaim_source},
      {"modes", rows.modes}};
  if (o.hours > 0) {
    out["hours"] = o.hours;
  } else {
    out["monthly_hours"] = o.monthly_hours;
  }
  if (in.base.spot.reclaim_rate_per_hour) {
    out["reclaim_rate_per_hour"] = *in.base.spot.reclaim_rate_per_hour;
  }
  if (be.ok()) {
    out["break_even"] = {{"utilisation", be->utilisation},
                         {"hours_per_month", be->hours_per_month},
                         {"basis", be->basis}};
  }
  return out;
}

// The line above the table: the type, the job or service, and the PAYG price it starts from;
// then any availability warning and the international-site note.
void PrintCompareHeading(std::ostream& out, const CompareInputs& in, const CompareOptions& o) {
  const cost::PriceQuote& payg = in.rates.payg();
  out << fmt::format("{} in {}{}, {} instance(s), {}: PAYG {}/h ({} {}, {})\n", in.type->name,
                     o.region, o.zone.empty() ? "" : " zone " + o.zone, o.instances,
                     o.hours > 0 ? "job of " + Num(o.hours) + " h"
                                 : "service " + Num(o.monthly_hours) + " h/month",
                     payg.price.ToString(), PriceSourceName(payg.source), payg.as_of,
                     payg.age_days ? Num(*payg.age_days) + " days old" : "age unknown");
  if (!in.availability.available)
    out << "warning: " << in.availability.reason << "\n";
  if (Overseas(o.region) && in.rates.currency() == Currency::kCny) {
    out << fmt::format(
        "note: China-site CNY prices; an international-site account in {} pays about USD {}/h "
        "(CNY / {}, ratio F1)\n",
        o.region, PriceText(payg.price.amount() / in.ratios.cny_per_usd_overseas),
        Num(in.ratios.cny_per_usd_overseas));
  }
}

// Below the table: the break-even, the reclaim rate used and each mode's notes.
void PrintCompareNotes(std::ostream& out, const CompareInputs& in, const CompareRows& rows,
                       const Result<cost::BreakEven>& be) {
  if (be.ok()) {
    out << fmt::format(
        "break-even: a monthly subscription beats PAYG above {}% utilisation ({} h of {} h a "
        "month)\n",
        Num(100 * be->utilisation), Num(be->hours_per_month), Num(in.ratios.hours_per_month));
  }
  const std::optional<double>& rate = in.base.spot.reclaim_rate_per_hour;
  out << "spot reclaim rate: "
      << (rate ? Num(*rate) + "/instance-hour (" + in.reclaim_source + ")"
               : "unknown (give --reclaim-rate or refresh DescribeSpotAdvice)")
      << "\n";
  for (const std::string& n : rows.notes)
    out << "  " << n << "\n";
}

void RunCompare(CliContext& ctx, const CompareOptions& o) {
  CompareInputs in;
  if (!LoadCompareInputs(ctx, o, in))
    return;
  const CompareRows rows = CompareModes(in, o);
  const Result<cost::BreakEven> be = cost::SubscriptionBreakEven(in.rates, in.ratios);
  const nlohmann::json out = CompareJson(in, o, rows, be);
  if (o.format == OutputFormat::kJson) {
    *ctx.out << out.dump(2) << "\n";
    return;
  }
  PrintCompareHeading(*ctx.out, in, o);
  Emit(*ctx.out, o.format, rows.table, out);
  if (o.format != OutputFormat::kTable)
    return;
  PrintCompareNotes(*ctx.out, in, rows, be);
}

// ------------------------------------------------------------------------------------------
// gpuplan prices cache

void RunCacheInfo(CliContext& ctx, const OutputFormat& format) {
  Result<CliCache> cached = ReadCliCache(ctx);
  if (!cached.ok())
    return ctx.Fail(cached.status());
  const std::string path = io::PriceCachePath(cached->dir);
  const io::PriceCache& cache = cached->cache;
  std::set<std::string> regions;
  for (const Price& p : cache.prices)
    regions.insert(p.region);
  nlohmann::json j = {{"path", path},
                      {"prices", cache.prices.size()},
                      {"stock", cache.market.stock.size()},
                      {"spot_advice", cache.market.spot_advice.size()},
                      {"regions", regions}};
  if (format == OutputFormat::kJson) {
    *ctx.out << j.dump(2) << "\n";
    return;
  }
  *ctx.out << fmt::format("{}: {} prices, {} stock records, {} spot-advice records; regions: {}\n",
                          path, cache.prices.size(), cache.market.stock.size(),
                          cache.market.spot_advice.size(),
                          regions.empty() ? "none" : fmt::format("{}", fmt::join(regions, ", ")));
}

}  // namespace

std::string CliToday(const CliEnvironment& env) {
  if (io::IsRfc3339Date(env.today))
    return env.today;
  return io::UtcToday();
}

cost::PriceRatios CliPriceRatios() {
  Result<cost::PriceRatios> r = io::LoadPriceRatios();
  // The embedded file is checked by tests; the struct defaults are the same values.
  return r.ok() ? *r : cost::PriceRatios{};
}

void ApplyCliPriceCache(const CliContext& ctx, Catalog* catalog) {
  Result<std::string> dir = CacheDir(ctx);
  if (!dir.ok())
    return;  // no HOME: nothing cached
  Result<io::PriceCache> cache = io::ReadPriceCache(*dir);
  if (!cache.ok()) {
    *ctx.err << "gpuplan: warning: " << cache.status().message()
             << " (using built-in prices only)\n";
    return;
  }
  io::ApplyPriceCache(*cache, catalog);
}

cost::MarketData LoadCliMarketData(const CliContext& ctx) {
  Result<std::string> dir = CacheDir(ctx);
  if (!dir.ok())
    return {};
  Result<io::PriceCache> cache = io::ReadPriceCache(*dir);
  if (!cache.ok()) {
    *ctx.err << "gpuplan: warning: " << cache.status().message() << "\n";
    return {};
  }
  return cache->market;
}

Result<std::string> CliPriceCacheDir(const CliEnvironment& env) {
  return io::PriceCacheDir(OrNull(env.xdg_cache_home), OrNull(env.home));
}

namespace {

// Adds the subcommand `name` of `parent`, whose callback runs `run` with the options its flags
// fill; returns the subcommand and those options.
template <typename Options>
std::pair<CLI::App*, Options*> AddRunner(CLI::App* parent, CliContext& ctx, const char* name,
                                         const std::string& about,
                                         void (*run)(CliContext&, const Options&)) {
  auto options = std::make_shared<Options>();
  CLI::App* sub = parent->add_subcommand(name, about);
  sub->callback([&ctx, options, run] { run(ctx, *options); });
  return {sub, options.get()};
}

void AddRefreshCommand(CLI::App* cmd, CliContext& ctx) {
  auto [r, refresh] = AddRunner<RefreshOptions>(
      cmd, ctx, "refresh",
      "Fetch live prices (DescribePrice, DescribeSpotPriceHistory), stock "
      "(DescribeAvailableResource) and spot advice (DescribeSpotAdvice) for one region into "
      "the cache ($XDG_CACHE_HOME/gpuplan/prices.json). Credentials: "
      "ALIBABA_CLOUD_ACCESS_KEY_ID/_SECRET or ~/.aliyun/config.json. A failed refresh leaves "
      "the cache unchanged and exits 1",
      RunRefresh);
  r->add_option("--region", refresh->region, "Region to refresh, e.g. cn-hangzhou")->required();
  r->add_option("--types", refresh->types,
                "Comma-separated instance types (default: every catalog type the region offers)");
  r->add_option("--endpoint", refresh->endpoint,
                "API endpoint URL (default https://ecs.REGION.aliyuncs.com); plain http only "
                "for loopback addresses");
  r->add_option("--timeout", refresh->timeout_s, "Seconds to wait for each response (default 30)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  r->add_option("--retries", refresh->retries,
                "Retries after throttling, 5xx or network errors (default 3)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  r->add_option("--backoff", refresh->backoff_s,
                "First retry delay in seconds, doubled per retry (default 1)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  r->add_flag("--no-subscription", refresh->no_subscription,
              "Skip the 1-month and 1-year DescribePrice quotes");
}

void AddImportCommand(CLI::App* cmd, CliContext& ctx) {
  auto [i, imp] = AddRunner<ImportOptions>(
      cmd, ctx, "import",
      "Import aliyun CLI JSON output of DescribePrice, DescribeSpotPriceHistory, "
      "DescribeAvailableResource or DescribeSpotAdvice into the cache (all files or none)",
      RunImport);
  i->add_option("files", imp->files, "JSON files (one response, or a list of responses each)")
      ->required()
      ->check(CLI::ExistingFile);
  i->add_option("--instance", imp->instance, "Instance type of DescribePrice responses");
  i->add_option("--region", imp->region, "Region of DescribePrice responses");
  i->add_option("--zone", imp->zone, "Zone of DescribePrice responses (optional)");
  i->add_option("--price-unit", imp->price_unit,
                "PriceUnit of DescribePrice responses: Hour (default), Month or Year")
      ->check(CLI::IsMember({"Hour", "Month", "Year"}));
  i->add_option("--period", imp->period, "Period of DescribePrice responses (default 1)")
      ->check(CLI::Range(1, 60));
  i->add_flag("--spot", imp->spot, "DescribePrice responses are spot quotes (SpotStrategy)");
  i->add_option("--as-of", imp->as_of,
                "Date of the data, YYYY-MM-DD (default today; spot history uses its timestamps)");
}

void AddCompareCommand(CLI::App* cmd, CliContext& ctx) {
  auto [c, cmp] = AddRunner<CompareOptions>(
      cmd, ctx, "compare",
      "Compare the billing modes (" + BillingChoices(BillingUse::kCosted) +
          ") for a job of --hours H or a service running --monthly-hours H, with the "
          "subscription break-even",
      RunCompare);
  c->add_option("--instance", cmp->instance, "Instance type")->required();
  c->add_option("--region", cmp->region, "Region")->required();
  c->add_option("--zone", cmp->zone, "Zone (spot prices and stock differ by zone)");
  c->add_option("--hours", cmp->hours, "A job of H hours (uninterrupted wall time)")
      ->check(CLI::NonNegativeNumber);
  c->add_option("--monthly-hours", cmp->monthly_hours, "A service running H hours a month")
      ->check(CLI::Range(0.0, 744.0));
  c->add_option("--instances", cmp->instances, "Instances used together (default 1)")
      ->check(CLI::Range(1, 10000));
  c->add_option("--reclaim-rate", cmp->reclaim_rate,
                "Spot reclaims per instance-hour (default: DescribeSpotAdvice from the cache)")
      ->check(CLI::Range(0.0, 10.0));
  c->add_option("--restart-min", cmp->restart_min,
                "Minutes to get a new instance and resume after a reclaim (default 15)")
      ->check(CLI::Range(0.0, 1440.0));
  c->add_option("--checkpoint-min", cmp->checkpoint_min,
                "Minutes to write one checkpoint (default 3)")
      ->check(CLI::Range(0.0, 1440.0));
  c->add_option("--checkpoint-every", cmp->checkpoint_interval_h,
                "Fixed checkpoint interval in hours (default: Young/Daly optimum)")
      ->check(CLI::PositiveNumber);
  c->add_flag("--checkpoint-on-notice", cmp->checkpoint_on_notice,
              "Checkpoint on the 5-minute reclaim notice (when a checkpoint fits in it)");
  c->add_flag("--no-protection", cmp->no_protection,
              "Spot without the 1-hour protection period (SpotDuration=0)");
  c->add_option("--spot-ratio", cmp->spot_ratio,
                "Spot price as a share of PAYG for a scenario (0.15, 0.25, 0.35 ...)")
      ->check(CLI::Range(0.0, 1.0));
  c->add_option("--savings-plan-rate", cmp->savings_plan_rate,
                "Savings plan price per PAYG unit you were quoted (0.6 = 40% off)")
      ->check(CLI::Range(0.01, 1.0));
  c->add_option("--savings-plan-years", cmp->savings_plan_years, "1 or 3 (default 1)")
      ->check(CLI::IsMember({1, 3}));
  AddFormatFlags(c, &cmp->format, /*csv=*/true);
}

}  // namespace

void AddPricesCommand(CLI::App& app, CliContext& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "prices",
      "Show prices with their source (user > api > import > builtin) and age; refresh them from "
      "the "
      "Alibaba Cloud API, import aliyun CLI JSON, add one you know, compare billing modes");
  auto list = std::make_shared<ListOptions>();
  cmd->add_option("--instance", list->instance, "Instance type, e.g. ecs.gn7i-c8g1.2xlarge");
  cmd->add_option("--region", list->region, "Region, e.g. cn-hangzhou");
  cmd->add_option("--billing", list->billing,
                  "Only this billing mode: " + BillingChoices(BillingUse::kPriceRow));
  AddFormatFlags(cmd, &list->format);
  cmd->callback([&ctx, cmd, list] {
    if (!cmd->get_subcommands().empty())
      return;
    RunList(ctx, *list);
  });
  AddRefreshCommand(cmd, ctx);
  AddImportCommand(cmd, ctx);
  AddCompareCommand(cmd, ctx);
  AddPricesAddCommand(cmd, ctx);
  auto [k, cache_format] = AddRunner<OutputFormat>(
      cmd, ctx, "cache", "Show where the price cache is and what it holds", RunCacheInfo);
  AddFormatFlags(k, cache_format, /*csv=*/false);
}

}  // namespace gpuplan::cli
