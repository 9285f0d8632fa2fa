#include "io/validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "gpuplan/enum_names.h"
#include "gpuplan/estimate.h"
#include "gpuplan/layout_search.h"
#include "gpuplan/strings.h"
#include "gpuplan/workload.h"
#include "io/benchmark_burst.h"
#include "io/csv.h"
#include "io/framework_csv.h"

namespace gpuplan::io {
namespace {

// Metrics pooled as "throughput-like" for the targets.
bool IsThroughputMetric(const std::string& m) {
  return m == "tokens_per_s_per_gpu" || m == "output_tokens_per_s_per_gpu" ||
         m == "tflops_per_gpu" || m == "mfu" || m == "step_time_s" ||
         m == "samples_per_s_per_gpu" || m == "ttft_ms" || m == "tpot_ms" ||
         m == "prefill_tokens_per_s_per_gpu" || m == "decode_tokens_per_s_per_gpu" ||
         m == "time_to_train_min" || m == "gpu_hours";
}
bool IsMemoryMetric(const std::string& m) { return m == "peak_mem_gib" || m == "max_seq_len_fit"; }

// How a metric moves with the step time or memory a plan pays for: +1 grows with it (a time,
// peak memory), -1 shrinks (a throughput), 0 neither (fits, the longest sequence that fits).
int CostDirection(const std::string& m) {
  if (m == "step_time_s" || m == "ttft_ms" || m == "tpot_ms" || m == "time_to_train_min" ||
      m == "gpu_hours" || m == "peak_mem_gib") {
    return 1;
  }
  if (IsThroughputMetric(m))
    return -1;
  return 0;
}

// Whether a measurement is better than a physical bound on its metric by more than the 5% a
// datasheet figure's rounding and expected (not worst-case) MoE routing could hide.
bool BeatsBound(const std::string& metric, double measured, double bound) {
  constexpr double kSlack = 1.05;
  const int dir = CostDirection(metric);
  return bound > 0 && measured > 0 &&
         (dir > 0 ? measured * kSlack < bound : dir < 0 && measured > bound * kSlack);
}

// The value of a `key=value` token in the notes column ("impl=vLLM 0.6.3; ..."), or "".
std::string NoteToken(const std::string& notes, std::string_view key) {
  const std::string k = std::string(key) + "=";
  size_t pos = notes.find(k);
  while (pos != std::string::npos && pos > 0 && notes[pos - 1] != ' ' && notes[pos - 1] != ';') {
    pos = notes.find(k, pos + 1);
  }
  if (pos == std::string::npos)
    return "";
  const size_t start = pos + k.size();
  size_t end = notes.find(';', start);
  if (end == std::string::npos)
    end = notes.size();
  std::string v = notes.substr(start, end - start);
  while (!v.empty() && v.back() == ' ')
    v.pop_back();
  return v;
}

bool Contains(const std::string& haystack, std::string_view needle) {
  return strings::Lower(haystack).find(needle) != std::string::npos;
}

// Everything needed to predict one row.
struct RowInputs {
  Workload w;
  ModelArch arch;
  perf::Hardware hw;
  perf::Layout layout;
  std::string memory_kind;      // allocated | reserved | nvidia_smi | ""
  double mfu_peak = 0;          // peak_tflops from mfu_basis; 0 = the GPU's own peak
  bool hardware_flops = false;  // mfu_basis flops=hardware
  // mfu_basis attention=causal: the source's model FLOPs count the attention core's causal half
  // only (Megatron-Bridge's flop_utils), where gpuplan's count the full square.
  bool causal_attention_flops = false;
  std::optional<double> vram_budget_gib;
  std::optional<double> train_tokens;
  std::string task;               // the row's task column
  bool balanced_routing = false;  // MoE benchmark that force-balances the routing (notes say)
  bool batch_given = true;        // batch_size_inference stated (else: the engine at full load)
  // An online benchmark's requests issued at once beyond what the engine runs together (0 =
  // none wait): they queue, and the mean TTFT counts the wait (benchmark_burst.h).
  int burst_requests = 0;
  bool micro_batch_given = true;  // training: micro_batch stated (else: the layout search's)
  bool recompute_given = true;    // the recompute column stated (blank: none, or searched)
  std::string assumptions;
};

// The whole number that starts a `key=value` note token ("kv_lora=512 q_lora=1536"), or 0.
int NoteInt(const std::string& notes, std::string_view key) {
  const std::string v = NoteToken(notes, key);
  size_t n = 0;
  while (n < v.size() && v[n] >= '0' && v[n] <= '9')
    ++n;
  return n > 0 ? std::stoi(v.substr(0, std::min<size_t>(n, 9))) : 0;
}

// A `key=name` note token of an enum (cross_entropy=fp32, weight_format=mxfp4) into `*out`; ""
// when absent (`*out` kept), else the error naming the token and the names allowed.
template <typename E, size_t N, typename Out>
std::string ReadNoteEnum(const std::string& notes, std::string_view key,
                         const EnumNames<E, N>& names, Out* out) {
  const std::string v = NoteToken(notes, key);
  if (v.empty())
    return "";
  const std::optional<E> parsed = ParseName(names, v);
  if (!parsed)
    return "notes: " + std::string(key) + "=" + v + " is not one of " +
           NameChoices(names, ", ", ", ");
  *out = *parsed;
  return "";
}

// Reads an optional number column; nullopt when empty, error when malformed.
std::optional<double> Opt(CsvRowReader& r, std::string_view column) {
  return r.OptionalNumber(column, -1e18, 1e18);
}

// A count column as int, clamped so a silly value cannot overflow the conversion.
int ToInt(double v) { return static_cast<int>(std::clamp(v, -1e6, 1e6)); }

// The MLP kind of a model: README of the validation set: SwiGLU for Llama/Mistral/Qwen/TinyLlama,
// 4h GELU for GPT/MPT/OPT/BLOOM/BERT/Falcon/GPT-J.
MlpKind MlpOf(const std::string& model, int hidden, int ffn) {
  for (std::string_view swiglu : {"llama", "mistral", "qwen", "tinyllama", "phi-3", "gemma"}) {
    if (Contains(model, swiglu))
      return MlpKind::kSwiglu;
  }
  return ffn == 4 * hidden ? MlpKind::kGelu : MlpKind::kSwiglu;
}

// The MoE, MLA, head_dim and sliding-window parts of a row's architecture: the columns
// (experts top_k moe_ffn shared_experts dense_layers attention) and the notes' tokens
// (head_dim=, kv_lora= q_lora= qk_rope= qk_nope= v_head=), else the zoo's row. "" or the reason
// the row cannot be predicted.
std::string ReadModernShape(CsvRowReader& r, const std::string& notes, const ModelArch* zoo,
                            ModelArch& a) {
  const std::optional<double> experts = Opt(r, "experts"), top_k = Opt(r, "top_k"),
                              moe_ffn = Opt(r, "moe_ffn"), shared = Opt(r, "shared_experts"),
                              dense = Opt(r, "dense_layers");
  if (zoo != nullptr) {  // what the row does not say (head_dim, windows, MLA ranks)
    a.head_dim = zoo->head_dim;
    a.attention = zoo->attention;
    a.mla = zoo->mla;
    a.moe = zoo->moe;
    a.sliding_window = zoo->sliding_window;
    a.sliding_layers = zoo->sliding_layers;
  }
  if (experts && *experts > 0) {
    a.moe.experts = ToInt(*experts);
    a.moe.top_k = ToInt(top_k.value_or(1));
    if (!moe_ffn)
      return "MoE row without moe_ffn";
    a.moe.expert_ffn = ToInt(*moe_ffn);
    a.moe.shared_experts = ToInt(shared.value_or(0));
    a.moe.dense_layers = ToInt(dense.value_or(0));
  } else if (experts) {
    a.moe = MoeShape{};
  }
  if (const int hd = NoteInt(notes, "head_dim"); hd > 0)
    a.head_dim = hd;
  const std::string attention = r.Text("attention");
  if (attention == "mla") {
    a.attention = AttentionKind::kMla;
    if (const int kv = NoteInt(notes, "kv_lora"); kv > 0) {
      a.mla = {.q_lora_rank = NoteInt(notes, "q_lora"),
               .kv_lora_rank = kv,
               .qk_rope_head_dim = NoteInt(notes, "qk_rope"),
               .qk_nope_head_dim = NoteInt(notes, "qk_nope"),
               .v_head_dim = NoteInt(notes, "v_head")};
    }
    if (a.mla.kv_lora_rank <= 0)
      return "MLA row without its ranks (notes kv_lora=...)";
  } else if (attention == "gqa" || attention == "mha") {
    a.attention = AttentionKind::kGqa;
  }
  return "";
}

// The row's GPU, or for a memory-budget row without one a stand-in of the stated capacity. ""
// or the reason the row cannot be predicted.
std::string ReadGpu(CsvRowReader& r, const Catalog& catalog, const std::string& notes,
                    RowInputs& in, const Gpu** gpu) {
  const std::string gpu_name = r.Text("gpu");
  const std::string budget = NoteToken(notes, "vram_budget_gb");
  if (!budget.empty()) {
    if (std::optional<double> b = ParseDecimal(budget))
      in.vram_budget_gib = *b * 1e9 / (1 << 30);
  }
  *gpu = catalog.FindGpu(gpu_name);
  if (*gpu == nullptr && in.vram_budget_gib && (gpu_name == "OTHER" || gpu_name.empty())) {
    // A memory-budget row ("fits in 16 GB") does not depend on the GPU's speed: use a GPU of
    // the row's precision class and the stated budget as capacity.
    *gpu = catalog.FindGpu("A100-80G-SXM");
    in.assumptions += "capacity = vram_budget_gb; ";
  }
  if (*gpu == nullptr) {
    return gpu_name.empty() ? "no GPU named" : "unknown GPU \"" + gpu_name + "\"";
  }
  return "";
}

// The architecture: the row's columns, else the zoo's model of that name.
std::string ReadArchitecture(CsvRowReader& r, const ModelZoo& zoo, const std::string& model,
                             const std::string& notes, ModelArch& a) {
  // A hybrid's state-space layers (Nemotron-H/Nemotron 3: Mamba-2 blocks between attention and
  // MoE blocks) have no attention square and a scan instead; read as transformer layers, each
  // would count an attention and an MLP it does not have.
  if (const std::string mamba = NoteToken(notes, "mamba_layers"); !mamba.empty()) {
    return "hybrid model with " + mamba + " Mamba-2 layers: state-space layers are not modelled";
  }
  const ModelArch* zoo_arch = zoo.Find(model);
  a.name = model;
  const std::optional<double> layers = Opt(r, "layers"), hidden = Opt(r, "hidden"),
                              heads = Opt(r, "heads"), kv = Opt(r, "kv_heads"), ffn = Opt(r, "ffn"),
                              vocab = Opt(r, "vocab"), params_b = Opt(r, "params_b"),
                              experts = Opt(r, "experts");
  // Every layer of a MoE model may be MoE: then ffn is empty.
  if (layers && hidden && heads && (ffn || (experts && *experts > 0))) {
    a.layers = ToInt(*layers);
    a.hidden = ToInt(*hidden);
    a.heads = ToInt(*heads);
    a.kv_heads = kv ? ToInt(*kv) : a.heads;
    a.ffn = ffn ? ToInt(*ffn) : 0;
    a.vocab = vocab ? ToInt(*vocab) : (zoo_arch ? zoo_arch->vocab : 0);
    a.mlp = experts ? MlpKind::kSwiglu : MlpOf(model, a.hidden, a.ffn);
    if (std::string why = ReadModernShape(r, notes, zoo_arch, a); !why.empty())
      return why;
    a.tied_embeddings = zoo_arch ? zoo_arch->tied_embeddings : Contains(notes, "tied embeddings");
    a.dropout = zoo_arch != nullptr && zoo_arch->dropout;
    if (a.vocab == 0)
      return "missing vocab";
  } else if (zoo_arch != nullptr) {
    a = *zoo_arch;
  } else {
    return "missing architecture (layers/hidden/heads/ffn) and model \"" + model +
           "\" not in the zoo";
  }
  if (Contains(model, "bert"))
    a.kind = ModelKind::kEncoder;
  if (params_b && *params_b > 0)
    a.params = *params_b * 1e9;
  if (std::optional<double> active = Opt(r, "active_params_b"); active && *active > 0) {
    a.active_params = *active * 1e9;
  }
  if (Status s = ValidateModelArch(a); !s.ok())
    return "architecture: " + s.message();
  return "";
}

// The task column ("finetune_qlora", "inference_decode", ...) as the workload's task and method.
std::string ReadTask(const std::string& task, const std::string& notes, Workload& w) {
  if (task == "pretrain") {
    w.task = Task::kPretrain;
  } else if (task == "finetune_full") {
    w.task = Task::kFinetune;
  } else if (task == "finetune_lora") {
    w.task = Task::kFinetune;
    w.method = Method::kLora;
  } else if (task == "finetune_qlora") {
    w.task = Task::kFinetune;
    w.method = Method::kQlora;
    w.weight_bits = 4;
  } else if (task.rfind("inference", 0) == 0) {
    w.task = Task::kInference;
  } else {
    return "unknown task \"" + task + "\"";
  }
  if (Contains(task, "lora") && Contains(notes, "llama-adapter")) {
    return "LLaMA-Adapter is not modelled";
  }
  if (Contains(NoteToken(notes, "impl"), "unsloth")) {
    return "Unsloth offloads checkpointed activations to host memory; not modelled";
  }
  return "";
}

// Precision, quantised weights, sequence length, LoRA rank, attention kernel and optimizer.
std::string ReadWorkloadColumns(CsvRowReader& r, const std::string& notes,
                                const std::string& metric, const ModelArch& a, Workload& w,
                                std::string& assumptions) {
  const std::string precision = r.Text("precision");
  if (precision.empty()) {
    w.precision = Precision::kBf16;
    assumptions += "precision unset: bf16 assumed; ";
  } else if (std::optional<Precision> p = ParsePrecision(precision)) {
    w.precision = *p;
  } else {
    return "unknown precision \"" + precision + "\"";
  }
  if (std::optional<double> q = Opt(r, "quant_bits"); q && w.method != Method::kQlora) {
    w.weight_bits = ToInt(*q);
  }
  if (w.weight_bits != 0 && w.weight_bits != 4 && w.weight_bits != 8) {
    return fmt::format("{}-bit weights are not modelled", w.weight_bits);
  }
  // The quantised weights' format and layers as the notes state them ("weight_format=mxfp4;
  // quantized_layers=experts": gpt-oss as released); unstated: group-wise integers, all layers.
  // A convolutional network's activation layout where the run states it (memory_format=nchw:
  // DeepLearningExamples' TF32 and FP32 configs leave PyTorch's contiguous default).
  for (std::string why :
       {ReadNoteEnum(notes, "weight_format", kWeightFormatNames, &w.weight_format),
        ReadNoteEnum(notes, "quantized_layers", kQuantizedLayersNames, &w.quantized_layers),
        ReadNoteEnum(notes, "memory_format", kMemoryFormatNames, &w.memory_format)}) {
    if (!why.empty())
      return why;
  }
  const std::optional<double> seq = Opt(r, "seq_len");
  const bool seq_needed = metric != "max_seq_len_fit";
  if (!seq && seq_needed)
    return "missing seq_len";
  w.seq_len = seq ? std::max(1, ToInt(*seq)) : 2048;
  if (std::optional<double> rank = Opt(r, "lora_rank"))
    w.lora_rank = ToInt(*rank);
  w.train_embeddings =
      w.method != Method::kFull && Contains(notes, "embedding+lm_head also trained");
  // Adapted layers and adapter dropout as the notes state them ("on q_proj,k_proj,v_proj,o_proj
  // only", "lora_dropout=0.05"); unstated: every linear layer, no dropout.
  if (Contains(notes, "q_proj,k_proj,v_proj,o_proj only")) {
    w.lora_targets = LoraTargets::kAttention;
  } else if (Contains(notes, "q_proj,v_proj only")) {
    w.lora_targets = LoraTargets::kQv;
  }
  if (const std::string p = NoteToken(notes, "lora_dropout"); !p.empty()) {
    w.lora_dropout = std::atof(p.c_str());
  }
  w.master_weights = NoteToken(notes, "master_weights") != "none";
  const std::string fa = r.Text("flash_attention");
  // Unstated: decoders in current engines use fused attention; encoder (BERT-era) stacks
  // materialise the scores.
  w.flash_attention = fa.empty() ? a.kind != ModelKind::kEncoder : fa != "no";
  const std::string opt = r.Text("optimizer");
  if (!opt.empty()) {
    std::optional<Optimizer> o = ParseOptimizer(opt);
    if (!o)
      return "unknown optimizer \"" + opt + "\"";
    w.optimizer = *o;
  }
  return "";
}

// The links the row names: PCIe or NVLink inside a node, Ethernet or RDMA between nodes.
void ReadLinks(CsvRowReader& r, const Gpu& gpu, RowInputs& in) {
  const std::string intra = r.Text("intra_node");
  if (intra == "pcie") {
    in.hw.intra_link = perf::LinkKind::kPcie;
    in.hw.intra_gbs = gpu.PcieGbs();
  } else if ((intra == "nvlink" || intra == "nvswitch") && gpu.nvlink_gbs > 0) {
    in.hw.intra_link = intra == "nvlink" ? perf::LinkKind::kNvlink : perf::LinkKind::kNvswitch;
    in.hw.intra_gbs = gpu.nvlink_gbs / 2;
  }
  const std::string inter = r.Text("inter_node");
  if (inter == "ethernet")
    in.hw.rdma = false;
  if (std::optional<double> g = Opt(r, "inter_node_gbps"); g && *g > 0) {
    in.hw.inter_node_gbps = *g;
  }
  if (in.vram_budget_gib)
    in.hw.gpu_memory_gib = *in.vram_budget_gib;
}

// The parallel layout (tp pp dp cp ep vp, ZeRO, offload, recompute) and the GPUs it runs on.
std::string ReadLayout(CsvRowReader& r, const std::string& notes, const Gpu& gpu,
                       const Architecture* arch, RowInputs& in) {
  perf::Layout& l = in.layout;
  const int gpus = ToInt(Opt(r, "gpus").value_or(1));
  l.tp = ToInt(Opt(r, "tp").value_or(1));
  l.pp = ToInt(Opt(r, "pp").value_or(1));
  const std::optional<double> cp = Opt(r, "cp"), ep = Opt(r, "ep"), vp = Opt(r, "vp");
  l.cp = ToInt(cp.value_or(1));
  l.ep = ToInt(ep.value_or(1));
  l.vp = ToInt(vp.value_or(1));
  in.balanced_routing = Contains(notes, "force-balance");
  // The recipe overlaps the MoE all-to-alls with another micro-batch's compute (Megatron-Bridge
  // moe_a2a_overlap=True; matched in lower case).
  in.w.moe_a2a_overlap = Contains(notes, "moe_a2a_overlap=true");
  // The recipe overlaps the tensor-parallel communication with the GEMMs (Megatron-Bridge's
  // CommOverlapConfig / NeMo's MegatronCommOverlapCallback tp_comm_overlap=True).
  in.w.tp_comm_overlap = Contains(notes, "tp_comm_overlap=true");
  // How the run's loss held the logits where its stack's version differs from the framework
  // row's (torchtune before v0.3 upcast them whole: cross_entropy=fp32).
  if (std::string why =
          ReadNoteEnum(notes, "cross_entropy", kCrossEntropyNames, &in.w.cross_entropy);
      !why.empty()) {
    return why;
  }
  l.dp = ToInt(Opt(r, "dp").value_or(std::max(1.0, gpus / (l.tp * l.pp * l.cp * 1.0))));
  if (l.tp < 1 || l.pp < 1 || l.dp < 1 || l.cp < 1)
    return "parallel degrees must be >= 1";
  l.zero = ToInt(Opt(r, "zero").value_or(0));
  // "cpu" is ZeRO-Offload of the optimizer (the original schema value); "optimizer" and
  // "params" are the layout's own names (params: FSDP/ZeRO-3 CPU offload of everything).
  const std::string offload = r.Text("offload");
  if (offload == "cpu") {
    l.offload = perf::Offload::kOptimizer;
  } else if (std::optional<Offload> o = ParseOffload(offload)) {
    l.offload = *o;
  } else if (!offload.empty()) {
    return "unknown offload \"" + offload + "\" (expected none, cpu, optimizer or params)";
  }
  l.optimizer_in_backward = Contains(notes, "optimizer in backward");
  l.activation_offload = Contains(notes, "activation offload");
  const std::string rc = r.Text("recompute");
  l.recompute = rc.empty() ? Recompute::kNone : ParseRecompute(rc).value_or(Recompute::kNone);
  in.recompute_given = !rc.empty();
  l.sequence_parallel = Contains(notes, "sequence parallel");
  l.flash_attention = in.w.flash_attention;
  const int gpn = ToInt(Opt(r, "gpus_per_node").value_or(std::min(gpus, 8)));
  const double degrees = 1.0 * l.tp * l.pp * l.dp * l.cp;
  if (degrees != gpus)
    return fmt::format("tp*cp*pp*dp = {} but gpus = {}", degrees, gpus);
  in.hw = perf::HardwareFor(gpu, gpus, std::max(1, gpn), arch);
  ReadLinks(r, gpu, in);
  return "";
}

// The serving engine: the impl= token, else an engine the notes or source name.
Engine EngineOf(CsvRowReader& r, const std::string& notes) {
  std::string impl = NoteToken(notes, "impl");
  if (impl.empty())
    impl = notes + " " + r.Text("source");
  if (Contains(impl, "vllm") || Contains(impl, "sglang") || Contains(impl, "lmdeploy") ||
      Contains(impl, "turbomind")) {
    return Engine::kVllm;
  }
  if (Contains(impl, "tensorrt") || Contains(impl, "fastertransformer"))
    return Engine::kTrtllm;
  if (Contains(impl, "torchscript") || Contains(impl, "pytorch"))
    return Engine::kTorch;
  return Engine::kHf;  // HF transformers and unknown
}

// Training: the micro and global batch. Inference: prompt and output lengths, batch, engine.
std::string ReadBatch(CsvRowReader& r, const std::string& notes, RowInputs& in) {
  Workload& w = in.w;
  perf::Layout& l = in.layout;
  if (w.IsTraining()) {
    const std::optional<double> mb = Opt(r, "micro_batch");
    const std::optional<double> gb = Opt(r, "global_batch");
    const std::optional<double> ga = Opt(r, "grad_accum");
    if (!mb && !gb)
      return "missing micro_batch and global_batch";
    if (!mb) {
      // A published run that states its batch but not how it split it was tuned: the micro-batch
      // is the layout search's (FitTrainingMicroBatch), everything else as the row says.
      in.micro_batch_given = false;
      w.global_batch = ToInt(*gb);
      return "";
    }
    l.micro_batch = std::max(1, ToInt(*mb));
    w.global_batch = gb ? ToInt(*gb) : ToInt(1.0 * l.micro_batch * l.dp * ga.value_or(1));
    w.micro_batch = l.micro_batch;
    return "";
  }
  InferenceSpec& inf = w.inference;
  inf.prompt_tokens = w.seq_len;
  const std::optional<double> out = Opt(r, "output_tokens");
  inf.output_tokens = out ? ToInt(*out) : 0;
  if (in.task == "inference_prefill")
    inf.output_tokens = 0;
  // A decode benchmark without its output length: time the steps right after the prompt.
  if (in.task == "inference_decode" && inf.output_tokens < 2) {
    inf.output_tokens = 2;
    in.assumptions += "output_tokens unstated: 2; ";
  }
  const std::optional<double> batch = Opt(r, "batch_size_inference");
  in.batch_given = batch.has_value();
  inf.batch = ToInt(batch.value_or(1));
  l.micro_batch = *inf.batch;
  if (Contains(notes, "static batching"))
    inf.continuous_batching = false;
  inf.engine = EngineOf(r, notes);
  // Images, video and speech (kind=other models): the sample's settings when the row gives
  // them (steps=30; resolution=832x480; frames=81; cfg=yes; image_decode=gpu); else the zoo's.
  if (const int steps = NoteInt(notes, "steps"); steps > 0)
    inf.steps = steps;
  if (const int frames = NoteInt(notes, "frames"); frames > 0)
    inf.frames = frames;
  if (const std::string size = NoteToken(notes, "resolution"); !size.empty()) {
    const std::optional<std::pair<int, int>> wh = ParseImageSize(size);
    if (!wh)
      return "resolution= in notes: expected WIDTHxHEIGHT, got \"" + size + "\"";
    inf.width_px = wh->first;
    inf.height_px = wh->second;
  }
  if (const std::string cfg = NoteToken(notes, "cfg"); !cfg.empty())
    inf.cfg = cfg == "yes";
  inf.gpu_image_decode = NoteToken(notes, "image_decode") == "gpu";
  if (const int tokens = NoteInt(notes, "decode_tokens"); tokens > 0)
    inf.output_tokens = tokens;
  return ReadNoteEnum(notes, "kv_cache_dtype", kKvCacheDtypeNames, &inf.kv_cache_dtype);
}

// What the measurement means: which memory it reads, which peak an MFU is of, the job's tokens.
void ReadMeasurementBasis(CsvRowReader& r, const std::string& notes, RowInputs& in) {
  in.memory_kind = r.Text("memory_kind");
  const std::string basis = r.Text("mfu_basis");
  const std::string peak = NoteToken(basis, "peak_tflops");
  if (!peak.empty())
    in.mfu_peak = ParseDecimal(peak).value_or(0);
  in.hardware_flops = NoteToken(basis, "flops") == "hardware";
  const std::string attention = NoteToken(basis, "attention");
  if (!attention.empty() && attention != "causal" && attention != "full")
    r.Fail("mfu_basis", "attention= expects causal or full, got \"" + attention + "\"");
  in.causal_attention_flops = attention == "causal";
  const std::string tt = NoteToken(notes, "train_tokens");
  if (!tt.empty())
    in.train_tokens = ParseDecimal(tt);
  if (in.train_tokens)
    in.w.tokens = in.train_tokens;
}

// The training stack the row was measured on (`framework`: a name of data/frameworks.csv;
// empty when not stated or not in the table): its attention kernel times the run. An unknown
// name fails the field.
void ReadFramework(CsvRowReader& r, const FrameworkTable& frameworks, Workload& w) {
  const std::string name = r.Text("framework");
  if (name.empty())
    return;
  const Framework* f = frameworks.Find(name);
  if (f == nullptr) {
    r.Fail("framework", "unknown framework \"" + name +
                            "\"; expected empty (not stated) or one of " + frameworks.Names() +
                            " (data/frameworks.csv)");
    return;
  }
  w.framework = f->name;
  w.frameworks = {*f};
}

// Returns "" when the row can be predicted, else the reason it cannot.
std::string BuildInputs(CsvRowReader& r, const Catalog& catalog, const ModelZoo& zoo,
                        const FrameworkTable& frameworks, RowInputs& in) {
  const std::string notes = r.Text("notes");
  const std::string model = r.Text("model");
  in.task = r.Text("task");
  const std::string metric = r.Text("metric");
  const Gpu* gpu = nullptr;
  if (std::string why = ReadGpu(r, catalog, notes, in, &gpu); !why.empty())
    return why;
  if (std::string why = ReadArchitecture(r, zoo, model, notes, in.arch); !why.empty())
    return why;
  in.w.model_name = model;
  if (std::string why = ReadTask(in.task, notes, in.w); !why.empty())
    return why;
  ReadFramework(r, frameworks, in.w);
  if (std::string why = ReadWorkloadColumns(r, notes, metric, in.arch, in.w, in.assumptions);
      !why.empty()) {
    return why;
  }
  if (std::string why = ReadLayout(r, notes, *gpu, catalog.ArchitectureOf(*gpu), in); !why.empty())
    return why;
  if (std::string why = ReadBatch(r, notes, in); !why.empty())
    return why;
  ReadMeasurementBasis(r, notes, in);
  if (Status s = ValidateWorkload(in.w); !s.ok())
    return "workload: " + s.message();
  return "";
}

// A serving engine's batch as the measurement ran it. An online benchmark (task
// inference_serving) issues its requests at once or at a rate: the engine runs at most as many as
// its KV cache and its batch limit allow. A throughput with no batch stated is measured at full
// load: as many concurrent sequences as the KV cache holds, up to the engine's batch limit.
void FitServingBatch(const std::string& metric, RowInputs& in, const Calibration& cal) {
  if (!in.w.IsTraining() && in.task == "inference_serving" && in.w.inference.batch) {
    const int limit = std::min(*in.w.inference.batch,
                               std::max(1, cal.MaxConcurrentSequences(in.w.inference.engine)));
    const int batch = perf::MaxMicroBatch(in.w, in.arch, in.hw, in.layout, cal, limit);
    if (batch > 0 && batch < *in.w.inference.batch) {
      in.burst_requests = *in.w.inference.batch;
      in.w.inference.batch = in.layout.micro_batch = batch;
      in.assumptions += "engine runs " + std::to_string(batch) + " at once; ";
      if (metric == "ttft_ms") {
        in.assumptions += fmt::format("the other {} queue: TTFT adds {:.3g} batch lifetimes; ",
                                      in.burst_requests - batch,
                                      MeanBatchesQueuedBehind(in.burst_requests, batch));
      }
    }
  }
  if (!in.w.IsTraining() && !in.batch_given && IsThroughputMetric(metric)) {
    if (const int limit = cal.MaxConcurrentSequences(in.w.inference.engine); limit > 1) {
      const int batch = perf::MaxMicroBatch(in.w, in.arch, in.hw, in.layout, cal, limit);
      if (batch > 0) {
        in.w.inference.batch = in.layout.micro_batch = batch;
        in.assumptions += "full load: batch " + std::to_string(batch) + "; ";
      }
    }
  }
}

// A training row with no micro-batch: the fastest micro-batch (and, with it, the accumulation)
// that fits under the row's own degrees, ZeRO stage, recomputation and memory savers, as the
// run's authors would have tuned it; the row's reason says which. A row that states neither its
// micro-batch nor its recomputation leaves both to the search: a run that fitted at an unknown
// split may have needed recomputation to fit at all.
void FitTrainingMicroBatch(RowInputs& in, const Calibration& cal) {
  if (!in.w.IsTraining() || in.micro_batch_given)
    return;
  const perf::Layout& l = in.layout;
  perf::LayoutPins pins = perf::PinsFrom(in.w);
  pins.micro_batch.reset();
  pins.tp = l.tp;
  pins.cp = l.cp;
  pins.pp = l.pp;
  pins.vp = l.vp;
  pins.dp = l.dp;
  pins.ep = l.ep;
  pins.zero = l.zero;
  if (in.recompute_given)
    pins.recompute = l.recompute;
  pins.offload = l.offload;
  pins.optimizer_in_backward = l.optimizer_in_backward;
  pins.activation_offload = l.activation_offload;
  pins.sequence_parallel = l.sequence_parallel;
  const perf::LayoutSearch found = perf::SearchLayout(in.w, in.arch, in.hw, cal, pins);
  if (!found.estimate.time.step_s)
    return;  // nothing could be estimated: EstimateRun says why
  in.layout.micro_batch = found.layout.micro_batch;
  in.w.micro_batch = found.layout.micro_batch;
  std::string recompute;
  if (!in.recompute_given) {
    in.layout.recompute = found.layout.recompute;
    recompute =
        std::string(", recompute ") + std::string(NameOf(kRecomputeNames, found.layout.recompute));
  }
  in.assumptions += "micro-batch " + std::to_string(found.layout.micro_batch) + recompute +
                    " (searched: the row states none)" + (found.ok ? "" : ", nothing fits") + "; ";
}

// The memory metrics (peak_mem_gib in the measurement's kind of memory, fits, max_seq_len_fit);
// nullopt for any other metric.
std::optional<double> MemoryValue(const std::string& metric, const RowInputs& in,
                                  const Calibration& cal, const perf::Estimate& e) {
  if (metric == "peak_mem_gib") {
    if (in.memory_kind == "reserved")
      return e.memory.reserved_gib;
    if (in.memory_kind == "nvidia_smi")
      return e.memory.per_gpu_gib;
    if (in.memory_kind == "allocated")
      return e.memory.allocated_gib;
    // Unstated: what the device shows (nvidia-smi), the figure a user compares with capacity.
    return e.memory.per_gpu_gib;
  }
  if (metric == "fits")
    return e.memory.fits ? 1.0 : 0.0;
  if (metric == "max_seq_len_fit") {
    return perf::MaxSeqLen(in.w, in.arch, in.hw, in.layout, cal, 1 << 21);
  }
  return std::nullopt;
}

// The serving metrics of an inference estimate, counted as the row's task counts them; nullopt
// for any other metric (or an estimate without an inference part).
std::optional<double> ServingValue(const std::string& metric, const RowInputs& in,
                                   const perf::Estimate& e) {
  if (!e.inference)
    return std::nullopt;
  const perf::InferenceTimes& inf = *e.inference;
  const InferenceSpec& spec = in.w.inference;
  // The GPUs of one model copy: data-parallel replicas (dp, and a row's GPUs beyond its stated
  // degrees) each serve their own batch, so a per-GPU rate is one copy's over its own GPUs.
  const double gpus = static_cast<double>(in.hw.Gpus()) / std::max(1, in.layout.dp);
  if (metric == "output_tokens_per_s_per_gpu") {
    // Generated tokens per second per GPU; a decode benchmark (prefill elsewhere, as
    // disaggregated serving runs it) times the decode steps alone.
    if (in.task == "inference_decode" && spec.output_tokens > 1) {
      const double step = inf.decode_s / (spec.output_tokens - 1);
      return inf.batch / step / gpus;
    }
    return inf.tokens_per_s_per_gpu;
  }
  if (in.w.IsTraining())
    return std::nullopt;
  if (metric == "tokens_per_s_per_gpu") {
    if (in.task == "inference_decode")
      return inf.batch / (inf.tpot_ms / 1e3) / gpus;
    // A prefill benchmark counts prompt tokens; an online serving benchmark's "total token
    // throughput" counts prompt and generated tokens.
    if (in.task == "inference_prefill")
      return inf.prefill_tokens_per_s_per_gpu;
    if (in.task == "inference_serving" && spec.output_tokens > 0) {
      const double out = spec.output_tokens;
      return inf.tokens_per_s_per_gpu * (spec.prompt_tokens + out) / out;
    }
    return std::nullopt;
  }
  if (metric == "samples_per_s_per_gpu") {
    // Speech models decode their zoo's tokens per window when the row states none.
    return inf.batch /
           (spec.output_tokens > 0 || inf.decode_s > 0 ? inf.request_s : inf.prefill_s) / gpus;
  }
  return std::nullopt;
}

// Throughput, latency and training-speed metrics; nullopt for a metric this does not know.
std::optional<double> SpeedValue(const std::string& metric, const RowInputs& in,
                                 const perf::Estimate& e) {
  if (std::optional<double> v = ServingValue(metric, in, e))
    return v;
  if (metric == "tokens_per_s_per_gpu")
    return e.throughput.tokens_per_s_per_gpu;
  if (metric == "samples_per_s_per_gpu")
    return e.throughput.samples_per_s_per_gpu;
  if (e.inference) {
    if (metric == "ttft_ms") {
      // Requests beyond the engine's batch wait for earlier batches to finish.
      return e.inference->ttft_ms + MeanBatchesQueuedBehind(in.burst_requests, e.inference->batch) *
                                        e.inference->request_s * 1e3;
    }
    if (metric == "tpot_ms")
      return e.inference->tpot_ms;
    if (metric == "prefill_tokens_per_s_per_gpu")
      return e.inference->prefill_tokens_per_s_per_gpu;
    if (metric == "decode_tokens_per_s_per_gpu") {
      return e.inference->batch / (e.inference->tpot_ms / 1e3) / in.hw.Gpus();
    }
  }
  double tflops =
      in.hardware_flops ? e.throughput.hardware_tflops_per_gpu : e.throughput.tflops_per_gpu;
  // The same speed counted as the source counts: without the masked half of attention.
  const double all = in.hardware_flops ? e.hardware_flops_per_token : e.flops_per_token;
  const double attention =
      in.hardware_flops ? e.hardware_attention_flops_per_token : e.attention_flops_per_token;
  if (in.causal_attention_flops && all > 0)
    tflops *= 1 - 0.5 * attention / all;
  if (metric == "tflops_per_gpu")
    return tflops;
  if (metric == "mfu")
    return tflops / (in.mfu_peak > 0 ? in.mfu_peak : e.peak_tflops);
  if (metric == "step_time_s")
    return e.time.step_s;
  return std::nullopt;
}

// The best `metric` an inference run could reach if it only read what it must at the GPU's
// datasheet bandwidth (Estimate::inference_floor), counted as the row counts it; nullopt for
// other metrics.
std::optional<double> PhysicalBound(const std::string& metric, const RowInputs& in,
                                    const perf::Estimate& e) {
  static const std::set<std::string> kServingRates = {
      "output_tokens_per_s_per_gpu",  "tokens_per_s_per_gpu",       "ttft_ms", "tpot_ms",
      "prefill_tokens_per_s_per_gpu", "decode_tokens_per_s_per_gpu"};
  if (!e.inference_floor || !kServingRates.contains(metric))
    return std::nullopt;
  perf::Estimate floor = e;
  floor.inference = e.inference_floor;
  floor.throughput.tokens_per_s_per_gpu = e.inference_floor->tokens_per_s_per_gpu;
  return SpeedValue(metric, in, floor);
}

// Predicts `metric` for the inputs; returns nullopt with `reason` set when it cannot. `bound`
// receives the metric's physical best (PhysicalBound) where there is one.
std::optional<double> Predict(const std::string& metric, RowInputs& in, const Calibration& cal,
                              std::string& reason, bool& predicted_fits,
                              std::optional<double>& bound) {
  FitServingBatch(metric, in, cal);
  FitTrainingMicroBatch(in, cal);
  Calibration row_cal = cal;
  if (in.balanced_routing)
    row_cal.moe_load_imbalance = 1;  // the benchmark forces balance
  Result<perf::Estimate> e = perf::EstimateRun(in.w, in.arch, in.hw, in.layout, row_cal);
  if (!e.ok()) {
    reason = e.status().message();
    return std::nullopt;
  }
  predicted_fits = e->memory.fits;
  bound = PhysicalBound(metric, in, *e);
  if (std::optional<double> v = MemoryValue(metric, in, cal, *e))
    return v;
  if (std::optional<double> v = SpeedValue(metric, in, *e))
    return v;
  if (metric == "time_to_train_min" || metric == "gpu_hours") {
    if (e->job.hours <= 0) {
      reason = "no train_tokens= in notes: the amount of work is unknown";
      return std::nullopt;
    }
    return metric == "gpu_hours" ? e->job.gpu_hours : e->job.hours * 60;
  }
  reason = "metric \"" + metric + "\" is not modelled";
  return std::nullopt;
}

// Marks the first row of each run (id up to the first '.') per quantity (time, memory) that
// has a regime: one measurement counts once.
void MarkSamples(std::vector<ValidationRow>& rows) {
  std::set<std::pair<std::string, std::string>> seen;
  for (ValidationRow& r : rows) {
    if (r.regime.empty())
      continue;
    const std::string run = r.id.substr(0, r.id.find('.'));
    r.sample = seen.emplace(run, r.regime.front()).second;
  }
}

// Coverage when each half of the sources is checked against a table fitted on the other half
// only; nullopt with fewer than two sources.
std::pair<std::optional<double>, int> HeldOutCoverage(const std::vector<ValidationRow>& rows,
                                                      int min_rows, int min_sources) {
  // The sources in name order, alternately in one half and the other.
  std::set<std::string> names;
  for (const ValidationRow& r : rows) {
    if (r.sample)
      names.insert(r.source);
  }
  std::map<std::string, int> half_of;
  for (const std::string& name : names)
    half_of.emplace(name, static_cast<int>(half_of.size() % 2));
  std::vector<ValidationRow> half[2];
  for (const ValidationRow& r : rows) {
    if (r.sample)
      half[half_of[r.source]].push_back(r);
  }
  if (half[0].empty() || half[1].empty())
    return {std::nullopt, 0};
  int n = 0;
  double inside = 0;
  for (int fold = 0; fold < 2; ++fold) {
    const uncertainty::Table fitted =
        uncertainty::Fit(UncertaintySamples(half[1 - fold]), min_rows, min_sources);
    auto [cov, rows_checked] = Coverage80(half[fold], fitted);
    if (!cov)
      continue;
    inside += *cov * rows_checked;
    n += rows_checked;
  }
  if (n == 0)
    return {std::nullopt, 0};
  return {inside / n, n};
}

void Summarise(ValidationReport& report) {
  ValidationSummary& s = report.summary;
  std::map<std::string, std::vector<double>> by_metric, by_gpu, by_task;
  std::vector<double> throughput, memory;
  for (const ValidationRow& row : report.rows) {
    ++s.total;
    if (row.status == RowStatus::kUnsupported)
      ++s.unsupported;
    if (row.status == RowStatus::kError)
      ++s.errors;
    if (row.status == RowStatus::kInconsistent)
      ++s.inconsistent;
    if (row.status != RowStatus::kOk)
      continue;
    ++s.ok;
    if (row.metric == "fits") {
      ++s.fits_rows;
      if ((row.predicted >= 0.5) == (row.measured >= 0.5))
        ++s.fits_correct;
      continue;
    }
    if (row.implied_fit_ok) {
      ++s.fits_rows;
      if (*row.implied_fit_ok)
        ++s.fits_correct;
    }
    by_metric[row.metric].push_back(row.ape);
    by_gpu[row.gpu].push_back(row.ape);
    if (!row.task.empty())
      by_task[row.task].push_back(row.ape);
    if (IsThroughputMetric(row.metric))
      throughput.push_back(row.ape);
    if (IsMemoryMetric(row.metric))
      memory.push_back(row.ape);
  }
  // A measurement its own labels rule out says nothing about what the model covers.
  const int judged = s.total - s.inconsistent;
  s.supported_fraction = judged > 0 ? static_cast<double>(s.ok) / judged : 0;
  s.fits_accuracy = s.fits_rows > 0 ? static_cast<double>(s.fits_correct) / s.fits_rows : 1;
  for (auto& [k, v] : by_metric)
    s.by_metric[k] = Stats(std::move(v));
  for (auto& [k, v] : by_gpu)
    s.by_gpu[k] = Stats(std::move(v));
  for (auto& [k, v] : by_task)
    s.by_task[k] = Stats(std::move(v));
  s.throughput = Stats(std::move(throughput));
  s.memory = Stats(std::move(memory));
}

}  // namespace

constexpr EnumNames<RowStatus, 4> kRowStatusNames = {{{RowStatus::kOk, "ok"},
                                                      {RowStatus::kUnsupported, "unsupported"},
                                                      {RowStatus::kError, "error"},
                                                      {RowStatus::kInconsistent, "inconsistent"}}};
std::string_view RowStatusName(RowStatus s) { return NameOf(kRowStatusNames, s); }

ErrorStats Stats(std::vector<double> values) {
  ErrorStats s;
  s.rows = static_cast<int>(values.size());
  if (values.empty())
    return s;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  s.median_ape = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  // Nearest-rank 90th percentile: the smallest value with at least 90% of values <= it.
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n)));
  s.p90_ape = values[std::max<size_t>(rank, 1) - 1];
  return s;
}

Result<ValidationReport> Validate(std::string_view csv_text, const std::string& file,
                                  const Catalog& catalog, const ModelZoo& zoo,
                                  const Calibration& cal, const uncertainty::Table* error_model) {
  Result<CsvTable> table = CsvTable::Parse(csv_text, file);
  if (!table.ok())
    return table.status();
  if (Status s = table->RequireColumns({"id", "model", "task", "gpu", "metric", "value"});
      !s.ok()) {
    return s;
  }
  // The stacks rows may name in a `framework` column, read once.
  Result<FrameworkTable> frameworks = table->ColumnIndex("framework") >= 0
                                          ? LoadFrameworks()
                                          : Result<FrameworkTable>(FrameworkTable{});
  if (!frameworks.ok())
    return frameworks.status();
  ValidationReport report;
  for (const CsvRow& csv_row : table->rows()) {
    CsvRowReader r(*table, csv_row);
    ValidationRow row;
    row.id = r.Text("id");
    row.metric = r.Text("metric");
    row.task = r.Text("task");
    row.gpu = r.Text("gpu");
    row.source = r.Text("source");
    const std::optional<double> measured = r.OptionalNumber("value", -1e18, 1e18);
    RowInputs in;
    std::string why;
    if (r.status().ok())
      why = BuildInputs(r, catalog, zoo, *frameworks, in);
    if (!r.status().ok()) {
      row.status = RowStatus::kError;
      row.reason = r.status().message();
    } else if (!measured) {
      row.status = RowStatus::kUnsupported;
      row.reason = "no measured value";
    } else if (!why.empty()) {
      row.status = RowStatus::kUnsupported;
      row.reason = why;
      row.measured = *measured;
    } else {
      row.measured = *measured;
      std::string reason;
      bool predicted_fits = false;
      std::optional<double> bound;
      std::optional<double> predicted = Predict(row.metric, in, cal, reason, predicted_fits, bound);
      if (predicted && !(*predicted > 0) && CostDirection(row.metric) != 0) {
        // A rate or a time of 0 is the model not knowing, never a prediction to score.
        reason =
            fmt::format("the model predicts {} for {}: nothing to compare", *predicted, row.metric);
        predicted.reset();
      }
      if (predicted && bound && BeatsBound(row.metric, row.measured, *bound)) {
        row.status = RowStatus::kInconsistent;
        row.predicted = *predicted;
        row.reason = fmt::format(
            "measured {:.4g} beats {:.4g}, the best these labels allow (reading only the "
            "weights and KV cache each step needs at the datasheet bandwidth, no arithmetic): "
            "the row's precision, GPU count or counting is off; not scored",
            row.measured, *bound);
      } else if (!predicted) {
        row.status = RowStatus::kUnsupported;
        row.reason = reason;
      } else {
        row.predicted = *predicted;
        row.reason = in.assumptions;
        // A measured peak memory means the run fitted: an implied fits = 1 verdict.
        if (row.metric == "peak_mem_gib")
          row.implied_fit_ok = predicted_fits;
        if (row.metric != "fits") {
          row.ape = row.measured != 0
                        ? std::abs(row.predicted - row.measured) / std::abs(row.measured)
                        : 0;
        }
        if (const int dir = CostDirection(row.metric);
            dir != 0 && row.predicted > 0 && row.measured > 0) {
          row.regime = row.metric == "peak_mem_gib"
                           ? uncertainty::MemoryRegime(in.w, in.arch, in.hw)
                           : uncertainty::TimeRegime(in.w, in.arch, in.hw);
          row.ratio = dir > 0 ? row.measured / row.predicted : row.predicted / row.measured;
        }
      }
    }
    report.rows.push_back(std::move(row));
  }
  MarkSamples(report.rows);
  if (error_model != nullptr && !error_model->regimes.empty()) {
    for (ValidationRow& row : report.rows) {
      if (row.regime.empty())
        continue;
      const uncertainty::Band b = uncertainty::Lookup(*error_model, row.regime);
      row.predicted_range = CostDirection(row.metric) > 0
                                ? std::pair(row.predicted * b.p10, row.predicted * b.p90)
                                : std::pair(row.predicted / b.p90, row.predicted / b.p10);
    }
  }
  Summarise(report);
  if (error_model != nullptr && !error_model->regimes.empty()) {
    std::tie(report.summary.coverage_80, report.summary.coverage_rows) =
        Coverage80(report.rows, *error_model);
    std::tie(report.summary.coverage_80_heldout, report.summary.heldout_rows) =
        HeldOutCoverage(report.rows, error_model->min_rows, error_model->min_sources);
  }
  return report;
}

std::vector<uncertainty::Sample> UncertaintySamples(const std::vector<ValidationRow>& rows) {
  std::vector<uncertainty::Sample> out;
  for (const ValidationRow& r : rows) {
    if (r.sample)
      out.push_back({r.regime, r.ratio, r.source});
  }
  return out;
}

std::pair<std::optional<double>, int> Coverage80(const std::vector<ValidationRow>& rows,
                                                 const uncertainty::Table& table) {
  int n = 0, inside = 0;
  for (const ValidationRow& r : rows) {
    if (!r.sample)
      continue;
    const uncertainty::Band b = uncertainty::Lookup(table, r.regime);
    ++n;
    // In the ratio's terms: true / predicted within [p10, p90].
    if (r.ratio >= b.p10 && r.ratio <= b.p90)
      ++inside;
  }
  if (n == 0)
    return {std::nullopt, 0};
  return {static_cast<double>(inside) / n, n};
}

std::string PredictionsHash(const std::vector<ValidationRow>& rows) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a 64
  for (const ValidationRow& r : rows) {
    if (!r.sample)
      continue;
    for (unsigned char c :
         fmt::format("{},{},{:.6g},{:.6g}\n", r.id, r.metric, r.predicted, r.ratio)) {
      h ^= c;
      h *= 1099511628211ULL;
    }
  }
  return fmt::format("{:016x}", h);
}

}  // namespace gpuplan::io
