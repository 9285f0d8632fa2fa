// `gpuplan wizard -o FILE` keeps files: it refuses an existing one unless --force, as `deploy
// --out` does.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "io/file_util.h"
#include "testing/cli_runner.h"

namespace gpuplan::cli {
namespace {

// Issue 32: `wizard -o FILE` replaced an existing file without asking.
TEST(WizardOutputTest, Issue32WizardRefusesAnExistingOutputWithoutForce) {
  char tmpl[] = "/tmp/gpuplan-wizard-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string file = dir + "/workload.yaml";
  const std::string mine = "task: finetune\nmodel: llama-2-7b\n";
  ASSERT_TRUE(io::WriteFileAtomic(file, mine).ok());
  testing::CliRun run = testing::RunGpuplan({"wizard", "-o", file, "--no-plan"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "gpuplan: error: --output " + file +
                         ": the file exists; pass --force to replace it, or -o another path\n");
  testing::CliRun to_dir = testing::RunGpuplan({"wizard", "-o", dir, "--force"});
  EXPECT_EQ(to_dir.exit_code, 2);
  EXPECT_EQ(to_dir.err, "gpuplan: error: --output " + dir + ": is a directory, expected a file\n");
  Result<std::string> kept = io::ReadFile(file);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(*kept, mine);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuplan::cli
