#include "io/catalog_json.h"

#include <nlohmann/json.hpp>

namespace gpuplan::io {
namespace {

nlohmann::json Optional(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

void AddProvenance(nlohmann::json& j, const Provenance& p) {
  j["basis"] = p.basis;
  j["source"] = p.source;
  j["as_of"] = p.as_of;
  j["inferred"] = p.inferred();
}

}  // namespace

nlohmann::json GpuJson(const Gpu& g) {
  nlohmann::json tflops = nlohmann::json::object();
  for (Precision p : kAllPrecisions) {
    if (auto v = g.Tflops(p))
      tflops[std::string(PrecisionName(p))] = *v;
  }
  nlohmann::json j = {
      {"name", g.name},
      {"aliases", g.aliases},
      {"vendor", GpuVendorName(g.vendor)},
      {"vendor_name", g.vendor_name},
      {"architecture", g.architecture},
      {"compute_capability", g.compute_capability},
      {"memory_gib", g.memory_gib},
      {"usable_memory_gib", Optional(g.usable_memory_gib)},
      {"memory_type", g.memory_type},
      {"memory_bandwidth_gbs", g.memory_bandwidth_gbs},
      {"tflops", tflops},
      {"nvlink_gbs", g.nvlink_gbs},
      {"pcie_gen", g.pcie_gen},
      {"tdp_w", Optional(g.tdp_w)},
      {"alibaba", g.alibaba},
      {"notes", g.notes},
  };
  AddProvenance(j, g.provenance);
  return j;
}

nlohmann::json InstanceJson(const InstanceType& t) {
  const double gpus = std::max(t.gpu_count, 1.0);
  nlohmann::json j = {
      {"name", t.name},
      {"family", t.family},
      {"gpu", t.gpu},
      {"gpu_count", t.gpu_count},
      {"gpu_memory_gib", t.gpu_memory_gib},
      {"total_gpu_memory_gib", t.gpu_memory_gib * gpus},
      {"vcpu", t.vcpu},
      {"memory_gib", t.memory_gib},
      {"vcpu_per_gpu", t.vcpu / gpus},
      {"memory_gib_per_gpu", t.memory_gib / gpus},
      {"network_gbps", t.network_gbps},
      {"network_burst_gbps", Optional(t.network_burst_gbps)},
      {"pps", Optional(t.pps)},
      {"rdma", t.rdma},
      {"rdma_gbps", Optional(t.rdma_gbps)},
      {"interconnect", InterconnectName(t.interconnect)},
      {"local_nvme_gib", t.local_nvme_gib},
      {"cpu", t.cpu},
      {"arch", t.arm ? "arm64" : "x86_64"},
      {"bare_metal", t.bare_metal()},
      {"vgpu", t.vgpu()},
      {"status", LifecycleName(t.status)},
      {"notes", t.notes},
  };
  AddProvenance(j, t.provenance);
  // How `deploy` attaches the elastic RDMA interfaces (data/eri.csv); absent when not documented.
  if (t.eri) {
    j["eri"] = {{"eri_quantity", t.eri->eri_quantity},
                {"network_cards", t.eri->network_cards},
                {"queue_pairs", t.eri->queue_pairs ? nlohmann::json(*t.eri->queue_pairs)
                                                   : nlohmann::json(nullptr)},
                {"source", t.eri->provenance.source},
                {"as_of", t.eri->provenance.as_of}};
  }
  return j;
}

nlohmann::json FamilyJson(const Family& f) {
  nlohmann::json j = {{"name", f.name},          {"gpu", f.gpu},
                      {"kind", f.kind},          {"status", LifecycleName(f.status)},
                      {"good_for", f.good_for},  {"avoid_for", f.avoid_for},
                      {"confusion", f.confusion}};
  AddProvenance(j, f.provenance);
  return j;
}

nlohmann::json PriceJson(const Price& p) {
  return {{"instance", p.instance},
          {"region", p.region},
          {"zone", p.zone},
          {"billing", BillingName(p.billing)},
          {"price", p.amount},
          {"currency", p.currency},
          {"unit", p.unit},
          {"source", PriceSourceName(p.origin)},
          {"as_of", p.as_of},
          {"trust", p.trust},
          {"source_id", p.provenance.source},
          {"notes", p.notes}};
}

}  // namespace gpuplan::io
