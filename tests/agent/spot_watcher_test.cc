#include "agent/spot_watcher.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

#include "agent/clock.h"
#include "agent/metadata_client.h"
#include "agent/process_util.h"
#include "testing/agent_fakes.h"
#include "testing/mock_metadata_server.h"

namespace gpuplan::agent {
namespace {

using testing::FakeClock;
using testing::MockMetadataServer;
using Mode = MockMetadataServer::Mode;

constexpr double kUnixStart = 1'800'000'000;  // FakeClock's Unix time at monotonic 0

int Exit(SpotExit e) { return static_cast<int>(e); }

struct Watch {
  int code = -1;
  std::string log;
};

// Runs the watcher against `server` on a fake clock: intervals pass without real sleeping (each
// fake sleep takes 1 ms of real time, so real child processes still progress).
Watch RunWatch(MockMetadataServer& server, SpotWatchOptions o, double timeout = 0.3,
               const std::atomic<bool>* stop = nullptr, const std::string& url = "") {
  MetadataOptions mo;
  mo.base_url = url.empty() ? server.url() : url;
  mo.timeout_seconds = timeout;
  FakeClock clock(kUnixStart - 1000, 0.001);
  auto client = MetadataClient::Create(mo, &clock);
  EXPECT_TRUE(client.ok());
  std::ostringstream log;
  Watch w;
  w.code = WatchSpot(o, **client, clock, log, stop);
  w.log = log.str();
  return w;
}

// A notice for `seconds` after the fake clock's start.
std::string NoticeIn(double seconds) { return FormatUtc(kUnixStart + seconds); }

std::string TempPath(const char* name) {
  return std::string("/tmp/gpuplan-watch-") + std::to_string(getpid()) + "-" + name;
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TEST(SpotWatcherTest, NoticeArrivingMidRunRunsTheCommand) {
  MockMetadataServer server;
  MockMetadataServer::Behaviour b;
  b.mode = Mode::kNotice;
  b.body = NoticeIn(300) + "\n";
  b.notice_after = 3;  // three 404s first
  server.Set(b);
  const std::string marker = TempPath("checkpoint");
  unlink(marker.c_str());
  SpotWatchOptions o;
  o.interval_seconds = 5;
  o.exec = "echo saved > " + marker;
  Watch w = RunWatch(server, o);
  EXPECT_EQ(w.code, Exit(SpotExit::kNoticeHandled)) << w.log;
  EXPECT_TRUE(Exists(marker));
  EXPECT_EQ(server.termination_requests(), 4);
  EXPECT_NE(w.log.find("termination notice: instance reclaim at"), std::string::npos) << w.log;
  EXPECT_NE(w.log.find("the command finished (exit 0)"), std::string::npos) << w.log;
  unlink(marker.c_str());
}

TEST(SpotWatcherTest, NoticeSignalsThePid) {
  MockMetadataServer server;
  MockMetadataServer::Behaviour b;
  b.mode = Mode::kNotice;
  b.body = NoticeIn(300);
  server.Set(b);
  Result<pid_t> child = SpawnShell("sleep 5");
  ASSERT_TRUE(child.ok());
  SpotWatchOptions o;
  o.pid = *child;
  o.signal = SIGUSR2;
  Watch w = RunWatch(server, o);
  EXPECT_EQ(w.code, Exit(SpotExit::kNoticeHandled)) << w.log;
  EXPECT_NE(w.log.find("sent SIGUSR2 to pid " + std::to_string(*child)), std::string::npos);
  SystemClock clock;
  WaitOutcome out = WaitForChild(*child, clock.MonotonicSeconds() + 2, 0.1, clock);
  EXPECT_EQ(out.exit_code, 128 + SIGUSR2);  // the signal reached it
}

TEST(SpotWatcherTest, NeverTriggersOnAnythingButANotice) {
  struct Case {
    const char* name;
    Mode mode;
    std::string body;
    int status;
    const char* want_log;
  };
  const Case kCases[] = {
      {"no_notice", Mode::kNoNotice, "", 0, "no termination notice"},
      {"html", Mode::kGarbage, "<html>maintenance</html>", 0, "ignoring a malformed reply"},
      {"local_time", Mode::kGarbage, "2026-11-30T14:08:56+08:00", 0, "not a UTC time"},
      {"empty_200", Mode::kGarbage, "", 0, "ignoring a malformed reply"},
      {"epoch", Mode::kGarbage, "1970-01-01T00:00:00Z", 0, "year out of range"},
      {"server_error", Mode::kStatus, "2026-11-30T14:08:56Z", 500, "HTTP 500"},
      {"forbidden_even_with_token", Mode::kStatus, "", 403, "HTTP 403"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    MockMetadataServer server;
    MockMetadataServer::Behaviour b;
    b.mode = c.mode;
    b.body = c.body;
    b.status = c.status;
    server.Set(b);
    const std::string marker = TempPath(c.name);
    unlink(marker.c_str());
    SpotWatchOptions o;
    o.exec = "touch " + marker;
    o.max_polls = 3;
    Watch w = RunWatch(server, o);
    EXPECT_EQ(w.code, Exit(SpotExit::kPollsExhausted)) << w.log;
    EXPECT_FALSE(Exists(marker));
    EXPECT_NE(w.log.find(c.want_log), std::string::npos) << w.log;
    EXPECT_GE(server.termination_requests(), 3);
  }
}

TEST(SpotWatcherTest, HardenedModeTokenIsUsed) {
  MockMetadataServer server;
  MockMetadataServer::Behaviour b;
  b.mode = Mode::kNotice;
  b.body = NoticeIn(300);
  b.require_token = true;
  b.notice_after = 2;
  server.Set(b);
  SpotWatchOptions o;
  o.exec = "true";
  Watch w = RunWatch(server, o);
  EXPECT_EQ(w.code, Exit(SpotExit::kNoticeHandled)) << w.log;
  EXPECT_EQ(server.token_requests(), 1);
  EXPECT_GE(server.token_uses(), 2);
}

TEST(SpotWatcherTest, SlowAndDownServicesAreRetriedNotTrusted) {
  struct Case {
    const char* name;
    bool dead;
  };
  for (const Case& c : {Case{"slow", false}, Case{"down", true}}) {
    SCOPED_TRACE(c.name);
    std::string dead_url;
    if (c.dead) {
      MockMetadataServer gone;
      dead_url = gone.url();
    }
    MockMetadataServer server;
    MockMetadataServer::Behaviour b;
    b.mode = Mode::kSlow;
    b.delay_seconds = 1;
    server.Set(b);
    SpotWatchOptions o;
    o.exec = "true";
    o.max_polls = 2;
    Watch w = RunWatch(server, o, 0.1, nullptr, dead_url);
    EXPECT_EQ(w.code, Exit(SpotExit::kPollsExhausted)) << w.log;
    EXPECT_NE(w.log.find("metadata service problem, will retry"), std::string::npos) << w.log;
    // A state repeated on every poll is logged once.
    EXPECT_EQ(w.log.find("will retry"), w.log.rfind("will retry"));
  }
}

TEST(SpotWatcherTest, CheckpointCommandFailures) {
  struct Case {
    const char* name;
    const char* command;
    double notice_in;
    const char* want_log;
  };
  const Case kCases[] = {
      {"non_zero_exit", "exit 7", 300, "the command exited with code 7"},
      // Reclaim in 40 s, 30 s margin: the command has 10 s (fake) and sleeps for longer.
      {"past_deadline", "sleep 30", 40, "still running at its deadline"},
      {"late_notice_gets_minimum_time", "sleep 30", 0, "with a 5 s deadline"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    MockMetadataServer server;
    MockMetadataServer::Behaviour b;
    b.mode = Mode::kNotice;
    b.body = NoticeIn(c.notice_in);
    server.Set(b);
    SpotWatchOptions o;
    o.exec = c.command;
    o.kill_grace_seconds = 0.5;
    Watch w = RunWatch(server, o);
    EXPECT_EQ(w.code, Exit(SpotExit::kActionFailed)) << w.log;
    EXPECT_NE(w.log.find(c.want_log), std::string::npos) << w.log;
  }
}

TEST(SpotWatcherTest, TargetProcessGoneOrNotSignalable) {
  MockMetadataServer server;
  Result<pid_t> child = SpawnShell("exit 0");
  ASSERT_TRUE(child.ok());
  SystemClock clock;
  WaitForChild(*child, -1, 0, clock);  // reaped: the PID no longer exists
  SpotWatchOptions o;
  o.pid = *child;
  Watch gone = RunWatch(server, o);
  EXPECT_EQ(gone.code, Exit(SpotExit::kTargetGone)) << gone.log;

  // A target that ends while being watched.
  Result<pid_t> brief = SpawnShell("sleep 0.05");
  ASSERT_TRUE(brief.ok());
  o.pid = *brief;
  o.interval_seconds = 0.02;
  o.max_polls = 100000;
  Watch ended = RunWatch(server, o);
  EXPECT_EQ(ended.code, Exit(SpotExit::kTargetGone)) << ended.log;
  EXPECT_NE(ended.log.find("ended before any notice"), std::string::npos) << ended.log;
  PollChild(*brief);

  if (getuid() != 0) {  // root may signal anything
    o.pid = 1;
    EXPECT_EQ(RunWatch(server, o).code, Exit(SpotExit::kFailure));
  }
}

TEST(SpotWatcherTest, StopRequestEndsTheWatch) {
  MockMetadataServer server;
  std::atomic<bool> stop{true};
  SpotWatchOptions o;
  o.exec = "true";
  Watch w = RunWatch(server, o, 0.3, &stop);
  EXPECT_EQ(w.code, Exit(SpotExit::kInterrupted));
  EXPECT_EQ(server.termination_requests(), 0);
}

}  // namespace
}  // namespace gpuplan::agent
