// `gpuplan estimate [WORKLOAD.yaml] [workload flags] (--gpu NAME --gpus N | --instance TYPE
// [--nodes K]) [layout flags] [--json]`: memory, time and throughput of one job on one choice of
// hardware and layout, with breakdowns.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>

#include "agent/probe_calibration.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/workload_flags.h"
#include "gpuplan/defaults.h"
#include "gpuplan/estimate.h"
#include "gpuplan/strings.h"
#include "gpuplan/workload.h"
#include "io/calibration_csv.h"
#include "io/estimate_request.h"
#include "io/model_list_json.h"
#include "io/model_zoo.h"
#include "io/plan_render.h"
#include "io/range_render.h"
#include "io/table.h"
#include "io/uncertainty_csv.h"

namespace gpuplan::cli {
namespace {

using strings::Num;

struct EstimateOptions {
  std::string workload_file;
  WorkloadFlags workload;  // override the file's fields
  io::HardwareChoice
      hardware;  // --gpu --gpus --gpus-per-node | --instance --nodes; --inter-node-gbps
  std::string probe_calibration;  // --probe-calibration FILE from `gpuplan probe --save`
  io::LayoutChoice layout;        // --tp --pp --dp --zero --sequence-parallel
  bool offload = false;
  bool list_models = false;
  OutputFormat format = OutputFormat::kTable;
};

// The fit verdict; when the layout fits only at the point estimate (not with the model's memory
// error at the workload's memory confidence) it says so, since the user may accept that risk.
std::string FitText(const Workload& w, const perf::Estimate& e) {
  const perf::Estimate::Memory& m = e.memory;
  if (m.fits)
    return "fits\n\n";
  const bool host_ok = m.host_capacity_gib <= 0 || m.host_gib <= m.host_capacity_gib;
  if (host_ok && m.per_gpu_gib <= m.capacity_gib && m.checked_gib > m.capacity_gib) {
    return fmt::format(
        "DOES NOT FIT at p{:.0f}: {} GiB per GPU with the model's memory error ({}, "
        "data/uncertainty.csv) passes the {} GiB usable; it fits at the point estimate, so a "
        "lower --memory-confidence (now {}) accepts the risk of an OOM; or reduce micro-batch, "
        "add recompute, ZeRO or GPUs\n\n",
        w.memory_confidence * 100, Num(m.checked_gib),
        uncertainty::ErrorPercent(m.checked_gib / m.per_gpu_gib), Num(m.capacity_gib),
        Num(w.memory_confidence));
  }
  return "DOES NOT FIT: reduce micro-batch, add recompute, ZeRO or GPUs\n\n";
}

std::string EstimateText(const Workload& w, const ModelArch& arch, const perf::Hardware& hw,
                         const perf::Layout& l, const perf::Estimate& e) {
  // A served model's run is its request shape and batch; a trained one's its sequences.
  const int batch = w.inference.batch.value_or(l.micro_batch);
  const std::string shape =
      w.IsTraining() ? fmt::format("seq {}, global batch {}", w.seq_len, w.global_batch)
      : arch.IsTransformer()
          ? fmt::format("{} prompt + {} output tokens, batch {}", w.inference.prompt_tokens,
                        w.inference.output_tokens, batch)
          : fmt::format("batch {}", batch);
  std::string s = fmt::format("{}{} of {} ({:.2f}B params), {}, {}\n", TaskName(w.task),
                              w.IsTraining() ? " " + std::string(MethodName(w.method)) : "",
                              arch.name, arch.Params() / 1e9, w.PrecisionText(), shape);
  s += fmt::format(
      "on {} x {} ({} node(s) of {}, {}{})\n", hw.Gpus(), hw.gpu->name, hw.nodes, hw.gpus_per_node,
      hw.gpus_per_node > 1
          ? fmt::format("{} {} GB/s", perf::LinkKindName(hw.intra_link), Num(hw.intra_gbs))
          : "single GPU per node",
      hw.nodes > 1 ? fmt::format(", {} Gbit/s {} between nodes", Num(hw.inter_node_gbps),
                                 hw.rdma ? "RDMA" : "TCP")
                   : "");
  const Framework* f = FrameworkFor(w.frameworks, l);
  s += fmt::format(
      "layout: {} x {} accumulation{}{}\n\n", perf::DescribeLayout(l), e.grad_accum,
      l.sequence_parallel ? ", sequence parallel" : "",
      f && w.IsTraining() ? fmt::format(", on {} (launch: {})", f->name, f->launcher) : "");
  io::Table mem{{"memory per GPU", "GiB"}, {}};
  for (const auto& [k, v] : e.memory.breakdown.Named()) {
    if (v > 0)
      mem.rows.push_back({std::string(k), fmt::format("{:.2f}", v)});
  }
  mem.rows.push_back({"total", fmt::format("{:.2f}", e.memory.per_gpu_gib)});
  mem.rows.push_back({"capacity", fmt::format("{:.2f}", e.memory.capacity_gib)});
  s += io::RenderAligned(mem);
  s += FitText(w, e);
  // A served batch's "step" is its whole life: the prefill and every decode step.
  const bool serving = e.inference.has_value();
  io::Table time{{serving ? "time per batch" : "time per step", "s", "share"}, {}};
  for (const auto& [k, v] : e.time.breakdown.Named()) {
    if (v > 0) {
      time.rows.push_back({std::string(k), fmt::format("{:.4g}", v),
                           fmt::format("{:.1f}%", 100 * v / e.time.step_s)});
    }
  }
  time.rows.push_back({serving ? "batch" : "step", fmt::format("{:.4g}", e.time.step_s), "100%"});
  s += io::RenderAligned(time);
  s += fmt::format(
      "\nthroughput: {:.0f} tokens/s per GPU, {:.1f} TFLOPS per GPU, MFU {:.1f}% of "
      "{} dense peak{}\n",
      e.throughput.tokens_per_s_per_gpu, e.throughput.tflops_per_gpu, 100 * e.throughput.mfu,
      Num(e.peak_tflops),
      e.mfu_basis.empty() ? "" : " (model FLOPs: " + std::string(e.mfu_basis) + ")");
  if (e.time.head_stage_extra >= 0.005) {
    s += fmt::format(
        "pipeline: the last stage also runs the output head and takes {:.1f}% longer per "
        "micro-batch than the others; every micro-batch waits for it\n",
        100 * e.time.head_stage_extra);
  }
  if (e.memory.host_gib > 0 && e.memory.host_capacity_gib > 0) {
    s += fmt::format("host RAM for offload: {:.1f} GiB per node of {:.1f} usable\n",
                     e.memory.host_gib, e.memory.host_capacity_gib);
  } else if (e.memory.host_gib > 0) {
    s += fmt::format(
        "host RAM for offload: {:.1f} GiB per node (not checked: the host's RAM is unknown "
        "without --instance)\n",
        e.memory.host_gib);
  }
  if (e.job.hours > 0) {
    s += fmt::format("job: {:.0f} steps, {:.2f} hours, {:.1f} GPU-hours\n", e.job.steps,
                     e.job.hours, e.job.gpu_hours);
    if (e.job.mtbf_hours > 0 && e.job.Goodput() <= 0.995) {  // as plan: only what adds 0.5%
      s += fmt::format(
          "  of which work {:.2f} h (goodput {:.1f}%): {:.1f} stops expected (one per {:.3g} h), "
          "a checkpoint every {:.3g} h taking {:.1f} min\n",
          e.job.work_hours, 100 * e.job.Goodput(), e.job.interruptions, e.job.mtbf_hours,
          e.job.checkpoint_interval_hours, e.job.checkpoint_minutes);
    }
  }
  if (e.inference) {
    const perf::InferenceTimes& it = *e.inference;
    s += fmt::format(
        "inference at batch {}: TTFT {:.1f} ms, TPOT {:.2f} ms ({}), {:.0f} output "
        "tokens/s per GPU, {:.2f} requests/s\n",
        it.batch, it.ttft_ms, it.tpot_ms, it.decode_memory_bound ? "memory-bound" : "compute-bound",
        it.tokens_per_s_per_gpu, it.requests_per_s);
    if (e.inference_floor) {
      s += fmt::format(
          "read floor (only the weights and KV cache each step needs, at the datasheet "
          "bandwidth): TTFT {:.1f} ms, TPOT {:.2f} ms; no engine beats it\n",
          e.inference_floor->ttft_ms, e.inference_floor->tpot_ms);
    }
  }
  return s;
}

void RunEstimate(CliContext& ctx, const EstimateOptions& o) {
  Result<ModelZoo> zoo = io::LoadModelZoo();
  if (!zoo.ok())
    return ctx.Fail(zoo.status());
  if (o.list_models) {
    io::Table t{{"model", "kind", "params_b", "active_b", "experts", "layers", "hidden", "heads",
                 "kv_heads", "ffn", "vocab", "source"},
                {}};
    for (const ModelArch& m : zoo->models) {
      const std::string experts = m.IsMoe() ? fmt::format("{}/{}", m.moe.top_k, m.moe.experts) : "";
      t.rows.push_back({m.name, std::string(ModelKindName(m.kind)), Num(m.Params() / 1e9),
                        Num(m.ActiveParams() / 1e9), experts, std::to_string(m.layers),
                        std::to_string(m.hidden), std::to_string(m.heads),
                        std::to_string(m.kv_heads), std::to_string(m.ffn), std::to_string(m.vocab),
                        m.source});
    }
    Emit(*ctx.out, o.format, t, io::ModelListJson(*zoo));
    return;
  }
  std::optional<Workload> w =
      LoadCliWorkload(ctx, o.workload_file, o.workload, WorkloadUse::kEstimate);
  if (!w)
    return;
  Result<ModelArch> arch = ResolveModel(*w, *zoo);
  if (!arch.ok())
    return ctx.Fail(arch.status());
  Result<Catalog> catalog = LoadCliCatalog(ctx);
  if (!catalog.ok())
    return ctx.Fail(catalog.status());
  Result<Calibration> cal = io::LoadCalibration();
  if (!cal.ok())
    return ctx.Fail(cal.status());
  // What the workload leaves unset, derived from the work as `plan` does; listed in the answer.
  std::vector<Assumption> assumed;
  *w = DeriveDefaults(*w, *arch, *cal, &assumed);
  if (Status s = ValidateWorkload(*w); !s.ok())
    return ctx.Fail(s, true);
  Result<perf::Hardware> hw = io::BuildHardware(o.hardware, *catalog, io::FieldSpelling::kFlag);
  if (!hw.ok())
    return ctx.Fail(hw.status(), true);
  if (!o.probe_calibration.empty()) {
    // Measured efficiencies of this instance replace the fitted ones for its GPU.
    Result<agent::ProbeCalibration> probe = agent::LoadCalibration(o.probe_calibration);
    if (!probe.ok())
      return ctx.Fail(probe.status());
    Result<const Gpu*> applied =
        agent::ApplyCalibration(*probe, *catalog, w->precision, &*cal, hw->gpu);
    if (!applied.ok())
      return ctx.Fail(applied.status().WithContext("--probe-calibration " + o.probe_calibration));
  }
  Result<uncertainty::Table> table = io::LoadUncertainty();
  if (!table.ok())
    return ctx.Fail(table.status());
  // Training fits at the workload's memory confidence, as in `plan` (so both pick the same layout).
  if (w->IsTraining())
    hw->memory_error_ratio = uncertainty::MemoryErrorRatio(*table, *w, *arch, *hw);
  Result<perf::Layout> layout =
      io::BuildLayout(o.layout, *w, *arch, *hw, *cal, io::FieldSpelling::kFlag);
  if (!layout.ok())
    return ctx.Fail(layout.status(), true);
  Result<perf::Estimate> e = perf::EstimateRun(*w, *arch, *hw, *layout, *cal);
  if (!e.ok())
    return ctx.Fail(e.status());
  const std::optional<planner::CandidateRanges> ranges =
      io::EstimateRanges(*table, *w, *arch, *hw, *e);
  if (o.format == OutputFormat::kJson) {
    nlohmann::json j = io::EstimateJson(*w, *arch, *hw, *layout, *e);
    if (ranges)
      io::AddEstimateRangesJson(j, *ranges, *e);
    j["assumptions"] = io::AssumptionsJson(assumed);
    j["searched"] = io::SearchedChoices(o.layout, *w, *layout);
    *ctx.out << j.dump(2) << "\n";
  } else {
    *ctx.out << EstimateText(*w, *arch, *hw, *layout, *e);
    if (const std::vector<std::string> open = io::SearchedChoices(o.layout, *w, *layout);
        !open.empty()) {
      *ctx.out << fmt::format("Searched (not given; a flag pins each, e.g. --offload none): {}\n\n",
                              fmt::join(open, ", "));
    }
    *ctx.out << io::AssumedText(assumed);
    if (ranges) {
      planner::Candidate c;
      c.estimate = *e;
      c.job_hours = e->job.hours;
      c.ranges = ranges;
      *ctx.out << io::RangeSummary(c);
    }
  }
}

}  // namespace

void AddEstimateCommand(CLI::App& app, CliContext& ctx) {
  auto o = std::make_shared<EstimateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "estimate",
      "Memory per GPU, step time, throughput and job time of one job on one hardware choice, "
      "with breakdowns");
  cmd->add_option("workload", o->workload_file, "Workload YAML file (flags override its fields)");
  AddWorkloadFlags(cmd, &o->workload);
  cmd->add_option("--confidence", o->workload.confidence,
                  "Percentile of the model's time error the job hours are read at, as plan "
                  "does (default 0.5); the memory fit uses --memory-confidence");
  // Hardware.
  cmd->add_option("--gpu", o->hardware.gpu, "GPU name (A100-80G-SXM, A10, H20 ...)");
  cmd->add_option("--gpus", o->hardware.gpus, "Total GPUs (with --gpu)");
  cmd->add_option("--gpus-per-node", o->hardware.gpus_per_node,
                  "GPUs per node (with --gpu; default 8)");
  cmd->add_option("--instance", o->hardware.instance, "Instance type, e.g. ecs.gn7e-c16g1.4xlarge");
  cmd->add_option("--nodes", o->hardware.nodes, "Number of instances (with --instance)");
  cmd->add_option("--inter-node-gbps", o->hardware.inter_node_gbps,
                  "Network between nodes, Gbit/s");
  cmd->add_option("--probe-calibration", o->probe_calibration,
                  "Calibration file from 'gpuplan probe --save': measured GEMM and memory "
                  "efficiency of this GPU replace the fitted ones");
  // Layout: the degrees to pin (the others are searched).
  const std::tuple<const char*, std::optional<int> io::LayoutChoice::*, const char*> kDegrees[] = {
      {"--tp", &io::LayoutChoice::tp, "Tensor parallel degree"},
      {"--pp", &io::LayoutChoice::pp, "Pipeline parallel degree"},
      {"--dp", &io::LayoutChoice::dp, "Data parallel degree"},
      {"--zero", &io::LayoutChoice::zero, "ZeRO stage 0-3 (3 = FSDP full shard)"},
      {"--ep", &io::LayoutChoice::ep,
       "Expert parallel degree (MoE; experts shard over ep ranks inside tp x dp)"}};
  for (const auto& [flag, degree, help] : kDegrees)
    cmd->add_option(flag, o->layout.*degree, help);
  cmd->add_flag("--sequence-parallel", o->layout.sequence_parallel,
                "Megatron sequence parallelism");
  cmd->add_flag("--list-models", o->list_models,
                "List the model zoo and exit (with --json: as JSON)");
  AddFormatFlags(cmd, &o->format, /*csv=*/false);
  cmd->callback([&ctx, o] { RunEstimate(ctx, *o); });
}

}  // namespace gpuplan::cli
