// Calibration: the few fitted, physically meaningful parameters of the performance model.
//
// Everything the model cannot derive from datasheets (what fraction of peak FLOPS a GPU
// generation really reaches on transformer GEMMs, how much of link bandwidth NCCL gets, how much
// memory PyTorch's allocator and the CUDA context add) lives here, read from data/calibration.csv
// (io/calibration_csv.h) where each row names its source and how it was fitted. No model formula
// contains a fitted constant of its own, and neither does this header: the data file is the only
// source of the values. A field holds kNotLoaded (NaN) until the loader sets it, and the loader
// fails on a missing row, so a default-constructed Calibration is not a model anyone runs (every
// estimate made from it is NaN). Tests load the shipped file (tests/testing/
// embedded_calibration.h) and set by hand only the values they study.
//
//   Result<Calibration> cal = io::LoadCalibration();  // data/calibration.csv, embedded
//
// Thread safety: a plain value.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_CALIBRATION_H_
#define GPUPLAN_INCLUDE_GPUPLAN_CALIBRATION_H_

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/workload.h"

namespace gpuplan {

struct Gpu;

// The value of a calibration field no row has set: NaN, so that a result computed from it shows.
inline constexpr double kNotLoaded = std::numeric_limits<double>::quiet_NaN();

// Efficiency of one GPU generation (Gpu::architecture: "Volta", "Turing", "Ampere", "Ada",
// "Hopper", "Blackwell").
struct ArchEfficiency {
  std::string architecture;
  // Fraction of the dense tensor peak reached by large, well-shaped training GEMMs (the
  // asymptote; smaller shapes get less, see Calibration::gemm_half_*).
  double gemm_fraction = kNotLoaded;
  // Fraction of the datasheet memory bandwidth reached by streaming reads (decode).
  double memory_bw_fraction = kNotLoaded;
  // Fraction of the dense peak reached by fused (flash) attention forward+backward on the
  // FLOPs it executes (causal: half the square). FlashAttention-2 is tuned for Ampere and
  // reaches a smaller share of Hopper's peak (Dao 2023; Shah et al. 2024).
  double attention_fraction = kNotLoaded;
  // The same for cuDNN's fused attention (Transformer Engine's FusedAttention: Megatron-Core and
  // NeMo on Hopper, data/frameworks.csv attention_kernel cudnn), where measurements give it;
  // unset = attention_fraction (no data: the kernels are not told apart).
  std::optional<double> cudnn_attention_fraction;
  // vLLM's and SGLang's prefill attention, forward only (FlashAttention-3 on Hopper), where
  // measurements give it; unset = attention_fraction.
  std::optional<double> serving_attention_fraction;
  // Fraction of the datasheet FP32 (non-tensor) peak reached by FP32 GEMMs on the CUDA cores
  // (cuBLAS SGEMM). Where FP32 shares a datapath with INT32 (GA10x, Ada) the datasheet counts
  // both halves and SGEMM reaches about half of what it reaches elsewhere.
  double simt_fraction = kNotLoaded;
  // The tensor-to-vector ratio of the part the attention fractions were measured on: its dense
  // 16-bit tensor peak over its achieved FP32 (SIMT) rate, datasheet FP32 x simt_fraction
  // (H100 SXM for Hopper, A100 for Ampere). Calibration::For moves the attention fractions to
  // a part of another ratio; unset = every part of the architecture gets them as they are.
  std::optional<double> attention_reference_ratio;

  // The attention fraction of kernel `k`.
  double AttentionFraction(AttentionKernel k) const {
    return k == AttentionKernel::kCudnn ? cudnn_attention_fraction.value_or(attention_fraction)
                                        : attention_fraction;
  }
  // The attention fraction of a serving engine's prefill.
  double ServingAttentionFraction() const {
    return serving_attention_fraction.value_or(attention_fraction);
  }
};

// A measured or fitted correction for one GPU model: the values it sets replace its
// architecture's; the others are inherited from it.
struct GpuEfficiency {
  std::string gpu;  // Gpu::name
  std::optional<double> gemm_fraction;
  std::optional<double> memory_bw_fraction;
  std::optional<double> attention_fraction;
  std::optional<double> simt_fraction;
  std::optional<double> cudnn_attention_fraction;
  std::optional<double> serving_attention_fraction;
  std::optional<double> attention_reference_ratio;  // architecture rows only

  // `base` with the values this row sets in place of its own.
  ArchEfficiency Over(ArchEfficiency base) const;
};

struct Calibration {
  std::vector<ArchEfficiency> archs;
  ArchEfficiency fallback;          // for an architecture not listed
  std::vector<GpuEfficiency> gpus;  // per-GPU corrections (calibration.csv scope gpu:NAME)

  // GEMM shape: efficiency = gemm_fraction * d/(d + gemm_half_dim) * t/(t + t_half) with d the
  // per-GPU hidden size (hidden / tp) and t the tokens (rows) of the GEMM. t_half is
  // gemm_weight_read_factor times the GPU's ridge point (the rows at which reading the weights
  // takes as long as the arithmetic: peak x element bytes / (2 x bandwidth)), so a GEMM costs
  // its arithmetic plus that many weight reads: a few rows make a bandwidth-bound GEMV.
  double gemm_half_dim = kNotLoaded;
  double gemm_weight_read_factor = kNotLoaded;
  // Unfused attention materialises the s x s scores and is memory-bound: it runs at this
  // fraction of the GEMM efficiency.
  double unfused_attention_factor = kNotLoaded;
  // FP8 GEMMs (Transformer Engine) reach this fraction of the efficiency BF16 GEMMs reach, as
  // a fraction of the FP8 peak (casts and scaling cost extra).
  double fp8_gemm_factor = kNotLoaded;
  // Non-GEMM work (norms, activation functions, residual adds, rotary, dropout) is
  // memory-bound: bytes moved per token per layer in one forward pass, in units of
  // (hidden + ffn) x element size. Backward moves twice as much.
  double elementwise_traffic = kNotLoaded;
  // The same for eager PyTorch inference (TorchScript, HF transformers), which runs each
  // elementwise operation as its own kernel.
  double eager_elementwise_traffic = kNotLoaded;
  // Unfused inference attention: passes over the heads x s x s score matrix (in element size)
  // beyond the two batched GEMMs.
  double unfused_score_passes = kNotLoaded;
  // Fixed time per layer per forward or backward pass of a micro-batch in eager PyTorch
  // training (kernel launches, hooks), microseconds.
  double train_layer_overhead_us = kNotLoaded;
  // The GEMM inner size (per GPU) assumed for a non-transformer (convolutional) model, whose
  // im2col GEMMs have K = input channels x kernel area; elements.
  double conv_gemm_dim = kNotLoaded;
  // Host time per layer of one forward pass of a kind=other model (CNN, UNet, ViT, Whisper)
  // in eager PyTorch (a compiled engine: a quarter), microseconds; it overlaps the GPU.
  double other_layer_overhead_us = kNotLoaded;
  // CPU time to decode and resize one JPEG image for a vision model (PIL / torchvision on one
  // core), milliseconds: the vCPUs per GPU an image job needs (rules: jpeg-decode-cpu).
  double jpeg_decode_ms = kNotLoaded;
  // Host time to dispatch one kernel in eager PyTorch training (Python, autograd, dispatcher,
  // cudaLaunchKernel), microseconds. The host runs ahead of the GPU, so a LoRA step takes the
  // longer of its GPU time and its launches x this (src/core/perf/op_records.cc counts them).
  double eager_launch_us = kNotLoaded;
  // Host time of DeepSpeed ZeRO-3's per-module parameter hooks (fetch before a submodule runs,
  // release after), microseconds per parameterised module per pass. Like the launches, the host
  // runs ahead of the GPU: a micro-batch takes the longer of its GPU time and its hooks.
  double zero3_module_hook_us = kNotLoaded;

  // Achieved fraction of the link's one-direction bandwidth for NCCL ring collectives.
  double nvlink_efficiency = kNotLoaded;
  double pcie_efficiency = kNotLoaded;
  // GPUs of a node that share one PCIe uplink to the host (a PCIe switch): offload traffic, sent
  // by every GPU at once, gets the link's bandwidth divided among them (training_time.cc).
  double host_link_gpus = kNotLoaded;
  double rdma_efficiency = kNotLoaded;        // eRDMA / InfiniBand / RoCE
  double tcp_efficiency = kNotLoaded;         // plain VPC TCP
  double collective_latency_us = kNotLoaded;  // per collective step (per ring hop)
  // One tensor-parallel all-reduce of a vLLM-class serving engine inside an NVLink domain: its
  // own one-shot kernel (custom all-reduce), whose latency does not grow with the group.
  double engine_allreduce_us = kNotLoaded;
  // Bandwidth assumed for a link whose speed the catalog does not give (no NVLink and no PCIe
  // generation, or no network), GB/s: a placeholder that keeps an estimate finite, not a
  // measurement.
  double fallback_link_gbs = kNotLoaded;
  // Fraction of data-parallel gradient communication hidden behind backward compute.
  double dp_overlap = kNotLoaded;
  // Fraction of ZeRO-3 parameter all-gathers hidden behind compute (prefetch).
  double zero3_overlap = kNotLoaded;
  // Mixture-of-Experts: the busiest expert's tokens over the mean (routing is never perfectly
  // balanced; NVIDIA's MoE benchmarks force-balance it, real runs are slower), and the fraction
  // of the token dispatch/combine all-to-all hidden behind compute (Megatron/DeepEP overlap).
  double moe_load_imbalance = kNotLoaded;
  double moe_a2a_overlap = kNotLoaded;
  // The fraction of those all-to-alls hidden when training turns the overlap on
  // (Workload::moe_a2a_overlap).
  double moe_a2a_overlap_on = kNotLoaded;
  // The fraction of training's tensor-parallel communication hidden behind the GEMMs when the
  // run turns the overlap on (Workload::tp_comm_overlap).
  double tp_comm_overlap_on = kNotLoaded;
  // Fixed time per MoE layer per training pass (router, permute and grouped-GEMM launches and
  // the host sync for the dispatch's token counts), microseconds.
  double moe_layer_overhead_us = kNotLoaded;
  // Host Adam throughput of one node for ZeRO-Offload (DeepSpeed CPU-Adam), 1e9 parameters/s
  // of mixed-precision AdamW (28 bytes streamed per parameter; memory-bandwidth-bound, so
  // states of fewer bytes update proportionally faster).
  double cpu_adam_gparams_per_s = kNotLoaded;
  // Share of an instance's RAM that offloaded states may take (the rest: OS, page cache,
  // data-loader workers, pinned staging buffers).
  double host_ram_usable_fraction = kNotLoaded;

  // Memory: the CUDA context and library workspaces outside the PyTorch allocator (what
  // nvidia-smi shows above max_memory_reserved), GiB.
  double cuda_context_gib = kNotLoaded;
  // Reserved over allocated (fragmentation of the caching allocator), fraction.
  double allocator_fragmentation = kNotLoaded;
  // Peak transient buffers (gradient buckets, logits in fp32, temporary GEMM workspaces) as a
  // fraction of one layer's activations plus the logits.
  double transient_factor = kNotLoaded;

  // Inference engine overheads per forward pass (one generated token, or the prefill), by
  // engine, microseconds. `layer`: host time to launch one layer's kernels; it runs ahead of
  // the GPU, so a pass takes max(GPU time, layers x layer). `step`: serial work per pass
  // (scheduling, sampling, detokenising) added to it.
  double hf_layer_overhead_us = kNotLoaded;
  double vllm_layer_overhead_us = kNotLoaded;
  double trtllm_layer_overhead_us = kNotLoaded;
  double hf_step_overhead_us = kNotLoaded;
  double torch_layer_overhead_us = kNotLoaded;
  double torch_step_overhead_us = kNotLoaded;
  double vllm_step_overhead_us = kNotLoaded;
  double trtllm_step_overhead_us = kNotLoaded;
  // HF eager decode: extra passes over an all-heads copy of the KV cache per token (repeat_kv
  // expansion for GQA and the cache concatenation).
  double hf_kv_expand_passes = kNotLoaded;
  // HF eager: extra host time per layer for quantised (GPTQ/AWQ) linear kernels, us.
  double hf_quant_layer_overhead_us = kNotLoaded;
  // HF eager MoE blocks (Transformers' Mixtral, Qwen2-MoE and Qwen3-MoE before 4.54) loop over
  // every routed expert in Python, each iteration a device sync (torch.where) and a dozen
  // launches, tokens or not: host time per expert per MoE layer per pass, us.
  double hf_expert_iteration_us = kNotLoaded;

  // Sets the values `values` gives for one GPU model only (its GpuEfficiency row), so other
  // GPUs of the same architecture keep the fitted values; `values.gpu` is ignored.
  void OverrideGpu(const Gpu& gpu, const GpuEfficiency& values);
  // The efficiency of `gpu`: its architecture's row (else the fallback) with its own
  // GpuEfficiency corrections applied.
  ArchEfficiency For(const Gpu& gpu) const;
  // Serving engines' default limit on concurrent sequences (vLLM max_num_seqs, TensorRT-LLM
  // max_batch_size): a full-load benchmark runs as many as the KV cache holds, up to this.
  // HF generate and TorchScript run the batch they are given (1 here).
  double vllm_max_sequences = kNotLoaded;
  double trtllm_max_sequences = kNotLoaded;
  int MaxConcurrentSequences(Engine engine) const;
  // The largest batch the serving search tries for a static-batching engine (HF generate, a
  // TorchScript loop), which takes any batch it is given: a search bound, not an engine limit.
  double static_max_batch = kNotLoaded;
  // Memory the serving engines let a model copy use on each GPU. vLLM (and SGLang, LMDeploy,
  // which run as vllm here) pre-allocates gpu_memory_utilization of the whole GPU for weights,
  // activations and KV cache; TensorRT-LLM gives its KV cache free_gpu_memory_fraction of what
  // is free after weights and activations. HF generate and TorchScript use what PyTorch's
  // allocator gets (the whole GPU).
  double vllm_gpu_memory_utilization = kNotLoaded;
  double trtllm_free_gpu_memory_fraction = kNotLoaded;
  // The per-GPU memory a copy may fill on a GPU of `capacity_gib` when `fixed_gib` of it is
  // not KV cache (weights, activations, CUDA context).
  double EngineMemoryLimitGib(Engine engine, double capacity_gib, double fixed_gib) const;
  double LayerOverheadUs(Engine engine) const;
  double StepOverheadUs(Engine engine) const;

  // Planning thresholds (calibration.csv rows with their sources), not model parameters.
  // FP64 work (task hpc, constraints.need_fp64) needs at least this vector FP64 rate, TFLOPS.
  double hpc_min_fp64_tflops = kNotLoaded;
  // A dataset below this share of host RAM is served from the page cache after one epoch.
  double page_cache_fraction = kNotLoaded;
  // The data disk: dataset x dataset_disk_factor + disk_headroom_gib (checkpoints, logs), at
  // least min_data_disk_gib; a serving instance's disk: the weights + serving_disk_extra_gib
  // (the image and the engine's caches).
  double dataset_disk_factor = kNotLoaded;
  double disk_headroom_gib = kNotLoaded;
  double min_data_disk_gib = kNotLoaded;
  double serving_disk_extra_gib = kNotLoaded;
  // The latency targets of an interactive service (LatencyMode::kInteractive) for what the
  // workload leaves unset, ms: MLPerf Inference's server-scenario limits for Llama 3.1 8B (p99
  // TTFT 2 s, TPOT 100 ms, i.e. 10 tokens/s per user, faster than reading).
  double interactive_ttft_ms = kNotLoaded;
  double interactive_tpot_ms = kNotLoaded;
  // Defaults derived from the work when the workload leaves them unset (DeriveDefaults,
  // gpuplan/defaults.h). A pre-training's tokens per optimizer step, millions, as published
  // runs of the model's size chose them: under 1B, 3B and 20B parameters, and larger (GPT-3,
  // Brown et al. 2020, Table 2.1; Llama 1 and 2, Touvron et al. 2023); at most the job's tokens
  // over pretrain_min_steps.
  double pretrain_batch_mtokens_lt1b = kNotLoaded;
  double pretrain_batch_mtokens_lt3b = kNotLoaded;
  double pretrain_batch_mtokens_lt20b = kNotLoaded;
  double pretrain_batch_mtokens_large = kNotLoaded;
  // A non-transformer's (CNN, UNet, zoo DiT) pre-training batch, samples per optimizer step
  // (Goyal et al. 2017: ResNet-50 at 8k images per step matches the 256-image baseline).
  double pretrain_batch_samples_other = kNotLoaded;
  double pretrain_min_steps = kNotLoaded;
  // Output tokens per request of a reasoning model (ModelArch::reasoning) when not given.
  double reasoning_output_tokens = kNotLoaded;
  // A training job's interruptions (TrainingJob, gpuplan/estimate.h): unplanned stops per GPU-hour
  // (a failed GPU, link or host, a hung collective; any one stops a synchronous job), the hours
  // lost to each beyond the rework (detect, replace the node, reload), and the rate at which
  // each node writes its share of a checkpoint, GB/s.
  double interruptions_per_gpu_hour = kNotLoaded;
  double restart_minutes = kNotLoaded;
  double checkpoint_write_gbps_per_node = kNotLoaded;
};

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_CALIBRATION_H_
