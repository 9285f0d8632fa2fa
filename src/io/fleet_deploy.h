// The elastic layer of a service's fleet (gpuplan/fleet.h) as files `gpuplan deploy` writes
// beside the base's: an ESS scaling group that follows the traffic with scheduled tasks.
//
//   ess.tf:            alicloud_ess_scaling_group (multi_az_policy COST_OPTIMIZED, on-demand or
//                      spot with on-demand fallback), alicloud_ess_scaling_configuration (the
//                      instance type, the base's image, cloud-init and data disk) and one
//                      alicloud_ess_scheduled_task per change of the desired capacity (Cron, UTC)
//   ess-schedule.sh:   the same as aliyun CLI calls
//
// The base (subscription instances) is main.tf / run-instances.sh, as for any plan; the ESS group
// holds only the elastic instances, so a scheduled task's desired capacity is the elastic count.
// Each scale-up fires the fleet's lead time before the hour that needs it; scale-downs fire on
// the hour.
#ifndef GPUPLAN_SRC_IO_FLEET_DEPLOY_H_
#define GPUPLAN_SRC_IO_FLEET_DEPLOY_H_

#include <string>
#include <vector>

#include "gpuplan/fleet.h"
#include "gpuplan/status.h"

namespace gpuplan {
struct Workload;
namespace planner {
struct Candidate;
}
}  // namespace gpuplan

namespace gpuplan::io {

// One change of the elastic layer's desired capacity.
struct ScaleEvent {
  int local_minute = 0;  // minute of the local day it fires
  int utc_minute = 0;    // the same minute in UTC
  std::string days;      // cron day-of-week field in UTC: "*", or "1,2,3,4,5" (0 = Sunday)
  std::string day_kind;  // "daily", "weekdays" or "weekends" (local)
  int desired = 0;       // elastic instances from then on
};

// The events that make the elastic layer follow `f`: running(t) = the most elastic instances
// needed in [t, t + lead], changes at whole minutes; `utc_offset_hours` = local - UTC.
std::vector<ScaleEvent> FleetSchedule(const serving::Fleet& f, double utc_offset_hours);

// ess.tf and ess-schedule.sh for candidate `c` (c.fleet set). `today` "YYYY-MM-DD": the tasks
// start the next day and recur for 364 days (the API allows up to 365). kInvalidArgument when c
// has no fleet, no elastic layer, or today is not a date.
Result<std::vector<std::pair<std::string, std::string>>> RenderFleetDeploy(
    const Workload& w, const planner::Candidate& c, const std::string& today);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_FLEET_DEPLOY_H_
