#include "testing/cli_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/commands.h"

namespace gpuplan::testing {

cli::CliEnvironment TestEnvironment() {
  cli::CliEnvironment env;
  env.xdg_cache_home = ::testing::TempDir() + "gpuplan-test-cache-" + std::to_string(::getpid());
  return env;
}

CliRun RunGpuplan(const std::vector<std::string>& args, const cli::CliEnvironment& env) {
  std::vector<const char*> argv = {"gpuplan"};
  for (const std::string& a : args)
    argv.push_back(a.c_str());
  std::ostringstream out, err;
  CliRun run;
  run.exit_code = cli::RunCli(static_cast<int>(argv.size()), argv.data(), env, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(GPUPLAN_SOURCE_DIR) + "/tests/golden/" + name;
  const char* update = std::getenv("GPUPLAN_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden file " << path
                         << " (run the tests with GPUPLAN_UPDATE_GOLDEN=1 to create it)";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(actual, want.str()) << "output differs from " << path
                                << " (GPUPLAN_UPDATE_GOLDEN=1 rewrites it; review the diff)";
}

std::string TestDataPath(const std::string& relative) {
  return std::string(GPUPLAN_SOURCE_DIR) + "/tests/testdata/" + relative;
}

}  // namespace gpuplan::testing
