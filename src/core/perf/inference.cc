// The inference estimate: prefill, decode and serving throughput of one batch.
#include <algorithm>
#include <cmath>

#include "perf/internal.h"

namespace gpuplan::perf::internal {

Result<Estimate> EstimateInference(const Workload& w, const ModelArch& arch, const Hardware& hw,
                                   const Layout& l, const Calibration& cal, double peak) {
  if (arch.kind == ModelKind::kOther) {
    return Status::Unsupported("inference of non-transformer models (" + arch.name +
                               ") is not modelled");
  }
  Estimate est;
  const Gpu& gpu = *hw.gpu;
  const ArchEfficiency eff_row = cal.For(gpu);
  const Dims d = DimsOf(arch);
  // FP8 inference (TensorRT-LLM, vLLM) stores weights and the KV cache in FP8: 1 byte.
  const double e = w.precision == Precision::kFp8 ? 1 : ElementBytes(w.precision);
  const double tp = l.tp, pp = l.pp;
  const InferenceSpec& inf = w.inference;
  const double batch = inf.batch ? *inf.batch : l.micro_batch;
  const double prompt = inf.prompt_tokens;
  const double out = arch.kind == ModelKind::kEncoder ? 0 : inf.output_tokens;
  const double stage_layers = std::ceil(d.layers / pp);

  // --- Memory: weights of this GPU's share; quantised layers at their bit width, embeddings
  // and head in 16 bits (GPTQ/AWQ/bitsandbytes leave them unquantised).
  const double layer_bytes = w.weight_bits > 0 ? QuantBits(w.weight_bits, false) / 8 : e;
  const double stage_embed = l.pp > 1 ? d.vocab * d.h : d.embed_params;
  // Routed experts are spread over ExpertShards (tp without expert parallelism, ep with it).
  const double expert_bytes = stage_layers * d.expert_layer_params / ExpertShards(l) * layer_bytes;
  const double weight_bytes = stage_layers * (d.layer_params - d.expert_layer_params) / tp *
                                  layer_bytes +
                              expert_bytes + stage_embed / tp * e;
  MemoryBreakdown& mem = est.memory.breakdown;
  mem.weights = weight_bytes / kGiB;
  // KV cache: K and V of kv_heads x head_dim per layer per token (Pope et al. 2022, 3.1),
  // split over at most kv_heads tensor-parallel ranks (engines replicate a KV head over the
  // ranks that share it). MLA caches one latent per token for all heads, replicated on every
  // tensor-parallel rank (vLLM/SGLang without attention data parallelism); sliding-window
  // layers keep only their window.
  const double ctx = prompt + out;
  const double kv_shards = arch.attention == AttentionKind::kMla
                               ? 1
                               : std::min<double>(tp, arch.kv_heads > 0 ? arch.kv_heads : tp);
  auto kv_sequence_bytes = [&](double tokens) {
    return arch.KvCacheElements(tokens) * stage_layers / d.layers / kv_shards * e;
  };
  mem.kv_cache = kv_sequence_bytes(ctx) * batch / kGiB;
  // Prefill transients: the widest MLP intermediate of one layer and the logits of the last
  // position only (generate() keeps one position: HF num_logits_to_keep, vLLM, TRT-LLM),
  // upcast to fp32 for sampling.
  const double mlp_tmp = (d.mlp_mats == 3 ? 3 : 2) * prompt * batch * d.ffn / tp * e;
  const double logits = cal.transient_factor * batch * d.vocab / tp * (e + 4);
  mem.transient = std::max(mlp_tmp, arch.kind == ModelKind::kDecoder ? logits : 0) / kGiB;
  // Serving engines (vLLM's and TensorRT-LLM's block managers) load the weights once and
  // preallocate the KV cache as one pool; eager PyTorch allocates as it goes.
  const bool engine_pool = inf.engine == Engine::kVllm || inf.engine == Engine::kTrtllm;
  FinishMemory(est, hw, cal, engine_pool ? mem.weights + mem.kv_cache : 0);
  // A serving engine lets the copy fill only part of the GPU (vLLM gpu_memory_utilization).
  est.memory.fits =
      est.memory.per_gpu_gib <= cal.EngineMemoryLimitGib(inf.engine, est.memory.capacity_gib,
                                                         est.memory.per_gpu_gib - mem.kv_cache);

  const double bw = gpu.memory_bandwidth_gbs * 1e9 * eff_row.memory_bw_fraction;
  // --- Prefill: compute-bound GEMMs over batch x prompt tokens, plus causal attention
  // (4 L h s^2 per sequence forward, halved by causal masking for decoders).
  const double peak_flops = peak * 1e12;
  // Host launch time runs ahead of the GPU (overlaps); per-pass serial work adds.
  const double launch_s =
      (cal.LayerOverheadUs(inf.engine) +
       (w.weight_bits > 0 && inf.engine == Engine::kHf ? cal.hf_quant_layer_overhead_us : 0)) *
      1e-6 * d.layers;
  const double step_s = cal.StepOverheadUs(inf.engine) * 1e-6;
  // GEMM weights a token passes through (MoE: top_k routed experts; expert_weights of them).
  const double gemm_weights = d.active_params - d.embed_params + d.head_params;
  const double expert_weights = d.layers * d.active_expert_layer_params;
  const double attn_per_sequence = 4 * d.layers * d.attn_dim * prompt * prompt *
                                   (arch.kind == ModelKind::kDecoder ? 0.5 : 1.0);
  // Attention core: fused kernels (flash attention; FasterTransformer/TensorRT-LLM's fused
  // multi-head attention, FP16/BF16/FP8 only) run at the architecture's attention fraction of
  // peak. Unfused attention runs QK^T and AV as batched GEMMs and moves the materialised
  // heads x s x s scores through memory several times (write, scale, mask, softmax, read).
  const bool fused_attention = (w.flash_attention && l.flash_attention) ||
                               (inf.engine == Engine::kTrtllm && w.precision != Precision::kFp32);
  // Elementwise kernels: eager PyTorch (TorchScript, HF transformers) launches a kernel per
  // operation where the inference engines fuse them, so it moves more bytes per token.
  const bool eager = inf.engine == Engine::kTorch || inf.engine == Engine::kHf;
  const double elementwise = eager ? cal.eager_elementwise_traffic : cal.elementwise_traffic;
  // Pipeline stages run one after another for one batch (no micro-batching in HF
  // device_map=auto), so latency sums over stages: count all weights once.
  const double prefill_mem = weight_bytes * pp / bw;
  // Tensor parallel: two all-reduces of the activations per layer (Megatron), which FP8
  // engines still reduce in 16 bits.
  const double act_bytes = w.precision == Precision::kFp8 ? 2 : e;
  const double tp_bw = l.tp > 1 ? GroupBandwidth(hw, cal, l.tp, hw.gpus_per_node) : 1;
  const double tp_latency = cal.collective_latency_us * 1e-6;
  // The prefill of `n` prompts together: GEMMs, attention and elementwise work (or one read of
  // the weights, or the host's launches, whichever is longest), then the tensor-parallel
  // all-reduces.
  auto prefill_seconds = [&](double n) {
    const double tokens = prompt * n;
    const double eff =
        GemmEfficiency(eff_row, cal, gpu, peak, d.h / tp, tokens, w.precision, layer_bytes);
    const double attention =
        fused_attention
            ? attn_per_sequence * n / (tp * pp) / (peak_flops * eff_row.attention_fraction)
            : attn_per_sequence * n / (tp * pp) / (peak_flops * eff) +
                  cal.unfused_score_passes * d.heads / tp * prompt * prompt * n * e * d.layers /
                      pp / bw;
    // Expert GEMMs run at the rows each expert receives, waiting for the busiest expert.
    const double eff_expert = arch.IsMoe() ? ExpertGemmEfficiency(arch, eff_row, cal, gpu, peak,
                                                                  tokens * l.ep, w.precision,
                                                                  layer_bytes)
                                           : eff;
    const double compute =
        2 * (gemm_weights - expert_weights) * tokens / (tp * pp) / (peak_flops * eff) +
        2 * expert_weights * tokens / (tp * pp) * cal.moe_load_imbalance /
            (peak_flops * eff_expert) +
        attention +
        elementwise * (d.h * (1 + d.routed_copies) + d.ffn) / tp * e * tokens * d.layers / pp /
            bw;
    const double tp_comm =
        l.tp > 1 ? d.layers * 2 * RingTime(tokens * d.h * act_bytes, l.tp, 2, tp_bw, tp_latency)
                 : 0;
    const double ep_comm = MoeAllToAllSeconds(d, l, hw, cal, tokens, d.layers * d.moe_layer_share,
                                              2, act_bytes);
    return std::max({compute * pp, prefill_mem, launch_s}) + step_s + tp_comm + ep_comm;
  };
  const double prefill_tokens = prompt * batch;
  const double attn_prefill = attn_per_sequence * batch;
  const double tp_comm_layer =
      l.tp > 1 ? 2 * RingTime(batch * d.h * act_bytes, l.tp, 2, tp_bw, tp_latency) : 0;
  InferenceTimes it;
  it.batch = static_cast<int>(batch);
  it.prefill_s = prefill_seconds(batch);
  it.ttft_ms = it.prefill_s * 1e3;

  // --- Decode: each token reads all weights and the KV cache so far (memory-bound at small
  // batch; compute-bound once 2 N batch FLOPs outweigh the bytes: Pope et al. 2022).
  if (out > 0) {
    const double mid_ctx = prompt + out / 2;  // cache grows linearly: average length
    // Each step runs the GEMMs over `batch` rows (bandwidth-bound GEMVs at small batch,
    // compute-bound at large: Pope et al. 2022) and then the attention kernels, which read the
    // KV cache so far: separate kernels, so their times add.
    double kv_bytes = kv_sequence_bytes(mid_ctx) * pp * batch;
    // Eager HF attention with grouped-query attention expands K and V to every query head
    // (repeat_kv) and concatenates the cache each step: extra passes over an all-heads-sized
    // copy of the cache.
    if (inf.engine == Engine::kHf) {
      kv_bytes += cal.hf_kv_expand_passes * 2 * d.layers * d.h / tp * e * mid_ctx * batch;
    }
    // GEMMs: the larger of their arithmetic (at the full-rows efficiency) and one read of the
    // weights (the embedding table too).
    const double eff_dec = GemmEfficiency(eff_row, cal, gpu, peak, d.h / tp, kSaturatedGemmRows,
                                          w.precision, layer_bytes);
    const double t_arithmetic = 2 * gemm_weights * batch / tp / (peak_flops * eff_dec) * pp;
    // MoE: a step reads only the experts its tokens route to (the ep group's tokens together).
    const double touched =
        arch.IsMoe() ? ExpectedDistinctExperts(arch.moe.experts, arch.moe.top_k, batch * l.ep) /
                           arch.moe.experts
                     : 1;
    const double t_weights = (weight_bytes - expert_bytes * (1 - touched)) * pp / bw;
    const double t_ep = MoeAllToAllSeconds(d, l, hw, cal, batch, d.layers * d.moe_layer_share, 2,
                                           act_bytes);
    const double t_kv = kv_bytes / bw;
    it.decode_memory_bound = t_weights + t_kv >= t_arithmetic;
    const double t_token = std::max(std::max(t_arithmetic, t_weights) + t_kv, launch_s) + step_s +
                           d.layers * tp_comm_layer + t_ep;
    it.tpot_ms = t_token * 1e3;
    it.decode_s = t_token * (out - 1 > 0 ? out - 1 : 0);
    // Continuous batching (Orca, Yu et al. 2022; vLLM, Kwon et al. 2023): a new request's
    // prompt is prefilled on its own while the others decode, so its first token waits for
    // that prefill and the running step, not for the whole batch's prefill; the batch's
    // prefill work is interleaved with the decode steps, so each token also carries its share.
    // The GPU time per batch of requests (request_s), hence throughput, is the same.
    if (inf.ContinuousBatching() && batch > 1) {
      it.ttft_ms = (prefill_seconds(1) + t_token) * 1e3;
      it.tpot_ms = (t_token + it.prefill_s / out) * 1e3;
    }
  }
  it.request_s = it.prefill_s + it.decode_s;
  // Data-parallel replicas (dp) serve independent batches.
  it.tokens_per_s_per_gpu = out > 0 ? batch * out / it.request_s / (tp * pp) : 0;
  it.prefill_tokens_per_s_per_gpu = prefill_tokens / it.prefill_s / (tp * pp);
  it.requests_per_s = batch / it.request_s * l.dp;
  est.time.step_s = it.request_s;
  est.time.breakdown.compute = it.request_s;
  est.throughput.tokens_per_s_per_gpu = it.tokens_per_s_per_gpu;
  est.throughput.samples_per_s_per_gpu = batch / it.request_s / (tp * pp);
  const double flops_req = 2 * gemm_weights * (prefill_tokens + batch * out) + attn_prefill;
  est.throughput.tflops_per_gpu = flops_req / it.request_s / (tp * pp) / 1e12;
  est.throughput.hardware_tflops_per_gpu = est.throughput.tflops_per_gpu;
  est.throughput.mfu = est.throughput.tflops_per_gpu / peak;
  est.flops_per_token = 2 * gemm_weights;
  est.inference = it;
  return est;
}

}  // namespace gpuplan::perf::internal
