#include "gpuplan/rules.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>

#include "gpuplan/enum_names.h"
#include "gpuplan/strings.h"

namespace gpuplan::rules {
namespace {

using strings::Num;

using Rule = void (*)(const Context& c, std::vector<Advice>& out);

// The storage.csv row of `kind`; nullptr when the context has no storage rows or no such row.
const StorageClass* FindStorage(const Context& c, std::string_view kind) {
  return c.storage ? gpuplan::FindStorage(*c.storage, kind) : nullptr;
}

void Add(std::vector<Advice>& out, const char* rule, Severity s, std::string message) {
  out.push_back({rule, s, std::move(message)});
}

// The articles' "CPU and RAM per GPU" advice: PyTorch data loaders need cores to decode and
// augment; 4 vCPU per GPU is the usual floor for text, 8 for images/video (large samples).
void CpuPerGpu(const Context& c, std::vector<Advice>& out) {
  if (!c.workload->IsTraining())
    return;
  const double per_gpu = c.instance->vcpu / std::max(c.instance->gpu_count, 1.0);
  const bool heavy_samples = c.workload->dataset.sample_kb && *c.workload->dataset.sample_kb >= 100;
  const double want = heavy_samples ? 8 : 4;
  if (per_gpu < want) {
    Add(out, "vcpu-per-gpu", Severity::kWarning,
        "only " + Num(per_gpu) + " vCPU per GPU; data loading " +
            (heavy_samples ? "of large samples (images, audio) " : "") + "wants at least " +
            Num(want) + " per GPU or the GPU waits for batches (watch it with gpuplan monitor)");
  }
}

// Image models read JPEGs: decoded by the host's cores (PIL, torchvision) each image costs
// calibration.csv jpeg_decode_ms of one core, which caps images/s at vCPUs per GPU over it (the
// inference estimate applies the cap); NVIDIA DALI / nvJPEG decode on the GPU instead.
void JpegDecode(const Context& c, std::vector<Advice>& out) {
  if (c.modality != Modality::kImage || !c.calibration || c.samples_per_s <= 0)
    return;
  const double gpus = std::max(c.instance->gpu_count, 1.0) * std::max(c.nodes, 1);
  const double per_gpu_vcpu = c.instance->vcpu / std::max(c.instance->gpu_count, 1.0);
  const double per_gpu_rate = c.samples_per_s / gpus;
  const double cores = per_gpu_rate * c.calibration->jpeg_decode_ms / 1e3;
  if (c.workload->inference.gpu_image_decode) {
    Add(out, "jpeg-decode-gpu", Severity::kInfo,
        "images decoded on the GPU (DALI / nvJPEG): " + Num(per_gpu_rate) +
            " images/s per GPU need no host cores for decoding");
    return;
  }
  const double cap = per_gpu_vcpu * 1e3 / c.calibration->jpeg_decode_ms;
  if (cores >= 0.9 * per_gpu_vcpu) {
    Add(out, "jpeg-decode-cpu", Severity::kWarning,
        "decoding JPEGs on the CPU (about " + Num(c.calibration->jpeg_decode_ms) +
            " ms of one core each) caps this type at about " + Num(cap) + " images/s per GPU (" +
            Num(per_gpu_vcpu) +
            " vCPU per GPU): decode on the GPU with NVIDIA DALI / nvJPEG (inference.image_decode: "
            "gpu) or choose a type with more vCPUs per GPU");
  } else {
    Add(out, "jpeg-decode-cpu", Severity::kInfo,
        Num(per_gpu_rate) + " images/s per GPU take about " + Num(cores) + " of the " +
            Num(per_gpu_vcpu) + " vCPU per GPU for JPEG decoding");
  }
}

// Host RAM should hold at least the GPUs' memory: checkpoints are staged in RAM, pinned buffers
// and data-loader workers live there, and ZeRO-Offload needs far more.
void RamPerGpu(const Context& c, std::vector<Advice>& out) {
  const double gpus = std::max(c.instance->gpu_count, 1.0);
  const double gpu_total = c.instance->gpu_memory_gib * gpus;
  if (c.workload->IsTraining() && c.instance->memory_gib < gpu_total) {
    Add(out, "ram-per-gpu", Severity::kWarning,
        Num(c.instance->memory_gib) + " GiB RAM for " + Num(gpu_total) +
            " GiB of GPU memory; saving and loading checkpoints and data-loader workers need at "
            "least as much host RAM as GPU memory");
  }
}

// The share of a step the gradient all-reduce may take over VPC TCP before the missing eRDMA is
// critical rather than a warning: beyond it the network, not the GPUs, sets the job's speed
// (a judgement threshold, not a fitted value; the advice shows the share itself).
constexpr double kCriticalCommShare = 0.3;

void MultiNodeNetwork(const Context& c, std::vector<Advice>& out) {
  if (c.nodes < 2)
    return;
  const double share = c.step_s > 0 ? c.dp_comm_s / c.step_s : 0;
  if (!c.instance->rdma) {
    Add(out, "multi-node-needs-erdma",
        share > kCriticalCommShare ? Severity::kCritical : Severity::kWarning,
        c.instance->family + " has no eRDMA: NCCL between the " + std::to_string(c.nodes) +
            " nodes runs over VPC TCP at " + Num(c.instance->network_gbps) + " Gbit/s" +
            (share > 0 ? "; gradient all-reduce takes " + Num(share * 100) + "% of each step"
                       : "") +
            ". Prefer an eRDMA family (ebmgn7ex, ebmgn8v, ebmgn8is, gn8is, gn8v)");
  } else {
    Add(out, "erdma-jumbo-frames", Severity::kInfo,
        "multi-node NCCL over eRDMA: attach an ERI to each node, install the eRDMA driver and "
        "enable jumbo frames (MTU 8500) for NCCL's LL128 protocol, otherwise MTU 1400 (Alibaba "
        "eRDMA doc); check all-reduce bus bandwidth with gpuplan probe before the full run");
  }
}

void TensorParallelLink(const Context& c, std::vector<Advice>& out) {
  if (c.tp < 2)
    return;
  if (c.instance->interconnect == Interconnect::kPcie) {
    Add(out, "tensor-parallel-needs-nvlink", Severity::kWarning,
        "tensor parallel over PCIe (" + c.gpu->name +
            " has no NVLink): each layer's all-reduces cross PCIe; keep tp small or pick an "
            "NVLink/NVSwitch family (gn7, gn7e, ebmgn7ex, gn8v)");
  }
}

// The last pipeline stage runs the output head and the loss beside its layers; with a large
// vocabulary and few layers per stage every micro-batch waits for it. Megatron-Core and
// torchtitan let the user give it fewer layers.
void PipelineHeadStage(const Context& c, std::vector<Advice>& out) {
  if (c.pp < 2 || c.head_stage_extra < 0.1)
    return;
  Add(out, "pipeline-head-stage", Severity::kInfo,
      "the last of the " + std::to_string(c.pp) +
          " pipeline stages also runs the output head and the loss: it takes " +
          Num(c.head_stage_extra * 100) +
          "% longer than the others and every micro-batch waits for it; give it fewer layers "
          "(Megatron-Core --decoder-last-pipeline-num-layers or --account-for-loss-in-pipeline-"
          "split, torchtitan's per-stage layer counts) or use fewer stages");
}

// MoE training or serving whose expert all-to-alls are a large part of the step, not
// overlapped: Megatron-Core runs them behind another micro-batch's compute, SGLang and vLLM
// behind the other half of a split batch (calibration.csv moe_a2a_overlap_on).
void MoeAllToAllOverlap(const Context& c, std::vector<Advice>& out) {
  const bool training = c.workload->IsTraining();
  const double span = training ? c.step_s : c.serving_s;
  if (c.workload->moe_a2a_overlap || span <= 0 || c.ep_comm_s < 0.1 * span)
    return;
  const std::string how =
      training ? "Megatron-Core's --overlap-moe-expert-parallel-comm (Megatron-Bridge "
                 "moe_a2a_overlap) runs them behind another micro-batch's compute"
               : "SGLang's --enable-two-batch-overlap and vLLM's --enable-dbo run one half of "
                 "each batch's dispatch and combine behind the other half's compute";
  Add(out, "moe-a2a-overlap", Severity::kInfo,
      "the experts' all-to-alls take " + Num(100 * c.ep_comm_s / span) + "% of each " +
          (training ? "step" : "batch's time") + "; " + how +
          ": if your stack runs it, set moe_a2a_overlap: true (--moe-a2a-overlap) and gpuplan "
          "plans with it");
}

// Tensor-parallel training whose all-gathers and reduce-scatters are a large part of the step,
// in the open: Transformer Engine's userbuffers run them inside the GEMMs (calibration.csv
// tp_comm_overlap_on). Same threshold as moe-a2a-overlap.
void TensorParallelOverlap(const Context& c, std::vector<Advice>& out) {
  if (c.workload->tp_comm_overlap || c.step_s <= 0 || c.tp_comm_s < 0.1 * c.step_s)
    return;
  Add(out, "tp-comm-overlap", Severity::kInfo,
      "the tensor-parallel all-gathers and reduce-scatters take " +
          Num(100 * c.tp_comm_s / c.step_s) +
          "% of each step in the open; Megatron-Core's --tp-comm-overlap (Transformer Engine "
          "userbuffers, with sequence parallelism; on in Megatron-Bridge's and NeMo's performance "
          "recipes) runs them inside the GEMMs: if your stack runs it, set tp_comm_overlap: true "
          "(--tp-comm-overlap) and gpuplan plans with it");
}

// A training whose loss holds the logits whole and takes a large share of each GPU's memory (a
// large vocabulary: Llama 3's 128K, Qwen's 152K): a loss fused with the output projection never
// materialises them (Liger Kernel's FusedLinearCrossEntropy, Cut Cross-Entropy), which buys a
// larger micro-batch, less recomputation or fewer GPUs. The thresholds are gpuplan's, as for
// moe-a2a-overlap: below 2 GiB or a tenth of the GPU the saving seldom changes the layout.
void FusedLinearLoss(const Context& c, std::vector<Advice>& out) {
  if (c.loss_gib < 2 || c.memory_per_gpu_gib <= 0 || c.loss_gib < 0.1 * c.memory_per_gpu_gib)
    return;
  Add(out, "fused-linear-loss", Severity::kInfo,
      "the loss holds " + Num(c.loss_gib) + " GiB of logits per GPU (" +
          Num(100 * c.loss_gib / c.memory_per_gpu_gib) +
          "% of its memory); a cross entropy fused with the output projection (Liger Kernel: "
          "LLaMA-Factory enable_liger_kernel, Axolotl liger_fused_linear_cross_entropy; Cut "
          "Cross-Entropy) never holds them whole: if your stack runs one, set cross_entropy: "
          "fused_linear (--cross-entropy fused_linear) and gpuplan plans with it");
}

void TrainingOnInferenceGpus(const Context& c, std::vector<Advice>& out) {
  if (!c.workload->IsTraining())
    return;
  if (c.gpu->inference_only) {
    Add(out, "inference-gpu-for-training", Severity::kWarning,
        c.gpu->name + " is an inference card (" + Num(c.gpu->Tflops(Precision::kFp16).value_or(0)) +
            " FP16 TFLOPS, " + Num(c.gpu->memory_bandwidth_gbs) +
            " GB/s, low power): fine for small LoRA tests, slow for real training");
  }
  if (c.instance->vgpu()) {
    Add(out, "vgpu-not-for-training", Severity::kCritical,
        "a vGPU slice shares one GPU; CUDA training needs whole GPUs");
  }
}

// A generation the newest CUDA dropped (architectures.csv newest_cuda_major: CUDA 13.0 removed
// Maxwell, Pascal and Volta) needs the last CUDA that has it and frameworks built for it.
void LegacyGeneration(const Context& c, std::vector<Advice>& out) {
  if (c.architecture && c.architecture->newest_cuda_major) {
    const int last = *c.architecture->newest_cuda_major;
    Add(out, "legacy-gpu-cuda-support", Severity::kWarning,
        c.gpu->name + " (" + c.gpu->architecture + ", sm_" + std::to_string(c.architecture->Sm()) +
            ") is dropped by CUDA " + std::to_string(last + 1) + "; stay on CUDA " +
            std::to_string(last) +
            ".x images and framework builds for it, and expect no BF16, FP8 or FlashAttention 2");
  }
  if (c.instance->status == Lifecycle::kRetired || c.instance->status == Lifecycle::kLegacy) {
    Add(out, "legacy-family", Severity::kInfo,
        c.instance->family + " is " + std::string(LifecycleName(c.instance->status)) +
            ": stock may be thin and newer families are usually cheaper per unit of work");
  }
  if (c.instance->status == Lifecycle::kPreview) {
    Add(out, "preview-family", Severity::kWarning,
        c.instance->family +
            " is an invitational preview: request access from Alibaba Cloud "
            "sales before you plan on it");
  }
}

void PrecisionSupport(const Context& c, std::vector<Advice>& out) {
  const Precision p = c.workload->precision;
  if (Fp8WeightOnly(*c.gpu, p, c.workload->task == Task::kInference)) {
    Add(out, "fp8-weight-only", Severity::kInfo,
        c.gpu->name +
            " has no fp8 units: the FP8 weights are served weight-only (bf16 math over 1-byte "
            "weights, vLLM's FP8 Marlin kernels; KV cache in bf16), as fast as 8-bit weights "
            "where decode reads weights, at bf16 speed where it computes");
  } else if (RunsAs(*c.gpu, p) != p) {
    Add(out, "bf16-as-fp16", Severity::kInfo,
        c.gpu->name + " has no bf16 units: planned in fp16 (same speed class and memory)" +
            (c.workload->IsTraining() ? "; train with fp16 loss scaling (torch.cuda.amp.GradScaler)"
                                      : "") +
            "; a model that overflows in fp16 needs a bf16 GPU (A10, A100, L20, H20 and newer)");
  } else if (!c.gpu->Tflops(p)) {
    Add(out, "precision-unsupported", Severity::kCritical,
        c.gpu->name + " has no " + std::string(PrecisionName(p)) + " units" +
            (p == Precision::kBf16 ? "; use fp16 with loss scaling" : ""));
  }
  // The FP64 threshold is a calibration.csv row; without a calibration the rule says nothing.
  if ((c.workload->constraints.need_fp64 || c.workload->task == Task::kHpc) && c.calibration) {
    const double fp64 = c.gpu->Tflops(Precision::kFp64).value_or(0);
    if (fp64 < c.calibration->hpc_min_fp64_tflops) {
      Add(out, "fp64-needs-hpc-gpu", Severity::kCritical,
          c.gpu->name + " has " + (fp64 > 0 ? Num(fp64) + " FP64 TFLOPS" : "no usable FP64") +
              "; FP64 work needs A100/A30/V100/P100-class GPUs (gn7, gn7e, gn7s, gn6v, gn5)");
    }
  }
}

void Storage(const Context& c, std::vector<Advice>& out) {
  const Dataset& d = c.workload->dataset;
  const double need = RequiredReadMbs(c);
  if (d.location == DataLocation::kNas && d.sample_kb && *d.sample_kb < 64) {
    Add(out, "nas-small-files", Severity::kWarning,
        "samples of " + Num(*d.sample_kb) +
            " KB on NAS are bound by metadata operations, not bandwidth; pack them into large "
            "shards (tar/WebDataset, Arrow, TFRecord) or copy them to local disk first");
  }
  if (d.location == DataLocation::kOss) {
    Add(out, "oss-staging", Severity::kInfo,
        "read OSS through its internal (VPC) endpoint in the same region, in large sequential "
        "objects; for many epochs stage the data to ESSD, local NVMe or CPFS first");
  }
  // The ESSD levels' caps and the sizes that reach them come from data/storage.csv.
  const StorageClass* pl1 = FindStorage(c, "essd_pl1");
  if (d.location == DataLocation::kEssd && pl1 && pl1->max_mbs && need > *pl1->max_mbs) {
    std::string faster;
    const std::pair<const char*, const char*> kFaster[] = {{"essd_pl2", "PL2"},
                                                           {"essd_pl3", "PL3"}};
    for (const auto& [kind, label] : kFaster) {
      const StorageClass* l = FindStorage(c, kind);
      if (l == nullptr || !l->max_mbs || !l->GibAtMaxMbs())
        continue;
      faster += (faster.empty() ? "" : ", ") + std::string(label) + " " + Num(*l->max_mbs) +
                " at >= " + Num(*l->GibAtMaxMbs()) + " GiB";
    }
    Add(out, "essd-throughput", Severity::kWarning,
        "the job reads " + Num(need) + " MB/s; one ESSD PL1 disk tops out at " +
            Num(*pl1->max_mbs) + " MB/s (" + (faster.empty() ? "" : faster + "; ") +
            "the instance's disk bandwidth also caps it)");
  }
  if (d.size_gb && c.calibration &&
      *d.size_gb * 0.931 < c.calibration->page_cache_fraction * c.instance->memory_gib) {
    Add(out, "dataset-fits-in-ram", Severity::kInfo,
        "the " + Num(*d.size_gb) + " GB dataset fits in the page cache of this instance's " +
            Num(c.instance->memory_gib) +
            " GiB RAM; after the first epoch storage speed stops mattering");
  }
  if (c.nodes > 1 && d.location != DataLocation::kCpfs && d.location != DataLocation::kOss) {
    Add(out, "shared-storage-multi-node", Severity::kInfo,
        "with " + std::to_string(c.nodes) +
            " nodes, keep the data on shared storage (CPFS for throughput, or OSS) or copy it to "
            "each node's disk before starting");
  }
}

void Billing(const Context& c, std::vector<Advice>& out) {
  if (c.billing == cost::Mode::kSpot) {
    std::string interval =
        c.checkpoint_interval_hours
            ? " every " + Num(*c.checkpoint_interval_hours * 60) + " minutes (Young/Daly)"
            : " regularly";
    Add(out, "spot-needs-checkpoints", Severity::kWarning,
        "spot instances are reclaimed with a 5-minute notice after the 1-hour protection: save "
        "checkpoints" +
            interval +
            ", make the job resume from the latest one, and run "
            "'gpuplan watch-spot --pid PID' to checkpoint on the notice" +
            (c.spot_cost_lower_bound
                 ? "; the spot cost is a lower bound (no reclaim rate known: run 'gpuplan prices "
                   "refresh' for DescribeSpotAdvice)"
                 : ""));
  }
  // Break-even of a monthly subscription against pay-as-you-go (price_ratios.csv): the month's
  // price is `ratio` x hours_per_month x PAYG, so it wins above ratio x hours_per_month hours.
  const cost::PriceRatios defaults;
  const cost::PriceRatios& ratios = c.ratios ? *c.ratios : defaults;
  const double ratio = ratios.subscription_month_vs_payg;
  const double break_even_h = ratio * ratios.hours_per_month;
  if (c.workload->constraints.long_running || c.job_hours > break_even_h) {
    Add(out, "long-running-subscription", Severity::kInfo,
        "running " + (c.job_hours > 0 ? Num(c.job_hours) + " h" : std::string("for months")) +
            ": above about " + Num(std::round(ratio * 100)) + "% utilisation (" +
            Num(std::round(break_even_h)) +
            " h a month) a monthly subscription beats pay-as-you-go (list prices: subscription = " +
            Num(ratio) + " x " + Num(ratios.hours_per_month) +
            " h PAYG); compare with 'gpuplan prices compare' and consider a savings plan");
  }
}

void Security(const Context& c, std::vector<Advice>& out) {
  (void)c;
  Add(out, "data-in-vpc", Severity::kInfo,
      "keep training data and checkpoints in the same region and VPC (private OSS buckets via "
      "the internal endpoint, NAS/CPFS mount targets in the VPC): no public egress cost, no "
      "public exposure");
}

void MemoryHeadroom(const Context& c, std::vector<Advice>& out) {
  if (c.memory_capacity_gib <= 0)
    return;
  const double used = c.memory_per_gpu_gib / c.memory_capacity_gib;
  // The model's memory error: at p90 the job may need more than the GPU has.
  const bool p90_over = c.memory_p90_gib > c.memory_capacity_gib;
  if (used > 0.9 || p90_over) {
    Add(out, "memory-headroom", Severity::kWarning,
        "the estimate uses " + Num(used * 100) + "% of GPU memory" +
            (p90_over ? " (" + Num(c.memory_p90_gib) + " of " + Num(c.memory_capacity_gib) +
                            " GiB at p90 of the model's memory error)"
                      : "") +
            "; fragmentation or a longer batch can OOM. Keep "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True and test the first steps" +
            (p90_over ? "; memory_confidence 0.9 (the default) plans a layout that fits at p90"
                      : ""));
  }
}

constexpr Rule kRules[] = {PrecisionSupport,
                           TrainingOnInferenceGpus,
                           MultiNodeNetwork,
                           TensorParallelLink,
                           PipelineHeadStage,
                           MoeAllToAllOverlap,
                           TensorParallelOverlap,
                           FusedLinearLoss,
                           CpuPerGpu,
                           JpegDecode,
                           RamPerGpu,
                           MemoryHeadroom,
                           LegacyGeneration,
                           Storage,
                           Billing,
                           Security};

}  // namespace

constexpr EnumNames<Severity, 3> kSeverityNames = {{{Severity::kInfo, "info"},
                                                    {Severity::kWarning, "warning"},
                                                    {Severity::kCritical, "critical"}}};
std::string_view SeverityName(Severity s) { return NameOf(kSeverityNames, s); }

double RequiredReadMbs(const Context& c) {
  const Dataset& d = c.workload->dataset;
  if (d.sample_kb && c.samples_per_s > 0)
    return c.samples_per_s * *d.sample_kb / 1000;
  // Pre-tokenized text: 2 bytes per token (uint16) while the vocabulary fits, else 4 (uint32).
  if (c.tokens_per_s > 0)
    return c.tokens_per_s * (c.vocab > 65535 ? 4 : 2) / 1e6;
  return 0;
}

std::vector<Advice> Check(const Context& c) {
  std::vector<Advice> out;
  for (Rule rule : kRules)
    rule(c, out);
  std::stable_sort(out.begin(), out.end(), [](const Advice& a, const Advice& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
  return out;
}

}  // namespace gpuplan::rules
