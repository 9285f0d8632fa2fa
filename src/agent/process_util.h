// Processes for the agent: signal names, whether a PID is still alive, starting a command and
// waiting for it with a deadline.
//
// Thread safety: the functions are thread-safe; a spawned child must be waited for by one thread.
#ifndef GPUPLAN_SRC_AGENT_PROCESS_UTIL_H_
#define GPUPLAN_SRC_AGENT_PROCESS_UTIL_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/status.h"

namespace gpuplan::agent {

class Clock;

// "SIGUSR1", "USR1", "usr1" and "10" all give SIGUSR1. nullopt for unknown names and numbers
// outside 1-64.
std::optional<int> ParseSignal(std::string_view name);
// "SIGUSR1" for SIGUSR1; "signal N" for others.
std::string SignalName(int signal);

enum class ProcessState {
  kRunning,       // exists and is not a zombie
  kGone,          // no such process, or a zombie waiting to be reaped
  kNotPermitted,  // exists, but this user may not signal it
};
// Looks at `pid` with kill(pid, 0) and, for the zombie check, `proc_root`/PID/stat.
ProcessState CheckProcess(pid_t pid, const std::string& proc_root = "/proc");

// Starts `argv` (argv[0] looked up in PATH), in its own process group when `new_process_group`
// (so a deadline kill reaches its children; a followed command stays in the caller's group so
// Ctrl-C reaches it too). Returns the child's PID;
// kNotFound when argv[0] is not an executable, kIoError when fork fails. A later exec failure
// shows as exit code 127, as in a shell.
Result<pid_t> Spawn(const std::vector<std::string>& argv, bool new_process_group = true);
// Spawn({"/bin/sh", "-c", command}).
Result<pid_t> SpawnShell(const std::string& command);

struct WaitOutcome {
  bool finished = false;   // the child ended (by itself or after being killed)
  bool timed_out = false;  // the deadline passed; the child was sent SIGTERM, then SIGKILL
  int exit_code = 0;       // its exit status, or 128 + signal number when a signal ended it
};
// Waits for child `pid` until `deadline` (Clock::MonotonicSeconds), polling every 10-50 ms.
// When the deadline passes it sends SIGTERM to the child's process group, waits up to
// `grace_seconds`, then sends SIGKILL, and reaps it. A negative deadline waits forever.
WaitOutcome WaitForChild(pid_t pid, double deadline, double grace_seconds, Clock& clock);

// Waits without blocking: the outcome when `pid` has ended, nullopt while it runs.
std::optional<WaitOutcome> PollChild(pid_t pid);

// Shell-style exit code of a waitpid() status: the code, or 128 + signal.
int ExitCodeFromWaitStatus(int status);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_PROCESS_UTIL_H_
