// `gpuplan monitor`: a utilisation timeline of a training job and a bottleneck diagnosis.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "agent/clock.h"
#include "agent/gpu_telemetry.h"
#include "agent/monitor.h"
#include "agent/proc_reader.h"
#include "agent/stop_signal.h"
#include "cli/commands.h"

namespace gpuplan::cli {
namespace {

struct MonitorFlags {
  double interval = 1;
  bool json = false;
  std::string output;
  int pid = 0;
  std::string instance;
  long samples = 0;
  std::string proc_root = "/proc";
  bool no_gpu = false;
  std::vector<std::string> command;
};

void RunMonitorCommand(CliContext& ctx, const MonitorFlags& f) {
  auto usage = [&](const std::string& msg) {
    ctx.Fail(Status::InvalidArgument(msg), /*usage=*/true);
  };
  if (!(f.interval >= 0.01) || f.interval > 3600) {
    return usage(fmt::format("--interval {}: expected 0.01 to 3600 seconds", f.interval));
  }
  if (f.pid < 0)
    return usage("--pid: expected a process id greater than 0");
  if (f.pid > 0 && !f.command.empty()) {
    return usage("monitor: give --pid PID or -- COMMAND..., not both");
  }
  if (f.samples < 0)
    return usage("--samples: expected 0 (no limit) or more");
  agent::MonitorOptions o;
  o.interval_seconds = f.interval;
  o.json = f.json;
  o.pid = f.pid;
  o.command = f.command;
  o.max_samples = f.samples;
  if (const long hz = sysconf(_SC_CLK_TCK); hz > 0)
    o.ticks_per_second = static_cast<double>(hz);
  if (!f.instance.empty()) {
    Result<Catalog> catalog = LoadCliCatalog(ctx);
    if (!catalog.ok())
      return ctx.Fail(catalog.status());
    const InstanceType* t = catalog->FindInstance(f.instance);
    if (!t) {
      auto near = catalog->SuggestInstances(f.instance);
      return usage(fmt::format(
          "--instance: unknown instance type \"{}\"{}", f.instance,
          near.empty() ? "" : fmt::format("; did you mean {}?", fmt::join(near, ", "))));
    }
    o.diagnosis.network_gbps = t->network_gbps;
  }

  agent::ProcReader proc(f.proc_root);
  agent::SystemClock clock;
  std::string gpu_error = "disabled with --no-gpu";
  std::unique_ptr<agent::GpuTelemetry> gpus;
  if (!f.no_gpu)
    gpus = agent::OpenGpuTelemetry(&gpu_error);
  std::ofstream file;
  if (!f.output.empty()) {
    file.open(f.output, std::ios::out | std::ios::trunc);
    if (!file) {
      return ctx.Fail(
          Status::IoError(fmt::format("--output {}: cannot open for writing", f.output)));
    }
  }
  agent::MonitorEnvironment env;
  env.proc = &proc;
  env.gpus = gpus.get();
  env.gpus_error = gpu_error;
  env.clock = &clock;
  env.timeline = f.output.empty() ? ctx.out : &file;
  env.log = ctx.err;
  env.stop = agent::InstallStopSignalHandlers();
  agent::MonitorResult r = agent::RunMonitor(o, env);
  if (file.is_open()) {
    file.close();
    if (!file) {
      return ctx.Fail(Status::IoError(fmt::format("--output {}: write failed", f.output)));
    }
  }
  ctx.exit_code = static_cast<ExitCode>(r.exit_code);
}

}  // namespace

void AddMonitorCommand(CLI::App& app, CliContext& ctx) {
  auto f = std::make_shared<MonitorFlags>();
  CLI::App* cmd = app.add_subcommand(
      "monitor",
      "Sample GPU, CPU, memory, disk and network into a CSV/JSON-lines timeline, then diagnose "
      "the bottleneck. `gpuplan monitor -- python train.py` follows the command and exits with "
      "its exit code; --pid attaches to a running process");
  cmd->add_option("--interval", f->interval, "Seconds between samples")->capture_default_str();
  cmd->add_flag("--json", f->json,
                "JSON lines (one object per sample, then the diagnosis) "
                "instead of CSV");
  cmd->add_option("--output", f->output, "Write the timeline to FILE instead of stdout");
  cmd->add_option("--pid", f->pid, "Attach to this running process until it ends");
  cmd->add_option("--instance", f->instance,
                  "Instance type, so the diagnosis knows the network bandwidth");
  cmd->add_option("--samples", f->samples, "Stop after N samples (0 = until the command ends)")
      ->capture_default_str();
  cmd->add_option("--proc-root", f->proc_root, "Where /proc is (for tests)")->capture_default_str();
  cmd->add_flag("--no-gpu", f->no_gpu, "Do not load NVML");
  cmd->add_option("command", f->command, "Command to run and follow, after --");
  cmd->callback([&ctx, f] { RunMonitorCommand(ctx, *f); });
}

}  // namespace gpuplan::cli
