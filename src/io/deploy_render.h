// Provisioning files for one planned candidate (`gpuplan deploy`): what a user needs to go from a
// plan to a rented, ready instance.
//
//   io::DeployOptions o;
//   o.today = "2026-11-30";
//   Result<io::DeployFiles> files = io::RenderDeploy(workload, plan.candidates[0], type, o);
//   // files->at("run-instances.sh"), "main.tf", "cloud-init.yaml", "README.md"
//
// The files:
//  - run-instances.sh: one `aliyun ecs RunInstances` call (bash, `set -euo pipefail`; checks that
//    `aliyun` is installed and the FILL-ME values are filled, prints the request and asks before
//    renting unless run with `--yes`).
//  - main.tf: the same instances as Terraform (alicloud provider, `alicloud_instance` with
//    `count`), the account-specific ids as required variables.
//  - cloud-init.yaml: user data that checks the NVIDIA driver and CUDA against the plan's image
//    advice (installing the driver on Ubuntu when there is none), mounts the planned storage
//    (NFS with noresvport and an fstab line), sets up eRDMA for a cluster (the eRDMA stack, MTU
//    1400 at every boot, netcheck.sh against the plan's bandwidth), runs `gpuplan probe --save`
//    once gpuplan is on the instance and, for spot, starts `gpuplan watch-spot` with the user's
//    checkpoint command. Installs come from the OS and Alibaba mirrors; ALLOW_INSTALL=no in it
//    turns them off.
//  - README.md: what was chosen and why, the cost estimate, and the steps.
//
// Ids that belong to the user's account (VSwitch, security group, key pair, image, file system
// mount target) are never invented: they are FILL-ME placeholders the script refuses to run with.
// Every RunInstances parameter emitted is in the aliyun CLI's parameter list for RunInstances
// (aliyun-openapi-meta, tests/testdata/deploy/); every Terraform argument is in the alicloud
// provider's schema. A multi-node training plan on an eRDMA type attaches its elastic RDMA
// interfaces (NetworkInterface.N with NetworkInterfaceTrafficMode=HighPerformance; Terraform
// network_interface_traffic_mode and network_interfaces), installs the eRDMA stack at first boot,
// sets the MTU NCCL's LL128 protocol needs and ships a bandwidth check against the plan.
//
// The files' text is data/deploy/*.tmpl (embedded; one template per file written, plus one per
// elastic RDMA interface), rendered with io::RenderTemplate from values derived once from the
// candidate; README.md is composed here. tests/golden/deploy_*.txt hold every case byte for byte.
//
// Thread safety: a pure function over values.
#ifndef GPUPLAN_SRC_IO_DEPLOY_RENDER_H_
#define GPUPLAN_SRC_IO_DEPLOY_RENDER_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "gpuplan/status.h"

namespace gpuplan {
struct InstanceType;
struct Workload;
namespace planner {
struct Candidate;
struct ImagePlan;
}  // namespace planner
}  // namespace gpuplan

namespace gpuplan::io {

struct DeployOptions {
  std::string today;  // "YYYY-MM-DD" stamped into the files; "" = not stamped
  int rank = 0;       // the candidate's rank in the plan (1 = best); 0 = pinned by the user
  // Spot bid: the highest price per instance-hour, in the candidate's currency, up to 3
  // decimals (SpotWithPriceLimit). nullopt = SpotAsPriceGo (market price, capped at PAYG).
  std::optional<double> spot_price_limit;
  // Shell command that writes a checkpoint when the spot reclaim notice arrives;
  // "" = a FILL-ME placeholder the user edits on the instance.
  std::string checkpoint_command;
  // Fraction of the eRDMA line rate the plan's collectives were timed with
  // (Calibration::rdma_efficiency): the first-boot network check warns below it.
  double rdma_efficiency = 0.8;
  // The instance family's generation (Family::generation, data/families.csv): eRDMA jumbo
  // frames exist from generation 8. nullopt = unknown, said so in the README.
  std::optional<int> generation;
  // The Hugging Face repository the serving engine loads (ModelArch::hf_id) for the ack and
  // pai-eas targets' commands; "" = a FILL-ME placeholder.
  std::string model_id;
};

struct TemplateValues;

// The embedded template data/deploy/`name`.tmpl rendered with `v` (io::RenderTemplate);
// kInternal when it is not embedded.
Result<std::string> RenderDeployTemplate(std::string_view name, const TemplateValues& v);

// File name -> contents. run-instances.sh is meant to be executable.
using DeployFiles = std::map<std::string, std::string>;

// The four provisioning files for candidate `c` of a plan for `w`; `type` is c.instance's
// catalog entry. Errors: kInvalidArgument when a name that goes into the script (instance type,
// region, family) has characters other than letters, digits, '.', '_' and '-', when
// spot_price_limit is not > 0 or goes with a candidate that is not spot, or when
// checkpoint_command has control characters other than newline and tab, or when
// spot_price_limit is below the plan's own spot price (RunInstances would refuse it with
// InvalidSpotPriceLimit.LowerThanPublicPrice); kUnsupported when the storage plan needs a data
// disk larger than one ESSD (32768 GiB) or the candidate has more than 100 nodes (one
// RunInstances call creates 1-100 instances, and a cluster must be created all at once).
Result<DeployFiles> RenderDeploy(const Workload& w, const planner::Candidate& c,
                                 const InstanceType& type, const DeployOptions& options);

// The lowest NVIDIA driver branch and CUDA version that an ImagePlan's text asks for:
// ">= 535" -> "535", "12.4 or newer (...)" -> "12.4", "12.x" -> "12.0". "" when the text names
// no version.
std::string MinDriverVersion(const planner::ImagePlan& image);
std::string MinCudaVersion(const planner::ImagePlan& image);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_DEPLOY_RENDER_H_
