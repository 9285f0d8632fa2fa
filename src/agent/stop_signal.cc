#include "agent/stop_signal.h"

#include <signal.h>

namespace gpuplan::agent {
namespace {

// Process-wide by nature: a signal handler can only reach static storage.
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};

void OnSignal(int sig) {
  g_signal.store(sig);
  g_stop.store(true);
}

}  // namespace

const std::atomic<bool>* InstallStopSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return &g_stop;
}

int StopSignalNumber() { return g_signal.load(); }

}  // namespace gpuplan::agent
