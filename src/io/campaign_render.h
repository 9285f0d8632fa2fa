// A campaign plan (gpuplan/campaign.h) as `gpuplan campaign` and POST /api/v1/campaign show it:
// JSON and text.
#ifndef GPUPLAN_SRC_IO_CAMPAIGN_RENDER_H_
#define GPUPLAN_SRC_IO_CAMPAIGN_RENDER_H_

#include <nlohmann/json.hpp>
#include <string>

#include "gpuplan/campaign.h"

namespace gpuplan::io {

// {commitments[{kind, instance | family, region, count | hourly, term, payment, month_cost}],
//  schedule[{job, instance, count, billing, start, hours, ...}], services[...],
//  months[{month, cost}], coverage, utilisation, month_cost, vs_all_payg, vs_separate,
//  with_example_savings_plan, notes, currency}
nlohmann::json CampaignJson(const campaign::CampaignSpec& spec, const campaign::CampaignPlan& p);

// What to buy, the schedule, the services, the month against the simple answers, and why.
std::string CampaignText(const campaign::CampaignSpec& spec, const campaign::CampaignPlan& p);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_CAMPAIGN_RENDER_H_
