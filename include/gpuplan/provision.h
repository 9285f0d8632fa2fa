// Storage and software image recommendations that are part of every plan.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_PROVISION_H_
#define GPUPLAN_INCLUDE_GPUPLAN_PROVISION_H_

#include "gpuplan/calibration.h"
#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"

namespace gpuplan::planner {

// Where to keep the dataset so that `required_mbs` (0 = unknown) is sustained, given the
// instance's local NVMe and RAM and the node count. Sizes and throughput formulas of ESSD
// PL1-PL3, CPFS and local NVMe come from `storage` (Catalog::storage, data/storage.csv); a class
// whose throughput no source gives gets expected_mbs 0 (unknown), said so in `why`. Disk sizes
// and the page-cache share come from `cal`.
StoragePlan ChooseStorage(const Workload& w, const InstanceType& type, int nodes,
                          double required_mbs, const Calibration& cal,
                          const std::vector<StorageClass>& storage);

// OS for the instance type, and the driver, CUDA and framework versions of `gpu`'s compute
// capability from its architectures.csv row `arch` (Catalog::ArchitectureOf); nullptr = unknown,
// said so with where to look.
ImagePlan ChooseImage(const Architecture* arch, const Gpu& gpu, const InstanceType& type);

}  // namespace gpuplan::planner

#endif  // GPUPLAN_INCLUDE_GPUPLAN_PROVISION_H_
