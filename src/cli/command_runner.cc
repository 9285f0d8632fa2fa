#include "cli/command_runner.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "cli/number_flags.h"
#include "gpuplan/strings.h"

namespace gpuplan::cli {
namespace {

// The subcommand the parse reached last: `gpuplan catalog show` for "catalog show x".
const CLI::App* DeepestCommand(const CLI::App& app) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty())
    at = at->get_subcommands().front();
  return at;
}

// "plan", "catalog show" for the command `at`; "" for gpuplan itself.
std::string CommandPath(const CLI::App* at) {
  std::string path;
  for (; at != nullptr && at->get_parent() != nullptr; at = at->get_parent())
    path = at->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

// Every flag `at` takes, as typed ("--precision", "-o"), its parents' flags included (CLI11 lets
// a subcommand's arguments fall through to them).
std::vector<std::string> FlagsOf(const CLI::App* at) {
  std::vector<std::string> flags;
  for (; at != nullptr; at = at->get_parent()) {
    for (const CLI::Option* o : at->get_options()) {
      for (const std::string& n : o->get_lnames())
        flags.push_back("--" + n);
      for (const std::string& n : o->get_snames())
        flags.push_back("-" + n);
    }
  }
  return flags;
}

// The names of `at`'s subcommands, in the order --help lists them.
std::vector<std::string> SubcommandsOf(const CLI::App* at) {
  std::vector<std::string> names;
  for (const CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// Our message for a command line CLI11 refused because of an argument nobody takes (a
// mistyped subcommand or flag): the argument, the command it was given to and the nearest
// spelling, or the commands to choose from. "" when the refusal is of another kind (a missing
// value, a bad number: CLI11's own message names the flag).
std::string UnknownArgument(const CLI::App& app) {
  const CLI::App* at = DeepestCommand(app);
  const std::vector<std::string> left = at->remaining();
  if (left.empty())
    return "";
  const std::string& arg = left.front();
  const std::string path = CommandPath(at);
  const std::string prefix = path.empty() ? "" : path + ": ";
  const std::string help = "'gpuplan " + (path.empty() ? "" : path + " ") + "--help'";
  if (arg.size() > 1 && arg[0] == '-') {
    const std::string flag = arg.substr(0, arg.find('='));
    const std::string near = strings::Nearest(flag, FlagsOf(at));
    return fmt::format(
        "{}unknown flag \"{}\"{}", prefix, flag,
        near.empty() ? "; " + help + " lists the flags" : "; did you mean " + near + "?");
  }
  const std::vector<std::string> commands = SubcommandsOf(at);
  if (commands.empty())
    return fmt::format("{}unexpected argument \"{}\"; {} lists what it takes", prefix, arg, help);
  const std::string near = strings::Nearest(arg, commands);
  return fmt::format(
      "{}unknown command \"{}\"{}: {}", prefix, arg,
      near.empty() ? "; the commands are" : "; did you mean " + near + "? The commands",
      fmt::join(commands, ", "));
}

}  // namespace

void CliContext::Fail(const Status& status, bool usage) {
  *err << "gpuplan: error: " << status.message() << "\n";
  exit_code = usage ? ExitCode::kUsage : ExitCode::kFailure;
}

Status CheckCliCatalog(const CliContext& ctx, Catalog& catalog) {
  for (const CatalogIssue& issue : catalog.Validate()) {
    if (issue.error)
      return Status::InvalidArgument(issue.message);
    *ctx.err << "gpuplan: warning: " << issue.message << "\n";
  }
  return Status::Ok();
}

int RunCommands(std::span<const CommandRow> rows, const char* description, int argc,
                const char* const* argv, const CliEnvironment& env, std::ostream& out,
                std::ostream& err) {
  CliContext ctx;
  ctx.env = env;
  ctx.out = &out;
  ctx.err = &err;
  CLI::App app{description};
  app.name("gpuplan");
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("gpuplan {}", kVersion));
  ctx.catalog_dir = env.catalog_dir;
  // The help line says where the default comes from (as CLI11's envname would) without CLI11
  // reading the process environment itself.
  app.add_option("--catalog", ctx.catalog_dir,
                 "Directory with gpus.csv/instances.csv/families.csv/prices.csv rows that add "
                 "to or override the embedded catalog (default: $GPUPLAN_CATALOG)")
      ->option_text("TEXT (Env:GPUPLAN_CATALOG)");
  for (const CommandRow& row : rows)
    row.add(app, ctx);
  GuardNumberOptions(app);  // no NaN, infinity or negative number on any option
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp& e) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    // Subcommand help requests arrive as CallForHelp thrown from the subcommand.
    if (e.get_exit_code() == 0) {
      out << app.help();
      return 0;
    }
    const std::string unknown = UnknownArgument(app);
    err << "gpuplan: error: " << (unknown.empty() ? e.what() : unknown)
        << "\nRun 'gpuplan --help' for usage.\n";
    return static_cast<int>(ExitCode::kUsage);
  } catch (const std::exception& e) {
    // Library exceptions must not escape to the user; report them as failures.
    err << "gpuplan: error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kFailure);
  }
  return static_cast<int>(ctx.exit_code);
}

}  // namespace gpuplan::cli
