// Which instance types a plan considers (src/core/plan/candidates.h).
#include "plan/candidates.h"

#include <algorithm>
#include <set>

#include "gpuplan/strings.h"

namespace gpuplan::planner {
namespace {

using strings::Num;

bool ListedIn(const std::vector<std::string>& list, const std::string& value) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& x) {
    return strings::Lower(x) == strings::Lower(value);
  });
}

}  // namespace

// A service (Workload::IsService) runs around the clock and cannot be reclaimed at will: by
// default it is priced pay-as-you-go and by subscription, and spot only when the workload lists
// it. A job defaults to pay-as-you-go and spot.
std::vector<Billing> AllowedModes(const Workload& w) {
  std::vector<Billing> modes;
  const auto& listed = w.constraints.billing;
  const bool service = w.IsService();
  for (const BillingMode& m : kBillingModes) {
    const bool allowed = listed.empty()
                             ? (service ? m.service_default : m.job_default)
                             : std::find(listed.begin(), listed.end(), m.billing) != listed.end();
    if (!allowed || !m.costed)
      continue;
    if (m.billing == Billing::kSpot && w.constraints.no_spot)
      continue;
    modes.push_back(m.billing);
  }
  return modes;
}

bool VendorExcluded(const Constraints& c, GpuVendor v) {
  return std::find(c.exclude_vendors.begin(), c.exclude_vendors.end(), v) !=
         c.exclude_vendors.end();
}

std::string EveryVendorExcluded(const Constraints& c, const Catalog& catalog) {
  if (c.exclude_vendors.empty())
    return "";
  std::set<GpuVendor> offered;
  for (const InstanceType& t : catalog.instances) {
    if (const Gpu* g = catalog.FindGpu(t.gpu))
      offered.insert(g->vendor);
  }
  std::string names;
  for (GpuVendor v : offered) {
    if (!VendorExcluded(c, v))
      return "";
    names += (names.empty() ? "" : " or ") + std::string(GpuVendorName(v));
  }
  return "every GPU in the instance catalog is " + names +
         ", and constraints.exclude_vendors excludes it: no instance fits";
}

std::string Filter(const Workload& w, const Catalog& catalog, const Calibration& cal,
                   const InstanceType& t, const Gpu& g) {
  const Constraints& c = w.constraints;
  if (VendorExcluded(c, g.vendor)) {
    return "vendor " + std::string(GpuVendorName(g.vendor)) +
           " excluded by constraints.exclude_vendors";
  }
  if (!c.include_families.empty() && !ListedIn(c.include_families, t.family)) {
    return "family " + t.family + " not in constraints.include_families";
  }
  if (ListedIn(c.exclude_families, t.family))
    return "family " + t.family + " excluded by constraints";
  auto gpu_listed = [&](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(), [&](const std::string& name) {
      const Gpu* x = catalog.FindGpu(name);
      return x && x->name == g.name;
    });
  };
  if (!c.include_gpus.empty() && !gpu_listed(c.include_gpus))
    return g.name + " not in constraints.include_gpus";
  if (gpu_listed(c.exclude_gpus))
    return g.name + " excluded by constraints";
  if (t.status == Lifecycle::kRetired)
    return t.family + " is retired (no longer sold)";
  if (c.min_gpu_memory_gib && t.gpu_memory_gib < *c.min_gpu_memory_gib) {
    return Num(t.gpu_memory_gib) + " GiB per GPU, constraints ask for " +
           Num(*c.min_gpu_memory_gib);
  }
  if (t.vgpu() && w.task != Task::kRendering) {
    return "vGPU slice (" + Num(t.gpu_count) + " of a " + g.name + "): CUDA jobs need whole GPUs";
  }
  if (w.task == Task::kRendering || c.need_graphics) {
    // Graphics APIs need a GRID/vWS licence or a graphics-capable card: data-centre compute
    // GPUs (gpus.csv compute_only: A100, H20, A30, V100, P100) have no display engines for
    // rendering APIs.
    if (g.compute_only)
      return g.name +
             " is a compute GPU without graphics API support (no RT cores, no vWS licence)";
  }
  if (c.need_fp64 || w.task == Task::kHpc) {
    const double fp64 = g.Tflops(Precision::kFp64).value_or(0);
    if (fp64 < cal.hpc_min_fp64_tflops) {
      return g.name + " has " + (fp64 > 0 ? Num(fp64) + " FP64 TFLOPS" : "no usable FP64") +
             "; FP64 work needs A100/A30/V100/P100-class GPUs";
    }
  }
  if (w.task != Task::kRendering && w.task != Task::kHpc &&
      !g.Tflops(ComputesAs(g, w.precision, w.task == Task::kInference))) {
    return g.name + " has no " + std::string(PrecisionName(w.precision)) + " units" +
           (w.precision == Precision::kBf16 ? " (set precision: fp16 to use it)" : "");
  }
  if (t.arm && w.IsTraining())
    return "ARM host (" + t.family + "): x86 training stacks do not run";
  return "";
}

std::vector<int> NodeCounts(const Workload& w, const InstanceType& t, const PlanOptions& o) {
  const int per_node = t.whole_gpus();
  int max_nodes = w.constraints.max_nodes.value_or(o.default_max_nodes);
  if (w.constraints.max_gpus)
    max_nodes = std::min(max_nodes, *w.constraints.max_gpus / std::max(per_node, 1));
  // Every count, not only powers of two: 12 nodes can be cheaper than 16 for the same deadline
  // (the layout search finds which degrees divide each). Serving scales by independent copies;
  // a copy spans nodes only when it needs to (the caller stops at the first count that fits).
  std::vector<int> out;
  for (int n = 1; n <= max_nodes; ++n)
    out.push_back(n);
  return out;
}

}  // namespace gpuplan::planner
