// Job and service cost per billing mode, the subscription break-even and storage cost
// (include/gpuplan/cost.h).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>
#include <vector>

#include "gpuplan/cost.h"
#include "gpuplan/strings.h"

namespace gpuplan::cost {
namespace {

using strings::Num;

// Alibaba sends the reclaim event 5 minutes before release (reference 3.2; S10, S12).
constexpr double kReclaimNoticeHours = 5.0 / 60.0;
// SpotDuration=1 protects an instance from reclaim for its first hour (reference 3.2; S10).
constexpr double kProtectionHours = 1.0;
// Beyond this share of wall time lost to interruptions the first-order model is meaningless and
// the job effectively never finishes; we refuse rather than print a huge number.
constexpr double kMaxLostShare = 0.9;

Status CheckJob(const JobSpec& job) {
  if (!(job.work_hours > 0) || !std::isfinite(job.work_hours)) {
    return Status::InvalidArgument("job hours must be a positive number, got " +
                                   Num(job.work_hours));
  }
  if (job.instances < 1) {
    return Status::InvalidArgument("instances must be at least 1, got " +
                                   std::to_string(job.instances));
  }
  return Status::Ok();
}

// The spot hourly price to use: an explicit scenario ratio wins over the resolved price. Says
// why in `notes` (null: no notes).
PriceQuote SpotPrice(const BillingRates& rates, const SpotRisk& risk, const PriceRatios& ratios,
                     std::vector<std::string>* notes) {
  PriceQuote q = rates.Of(Billing::kSpot);
  if (risk.spot_ratio) {
    double ratio = std::min(*risk.spot_ratio, 1.0);
    if (ratio < ratios.spot_floor) {
      if (notes != nullptr)
        notes->push_back("spot ratio " + Num(*risk.spot_ratio) +
                         " raised to the documented floor " + Num(ratios.spot_floor) + " x PAYG");
      ratio = ratios.spot_floor;
    }
    q.price = rates.payg().price * ratio;
    q.derived = true;
    q.trust = "low";
    q.basis = Num(ratio) + " x PAYG (spot scenario given by the caller)";
  }
  return q;
}

}  // namespace

double YoungDalyInterval(double checkpoint_cost, double mtbf) {
  // Young (1974) first-order optimum; Daly (2006) shows it is the leading term of the exact one.
  return std::sqrt(2 * checkpoint_cost * mtbf);
}

std::optional<double> InterruptedWallHours(double work, double checkpoint_share,
                                           double lost_per_stop, double mtbf) {
  const double lost_share = lost_per_stop / mtbf;
  if (lost_share >= kMaxLostShare)
    return std::nullopt;
  return work * (1 + checkpoint_share) / (1 - lost_share);
}

namespace {

// Adds the note `make` writes, when the caller wants reasons (CostOptions::explain).
template <typename Make>
void Note(JobCostEstimate& e, bool explain, Make&& make) {
  if (explain)
    e.notes.push_back(make());
}

// The error for a mode the cost model does not price (BillingMode::costed is false).
Status NotCosted(Billing mode) {
  return Status::Unsupported(std::string(BillingName(mode)) +
                             " is not costed: " + std::string(BillingModeOf(mode).summary));
}

void PaygJob(const BillingRates& rates, double w, double n, bool explain, JobCostEstimate& e) {
  e.price = rates.payg();
  e.rate_per_hour = e.price.price;
  e.billed_instance_hours = w * n;
  e.total = e.rate_per_hour * (w * n);
  Note(e, explain, [&] {
    return std::string("pay-as-you-go, billed per second: " + e.rate_per_hour.ToString() + "/h x " +
                       Num(w) + " h x " + Num(n) + " instances");
  });
}

// The checkpoint interval and the work lost per reclaim under `risk` for a job whose whole
// fleet has `mtbf` hours between reclaims; notes say how each was chosen.
struct SpotLoss {
  double lost_per_failure = 0;  // hours
  double checkpoint_share = 0;  // checkpoint time per hour of work
};
Result<SpotLoss> SpotLossPerReclaim(const SpotRisk& risk, double w, double mtbf, bool explain,
                                    JobCostEstimate& e) {
  const double c = risk.checkpoint_hours;
  const double r = risk.restart_hours;
  SpotLoss loss;
  if (risk.checkpoint_on_notice && c <= kReclaimNoticeHours) {
    // The checkpoint fits in the 5-minute notice: a reclaim costs the checkpoint and the
    // restart, never rework, so no periodic checkpoints are needed.
    loss.lost_per_failure = c + r;
    Note(e, explain, [&] {
      return std::string("checkpoint on the 5-minute reclaim notice (" + Num(c * 60) +
                         " min fits): each reclaim loses " + Num(loss.lost_per_failure * 60) +
                         " min, no rework");
    });
    return loss;
  }
  if (risk.checkpoint_on_notice) {
    Note(e, explain, [&] {
      return std::string("a checkpoint takes " + Num(c * 60) +
                         " min, longer than the 5-minute notice: periodic checkpoints used");
    });
  }
  double tau = risk.checkpoint_interval_hours ? *risk.checkpoint_interval_hours
                                              : (c > 0 ? YoungDalyInterval(c, mtbf) : w);
  if (!(tau > 0))
    return Status::InvalidArgument("checkpoint interval must be > 0");
  tau = std::min(tau, w);
  e.checkpoint_interval_hours = tau;
  // First order (Young 1974, Daly 2006): a failure loses the restart plus on average half an
  // interval of work; each interval pays one checkpoint.
  loss.lost_per_failure = r + tau / 2;
  loss.checkpoint_share = c / tau;
  Note(e, explain, [&] {
    return std::string(std::string(risk.checkpoint_interval_hours ? "fixed" : "Young/Daly") +
                       " checkpoint interval " + Num(tau) + " h = sqrt(2 x " + Num(c) +
                       " h checkpoint x " + Num(mtbf) + " h MTBF)" +
                       (risk.checkpoint_interval_hours
                            ? " would be " + Num(c > 0 ? YoungDalyInterval(c, mtbf) : w) + " h"
                            : ""));
  });
  return loss;
}

// The expected wall time of `w` hours of work on `n` spot instances reclaimed at `rate` per
// instance-hour (> 0).
Result<double> SpotWallHours(const SpotRisk& risk, double rate, double w, double n, bool explain,
                             JobCostEstimate& e) {
  // A reclaim of any instance stops a synchronous job, so the job's rate is n times one
  // instance's. With 1-hour protection each fresh start is safe for its first hour.
  const double mtbf = 1.0 / (rate * n) + (risk.protection_hour ? kProtectionHours : 0.0);
  e.mtbf_hours = mtbf;
  Result<SpotLoss> loss = SpotLossPerReclaim(risk, w, mtbf, explain, e);
  if (!loss.ok())
    return loss.status();
  const std::optional<double> hours =
      InterruptedWallHours(w, loss->checkpoint_share, loss->lost_per_failure, mtbf);
  if (!hours) {
    return Status::Unsupported(
        "spot cannot finish: each reclaim loses " + Num(loss->lost_per_failure) +
        " h but reclaims come every " + Num(mtbf) + " h on " + Num(n) +
        " instances; use fewer instances, faster checkpoints or another billing mode");
  }
  const double wall = *hours;
  e.expected_interruptions = wall / mtbf;
  Note(e, explain, [&] {
    return std::string("reclaim rate " + Num(rate) + "/instance-hour x " + Num(n) +
                       " instances, MTBF " + Num(mtbf) + " h" +
                       (risk.protection_hour ? " (incl. 1 h protection)" : "") + ": expected " +
                       Num(e.expected_interruptions) + " interruptions, wall time " + Num(wall) +
                       " h for " + Num(w) + " h of work");
  });
  return wall;
}

Status SpotJob(const BillingRates& rates, const SpotRisk& risk, const PriceRatios& ratios, double w,
               double n, bool explain, JobCostEstimate& e) {
  e.price = SpotPrice(rates, risk, ratios, explain ? &e.notes : nullptr);
  e.rate_per_hour = e.price.price;
  Note(e, explain, [&] {
    return std::string("spot at " + e.rate_per_hour.ToString() + "/h (" + e.price.basis +
                       "), capped at PAYG " + rates.payg().price.ToString() + "/h");
  });
  double wall = w;
  if (!risk.reclaim_rate_per_hour) {
    e.lower_bound = true;
    Note(e, explain, [&] {
      return std::string(
          "reclaim rate unknown: interruption overhead not included, so this is "
          "a lower bound (refresh DescribeSpotAdvice or give a reclaim rate)");
    });
  } else if (*risk.reclaim_rate_per_hour < 0 || risk.restart_hours < 0 ||
             risk.checkpoint_hours < 0) {
    return Status::InvalidArgument("reclaim rate, restart and checkpoint hours must be >= 0");
  } else if (*risk.reclaim_rate_per_hour > 0) {
    Result<double> hours = SpotWallHours(risk, *risk.reclaim_rate_per_hour, w, n, explain, e);
    if (!hours.ok())
      return hours.status();
    wall = *hours;
  } else {
    Note(e, explain, [&] { return std::string("reclaim rate 0: no interruption overhead"); });
  }
  e.wall_hours = wall;
  e.billed_instance_hours = wall * n;
  e.total = e.rate_per_hour * (wall * n);
  e.interruption_overhead = e.rate_per_hour * ((wall - w) * n);
  return Status::Ok();
}

// Whole terms (months or years) per instance, paid up front: the whole term is the total.
void SubscriptionJob(const BillingRates& rates, Billing mode, const PriceRatios& ratios, double w,
                     double n, bool explain, JobCostEstimate& e) {
  const bool month = mode == Billing::kSubscriptionMonth;
  e.price = rates.Of(mode);
  const double term_hours = BillingModeOf(mode).term_months * ratios.hours_per_month;
  const double terms = std::ceil(w / term_hours - 1e-9);
  e.rate_per_hour = e.price.price / term_hours;
  e.billed_instance_hours = terms * term_hours * n;
  e.total = e.price.price * (terms * n);
  e.commitment = e.total;
  Note(e, explain, [&] {
    return std::string(std::string("subscription paid up front: ") + Num(terms) +
                       (month ? " month(s)" : " year(s)") + " x " + Num(n) + " instances x " +
                       e.price.price.ToString() + " (" + e.price.basis + "); used " +
                       Num(100 * w / (terms * term_hours)) + "% of the term");
  });
}

void ReservedJob(const BillingRates& rates, const PriceRatios& ratios, double w, double n,
                 bool explain, JobCostEstimate& e) {
  const BillingMode& ri = BillingModeOf(Billing::kReservedNoUpfront);
  e.price = rates.Of(ri.billing);
  e.rate_per_hour = e.price.price;
  e.billed_instance_hours = w * n;
  e.total = e.rate_per_hour * (w * n);
  e.commitment = e.rate_per_hour * (ri.term_months * ratios.hours_per_month * n);
  Note(e, explain, [&] {
    return std::string("reserved instance, No Upfront, 1-year term: " + e.rate_per_hour.ToString() +
                       "/h (" + e.price.basis +
                       ") for every hour of the term, used or not: " + e.commitment->ToString());
  });
}

Status SavingsPlanJob(const BillingRates& rates, const CostOptions& options,
                      const PriceRatios& ratios, double w, double n, JobCostEstimate& e) {
  const bool explain = options.explain;
  if (!options.savings_plan_rate) {
    return Status::InvalidArgument(
        "savings plan rate unknown: no GPU savings-plan discount is documented (reference "
        "3.3: 'up to 76%' off); give the rate you were quoted, e.g. 0.6 for 40% off");
  }
  const double d = *options.savings_plan_rate;
  if (!(d > 0 && d <= 1)) {
    return Status::InvalidArgument("savings plan rate must be in (0, 1], got " + Num(d));
  }
  if (options.savings_plan_years != 1 && options.savings_plan_years != 3) {
    return Status::InvalidArgument("savings plan term must be 1 or 3 years");
  }
  e.price = rates.Of(Billing::kSavingsPlan);
  e.rate_per_hour = rates.payg().price * d;
  e.billed_instance_hours = w * n;
  e.total = e.rate_per_hour * (w * n);
  e.commitment = e.rate_per_hour * (n * 12 * ratios.hours_per_month * options.savings_plan_years);
  Note(e, explain, [&] {
    return std::string("savings plan covering " + Num(n) + " instances at " + Num(d) +
                       " x PAYG; the commitment is charged every hour of the " +
                       std::to_string(options.savings_plan_years) +
                       "-year term: " + e.commitment->ToString() + " (spot is never covered)");
  });
  return Status::Ok();
}

}  // namespace

Result<JobCostEstimate> JobCost(const BillingRates& rates, const JobSpec& job,
                                const CostOptions& options, const PriceRatios& ratios) {
  if (Status s = CheckJob(job); !s.ok())
    return s;
  const double w = job.work_hours;
  const double n = job.instances;
  JobCostEstimate e;
  e.mode = options.mode;
  e.wall_hours = w;
  e.interruption_overhead = rates.payg().price * 0.0;
  Status s;
  switch (options.mode) {
    case Billing::kPayg:
      PaygJob(rates, w, n, options.explain, e);
      break;
    case Billing::kSpot:
      s = SpotJob(rates, options.spot, ratios, w, n, options.explain, e);
      break;
    case Billing::kSubscriptionMonth:
    case Billing::kSubscriptionYear:
      SubscriptionJob(rates, options.mode, ratios, w, n, options.explain, e);
      break;
    case Billing::kReservedNoUpfront:
      ReservedJob(rates, ratios, w, n, options.explain, e);
      break;
    case Billing::kSavingsPlan:
      s = SavingsPlanJob(rates, options, ratios, w, n, e);
      break;
    case Billing::kReservedPartialUpfront:
      s = NotCosted(options.mode);
      break;
  }
  if (!s.ok())
    return s;
  return e;
}

Result<MonthlyCostEstimate> MonthlyCost(const BillingRates& rates, double hours_per_month,
                                        int instances, const CostOptions& options,
                                        const PriceRatios& ratios) {
  const double hpm = ratios.hours_per_month;
  if (!(hours_per_month >= 0) || hours_per_month > hpm + 1e-9) {
    return Status::InvalidArgument("hours per month must be between 0 and " + Num(hpm) + ", got " +
                                   Num(hours_per_month));
  }
  if (instances < 1)
    return Status::InvalidArgument("instances must be at least 1");
  const double n = instances;
  const double h = hours_per_month;
  MonthlyCostEstimate e;
  e.mode = options.mode;
  e.utilisation = h / hpm;
  const Money payg = rates.payg().price;
  switch (options.mode) {
    case Billing::kPayg:
      e.price = rates.payg();
      e.per_month = payg * (h * n);
      e.notes.push_back(payg.ToString() + "/h x " + Num(h) + " h x " + Num(n));
      break;
    case Billing::kSpot: {
      e.price = SpotPrice(rates, options.spot, ratios, &e.notes);
      e.per_month = e.price.price * (h * n);
      if (options.spot.reclaim_rate_per_hour) {
        e.notes.push_back(
            "expected reclaims a month: " + Num(*options.spot.reclaim_rate_per_hour * h * n) +
            " (each one is downtime for a service)");
      } else {
        e.notes.push_back("reclaim rate unknown: downtime from reclaims not estimated");
      }
      break;
    }
    case Billing::kSubscriptionMonth:
      e.price = rates.Of(Billing::kSubscriptionMonth);
      e.per_month = rates.Of(Billing::kSubscriptionMonth).price * n;
      e.notes.push_back("monthly subscription, whatever the use (" + e.price.basis + ")");
      break;
    case Billing::kSubscriptionYear:
      e.price = rates.Of(Billing::kSubscriptionYear);
      e.per_month = rates.Of(Billing::kSubscriptionYear).price * (n / 12);
      e.notes.push_back("yearly subscription / 12 (" + e.price.basis + ")");
      break;
    case Billing::kReservedNoUpfront:
      e.price = rates.Of(Billing::kReservedNoUpfront);
      e.per_month = rates.Of(Billing::kReservedNoUpfront).price * (hpm * n);
      e.notes.push_back("RI fee for every hour of the month (" + e.price.basis + ")");
      break;
    case Billing::kReservedPartialUpfront:
      return NotCosted(options.mode);
    case Billing::kSavingsPlan: {
      if (!options.savings_plan_rate || !(*options.savings_plan_rate > 0) ||
          *options.savings_plan_rate > 1) {
        return Status::InvalidArgument(
            "savings plan rate unknown or out of (0, 1]: no GPU savings-plan discount is "
            "documented; give the rate you were quoted");
      }
      const double d = *options.savings_plan_rate;
      e.price = rates.payg();
      // The commitment is charged every hour; covering the full fleet pays off only when the
      // utilisation exceeds d (cost d x PAYG x 730 h vs PAYG x h); otherwise commit nothing.
      const Money committed = payg * (d * hpm * n);
      const Money on_demand = payg * (h * n);
      if (committed.amount() < on_demand.amount()) {
        e.per_month = committed;
        e.notes.push_back("commit " + (payg * (d * n)).ToString() + "/h for all " + Num(hpm) +
                          " h: cheaper than PAYG above " + Num(100 * d) + "% utilisation");
      } else {
        e.per_month = on_demand;
        e.notes.push_back("below " + Num(100 * d) +
                          "% utilisation a savings plan does not pay off: PAYG");
      }
      break;
    }
  }
  return e;
}

Result<BreakEven> SubscriptionBreakEven(const BillingRates& rates, const PriceRatios& ratios) {
  Result<double> per_hour = rates.Of(Billing::kSubscriptionMonth).price.Ratio(rates.payg().price);
  if (!per_hour.ok())
    return per_hour.status();
  BreakEven b;
  b.hours_per_month = *per_hour;
  b.utilisation = b.hours_per_month / ratios.hours_per_month;
  b.basis = "monthly subscription " + rates.Of(Billing::kSubscriptionMonth).price.ToString() +
            " / PAYG " + rates.payg().price.ToString() + "/h = " + Num(b.hours_per_month) +
            " h of " + Num(ratios.hours_per_month) + " h (" +
            rates.Of(Billing::kSubscriptionMonth).basis + ")";
  return b;
}

// ---------------------------------------------------------------------------------------------
// Storage.

Result<StorageCostEstimate> StorageCost(const std::vector<StorageClass>& storage, StorageKind kind,
                                        double size_gib, double hours) {
  if (!(size_gib > 0) || !(hours >= 0)) {
    return Status::InvalidArgument("storage size must be > 0 GiB and hours >= 0");
  }
  const std::string name(StorageKindName(kind));
  const StorageClass* row = FindStorage(storage, name);
  // The capacities the kind is sold in (its storage.csv row).
  if (row &&
      ((row->min_gib && size_gib < *row->min_gib) || (row->max_gib && size_gib > *row->max_gib))) {
    return Status::InvalidArgument(name + " disks hold " + Num(row->min_gib.value_or(0)) + "-" +
                                   (row->max_gib ? Num(*row->max_gib) : std::string("any")) +
                                   " GiB, got " + Num(size_gib));
  }
  StorageCostEstimate e;
  e.kind = kind;
  if (kind == StorageKind::kLocalNvme) {
    // Local NVMe comes with the instance type; C1 prices are per instance (reference 1.2).
    e.total = Money::Cny(0);
    e.reason = "included in the instance price (local disks come with the instance type)";
  } else if (row && row->price_per_gib_hour && row->price_currency == "CNY") {
    e.total = Money::Cny(*row->price_per_gib_hour * size_gib * hours);
    // The price as its source writes it (0.0021), not rounded to two decimals like Num.
    char price[32];
    const auto [end, ec] = std::to_chars(price, price + sizeof price, *row->price_per_gib_hour);
    e.reason = "CNY " + std::string(price, ec == std::errc() ? end : price) + "/GiB-h (" +
               row->price_notes + "; " + row->price_provenance.source + ", " +
               row->price_provenance.as_of + ")";
  } else {
    e.reason = "price unknown: the reference data has no " + name +
               " price; query DescribePrice (ResourceType=disk) or the product's price page";
  }
  return e;
}

}  // namespace gpuplan::cost
