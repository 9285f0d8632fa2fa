#include "agent/process_util.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "agent/clock.h"
#include "io/file_util.h"

namespace gpuplan::agent {
namespace {

struct SignalRow {
  const char* name;
  int number;
};
constexpr SignalRow kSignals[] = {
    {"SIGHUP", SIGHUP},   {"SIGINT", SIGINT},   {"SIGQUIT", SIGQUIT},   {"SIGKILL", SIGKILL},
    {"SIGUSR1", SIGUSR1}, {"SIGUSR2", SIGUSR2}, {"SIGTERM", SIGTERM},   {"SIGCONT", SIGCONT},
    {"SIGSTOP", SIGSTOP}, {"SIGALRM", SIGALRM}, {"SIGWINCH", SIGWINCH}, {"SIGPWR", SIGPWR},
};

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& ch : out) {
    if (ch >= 'a' && ch <= 'z')
      ch = static_cast<char>(ch - 'a' + 'A');
  }
  return out;
}

// True when `name` (a path, or a name looked up in $PATH as execvp does) is executable.
bool FindExecutable(const std::string& name) {
  if (name.find('/') != std::string::npos)
    return access(name.c_str(), X_OK) == 0;
  const char* path = getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    const std::string candidate = fmt::format("{}/{}", dir.empty() ? "." : dir, name);
    if (access(candidate.c_str(), X_OK) == 0)
      return true;
    if (colon == std::string_view::npos)
      return false;
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace

std::optional<int> ParseSignal(std::string_view name) {
  int number = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
  if (!name.empty() && ec == std::errc() && end == name.data() + name.size()) {
    if (number >= 1 && number <= 64)
      return number;
    return std::nullopt;
  }
  std::string upper = Upper(name);
  if (upper.rfind("SIG", 0) != 0)
    upper = "SIG" + upper;
  for (const SignalRow& row : kSignals) {
    if (upper == row.name)
      return row.number;
  }
  return std::nullopt;
}

std::string SignalName(int signal) {
  for (const SignalRow& row : kSignals) {
    if (row.number == signal)
      return row.name;
  }
  return fmt::format("signal {}", signal);
}

ProcessState CheckProcess(pid_t pid, const std::string& proc_root) {
  if (pid <= 0)
    return ProcessState::kGone;
  if (kill(pid, 0) != 0) {
    return errno == EPERM ? ProcessState::kNotPermitted : ProcessState::kGone;
  }
  // kill() succeeds on a zombie; /proc/PID/stat's state field (after the ")" that closes the
  // command name, proc(5)) says 'Z' for one. A missing file (another PID namespace) is not proof
  // of death, so only a readable 'Z' counts.
  Result<std::string> stat = io::ReadFile(fmt::format("{}/{}/stat", proc_root, pid));
  if (stat.ok()) {
    const size_t paren = stat->rfind(')');
    if (paren != std::string::npos && paren + 2 < stat->size() && (*stat)[paren + 2] == 'Z') {
      return ProcessState::kGone;
    }
  }
  return ProcessState::kRunning;
}

Result<pid_t> Spawn(const std::vector<std::string>& argv, bool new_process_group) {
  if (argv.empty() || argv[0].empty())
    return Status::InvalidArgument("no command to run");
  if (!FindExecutable(argv[0])) {
    return Status::NotFound(
        fmt::format("cannot start \"{}\": command not found or not executable", argv[0]));
  }
  // Build the C argv before fork(): the child of a threaded process may only call
  // async-signal-safe functions.
  std::vector<char*> cargv;
  cargv.reserve(argv.size() + 1);
  for (const std::string& a : argv)
    cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    return Status::IoError(
        fmt::format("cannot start \"{}\": fork: {}", argv[0], std::strerror(errno)));
  }
  if (pid == 0) {
    if (new_process_group)
      setpgid(0, 0);
    execvp(cargv[0], cargv.data());
    _exit(127);
  }
  if (new_process_group)
    setpgid(pid, pid);  // also from the parent, so a kill of the group works before exec
  return pid;
}

Result<pid_t> SpawnShell(const std::string& command) { return Spawn({"/bin/sh", "-c", command}); }

int ExitCodeFromWaitStatus(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return 1;
}

std::optional<WaitOutcome> PollChild(pid_t pid) {
  int status = 0;
  const pid_t r = waitpid(pid, &status, WNOHANG);
  if (r == 0)
    return std::nullopt;
  WaitOutcome out;
  out.finished = true;
  out.exit_code = r == pid ? ExitCodeFromWaitStatus(status) : 1;  // r < 0: already reaped
  return out;
}

WaitOutcome WaitForChild(pid_t pid, double deadline, double grace_seconds, Clock& clock) {
  double step = 0.01;
  while (true) {
    if (std::optional<WaitOutcome> done = PollChild(pid))
      return *done;
    const double now = clock.MonotonicSeconds();
    if (deadline >= 0 && now >= deadline)
      break;
    double wait = step;
    if (deadline >= 0)
      wait = std::min(wait, deadline - now);
    clock.SleepFor(wait);
    step = std::min(step * 2, 0.05);
  }
  // Past the deadline: ask the whole group to stop, then insist.
  kill(-pid, SIGTERM);
  kill(pid, SIGTERM);
  const double kill_at = clock.MonotonicSeconds() + grace_seconds;
  while (clock.MonotonicSeconds() < kill_at) {
    if (std::optional<WaitOutcome> done = PollChild(pid)) {
      done->timed_out = true;
      return *done;
    }
    clock.SleepFor(0.02);
  }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  int status = 0;
  WaitOutcome out;
  out.timed_out = true;
  out.finished = waitpid(pid, &status, 0) == pid;
  out.exit_code = out.finished ? ExitCodeFromWaitStatus(status) : 137;
  return out;
}

}  // namespace gpuplan::agent
