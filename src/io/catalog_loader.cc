#include "io/catalog_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "gpuplan/cost.h"
#include "io/csv.h"
#include "io/embedded_data.h"
#include "io/file_util.h"

namespace gpuplan::io {
namespace {

constexpr double kMaxTflops = 100000;

Provenance ReadProvenance(CsvRowReader& r) {
  Provenance p;
  p.basis = r.Text("basis");
  p.source = r.Text("source");
  p.as_of = r.Text("as_of");
  p.origin = r.Origin();
  return p;
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos)
      end = text.size();
    std::string item = text.substr(start, end - start);
    while (!item.empty() && item.front() == ' ')
      item.erase(0, 1);
    while (!item.empty() && item.back() == ' ')
      item.pop_back();
    if (!item.empty())
      out.push_back(item);
    start = end + 1;
  }
  return out;
}

// Parses every row of `text` with `parse_row`, appending to `out`. Stops at the first error.
template <typename T, typename ParseRow>
Status ParseRows(std::string_view text, const std::string& file,
                 const std::vector<std::string_view>& required, std::vector<T>& out,
                 ParseRow parse_row) {
  if (text.empty())
    return Status::Ok();
  Result<CsvTable> table = CsvTable::Parse(text, file);
  if (!table.ok())
    return table.status();
  if (Status s = table->RequireColumns(required); !s.ok())
    return s;
  for (const CsvRow& row : table->rows()) {
    CsvRowReader r(*table, row);
    T value = parse_row(r);
    if (!r.status().ok())
      return r.status();
    out.push_back(std::move(value));
  }
  return Status::Ok();
}

Gpu ParseGpu(CsvRowReader& r) {
  Gpu g;
  g.name = r.Text("name", true);
  g.aliases = SplitList(r.Text("aliases"));
  const std::string vendor = r.Text("vendor", true);
  if (std::optional<GpuVendor> v = ParseGpuVendor(vendor)) {
    g.vendor = *v;
  } else if (!vendor.empty()) {
    r.Fail("vendor", fmt::format("expected {}, got \"{}\"", GpuVendorChoices(), vendor));
  }
  g.vendor_name = r.Text("vendor_name");
  g.architecture = r.Text("architecture", true);
  g.compute_capability = r.Text("compute_capability");
  g.memory_gib = r.Number("memory_gib", 0.5, 1024);
  if (auto mib = r.OptionalNumber("usable_memory_mib", 256, 1048576)) {
    g.usable_memory_gib = *mib / 1024.0;
  }
  g.memory_type = r.Text("memory_type");
  g.memory_bandwidth_gbs = r.Number("memory_bandwidth_gbs", 1, 100000);
  for (Precision p : kAllPrecisions) {
    g.tflops[static_cast<size_t>(p)] = r.OptionalNumber(PrecisionName(p), 0.001, kMaxTflops);
  }
  g.nvlink_gbs = r.OptionalNumber("nvlink_gbs", 0, 10000).value_or(0);
  g.pcie_gen = static_cast<int>(r.OptionalNumber("pcie_gen", 1, 7).value_or(0));
  g.tdp_w = r.OptionalNumber("tdp_w", 1, 5000);
  g.compute_only = r.Bool("compute_only", false);
  g.inference_only = r.Bool("inference_only", false);
  g.notes = r.Text("notes");
  g.provenance = ReadProvenance(r);
  return g;
}

// "8.6", "10.0": a compute capability as NVIDIA writes it (major.minor, one minor digit).
bool IsComputeCapability(const std::string& cc) {
  Architecture a;
  a.compute_capability = cc;
  return a.Sm() > 0;
}

Architecture ParseArchitecture(CsvRowReader& r) {
  Architecture a;
  a.compute_capability = r.Text("compute_capability", true);
  if (!a.compute_capability.empty() && !IsComputeCapability(a.compute_capability)) {
    r.Fail("compute_capability", fmt::format("expected major.minor such as 8.6 or 10.0, got \"{}\"",
                                             a.compute_capability));
  }
  a.architecture = r.Text("architecture", true);
  a.min_driver = r.Text("min_driver", true);
  a.cuda = r.Text("cuda", true);
  a.framework = r.Text("framework", true);
  a.image_note = r.Text("image_note", true);
  // A note that names an sm_ target must name this row's (B200 is sm_100, not sm_120).
  if (const size_t at = a.image_note.find("sm_"); at != std::string::npos && a.Sm() > 0) {
    size_t end = at + 3;
    while (end < a.image_note.size() && a.image_note[end] >= '0' && a.image_note[end] <= '9')
      ++end;
    const std::string named = a.image_note.substr(at, end - at);
    const std::string want = "sm_" + std::to_string(a.Sm());
    if (named != want) {
      r.Fail("image_note", fmt::format("names {}, but compute capability {} is {}", named,
                                       a.compute_capability, want));
    }
  }
  if (std::optional<double> v = r.OptionalNumber("newest_cuda_major", 1, 99)) {
    if (*v != static_cast<int>(*v)) {
      r.Fail("newest_cuda_major", fmt::format("expected a whole CUDA major version, got {}", *v));
    }
    a.newest_cuda_major = static_cast<int>(*v);
  }
  a.reference_nic_gbps = r.Number("reference_nic_gbps", 1, 100000);
  a.notes = r.Text("notes");
  a.provenance = ReadProvenance(r);
  if (a.provenance.source.empty())
    r.Fail("source", "is required and empty (a source id of data/SOURCES.md)");
  if (a.provenance.as_of.empty())
    r.Fail("as_of", "is required and empty (the source's date)");
  return a;
}

// A whole number read as a decimal (`r.OptionalNumber`); nullopt stays nullopt.
std::optional<int> WholeNumber(std::optional<double> v) {
  if (!v)
    return std::nullopt;
  return static_cast<int>(*v);
}

// The status column of families.csv and instances.csv.
Lifecycle ReadLifecycle(CsvRowReader& r) {
  return ParseLifecycle(r.OneOf("status", NameList(kLifecycleNames))).value_or(Lifecycle::kCurrent);
}

// The columns in Family's order (a braced list reads them, and reports errors, in that order).
Family ParseFamily(CsvRowReader& r) {
  return Family{.name = r.Text("family", true),
                .gpu = r.Text("gpu", true),
                .kind = r.OneOf("kind", {"gpu", "vgpu", "bare-metal"}),
                .status = ReadLifecycle(r),
                .good_for = r.Text("good_for"),
                .avoid_for = r.Text("avoid_for"),
                .confusion = r.Text("confusion"),
                .generation = WholeNumber(r.OptionalNumber("generation", 1, 99)),
                .provenance = ReadProvenance(r)};
}

// One row of storage.csv: a disk or file system class, its throughput formula and its price, each
// with its source and date. Empty cells stay unknown.
StorageClass ParseStorage(CsvRowReader& r) {
  StorageClass k;
  k.kind = r.OneOf("kind", NameList(cost::kStorageKindNames));
  k.min_gib = r.OptionalNumber("min_gib", 1, 1e6);
  k.max_gib = r.OptionalNumber("max_gib", 1, 1e6);
  k.base_mbs = r.OptionalNumber("base_mbs", 0, 1e6);
  k.mbs_per_gib = r.OptionalNumber("mbs_per_gib", 0, 1e3);
  k.max_mbs = r.OptionalNumber("max_mbs", 0, 1e7);
  if (k.base_mbs.has_value() != k.mbs_per_gib.has_value())
    r.Fail("mbs_per_gib", "base_mbs and mbs_per_gib are given together or not at all");
  k.notes = r.Text("notes");
  k.provenance = ReadProvenance(r);
  if (k.provenance.source.empty() || k.provenance.as_of.empty())
    r.Fail("source", "every row names its source and as_of date");
  k.price_per_gib_hour = r.OptionalNumber("price_per_gib_hour", 0, 100);
  if (k.price_per_gib_hour) {
    k.price_currency = r.OneOf("price_currency", {"CNY", "USD"});
    k.price_notes = r.Text("price_notes");
    k.price_provenance.basis = r.Text("price_basis", true);
    k.price_provenance.source = r.Text("price_source", true);
    k.price_provenance.as_of = r.Text("price_as_of", true);
    k.price_provenance.origin = r.Origin();
  }
  return k;
}

InstanceType ParseInstance(CsvRowReader& r) {
  InstanceType t;
  t.name = r.Text("name", true);
  t.family = r.Text("family", true);
  t.gpu = r.Text("gpu", true);
  t.gpu_count = r.Number("gpu_count", 0.01, 16);
  t.gpu_memory_gib = r.Number("gpu_memory_gib", 0.5, 1024);
  t.vcpu = r.Integer("vcpu", 1, 1024);
  t.memory_gib = r.Number("memory_gib", 1, 65536);
  t.network_gbps = r.Number("network_gbps", 0.1, 10000);
  t.network_burst_gbps = r.OptionalNumber("network_burst_gbps", 0.1, 10000);
  t.pps = r.OptionalNumber("pps", 1000, 1e9);
  t.rdma = r.Bool("rdma", false);
  t.rdma_gbps = r.OptionalNumber("rdma_gbps", 1, 10000);
  t.interconnect =
      ParseName(kInterconnectNames, r.OneOf("interconnect", NameList(kInterconnectNames)))
          .value_or(Interconnect::kPcie);
  t.local_nvme_gib = r.OptionalNumber("local_nvme_gib", 0, 1e6).value_or(0);
  t.cpu = r.Text("cpu");
  const std::string arch = r.Text("arch");
  if (!arch.empty() && arch != "x86_64" && arch != "arm64") {
    r.Fail("arch", fmt::format("expected x86_64 or arm64, got \"{}\"", arch));
  }
  t.arm = arch == "arm64";
  t.status = ReadLifecycle(r);
  t.notes = r.Text("notes");
  t.provenance = ReadProvenance(r);
  return t;
}

// One row of eri.csv: the instance it belongs to and how its ERIs are attached.
std::pair<std::string, EriAttachment> ParseEri(CsvRowReader& r) {
  EriAttachment e;
  std::string name = r.Text("instance", true);
  e.eri_quantity = r.Integer("eri_quantity", 1, 64);
  e.network_cards = r.Integer("network_cards", 1, 64);
  if (e.network_cards > e.eri_quantity) {
    r.Fail("network_cards", fmt::format("expected at most eri_quantity ({}) network cards, got {}",
                                        e.eri_quantity, e.network_cards));
  }
  if (std::optional<double> qp = r.OptionalNumber("queue_pairs", 1, 1e6))
    e.queue_pairs = static_cast<int>(*qp);
  e.notes = r.Text("notes");
  e.provenance = ReadProvenance(r);
  return {std::move(name), std::move(e)};
}

// Attaches the rows of eri.csv (`text`, read from `file`) to the catalog's instance types. A row
// for a type that is not in the catalog, or that has no eRDMA, is an error unless `lenient` (the
// embedded rows applied again after an overlay that may have changed the type).
Status AttachEri(std::string_view text, const std::string& file, Catalog& c, bool lenient = false) {
  std::vector<std::pair<std::string, EriAttachment>> rows;
  Status s = ParseRows(text, file, {"instance", "eri_quantity", "network_cards"}, rows, ParseEri);
  if (!s.ok())
    return s;
  for (auto& [name, eri] : rows) {
    const std::string& wanted = name;  // clang 14 cannot capture a structured binding
    auto it = std::find_if(c.instances.begin(), c.instances.end(),
                           [&](const InstanceType& t) { return t.name == wanted; });
    if (lenient && (it == c.instances.end() || !it->rdma || it->eri))
      continue;
    if (it == c.instances.end()) {
      return Status::InvalidArgument(
          fmt::format("{}: instance \"{}\" is not in instances.csv", eri.provenance.origin, name));
    }
    if (!it->rdma) {
      return Status::InvalidArgument(
          fmt::format("{}: instance \"{}\" has rdma = no in instances.csv; ERIs need an eRDMA type",
                      eri.provenance.origin, name));
    }
    it->eri = std::move(eri);
  }
  return Status::Ok();
}

Price ParsePrice(CsvRowReader& r, PriceSource origin) {
  Price p;
  p.instance = NormalizeInstanceName(r.Text("instance", true));
  p.region = r.Text("region", true);
  p.zone = r.Text("zone");
  const std::string billing = r.OneOf("billing", BillingNames(BillingUse::kPriceRow));
  p.billing = ParseBilling(billing, BillingUse::kPriceRow).value_or(Billing::kPayg);
  p.currency = r.OneOf("currency", {"CNY", "USD"});
  p.amount = r.Number("price", 0.0001, 1e9);
  p.unit = r.OneOf("unit", {"hour", "month", "year"});
  p.as_of = r.Text("as_of", true);
  p.trust = r.OneOf("trust", {"high", "medium", "low"});
  p.notes = r.Text("notes");
  p.origin = origin;
  p.provenance.source = r.Text("source");
  p.provenance.as_of = p.as_of;
  p.provenance.basis = "price";
  p.provenance.origin = r.Origin();
  return p;
}

}  // namespace

Result<Catalog> ParseCatalog(const CatalogTexts& texts) {
  Catalog c;
  Status s = ParseRows(texts.gpus, texts.dir + "gpus.csv",
                       {"name", "vendor", "architecture", "memory_gib", "memory_bandwidth_gbs"},
                       c.gpus, ParseGpu);
  if (s.ok()) {
    s = ParseRows(texts.families, texts.dir + "families.csv", {"family", "gpu", "kind", "status"},
                  c.families, ParseFamily);
  }
  if (s.ok()) {
    s = ParseRows(texts.instances, texts.dir + "instances.csv",
                  {"name", "family", "gpu", "gpu_count", "gpu_memory_gib", "vcpu", "memory_gib",
                   "network_gbps", "interconnect", "status"},
                  c.instances, ParseInstance);
  }
  if (s.ok()) {
    s = ParseRows(texts.architectures, texts.dir + "architectures.csv",
                  {"compute_capability", "architecture", "min_driver", "cuda", "framework",
                   "image_note", "newest_cuda_major", "reference_nic_gbps", "source", "as_of"},
                  c.architectures, ParseArchitecture);
  }
  if (s.ok()) {
    s = ParseRows(texts.prices, texts.dir + "prices.csv",
                  {"instance", "region", "billing", "currency", "price", "unit", "as_of", "trust"},
                  c.prices, [](CsvRowReader& r) { return ParsePrice(r, PriceSource::kBuiltin); });
  }
  if (s.ok()) {
    s = ParseRows(texts.storage, texts.dir + "storage.csv",
                  {"kind", "min_gib", "max_gib", "base_mbs", "mbs_per_gib", "max_mbs", "basis",
                   "source", "as_of", "price_per_gib_hour"},
                  c.storage, ParseStorage);
  }
  if (!s.ok())
    return s;
  return c;
}

Result<Catalog> LoadCatalog(const std::string& overlay_dir) {
  Result<Catalog> catalog = ParseCatalog({.gpus = EmbeddedData("gpus.csv"),
                                          .families = EmbeddedData("families.csv"),
                                          .instances = EmbeddedData("instances.csv"),
                                          .prices = EmbeddedData("prices.csv"),
                                          .architectures = EmbeddedData("architectures.csv"),
                                          .storage = EmbeddedData("storage.csv"),
                                          .dir = "data/"});
  if (!catalog.ok())
    return catalog;
  if (Status s = AttachEri(EmbeddedData("eri.csv"), "data/eri.csv", *catalog); !s.ok())
    return s;
  if (overlay_dir.empty())
    return catalog;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(overlay_dir, ec)) {
    return Status::NotFound(fmt::format(
        "catalog overlay \"{}\" is not a directory (expected a directory with any of gpus.csv, "
        "families.csv, instances.csv, prices.csv, architectures.csv)",
        overlay_dir));
  }
  std::string files[5];
  const char* names[5] = {"gpus.csv", "families.csv", "instances.csv", "prices.csv",
                          "architectures.csv"};
  const std::string dir = (fs::path(overlay_dir) / "").string();
  for (int i = 0; i < 5; ++i) {
    Result<std::string> text = ReadFile(dir + names[i]);
    if (text.ok()) {
      files[i] = std::move(*text);
    } else if (text.status().code() != ErrorCode::kNotFound) {
      return text.status();
    }
  }
  Result<Catalog> overlay = ParseCatalog({.gpus = files[0],
                                          .families = files[1],
                                          .instances = files[2],
                                          .prices = files[3],
                                          .architectures = files[4],
                                          .dir = dir});
  if (!overlay.ok())
    return overlay.status();
  for (Gpu& g : overlay->gpus)
    g.provenance.basis = g.provenance.basis.empty() ? "user" : g.provenance.basis;
  catalog->Overlay(*overlay);
  // The overlay's eri.csv, then the embedded rows again for types the overlay replaced.
  Result<std::string> eri = ReadFile(dir + "eri.csv");
  if (!eri.ok() && eri.status().code() != ErrorCode::kNotFound)
    return eri.status();
  if (eri.ok()) {
    if (Status s = AttachEri(*eri, dir + "eri.csv", *catalog); !s.ok())
      return s;
  }
  if (Status s = AttachEri(EmbeddedData("eri.csv"), "data/eri.csv", *catalog, true); !s.ok())
    return s;
  return catalog;
}

}  // namespace gpuplan::io
