#include "gpuplan/workload.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "gpuplan/strings.h"
#include "perf/internal.h"

namespace gpuplan {
namespace {

Status Bad(std::string_view field, std::string_view expected, const std::string& got) {
  return Status::InvalidArgument("field \"" + std::string(field) + "\": expected " +
                                 std::string(expected) + ", got " + got)
      .AtField(std::string(field));
}

// Physical ranges: beyond these a value is a typo (an exponent too many), not a job.
constexpr int kMaxSeqLen = 1 << 20;
constexpr double kMaxTokens = 1e15;
constexpr double kMaxSamples = 1e13;
constexpr double kMaxEpochs = 1e4;
constexpr double kMaxRequestsPerS = 1e6;
constexpr double kMaxLatencyMs = 3.6e6;
constexpr int kMaxGpus = 100000;
constexpr int kMaxNodes = 10000;
constexpr double kMaxDeadlineHours = 87600;
constexpr double kMaxBudget = 1e12;

// A value as the user may have typed it: plain when readable, else in e-notation ("1e+30").
std::string Sci(double v) {
  if (std::fabs(v) < 1e9 && (v == 0 || std::fabs(v) >= 0.01))
    return strings::Num(v);
  // %g's form (six significant digits) without <cstdio>: the core does no I/O.
  char buf[32];
  const std::to_chars_result r =
      std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 6);
  return std::string(buf, r.ptr);
}

}  // namespace

std::optional<double> Workload::TotalTokens() const {
  if (tokens)
    return *tokens;
  if (samples)
    return *samples * epochs * seq_len;
  return std::nullopt;
}

LatencyMode Workload::Latency() const {
  if (inference.latency)
    return *inference.latency;
  const bool offline = !inference.PeakRps() && (tokens || samples);
  return offline ? LatencyMode::kBatch : LatencyMode::kInteractive;
}

double TrafficProfile::At(int hour, bool weekend) const {
  const std::vector<double>& day = weekend && HasWeekend() ? weekend_hourly_rps : hourly_rps;
  return hour >= 0 && static_cast<size_t>(hour) < day.size() ? day[static_cast<size_t>(hour)] : 0;
}

double TrafficProfile::Peak() const {
  double peak = 0;
  for (double r : hourly_rps)
    peak = std::max(peak, r);
  for (double r : weekend_hourly_rps)
    peak = std::max(peak, r);
  return peak;
}

namespace {

// A whole number of hours 0..24 at the front of `text`, consumed; nullopt when none.
std::optional<int> TakeHour(std::string_view& text) {
  int h = 0;
  size_t i = 0;
  for (; i < text.size() && i < 2 && text[i] >= '0' && text[i] <= '9'; ++i)
    h = h * 10 + (text[i] - '0');
  if (i == 0 || h > 24)
    return std::nullopt;
  text.remove_prefix(i);
  return h;
}

}  // namespace

std::optional<std::vector<double>> TrafficFromPeak(double base_rps, double peak_rps,
                                                   std::string_view peak_hours) {
  std::string_view t = peak_hours;
  const std::optional<int> from = TakeHour(t);
  if (!from || t.empty() || t.front() != '-')
    return std::nullopt;
  t.remove_prefix(1);
  const std::optional<int> to = TakeHour(t);
  if (!to || !t.empty() || *from % 24 == *to % 24)
    return std::nullopt;
  std::vector<double> day(24, base_rps);
  for (int h = *from % 24; h != *to % 24; h = (h + 1) % 24)
    day[static_cast<size_t>(h)] = peak_rps;
  return day;
}

std::optional<double> ParseUtcOffset(std::string_view tz) {
  // Zones without daylight saving time, where a fixed offset is exact (IANA tz database).
  static constexpr std::pair<std::string_view, double> kFixed[] = {
      {"Asia/Shanghai", 8},  {"Asia/Hong_Kong", 8},
      {"Asia/Singapore", 8}, {"Asia/Kuala_Lumpur", 8},
      {"Asia/Manila", 8},    {"Asia/Taipei", 8},
      {"Asia/Tokyo", 9},     {"Asia/Seoul", 9},
      {"Asia/Jakarta", 7},   {"Asia/Bangkok", 7},
      {"Asia/Kolkata", 5.5}, {"Asia/Dubai", 4},
      {"Asia/Riyadh", 3},    {"UTC", 0},
      {"Etc/UTC", 0},        {"GMT", 0}};
  for (const auto& [name, offset] : kFixed) {
    if (strings::Lower(std::string(name)) == strings::Lower(std::string(tz)))
      return offset;
  }
  std::string_view t = tz;
  if (t.substr(0, 3) == "UTC" || t.substr(0, 3) == "GMT")
    t.remove_prefix(3);
  if (t.empty() || (t.front() != '+' && t.front() != '-'))
    return std::nullopt;
  const double sign = t.front() == '-' ? -1 : 1;
  t.remove_prefix(1);
  const std::optional<int> hours = TakeHour(t);
  if (!hours || *hours > 14)
    return std::nullopt;
  double minutes = 0;
  if (!t.empty()) {
    if (t.front() == ':')
      t.remove_prefix(1);
    if (t.size() != 2 || t[0] < '0' || t[0] > '5' || t[1] < '0' || t[1] > '9')
      return std::nullopt;
    minutes = (t[0] - '0') * 10 + (t[1] - '0');
  }
  return sign * (*hours + minutes / 60);
}

std::optional<std::pair<int, int>> ParseImageSize(std::string_view text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  const std::string t = strings::Lower(text);
  // Video resolutions by their height, 16:9 landscape (832x480 is Wan's 480p).
  if (t == "480p")
    return std::pair{832, 480};
  if (t == "720p")
    return std::pair{1280, 720};
  if (t == "1080p")
    return std::pair{1920, 1080};
  const size_t x = t.find_first_of("x*");
  if (x == std::string::npos)
    return std::nullopt;
  auto whole = [](std::string_view s) -> std::optional<int> {
    if (s.empty() || s.size() > 5)
      return std::nullopt;
    int v = 0;
    for (char c : s) {
      if (c < '0' || c > '9')
        return std::nullopt;
      v = v * 10 + (c - '0');
    }
    if (v < 8 || v > 32768)
      return std::nullopt;
    return v;
  };
  const std::optional<int> w = whole(std::string_view(t).substr(0, x));
  const std::optional<int> h = whole(std::string_view(t).substr(x + 1));
  if (!w || !h)
    return std::nullopt;
  return std::pair{*w, *h};
}

std::optional<double> ParseAmount(std::string_view text) {
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  if (text.empty())
    return std::nullopt;
  double scale = 1;
  switch (text.back()) {
    case 'K':
    case 'k':
      scale = 1e3;
      break;
    case 'M':
    case 'm':
      scale = 1e6;
      break;
    case 'B':
    case 'b':
    case 'G':
    case 'g':
      scale = 1e9;
      break;
    case 'T':
    case 't':
      scale = 1e12;
      break;
    default:
      break;
  }
  if (scale != 1)
    text.remove_suffix(1);
  if (text.empty())
    return std::nullopt;
  double value = 0;
  size_t i = 0;
  bool digits = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    value = value * 10 + (text[i] - '0');
    digits = true;
  }
  if (i < text.size() && text[i] == '.') {
    double place = 0.1;
    for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, place /= 10) {
      value += (text[i] - '0') * place;
      digits = true;
    }
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E') && scale == 1) {
    int sign = 1, exp = 0;
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-'))
      sign = text[i++] == '-' ? -1 : 1;
    bool exp_digits = false;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && exp < 400; ++i) {
      exp = exp * 10 + (text[i] - '0');
      exp_digits = true;
    }
    if (!exp_digits)
      return std::nullopt;
    value *= std::pow(10.0, sign * exp);
  }
  if (!digits || i != text.size() || !std::isfinite(value * scale))
    return std::nullopt;
  return value * scale;
}

namespace {

// The step's shape: sequence, batches, context-parallel degree, pipeline chunks.
Status ValidateSteps(const Workload& w) {
  if (w.seq_len < 1)
    return Bad("seq_len", "a whole number >= 1", std::to_string(w.seq_len));
  if (w.global_batch < 1) {
    return Bad("global_batch", "a whole number >= 1", std::to_string(w.global_batch));
  }
  if (w.micro_batch && *w.micro_batch < 1) {
    return Bad("micro_batch", "a whole number >= 1", std::to_string(*w.micro_batch));
  }
  if (w.micro_batch && *w.micro_batch > w.global_batch) {
    return Bad("micro_batch", "at most global_batch (" + std::to_string(w.global_batch) + ")",
               std::to_string(*w.micro_batch));
  }
  if (w.cp && (*w.cp < 1 || *w.cp > 65536)) {
    return Bad("cp", "a context-parallel degree from 1 to 65536", std::to_string(*w.cp));
  }
  if (w.virtual_stages && (*w.virtual_stages < 1 || *w.virtual_stages > 1024)) {
    return Bad("virtual_stages", "1 to 1024 model chunks per pipeline rank",
               std::to_string(*w.virtual_stages));
  }
  return Status::Ok();
}

// How much work: the context length, tokens, samples, epochs.
Status ValidateAmount(const Workload& w) {
  if (w.seq_len > kMaxSeqLen) {
    return Bad("seq_len",
               "at most " + std::to_string(kMaxSeqLen) +
                   " tokens (no model gpuplan knows has a longer context)",
               std::to_string(w.seq_len));
  }
  if (w.tokens && (*w.tokens < 1 || *w.tokens > kMaxTokens)) {
    return Bad(
        "tokens",
        "an amount from 1 to 1e15 (the largest published pre-training runs use about 3.6e13)",
        Sci(*w.tokens));
  }
  if (w.samples && (*w.samples < 1 || *w.samples > kMaxSamples)) {
    return Bad("samples", "a number from 1 to 1e13", Sci(*w.samples));
  }
  if (w.epochs <= 0 || w.epochs > kMaxEpochs) {
    return Bad("epochs", "a number above 0 and at most 10000", strings::Num(w.epochs));
  }
  return Status::Ok();
}

// The method and what it needs: LoRA rank, quantised weights; hpc's precision.
Status ValidateMethod(const Workload& w) {
  if (w.method != Method::kFull && w.task != Task::kFinetune) {
    return Bad("method", "full unless task is finetune (lora and qlora are fine-tuning methods)",
               std::string(MethodName(w.method)));
  }
  if ((w.method == Method::kLora || w.method == Method::kQlora) && w.lora_rank < 1) {
    return Bad("lora_rank", "a whole number >= 1", std::to_string(w.lora_rank));
  }
  if (w.weight_bits != 0 && w.weight_bits != 4 && w.weight_bits != 8) {
    return Bad("weight_bits", "0 (not quantised), 4 or 8", std::to_string(w.weight_bits));
  }
  if (!(w.lora_dropout >= 0 && w.lora_dropout < 1)) {
    return Bad("lora_dropout", "a probability from 0 up to (not including) 1",
               strings::Num(w.lora_dropout));
  }
  if (w.method == Method::kQlora && w.weight_bits == 8) {
    return Bad("weight_bits", "4 for qlora (NF4 base weights)", "8");
  }
  // MXFP4 and experts-only quantisation describe a released checkpoint as an engine serves it;
  // training stacks dequantise it to 16 bits (Transformers Mxfp4Config(dequantize=True)).
  if (w.weight_format == WeightFormat::kMxfp4 && (w.weight_bits != 4 || w.IsTraining())) {
    return Bad("weight_format", "int unless the task is inference with weight_bits 4", "mxfp4");
  }
  if (w.quantized_layers == QuantizedLayers::kExperts && (w.weight_bits == 0 || w.IsTraining())) {
    return Bad("quantized_layers", "all unless the task is inference with weight_bits 4 or 8",
               "experts");
  }
  if (w.tp_comm_overlap && !w.IsTraining()) {
    return Bad("tp_comm_overlap", "false unless the task trains (pretrain or finetune)", "true");
  }
  // A KV cache is a serving engine's; training keeps none.
  if (w.inference.kv_cache_dtype && w.IsTraining()) {
    return Bad("inference.kv_cache_dtype", "unset unless the task is inference",
               std::string(NameOf(kKvCacheDtypeNames, *w.inference.kv_cache_dtype)));
  }
  // The training loss's memory; serving computes no loss.
  if (w.cross_entropy && !w.IsTraining()) {
    return Bad("cross_entropy", "unset unless the task trains (pretrain or finetune)",
               std::string(NameOf(kCrossEntropyNames, *w.cross_entropy)));
  }
  if (w.task == Task::kHpc && w.precision != Precision::kFp64 && w.precision != Precision::kFp32) {
    return Bad("precision", "fp64 or fp32 for task hpc", std::string(PrecisionName(w.precision)));
  }
  return Status::Ok();
}

// A day's traffic: 24 finite rates >= 0 (weekdays, and weekends when given), some above 0, at
// most the rate limit; a sane time zone and scale-up time; not together with requests_per_s.
Status ValidateTraffic(const Workload& w) {
  const TrafficProfile& t = *w.inference.traffic;
  if (w.inference.requests_per_s) {
    return Bad("inference.traffic",
               "either inference.requests_per_s (a constant rate) or inference.traffic (a day's "
               "profile), not both",
               "both");
  }
  auto day = [](const char* field, const std::vector<double>& rates) {
    if (rates.size() != 24) {
      return Bad(field, "24 rates, one per hour of the day from 00:00 local time",
                 std::to_string(rates.size()));
    }
    for (size_t h = 0; h < rates.size(); ++h) {
      if (!std::isfinite(rates[h]) || rates[h] < 0 || rates[h] > kMaxRequestsPerS) {
        return Bad(std::string(field) + "[" + std::to_string(h) + "]",
                   "a rate from 0 to 1000000 requests per second", Sci(rates[h]));
      }
    }
    return Status::Ok();
  };
  if (Status s = day("inference.traffic.hourly_rps", t.hourly_rps); !s.ok())
    return s;
  if (t.HasWeekend()) {
    if (Status s = day("inference.traffic.weekend_hourly_rps", t.weekend_hourly_rps); !s.ok())
      return s;
  }
  if (!(t.Peak() > 0)) {
    return Bad("inference.traffic.hourly_rps", "at least one hour with a rate above 0",
               "only zeros");
  }
  if (t.utc_offset_hours && !(std::fabs(*t.utc_offset_hours) <= 14)) {
    return Bad("inference.traffic.timezone", "a UTC offset from -14 to +14 hours",
               Sci(*t.utc_offset_hours));
  }
  if (t.scale_up_minutes && !(*t.scale_up_minutes >= 0 && *t.scale_up_minutes <= 1440)) {
    return Bad("inference.traffic.scale_up_minutes", "minutes from 0 to 1440",
               Sci(*t.scale_up_minutes));
  }
  return Status::Ok();
}

// The inference section: prompt and output lengths, batch, request rate, latency targets.
Status ValidateInference(const Workload& w) {
  const InferenceSpec& inf = w.inference;
  if (inf.prompt_tokens < 1) {
    return Bad("inference.prompt_tokens", "a whole number >= 1", std::to_string(inf.prompt_tokens));
  }
  if (inf.output_tokens < 0) {
    return Bad("inference.output_tokens", "a whole number >= 0", std::to_string(inf.output_tokens));
  }
  if (inf.batch && *inf.batch < 1) {
    return Bad("inference.batch", "a whole number >= 1", std::to_string(*inf.batch));
  }
  if ((inf.width_px && (*inf.width_px < 8 || *inf.width_px > 32768)) ||
      (inf.height_px && (*inf.height_px < 8 || *inf.height_px > 32768))) {
    return Bad(
        "inference.resolution", "a size from 8x8 to 32768x32768 pixels",
        std::to_string(inf.width_px.value_or(0)) + "x" + std::to_string(inf.height_px.value_or(0)));
  }
  if (inf.frames && (*inf.frames < 1 || *inf.frames > 100000))
    return Bad("inference.frames", "a whole number from 1 to 100000", std::to_string(*inf.frames));
  if (inf.steps && (*inf.steps < 1 || *inf.steps > 10000))
    return Bad("inference.steps", "a whole number from 1 to 10000", std::to_string(*inf.steps));
  if (inf.requests_per_s && (*inf.requests_per_s <= 0 || *inf.requests_per_s > kMaxRequestsPerS)) {
    return Bad("inference.requests_per_s", "a rate above 0 and at most 1000000 requests per second",
               Sci(*inf.requests_per_s));
  }
  auto length_p90 = [](const char* field, const std::optional<int>& p90, int mean) {
    return p90 && *p90 < mean
               ? Bad(field, "a 90th percentile at least the mean " + std::to_string(mean),
                     std::to_string(*p90))
               : Status::Ok();
  };
  if (Status s =
          length_p90("inference.prompt_tokens.p90", inf.prompt_tokens_p90, inf.prompt_tokens);
      !s.ok()) {
    return s;
  }
  if (Status s =
          length_p90("inference.output_tokens.p90", inf.output_tokens_p90, inf.output_tokens);
      !s.ok()) {
    return s;
  }
  if (inf.traffic) {
    if (Status s = ValidateTraffic(w); !s.ok())
      return s;
  }
  if (inf.ttft_ms && (*inf.ttft_ms <= 0 || *inf.ttft_ms > kMaxLatencyMs)) {
    return Bad("inference.ttft_ms", "a time above 0 and at most 3600000 ms (one hour)",
               Sci(*inf.ttft_ms));
  }
  if (inf.tpot_ms && (*inf.tpot_ms <= 0 || *inf.tpot_ms > kMaxLatencyMs)) {
    return Bad("inference.tpot_ms", "a time above 0 and at most 3600000 ms (one hour)",
               Sci(*inf.tpot_ms));
  }
  return Status::Ok();
}

// The constraints, and that a budget or deadline has an amount of work to hold it against.
Status ValidateConstraints(const Workload& w) {
  const Constraints& c = w.constraints;
  if (c.max_gpus && (*c.max_gpus < 1 || *c.max_gpus > kMaxGpus)) {
    return Bad("constraints.max_gpus", "a whole number from 1 to 100000",
               std::to_string(*c.max_gpus));
  }
  if (c.max_nodes && (*c.max_nodes < 1 || *c.max_nodes > kMaxNodes)) {
    return Bad("constraints.max_nodes", "a whole number from 1 to 10000",
               std::to_string(*c.max_nodes));
  }
  if (c.deadline_hours && (*c.deadline_hours <= 0 || *c.deadline_hours > kMaxDeadlineHours)) {
    return Bad("constraints.deadline_hours", "hours above 0 and at most 87600 (ten years)",
               Sci(*c.deadline_hours));
  }
  if (c.budget && (c.budget->amount <= 0 || c.budget->amount > kMaxBudget)) {
    return Bad("constraints.budget.amount", "an amount above 0 and at most 1e12",
               Sci(c.budget->amount));
  }
  // A budget or a deadline limits an amount of work; without one there is nothing to hold them
  // against, and silently ignoring them would answer a question the user did not ask.
  if (!w.tokens && !w.samples && !w.IsServing()) {
    const std::string work =
        std::string(
            " needs an amount of work to hold it against: give tokens or samples (--tokens, "
            "--samples)") +
        (w.task == Task::kInference ? ", or requests_per_s for a service (--requests-per-s)" : "");
    if (c.budget)
      return Status::InvalidArgument("field \"constraints.budget\": a budget" + work)
          .AtField("constraints.budget");
    if (c.deadline_hours)
      return Status::InvalidArgument("field \"constraints.deadline_hours\": a deadline" + work)
          .AtField("constraints.deadline_hours");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateWorkloadForModel(const Workload& w, const ModelArch& arch) {
  // Experts-only quantisation (gpt-oss's release) has nothing to quantise in a dense model.
  if (w.quantized_layers == QuantizedLayers::kExperts && w.weight_bits > 0 && !arch.IsMoe()) {
    return Status::InvalidArgument("quantized_layers: experts needs a model with routed experts; " +
                                   arch.name + " has none (use all)")
        .AtField("quantized_layers");
  }
  // The activation layout matters where convolutions run; a transformer has none to lay out.
  if (w.memory_format && arch.ConvolutionElements() <= 0) {
    return Status::InvalidArgument(
               "memory_format: only a convolutional network's activations have a layout to "
               "choose (a zoo row with activation_melems_per_sample, e.g. resnet-50); " +
               arch.name + " has none (leave memory_format unset)")
        .AtField("memory_format");
  }
  return Status::Ok();
}

std::string Workload::PrecisionText() const {
  std::string s(PrecisionName(precision));
  if (weight_bits == 0)
    return s;
  const std::string what = quantized_layers == QuantizedLayers::kExperts ? "experts" : "weights";
  if (weight_format == WeightFormat::kMxfp4) {
    return s + " over MXFP4 " + what + " (" +
           strings::Num(perf::internal::QuantBits(weight_bits, weight_format, false)) + " bits)";
  }
  return s + " over " + std::to_string(weight_bits) + "-bit " + what;
}

Status ValidateWorkload(const Workload& w) {
  if (Status s = ValidateSteps(w); !s.ok())
    return s;
  if (!(w.confidence >= 0.1 && w.confidence <= 0.9)) {
    return Bad("confidence", "a percentile between 0.1 and 0.9 (0.9 = met with 90% confidence)",
               strings::Num(w.confidence));
  }
  if (!(w.memory_confidence >= 0.1 && w.memory_confidence <= 0.9)) {
    return Bad("memory_confidence",
               "a percentile between 0.1 and 0.9 (0.9 = fits with 90% confidence)",
               strings::Num(w.memory_confidence));
  }
  if (Status s = ValidateAmount(w); !s.ok())
    return s;
  if (Status s = ValidateMethod(w); !s.ok())
    return s;
  if (Status s = ValidateInference(w); !s.ok())
    return s;
  if (Status s = ValidateConstraints(w); !s.ok())
    return s;
  if (w.inline_arch) {
    if (Status s = ValidateModelArch(*w.inline_arch); !s.ok())
      return s.WithContext("model");
  }
  return Status::Ok();
}

Result<ModelArch> ResolveModel(const Workload& w, const ModelZoo& zoo) {
  if (w.inline_arch)
    return *w.inline_arch;
  if (!w.model_config.empty()) {
    // The file is read by the caller that can read files (the CLI does, before this); here
    // the architecture is missing.
    return Status::Unsupported("field \"model.config\": " + w.model_config +
                               " is a file, and files are not read here: give the architecture "
                               "inline")
        .AtField("model.config");
  }
  if (w.model_name.empty()) {
    return Status::InvalidArgument(
               "field \"model\": expected a zoo name or {layers, hidden, heads, kv_heads, ffn, "
               "vocab}, got nothing")
        .AtField("model");
  }
  if (const ModelArch* m = zoo.Find(w.model_name))
    return *m;
  std::string msg = "field \"model\": unknown model \"" + w.model_name + "\"";
  const std::vector<std::string> near = zoo.Suggest(w.model_name);
  if (!near.empty()) {
    msg += "; did you mean ";
    for (size_t i = 0; i < near.size(); ++i)
      msg += (i ? ", " : "") + near[i];
    msg += "?";
  }
  return Status::NotFound(msg + " (or give the architecture inline)").AtField("model");
}

}  // namespace gpuplan
