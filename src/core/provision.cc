#include "gpuplan/provision.h"

#include <algorithm>
#include <cmath>

#include "gpuplan/strings.h"

namespace gpuplan::planner {
namespace {

using strings::Num;

// ESSD throughput per disk, MB/s: min{120 + 0.5 x GiB, cap} for PL1-PL3 (Alibaba ESSD doc, S16).
double EssdMbs(double gib, double cap) { return std::min(120 + 0.5 * gib, cap); }

}  // namespace

StoragePlan ChooseStorage(const Workload& w, const InstanceType& type, int nodes,
                          double required_mbs, const Calibration& cal) {
  StoragePlan s;
  s.required_mbs = required_mbs;
  const double data_gib = w.dataset.size_gb ? *w.dataset.size_gb * 1e9 / (1024.0 * 1024 * 1024) : 0;
  const double want_gib =  // the dataset with room for checkpoints
      std::max(cal.min_data_disk_gib,
               std::ceil(data_gib * cal.dataset_disk_factor + cal.disk_headroom_gib));
  if (data_gib > 0 && data_gib < cal.page_cache_fraction * type.memory_gib && nodes == 1) {
    s.kind = "essd_pl1";
    s.size_gib = want_gib;
    s.expected_mbs = EssdMbs(s.size_gib, 350);
    s.why = "the dataset fits in the page cache (" + Num(type.memory_gib) +
            " GiB RAM): one ESSD PL1 disk is enough, reads come from memory after the first epoch";
    return s;
  }
  if (type.local_nvme_gib > 0 &&
      (data_gib == 0 || data_gib * cal.dataset_disk_factor < type.local_nvme_gib)) {
    s.kind = "local_nvme";
    s.size_gib = type.local_nvme_gib;
    s.expected_mbs = 1000 * std::max(1.0, type.gpu_count);  // NVMe SSDs: >= 1 GB/s each
    s.why = "the instance has " + Num(type.local_nvme_gib) +
            " GiB local NVMe: copy the data there (it is lost when the instance is released; "
            "keep the master copy on OSS)";
    return s;
  }
  if (nodes > 1) {
    // CPFS general purpose 200 MB/s/TiB class: throughput min{0.2 x GiB, 45000} MB/s (S17).
    s.kind = "cpfs";
    s.size_gib = std::max(want_gib, std::ceil(required_mbs / 0.2));
    s.expected_mbs = std::min(0.2 * s.size_gib, 45000.0);
    s.why =
        "several nodes read the same data: a shared CPFS file system (200 MB/s per TiB class) "
        "sized for the read rate";
    return s;
  }
  // One node, no local NVMe: the smallest ESSD level that sustains the read rate.
  struct Level {
    const char* kind;
    double min_gib;
    double cap_mbs;
  };
  constexpr Level kLevels[] = {
      {"essd_pl1", 20, 350}, {"essd_pl2", 461, 750}, {"essd_pl3", 1261, 4000}};
  for (const Level& l : kLevels) {
    const double size = std::max({want_gib, l.min_gib, std::ceil((required_mbs - 120) / 0.5)});
    if (EssdMbs(size, l.cap_mbs) >= required_mbs || l.cap_mbs == 4000) {
      s.kind = l.kind;
      s.size_gib = size;
      s.expected_mbs = EssdMbs(size, l.cap_mbs);
      s.why = std::string(l.kind) + " of " + Num(size) + " GiB gives " + Num(s.expected_mbs) +
              " MB/s (min{120 + 0.5 x GiB, " + Num(l.cap_mbs) + "}), enough for " +
              (required_mbs > 0 ? Num(required_mbs) + " MB/s" : std::string("this job"));
      break;
    }
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
