// The performance model: memory per GPU, step time and throughput of a job on given hardware
// with a given parallel layout.
//
// perf::EstimateRun is pure, deterministic and allocation-light (microseconds per call): the
// planner calls it for every instance type x node count x layout it considers.
//
//   perf::Hardware hw = perf::HardwareFor(*catalog.FindGpu("A100-80G-SXM"), 8, 8);
//   perf::Layout layout;            // tp=pp=dp=1 ...
//   layout.dp = 8;
//   Result<perf::Estimate> e = perf::EstimateRun(workload, arch, hw, layout, calibration);
//   if (e.ok() && e->memory.fits) Use(e->time.step_s, e->throughput.mfu);
//
// Sources: memory follows Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
// Transformer Models") and ZeRO (Rajbhandari et al. 2020); time follows Narayanan et al. 2021
// (Megatron-LM at scale: 6N FLOPs/token + attention, pipeline bubble) with calibrated
// efficiencies (gpuplan/calibration.h).
//
// Thread safety: pure functions over const inputs.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_ESTIMATE_H_
#define GPUPLAN_INCLUDE_GPUPLAN_ESTIMATE_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/model.h"
#include "gpuplan/status.h"
#include "gpuplan/workload.h"

namespace gpuplan::perf {

using gpuplan::Offload;  // defined with the workload (include/gpuplan/workload.h)

// How the job is laid out over the GPUs: named parallel dimensions, placed from the innermost
// (fastest-varying rank index) outwards as Megatron-LM does: tp, cp, dp (with ep carved out of
// it), pp. tp * cp * pp * dp must equal the GPU count; ep divides dp.
struct Layout {
  int tp = 1;    // tensor parallel degree (inside a node)
  int cp = 1;    // context parallel: the sequence split over cp ranks (ring attention)
  int pp = 1;    // pipeline stages
  int vp = 1;    // virtual stages (model chunks) per pipeline rank: interleaved 1F1B when > 1
  int dp = 1;    // data parallel replicas
  int ep = 1;    // expert parallel: experts sharded over ep ranks of each dp group (MoE only)
  int zero = 0;  // ZeRO stage over dp: 0 none, 1 optimizer, 2 + gradients, 3 + parameters (FSDP)
  int micro_batch = 1;  // sequences per GPU per forward pass
  Recompute recompute = Recompute::kNone;
  bool sequence_parallel = false;  // Megatron sequence parallel (shards norms/dropout over tp)
  bool flash_attention = true;
  Offload offload = Offload::kNone;
  // The optimizer steps each parameter as soon as its gradient is ready (LOMO, Lv et al. 2023;
  // torchtune optimizer_in_bwd): no full set of gradients is ever held.
  bool optimizer_in_backward = false;
  // Saved activations are copied to host RAM in forward and back in backward (torchtune /
  // Megatron activation offloading), overlapped with compute where PCIe allows.
  bool activation_offload = false;
  // Who runs it: an index into the workload's frameworks (Workload::frameworks), set where the
  // search found another framework faster on this layout than the first that runs it
  // (FrameworkFor); -1 = the first of them that runs it.
  int framework = -1;

  int Gpus() const { return tp * cp * pp * dp; }
};

// "tp=2 pp=8 dp=1 ZeRO-0, micro-batch 1, full recompute" (cp, vp, ep and savers when set).
std::string DescribeLayout(const Layout& l);

enum class LinkKind { kNone, kPcie, kNvlink, kNvswitch };
std::string_view LinkKindName(LinkKind k);  // "none", "pcie", "nvlink", "nvswitch"

struct Hardware {
  const Gpu* gpu = nullptr;  // not owned; must outlive the Hardware
  int gpus_per_node = 1;
  int nodes = 1;
  LinkKind intra_link = LinkKind::kNone;  // between GPUs of one node
  double intra_gbs = 0;        // per GPU, one direction, GB/s (NVLink total / 2, or PCIe x16)
  double inter_node_gbps = 0;  // per node, Gbit/s (0 for one node)
  bool rdma = false;           // inter-node NCCL over eRDMA/IB/RoCE (else VPC TCP)
  double host_memory_gib = 0;  // host RAM per node (0 = unknown: offload is not checked)
  double host_vcpus = 0;       // vCPUs per node (0 = unknown: CPU image decoding is not checked)
  double gpu_memory_gib = 0;   // usable per GPU (vGPU slices and instances may be smaller)
  // The model's memory error the fit test allows for: true / predicted peak memory at the
  // workload's confidence (uncertainty::MemoryErrorRatio; the planner and `estimate` set it
  // from data/uncertainty.csv). A layout fits when its predicted memory times this is within
  // the usable memory. 1 = the point prediction (validation judges the model there).
  double memory_error_ratio = 1;

  int Gpus() const { return gpus_per_node * nodes; }
};

// Hardware of `nodes` instances of `type`: intra-node link from the instance's interconnect and
// the GPU's NVLink/PCIe bandwidth, inter-node from its network/eRDMA bandwidth. Errors: unknown
// GPU, a vGPU slice, nodes < 1.
Result<Hardware> HardwareFor(const Catalog& catalog, const InstanceType& type, int nodes);
// Hardware of `gpus` GPUs of `gpu`, `gpus_per_node` per node (NVLink when the GPU has it, else
// PCIe; between nodes an RDMA NIC per GPU as in NVIDIA's DGX designs, `arch`'s
// reference_nic_gbps (Catalog::ArchitectureOf); without `arch` the network is unknown (0) and
// collectives fall back to Calibration::fallback_link_gbs; the caller may change it).
// REQUIRES: gpus_per_node >= 1.
Hardware HardwareFor(const Gpu& gpu, int gpus, int gpus_per_node,
                     const Architecture* arch = nullptr);

// Per-GPU memory parts, GiB (2^30 bytes).
struct MemoryBreakdown {
  double weights = 0;      // model weights held on this GPU (after TP/PP/ZeRO-3 sharding)
  double gradients = 0;    // gradients of trainable parameters
  double optimizer = 0;    // optimizer states (incl. fp32 master copy for mixed precision)
  double adapters = 0;     // LoRA weights + their gradients and optimizer states
  double activations = 0;  // saved activations of in-flight micro-batches
  double kv_cache = 0;     // inference KV cache
  double transient = 0;    // peak temporary buffers (logits, workspaces, gathers)
  double overhead = 0;     // CUDA context + allocator fragmentation

  static constexpr int kParts = 8;
  // (name, GiB) pairs in a fixed order, for rendering and JSON.
  std::array<std::pair<std::string_view, double>, kParts> Named() const;
};

// Step time parts, seconds. They add up to the step time.
struct TimeBreakdown {
  double compute = 0;    // forward + backward (+ recompute) math
  double tp_comm = 0;    // tensor-parallel all-reduces / reduce-scatters, not overlapped
  double pp_bubble = 0;  // pipeline fill and drain
  double pp_comm = 0;    // point-to-point activations between stages
  double dp_comm = 0;    // gradient all-reduce / ZeRO gathers not hidden behind compute
  double optimizer = 0;  // optimizer step (memory-bound)
  double offload = 0;    // host <-> GPU traffic for offloaded states
  double data = 0;       // data loading not hidden behind compute
  double cp_comm = 0;    // context-parallel KV exchange not hidden behind attention
  double ep_comm = 0;    // expert-parallel token dispatch/combine all-to-alls

  static constexpr int kParts = 10;
  std::array<std::pair<std::string_view, double>, kParts> Named() const;
};

struct InferenceTimes {
  int batch = 1;                    // concurrent sequences
  double prefill_s = 0;             // prompt of the whole batch, one forward
  double ttft_ms = 0;               // time to first token (= prefill)
  double tpot_ms = 0;               // time per output token after the first
  double decode_s = 0;              // all output tokens
  double request_s = 0;             // prefill + decode of one batch
  double tokens_per_s_per_gpu = 0;  // generated tokens per second per GPU (prefill included)
  double prefill_tokens_per_s_per_gpu = 0;
  double requests_per_s = 0;        // sustained by this replica set
  bool decode_memory_bound = true;  // bandwidth (not compute) limits decode
};

struct Estimate {
  struct Memory {
    double per_gpu_gib = 0;    // peak allocated + overhead on the busiest GPU (nvidia-smi view)
    double allocated_gib = 0;  // peak bytes held by tensors (torch.cuda.max_memory_allocated)
    double reserved_gib = 0;   // allocated + allocator fragmentation (max_memory_reserved)
    double capacity_gib = 0;   // usable memory per GPU
    double checked_gib = 0;    // per_gpu_gib x Hardware::memory_error_ratio: what `fits` checks
    bool fits = false;         // checked_gib <= capacity_gib (and host_gib <= host_capacity_gib)
    double host_gib = 0;       // host RAM per node that offloading needs (0 = no offload)
    double host_capacity_gib = 0;  // what the node's RAM leaves for it (0 = not checked)
    // Training: what the loss holds of the logits at its peak (in breakdown.transient when the
    // loss's peak is the step's; CrossEntropy in gpuplan/framework.h). 0 for inference.
    double loss_gib = 0;
    MemoryBreakdown breakdown;
  } memory;
  struct Time {
    double step_s = 0;  // one optimizer step (training) or one batch (inference)
    TimeBreakdown breakdown;
    // Of breakdown.offload: the offloaded optimizer's and weights' traffic and the host's Adam
    // (the rest moves activations or pages 8-bit states). No smaller micro-batch at the same
    // recomputation makes it smaller: the layout search bounds memory savers with it.
    double offload_states = 0;
    // Pipelines: how much longer the last stage, which also runs the output head and the loss,
    // takes per micro-batch than the others (0.5 = 50% longer); it paces every micro-batch.
    double head_stage_extra = 0;
  } time;
  struct Throughput {
    double tokens_per_s_per_gpu = 0;
    double samples_per_s_per_gpu = 0;
    double tflops_per_gpu = 0;           // model FLOPs (6N + attention) per second
    double hardware_tflops_per_gpu = 0;  // including recomputation
    double mfu = 0;                      // model FLOPs utilisation of the dense peak, 0..1
  } throughput;
  struct Job {
    double steps = 0;
    double hours = 0;       // wall clock: the work plus interruptions and checkpoints
    double gpu_hours = 0;   // hours x GPUs
    double work_hours = 0;  // steps x step time, never interrupted
    // What `hours` adds to the work: stops at Calibration::interruptions_per_gpu_hour x GPUs,
    // each losing the restart and half a checkpoint interval of rework, and the checkpoints
    // themselves, written every Young/Daly interval (TrainingJob).
    double interruptions = 0;              // expected over the job
    double mtbf_hours = 0;                 // between two stops of the whole job (0: no stops)
    double checkpoint_minutes = 0;         // writing one checkpoint
    double checkpoint_interval_hours = 0;  // sqrt(2 x checkpoint x MTBF), at most the job
    double Goodput() const { return hours > 0 ? work_hours / hours : 1; }
  } job;  // zero when the workload gives no amount of work
  std::optional<InferenceTimes> inference;
  // The same batch if every step only read what it must (the weights its tokens pass through,
  // MoE experts they route to, the KV cache so far) at the GPU's datasheet bandwidth, with no
  // arithmetic or overhead: no engine can beat these times (validate flags a measurement that
  // does: its labels, its GPU count or its way of counting are off).
  std::optional<InferenceTimes> inference_floor;
  int grad_accum = 1;          // micro-batches per optimizer step per pipeline
  double peak_tflops = 0;      // dense peak of the GPU at the workload's precision
  double flops_per_token = 0;  // model FLOPs per token (training: fwd+bwd)
  // Of which the attention core (QK^T and AV over the full square: a causal mask's half is
  // counted, as in "6N + 12Lhs"); training only, 0 elsewhere.
  double attention_flops_per_token = 0;
  // The same two counted as the GPU runs them (recomputation included: hardware TFLOP/s).
  double hardware_flops_per_token = 0;
  double hardware_attention_flops_per_token = 0;
  // What the model FLOPs behind the MFU count, e.g. "6N + 12Lhs attention" (a static string:
  // the layout search copies estimates by the thousand).
  std::string_view mfu_basis;
};

// Estimates `w` with architecture `arch` on `hw` laid out as `layout`.
// Errors (InvalidArgument): layout does not match the GPU count, tp does not divide heads, pp
// exceeds layers, micro-batch larger than the global batch share, the GPU lacks the precision.
// Unsupported: a task the model does not cover (rendering, hpc) or a kOther model for decode.
// A job that does not fit is not an error: memory.fits is false.
Result<Estimate> EstimateRun(const Workload& w, const ModelArch& arch, const Hardware& hw,
                             const Layout& layout, const Calibration& cal);

// A training job of `w` at `step_s` seconds per step on `gpus` GPUs: the steps its tokens take
// (all zero when it gives no amount of work), the work's hours and the wall-clock hours and
// GPU-hours once stops (`cal`'s rate per GPU-hour, restart) and checkpoints of
// `checkpoint_s` seconds are added (Young 1974 / Daly 2006 first order;
// cost::InterruptedWallHours). A job whose stops would eat 90% or more of its time gets infinite
// hours.
Estimate::Job TrainingJob(const Workload& w, int gpus, double step_s, const Calibration& cal,
                          double checkpoint_s);

// Seconds to write one checkpoint of the run `e` estimates: every node writes the states its GPUs
// hold that no other data-parallel replica holds (full training: weights and optimizer states
// with the master copy; LoRA: the adapters; offloaded states from host RAM) at
// Calibration::checkpoint_write_gbps_per_node, all nodes at once. Synchronous writes: stacks
// that checkpoint asynchronously block for less.
double CheckpointSeconds(const Workload& w, const Estimate& e, const Layout& layout,
                         const Hardware& hw, const Calibration& cal);

// The layout perf::SearchLayout (gpuplan/layout_search.h) picks with the workload's pins: the
// fastest that fits, else the one with the least memory (check the estimate).
Layout DefaultLayout(const Workload& w, const ModelArch& arch, const Hardware& hw,
                     const Calibration& cal);

// The largest micro-batch (<= limit) that fits with everything else as in `layout`; 0 when
// not even 1 fits.
int MaxMicroBatch(const Workload& w, const ModelArch& arch, const Hardware& hw,
                  const Layout& layout, const Calibration& cal, int limit = 1024);
// The largest divisor of n that is <= limit (1 when none larger): micro-batches that divide the
// per-replica batch. REQUIRES: n >= 1.
int LargestDivisorAtMost(int n, int limit);
// The longest sequence (<= limit tokens) that fits; 0 when none does.
int MaxSeqLen(const Workload& w, const ModelArch& arch, const Hardware& hw, const Layout& layout,
              const Calibration& cal, int limit = 1 << 20);

}  // namespace gpuplan::perf

#endif  // GPUPLAN_INCLUDE_GPUPLAN_ESTIMATE_H_
