// Which regions gpuplan knows, and the error for one it does not (include/gpuplan/plan.h).
//
// A region is known when some price or market record names it: those are the only regions a
// plan can say anything about. A typo ("cn-hangzhuo") would otherwise give an empty plan that
// looks like "nothing is sold there".
#include <algorithm>
#include <set>

#include "gpuplan/plan.h"
#include "gpuplan/strings.h"

namespace gpuplan::planner {

std::vector<std::string> KnownRegions(const Catalog& catalog, const cost::MarketData& market) {
  std::set<std::string> regions;
  for (const Price& p : catalog.prices)
    regions.insert(p.region);
  for (const cost::StockRecord& s : market.stock)
    regions.insert(s.region);
  for (const cost::SpotAdvice& a : market.spot_advice)
    regions.insert(a.region);
  // Built-in rows whose source names no region ("unspecified (CN site)") are not regions.
  std::vector<std::string> out;
  for (const std::string& r : regions) {
    if (!r.empty() && r.find(' ') == std::string::npos)
      out.push_back(r);
  }
  return out;
}

Status CheckRegions(const std::vector<std::string>& asked, const Catalog& catalog,
                    const cost::MarketData& market) {
  const std::vector<std::string> known = KnownRegions(catalog, market);
  for (const std::string& region : asked) {
    if (std::find(known.begin(), known.end(), region) != known.end())
      continue;
    std::string nearest;
    int best = 4;  // suggest only close spellings
    for (const std::string& k : known) {
      const int d = strings::EditDistance(strings::Lower(region), k);
      if (d < best) {
        best = d;
        nearest = k;
      }
    }
    std::string msg = "field \"constraints.regions\": unknown region \"" + region + "\"";
    if (!nearest.empty())
      msg += "; did you mean " + nearest + "?";
    msg += " Known regions (those with a price or stock record): ";
    for (size_t i = 0; i < known.size(); ++i)
      msg += (i ? ", " : "") + known[i];
    // What is missing is a price or stock record for the region; how to bring one is the
    // caller's to say (the CLI names its commands: cli/plan_inputs.cc).
    return Status::InvalidArgument(msg).AtField("constraints.regions");
  }
  return Status::Ok();
}

Status CheckConstraintNames(const Constraints& c, const Catalog& catalog) {
  struct List {
    const char* field;
    const std::vector<std::string>& names;
    bool gpus;  // GPU names (aliases allowed), else family names
  };
  const List kLists[] = {{"constraints.include_gpus", c.include_gpus, true},
                         {"constraints.exclude_gpus", c.exclude_gpus, true},
                         {"constraints.include_families", c.include_families, false},
                         {"constraints.exclude_families", c.exclude_families, false}};
  std::vector<std::string> families;
  for (const Family& f : catalog.families)
    families.push_back(f.name);
  for (const List& list : kLists) {
    for (const std::string& name : list.names) {
      if (list.gpus ? catalog.FindGpu(name) != nullptr : catalog.FindFamily(name) != nullptr)
        continue;
      std::string msg = "field \"" + std::string(list.field) + "\": unknown " +
                        (list.gpus ? "GPU" : "family") + " \"" + name + "\"";
      const std::vector<std::string> near =
          list.gpus ? catalog.SuggestGpus(name)
                    : std::vector<std::string>{strings::Nearest(name, families)};
      if (!near.empty() && !near.front().empty()) {
        msg += "; did you mean ";
        for (size_t i = 0; i < near.size(); ++i)
          msg += (i ? ", " : "") + near[i];
        msg += "?";
      }
      msg += list.gpus ? " ('gpuplan catalog gpus' lists them)"
                       : " ('gpuplan catalog families' lists them)";
      return Status::InvalidArgument(msg).AtField(list.field);
    }
  }
  return Status::Ok();
}

}  // namespace gpuplan::planner
