// Ranking a plan's candidates (src/core/plan/ranking.h).
#include "plan/ranking.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "plan/show_bar.h"

namespace gpuplan::planner {

std::set<size_t> Showable(const Workload& w, const std::vector<Candidate>& hardware) {
  std::map<cost::Mode, size_t> ranked, alternative;
  for (size_t i = 0; i < hardware.size(); ++i) {
    const Candidate& c = hardware[i];
    if (auto [it, fresh] = ranked.try_emplace(c.billing, i);
        !fresh && RanksBefore(w, c, hardware[it->second])) {
      it->second = i;
    }
    if (c.spot_ranked_at_payg > 0) {
      if (auto [it, fresh] = alternative.try_emplace(c.billing, i);
          !fresh && c.score_at_quote < hardware[it->second].score_at_quote) {
        it->second = i;
      }
    }
  }
  std::set<size_t> kept;
  for (const auto& [mode, i] : ranked)
    kept.insert(i);
  for (const auto& [mode, i] : alternative)
    kept.insert(i);
  return kept;
}

// (Sorted by index: a plan has thousands of candidates of 2 KB each.)
std::vector<Candidate> RankCandidates(const Workload& w, std::vector<Candidate> all) {
  std::vector<size_t> order(all.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) {
    const Candidate &a = all[i], &b = all[j];
    if (std::tie(a.instance, a.nodes, a.billing) != std::tie(b.instance, b.nodes, b.billing))
      return std::tie(a.instance, a.nodes, a.billing) < std::tie(b.instance, b.nodes, b.billing);
    return RanksBefore(w, a, b);
  });
  std::vector<size_t> unique;
  for (size_t i : order) {
    if (!unique.empty()) {
      const Candidate &kept = all[unique.back()], &c = all[i];
      if (kept.instance == c.instance && kept.nodes == c.nodes && kept.billing == c.billing)
        continue;
    }
    unique.push_back(i);
  }
  std::stable_sort(unique.begin(), unique.end(),
                   [&](size_t i, size_t j) { return RanksBefore(w, all[i], all[j]); });
  std::vector<Candidate> ranked;
  ranked.reserve(unique.size());
  for (size_t i : unique)
    ranked.push_back(std::move(all[i]));
  return ranked;
}

std::vector<Candidate> ParetoFront(std::vector<Candidate>& ranked) {
  std::vector<size_t> order(ranked.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& x = ranked[a];
    const auto& y = ranked[b];
    const double mx = x.cost.total.amount(), my = y.cost.total.amount();
    return std::tie(x.job_hours, mx) < std::tie(y.job_hours, my);
  });
  std::vector<Candidate> front;
  double cheapest = std::numeric_limits<double>::infinity();
  for (size_t i : order) {
    if (!ranked[i].price_known)
      continue;  // no cost: not on a time-vs-cost front
    const double money = FrontMoney(ranked[i]);
    if (money < cheapest) {
      cheapest = money;
      ranked[i].pareto = true;
      front.push_back(ranked[i]);
    }
  }
  return front;
}

}  // namespace gpuplan::planner
