// The spot watcher: polls the termination notice and triggers the user's checkpoint.
//
// Alibaba Cloud reclaims a spot instance about 5 minutes after publishing the notice (reference
// notes §3.2, S10/S12). The watcher polls the metadata item every `interval_seconds`; on a
// well-formed notice it either signals a process (e.g. SIGUSR1 to a trainer that checkpoints on
// it) or runs a command with a deadline before the reclaim time, logs what happened and returns.
// Slow, down or garbled metadata is logged and retried; it never triggers the action.
//
//   SpotWatchOptions o;
//   o.pid = trainer_pid;
//   int code = WatchSpot(o, *client, clock, std::cerr, &stop_flag);  // a SpotExit value
//
// Thread safety: one call per watcher; `stop` may be set from a signal handler or thread.
#ifndef GPUPLAN_SRC_AGENT_SPOT_WATCHER_H_
#define GPUPLAN_SRC_AGENT_SPOT_WATCHER_H_

#include <atomic>
#include <iosfwd>
#include <string>
#include <string_view>

namespace gpuplan::agent {

class Clock;
class MetadataClient;

inline constexpr std::string_view kTerminationTimePath =
    "/latest/meta-data/instance/spot/termination-time";

// Exit codes of `gpuplan watch-spot`, documented in docs/on-instance.md.
enum class SpotExit {
  kNoticeHandled = 0,   // a notice came; the signal was delivered or the command exited 0 in time
  kFailure = 1,         // could not start (e.g. the target cannot be signalled: permission)
  kUsage = 2,           // bad flags
  kTargetGone = 3,      // --pid: the process ended before any notice
  kActionFailed = 4,    // a notice came but the signal failed, or the command failed / ran late
  kPollsExhausted = 5,  // --max-polls polls without a notice
  kInterrupted = 6,     // the watcher itself got SIGINT or SIGTERM
};

struct SpotWatchOptions {
  // Seconds between polls. The notice comes about 5 min before reclaim, so the default 5 s loses
  // under 2% of that window while costing the link-local service one tiny GET each time.
  double interval_seconds = 5;
  // Target: a PID to signal (pid > 0) or a shell command to run (exec non-empty); exactly one.
  int pid = 0;
  int signal = 10;  // SIGUSR1 on Linux
  std::string exec;
  // The command must finish this many seconds before the reclaim time, leaving the process time
  // to flush and the instance time to stop cleanly. Default 30 s of the ~300 s window.
  double deadline_margin_seconds = 30;
  // The least time a command gets even when the notice is late or the clock is skewed.
  double min_command_seconds = 5;
  // After the deadline the command gets SIGTERM, then SIGKILL this many seconds later.
  double kill_grace_seconds = 5;
  long max_polls = 0;               // 0 = poll until a notice (for tests and one-shot checks: 1)
  std::string proc_root = "/proc";  // where the zombie check reads PID/stat
};

// Runs the watch loop; returns the exit code as an int (a SpotExit value). Logs one line per
// event to `log`: start, state changes of the service (down, garbage, back), the notice, the
// action and its outcome.
int WatchSpot(const SpotWatchOptions& options, MetadataClient& client, Clock& clock,
              std::ostream& log, const std::atomic<bool>* stop = nullptr);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_SPOT_WATCHER_H_
