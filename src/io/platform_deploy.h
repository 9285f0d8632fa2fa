// The deploy targets besides bare ECS (`gpuplan deploy --target ack|pai-dlc|pai-eas`): the same
// planned candidate as files for the platform a team already runs on.
//
//   Result<io::DeployFiles> files =
//       io::RenderPlatformDeploy(io::DeployTarget::kAck, workload, candidate, type, options);
//
// The files, per target:
//  - ack:     node-pool.tf: an alicloud_cs_kubernetes_node_pool of the planned type on an
//             existing ACK cluster (cluster id, VSwitch and key pair are Terraform variables):
//             a fixed desired_size for training, a scaling_config {type = "gpu"} from the
//             fewest to the most instances for serving; charge type, period or spot strategy;
//             the ESSD system and data disks; a label and a NoSchedule taint that only the
//             generated workload tolerates.
//             pytorchjob.yaml (training): a Kubeflow PyTorchJob (kubeflow.org/v1) with a Master
//             and nodes - 1 Workers, container `pytorch`, every GPU of the node, /dev/shm as a
//             memory emptyDir and, on a multi-node eRDMA plan, the `aliyun/erdma` resource with
//             host networking and NCCL_DEBUG=INFO to confirm NCCL picked the RDMA device.
//             serving.yaml (serving): a Deployment of one model copy per pod running the engine's
//             command, a Service and (vLLM) a HorizontalPodAutoscaler on the requests each copy
//             runs at once, from one replica to the plan's copies.
//  - pai-dlc: dlc-job.json: a PAI-DLC CreateJob request body (PyTorchJob, one Worker spec of
//             PodCount = nodes on EcsSpec = the type, EnableRDMA for a multi-node eRDMA plan,
//             SpotSpec for spot, the shared file system as a data source).
//  - pai-eas: eas-service.json: a PAI-EAS service (JSON deployment) on the type, the engine's
//             image and command, and an autoscaler (min, max, a qps threshold) from the plan's
//             requests per second per instance.
// Each target also writes README.md: what was chosen, what to fill in, the commands to run.
//
// Ids that belong to the user's account (cluster, VSwitch, workspace, data source, image) are
// FILL-ME placeholders. Every field name is from the published schema or API model that
// tests/testdata/deploy/ keeps (README.md there says which), and tests validate each file
// against it. The text lives in data/deploy/{ack,pai-dlc,pai-eas}-*.tmpl.
//
// Thread safety: pure functions over values.
#ifndef GPUPLAN_SRC_IO_PLATFORM_DEPLOY_H_
#define GPUPLAN_SRC_IO_PLATFORM_DEPLOY_H_

#include <optional>
#include <string_view>

#include "gpuplan/status.h"
#include "io/deploy_render.h"

namespace gpuplan::io {

enum class DeployTarget {
  kEcs,     // RunInstances script, Terraform instances, cloud-init (RenderDeploy)
  kAck,     // an ACK node pool and the Kubernetes workload
  kPaiDlc,  // a PAI-DLC training job
  kPaiEas,  // a PAI-EAS service
};

// "ecs", "ack", "pai-dlc", "pai-eas".
std::string_view DeployTargetName(DeployTarget t);
// The target named `name` (as DeployTargetName spells it); nullopt for any other text.
std::optional<DeployTarget> ParseDeployTarget(std::string_view name);
// "ecs, ack, pai-dlc, pai-eas": for messages.
std::string_view DeployTargetList();

// The files for `target` (RenderDeploy for kEcs). Errors: those of RenderDeploy for a name that
// cannot go into the files; kUnsupported for a workload the target does not run (pai-dlc:
// serving; pai-eas: training; ack and pai-eas: a model copy that spans several instances; pai-dlc
// spot priced in a currency other than CNY, since SpotPriceLimit is CNY per minute).
Result<DeployFiles> RenderPlatformDeploy(DeployTarget target, const Workload& w,
                                         const planner::Candidate& c, const InstanceType& type,
                                         const DeployOptions& options);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_PLATFORM_DEPLOY_H_
