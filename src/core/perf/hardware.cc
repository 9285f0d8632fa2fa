// Hardware descriptions: the links of an instance type or a reference GPU cluster, and the
// names of breakdown parts.
#include <algorithm>

#include "gpuplan/enum_names.h"
#include "gpuplan/estimate.h"

namespace gpuplan::perf {

constexpr EnumNames<LinkKind, 4> kLinkKindNames = {{{LinkKind::kNone, "none"},
                                                    {LinkKind::kPcie, "pcie"},
                                                    {LinkKind::kNvlink, "nvlink"},
                                                    {LinkKind::kNvswitch, "nvswitch"}}};
std::string_view LinkKindName(LinkKind k) { return NameOf(kLinkKindNames, k); }

std::array<std::pair<std::string_view, double>, MemoryBreakdown::kParts> MemoryBreakdown::Named()
    const {
  return {{{"weights", weights},
           {"gradients", gradients},
           {"optimizer", optimizer},
           {"adapters", adapters},
           {"activations", activations},
           {"kv_cache", kv_cache},
           {"transient", transient},
           {"overhead", overhead}}};
}

std::array<std::pair<std::string_view, double>, TimeBreakdown::kParts> TimeBreakdown::Named()
    const {
  return {{{"compute", compute},
           {"tp_comm", tp_comm},
           {"pp_bubble", pp_bubble},
           {"pp_comm", pp_comm},
           {"dp_comm", dp_comm},
           {"optimizer", optimizer},
           {"offload", offload},
           {"data", data},
           {"cp_comm", cp_comm},
           {"ep_comm", ep_comm}}};
}

Hardware HardwareFor(const Gpu& gpu, int gpus, int gpus_per_node, const Architecture* arch) {
  Hardware hw;
  hw.gpu = &gpu;
  hw.gpus_per_node = std::max(1, std::min(gpus, gpus_per_node));
  hw.nodes = std::max(1, static_cast<int>((static_cast<long long>(gpus) + hw.gpus_per_node - 1) /
                                          hw.gpus_per_node));
  if (hw.gpus_per_node > 1) {
    // NVLink bandwidth in the catalog is bidirectional per GPU; a ring uses one direction.
    if (gpu.nvlink_gbs > 0) {
      hw.intra_link = LinkKind::kNvlink;
      hw.intra_gbs = gpu.nvlink_gbs / 2;
    } else {
      hw.intra_link = LinkKind::kPcie;
      hw.intra_gbs = gpu.PcieGbs();
    }
  }
  if (hw.nodes > 1 && arch != nullptr) {
    // Default cross-node fabric when the caller knows nothing: NVIDIA's DGX/HGX reference
    // designs give each GPU its own RDMA NIC (architectures.csv reference_nic_gbps).
    hw.inter_node_gbps = arch->reference_nic_gbps * hw.gpus_per_node;
    hw.rdma = true;
  }
  hw.gpu_memory_gib = gpu.EffectiveMemoryGib();
  return hw;
}

Result<Hardware> HardwareFor(const Catalog& catalog, const InstanceType& type, int nodes) {
  if (nodes < 1)
    return Status::InvalidArgument("nodes must be >= 1");
  const Gpu* gpu = catalog.FindGpu(type.gpu);
  if (gpu == nullptr) {
    return Status::NotFound("instance type " + type.name + ": unknown GPU \"" + type.gpu + "\"");
  }
  if (type.vgpu()) {
    return Status::Unsupported("instance type " + type.name +
                               " is a vGPU slice; training and serving estimates need whole GPUs");
  }
  Hardware hw;
  hw.gpu = gpu;
  hw.gpus_per_node = type.whole_gpus();
  hw.nodes = nodes;
  switch (type.interconnect) {
    case Interconnect::kNvswitch:
      hw.intra_link = LinkKind::kNvswitch;
      hw.intra_gbs = gpu->nvlink_gbs / 2;
      break;
    case Interconnect::kNvlink:
      hw.intra_link = LinkKind::kNvlink;
      hw.intra_gbs = gpu->nvlink_gbs / 2;
      break;
    case Interconnect::kPcie:
      hw.intra_link = LinkKind::kPcie;
      hw.intra_gbs = gpu->PcieGbs();
      break;
  }
  if (hw.gpus_per_node <= 1) {
    hw.intra_link = LinkKind::kNone;
    hw.intra_gbs = 0;
  }
  hw.host_memory_gib = type.memory_gib;
  hw.host_vcpus = type.vcpu;
  if (nodes > 1) {
    hw.rdma = type.rdma;
    hw.inter_node_gbps = type.rdma && type.rdma_gbps ? *type.rdma_gbps : type.network_gbps;
  }
  // A GPU slice of an instance may expose less memory than the full GPU.
  hw.gpu_memory_gib =
      std::min(gpu->EffectiveMemoryGib(),
               type.gpu_memory_gib > 0 ? type.gpu_memory_gib : gpu->EffectiveMemoryGib());
  return hw;
}

}  // namespace gpuplan::perf
