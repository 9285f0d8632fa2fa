#include "cli/commands.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/number_flags.h"
#include "io/catalog_loader.h"

namespace gpuplan::cli {
namespace {

struct CommandRow {
  const char* name;
  void (*add)(CLI::App& app, CliContext& ctx);
};

// One row per subcommand. Keep in the order `gpuplan --help` should list them.
constexpr CommandRow kCommands[] = {
    {"plan", AddPlanCommand},         {"wizard", AddWizardCommand},
    {"deploy", AddDeployCommand},     {"estimate", AddEstimateCommand},
    {"validate", AddValidateCommand}, {"catalog", AddCatalogCommand},
    {"prices", AddPricesCommand},     {"probe", AddProbeCommand},
    {"monitor", AddMonitorCommand},   {"watch-spot", AddWatchSpotCommand},
    {"serve", AddServeCommand},       {"campaign", AddCampaignCommand},
};

}  // namespace

void CliContext::Fail(const Status& status, bool usage) {
  *err << "gpuplan: error: " << status.message() << "\n";
  exit_code = usage ? ExitCode::kUsage : ExitCode::kFailure;
}

Result<Catalog> LoadCliCatalog(const CliContext& ctx) {
  Result<Catalog> catalog = io::LoadCatalog(ctx.catalog_dir);
  if (!catalog.ok())
    return catalog;
  ApplyCliPriceCache(ctx, &*catalog);  // cached api/import prices rank above built-in ones
  for (const CatalogIssue& issue : catalog->Validate()) {
    if (issue.error)
      return Status::InvalidArgument(issue.message);
    *ctx.err << "gpuplan: warning: " << issue.message << "\n";
  }
  return catalog;
}

int RunCli(int argc, const char* const* argv, const CliEnvironment& env, std::ostream& out,
           std::ostream& err) {
  CliContext ctx;
  ctx.env = env;
  ctx.out = &out;
  ctx.err = &err;
  CLI::App app{
      "gpuplan: which Alibaba Cloud GPU instances to rent for a deep-learning job, why, what it "
      "costs and how long it takes."};
  app.name("gpuplan");
  app.require_subcommand(1);
  app.set_version_flag("--version", "gpuplan 0.1.0");
  ctx.catalog_dir = env.catalog_dir;
  // The help line says where the default comes from (as CLI11's envname would) without CLI11
  // reading the process environment itself.
  app.add_option("--catalog", ctx.catalog_dir,
                 "Directory with gpus.csv/instances.csv/families.csv/prices.csv rows that add "
                 "to or override the embedded catalog (default: $GPUPLAN_CATALOG)")
      ->option_text("TEXT (Env:GPUPLAN_CATALOG)");
  for (const CommandRow& row : kCommands)
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
    err << "gpuplan: error: " << e.what() << "\nRun 'gpuplan --help' for usage.\n";
    return static_cast<int>(ExitCode::kUsage);
  } catch (const std::exception& e) {
    // Library exceptions must not escape to the user; report them as failures.
    err << "gpuplan: error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kFailure);
  }
  return static_cast<int>(ctx.exit_code);
}

}  // namespace gpuplan::cli
