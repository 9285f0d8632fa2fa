// An in-memory catalog for core tests (gpuplan_core_tests), so they link only gpuplan_core: GPU
// rows copied from data/gpus.csv and instance types built from the columns the core reads,
// validated like the embedded catalog.
//
//   Catalog c = CatalogBuilder()
//                   .AddGpu(GpuA10())
//                   .AddInstance({.name = "ecs.gn7i-c8g1.2xlarge", .gpu = "A10-24G", .vcpu = 8,
//                                 .ram_gib = 30})
//                   .AddPrice("ecs.gn7i-c8g1.2xlarge", "cn-hangzhou", Billing::kPayg, 10)
//                   .Build();
//
// Prices given to AddPrice are test inputs, not Alibaba's prices.
#ifndef GPUPLAN_TESTS_TESTING_CATALOG_BUILDER_H_
#define GPUPLAN_TESTS_TESTING_CATALOG_BUILDER_H_

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "gpuplan/catalog.h"

namespace gpuplan::testing {

// GPU rows as in data/gpus.csv (sources there: S1, S2, G1, G2, G5-G9, S7), every column the
// core reads. usable_memory_gib is the usable_memory_mib column / 1024.
namespace internal {
struct GpuColumns {
  const char* name;
  const char* architecture;
  const char* compute_capability;
  double memory_gib;
  std::optional<double> usable_gib;
  double bandwidth_gbs, nvlink_gbs;
  int pcie_gen;
  const char* alias;
  const char* memory_type;
  double tdp_w;
};
inline Gpu GpuRow(const GpuColumns& c,
                  std::initializer_list<std::pair<Precision, double>> dense_tflops) {
  Gpu g;
  g.name = c.name;
  g.vendor_name = std::string("NVIDIA ") + c.name;
  g.architecture = c.architecture;
  g.compute_capability = c.compute_capability;
  g.memory_gib = c.memory_gib;
  g.usable_memory_gib = c.usable_gib;
  g.memory_bandwidth_gbs = c.bandwidth_gbs;
  g.nvlink_gbs = c.nvlink_gbs;
  g.pcie_gen = c.pcie_gen;
  g.aliases = {c.alias};
  g.memory_type = c.memory_type;
  g.tdp_w = c.tdp_w;
  for (const auto& [precision, tflops] : dense_tflops)
    g.tflops[static_cast<int>(precision)] = tflops;
  g.provenance = {"doc", "test: data/gpus.csv", "2025-11", "catalog_builder.h"};
  return g;
}
using P = Precision;
}  // namespace internal

inline Gpu GpuA10() {
  return internal::GpuRow(
      {"A10-24G", "Ampere", "8.6", 24, 22731 / 1024.0, 600, 0, 4, "A10", "GDDR6", 150},
      {{internal::P::kFp32, 31.2},
       {internal::P::kTf32, 62.5},
       {internal::P::kBf16, 125},
       {internal::P::kFp16, 125},
       {internal::P::kInt8, 250}});
}

inline Gpu GpuA100() {
  return internal::GpuRow(
      {"A100-80G-SXM", "Ampere", "8.0", 80, 81251 / 1024.0, 2039, 600, 4, "A100-80G", "HBM2e", 400},
      {{internal::P::kFp64, 9.7},
       {internal::P::kFp32, 19.5},
       {internal::P::kTf32, 156},
       {internal::P::kBf16, 312},
       {internal::P::kFp16, 312},
       {internal::P::kInt8, 624}});
}

inline Gpu GpuH20() {
  return internal::GpuRow(
      {"H20-96G", "Hopper", "9.0", 96, std::nullopt, 4000, 900, 5, "H20", "HBM3", 400},
      {{internal::P::kFp64, 1},
       {internal::P::kFp32, 39.5},
       {internal::P::kTf32, 74},
       {internal::P::kBf16, 148},
       {internal::P::kFp16, 148},
       {internal::P::kFp8, 296},
       {internal::P::kInt8, 296}});
}

inline Gpu GpuT4() {
  return internal::GpuRow(
      {"T4-16G", "Turing", "7.5", 16, 15109 / 1024.0, 320, 0, 3, "T4", "GDDR6", 70},
      {{internal::P::kFp32, 8.1}, {internal::P::kFp16, 65}, {internal::P::kInt8, 130}});
}

// One instance type: the columns of data/instances.csv the core reads. The family is the name
// between "ecs." and the first '-' or '.' (ecs.gn7i-c8g1.2xlarge: gn7i).
struct InstanceSpec {
  std::string name;
  std::string gpu;
  double gpus = 1;
  int vcpu = 8;
  double ram_gib = 32;
  double network_gbps = 16;
  bool rdma = false;
  std::optional<double> rdma_gbps = std::nullopt;
  Interconnect interconnect = Interconnect::kPcie;
  double local_nvme_gib = 0;
  Lifecycle status = Lifecycle::kCurrent;
};

// ecs.ebmgn7ex.32xlarge as in data/instances.csv: eight A100-80G on NVLink, 160 Gbit/s eRDMA.
// REQUIRES: GpuA100() added to the builder.
inline InstanceSpec Ebmgn7ex32xlarge() {
  return {.name = "ecs.ebmgn7ex.32xlarge",
          .gpu = "A100-80G-SXM",
          .gpus = 8,
          .vcpu = 128,
          .ram_gib = 1024,
          .network_gbps = 160,
          .rdma = true,
          .rdma_gbps = 160,
          .interconnect = Interconnect::kNvlink};
}

class CatalogBuilder {
 public:
  CatalogBuilder& AddGpu(Gpu gpu) {
    catalog_.gpus.push_back(std::move(gpu));
    return *this;
  }

  // REQUIRES: spec.gpu was added first (AddGpu).
  CatalogBuilder& AddInstance(const InstanceSpec& spec) {
    InstanceType t;
    t.name = spec.name;
    t.family = FamilyOf(spec.name);
    t.gpu = spec.gpu;
    t.gpu_count = spec.gpus;
    const Gpu* gpu = catalog_.FindGpu(spec.gpu);
    t.gpu_memory_gib = gpu ? gpu->memory_gib : 0;
    t.vcpu = spec.vcpu;
    t.memory_gib = spec.ram_gib;
    t.network_gbps = spec.network_gbps;
    t.rdma = spec.rdma;
    t.rdma_gbps = spec.rdma_gbps;
    t.interconnect = spec.interconnect;
    t.local_nvme_gib = spec.local_nvme_gib;
    t.status = spec.status;
    t.provenance = Origin();
    if (!catalog_.FindFamily(t.family)) {
      Family f;
      f.name = t.family;
      f.gpu = spec.gpu;
      f.kind = "gpu";
      f.status = spec.status;
      f.provenance = Origin();
      catalog_.families.push_back(std::move(f));
    }
    catalog_.instances.push_back(std::move(t));
    return *this;
  }

  // A region-wide price in CNY per hour (per month or year for subscriptions).
  CatalogBuilder& AddPrice(const std::string& instance, const std::string& region, Billing billing,
                           double cny) {
    Price p;
    p.instance = instance;
    p.region = region;
    p.billing = billing;
    p.currency = "CNY";
    p.amount = cny;
    p.unit = billing == Billing::kSubscriptionMonth  ? "month"
             : billing == Billing::kSubscriptionYear ? "year"
                                                     : "hour";
    p.as_of = "2026-11-01";
    p.trust = "high";
    p.provenance = Origin();
    catalog_.prices.push_back(std::move(p));
    return *this;
  }

  // The catalog, validated: an error (a row the embedded catalog would reject) fails the test.
  Catalog Build() {
    Catalog c = catalog_;
    for (const CatalogIssue& issue : c.Validate()) {
      if (issue.error)
        ADD_FAILURE() << "test catalog: " << issue.message;
    }
    return c;
  }

 private:
  static std::string FamilyOf(const std::string& name) {
    const std::string rest = name.substr(name.rfind("ecs.", 0) == 0 ? 4 : 0);
    return rest.substr(0, rest.find_first_of("-."));
  }
  static Provenance Origin() { return {"doc", "test", "2026-11", "catalog_builder.h"}; }

  Catalog catalog_;
};

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_CATALOG_BUILDER_H_
