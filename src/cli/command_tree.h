// The command table as plain data: every visible subcommand of the CLI11 app with its
// description, positionals and flags, read from the app itself (commands.cc's kCommands and each
// Add*Command). The man page (man_page.h) and the shell completions (completion_scripts.h) are
// written from it, so they list exactly what the binary accepts.
#ifndef GPUPLAN_SRC_CLI_COMMAND_TREE_H_
#define GPUPLAN_SRC_CLI_COMMAND_TREE_H_

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpuplan::cli {

struct FlagDoc {
  std::vector<std::string> names;  // as typed: "--top", "-o"; long names first
  std::string value;               // the value's kind as --help shows it ("INT"); "" = a switch
  std::string description;
};

struct CommandDoc {
  std::string name;               // "show"; "gpuplan" for the root
  std::vector<std::string> path;  // {"catalog", "show"}; empty for the root
  std::string description;
  std::vector<std::string> positionals;  // "workload", "type"
  std::vector<FlagDoc> flags;            // its own, not its parents'
  std::vector<CommandDoc> subcommands;   // in --help order; hidden ones left out
};

// The tree under `app`. Hidden subcommands (CLI11 group "") and positionals are left out of
// `subcommands` and `flags`.
CommandDoc DescribeCommands(const CLI::App& app);

// "gpuplan catalog show" for a command; "gpuplan" for the root.
std::string CommandLine(const CommandDoc& command);

// The first sentence of `text` (up to ". ", "; " or the end), for one-line listings.
std::string FirstSentence(const std::string& text);

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_COMMAND_TREE_H_
