// `gpuplan man [--out FILE]` and `gpuplan completion bash|zsh|fish [--out FILE]`: the man page
// and shell completions, written from the command table of this very binary. Hidden from
// --help and from the completions themselves; the build runs them (cmake/reference_docs.cmake).
#include <CLI/CLI.hpp>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>

#include "cli/command_tree.h"
#include "cli/commands.h"
#include "cli/completion_scripts.h"
#include "cli/man_page.h"

namespace gpuplan::cli {
namespace {

struct ReferenceFlags {
  std::string shell;
  std::string out;  // "" = standard output
};

// Writes `text` to `path`, or to ctx.out when `path` is empty.
void Emit(CliContext& ctx, const std::string& path, const std::string& text) {
  if (path.empty()) {
    *ctx.out << text;
    return;
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file)
    ctx.Fail(Status::IoError("--out " + path + ": cannot write the file"));
}

std::string Completion(const CommandDoc& root, const std::string& shell) {
  if (shell == "bash")
    return BashCompletion(root);
  if (shell == "zsh")
    return ZshCompletion(root);
  return FishCompletion(root);  // CLI::IsMember allows nothing else
}

}  // namespace

void AddReferenceCommands(CLI::App& app, CliContext& ctx) {
  auto man_flags = std::make_shared<ReferenceFlags>();
  CLI::App* man = app.add_subcommand("man", "Print the gpuplan(1) man page (roff)");
  man->group("");  // hidden: a build step, not a user's command
  man->add_option("--out", man_flags->out, "Write it to FILE instead of standard output");
  man->callback([&app, &ctx, man_flags] {
    Emit(ctx, man_flags->out, ManPage(DescribeCommands(app), kVersion));
  });

  auto flags = std::make_shared<ReferenceFlags>();
  CLI::App* completion =
      app.add_subcommand("completion", "Print the shell completion script for bash, zsh or fish");
  completion->group("");
  completion->add_option("shell", flags->shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  completion->add_option("--out", flags->out, "Write it to FILE instead of standard output");
  completion->callback([&app, &ctx, flags] {
    Emit(ctx, flags->out, Completion(DescribeCommands(app), flags->shell));
  });
}

}  // namespace gpuplan::cli
