// Time for the agent: a Clock interface so the monitor and the spot watcher can run on a fake
// clock in tests (no real sleeps), and SystemClock, the real one.
//
//   SystemClock clock;
//   double t0 = clock.MonotonicSeconds();
//   clock.SleepFor(0.5);
//
// Thread safety: SystemClock is stateless and thread-safe; fakes need not be.
#ifndef GPUPLAN_SRC_AGENT_CLOCK_H_
#define GPUPLAN_SRC_AGENT_CLOCK_H_

#include <string>

namespace gpuplan::agent {

class Clock {
 public:
  virtual ~Clock() = default;
  // Seconds on a clock that never jumps (intervals, deadlines).
  virtual double MonotonicSeconds() = 0;
  // Seconds since 1970-01-01T00:00:00Z (compared with the spot termination time).
  virtual double UnixSeconds() = 0;
  // Blocks for `seconds` (<= 0 returns at once). May return early when a signal arrives.
  virtual void SleepFor(double seconds) = 0;
};

class SystemClock : public Clock {
 public:
  double MonotonicSeconds() override;
  double UnixSeconds() override;
  void SleepFor(double seconds) override;
};

// "2026-11-30T14:08:56Z" (whole seconds, UTC) for logs.
std::string FormatUtc(double unix_seconds);

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_CLOCK_H_
