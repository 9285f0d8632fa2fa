#include "gpuplan/provision.h"

#include <algorithm>
#include <cmath>

#include "gpuplan/strings.h"

namespace gpuplan::planner {
namespace {

using strings::Num;

// The throughput of `gib` of `kind`, MB/s; 0 when the row or its formula is missing (unknown).
double Mbs(const StorageClass* kind, double gib) {
  return kind ? kind->ThroughputMbs(gib).value_or(0) : 0;
}

// "min{120 + 0.5 x GiB, 350}": the row's formula as its source writes it.
std::string Formula(const StorageClass& k) {
  return "min{" + Num(k.base_mbs.value_or(0)) + " + " + Num(k.mbs_per_gib.value_or(0)) +
         " x GiB, " + Num(k.max_mbs.value_or(0)) + "}";
}

}  // namespace

StoragePlan ChooseStorage(const Workload& w, const InstanceType& type, int nodes,
                          double required_mbs, const Calibration& cal,
                          const std::vector<StorageClass>& storage) {
  auto find = [&](std::string_view kind) { return FindStorage(storage, kind); };
  StoragePlan s;
  s.required_mbs = required_mbs;
  const double data_gib = w.dataset.size_gb ? *w.dataset.size_gb * 1e9 / (1024.0 * 1024 * 1024) : 0;
  const double want_gib =  // the dataset with room for checkpoints
      std::max(cal.min_data_disk_gib,
               std::ceil(data_gib * cal.dataset_disk_factor + cal.disk_headroom_gib));
  if (data_gib > 0 && data_gib < cal.page_cache_fraction * type.memory_gib && nodes == 1) {
    s.kind = "essd_pl1";
    s.size_gib = want_gib;
    s.expected_mbs = Mbs(find("essd_pl1"), s.size_gib);
    s.why = "the dataset fits in the page cache (" + Num(type.memory_gib) +
            " GiB RAM): one ESSD PL1 disk is enough, reads come from memory after the first epoch";
    return s;
  }
  if (type.local_nvme_gib > 0 &&
      (data_gib == 0 || data_gib * cal.dataset_disk_factor < type.local_nvme_gib)) {
    s.kind = "local_nvme";
    s.size_gib = type.local_nvme_gib;
    // The sources give no throughput for the local disks (data/storage.csv): unknown, not a
    // guess.
    s.expected_mbs = Mbs(find("local_nvme"), s.size_gib);
    s.why = "the instance has " + Num(type.local_nvme_gib) +
            " GiB local NVMe: copy the data there (it is lost when the instance is released; "
            "keep the master copy on OSS)";
    if (s.expected_mbs == 0)
      s.why += "; its throughput is not documented: measure it (fio) before relying on it";
    return s;
  }
  if (nodes > 1) {
    // CPFS general purpose, 200 MB/s per TiB class (its storage.csv row).
    const StorageClass* cpfs = find("cpfs");
    s.kind = "cpfs";
    s.size_gib = want_gib;
    if (cpfs && cpfs->mbs_per_gib && *cpfs->mbs_per_gib > 0) {
      s.size_gib = std::max(want_gib, std::ceil(required_mbs / *cpfs->mbs_per_gib));
    }
    s.expected_mbs = Mbs(cpfs, s.size_gib);
    s.why =
        "several nodes read the same data: a shared CPFS file system (200 MB/s per TiB class) "
        "sized for the read rate";
    return s;
  }
  // One node, no local NVMe: the smallest ESSD level that sustains the read rate, else the
  // fastest.
  const StorageClass* levels[] = {find("essd_pl1"), find("essd_pl2"), find("essd_pl3")};
  for (const StorageClass* l : levels) {
    if (l == nullptr || !l->ThroughputMbs(0))
      continue;
    double size = std::max(want_gib, l->min_gib.value_or(0));
    if (*l->mbs_per_gib > 0)
      size = std::max(size, std::ceil((required_mbs - *l->base_mbs) / *l->mbs_per_gib));
    s.kind = l->kind;
    s.size_gib = size;
    s.expected_mbs = Mbs(l, size);
    s.why = l->kind + " of " + Num(size) + " GiB gives " + Num(s.expected_mbs) + " MB/s (" +
            Formula(*l) + "), enough for " +
            (required_mbs > 0 ? Num(required_mbs) + " MB/s" : std::string("this job"));
    if (s.expected_mbs >= required_mbs)
      break;
  }
  return s;
}

ImagePlan ChooseImage(const Architecture* arch, const Gpu& gpu, const InstanceType& type) {
  ImagePlan img;
  img.os = type.family.find("tee") != std::string::npos ? "Alibaba Cloud Linux 3 (required for TDX)"
           : type.arm                                   ? "Alibaba Cloud Linux 3 (arm64)"
                      : "Ubuntu 22.04 (deploy installs the NVIDIA driver) or Alibaba Cloud Linux 3 "
                        "with the driver";
  if (arch == nullptr) {
    // Unknown stays unknown: say where the versions are found.
    img.driver = "unknown";
    img.cuda = "unknown";
    img.framework = "unknown";
    img.why = "no architectures.csv row for " + gpu.name + " (compute capability " +
              (gpu.compute_capability.empty() ? std::string("unknown") : gpu.compute_capability) +
              "): look it up in NVIDIA's CUDA GPU list (developer.nvidia.com/cuda-gpus) and the "
              "CUDA release notes' driver table";
    return img;
  }
  img.driver = arch->min_driver;
  img.cuda = arch->cuda;
  img.framework = arch->framework;
  img.why = arch->image_note;
  return img;
}

}  // namespace gpuplan::planner
