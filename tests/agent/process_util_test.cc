#include "agent/process_util.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include "agent/clock.h"

namespace gpuplan::agent {
namespace {

TEST(ProcessUtilTest, ParseSignal) {
  struct Case {
    const char* name;
    std::optional<int> want;
  };
  const Case kCases[] = {
      {"SIGUSR1", SIGUSR1},     {"USR1", SIGUSR1},    {"usr2", SIGUSR2},
      {"sigterm", SIGTERM},     {"10", 10},           {"64", 64},
      {"0", std::nullopt},      {"65", std::nullopt}, {"", std::nullopt},
      {"SIGFOO", std::nullopt}, {"-9", std::nullopt},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(ParseSignal(c.name), c.want);
  }
  EXPECT_EQ(SignalName(SIGUSR1), "SIGUSR1");
  EXPECT_EQ(SignalName(40), "signal 40");
}

TEST(ProcessUtilTest, ChildrenExitCodesAndDeadlines) {
  struct Case {
    const char* name;
    const char* command;
    double deadline_s;  // < 0: none
    int want_exit;
    bool want_timed_out;
  };
  const Case kCases[] = {
      {"success", "exit 0", -1, 0, false},
      {"failure", "exit 7", -1, 7, false},
      {"killed_by_signal", "kill -USR2 $$", -1, 128 + SIGUSR2, false},
      {"too_slow", "sleep 5", 0.1, 128 + SIGTERM, true},
      {"ignores_sigterm", "trap '' TERM; sleep 5", 0.1, 128 + SIGKILL, true},
  };
  SystemClock clock;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<pid_t> pid = SpawnShell(c.command);
    ASSERT_TRUE(pid.ok()) << pid.status().message();
    const double deadline = c.deadline_s < 0 ? -1 : clock.MonotonicSeconds() + c.deadline_s;
    WaitOutcome w = WaitForChild(*pid, deadline, 0.2, clock);
    EXPECT_TRUE(w.finished);
    EXPECT_EQ(w.exit_code, c.want_exit);
    EXPECT_EQ(w.timed_out, c.want_timed_out);
  }
}

TEST(ProcessUtilTest, MissingCommandIsNotFound) {
  Result<pid_t> pid = Spawn({"gpuplan-no-such-command-xyz"});
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(pid.status().message().find("command not found"), std::string::npos);
  EXPECT_FALSE(Spawn({}).ok());
}

TEST(ProcessUtilTest, CheckProcessSeesLiveZombieAndGone) {
  EXPECT_EQ(CheckProcess(getpid()), ProcessState::kRunning);
  EXPECT_EQ(CheckProcess(0), ProcessState::kGone);
  Result<pid_t> pid = SpawnShell("exit 0");
  ASSERT_TRUE(pid.ok());
  // Unreaped, the child is a zombie: kill(pid, 0) succeeds but it is gone.
  SystemClock clock;
  const double until = clock.MonotonicSeconds() + 2;
  while (CheckProcess(*pid) == ProcessState::kRunning && clock.MonotonicSeconds() < until) {
    clock.SleepFor(0.005);
  }
  EXPECT_EQ(CheckProcess(*pid), ProcessState::kGone);
  ASSERT_TRUE(PollChild(*pid));
  EXPECT_EQ(CheckProcess(*pid), ProcessState::kGone);
}

}  // namespace
}  // namespace gpuplan::agent
