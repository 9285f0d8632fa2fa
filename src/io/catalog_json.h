// JSON forms of catalog rows. Field names are a contract (docs/catalog-and-prices.md): add
// fields, never rename them.
#ifndef GPUPLAN_SRC_IO_CATALOG_JSON_H_
#define GPUPLAN_SRC_IO_CATALOG_JSON_H_

#include <nlohmann/json_fwd.hpp>

#include "gpuplan/catalog.h"

namespace gpuplan::io {

// {name, aliases, vendor, vendor_name, architecture, compute_capability, memory_gib,
// usable_memory_gib,
//  memory_type, memory_bandwidth_gbs, tflops: {fp64..int8 where present}, nvlink_gbs, pcie_gen,
//  tdp_w, alibaba, basis, source, as_of, notes}
nlohmann::json GpuJson(const Gpu& gpu);
// {name, family, gpu, gpu_count, gpu_memory_gib, vcpu, memory_gib, network_gbps, rdma, status,
//  ... per-GPU ratios, interconnect, provenance}
nlohmann::json InstanceJson(const InstanceType& type);
nlohmann::json FamilyJson(const Family& family);
// {instance, region, zone, billing, price, currency, unit, source, as_of, trust, source_id, notes}
nlohmann::json PriceJson(const Price& price);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_CATALOG_JSON_H_
