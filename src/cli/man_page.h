// gpuplan(1) in roff, written from the command table (command_tree.h): every subcommand with its
// arguments and flags as --help gives them, plus the exit codes (commands.h) and where the full
// guides are. `gpuplan man` prints it; the build installs it (cmake/reference_docs.cmake).
#ifndef GPUPLAN_SRC_CLI_MAN_PAGE_H_
#define GPUPLAN_SRC_CLI_MAN_PAGE_H_

#include <string>

#include "cli/command_tree.h"

namespace gpuplan::cli {

// `version` is the program's ("0.1.0"). No date, so the same binary writes the same page.
std::string ManPage(const CommandDoc& root, const std::string& version);

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_MAN_PAGE_H_
