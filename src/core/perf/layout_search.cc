// The one layout search (include/gpuplan/layout_search.h).
//
// Why the pruning keeps the optimum. Every layout of a structure (tp, cp, pp, vp, dp, ep, ZeRO,
// memory savers) processes the same tokens per step, so the fastest step wins. For one
// structure, with the micro-batch b and recomputation r free:
//  - memory grows with b, and a heavier r needs no more memory than a lighter one: per r there
//    is a largest b that fits (b_r, found by bisection of memory probes), and b_r never falls as
//    r gets heavier.
//  - compute, tensor-parallel and context-parallel volume, the pipeline point-to-point volume,
//    the optimizer step and the data-parallel exposure only fall as b grows: GEMM efficiency
//    rises with rows, per-micro-batch overheads fall with fewer micro-batches, and a longer
//    last backward hides more of the gradient traffic. So every layout with r takes at least
//    their sum at b_r plus the bubble of the smallest b at b_r's compute per sequence (offload
//    exposure is >= 0 and left out); the least of that over r bounds the structure.
//  - at a fixed b, a heavier r adds compute, bubble and collectives, and can save only
//    exposure: its longer backward hides more data-parallel traffic and offload. So a heavier r
//    at the same b takes at least the lighter one's step less its data-parallel and offload
//    exposure (HeavierFloor), and is estimated only when that could beat the best.
// Groups (structures that differ only in ZeRO stage) and groups with virtual stages get bounds
// of the same kind from fewer estimates (Solve). Entries are visited in increasing lower bound;
// the search stops when the next bound is no better than the best step found (best-first
// branch and bound).
#include "gpuplan/layout_search.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <span>
#include <tuple>
#include <vector>

#include "gpuplan/strings.h"
#include "perf/training_shape.h"

namespace gpuplan::perf {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Ascending divisors of n, in O(sqrt n): the structure enumeration asks for them in its inner
// loops, and a linear scan of a 1024-sequence batch there was half of a full-catalog plan's time.
std::vector<int> Divisors(int n) {
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

// The savers the search may add when nothing fits without them.
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
  // Its attention kernel (the framework that runs it decides). Structure lists are shared by
  // GPUs on which the kernels run alike and GPUs on which they differ: KernelOf tells which
  // matters to a search.
  size_t kernel = 0;
};

// What one search learns of a structure on its hardware.
// (Kept small: a search holds one per structure of every rung of savers it tries.)
struct Learned {
  double without_bubble = 0;  // the lower bound's parts that do not grow with b
  double sequence_time = 0;   // least compute per sequence of the layouts that fit
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

}  // namespace

struct LayoutMemo::Shape {
  std::map<int, std::vector<int>> divisors;  // Search::DivisorsOf's; a map keeps them in place
  // Search::MicroBatches' lists; a std::map keeps them in place as it grows, so the structures'
  // spans stay valid.
  std::map<std::tuple<int, int, bool>, std::vector<int>> micro_batch_lists;
  // Search::Structures' lists by (offload, optimizer in backward, activation offload, any);
  // a std::map keeps them in place, so Structure::memory stays valid.
  std::map<std::tuple<Offload, bool, bool, bool>, StructureList> structures;
  SlotArena slots;  // the structures' memory
};

LayoutMemo::LayoutMemo(const Workload& w, const ModelArch& arch, const LayoutPins& pins)
    : w_(&w), arch_(&arch), pins_(&pins) {}
LayoutMemo::~LayoutMemo() = default;

LayoutMemo::Shape* LayoutMemo::For(const Workload& w, const ModelArch& arch, const LayoutPins& pins,
                                   int gpus, int gpus_per_node) {
  if (&w != w_ || &arch != arch_ || &pins != pins_)
    return nullptr;
  std::unique_ptr<Shape>& shape = shapes_[{gpus, gpus_per_node}];
  if (!shape)
    shape = std::make_unique<Shape>();
  return shape.get();
}

namespace {

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
        memorize_(w.IsTraining() && hw.gpu != nullptr && w.optimizer != Optimizer::kPagedAdamw8bit),
        gpu_usable_gib_(hw.gpu != nullptr ? internal::UsableGpuGib(hw) : 0),
        host_usable_gib_(internal::UsableHostGib(hw, cal)),
        kernels_differ_(KernelsDiffer()) {}

  // Every structure of the space with the given savers (pins applied): the (tp, cp, pp) that
  // divide the GPUs, then AddStructures for each. `any_savers`: keep structures whose savers no
  // framework runs (a memory bound over the parallel layouts, not a candidate list).
  const StructureList& Structures(const Savers& savers, bool any_savers = false) const {
    auto [it, fresh] = shape_->structures.try_emplace(std::make_tuple(
        savers.offload, savers.optimizer_in_backward, savers.activation_offload, any_savers));
    StructureList& list = it->second;
    if (fresh) {
      list.structures = BuildStructures(savers, any_savers);
      list.groups = GroupsOf(list.structures);
    }
    return list;
  }

  // The groups of `structures` (BuildStructures lists each as a contiguous run, highest stage
  // first), each with its flat sibling where it has virtual stages.
  std::vector<Group> GroupsOf(const std::vector<Structure>& structures) const {
    std::vector<Group> groups;
    std::map<std::tuple<int, int, int, int>, size_t> flat;  // by (tp, cp, pp, ep)
    for (size_t begin = 0; begin < structures.size();) {
      const Layout& first = structures[begin].base;
      size_t end = begin + 1;
      while (end < structures.size()) {
        const Layout& b = structures[end].base;
        if (std::tie(b.tp, b.cp, b.pp, b.vp, b.ep) !=
            std::tie(first.tp, first.cp, first.pp, first.vp, first.ep)) {
          break;
        }
        ++end;
      }
      Group g{begin, end, std::nullopt};
      const auto key = std::make_tuple(first.tp, first.cp, first.pp, first.ep);
      if (first.vp == 1) {
        flat.emplace(key, groups.size());
      } else if (auto it = flat.find(key);
                 it != flat.end() && Covers(structures, groups[it->second], g)) {
        g.flat_sibling = it->second;
      }
      groups.push_back(g);
      begin = end;
    }
    return groups;
  }
  std::vector<Structure> BuildStructures(const Savers& savers, bool any_savers) const {
    std::vector<Structure> out;
    const int gpus = hw_.Gpus();
    const bool transformer = arch_.IsTransformer();
    const int layers = transformer ? arch_.layers : 1;
    for (int tp : DivisorsOf(hw_.gpus_per_node)) {
      if (!Allowed(pins_.tp, tp) || gpus % tp != 0)
        continue;
      if (tp > 1 && (!transformer || arch_.heads % tp != 0))
        continue;
      for (int cp : DivisorsOf(gpus / tp)) {
        if (!Allowed(pins_.cp, cp))
          continue;
        if (cp > 1 && (!transformer || !w_.flash_attention || w_.seq_len % (2 * cp) != 0))
          continue;
        for (int pp : DivisorsOf(gpus / (tp * cp))) {
          if (!Allowed(pins_.pp, pp) || pp > layers || (pp > 1 && !transformer))
            continue;
          AddStructures(tp, cp, pp, layers, savers, any_savers, out);
        }
      }
    }
    return out;
  }

  // The structures of one (tp, cp, pp): dp takes the GPUs left; then every vp, ZeRO stage and
  // expert degree, with the micro-batches and recomputations allowed.
  void AddStructures(int tp, int cp, int pp, int layers, const Savers& savers, bool any_savers,
                     std::vector<Structure>& out) const {
    const int dp = hw_.Gpus() / (tp * cp * pp);
    if (!Allowed(pins_.dp, dp) || w_.global_batch % dp != 0)
      return;
    const int local = w_.global_batch / dp;
    Recomputes recomputes;
    const std::optional<Recompute> pin_r = pins_.recompute ? pins_.recompute : w_.recompute;
    for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
      if (Allowed(pin_r, r))
        recomputes.push_back(r);
    }
    const std::vector<int> expert_degrees = ExpertDegrees(tp, dp);
    static constexpr int kOne[] = {1};
    const std::span<const int> vps = pp > 1 ? std::span<const int>(DivisorsOf(layers / pp)) : kOne;
    for (int vp : vps) {
      if (!Allowed(pins_.vp, vp) || (vp > 1 && layers % (pp * vp) != 0))
        continue;
      const std::span<const int> micro_batches = MicroBatches(local, pp, vp, savers);
      if (micro_batches.empty())
        continue;
      // In the order Solve groups them: a group (all but the ZeRO stage) is a contiguous run,
      // highest stage first.
      for (int ep : expert_degrees) {
        for (int zero = dp * cp > 1 ? 3 : 0; zero >= 0; --zero) {
          if (!Allowed(pins_.zero, zero))
            continue;
          Structure s;
          s.local_batch = local;
          s.micro_batches = micro_batches;
          Layout& l = s.base;
          l.tp = tp;
          l.cp = cp;
          l.pp = pp;
          l.vp = vp;
          l.dp = dp;
          l.ep = ep;
          l.zero = zero;
          l.sequence_parallel =
              pins_.sequence_parallel.value_or(tp > 1 && SpaceHasSequenceParallel());
          l.flash_attention = w_.flash_attention;
          l.offload = savers.offload;
          l.optimizer_in_backward = savers.optimizer_in_backward;
          l.activation_offload = savers.activation_offload;
          // Only the recomputations a framework runs with this structure: every framework
          // runs none and full (data/frameworks.csv), selective is Megatron's
          // (FrameworkCaps::selective_recompute), so only selective needs its own check.
          l.recompute = Recompute::kNone;
          if (!InSpace(l, any_savers))
            continue;
          for (Recompute r : recomputes) {
            l.recompute = r;
            if (r != Recompute::kSelective || InSpace(l, any_savers))
              s.recomputes.push_back(r);
          }
          l.recompute = Recompute::kNone;
          s.kernel = static_cast<size_t>(AttentionKernelFor(w_.frameworks, l));
          if (s.recomputes.size() > 0)
            out.push_back(s);
        }
      }
    }
  }

  // Whether one of the frameworks runs `l` (every layout when none is named); with
  // `any_savers`, its parallel structure whatever its memory savers.
  bool InSpace(const Layout& l, bool any_savers) const {
    if (pins_.frameworks.empty())
      return true;
    Layout shape = l;
    if (any_savers) {
      shape.offload = Offload::kNone;
      shape.optimizer_in_backward = shape.activation_offload = false;
    }
    return std::any_of(pins_.frameworks.begin(), pins_.frameworks.end(),
                       [&](const FrameworkCaps& c) { return Runs(c, shape); });
  }
  bool SpaceHasSequenceParallel() const {
    return pins_.frameworks.empty() ||
           std::any_of(pins_.frameworks.begin(), pins_.frameworks.end(),
                       [](const FrameworkCaps& c) { return c.sequence_parallel; });
  }

  // Divisors(n), computed once per n: the enumeration asks for the same few in every loop.
  const std::vector<int>& DivisorsOf(int n) const {
    auto [it, fresh] = shape_->divisors.try_emplace(n);
    if (fresh)
      it->second = Divisors(n);
    return it->second;
  }

  // The micro-batches a replica's local batch allows (ascending), built once per (local batch,
  // pipeline, savers) and shared by the structures that have them.
  std::span<const int> MicroBatches(int local, int pp, int vp, const Savers& savers) const {
    const auto key = std::make_tuple(local, vp > 1 ? pp : 0, savers.optimizer_in_backward);
    auto [it, fresh] = shape_->micro_batch_lists.try_emplace(key);
    if (!fresh)
      return it->second;
    std::vector<int>& out = it->second;
    const std::optional<int> pin_b = pins_.micro_batch ? pins_.micro_batch : w_.micro_batch;
    for (int b : DivisorsOf(local)) {
      if (!Allowed(pin_b, b))
        continue;
      const int m = local / b;
      if (vp > 1 && m % pp != 0)
        continue;  // Megatron's interleaving needs m % pp == 0
      if (savers.optimizer_in_backward && m > 1)
        continue;  // no accumulation
      out.push_back(b);
    }
    return out;
  }

  // Expert-parallel degrees of a MoE model: divisors of tp x dp that divide the experts
  // (Megatron's MoE parallel folding lets the experts use the tensor-parallel ranks too).
  std::vector<int> ExpertDegrees(int tp, int dp) const {
    if (!arch_.IsMoe())
      return {pins_.ep.value_or(1)};
    std::vector<int> out;
    for (int ep : DivisorsOf(tp * dp)) {
      if (arch_.moe.experts % ep == 0 && Allowed(pins_.ep, ep))
        out.push_back(ep);
    }
    return out;
  }

  // The training invariants of layouts with `l`'s cp, built on first use (the records differ
  // by cp only through what unfused attention keeps).
  const internal::TrainingInvariants* Invariants(const Layout& l) {
    if (!w_.IsTraining() || hw_.gpu == nullptr)
      return nullptr;
    auto it = invariants_.find(l.cp);
    if (it == invariants_.end()) {
      const bool flash = l.flash_attention && w_.flash_attention;
      it = invariants_.emplace(l.cp, internal::InvariantsOf(w_, arch_, *hw_.gpu, cal_, l.cp, flash))
               .first;
    }
    return &it->second;
  }

  Result<Estimate> Evaluate(const Layout& l, bool memory_only = false) {
    ++result_.evaluated;
    return internal::EstimateRunShared(w_, arch_, hw_, l, cal_, Invariants(l), memory_only);
  }

  // `l`'s estimate (Run), or whether structure `s` fits at one of its micro-batches with
  // recomputation `r` (Probe: a memory estimate costs about half an estimate, and memory some
  // search already estimated on this hardware shape is refit to this hardware instead).
  Result<Estimate> Run(const Layout& l) {
    Result<Estimate> e = Evaluate(l);
    Note(l, e, true);
    return e;
  }
  bool Probe(const Structure& s, size_t micro_batch_index, Recompute r) {
    if (memorize_ && s.memory == nullptr)
      s.memory = shape_->slots.Take(s.micro_batches.size() * kRecomputeNames.size());
    KnownMemory* known =
        memorize_ ? &s.memory[micro_batch_index * kRecomputeNames.size() + static_cast<size_t>(r)]
                  : nullptr;
    if (known && known->per_gpu_gib >= 0) {
      // FitGpu and FitHost's test, without building the memory: most probes are of memory
      // another hardware of the shape estimated, and NoteMemory has nothing to note for one
      // the host holds that is no less than the least seen.
      const bool host_fits =
          !(known->host_gib > 0 && hw_.host_memory_gib > 0 && known->host_gib > host_usable_gib_);
      if (host_fits && result_.min_memory_gib > 0 && known->per_gpu_gib >= result_.min_memory_gib) {
        return known->per_gpu_gib * hw_.memory_error_ratio <= gpu_usable_gib_;
      }
    }
    Layout l = s.base;
    l.micro_batch = s.micro_batches[micro_batch_index];
    l.recompute = r;
    if (known && known->per_gpu_gib >= 0) {
      Estimate::Memory m;
      m.per_gpu_gib = known->per_gpu_gib;
      m.host_gib = known->host_gib;
      internal::FitGpu(m, hw_);
      internal::FitHost(m, hw_, cal_);
      NoteMemory(l, m, nullptr, false);
      return m.fits;
    }
    Result<Estimate> e = Evaluate(l, true);
    if (known && e.ok())
      *known = {e->memory.per_gpu_gib, e->memory.host_gib};
    Note(l, e, false);
    return e.ok() && e->memory.fits;
  }

  // Keeps the least memory seen, the least-memory layout while none fits, and why nothing fits.
  void Note(const Layout& l, const Result<Estimate>& e, bool timed) {
    if (e.ok())
      NoteMemory(l, e->memory, &*e, timed);
    else if (result_.reason.empty())
      result_.reason = e.status().message();
  }
  // `m`, the memory of `l` (of `e` when it has been estimated, else only known).
  void NoteMemory(const Layout& l, const Estimate::Memory& m, const Estimate* e, bool timed) {
    if (m.host_capacity_gib > 0 && m.host_gib > m.host_capacity_gib) {
      if (m.checked_gib > m.capacity_gib)
        return;  // fits neither: GPU memory says why
      // Fits the GPU only by offloading more than the host holds: say that, not GPU memory.
      if (host_reason_.empty() || m.host_gib < host_need_) {
        host_need_ = m.host_gib;
        host_reason_ = "fits GPU memory only with offload, which needs " +
                       strings::Num(m.host_gib) + " GiB of host RAM per node (" +
                       strings::Num(m.host_capacity_gib) + " usable)";
      }
      return;
    }
    if (result_.min_memory_gib == 0 || m.per_gpu_gib < result_.min_memory_gib) {
      result_.min_memory_gib = m.per_gpu_gib;
      if (!result_.ok) {  // the least-memory layout stands in until one fits
        result_.layout = l;
        result_.estimate = e ? *e : Estimate{};
        result_.estimate.memory = m;
        stand_in_timed_ = timed;
      }
    }
  }

  // The largest micro-batch index of `s` at which recomputation `r` fits, knowing that index
  // lo - 1 fits (lo > 0) or nothing about it (lo == 0; then the smallest is probed first, as it
  // most often does not fit): memory grows with b, so a bisection of probes finds it.
  std::optional<size_t> LargestFitting(const Structure& s, Recompute r, size_t lo) {
    if (lo == 0) {
      if (!Probe(s, 0, r))
        return std::nullopt;
      lo = 1;
    }
    std::optional<size_t> best = lo - 1;
    size_t hi = s.micro_batches.size();  // candidates [lo, hi)
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (Probe(s, mid, r)) {
        best = mid;
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return best;
  }

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
  double LowerBound(const Structure& s, Learned& k) {
    if (!FindFits(s, k))
      return kInf;
    double bound = kInf;
    k.without_bubble = k.sequence_time = kInf;
    Layout l = s.base;
    for (size_t i = 0; i < s.recomputes.size(); ++i) {
      if (k.fit[i] < 0)
        continue;
      l.recompute = s.recomputes[i];
      l.micro_batch = s.micro_batches[static_cast<size_t>(k.fit[i])];
      Result<Estimate> e = Run(l);
      if (!e.ok())
        return kInf;
      if (e->memory.fits)
        Consider(l, *e);
      const TimeBreakdown& t = e->time.breakdown;
      const double without_bubble =
          t.compute + t.tp_comm + t.pp_comm + t.optimizer + t.cp_comm + t.dp_comm;
      const double per_sequence = t.compute / s.local_batch;
      k.without_bubble = std::min(k.without_bubble, without_bubble);
      k.sequence_time = std::min(k.sequence_time, per_sequence);
      bound = std::min(bound, without_bubble + (s.base.pp - 1.0) / s.base.vp *
                                                   s.micro_batches.front() * per_sequence);
    }
    k.settled = Flat(s);
    return bound;
  }

  // Learned::fit of `s`, found once: per recomputation the largest micro-batch index that fits
  // (memory grows with b, and a heavier recomputation fits wherever a lighter one does). Whether
  // anything fits: nothing does when the smallest micro-batch with the heaviest recomputation
  // does not.
  bool FindFits(const Structure& s, Learned& k) {
    if (!k.fits_known) {
      k.fits_known = true;
      if (Probe(s, 0, s.recomputes.back())) {
        size_t lo = 0;
        for (size_t i = 0; i < s.recomputes.size(); ++i) {
          if (const std::optional<size_t> fit = LargestFitting(s, s.recomputes[i], lo)) {
            k.fit[i] = static_cast<int16_t>(*fit);
            lo = *fit + 1;
          }
        }
      }
    }
    return k.fit[s.recomputes.size() - 1] >= 0;
  }

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
  void Explore(const Structure& s, const Learned& k, bool exhaustive) {
    ++result_.explored;
    for (size_t bi = 0; bi < s.micro_batches.size(); ++bi) {
      const int b = s.micro_batches[bi];
      // The bubble grows with the micro-batch: once the bound passes the best, stop.
      if (!exhaustive && result_.ok &&
          k.without_bubble + (s.base.pp - 1.0) / s.base.vp * b * k.sequence_time >=
              result_.estimate.time.step_s) {
        break;
      }
      bool any_fits = false;
      for (size_t i = 0; i < s.recomputes.size(); ++i) {
        if (!exhaustive && k.fit[i] < static_cast<int>(bi))
          continue;  // does not fit this micro-batch
        Layout l = s.base;
        l.micro_batch = b;
        l.recompute = s.recomputes[i];
        Result<Estimate> e = Run(l);
        if (!e.ok() || !e->memory.fits)
          continue;
        any_fits = true;
        Consider(l, *e);
        if (!exhaustive && !CouldBeat(HeavierFloor(*e)))
          break;  // heavier recomputation cannot hide enough to win
      }
      // Memory grows with the micro-batch: once nothing fits, nothing larger does.
      if (!any_fits && !exhaustive)
        break;
    }
  }

  // Of layouts the model times alike (within a part in a million), the one with fewer
  // moving parts: no context parallelism, no interleaving, fewer stages, less tensor
  // parallelism, less ZeRO sharding. Users should not see cp 2 where dp 2 does the same.
  static bool Simpler(const Layout& a, const Layout& b) {
    return std::tie(a.cp, a.vp, a.pp, a.tp, a.zero, a.ep) <
           std::tie(b.cp, b.vp, b.pp, b.tp, b.zero, b.ep);
  }

  void Consider(const Layout& l, const Estimate& e) {
    const double t = e.time.step_s, best = result_.estimate.time.step_s;
    const bool tie = result_.ok && std::abs(t - best) <= 1e-6 * best;
    if (!result_.ok || (tie ? Simpler(l, result_.layout) : t < best)) {
      result_.ok = true;
      result_.layout = l;
      result_.estimate = e;
    }
  }

  // Branch and bound over `list` (or every configuration when `exhaustive`).
  void Solve(const StructureList& list, bool exhaustive) {
    const std::vector<Structure>& structures = list.structures;
    std::vector<Learned> learned(structures.size());
    result_.structures += static_cast<long long>(structures.size());
    for (const Structure& s : structures) {
      result_.configurations +=
          static_cast<long long>(s.micro_batches.size() * s.recomputes.size());
    }
    if (exhaustive) {
      for (size_t i = 0; i < structures.size(); ++i)
        Explore(structures[i], learned[i], true);
      return;
    }
    // One estimate per recomputation bounds a whole group (GroupParts); a group's structures
    // get their own, tighter bounds (LowerBound) only when the group comes up in best-first
    // order, and a structure is explored only when its own bound comes up. Every bound is at
    // most the step time of every layout it covers, so stopping at the first bound no better
    // than the best keeps the optimum. ZeRO 0, 1, 2 need ever less memory at the same
    // everything else: where ZeRO-2 cannot fit the smallest micro-batch, ZeRO 0 and 1 cannot
    // either (a group lists its higher stages first).
    //
    // A group with virtual stages (vp > 1) is bounded without an estimate of its own, from
    // its flat sibling (same tp, cp, pp, ep without them; Derived): interleaving leaves the
    // compute and the tensor- and context-parallel traffic as they are, multiplies the pipeline
    // traffic by vp, divides the bubble by vp, and only adds in-flight activations. So when the
    // sibling fits nowhere, neither does the group; otherwise its fit probes and its own bound
    // wait until the group comes up (kLazyGroup), and most never do.
    enum class Kind { kLazyGroup, kGroup, kStructure };
    struct Entry {
      double bound;
      size_t seq;    // insertion order: equal bounds pop first-in first
      Kind kind;     // a group to probe and bound, a group to split, or a structure to explore
      size_t index;  // into list.groups or structures
      bool operator>(const Entry& o) const {
        return std::tie(bound, seq) > std::tie(o.bound, o.seq);
      }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
    size_t seq = 0;
    std::optional<Layout> fits;  // the first layout a group's probe found to fit
    // The bound parts of the groups without virtual stages that fit (the siblings).
    struct Sibling {
      KernelParts parts;
    };
    std::vector<Sibling> siblings;                        // of the flat groups that fit
    std::vector<int> sibling_of(list.groups.size(), -1);  // group -> siblings index
    for (size_t g = 0; g < list.groups.size(); ++g) {
      const Group& group = list.groups[g];
      if (group.flat_sibling) {
        const int at = sibling_of[*group.flat_sibling];
        if (at < 0)
          continue;  // more activations in flight than a sibling that fits nowhere
        const Sibling& sibling = siblings[static_cast<size_t>(at)];
        if (std::optional<double> b = Derived(sibling.parts, structures, group)) {
          queue.push({*b, seq++, Kind::kLazyGroup, g});
          continue;
        }
      }
      const std::optional<GroupFitting> fit = GroupFit(structures, learned, group);
      if (fit) {
        KernelParts parts = GroupParts(structures, group, *fit);
        queue.push({BoundOf(parts, structures[group.begin]), seq++, Kind::kGroup, g});
        if (!fits)
          fits = fit->layout;
        if (structures[group.begin].base.vp == 1) {
          sibling_of[g] = static_cast<int>(siblings.size());
          siblings.push_back({parts});
        }
      }
    }
    // Timed, it is a first incumbent: the bound test and the caller's cut-off (StopEarly) start
    // from the first structure rather than wait for one whose own search finds a fit.
    if (fits && !result_.ok) {
      if (Result<Estimate> e = Run(*fits); e.ok() && e->memory.fits)
        Consider(*fits, *e);
    }
    while (!queue.empty()) {
      const Entry top = queue.top();
      queue.pop();
      if (top.bound == kInf || (result_.ok && top.bound >= result_.estimate.time.step_s))
        break;
      if (StopEarly(top.bound))
        return;
      if (top.kind == Kind::kStructure) {
        Explore(structures[top.index], learned[top.index], false);
        continue;
      }
      const Group& group = list.groups[top.index];
      if (top.kind == Kind::kLazyGroup) {
        if (const std::optional<GroupFitting> fit = GroupFit(structures, learned, group)) {
          const KernelParts parts = GroupParts(structures, group, *fit);
          const double own = BoundOf(parts, structures[group.begin]);
          queue.push({std::max(own, top.bound), seq++, Kind::kGroup, top.index});
        }
        continue;
      }
      bool zero2_infeasible = false;
      for (size_t i = group.begin; i < group.end; ++i) {
        const Structure& s = structures[i];
        Learned& k = learned[i];
        if (s.base.zero < 2 && zero2_infeasible)
          continue;
        const double bound = LowerBound(s, k);
        if (s.base.zero == 2 && bound == kInf)
          zero2_infeasible = true;
        if (bound < kInf && !k.settled)
          queue.push({bound, seq++, Kind::kStructure, i});
      }
    }
  }

  // Whether the caller no longer needs this search: asked once a layout of this rung of savers
  // fits (then no later rung is tried, so `floor`, the least bound left, bounds every step the
  // search can still return), when CutOff says to ask.
  bool StopEarly(double floor) {
    if (cut_off_ == nullptr || !cut_off_->matters || !result_.ok ||
        result_.evaluated < cut_off_->ask_after || floor <= asked_at_ * cut_off_->ask_again)
      return false;
    asked_at_ = floor;
    if (cut_off_->matters(floor))
      return false;
    result_.cut_off = true;
    result_.floor_step_s = floor;
    return true;
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
                                       std::vector<Learned>& learned, const Group& group) {
    std::optional<GroupFitting> out;
    for (size_t i = group.begin; i < group.end; ++i) {
      const Structure& s = structures[i];
      const Learned& k = learned[i];
      if (s.base.zero < 2 && i != group.begin)
        break;  // a lower stage needs at least the memory of the higher one probed before it
      if (!FindFits(s, learned[i]))
        continue;
      if (!out) {
        out.emplace();
        out->layout = s.base;
        out->layout.recompute = s.recomputes.back();
        out->layout.micro_batch =
            s.micro_batches[static_cast<size_t>(k.fit[s.recomputes.size() - 1])];
      }
      for (size_t r = 0; r < out->cap.size(); ++r) {
        for (size_t j = 0; j < s.recomputes.size(); ++j) {
          if (static_cast<size_t>(s.recomputes[j]) >= r) {
            out->cap[r] = std::max(out->cap[r], static_cast<int>(k.fit[j]));
            break;
          }
        }
      }
    }
    return out;
  }

  // What one estimate of a recomputation at the largest micro-batch it can fit in the group
  // (GroupFitting::cap) says of every layout of the group with it (see CheapBound): the parts
  // that do not depend on the ZeRO stage (compute, tensor- and context-parallel traffic; the
  // optimizer step, which only shrinks with it), the pipeline traffic, and the compute per
  // sequence.
  struct CheapParts {
    double flat = 0;
    double pp_comm = 0;
    double per_sequence = 0;
  };
  // By attention kernel (AttentionKernel's values; one kernel when they run alike), then by
  // recomputation.
  using KernelParts = std::array<std::array<std::optional<CheapParts>, 3>, 2>;

  // The bound the parts give a structure with `s`'s pp, vp and smallest micro-batch: at least
  // the flat parts, vp times the pipeline traffic of one chunk per rank, and the bubble of
  // (pp - 1) / vp smallest micro-batches.
  static double BoundFrom(const CheapParts& p, const Structure& s) {
    const double vp = s.base.vp;
    return p.flat + vp * p.pp_comm +
           (s.base.pp - 1.0) / vp * s.micro_batches.front() * p.per_sequence;
  }
  static double BoundOf(const KernelParts& parts, const Structure& s) {
    double bound = kInf;
    for (const auto& by_recompute : parts) {
      for (const std::optional<CheapParts>& p : by_recompute) {
        if (p)
          bound = std::min(bound, BoundFrom(*p, s));
      }
    }
    return bound;
  }

  // The kernel whose speed `s`'s compute has on this GPU: 0 where the kernels run alike.
  size_t KernelOf(const Structure& s) const { return kernels_differ_ ? s.kernel : 0; }

  // A bound of every structure of a group (highest ZeRO stage first): per recomputation that
  // fits somewhere, CheapBound of the highest stage that has it, at its cap. Where the stages
  // run on frameworks whose attention kernels differ in speed (with tp or pp, megatron's cuDNN
  // attention runs ZeRO 0-1 and torchtitan's FlashAttention-2 runs 2-3), the compute differs by
  // kernel: the same per kernel (BoundOf takes the least).
  KernelParts GroupParts(const std::vector<Structure>& structures, const Group& group,
                         const GroupFitting& fit) {
    KernelParts parts;
    for (size_t i = group.begin; i < group.end; ++i) {
      const Structure& s = structures[i];
      for (Recompute r : s.recomputes) {
        const int cap = fit.cap[static_cast<size_t>(r)];
        std::optional<CheapParts>& p = parts[KernelOf(s)][static_cast<size_t>(r)];
        if (cap >= 0 && !p)
          p = CheapBound(s, static_cast<size_t>(cap), r);
      }
    }
    return parts;
  }

  // CheapBound's parts for a group with virtual stages from its sibling without them (see
  // Solve): none when a kernel of the group has no parts in the sibling's.
  std::optional<double> Derived(const KernelParts& flat_parts,
                                const std::vector<Structure>& structures,
                                const Group& group) const {
    KernelParts parts;
    for (size_t i = group.begin; i < group.end; ++i) {
      const size_t k = KernelOf(structures[i]);
      if (std::none_of(flat_parts[k].begin(), flat_parts[k].end(),
                       [](const std::optional<CheapParts>& p) { return p.has_value(); })) {
        return std::nullopt;
      }
      parts[k] = flat_parts[k];
    }
    return BoundOf(parts, structures[group.begin]);
  }

  // Whether every structure of `group` has a twin in `flat` (its sibling without virtual
  // stages) with the same ZeRO stage, attention kernel and recomputation choices: then the
  // twin's fit and bound parts hold for it (see Solve).
  static bool Covers(const std::vector<Structure>& structures, const Group& flat,
                     const Group& group) {
    const auto twin = [&](const Structure& s) {
      for (size_t j = flat.begin; j < flat.end; ++j) {
        const Structure& f = structures[j];
        if (f.base.zero == s.base.zero && f.kernel == s.kernel &&
            f.recomputes.size() == s.recomputes.size() &&
            std::equal(f.recomputes.begin(), f.recomputes.end(), s.recomputes.begin())) {
          return true;
        }
      }
      return false;
    };
    for (size_t i = group.begin; i < group.end; ++i) {
      if (!twin(structures[i]))
        return false;
    }
    return true;
  }

  // The parts of a bound of every layout with recomputation `r` of `s`'s group (all ZeRO stages
  // below `s`'s) from one estimate at micro-batch index `cap`, the largest any of them fits with
  // `r` (GroupFit): compute and the tensor-, context- and pipeline-parallel traffic do not depend
  // on the ZeRO stage and fall as the micro-batch grows, the optimizer step only shrinks with
  // the stage, and the bubble is at least (pp - 1) / vp smallest micro-batches at the
  // per-sequence compute of that one. All 0 (no pruning) when that layout cannot be estimated.
  CheapParts CheapBound(const Structure& s, size_t cap, Recompute r) {
    Layout l = s.base;
    l.micro_batch = s.micro_batches[cap];
    l.recompute = r;
    Result<Estimate> e = Run(l);
    if (!e.ok())
      return {};
    const TimeBreakdown& t = e->time.breakdown;
    return {.flat = t.compute + t.tp_comm + t.optimizer + t.cp_comm,
            .pp_comm = t.pp_comm / s.base.vp,
            .per_sequence = t.compute / s.local_batch};
  }

  LayoutSearch Training(bool exhaustive) {
    Solve(Structures(PinnedSavers()), exhaustive);
    // Offload needs the host's RAM to be known (an instance type, not a bare GPU count).
    if (!result_.ok && !SaversPinned() && hw_.host_memory_gib > 0 &&
        (exhaustive || SaversCanFitGpu())) {
      // Nothing fits: try what people use to squeeze a job onto fewer or smaller GPUs, in order
      // of cost (ZeRO-Offload; parameters too; activations; optimizer in backward).
      for (const Savers& s : SaverLadder()) {
        Solve(Structures(s), exhaustive);
        if (result_.ok || result_.cut_off) {
          result_.memory_savers = true;
          break;
        }
      }
    }
    if (result_.cut_off) {
      result_.ok = false;
      result_.reason = "no layout can matter: every step takes at least " +
                       strings::Num(result_.floor_step_s) + " s";
      return result_;
    }
    if (result_.ok)
      result_.reason.clear();
    // A probe's memory stood in for the least-memory layout: time it for the caller.
    if (!result_.ok && result_.min_memory_gib > 0 && !stand_in_timed_) {
      if (Result<Estimate> e = Evaluate(result_.layout); e.ok())
        result_.estimate = *e;
    }
    if (!result_.ok && !host_reason_.empty())
      result_.reason = host_reason_;
    if (!result_.ok && result_.reason.empty()) {
      result_.reason = result_.min_memory_gib > 0 ? "no layout fits in memory"
                                                  : "no valid layout (the global batch of " +
                                                        std::to_string(w_.global_batch) +
                                                        " sequences must divide over the "
                                                        "data-parallel replicas)";
    }
    return result_;
  }

  // Whether any structure fits the GPU with the strongest savers (parameters and activations
  // offloaded) at its smallest micro-batch and heaviest recomputation: no saver needs less GPU
  // memory, so when none does the ladder cannot find a layout and is skipped.
  bool SaversCanFitGpu() {
    for (const Structure& s :
         Structures({Offload::kParams, false, true}, /*any_savers=*/true).structures) {
      Layout l = s.base;
      l.micro_batch = s.micro_batches.front();
      l.recompute = s.recomputes.back();
      Result<Estimate> e = Evaluate(l, true);  // memory only
      if (e.ok() && e->memory.checked_gib <= e->memory.capacity_gib)
        return true;
    }
    return false;
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
  LayoutSearch Inference() {
    const int gpus = hw_.Gpus();
    const int heads = arch_.IsTransformer() ? arch_.heads : 1;
    for (int tp : Divisors(hw_.gpus_per_node)) {
      if (!Allowed(pins_.tp, tp) || gpus % tp != 0 || heads % tp != 0)
        continue;
      if (tp > 1 && !arch_.IsTransformer())
        continue;
      const int pp = pins_.pp.value_or(1);
      if (pp < 1 || (gpus / tp) % pp != 0)
        continue;
      Layout l;
      l.tp = tp;
      l.pp = pp;
      l.dp = gpus / (tp * pp);
      l.ep = pins_.ep.value_or(1);
      if (!Allowed(pins_.dp, l.dp))
        continue;
      l.flash_attention = w_.flash_attention;
      l.micro_batch = w_.inference.batch ? *w_.inference.batch : 1;
      ++result_.structures;
      ++result_.configurations;
      Result<Estimate> e = Run(l);
      if (!e.ok() || !e->memory.fits)
        continue;
      if (!result_.ok || e->time.step_s < result_.estimate.time.step_s) {
        result_.ok = true;
        result_.layout = l;
        result_.estimate = *e;
      }
    }
    if (result_.ok)
      result_.reason.clear();
    if (!result_.ok && result_.reason.empty())
      result_.reason = "no layout fits in memory";
    return result_;
  }

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
  // Whether the attention kernels of the workload's frameworks run at different speeds on this
  // GPU (the calibration tells them apart): then a layout's compute depends on its framework.
  bool KernelsDiffer() const {
    if (!w_.IsTraining() || hw_.gpu == nullptr || w_.frameworks.empty())
      return false;
    const ArchEfficiency eff = cal_.For(*hw_.gpu);
    const double first = eff.AttentionFraction(w_.frameworks.front().attention_kernel);
    return std::any_of(w_.frameworks.begin(), w_.frameworks.end(), [&](const Framework& f) {
      return eff.AttentionFraction(f.attention_kernel) != first;
    });
  }
  const bool kernels_differ_;
  bool stand_in_timed_ = true;  // result_.estimate, while nothing fits, has its time
  std::string host_reason_;     // the least host RAM an offloaded layout that fits the GPU needs
  double host_need_ = 0;
};

}  // namespace

LayoutPins PinsFrom(const Workload& w) {
  LayoutPins p;
  p.micro_batch = w.micro_batch;
  p.recompute = w.recompute;
  p.cp = w.cp;
  p.vp = w.virtual_stages;
  p.offload = w.offload;
  p.optimizer_in_backward = w.optimizer_in_backward;
  p.activation_offload = w.activation_offload;
  for (const Framework& f : w.frameworks)
    p.frameworks.push_back(f.caps);
  return p;
}

LayoutSearch SearchLayout(const Workload& w, const ModelArch& arch, const Hardware& hw,
                          const Calibration& cal, const LayoutPins& pins, const CutOff& cut_off,
                          LayoutMemo* memo) {
  LayoutMemo::Shape* shared =
      memo ? memo->For(w, arch, pins, hw.Gpus(), hw.gpus_per_node) : nullptr;
  Search search(w, arch, hw, cal, pins, &cut_off, shared);
  return w.IsTraining() ? search.Training(false) : search.Inference();
}

LayoutSearch ExhaustiveLayoutSearch(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                    const Calibration& cal, const LayoutPins& pins) {
  Search search(w, arch, hw, cal, pins);
  return w.IsTraining() ? search.Training(true) : search.Inference();
}

}  // namespace gpuplan::perf
