#include "agent/spot_watcher.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ostream>

#include "agent/clock.h"
#include "agent/metadata_client.h"
#include "agent/process_util.h"
#include "agent/spot_notice.h"

namespace gpuplan::agent {
namespace {

int Code(SpotExit e) { return static_cast<int>(e); }

class Logger {
 public:
  Logger(std::ostream& out, Clock& clock) : out_(out), clock_(clock) {}
  void operator()(std::string_view message) {
    out_ << FormatUtc(clock_.UnixSeconds()) << " watch-spot: " << message << "\n";
    out_.flush();
  }

 private:
  std::ostream& out_;
  Clock& clock_;
};

// Acts on a notice for reclaim at `termination` (Unix seconds).
int HandleNotice(const SpotWatchOptions& o, double termination, Clock& clock, Logger& log) {
  const double now = clock.UnixSeconds();
  log(fmt::format("termination notice: instance reclaim at {} ({:.0f} s from now)",
                  FormatUtc(termination), termination - now));
  if (o.pid > 0) {
    if (kill(o.pid, o.signal) != 0) {
      log(fmt::format("FAILED to send {} to pid {}: {}", SignalName(o.signal), o.pid,
                      std::strerror(errno)));
      return Code(SpotExit::kActionFailed);
    }
    log(fmt::format("sent {} to pid {}", SignalName(o.signal), o.pid));
    return Code(SpotExit::kNoticeHandled);
  }
  const double budget =
      std::max(termination - o.deadline_margin_seconds - now, o.min_command_seconds);
  log(fmt::format("running checkpoint command with a {:.0f} s deadline: {}", budget, o.exec));
  Result<pid_t> child = SpawnShell(o.exec);
  if (!child.ok()) {
    log("FAILED to start the command: " + child.status().message());
    return Code(SpotExit::kActionFailed);
  }
  const double start = clock.MonotonicSeconds();
  WaitOutcome w = WaitForChild(*child, start + budget, o.kill_grace_seconds, clock);
  const double took = clock.MonotonicSeconds() - start;
  if (w.timed_out) {
    log(
        fmt::format("FAILED: the command was still running at its deadline ({:.1f} s); "
                    "stopped it (exit {})",
                    took, w.exit_code));
    return Code(SpotExit::kActionFailed);
  }
  if (w.exit_code != 0) {
    log(fmt::format("FAILED: the command exited with code {} after {:.1f} s", w.exit_code, took));
    return Code(SpotExit::kActionFailed);
  }
  log(fmt::format("the command finished (exit 0) after {:.1f} s", took));
  return Code(SpotExit::kNoticeHandled);
}

}  // namespace

int WatchSpot(const SpotWatchOptions& o, MetadataClient& client, Clock& clock, std::ostream& out,
              const std::atomic<bool>* stop) {
  Logger log(out, clock);
  if (o.pid > 0) {
    switch (CheckProcess(o.pid, o.proc_root)) {
      case ProcessState::kGone:
        log(fmt::format("target pid {} does not exist", o.pid));
        return Code(SpotExit::kTargetGone);
      case ProcessState::kNotPermitted:
        log(fmt::format("not allowed to signal pid {} (run as its user or root)", o.pid));
        return Code(SpotExit::kFailure);
      case ProcessState::kRunning:
        break;
    }
  }
  log(fmt::format("watching {} every {} s; on notice: {}", kTerminationTimePath, o.interval_seconds,
                  o.pid > 0 ? fmt::format("send {} to pid {}", SignalName(o.signal), o.pid)
                            : "run: " + o.exec));
  // Only changes of the service's state are logged, so a watcher that runs for days on a
  // flaky service does not fill the disk.
  std::string last_state;
  const double start = clock.MonotonicSeconds();
  for (long poll = 0; o.max_polls <= 0 || poll < o.max_polls; ++poll) {
    if (stop && stop->load()) {
      log("stopped by a signal before any notice");
      return Code(SpotExit::kInterrupted);
    }
    if (o.pid > 0 && CheckProcess(o.pid, o.proc_root) == ProcessState::kGone) {
      log(fmt::format("target pid {} ended before any notice; nothing to do", o.pid));
      return Code(SpotExit::kTargetGone);
    }
    MetadataReply reply = client.Get(kTerminationTimePath);
    std::string state;
    std::string detail;
    if (reply.kind == MetadataReply::Kind::kOk) {
      Result<double> when = ParseTerminationTime(reply.body);
      if (when.ok())
        return HandleNotice(o, *when, clock, log);
      state = "garbage:" + reply.body.substr(0, 64);
      detail = "ignoring a malformed reply (not a notice): " + when.status().message();
    } else if (reply.kind == MetadataReply::Kind::kNotFound) {
      state = "no-notice";
      detail = "metadata service reachable; no termination notice";
    } else {
      state = std::string(MetadataReplyKindName(reply.kind)) + ":" + reply.error;
      detail = "metadata service problem, will retry: " + reply.error;
    }
    if (state != last_state) {
      log(detail);
      last_state = state;
    }
    // Polls are scheduled from the start, so slow replies do not make the interval drift.
    const double next = start + static_cast<double>(poll + 1) * o.interval_seconds;
    const bool last = o.max_polls > 0 && poll + 1 >= o.max_polls;
    while (!last && !(stop && stop->load())) {
      const double left = next - clock.MonotonicSeconds();
      if (left <= 0)
        break;
      clock.SleepFor(std::min(left, 0.5));
    }
  }
  log(fmt::format("no notice after {} polls; exiting", o.max_polls));
  return Code(SpotExit::kPollsExhausted);
}

}  // namespace gpuplan::agent
