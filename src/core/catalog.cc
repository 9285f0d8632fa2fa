#include "gpuplan/catalog.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "gpuplan/strings.h"

namespace gpuplan {
namespace {

// The name without the prefix, so that "gn7i-c8g1.2xlarge" finds "ecs.gn7i-c8g1.2xlarge" and
// suggestions compare families ("gn7-m20" -> gn7-*).
std::string InstanceKey(std::string_view name) {
  return NormalizeInstanceName(name).substr(kInstancePrefix.size());
}

// Drops spaces, dashes and underscores so "A100 80GB", "a100-80gb" and "A100_80GB" compare equal.
std::string GpuKey(std::string_view name) {
  std::string key;
  for (char c : strings::Lower(name)) {
    if (c != ' ' && c != '-' && c != '_')
      key.push_back(c);
  }
  return key;
}

std::vector<std::string> Closest(std::string_view name, const std::vector<std::string>& known,
                                 int limit, std::string (*key)(std::string_view)) {
  const std::string wanted = key(name);
  std::vector<std::pair<int, std::string>> scored;
  for (const std::string& k : known) {
    const std::string candidate = key(k);
    int score = strings::EditDistance(wanted, candidate);
    // Same family (text before the first '-' or '.') is a strong hint: "gn7-m20" -> gn7-*.
    const auto stem = [](const std::string& s) { return s.substr(0, s.find_first_of("-.")); };
    if (stem(wanted) == stem(candidate))
      score -= 3;
    if (candidate.find(wanted) != std::string::npos)
      score -= 2;
    scored.emplace_back(score, k);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [score, k] : scored) {
    if (static_cast<int>(out.size()) >= limit)
      break;
    if (score > static_cast<int>(wanted.size()))
      break;  // Too far to be a typo.
    out.push_back(k);
  }
  return out;
}

std::string Where(const Provenance& p) { return p.origin.empty() ? "catalog" : p.origin; }

}  // namespace

std::string NormalizeInstanceName(std::string_view name) {
  std::string out = strings::Lower(name);
  if (!out.empty() && !out.starts_with(kInstancePrefix))
    out.insert(0, kInstancePrefix);
  return out;
}

std::string GpuVendorChoices() {
  std::vector<std::string> lower;
  for (const std::string& name : NameItems(kGpuVendorNames))
    lower.push_back(strings::Lower(name));
  return JoinChoices(lower);
}

double Gpu::PcieGbs() const {
  switch (pcie_gen) {
    case 3:
      return 16;  // PCIe 3.0 x16: 8 GT/s x 16 lanes, 128b/130b ~= 15.75 GB/s per direction.
    case 4:
      return 32;  // PCIe 4.0 x16: ~31.5 GB/s per direction.
    case 5:
      return 64;  // PCIe 5.0 x16: ~63 GB/s per direction.
    default:
      return 0;
  }
}

int Architecture::Sm() const {
  const std::string& cc = compute_capability;
  const size_t dot = cc.find('.');
  if (dot == 0 || dot == std::string::npos || dot + 2 != cc.size())
    return 0;
  int major = 0;
  for (size_t i = 0; i < dot; ++i) {
    if (cc[i] < '0' || cc[i] > '9')
      return 0;
    major = major * 10 + (cc[i] - '0');
  }
  const char minor = cc[dot + 1];
  if (minor < '0' || minor > '9')
    return 0;
  return major * 10 + (minor - '0');
}

// The exact spelling is tried first: the tool's own lookups use the catalog's names, and a
// validated catalog has one entry per key (Validate), so it is the entry the key finds.
const Gpu* Catalog::FindGpu(std::string_view name) const {
  for (const Gpu& g : gpus) {
    if (g.name == name)
      return &g;
  }
  const std::string key = GpuKey(name);
  for (const Gpu& g : gpus) {
    if (GpuKey(g.name) == key)
      return &g;
  }
  for (const Gpu& g : gpus) {
    for (const std::string& alias : g.aliases) {
      if (GpuKey(alias) == key)
        return &g;
    }
  }
  return nullptr;
}

const InstanceType* Catalog::FindInstance(std::string_view name) const {
  for (const InstanceType& t : instances) {
    if (t.name == name)
      return &t;
  }
  const std::string key = InstanceKey(name);
  for (const InstanceType& t : instances) {
    if (InstanceKey(t.name) == key)
      return &t;
  }
  return nullptr;
}

const Family* Catalog::FindFamily(std::string_view name) const {
  const std::string key = strings::Lower(name);
  for (const Family& f : families) {
    if (strings::Lower(f.name) == key)
      return &f;
  }
  return nullptr;
}

const StorageClass* FindStorage(const std::vector<StorageClass>& storage, std::string_view kind) {
  for (const StorageClass& s : storage) {
    if (s.kind == kind)
      return &s;
  }
  return nullptr;
}

std::optional<double> StorageClass::ThroughputMbs(double gib) const {
  if (!base_mbs || !mbs_per_gib)
    return std::nullopt;
  const double linear = *base_mbs + *mbs_per_gib * gib;
  return max_mbs ? std::min(linear, *max_mbs) : linear;
}

std::optional<double> StorageClass::GibAtMaxMbs() const {
  if (!base_mbs || !mbs_per_gib || !max_mbs || !(*mbs_per_gib > 0))
    return std::nullopt;
  return std::max(0.0, (*max_mbs - *base_mbs) / *mbs_per_gib);
}

const Gpu& Catalog::GpuOf(const InstanceType& t) const {
  const Gpu* gpu = FindGpu(t.gpu);
  assert(gpu != nullptr);
  return *gpu;
}

const Architecture* Catalog::ArchitectureOf(const Gpu& gpu) const {
  for (const Architecture& a : architectures) {
    if (a.compute_capability == gpu.compute_capability)
      return &a;
  }
  return nullptr;
}

std::vector<std::string> Catalog::SuggestInstances(std::string_view name, int limit) const {
  std::vector<std::string> names;
  for (const InstanceType& t : instances)
    names.push_back(t.name);
  return Closest(name, names, limit, InstanceKey);
}

std::vector<std::string> Catalog::SuggestGpus(std::string_view name, int limit) const {
  std::vector<std::string> names;
  for (const Gpu& g : gpus)
    names.push_back(g.name);
  return Closest(name, names, limit, GpuKey);
}

namespace {

// What Catalog::Validate finds, in the order it checks the tables; each message starts with
// where the row came from.
struct CatalogIssues {
  std::vector<CatalogIssue> errors, warnings;
  void Error(const Provenance& p, const std::string& what) {
    errors.push_back({true, Where(p) + ": " + what});
  }
  void Warn(const Provenance& p, const std::string& what) {
    warnings.push_back({false, Where(p) + ": " + what});
  }
};

void CheckArchitectures(const Catalog& c, CatalogIssues& out) {
  const std::vector<Architecture>& architectures = c.architectures;
  std::set<std::string> seen;
  for (const Architecture& a : architectures) {
    if (!seen.insert(a.compute_capability).second) {
      out.Error(a.provenance, "duplicate compute capability \"" + a.compute_capability + "\"");
    }
  }
}

// Also clears each GPU's `alibaba` flag, which CheckInstances sets again.
void CheckGpus(Catalog& c, CatalogIssues& out) {
  std::set<std::string> seen;
  for (Gpu& g : c.gpus) {
    g.alibaba = false;
    if (!seen.insert(GpuKey(g.name)).second)
      out.Error(g.provenance, "duplicate GPU \"" + g.name + "\"");
    if (g.memory_gib <= 0)
      out.Error(g.provenance, "GPU \"" + g.name + "\": memory_gib must be > 0");
    if (g.usable_memory_gib && *g.usable_memory_gib > g.memory_gib * 1.08) {
      out.Error(g.provenance, "GPU \"" + g.name + "\": usable memory exceeds nominal memory");
    }
    if (g.memory_bandwidth_gbs <= 0) {
      out.Error(g.provenance, "GPU \"" + g.name + "\": memory_bandwidth_gbs must be > 0");
    }
    // Tensor-core FP16 is never below FP32 on any NVIDIA GPU since Pascal; a lower value means
    // the columns were swapped.
    auto fp16 = g.Tflops(Precision::kFp16), fp32 = g.Tflops(Precision::kFp32);
    if (fp16 && fp32 && *fp16 < *fp32) {
      out.Error(g.provenance, "GPU \"" + g.name + "\": fp16 TFLOPS below fp32; columns swapped?");
    }
    // The architecture row is looked up by compute capability; it must be the same generation.
    if (const Architecture* a = c.ArchitectureOf(g)) {
      if (a->architecture != g.architecture) {
        out.Error(g.provenance, "GPU \"" + g.name + "\": architecture \"" + g.architecture +
                                    "\" but compute capability " + g.compute_capability + " is \"" +
                                    a->architecture + "\" in architectures.csv (" +
                                    Where(a->provenance) + ")");
      }
    } else {
      out.Warn(g.provenance, "GPU \"" + g.name + "\": compute capability \"" +
                                 g.compute_capability +
                                 "\" has no row in architectures.csv: its driver, CUDA and image "
                                 "are unknown (add the row from NVIDIA's CUDA GPU list, "
                                 "developer.nvidia.com/cuda-gpus, and the CUDA release notes)");
    }
  }
}

void CheckFamilies(const Catalog& c, CatalogIssues& out) {
  std::set<std::string> seen;
  for (const Family& f : c.families) {
    if (!seen.insert(strings::Lower(f.name)).second) {
      out.Error(f.provenance, "duplicate family \"" + f.name + "\"");
    }
    if (!c.FindGpu(f.gpu))
      out.Error(f.provenance, "family \"" + f.name + "\": unknown GPU \"" + f.gpu + "\"");
  }
}

// Each instance type against its family and GPU; sets `alibaba` on the GPUs an instance uses.
void CheckInstances(Catalog& c, CatalogIssues& out) {
  std::set<std::string> seen;
  for (const InstanceType& t : c.instances) {
    const std::string what = "instance \"" + t.name + "\": ";
    if (!seen.insert(InstanceKey(t.name)).second)
      out.Error(t.provenance, what + "duplicate name");
    if (NormalizeInstanceName(t.name) != strings::Lower(t.name))
      out.Error(t.provenance,
                what + "name must start with \"" + std::string(kInstancePrefix) + "\"");
    if (!c.FindFamily(t.family))
      out.Error(t.provenance, what + "unknown family \"" + t.family + "\"");
    Gpu* gpu = nullptr;
    for (Gpu& g : c.gpus) {
      if (&g == c.FindGpu(t.gpu))
        gpu = &g;
    }
    if (!gpu) {
      std::string hint;
      auto near = c.SuggestGpus(t.gpu, 1);
      if (!near.empty())
        hint = "; did you mean \"" + near[0] + "\"?";
      out.Error(t.provenance, what + "unknown GPU \"" + t.gpu + "\"" + hint);
      continue;
    }
    gpu->alibaba = true;
    if (t.gpu_count <= 0 || t.gpu_count > 16) {
      out.Error(t.provenance, what + "gpu_count must be in (0, 16]");
    }
    if (t.gpu_count >= 1 && std::abs(t.gpu_count - std::round(t.gpu_count)) > 1e-9) {
      out.Error(t.provenance, what + "gpu_count above 1 must be a whole number");
    }
    // The per-GPU memory must match the GPU model (a slice gets its share).
    const double expected = gpu->memory_gib * std::min(1.0, t.gpu_count);
    if (std::abs(t.gpu_memory_gib - expected) > 0.05 * expected + 0.5) {
      out.Error(t.provenance, what + "gpu_memory_gib " + strings::Num(t.gpu_memory_gib) +
                                  " does not match " + gpu->name + " (" + strings::Num(expected) +
                                  " GiB per GPU)");
    }
    if (t.vcpu <= 0)
      out.Error(t.provenance, what + "vcpu must be > 0");
    if (t.memory_gib <= 0)
      out.Error(t.provenance, what + "memory_gib must be > 0");
    const double per_gpu = std::max(t.gpu_count, 1.0);
    if (t.vcpu > 0 && (t.vcpu / per_gpu < 2 || t.vcpu / per_gpu > 128)) {
      out.Warn(t.provenance,
               what + "unusual vCPU per GPU (" + strings::Num(t.vcpu / per_gpu) + ")");
    }
    if (t.memory_gib > 0 && t.vcpu > 0 &&
        (t.memory_gib / t.vcpu < 1 || t.memory_gib / t.vcpu > 16)) {
      out.Warn(t.provenance,
               what + "unusual RAM per vCPU (" + strings::Num(t.memory_gib / t.vcpu) + " GiB)");
    }
    if (t.rdma_gbps && !t.rdma)
      out.Error(t.provenance, what + "rdma_gbps given but rdma is no");
  }
}

void CheckPrices(const Catalog& c, CatalogIssues& out) {
  for (const Price& p : c.prices) {
    if (!c.FindInstance(p.instance)) {
      out.Error(p.provenance, "price for unknown instance \"" + p.instance + "\"");
    }
    if (p.amount <= 0)
      out.Error(p.provenance, "price must be > 0 (leave unknown prices out)");
    if (p.currency != "CNY" && p.currency != "USD") {
      out.Error(p.provenance, "currency must be CNY or USD, got \"" + p.currency + "\"");
    }
  }
}

}  // namespace

std::vector<CatalogIssue> Catalog::Validate() {
  CatalogIssues out;
  CheckArchitectures(*this, out);
  CheckGpus(*this, out);
  CheckFamilies(*this, out);
  CheckInstances(*this, out);
  CheckPrices(*this, out);
  out.errors.insert(out.errors.end(), out.warnings.begin(), out.warnings.end());
  return out.errors;
}

void Catalog::Overlay(const Catalog& other) {
  auto merge = [](auto& mine, const auto& theirs, auto same) {
    for (const auto& row : theirs) {
      auto it = std::find_if(mine.begin(), mine.end(), [&](const auto& m) { return same(m, row); });
      if (it != mine.end()) {
        *it = row;
      } else {
        mine.push_back(row);
      }
    }
  };
  merge(gpus, other.gpus,
        [](const Gpu& a, const Gpu& b) { return GpuKey(a.name) == GpuKey(b.name); });
  merge(families, other.families, [](const Family& a, const Family& b) {
    return strings::Lower(a.name) == strings::Lower(b.name);
  });
  merge(instances, other.instances, [](const InstanceType& a, const InstanceType& b) {
    return InstanceKey(a.name) == InstanceKey(b.name);
  });
  merge(architectures, other.architectures, [](const Architecture& a, const Architecture& b) {
    return a.compute_capability == b.compute_capability;
  });
  merge(prices, other.prices, [](const Price& a, const Price& b) {
    return std::tie(a.instance, a.region, a.zone, a.billing, a.origin) ==
           std::tie(b.instance, b.region, b.zone, b.billing, b.origin);
  });
}

}  // namespace gpuplan
