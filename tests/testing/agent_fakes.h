// Fakes for the agent's edges: a clock that sleeps in no time, GPU telemetry and a CUDA probe
// that return what the test sets.
#ifndef GPUPLAN_TESTS_TESTING_AGENT_FAKES_H_
#define GPUPLAN_TESTS_TESTING_AGENT_FAKES_H_

#include <time.h>

#include <utility>
#include <vector>

#include "agent/clock.h"
#include "agent/cuda_probe.h"
#include "agent/gpu_telemetry.h"

namespace gpuplan::testing {

// Time moves only when someone sleeps. `real_sleep_seconds` per SleepFor call lets real child
// processes make progress while fake time runs (used where the code waits for a real process).
class FakeClock : public agent::Clock {
 public:
  explicit FakeClock(double unix_start = 1'800'000'000.0, double real_sleep_seconds = 0)
      : unix_start_(unix_start), real_sleep_(real_sleep_seconds) {}
  double MonotonicSeconds() override { return now_; }
  double UnixSeconds() override { return unix_start_ + now_; }
  void SleepFor(double seconds) override {
    ++sleeps_;
    if (seconds > 0)
      now_ += seconds;
    if (real_sleep_ > 0) {
      timespec ts{0, static_cast<long>(real_sleep_ * 1e9)};
      nanosleep(&ts, nullptr);
    }
  }
  void Advance(double seconds) { now_ += seconds; }
  int sleeps() const { return sleeps_; }

 private:
  double now_ = 1000;
  double unix_start_;
  double real_sleep_;
  int sleeps_ = 0;
};

class FakeGpuTelemetry : public agent::GpuTelemetry {
 public:
  std::vector<agent::GpuInfo> devices;
  // Returned in turn by Sample(); the last one repeats.
  std::vector<std::vector<agent::GpuSample>> samples;
  Status fail = Status::Ok();

  Result<std::vector<agent::GpuInfo>> Devices() override {
    if (!fail.ok())
      return fail;
    return devices;
  }
  Result<std::vector<agent::GpuSample>> Sample() override {
    if (!fail.ok())
      return fail;
    if (samples.empty())
      return std::vector<agent::GpuSample>{};
    const size_t i = std::min(next_++, samples.size() - 1);
    return samples[i];
  }

 private:
  size_t next_ = 0;
};

class FakeCudaProbe : public agent::CudaProbe {
 public:
  agent::CudaProbeResult result;
  agent::CudaProbeOptions last_options;
  int runs = 0;
  agent::CudaProbeResult Run(const agent::CudaProbeOptions& options) override {
    last_options = options;
    ++runs;
    return result;
  }
};

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_AGENT_FAKES_H_
