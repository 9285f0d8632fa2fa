// The inference estimate over the operation records: memory (weights, KV cache, transients),
// prefill, decode and serving throughput of one batch.
#include <algorithm>
#include <cmath>

#include "perf/op_records.h"

namespace gpuplan::perf::internal {
namespace {

// What the memory and time parts of one serving batch share.
struct Serving {
  Dims d;
  OpRecords ops;
  ArchEfficiency eff_row;
  double e = 2;          // bytes per weight and KV element (FP8 engines: 1)
  double act_bytes = 2;  // bytes per activation element the tensor-parallel reduce moves
  double tp = 1, pp = 1;
  double batch = 1, prompt = 0, out = 0;
  // Tokens of context one sequence's KV cache is sized for: the 90th percentile prompt and
  // output when the workload gives them ({mean, p90}; a pool sized for the mean would evict
  // or preempt the long requests), else the means.
  double kv_tokens = 0;
  double stage_layers = 0;
  double layer_bytes = 2;         // bytes per transformer-layer weight (quantised bits / 8)
  double expert_layer_bytes = 2;  // of a routed expert's (gpt-oss: MXFP4 experts only)
  double weight_bytes = 0;        // this GPU's weights
  double expert_bytes = 0;        // of which routed experts
  double gemm_weights = 0;        // GEMM weights a token passes through (MoE: top_k experts)
  double expert_weights = 0;      // of which routed experts
  double attn_per_sequence = 0;   // attention FLOPs of one prompt's prefill
  bool fused_attention = true;
  double elementwise = 0;  // bytes-passes per element of the elementwise records
  double bw = 0;           // achieved memory bandwidth, bytes/s
  double peak_flops = 0;
  double attention_peak_flops = 0;  // the attention core's precision (16-bit in FP8 vLLM/SGLang)
  double attention_fraction = 0;    // of that peak the fused prefill attention reaches
  double kv_bytes = 2;              // bytes per cached K or V element
  double launch_s = 0;              // host launches of one forward (overlap the GPU)
  double step_s = 0;                // serial per-pass work of the engine
  double tp_bw = 1, tp_latency = 0;
  bool engine_allreduce = false;  // the engine's own all-reduce kernel (ServingAllReduceSeconds)
  double a2a_overlap = 0;         // of the expert all-to-alls hidden behind compute
};

Serving ServingOf(const Workload& w, const ModelArch& arch, const Hardware& hw, const Layout& l,
                  const Calibration& cal, double peak) {
  Serving s;
  s.d = DimsOf(arch);
  const Dims& d = s.d;
  const InferenceSpec& inf = w.inference;
  s.eff_row = cal.For(*hw.gpu);
  // FP8 inference stores the linear layers' weights in FP8 (1 byte) but keeps activations,
  // embeddings and the output head in 16 bits (FP8 checkpoints and ModelOpt leave lm_head and
  // the embeddings unquantised). Only TensorRT-LLM's FP8 builds also keep the KV cache and run
  // the attention core in FP8 (FP8 context FMHA); vLLM and SGLang default to kv_cache_dtype
  // "auto" (the activations' 16 bits) and BF16 attention kernels.
  const bool fp8 = w.precision == Precision::kFp8;
  const bool fp8_attention = fp8 && inf.engine == Engine::kTrtllm;
  s.e = fp8 ? 1 : ElementBytes(w.precision);
  s.act_bytes = fp8 ? 2 : s.e;
  // The cache's bytes: FP8 where the workload asks for it (`kv_cache_dtype: fp8`, vLLM's
  // --kv-cache-dtype fp8) or TensorRT-LLM's FP8 build keeps it so; the attention core's
  // arithmetic stays as above.
  const KvCacheDtype cache =
      inf.kv_cache_dtype.value_or(fp8_attention ? KvCacheDtype::kFp8 : KvCacheDtype::kAuto);
  s.kv_bytes = cache == KvCacheDtype::kFp8 ? 1 : s.act_bytes;
  s.tp = l.tp;
  s.pp = l.pp;
  s.batch = inf.batch ? *inf.batch : l.micro_batch;
  s.prompt = inf.prompt_tokens;
  s.out = arch.kind == ModelKind::kEncoder ? 0 : inf.output_tokens;
  s.kv_tokens =
      inf.prompt_tokens_p90.value_or(inf.prompt_tokens) +
      (arch.kind == ModelKind::kEncoder ? 0 : inf.output_tokens_p90.value_or(inf.output_tokens));
  s.stage_layers = std::ceil(d.layers / s.pp);
  OpContext c;
  c.seq = s.prompt;
  c.seq_local = s.prompt;
  c.element_bytes = s.e;
  c.flash = w.flash_attention && l.flash_attention;
  BuildOpRecords(arch, d, c, s.ops);
  // Weights of this GPU's share; quantised layers at their bit width, embeddings and head in
  // 16 bits (GPTQ/AWQ/bitsandbytes leave them unquantised; gpt-oss quantises only the routed
  // experts). Routed experts are spread over ExpertShards (tp without expert parallelism, ep
  // with it).
  const double quantised =
      w.weight_bits > 0 ? QuantBits(w.weight_bits, w.weight_format, false) / 8 : s.e;
  s.expert_layer_bytes = quantised;
  s.layer_bytes = w.quantized_layers == QuantizedLayers::kExperts ? s.e : quantised;
  const double stage_embed = l.pp > 1 ? d.vocab * d.h : d.embed_params;
  s.expert_bytes = s.stage_layers * d.expert_layer_params / ExpertShards(l) * s.expert_layer_bytes;
  s.weight_bytes =
      s.stage_layers * (d.layer_params - d.expert_layer_params) / s.tp * s.layer_bytes +
      s.expert_bytes + stage_embed / s.tp * s.act_bytes;
  s.gemm_weights = GemmWeightParams(s.ops);
  s.expert_weights = d.layers * d.active_expert_layer_params;
  // Causal masking halves a decoder's attention square.
  s.attn_per_sequence = ForwardFlops(s.ops, OpKind::kAttention) * s.prompt *
                        (arch.kind == ModelKind::kDecoder ? 0.5 : 1.0);
  // Fused kernels (flash attention; FasterTransformer/TensorRT-LLM's fused multi-head
  // attention, FP16/BF16/FP8 only) run at the architecture's attention fraction of peak.
  s.fused_attention = c.flash || (inf.engine == Engine::kTrtllm && w.precision != Precision::kFp32);
  // vLLM and SGLang (Engine::kVllm) run their own prefill kernels, forward only: FlashAttention-3
  // on Hopper (vLLM's fa_utils.get_flash_attn_version picks 3 on compute capability 9; SGLang's
  // attention-backend docs name fa3 the Hopper default). TensorRT-LLM's own fused attention and
  // eager PyTorch's FlashAttention-2 or SDPA keep the architecture's attention fraction.
  s.attention_fraction = inf.engine == Engine::kVllm ? s.eff_row.ServingAttentionFraction()
                                                     : s.eff_row.attention_fraction;
  // Eager PyTorch (TorchScript, HF transformers) launches a kernel per elementwise operation
  // where the inference engines fuse them, so it moves more bytes per token.
  const bool eager = inf.engine == Engine::kTorch || inf.engine == Engine::kHf;
  s.elementwise = eager ? cal.eager_elementwise_traffic : cal.elementwise_traffic;
  s.bw = hw.gpu->memory_bandwidth_gbs * 1e9 * s.eff_row.memory_bw_fraction;
  s.peak_flops = peak * 1e12;
  s.attention_peak_flops = fp8 && !fp8_attention
                               ? PeakTflops(*hw.gpu, Precision::kBf16).value_or(peak) * 1e12
                               : s.peak_flops;
  // Host launch time runs ahead of the GPU (overlaps); per-pass serial work adds.
  // Eager HF MoE layers add a host loop over every routed expert.
  const double hf_expert_loop_us =
      inf.engine == Engine::kHf && arch.IsMoe()
          ? d.moe_layer_share * arch.moe.experts * cal.hf_expert_iteration_us
          : 0;
  s.launch_s =
      (cal.LayerOverheadUs(inf.engine) +
       (w.weight_bits > 0 && inf.engine == Engine::kHf ? cal.hf_quant_layer_overhead_us : 0) +
       hf_expert_loop_us) *
      1e-6 * d.layers;
  s.step_s = cal.StepOverheadUs(inf.engine) * 1e-6;
  s.tp_bw = l.tp > 1 ? GroupBandwidth(hw, cal, l.tp, hw.gpus_per_node) : 1;
  s.tp_latency = cal.collective_latency_us * 1e-6;
  // vLLM (custom_all_reduce, on by default since 0.4.1: vllm-project/vllm PR #4040) and SGLang
  // all-reduce a tensor-parallel group inside one node with their own kernel where the GPUs
  // reach each other by NVLink, or are two on PCIe; NCCL elsewhere and in other engines.
  const bool nvlink = hw.intra_link == LinkKind::kNvlink || hw.intra_link == LinkKind::kNvswitch;
  s.engine_allreduce = inf.engine == Engine::kVllm && l.tp <= hw.gpus_per_node &&
                       (nvlink || (hw.intra_link == LinkKind::kPcie && l.tp == 2));
  // Expert-parallel serving that splits each batch in two and runs one half's dispatch and
  // combine while the other computes (SGLang --enable-two-batch-overlap; vLLM --enable-dbo)
  // hides as much of them as training's overlap of two micro-batches does: the same schedule.
  s.a2a_overlap = w.moe_a2a_overlap ? cal.moe_a2a_overlap_on : cal.moe_a2a_overlap;
  return s;
}

// One tensor-parallel all-reduce of `bytes` per GPU. The engines' own kernel (vLLM's
// csrc/custom_all_reduce.cuh; SGLang runs a port of it) has a fixed cost that does
// not grow with the group (engine_allreduce_us) plus its traffic: one-shot, every rank reading
// each peer's whole buffer ((n - 1) x bytes), for two ranks and below 512 KB (4 ranks) or
// 256 KB (8 ranks); two-shot above (reduce-scatter then all-gather, 2 (n - 1) / n x bytes); its
// 8 MB buffer's worth at most, NCCL's ring beyond. NCCL's ring otherwise: 2 (n - 1) steps of
// collective_latency_us.
double ServingAllReduceSeconds(const Serving& s, double bytes, const Calibration& cal) {
  constexpr double kKiB = 1024, kOneShotBelow4 = 512 * kKiB, kOneShotBelow8 = 256 * kKiB;
  constexpr double kEngineBufferBytes = 8 * kKiB * kKiB;
  const int n = static_cast<int>(s.tp);
  if (n <= 1 || bytes <= 0)
    return 0;
  if (!s.engine_allreduce || bytes > kEngineBufferBytes)
    return RingTime(bytes, n, 2, s.tp_bw, s.tp_latency);
  const bool one_shot = n == 2 || bytes < (n <= 4 ? kOneShotBelow4 : kOneShotBelow8);
  const double traffic = one_shot ? (n - 1) * bytes : 2.0 * (n - 1) / n * bytes;
  return cal.engine_allreduce_us * 1e-6 + traffic / s.tp_bw;
}

// Bytes of one sequence's KV cache on this GPU at `tokens` of context.
double KvSequenceBytes(const Serving& s, const ModelArch& arch, double tokens) {
  const double kv_shards = arch.attention == AttentionKind::kMla
                               ? 1
                               : std::min<double>(s.tp, arch.kv_heads > 0 ? arch.kv_heads : s.tp);
  return arch.KvCacheElements(tokens) * s.stage_layers / s.d.layers / kv_shards * s.kv_bytes;
}

// Memory of one replica's GPU: weights, the KV cache of K and V of kv_heads x head_dim per
// layer per token (Pope et al. 2022, 3.1), split over at most kv_heads tensor-parallel ranks
// (engines replicate a KV head over the ranks that share it). MLA caches one latent per token
// for all heads, replicated on every tensor-parallel rank (vLLM/SGLang without attention data
// parallelism); sliding-window layers keep only their window.
void ServingMemory(const Serving& s, const Workload& w, const ModelArch& arch, const Hardware& hw,
                   const Calibration& cal, Estimate& est) {
  const Dims& d = s.d;
  const InferenceSpec& inf = w.inference;
  MemoryBreakdown& mem = est.memory.breakdown;
  mem.weights = s.weight_bytes / kGiB;
  mem.kv_cache = KvSequenceBytes(s, arch, s.kv_tokens) * s.batch / kGiB;
  // Prefill transients: the widest MLP intermediate of one layer and the logits of the last
  // position only (generate() keeps one position: HF num_logits_to_keep, vLLM, TRT-LLM),
  // upcast to fp32 for sampling.
  const double mlp_tmp = (d.mlp_mats == 3 ? 3 : 2) * s.prompt * s.batch * d.ffn / s.tp * s.e;
  const double logits = cal.transient_factor * s.batch * d.vocab / s.tp * (s.e + 4);
  mem.transient = std::max(mlp_tmp, arch.kind == ModelKind::kDecoder ? logits : 0) / kGiB;
  // Serving engines (vLLM's and TensorRT-LLM's block managers) load the weights once and
  // preallocate the KV cache as one pool; eager PyTorch allocates as it goes.
  const bool engine_pool = inf.engine == Engine::kVllm || inf.engine == Engine::kTrtllm;
  FinishMemory(est, hw, cal, engine_pool ? mem.weights + mem.kv_cache : 0);
  // A serving engine lets the copy fill only part of the GPU (vLLM gpu_memory_utilization).
  // Checked at the point: an engine sizes its KV-cache pool to what is left, so the training
  // fit test's allowance for the model's memory error (Hardware::memory_error_ratio) does not
  // apply as such; the serving search sizes batches against this limit.
  est.memory.checked_gib = est.memory.per_gpu_gib;
  est.memory.fits =
      est.memory.per_gpu_gib <= cal.EngineMemoryLimitGib(inf.engine, est.memory.capacity_gib,
                                                         est.memory.per_gpu_gib - mem.kv_cache);
}

// One forward pass's time and the communication inside it (the rest is the GPU's own work).
struct PassTime {
  double total = 0;
  double tp_comm = 0;  // tensor-parallel all-reduces
  double ep_comm = 0;  // expert-parallel dispatch and combine, less what an overlap hides
};

// The prefill of `n` prompts together: GEMMs, attention and elementwise records (or one read of
// the weights, or the host's launches, whichever is longest), then the tensor-parallel
// all-reduces. Pipeline stages run one after another for one batch (no micro-batching in HF
// device_map=auto), so latency sums over stages: all weights are read once.
PassTime PrefillTime(const Serving& s, double n, const Workload& w, const ModelArch& arch,
                     const Hardware& hw, const Layout& l, const Calibration& cal, double peak) {
  const Dims& d = s.d;
  const Gpu& gpu = *hw.gpu;
  const double tp = s.tp, pp = s.pp;
  const double tokens = s.prompt * n;
  const double eff =
      GemmEfficiency(s.eff_row, cal, gpu, peak, d.h / tp, tokens, w.precision, s.layer_bytes);
  // Unfused attention moves the materialised heads x s x s scores through memory several times
  // (write, scale, mask, softmax, read).
  const double attention =
      s.fused_attention
          ? s.attn_per_sequence * n / (tp * pp) / (s.attention_peak_flops * s.attention_fraction)
          : s.attn_per_sequence * n / (tp * pp) / (s.attention_peak_flops * eff) +
                cal.unfused_score_passes * d.heads / tp * s.prompt * s.prompt * n * s.e * d.layers /
                    pp / s.bw;
  // Expert GEMMs run at the rows each expert receives (the ep group's tokens together).
  const double expert_flops = 2 * s.expert_weights * tokens / (tp * pp);
  const double expert_s =
      arch.IsMoe()
          ? ExpertGemmSeconds(arch, s.eff_row, cal, gpu, peak, tokens * l.ep, ExpertTensorSplit(l),
                              w.precision, s.expert_layer_bytes, expert_flops)
          : expert_flops / (s.peak_flops * eff);
  const double compute =
      2 * (s.gemm_weights - s.expert_weights) * tokens / (tp * pp) / (s.peak_flops * eff) +
      expert_s + attention +
      s.elementwise * ElementwiseElementsPerLayer(s.ops) / tp * s.e * tokens * d.layers / pp / s.bw;
  // Tensor parallel: the two all-reduce records of the activations per layer (Megatron).
  const double tp_comm = l.tp > 1 ? d.layers * CollectiveForwardPasses(s.ops, OpGroup::kTensor) *
                                        ServingAllReduceSeconds(s, tokens * d.h * s.act_bytes, cal)
                                  : 0;
  const double ep_comm = MoeAllToAllSeconds(d, l, hw, cal, tokens, d.layers * d.moe_layer_share,
                                            CollectiveForwardPasses(s.ops, OpGroup::kExpert),
                                            s.act_bytes, s.a2a_overlap);
  const double prefill_mem = s.weight_bytes * pp / s.bw;
  return {std::max({compute * pp, prefill_mem, s.launch_s}) + s.step_s + tp_comm + ep_comm, tp_comm,
          ep_comm};
}

// Bytes of weights a pass over `tokens` reads on this GPU (all pipeline stages): MoE reads
// only the experts the tokens route to (the ep group's tokens together).
double TouchedWeightBytes(const Serving& s, const ModelArch& arch, const Layout& l, double tokens) {
  const double touched =
      arch.IsMoe() ? ExpectedDistinctExperts(arch.moe.experts, arch.moe.top_k, tokens * l.ep) /
                         arch.moe.experts
                   : 1;
  return (s.weight_bytes - s.expert_bytes * (1 - touched)) * s.pp;
}

// A sequence's mean context over its decode: the cache grows linearly from the prompt.
double MeanDecodeContext(const Serving& s) { return s.prompt + s.out / 2; }

// Bytes of KV cache one decode step of the batch reads (all stages), at that mean context.
double KvStepBytes(const Serving& s, const ModelArch& arch) {
  return KvSequenceBytes(s, arch, MeanDecodeContext(s)) * s.pp * s.batch;
}

// One decode step of the batch: the GEMMs over `batch` rows (bandwidth-bound GEMVs at small
// batch, compute-bound once 2 N batch FLOPs outweigh the bytes: Pope et al. 2022), then the
// attention kernels, which read the KV cache so far: separate kernels, so their times add.
PassTime DecodeStepTime(const Serving& s, const Workload& w, const ModelArch& arch,
                        const Hardware& hw, const Layout& l, const Calibration& cal, double peak,
                        bool& memory_bound) {
  const Dims& d = s.d;
  const double tp = s.tp, pp = s.pp, batch = s.batch;
  double kv_bytes = KvStepBytes(s, arch);
  // Eager HF attention with grouped-query attention expands K and V to every query head
  // (repeat_kv) and concatenates the cache each step: extra passes over an all-heads-sized
  // copy of the cache.
  if (w.inference.engine == Engine::kHf) {
    kv_bytes += cal.hf_kv_expand_passes * 2 * d.layers * d.h / tp * s.kv_bytes *
                MeanDecodeContext(s) * batch;
  }
  // GEMMs: the larger of their arithmetic (at the full-rows efficiency) and one read of the
  // weights (the embedding table too).
  const double eff_dec = GemmEfficiency(s.eff_row, cal, *hw.gpu, peak, d.h / tp, kSaturatedGemmRows,
                                        w.precision, s.layer_bytes);
  const double t_arithmetic = 2 * s.gemm_weights * batch / tp / (s.peak_flops * eff_dec) * pp;
  // MoE: a step reads only the experts its tokens route to.
  const double t_weights = TouchedWeightBytes(s, arch, l, batch) / s.bw;
  const double t_ep = MoeAllToAllSeconds(d, l, hw, cal, batch, d.layers * d.moe_layer_share,
                                         CollectiveForwardPasses(s.ops, OpGroup::kExpert),
                                         s.act_bytes, s.a2a_overlap);
  const double t_kv = kv_bytes / s.bw;
  memory_bound = t_weights + t_kv >= t_arithmetic;
  const double tp_comm_layer = l.tp > 1
                                   ? CollectiveForwardPasses(s.ops, OpGroup::kTensor) *
                                         ServingAllReduceSeconds(s, batch * d.h * s.act_bytes, cal)
                                   : 0;
  const double tp_comm = d.layers * tp_comm_layer;
  return {
      std::max(std::max(t_arithmetic, t_weights) + t_kv, s.launch_s) + s.step_s + tp_comm + t_ep,
      tp_comm, t_ep};
}

// Decode steps of one batch after the prefill's first token: out - 1 (none for an encoder).
double DecodeSteps(const Serving& s) { return std::max(s.out - 1, 0.0); }

// The times and rates of one batch from its prefill (the whole batch's, `prefill_s`, and one
// request's, `prefill_one_s`) and one decode step (`t_token`).
InferenceTimes TimesOf(const Serving& s, const Workload& w, const Layout& l, double prefill_s,
                       double prefill_one_s, double t_token) {
  const double batch = s.batch, out = s.out;
  InferenceTimes it;
  it.batch = static_cast<int>(batch);
  it.prefill_s = prefill_s;
  it.ttft_ms = prefill_s * 1e3;
  if (out > 0) {
    it.tpot_ms = t_token * 1e3;
    it.decode_s = t_token * DecodeSteps(s);
    // Continuous batching (Orca, Yu et al. 2022; vLLM, Kwon et al. 2023): a new request's
    // prompt is prefilled on its own while the others decode, so its first token waits for
    // that prefill and the running step, not for the whole batch's prefill; the batch's
    // prefill work is interleaved with the decode steps, so each token also carries its share.
    // The GPU time per batch of requests (request_s), hence throughput, is the same.
    if (w.inference.ContinuousBatching() && batch > 1) {
      it.ttft_ms = (prefill_one_s + t_token) * 1e3;
      it.tpot_ms = (t_token + prefill_s / out) * 1e3;
    }
  }
  it.request_s = it.prefill_s + it.decode_s;
  // Data-parallel replicas (dp) serve independent batches.
  it.tokens_per_s_per_gpu = out > 0 ? batch * out / it.request_s / (s.tp * s.pp) : 0;
  it.prefill_tokens_per_s_per_gpu = s.prompt * batch / it.prefill_s / (s.tp * s.pp);
  it.requests_per_s = batch / it.request_s * l.dp;
  return it;
}

}  // namespace

Result<Estimate> EstimateInference(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                   const Layout& l, const Calibration& cal, double peak) {
  if (arch.kind == ModelKind::kOther)
    return EstimateSampleInference(w, arch, hw, l, cal, peak);
  Estimate est;
  const Serving s = ServingOf(w, arch, hw, l, cal, peak);
  ServingMemory(s, w, arch, hw, cal, est);
  const double tp = s.tp, pp = s.pp, batch = s.batch, out = s.out;
  bool memory_bound = true;
  const PassTime step =
      out > 0 ? DecodeStepTime(s, w, arch, hw, l, cal, peak, memory_bound) : PassTime{};
  const PassTime prefill = PrefillTime(s, batch, w, arch, hw, l, cal, peak);
  InferenceTimes it = TimesOf(s, w, l, prefill.total,
                              PrefillTime(s, 1, w, arch, hw, l, cal, peak).total, step.total);
  it.decode_memory_bound = memory_bound;
  // The floor: reads only, at the datasheet bandwidth. A decoder's input embedding is a
  // lookup of the tokens' rows, not a read of the table (an untied head is read in full).
  const double datasheet_bw = hw.gpu->memory_bandwidth_gbs * 1e9;
  // (With pipeline stages the weights already count only the head's table, not the lookup's.)
  const double lookup_only =
      l.pp > 1 ? 0 : std::max(0.0, s.d.embed_params - s.d.head_params) / tp * s.act_bytes;
  const auto prefill_floor = [&](double n) {
    return (TouchedWeightBytes(s, arch, l, s.prompt * n) - lookup_only) / datasheet_bw;
  };
  est.inference_floor = TimesOf(
      s, w, l, prefill_floor(batch), prefill_floor(1),
      out > 0 ? (TouchedWeightBytes(s, arch, l, batch) - lookup_only + KvStepBytes(s, arch)) /
                    datasheet_bw
              : 0);
  const double prefill_tokens = s.prompt * batch;
  // One batch's lifetime, its prefill and decode steps (TimesOf), split as they are.
  est.time.step_s = it.request_s;
  est.time.breakdown.tp_comm = prefill.tp_comm + DecodeSteps(s) * step.tp_comm;
  est.time.breakdown.ep_comm = prefill.ep_comm + DecodeSteps(s) * step.ep_comm;
  est.time.breakdown.compute =
      it.request_s - est.time.breakdown.tp_comm - est.time.breakdown.ep_comm;
  est.throughput.tokens_per_s_per_gpu = it.tokens_per_s_per_gpu;
  est.throughput.samples_per_s_per_gpu = batch / it.request_s / (tp * pp);
  const double flops_req =
      2 * s.gemm_weights * (prefill_tokens + batch * out) + s.attn_per_sequence * batch;
  est.throughput.tflops_per_gpu = flops_req / it.request_s / (tp * pp) / 1e12;
  est.throughput.hardware_tflops_per_gpu = est.throughput.tflops_per_gpu;
  est.throughput.mfu = est.throughput.tflops_per_gpu / peak;
  est.flops_per_token = 2 * s.gemm_weights;
  est.inference = it;
  return est;
}

}  // namespace gpuplan::perf::internal
