// The catalog: every NVIDIA GPU and Alibaba Cloud GPU instance type gpuplan knows, with sources.
//
// A Catalog is a plain value built once (from the embedded data/*.csv plus a user's overlay, see
// io/catalog_loader.h), validated with Catalog::Validate(), then passed around as
// `const Catalog&`. Unknown facts stay unknown (std::nullopt), never 0.
//
//   const Gpu* a10 = catalog.FindGpu("A10");          // aliases work
//   const InstanceType* t = catalog.FindInstance("ecs.gn7i-c8g1.2xlarge");
//   if (!t) puts(catalog.SuggestInstance("gn7-m20").c_str());
//
// Thread safety: a const Catalog may be shared across threads.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_CATALOG_H_
#define GPUPLAN_INCLUDE_GPUPLAN_CATALOG_H_

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/billing.h"
#include "gpuplan/enum_names.h"
#include "gpuplan/status.h"

namespace gpuplan {

// Numeric precisions with a dense peak in the GPU table. Order is the column order of gpus.csv.
enum class Precision { kFp64, kFp32, kTf32, kBf16, kFp16, kFp8, kInt8 };
inline constexpr int kPrecisionCount = 7;
inline constexpr std::array<Precision, kPrecisionCount> kAllPrecisions = {
    Precision::kFp64, Precision::kFp32, Precision::kTf32, Precision::kBf16,
    Precision::kFp16, Precision::kFp8,  Precision::kInt8};
inline constexpr EnumNames<Precision, kPrecisionCount> kPrecisionNames = {
    {{Precision::kFp64, "fp64"},
     {Precision::kFp32, "fp32"},
     {Precision::kTf32, "tf32"},
     {Precision::kBf16, "bf16"},
     {Precision::kFp16, "fp16"},
     {Precision::kFp8, "fp8"},
     {Precision::kInt8, "int8"}}};
// "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8".
constexpr std::string_view PrecisionName(Precision p) { return NameOf(kPrecisionNames, p); }
// Parses a lowercase name as above; nullopt when unknown.
constexpr std::optional<Precision> ParsePrecision(std::string_view name) {
  return ParseName(kPrecisionNames, name);
}

// Where a fact comes from. `basis` follows the reference notes: doc, repo, pages, inferred.
struct Provenance {
  std::string basis;   // "doc" | "doc-repro" | "repo" | "pages" | "inferred" | "user"
  std::string source;  // source ids, e.g. "S1;S2" (see data/SOURCES.md)
  std::string as_of;   // date of the source, e.g. "2025-11" or "2024-12-30"
  std::string origin;  // file:line the row was read from, for error messages
  bool inferred() const { return basis.find("inferred") != std::string::npos; }
};

// Who makes the GPU: the `vendor` column of gpus.csv and constraints.exclude_vendors. Every row
// of the embedded catalog is NVIDIA; the others are the accelerator makers a compliance rule may
// name (shared research note on non-NVIDIA accelerators, data/SOURCES.md V1), so that excluding
// one is a checked word, not a typo that silently excludes nothing.
enum class GpuVendor { kNvidia, kAmd, kIntel, kThead, kHuawei, kCambricon };
inline constexpr std::array<GpuVendor, 6> kAllGpuVendors = {
    GpuVendor::kNvidia, GpuVendor::kAmd,    GpuVendor::kIntel,
    GpuVendor::kThead,  GpuVendor::kHuawei, GpuVendor::kCambricon};
inline constexpr EnumNames<GpuVendor, 6> kGpuVendorNames = {{{GpuVendor::kNvidia, "NVIDIA"},
                                                             {GpuVendor::kAmd, "AMD"},
                                                             {GpuVendor::kIntel, "Intel"},
                                                             {GpuVendor::kThead, "T-Head"},
                                                             {GpuVendor::kHuawei, "Huawei"},
                                                             {GpuVendor::kCambricon, "Cambricon"}}};
// "NVIDIA", "AMD", "Intel", "T-Head", "Huawei", "Cambricon".
constexpr std::string_view GpuVendorName(GpuVendor v) { return NameOf(kGpuVendorNames, v); }
// Any case ("nvidia", "NVIDIA", "t-head"); nullopt when unknown.
constexpr std::optional<GpuVendor> ParseGpuVendor(std::string_view name) {
  return ParseName(kGpuVendorNames, name, NameCase::kIgnore);
}
// "nvidia, amd, intel, t-head, huawei or cambricon": the allowed values, for error messages.
std::string GpuVendorChoices();

struct Gpu {
  std::string name;                  // canonical, e.g. "A100-80G-SXM" (validation files use it)
  std::vector<std::string> aliases;  // other names users type, e.g. "A100-80G", "A100 80GB"
  GpuVendor vendor = GpuVendor::kNvidia;
  std::string vendor_name;                  // "NVIDIA A100 80GB SXM4"
  std::string architecture;                 // "Ampere"
  std::string compute_capability;           // "8.0"
  double memory_gib = 0;                    // nominal memory as sold (GiB)
  std::optional<double> usable_memory_gib;  // what CUDA reports as total (ECC, reserved), GiB
  std::string memory_type;                  // "HBM2e"
  double memory_bandwidth_gbs = 0;          // GB/s (10^9 bytes/s)
  // Dense (no sparsity) peak TFLOPS (TOPS for int8) per precision; nullopt where the GPU has
  // no such unit. Tensor-core numbers where tensor cores exist.
  std::array<std::optional<double>, kPrecisionCount> tflops;
  double nvlink_gbs = 0;  // total bidirectional NVLink bandwidth per GPU, GB/s; 0 = none
  int pcie_gen = 0;       // PCIe generation of the host link (x16)
  std::optional<double> tdp_w;
  bool alibaba = false;  // true when some Alibaba instance family ships it
  // What the card is for (gpus.csv `compute_only`, `inference_only`; empty = no). A compute-only
  // GPU has no graphics API support (no display engines or RT cores, no vWS licence): it cannot
  // render. An inference-only card is a low-power part built for serving: fine for small LoRA
  // tests, slow for real training.
  bool compute_only = false;
  bool inference_only = false;
  std::string notes;
  Provenance provenance;

  std::optional<double> Tflops(Precision p) const { return tflops[static_cast<int>(p)]; }
  // Memory a job may use: usable memory when known, else nominal.
  double EffectiveMemoryGib() const { return usable_memory_gib.value_or(memory_gib); }
  // One-direction PCIe x16 bandwidth in GB/s for pcie_gen (3: 16, 4: 32, 5: 64); 0 if unknown.
  double PcieGbs() const;
};

// The precision `g` runs work asked in `p` at: `p` where it has units for it, else BF16 as FP16
// on GPUs with FP16 but no BF16 units (Volta V100, Turing T4, Pascal P100): the same 2 bytes per
// element, FP16's narrower range (training needs loss scaling; a model that overflows in FP16
// needs a BF16 GPU). The plan notes the substitution (rules: bf16-as-fp16).
inline Precision RunsAs(const Gpu& g, Precision p) {
  if (p == Precision::kBf16 && !g.Tflops(Precision::kBf16) && g.Tflops(Precision::kFp16))
    return Precision::kFp16;
  return p;
}

// Whether FP8 weights are served weight-only on `g`: a GPU with BF16 but no FP8 units (Ampere:
// A100, A10, A30) runs an FP8 checkpoint as BF16 math over the 1-byte weights, dequantised in
// the GEMM (vLLM's FP8 Marlin kernels, W8A16; its KV cache stays 16-bit unless asked). Inference
// only: FP8 training needs FP8 units. The plan notes it (rules: fp8-weight-only).
inline bool Fp8WeightOnly(const Gpu& g, Precision p, bool inference) {
  return inference && p == Precision::kFp8 && !g.Tflops(Precision::kFp8) &&
         g.Tflops(Precision::kBf16).has_value();
}

// The precision of `g`'s math for work asked in `p` (`inference`: serving, not training):
// RunsAs, and BF16 for FP8 weights served weight-only.
inline Precision ComputesAs(const Gpu& g, Precision p, bool inference) {
  return Fp8WeightOnly(g, p, inference) ? Precision::kBf16 : RunsAs(g, p);
}

// The facts shared by every GPU of one compute capability (data/architectures.csv): the software
// that supports it and NVIDIA's reference cluster fabric. Gpu::compute_capability is the key.
struct Architecture {
  std::string compute_capability;  // "9.0"
  std::string architecture;        // "Hopper"; must equal the Gpu::architecture of its GPUs
  // The provisioning recommendation, as shown in a plan's image section.
  std::string min_driver;  // ">= 535"
  std::string cuda;        // "12.4 or newer (FP8 needs 12.1+ and Transformer Engine)"
  std::string framework;   // "PyTorch >= 2.4"
  std::string image_note;  // why, e.g. "Hopper (sm_90) runs best on CUDA 12 with ..."
  // The last CUDA major release that supports it; nullopt = every current release does.
  std::optional<int> newest_cuda_major;
  // RDMA bandwidth per GPU in NVIDIA's reference system for the generation (DGX), Gbit/s: the
  // cross-node fabric assumed for a reference cluster when the caller names none.
  double reference_nic_gbps = 0;
  std::string notes;
  Provenance provenance;

  // The compute capability as sm_XY's number (8.6 -> 86, 10.0 -> 100); 0 when malformed.
  int Sm() const;
};

enum class Interconnect { kPcie, kNvlink, kNvswitch };
inline constexpr EnumNames<Interconnect, 3> kInterconnectNames = {
    {{Interconnect::kPcie, "pcie"},
     {Interconnect::kNvlink, "nvlink"},
     {Interconnect::kNvswitch, "nvswitch"}}};
// "pcie", "nvlink", "nvswitch"
constexpr std::string_view InterconnectName(Interconnect i) {
  return NameOf(kInterconnectNames, i);
}

enum class Lifecycle { kCurrent, kLegacy, kRetired, kPreview };
inline constexpr EnumNames<Lifecycle, 4> kLifecycleNames = {{{Lifecycle::kCurrent, "current"},
                                                             {Lifecycle::kLegacy, "legacy"},
                                                             {Lifecycle::kRetired, "retired"},
                                                             {Lifecycle::kPreview, "preview"}}};
// "current", "legacy", "retired", "preview"
constexpr std::string_view LifecycleName(Lifecycle s) { return NameOf(kLifecycleNames, s); }
constexpr std::optional<Lifecycle> ParseLifecycle(std::string_view name) {
  return ParseName(kLifecycleNames, name);
}

// How elastic RDMA interfaces (ERIs) are attached at creation for the documented eRDMA bandwidth
// (data/eri.csv). A type with rdma = yes and no such row gets one ERI on its primary interface.
struct EriAttachment {
  int eri_quantity = 1;   // ERIs to attach (NetworkInterface.N with HighPerformance traffic mode)
  int network_cards = 1;  // distinct network card indexes they go on, 0 .. network_cards-1
  // Queue pairs of the type in total; nullopt = not in the sources (DescribeInstanceTypes
  // QueuePairNumber).
  std::optional<int> queue_pairs;
  std::string notes;
  Provenance provenance;
};

struct InstanceType {
  std::string name;           // "ecs.gn7i-c8g1.2xlarge"
  std::string family;         // "gn7i"
  std::string gpu;            // canonical GPU name; must exist in the catalog
  double gpu_count = 0;       // GPUs per instance; a fraction for vGPU slices (1/6 = 0.1667)
  double gpu_memory_gib = 0;  // GPU memory per GPU (the slice's share for vGPU types)
  int vcpu = 0;
  double memory_gib = 0;    // host RAM
  double network_gbps = 0;  // baseline VPC bandwidth, Gbit/s
  std::optional<double> network_burst_gbps;
  std::optional<double> pps;  // packets per second
  bool rdma = false;          // supports eRDMA (an elastic RDMA interface, ERI)
  std::optional<double> rdma_gbps;
  std::optional<EriAttachment> eri;  // from data/eri.csv; nullopt = not documented
  Interconnect interconnect = Interconnect::kPcie;
  double local_nvme_gib = 0;  // local NVMe/SSD capacity, 0 = none
  std::string cpu;            // CPU model as documented
  bool arm = false;           // ARM host (gn7r)
  Lifecycle status = Lifecycle::kCurrent;
  std::string notes;
  Provenance provenance;

  bool bare_metal() const { return family.rfind("ebm", 0) == 0; }
  bool vgpu() const { return gpu_count < 1.0; }
  // Whole GPUs usable by one job (0 for a vGPU slice).
  int whole_gpus() const { return gpu_count >= 1.0 ? static_cast<int>(gpu_count) : 0; }
};

struct Family {
  std::string name;  // "gn7i"
  std::string gpu;   // canonical GPU name
  std::string kind;  // "gpu" | "vgpu" | "bare-metal"
  Lifecycle status = Lifecycle::kCurrent;
  std::string good_for;   // one sentence: what this family is for
  std::string avoid_for;  // one sentence: what it is not for
  std::string confusion;  // a common wrong belief about the name and its correction, or ""
  // The instance generation (the digit after "gn" in Alibaba's naming: gn7i -> 7, ebmgn8v -> 8;
  // naming doc, data/SOURCES.md S6); nullopt = not given.
  std::optional<int> generation;
  Provenance provenance;
};

// A disk or file system class as Alibaba documents it (data/storage.csv): the sizes it comes in,
// its throughput min{base_mbs + mbs_per_gib x GiB, max_mbs} and its price where one is known.
// Unknown facts stay unknown (nullopt): no formula, no throughput.
struct StorageClass {
  std::string kind;                   // cost::StorageKindName: "essd_pl1", "cpfs", "local_nvme"
  std::optional<double> min_gib;      // smallest size sold, GiB
  std::optional<double> max_gib;      // largest size sold, GiB
  std::optional<double> base_mbs;     // throughput formula: MB/s at 0 GiB
  std::optional<double> mbs_per_gib;  // throughput formula: MB/s per GiB of size
  std::optional<double> max_mbs;      // throughput cap, MB/s
  std::string notes;
  Provenance provenance;  // of the sizes and the throughput
  // Price per GiB-hour in `price_currency`, with its own source and date; nullopt = unknown.
  std::optional<double> price_per_gib_hour;
  std::string price_currency;  // "CNY" | "USD"
  std::string price_notes;     // how the price was found
  Provenance price_provenance;

  // The documented throughput of `gib` GiB, MB/s; nullopt when the sources give no formula.
  std::optional<double> ThroughputMbs(double gib) const;
  // The size at which the throughput reaches its cap, GiB; nullopt without a formula.
  std::optional<double> GibAtMaxMbs() const;
};
// The row of `kind` ("essd_pl1") in `storage` (Catalog::storage); nullptr when there is none.
const StorageClass* FindStorage(const std::vector<StorageClass>& storage, std::string_view kind);

// kUser: a price the user entered ('gpuplan prices add'): their own quote or bill, ranked above
// every other source for that key.
enum class PriceSource { kBuiltin, kImport, kApi, kUser };
inline constexpr EnumNames<PriceSource, 4> kPriceSourceNames = {{{PriceSource::kBuiltin, "builtin"},
                                                                 {PriceSource::kImport, "import"},
                                                                 {PriceSource::kApi, "api"},
                                                                 {PriceSource::kUser, "user"}}};
// "builtin", "import", "api", "user"
constexpr std::string_view PriceSourceName(PriceSource s) { return NameOf(kPriceSourceNames, s); }

struct Price {
  std::string instance;              // instance type name
  std::string region;                // "cn-hangzhou"
  std::string zone;                  // "cn-hangzhou-h" or "" for region-wide
  Billing billing = Billing::kPayg;  // a mode with a price of its own (BillingUse::kPriceRow)
  std::string currency;              // "CNY" | "USD"; never mixed in one sum
  double amount = 0;                 // in currency per unit
  std::string unit;                  // "hour" | "month" | "year"
  std::string as_of;                 // date the price was observed, YYYY-MM-DD
  std::string trust;                 // "high" | "medium" | "low"
  PriceSource origin = PriceSource::kBuiltin;
  std::string notes;
  Provenance provenance;
};

// The prefix of every ECS instance type name ("ecs.gn7i-c8g1.2xlarge"). Users, price files and
// the API may leave it out.
inline constexpr std::string_view kInstancePrefix = "ecs.";
// The catalog's spelling of an instance type name: lower case, with the "ecs." prefix
// ("GN7I-C8G1.2xlarge" and "ecs.gn7i-c8g1.2xlarge" -> "ecs.gn7i-c8g1.2xlarge"); "" stays "".
// The one place the prefix is handled: lookups, price keys and every comparison of instance
// names go through it (tests/regress/issue_24_test.cc checks).
std::string NormalizeInstanceName(std::string_view name);

// One validation finding. Errors make a catalog unusable; warnings are printed.
struct CatalogIssue {
  bool error = true;
  std::string message;  // starts with the row's origin, e.g. "data/instances.csv:12: ..."
};

class Catalog {
 public:
  std::vector<Gpu> gpus;
  std::vector<InstanceType> instances;
  std::vector<Family> families;
  std::vector<Price> prices;
  std::vector<Architecture> architectures;
  std::vector<StorageClass> storage;  // data/storage.csv

  // Lookups. Names match case-insensitively; GPUs also by alias, instances also without the
  // "ecs." prefix. Return nullptr when absent.
  const Gpu* FindGpu(std::string_view name) const;
  const InstanceType* FindInstance(std::string_view name) const;
  const Family* FindFamily(std::string_view name) const;
  // The GPU of an instance type. REQUIRES: the catalog validated without errors.
  const Gpu& GpuOf(const InstanceType& t) const;
  // The architectures.csv row of `gpu`'s compute capability; nullptr when there is none (the
  // facts it holds are then unknown).
  const Architecture* ArchitectureOf(const Gpu& gpu) const;

  // Up to `limit` known names closest to `name` (edit distance and shared family prefix), for
  // "did you mean" messages.
  std::vector<std::string> SuggestInstances(std::string_view name, int limit = 3) const;
  std::vector<std::string> SuggestGpus(std::string_view name, int limit = 3) const;

  // Checks references (every instance's GPU and family exist, every price's instance exists),
  // units and sanity (GPU memory matches the GPU model, vCPU and RAM per GPU plausible,
  // duplicates). Also fills Gpu::alibaba. Returns every finding, errors first.
  std::vector<CatalogIssue> Validate();

  // Replaces rows with the same key (GPU name, instance name, family name, compute capability;
  // prices by instance+region+zone+billing+origin) and appends new ones. Used for the user overlay.
  void Overlay(const Catalog& other);
};

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_CATALOG_H_
