// gpuplan-agent: the portable on-instance build (docs/on-instance.md, "The portable agent"):
// probe, monitor and watch-spot with gpuplan's flags, output and exit codes, in one statically
// linked program. It is installed as `gpuplan` on the instance, so the deploy files and the
// docs' command lines are the same for both builds.
#include <iostream>

#include "cli/command_runner.h"
#include "cli/commands.h"
#include "io/catalog_loader.h"

namespace gpuplan::cli {
namespace {

constexpr CommandRow kAgentCommands[] = {
    {"probe", AddProbeCommand},
    {"monitor", AddMonitorCommand},
    {"watch-spot", AddWatchSpotCommand},
};

}  // namespace

// The embedded catalog and the --catalog overlay, without the price cache: the agent compares
// hardware, never prices, and the price cache's reader belongs to `gpuplan prices` (which this
// program does not carry).
Result<Catalog> LoadCliCatalog(const CliContext& ctx) {
  Result<Catalog> catalog = io::LoadCatalog(ctx.catalog_dir);
  if (!catalog.ok())
    return catalog;
  if (Status s = CheckCliCatalog(ctx, *catalog); !s.ok())
    return s;
  return catalog;
}

}  // namespace gpuplan::cli

int main(int argc, char** argv) {
  return gpuplan::cli::RunCommands(
      gpuplan::cli::kAgentCommands,
      "gpuplan (portable agent build): measure, watch and guard the rented instance. The planning "
      "commands are in the full gpuplan build.",
      argc, argv, gpuplan::cli::CliEnvironment::FromProcess(), std::cout, std::cerr);
}
