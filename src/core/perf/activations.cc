// Saved activations of a transformer layer (the training memory model's largest part).
#include "perf/internal.h"

namespace gpuplan::perf::internal {

// Saved activations of one transformer layer for one micro-batch, bytes. Korthikanti et al.
// 2022, 4.1, generalised to grouped-query attention, SwiGLU and fused attention:
//   norm inputs 2 e sbh; attention: QKV input e sbh, Q e sbh, K and V e sb kvd each, projection
//   input e sbh; unfused attention adds softmax output e a s^2 b (+ dropout mask a s^2 b and
//   output e a s^2 b); flash attention keeps only the fp32 log-sum-exp 4 a s b.
//   MLP: input e sbh; GELU input and output e sbf each; SwiGLU gate, up, SiLU output and product
//   e sbf each. Dropout masks (1 byte) after attention and MLP.
// For GELU, f = 4h, kvd = h, e = 2 and dropout this is sbh(34 + 5as/h) (their eq. 1); with
// tensor parallel t the parts inside the TP region divide by t, the rest too under sequence
// parallelism (eqs. 2-4); selective recompute drops the s^2 terms; full recompute keeps only
// the layer input.
double LayerActivationBytes(const Dims& d, double s, double b, double e, int tp, bool sp,
                            bool flash, Recompute rc, bool dropout) {
  const double t = tp;
  const double sbh = s * b * d.h;
  if (rc == Recompute::kFull)
    return e * sbh / (sp ? t : 1);
  const double drop = dropout ? 1 : 0;
  // Outside the TP region: norm inputs, QKV input, MLP input, two dropout masks.
  const double replicated = (2 * e + e + e + 2 * drop) * sbh;
  // Inside the TP region.
  double sharded = e * (sbh + 2 * s * b * d.kvd + sbh);      // Q, K, V, proj input
  sharded += (d.mlp_mats == 3 ? 4 : 2) * e * s * b * d.ffn;  // MLP internals
  // MoE: the dispatched (permuted) copies of each token and the experts' outputs before the
  // weighted combine, top_k of each (Megatron's token dispatcher saves both for backward).
  sharded += 2 * e * sbh * d.routed_copies;
  if (flash) {
    sharded += 4 * d.heads * s * b;  // fp32 log-sum-exp per head and position
  } else if (rc != Recompute::kSelective) {
    sharded += (e + drop * (1 + e)) * d.heads * s * s * b;  // softmax (+ dropout) scores
  }
  return replicated / (sp ? t : 1) + sharded / t;
}

}  // namespace gpuplan::perf::internal
