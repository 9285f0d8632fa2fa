// `gpuplan man` and `gpuplan completion SHELL`: written from the command table, so every visible
// subcommand and flag is in them and the hidden ones are not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

using testing::RunGpuplan;

// A sample of what the command table holds, nested commands included.
const std::vector<std::string> kCommands = {"plan",    "explain",    "estimate", "campaign",
                                            "catalog", "watch-spot", "serve"};

TEST(ReferenceCommandTest, EachOutputNamesTheCommandsAndFlags) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    std::string command_form;  // how a command appears, with %s for its name
    std::string flag;          // a flag of `plan`, as it appears
  };
  const Case cases[] = {
      {"man", {"man"}, ".SS \"gpuplan %s\"", "\\fB\\-\\-top\\fR"},
      {"bash", {"completion", "bash"}, "%s", "--top"},  // the lists: BashListsTheCommands
      {"zsh", {"completion", "zsh"}, "'%s:", "'--top:Candidates to show"},
      {"fish", {"completion", "fish"}, "-a '%s'", "-l 'top' -r"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto run = RunGpuplan(c.args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    for (std::string command : kCommands) {
      if (c.command_form.starts_with(".SS")) {  // roff escapes the hyphen
        for (size_t at = command.find('-'); at != std::string::npos; at = command.find('-', at + 2))
          command.replace(at, 1, "\\-");
      }
      std::string form = c.command_form;
      form.replace(form.find("%s"), 2, command);
      EXPECT_NE(run.out.find(form), std::string::npos) << form;
    }
    EXPECT_NE(run.out.find(c.flag), std::string::npos) << c.flag;
    // The hidden commands stay out of what users see (the first line says what wrote it).
    const std::string body = run.out.substr(run.out.find('\n'));
    for (const std::string hidden : {"man", "completion"}) {
      if (std::string(c.name) == "bash")
        continue;  // words in a list: BashListsTheCommands
      std::string form = c.command_form;
      form.replace(form.find("%s"), 2, hidden);
      EXPECT_EQ(body.find(form), std::string::npos) << form;
    }
  }
}

TEST(ReferenceCommandTest, HiddenFromHelp) {
  const auto run = RunGpuplan({"--help"});
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out.find("completion"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find(" man "), std::string::npos) << run.out;
}

TEST(ReferenceCommandTest, RefusesAnUnknownShell) {
  const auto run = RunGpuplan({"completion", "powershell"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("powershell"), std::string::npos) << run.err;
}

// Bash completes from one word list per command path; the root's names the visible commands.
TEST(ReferenceCommandTest, BashListsTheCommands) {
  const auto run = RunGpuplan({"completion", "bash"});
  ASSERT_EQ(run.exit_code, 0);
  const std::string root_line = "    '') echo '";
  const size_t at = run.out.find(root_line);
  ASSERT_NE(at, std::string::npos) << run.out.substr(0, 800);
  const size_t start = at + root_line.size();
  const std::string words = " " + run.out.substr(start, run.out.find('\'', start) - start) + " ";
  for (const std::string& command : kCommands)
    EXPECT_NE(words.find(" " + command + " "), std::string::npos) << command << " in" << words;
  for (const std::string hidden : {"man", "completion"})
    EXPECT_EQ(words.find(" " + hidden + " "), std::string::npos) << hidden << " in" << words;
  EXPECT_NE(run.out.find("'catalog') echo 'instances gpus families prices show'"),
            std::string::npos);
}

}  // namespace
}  // namespace gpuplan
