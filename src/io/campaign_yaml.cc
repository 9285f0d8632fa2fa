#include "io/campaign_yaml.h"

#include <filesystem>
#include <regex>

#include "io/file_util.h"
#include "io/workload_yaml.h"
#include "io/yaml_reader.h"

namespace gpuplan::io {
namespace {

using campaign::Recurrence;

// The keys a job or service adds to a workload's.
const std::vector<std::string_view> kJobKeys = {"name",           "every",         "window",
                                                "deadline_hours", "interruptible", "file"};
const std::vector<std::string_view> kServiceKeys = {"name", "file"};
const std::vector<std::string_view> kCampaignKeys = {
    "name",         "months", "timezone", "billing", "savings_plan_rate",
    "savings_plan", "jobs",   "services"};
const std::vector<std::string_view> kSavingsPlanKeys = {"rate",    "type",   "term_years",
                                                        "payment", "family", "region"};

// "daily", "weekly", "N/week", "monthly", "once".
std::optional<Recurrence> ParseEvery(const std::string& text) {
  const std::string t = strings::Lower(text);
  if (t == "daily")
    return Recurrence{Recurrence::Kind::kWeekly, 7};
  if (t == "weekly")
    return Recurrence{Recurrence::Kind::kWeekly, 1};
  if (t == "monthly")
    return Recurrence{Recurrence::Kind::kMonthly, 1};
  if (t == "once")
    return Recurrence{Recurrence::Kind::kOnce, 1};
  static const std::regex per_week(R"(\s*([1-7])\s*/\s*week\s*)");
  std::smatch m;
  if (std::regex_match(t, m, per_week))
    return Recurrence{Recurrence::Kind::kWeekly, std::stoi(m[1].str())};
  return std::nullopt;
}

// "22:00-08:00" or "22-8", whole hours.
std::optional<campaign::Window> ParseWindow(const std::string& text) {
  static const std::regex window(R"(\s*(\d{1,2})(?::00)?\s*-\s*(\d{1,2})(?::00)?\s*)");
  std::smatch m;
  if (!std::regex_match(text, m, window))
    return std::nullopt;
  const int start = std::stoi(m[1].str()), end = std::stoi(m[2].str());
  if (start > 23 || end > 24)
    return std::nullopt;
  return campaign::Window{start, end % 24 == start ? start : end % 24};
}

class CampaignReader {
 public:
  CampaignReader(std::string file, bool allow_files)
      : file_(std::move(file)), allow_files_(allow_files), r_(file_) {}

  Result<campaign::CampaignSpec> Read(const YAML::Node& root) {
    campaign::CampaignSpec spec;
    if (!root || root.IsNull()) {
      return Status::InvalidArgument(file_ +
                                     ":1:1: empty campaign: expected months and a list "
                                     "of jobs or services")
          .At(file_, 1, 1);
    }
    if (!r_.CheckMap(root, "", kCampaignKeys))
      return r_.status();
    if (root["savings_plan_rate"] && root["savings_plan"]) {
      r_.Fail(root["savings_plan"], "savings_plan",
              "give the rate once: savings_plan_rate is short for savings_plan: {rate: R}");
      return r_.status();
    }
    if (root["months"])
      spec.months = r_.Integer(root["months"], "months", 1, 36).value_or(1);
    if (root["timezone"] && r_.status().ok())
      spec.utc_offset_hours = r_.TimeZone(root["timezone"], "timezone", spec.timezone);
    if (root["billing"] && r_.status().ok()) {
      for (const std::string& name : r_.StringList(root["billing"], "billing")) {
        if (std::optional<Billing> b = ParseBilling(name)) {
          spec.billing.push_back(*b);
        } else {
          r_.Fail(root["billing"], "billing",
                  "expected " + BillingChoices(BillingUse::kAny) + ", got \"" + name + "\"");
        }
      }
    }
    if (root["savings_plan_rate"] && r_.status().ok()) {
      spec.savings_plan_rate = r_.Number(root["savings_plan_rate"], "savings_plan_rate", 0.01, 0.9);
    }
    if (root["savings_plan"] && r_.status().ok())
      ReadSavingsPlan(root, spec);
    if (!r_.status().ok())
      return r_.status();
    if (Status s = ReadList(root, "jobs", spec); !s.ok())
      return s;
    if (Status s = ReadList(root, "services", spec); !s.ok())
      return s;
    if (Status s = campaign::ValidateCampaign(spec); !s.ok()) {
      // Point at the piece or key the check names ("jobs[1].name").
      const std::string& field = s.location().field;
      YAML::Node at = root;
      const std::string key = field.substr(0, field.find_first_of("[."));
      if (!key.empty() && root[key]) {
        at = root[key];
        if (const auto open = field.find('['); open != std::string::npos && at.IsSequence()) {
          const auto index = static_cast<std::size_t>(std::stoul(field.substr(open + 1)));
          if (index < at.size())
            at = at[index];
        }
        if (const auto dot = field.rfind('.'); dot != std::string::npos && at.IsMap()) {
          if (const YAML::Node sub = at[field.substr(dot + 1)])
            at = sub;
        }
      }
      const YAML::Mark mark = at.Mark();
      const int line = mark.is_null() ? 0 : mark.line + 1,
                col = mark.is_null() ? 0 : mark.column + 1;
      return Status::InvalidArgument(file_ + ":" + std::to_string(line) + ":" +
                                     std::to_string(col) + ": field \"" + field +
                                     "\": " + s.message().substr(field.size() + 2))
          .At(file_, line, col, field);
    }
    return spec;
  }

 private:
  // savings_plan: {rate, type: general | ecs_compute, term_years: 1 | 3, payment, family, region}
  void ReadSavingsPlan(const YAML::Node& root, campaign::CampaignSpec& spec) {
    const YAML::Node& node = root["savings_plan"];
    if (!r_.CheckMap(node, "savings_plan", kSavingsPlanKeys))
      return;
    if (!node["rate"]) {
      r_.Fail(node, "savings_plan.rate",
              "expected the discount you were quoted (0.3 = 30% off pay-as-you-go)");
      return;
    }
    spec.savings_plan_rate = r_.Number(node["rate"], "savings_plan.rate", 0.01, 0.9);
    campaign::SavingsPlanQuote& q = spec.savings_plan;
    if (node["type"]) {
      const std::optional<std::string> type = r_.String(node["type"], "savings_plan.type");
      if (type && *type == "ecs_compute") {
        q.type = campaign::SavingsPlanQuote::Type::kEcsCompute;
      } else if (type && *type != "general") {
        r_.Fail(node["type"], "savings_plan.type",
                "expected general or ecs_compute, got \"" + *type + "\"");
      }
    }
    if (node["term_years"])
      q.term_years = r_.Integer(node["term_years"], "savings_plan.term_years", 1, 3).value_or(1);
    if (node["payment"])
      q.payment = r_.String(node["payment"], "savings_plan.payment").value_or(q.payment);
    if (node["family"])
      q.family = r_.String(node["family"], "savings_plan.family").value_or("");
    if (node["region"])
      q.region = r_.String(node["region"], "savings_plan.region").value_or("");
  }

  Status ReadList(const YAML::Node& root, const std::string& key, campaign::CampaignSpec& spec) {
    const YAML::Node list = root[key];
    if (!list)
      return Status::Ok();
    if (!list.IsSequence()) {
      r_.Fail(list, key, "expected a list of pieces (- name: ...), got " + YamlReader::Got(list));
      return r_.status();
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string at = key + "[" + std::to_string(i) + "]";
      if (key == "jobs") {
        Result<campaign::CampaignJob> j = ReadJob(list[i], at);
        if (!j.ok())
          return j.status();
        spec.jobs.push_back(std::move(*j));
      } else {
        Result<Workload> w = ReadPiece(list[i], at, kServiceKeys);
        if (!w.ok())
          return w.status();
        spec.services.push_back({Name(list[i], at), std::move(*w)});
      }
      if (!r_.status().ok())
        return r_.status();
    }
    return Status::Ok();
  }

  std::string Name(const YAML::Node& node, const std::string& at) {
    if (!node["name"]) {
      r_.Fail(node, at + ".name", "expected a name for the piece, got nothing");
      return "";
    }
    return r_.String(node["name"], at + ".name").value_or("");
  }

  // The workload of a piece: inline keys, or `file:` (then no workload key beside it).
  Result<Workload> ReadPiece(const YAML::Node& node, const std::string& at,
                             const std::vector<std::string_view>& own_keys) {
    if (!node.IsMap()) {
      r_.Fail(node, at,
              "expected a mapping (name, task, model, ...), got " + YamlReader::Got(node));
      return r_.status();
    }
    if (const YAML::Node file = node["file"]) {
      if (!allow_files_) {
        r_.Fail(file, at + ".file", "not allowed here: give the workload's keys inline");
        return r_.status();
      }
      for (const auto& kv : node) {
        const std::string k = kv.first.Scalar();
        if (std::find(own_keys.begin(), own_keys.end(), k) == own_keys.end()) {
          r_.Fail(kv.first, at + "." + k,
                  "a piece with file: takes its workload from that file; move \"" + k + "\" there");
          return r_.status();
        }
      }
      std::optional<std::string> path = r_.String(file, at + ".file");
      if (!path)
        return r_.status();
      std::filesystem::path p(*path);
      if (p.is_relative())
        p = std::filesystem::path(file_).parent_path() / p;
      return LoadWorkloadYaml(p.string());
    }
    Result<Workload> w = ReadWorkloadNode(node, file_, own_keys);
    if (w.ok() && !w->model_config.empty() && std::filesystem::path(w->model_config).is_relative())
      w->model_config = (std::filesystem::path(file_).parent_path() / w->model_config).string();
    return w;
  }

  Result<campaign::CampaignJob> ReadJob(const YAML::Node& node, const std::string& at) {
    Result<Workload> w = ReadPiece(node, at, kJobKeys);
    if (!w.ok())
      return w.status();
    campaign::CampaignJob job;
    job.name = Name(node, at);
    job.workload = std::move(*w);
    if (!node["every"]) {
      r_.Fail(node, at + ".every",
              "expected how often it runs: daily, weekly, N/week, monthly or once, got nothing");
    } else if (std::optional<std::string> e = r_.String(node["every"], at + ".every")) {
      if (std::optional<Recurrence> every = ParseEvery(*e)) {
        job.every = *every;
      } else {
        r_.Fail(node["every"], at + ".every",
                "expected daily, weekly, N/week (N 1..7), monthly or once, got \"" + *e + "\"");
      }
    }
    if (node["window"] && r_.status().ok()) {
      if (std::optional<std::string> text = r_.String(node["window"], at + ".window")) {
        job.window = ParseWindow(*text);
        if (!job.window) {
          r_.Fail(node["window"], at + ".window",
                  "expected whole hours of the day like \"22:00-08:00\", got \"" + *text + "\"");
        }
      }
    }
    if (node["deadline_hours"] && r_.status().ok()) {
      job.workload.constraints.deadline_hours =
          r_.Number(node["deadline_hours"], at + ".deadline_hours", 0.01, 24 * 31 * 36);
    }
    if (node["interruptible"] && r_.status().ok())
      job.interruptible = r_.Bool(node["interruptible"], at + ".interruptible").value_or(false);
    if (!r_.status().ok())
      return r_.status();
    return job;
  }

  std::string file_;
  bool allow_files_ = true;
  YamlReader r_;
};

}  // namespace

Result<campaign::CampaignSpec> ParseCampaignYaml(std::string_view text, const std::string& file,
                                                 bool allow_files) {
  return ReadYamlDocument<campaign::CampaignSpec>(text, file, [&](const YAML::Node& root) {
    return CampaignReader(file, allow_files).Read(root);
  });
}

Result<campaign::CampaignSpec> LoadCampaignYaml(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  if (!text.ok())
    return text.status();
  return ParseCampaignYaml(*text, path);
}

}  // namespace gpuplan::io
