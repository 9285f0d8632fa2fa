// `gpuplan catalog gpus|instances|families|prices|show`: browse the embedded catalog.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "gpuplan/strings.h"
#include "io/catalog_json.h"
#include "io/catalog_query.h"

namespace gpuplan::cli {
namespace {

using strings::Num;

// The filters (io/catalog_query.h, shared with `gpuplan serve`) and the output format.
struct CatalogFilters {
  io::InstanceFilter filter;  // --gpu --min-gpu-memory --min-gpus --rdma --family --status --region
  OutputFormat format = OutputFormat::kTable;
};

std::string Opt(const std::optional<double>& v, const char* unknown = "-") {
  return v ? Num(*v) : unknown;
}

void RunInstances(CliContext& ctx, const CatalogFilters& cf) {
  Result<Catalog> c = LoadCliCatalog(ctx);
  if (!c.ok())
    return ctx.Fail(c.status());
  const io::InstanceFilter& f = cf.filter;
  if (Status s = io::CheckInstanceFilter(*c, f, io::FieldSpelling::kFlag); !s.ok())
    return ctx.Fail(s, true);
  io::Table table{{"instance", "family", "gpu", "gpus", "gpu_gib", "vcpu", "ram_gib", "net_gbps",
                   "rdma", "interconnect", "status", "payg_per_hour"},
                  {}};
  for (const InstanceType* type : io::MatchInstances(*c, f)) {
    const InstanceType& t = *type;
    const Price* price = io::CheapestPayg(*c, t.name, f.region);
    const std::string price_text =
        price ? fmt::format("{} {}{}", price->currency, Num(price->amount),
                            f.region.empty() ? " (" + price->region + ")" : "")
              : "unknown";
    table.rows.push_back({t.name, t.family, t.gpu, Num(t.gpu_count), Num(t.gpu_memory_gib),
                          std::to_string(t.vcpu), Num(t.memory_gib), Num(t.network_gbps),
                          t.rdma ? (t.rdma_gbps ? Num(*t.rdma_gbps) : "yes") : "no",
                          std::string(InterconnectName(t.interconnect)),
                          std::string(LifecycleName(t.status)), price_text});
  }
  Emit(*ctx.out, cf.format, table,
       cf.format == OutputFormat::kJson ? io::InstanceListJson(*c, f) : nlohmann::json::array());
  if (cf.format == OutputFormat::kTable && table.rows.empty()) {
    *ctx.err << "gpuplan: no instance type matches these filters\n";
  }
}

void RunGpus(CliContext& ctx, const CatalogFilters& f, bool alibaba_only) {
  Result<Catalog> c = LoadCliCatalog(ctx);
  if (!c.ok())
    return ctx.Fail(c.status());
  io::Table table{{"gpu", "arch", "mem_gib", "mem_type", "bw_gbs", "fp64", "fp32", "tf32", "bf16",
                   "fp16", "fp8", "int8", "nvlink_gbs", "pcie", "alibaba"},
                  {}};
  for (const Gpu& g : c->gpus) {
    if (!io::GpuMatches(g, f.filter.min_gpu_memory, alibaba_only))
      continue;
    std::vector<std::string> row = {g.name, g.architecture, Num(g.memory_gib), g.memory_type,
                                    Num(g.memory_bandwidth_gbs)};
    for (Precision p : kAllPrecisions)
      row.push_back(Opt(g.Tflops(p)));
    row.push_back(g.nvlink_gbs > 0 ? Num(g.nvlink_gbs) : "-");
    row.push_back(g.pcie_gen ? "gen" + std::to_string(g.pcie_gen) : "-");
    row.push_back(g.alibaba ? "yes" : "no");
    table.rows.push_back(std::move(row));
  }
  Emit(*ctx.out, f.format, table, io::GpuListJson(*c, f.filter.min_gpu_memory, alibaba_only));
}

void RunFamilies(CliContext& ctx, OutputFormat format) {
  Result<Catalog> c = LoadCliCatalog(ctx);
  if (!c.ok())
    return ctx.Fail(c.status());
  io::Table table{{"family", "gpu", "kind", "types", "status", "good_for"}, {}};
  for (const Family& f : c->families) {
    table.rows.push_back({f.name, f.gpu, f.kind, std::to_string(io::FamilyTypeCount(*c, f)),
                          std::string(LifecycleName(f.status)), f.good_for});
  }
  Emit(*ctx.out, format, table, io::FamilyListJson(*c));
}

struct PriceFilters {
  std::string instance, region, billing;
  OutputFormat format = OutputFormat::kTable;
};

void RunPrices(CliContext& ctx, const PriceFilters& f) {
  Result<Catalog> c = LoadCliCatalog(ctx);
  if (!c.ok())
    return ctx.Fail(c.status());
  const InstanceType* type = f.instance.empty() ? nullptr : c->FindInstance(f.instance);
  if (!f.instance.empty() && !type) {
    return ctx.Fail(
        Status::NotFound(fmt::format("unknown instance type \"{}\"; did you mean {}?", f.instance,
                                     fmt::join(c->SuggestInstances(f.instance), ", "))),
        true);
  }
  const std::optional<Billing> billing = ParseBilling(f.billing, BillingUse::kPriceRow);
  if (!f.billing.empty() && !billing) {
    return ctx.Fail(
        Status::InvalidArgument("--billing: expected " + BillingChoices(BillingUse::kPriceRow) +
                                ", got \"" + f.billing + "\""),
        true);
  }
  io::Table table{{"instance", "region", "zone", "billing", "price", "currency", "unit", "as_of",
                   "source", "trust"},
                  {}};
  nlohmann::json json = nlohmann::json::array();
  for (const Price& p : c->prices) {
    if (type && p.instance != type->name)
      continue;
    if (!f.region.empty() && p.region != f.region)
      continue;
    if (billing && p.billing != *billing)
      continue;
    table.rows.push_back({p.instance, p.region, p.zone.empty() ? "-" : p.zone,
                          std::string(BillingName(p.billing)), Num(p.amount), p.currency, p.unit,
                          p.as_of, p.provenance.source, p.trust});
    json.push_back(io::PriceJson(p));
  }
  Emit(*ctx.out, f.format, table, json);
  if (type && table.rows.empty() && f.format == OutputFormat::kTable) {
    *ctx.err << "price unknown: no sourced price for " << type->name
             << (f.region.empty() ? "" : " in " + f.region)
             << "; use 'gpuplan prices refresh' or 'gpuplan prices import' to bring real prices\n";
  }
}

std::string Line(const std::string& label, const std::string& value) {
  return fmt::format("  {:<22}{}\n", label, value);
}

std::string DescribeGpu(const Gpu& g) {
  std::string s = fmt::format("GPU {} ({}), {} {}, compute capability {}\n", g.name, g.vendor_name,
                              g.architecture, g.memory_type, g.compute_capability);
  s += Line("memory", fmt::format("{} GiB{}", Num(g.memory_gib),
                                  g.usable_memory_gib ? fmt::format(" ({} GiB usable by CUDA)",
                                                                    Num(*g.usable_memory_gib))
                                                      : ""));
  s += Line("memory bandwidth", Num(g.memory_bandwidth_gbs) + " GB/s");
  std::string peaks;
  for (Precision p : kAllPrecisions) {
    if (auto v = g.Tflops(p))
      peaks += fmt::format("{}{} {}", peaks.empty() ? "" : ", ", PrecisionName(p), Num(*v));
  }
  s += Line("dense peak TFLOPS", peaks.empty() ? "unknown" : peaks);
  if (!g.Tflops(Precision::kBf16))
    s += Line("", "no BF16: mixed precision must use FP16 with loss scaling");
  s += Line("NVLink", g.nvlink_gbs > 0 ? Num(g.nvlink_gbs) + " GB/s per GPU (bidirectional)"
                                       : "none (PCIe only)");
  s += Line("host link", g.pcie_gen ? fmt::format("PCIe Gen{} x16, {} GB/s per direction",
                                                  g.pcie_gen, Num(g.PcieGbs()))
                                    : "unknown");
  s += Line("TDP", g.tdp_w ? Num(*g.tdp_w) + " W" : "unknown");
  if (!g.notes.empty())
    s += Line("notes", g.notes);
  s += Line("source",
            fmt::format("{} {} ({}{})", g.provenance.basis, g.provenance.source, g.provenance.as_of,
                        g.provenance.inferred() ? "; inferred, verify before relying on it" : ""));
  return s;
}

std::string DescribeInstance(const Catalog& c, const InstanceType& t) {
  const Gpu& g = c.GpuOf(t);
  const Family* fam = c.FindFamily(t.family);
  const double gpus = std::max(t.gpu_count, 1.0);
  std::string s = fmt::format("{}  ({} family, {}{})\n", t.name, t.family, LifecycleName(t.status),
                              t.bare_metal() ? ", bare metal" : "");
  s += Line("GPU",
            t.vgpu() ? fmt::format("{} of one {} ({} GiB vGPU slice)", Num(t.gpu_count), g.name,
                                   Num(t.gpu_memory_gib))
                     : fmt::format("{} x {} ({} GiB each, {} GiB total)", Num(t.gpu_count), g.name,
                                   Num(t.gpu_memory_gib), Num(t.gpu_memory_gib * t.gpu_count)));
  s += Line("vCPU", fmt::format("{} ({} per GPU)", t.vcpu, Num(t.vcpu / gpus)));
  s += Line("RAM",
            fmt::format("{} GiB ({} GiB per GPU)", Num(t.memory_gib), Num(t.memory_gib / gpus)));
  s += Line("CPU", t.cpu + (t.arm ? " [ARM host]" : ""));
  s += Line("network",
            fmt::format("{} Gbit/s baseline{}{}", Num(t.network_gbps),
                        t.network_burst_gbps ? ", burst " + Num(*t.network_burst_gbps) : "",
                        t.pps ? fmt::format(", {} PPS", Num(*t.pps)) : ""));
  s += Line("eRDMA",
            t.rdma ? (t.rdma_gbps ? Num(*t.rdma_gbps) + " Gbit/s" : "yes (bandwidth not stated)")
                   : "no: multi-node NCCL runs over plain VPC TCP");
  if (t.eri) {
    s += Line("ERIs (deploy)", fmt::format("{} on {} network card index(es), queue pairs {} ({})",
                                           t.eri->eri_quantity, t.eri->network_cards,
                                           t.eri->queue_pairs ? std::to_string(*t.eri->queue_pairs)
                                                              : "not in the sources",
                                           t.eri->provenance.source));
  }
  s += Line("GPU interconnect", t.gpu_count < 2
                                    ? "single GPU"
                                    : std::string(InterconnectName(t.interconnect)) +
                                          (t.interconnect == Interconnect::kPcie
                                               ? " (no NVLink: tensor parallel across GPUs is slow)"
                                               : ""));
  s += Line("local NVMe", t.local_nvme_gib > 0 ? Num(t.local_nvme_gib) + " GiB"
                                               : "none (use ESSD, CPFS, NAS or OSS)");
  const Price* price = io::CheapestPayg(c, t.name, "");
  s += Line("pay-as-you-go",
            price ? fmt::format("from {} {}/hour ({}, {} {}, trust {})", price->currency,
                                Num(price->amount), price->region, price->provenance.source,
                                price->as_of, price->trust)
                  : "price unknown (no sourced price; use 'gpuplan prices refresh')");
  if (fam) {
    s += Line("good for", fam->good_for);
    s += Line("not for", fam->avoid_for);
    if (!fam->confusion.empty())
      s += Line("correction", fam->confusion);
  }
  if (!t.notes.empty())
    s += Line("notes", t.notes);
  s += Line("source",
            fmt::format("{} {} ({})", t.provenance.basis, t.provenance.source, t.provenance.as_of));
  s += "\n" + DescribeGpu(g);
  return s;
}

std::string DescribeFamily(const Catalog& c, const Family& f) {
  std::string s =
      fmt::format("family {}: {} ({}, {})\n", f.name, f.gpu, f.kind, LifecycleName(f.status));
  s += Line("good for", f.good_for);
  s += Line("not for", f.avoid_for);
  if (!f.confusion.empty())
    s += Line("correction", f.confusion);
  s += "  types:\n";
  for (const InstanceType& t : c.instances) {
    if (t.family == f.name) {
      s += fmt::format("    {:<28} {} GPU, {} vCPU, {} GiB\n", t.name, Num(t.gpu_count), t.vcpu,
                       Num(t.memory_gib));
    }
  }
  return s;
}

// The corrections (families.csv `confusion`, sourced) that name `name`, a name the catalog does
// not have: "gn7-m20" finds gn7's ("gn7-m10/gn7-m20 do not exist; ..."). A correction names it
// when one of its words is the name, the name's type stem (up to its size: "gn7-lc4" of
// "ecs.gn7-lc4.2xlarge") or its family part when that is no family ("gn7v" of "gn7v-c8g1"); a
// word that is a catalog type matches only itself, so a typo of a real type still gets "did you
// mean".
std::vector<const Family*> ConfusionsAbout(const Catalog& c, std::string_view name) {
  const std::string key = NormalizeInstanceName(name);
  if (key.empty())
    return {};
  const size_t start = kInstancePrefix.size();
  auto stem = [&](const std::string& n) { return n.substr(0, n.find('.', start)); };
  std::set<std::string> wanted = {key, stem(key)};
  const size_t family_end = key.find_first_of("-.", start);
  if (!c.FindFamily(key.substr(start, family_end - start)))
    wanted.insert(key.substr(0, family_end));
  std::vector<const Family*> out;
  for (const Family& f : c.families) {
    bool names_it = false;
    std::string word;
    for (size_t i = 0; i <= f.confusion.size() && !names_it; ++i) {
      const char ch = i < f.confusion.size() ? f.confusion[i] : ' ';
      if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '_') {
        word.push_back(ch);
        continue;
      }
      while (!word.empty() && word.back() == '.')
        word.pop_back();  // the end of a sentence
      if (!word.empty()) {
        const std::string w = NormalizeInstanceName(word);
        names_it = wanted.count(w) > 0 || (!c.FindInstance(w) && wanted.count(stem(w)) > 0);
      }
      word.clear();
    }
    if (names_it)
      out.push_back(&f);
  }
  return out;
}

void RunShow(CliContext& ctx, const std::string& name, OutputFormat format) {
  Result<Catalog> c = LoadCliCatalog(ctx);
  if (!c.ok())
    return ctx.Fail(c.status());
  if (const InstanceType* t = c->FindInstance(name)) {
    if (format == OutputFormat::kJson) {
      nlohmann::json j = io::InstanceJson(*t);
      j["gpu_spec"] = io::GpuJson(c->GpuOf(*t));
      if (const Family* f = c->FindFamily(t->family))
        j["family_info"] = io::FamilyJson(*f);
      *ctx.out << j.dump(2) << "\n";
    } else {
      *ctx.out << DescribeInstance(*c, *t);
    }
    return;
  }
  if (const Family* f = c->FindFamily(name)) {
    if (format == OutputFormat::kJson) {
      *ctx.out << io::FamilyJson(*f).dump(2) << "\n";
    } else {
      *ctx.out << DescribeFamily(*c, *f);
    }
    return;
  }
  if (const Gpu* g = c->FindGpu(name)) {
    if (format == OutputFormat::kJson) {
      *ctx.out << io::GpuJson(*g).dump(2) << "\n";
    } else {
      *ctx.out << DescribeGpu(*g);
    }
    return;
  }
  std::string message = fmt::format("unknown instance type, family or GPU \"{}\"", name);
  if (const std::vector<const Family*> known = ConfusionsAbout(*c, name); !known.empty()) {
    for (const Family* f : known)
      message += (f == known.front() ? ". " : " ") + f->confusion;
    return ctx.Fail(Status::NotFound(message));
  }
  auto near = c->SuggestInstances(name);
  if (!near.empty())
    message += fmt::format("; did you mean {}?", fmt::join(near, ", "));
  ctx.Fail(Status::NotFound(message));
}

void AddInstanceFilters(CLI::App* cmd, CatalogFilters& cf) {
  io::InstanceFilter& f = cf.filter;
  cmd->add_option("--gpu", f.gpu, "Only this GPU model or alias (A10, A100-80G, H20 ...)");
  cmd->add_option("--min-gpu-memory", f.min_gpu_memory, "Minimum GPU memory per GPU, GiB");
  cmd->add_option("--min-gpus", f.min_gpus, "Minimum GPUs per instance");
  cmd->add_flag("--rdma", f.rdma, "Only types with eRDMA");
  cmd->add_option("--family", f.family, "Only this family (gn7i, ebmgn7ex ...)");
  cmd->add_option("--status", f.status,
                  "Only this lifecycle status: current, legacy, retired, preview");
  cmd->add_option("--region", f.region,
                  "Only types with a known price in this region (cn-hangzhou ...)");
  AddFormatFlags(cmd, &cf.format);
}

}  // namespace

void AddCatalogCommand(CLI::App& app, CliContext& ctx) {
  CLI::App* catalog =
      app.add_subcommand("catalog", "Browse GPUs, instance types, families and prices");
  catalog->require_subcommand(1);

  auto instance_filters = std::make_shared<CatalogFilters>();
  CLI::App* instances =
      catalog->add_subcommand("instances", "List Alibaba Cloud GPU instance types");
  AddInstanceFilters(instances, *instance_filters);
  instances->callback([&ctx, instance_filters] { RunInstances(ctx, *instance_filters); });

  auto gpu_filters = std::make_shared<CatalogFilters>();
  auto alibaba_only = std::make_shared<bool>(false);
  CLI::App* gpus = catalog->add_subcommand("gpus", "List GPU models with their specs");
  gpus->add_option("--min-gpu-memory", gpu_filters->filter.min_gpu_memory, "Minimum memory, GiB");
  gpus->add_flag("--alibaba", *alibaba_only, "Only GPUs that some Alibaba family ships");
  AddFormatFlags(gpus, &gpu_filters->format);
  gpus->callback([&ctx, gpu_filters, alibaba_only] { RunGpus(ctx, *gpu_filters, *alibaba_only); });

  auto family_format = std::make_shared<OutputFormat>(OutputFormat::kTable);
  CLI::App* families =
      catalog->add_subcommand("families", "List instance families and what they are for");
  AddFormatFlags(families, family_format.get());
  families->callback([&ctx, family_format] { RunFamilies(ctx, *family_format); });

  auto price_filters = std::make_shared<PriceFilters>();
  CLI::App* prices = catalog->add_subcommand("prices", "List the embedded indicative price book");
  prices->add_option("--instance", price_filters->instance, "Only this instance type");
  prices->add_option("--region", price_filters->region, "Only this region");
  prices->add_option("--billing", price_filters->billing,
                     "Only this billing mode: " + BillingChoices(BillingUse::kPriceRow));
  AddFormatFlags(prices, &price_filters->format);
  prices->callback([&ctx, price_filters] { RunPrices(ctx, *price_filters); });

  auto show_name = std::make_shared<std::string>();
  auto show_format = std::make_shared<OutputFormat>(OutputFormat::kTable);
  CLI::App* show =
      catalog->add_subcommand("show", "Explain one instance type, family or GPU in full");
  show->add_option("name", *show_name,
                   "Instance type (ecs.gn7i-c8g1.2xlarge), family (gn7i) or GPU (A10)")
      ->required();
  AddFormatFlags(show, show_format.get(), false);
  show->callback([&ctx, show_name, show_format] { RunShow(ctx, *show_name, *show_format); });
}

}  // namespace gpuplan::cli
