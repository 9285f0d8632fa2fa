#include "io/deploy_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "gpuplan/plan.h"

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
// Marks every value the user must fill; the script refuses to run while one is left.
constexpr std::string_view kFillMe = "FILL-ME";
// Where the files expect gpuplan on the instance (the systemd path unit waits for it).
constexpr std::string_view kGpuplanBin = "/usr/local/bin/gpuplan";
// RunInstances creates 1-100 instances per call (Amount; RunInstances API reference).
constexpr int kMaxAmount = 100;
// MTU for NCCL's LL128 protocol over eRDMA without jumbo frames (Alibaba GPU eRDMA guide, S22:
// 8500 with jumbo frames, otherwise 1400; a wrong MTU causes data-consistency problems). Jumbo
// frames exist only from the 8th instance generation (RunInstances NetworkOptions), and these
// files do not turn them on, so every generation gets 1400.
constexpr int kErdmaMtu = 1400;
// The first generation whose instance types can have jumbo frames (MTU 8500).
constexpr int kJumboFrameGeneration = 8;
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
  s += ", " + std::string(PrecisionName(w.precision));
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
    const std::string major(text.substr(i, j - i));
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
  std::string instance_name;  // InstanceName: "gpuplan-<family>"
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

// The generation digit of a GPU family name: gn7i -> 7, ebmgn8v -> 8, sgn7i-vws -> 7.
int Generation(std::string_view family) {
  const size_t at = family.find("gn");
  if (at == std::string_view::npos || at + 2 >= family.size() ||
      !std::isdigit(static_cast<unsigned char>(family[at + 2])))
    return 0;
  return family[at + 2] - '0';
}

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

Result<Spec> MakeSpec(const Workload& w, const planner::Candidate& c, const InstanceType& type,
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
  Spec s;
  s.w = &w;
  s.c = &c;
  s.type = &type;
  s.o = &o;
  s.instance_name = "gpuplan-" + type.family;
  s.gpus_per_node = std::max(1, type.whole_gpus());
  s.min_driver = MinDriverVersion(c.image);
  s.min_cuda = MinCudaVersion(c.image);
  s.cost_text = CostText(c);

  if (o.spot_price_limit) {
    if (!(*o.spot_price_limit > 0)) {
      return Status::InvalidArgument(
          "spot price limit: expected a price per instance-hour > 0, got " +
          Num(*o.spot_price_limit));
    }
    if (c.billing != cost::Mode::kSpot) {
      return Status::InvalidArgument("a spot price limit goes with a spot candidate; this one is " +
                                     std::string(cost::ModeName(c.billing)));
    }
  }
  const std::string currency(CurrencyName(c.cost.total.currency()));
  s.currency = currency;
  if (o.spot_price_limit && c.cost.price.price.amount() > 0 &&
      *o.spot_price_limit + 0.0005 < c.cost.price.price.amount()) {
    return Status::InvalidArgument(fmt::format(
        "--spot-price-limit {}: below the plan's own spot price, {} {} per instance-hour ({}{}); "
        "RunInstances refuses a limit under the current spot price "
        "(InvalidSpotPriceLimit.LowerThanPublicPrice). Give a limit >= {}, or refresh the price "
        "first (gpuplan prices refresh) if you know it has dropped",
        Money3(*o.spot_price_limit), currency, Money3(c.cost.price.price.amount()),
        PriceSourceName(c.cost.price.source),
        c.cost.price.as_of.empty() ? "" : ", as of " + c.cost.price.as_of,
        Money3(c.cost.price.price.amount())));
  }
  s.charge_type = BillingModeOf(c.billing).charge_type;
  s.prepaid = s.charge_type == "PrePaid";
  switch (c.billing) {
    case Billing::kPayg:
      s.billing_text = "pay-as-you-go (billed per second)";
      break;
    case Billing::kSpot:
      s.spot_strategy = o.spot_price_limit ? "SpotWithPriceLimit" : "SpotAsPriceGo";
      s.billing_text =
          o.spot_price_limit
              ? "spot (SpotWithPriceLimit: at most " + currency + " " +
                    Money3(*o.spot_price_limit) + " per instance-hour)"
              : "spot (SpotAsPriceGo: the market price, at most the pay-as-you-go price)";
      break;
    case Billing::kSubscriptionMonth:
    case Billing::kSubscriptionYear: {
      const int months = PlanTerms(c) * BillingModeOf(c.billing).term_months;
      s.period_months = kMonthPeriods[std::size(kMonthPeriods) - 1];
      for (int p : kMonthPeriods) {
        if (p >= months) {
          s.period_months = p;
          break;
        }
      }
      if (s.period_months != months) {
        s.period_note = fmt::format(
            "the plan needs {} month(s); RunInstances sells 1-9, 12, 24, 36, 48 or 60 months, "
            "so this buys {}{}",
            months, s.period_months, months > s.period_months ? " and you renew for the rest" : "");
      }
      s.billing_text = fmt::format("subscription, {} month(s) paid up front", s.period_months);
      break;
    }
    case Billing::kReservedNoUpfront:
      s.billing_text =
          "pay-as-you-go instances covered by a reserved instance (no upfront, 1 year) that you "
          "buy separately for this type and region";
      break;
    case Billing::kReservedPartialUpfront:
      s.billing_text =
          "pay-as-you-go instances covered by a reserved instance (partial upfront, 1 year) that "
          "you buy separately for this type and region";
      break;
    case Billing::kSavingsPlan:
      s.billing_text = "pay-as-you-go instances covered by a savings plan that you buy separately";
      break;
  }

  s.storage = c.storage.kind;
  if (s.storage.rfind("essd_pl", 0) == 0) {
    if (c.storage.size_gib > kMaxEssdGib) {
      return Status::Unsupported(fmt::format(
          "the storage plan asks for a {} GiB ESSD; one ESSD holds at most {} GiB: use CPFS or "
          "several disks",
          Num(c.storage.size_gib), Num(kMaxEssdGib)));
    }
    DataDisk d;
    d.size_gib = static_cast<int>(std::ceil(std::max(c.storage.size_gib, 20.0)));
    d.level = "PL" + s.storage.substr(7);
    s.data_disk = d;
  }
  s.nfs = s.storage == "cpfs" || s.storage == "nas";
  s.cluster = c.nodes > 1 && w.IsTraining();
  s.generation = Generation(type.family);
  if (s.cluster && type.rdma) {
    s.eri_documented = type.eri.has_value();
    const EriAttachment eri = type.eri.value_or(EriAttachment{});
    s.eris = eri.eri_quantity;
    s.network_cards = eri.network_cards;
    s.queue_pairs = eri.queue_pairs;
    s.assumed_gbps = type.rdma_gbps.value_or(type.network_gbps) * o.rdma_efficiency;
  }
  if (!s.min_driver.empty()) {
    s.driver_branch = std::max(kDefaultDriverBranch, std::atoi(s.min_driver.c_str()));
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// run-instances.sh

std::string Header(const Spec& s, std::string_view what) {
  const planner::Candidate& c = *s.c;
  std::string h = "# " + std::string(what) + "\n# Generated by `gpuplan deploy`";
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

// The NetworkInterface.N parameters that attach the elastic RDMA interfaces: the primary ENI
// (which then carries the VSwitch and security group) and secondary ones, spread over the
// network card indexes (RunInstances NetworkInterface; S3 for ebmgn7ex's two card indexes).
std::string EriArgs(const Spec& s) {
  std::string t = fmt::format(
      "  # eRDMA: {} elastic RDMA interface(s) (ERI), "
      "NetworkInterfaceTrafficMode=HighPerformance{}.\n"
      "  # With NetworkInterface.1 the VSwitch and security group go inside the interface.\n",
      s.eris,
      s.network_cards > 1 ? fmt::format(", on {} network card indexes", s.network_cards)
                          : std::string());
  for (int i = 0; i < s.eris; ++i) {
    const std::string n = "  --NetworkInterface." + std::to_string(i + 1) + ".";
    t += n + "InstanceType " + (i == 0 ? "Primary" : "Secondary") + "\n";
    t += n + "VSwitchId \"$VSWITCH_ID\"\n";
    t += n + "SecurityGroupId \"$SECURITY_GROUP_ID\"\n";
    t += n + "NetworkInterfaceTrafficMode HighPerformance\n";
    if (s.network_cards > 1)
      t += n + "NetworkCardIndex " + std::to_string(i % s.network_cards) + "\n";
    if (s.eris > 1)
      t += n + "QueuePairNumber \"$QUEUE_PAIRS_PER_ERI\"\n";
  }
  return t;
}

// Script lines that set QUEUE_PAIRS_PER_ERI: the type's queue pairs split over its ERIs. Without
// QueuePairNumber the first ERI takes every queue pair and the others cannot attach (ERI guide).
std::string QueuePairLookup(const Spec& s) {
  if (s.eris < 2)
    return "";
  std::string t =
      "\n# Queue pairs per ERI: the type's total split over its " + std::to_string(s.eris) +
      " ERIs (without it the first ERI takes\n# them all and the others cannot attach).";
  if (s.queue_pairs) {
    return t + "\nQUEUE_PAIRS_PER_ERI=\"${QUEUE_PAIRS_PER_ERI:-" +
           std::to_string(*s.queue_pairs / s.eris) + "}\"\n";
  }
  t += " gpuplan's sources do not give the total,\n# so it is read from DescribeInstanceTypes "
       "(QueuePairNumber) unless you set it.\n";
  t += "ERI_COUNT=" + std::to_string(s.eris) + "\n";
  t += R"sh(QUEUE_PAIRS_PER_ERI="${QUEUE_PAIRS_PER_ERI:-}"
if [[ -z "$QUEUE_PAIRS_PER_ERI" ]]; then
  types_json="$(aliyun ecs DescribeInstanceTypes --RegionId "$REGION_ID" --InstanceTypes.1 "$INSTANCE_TYPE")" ||
    fail "DescribeInstanceTypes failed: set QUEUE_PAIRS_PER_ERI yourself (the type's QueuePairNumber / $ERI_COUNT)"
  total_qp="$(printf '%s\n' "$types_json" | sed -n 's/.*"QueuePairNumber": *\([0-9][0-9]*\).*/\1/p' | head -n1)"
  [[ -n "$total_qp" && "$total_qp" -ge "$ERI_COUNT" ]] ||
    fail "DescribeInstanceTypes gives no QueuePairNumber for $INSTANCE_TYPE: set QUEUE_PAIRS_PER_ERI (queue pairs per ERI)"
  QUEUE_PAIRS_PER_ERI=$((total_qp / ERI_COUNT))
fi
[[ "$QUEUE_PAIRS_PER_ERI" =~ ^[1-9][0-9]*$ ]] || fail "QUEUE_PAIRS_PER_ERI '$QUEUE_PAIRS_PER_ERI' is not a whole number > 0"
)sh";
  return t;
}

std::string RenderScript(const Spec& s) {
  const planner::Candidate& c = *s.c;
  const bool spot = c.billing == cost::Mode::kSpot;
  std::string t = "#!/usr/bin/env bash\n";
  t += Header(
      s, "run-instances.sh: rent the plan's choice with the aliyun CLI (one RunInstances call).");
  t += R"sh(#
# Usage: ./run-instances.sh [--yes]
#   Checks the FILL-ME values, prints the request, asks before renting (--yes skips the
#   question), then calls `aliyun ecs RunInstances` once. Billing starts when it succeeds.
set -euo pipefail

# ---- FILL-ME: ids from your account. gpuplan never invents them. --------------------------
# Edit them here or export them before running.
)sh";
  t += "# VSwitch (vsw-...) in region " + c.region + ", in a zone that sells " + c.instance +
       "\n# (check the console's instance-type page); the instances go to the VSwitch's zone.\n";
  t += "VSWITCH_ID=\"${VSWITCH_ID:-" + std::string(kFillMe) + "}\"\n";
  t += "# Security group (sg-...) in the VSwitch's VPC; allow SSH (22) from your address only";
  t += s.cluster
           ? ",\n# and all traffic between members of the group (the nodes talk to each other).\n"
           : ".\n";
  t += "SECURITY_GROUP_ID=\"${SECURITY_GROUP_ID:-" + std::string(kFillMe) + "}\"\n";
  t += "# Name of an SSH key pair in " + c.region + ".\n";
  t += "KEY_PAIR_NAME=\"${KEY_PAIR_NAME:-" + std::string(kFillMe) + "}\"\n";
  t += "# Image id in " + c.region + ": " + OneLine(c.image.os) + ",\n#   NVIDIA driver " +
       OneLine(c.image.driver) + ", CUDA " + OneLine(c.image.cuda) + ", " +
       OneLine(c.image.framework) + "\n#   (" + OneLine(c.image.why) + ").\n";
  t += "IMAGE_ID=\"${IMAGE_ID:-" + std::string(kFillMe) + "}\"\n";
  t += R"sh(# Zone id (optional): empty = the VSwitch's zone.
ZONE_ID="${ZONE_ID:-}"
# Public bandwidth, Mbit/s (pay by traffic): 0 = no public IP, reach the instances from the VPC.
PUBLIC_BANDWIDTH_MBPS="${PUBLIC_BANDWIDTH_MBPS:-0}"
# ---------------------------------------------------------------------------------------------

)sh";
  t += "REGION_ID='" + c.region + "'\n";
  t += "INSTANCE_TYPE='" + c.instance + "'\n";
  t += "AMOUNT=" + std::to_string(c.nodes) + "\n\n";
  t += R"sh(yes=no
for arg in "$@"; do
  case "$arg" in
    -y | --yes) yes=yes ;;
    -h | --help)
      sed -n '2,12p' "$0"
      exit 0
      ;;
    *)
      echo "run-instances.sh: unknown argument '$arg' (only --yes)" >&2
      exit 2
      ;;
  esac
done

fail() {
  echo "run-instances.sh: $*" >&2
  exit 1
}

command -v aliyun >/dev/null 2>&1 ||
  fail "the aliyun CLI is not installed: install it (https://github.com/aliyun/aliyun-cli), run 'aliyun configure', then run this again"
for name in VSWITCH_ID SECURITY_GROUP_ID KEY_PAIR_NAME IMAGE_ID; do
  if [[ -z "${!name}" || "${!name}" == FILL-ME* ]]; then
    fail "$name is not filled in: edit the FILL-ME block at the top of $0 or export $name"
  fi
done
[[ "$VSWITCH_ID" == vsw-* ]] || fail "VSWITCH_ID '$VSWITCH_ID' is not a VSwitch id (vsw-...)"
[[ "$SECURITY_GROUP_ID" == sg-* ]] || fail "SECURITY_GROUP_ID '$SECURITY_GROUP_ID' is not a security group id (sg-...)"
[[ "$PUBLIC_BANDWIDTH_MBPS" =~ ^[0-9]+$ ]] || fail "PUBLIC_BANDWIDTH_MBPS '$PUBLIC_BANDWIDTH_MBPS' is not a whole number"
((PUBLIC_BANDWIDTH_MBPS <= 100)) || fail "PUBLIC_BANDWIDTH_MBPS $PUBLIC_BANDWIDTH_MBPS: RunInstances allows 0-100 Mbit/s"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ -f "$here/cloud-init.yaml" ]] || fail "cloud-init.yaml is missing next to this script"
user_data="$(base64 <"$here/cloud-init.yaml" | tr -d '\n')"
)sh";
  t += QueuePairLookup(s);
  t += R"sh(
args=(
  --RegionId "$REGION_ID"
  --InstanceType "$INSTANCE_TYPE"
  --Amount "$AMOUNT"
)sh";
  if (s.cluster) {
    t += "  # All or nothing: a partial cluster cannot run the job (MinAmount).\n";
    t += "  --MinAmount \"$AMOUNT\"\n";
  }
  t += "  --ImageId \"$IMAGE_ID\"\n";
  if (s.eris == 0) {
    t += "  --VSwitchId \"$VSWITCH_ID\"\n  --SecurityGroupId \"$SECURITY_GROUP_ID\"\n";
  } else {
    t += EriArgs(s);
  }
  t += "  --KeyPairName \"$KEY_PAIR_NAME\"\n";
  t += "  --InstanceName '" + s.instance_name + "'\n";
  if (c.nodes > 1)
    t += "  # Distinct names: gpuplan-<family>001, 002, ...\n  --UniqueSuffix true\n";
  t += "  --InstanceChargeType " + std::string(s.charge_type) + "\n";
  if (s.prepaid) {
    t += "  --Period " + std::to_string(s.period_months) +
         "\n  --PeriodUnit Month\n  --AutoRenew false\n";
  }
  if (!s.spot_strategy.empty()) {
    t += "  --SpotStrategy " + s.spot_strategy + "\n";
    if (s.o->spot_price_limit) {
      t += "  # At most " + Money3(*s.o->spot_price_limit) +
           " per instance-hour in your account's "
           "billing currency (CNY on\n  # aliyun.com, USD on alibabacloud.com); gpuplan read it "
           "as " +
           s.currency + ", the plan's currency.\n";
      t += "  --SpotPriceLimit " + Money3(*s.o->spot_price_limit) + "\n";
    }
    t += "  # 1 hour without reclaim after creation, as the plan's spot cost assumed.\n";
    t += "  --SpotDuration 1\n  --SpotInterruptionBehavior Terminate\n";
  }
  t += "  --SystemDisk.Category cloud_essd\n  --SystemDisk.Size " + std::to_string(kSystemDiskGib) +
       "\n  --SystemDisk.PerformanceLevel PL1\n";
  if (s.data_disk) {
    t += "  # Data disk per the plan's storage: " + OneLine(c.storage.why) + ".\n";
    t += "  --DataDisk.1.Category cloud_essd\n  --DataDisk.1.Size " +
         std::to_string(s.data_disk->size_gib) + "\n  --DataDisk.1.PerformanceLevel " +
         s.data_disk->level + "\n";
    if (spot) {
      t +=
          "  # Spot: keep the disk (and the checkpoints on it) when the instance is reclaimed; it\n"
          "  # stays in the console as an unattached disk, billed until you delete it.\n"
          "  --DataDisk.1.DeleteWithInstance false\n";
    }
  }
  t += ")\n";
  t += R"sh(if [[ -n "$ZONE_ID" ]]; then
  args+=(--ZoneId "$ZONE_ID")
fi
if ((PUBLIC_BANDWIDTH_MBPS > 0)); then
  args+=(--InternetChargeType PayByTraffic --InternetMaxBandwidthOut "$PUBLIC_BANDWIDTH_MBPS")
fi
)sh";
  if (s.eris > 0 && !s.eri_documented) {
    t += "\n# " + c.instance +
         ": gpuplan's sources do not say how many ERIs and network card "
         "indexes its\n# eRDMA bandwidth needs, so one ERI is attached. Check with\n#   aliyun ecs "
         "DescribeInstanceTypes --RegionId " +
         c.region + " --InstanceTypes.1 " + c.instance +
         "\n# (EriQuantity, NetworkCardQuantity); the first-boot network check warns when one is "
         "not enough.\n";
  }
  t += "\necho \"This rents " + std::to_string(c.nodes) + " x " + c.instance + " in " + c.region +
       ", " + OneLine(s.billing_text) + ".\"\n";
  t += "echo \"Estimated " + OneLine(s.cost_text) +
       " for the instances; disks and bandwidth are extra.\"\n";
  if (s.prepaid) {
    t += "echo \"A subscription is paid up front for the whole period and is not refunded when you "
         "stop early.\"\n";
  }
  t += R"sh(echo "Request: aliyun ecs RunInstances ${args[*]} --UserData <cloud-init.yaml, base64>"
if [[ "$yes" != yes ]]; then
  answer=""
  read -r -p "Rent them now? [y/N] " answer || true
  if [[ "$answer" != y && "$answer" != Y && "$answer" != yes ]]; then
    echo "Nothing rented."
    exit 0
  fi
fi
aliyun ecs RunInstances "${args[@]}" --UserData "$user_data"
echo "Done. Next: README.md (copy gpuplan to the instances, then verify with 'gpuplan probe')."
)sh";
  return t;
}

// ---------------------------------------------------------------------------------------------
// main.tf

// A quoted HCL string ("${" and "%{" start templates, so they are escaped too).
std::string HclString(std::string_view s) {
  std::string out = "\"";
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
  return out + "\"";
}

using Attrs = std::vector<std::pair<std::string, std::string>>;

// Attributes aligned on '=' as `terraform fmt` writes a group of one-line attributes.
std::string HclAttrs(const Attrs& attrs, int indent) {
  size_t width = 0;
  for (const auto& a : attrs)
    width = std::max(width, a.first.size());
  std::string out;
  for (const auto& [key, value] : attrs) {
    out += std::string(static_cast<size_t>(indent), ' ') + key +
           std::string(width - key.size(), ' ') + " = " + value + "\n";
  }
  return out;
}

std::string HclVariable(const std::string& name, const std::string& description,
                        const std::string& type, const std::string& default_value,
                        const std::string& validation_regex = "", const std::string& error = "") {
  Attrs attrs = {{"description", HclString(description)}, {"type", type}};
  if (!default_value.empty())
    attrs.push_back({"default", default_value});
  std::string t = "variable \"" + name + "\" {\n" + HclAttrs(attrs, 2);
  if (!validation_regex.empty()) {
    t += "\n  validation {\n" +
         HclAttrs(
             {{"condition", "can(regex(" + HclString(validation_regex) + ", var." + name + "))"},
              {"error_message", HclString(error)}},
             4) +
         "  }\n";
  }
  return t + "}\n\n";
}

// The data_disks block: a spot instance keeps its disk when reclaimed.
Attrs DataDiskAttrs(const Spec& s) {
  Attrs a = {{"category", "\"cloud_essd\""},
             {"size", std::to_string(s.data_disk->size_gib)},
             {"performance_level", HclString(s.data_disk->level)}};
  if (s.c->billing == cost::Mode::kSpot)
    a.push_back({"delete_with_instance", "false"});
  return a;
}

std::string RenderTerraform(const Spec& s) {
  const planner::Candidate& c = *s.c;
  std::string t = Header(s, "main.tf: the plan's choice as Terraform (alicloud provider).");
  t += R"sh(#
# Fill the variables without a default (terraform asks, or write them in terraform.tfvars), then:
#   terraform init && terraform plan && terraform apply
# Provider >= 1.227.1: the elastic RDMA arguments (network_interface_traffic_mode,
# network_card_index, queue_pair_number, network_interfaces) need it; spot_duration needs 1.188.0.
)sh";
  if (s.cluster) {
    t += "# Terraform creates the " + std::to_string(c.nodes) +
         " nodes one by one: if one fails, destroy the rest (the job needs all of them).\n";
  }
  t += R"sh(
terraform {
  required_providers {
    alicloud = {
      source  = "aliyun/alicloud"
      version = ">= 1.227.1"
    }
  }
}

provider "alicloud" {
  region = var.region
}

)sh";
  t += HclVariable("region", "Region the plan priced", "string", HclString(c.region));
  t += HclVariable("vswitch_id",
                   "FILL-ME: VSwitch (vsw-...) in a zone of " + c.region + " that sells " +
                       c.instance + "; the instances go to its zone",
                   "string", "", "^vsw-", "vswitch_id must be a VSwitch id (vsw-...).");
  t += HclVariable(
      "security_group_id",
      "FILL-ME: security group (sg-...) in the VSwitch's VPC; allow SSH from your address" +
          std::string(s.cluster ? " and all traffic inside the group" : ""),
      "string", "", "^sg-", "security_group_id must be a security group id (sg-...).");
  t += HclVariable("key_name", "FILL-ME: name of an SSH key pair in " + c.region, "string", "");
  t += HclVariable("image_id",
                   "FILL-ME: image with " + OneLine(c.image.os) + ", NVIDIA driver " +
                       OneLine(c.image.driver) + ", CUDA " + OneLine(c.image.cuda),
                   "string", "");
  t += HclVariable("public_bandwidth_mbps",
                   "Public bandwidth, Mbit/s (pay by traffic); 0 = no public IP", "number", "0");
  if (s.eris > 1) {
    t += HclVariable(
        "queue_pairs_per_eri",
        s.queue_pairs
            ? "Queue pairs per elastic RDMA interface: the type's total split over its ERIs"
            : "FILL-ME: queue pairs per elastic RDMA interface: " + c.instance +
                  "'s QueuePairNumber (aliyun ecs DescribeInstanceTypes --InstanceTypes.1 " +
                  c.instance + ") divided by " + std::to_string(s.eris),
        "number", s.queue_pairs ? std::to_string(*s.queue_pairs / s.eris) : "");
  }

  t += "resource \"alicloud_instance\" \"gpu\" {\n";
  t += HclAttrs({{"count", std::to_string(c.nodes)},
                 {"instance_name", c.nodes > 1 ? "\"" + s.instance_name + "-${count.index}\""
                                               : HclString(s.instance_name)},
                 {"instance_type", HclString(c.instance)},
                 {"image_id", "var.image_id"},
                 {"vswitch_id", "var.vswitch_id"},
                 {"security_groups", "[var.security_group_id]"},
                 {"key_name", "var.key_name"},
                 {"user_data", "filebase64(\"${path.module}/cloud-init.yaml\")"}},
                2);
  t += "\n";
  if (s.eris > 0) {
    t += fmt::format("  # eRDMA: {} elastic RDMA interface(s); the primary ENI is the first.\n",
                     s.eris);
    Attrs primary = {{"network_interface_traffic_mode", "\"HighPerformance\""}};
    if (s.network_cards > 1)
      primary.push_back({"network_card_index", "0"});
    if (s.eris > 1)
      primary.push_back({"queue_pair_number", "var.queue_pairs_per_eri"});
    t += HclAttrs(primary, 2);
    for (int i = 1; i < s.eris; ++i) {
      Attrs eri = {{"vswitch_id", "var.vswitch_id"},
                   {"security_group_ids", "[var.security_group_id]"},
                   {"network_interface_traffic_mode", "\"HighPerformance\""}};
      if (s.network_cards > 1)
        eri.push_back({"network_card_index", std::to_string(i % s.network_cards)});
      eri.push_back({"queue_pair_number", "var.queue_pairs_per_eri"});
      t += "\n  network_interfaces {\n" + HclAttrs(eri, 4) + "  }\n";
    }
    t += "\n";
  }
  Attrs billing;
  if (s.prepaid) {
    // force_delete: without it `terraform destroy` refuses PrePaid instances (provider delete).
    billing = {{"instance_charge_type", HclString(s.charge_type)},
               {"period", std::to_string(s.period_months)},
               {"period_unit", "\"Month\""},
               {"renewal_status", "\"Normal\""},
               {"force_delete", "true"}};
  } else {
    billing = {{"instance_charge_type", HclString(s.charge_type)}};
    if (!s.spot_strategy.empty()) {
      billing.push_back({"spot_strategy", HclString(s.spot_strategy)});
      if (s.o->spot_price_limit)
        billing.push_back({"spot_price_limit", Money3(*s.o->spot_price_limit)});
      billing.push_back({"spot_duration", "1"});
    }
  }
  if (s.o->spot_price_limit) {
    t += "  # spot_price_limit is in your account's billing currency (CNY on aliyun.com, USD on\n"
         "  # alibabacloud.com); gpuplan read it as " +
         s.currency + ", the plan's currency.\n";
  }
  t += HclAttrs(billing, 2) + "\n";
  t += HclAttrs({{"internet_charge_type", "\"PayByTraffic\""},
                 {"internet_max_bandwidth_out", "var.public_bandwidth_mbps"}},
                2) +
       "\n";
  t += HclAttrs({{"system_disk_category", "\"cloud_essd\""},
                 {"system_disk_size", std::to_string(kSystemDiskGib)},
                 {"system_disk_performance_level", "\"PL1\""}},
                2);
  if (s.data_disk) {
    t += "\n  data_disks {\n" + HclAttrs(DataDiskAttrs(s), 4) + "  }\n";
  }
  t += "}\n\n";
  t += "output \"private_ips\" {\n" +
       HclAttrs({{"value", "alicloud_instance.gpu[*].primary_ip_address"}}, 2) + "}\n";
  return t;
}

// ---------------------------------------------------------------------------------------------
// cloud-init.yaml

constexpr std::string_view kSetupHead = R"sh(#!/bin/bash
# First-boot checks written by gpuplan deploy: the GPU driver and CUDA, the planned storage and
# the network between nodes. Safe to run again. Log: /var/log/gpuplan-setup.log.
set -uo pipefail
exec >>/var/log/gpuplan-setup.log 2>&1
. /etc/gpuplan/deploy.env
mkdir -p /var/lib/gpuplan
echo "== gpuplan setup $(date -u +%FT%TZ) on $GPUPLAN_INSTANCE"
problems=0
warn() {
  echo "WARNING: $*"
  problems=$((problems + 1))
}
# version_ge A B: true when version A >= version B.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

# 1. NVIDIA driver and CUDA, against the plan's image advice.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)
  cuda=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n1)
  gpus=$(nvidia-smi -L | grep -c '^GPU')
  echo "driver ${driver:-?}, CUDA ${cuda:-?} (the newest the driver supports), $gpus GPU(s)"
  if [ -n "$GPUPLAN_MIN_DRIVER" ] && ! version_ge "${driver:-0}" "$GPUPLAN_MIN_DRIVER"; then
    warn "driver ${driver:-?} is older than $GPUPLAN_MIN_DRIVER, which the plan asks for $GPUPLAN_GPU"
  fi
  if [ -n "$GPUPLAN_MIN_CUDA" ] && ! version_ge "${cuda:-0}" "$GPUPLAN_MIN_CUDA"; then
    warn "the driver supports CUDA ${cuda:-?}; the plan asks for CUDA $GPUPLAN_MIN_CUDA or newer"
  fi
  if [ "$gpus" -lt "$GPUPLAN_GPUS_PER_NODE" ]; then
    warn "nvidia-smi sees $gpus GPU(s); $GPUPLAN_INSTANCE has $GPUPLAN_GPUS_PER_NODE"
  fi
elif [ "$ALLOW_INSTALL" = yes ] && command -v apt-get >/dev/null 2>&1; then
  # Ubuntu: the NVIDIA datacenter driver packaged by Canonical, from the image's apt mirror
  # (Alibaba's public Ubuntu images use mirrors.cloud.aliyuncs.com, reachable inside the VPC).
  echo "no NVIDIA driver: installing nvidia-driver-$GPUPLAN_DRIVER_BRANCH-server (ALLOW_INSTALL=yes)"
  if DEBIAN_FRONTEND=noninteractive apt-get update &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y "nvidia-driver-$GPUPLAN_DRIVER_BRANCH-server" &&
    modprobe nvidia && nvidia-smi -L; then
    echo "NVIDIA driver $GPUPLAN_DRIVER_BRANCH installed"
  else
    warn "installing nvidia-driver-$GPUPLAN_DRIVER_BRANCH-server failed (see above); reboot, or rent with an image that has the driver (README.md)"
  fi
else
  warn "nvidia-smi is missing or fails: the image has no working NVIDIA driver, and setup.sh installs one only on Ubuntu (apt) with ALLOW_INSTALL=yes; rent with an Ubuntu image or one that has the driver (README.md)"
fi
)sh";

constexpr std::string_view kSetupEssd = R"sh(
# 2. Data disk: the ESSD attached at creation (found by its size), formatted only when blank,
#    mounted at /mnt/data. The disk that holds / is never touched.
root_disk="/dev/$(lsblk -no PKNAME "$(findmnt -no SOURCE /)" 2>/dev/null | head -n1)"
mount_data_disk() {
  local want dev fs uuid
  want=$((GPUPLAN_DATA_DISK_GIB * 1024 * 1024 * 1024))
  if mountpoint -q /mnt/data; then
    echo "/mnt/data is already mounted"
    echo /mnt/data >/var/lib/gpuplan/data-dir
    return
  fi
  dev=$(lsblk -bdnpo NAME,SIZE,TYPE | awk -v want="$want" -v root="$root_disk" \
    '$3 == "disk" && $2 == want && $1 != root {print $1; exit}')
  if [ -z "$dev" ]; then
    warn "no ${GPUPLAN_DATA_DISK_GIB} GiB data disk found (lsblk): /mnt/data not mounted"
    return
  fi
  if [ "$(lsblk -no NAME "$dev" | wc -l)" -gt 1 ]; then
    warn "$dev has partitions: left alone, /mnt/data not mounted"
    return
  fi
  fs=$(blkid -o value -s TYPE "$dev")
  if [ -z "$fs" ]; then
    mkfs.ext4 -q -L gpuplan-data "$dev" || {
      warn "mkfs.ext4 $dev failed"
      return
    }
    fs=ext4
  fi
  mkdir -p /mnt/data
  uuid=$(blkid -o value -s UUID "$dev")
  grep -q "UUID=$uuid " /etc/fstab || echo "UUID=$uuid /mnt/data $fs defaults,nofail 0 2" >>/etc/fstab
  if mount /mnt/data; then
    echo "data disk $dev ($fs) mounted at /mnt/data"
    echo /mnt/data >/var/lib/gpuplan/data-dir
  else
    warn "mount $dev /mnt/data failed"
  fi
}
mount_data_disk
)sh";

constexpr std::string_view kSetupLocalNvme = R"sh(
# 2. Local NVMe: each blank local disk is formatted and mounted at /mnt/local0, /mnt/local1, ...
#    Local disks are lost when the instance is released: keep the master copy on OSS. The disk
#    that holds / is never touched.
root_disk="/dev/$(lsblk -no PKNAME "$(findmnt -no SOURCE /)" 2>/dev/null | head -n1)"
n=0
for dev in $(lsblk -dnpo NAME,TYPE | awk -v root="$root_disk" '$2 == "disk" && $1 != root {print $1}'); do
  [ "$(lsblk -no NAME "$dev" | wc -l)" -eq 1 ] || continue
  [ -z "$(lsblk -no MOUNTPOINT "$dev" | tr -d '[:space:]')" ] || continue
  if [ -z "$(blkid -o value -s TYPE "$dev")" ]; then
    mkfs.ext4 -q "$dev" || {
      warn "mkfs.ext4 $dev failed"
      continue
    }
  fi
  mkdir -p "/mnt/local$n"
  if mount "$dev" "/mnt/local$n"; then
    echo "local disk $dev mounted at /mnt/local$n"
    [ "$n" -gt 0 ] || echo /mnt/local0 >/var/lib/gpuplan/data-dir
    n=$((n + 1))
  else
    warn "mount $dev /mnt/local$n failed"
  fi
done
[ "$n" -gt 0 ] || warn "no blank local disk found; the plan expected local NVMe"
)sh";

constexpr std::string_view kSetupNfs = R"sh(
# 2. Shared file system over NFS at /mnt/data (GPUPLAN_NFS_EXPORT in /etc/gpuplan/deploy.env).
if mountpoint -q /mnt/data; then
  echo "/mnt/data is already mounted"
elif [[ "$GPUPLAN_NFS_EXPORT" == FILL-ME* ]]; then
  warn "GPUPLAN_NFS_EXPORT is not filled in (/etc/gpuplan/deploy.env): the shared file system is not mounted; fill it and run /usr/local/lib/gpuplan/setup.sh again"
else
  if ! command -v mount.nfs >/dev/null 2>&1; then
    if [ "$ALLOW_INSTALL" = yes ]; then
      echo "installing the NFS client from the OS mirrors (ALLOW_INSTALL=yes)"
      if command -v yum >/dev/null 2>&1; then
        yum -y install nfs-utils
      elif command -v apt-get >/dev/null 2>&1; then
        apt-get update && apt-get -y install nfs-common
      fi
    else
      warn "no NFS client (mount.nfs): use an image with it, or set ALLOW_INSTALL=yes in /etc/gpuplan/deploy.env and run /usr/local/lib/gpuplan/setup.sh again"
    fi
  fi
  mkdir -p /mnt/data
  # Alibaba's NAS/CPFS mount options; noresvport lets the client reconnect on a new port after a
  # network switch. The console's mount command for your file system wins where it differs.
  opts=vers=3,nolock,proto=tcp,noresvport
  grep -q " /mnt/data nfs " /etc/fstab ||
    echo "$GPUPLAN_NFS_EXPORT /mnt/data nfs $opts,_netdev,nofail 0 0" >>/etc/fstab
  if mount -t nfs -o "$opts" "$GPUPLAN_NFS_EXPORT" /mnt/data; then
    echo "$GPUPLAN_NFS_EXPORT mounted at /mnt/data"
    echo /mnt/data >/var/lib/gpuplan/data-dir
  else
    warn "mount $GPUPLAN_NFS_EXPORT /mnt/data failed"
  fi
fi
)sh";

constexpr std::string_view kSetupRdma = R"sh(
# 3. Network between the nodes: eRDMA. It needs the ERIs (attached at creation by
#    run-instances.sh / main.tf) and the eRDMA software stack, installed here from Alibaba's
#    mirror inside the VPC (the installer the GPU eRDMA guide and the console use).
if ! ls /sys/class/infiniband/* >/dev/null 2>&1 && [ "$ALLOW_INSTALL" = yes ]; then
  echo "installing the eRDMA software stack (ALLOW_INSTALL=yes)"
  if (cd /tmp && rm -f env_setup.sh &&
    { curl -fsSLO http://mirrors.cloud.aliyuncs.com/erdma/env_setup.sh ||
      wget -q http://mirrors.cloud.aliyuncs.com/erdma/env_setup.sh; } &&
    bash env_setup.sh --egs); then
    modprobe erdma || true
  else
    warn "the eRDMA installer failed (see above); run it again: cd /tmp && curl -O http://mirrors.cloud.aliyuncs.com/erdma/env_setup.sh && bash env_setup.sh --egs"
  fi
fi
if ! command -v ib_write_bw >/dev/null 2>&1 && [ "$ALLOW_INSTALL" = yes ]; then
  if command -v yum >/dev/null 2>&1; then
    yum -y install perftest
  elif command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y perftest
  fi
fi
/usr/local/lib/gpuplan/net.sh
if ls /sys/class/infiniband/* >/dev/null 2>&1; then
  found=$(find /sys/class/infiniband -mindepth 1 -maxdepth 1 | wc -l)
  echo "RDMA devices: $(ls /sys/class/infiniband | tr '\n' ' ')"
  if [ "$found" -lt "$GPUPLAN_ERIS" ]; then
    warn "$found RDMA device(s); the files attach $GPUPLAN_ERIS ERI(s): NCCL gets less than the planned bandwidth (a reboot may be needed after the eRDMA install)"
  fi
else
  warn "no RDMA device: NCCL falls back to TCP over the VPC, far slower than planned; check the ERIs (console: ENIs tab) and the eRDMA stack (eadm ver), then run /usr/local/lib/gpuplan/setup.sh again"
fi
echo "network check: run /usr/local/lib/gpuplan/netcheck.sh <private IPs of the other nodes> on one node; it warns below the plan's $GPUPLAN_ASSUMED_GBPS Gbit/s"
)sh";

constexpr std::string_view kNet = R"sh(#!/bin/bash
# Every boot (gpuplan-net.service): brings up the secondary elastic RDMA interfaces and sets the
# MTU that NCCL's LL128 protocol needs over eRDMA on each interface behind an RDMA device:
# GPUPLAN_ERDMA_MTU (1400), or 8500 where jumbo frames are on (8th generation and later only).
# A wrong MTU causes data-consistency problems (Alibaba GPU eRDMA guide).
set -uo pipefail
. /etc/gpuplan/deploy.env
for path in /sys/class/net/*; do
  nic=${path##*/}
  [ -e "$path/device" ] || continue
  ip link set "$nic" up
  if ! ip -4 -o addr show dev "$nic" | grep -q inet && command -v dhclient >/dev/null 2>&1; then
    dhclient "$nic" || echo "gpuplan-net: dhclient $nic failed" >&2
  fi
done
rdma_nics() {
  if command -v rdma >/dev/null 2>&1; then
    rdma link show 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "netdev") print $(i + 1)}'
  fi
  cat /sys/class/infiniband/*/ports/*/gid_attrs/ndevs/0 2>/dev/null
}
for nic in $(rdma_nics | sort -u); do
  mtu=$(cat "/sys/class/net/$nic/mtu" 2>/dev/null || echo 0)
  if [ "$mtu" = 8500 ] && [ "$GPUPLAN_GENERATION" -ge 8 ]; then
    echo "gpuplan-net: $nic keeps MTU 8500 (jumbo frames on)"
  elif [ "$mtu" != "$GPUPLAN_ERDMA_MTU" ]; then
    ip link set dev "$nic" mtu "$GPUPLAN_ERDMA_MTU" &&
      echo "gpuplan-net: $nic MTU $mtu -> $GPUPLAN_ERDMA_MTU (NCCL LL128 over eRDMA)"
  fi
done
)sh";

constexpr std::string_view kNetcheck = R"sh(#!/bin/bash
# The inter-node bandwidth check: eRDMA write bandwidth to each peer with perftest's ib_write_bw,
# one stream per RDMA device at once, summed and compared with what the plan's collectives
# assumed (GPUPLAN_ASSUMED_GBPS = the eRDMA rate x the calibration's RDMA efficiency).
#   netcheck.sh serve          answer peers for an hour (gpuplan-netcheck.service, at boot)
#   netcheck.sh PEER_IP...     measure to each peer; exit 1 when one is below the plan
# GPUPLAN_ENV and GPUPLAN_SYSFS override /etc/gpuplan/deploy.env and /sys (for tests).
set -uo pipefail
# shellcheck source=/dev/null
. "${GPUPLAN_ENV:-/etc/gpuplan/deploy.env}"
rdma_dir="${GPUPLAN_SYSFS:-/sys}/class/infiniband"
port0=18515
if ! command -v ib_write_bw >/dev/null 2>&1; then
  echo "netcheck: ib_write_bw is missing: install perftest (yum -y install perftest, or apt-get install perftest)" >&2
  exit 2
fi
mapfile -t devs < <(ls "$rdma_dir" 2>/dev/null)
if [ "${#devs[@]}" -eq 0 ]; then
  echo "netcheck: no RDMA device: the ERIs or the eRDMA stack are missing (see /var/log/gpuplan-setup.log)" >&2
  exit 1
fi
if [ "${1:-}" = serve ]; then
  end=$(($(date +%s) + 3600))
  while [ "$(date +%s)" -lt "$end" ]; do
    for i in "${!devs[@]}"; do
      timeout 900 ib_write_bw -d "${devs[$i]}" -q 32 -p $((port0 + i)) --report_gbits >/dev/null 2>&1 &
    done
    wait
  done
  exit 0
fi
if [ $# -eq 0 ]; then
  echo "usage: netcheck.sh serve | netcheck.sh PEER_IP..." >&2
  exit 2
fi
status=0
for peer in "$@"; do
  out=$(mktemp -d)
  for i in "${!devs[@]}"; do
    ib_write_bw -d "${devs[$i]}" -q 32 -p $((port0 + i)) --report_gbits "$peer" >"$out/$i" 2>&1 &
  done
  wait
  # Result rows: #bytes #iterations BW-peak BW-average[Gb/s] MsgRate.
  gbps=$(cat "$out"/* | awk 'NF == 5 && $1 ~ /^[0-9]+$/ {sum += $4} END {printf "%.1f", sum}')
  rm -rf "$out"
  if awk -v m="$gbps" -v a="$GPUPLAN_ASSUMED_GBPS" 'BEGIN {exit !(m < a)}'; then
    echo "WARNING: $peer: $gbps Gbit/s over ${#devs[@]} RDMA device(s), below the $GPUPLAN_ASSUMED_GBPS Gbit/s the plan assumed: the job will run slower than planned (check every ERI is attached and ACTIVE: ibv_devinfo; MTU: gpuplan-net.service)"
    status=1
  else
    echo "$peer: $gbps Gbit/s over ${#devs[@]} RDMA device(s), at least the $GPUPLAN_ASSUMED_GBPS Gbit/s the plan assumed"
  fi
done
exit "$status"
)sh";

constexpr std::string_view kSetupTail = R"sh(
if [ "$problems" -eq 0 ]; then
  echo "gpuplan setup: OK"
else
  echo "gpuplan setup: $problems warning(s), see above"
fi
)sh";

constexpr std::string_view kFirstboot = R"sh(#!/bin/bash
# Runs when gpuplan appears at /usr/local/bin/gpuplan (gpuplan-firstboot.path waits for it):
# measures this instance once and saves the calibration for 'gpuplan plan --probe-calibration'.
set -uo pipefail
. /etc/gpuplan/deploy.env
mkdir -p /var/lib/gpuplan
# scp writes the files in place and the path unit fires on the first byte: wait until gpuplan and
# its CUDA probe plugin (copied next to it) stop growing.
copied_bytes() {
  local total=0 f size
  for f in /usr/local/bin/gpuplan /usr/local/bin/libgpuplan_cuda_probe.so; do
    size=$(stat -c %s "$f" 2>/dev/null || echo 0)
    total=$((total + size))
  done
  echo "$total"
}
before=-1
now=$(copied_bytes)
while [ "$now" != "$before" ]; do
  before=$now
  sleep 5
  now=$(copied_bytes)
done
if [ ! -s /var/lib/gpuplan/calibration.json ]; then
  args=(probe --instance "$GPUPLAN_INSTANCE" --save /var/lib/gpuplan/calibration.json)
  if [ -s /var/lib/gpuplan/data-dir ]; then
    args+=(--path "$(cat /var/lib/gpuplan/data-dir)")
  fi
  /usr/local/bin/gpuplan "${args[@]}" >/var/lib/gpuplan/probe.txt 2>&1 ||
    echo "gpuplan probe failed (exit $?): see /var/lib/gpuplan/probe.txt" >&2
fi
)sh";

constexpr std::string_view kWatchSpot = R"sh(#!/bin/bash
# Started by gpuplan-watch-spot.service: waits for the spot reclaim notice and then runs
# /etc/gpuplan/checkpoint.sh (it must finish 30 s before the reclaim time).
if grep -q 'FILL-ME' /etc/gpuplan/checkpoint.sh; then
  echo "gpuplan-watch-spot: /etc/gpuplan/checkpoint.sh is not filled in, so no checkpoint would be taken on a reclaim notice; edit it, then: systemctl restart gpuplan-watch-spot" >&2
  exit 0
fi
exec /usr/local/bin/gpuplan watch-spot --exec /etc/gpuplan/checkpoint.sh --deadline-margin 30
)sh";

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

std::string WriteFile(std::string_view path, std::string_view permissions,
                      std::string_view content) {
  return "  - path: " + std::string(path) + "\n    permissions: '" + std::string(permissions) +
         "'\n    content: |\n" + Indent(content, 6);
}

std::string RenderCloudInit(const Spec& s) {
  const planner::Candidate& c = *s.c;
  const bool spot = c.billing == cost::Mode::kSpot;
  std::string t = "#cloud-config\n";
  t += Header(
      s, "cloud-init.yaml: user data for the instances (run-instances.sh and main.tf pass it).");
  t += R"sh(#
# At first boot it checks the NVIDIA driver and CUDA (and installs the driver on Ubuntu when it
# is missing), mounts the planned storage, sets up eRDMA for a multi-node job and writes
# /var/log/gpuplan-setup.log. Installs come from the OS and Alibaba mirrors inside the VPC; set
# ALLOW_INSTALL=no below to install nothing. Once you copy gpuplan to
# /usr/local/bin/gpuplan, it runs 'gpuplan probe --save' (/var/lib/gpuplan/calibration.json))sh";
  t += spot ? "\n# and starts 'gpuplan watch-spot', which runs /etc/gpuplan/checkpoint.sh on the "
              "reclaim notice.\n"
            : ".\n";
  t += "write_files:\n";

  std::string env = "# Written by gpuplan deploy; read by /usr/local/lib/gpuplan/*.sh.\n";
  env += "GPUPLAN_INSTANCE=" + c.instance + "\n";
  env += "GPUPLAN_GPU=" + ShellQuote(c.gpu) + "\n";
  env += "GPUPLAN_GPUS_PER_NODE=" + std::to_string(s.gpus_per_node) + "\n";
  env += "GPUPLAN_NODES=" + std::to_string(c.nodes) + "\n";
  env += "GPUPLAN_BILLING=" + std::string(cost::ModeName(c.billing)) + "\n";
  env += "GPUPLAN_MIN_DRIVER=" + ShellQuote(s.min_driver) + "\n";
  env += "GPUPLAN_MIN_CUDA=" + ShellQuote(s.min_cuda) + "\n";
  env += "GPUPLAN_STORAGE=" + ShellQuote(s.storage) + "\n";
  if (s.data_disk)
    env += "GPUPLAN_DATA_DISK_GIB=" + std::to_string(s.data_disk->size_gib) + "\n";
  if (s.nfs) {
    env += "# FILL-ME: the " + std::string(s.storage == "cpfs" ? "CPFS" : "NAS") +
           " mount target and path from the console, e.g. <mount-target-domain>:/<path>\n";
    env += "GPUPLAN_NFS_EXPORT='FILL-ME'\n";
  }
  env += "# Lowest NVIDIA driver branch setup.sh installs when the image has none (Ubuntu).\n";
  env += "GPUPLAN_DRIVER_BRANCH=" + std::to_string(s.driver_branch) + "\n";
  if (s.eris > 0) {
    env +=
        "# eRDMA: ERIs attached, the MTU for NCCL LL128, the instance generation (jumbo frames\n"
        "# from 8) and the inter-node Gbit/s the plan assumed (netcheck.sh warns below it).\n";
    env += "GPUPLAN_ERIS=" + std::to_string(s.eris) + "\n";
    env += "GPUPLAN_ERDMA_MTU=" + std::to_string(kErdmaMtu) + "\n";
    env += "GPUPLAN_GENERATION=" + std::to_string(s.generation) + "\n";
    env += "GPUPLAN_ASSUMED_GBPS=" + Num(s.assumed_gbps) + "\n";
  }
  env +=
      "# yes: setup.sh installs what is missing (NVIDIA driver on Ubuntu, eRDMA stack, perftest,\n"
      "# NFS client) from the OS and Alibaba mirrors; no: it only checks and warns.\n";
  env += "ALLOW_INSTALL=yes\n";
  t += WriteFile("/etc/gpuplan/deploy.env", "0644", env);

  std::string setup(kSetupHead);
  if (s.data_disk) {
    setup += kSetupEssd;
  } else if (s.storage == "local_nvme") {
    setup += kSetupLocalNvme;
  } else if (s.nfs) {
    setup += kSetupNfs;
  } else {
    setup += "\n# 2. Data: the plan reads it from " +
             (s.storage.empty() ? std::string("its source") : s.storage) + "; nothing to mount.\n";
  }
  if (s.cluster) {
    if (s.eris > 0) {
      setup += kSetupRdma;
    } else {
      setup += "\n# 3. Network between the nodes: " + c.instance +
               " has no eRDMA, so NCCL uses TCP over the VPC\n# (" + Num(s.type->network_gbps) +
               " Gbit/s baseline), as the plan assumed.\necho \"nodes talk over TCP (" +
               Num(s.type->network_gbps) + " Gbit/s VPC baseline)\"\n";
    }
  }
  setup += kSetupTail;
  t += WriteFile("/usr/local/lib/gpuplan/setup.sh", "0755", setup);

  std::string firstboot(kFirstboot);
  if (spot)
    firstboot += "systemctl start --no-block gpuplan-watch-spot.service\n";
  t += WriteFile("/usr/local/lib/gpuplan/firstboot.sh", "0755", firstboot);
  t +=
      WriteFile("/etc/systemd/system/gpuplan-firstboot.path", "0644",
                "[Unit]\nDescription=Wait for gpuplan to be copied to " + std::string(kGpuplanBin) +
                    "\n\n[Path]\nPathExists=" + std::string(kGpuplanBin) +
                    "\n\n[Install]\nWantedBy=multi-user.target\n");
  t += WriteFile(
      "/etc/systemd/system/gpuplan-firstboot.service", "0644",
      "[Unit]\nDescription=gpuplan first boot: probe this instance and save the calibration\n"
      "After=network-online.target\n\n[Service]\nType=oneshot\n"
      "ExecStart=/usr/local/lib/gpuplan/firstboot.sh\n"
      "# Without it the path unit starts the service again each time it exits (systemd.path(5)).\n"
      "RemainAfterExit=yes\n");
  if (s.eris > 0) {
    t += WriteFile("/usr/local/lib/gpuplan/net.sh", "0755", kNet);
    t += WriteFile("/usr/local/lib/gpuplan/netcheck.sh", "0755", kNetcheck);
    t += WriteFile("/etc/systemd/system/gpuplan-net.service", "0644",
                   "[Unit]\nDescription=gpuplan: bring up the elastic RDMA interfaces and set the "
                   "MTU NCCL needs over eRDMA\nAfter=network-online.target\n"
                   "Wants=network-online.target\n\n[Service]\nType=oneshot\n"
                   "ExecStart=/usr/local/lib/gpuplan/net.sh\nRemainAfterExit=yes\n\n"
                   "[Install]\nWantedBy=multi-user.target\n");
    t += WriteFile("/etc/systemd/system/gpuplan-netcheck.service", "0644",
                   "[Unit]\nDescription=gpuplan: answer the other nodes' bandwidth check for an "
                   "hour after boot\nAfter=gpuplan-net.service\nWants=gpuplan-net.service\n\n"
                   "[Service]\nExecStart=/usr/local/lib/gpuplan/netcheck.sh serve\n\n"
                   "[Install]\nWantedBy=multi-user.target\n");
  }
  if (spot) {
    std::string checkpoint =
        "#!/bin/sh\n# Runs when the spot reclaim notice arrives (Alibaba sends it 5 minutes before "
        "release).\n"
        "# Write a checkpoint where it survives the instance (OSS, NAS, CPFS) and finish 30 s "
        "before\n"
        "# the reclaim time.\n";
    if (s.o->checkpoint_command.empty()) {
      checkpoint +=
          "FILL-ME: replace this line with your checkpoint command, e.g. kill -USR1 \"$(pgrep -f "
          "train.py)\"\n";
    } else {
      checkpoint += s.o->checkpoint_command;
      if (checkpoint.back() != '\n')
        checkpoint += '\n';
    }
    t += WriteFile("/etc/gpuplan/checkpoint.sh", "0755", checkpoint);
    t += WriteFile("/usr/local/lib/gpuplan/watch-spot.sh", "0755", kWatchSpot);
    t += WriteFile(
        "/etc/systemd/system/gpuplan-watch-spot.service", "0644",
        "[Unit]\nDescription=gpuplan watch-spot: checkpoint before a spot reclaim\n"
        "After=network-online.target\nWants=network-online.target\n"
        "ConditionPathExists=" +
            std::string(kGpuplanBin) +
            "\n\n[Service]\nExecStart=/usr/local/lib/gpuplan/watch-spot.sh\nRestart=on-failure\n"
            "RestartSec=10\n\n[Install]\nWantedBy=multi-user.target\n");
  }
  t += "runcmd:\n";
  if (s.eris > 0)
    t += "  - [systemctl, daemon-reload]\n  - [systemctl, enable, gpuplan-net.service]\n";
  t += R"sh(  - [/usr/local/lib/gpuplan/setup.sh]
  - [systemctl, daemon-reload]
  - [systemctl, enable, --now, gpuplan-firstboot.path]
)sh";
  if (s.eris > 0)
    t += "  - [systemctl, enable, --now, gpuplan-netcheck.service]\n";
  return t;
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
                    c.estimate.inference->batch, c.replicas);
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
      "jumbo frames exist only from the 8th generation ({} is generation {}). Check the bandwidth "
      "with `/usr/local/lib/gpuplan/netcheck.sh <other nodes' private IPs>` on one node: it warns "
      "below the {} Gbit/s the plan assumed.",
      kErdmaMtu, c.family, s.generation, Num(s.assumed_gbps));
  return t;
}

std::string RenderReadme(const Spec& s) {
  const planner::Candidate& c = *s.c;
  const bool spot = c.billing == cost::Mode::kSpot;
  std::string t = fmt::format("# Deploy: {} x {} in {}, {}\n\n", c.nodes, c.instance, c.region,
                              cost::ModeName(c.billing));
  t += "Generated by `gpuplan deploy`";
  if (!s.o->today.empty())
    t += " on " + s.o->today;
  t += " for: " + Describe(*s.w) + ". ";
  t += s.o->rank > 0 ? "This is candidate #" + std::to_string(s.o->rank) + " of the plan.\n\n"
                     : std::string("The instance type was pinned with `--instance`.\n\n");

  t += "## What was chosen and why\n\n" + WhyParagraph(s) + "\n\n";
  t += "- Billing: " + OneLine(s.billing_text) + ".";
  if (!s.period_note.empty())
    t += " Note: " + s.period_note + ".";
  if (s.o->spot_price_limit) {
    t += " The limit is in your account's billing currency: CNY on the China site (aliyun.com), "
         "USD on the international site (alibabacloud.com); gpuplan read " +
         Money3(*s.o->spot_price_limit) + " as " + s.currency +
         ", the currency of the plan's "
         "price (" +
         s.currency + " " + Money3(c.cost.price.price.amount()) +
         " per hour): convert it if your account bills in the other one.";
  }
  t += "\n- Storage: " + StorageText(s) + " (" + OneLine(c.storage.why) + ").";
  if (spot && s.data_disk) {
    t += " On a spot reclaim the instance is released but the data disk is kept "
         "(`DeleteWithInstance=false`), with the checkpoints on it: attach it to the next "
         "instance, and delete it when you are done (it is billed until then).";
  } else if (spot && s.nfs) {
    t += " The shared file system outlives a spot reclaim: keep the checkpoints there.";
  } else if (spot) {
    t += " On a spot reclaim local disks are lost: write checkpoints to OSS, NAS or CPFS.";
  }
  t += "\n";
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

  t += "\n## Cost estimate\n\n";
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
  if (spot && c.cost.checkpoint_interval_hours) {
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

  t += "\n## Steps\n\n";
  int step = 1;
  auto add = [&](const std::string& text) { t += std::to_string(step++) + ". " + text + "\n"; };
  if (c.billing == cost::Mode::kReservedNoUpfront || c.billing == cost::Mode::kSavingsPlan) {
    add(std::string("Buy the ") +
        (c.billing == cost::Mode::kSavingsPlan
             ? "savings plan"
             : "reserved instance for " + c.instance + " in " + c.region) +
        " in the console first: the files rent pay-as-you-go instances, which it then covers.");
  }
  if (s.nfs) {
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
    add(fs);
  }
  add("Fill the `FILL-ME` values: the block at the top of `run-instances.sh` (or export "
      "`VSWITCH_ID`, "
      "`SECURITY_GROUP_ID`, `KEY_PAIR_NAME`, `IMAGE_ID`), or the Terraform variables of `main.tf` "
      "(`terraform.tfvars`). You choose the image (see GPU driver above), the VSwitch (in a zone "
      "that sells the type), the security group (SSH from your address" +
      std::string(s.cluster ? ", all traffic inside the group" : "") +
      ") and the key pair; gpuplan never invents them.");
  if (spot) {
    add(s.o->checkpoint_command.empty()
            ? "Put your checkpoint command in `/etc/gpuplan/checkpoint.sh` (in `cloud-init.yaml` "
              "before "
              "renting, or on the instance, then `systemctl restart gpuplan-watch-spot`); or run "
              "`gpuplan "
              "deploy` again with `--checkpoint-command`."
            : "Your checkpoint command is in `/etc/gpuplan/checkpoint.sh`; `gpuplan watch-spot` "
              "runs it on "
              "the reclaim notice.");
  }
  add("Rent: `./run-instances.sh` (prints the request and asks first; `--yes` skips the question), "
      "or "
      "`terraform init && terraform apply`.");
  add("Copy gpuplan to each instance: `scp gpuplan libgpuplan_cuda_probe.so "
      "root@IP:/usr/local/bin/`. "
      "The first-boot unit then runs `gpuplan probe --save /var/lib/gpuplan/calibration.json`" +
      std::string(spot ? " and starts `gpuplan watch-spot`." : "."));
  add("Verify: `cat /var/log/gpuplan-setup.log` (driver, CUDA, storage" +
      std::string(s.eris > 0 ? ", RDMA; then `/usr/local/lib/gpuplan/netcheck.sh` with the other "
                               "nodes' private IPs for the bandwidth"
                             : "") +
      ") and `cat /var/lib/gpuplan/probe.txt`, or run `gpuplan probe` yourself: measured GEMM "
      "TFLOPS and "
      "memory bandwidth against the catalog.");
  add("Plan again with the measurement: copy `/var/lib/gpuplan/calibration.json` back and run "
      "`gpuplan plan "
      "WORKLOAD.yaml --probe-calibration calibration.json`.");
  add(s.prepaid ? "The subscription ends after the period (auto-renew is off). main.tf sets "
                  "`force_delete = true`, without which `terraform destroy` refuses PrePaid "
                  "instances; destroying early does not refund the period."
                : "Release the instances when the job is done (console, or `terraform destroy`): "
                  "pay-as-you-go billing runs until then.");
  return t;
}

}  // namespace

std::string MinDriverVersion(const planner::ImagePlan& image) {
  return FirstMatch(image.driver, false);
}

std::string MinCudaVersion(const planner::ImagePlan& image) { return FirstMatch(image.cuda, true); }

Result<DeployFiles> RenderDeploy(const Workload& w, const planner::Candidate& c,
                                 const InstanceType& type, const DeployOptions& options) {
  Result<Spec> spec = MakeSpec(w, c, type, options);
  if (!spec.ok())
    return spec.status();
  DeployFiles files;
  files["run-instances.sh"] = RenderScript(*spec);
  files["main.tf"] = RenderTerraform(*spec);
  files["cloud-init.yaml"] = RenderCloudInit(*spec);
  files["README.md"] = RenderReadme(*spec);
  return files;
}

}  // namespace gpuplan::io
