// The candidate search of one plan (internal to the core): for each instance type (filtered by
// plan/candidates.h), its regional prices (plan/pricing.h), then per node count the layout (one
// search per distinct hardware, gpuplan/layout_search.h or the serving search) and the priced
// candidates (plan/sizing.cc), or why there are none.
//
// Pricing happens inside the search on purpose: training hardware is searched fastest first,
// and the layout search stops early on hardware whose candidates, priced at a lower bound of the
// step time, could not be shown (ShowBar, plan/show_bar.h, asked through perf::CutOff). Each
// type's rates are resolved once; types that share hardware share one layout search.
#ifndef GPUPLAN_SRC_CORE_PLAN_SEARCH_H_
#define GPUPLAN_SRC_CORE_PLAN_SEARCH_H_

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gpuplan/plan.h"
#include "perf/layout_search_cutoff.h"
#include "plan/inputs.h"
#include "plan/latency.h"
#include "plan/pricing.h"
#include "plan/show_bar.h"

namespace gpuplan::planner {

// A hardware candidate's layout: the layout search's answer, for serving too.
using LayoutResult = perf::LayoutSearch;

// Every field of perf::Hardware: a layout search depends on each (host RAM decides offload), so
// two instance types share one search only when all are equal.
struct HardwareKey {
  std::string gpu;
  int gpus_per_node, nodes;
  perf::LinkKind link;
  double intra_gbs, inter_gbps, host_memory, memory, memory_error_ratio;
  bool rdma;
  double host_vcpus;  // CPU image decoding (sample_inference.cc)
  auto Tie() const {
    return std::tie(gpu, gpus_per_node, nodes, link, intra_gbs, inter_gbps, host_memory, memory,
                    memory_error_ratio, rdma, host_vcpus);
  }
  bool operator<(const HardwareKey& o) const { return Tie() < o.Tie(); }
};

// Not thread-safe; holds references to `in` and `plan`, which must outlive it.
// `nodes` x `t` as the plan searches it: a training layout fits at the workload's memory
// confidence, with the model's memory error (uncertainty::MemoryErrorRatio).
Result<perf::Hardware> PlanHardware(const PlanInputs& in, const InstanceType& t, int nodes);

class CandidateSearch {
 public:
  // `modes`: the billing modes the workload allows (AllowedModes); `plan` receives the
  // rejections (Finish) and the count of layouts evaluated.
  CandidateSearch(const PlanInputs& in, const std::vector<cost::Mode>& modes, Plan& plan);
  CandidateSearch(const CandidateSearch&) = delete;
  CandidateSearch& operator=(const CandidateSearch&) = delete;

  // The plan's currency: the budget's, else PlanOptions::default_currency.
  const std::string& currency() const { return currency_; }
  const LatencyMisses& latency_misses() const { return latency_misses_; }
  std::vector<Candidate> TakeCandidates() { return std::move(all_); }

  // Adds `t`'s candidates, or its rejection with the reason (Finish). Training on searched
  // layouts waits for Run, which searches every type's hardware together.
  void AddInstance(const InstanceType& t);

  // Searches the deferred hardware, fastest first (GPUs x peak): the first candidates found
  // are the likeliest to be shown, and set the bar (ShowBar) that lets the layout search stop
  // early on hardware that cannot be.
  void Run();

  // Each type without a candidate into the plan's rejections, in catalog order.
  void Finish();

 private:
  // One instance type's state while its hardware is searched.
  struct TypeRun {
    const InstanceType* t = nullptr;
    const Gpu* g = nullptr;
    Pricing pricing;
    bool unpriced = false;
    bool any = false;       // a candidate was added
    std::string early;      // rejected before any hardware was searched
    std::string rejection;  // why not, from the largest node count that said why
    int rejection_nodes = 0;
    // Why no more instances were tried (a copy or job across them needs eRDMA, which the type
    // lacks): said after the reason the tried counts gave, not instead of it.
    std::string beyond;
    // Some node count fits but cannot be shown: that, at its least floor, says why the type is
    // not in the plan better than what other node counts lack.
    std::string cut;
    double cut_floor_s = 0;
    void Cut(double floor_step_s, std::string why) {
      if (cut.empty() || floor_step_s < cut_floor_s) {
        cut = std::move(why);
        cut_floor_s = floor_step_s;
      }
    }
    void Reject(int nodes, std::string why) {
      if (!why.empty() && nodes >= rejection_nodes) {
        rejection = std::move(why);
        rejection_nodes = nodes;
      }
    }
  };
  struct Job {
    TypeRun* run;
    int nodes;
    perf::Hardware hw;
  };

  // Training layouts are searched in Run (not a fixed layout, not inference).
  bool Deferred() const { return w_.IsTraining() && !options_.fixed_layout; }

  // How many instances the work takes and for how long: a training job's own; a service's
  // copies for its request rate (one month); batch inference over its samples or tokens.
  struct Sizing {
    int instances = 0;
    int copies = 0;
    double hours = 0;
    std::string rejection;  // why the work cannot be sized (then the rest is unset)
  };

  // search.cc: the driver.
  Result<perf::Hardware> NodeHardware(TypeRun& run, int nodes);
  const LayoutResult& LayoutFor(const perf::Hardware& hw, const InstanceType& t,
                                const perf::CutOff& cut_off);
  bool Searched(const perf::Hardware& hw) const;
  bool HostFree(const LayoutResult& r) const;
  bool AddNodes(TypeRun& run, int nodes, const perf::Hardware& hw, bool prune);
  bool CouldShow(const TypeRun& run, int nodes, const perf::Hardware& hw, double floor_step_s);
  std::string CutOffReason(const TypeRun& run, int nodes, const perf::Hardware& hw,
                           double floor_step_s) const;

  // sizing.cc: a layout made into candidates.
  std::string UnpricedRegion() const;
  Candidate Base(const InstanceType& t, const Gpu& g) const;
  void AddByCapability(TypeRun& run);
  std::string NoFitReason(const LayoutResult& lr, const InstanceType& t, const Gpu& g, int nodes,
                          const perf::Hardware& hw) const;
  Sizing Size(const InstanceType& t, int nodes, const LayoutResult& lr,
              const perf::Hardware& hw) const;
  Offered Offer(const TypeRun& run, int nodes, const perf::Hardware& hw, const LayoutResult& lr,
                bool explain) const;

  const Workload& w_;
  const ModelArch& arch_;
  const Catalog& catalog_;
  const Calibration& cal_;
  const PlanOptions& options_;
  const Shortcuts& shortcuts_;
  const std::vector<cost::Mode>& modes_;
  Plan& plan_;
  const std::string currency_;
  const bool serving_;
  std::map<std::string, Catalog> price_book_;
  std::map<HardwareKey, LayoutResult> searched_;
  std::map<HardwareKey, const LayoutResult*> host_free_;  // into searched_ (a map: stable)
  std::deque<TypeRun> runs_;  // a deque: jobs_ point into it as it grows
  std::vector<Job> jobs_;     // training hardware, searched in Run
  std::vector<Candidate> all_;
  ShowBar bar_;
  LatencyMisses latency_misses_;
  std::set<HardwareKey> missed_targets_;  // fits, but misses the latency targets
  const perf::LayoutPins pins_;           // the workload's, for every layout search
  perf::LayoutMemo memo_;                 // what the layout searches share (after pins_)
};

}  // namespace gpuplan::planner

#endif  // GPUPLAN_SRC_CORE_PLAN_SEARCH_H_
