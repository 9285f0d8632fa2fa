// The latency side of a serving plan (src/core/plan/latency.h).
#include "plan/latency.h"

#include <cmath>

#include "gpuplan/strings.h"

namespace gpuplan::planner {
namespace {

using strings::Num;

// Tokens per second one request streams at `tpot_ms`.
std::string PerUser(double tpot_ms) { return Num(std::round(1000 / tpot_ms * 10) / 10); }

// What cuts the time per token and to first token, for the advice and the note.
std::string WhatWouldHelp(const Workload& w, bool tpot, bool ttft) {
  std::string out = "more GPUs per copy (tensor parallel splits each token's work";
  if (w.constraints.max_gpus || !w.constraints.include_families.empty() ||
      !w.constraints.include_gpus.empty()) {
    out += "; constraints limit the instances tried";
  }
  out += "), a GPU with more memory bandwidth";
  if (tpot)
    out += " (each output token reads every weight once)";
  if (w.weight_bits == 0 && w.precision != Precision::kFp8)
    out += ", 8- or 4-bit weights (--weight-bits 8|4) or --precision fp8 on Hopper and newer";
  if (w.inference.batch)
    out += ", a smaller --batch than " + std::to_string(*w.inference.batch);
  if (ttft)
    out += ", a shorter prompt (TTFT grows with prompt_tokens)";
  return out;
}

std::string Origin(bool defaulted) { return defaulted ? " (interactive default)" : ""; }

}  // namespace

LatencyTargets ServingTargets(const Workload& w, const Calibration& cal) {
  LatencyTargets t;
  if (w.task != Task::kInference)
    return t;
  t.mode = w.Latency();
  t.ttft_ms = w.inference.ttft_ms;
  t.tpot_ms = w.inference.tpot_ms;
  if (t.mode != LatencyMode::kInteractive || w.inference.output_tokens <= 0)
    return t;  // no default for offline work, nor for a model that generates no tokens
  if (!t.ttft_ms) {
    t.ttft_ms = cal.interactive_ttft_ms;
    t.ttft_default = true;
  }
  if (!t.tpot_ms) {
    t.tpot_ms = cal.interactive_tpot_ms;
    t.tpot_default = true;
  }
  return t;
}

void LatencyMisses::Add(const ServingSetup& s, const std::string& instance) {
  ++types;
  if (s.fastest_tpot.ms < tpot.at.ms)
    tpot = {s.fastest_tpot, instance};
  if (s.fastest_ttft.ms < ttft.at.ms)
    ttft = {s.fastest_ttft, instance};
}

std::string TargetsText(const LatencyTargets& t) {
  std::string out;
  if (t.ttft_ms)
    out += "TTFT <= " + Num(*t.ttft_ms) + " ms";
  if (t.tpot_ms)
    out += std::string(out.empty() ? "" : " and ") + "TPOT <= " + Num(*t.tpot_ms) + " ms";
  if (t.ttft_default && t.tpot_default)
    out += " (interactive defaults)";
  else if (t.ttft_default || t.tpot_default)
    out += std::string(" (") + (t.ttft_default ? "TTFT" : "TPOT") + ": interactive default)";
  return out;
}

std::string DefaultTargetsNote(const LatencyTargets& t) {
  if (!t.ttft_default && !t.tpot_default)
    return "";
  return "latency: held to " + TargetsText(t) +
         " per request, at the point estimate; the defaults are MLPerf Inference's "
         "server-scenario p99 limits for Llama 3.1 8B (data/calibration.csv). Give your own with "
         "--ttft-ms/--tpot-ms (inference.ttft_ms, tpot_ms), or --latency batch (inference.latency: "
         "batch) for offline throughput with no default target";
}

std::optional<rules::Advice> LatencyAdvice(const Workload& w, const LatencyTargets& t,
                                           const Calibration& cal, const Candidate& c) {
  if (!c.estimate.inference || w.inference.output_tokens <= 0)
    return std::nullopt;
  const perf::InferenceTimes& inf = *c.estimate.inference;
  const bool ranged = c.ranges && c.ranges->time.regime != "none" && c.ranges->time.p90 > 0;
  const double p90 = ranged ? c.ranges->time.p90 : 1.1;  // without ranges: within 10%
  struct Check {
    const char* name;
    double ms;
    std::optional<double> target;
    bool defaulted;
  };
  for (const Check& k : {Check{"TPOT", inf.tpot_ms, t.tpot_ms, t.tpot_default},
                         Check{"TTFT", inf.ttft_ms, t.ttft_ms, t.ttft_default}}) {
    if (!k.target)
      continue;
    const bool tpot = k.name[1] == 'P';
    const std::string target = Num(*k.target) + " ms " + k.name + " target" + Origin(k.defaulted);
    if (k.ms > *k.target) {
      return rules::Advice{"latency-over-target", rules::Severity::kWarning,
                           std::string(k.name) + " " + Num(k.ms) + " ms is over the " + target +
                               " at batch " + std::to_string(inf.batch) +
                               "; what would meet it: a smaller batch, " +
                               WhatWouldHelp(w, tpot, !tpot)};
    }
    if (k.ms * p90 > *k.target) {
      return rules::Advice{
          "latency-near-target", rules::Severity::kWarning,
          std::string(k.name) + " " + Num(k.ms) + " ms meets the " + target +
              " with little room: " +
              (ranged ? "the model's p90 error puts it at " + Num(k.ms * p90) + " ms"
                      : "within 10% of it") +
              ". For headroom give a lower target (--" + (tpot ? "tpot" : "ttft") + "-ms " +
              Num(std::floor(*k.target * 0.8)) +
              ": a smaller batch with more copies), or a GPU with more memory bandwidth; "
              "measure under your own load before committing"};
    }
  }
  if (t.mode == LatencyMode::kBatch && !t.tpot_ms && inf.tpot_ms > cal.interactive_tpot_ms) {
    return rules::Advice{
        "latency-batch-only", rules::Severity::kInfo,
        "TPOT " + Num(inf.tpot_ms) + " ms (" + PerUser(inf.tpot_ms) +
            " tokens/s per request) at batch " + std::to_string(inf.batch) +
            ": fine for offline throughput, too slow for a person reading the stream; "
            "--latency interactive holds it to TPOT <= " +
            Num(cal.interactive_tpot_ms) + " ms"};
  }
  return std::nullopt;
}

std::string NoSetupMeetsNote(const Workload& w, const LatencyTargets& t, const LatencyMisses& m) {
  if (m.types == 0)
    return "";
  const bool tpot = t.tpot_ms && m.tpot.at.ms > *t.tpot_ms;
  const bool ttft = t.ttft_ms && m.ttft.at.ms > *t.ttft_ms;
  auto seen = [](const char* name, const LatencyMisses::Seen& s) {
    return std::string(name) + " " + Num(s.at.ms) + " ms on " + s.instance + " (tp " +
           std::to_string(s.at.tp) + (s.at.pp > 1 ? " pp " + std::to_string(s.at.pp) : "") +
           ", batch " + std::to_string(s.at.batch) + ")";
  };
  std::string fastest;
  if (tpot)
    fastest = seen("TPOT", m.tpot);
  if (ttft)
    fastest += std::string(fastest.empty() ? "" : "; ") + seen("TTFT", m.ttft);
  if (fastest.empty())
    fastest = "each target alone is met, never both in one setup";
  return "latency: no configuration meets " + TargetsText(t) + "; the fastest seen: " + fastest +
         ". What would: " + WhatWouldHelp(w, tpot, ttft) +
         ", or a looser target (--tpot-ms/--ttft-ms; --latency batch for offline work)";
}

}  // namespace gpuplan::planner
