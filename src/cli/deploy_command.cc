// `gpuplan deploy [WORKLOAD.yaml] [workload flags] (--rank N | --instance TYPE [--nodes K])
// --out DIR [--force] [--dry-run]`: the provisioning files for one candidate of the plan.
#include <fmt/format.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <ostream>
#include <system_error>

#include "cli/commands.h"
#include "cli/plan_inputs.h"
#include "gpuplan/plan.h"
#include "io/deploy_render.h"
#include "io/file_util.h"
#include "io/fleet_render.h"
#include "io/platform_deploy.h"

namespace gpuplan::cli {
namespace {

namespace fs = std::filesystem;

struct DeployFlags {
  PlanSource source;  // the workload, as for `plan`
  int rank = 1;
  std::string instance;  // pins the type (with --nodes, --region and --billing)
  std::optional<int> nodes;
  std::string out;
  bool force = false;
  bool dry_run = false;
  std::optional<double> spot_price_limit;
  std::string checkpoint_command;
  std::string target = "ecs";  // --target: ecs, ack, pai-dlc, pai-eas
};

// Refuses an --out that exists and is not an empty directory, unless --force.
Status CheckOutDir(const std::string& dir, bool force) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::IoError(fmt::format("--out {}: {}", dir, ec.message()));
  }
  if (!fs::exists(st))
    return Status::Ok();
  if (!fs::is_directory(st))
    return Status::InvalidArgument(fmt::format("--out {}: exists and is not a directory", dir));
  if (force)
    return Status::Ok();
  const bool empty = fs::is_empty(dir, ec);
  if (ec)
    return Status::IoError(fmt::format("--out {}: {}", dir, ec.message()));
  if (!empty) {
    return Status::InvalidArgument(fmt::format(
        "--out {}: the directory is not empty; pass --force to overwrite the deploy files in it",
        dir));
  }
  return Status::Ok();
}

// The candidate to deploy: the plan's --rank, or the best one of the --instance type (and
// --nodes). Errors name the flag.
Result<planner::Candidate> ChooseCandidate(const DeployFlags& f, const PlanInputs& in,
                                           planner::PlanOptions options,
                                           const InstanceType* pinned) {
  options.top_n = pinned ? 1000 : f.rank;
  if (pinned)
    options.only_instance = pinned->name;
  // The planner's power-of-two node counts must reach a pinned --nodes.
  if (f.nodes)
    options.default_max_nodes = std::max(options.default_max_nodes, *f.nodes);
  Result<planner::Plan> plan =
      planner::MakePlan(in.workload, in.arch, in.catalog, in.calibration, options);
  if (!plan.ok())
    return plan.status();
  const std::string reasons = [&] {
    std::string s;
    for (size_t i = 0; i < plan->rejected.size() && i < 3; ++i) {
      s += (i ? "; " : "") + plan->rejected[i].instance + ": " + plan->rejected[i].reason;
    }
    return s.empty() ? std::string("no reason recorded") : s;
  }();
  if (!pinned) {
    if (plan->candidates.empty()) {
      return Status::NotFound("nothing to deploy: no instance type can run this workload (" +
                              reasons + "); 'gpuplan plan' lists every reason");
    }
    if (static_cast<size_t>(f.rank) > plan->candidates.size()) {
      return Status::InvalidArgument(fmt::format("--rank {}: the plan has only {} candidate(s)",
                                                 f.rank, plan->candidates.size()));
    }
    const planner::Candidate& c = plan->candidates[static_cast<size_t>(f.rank - 1)];
    if (!c.price_known && c.region.empty()) {
      // An unpriced candidate of a plan without regions has nowhere to be rented yet.
      return Status::InvalidArgument(
          fmt::format("--rank {}: {} has no known price and no region: give --region R "
                      "(and a price: {})",
                      f.rank, c.instance, c.price_hint));
    }
    return c;
  }
  std::vector<int> node_counts;
  for (const planner::Candidate& c : plan->candidates) {
    if (!f.nodes || c.nodes == *f.nodes)
      return c;
    if (std::find(node_counts.begin(), node_counts.end(), c.nodes) == node_counts.end())
      node_counts.push_back(c.nodes);
  }
  if (plan->candidates.empty()) {
    return Status::NotFound(
        fmt::format("--instance {}: cannot run this workload ({})", pinned->name, reasons));
  }
  std::sort(node_counts.begin(), node_counts.end());
  return Status::NotFound(
      fmt::format("--nodes {}: {} has no working plan with {} node(s); it can run on {} node(s)",
                  *f.nodes, pinned->name, *f.nodes, fmt::join(node_counts, ", ")));
}

void RunDeploy(CliContext& ctx, const DeployFlags& f) {
  if (f.out.empty() && !f.dry_run) {
    return ctx.Fail(
        Status::InvalidArgument("deploy: --out DIR is required (or --dry-run to print the files)"),
        /*usage=*/true);
  }
  if (f.spot_price_limit && !(*f.spot_price_limit > 0)) {
    return ctx.Fail(
        Status::InvalidArgument("--spot-price-limit: expected a price per instance-hour > 0"),
        /*usage=*/true);
  }
  const std::optional<io::DeployTarget> target = io::ParseDeployTarget(f.target);
  if (!target) {
    return ctx.Fail(Status::InvalidArgument(fmt::format("--target \"{}\": expected one of {}",
                                                        f.target, io::DeployTargetList())),
                    /*usage=*/true);
  }
  if (!f.out.empty() && !f.dry_run) {
    if (Status s = CheckOutDir(f.out, f.force); !s.ok())
      return ctx.Fail(s);
  }
  std::optional<PlanInputs> in = LoadPlanInputs(ctx, f.source);
  if (!in)
    return;
  const InstanceType* pinned = nullptr;
  if (!f.instance.empty()) {
    pinned = in->catalog.FindInstance(f.instance);
    if (!pinned) {
      return ctx.Fail(Status::NotFound(
          fmt::format("--instance \"{}\": unknown instance type; did you mean {}?", f.instance,
                      fmt::join(in->catalog.SuggestInstances(f.instance), ", "))));
    }
  }
  Result<planner::Candidate> c = ChooseCandidate(f, *in, CliPlanOptions(ctx), pinned);
  if (!c.ok())
    return ctx.Fail(c.status());
  if (f.spot_price_limit && c->billing != cost::Mode::kSpot) {
    return ctx.Fail(
        Status::InvalidArgument(fmt::format("--spot-price-limit: the chosen candidate is billed "
                                            "{}, not spot (pick one with --billing spot)",
                                            cost::ModeName(c->billing))),
        /*usage=*/true);
  }
  const InstanceType* type = in->catalog.FindInstance(c->instance);
  if (!type)
    return ctx.Fail(Status::Internal("planned type " + c->instance + " is not in the catalog"));
  io::DeployOptions o;
  o.today = CliToday(ctx.env);
  o.rank = pinned ? 0 : f.rank;
  o.spot_price_limit = f.spot_price_limit;
  o.checkpoint_command = f.checkpoint_command;
  o.rdma_efficiency = in->calibration.rdma_efficiency;
  if (const Family* family = in->catalog.FindFamily(type->family))
    o.generation = family->generation;
  o.model_id = in->arch.hf_id;
  Result<io::DeployFiles> files = io::RenderPlatformDeploy(*target, in->workload, *c, *type, o);
  if (!files.ok())
    return ctx.Fail(files.status());

  if (f.dry_run) {
    for (const auto& [name, text] : *files) {
      *ctx.out << "==> " << (f.out.empty() ? name : (fs::path(f.out) / name).string()) << " <==\n"
               << text << "\n";
    }
    return;
  }
  for (const auto& [name, text] : *files) {
    const std::string path = (fs::path(f.out) / name).string();
    if (Status s = io::WriteFileAtomic(path, text); !s.ok())
      return ctx.Fail(s);
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".sh") == 0 &&
        ::chmod(path.c_str(), 0755) != 0) {
      return ctx.Fail(Status::IoError("chmod 755 " + path + " failed"));
    }
  }
  const fs::path out(f.out);
  // What was written, README first, in the order a user reads them.
  std::vector<std::string> written = {(out / "README.md").string()};
  for (const char* name :
       {"run-instances.sh", "main.tf", "cloud-init.yaml", "ess.tf", "ess-schedule.sh",
        "node-pool.tf", "pytorchjob.yaml", "serving.yaml", "dlc-job.json", "eas-service.json"}) {
    if (files->count(name))
      written.push_back((out / name).string());
  }
  if (*target != io::DeployTarget::kEcs) {
    *ctx.out << fmt::format(
        "gpuplan deploy --target {}: {} x {} in {}, {}: wrote {}\nNext: fill the FILL-ME values "
        "and follow the steps in {}\n",
        io::DeployTargetName(*target), c->nodes, c->instance, c->region, cost::ModeName(c->billing),
        fmt::join(written, ", "), (out / "README.md").string());
    return;
  }
  const std::string what = c->fleet ? io::FleetBillingText(*c->fleet) + " fleet, peak"
                                    : std::string(cost::ModeName(c->billing));
  const std::string run =
      files->count("run-instances.sh")
          ? (out / "run-instances.sh").string() +
                (files->count("ess-schedule.sh") ? " and " + (out / "ess-schedule.sh").string()
                                                 : "")
          : (out / "ess-schedule.sh").string();
  *ctx.out << fmt::format(
      "gpuplan deploy: {} x {} in {}, {}: wrote {}\nNext: fill the FILL-ME values (see {}), then "
      "run {}\n",
      c->nodes, c->instance, c->region, what, fmt::join(written, ", "),
      (out / "README.md").string(), run);
}

}  // namespace

void AddDeployCommand(CLI::App& app, CliContext& ctx) {
  auto f = std::make_shared<DeployFlags>();
  CLI::App* cmd = app.add_subcommand("deploy",
                                     "Write the provisioning files for a planned candidate: "
                                     "run-instances.sh (aliyun CLI), main.tf "
                                     "(Terraform), cloud-init.yaml and README.md");
  AddPlanSourceFlags(cmd, &f->source);
  CLI::Option* rank =
      cmd->add_option("--rank", f->rank, "Which candidate of the plan (default 1, the best)")
          ->check(CLI::Range(1, 1000));
  CLI::Option* instance = cmd->add_option("--instance", f->instance,
                                          "Pin the instance type instead of --rank (with --nodes, "
                                          "--region and --billing to pin the rest)");
  cmd->add_option("--nodes", f->nodes, "With --instance: the node count")
      ->check(CLI::Range(1, 1024))
      ->needs(instance);
  rank->excludes(instance);
  cmd->add_option("--out", f->out, "Directory for the files (required unless --dry-run)");
  cmd->add_flag("--force", f->force,
                "Write into a non-empty --out directory (overwrites the deploy files)");
  cmd->add_flag("--dry-run", f->dry_run,
                "Print the file names and contents instead of writing them");
  cmd->add_option(
      "--spot-price-limit", f->spot_price_limit,
      "Spot: highest price per instance-hour (SpotWithPriceLimit); default SpotAsPriceGo "
      "(market price, at most pay-as-you-go)");
  cmd->add_option("--target", f->target,
                  "Where to run it: ecs (default: instances), ack (a node pool on your ACK "
                  "cluster and the Kubernetes workload), pai-dlc (a DLC training job), pai-eas "
                  "(an EAS service)");
  cmd->add_option(
      "--checkpoint-command", f->checkpoint_command,
      "Spot: shell command that writes a checkpoint, run by 'gpuplan watch-spot' on the reclaim "
      "notice (default: a placeholder to fill)");
  cmd->callback([&ctx, f] { RunDeploy(ctx, *f); });
}

}  // namespace gpuplan::cli
