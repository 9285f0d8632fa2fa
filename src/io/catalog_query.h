// Catalog listings with filters, as `gpuplan catalog gpus|instances|families --json` prints them
// and `GET /v1/catalog/...` serves them: one implementation, so both give the same rows and JSON.
//
// Thread safety: pure functions over a const Catalog.
#ifndef GPUPLAN_SRC_IO_CATALOG_QUERY_H_
#define GPUPLAN_SRC_IO_CATALOG_QUERY_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/status.h"
#include "io/field_spelling.h"

namespace gpuplan::io {

// Filters of the instance listing; every default keeps every row.
struct InstanceFilter {
  std::string gpu;            // GPU name or alias (A10, A100-80G, H20 ...)
  double min_gpu_memory = 0;  // GiB per GPU
  double min_gpus = 0;        // GPUs per instance
  bool rdma = false;          // only eRDMA types
  std::string family;         // gn7i ...
  std::string status;         // current|legacy|retired|preview
  std::string region;         // only types with a known price there
};

// InvalidArgument for an unknown GPU (with suggestions), family or status; messages name the
// field as `spelling` says.
Status CheckInstanceFilter(const Catalog& c, const InstanceFilter& f, FieldSpelling spelling);

// The instance types that pass `f` (checked), in catalog order.
std::vector<const InstanceType*> MatchInstances(const Catalog& c, const InstanceFilter& f);

// The cheapest pay-as-you-go hourly price of `instance` (in `region` when not empty), or nullptr.
const Price* CheapestPayg(const Catalog& c, const std::string& instance, const std::string& region);

// [InstanceJson + "payg_price": PriceJson or null] for MatchInstances(c, f).
nlohmann::json InstanceListJson(const Catalog& c, const InstanceFilter& f);

// The GPUs with at least `min_memory_gib` (and shipped by Alibaba when `alibaba_only`), and
// whether one passes.
bool GpuMatches(const Gpu& g, double min_memory_gib, bool alibaba_only);
nlohmann::json GpuListJson(const Catalog& c, double min_memory_gib, bool alibaba_only);

// Instance types of `family` in the catalog.
int FamilyTypeCount(const Catalog& c, const Family& family);
// [FamilyJson + "types": count].
nlohmann::json FamilyListJson(const Catalog& c);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_CATALOG_QUERY_H_
