// The layout search's own parts (internal to src/core/perf): the structures it enumerates, what
// it learns of each, and the Search class, whose code is split by part:
//   layout_search.cc             the entry points, the memo and the driver (Training, Inference)
//   layout_search_structures.cc  the structures of the space and their groups
//   layout_search_solve.cc       best-first over lower bounds: probes, fits, bounds, the best
//   layout_search_bounds.cc      the bounds a group of structures shares (GroupFit, CheapBound)
// Why the pruning keeps the optimum is written at the top of layout_search.cc.
#ifndef GPUPLAN_SRC_CORE_PERF_LAYOUT_SEARCH_INTERNAL_H_
#define GPUPLAN_SRC_CORE_PERF_LAYOUT_SEARCH_INTERNAL_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "gpuplan/layout_search.h"
#include "perf/layout_search_cutoff.h"
#include "perf/training_shape.h"

namespace gpuplan::perf {
namespace internal {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Two steps within this fraction of each other tie: the simpler layout (Search::Consider) or
// the framework earlier in the table (framework_spaces.cc) is kept.
inline bool StepsTie(double a, double b) { return std::abs(a - b) <= 1e-6 * b; }

// Ascending divisors of n, in O(sqrt n): the structure enumeration asks for them in its inner
// loops, and a linear scan of a 1024-sequence batch there was half of a full-catalog plan's time.
inline std::vector<int> Divisors(int n) {
  std::vector<int> low, high;
  for (int d = 1; d * d <= n; ++d) {
    if (n % d != 0)
      continue;
    low.push_back(d);
    if (d != n / d)
      high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

template <typename T>
bool Allowed(const std::optional<T>& pin, T value) {
  return !pin || *pin == value;
}

// The memory savers the search may add (SaverLadder), unless the workload pins them.
struct Savers {
  Offload offload = Offload::kNone;
  bool optimizer_in_backward = false;
  bool activation_offload = false;
};

// The recomputation choices left to a structure, lightest first: a fixed array, since the
// search builds hundreds of thousands of structures per plan and should not allocate for each.
class Recomputes {
 public:
  void push_back(Recompute r) { all_[end_++] = r; }
  const Recompute* begin() const { return all_.data(); }
  const Recompute* end() const { return all_.data() + end_; }
  size_t size() const { return end_; }
  Recompute operator[](size_t i) const { return all_[i]; }
  Recompute back() const { return all_[end_ - 1]; }

 private:
  std::array<Recompute, 3> all_{};
  size_t end_ = 0;
};

// What the fit test needs of a layout's memory, as a layout search estimated it: the same on
// all hardware of one shape (LayoutMemo), refit to each. per_gpu_gib < 0: not estimated yet.
struct KnownMemory {
  double per_gpu_gib = -1;
  double host_gib = 0;
};

// The choices of one structure (everything but micro-batch and recomputation).
struct Structure {
  Layout base;                         // micro_batch and recompute to be set
  std::span<const int> micro_batches;  // ascending; the list lives in Search's cache
  Recomputes recomputes;               // lightest first
  int local_batch = 1;                 // sequences per data-parallel replica per step
  // Its layouts' memory by [micro-batch index][recomputation], handed out by the shape's
  // SlotArena on its first probe (most structures are never probed). A cache of the memo, so
  // it may be set on a structure a search only reads.
  mutable KnownMemory* memory = nullptr;
};

// What one search learns of a structure on its hardware.
// (Kept small: a search holds one per structure of every rung of savers it tries.)
struct Learned {
  double without_bubble = 0;  // the lower bound's parts that do not grow with b
  double sequence_time = 0;   // least bubble time per sequence of the layouts that fit
  // Per recomputation (as Structure::recomputes lists them), the largest micro-batch index that
  // fits (-1: none does); micro-batch lists are divisor lists, far shorter than 2^15.
  std::array<int16_t, 3> fit = {-1, -1, -1};
  bool fits_known = false;  // `fit` is set (FindFits)
  bool settled = false;     // LowerBound has timed every layout that can be its best
};

// Structures that differ only in their ZeRO stage: a contiguous run of a StructureList,
// highest stage first.
struct Group {
  size_t begin = 0, end = 0;
  // The group without virtual stages (same tp, cp, pp, ep) whose structures are twins of this
  // one's (Search::Covers), for a group with them: its fit and bound parts hold for this one.
  std::optional<size_t> flat_sibling;
};

// The structures of one set of savers on one hardware shape and their groups.
struct StructureList {
  std::vector<Structure> structures;
  std::vector<Group> groups;
};

// Memory slots handed out in blocks that never move (Structure::memory points into them): a
// plan's structures would need some 17 MB of slots up front, and page faults, not estimates,
// would then take most of its time.
class SlotArena {
 public:
  KnownMemory* Take(size_t n) {
    if (blocks_.empty() || used_ + n > capacity_) {
      capacity_ = std::max(n, kBlock);
      blocks_.push_back(std::make_unique<KnownMemory[]>(capacity_));
      used_ = 0;
    }
    KnownMemory* slots = blocks_.back().get() + used_;
    used_ += n;
    return slots;
  }

 private:
  static constexpr size_t kBlock = 4096;
  std::vector<std::unique_ptr<KnownMemory[]>> blocks_;
  size_t used_ = 0, capacity_ = 0;
};

}  // namespace internal

struct LayoutMemo::Shape {
  std::map<int, std::vector<int>> divisors;  // Search::DivisorsOf's; a map keeps them in place
  // Search::MicroBatches' lists; a std::map keeps them in place as it grows, so the structures'
  // spans stay valid.
  std::map<std::tuple<int, int, bool>, std::vector<int>> micro_batch_lists;
  // Search::Structures' lists by (offload, optimizer in backward, activation offload, any);
  // a std::map keeps them in place, so Structure::memory stays valid.
  std::map<std::tuple<Offload, bool, bool, bool>, internal::StructureList> structures;
  internal::SlotArena slots;  // the structures' memory
};

namespace internal {

// One layout search on one hardware (SearchLayout, ExhaustiveLayoutSearch). Not thread-safe;
// holds references to everything it is given, which must outlive it.
class Search {
 public:
  Search(const Workload& w, const ModelArch& arch, const Hardware& hw, const Calibration& cal,
         const LayoutPins& pins, const perf::CutOff* cut_off = nullptr,
         LayoutMemo::Shape* shared = nullptr)
      : w_(w),
        arch_(arch),
        hw_(hw),
        cal_(cal),
        pins_(pins),
        cut_off_(cut_off),
        own_(shared ? nullptr : std::make_unique<LayoutMemo::Shape>()),
        shape_(shared ? shared : own_.get()),
        // Paged optimizer states take what the GPU leaves (training_memory.cc): their memory
        // depends on the capacity, so it is not refit from another GPU's.
        memorize_(w.IsTraining() && hw.gpu != nullptr && !PagedStates(w.optimizer)),
        gpu_usable_gib_(hw.gpu != nullptr ? internal::UsableGpuGib(hw) : 0),
        host_usable_gib_(internal::UsableHostGib(hw, cal)) {}

  // Every structure of the space with the given savers (pins applied): the (tp, cp, pp) that
  // divide the GPUs, then AddStructures for each. `any_savers`: keep structures whose savers no
  // framework runs (a memory bound over the parallel layouts, not a candidate list).
  const StructureList& Structures(const Savers& savers, bool any_savers = false) const;

  // The groups of `structures` (BuildStructures lists each as a contiguous run, highest stage
  // first), each with its flat sibling where it has virtual stages.
  std::vector<Group> GroupsOf(const std::vector<Structure>& structures) const;
  std::vector<Structure> BuildStructures(const Savers& savers, bool any_savers) const;

  // The structures of one (tp, cp, pp): dp takes the GPUs left; then every vp, ZeRO stage and
  // expert degree, with the micro-batches and recomputations allowed.
  void AddStructures(int tp, int cp, int pp, int layers, const Savers& savers, bool any_savers,
                     std::vector<Structure>& out) const;

  // Whether one of the frameworks runs `l` (every layout when none is named); with
  // `any_savers`, its parallel structure whatever its memory savers.
  bool InSpace(const Layout& l, bool any_savers) const;
  bool SpaceHasSequenceParallel() const;

  // Divisors(n), computed once per n: the enumeration asks for the same few in every loop.
  const std::vector<int>& DivisorsOf(int n) const;

  // The micro-batches a replica's local batch allows (ascending), built once per (local batch,
  // pipeline, savers) and shared by the structures that have them.
  std::span<const int> MicroBatches(int local, int pp, int vp, const Savers& savers) const;

  // Expert-parallel degrees of a MoE model: divisors of tp x dp that divide the experts
  // (Megatron's MoE parallel folding lets the experts use the tensor-parallel ranks too).
  std::vector<int> ExpertDegrees(int tp, int dp) const;

  // The training invariants of layouts with `l`'s cp, built on first use (the records differ
  // by cp only through what unfused attention keeps).
  const internal::TrainingInvariants* Invariants(const Layout& l);

  Result<Estimate> Evaluate(const Layout& l, bool memory_only = false);

  // `l`'s estimate (Run), or whether structure `s` fits at one of its micro-batches with
  // recomputation `r` (Probe: a memory estimate costs about half an estimate, and memory some
  // search already estimated on this hardware shape is refit to this hardware instead).
  Result<Estimate> Run(const Layout& l);
  bool Probe(const Structure& s, size_t micro_batch_index, Recompute r);

  // Keeps the least memory seen, the least-memory layout while none fits, and why nothing fits.
  void Note(const Layout& l, const Result<Estimate>& e, bool timed);
  // `m`, the memory of `l` (of `e` when it has been estimated, else only known).
  void NoteMemory(const Layout& l, const Estimate::Memory& m, const Estimate* e, bool timed);

  // The largest micro-batch index of `s` at which recomputation `r` fits, knowing that index
  // lo - 1 fits (lo > 0) or nothing about it (lo == 0; then the smallest is probed first, as it
  // most often does not fit): memory grows with b, so a bisection of probes finds it.
  std::optional<size_t> LargestFitting(const Structure& s, Recompute r, size_t lo);

  // Without a pipeline every part of the step falls as the micro-batch grows (see the file
  // comment; activation offload and expert all-to-alls are left to the general path), so per
  // recomputation the largest micro-batch that fits is its best.
  bool Flat(const Structure& s) const {
    return s.base.pp == 1 && !s.base.activation_offload && !arch_.IsMoe();
  }

  // The lower bound of a structure (see the file comment); kInf when nothing fits or it cannot
  // be estimated. Per recomputation r, the largest micro-batch b_r that fits (memory grows with
  // b, and a heavier recomputation fits wherever a lighter one does) is timed: every layout
  // with r runs at b <= b_r, so its compute, tensor-, context- and pipeline-parallel traffic,
  // optimizer step and data-parallel exposure are at least b_r's, and its bubble at least
  // (pp - 1) / vp smallest micro-batches at b_r's compute per sequence. The bound is the least
  // over r. A structure without a pipeline (Flat) is settled by these estimates.
  double LowerBound(const Structure& s, Learned& k);

  // Learned::fit of `s`, found once: per recomputation the largest micro-batch index that fits
  // (memory grows with b, and a heavier recomputation fits wherever a lighter one does). Whether
  // anything fits: nothing does when the smallest micro-batch with the heaviest recomputation
  // does not.
  bool FindFits(const Structure& s, Learned& k);

  // What a heavier recomputation at the same layout takes at least (see the file comment).
  static double HeavierFloor(const Estimate& lighter) {
    const TimeBreakdown& t = lighter.time.breakdown;
    return lighter.time.step_s - t.dp_comm - t.offload;
  }
  // Whether a layout whose step is at least `floor` can beat the best (beyond a tie).
  bool CouldBeat(double floor) const {
    return !result_.ok ||
           floor < result_.estimate.time.step_s - 1e-6 * result_.estimate.time.step_s;
  }

  // Per micro-batch the lightest recomputation that fits; the fastest of those. The search
  // knows what fits from LowerBound (Learned::fit); the reference times every configuration.
  void Explore(const Structure& s, const Learned& k, bool exhaustive);

  // Of layouts the model times alike (within a part in a million), the one with fewer
  // moving parts: no context parallelism, no interleaving, fewer stages, less tensor
  // parallelism, less ZeRO sharding. Users should not see cp 2 where dp 2 does the same.
  static bool Simpler(const Layout& a, const Layout& b) {
    const bool sa = UsesSavers(a), sb = UsesSavers(b);
    return std::tie(sa, a.cp, a.vp, a.pp, a.tp, a.zero, a.ep) <
           std::tie(sb, b.cp, b.vp, b.pp, b.tp, b.zero, b.ep);
  }

  void Consider(const Layout& l, const Estimate& e);

  // Branch and bound over `list` (or every configuration when `exhaustive`).
  void Solve(const StructureList& list, bool exhaustive);
  // Counts `list`'s structures and configurations as covered (searched, or ruled out by a bound).
  void Cover(const StructureList& list);

  // Solve's best-first queue: entries in increasing lower bound, equal bounds first in first
  // out. An entry is a group to probe and bound (lazy: bounded from its flat sibling so far), a
  // group to split into its structures, or a structure to explore.
  enum class EntryKind { kLazyGroup, kGroup, kStructure };
  struct Entry {
    double bound;
    size_t seq;  // insertion order
    EntryKind kind;
    size_t index;  // into StructureList::groups or ::structures
    bool operator>(const Entry& o) const { return std::tie(bound, seq) > std::tie(o.bound, o.seq); }
  };
  struct Frontier {
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
    size_t seq = 0;
    void Push(double bound, EntryKind kind, size_t index) {
      queue.push({bound, seq++, kind, index});
    }
  };

  // Every group of `list` into `frontier` with its bound (a group with virtual stages from its
  // flat sibling, lazily); groups that fit nowhere stay out. Returns the first layout a group's
  // probe found to fit, if any.
  std::optional<Layout> SeedGroups(const StructureList& list, std::vector<Learned>& learned,
                                   Frontier& frontier);

  // A group's structures into `frontier`, each with its own bound; below a ZeRO-2 member that
  // cannot fit, ZeRO 0 and 1 cannot either.
  void SplitGroup(const std::vector<Structure>& structures, const Group& group,
                  std::vector<Learned>& learned, Frontier& frontier);

  // Whether the caller no longer needs this Solve: asked once a layout fits, when CutOff says to
  // ask. `floor`, the least bound left, bounds every step this Solve can still return; later
  // rungs of savers have floors of their own (Training keeps the least).
  bool StopEarly(double floor);
  // Whether a step of `floor` could matter to the caller (true without a CutOff).
  bool Matters(double floor) const {
    if (cut_off_ != nullptr && floor >= cut_off_->beat_step_s)
      return false;
    return cut_off_ == nullptr || !cut_off_->matters || cut_off_->matters(floor);
  }

  // Per recomputation, the largest micro-batch (index) at which a structure of a group (highest
  // ZeRO stage first) can fit with it, and a layout that fits; none when nothing fits even the
  // smallest micro-batch. Only the members that need the least memory are probed (FindFits):
  // ZeRO 2 needs no more than 1 or 0, and ZeRO 3 shards the weights but holds a gathered layer,
  // so either may be the least; where such a member lacks a recomputation, the next heavier one
  // it has caps it (it needs no more memory). Most of the layouts with the best compute bounds
  // (little parallelism) do not fit; this rules their groups out before any estimate is timed.
  struct GroupFitting {
    std::array<int, 3> cap = {-1, -1, -1};  // by Recompute, -1: fits nowhere
    Layout layout;
  };
  std::optional<GroupFitting> GroupFit(const std::vector<Structure>& structures,
                                       std::vector<Learned>& learned, const Group& group);

  // What one estimate of a recomputation at the largest micro-batch it can fit in the group
  // (GroupFitting::cap) says of every layout of the group with it (see CheapBound): the parts
  // that do not depend on the ZeRO stage (compute, tensor- and context-parallel traffic; the
  // optimizer step, which only shrinks with it), the pipeline traffic, and the bubble's time per
  // sequence (BubblePerSequence).
  struct CheapParts {
    double flat = 0;
    double pp_comm = 0;
    double per_sequence = 0;
  };
  // By recomputation. One search's frameworks time every layout alike (frameworks that do not
  // are searched apart: perf/framework_spaces.h), so one set of parts bounds a group.
  using RecomputeParts = std::array<std::optional<CheapParts>, 3>;

  // The bound the parts give a structure with `s`'s pp, vp and smallest micro-batch: at least
  // the flat parts, vp times the pipeline traffic of one chunk per rank, and the bubble of
  // (pp - 1) / vp smallest micro-batches.
  static double BoundFrom(const CheapParts& p, const Structure& s) {
    const double vp = s.base.vp;
    return p.flat + vp * p.pp_comm +
           (s.base.pp - 1.0) / vp * s.micro_batches.front() * p.per_sequence;
  }
  static double BoundOf(const RecomputeParts& parts, const Structure& s);

  // The bubble's time per sequence of an estimate of `s` at `micro_batch`: the stages the fill
  // and drain run through (without the head) can be faster than the compute's pace, so it is
  // taken from the bubble itself where there is one.
  static double BubblePerSequence(const TimeBreakdown& t, const Structure& s, int micro_batch) {
    return s.base.pp > 1 ? t.pp_bubble * s.base.vp / ((s.base.pp - 1.0) * micro_batch)
                         : t.compute / s.local_batch;
  }

  // A bound of every structure of a group (highest ZeRO stage first): per recomputation that
  // fits somewhere, CheapBound of the highest stage that has it, at its cap (BoundOf takes the
  // least).
  RecomputeParts GroupParts(const std::vector<Structure>& structures, const Group& group,
                            const GroupFitting& fit);

  // CheapBound's parts for a group with virtual stages from its sibling without them (see
  // Solve): none when the sibling has no parts.
  static std::optional<double> Derived(const RecomputeParts& flat_parts,
                                       const std::vector<Structure>& structures,
                                       const Group& group);

  // Whether every structure of `group` has a twin in `flat` (its sibling without virtual
  // stages) with the same ZeRO stage and recomputation choices: then the twin's fit and bound
  // parts hold for it (see Solve).
  static bool Covers(const std::vector<Structure>& structures, const Group& flat,
                     const Group& group);

  // The parts of a bound of every layout with recomputation `r` of `s`'s group (all ZeRO stages
  // below `s`'s) from one estimate at micro-batch index `cap`, the largest any of them fits with
  // `r` (GroupFit): compute and the tensor-, context- and pipeline-parallel traffic do not depend
  // on the ZeRO stage and fall as the micro-batch grows, the optimizer step only shrinks with
  // the stage, and the bubble is at least (pp - 1) / vp smallest micro-batches at the
  // per-sequence compute of that one. All 0 (no pruning) when that layout cannot be estimated.
  CheapParts CheapBound(const Structure& s, size_t cap, Recompute r);

  LayoutSearch Training(bool exhaustive);

  // Whether any structure fits the GPU with the strongest savers (parameters and activations
  // offloaded) at its smallest micro-batch and heaviest recomputation: no saver needs less GPU
  // memory, so when none does the ladder cannot find a layout and is skipped.
  bool SaversCanFitGpu();

  // The saver ladder after the search without them (Training); the least floor it was cut at.
  double SearchSavers(bool exhaustive);
  bool RungRuledOut(const Savers& s, bool could_fit, double& cut_floor);
  double TakeCut();
  // A lower bound of the step of every layout with savers `s`.
  double SaversFloor(const Savers& s);
  static bool UsesSavers(const Layout& l) {
    return l.offload != Offload::kNone || l.optimizer_in_backward || l.activation_offload;
  }

  bool SaversPinned() const {
    return pins_.offload || pins_.optimizer_in_backward || pins_.activation_offload;
  }
  Savers PinnedSavers() const {
    Savers s;
    s.offload = pins_.offload.value_or(Offload::kNone);
    s.optimizer_in_backward = pins_.optimizer_in_backward.value_or(false);
    s.activation_offload = pins_.activation_offload.value_or(false);
    return s;
  }
  static std::vector<Savers> SaverLadder() {
    return {{Offload::kOptimizer, false, false}, {Offload::kOptimizer, false, true},
            {Offload::kNone, true, false},       {Offload::kNone, true, true},
            {Offload::kParams, false, false},    {Offload::kParams, false, true}};
  }

  // Inference has no optimizer step: tensor parallel over the instance's GPUs, copies over the
  // rest, the workload's batch; the fastest request wins. Pinned degrees (gpuplan estimate
  // --tp --pp --ep --dp, a plan's serving layout) are honoured as given: pipeline stages over
  // nodes, expert parallelism over attention data-parallel ranks.
  LayoutSearch Inference();

 private:
  const Workload& w_;
  const ModelArch& arch_;
  const Hardware& hw_;
  const Calibration& cal_;
  const LayoutPins& pins_;
  const perf::CutOff* cut_off_;  // may be null: never stop early
  double asked_at_ = 0;          // the floor CutOff::matters was last asked about
  LayoutSearch result_;
  std::unique_ptr<LayoutMemo::Shape> own_;         // without a memo
  LayoutMemo::Shape* shape_;                       // the memo's share for this hardware, or own_
  const bool memorize_;                            // whether memory is refit from shape_->memory
  const double gpu_usable_gib_, host_usable_gib_;  // what known memory is fit to
  std::map<int, internal::TrainingInvariants> invariants_;  // by cp
  bool stand_in_timed_ = true;  // result_.estimate, while nothing fits, has its time
  std::string host_reason_;     // the least host RAM an offloaded layout that fits the GPU needs
  double host_need_ = 0;
  double savers_floor_s_ = -1;  // StepFloorSeconds, once asked (SaversCouldBeat)
};

}  // namespace internal
}  // namespace gpuplan::perf

#endif  // GPUPLAN_SRC_CORE_PERF_LAYOUT_SEARCH_INTERNAL_H_
