// What one training step looks like on the busiest GPU: the sizes that the memory, compute and
// communication parts of the training estimate share (src/core/perf/training_*.cc).
#ifndef GPUPLAN_SRC_CORE_PERF_TRAINING_SHAPE_H_
#define GPUPLAN_SRC_CORE_PERF_TRAINING_SHAPE_H_

#include <array>

#include "perf/internal.h"
#include "perf/op_records.h"

namespace gpuplan::perf::internal {

// Model and hardware FLOPs per token, and the basis the MFU is stated on.
struct TrainingFlops {
  double model_per_token = 0;         // what the method must compute (no recomputation)
  double hardware_per_token = 0;      // what the GPUs execute (with recomputation)
  double attention_per_token = 0;     // attention core part of model_per_token
  double attention_hw_per_token = 0;  // attention core part of hardware_per_token
  double adapter_hw_per_token = 0;    // LoRA adapter GEMM part of hardware_per_token
  double head_hw_per_token = 0;       // output head GEMM part (its forward and backward)
  const char* basis = "";
};

// What every training estimate of one workload and model on one GPU type shares for a given
// context-parallel degree and attention kernel: the layout search builds it once and estimates
// thousands of layouts with it (a one-off estimate builds its own).
struct TrainingInvariants {
  Dims d;
  ArchEfficiency eff;  // the GPU's calibrated efficiency row
  OpRecords ops;
  std::array<TrainingFlops, kReruns> flops;  // by Rerun (FlopsOf)
  int cp = 1;
  bool flash = false;
};
TrainingInvariants InvariantsOf(const Workload& w, const ModelArch& arch, const Gpu& gpu,
                                const Calibration& cal, int cp, bool flash);

// LoRA or QLoRA: a frozen base with trainable adapters (TrainingShape::lora, OpContext::lora).
inline bool TrainsAdapters(const Workload& w) {
  return w.method == Method::kLora || w.method == Method::kQlora;
}
// 16-bit compute with an fp32 master copy and fp32 optimizer states, and (PEFT) fp32 adapters;
// pure 16-bit training keeps neither (TrainingShape::mixed, OpContext::fp32_adapters).
inline bool MixedPrecision(const Workload& w) {
  return ElementBytes(w.precision) == 2 && w.master_weights;
}

struct TrainingShape {
  Dims d;
  bool transformer = false;
  bool lora = false;   // LoRA or QLoRA: frozen base, trainable adapters
  bool half = false;   // 16-bit weights and activations
  bool mixed = false;  // 16-bit compute with an fp32 master copy
  bool flash = false;
  Recompute rc = Recompute::kNone;
  Rerun rerun = Rerun::kNone;         // rc as the framework that runs the layout recomputes
  const Framework* runner = nullptr;  // that framework (FrameworkFor); none when none is listed
  double s = 0;                       // sequence length (full)
  double s_local = 0;                 // tokens of a sequence on one context-parallel rank (s / cp)
  double b = 0;                       // micro-batch
  double e = 0;                       // bytes per weight/activation element
  double tp = 1, cp = 1, pp = 1, vp = 1, dp = 1;
  double shard = 1;  // ranks that hold the same weights and shard ZeRO states: dp x cp
  // ZeRO's divisor of this GPU's parameter mix: dense parameters shard over `shard`, routed
  // experts (sharded by ep) over their own replicas (= shard for dense models).
  double zero_shard = 1;
  int m = 1;                      // micro-batches per step per pipeline
  double stage_layers = 0;        // transformer layers on the busiest (first) stage
  bool a2a_overlap = false;       // MoE all-to-alls overlapped with another micro-batch
  bool tp_overlap = false;        // tensor-parallel communication overlapped with the GEMMs
  double stage_embed = 0;         // embedding / head parameters on that stage
  double stage_params = 0;        // parameters on one GPU of that stage before ZeRO
  double stage_layer_params = 0;  // of which in transformer layers
  double master = 0;              // fp32 master-copy bytes per trainable parameter
  double state_bytes = 0;         // optimizer-state bytes per trainable parameter
  double trainable_local = 0;     // trainable parameters on one GPU before ZeRO
  double adapter_local = 0;       // LoRA adapter parameters on one GPU
  double layer_activation = 0;    // saved activations of one layer, one micro-batch, bytes
  // The layer's and the model's operation records and the GPU's efficiency row, from the
  // invariants the shape was made with (which outlive it).
  const OpRecords& ops() const { return *ops_; }
  const ArchEfficiency& eff() const { return *eff_; }
  const OpRecords* ops_ = nullptr;
  const ArchEfficiency* eff_ = nullptr;
};

TrainingShape ShapeOf(const Workload& w, const ModelArch& arch, const Layout& l,
                      const TrainingInvariants& inv);

// Memory of the step on the busiest GPU (and the host RAM offload needs), into `est.memory`.
void TrainingMemory(const TrainingShape& t, const Workload& w, const Hardware& hw, const Layout& l,
                    const Calibration& cal, Estimate& est);

TrainingFlops FlopsOf(const TrainingShape& t, const ModelArch& arch);

// LoRA's adapter GEMMs (at their roofline) and casts, dropout, scaling and adds on one stage
// for one micro-batch of `tokens`, seconds (training_compute.cc).
double AdapterSeconds(const TrainingShape& t, double tokens, double peak_flops,
                      double gemm_fraction, double bw_bytes);

// Compute of one micro-batch on the busiest stage, seconds (training_compute.cc).
struct MicroBatchCompute {
  double seconds = 0;             // on the slowest pipeline stage: what paces the step
  double bubble_stage = 0;        // on a stage without the head: what fills and drains the pipe
  double attention_rate = 0;      // achieved fraction of attention_peak of the attention core
  double attention_peak = 0;      // TFLOPS the attention core runs against (BF16 under FP8)
  double elementwise_passes = 0;  // forward, backward (two) and a full-recompute forward
};
MicroBatchCompute MicroBatchSeconds(const TrainingShape& t, const TrainingFlops& f,
                                    const Workload& w, const ModelArch& arch, const Hardware& hw,
                                    const Layout& l, const Calibration& cal, double peak);

// Communication of the step (training_comm.cc): tensor, context, pipeline and expert parallel
// traffic and the data-parallel gradient synchronisation, into `tb`.
void TrainingComm(const TrainingShape& t, const TrainingFlops& f, const MicroBatchCompute& mb,
                  const Hardware& hw, const Layout& l, const Calibration& cal, TimeBreakdown& tb);

// The host's Adam (optimizer offload) over `params` parameters of `bytes_per_param` streamed
// bytes each, seconds (training_time.cc).
double HostAdamSeconds(double params, double bytes_per_param, const Calibration& cal);
// What one GPU of `hw` moves to or from the host per second while every GPU of its node does
// (Calibration::host_link_gpus share a PCIe uplink), bytes/s.
double HostLinkBytesPerS(const Gpu& gpu, const Hardware& hw, const Calibration& cal);

// Step time: compute and every communication part, into `est.time.breakdown`.
void TrainingTime(const TrainingShape& t, const TrainingFlops& f, const Workload& w,
                  const ModelArch& arch, const Hardware& hw, const Layout& l,
                  const Calibration& cal, double peak, Estimate& est);

}  // namespace gpuplan::perf::internal

#endif  // GPUPLAN_SRC_CORE_PERF_TRAINING_SHAPE_H_
