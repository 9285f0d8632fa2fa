// Workload: everything a user says about a job before buying GPUs.
//
// A Workload is what the YAML file (io/workload_yaml.h) or the CLI flags produce: the task, the
// model (a zoo name or an inline architecture), precision, batch, amount of work, dataset,
// constraints, objective and, for serving, the traffic. It is a plain validated value; the
// performance model and the planner read it, never modify it.
//
//   Result<Workload> w = io::ParseWorkloadYaml(text, "job.yaml");
//   Result<ModelArch> arch = ResolveModel(*w, zoo);
//
// Thread safety: a plain value.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_WORKLOAD_H_
#define GPUPLAN_INCLUDE_GPUPLAN_WORKLOAD_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/enum_names.h"
#include "gpuplan/framework.h"
#include "gpuplan/model.h"
#include "gpuplan/status.h"

namespace gpuplan {

enum class Task { kPretrain, kFinetune, kInference, kRendering, kHpc };
inline constexpr EnumNames<Task, 5> kTaskNames = {{{Task::kPretrain, "pretrain"},
                                                   {Task::kFinetune, "finetune"},
                                                   {Task::kInference, "inference"},
                                                   {Task::kRendering, "rendering"},
                                                   {Task::kHpc, "hpc"}}};

// Fine-tuning method; kFull for pretraining.
enum class Method { kFull, kLora, kQlora };
inline constexpr EnumNames<Method, 3> kMethodNames = {
    {{Method::kFull, "full"}, {Method::kLora, "lora"}, {Method::kQlora, "qlora"}}};

// adamw_8bit: bitsandbytes AdamW8bit, block-wise 8-bit moments (Dettmers et al. 2022);
// paged_adamw_8bit: its PagedAdamW8bit, the same states in CUDA unified memory, which the driver
// evicts to host RAM page by page when the GPU runs out of memory; paged_adamw: bitsandbytes
// PagedAdamW (32-bit), fp32 moments paged the same way (torchtune's single-device low-memory
// full fine-tune configs use it).
enum class Optimizer { kAdamw, kAdamw8bit, kSgd, kAdafactor, kPagedAdamw8bit, kPagedAdamw };
inline constexpr EnumNames<Optimizer, 6> kOptimizerNames = {
    {{Optimizer::kAdamw, "adamw"},
     {Optimizer::kAdamw8bit, "adamw_8bit"},
     {Optimizer::kSgd, "sgd"},
     {Optimizer::kAdafactor, "adafactor"},
     {Optimizer::kPagedAdamw8bit, "paged_adamw_8bit"},
     {Optimizer::kPagedAdamw, "paged_adamw"}}};

// Paged optimizers keep their states in CUDA unified memory, on the GPU while it has room.
constexpr bool PagedStates(Optimizer o) {
  return o == Optimizer::kPagedAdamw8bit || o == Optimizer::kPagedAdamw;
}

// Activation recomputation (Korthikanti et al. 2022): none keeps all activations, selective
// recomputes attention's softmax/dropout, full keeps only each layer's input.
enum class Recompute { kNone, kSelective, kFull };
inline constexpr EnumNames<Recompute, 3> kRecomputeNames = {
    {{Recompute::kNone, "none"}, {Recompute::kSelective, "selective"}, {Recompute::kFull, "full"}}};

// What lives in host RAM instead of GPU memory (ZeRO-Offload, Ren et al. 2021; ZeRO-Infinity /
// FSDP CPU offload, Rajbhandari et al. 2021): the optimizer states (and their update, run by the
// host's Adam), or the parameters too (streamed in per layer).
enum class Offload { kNone, kOptimizer, kParams };
inline constexpr EnumNames<Offload, 3> kOffloadNames = {
    {{Offload::kNone, "none"}, {Offload::kOptimizer, "optimizer"}, {Offload::kParams, "params"}}};

// The linear layers LoRA adapts: every linear layer of the transformer blocks (the QLoRA
// paper's choice, Dettmers et al. 2023, 4), the attention projections q, k, v and o, or only q
// and v (the default of PEFT for Llama, of LitGPT and of torchtune's Llama-2 LoRA recipes).
enum class LoraTargets { kAll, kAttention, kQv };
inline constexpr EnumNames<LoraTargets, 3> kLoraTargetsNames = {
    {{LoraTargets::kAll, "all"}, {LoraTargets::kAttention, "attention"}, {LoraTargets::kQv, "qv"}}};

// How quantised weights are stored (bits per weight = QuantBits in perf/dims.cc): group-wise
// integers with an fp16 scale and zero point per 128 weights (GPTQ, AWQ, bitsandbytes' int8),
// or OCP Microscaling FP4 (MXFP4: e2m1 elements with one e8m0 scale per 32, 4.25 bits; the
// format gpt-oss is released in, OCP MX spec v1.0 5.2).
enum class WeightFormat { kInt, kMxfp4 };
inline constexpr EnumNames<WeightFormat, 2> kWeightFormatNames = {
    {{WeightFormat::kInt, "int"}, {WeightFormat::kMxfp4, "mxfp4"}}};

// Which linear layers weight_bits quantises: all of the transformer blocks' (GPTQ/AWQ), or only
// the routed experts' (gpt-oss: attention, router, embeddings and head stay 16-bit; its
// config.json quantization_config modules_to_not_convert).
enum class QuantizedLayers { kAll, kExperts };
inline constexpr EnumNames<QuantizedLayers, 2> kQuantizedLayersNames = {
    {{QuantizedLayers::kAll, "all"}, {QuantizedLayers::kExperts, "experts"}}};

// What the planner minimises.
enum class Objective { kCost, kTime, kCostWithinDeadline, kTimeWithinBudget };
inline constexpr EnumNames<Objective, 4> kObjectiveNames = {
    {{Objective::kCost, "cost"},
     {Objective::kTime, "time"},
     {Objective::kCostWithinDeadline, "cost_within_deadline"},
     {Objective::kTimeWithinBudget, "time_within_budget"}}};

// Where the training data lives (decides read throughput advice).
enum class DataLocation { kUnknown, kOss, kNas, kCpfs, kEssd, kLocalNvme, kMemory };
inline constexpr EnumNames<DataLocation, 7> kDataLocationNames = {
    {{DataLocation::kUnknown, "unknown", NameKind::kUnlisted},
     {DataLocation::kOss, "oss"},
     {DataLocation::kNas, "nas"},
     {DataLocation::kCpfs, "cpfs"},
     {DataLocation::kEssd, "essd"},
     {DataLocation::kLocalNvme, "local_nvme"},
     {DataLocation::kMemory, "memory"}}};

// Inference engine: decides per-pass framework overhead (see data/calibration.csv). kHf is
// Hugging Face generate() in eager PyTorch; kTorch a plain eager/TorchScript forward (an
// encoder, a custom serving loop); kVllm and kTrtllm the serving engines.
// "sglang" and "lmdeploy" (TurboMind) parse as vllm: the same class of serving engine (continuous
// batching, paged KV cache, CUDA graphs), sharing its overhead model.
enum class Engine { kHf, kVllm, kTrtllm, kTorch };
inline constexpr EnumNames<Engine, 6> kEngineNames = {
    {{Engine::kHf, "hf"},
     {Engine::kVllm, "vllm"},
     {Engine::kVllm, "sglang", NameKind::kAlias},
     {Engine::kVllm, "lmdeploy", NameKind::kAlias},
     {Engine::kTrtllm, "trtllm"},
     {Engine::kTorch, "torch"}}};

// How a serving workload's latency is judged. Interactive: a person reads the tokens as they
// stream, so each TTFT/TPOT target the workload does not give takes the interactive default
// (Calibration::interactive_ttft_ms, interactive_tpot_ms). Batch: offline throughput, held only
// to the targets given ("none" is another spelling: no default target).
enum class LatencyMode { kInteractive, kBatch };
inline constexpr EnumNames<LatencyMode, 3> kLatencyModeNames = {
    {{LatencyMode::kInteractive, "interactive"},
     {LatencyMode::kBatch, "batch"},
     {LatencyMode::kBatch, "none", NameKind::kAlias}}};

// The KV cache's element type in a serving engine. auto: the activations' (16 bits; vLLM's and
// SGLang's default, FP8 weights included); fp8: one byte per element (vLLM/SGLang
// `--kv-cache-dtype fp8`, TensorRT-LLM's FP8 builds), which doubles the sequences a GPU holds.
enum class KvCacheDtype { kAuto, kFp8 };
inline constexpr EnumNames<KvCacheDtype, 2> kKvCacheDtypeNames = {
    {{KvCacheDtype::kAuto, "auto"}, {KvCacheDtype::kFp8, "fp8"}}};

// How a convolutional network's activations are laid out in memory (YAML `memory_format`,
// flag --memory-format). nhwc: channels last (PyTorch `model.to(memory_format=
// torch.channels_last)`, TensorFlow's default), the layout tensor-core convolutions read;
// nchw: PyTorch's default (contiguous), for which cuDNN transposes every tensor-core
// convolution's input and output to NHWC and back (cuDNN developer guide, "Tensor Layouts").
// Unset = nhwc, listed among the assumptions of an image model's answer.
enum class MemoryFormat { kNhwc, kNchw };
inline constexpr EnumNames<MemoryFormat, 2> kMemoryFormatNames = {
    {{MemoryFormat::kNhwc, "nhwc"}, {MemoryFormat::kNchw, "nchw"}}};

// Names and parsers from the tables above; parsing ignores ASCII case.
#define GPUPLAN_WORKLOAD_ENUM(Type, table)                                   \
  constexpr std::string_view Type##Name(Type v) { return NameOf(table, v); } \
  constexpr std::optional<Type> Parse##Type(std::string_view name) {         \
    return ParseName(table, name, NameCase::kIgnore);                        \
  }
GPUPLAN_WORKLOAD_ENUM(Task, kTaskNames)
GPUPLAN_WORKLOAD_ENUM(Method, kMethodNames)
GPUPLAN_WORKLOAD_ENUM(Optimizer, kOptimizerNames)
GPUPLAN_WORKLOAD_ENUM(Recompute, kRecomputeNames)
GPUPLAN_WORKLOAD_ENUM(Offload, kOffloadNames)
GPUPLAN_WORKLOAD_ENUM(LoraTargets, kLoraTargetsNames)
GPUPLAN_WORKLOAD_ENUM(Objective, kObjectiveNames)
GPUPLAN_WORKLOAD_ENUM(DataLocation, kDataLocationNames)
GPUPLAN_WORKLOAD_ENUM(Engine, kEngineNames)
GPUPLAN_WORKLOAD_ENUM(LatencyMode, kLatencyModeNames)
#undef GPUPLAN_WORKLOAD_ENUM

struct Budget {
  double amount = 0;  // in `currency`; 0 = no budget
  std::string currency = "CNY";
};

struct Constraints {
  std::vector<std::string> regions;  // empty = any region
  std::optional<int> max_gpus;       // total GPUs
  std::optional<int> max_nodes;
  std::optional<double> deadline_hours;
  std::optional<Budget> budget;
  std::vector<Billing> billing;               // allowed modes; empty = payg and spot
  std::vector<std::string> include_families;  // empty = all families
  std::vector<std::string> exclude_families;
  std::vector<std::string> include_gpus;  // GPU names or aliases; empty = all
  std::vector<std::string> exclude_gpus;
  // GPU makers the job may not use (a compliance rule: "no NVIDIA"); empty = any.
  std::vector<GpuVendor> exclude_vendors;
  bool need_fp64 = false;      // the job needs real FP64 (HPC)
  bool need_graphics = false;  // needs graphics APIs / a GRID licence (rendering)
  bool no_spot = false;        // the job cannot be interrupted
  bool need_rdma = false;      // multi-node only over eRDMA
  bool long_running = false;   // a service running for months (compare subscription)
  std::optional<double> min_gpu_memory_gib;
};

struct Dataset {
  std::optional<double> size_gb;    // total size, GB (10^9 bytes)
  std::optional<double> sample_kb;  // average sample size, KB (10^3 bytes)
  DataLocation location = DataLocation::kUnknown;
};

// A service's traffic over a day (inference.traffic): requests per second in each hour of the
// day, local time. The YAML's {base_rps, peak_rps, peak_hours} form is expanded into hourly_rps
// by the edge (TrafficFromPeak).
struct TrafficProfile {
  std::vector<double> hourly_rps;          // 24 rates; [0] = 00:00-01:00 local time
  std::vector<double> weekend_hourly_rps;  // 24 rates for Saturday and Sunday; empty = as weekdays
  // Local time = UTC + utc_offset_hours (ESS scheduled tasks run on UTC cron). Unset = UTC+8,
  // China Standard Time (the regions most plans land in), listed as an assumption.
  std::optional<double> utc_offset_hours;
  std::string timezone;  // as the user wrote it ("Asia/Shanghai", "+08:00"); "" = unset
  // Minutes from asking for an instance to its engine starting to load the weights: ECS start,
  // image and container start. Unset = PlanOptions::scale_up_minutes (an assumption, listed).
  std::optional<double> scale_up_minutes;

  bool HasWeekend() const { return !weekend_hourly_rps.empty(); }
  // The rate in hour `hour` (0..23) of a weekday or a weekend day.
  double At(int hour, bool weekend) const;
  double Peak() const;  // the highest hourly rate of the week
};

// The hourly profile of "base_rps, except peak_rps in peak_hours" (peak_hours "19-22": from
// 19:00 to 22:00, three hours; "22-2" wraps past midnight). nullopt when peak_hours is malformed
// (not "A-B" with hours 0..24, A != B).
std::optional<std::vector<double>> TrafficFromPeak(double base_rps, double peak_rps,
                                                   std::string_view peak_hours);
// A UTC offset in hours from "+08:00", "-05:30", "UTC+8", "UTC" or a fixed-offset zone name
// ("Asia/Shanghai"); nullopt when not understood.
std::optional<double> ParseUtcOffset(std::string_view timezone);

// Serving traffic and targets (task: inference).
struct InferenceSpec {
  std::optional<double> requests_per_s;   // sustained request rate to serve
  std::optional<TrafficProfile> traffic;  // the rate over a day (instead of requests_per_s)
  int prompt_tokens = 512;                // tokens in per request (the mean)
  int output_tokens = 256;                // tokens generated per request (the mean)
  // The 90th percentile of the lengths ({mean, p90} in the YAML): the KV cache a copy must hold
  // is sized for them, its speed for the means. Unset = the mean.
  std::optional<int> prompt_tokens_p90;
  std::optional<int> output_tokens_p90;
  std::optional<double> ttft_ms;  // target time to first token
  std::optional<double> tpot_ms;  // target time per output token
  // Unset = Workload::Latency() decides: batch for an offline job, else interactive.
  std::optional<LatencyMode> latency;
  std::optional<int> batch;  // fixed batch / concurrency; unset = chosen
  // Images, video and speech (kind=other models; ignored for transformers): the output size
  // in pixels (YAML `resolution: 1024x1024`), video frames, sampling steps and classifier-free
  // guidance of a diffusion model; unset = the zoo row's (native_size, frames, steps, cfg).
  std::optional<int> width_px;
  std::optional<int> height_px;
  std::optional<int> frames;
  std::optional<int> steps;
  std::optional<bool> cfg;
  // Images decoded on the GPU (NVIDIA DALI / nvJPEG) instead of by the host's CPU cores (PIL,
  // torchvision): decides the vCPUs per GPU an image job needs (rules: jpeg-decode-cpu).
  bool gpu_image_decode = false;
  Engine engine = Engine::kVllm;
  // Unset = what the engine does with the workload's precision: FP8 under TensorRT-LLM's FP8
  // builds, else the activations' 16 bits.
  std::optional<KvCacheDtype> kv_cache_dtype;
  // Continuous (in-flight) batching: requests join and leave the running batch every step
  // (vLLM, SGLang, TensorRT-LLM's in-flight batching). Unset = what the engine does: vllm and
  // trtllm yes, hf and torch (static batches) no.
  std::optional<bool> continuous_batching;
  bool ContinuousBatching() const {
    return continuous_batching.value_or(engine == Engine::kVllm || engine == Engine::kTrtllm);
  }
  // The rate a service is sized for: the traffic's peak, else requests_per_s; nullopt = no
  // rate (batch inference or a single request).
  std::optional<double> PeakRps() const {
    return traffic ? std::optional<double>(traffic->Peak()) : requests_per_s;
  }
};

// The fields of a Workload its author left unset, so that they hold the defaults below. The
// edges mark them (io::ParseWorkloadYaml: keys absent from the file; the command-line flags:
// flags not given); a workload built in code marks none, and every field is taken as set.
// DeriveDefaults (gpuplan/defaults.h) fills the marked ones from the work and the model and
// lists each as an assumption.
struct UnsetFields {
  bool precision = false;
  bool seq_len = false;
  bool global_batch = false;
  bool prompt_tokens = false;  // inference.prompt_tokens
  bool output_tokens = false;  // inference.output_tokens
  bool confidence = false;
  bool memory_confidence = false;
  // All marked: a workload read from a file or flags starts from this.
  static UnsetFields All() { return {true, true, true, true, true, true, true}; }
  // How many are marked.
  int Count() const {
    return precision + seq_len + global_batch + prompt_tokens + output_tokens + confidence +
           memory_confidence;
  }
};

struct Workload {
  std::string name;  // optional label for reports
  Task task = Task::kFinetune;
  Method method = Method::kFull;
  // The model: a zoo name, or an inline architecture when `inline_arch` is set (then
  // `model_name` is "inline" or the name the user gave it).
  std::string model_name;
  std::optional<ModelArch> inline_arch;
  // A Hugging Face config.json (or its folder) named by `model: {config: PATH}` or
  // --model-config; the command-line edge reads it into inline_arch (the core reads no files).
  std::string model_config;
  Precision precision = Precision::kBf16;  // compute precision of weights and activations
  // Bits per weight of a quantised frozen base (4 = NF4/GPTQ-int4, 8 = int8); 0 = not
  // quantised. QLoRA implies 4.
  int weight_bits = 0;
  WeightFormat weight_format = WeightFormat::kInt;
  QuantizedLayers quantized_layers = QuantizedLayers::kAll;
  int seq_len = 2048;              // tokens per sample
  std::optional<int> micro_batch;  // per-GPU sequences per forward; unset = chosen
  int global_batch = 32;           // sequences per optimizer step
  // Amount of work: tokens, or samples x epochs. Unset = per-step numbers only.
  std::optional<double> tokens;
  std::optional<double> samples;
  double epochs = 1;
  Optimizer optimizer = Optimizer::kAdamw;
  // 16-bit training keeps an fp32 master copy of the weights and fp32 optimizer states (mixed
  // precision, Micikevicius et al. 2018). false = pure 16-bit training: weights, gradients and
  // optimizer states all in the compute precision (torchtune's bf16 recipes, plain
  // model.to(bfloat16) + torch.optim.AdamW).
  bool master_weights = true;
  std::optional<Recompute> recompute;  // unset = chosen by the layout
  // Layout choices the user fixes (YAML keys of the same names, flags --cp, --virtual-stages,
  // --offload, --optimizer-in-backward, --activation-offload); unset = chosen by the layout
  // search (offload and the other memory savers only when nothing fits without them).
  std::optional<int> cp;              // context-parallel degree
  std::optional<int> virtual_stages;  // interleaved-pipeline model chunks per rank
  std::optional<Offload> offload;
  std::optional<bool> optimizer_in_backward;
  std::optional<bool> activation_offload;
  // The training framework (--framework, YAML key `framework`): "auto" or a name of
  // data/frameworks.csv. The edges resolve it (FrameworksFor, gpuplan/framework.h) into
  // `frameworks`, the rows whose layouts the search may try; empty = no restriction (a workload
  // built in code, the validation rows: every layout the model knows).
  std::string framework = "auto";
  std::vector<Framework> frameworks;
  // How the loss holds the logits (YAML `cross_entropy`, flag --cross-entropy; CrossEntropy in
  // gpuplan/framework.h); unset = the framework's (data/frameworks.csv cross_entropy), fp32 when
  // none is named.
  std::optional<CrossEntropy> cross_entropy;
  int lora_rank = 16;  // LoRA/QLoRA adapter rank
  LoraTargets lora_targets = LoraTargets::kAll;
  double lora_dropout = 0;  // dropout on each adapter's input (PEFT LoraConfig default 0)
  // LoRA/QLoRA also trains the embedding and output head (PEFT modules_to_save), as needed
  // when adding tokens.
  bool train_embeddings = false;
  bool flash_attention = true;  // fused attention without the s^2 score matrix
  // MoE training overlaps each micro-batch's expert-parallel all-to-alls with another's compute
  // (Megatron-Core --overlap-moe-expert-parallel-comm, Megatron-Bridge moe_a2a_overlap; YAML key
  // moe_a2a_overlap, flag --moe-a2a-overlap). Off by default, as in Megatron-Core.
  bool moe_a2a_overlap = false;
  // Training overlaps the tensor-parallel all-gathers and reduce-scatters with the GEMMs that
  // consume or produce them (Megatron-Core --tp-comm-overlap: Transformer Engine userbuffers,
  // sequence parallel; YAML key tp_comm_overlap, flag --tp-comm-overlap). Off by default, as in
  // Megatron-Core; Megatron-Bridge's and NeMo's performance recipes turn it on.
  bool tp_comm_overlap = false;
  // A convolutional network's activation layout (MemoryFormat above); unset = nhwc.
  std::optional<MemoryFormat> memory_format;
  Dataset dataset;
  Constraints constraints;
  Objective objective = Objective::kCost;
  // Deadline and budget checks (and ranking) use this percentile of the calibrated time and
  // cost range (gpuplan/uncertainty.h): 0.9 = "met with 90% confidence". 0.1..0.9.
  double confidence = 0.5;
  // The training fit test uses this percentile of the model's memory error (YAML
  // `memory_confidence`, flag --memory-confidence; perf::Hardware::memory_error_ratio), apart
  // from `confidence`: an OOM wastes the rental and the day, so it is not a cost to trade at
  // the median. 0.9 = the layout fits in 9 of 10 cases the model's error allows. 0.1..0.9.
  double memory_confidence = 0.9;
  InferenceSpec inference;
  UnsetFields unset;  // what the author did not give (none for a workload built in code)

  bool IsTraining() const { return task == Task::kPretrain || task == Task::kFinetune; }
  // Inference with a request rate (requests_per_s or a traffic profile): sized for the rate
  // within the latency targets, priced by the month.
  bool IsServing() const { return task == Task::kInference && inference.PeakRps().has_value(); }
  // A service runs around the clock and is not reclaimed at will: serving, or long_running.
  bool IsService() const { return IsServing() || constraints.long_running; }
  // Tokens processed by the whole job (tokens, else samples x epochs x seq_len); nullopt when
  // neither is given.
  std::optional<double> TotalTokens() const;
  // The latency mode in force (inference.latency when given): batch for an offline job (samples
  // or tokens to process and no requests_per_s), else interactive.
  LatencyMode Latency() const;
  // The compute precision and the stored weights: "bf16", "bf16 over 4-bit weights", "bf16
  // over MXFP4 experts (4.25 bits)".
  std::string PrecisionText() const;
};

// Checks cross-field rules (positive sizes, method only for finetune, qlora needs 4-bit,
// inference spec sane). Returns InvalidArgument naming the field.
Status ValidateWorkload(const Workload& w);

// Checks the rules that need the model too (quantized_layers: experts needs routed experts).
// InvalidArgument naming the field; plan and estimate both call it.
Status ValidateWorkloadForModel(const Workload& w, const ModelArch& arch);

// The architecture the workload names: the inline one, else the zoo entry. NotFound with a
// "did you mean" list for an unknown name.
Result<ModelArch> ResolveModel(const Workload& w, const ModelZoo& zoo);

// An image size "1024x1024" (also "1280*720", and "480p", "720p", "1080p" as 16:9 landscape):
// width and height in pixels, each 8..32768; nullopt when malformed.
std::optional<std::pair<int, int>> ParseImageSize(std::string_view text);

// Parses an amount with an optional suffix K, M, B (or G), T: "100M" -> 1e8, "1.5B" -> 1.5e9.
// nullopt when malformed or negative.
std::optional<double> ParseAmount(std::string_view text);

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_WORKLOAD_H_
