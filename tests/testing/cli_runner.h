// Runs the gpuplan command line in-process and captures what it prints.
#ifndef GPUPLAN_TESTS_TESTING_CLI_RUNNER_H_
#define GPUPLAN_TESTS_TESTING_CLI_RUNNER_H_

#include <string>
#include <vector>

#include "cli/environment.h"

namespace gpuplan::testing {

struct CliRun {
  int exit_code = 0;
  std::string out;
  std::string err;
};

// The environment every test command runs in unless it passes its own: nothing set but an empty
// price cache directory of this test process (never the developer's ~/.cache/gpuplan, their
// credentials or their $GPUPLAN_CATALOG). Tests copy it and set fields (today, credentials).
cli::CliEnvironment TestEnvironment();

// Runs `gpuplan args...` through cli::RunCli in `env`.
CliRun RunGpuplan(const std::vector<std::string>& args,
                  const cli::CliEnvironment& env = TestEnvironment());

// Compares `actual` with tests/golden/`name`. With GPUPLAN_UPDATE_GOLDEN=1 in the environment it
// rewrites the golden file instead (review the diff before committing).
void ExpectGolden(const std::string& name, const std::string& actual);

// Path of a file under tests/testdata/.
std::string TestDataPath(const std::string& relative);

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_CLI_RUNNER_H_
