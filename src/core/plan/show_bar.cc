#include "plan/show_bar.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "gpuplan/strings.h"

namespace gpuplan::planner {
bool RanksByTime(const Workload& w) {
  return w.objective == Objective::kTime || w.objective == Objective::kTimeWithinBudget;
}

bool RanksBefore(const Workload& w, const Candidate& a, const Candidate& b) {
  const bool time_first = RanksByTime(w);
  const double ta = a.job_hours, tb = b.job_hours;
  const double ma = a.cost.total.amount(), mb = b.cost.total.amount();
  // Under a cost objective the unpriced follow the priced, in their own group.
  if (!time_first && a.price_known != b.price_known)
    return a.price_known;
  if (a.score != b.score)
    return a.score < b.score;
  if (a.price_known != b.price_known)
    return a.price_known;
  if (time_first ? ma != mb : ta != tb)
    return time_first ? ma < mb : ta < tb;
  // Equal on both measures, as unpriced services are (a month is 730 h on every type): a type
  // one can rent today before an invitational preview, then the fewer GPU-hours, the nearest
  // proxy of the unknown cost; the name only settles what is left.
  if (a.preview != b.preview)
    return b.preview;
  if (a.gpus * ta != b.gpus * tb)
    return a.gpus * ta < b.gpus * tb;
  return std::tie(a.instance, a.nodes) < std::tie(b.instance, b.nodes);
}

namespace {

std::string Percent(double more, double base) {
  if (!(base > 0))
    return "";
  const double percent = more / base * 100;
  return percent < 0.01 ? " (+<0.01%)" : " (+" + strings::Num(percent) + "%)";
}

// "CNY 1234.5" in the candidate's currency; for a service, per month.
std::string MoneyText(const Candidate& c, double amount) {
  return std::string(CurrencyName(c.cost.total.currency())) + " " + strings::Num(amount) +
         (c.monthly ? "/month" : "");
}

}  // namespace

std::string WhyRanksBelow(const Workload& w, const Candidate& pick, const Candidate& other) {
  if (!RanksBefore(w, pick, other))
    return "";
  const bool by_time = RanksByTime(w);
  const std::string at =
      pick.ranges && other.ranges
          ? " at p" + std::to_string(std::lround(w.confidence * 100)) + " (--confidence)"
          : "";
  std::string why;
  if (!by_time && pick.price_known != other.price_known) {
    why =
        "it has no price, and under a cost objective a type without a price ranks after every "
        "priced one (its hours: " +
        strings::Num(other.job_hours) + " h against the pick's " + strings::Num(pick.job_hours) +
        " h)";
  } else if (other.score != pick.score) {
    const double more = other.score - pick.score;
    why = by_time ? "it takes " + strings::Num(other.score) + " h" + at + " against the pick's " +
                        strings::Num(pick.score) + " h: " + strings::Num(more) + " h longer" +
                        Percent(more, pick.score)
                  : "it costs " + MoneyText(other, other.score) + at + " against the pick's " +
                        MoneyText(pick, pick.score) + ": " + MoneyText(other, more) + " more" +
                        Percent(more, pick.score);
    if (other.spot_ranked_at_payg > 0) {
      why += ", ranked as if spot cost its pay-as-you-go cap of " +
             std::string(CurrencyName(other.cost.total.currency())) + " " +
             strings::Num(other.spot_ranked_at_payg) +
             "/h, since its own spot price is stale or derived (at it: " +
             MoneyText(other, other.score_at_quote) + ")";
    }
    // The other measure, which did not decide.
    if (by_time && other.price_known && pick.price_known) {
      why += "; it costs " + MoneyText(other, FrontMoney(other)) + " against " +
             MoneyText(pick, FrontMoney(pick));
    } else if (!by_time && other.job_hours > 0) {
      why += "; it takes " + strings::Num(other.job_hours) + " h against " +
             strings::Num(pick.job_hours) + " h";
    }
  } else {
    why = "it ties with the pick on " +
          (by_time ? strings::Num(pick.score) + " h" : MoneyText(pick, pick.score)) + at +
          "; the tie-break rule: " + kTieBreakRule;
  }
  const cost::PriceQuote* mine = PriceUsed(other);
  const cost::PriceQuote* theirs = PriceUsed(pick);
  if (mine && PriceStale(*mine) && !(theirs && PriceStale(*theirs)) && mine->age_days) {
    why += "; its price is " + std::to_string(*mine->age_days) + " days old (stale)";
  }
  return why;
}

double FrontMoney(const Candidate& c) {
  return c.monthly ? c.monthly->per_month.amount() : c.cost.total.amount();
}

ShowBar::ShowBar(const Workload& w, int top_n) : w_(w), top_n_(top_n) {}

void ShowBar::Add(std::span<const Candidate> hardware) {
  std::map<Billing, const Candidate*> kept;
  for (const Candidate& c : hardware) {
    const Candidate*& k = kept[c.billing];
    if (k == nullptr || RanksBefore(w_, c, *k))
      k = &c;
  }
  for (const auto& [mode, c] : kept) {
    auto [it, fresh] = best_.try_emplace({c->instance, c->nodes, mode});
    if (fresh || c->score < it->second.score)
      it->second = {c->score, c->price_known};
    if (c->price_known)
      priced_.push_back({c->job_hours, c->cost.total.amount(), FrontMoney(*c)});
  }
  // The spot alternative is picked before the ranking, from every region.
  for (const Candidate& c : hardware) {
    if (c.spot_ranked_at_payg > 0 && (!spot_quote_ || c.score_at_quote < *spot_quote_))
      spot_quote_ = c.score_at_quote;
  }
}

// Whether `a` ranks before every candidate no better than `floor` (RanksBefore's first keys).
bool ShowBar::SurelyBefore(const Best& a, const Candidate& floor) const {
  if (!RanksByTime(w_) && a.price_known != floor.price_known)
    return a.price_known;
  return a.score < floor.score;
}

// Whether a candidate no better than `floor` is off the front: a priced candidate at most as
// long and strictly cheaper sorts before it in the front's sweep (by hours, then cost) and
// leaves it no cheaper than the cheapest so far.
bool ShowBar::OffFront(const Candidate& floor) const {
  if (!floor.price_known)
    return true;
  const double cost = floor.cost.total.amount(), money = FrontMoney(floor);
  return std::any_of(priced_.begin(), priced_.end(), [&](const FrontPoint& p) {
    return p.hours <= floor.job_hours && p.cost < cost && p.money < money;
  });
}

bool ShowBar::CouldShow(const std::vector<Candidate>& floors) const {
  std::map<Billing, const Candidate*> best_per_mode;
  for (const Candidate& f : floors) {
    if (f.spot_ranked_at_payg > 0 && (!spot_quote_ || f.score_at_quote <= *spot_quote_))
      return true;
    if (!OffFront(f))
      return true;
    const Candidate*& best = best_per_mode[f.billing];
    if (best == nullptr || RanksBefore(w_, f, *best))
      best = &f;
  }
  for (const auto& [mode, f] : best_per_mode) {
    int before = 0;
    for (const auto& [key, b] : best_)
      before += SurelyBefore(b, *f) ? 1 : 0;
    if (before < top_n_)
      return true;
  }
  return false;
}

}  // namespace gpuplan::planner
