#include "io/workload_yaml.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/strings.h"
#include "io/file_util.h"
#include "io/yaml_reader.h"

namespace gpuplan::io {
namespace {

using Reader = YamlReader;

// constraints.billing names any mode of the billing table (gpuplan/billing.h).
std::optional<Billing> ParseAnyBilling(std::string_view name) { return ParseBilling(name); }

// The top-level keys of a workload file.
constexpr std::string_view kWorkloadKeys[] = {"name",
                                              "task",
                                              "method",
                                              "model",
                                              "precision",
                                              "weight_bits",
                                              "weight_format",
                                              "quantized_layers",
                                              "seq_len",
                                              "micro_batch",
                                              "global_batch",
                                              "tokens",
                                              "samples",
                                              "epochs",
                                              "optimizer",
                                              "recompute",
                                              "cp",
                                              "virtual_stages",
                                              "framework",
                                              "offload",
                                              "optimizer_in_backward",
                                              "activation_offload",
                                              "lora_rank",
                                              "lora_targets",
                                              "lora_dropout",
                                              "train_embeddings",
                                              "master_weights",
                                              "flash_attention",
                                              "moe_a2a_overlap",
                                              "tp_comm_overlap",
                                              "cross_entropy",
                                              "memory_format",
                                              "dataset",
                                              "constraints",
                                              "objective",
                                              "inference",
                                              "confidence",
                                              "memory_confidence"};

}  // namespace

bool IsWorkloadKey(std::string_view key) {
  return std::find(std::begin(kWorkloadKeys), std::end(kWorkloadKeys), key) !=
         std::end(kWorkloadKeys);
}

namespace {

// Optional whole-number architecture fields of an inline model: (key, target, max).
struct ArchInt {
  const char* key;
  int* target;
  int max;
};

// The keys of an inline `model:` mapping.
constexpr std::string_view kModelKeys[] = {"name",
                                           "config",
                                           "layers",
                                           "hidden",
                                           "heads",
                                           "kv_heads",
                                           "ffn",
                                           "vocab",
                                           "mlp",
                                           "tied_embeddings",
                                           "params_b",
                                           "active_params_b",
                                           "head_dim",
                                           "attention",
                                           "q_lora_rank",
                                           "kv_lora_rank",
                                           "qk_rope_head_dim",
                                           "qk_nope_head_dim",
                                           "v_head_dim",
                                           "experts",
                                           "top_k",
                                           "moe_ffn",
                                           "shared_experts",
                                           "shared_ffn",
                                           "dense_layers",
                                           "moe_every",
                                           "sliding_window",
                                           "sliding_layers"};

// `model: {config: ...}`: a Hugging Face config.json, read by LoadWorkloadYaml's caller, not
// here (no file access while parsing, which the server also does).
void ReadModelConfig(Reader& r, const YAML::Node& node, Workload& w) {
  if (node.size() > (node["name"] ? 2u : 1u)) {
    r.Fail(node, "model.config",
           "expected only name beside config (the shape comes from the "
           "config.json)");
    return;
  }
  w.model_config = r.String(node["config"], "model.config").value_or("");
  w.model_name = node["name"] ? r.String(node["name"], "model.name").value_or("config") : "config";
  w.inline_arch.reset();
}

// The sizes of an inline architecture: the required ones, then the optional whole numbers
// (head_dim, MLA ranks, MoE shape, sliding windows).
void ReadArchSizes(Reader& r, const YAML::Node& node, ModelArch& m) {
  const bool moe = static_cast<bool>(node["experts"]);
  for (std::string_view req : {"layers", "hidden", "heads", "ffn", "vocab"}) {
    if (req == "ffn" && moe)
      continue;  // every layer may be MoE
    if (!node[std::string(req)]) {
      r.Fail(node, "model." + std::string(req),
             "expected it in an inline architecture {layers, hidden, heads, kv_heads, ffn, "
             "vocab}, got nothing");
      return;
    }
  }
  if (node["name"])
    m.name = r.String(node["name"], "model.name").value_or("inline");
  m.layers = r.Integer(node["layers"], "model.layers", 1, 1000).value_or(1);
  m.hidden = r.Integer(node["hidden"], "model.hidden", 1, 1 << 20).value_or(1);
  m.heads = r.Integer(node["heads"], "model.heads", 1, 4096).value_or(1);
  m.kv_heads = node["kv_heads"] ? r.Integer(node["kv_heads"], "model.kv_heads", 1, 4096).value_or(1)
                                : m.heads;
  if (node["ffn"])
    m.ffn = r.Integer(node["ffn"], "model.ffn", 1, 1 << 22).value_or(1);
  m.vocab = r.Integer(node["vocab"], "model.vocab", 1, 1 << 22).value_or(1);
  const ArchInt kInts[] = {
      {"head_dim", &m.head_dim, 1 << 16},
      {"q_lora_rank", &m.mla.q_lora_rank, 1 << 20},
      {"kv_lora_rank", &m.mla.kv_lora_rank, 1 << 20},
      {"qk_rope_head_dim", &m.mla.qk_rope_head_dim, 1 << 16},
      {"qk_nope_head_dim", &m.mla.qk_nope_head_dim, 1 << 16},
      {"v_head_dim", &m.mla.v_head_dim, 1 << 16},
      {"experts", &m.moe.experts, 1 << 16},
      {"top_k", &m.moe.top_k, 1 << 16},
      {"moe_ffn", &m.moe.expert_ffn, 1 << 22},
      {"shared_experts", &m.moe.shared_experts, 1 << 10},
      {"shared_ffn", &m.moe.shared_ffn, 1 << 22},
      {"dense_layers", &m.moe.dense_layers, 1000},
      {"moe_every", &m.moe.moe_every, 1000},
      {"sliding_window", &m.sliding_window, 1 << 24},
      {"sliding_layers", &m.sliding_layers, 1000},
  };
  for (const ArchInt& f : kInts) {
    if (node[f.key]) {
      *f.target = r.Integer(node[f.key], std::string("model.") + f.key, 0, f.max).value_or(0);
    }
  }
}

// The kinds of an inline architecture (attention, MLP, tied embeddings) and its stated
// parameter counts.
void ReadArchKinds(Reader& r, const YAML::Node& node, ModelArch& m) {
  if (node["attention"]) {
    std::optional<std::string> a = r.String(node["attention"], "model.attention");
    if (a && (*a == "mha" || *a == "gqa" || *a == "mla")) {
      m.attention = *a == "mla" ? AttentionKind::kMla : AttentionKind::kGqa;
    } else if (a) {
      r.Fail(node["attention"], "model.attention", "expected mha, gqa or mla, got \"" + *a + "\"");
    }
  } else if (node["kv_lora_rank"]) {
    m.attention = AttentionKind::kMla;
  }
  // Without `mlp`, a 4h MLP is GELU (GPT family), anything else SwiGLU (Llama family).
  m.mlp = m.ffn == 4 * m.hidden ? MlpKind::kGelu : MlpKind::kSwiglu;
  if (node["mlp"]) {
    std::optional<std::string> k = r.String(node["mlp"], "model.mlp");
    if (k && (*k == "gelu" || *k == "swiglu")) {
      m.mlp = *k == "gelu" ? MlpKind::kGelu : MlpKind::kSwiglu;
    } else if (k) {
      r.Fail(node["mlp"], "model.mlp", "expected gelu or swiglu, got \"" + *k + "\"");
    }
  }
  if (node["tied_embeddings"]) {
    m.tied_embeddings = r.Bool(node["tied_embeddings"], "model.tied_embeddings").value_or(false);
  }
  if (node["params_b"]) {
    m.params = r.Number(node["params_b"], "model.params_b", 1e-6, 1e5).value_or(0) * 1e9;
  }
  if (node["active_params_b"]) {
    m.active_params =
        r.Number(node["active_params_b"], "model.active_params_b", 1e-6, 1e5).value_or(0) * 1e9;
  }
}

// `model:`: a zoo name, a config.json, or an inline architecture.
void ReadModel(Reader& r, const YAML::Node& node, Workload& w) {
  if (node.IsScalar()) {
    w.model_name = node.Scalar();
    return;
  }
  if (!r.CheckMap(node, "model",
                  std::vector<std::string_view>(std::begin(kModelKeys), std::end(kModelKeys)))) {
    return;
  }
  if (node["config"]) {
    ReadModelConfig(r, node, w);
    return;
  }
  ModelArch m;
  m.name = "inline";
  ReadArchSizes(r, node, m);
  if (!r.status().ok())
    return;
  ReadArchKinds(r, node, m);
  if (!r.status().ok())
    return;
  if (Status s = ValidateModelArch(m); !s.ok()) {
    r.Fail(node, "model", s.message());
    return;
  }
  w.model_name = m.name;
  w.inline_arch = m;
}

void ReadConstraints(Reader& r, const YAML::Node& node, Constraints& c) {
  if (!r.CheckMap(node, "constraints",
                  {"regions", "max_gpus", "max_nodes", "deadline_hours", "budget", "billing",
                   "include_families", "exclude_families", "include_gpus", "exclude_gpus",
                   "exclude_vendors", "need_fp64", "need_graphics", "no_spot", "need_rdma",
                   "long_running", "min_gpu_memory_gib"})) {
    return;
  }
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    const std::string f = "constraints." + key;
    if (key == "regions")
      c.regions = r.StringList(v, f);
    if (key == "max_gpus")
      c.max_gpus = r.Integer(v, f, 1, 1 << 20);
    if (key == "max_nodes")
      c.max_nodes = r.Integer(v, f, 1, 1 << 16);
    if (key == "deadline_hours")
      c.deadline_hours = r.Number(v, f, 1e-6, 1e7);
    if (key == "min_gpu_memory_gib")
      c.min_gpu_memory_gib = r.Number(v, f, 0, 1e4);
    if (key == "include_families")
      c.include_families = r.StringList(v, f);
    if (key == "exclude_families")
      c.exclude_families = r.StringList(v, f);
    if (key == "include_gpus")
      c.include_gpus = r.StringList(v, f);
    if (key == "exclude_gpus")
      c.exclude_gpus = r.StringList(v, f);
    if (key == "exclude_vendors") {
      c.exclude_vendors.clear();
      const std::string choices = GpuVendorChoices();
      auto add = [&](const YAML::Node& item) {
        if (std::optional<GpuVendor> g = r.Enum<GpuVendor>(item, f, ParseGpuVendor, choices)) {
          c.exclude_vendors.push_back(*g);
        }
      };
      if (v.IsSequence()) {
        for (const YAML::Node& item : v)
          add(item);
      } else {
        add(v);
      }
    }
    if (key == "need_fp64")
      c.need_fp64 = r.Bool(v, f).value_or(false);
    if (key == "need_graphics")
      c.need_graphics = r.Bool(v, f).value_or(false);
    if (key == "no_spot")
      c.no_spot = r.Bool(v, f).value_or(false);
    if (key == "need_rdma")
      c.need_rdma = r.Bool(v, f).value_or(false);
    if (key == "long_running")
      c.long_running = r.Bool(v, f).value_or(false);
    if (key == "budget") {
      if (!r.CheckMap(v, f, {"amount", "currency"}))
        return;
      Budget b;
      if (!v["amount"]) {
        r.Fail(v, f + ".amount", "expected an amount, got nothing");
        return;
      }
      b.amount = r.Number(v["amount"], f + ".amount", 1e-9, 1e15).value_or(0);
      if (v["currency"]) {
        std::optional<std::string> cur = r.String(v["currency"], f + ".currency");
        if (cur && *cur != "CNY" && *cur != "USD") {
          r.Fail(v["currency"], f + ".currency", "expected CNY or USD, got \"" + *cur + "\"");
        } else if (cur) {
          b.currency = *cur;
        }
      }
      c.budget = b;
    }
    if (key == "billing") {
      c.billing.clear();
      const YAML::Node list = v;
      auto add = [&](const YAML::Node& item) {
        if (std::optional<Billing> b =
                r.Enum<Billing>(item, f, ParseAnyBilling, BillingChoices(BillingUse::kAny))) {
          c.billing.push_back(*b);
        }
      };
      if (list.IsSequence()) {
        for (const YAML::Node& item : list)
          add(item);
      } else {
        add(list);
      }
    }
    if (!r.status().ok())
      return;
  }
}

// 24 rates per hour of the day (a list), each checked where it is.
std::vector<double> ReadDay(Reader& r, const YAML::Node& node, const std::string& field) {
  std::vector<double> day;
  if (!node.IsSequence() || node.size() != 24) {
    r.Fail(node, field,
           "expected a list of 24 rates (requests/s), one per hour from 00:00 local time, got " +
               (node.IsSequence() ? std::to_string(node.size()) + " values" : Reader::Got(node)));
    return day;
  }
  for (size_t h = 0; h < node.size(); ++h) {
    std::optional<double> v = r.Number(node[h], field + "[" + std::to_string(h) + "]", 0, 1e6);
    if (!v)
      return day;
    day.push_back(*v);
  }
  return day;
}

// inference.traffic: {hourly_rps: [24], weekend_hourly_rps: [24]} or {base_rps, peak_rps,
// peak_hours: "19-22"}, with timezone and scale_up_minutes.
void ReadTraffic(Reader& r, const YAML::Node& node, TrafficProfile& t) {
  const std::string f = "inference.traffic";
  if (!r.CheckMap(node, f,
                  {"hourly_rps", "weekend_hourly_rps", "base_rps", "peak_rps", "peak_hours",
                   "timezone", "scale_up_minutes"})) {
    return;
  }
  const bool hourly = static_cast<bool>(node["hourly_rps"]);
  const bool peaked = node["base_rps"] || node["peak_rps"] || node["peak_hours"];
  if (hourly == peaked) {
    r.Fail(node, f,
           hourly ? "give either hourly_rps (24 rates) or {base_rps, peak_rps, peak_hours}, not "
                    "both"
                  : "expected hourly_rps (24 rates) or {base_rps, peak_rps, peak_hours}");
    return;
  }
  if (hourly) {
    t.hourly_rps = ReadDay(r, node["hourly_rps"], f + ".hourly_rps");
  } else {
    for (const char* key : {"base_rps", "peak_rps", "peak_hours"}) {
      if (!node[key]) {
        r.Fail(node, f + "." + key,
               "missing: a peak profile needs base_rps, peak_rps and peak_hours (\"19-22\")");
        return;
      }
    }
    const std::optional<double> base = r.Number(node["base_rps"], f + ".base_rps", 0, 1e6);
    const std::optional<double> peak = r.Number(node["peak_rps"], f + ".peak_rps", 0, 1e6);
    const std::optional<std::string> hours = r.String(node["peak_hours"], f + ".peak_hours");
    if (!base || !peak || !hours)
      return;
    if (*peak < *base) {
      r.Fail(node["peak_rps"], f + ".peak_rps",
             fmt::format("expected a peak at least base_rps {}, got {}", strings::Num(*base),
                         strings::Num(*peak)));
      return;
    }
    std::optional<std::vector<double>> day = TrafficFromPeak(*base, *peak, *hours);
    if (!day) {
      r.Fail(node["peak_hours"], f + ".peak_hours",
             "expected hours \"FROM-TO\" from 0 to 24 (\"19-22\" = 19:00 to 22:00; \"22-2\" "
             "wraps past midnight), got " +
                 Reader::Got(node["peak_hours"]));
      return;
    }
    t.hourly_rps = *day;
  }
  if (node["weekend_hourly_rps"] && r.status().ok())
    t.weekend_hourly_rps = ReadDay(r, node["weekend_hourly_rps"], f + ".weekend_hourly_rps");
  if (node["timezone"] && r.status().ok())
    t.utc_offset_hours = r.TimeZone(node["timezone"], f + ".timezone", t.timezone);
  if (node["scale_up_minutes"] && r.status().ok())
    t.scale_up_minutes = r.Number(node["scale_up_minutes"], f + ".scale_up_minutes", 0, 1440);
}

// A request length: a whole number (the mean), or {mean, p90}.
void ReadLength(Reader& r, const YAML::Node& node, const std::string& field, int min, int& mean,
                std::optional<int>& p90) {
  if (!node.IsMap()) {
    mean = r.Integer(node, field, min, 1 << 24).value_or(min);
    return;
  }
  if (!r.CheckMap(node, field, {"mean", "p90"}))
    return;
  if (!node["mean"]) {
    r.Fail(node, field + ".mean", "missing: a length distribution needs its mean");
    return;
  }
  mean = r.Integer(node["mean"], field + ".mean", min, 1 << 24).value_or(min);
  if (node["p90"] && r.status().ok())
    p90 = r.Integer(node["p90"], field + ".p90", min, 1 << 24);
}

void ReadInference(Reader& r, const YAML::Node& node, InferenceSpec& inf) {
  if (!r.CheckMap(node, "inference",
                  {"requests_per_s", "traffic", "prompt_tokens", "output_tokens", "ttft_ms",
                   "tpot_ms", "batch", "engine", "continuous_batching", "latency", "resolution",
                   "frames", "steps", "cfg", "image_decode", "kv_cache_dtype"})) {
    return;
  }
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    const std::string f = "inference." + key;
    if (key == "requests_per_s")
      inf.requests_per_s = r.Number(v, f, 1e-9, 1e9);
    if (key == "traffic")
      ReadTraffic(r, v, inf.traffic.emplace());
    if (key == "prompt_tokens")
      ReadLength(r, v, f, 1, inf.prompt_tokens, inf.prompt_tokens_p90);
    if (key == "output_tokens")
      ReadLength(r, v, f, 0, inf.output_tokens, inf.output_tokens_p90);
    if (key == "ttft_ms")
      inf.ttft_ms = r.Number(v, f, 1e-6, 1e9);
    if (key == "tpot_ms")
      inf.tpot_ms = r.Number(v, f, 1e-6, 1e9);
    if (key == "batch")
      inf.batch = r.Integer(v, f, 1, 1 << 20);
    if (key == "continuous_batching")
      inf.continuous_batching = r.Bool(v, f);
    if (key == "engine") {
      inf.engine = r.Enum(v, f, kEngineNames).value_or(Engine::kVllm);
    }
    if (key == "latency")
      inf.latency = r.Enum(v, f, kLatencyModeNames);
    if (key == "kv_cache_dtype")
      inf.kv_cache_dtype = r.Enum(v, f, kKvCacheDtypeNames);
    if (key == "resolution") {
      const std::optional<std::string> text = r.String(v, f);
      const std::optional<std::pair<int, int>> wh = text ? ParseImageSize(*text) : std::nullopt;
      if (text && !wh) {
        r.Fail(v, f,
               "expected WIDTHxHEIGHT in pixels from 8 to 32768 (1024x1024) or 480p, 720p, "
               "1080p, got \"" +
                   *text + "\"");
      } else if (wh) {
        inf.width_px = wh->first;
        inf.height_px = wh->second;
      }
    }
    if (key == "frames")
      inf.frames = r.Integer(v, f, 1, 100000);
    if (key == "steps")
      inf.steps = r.Integer(v, f, 1, 10000);
    if (key == "cfg")
      inf.cfg = r.Bool(v, f);
    if (key == "image_decode") {
      const std::optional<std::string> text = r.String(v, f);
      if (text && *text != "cpu" && *text != "gpu")
        r.Fail(v, f,
               "expected cpu (PIL, torchvision) or gpu (DALI, nvJPEG), got \"" + *text + "\"");
      inf.gpu_image_decode = text && *text == "gpu";
    }
    if (!r.status().ok())
      return;
  }
}

void ReadDataset(Reader& r, const YAML::Node& node, Dataset& d) {
  if (!r.CheckMap(node, "dataset", {"size_gb", "sample_kb", "location"}))
    return;
  if (node["size_gb"])
    d.size_gb = r.Number(node["size_gb"], "dataset.size_gb", 0, 1e9);
  if (node["sample_kb"])
    d.sample_kb = r.Number(node["sample_kb"], "dataset.sample_kb", 0, 1e9);
  if (node["location"]) {
    d.location = r.Enum(node["location"], "dataset.location", kDataLocationNames)
                     .value_or(DataLocation::kUnknown);
  }
}

// What runs: name, task, method, model, precision, weight_bits and format. False for any other
// key.
bool ReadJobKey(Reader& r, const std::string& key, const YAML::Node& v, Workload& w,
                bool* method_given) {
  if (key == "name") {
    w.name = r.String(v, key).value_or("");
  } else if (key == "task") {
    w.task = r.Enum(v, key, kTaskNames).value_or(w.task);
  } else if (key == "method") {
    w.method = r.Enum(v, key, kMethodNames).value_or(w.method);
    *method_given = true;
  } else if (key == "model") {
    ReadModel(r, v, w);
  } else if (key == "precision") {
    w.precision = r.Enum(v, key, kWorkloadPrecisionNames).value_or(w.precision);
  } else if (key == "weight_bits") {
    w.weight_bits = r.Integer(v, key, 0, 16).value_or(0);
    if (r.status().ok() && w.weight_bits != 0 && w.weight_bits != 4 && w.weight_bits != 8) {
      r.Fail(v, key, "expected 0, 4 or 8, got " + Reader::Got(v));
    }
  } else if (key == "weight_format") {
    w.weight_format = r.Enum(v, key, kWeightFormatNames).value_or(w.weight_format);
  } else if (key == "quantized_layers") {
    w.quantized_layers = r.Enum(v, key, kQuantizedLayersNames).value_or(w.quantized_layers);
  } else {
    return false;
  }
  return true;
}

// How much: sequence length, batches, tokens, samples, epochs. False for any other key.
bool ReadAmountKey(Reader& r, const std::string& key, const YAML::Node& v, Workload& w) {
  if (key == "seq_len") {
    w.seq_len = r.Integer(v, key, 1, 1 << 24).value_or(1);
  } else if (key == "micro_batch") {
    w.micro_batch = r.Integer(v, key, 1, 1 << 20);
  } else if (key == "global_batch") {
    w.global_batch = r.Integer(v, key, 1, 1 << 24).value_or(1);
  } else if (key == "tokens") {
    w.tokens = r.Number(v, key, 1, 1e18, true);
  } else if (key == "samples") {
    w.samples = r.Number(v, key, 1, 1e15, true);
  } else if (key == "epochs") {
    w.epochs = r.Number(v, key, 1e-6, 1e6).value_or(1);
  } else {
    return false;
  }
  return true;
}

// How it trains: optimizer, recompute, cp, stages, offloads, LoRA rank, embeddings, attention
// kernel, master weights. False for any other key.
bool ReadTrainingKey(Reader& r, const std::string& key, const YAML::Node& v, Workload& w) {
  if (key == "optimizer") {
    w.optimizer = r.Enum(v, key, kOptimizerNames).value_or(w.optimizer);
  } else if (key == "recompute") {
    if (v.IsScalar() && (v.Scalar() == "true" || v.Scalar() == "false")) {
      w.recompute = v.Scalar() == "true" ? Recompute::kFull : Recompute::kNone;
    } else {
      w.recompute = r.Enum(v, key, kRecomputeNames);
    }
  } else if (key == "cp") {
    w.cp = r.Integer(v, key, 1, 1 << 16);
  } else if (key == "framework") {
    w.framework = r.String(v, key).value_or("auto");
  } else if (key == "virtual_stages") {
    w.virtual_stages = r.Integer(v, key, 1, 1024);
  } else if (key == "offload") {
    w.offload = r.Enum(v, key, kOffloadNames);
  } else if (key == "optimizer_in_backward") {
    w.optimizer_in_backward = r.Bool(v, key);
  } else if (key == "activation_offload") {
    w.activation_offload = r.Bool(v, key);
  } else if (key == "lora_rank") {
    w.lora_rank = r.Integer(v, key, 1, 65536).value_or(16);
  } else if (key == "lora_targets") {
    w.lora_targets = r.Enum(v, key, kLoraTargetsNames).value_or(LoraTargets::kAll);
  } else if (key == "lora_dropout") {
    w.lora_dropout = r.Number(v, key, 0, 0.99).value_or(0);
  } else if (key == "train_embeddings") {
    w.train_embeddings = r.Bool(v, key).value_or(false);
  } else if (key == "flash_attention") {
    w.flash_attention = r.Bool(v, key).value_or(true);
  } else if (key == "moe_a2a_overlap") {
    w.moe_a2a_overlap = r.Bool(v, key).value_or(false);
  } else if (key == "tp_comm_overlap") {
    w.tp_comm_overlap = r.Bool(v, key).value_or(false);
  } else if (key == "cross_entropy") {
    w.cross_entropy = r.Enum(v, key, kCrossEntropyNames);
  } else if (key == "memory_format") {
    w.memory_format = r.Enum(v, key, kMemoryFormatNames);
  } else if (key == "master_weights") {
    w.master_weights = r.Bool(v, key).value_or(true);
  } else {
    return false;
  }
  return true;
}

// What to plan for: dataset, constraints, objective, inference, confidence.
void ReadPlanningKey(Reader& r, const std::string& key, const YAML::Node& v, Workload& w) {
  if (key == "dataset")
    ReadDataset(r, v, w.dataset);
  if (key == "constraints")
    ReadConstraints(r, v, w.constraints);
  if (key == "objective") {
    w.objective = r.Enum(v, key, kObjectiveNames).value_or(w.objective);
  }
  if (key == "inference")
    ReadInference(r, v, w.inference);
  if (key == "confidence")
    w.confidence = r.Number(v, key, 0.1, 0.9).value_or(0.5);
  if (key == "memory_confidence")
    w.memory_confidence = r.Number(v, key, 0.1, 0.9).value_or(0.9);
}

Result<Workload> ReadWorkload(const YAML::Node& root, const std::string& file,
                              const std::vector<std::string_view>& extra_keys = {}) {
  Reader r(file);
  Workload w;
  if (!root || root.IsNull()) {
    return Status::InvalidArgument(file +
                                   ":1:1: empty workload: expected a mapping with at "
                                   "least task and model")
        .At(file, 1, 1);
  }
  std::vector<std::string_view> allowed(std::begin(kWorkloadKeys), std::end(kWorkloadKeys));
  allowed.insert(allowed.end(), extra_keys.begin(), extra_keys.end());
  if (!r.CheckMap(root, "", allowed))
    return r.status();
  bool method_given = false;
  for (const auto& kv : root) {
    const std::string key = kv.first.Scalar();
    if (std::find(extra_keys.begin(), extra_keys.end(), key) != extra_keys.end())
      continue;
    const YAML::Node& v = kv.second;
    if (!ReadJobKey(r, key, v, w, &method_given) && !ReadAmountKey(r, key, v, w) &&
        !ReadTrainingKey(r, key, v, w)) {
      ReadPlanningKey(r, key, v, w);
    }
    if (!r.status().ok())
      return r.status();
  }
  if (!root["task"]) {
    r.Fail(root, "task", "expected " + NameChoices(kTaskNames) + ", got nothing");
  } else if (!root["model"] && (w.task != Task::kRendering && w.task != Task::kHpc)) {
    r.Fail(root, "model",
           "expected a zoo name or {layers, hidden, heads, kv_heads, ffn, vocab}, "
           "got nothing");
  }
  if (!r.status().ok())
    return r.status();
  if (!method_given && w.task != Task::kFinetune)
    w.method = Method::kFull;
  if (w.method == Method::kQlora && w.weight_bits == 0)
    w.weight_bits = 4;
  // What the file leaves unset, for DeriveDefaults (gpuplan/defaults.h) to derive and list.
  const YAML::Node inference = root["inference"];
  const bool inference_map = inference && inference.IsMap();
  w.unset = {.precision = !root["precision"],
             .seq_len = !root["seq_len"],
             .global_batch = !root["global_batch"],
             .prompt_tokens = !inference_map || !inference["prompt_tokens"],
             .output_tokens = !inference_map || !inference["output_tokens"],
             .confidence = !root["confidence"],
             .memory_confidence = !root["memory_confidence"]};
  if (Status s = ValidateWorkload(w); !s.ok()) {
    // Point at the line of the field's top-level key ("inference" for "inference.batch").
    const std::string& field = s.location().field;
    const std::string key = field.substr(0, field.find('.'));
    const YAML::Node at = !key.empty() && root[key] ? root[key] : root;
    const YAML::Mark mark = at.Mark();
    return Status::InvalidArgument(
               fmt::format("{}:{}:{}: {}", file, mark.line + 1, mark.column + 1, s.message()))
        .At(file, mark.line + 1, mark.column + 1, field);
  }
  return w;
}

}  // namespace

Result<Workload> ParseWorkloadYaml(std::string_view text, const std::string& file) {
  return ReadYamlDocument<Workload>(
      text, file, [&](const YAML::Node& root) { return ReadWorkload(root, file); });
}

Result<Workload> ReadWorkloadNode(const YAML::Node& node, const std::string& file,
                                  const std::vector<std::string_view>& extra_keys) {
  try {
    return ReadWorkload(node, file, extra_keys);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(file + ": malformed YAML: " + e.what()).At(file, 0, 0);
  }
}

Result<Workload> LoadWorkloadYaml(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok())
    return text.status();
  Result<Workload> w = ParseWorkloadYaml(*text, path);
  // model.config is relative to the workload file's folder.
  if (w.ok() && !w->model_config.empty()) {
    const std::filesystem::path config = w->model_config;
    if (config.is_relative()) {
      w->model_config = (std::filesystem::path(path).parent_path() / config).string();
    }
  }
  return w;
}

}  // namespace gpuplan::io
