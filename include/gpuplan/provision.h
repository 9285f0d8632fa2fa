// Storage and software image recommendations that are part of every plan.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_PROVISION_H_
#define GPUPLAN_INCLUDE_GPUPLAN_PROVISION_H_

#include "gpuplan/plan.h"

namespace gpuplan::planner {

// Where to keep the dataset so that `required_mbs` (0 = unknown) is sustained, given the
// instance's local NVMe and RAM and the node count. Throughput formulas: ESSD PL1-PL3 and CPFS
// from Alibaba's docs (reference section 5).
StoragePlan ChooseStorage(const Workload& w, const InstanceType& type, int nodes,
                          double required_mbs);

// OS, driver, CUDA and framework versions that support `gpu`'s architecture.
ImagePlan ChooseImage(const Gpu& gpu, const InstanceType& type);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_INCLUDE_GPUPLAN_PROVISION_H_
