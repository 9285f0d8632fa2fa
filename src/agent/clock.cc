#include "agent/clock.h"

#include <fmt/format.h>
#include <time.h>

#include <cerrno>
#include <chrono>
#include <cmath>

namespace gpuplan::agent {

double SystemClock::MonotonicSeconds() {
  using std::chrono::duration;
  return duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double SystemClock::UnixSeconds() {
  using std::chrono::duration;
  return duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void SystemClock::SleepFor(double seconds) {
  if (!(seconds > 0))
    return;
  timespec ts;
  ts.tv_sec = static_cast<time_t>(seconds);
  ts.tv_nsec = static_cast<long>((seconds - static_cast<double>(ts.tv_sec)) * 1e9);
  // One nanosleep: an interrupting signal (SIGINT, SIGCHLD) ends the sleep early on purpose, so
  // the caller's loop notices a stop request or an exited child at once.
  nanosleep(&ts, nullptr);
}

std::string FormatUtc(double unix_seconds) {
  const time_t t = static_cast<time_t>(std::floor(unix_seconds));
  tm utc{};
  gmtime_r(&t, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1,
                     utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
}

}  // namespace gpuplan::agent
