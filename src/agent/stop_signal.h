// A stop flag set by SIGINT and SIGTERM, for the agent's long-running loops (monitor,
// watch-spot), so they can finish their work (print the diagnosis, log) instead of dying.
//
// Thread safety: the flag is a lock-free atomic, safe to read from any thread.
#ifndef GPUPLAN_SRC_AGENT_STOP_SIGNAL_H_
#define GPUPLAN_SRC_AGENT_STOP_SIGNAL_H_

#include <atomic>

namespace gpuplan::agent {

// Installs handlers for SIGINT and SIGTERM (without SA_RESTART, so sleeps end early) that set
// the returned flag and record the signal. Idempotent. The flag lives for the whole process.
const std::atomic<bool>* InstallStopSignalHandlers();
// The signal that set the flag, or 0.
int StopSignalNumber();

}  // namespace gpuplan::agent

#endif  // GPUPLAN_SRC_AGENT_STOP_SIGNAL_H_
