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
                          double required_mbs) {
  StoragePlan s;
  s.required_mbs = required_mbs;
  const double data_gib = w.dataset.size_gb ? *w.dataset.size_gb * 1e9 / (1024.0 * 1024 * 1024) : 0;
  const double want_gib = std::max(100.0, std::ceil(data_gib * 1.2 + 50));  // room for checkpoints
  if (data_gib > 0 && data_gib < 0.5 * type.memory_gib && nodes == 1) {
    s.kind = "essd_pl1";
    s.size_gib = want_gib;
    s.expected_mbs = EssdMbs(s.size_gib, 350);
    s.why = "the dataset fits in the page cache (" + Num(type.memory_gib) +
            " GiB RAM): one ESSD PL1 disk is enough, reads come from memory after the first epoch";
    return s;
  }
  if (type.local_nvme_gib > 0 && (data_gib == 0 || data_gib * 1.2 < type.local_nvme_gib)) {
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

ImagePlan ChooseImage(const Gpu& gpu, const InstanceType& type) {
  ImagePlan img;
  img.os = type.family.find("tee") != std::string::npos ? "Alibaba Cloud Linux 3 (required for TDX)"
           : type.arm                                   ? "Alibaba Cloud Linux 3 (arm64)"
                      : "Ubuntu 22.04 (deploy installs the NVIDIA driver) or Alibaba Cloud Linux 3 "
                        "with the driver";
  const std::string& arch = gpu.architecture;
  // Minimum versions per architecture: NVIDIA CUDA release notes and PyTorch wheel builds.
  if (arch == "Blackwell") {
    img.driver = ">= 570";
    img.cuda = "12.8 or newer";
    img.framework = "PyTorch >= 2.7 (cu128 wheels)";
    img.why = "Blackwell (sm_120) needs CUDA 12.8+; older wheels lack its kernels";
  } else if (arch == "Hopper") {
    img.driver = ">= 535";
    img.cuda = "12.4 or newer (FP8 needs 12.1+ and Transformer Engine)";
    img.framework = "PyTorch >= 2.4";
    img.why = "Hopper (sm_90) runs best on CUDA 12 with FlashAttention 2/3 and FP8";
  } else if (arch == "Ada Lovelace") {
    img.driver = ">= 535";
    img.cuda = "12.x";
    img.framework = "PyTorch >= 2.1";
    img.why = "Ada (sm_89) FP8 needs CUDA 12.1+";
  } else if (arch == "Ampere" || arch == "Turing") {
    img.driver = ">= 535";
    img.cuda = "12.x";
    img.framework = "PyTorch 2.x";
    img.why = arch + " is supported by every current CUDA 12 and 13 release";
  } else {
    img.driver = "535 or 550 branch";
    img.cuda = "12.x (CUDA 13 dropped " + arch + ")";
    img.framework =
        "PyTorch 2.x cu12x builds that still include sm_" +
        std::string(gpu.compute_capability.size() >= 3
                        ? gpu.compute_capability.substr(0, 1) + gpu.compute_capability.substr(2, 1)
                        : "?");
    img.why = arch + " is a legacy architecture: pin CUDA 12 images";
  }
  return img;
}

}  // namespace gpuplan::planner
