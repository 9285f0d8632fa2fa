#include "io/deploy_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuplan/plan.h"
#include "gpuplan/strings.h"
#include "io/embedded_data.h"
#include "io/fleet_deploy.h"
#include "io/fleet_render.h"
#include "io/text_template.h"
#include "io/utc_time.h"

namespace gpuplan::io {
namespace {

using strings::Num;

// One ESSD holds 20-32768 GiB (reference 5.1, S16).
constexpr double kMaxEssdGib = 32768;
// System disk: the OS, driver, CUDA, Python environment and container images. 100 GiB is within
// the 20-500 GiB ECS allows for a system disk and leaves room for a CUDA image (~20-40 GiB);
// ESSD PL1 is the level the storage plan starts from (reference 5.1).
constexpr int kSystemDiskGib = 100;
// Subscription periods RunInstances accepts with PeriodUnit=Month (reference 3.3, S10).
constexpr int kMonthPeriods[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 24, 36, 48, 60};
// RunInstances creates 1-100 instances per call (Amount; RunInstances API reference).
constexpr int kMaxAmount = 100;
// MTU for NCCL's LL128 protocol over eRDMA without jumbo frames (Alibaba GPU eRDMA guide, S22:
// 8500 with jumbo frames, otherwise 1400; a wrong MTU causes data-consistency problems). Jumbo
// frames exist only from the 8th instance generation (RunInstances NetworkOptions), and these
// files do not turn them on, so every generation gets 1400.
constexpr int kErdmaMtu = 1400;
// The oldest driver branch the first-boot install picks (Ubuntu's nvidia-driver-N-server).
constexpr int kDefaultDriverBranch = 535;

// Names that go into shell and HCL text unquoted-safe: letters, digits, '.', '_', '-'.
bool SafeName(std::string_view s) {
  if (s.empty())
    return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-';
  });
}

// Free text for a '#' comment or a Markdown line: control characters become spaces.
std::string OneLine(std::string_view s) {
  std::string out(s);
  for (char& ch : out) {
    if (std::iscntrl(static_cast<unsigned char>(ch)))
      ch = ' ';
  }
  return out;
}

// `text` with every line indented by `n` spaces (empty lines stay empty).
std::string Indent(std::string_view text, int n) {
  const std::string pad(static_cast<size_t>(n), ' ');
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (!line.empty())
      out += pad;
    out += line;
    out += '\n';
    start = end + 1;
  }
  return out;
}

// "finetune (lora) of llama-2-7b, bf16" and the like.
std::string Describe(const Workload& w) {
  std::string s(TaskName(w.task));
  if (w.task == Task::kFinetune)
    s += " (" + std::string(MethodName(w.method)) + ")";
  if (!w.model_name.empty())
    s += " of " + w.model_name;
  s += ", " + w.PrecisionText();
  if (!w.name.empty())
    s = w.name + ": " + s;
  return OneLine(s);
}

std::string FirstMatch(std::string_view text, bool dotted) {
  // The first run of digits (dotted: digits '.' digits, or digits ".x").
  for (size_t i = 0; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      continue;
    size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])))
      ++j;
    std::string major(text.substr(i, j - i));
    if (!dotted)
      return major;
    if (j + 1 < text.size() && text[j] == '.') {
      if (text[j + 1] == 'x')
        return major + ".0";
      size_t k = j + 1;
      while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])))
        ++k;
      if (k > j + 1)
        return major + "." + std::string(text.substr(j + 1, k - j - 1));
    }
    return major + ".0";
  }
  return "";
}

struct DataDisk {
  int size_gib = 0;
  std::string level;  // "PL1", "PL2", "PL3"
};

// Everything the four files share, derived once from the candidate.
struct Spec {
  const Workload* w = nullptr;
  const planner::Candidate* c = nullptr;
  const InstanceType* type = nullptr;
  const DeployOptions* o = nullptr;
  std::string instance_name;     // InstanceName: "gpuplan-<family>"
  std::string_view charge_type;  // InstanceChargeType, from the billing table
  bool prepaid = false;          // a PrePaid term (subscription): Period and PeriodUnit go with it
  int period_months = 0;
  std::string period_note;    // why the period differs from the plan's term, or ""
  std::string spot_strategy;  // "" (not spot), "SpotAsPriceGo" or "SpotWithPriceLimit"
  std::optional<DataDisk> data_disk;
  std::string storage;  // the plan's storage kind
  bool nfs = false;     // cpfs or nas: a shared file system mounted over NFS
  // Several training nodes that talk to each other (all or nothing, inter-node network); an
  // inference candidate's instances are independent replicas instead.
  bool cluster = false;
  int gpus_per_node = 1;
  std::string min_driver, min_cuda;
  std::string billing_text;  // for people: "spot (SpotAsPriceGo: ...)"
  std::string cost_text;     // "CNY 123.00 for 10.5 h"
  std::string currency;      // the plan's price currency, "CNY" or "USD"
  // Elastic RDMA interfaces attached at creation (a cluster on an eRDMA type), else 0.
  int eris = 0;
  int network_cards = 1;           // card indexes the ERIs are spread over
  std::optional<int> queue_pairs;  // the type's QP total, when a source gives it
  bool eri_documented = false;     // eris/network_cards come from data/eri.csv
  int generation = 0;              // instance generation (7 for gn7i, ebmgn7ex), 0 = unknown
  double assumed_gbps = 0;         // inter-node Gbit/s the plan's collectives were timed with
  int driver_branch = kDefaultDriverBranch;
};

std::string Money3(double amount) { return fmt::format("{:.3f}", amount); }

std::string CostText(const planner::Candidate& c) {
  std::string s;
  if (c.monthly) {
    s = c.monthly->per_month.ToString() + " per month";
    if (c.monthly->lower_bound)
      s += " (at least: reclaim overhead unknown)";
    return s;
  }
  s = c.job_hours > 0 ? c.cost.total.ToString() + " for " + Num(c.job_hours) + " h"
                      : c.cost.total.ToString() + " per hour";
  if (c.cost.lower_bound)
    s += " (at least: the spot reclaim rate is unknown)";
  return s;
}

// Whole subscription terms the plan priced (months or years, per instance).
int PlanTerms(const planner::Candidate& c) {
  if (c.monthly)
    return 1;
  const double per_term = c.cost.price.price.amount() * c.nodes;
  if (!(per_term > 0))
    return 1;
  return std::max(1, static_cast<int>(std::lround(c.cost.total.amount() / per_term)));
}

// What cannot go into the files safely, or at all: names with shell or HCL metacharacters, more
// nodes than one RunInstances call creates, control characters in the checkpoint command.
Status CheckRenderable(const planner::Candidate& c, const InstanceType& type,
                       const DeployOptions& o) {
  const std::pair<const char*, const std::string*> names[] = {
      {"instance type", &c.instance}, {"region", &c.region}, {"family", &type.family}};
  for (const auto& [what, value] : names) {
    if (!SafeName(*value)) {
      return Status::InvalidArgument(fmt::format(
          "{} \"{}\" cannot go into a script: expected letters, digits, '.', '_' and '-'", what,
          OneLine(*value)));
    }
  }
  if (c.nodes < 1)
    return Status::Internal("candidate with " + std::to_string(c.nodes) + " nodes");
  if (c.nodes > kMaxAmount) {
    return Status::Unsupported(fmt::format(
        "{} nodes: RunInstances creates 1-{} instances per call (Amount), and a training cluster "
        "must be created all at once (MinAmount does not span calls); deploy at most {} nodes "
        "(gpuplan plan --max-nodes {}, or --nodes with --instance)",
        c.nodes, kMaxAmount, kMaxAmount, kMaxAmount));
  }
  for (char ch : o.checkpoint_command) {
    if (std::iscntrl(static_cast<unsigned char>(ch)) && ch != '\n' && ch != '\t') {
      return Status::InvalidArgument(
          "checkpoint command: control characters other than newline and tab are not allowed");
    }
  }
  return Status::Ok();
}

// A spot price limit goes with a spot candidate, above zero and not below the plan's own spot
// price (RunInstances refuses that).
Status CheckSpotPriceLimit(const planner::Candidate& c, const DeployOptions& o) {
  if (!o.spot_price_limit)
    return Status::Ok();
  if (!(*o.spot_price_limit > 0)) {
    return Status::InvalidArgument(
        "spot price limit: expected a price per instance-hour > 0, got " +
        Num(*o.spot_price_limit));
  }
  if (c.billing != cost::Mode::kSpot) {
    return Status::InvalidArgument("a spot price limit goes with a spot candidate; this one is " +
                                   std::string(cost::ModeName(c.billing)));
  }
  const double plan_price = c.cost.price.price.amount();
  if (plan_price > 0 && *o.spot_price_limit + 0.0005 < plan_price) {
    return Status::InvalidArgument(fmt::format(
        "--spot-price-limit {}: below the plan's own spot price, {} {} per instance-hour ({}{}); "
        "RunInstances refuses a limit under the current spot price "
        "(InvalidSpotPriceLimit.LowerThanPublicPrice). Give a limit >= {}, or refresh the price "
        "first (gpuplan prices refresh) if you know it has dropped",
        Money3(*o.spot_price_limit), CurrencyName(c.cost.total.currency()), Money3(plan_price),
        PriceSourceName(c.cost.price.source),
        c.cost.price.as_of.empty() ? "" : ", as of " + c.cost.price.as_of, Money3(plan_price)));
  }
  return Status::Ok();
}

// The subscription period RunInstances sells that covers the plan's terms, and why it differs.
void SetSubscriptionPeriod(const planner::Candidate& c, Spec* s) {
  const int months = PlanTerms(c) * BillingModeOf(c.billing).term_months;
  s->period_months = kMonthPeriods[std::size(kMonthPeriods) - 1];
  for (int p : kMonthPeriods) {
    if (p >= months) {
      s->period_months = p;
      break;
    }
  }
  if (s->period_months != months) {
    s->period_note = fmt::format(
        "the plan needs {} month(s); RunInstances sells 1-9, 12, 24, 36, 48 or 60 months, "
        "so this buys {}{}",
        months, s->period_months, months > s->period_months ? " and you renew for the rest" : "");
  }
}

// How the plan's billing mode is rented: prepaid or not, the spot strategy, and in words.
void SetBilling(const planner::Candidate& c, const DeployOptions& o, Spec* s) {
  s->charge_type = BillingModeOf(c.billing).charge_type;
  s->prepaid = s->charge_type == "PrePaid";
  switch (c.billing) {
    case Billing::kPayg:
      s->billing_text = "pay-as-you-go (billed per second)";
      break;
    case Billing::kSpot:
      s->spot_strategy = o.spot_price_limit ? "SpotWithPriceLimit" : "SpotAsPriceGo";
      s->billing_text =
          o.spot_price_limit
              ? "spot (SpotWithPriceLimit: at most " + s->currency + " " +
                    Money3(*o.spot_price_limit) + " per instance-hour)"
              : "spot (SpotAsPriceGo: the market price, at most the pay-as-you-go price)";
      break;
    case Billing::kSubscriptionMonth:
    case Billing::kSubscriptionYear:
      SetSubscriptionPeriod(c, s);
      s->billing_text = fmt::format("subscription, {} month(s) paid up front", s->period_months);
      break;
    case Billing::kReservedNoUpfront:
      s->billing_text =
          "pay-as-you-go instances covered by a reserved instance (no upfront, 1 year) that you "
          "buy separately for this type and region";
      break;
    case Billing::kReservedPartialUpfront:
      s->billing_text =
          "pay-as-you-go instances covered by a reserved instance (partial upfront, 1 year) that "
          "you buy separately for this type and region";
      break;
    case Billing::kSavingsPlan:
      s->billing_text = "pay-as-you-go instances covered by a savings plan that you buy separately";
      break;
  }
}

// The plan's storage as a data disk (an ESSD), local disks or a shared file system.
Status SetStorage(const planner::Candidate& c, Spec* s) {
  s->storage = c.storage.kind;
  if (s->storage.rfind("essd_pl", 0) == 0) {
    if (c.storage.size_gib > kMaxEssdGib) {
      return Status::Unsupported(fmt::format(
          "the storage plan asks for a {} GiB ESSD; one ESSD holds at most {} GiB: use CPFS or "
          "several disks",
          Num(c.storage.size_gib), Num(kMaxEssdGib)));
    }
    DataDisk d;
    d.size_gib = static_cast<int>(std::ceil(std::max(c.storage.size_gib, 20.0)));
    d.level = "PL" + s->storage.substr(7);
    s->data_disk = d;
  }
  s->nfs = s->storage == "cpfs" || s->storage == "nas";
  return Status::Ok();
}

// The network between the nodes of a training cluster: the elastic RDMA interfaces to attach.
void SetNetwork(const Workload& w, const planner::Candidate& c, const InstanceType& type,
                const DeployOptions& o, Spec* s) {
  s->cluster = c.nodes > 1 && w.IsTraining();
  s->generation = o.generation.value_or(0);
  if (s->cluster && type.rdma) {
    s->eri_documented = type.eri.has_value();
    const EriAttachment eri = type.eri.value_or(EriAttachment{});
    s->eris = eri.eri_quantity;
    s->network_cards = eri.network_cards;
    s->queue_pairs = eri.queue_pairs;
    s->assumed_gbps = type.rdma_gbps.value_or(type.network_gbps) * o.rdma_efficiency;
  }
}

Result<Spec> MakeSpec(const Workload& w, const planner::Candidate& c, const InstanceType& type,
                      const DeployOptions& o) {
  if (Status st = CheckRenderable(c, type, o); !st.ok())
    return st;
  if (Status st = CheckSpotPriceLimit(c, o); !st.ok())
    return st;
  Spec s;
  s.w = &w;
  s.c = &c;
  s.type = &type;
  s.o = &o;
  s.instance_name = "gpuplan-" + type.family;
  s.gpus_per_node = std::max(1, type.whole_gpus());
  s.min_driver = MinDriverVersion(c.image);
  s.min_cuda = MinCudaVersion(c.image);
  if (!s.min_driver.empty())
    s.driver_branch = std::max(kDefaultDriverBranch, std::atoi(s.min_driver.c_str()));
  s.cost_text = CostText(c);
  s.currency = std::string(CurrencyName(c.cost.total.currency()));
  SetBilling(c, o, &s);
  if (Status st = SetStorage(c, &s); !st.ok())
    return st;
  SetNetwork(w, c, type, o, &s);
  return s;
}

// ---------------------------------------------------------------------------------------------
// The templates (data/deploy/*.tmpl) and their values

// "# Generated by `gpuplan deploy` ...": the lines under each file's title.
std::string Generated(const Spec& s) {
  const planner::Candidate& c = *s.c;
  std::string h = "# Generated by `gpuplan deploy`";
  if (!s.o->today.empty())
    h += " on " + s.o->today;
  h += s.o->rank > 0 ? " from candidate #" + std::to_string(s.o->rank) + " of the plan"
                     : std::string(" for the instance type given with --instance");
  h += " for: " + Describe(*s.w) + "\n";
  h += fmt::format("#   {} x {} ({} x {} each) in {}, {}\n", c.nodes, c.instance,
                   Num(s.type->gpu_count), c.gpu, c.region, OneLine(s.billing_text));
  h += "#   estimated " + OneLine(s.cost_text) + " (instances only; disks and bandwidth extra)\n";
  return h;
}

std::string ShellQuote(std::string_view s) {
  std::string out = "'";
  for (char ch : s) {
    if (ch == '\'') {
      out += "'\\''";
    } else {
      out += ch;
    }
  }
  return out + "'";
}

// Text inside a quoted HCL string: '"' and '\' escaped, "${" and "%{" (which start templates)
// doubled, control characters as spaces.
std::string HclText(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if ((ch == '$' || ch == '%') && i + 1 < s.size() && s[i + 1] == '{') {
      out += ch;
      out += ch;
    } else if (std::iscntrl(static_cast<unsigned char>(ch))) {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

// The candidate, its image and its billing.
void AddCandidateValues(const Spec& s, TemplateValues* v) {
  const planner::Candidate& c = *s.c;
  v->text["generated"] = Generated(s);
  v->text["region"] = c.region;
  v->text["instance"] = c.instance;
  v->text["instance_name"] = s.instance_name;
  v->text["nodes"] = std::to_string(c.nodes);
  v->text["gpu_sh"] = ShellQuote(c.gpu);
  v->text["gpus_per_node"] = std::to_string(s.gpus_per_node);
  v->text["billing"] = std::string(cost::ModeName(c.billing));
  v->text["billing_text"] = OneLine(s.billing_text);
  v->text["cost_text"] = OneLine(s.cost_text);
  v->text["currency"] = s.currency;
  v->text["spot_strategy"] = s.spot_strategy;
  v->text["spot_price_limit"] = s.o->spot_price_limit ? Money3(*s.o->spot_price_limit) : "";
  v->text["period_months"] = std::to_string(s.period_months);
  std::string checkpoint = s.o->checkpoint_command;
  if (!checkpoint.empty() && checkpoint.back() != '\n')
    checkpoint += '\n';
  v->text["checkpoint_command"] = checkpoint;
  v->flags["several_nodes"] = c.nodes > 1;
  v->flags["spot"] = c.billing == cost::Mode::kSpot;
  v->flags["spot_price_limit"] = s.o->spot_price_limit.has_value();
  v->flags["prepaid"] = s.prepaid;
  v->flags["checkpoint_command"] = !checkpoint.empty();
  const planner::ImagePlan& image = c.image;
  const std::pair<std::string, const std::string*> image_texts[] = {
      {"image_os", &image.os},
      {"image_driver", &image.driver},
      {"image_cuda", &image.cuda},
      {"image_framework", &image.framework},
      {"image_why", &image.why}};
  for (const auto& [key, text] : image_texts) {
    v->text[key] = OneLine(*text);
    v->text[key + "_hcl"] = HclText(*text);
  }
  v->text["min_driver_sh"] = ShellQuote(s.min_driver);
  v->text["min_cuda_sh"] = ShellQuote(s.min_cuda);
  v->text["driver_branch"] = std::to_string(s.driver_branch);
}

// The system disk and the plan's storage.
void AddStorageValues(const Spec& s, TemplateValues* v) {
  v->text["system_disk_gib"] = std::to_string(kSystemDiskGib);
  v->text["storage_why"] = OneLine(s.c->storage.why);
  v->text["storage_sh"] = ShellQuote(s.storage);
  v->text["data_disk_gib"] = s.data_disk ? std::to_string(s.data_disk->size_gib) : "";
  v->text["data_disk_level"] = s.data_disk ? s.data_disk->level : "";
  v->text["nfs_kind"] = s.storage == "cpfs" ? "CPFS" : "NAS";
  v->text["data_source"] = s.storage.empty() ? std::string("its source") : s.storage;
  v->flags["data_disk"] = s.data_disk.has_value();
  v->flags["local_nvme"] = !s.data_disk && s.storage == "local_nvme";
  v->flags["nfs"] = s.nfs;
  v->flags["nothing_to_mount"] = !s.data_disk && s.storage != "local_nvme" && !s.nfs;
}

// The network between the nodes: TCP, or eRDMA with its interfaces and queue pairs.
void AddNetworkValues(const Spec& s, TemplateValues* v) {
  v->text["network_gbps"] = Num(s.type->network_gbps);
  v->text["eris"] = std::to_string(s.eris);
  v->text["eri_cards"] =
      s.network_cards > 1 ? fmt::format(", on {} network card indexes", s.network_cards) : "";
  v->text["queue_pairs_per_eri"] =
      s.queue_pairs && s.eris > 0 ? std::to_string(*s.queue_pairs / s.eris) : "";
  v->text["erdma_mtu"] = std::to_string(kErdmaMtu);
  v->text["generation"] = std::to_string(s.generation);
  v->text["assumed_gbps"] = Num(s.assumed_gbps);
  v->flags["cluster"] = s.cluster;
  v->flags["tcp_cluster"] = s.cluster && s.eris == 0;
  v->flags["eri"] = s.eris > 0;
  v->flags["several_eris"] = s.eris > 1;
  v->flags["several_network_cards"] = s.network_cards > 1;
  v->flags["eri_undocumented"] = s.eris > 0 && !s.eri_documented;
  v->flags["queue_pairs_known"] = s.queue_pairs.has_value();
}

// data/deploy/`name`.tmpl once per elastic RDMA interface from the `first` (0 = the primary),
// with its number `n`, its role and its network card index.
Result<std::string> RenderPerEri(const Spec& s, std::string_view name, int first,
                                 TemplateValues v) {
  std::string out;
  for (int i = first; i < s.eris; ++i) {
    v.text["n"] = std::to_string(i + 1);
    v.text["role"] = i == 0 ? "Primary" : "Secondary";
    v.text["network_card_index"] = std::to_string(i % s.network_cards);
    Result<std::string> one = RenderDeployTemplate(name, v);
    if (!one.ok())
      return one.status();
    out += *one;
  }
  return out;
}

// The RunInstances arguments that say how the instances are paid for.
std::string ChargeTypeArgs(const Spec& s) {
  std::string t = "  --InstanceChargeType " + std::string(s.charge_type) + "\n";
  if (s.prepaid) {
    t += "  --Period " + std::to_string(s.period_months) +
         "\n  --PeriodUnit Month\n  --AutoRenew false\n";
  }
  return t;
}

Result<std::string> RenderScript(const Spec& s, TemplateValues v) {
  Result<std::string> eri_args = RenderPerEri(s, "run-instances.sh-eri", 0, v);
  if (!eri_args.ok())
    return eri_args.status();
  v.text["eri_args"] = *eri_args;
  v.text["charge_type_args"] = ChargeTypeArgs(s);
  return RenderDeployTemplate("run-instances.sh", v);
}

Result<std::string> RenderTerraform(const Spec& s, TemplateValues v) {
  Result<std::string> secondary = RenderPerEri(s, "main.tf-eri", 1, v);
  if (!secondary.ok())
    return secondary.status();
  v.text["secondary_eris"] = *secondary;
  return RenderDeployTemplate("main.tf", v);
}

// A write_files entry of cloud-init.yaml.
std::string WriteFile(std::string_view path, std::string_view permissions,
                      std::string_view content) {
  return "  - path: " + std::string(path) + "\n    permissions: '" + std::string(permissions) +
         "'\n    content: |\n" + Indent(content, 6);
}

Result<std::string> RenderCloudInit(const Spec& s, TemplateValues v) {
  const bool spot = s.c->billing == cost::Mode::kSpot;
  const bool eri = s.eris > 0;
  // What cloud-init writes, in this order; each from the template named as the file.
  const struct {
    std::string_view path, permissions;
    bool wanted;
  } kFiles[] = {
      {"/etc/gpuplan/deploy.env", "0644", true},
      {"/usr/local/lib/gpuplan/setup.sh", "0755", true},
      {"/usr/local/lib/gpuplan/firstboot.sh", "0755", true},
      {"/etc/systemd/system/gpuplan-firstboot.path", "0644", true},
      {"/etc/systemd/system/gpuplan-firstboot.service", "0644", true},
      {"/usr/local/lib/gpuplan/net.sh", "0755", eri},
      {"/usr/local/lib/gpuplan/netcheck.sh", "0755", eri},
      {"/etc/systemd/system/gpuplan-net.service", "0644", eri},
      {"/etc/systemd/system/gpuplan-netcheck.service", "0644", eri},
      {"/usr/local/lib/gpuplan/monitor.sh", "0755", true},
      {"/etc/systemd/system/gpuplan-monitor.service", "0644", true},
      {"/etc/gpuplan/checkpoint.sh", "0755", spot},
      {"/usr/local/lib/gpuplan/watch-spot.sh", "0755", spot},
      {"/etc/systemd/system/gpuplan-watch-spot.service", "0644", spot},
  };
  std::string files;
  for (const auto& f : kFiles) {
    if (!f.wanted)
      continue;
    Result<std::string> content = RenderDeployTemplate(f.path.substr(f.path.rfind('/') + 1), v);
    if (!content.ok())
      return content.status();
    files += WriteFile(f.path, f.permissions, *content);
  }
  v.text["write_files"] = files;
  return RenderDeployTemplate("cloud-init.yaml", v);
}

// ---------------------------------------------------------------------------------------------
// README.md

std::string WhyParagraph(const Spec& s) {
  const planner::Candidate& c = *s.c;
  if (!c.why.empty())
    return OneLine(c.why) + ".";
  std::string why = std::to_string(c.nodes) + " x " + c.instance + " (" + std::to_string(c.gpus) +
                    " x " + c.gpu + ") in " + c.region + ", " +
                    std::string(cost::ModeName(c.billing));
  if (s.w->IsTraining()) {
    why += fmt::format(
        ": fits at {} of {} GiB per GPU with tp={} pp={} dp={} ZeRO-{}, micro-batch {}, MFU {}%",
        Num(c.estimate.memory.per_gpu_gib), Num(c.estimate.memory.capacity_gib), c.layout.tp,
        c.layout.pp, c.layout.dp, c.layout.zero, c.layout.micro_batch,
        Num(c.estimate.throughput.mfu * 100));
  } else if (c.estimate.inference) {
    why +=
        fmt::format(": {} GiB per GPU, {} requests/s per instance at batch {}, {} replica(s)",
                    Num(c.estimate.memory.per_gpu_gib), Num(c.estimate.inference->requests_per_s),
                    c.estimate.inference->batch, c.copies);
  }
  return why + "; " + OneLine(s.cost_text) + ".";
}

std::string StorageText(const Spec& s) {
  const planner::StoragePlan& st = s.c->storage;
  if (s.data_disk) {
    return fmt::format("one {} GiB ESSD {} data disk per instance, mounted at /mnt/data",
                       s.data_disk->size_gib, s.data_disk->level);
  }
  if (s.storage == "local_nvme")
    return "the instance's local NVMe, mounted at /mnt/local0, /mnt/local1, ...";
  if (s.nfs) {
    return fmt::format(
        "a shared {} file system for about {} GiB, mounted at /mnt/data on every node over NFS "
        "with `noresvport` and an `/etc/fstab` line, so it comes back after a reboot",
        s.storage == "cpfs" ? "CPFS" : "NAS", Num(st.size_gib));
  }
  return "read from " + (s.storage.empty() ? std::string("its source") : s.storage) +
         " (nothing to mount)";
}

// What the files attach for the network between nodes, and why.
std::string NetworkText(const Spec& s) {
  const planner::Candidate& c = *s.c;
  if (s.eris == 0) {
    return "TCP over the VPC (" + Num(s.type->network_gbps) + " Gbit/s baseline); " + c.family +
           " has no eRDMA.";
  }
  std::string t = fmt::format(
      "eRDMA{}, which the plan's step time assumes. The files attach {} elastic RDMA interface(s) "
      "(ERI: `NetworkInterface.N.NetworkInterfaceTrafficMode=HighPerformance`{}; Terraform "
      "`network_interface_traffic_mode`{}), so the VSwitch and security group go inside the "
      "interface block. ",
      s.type->rdma_gbps ? " (" + Num(*s.type->rdma_gbps) + " Gbit/s)" : std::string(), s.eris,
      s.network_cards > 1 ? fmt::format(" on network card indexes 0-{}", s.network_cards - 1)
                          : std::string(),
      s.eris > 1 ? " and `network_interfaces`" : "");
  if (s.eri_documented && s.type->eri && !s.type->eri->notes.empty())
    t += "Why: " + OneLine(s.type->eri->notes) + " (data/eri.csv). ";
  if (!s.eri_documented) {
    t += "gpuplan's sources do not say how many ERIs " + c.instance +
         " needs for its bandwidth, so one is attached: check `EriQuantity` and "
         "`NetworkCardQuantity` with `aliyun ecs DescribeInstanceTypes`. ";
  }
  if (s.eris > 1 && !s.queue_pairs) {
    t += "Queue pairs per ERI: the type's `QueuePairNumber` split over the ERIs (run-instances.sh "
         "reads it from DescribeInstanceTypes; main.tf asks for `queue_pairs_per_eri`). ";
  }
  t += fmt::format(
      "At first boot setup.sh installs the eRDMA stack (Alibaba's `env_setup.sh --egs`) and "
      "perftest, and `gpuplan-net.service` sets MTU {} on the eRDMA interfaces at every boot: "
      "NCCL's LL128 protocol over eRDMA needs MTU 8500 with jumbo frames, otherwise 1400, and "
      "jumbo frames exist only from the 8th generation ({}). Check the bandwidth "
      "with `/usr/local/lib/gpuplan/netcheck.sh <other nodes' private IPs>` on one node: it warns "
      "below the {} Gbit/s the plan assumed.",
      kErdmaMtu,
      s.generation > 0 ? fmt::format("{} is generation {}", c.family, s.generation)
                       : c.family + "'s generation is not in data/families.csv",
      Num(s.assumed_gbps));
  return t;
}

// "# Deploy: ..." and where the files come from.
std::string ReadmeIntro(const Spec& s) {
  const planner::Candidate& c = *s.c;
  std::string t = fmt::format("# Deploy: {} x {} in {}, {}\n\n", c.nodes, c.instance, c.region,
                              cost::ModeName(c.billing));
  t += "Generated by `gpuplan deploy`";
  if (!s.o->today.empty())
    t += " on " + s.o->today;
  t += " for: " + Describe(*s.w) + ". ";
  t += s.o->rank > 0 ? "This is candidate #" + std::to_string(s.o->rank) + " of the plan.\n\n"
                     : std::string("The instance type was pinned with `--instance`.\n\n");
  return t;
}

// The billing line, with the period note and which currency a spot price limit is in.
std::string BillingLine(const Spec& s) {
  std::string t = "- Billing: " + OneLine(s.billing_text) + ".";
  if (!s.period_note.empty())
    t += " Note: " + s.period_note + ".";
  if (s.o->spot_price_limit) {
    t += " The limit is in your account's billing currency: CNY on the China site (aliyun.com), "
         "USD on the international site (alibabacloud.com); gpuplan read " +
         Money3(*s.o->spot_price_limit) + " as " + s.currency +
         ", the currency of the plan's "
         "price (" +
         s.currency + " " + Money3(s.c->cost.price.price.amount()) +
         " per hour): convert it if your account bills in the other one.";
  }
  return t + "\n";
}

// The storage line, with what a spot reclaim does to the data.
std::string StorageLine(const Spec& s) {
  const bool spot = s.c->billing == cost::Mode::kSpot;
  std::string t = "- Storage: " + StorageText(s) + " (" + OneLine(s.c->storage.why) + ").";
  if (spot && s.data_disk) {
    t += " On a spot reclaim the instance is released but the data disk is kept "
         "(`DeleteWithInstance=false`), with the checkpoints on it: attach it to the next "
         "instance, and delete it when you are done (it is billed until then).";
  } else if (spot && s.nfs) {
    t += " The shared file system outlives a spot reclaim: keep the checkpoints there.";
  } else if (spot) {
    t += " On a spot reclaim local disks are lost: write checkpoints to OSS, NAS or CPFS.";
  }
  return t + "\n";
}

// "## What was chosen and why": the candidate, billing, storage, image, driver, network, advice.
std::string ReadmeChoice(const Spec& s) {
  const planner::Candidate& c = *s.c;
  std::string t = "## What was chosen and why\n\n" + WhyParagraph(s) + "\n\n";
  t += BillingLine(s) + StorageLine(s);
  t += "- Image: " + OneLine(c.image.os) + "; NVIDIA driver " + OneLine(c.image.driver) +
       ", CUDA " + OneLine(c.image.cuda) + ", " + OneLine(c.image.framework) + " (" +
       OneLine(c.image.why) + ").\n";
  t += fmt::format(
      "- GPU driver: RunInstances and Terraform install none (the console's \"auto-install GPU "
      "driver\" is a user-data script, and these files use the user data for cloud-init). Pick "
      "an image that has driver {} or newer, or a public Ubuntu 22.04 image: setup.sh then "
      "installs `nvidia-driver-{}-server` from the image's apt mirror at first boot "
      "(`ALLOW_INSTALL=yes`). On Alibaba Cloud Linux without a driver it only warns.\n",
      s.driver_branch, s.driver_branch);
  if (s.cluster) {
    t += "- Network between nodes: " + NetworkText(s) + "\n";
  } else if (c.nodes > 1) {
    t += "- Serving: " + std::to_string(c.nodes) +
         " independent replicas, one per instance; put a load balancer (SLB or ALB, not created "
         "by these files) in front of them.\n";
  }
  for (const rules::Advice& a : c.advice) {
    t += "- Advice [" + std::string(rules::SeverityName(a.severity)) + "] " + OneLine(a.rule) +
         ": " + OneLine(a.message) + "\n";
  }
  return t;
}

// "## Cost estimate": the instances' cost, the price it used, and what it leaves out.
std::string ReadmeCost(const Spec& s) {
  const planner::Candidate& c = *s.c;
  std::string t = "\n## Cost estimate\n\n";
  t += "- Instances (" + std::to_string(c.nodes) + " x " + c.instance + ", " +
       std::string(cost::ModeName(c.billing)) + "): " + OneLine(s.cost_text) + ".\n";
  const cost::PriceQuote& p = c.monthly ? c.monthly->price : c.cost.price;
  t += "- Price used: " + p.price.ToString() + " per " + (p.unit.empty() ? "hour" : p.unit) + " (" +
       std::string(PriceSourceName(p.source)) + (p.as_of.empty() ? "" : ", as of " + p.as_of) +
       (p.trust.empty() ? "" : ", trust " + p.trust) +
       (p.basis.empty() ? "" : "; " + OneLine(p.basis)) + ").\n";
  for (const std::string& note : c.monthly ? c.monthly->notes : c.cost.notes)
    t += "- " + OneLine(note) + ".\n";
  if (c.cost.commitment)
    t += "- Paid up front: " + c.cost.commitment->ToString() + ".\n";
  if (c.billing == cost::Mode::kSpot && c.cost.checkpoint_interval_hours) {
    t += "- Checkpoint every " + Num(*c.cost.checkpoint_interval_hours) +
         " h (Young/Daly interval the spot cost assumes), besides the one on the reclaim notice.\n";
  }
  t += fmt::format("- Not included: the {} GiB ESSD PL1 system disk{}", kSystemDiskGib,
                   s.data_disk ? fmt::format(" and the {} GiB ESSD {} data disk",
                                             s.data_disk->size_gib, s.data_disk->level)
                               : std::string());
  t += std::string(c.nodes > 1 ? " of each instance" : "") +
       (s.nfs ? ", the " + std::string(s.storage == "cpfs" ? "CPFS" : "NAS") + " file system"
              : std::string()) +
       ", public bandwidth and OSS. Check today's price with `gpuplan prices refresh` before "
       "renting.\n";
  return t;
}

// The step that creates the shared file system (and, for CPFS, what to check first).
std::string FileSystemStep(const Spec& s) {
  const planner::Candidate& c = *s.c;
  std::string fs = fmt::format(
      "Create the {} file system in {} with a mount target in the VSwitch's VPC, and put its "
      "mount address in `GPUPLAN_NFS_EXPORT` in `cloud-init.yaml` (or on the instance in "
      "`/etc/gpuplan/deploy.env`, then rerun `/usr/local/lib/gpuplan/setup.sh`).",
      s.storage == "cpfs" ? "CPFS" : "NAS", c.region);
  if (s.storage == "cpfs") {
    fs += fmt::format(
        " Check two things first: CPFS is sold only to China-site accounts (aliyun.com; NAS API "
        "reference), and in capacity steps far above the {} GiB the read rate needs (the "
        "minimum is not in gpuplan's sources: see the CPFS buy page for {}). If either rules it "
        "out, use a General-purpose NAS file system instead: the same NFS mount and "
        "`GPUPLAN_NFS_EXPORT` work unchanged, at NAS throughput; or keep the data on OSS and "
        "copy it to each node's disk.",
        Num(c.storage.size_gib), c.region);
  }
  return fs;
}

// What to do before renting: buy the commitment, create the file system, fill the ids, write the
// checkpoint command.
std::vector<std::string> StepsBeforeRenting(const Spec& s) {
  const planner::Candidate& c = *s.c;
  std::vector<std::string> steps;
  if (c.billing == cost::Mode::kReservedNoUpfront || c.billing == cost::Mode::kSavingsPlan) {
    steps.push_back(
        std::string("Buy the ") +
        (c.billing == cost::Mode::kSavingsPlan
             ? "savings plan"
             : "reserved instance for " + c.instance + " in " + c.region) +
        " in the console first: the files rent pay-as-you-go instances, which it then covers.");
  }
  if (s.nfs)
    steps.push_back(FileSystemStep(s));
  steps.push_back(
      "Fill the `FILL-ME` values: the block at the top of `run-instances.sh` (or export "
      "`VSWITCH_ID`, "
      "`SECURITY_GROUP_ID`, `KEY_PAIR_NAME`, `IMAGE_ID`), or the Terraform variables of `main.tf` "
      "(`terraform.tfvars`). You choose the image (see GPU driver above), the VSwitch (in a zone "
      "that sells the type), the security group (SSH from your address" +
      std::string(s.cluster ? ", all traffic inside the group" : "") +
      ") and the key pair; gpuplan never invents them.");
  if (c.billing == cost::Mode::kSpot) {
    steps.push_back(
        s.o->checkpoint_command.empty()
            ? "Put your checkpoint command in `/etc/gpuplan/checkpoint.sh` (in `cloud-init.yaml` "
              "before "
              "renting, or on the instance, then `systemctl restart gpuplan-watch-spot`); or run "
              "`gpuplan "
              "deploy` again with `--checkpoint-command`."
            : "Your checkpoint command is in `/etc/gpuplan/checkpoint.sh`; `gpuplan watch-spot` "
              "runs it on "
              "the reclaim notice.");
  }
  return steps;
}

// Renting, verifying, planning again with the measurement, and ending.
std::vector<std::string> StepsFromRenting(const Spec& s) {
  const bool spot = s.c->billing == cost::Mode::kSpot;
  return {
      // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): each step is one long sentence
      "Rent: `./run-instances.sh` (prints the request and asks first; `--yes` skips the "
      "question), or `terraform init && terraform apply`.",
      "Put the gpuplan agent on the instances (they have no public IP, so not with scp): "
      "build the portable agent (`cmake --build build --target gpuplan-agent`: one static file "
      "that starts on Ubuntu 22.04/24.04 and Alibaba Cloud Linux 3, docs/on-instance.md), "
      "upload it to OSS in " +
          s.c->region +
          " (`ossutil cp build/gpuplan-agent oss://BUCKET/gpuplan`) and sign a URL for it "
          "(`ossutil sign oss://BUCKET/gpuplan --timeout 86400`). Either "
          "put that URL in `GPUPLAN_AGENT_URL` in `cloud-init.yaml` before renting (setup.sh "
          "downloads it at first boot), or after renting run the download through Cloud "
          "Assistant, which needs no public IP: `aliyun ecs RunCommand --RegionId " +
          s.c->region +
          " --Type RunShellScript --InstanceId.1 i-... --CommandContent \"curl -fsSL 'URL' -o "
          "/tmp/gpuplan && install -m 755 /tmp/gpuplan /usr/local/bin/gpuplan\"` (one "
          "`--InstanceId.N` per instance). The first-boot unit then runs `gpuplan probe --save "
          "/var/lib/gpuplan/calibration.json` and starts `gpuplan monitor` (a 10 s timeline in "
          "`/var/log/gpuplan-monitor.csv`)" +
          std::string(spot ? " and `gpuplan watch-spot`." : "."),
      "Verify: `cat /var/log/gpuplan-setup.log` (driver, CUDA, storage" +
          std::string(s.eris > 0 ? ", RDMA; then `/usr/local/lib/gpuplan/netcheck.sh` with the "
                                   "other nodes' private IPs for the bandwidth"
                                 : "") +
          ") and `cat /var/lib/gpuplan/probe.txt`, or run `gpuplan probe` yourself: measured GEMM "
          "TFLOPS and memory bandwidth against the catalog.",
      "Plan again with the measurement: copy `/var/lib/gpuplan/calibration.json` back and run "
      "`gpuplan plan WORKLOAD.yaml --probe-calibration calibration.json`.",
      s.prepaid ? "The subscription ends after the period (auto-renew is off). main.tf sets "
                  "`force_delete = true`, without which `terraform destroy` refuses PrePaid "
                  "instances; destroying early does not refund the period."
                : "Release the instances when the job is done (console, or `terraform destroy`): "
                  "pay-as-you-go billing runs until then."};
}

// "## Steps", numbered.
std::string ReadmeSteps(const Spec& s) {
  std::vector<std::string> steps = StepsBeforeRenting(s);
  for (std::string& step : StepsFromRenting(s))
    steps.push_back(std::move(step));
  std::string t = "\n## Steps\n\n";
  for (size_t i = 0; i < steps.size(); ++i)
    t += std::to_string(i + 1) + ". " + steps[i] + "\n";
  return t;
}

std::string RenderReadme(const Spec& s) {
  return ReadmeIntro(s) + ReadmeChoice(s) + ReadmeCost(s) + ReadmeSteps(s);
}

}  // namespace

std::string MinDriverVersion(const planner::ImagePlan& image) {
  return FirstMatch(image.driver, false);
}

std::string MinCudaVersion(const planner::ImagePlan& image) { return FirstMatch(image.cuda, true); }

Result<std::string> RenderDeployTemplate(std::string_view name, const TemplateValues& v) {
  const std::string path = "deploy/" + std::string(name) + ".tmpl";
  const std::string_view text = EmbeddedData(path);
  if (text.empty())
    return Status::Internal("data/" + path + " is not embedded in gpuplan");
  return RenderTemplate("data/" + path, text, v);
}

namespace {

// A service's fleet: the base as any plan's instances (main.tf, run-instances.sh, on the base's
// mode), and the elastic layer as an ESS group (ess.tf, ess-schedule.sh). Without a base, the
// group is all there is: main.tf keeps the shared variables and no instance.
Result<DeployFiles> RenderFleetFiles(const Workload& w, const planner::Candidate& c,
                                     const InstanceType& type, const DeployOptions& options) {
  const serving::Fleet& f = *c.fleet;
  planner::Candidate base = c;
  base.fleet.reset();
  base.billing = f.base_replicas > 0 ? f.base_billing : f.elastic_billing;
  base.nodes = std::max(f.BaseInstances(), 1);
  base.gpus = c.gpus / std::max(c.nodes, 1) * base.nodes;
  Result<DeployFiles> files = RenderDeploy(w, base, type, options);
  if (!files.ok())
    return files;
  if (f.base_replicas == 0) {
    files->erase("run-instances.sh");
    std::string& tf = (*files)["main.tf"];
    const std::string count = "count           = " + std::to_string(base.nodes);
    if (const size_t at = tf.find(count); at != std::string::npos)
      tf.replace(at, count.size(), "count           = 0 # no base: ess.tf runs every instance");
  }
  if (f.elastic.Peak() > 0) {
    Result<std::vector<std::pair<std::string, std::string>>> ess =
        RenderFleetDeploy(w, c, options.today.empty() ? UtcToday() : options.today);
    if (!ess.ok())
      return ess.status();
    for (auto& [name, text] : *ess)
      (*files)[name] = std::move(text);
  }
  std::string& readme = (*files)["README.md"];
  readme += "\n## The fleet: a committed base and an elastic layer\n\n" + FleetText(c) + "\n";
  readme += f.base_replicas > 0
                ? "The files above rent the base (" + std::to_string(f.BaseInstances()) + " x " +
                      c.instance + ", " + std::string(BillingName(f.base_billing)) + "). "
                : "There is no base: every instance is elastic. ";
  if (f.elastic.Peak() > 0) {
    readme +=
        "`ess.tf` (with `terraform apply`, beside main.tf) or `ess-schedule.sh` (aliyun CLI) "
        "creates the Auto Scaling group of the elastic instances and one scheduled task per "
        "change of its size (cron in UTC); put the base and the group behind one load "
        "balancer (the group's `loadbalancer_ids`). Check the group's activity after the "
        "first day (`aliyun ess DescribeScalingActivities`): a scale-up that takes longer "
        "than the lead time means a longer `inference.traffic.scale_up_minutes`.\n";
  }
  return files;
}

}  // namespace

Result<DeployFiles> RenderDeploy(const Workload& w, const planner::Candidate& c,
                                 const InstanceType& type, const DeployOptions& options) {
  if (c.fleet)
    return RenderFleetFiles(w, c, type, options);
  Result<Spec> spec = MakeSpec(w, c, type, options);
  if (!spec.ok())
    return spec.status();
  TemplateValues values;
  AddCandidateValues(*spec, &values);
  AddStorageValues(*spec, &values);
  AddNetworkValues(*spec, &values);
  Result<std::string> script = RenderScript(*spec, values);
  Result<std::string> terraform = RenderTerraform(*spec, values);
  Result<std::string> cloud_init = RenderCloudInit(*spec, values);
  for (const Result<std::string>* r : {&script, &terraform, &cloud_init}) {
    if (!r->ok())
      return r->status();
  }
  DeployFiles files;
  files["run-instances.sh"] = *std::move(script);
  files["main.tf"] = *std::move(terraform);
  files["cloud-init.yaml"] = *std::move(cloud_init);
  files["README.md"] = RenderReadme(*spec);
  return files;
}

}  // namespace gpuplan::io
