// The gpuplan command line: a table of subcommands over the library (ninja's kTools).
//
// A subcommand is one function `void AddXCommand(CLI::App& app, CliContext& ctx)` that adds a
// CLI11 subcommand to `app` with a callback that does the work, writes to ctx.out/ctx.err and
// sets ctx.exit_code; plus one row in kCommands (commands.cc).
#ifndef GPUPLAN_SRC_CLI_COMMANDS_H_
#define GPUPLAN_SRC_CLI_COMMANDS_H_

#include <iosfwd>
#include <string>

#include "cli/environment.h"
#include "gpuplan/catalog.h"
#include "gpuplan/status.h"

namespace CLI {
class App;
}

namespace gpuplan::server {
struct ServerData;
}

namespace gpuplan::cost {
struct MarketData;
struct PriceRatios;
}  // namespace gpuplan::cost

namespace gpuplan::cli {

// The program's version, as `gpuplan --version` and the man page give it.
inline constexpr const char* kVersion = "0.1.0";

// Exit codes, documented in docs/errors.md ("Exit codes").
enum class ExitCode { kOk = 0, kFailure = 1, kUsage = 2 };

struct CliContext {
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  CliEnvironment env;       // the process environment, read once in main()
  std::string catalog_dir;  // --catalog DIR, else $GPUPLAN_CATALOG, else "" (embedded only)
  ExitCode exit_code = ExitCode::kOk;

  // Prints `gpuplan: error: <status message>` to err and sets kFailure (kUsage for
  // invalid arguments given on the command line when `usage` is true).
  void Fail(const Status& status, bool usage = false);
};

// Runs the gpuplan command line in `env`; returns the process exit code.
int RunCli(int argc, const char* const* argv, const CliEnvironment& env, std::ostream& out,
           std::ostream& err);

// The embedded catalog plus the user's overlay from ctx.catalog_dir, validated. Warnings are
// printed to ctx.err.
Result<Catalog> LoadCliCatalog(const CliContext& ctx);

// One function per subcommand (each in its own <name>_command.cc).
void AddCatalogCommand(CLI::App& app, CliContext& ctx);
void AddPricesCommand(CLI::App& app, CliContext& ctx);

// Price data for every command (prices_command.cc). ApplyCliPriceCache adds the cached
// api/import prices of $XDG_CACHE_HOME/gpuplan/prices.json to `catalog` (LoadCliCatalog calls
// it; a corrupt cache is a warning). LoadCliMarketData gives the cached stock and spot advice
// for cost::CheckAvailability and cost::ReclaimRatePerHour (empty when nothing is cached).
// CliPriceRatios reads data/price_ratios.csv. CliToday is today's UTC date "YYYY-MM-DD"
// (env.today, from $GPUPLAN_TODAY, overrides it, for reproducible output).
void ApplyCliPriceCache(const CliContext& ctx, Catalog* catalog);
cost::MarketData LoadCliMarketData(const CliContext& ctx);
// The price cache directory ($XDG_CACHE_HOME/gpuplan, else ~/.cache/gpuplan).
Result<std::string> CliPriceCacheDir(const CliEnvironment& env);
// `gpuplan prices add` (prices_add_command.cc), a subcommand of `prices`.
void AddPricesAddCommand(CLI::App* prices, CliContext& ctx);
cost::PriceRatios CliPriceRatios();
std::string CliToday(const CliEnvironment& env);
void AddEstimateCommand(CLI::App& app, CliContext& ctx);
void AddValidateCommand(CLI::App& app, CliContext& ctx);
void AddProbeCommand(CLI::App& app, CliContext& ctx);
void AddMonitorCommand(CLI::App& app, CliContext& ctx);
void AddWatchSpotCommand(CLI::App& app, CliContext& ctx);
void AddPlanCommand(CLI::App& app, CliContext& ctx);  // plan and explain
void AddCampaignCommand(CLI::App& app, CliContext& ctx);
void AddWizardCommand(CLI::App& app, CliContext& ctx);
void AddDeployCommand(CLI::App& app, CliContext& ctx);  // provisioning files for a candidate
void AddServeCommand(CLI::App& app, CliContext& ctx);
// The hidden `man` and `completion` commands (reference_command.cc), written from `app` itself.
void AddReferenceCommands(CLI::App& app, CliContext& ctx);

// What `gpuplan serve` shares across requests (serve_command.cc): the catalog, zoo, calibration
// and plan options loaded as `plan` loads them, once.
Result<server::ServerData> LoadServerData(const CliContext& ctx);

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_COMMANDS_H_
