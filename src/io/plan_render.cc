#include "io/plan_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "gpuplan/strings.h"
#include "io/estimate_request.h"
#include "io/fleet_render.h"
#include "io/range_render.h"
#include "io/table.h"

namespace gpuplan::io {
namespace {

using strings::Num;

nlohmann::json LayoutJson(const perf::Layout& l, const std::string& framework,
                          const std::string& attention_kernel) {
  return {{"tp", l.tp},
          {"cp", l.cp},
          {"pp", l.pp},
          {"vp", l.vp},
          {"dp", l.dp},
          {"ep", l.ep},
          {"offload", OffloadName(l.offload)},
          {"optimizer_in_backward", l.optimizer_in_backward},
          {"activation_offload", l.activation_offload},
          {"zero", l.zero},
          {"micro_batch", l.micro_batch},
          {"recompute", RecomputeName(l.recompute)},
          {"sequence_parallel", l.sequence_parallel},
          {"flash_attention", l.flash_attention},
          {"framework", framework.empty() ? nlohmann::json(nullptr) : nlohmann::json(framework)},
          {"attention_kernel",
           attention_kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(attention_kernel)}};
}

// "peft tp1 pp1 dp1 z0 mb4" (the framework first when known).
std::string LayoutText(const perf::Layout& l, const std::string& framework) {
  std::string s = framework.empty() ? "" : framework + " ";
  s += fmt::format("tp{}", l.tp);
  if (l.cp > 1)
    s += fmt::format(" cp{}", l.cp);
  s += fmt::format(" pp{}", l.pp);
  if (l.vp > 1)
    s += fmt::format(" vp{}", l.vp);
  s += fmt::format(" dp{}", l.dp);
  if (l.ep > 1)
    s += fmt::format(" ep{}", l.ep);
  s += fmt::format(" z{} mb{}", l.zero, l.micro_batch);
  if (l.recompute != Recompute::kNone)
    s += " rc:" + std::string(RecomputeName(l.recompute));
  if (l.offload != perf::Offload::kNone)
    s += " off:" + std::string(OffloadName(l.offload));
  if (l.optimizer_in_backward)
    s += " oib";
  if (l.activation_offload)
    s += " off:act";
  return s;
}

double MoneyValue(const planner::Candidate& c) {
  return c.monthly ? c.monthly->per_month.amount() : c.cost.total.amount();
}

// " [stale: price of 2024-12-30]" when the price is older than planner::kStalePriceDays.
std::string StaleMark(const planner::Candidate& c) {
  const cost::PriceQuote* q = planner::PriceUsed(c);
  return q && planner::PriceStale(*q) ? " [stale: price of " + q->as_of + "]" : "";
}

std::string CostText(const planner::Candidate& c) {
  if (!c.price_known)
    return "unknown (no price)";
  if (c.monthly)
    return c.monthly->per_month.ToString() + "/month" + (c.monthly->lower_bound ? " (min)" : "") +
           StaleMark(c);
  // Spot with the default interruption allowance: the range from the lower bound.
  const std::string low =
      c.spot_cost_low && !c.monthly ? Num(c.spot_cost_low->amount()) + " to " : "";
  return (low.empty() ? ""
                      : std::string(CurrencyName(c.cost.total.currency())) + " " + low +
                            Num(c.cost.total.amount())) +
         (low.empty() ? c.cost.total.ToString() : "") + (c.job_hours > 0 ? "" : "/h") +
         (c.cost.lower_bound ? " (min)" : "") + StaleMark(c);
}

// The table's billing: the mode, a fleet's base and elastic modes, or "-" without a price.
std::string BillingCell(const planner::Candidate& c) {
  if (!c.price_known)
    return "-";
  return c.fleet ? FleetBillingText(*c.fleet) : std::string(cost::ModeName(c.billing));
}

// "4 x 2 GPUs": a service's model copies and the GPUs each runs on.
std::string CopiesText(const planner::Candidate& c) {
  return fmt::format("{} x {} GPU{}", c.copies, c.gpus_per_copy, c.gpus_per_copy == 1 ? "" : "s");
}

// Rejections with the same reason, listed once: "ecs.gn5-c4g1.xlarge (+7 more gn5)".
std::vector<std::pair<std::string, std::string>> GroupRejections(const planner::Plan& plan) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& r : plan.rejected) {
    // Reasons that name their own type ("ecs.x has no price ...") group as "this type ...".
    std::string reason = r.reason;
    for (size_t at = reason.find(r.instance); at != std::string::npos;
         at = reason.find(r.instance, at)) {
      reason.replace(at, r.instance.size(), "this type");
    }
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == reason; });
    if (it == groups.end()) {
      groups.push_back({reason, {r.instance}});
    } else {
      it->second.push_back(r.instance);
    }
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [reason, types] : groups) {
    std::string names = types[0];
    if (types.size() == 2)
      names += ", " + types[1];
    if (types.size() > 2)
      names += fmt::format(" and {} more", types.size() - 1);
    out.emplace_back(reason, names);
  }
  return out;
}

// "finetune (lora) of llama-2-7b, bf16, seq 2048, global batch 32" and the like, per task.
std::string Describe(const Workload& w) {
  std::string s(TaskName(w.task));
  if (w.task == Task::kFinetune)
    s += fmt::format(" ({})", MethodName(w.method));
  if (!w.model_name.empty())
    s += " of " + w.model_name;
  s += ", " + w.PrecisionText();
  if (w.IsTraining())
    s += fmt::format(", seq {}, global batch {}", w.seq_len, w.global_batch);
  if (w.task == Task::kInference) {
    s += fmt::format(", {} prompt + {} output tokens", w.inference.prompt_tokens,
                     w.inference.output_tokens);
    if (w.inference.traffic)
      s += fmt::format(", traffic by hour (peak {} requests/s)", Num(w.inference.traffic->Peak()));
    else if (w.inference.requests_per_s)
      s += fmt::format(", {} requests/s", Num(*w.inference.requests_per_s));
  }
  return s;
}

std::string Hours(double h) { return h > 0 ? Num(h) : "-"; }

}  // namespace

nlohmann::json CandidateJson(const planner::Candidate& c) {
  const perf::Estimate& e = c.estimate;
  nlohmann::json memory_parts = nlohmann::json::object();
  for (const auto& [name, gib] : e.memory.breakdown.Named())
    memory_parts[std::string(name)] = gib;
  nlohmann::json time_parts = nlohmann::json::object();
  for (const auto& [name, s] : e.time.breakdown.Named())
    time_parts[std::string(name)] = s;
  nlohmann::json advice = nlohmann::json::array();
  for (const rules::Advice& a : c.advice) {
    advice.push_back(
        {{"rule", a.rule}, {"severity", rules::SeverityName(a.severity)}, {"message", a.message}});
  }
  const cost::PriceQuote* used = planner::PriceUsed(c);
  nlohmann::json cost = {
      {"known", c.price_known},
      {"total", c.price_known ? nlohmann::json(c.cost.total.amount()) : nlohmann::json(nullptr)},
      {"currency", CurrencyName(c.cost.total.currency())},
      {"per_instance_hour",
       c.price_known ? nlohmann::json(c.cost.rate_per_hour.amount()) : nlohmann::json(nullptr)},
      {"price_stale", used && planner::PriceStale(*used)},
      {"price_age_days",
       used && used->age_days ? nlohmann::json(*used->age_days) : nlohmann::json(nullptr)},
      {"price_trust", used ? nlohmann::json(planner::PriceTrust(*used)) : nlohmann::json(nullptr)},
      {"billed_instance_hours", c.cost.billed_instance_hours},
      {"lower_bound", c.cost.lower_bound},
      {"price_source", PriceSourceName(c.cost.price.source)},
      {"price_as_of", c.cost.price.as_of},
      {"price_basis", c.cost.price.basis},
      {"price_derived", c.cost.price.derived},
      {"notes", c.cost.notes},
  };
  if (c.cost.checkpoint_interval_hours)
    cost["checkpoint_interval_hours"] = *c.cost.checkpoint_interval_hours;
  if (c.cost.commitment)
    cost["commitment"] = c.cost.commitment->amount();
  if (c.monthly)
    cost["per_month"] = c.monthly->per_month.amount();
  if (!c.price_known)
    cost["how_to_price"] = c.price_hint;
  if (c.spot_cost_low)
    cost["range_low"] = c.spot_cost_low->amount();
  // A spot price the ranking did not rest on: the PAYG cap it was ranked at.
  if (c.spot_ranked_at_payg > 0)
    cost["ranked_at_per_instance_hour"] = c.spot_ranked_at_payg;
  nlohmann::json j = {
      {"instance", c.instance},
      {"family", c.family},
      {"gpu", c.gpu},
      {"region", c.region},
      {"nodes", c.nodes},
      {"gpus", c.gpus},
      {"replicas", c.copies},
      {"copies", c.copies},
      {"gpus_per_copy", c.gpus_per_copy},
      {"spare_instances", c.spare_instances},
      {"layout", LayoutJson(c.layout, c.framework, c.attention_kernel)},
      {"billing", cost::ModeName(c.billing)},
      {"fits", e.memory.fits},
      {"memory",
       {{"per_gpu_gib", e.memory.per_gpu_gib},
        {"capacity_gib", e.memory.capacity_gib},
        {"breakdown", memory_parts}}},
      {"time", {{"job_hours", c.job_hours}, {"step_s", e.time.step_s}, {"breakdown", time_parts}}},
      {"throughput",
       {{"tokens_per_s_per_gpu", e.throughput.tokens_per_s_per_gpu},
        {"tflops_per_gpu", e.throughput.tflops_per_gpu},
        {"mfu", e.throughput.mfu}}},
      {"cost", cost},
      {"advice", advice},
      {"storage",
       {{"kind", c.storage.kind},
        {"size_gib", c.storage.size_gib},
        {"required_mbs", c.storage.required_mbs},
        {"expected_mbs", c.storage.expected_mbs},
        {"why", c.storage.why}}},
      {"image",
       {{"os", c.image.os},
        {"driver", c.image.driver},
        {"cuda", c.image.cuda},
        {"framework", c.image.framework},
        {"why", c.image.why}}},
      {"pareto", c.pareto},
      {"why", c.why},
  };
  if (e.inference) {
    j["inference"] = {{"batch", e.inference->batch},
                      {"ttft_ms", e.inference->ttft_ms},
                      {"tpot_ms", e.inference->tpot_ms},
                      {"tokens_per_s_per_gpu", e.inference->tokens_per_s_per_gpu},
                      {"requests_per_s", e.inference->requests_per_s}};
  }
  if (c.fleet)
    j["fleet"] = FleetJson(c);
  AddRangesJson(j, c);
  return j;
}

nlohmann::json AssumptionsJson(const std::vector<Assumption>& assumed) {
  nlohmann::json j = nlohmann::json::array();
  for (const Assumption& a : assumed)
    j.push_back({{"field", a.field}, {"value", a.value}, {"why", a.why}});
  return j;
}

std::string AssumedText(const std::vector<Assumption>& assumed) {
  if (assumed.empty())
    return "";
  std::string s = "Assumed (not given; set them to change the answer):\n";
  for (const Assumption& a : assumed)
    s += "  " + a.field + " = " + a.value + ": " + a.why + "\n";
  return s;
}

nlohmann::json ExplainJson(const std::string& instance, const planner::Plan& overall,
                           const planner::Plan& mine, const Workload* w) {
  nlohmann::json j = {{"instance", instance},
                      {"candidates", nlohmann::json::array()},
                      {"rejected", nlohmann::json::array()},
                      {"assumptions", AssumptionsJson(mine.assumptions)}};
  for (const auto& c : mine.candidates)
    j["candidates"].push_back(CandidateJson(c));
  for (const auto& r : mine.rejected)
    j["rejected"].push_back({{"instance", r.instance}, {"reason", r.reason}});
  if (!overall.candidates.empty())
    j["winner"] = CandidateJson(overall.candidates[0]);
  if (w != nullptr && !overall.candidates.empty() && !mine.candidates.empty()) {
    if (std::string why = planner::WhyRanksBelow(*w, overall.candidates[0], mine.candidates[0]);
        !why.empty())
      j["why_not_first"] = why;
  }
  return j;
}

nlohmann::json PlanJson(const Workload& w, const planner::Plan& plan) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& c : plan.candidates)
    candidates.push_back(CandidateJson(c));
  nlohmann::json pareto = nlohmann::json::array();
  for (const auto& c : plan.pareto) {
    pareto.push_back(
        {{"instance", c.instance},
         {"nodes", c.nodes},
         {"billing", cost::ModeName(c.billing)},
         {"price_stale", planner::PriceUsed(c) && planner::PriceStale(*planner::PriceUsed(c))},
         {"region", c.region},
         {"job_hours", c.job_hours},
         {"cost", MoneyValue(c)},
         {"currency", CurrencyName(c.cost.total.currency())}});
  }
  nlohmann::json rejected = nlohmann::json::array();
  for (const auto& r : plan.rejected)
    rejected.push_back({{"instance", r.instance}, {"reason", r.reason}});
  nlohmann::json out = {
      {"workload",
       {{"task", TaskName(w.task)},
        {"method", MethodName(w.method)},
        {"model", w.model_name},
        {"precision", PrecisionName(w.precision)},
        {"seq_len", w.seq_len},
        {"global_batch", w.global_batch},
        {"objective", ObjectiveName(w.objective)}}},
      {"candidates", candidates},
      {"pareto", pareto},
      {"rejected", rejected},
      {"evaluated", plan.evaluated},
      {"prices_as_of",
       plan.prices_as_of.empty() ? nlohmann::json(nullptr) : nlohmann::json(plan.prices_as_of)},
      {"notes", plan.notes},
      {"assumptions", AssumptionsJson(plan.assumptions)}};
  if (w.task == Task::kInference) {
    // The targets the serving search was held to (null = none), and which are defaults.
    const planner::LatencyTargets& t = plan.latency;
    auto ms = [](const std::optional<double>& v) {
      return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    out["latency"] = {{"mode", LatencyModeName(t.mode)},
                      {"ttft_ms", ms(t.ttft_ms)},
                      {"tpot_ms", ms(t.tpot_ms)},
                      {"ttft_default", t.ttft_default},
                      {"tpot_default", t.tpot_default}};
  }
  return out;
}

nlohmann::json PlanJson(const Workload& w, const planner::Plan& plan, const ModelArch& arch) {
  nlohmann::json j = PlanJson(w, plan);
  if (arch.Params() > 0)
    j["model"] = ModelJson(arch);
  return j;
}

std::string PlanText(const Workload& w, const planner::Plan& plan) {
  std::string s =
      "Plan for " + Describe(w) + ", objective " + std::string(ObjectiveName(w.objective)) + "\n\n";
  if (std::string assumed = AssumedText(plan.assumptions); !assumed.empty())
    s += assumed + "\n";
  if (plan.candidates.empty()) {
    s += "No instance type can run this workload under its constraints. Reasons:\n";
  } else {
    const bool modelled = w.task != Task::kRendering && w.task != Task::kHpc;
    const bool inference = w.task == Task::kInference;
    Table t{{"#", "instance", inference ? "instances" : "nodes", "gpus", "region", "billing",
             inference ? "copies" : "layout", "mem_gib", "hours", "cost"},
            {}};
    int rank = 1;
    for (const auto& c : plan.candidates) {
      t.rows.push_back({std::to_string(rank++), c.instance, std::to_string(c.nodes),
                        std::to_string(c.gpus), c.region.empty() ? "any" : c.region, BillingCell(c),
                        !modelled   ? "-"
                        : inference ? CopiesText(c)
                                    : LayoutText(c.layout, c.framework),
                        modelled ? Num(c.estimate.memory.per_gpu_gib) : "-",
                        HoursCell(c, Hours(c.job_hours)),
                        c.price_known ? CostCell(c, CostText(c)) : CostText(c)});
    }
    s += RenderAligned(t);
    const auto& best = plan.candidates[0];
    s += "\nWhy: " + best.why + "\n" + RangeSummary(best) + "\n";
    if (best.fleet)
      s += FleetText(best);
    if (modelled) {
      s += "Memory per GPU (GiB):";
      for (const auto& [name, gib] : best.estimate.memory.breakdown.Named()) {
        if (gib > 0.005)
          s += fmt::format(" {} {}", name, Num(gib));
      }
      s += fmt::format(" = {} of {}\n", Num(best.estimate.memory.per_gpu_gib),
                       Num(best.estimate.memory.capacity_gib));
    }
    if (best.estimate.time.step_s > 0) {
      s += fmt::format("Step time (s):");
      for (const auto& [name, sec] : best.estimate.time.breakdown.Named()) {
        if (sec > 0.0005)
          s += fmt::format(" {} {}", name, Num(sec));
      }
      s += fmt::format(" = {}; {} tokens/s per GPU, MFU {}%\n", Num(best.estimate.time.step_s),
                       Num(best.estimate.throughput.tokens_per_s_per_gpu),
                       Num(best.estimate.throughput.mfu * 100));
    }
    s += "Cost: ";
    if (!best.price_known)
      s += best.price_hint;
    for (size_t i = 0; i < best.cost.notes.size(); ++i)
      s += (i ? "; " : "") + best.cost.notes[i];
    if (const cost::PriceQuote* q = planner::PriceUsed(best)) {
      s += fmt::format(
          "\nPrice: {} {} per {}, {}, as of {}{}", CurrencyName(q->price.currency()),
          Num(q->price.amount()), q->unit, planner::PriceTrust(*q),
          q->as_of.empty() ? "unknown" : q->as_of,
          planner::PriceStale(*q) ? fmt::format(" (stale: {} days old)", *q->age_days) : "");
    }
    s += "\nStorage: " + best.storage.kind + " " + Num(best.storage.size_gib) +
         " GiB: " + best.storage.why + "\n";
    s += "Image: " + best.image.os + "; driver " + best.image.driver + ", CUDA " + best.image.cuda +
         ", " + best.image.framework + "\n";
    if (!best.advice.empty()) {
      s += "\nAdvice:\n";
      for (const auto& a : best.advice) {
        s += fmt::format("  [{}] {}: {}\n", rules::SeverityName(a.severity), a.rule, a.message);
      }
    }
    if (plan.pareto.size() > 1) {
      s += "\nTime vs cost (Pareto front):\n";
      for (const auto& c : plan.pareto) {
        s += fmt::format("  {} x {} {}: {} h, {}\n", c.nodes, c.instance, cost::ModeName(c.billing),
                         Hours(c.job_hours), CostText(c));
      }
    }
    s += "\nRejected:\n";
  }
  for (const auto& [reason, types] : GroupRejections(plan))
    s += "  " + types + ": " + reason + "\n";
  for (const auto& n : plan.notes)
    s += "Note: " + n + "\n";
  return s;
}

std::string PlanMarkdown(const Workload& w, const planner::Plan& plan) {
  std::string s = "# GPU plan\n\n" + Describe(w) + ", objective " +
                  std::string(ObjectiveName(w.objective)) + ".\n\n";
  if (!plan.assumptions.empty()) {
    s += "## Assumed\n\n";
    for (const Assumption& a : plan.assumptions)
      s += "- `" + a.field + ": " + a.value + "`: " + a.why + "\n";
    s += "\n";
  }
  if (!plan.candidates.empty()) {
    const auto& best = plan.candidates[0];
    s += "## Recommendation\n\n" + best.why + "\n\n";
    if (best.fleet)
      s += FleetText(best) + "\n";
    if (std::string range = RangeSummary(best); !range.empty())
      s += range + "\n";
    const bool inference = w.task == Task::kInference;
    s += fmt::format(
        "| # | instance | {} | GPUs | region | billing | {} | GiB/GPU | hours | cost |\n",
        inference ? "instances" : "nodes", inference ? "copies" : "layout");
    s += "|---|---|---|---|---|---|---|---|---|---|\n";
    int rank = 1;
    for (const auto& c : plan.candidates) {
      s += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", rank++, c.instance,
                       c.nodes, c.gpus, c.region.empty() ? "any" : c.region, BillingCell(c),
                       inference ? CopiesText(c) : LayoutText(c.layout, c.framework),
                       Num(c.estimate.memory.per_gpu_gib), HoursCell(c, Hours(c.job_hours)),
                       c.price_known ? CostCell(c, CostText(c)) : CostText(c));
    }
    s += "\n## Storage and image\n\n";
    s += "- Storage: " + best.storage.kind + ", " + Num(best.storage.size_gib) + " GiB. " +
         best.storage.why + "\n";
    s += "- Image: " + best.image.os + "; NVIDIA driver " + best.image.driver + ", CUDA " +
         best.image.cuda + ", " + best.image.framework + ". " + best.image.why + "\n";
    s += "\n## Advice\n\n";
    for (const auto& a : best.advice) {
      s += fmt::format("- **{}** ({}): {}\n", a.rule, rules::SeverityName(a.severity), a.message);
    }
  } else {
    s += "No instance type can run this workload under its constraints.\n";
  }
  s += "\n## Rejected\n\n";
  for (const auto& [reason, types] : GroupRejections(plan))
    s += "- " + types + ": " + reason + "\n";
  if (!plan.notes.empty()) {
    s += "\n## Notes\n\n";
    for (const auto& n : plan.notes)
      s += "- " + n + "\n";
  }
  return s;
}

}  // namespace gpuplan::io
