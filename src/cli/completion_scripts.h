// Shell completion scripts for bash, zsh and fish, written from the command table
// (command_tree.h): subcommands at every level and each command's flags with its parents'
// (CLI11 passes a subcommand's unknown flags up to them). `gpuplan completion SHELL` prints one;
// the build installs all three (cmake/reference_docs.cmake).
#ifndef GPUPLAN_SRC_CLI_COMPLETION_SCRIPTS_H_
#define GPUPLAN_SRC_CLI_COMPLETION_SCRIPTS_H_

#include <string>

#include "cli/command_tree.h"

namespace gpuplan::cli {

// Sourced by bash-completion (share/bash-completion/completions/gpuplan).
std::string BashCompletion(const CommandDoc& root);
// An autoloaded #compdef file (share/zsh/vendor-completions/_gpuplan).
std::string ZshCompletion(const CommandDoc& root);
// `complete` lines (share/fish/vendor_completions.d/gpuplan.fish).
std::string FishCompletion(const CommandDoc& root);

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_COMPLETION_SCRIPTS_H_
