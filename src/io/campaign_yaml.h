// Reads a campaign file (docs/campaign.md, "The file") into a CampaignSpec:
//
//   months: 12
//   timezone: Asia/Shanghai
//   jobs:
//     - name: weekly-lora
//       every: 2/week            # daily, N/week, weekly, monthly, once
//       window: "22:00-08:00"    # hours it may run in (local)
//       interruptible: true      # may run on spot
//       task: finetune           # ... and any workload key, as `gpuplan plan` takes it,
//       model: qwen2.5-7b        #     or file: lora.yaml (relative to this file)
//   services:
//     - name: chat
//       task: inference
//       model: qwen2.5-7b
//       inference: {requests_per_s: 3}
//
// Errors name the file, line and column ("campaign.yaml:7:14: field \"jobs[0].every\": ...").
#ifndef GPUPLAN_SRC_IO_CAMPAIGN_YAML_H_
#define GPUPLAN_SRC_IO_CAMPAIGN_YAML_H_

#include <string>
#include <string_view>

#include "gpuplan/campaign.h"

namespace gpuplan::io {

// Parses `text`; `file` names it in errors and its folder anchors `file:` keys. The result passed
// ValidateCampaign(). `allow_files` false (a request body): a `file:` key is an error, so the
// text cannot make the reader open a file.
Result<campaign::CampaignSpec> ParseCampaignYaml(std::string_view text, const std::string& file,
                                                 bool allow_files = true);

// Reads and parses the file at `path`.
Result<campaign::CampaignSpec> LoadCampaignYaml(const std::string& path);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_CAMPAIGN_YAML_H_
