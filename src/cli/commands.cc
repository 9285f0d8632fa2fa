#include "cli/commands.h"

#include <ostream>

#include "cli/command_runner.h"
#include "io/catalog_loader.h"

namespace gpuplan::cli {
namespace {

// One row per subcommand. Keep in the order `gpuplan --help` should list them.
constexpr CommandRow kCommands[] = {
    {"plan", AddPlanCommand},
    {"wizard", AddWizardCommand},
    {"deploy", AddDeployCommand},
    {"estimate", AddEstimateCommand},
    {"validate", AddValidateCommand},
    {"catalog", AddCatalogCommand},
    {"prices", AddPricesCommand},
    {"probe", AddProbeCommand},
    {"monitor", AddMonitorCommand},
    {"watch-spot", AddWatchSpotCommand},
    {"serve", AddServeCommand},
    {"campaign", AddCampaignCommand},
    {"man, completion", AddReferenceCommands},  // hidden: the build writes the docs with them
};

}  // namespace

Result<Catalog> LoadCliCatalog(const CliContext& ctx) {
  Result<Catalog> catalog = io::LoadCatalog(ctx.catalog_dir);
  if (!catalog.ok())
    return catalog;
  ApplyCliPriceCache(ctx, &*catalog);  // cached api/import prices rank above built-in ones
  if (Status s = CheckCliCatalog(ctx, *catalog); !s.ok())
    return s;
  return catalog;
}

int RunCli(int argc, const char* const* argv, const CliEnvironment& env, std::ostream& out,
           std::ostream& err) {
  return RunCommands(kCommands,
                     "gpuplan: which Alibaba Cloud GPU instances to rent for a deep-learning job, "
                     "why, what it costs and how long it takes.",
                     argc, argv, env, out, err);
}

}  // namespace gpuplan::cli
