#include "io/fleet_deploy.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "gpuplan/plan.h"
#include "gpuplan/workload.h"

namespace gpuplan::io {
namespace {

constexpr int kDay = 1440;

// "1,2,3,4,5" shifted by `shift` days (the UTC day of a local minute), sorted.
std::string ShiftDays(const std::vector<int>& days, int shift) {
  std::vector<int> out(days.size());
  std::transform(days.begin(), days.end(), out.begin(),
                 [shift](int d) { return ((d + shift) % 7 + 7) % 7; });
  std::sort(out.begin(), out.end());
  std::string s;
  for (int d : out)
    s += (s.empty() ? "" : ",") + std::to_string(d);
  return s;
}

// The elastic instances running at each minute of one day: the most needed over [t, t + lead].
std::vector<int> Running(const serving::Day& elastic, int per_replica, int lead_min) {
  std::vector<int> need(kDay), running(kDay);
  for (int m = 0; m < kDay; ++m)
    need[static_cast<size_t>(m)] = elastic[static_cast<size_t>(m / 60)] * per_replica;
  for (int m = 0; m < kDay; ++m) {
    int most = 0;
    for (int u = m; u <= m + std::min(lead_min, kDay - 1); ++u)
      most = std::max(most, need[static_cast<size_t>(u % kDay)]);
    running[static_cast<size_t>(m)] = most;
  }
  return running;
}

void AddDay(const serving::Day& elastic, int per_replica, int lead_min, double offset_h,
            const std::vector<int>& local_days, const std::string& kind,
            std::vector<ScaleEvent>& out) {
  const std::vector<int> running = Running(elastic, per_replica, lead_min);
  const int offset_min = static_cast<int>(std::lround(offset_h * 60));
  for (int m = 0; m < kDay; ++m) {
    const int before = running[static_cast<size_t>((m + kDay - 1) % kDay)];
    if (running[static_cast<size_t>(m)] == before)
      continue;
    ScaleEvent e;
    e.local_minute = m;
    int utc = m - offset_min;
    int shift = 0;
    if (utc < 0) {
      utc += kDay;
      shift = -1;
    } else if (utc >= kDay) {
      utc -= kDay;
      shift = 1;
    }
    e.utc_minute = utc;
    e.days = local_days.empty() ? "*" : ShiftDays(local_days, shift);
    e.day_kind = kind;
    e.desired = running[static_cast<size_t>(m)];
    out.push_back(e);
  }
}

std::string Hhmm(int minute) { return fmt::format("{:02}:{:02}", minute / 60, minute % 60); }

// "YYYY-MM-DD" + days.
std::optional<std::string> AddDays(const std::string& date, int days) {
  int y = 0;
  unsigned m = 0, d = 0;
  if (date.size() != 10 || std::sscanf(date.c_str(), "%4d-%2u-%2u", &y, &m, &d) != 3)
    return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{m},
                                        std::chrono::day{d}};
  if (!ymd.ok())
    return std::nullopt;
  const std::chrono::year_month_day out{std::chrono::sys_days{ymd} + std::chrono::days{days}};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(out.year()),
                     static_cast<unsigned>(out.month()), static_cast<unsigned>(out.day()));
}

std::string TaskName(const ScaleEvent& e) {
  return fmt::format("gpuplan-{}-{}", e.day_kind, Hhmm(e.local_minute).replace(2, 1, ""));
}

}  // namespace

std::vector<ScaleEvent> FleetSchedule(const serving::Fleet& f, double utc_offset_hours) {
  const int per = f.shape.instances_per_replica;
  const int lead_min = static_cast<int>(std::ceil(f.shape.lead_time_h * 60 - 1e-9));
  std::vector<ScaleEvent> out;
  if (f.elastic.weekday == f.elastic.weekend) {
    AddDay(f.elastic.weekday, per, lead_min, utc_offset_hours, {}, "daily", out);
  } else {
    AddDay(f.elastic.weekday, per, lead_min, utc_offset_hours, {1, 2, 3, 4, 5}, "weekdays", out);
    AddDay(f.elastic.weekend, per, lead_min, utc_offset_hours, {0, 6}, "weekends", out);
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> RenderFleetDeploy(
    const Workload& w, const planner::Candidate& c, const std::string& today) {
  if (!c.fleet || c.fleet->elastic.Peak() == 0)
    return Status::InvalidArgument("the candidate has no elastic layer to scale");
  const std::optional<std::string> start = AddDays(today, 1);
  const std::optional<std::string> end = AddDays(today, 364);
  if (!start || !end)
    return Status::InvalidArgument("deploy: today must be a date YYYY-MM-DD, got \"" + today +
                                   "\"");
  const serving::Fleet& f = *c.fleet;
  const double offset = w.inference.traffic && w.inference.traffic->utc_offset_hours
                            ? *w.inference.traffic->utc_offset_hours
                            : 8;
  const std::vector<ScaleEvent> events = FleetSchedule(f, offset);
  const bool spot = f.elastic_billing == Billing::kSpot;
  const int peak = f.elastic.Peak() * f.shape.instances_per_replica;
  const std::string name = "gpuplan-" + c.family + "-elastic";
  const int disk_gib = std::max(20, static_cast<int>(std::ceil(c.storage.size_gib)));

  std::string tf = fmt::format(
      "# ess.tf: the fleet's elastic layer as an Auto Scaling (ESS) group, beside main.tf's base.\n"
      "# {} base instance(s) on {} run all month (main.tf); this group adds up to {} {} {}\n"
      "# instance(s) by the hour, following the traffic. Scheduled tasks run on UTC cron; the\n"
      "# traffic's local time is UTC{:+g}. Each scale-up fires {} min before its hour (instance\n"
      "# start, image, weights); scale-downs fire on the hour. Put the base and the group behind\n"
      "# one load balancer (add its id to loadbalancer_ids). Provider >= 1.90.0 for the tasks.\n\n",
      f.BaseInstances(), BillingName(f.base_billing), peak, c.instance,
      BillingName(f.elastic_billing), offset, std::lround(f.shape.lead_time_h * 60));
  tf += "resource \"alicloud_ess_scaling_group\" \"elastic\" {\n";
  tf += fmt::format("  scaling_group_name = \"{}\"\n", name);
  tf += "  min_size           = 0\n";
  tf += fmt::format("  max_size           = {}\n", peak);
  tf += "  desired_capacity   = 0\n";
  tf += "  vswitch_ids        = [var.vswitch_id]\n";
  tf += "  removal_policies   = [\"NewestInstance\"]\n";
  tf += "  # The on-demand and spot split below is honoured only with COST_OPTIMIZED.\n";
  tf += "  multi_az_policy    = \"COST_OPTIMIZED\"\n";
  tf += "  on_demand_base_capacity                  = 0\n";
  tf += fmt::format("  on_demand_percentage_above_base_capacity = {}\n", spot ? 0 : 100);
  if (spot) {
    tf += "  spot_instance_pools                      = 1\n";
    tf += "  # Replace a spot instance on its reclaim notice; pay-as-you-go when spot runs out.\n";
    tf += "  spot_instance_remedy                     = true\n";
    tf += "  compensate_with_on_demand                = true\n";
  }
  tf += "}\n\n";
  tf += "resource \"alicloud_ess_scaling_configuration\" \"elastic\" {\n";
  tf += "  scaling_group_id           = alicloud_ess_scaling_group.elastic.id\n";
  tf += fmt::format("  scaling_configuration_name = \"{}\"\n", name);
  tf += fmt::format("  instance_type              = \"{}\"\n", c.instance);
  tf += "  image_id                   = var.image_id\n";
  tf += "  security_group_id          = var.security_group_id\n";
  tf += "  key_name                   = var.key_name\n";
  tf += "  user_data                  = filebase64(\"${path.module}/cloud-init.yaml\")\n";
  tf += "  system_disk_category       = \"cloud_essd\"\n";
  if (spot)
    tf += "  spot_strategy              = \"SpotAsPriceGo\"\n";
  tf += "  active                     = true\n";
  tf += "  enable                     = true\n";
  tf += "  force_delete               = true\n\n";
  tf += "  data_disk {\n";
  tf += fmt::format("    size                 = {}\n", disk_gib);
  tf += "    category             = \"cloud_essd\"\n";
  tf += "    delete_with_instance = true\n";
  tf += "  }\n";
  tf += "}\n";
  for (const ScaleEvent& e : events) {
    tf += fmt::format("\n# {} {} local: {} elastic instance(s)\n", e.day_kind, Hhmm(e.local_minute),
                      e.desired);
    tf += fmt::format("resource \"alicloud_ess_scheduled_task\" \"{}\" {{\n",
                      "t_" + e.day_kind + "_" + Hhmm(e.local_minute).replace(2, 1, ""));
    tf += "  scaling_group_id       = alicloud_ess_scaling_group.elastic.id\n";
    tf += fmt::format("  scheduled_task_name    = \"{}\"\n", TaskName(e));
    tf += fmt::format("  desired_capacity       = {}\n", e.desired);
    tf += fmt::format("  launch_time            = \"{}T{}Z\"\n", *start, Hhmm(e.utc_minute));
    tf += "  launch_expiration_time = 600\n";
    tf += "  recurrence_type        = \"Cron\"\n";
    tf += fmt::format("  recurrence_value       = \"{} {} * * {}\"\n", e.utc_minute % 60,
                      e.utc_minute / 60, e.days);
    tf += fmt::format("  recurrence_end_time    = \"{}T00:00:00Z\"\n", *end);
    tf += "}\n";
  }

  std::string sh = fmt::format(
      "#!/usr/bin/env bash\n"
      "# ess-schedule.sh: the fleet's elastic layer (ess.tf) as aliyun CLI calls: an ESS group of\n"
      "# up to {} {} {} instance(s), its scaling configuration, and {} scheduled task(s) (UTC "
      "cron).\n"
      "# Fill the FILL-ME values (the same as run-instances.sh), then run it once.\n"
      "set -euo pipefail\n"
      "REGION={}\n"
      "VSWITCH_ID=FILL-ME\n"
      "SECURITY_GROUP_ID=FILL-ME\n"
      "KEY_PAIR_NAME=FILL-ME\n"
      "IMAGE_ID=FILL-ME\n"
      "command -v aliyun > /dev/null || {{ echo 'ess-schedule.sh: install the aliyun CLI first' "
      ">&2; exit 1; }}\n"
      "for v in VSWITCH_ID SECURITY_GROUP_ID KEY_PAIR_NAME IMAGE_ID; do\n"
      "  [ \"${{!v}}\" != FILL-ME ] || {{ echo \"ess-schedule.sh: set $v first\" >&2; exit 1; }}\n"
      "done\n"
      "cd \"$(dirname \"$0\")\"\n"
      "json_field() {{ python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "
      "\"$1\"; }}\n\n",
      peak, c.instance, BillingName(f.elastic_billing), events.size(), c.region);
  sh += fmt::format(
      "GROUP_ID=$(aliyun ess CreateScalingGroup --RegionId \"$REGION\" --ScalingGroupName {} \\\n"
      "  --MinSize 0 --MaxSize {} --DesiredCapacity 0 --VSwitchIds.1 \"$VSWITCH_ID\" \\\n"
      "  --RemovalPolicies.1 NewestInstance --MultiAZPolicy COST_OPTIMIZED \\\n"
      "  --OnDemandBaseCapacity 0 --OnDemandPercentageAboveBaseCapacity {}{} | json_field "
      "ScalingGroupId)\n",
      name, peak, spot ? 0 : 100,
      spot ? " --SpotInstancePools 1 \\\n  --SpotInstanceRemedy true --CompensateWithOnDemand true"
           : "");
  sh += fmt::format(
      "CONFIG_ID=$(aliyun ess CreateScalingConfiguration --RegionId \"$REGION\" --ScalingGroupId "
      "\"$GROUP_ID\" \\\n"
      "  --ScalingConfigurationName {} --InstanceType {} --ImageId \"$IMAGE_ID\" \\\n"
      "  --SecurityGroupId \"$SECURITY_GROUP_ID\" --KeyPairName \"$KEY_PAIR_NAME\" \\\n"
      "  --UserData \"$(base64 -w0 cloud-init.yaml)\" --SystemDisk.Category cloud_essd \\\n"
      "  --DataDisk.1.Size {} --DataDisk.1.Category cloud_essd{} | json_field "
      "ScalingConfigurationId)\n",
      name, c.instance, disk_gib, spot ? " --SpotStrategy SpotAsPriceGo" : "");
  sh +=
      "aliyun ess EnableScalingGroup --RegionId \"$REGION\" --ScalingGroupId \"$GROUP_ID\" \\\n"
      "  --ActiveScalingConfigurationId \"$CONFIG_ID\"\n";
  for (const ScaleEvent& e : events) {
    sh += fmt::format(
        "# {} {} local: {} elastic instance(s)\n"
        "aliyun ess CreateScheduledTask --RegionId \"$REGION\" --ScalingGroupId \"$GROUP_ID\" "
        "--ScheduledTaskName {} \\\n"
        "  --DesiredCapacity {} --LaunchTime {}T{}Z --LaunchExpirationTime 600 \\\n"
        "  --RecurrenceType Cron --RecurrenceValue '{} {} * * {}' --RecurrenceEndTime "
        "{}T00:00:00Z\n",
        e.day_kind, Hhmm(e.local_minute), e.desired, TaskName(e), e.desired, *start,
        Hhmm(e.utc_minute), e.utc_minute % 60, e.utc_minute / 60, e.days, *end);
  }
  sh +=
      "echo \"ESS group $GROUP_ID follows the traffic; delete it with aliyun ess "
      "DeleteScalingGroup --ScalingGroupId $GROUP_ID --ForceDelete true\"\n";
  return std::vector<std::pair<std::string, std::string>>{{"ess.tf", tf}, {"ess-schedule.sh", sh}};
}

}  // namespace gpuplan::io
