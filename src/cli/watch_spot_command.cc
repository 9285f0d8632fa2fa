// `gpuplan watch-spot`: trigger a checkpoint when the spot instance gets its termination notice.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "agent/clock.h"
#include "agent/metadata_client.h"
#include "agent/process_util.h"
#include "agent/spot_watcher.h"
#include "agent/stop_signal.h"
#include "cli/commands.h"

namespace gpuplan::cli {
namespace {

struct WatchSpotFlags {
  std::string metadata_url = std::string(agent::kDefaultMetadataUrl);
  double interval = 5;
  double timeout = 2;
  int pid = 0;
  std::string signal = "SIGUSR1";
  std::string exec;
  double deadline_margin = 30;
  long max_polls = 0;
  bool once = false;
};

void RunWatchSpot(CliContext& ctx, const WatchSpotFlags& f, bool pid_given, bool signal_given) {
  auto usage = [&](const std::string& msg) {
    ctx.Fail(Status::InvalidArgument(msg), /*usage=*/true);
  };
  if (pid_given == !f.exec.empty()) {
    return usage("watch-spot: give exactly one of --pid PID or --exec 'COMMAND'");
  }
  if (signal_given && !pid_given)
    return usage("watch-spot: --signal goes with --pid");
  if (pid_given && f.pid <= 0)
    return usage("--pid: expected a process id greater than 0");
  if (!(f.interval >= 0.01) || f.interval > 3600) {
    return usage(fmt::format("--interval {}: expected 0.01 to 3600 seconds", f.interval));
  }
  if (!(f.deadline_margin >= 0) || f.deadline_margin > 3600) {
    return usage("--deadline-margin: expected 0 to 3600 seconds");
  }
  std::optional<int> sig = agent::ParseSignal(f.signal);
  if (!sig) {
    return usage(
        fmt::format("--signal \"{}\": expected a signal name such as SIGUSR1, USR2, "
                    "SIGTERM or a number 1-64",
                    f.signal));
  }
  agent::SystemClock clock;
  agent::MetadataOptions mo;
  mo.base_url = f.metadata_url;
  mo.timeout_seconds = f.timeout;
  auto client = agent::MetadataClient::Create(mo, &clock);
  if (!client.ok())
    return ctx.Fail(client.status(), /*usage=*/true);

  agent::SpotWatchOptions o;
  o.interval_seconds = f.interval;
  o.pid = f.pid;
  o.signal = *sig;
  o.exec = f.exec;
  o.deadline_margin_seconds = f.deadline_margin;
  o.max_polls = f.once ? 1 : f.max_polls;
  const std::atomic<bool>* stop = agent::InstallStopSignalHandlers();
  const int code = agent::WatchSpot(o, **client, clock, *ctx.err, stop);
  ctx.exit_code = static_cast<ExitCode>(code);
}

}  // namespace

void AddWatchSpotCommand(CLI::App& app, CliContext& ctx) {
  auto f = std::make_shared<WatchSpotFlags>();
  CLI::App* cmd = app.add_subcommand(
      "watch-spot",
      "Watch for the spot termination notice and trigger a checkpoint: signal --pid or run "
      "--exec. Exit codes: 0 notice handled, 1 failure, 2 usage, 3 target process gone, "
      "4 checkpoint action failed or late, 5 --max-polls reached, 6 interrupted");
  cmd->add_option("--metadata-url", f->metadata_url, "Base URL of the instance metadata service")
      ->capture_default_str();
  cmd->add_option("--interval", f->interval, "Seconds between polls")->capture_default_str();
  CLI::Option* pid = cmd->add_option("--pid", f->pid, "Process to signal on a notice");
  CLI::Option* signal =
      cmd->add_option("--signal", f->signal, "Signal sent to --pid (name or number)")
          ->capture_default_str();
  CLI::Option* exec = cmd->add_option(
      "--exec", f->exec,
      "Shell command to run on a notice; it must finish --deadline-margin seconds before the "
      "reclaim time, else it is stopped");
  pid->excludes(exec);
  signal->excludes(exec);
  cmd->add_option("--timeout", f->timeout, "Seconds to wait for each metadata request")
      ->capture_default_str();
  cmd->add_option("--deadline-margin", f->deadline_margin,
                  "Seconds before the reclaim time by which --exec must finish")
      ->capture_default_str();
  cmd->add_option("--max-polls", f->max_polls,
                  "Stop after this many polls without a notice "
                  "(exit 5); 0 = forever")
      ->capture_default_str();
  cmd->add_flag("--once", f->once, "Poll once (same as --max-polls 1)");
  cmd->callback(
      [&ctx, f, pid, signal] { RunWatchSpot(ctx, *f, pid->count() > 0, signal->count() > 0); });
}

}  // namespace gpuplan::cli
