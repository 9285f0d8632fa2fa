#include "io/estimate_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string_view>

#include "gpuplan/framework.h"
#include "gpuplan/layout_search.h"
#include "io/framework_csv.h"

namespace gpuplan::io {
namespace {

Status Usage(const std::string& msg) { return Status::InvalidArgument(msg); }
// A usage error about the field `name` (snake_case), recorded as the error's field.
Status Usage(std::string_view name, const std::string& msg) {
  return Status::InvalidArgument(msg).AtField(std::string(name));
}

std::string Field(FieldSpelling s, std::string_view name) { return FieldName(s, name); }

template <typename T>
std::string FieldValue(FieldSpelling s, std::string_view name, const T& value) {
  return FieldWithValue(s, name, fmt::format("{}", value));
}

// The layout the pins fix, unpinned dimensions at their plainest (1, ZeRO 0, no savers): what
// every layout the search may return has at least.
perf::Layout PinnedLayout(const perf::LayoutPins& p) {
  perf::Layout l;
  l.tp = p.tp.value_or(1);
  l.cp = p.cp.value_or(1);
  l.pp = p.pp.value_or(1);
  l.vp = p.vp.value_or(1);
  l.ep = p.ep.value_or(1);
  l.zero = p.zero.value_or(0);
  l.sequence_parallel = p.sequence_parallel.value_or(false);
  l.offload = p.offload.value_or(Offload::kNone);
  l.optimizer_in_backward = p.optimizer_in_backward.value_or(false);
  l.activation_offload = p.activation_offload.value_or(false);
  return l;
}

// An error naming the flag (or field) when none of the workload's frameworks runs what the user
// pinned: `--framework peft --cp 2` cannot be run, so it is not estimated as if it could.
Status CheckFrameworkRunsPins(const Workload& w, const perf::LayoutPins& pins, FieldSpelling s) {
  if (w.frameworks.empty())
    return Status::Ok();
  Result<FrameworkTable> table = LoadFrameworks();
  if (!table.ok())
    return table.status();
  if (std::optional<PinProblem> p = UnrunnablePins(*table, w.frameworks, w, PinnedLayout(pins)))
    return Usage(p->field, Field(s, p->field) + ": " + p->message);
  return Status::Ok();
}

// The name of the framework that runs `l`, or null (serving; a workload without frameworks).
nlohmann::json FrameworkName(const Workload& w, const perf::Layout& l) {
  const Framework* f = w.IsTraining() ? FrameworkFor(w.frameworks, l) : nullptr;
  return f ? nlohmann::json(f->name) : nlohmann::json(nullptr);
}

}  // namespace

Result<perf::Hardware> BuildHardware(const HardwareChoice& o, const Catalog& c, FieldSpelling s) {
  // `!(x > 0)` also refuses NaN, which `x <= 0` lets through (issue 32: "nan Gbit/s").
  if (o.inter_node_gbps && (!(*o.inter_node_gbps > 0) || !std::isfinite(*o.inter_node_gbps) ||
                            *o.inter_node_gbps > 1e5)) {
    return Usage("inter_node_gbps",
                 fmt::format("{}: expected a number above 0 and at most 100000 (Gbit/s), got {}",
                             Field(s, "inter_node_gbps"), *o.inter_node_gbps));
  }
  if (!o.instance.empty()) {
    if (!o.gpu.empty() || o.gpus) {
      return Usage(fmt::format("give either {} or {}/{}, not both", Field(s, "instance"),
                               Field(s, "gpu"), Field(s, "gpus")));
    }
    const InstanceType* t = c.FindInstance(o.instance);
    if (t == nullptr) {
      return Status::NotFound(fmt::format("{}: unknown instance type \"{}\"; did you mean {}?",
                                          Field(s, "instance"), o.instance,
                                          fmt::join(c.SuggestInstances(o.instance), ", ")))
          .AtField("instance");
    }
    if (o.nodes && (*o.nodes < 1 || *o.nodes > (1 << 16))) {
      return Usage("nodes", fmt::format("{} must be 1..65536", Field(s, "nodes")));
    }
    Result<perf::Hardware> hw = perf::HardwareFor(c, *t, o.nodes.value_or(1));
    if (hw.ok() && o.inter_node_gbps)
      hw->inter_node_gbps = *o.inter_node_gbps;
    return hw;
  }
  if (o.gpu.empty()) {
    return Usage(fmt::format("give {} {}, or {} [{}]", FieldValue(s, "gpu", "NAME"),
                             FieldValue(s, "gpus", "N"), FieldValue(s, "instance", "TYPE"),
                             FieldValue(s, "nodes", "K")));
  }
  const Gpu* g = c.FindGpu(o.gpu);
  if (g == nullptr) {
    return Status::NotFound(fmt::format("{}: unknown GPU \"{}\"; did you mean {}?", Field(s, "gpu"),
                                        o.gpu, fmt::join(c.SuggestGpus(o.gpu), ", ")))
        .AtField("gpu");
  }
  const int gpus = o.gpus.value_or(1);
  if (gpus < 1 || gpus > (1 << 20) ||
      (o.gpus_per_node && (*o.gpus_per_node < 1 || *o.gpus_per_node > 64))) {
    return Usage("gpus", fmt::format("{} must be 1..1048576 and {} 1..64", Field(s, "gpus"),
                                     Field(s, "gpus_per_node")));
  }
  perf::Hardware hw = perf::HardwareFor(*g, gpus, o.gpus_per_node.value_or(std::min(gpus, 8)),
                                        c.ArchitectureOf(*g));
  if (hw.Gpus() != gpus) {
    return Usage("gpus", fmt::format("{} is not a multiple of {}", FieldValue(s, "gpus", gpus),
                                     FieldValue(s, "gpus_per_node", hw.gpus_per_node)));
  }
  if (o.inter_node_gbps)
    hw.inter_node_gbps = *o.inter_node_gbps;
  return hw;
}

Result<perf::Layout> BuildLayout(const LayoutChoice& o, const Workload& w, const ModelArch& arch,
                                 const perf::Hardware& hw, const Calibration& cal,
                                 FieldSpelling s) {
  const auto out_of = [](const std::optional<int>& v, int hi) { return v && (*v < 1 || *v > hi); };
  if (out_of(o.tp, 4096) || out_of(o.pp, 4096) || out_of(o.dp, 1 << 20)) {
    return Usage("tp", fmt::format("{} and {} must be 1..4096 and {} 1..1048576", Field(s, "tp"),
                                   Field(s, "pp"), Field(s, "dp")));
  }
  if (out_of(o.ep, 1 << 20))
    return Usage("ep", fmt::format("{} must be >= 1", Field(s, "ep")));
  const long long tp = o.tp.value_or(1), pp = o.pp.value_or(1);
  if ((o.tp || o.pp) && !o.dp && hw.Gpus() % (tp * pp) != 0) {
    return Usage("tp", fmt::format("{} x {} does not divide the {} GPUs", FieldValue(s, "tp", tp),
                                   FieldValue(s, "pp", pp), hw.Gpus()));
  }
  if (o.dp && o.tp && o.pp && tp * pp * *o.dp * w.cp.value_or(1) != hw.Gpus()) {
    return Usage("tp", fmt::format("{} x {} x {} x cp {} = {} GPUs, but the hardware has {}: make "
                                   "their product the GPU count",
                                   FieldValue(s, "tp", tp), FieldValue(s, "pp", pp),
                                   FieldValue(s, "dp", *o.dp), w.cp.value_or(1),
                                   tp * pp * *o.dp * w.cp.value_or(1), hw.Gpus()));
  }
  perf::LayoutPins pins = perf::PinsFrom(w);
  // Degrees given: the unnamed ones are 1 (ZeRO 0) and dp takes the GPUs left, as a user who
  // types `--tp 2` means; only micro-batch, recomputation (and memory savers, when nothing
  // fits) are searched then. No degree given: the whole space is searched. The workload's cp
  // and virtual_stages (`--cp`, `--virtual-stages`, YAML) pin only themselves, as in `plan`
  // (PinsFrom), so both commands search the same space for the same workload.
  if (o.tp || o.pp || o.dp || o.zero || o.ep) {
    pins.tp = o.tp.value_or(1);
    pins.pp = o.pp.value_or(1);
    pins.cp = w.cp.value_or(1);
    pins.vp = w.virtual_stages.value_or(1);
    pins.zero = o.zero.value_or(0);
    pins.ep = o.ep.value_or(1);
    pins.dp = o.dp;
  }
  if (o.sequence_parallel)
    pins.sequence_parallel = true;
  if (Status st = CheckFrameworkRunsPins(w, pins, s); !st.ok())
    return st;
  const perf::LayoutSearch found = perf::SearchLayout(w, arch, hw, cal, pins);
  if (found.evaluated == 0 || (!found.ok && found.min_memory_gib == 0)) {
    return Usage(found.reason.empty() ? "no layout has the given degrees on this hardware"
                                      : found.reason);
  }
  return found.layout;
}

nlohmann::json ModelJson(const ModelArch& arch) {
  nlohmann::json j = {{"name", arch.name},
                      {"params_b", arch.Params() / 1e9},
                      {"active_params_b", arch.ActiveParams() / 1e9}};
  if (arch.IsTransformer()) {
    j["attention"] = AttentionKindName(arch.attention, arch.heads, arch.kv_heads);
    j["kv_cache_bytes_per_token"] = arch.KvCacheElements(1) * 2;  // 16-bit cache, all layers
  }
  if (arch.IsMoe()) {
    j["experts"] = arch.moe.experts;
    j["top_k"] = arch.moe.top_k;
    j["shared_experts"] = arch.moe.shared_experts;
    j["moe_layers"] = arch.MoeLayers();
  }
  return j;
}

std::vector<std::string> SearchedChoices(const LayoutChoice& choice, const Workload& w,
                                         const perf::Layout& l) {
  std::vector<std::string> out;
  auto add = [&](bool given, const char* field, const std::string& value) {
    if (!given)
      out.push_back(std::string(field) + " " + value);
  };
  add(choice.tp.has_value(), "tp", std::to_string(l.tp));
  add(choice.pp.has_value(), "pp", std::to_string(l.pp));
  add(choice.dp.has_value(), "dp", std::to_string(l.dp));
  if (!w.IsTraining()) {
    add(choice.ep.has_value(), "ep", std::to_string(l.ep));
    return out;
  }
  add(choice.zero.has_value(), "zero", std::to_string(l.zero));
  // Degrees and savers the search left at their plain value go unsaid.
  add(choice.ep.has_value() || l.ep == 1, "ep", std::to_string(l.ep));
  add(w.cp.has_value() || l.cp == 1, "cp", std::to_string(l.cp));
  add(w.virtual_stages.has_value() || l.vp == 1, "virtual_stages", std::to_string(l.vp));
  add(w.micro_batch.has_value(), "micro_batch", std::to_string(l.micro_batch));
  add(w.recompute.has_value(), "recompute", std::string(RecomputeName(l.recompute)));
  add(w.offload.has_value() || l.offload == perf::Offload::kNone, "offload",
      std::string(OffloadName(l.offload)));
  add(w.optimizer_in_backward.has_value() || !l.optimizer_in_backward, "optimizer_in_backward",
      "true");
  add(w.activation_offload.has_value() || !l.activation_offload, "activation_offload", "true");
  return out;
}

nlohmann::json EstimateJson(const Workload& w, const ModelArch& arch, const perf::Hardware& hw,
                            const perf::Layout& l, const perf::Estimate& e) {
  nlohmann::json mem_parts = nlohmann::json::object(), time_parts = nlohmann::json::object();
  for (const auto& [k, v] : e.memory.breakdown.Named())
    mem_parts[std::string(k)] = v;
  for (const auto& [k, v] : e.time.breakdown.Named())
    time_parts[std::string(k)] = v;
  nlohmann::json j = {
      {"workload",
       {{"task", TaskName(w.task)},
        {"method", MethodName(w.method)},
        {"model", arch.name},
        {"params", arch.Params()},
        {"precision", PrecisionName(w.precision)},
        {"seq_len", w.seq_len},
        {"global_batch", w.global_batch}}},
      {"model", ModelJson(arch)},
      {"hardware",
       {{"gpu", hw.gpu->name},
        {"gpus", hw.Gpus()},
        {"gpus_per_node", hw.gpus_per_node},
        {"nodes", hw.nodes},
        {"intra_link", perf::LinkKindName(hw.intra_link)},
        {"intra_gbs", hw.intra_gbs},
        {"inter_node_gbps", hw.inter_node_gbps},
        {"rdma", hw.rdma}}},
      {"layout",
       {{"tp", l.tp},
        {"cp", l.cp},
        {"pp", l.pp},
        {"vp", l.vp},
        {"dp", l.dp},
        {"ep", l.ep},
        {"zero", l.zero},
        {"offload", OffloadName(l.offload)},
        {"optimizer_in_backward", l.optimizer_in_backward},
        {"activation_offload", l.activation_offload},
        {"micro_batch", l.micro_batch},
        {"grad_accum", e.grad_accum},
        {"recompute", RecomputeName(l.recompute)},
        {"sequence_parallel", l.sequence_parallel},
        {"flash_attention", l.flash_attention},
        {"framework", FrameworkName(w, l)},
        {"attention_kernel",
         w.IsTraining() ? nlohmann::json(AttentionKernelName(AttentionKernelFor(w.frameworks, l)))
                        : nlohmann::json(nullptr)}}},
      {"memory",
       {{"per_gpu_gib", e.memory.per_gpu_gib},
        {"allocated_gib", e.memory.allocated_gib},
        {"reserved_gib", e.memory.reserved_gib},
        {"capacity_gib", e.memory.capacity_gib},
        {"host_gib", e.memory.host_gib},
        {"host_capacity_gib", e.memory.host_capacity_gib},
        {"loss_gib", e.memory.loss_gib},
        {"breakdown", mem_parts}}},
      {"fits", e.memory.fits},
      {"time",
       {{"step_s", e.time.step_s},
        {"breakdown", time_parts},
        {"head_stage_extra", e.time.head_stage_extra}}},
      {"throughput",
       {{"tokens_per_s_per_gpu", e.throughput.tokens_per_s_per_gpu},
        {"samples_per_s_per_gpu", e.throughput.samples_per_s_per_gpu},
        {"tflops_per_gpu", e.throughput.tflops_per_gpu},
        {"hardware_tflops_per_gpu", e.throughput.hardware_tflops_per_gpu},
        {"mfu", e.throughput.mfu},
        {"mfu_basis", std::string(e.mfu_basis)},
        {"peak_tflops", e.peak_tflops}}},
      {"job",
       {{"steps", e.job.steps},
        {"hours", e.job.hours},
        {"gpu_hours", e.job.gpu_hours},
        {"work_hours", e.job.work_hours},
        {"goodput", e.job.Goodput()},
        {"interruptions", e.job.interruptions},
        {"mtbf_hours", e.job.mtbf_hours},
        {"checkpoint_minutes", e.job.checkpoint_minutes},
        {"checkpoint_interval_hours", e.job.checkpoint_interval_hours}}},
  };
  if (e.inference) {
    const perf::InferenceTimes& it = *e.inference;
    j["inference"] = {{"batch", it.batch},
                      {"prefill_s", it.prefill_s},
                      {"ttft_ms", it.ttft_ms},
                      {"tpot_ms", it.tpot_ms},
                      {"decode_s", it.decode_s},
                      {"request_s", it.request_s},
                      {"tokens_per_s_per_gpu", it.tokens_per_s_per_gpu},
                      {"requests_per_s", it.requests_per_s},
                      {"decode_memory_bound", it.decode_memory_bound}};
  }
  if (e.inference_floor) {
    const perf::InferenceTimes& f = *e.inference_floor;
    j["inference_floor"] = {{"ttft_ms", f.ttft_ms},
                            {"tpot_ms", f.tpot_ms},
                            {"tokens_per_s_per_gpu", f.tokens_per_s_per_gpu}};
  }
  return j;
}

}  // namespace gpuplan::io
