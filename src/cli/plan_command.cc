// `gpuplan plan [WORKLOAD.yaml] [workload flags]` and `gpuplan explain TYPE [WORKLOAD.yaml]
// [workload flags]`: the main job.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/commands.h"
#include "cli/plan_inputs.h"
#include "gpuplan/plan.h"
#include "gpuplan/strings.h"
#include "io/estimate_request.h"
#include "io/plan_render.h"
#include "io/range_render.h"

namespace gpuplan::cli {
namespace {

struct PlanFlags {
  PlanSource source;
  std::string instance;  // explain only
  int top = 10;
  bool json = false;
  bool markdown = false;
};

void RunPlan(CliContext& ctx, const PlanFlags& f) {
  std::optional<PlanInputs> in = LoadPlanInputs(ctx, f.source);
  if (!in)
    return;
  planner::PlanOptions options = CliPlanOptions(ctx);
  options.top_n = f.top;
  Result<planner::Plan> plan =
      planner::MakePlan(in->workload, in->arch, in->catalog, in->calibration, options);
  if (!plan.ok()) {
    return ctx.Fail(WithWorkloadContext(plan.status(), f.source));
  }
  if (f.json) {
    *ctx.out << io::PlanJson(in->workload, *plan, in->arch).dump(2) << "\n";
  } else if (f.markdown) {
    *ctx.out << io::PlanMarkdown(in->workload, *plan);
  } else {
    *ctx.out << io::PlanText(in->workload, *plan);
  }
}

void RunExplain(CliContext& ctx, const PlanFlags& f) {
  std::optional<PlanInputs> in = LoadPlanInputs(ctx, f.source);
  if (!in)
    return;
  const InstanceType* type = in->catalog.FindInstance(f.instance);
  if (!type) {
    return ctx.Fail(
        Status::NotFound(fmt::format("unknown instance type \"{}\"; did you mean {}?", f.instance,
                                     fmt::join(in->catalog.SuggestInstances(f.instance), ", "))));
  }
  planner::PlanOptions options = CliPlanOptions(ctx);
  Result<planner::Plan> overall =
      planner::MakePlan(in->workload, in->arch, in->catalog, in->calibration, options);
  options.only_instance = type->name;
  options.top_n = 100;
  Result<planner::Plan> mine =
      planner::MakePlan(in->workload, in->arch, in->catalog, in->calibration, options);
  if (!overall.ok() || !mine.ok())
    return ctx.Fail((overall.ok() ? mine.status() : overall.status()));
  if (f.json) {
    *ctx.out << io::ExplainJson(type->name, *overall, *mine, &in->workload).dump(2) << "\n";
    return;
  }
  std::string s = io::AssumedText(mine->assumptions);
  if (mine->candidates.empty()) {
    s += fmt::format("{} cannot run this workload: {}\n", type->name,
                     mine->rejected.empty() ? "no reason recorded" : mine->rejected[0].reason);
    // A whole-catalog reason ("*": every vendor excluded) comes with the notes on what else exists.
    if (!mine->rejected.empty() && mine->rejected[0].instance == "*") {
      for (const std::string& n : mine->notes)
        s += "Note: " + n + "\n";
    }
  } else {
    const auto& c = mine->candidates[0];
    s += fmt::format("{} can run it: best as {} node(s), {}, {}\n", type->name, c.nodes,
                     c.price_known ? cost::ModeName(c.billing) : "price unknown",
                     c.why.empty() ? "" : c.why);
    s += fmt::format(
        "  memory {} of {} GiB per GPU; {} h; {}\n", strings::Num(c.estimate.memory.per_gpu_gib),
        strings::Num(c.estimate.memory.capacity_gib), io::HoursCell(c, strings::Num(c.job_hours)),
        c.price_known ? io::CostCell(c, c.cost.total.ToString())
                      : "cost unknown (" + c.price_hint + ")");
    if (std::string range = io::RangeSummary(c); !range.empty())
      s += "  " + range;
    for (const auto& a : c.advice) {
      s += fmt::format("  [{}] {}: {}\n", rules::SeverityName(a.severity), a.rule, a.message);
    }
  }
  if (!overall->candidates.empty()) {
    const auto& w = overall->candidates[0];
    if (w.instance == type->name) {
      s += "It is the plan's first choice.\n";
    } else {
      s += fmt::format("The plan's first choice is {} x {} {} ({} h, {}).\n", w.nodes, w.instance,
                       w.price_known ? cost::ModeName(w.billing) : "unpriced",
                       io::HoursCell(w, strings::Num(w.job_hours)),
                       w.price_known ? io::CostCell(w, w.cost.total.ToString()) : "cost unknown");
      bool ranked = false;
      for (size_t i = 0; i < overall->candidates.size(); ++i) {
        const planner::Candidate& c = overall->candidates[i];
        if (c.instance != type->name)
          continue;
        s += fmt::format("{} ranks #{} of the top {}", type->name, i + 1,
                         overall->candidates.size());
        // Only its best way is explained: the others lose to it as well.
        if (std::string why = planner::WhyRanksBelow(in->workload, w, c); !why.empty() && !ranked)
          s += fmt::format(" ({} x {} {}): {}", c.nodes, c.instance,
                           c.price_known ? cost::ModeName(c.billing) : "unpriced", why);
        s += ".\n";
        ranked = true;
      }
      if (!ranked && !mine->candidates.empty()) {
        if (std::string why = planner::WhyRanksBelow(in->workload, w, mine->candidates[0]);
            !why.empty())
          s += fmt::format("Its best ranks below the plan's first choice: {}.\n", why);
      }
    }
  }
  *ctx.out << s;
}

}  // namespace

void AddPlanCommand(CLI::App& app, CliContext& ctx) {
  auto flags = std::make_shared<PlanFlags>();
  CLI::App* plan = app.add_subcommand(
      "plan", "Recommend instances for a workload: what to rent, how many, billed how, and why");
  AddPlanSourceFlags(plan, &flags->source);
  plan->add_option("--top", flags->top, "Candidates to show (default 10)")
      ->check(CLI::Range(1, 1000));
  auto* json = plan->add_flag("--json", flags->json, "Print the full plan as JSON");
  plan->add_flag("--markdown", flags->markdown, "Print a Markdown report")->excludes(json);
  plan->callback([&ctx, flags] { RunPlan(ctx, *flags); });

  auto eflags = std::make_shared<PlanFlags>();
  CLI::App* explain = app.add_subcommand("explain", "Why (not) this instance type for a workload?");
  explain->add_option("type", eflags->instance, "Instance type, e.g. ecs.gn7i-c8g1.2xlarge")
      ->required();
  AddPlanSourceFlags(explain, &eflags->source);
  explain->add_flag("--json", eflags->json, "Print JSON");
  explain->callback([&ctx, eflags] { RunExplain(ctx, *eflags); });
}

}  // namespace gpuplan::cli
