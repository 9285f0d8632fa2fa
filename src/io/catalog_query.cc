#include "io/catalog_query.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "gpuplan/strings.h"
#include "io/catalog_json.h"

namespace gpuplan::io {
namespace {

bool SoldIn(const Catalog& c, const std::string& instance, const std::string& region) {
  return std::any_of(c.prices.begin(), c.prices.end(),
                     [&](const Price& p) { return p.instance == instance && p.region == region; });
}

}  // namespace

Status CheckInstanceFilter(const Catalog& c, const InstanceFilter& f, FieldSpelling s) {
  if (!f.gpu.empty() && !c.FindGpu(f.gpu)) {
    auto near = c.SuggestGpus(f.gpu);
    return Status::InvalidArgument(
               fmt::format(
                   "{}: unknown GPU \"{}\"{}", FieldName(s, "gpu"), f.gpu,
                   near.empty() ? "" : fmt::format("; did you mean {}?", fmt::join(near, ", "))))
        .AtField("gpu");
  }
  if (!f.family.empty() && !c.FindFamily(f.family)) {
    return Status::InvalidArgument(
               fmt::format("{}: unknown family \"{}\" (see 'gpuplan catalog families')",
                           FieldName(s, "family"), f.family))
        .AtField("family");
  }
  if (!f.status.empty() && !ParseLifecycle(f.status)) {
    return Status::InvalidArgument(FieldName(s, "status") + ": expected " +
                                   NameChoices(kLifecycleNames) + ", got \"" + f.status + "\"")
        .AtField("status");
  }
  return Status::Ok();
}

std::vector<const InstanceType*> MatchInstances(const Catalog& c, const InstanceFilter& f) {
  const Gpu* want_gpu = f.gpu.empty() ? nullptr : c.FindGpu(f.gpu);
  std::vector<const InstanceType*> out;
  for (const InstanceType& t : c.instances) {
    if (want_gpu && t.gpu != want_gpu->name)
      continue;
    if (t.gpu_memory_gib < f.min_gpu_memory || t.gpu_count < f.min_gpus)
      continue;
    if (f.rdma && !t.rdma)
      continue;
    if (!f.family.empty() && strings::Lower(t.family) != strings::Lower(f.family))
      continue;
    if (!f.status.empty() && LifecycleName(t.status) != f.status)
      continue;
    if (!f.region.empty() && !SoldIn(c, t.name, f.region))
      continue;
    out.push_back(&t);
  }
  return out;
}

const Price* CheapestPayg(const Catalog& c, const std::string& instance,
                          const std::string& region) {
  const Price* best = nullptr;
  for (const Price& p : c.prices) {
    if (p.instance != instance || p.billing != Billing::kPayg || p.unit != "hour")
      continue;
    if (!region.empty() && p.region != region)
      continue;
    if (!best || (p.currency == best->currency && p.amount < best->amount))
      best = &p;
  }
  return best;
}

nlohmann::json InstanceListJson(const Catalog& c, const InstanceFilter& f) {
  nlohmann::json json = nlohmann::json::array();
  for (const InstanceType* t : MatchInstances(c, f)) {
    const Price* price = CheapestPayg(c, t->name, f.region);
    nlohmann::json j = InstanceJson(*t);
    j["payg_price"] = price ? PriceJson(*price) : nlohmann::json(nullptr);
    json.push_back(std::move(j));
  }
  return json;
}

bool GpuMatches(const Gpu& g, double min_memory_gib, bool alibaba_only) {
  return g.memory_gib >= min_memory_gib && (!alibaba_only || g.alibaba);
}

nlohmann::json GpuListJson(const Catalog& c, double min_memory_gib, bool alibaba_only) {
  nlohmann::json json = nlohmann::json::array();
  for (const Gpu& g : c.gpus) {
    if (GpuMatches(g, min_memory_gib, alibaba_only))
      json.push_back(GpuJson(g));
  }
  return json;
}

int FamilyTypeCount(const Catalog& c, const Family& family) {
  return static_cast<int>(
      std::count_if(c.instances.begin(), c.instances.end(),
                    [&](const InstanceType& t) { return t.family == family.name; }));
}

nlohmann::json FamilyListJson(const Catalog& c) {
  nlohmann::json json = nlohmann::json::array();
  for (const Family& f : c.families) {
    nlohmann::json j = FamilyJson(f);
    j["types"] = FamilyTypeCount(c, f);
    json.push_back(std::move(j));
  }
  return json;
}

}  // namespace gpuplan::io
