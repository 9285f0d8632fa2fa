// Runs a table of subcommands: the CLI11 parse, help, version, our messages for unknown
// commands and flags, and the exit code. `gpuplan` (commands.cc) runs every command; the
// portable `gpuplan-agent` (agent_main.cc) only probe, monitor and watch-spot, with the same
// flags and messages.
#ifndef GPUPLAN_SRC_CLI_COMMAND_RUNNER_H_
#define GPUPLAN_SRC_CLI_COMMAND_RUNNER_H_

#include <iosfwd>
#include <span>

#include "cli/commands.h"

namespace gpuplan::cli {

struct CommandRow {
  const char* name;
  void (*add)(CLI::App& app, CliContext& ctx);
};

// Adds `rows` (in --help order) under an app named gpuplan with `description`, parses
// argv and runs the chosen command; returns the process exit code.
int RunCommands(std::span<const CommandRow> rows, const char* description, int argc,
                const char* const* argv, const CliEnvironment& env, std::ostream& out,
                std::ostream& err);

// Prints the catalog's warnings to ctx.err; its first error, if any, as a status.
Status CheckCliCatalog(const CliContext& ctx, Catalog& catalog);

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_COMMAND_RUNNER_H_
