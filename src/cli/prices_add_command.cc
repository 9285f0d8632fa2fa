// `gpuplan prices add TYPE AMOUNT --region R --billing MODE [--currency]
// [--unit] [--zone] [--note]`: a price the user knows (their quote, their bill) stored in the
// price cache with source "user" and today's date, so plans can rank a type gpuplan has no
// price for.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <regex>

#include "cli/commands.h"
#include "gpuplan/cost.h"
#include "gpuplan/strings.h"
#include "io/price_cache.h"
#include "io/text_check.h"

namespace gpuplan::cli {
namespace {

struct AddOptions {
  std::string instance;
  double amount = 0;
  std::string region, zone, billing, currency = "CNY", unit, note;
};

Status Usage(const std::string& msg) { return Status::InvalidArgument(msg); }

// The price row the options describe, or why they do not describe one.
Result<Price> PriceFromOptions(const AddOptions& o, const Catalog& catalog,
                               const std::string& today) {
  const InstanceType* t = catalog.FindInstance(o.instance);
  if (!t) {
    std::vector<std::string> near = catalog.SuggestInstances(o.instance);
    return Status::NotFound(
        fmt::format("unknown instance type \"{}\"{}", o.instance,
                    near.empty() ? "" : fmt::format("; did you mean {}?", fmt::join(near, ", "))));
  }
  if (!(o.amount > 0) || o.amount > 1e8) {
    return Usage(fmt::format("AMOUNT: expected a price above 0 and at most 1e8, got {}",
                             strings::Num(o.amount)));
  }
  // Region ids are lowercase words joined by hyphens ("cn-hangzhou", "ap-southeast-1").
  static const std::regex kRegionId("[a-z]{2,}(-[a-z0-9]+)+");
  if (!std::regex_match(o.region, kRegionId)) {
    return Usage(fmt::format(
        "--region: expected a region id like cn-hangzhou or ap-southeast-1, got \"{}\"", o.region));
  }
  if (!o.zone.empty() && o.zone.rfind(o.region + "-", 0) != 0) {
    return Usage(fmt::format("--zone: expected a zone of {} (like {}-a), got \"{}\"", o.region,
                             o.region, o.zone));
  }
  if (std::optional<std::string> why = io::TextProblem(o.note))
    return Usage("--note: " + *why + "; expected UTF-8 text");
  Price p;
  p.instance = t->name;
  p.region = o.region;
  p.zone = o.zone;
  // Any mode with a price of its own, per the unit of its row in the billing table.
  const std::optional<Billing> billing = ParseBilling(o.billing, BillingUse::kPriceRow);
  if (!billing) {
    return Usage(fmt::format("--billing: expected {}, got \"{}\"",
                             BillingChoices(BillingUse::kPriceRow), o.billing));
  }
  p.billing = *billing;
  const std::string_view unit = BillingModeOf(*billing).unit;
  p.unit = o.unit.empty() ? std::string(unit) : o.unit;
  if (p.unit != unit) {
    return Usage(fmt::format("--unit: {} prices are per instance-{} (--unit {}), got \"{}\"",
                             o.billing, unit, unit, o.unit));
  }
  if (!ParseCurrency(o.currency))
    return Usage(fmt::format("--currency: expected CNY or USD, got \"{}\"", o.currency));
  p.currency = std::string(CurrencyName(*ParseCurrency(o.currency)));
  p.amount = o.amount;
  p.as_of = today;
  p.trust = "high";  // the user's own price: what they pay
  p.origin = PriceSource::kUser;
  p.notes = o.note.empty() ? "entered with 'gpuplan prices add'" : o.note;
  p.provenance.basis = "user";
  p.provenance.source = "user";
  p.provenance.as_of = today;
  return p;
}

void RunAdd(CliContext& ctx, const AddOptions& o) {
  Result<Catalog> catalog = LoadCliCatalog(ctx);
  if (!catalog.ok())
    return ctx.Fail(catalog.status());
  Result<Price> price = PriceFromOptions(o, *catalog, CliToday(ctx.env));
  if (!price.ok())
    return ctx.Fail(price.status(), /*usage=*/true);
  Result<std::string> dir = CliPriceCacheDir(ctx.env);
  if (!dir.ok())
    return ctx.Fail(dir.status());
  io::PriceCache update;
  update.prices.push_back(*price);
  // Under the cache's lock: a concurrent add or import waits instead of losing this row.
  Status wrote = io::UpdatePriceCache(*dir, [&](io::PriceCache* cache) {
    io::MergePriceCache(update, cache);
    return Status::Ok();
  });
  if (!wrote.ok())
    return ctx.Fail(wrote);
  *ctx.out << fmt::format("added {} {} {}{}: {} {} per {} (source user, as of {})\nwrote {}\n",
                          price->instance, BillingName(price->billing), price->region,
                          price->zone.empty() ? "" : " " + price->zone, price->currency,
                          strings::Num(price->amount), price->unit, price->as_of,
                          io::PriceCachePath(*dir));
}

}  // namespace

void AddPricesAddCommand(CLI::App* prices, CliContext& ctx) {
  auto o = std::make_shared<AddOptions>();
  CLI::App* a =
      prices->add_subcommand("add",
                             "Store a price you know (a quote, your bill) in the price cache with "
                             "source 'user' and today's date; "
                             "it ranks above every other source for that type, region and billing");
  a->add_option("type", o->instance, "Instance type, e.g. ecs.gn8is.2xlarge")->required();
  a->add_option("amount", o->amount, "Price per --unit, in --currency")->required();
  a->add_option("--region", o->region, "Region, e.g. cn-hangzhou")->required();
  a->add_option("--billing", o->billing, BillingChoices(BillingUse::kPriceRow))->required();
  a->add_option("--currency", o->currency, "CNY (default) or USD");
  a->add_option("--unit", o->unit,
                "The mode's unit, its default: hour (payg, spot, reserved), month "
                "(subscription_month) or year (subscription_year)");
  a->add_option("--zone", o->zone, "Zone, when the price is for one zone (spot)");
  a->add_option("--note", o->note, "Where the price comes from (kept with it)");
  a->callback([&ctx, o] { RunAdd(ctx, *o); });
}

}  // namespace gpuplan::cli
