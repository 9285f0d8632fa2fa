#include "server/api.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

#include "gpuplan/estimate.h"
#include "gpuplan/uncertainty.h"
#include "gpuplan/workload.h"
#include "io/campaign_render.h"
#include "io/campaign_yaml.h"
#include "io/catalog_query.h"
#include "io/deploy_render.h"
#include "io/estimate_request.h"
#include "io/framework_csv.h"
#include "io/model_list_json.h"
#include "io/plan_render.h"
#include "io/range_render.h"
#include "io/workload_yaml.h"
#include "server/web_page.h"
#include "solver/glpk_mip.h"

namespace gpuplan::server {
namespace {

// Errors name the request body as the CLI names a workload file: "body:3:5: field ...".
constexpr const char* kBodyName = "body";

// An error on its way to a Response.
struct ApiError {
  int status = 400;
  std::string message;
  std::string field;
  int line = 0, column = 0;
};

// Replaces invalid UTF-8 (a workload's name or model could carry any bytes) instead of throwing;
// valid text dumps byte for byte as the CLI's `dump(2)` does.
std::string Dump(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Response Json(const nlohmann::json& j) {
  Response r;
  r.body = Dump(j);
  return r;
}

Response FromError(const ApiError& e) {
  nlohmann::json err = {{"message", e.message}};
  if (!e.field.empty())
    err["field"] = e.field;
  if (e.line > 0) {
    err["line"] = e.line;
    err["column"] = e.column;
  }
  Response r;
  r.status = e.status;
  r.body = Dump({{"error", err}});
  return r;
}

// The HTTP status of a Status from parsing or the core: the caller's input for argument,
// lookup and unsupported errors, a bug otherwise.
int HttpStatus(const Status& s) {
  switch (s.code()) {
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kNotFound:
    case ErrorCode::kUnsupported:
      return 400;
    default:
      return 500;
  }
}

// Turns a Status into an ApiError. The body's line and column and the field (a workload key such
// as "seq_len", or a query parameter such as "gpus") come from the Status's location, which the
// workload reader, ValidateWorkload and the request builders record.
ApiError FromStatus(const Status& s) {
  ApiError e;
  e.status = HttpStatus(s);
  e.message = s.message();
  const ErrorLocation& at = s.location();
  if (at.line > 0 && at.column > 0) {
    e.line = at.line;
    e.column = at.column;
  }
  e.field = at.field;
  return e;
}

// Query parameters with their allowed names; every getter checks form and range and names the
// parameter in its error. The first error sticks.
class ParamReader {
 public:
  ParamReader(const Params& params, std::vector<std::string_view> allowed)
      : params_(params), allowed_(std::move(allowed)) {
    for (const auto& [name, value] : params_) {
      if (std::find(allowed_.begin(), allowed_.end(), name) == allowed_.end()) {
        std::string expected;
        for (std::string_view a : allowed_) {
          expected += (expected.empty() ? "" : ", ") + std::string(a);
        }
        Fail(name, fmt::format("unknown query parameter \"{}\"; expected {}", name,
                               allowed_.empty() ? std::string("none") : "one of " + expected));
        return;
      }
    }
  }

  const std::optional<ApiError>& error() const { return error_; }
  const std::vector<std::string_view>& names() const { return allowed_; }

  // The value of `name` given once; nullopt when absent (or given twice: an error).
  std::optional<std::string> Text(std::string_view name) {
    std::optional<std::string> out;
    for (const auto& [n, v] : params_) {
      if (n != name)
        continue;
      if (out) {
        Fail(n, fmt::format("{}: given twice; give it once", n));
        return std::nullopt;
      }
      out = v;
    }
    return out;
  }

  // Every value of `name`, each split at commas: region=a&region=b or region=a,b.
  std::vector<std::string> List(std::string_view name) {
    std::vector<std::string> out;
    for (const auto& [n, v] : params_) {
      if (n != name)
        continue;
      size_t start = 0;
      while (start <= v.size()) {
        const size_t comma = std::min(v.find(',', start), v.size());
        if (comma > start)
          out.push_back(v.substr(start, comma - start));
        start = comma + 1;
      }
    }
    return out;
  }

  std::optional<int> Int(std::string_view name, int min, int max) {
    return Parsed(name, min, max, "a whole number");
  }

  std::optional<double> Number(std::string_view name, double min, double max) {
    return Parsed(name, min, max, "a number");
  }

  // "true", "1", "yes" or an empty value (?rdma) are true; "false", "0", "no" false.
  bool Bool(std::string_view name) {
    std::optional<std::string> text = Text(name);
    if (!text)
      return false;
    if (text->empty() || *text == "true" || *text == "1" || *text == "yes")
      return true;
    if (*text == "false" || *text == "0" || *text == "no")
      return false;
    Fail(std::string(name), fmt::format("{}: expected true or false, got \"{}\"", name, *text));
    return false;
  }

 private:
  // The value of `name` read as a T within [min, max]; nullopt when absent or not one (an
  // error naming `kind`, "a whole number").
  template <typename T>
  std::optional<T> Parsed(std::string_view name, T min, T max, const char* kind) {
    std::optional<std::string> text = Text(name);
    if (!text)
      return std::nullopt;
    T v = 0;
    auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec != std::errc() || p != text->data() + text->size() || !std::isfinite(v) || v < min ||
        v > max) {
      Fail(std::string(name),
           fmt::format("{}: expected {} from {} to {}, got \"{}\"", name, kind, min, max, *text));
      return std::nullopt;
    }
    return v;
  }

  void Fail(const std::string& name, std::string message) {
    if (error_)
      return;
    ApiError e;
    e.message = std::move(message);
    e.field = name;
    error_ = std::move(e);
  }

  const Params& params_;
  std::vector<std::string_view> allowed_;
  std::optional<ApiError> error_;
};

// The workload in the body, JSON or YAML (JSON is YAML's flow style, which the workload parser
// reads the same way, so both give the same Workload and the same line:column in errors).
// A query parameter written into the body (`"gpu": "A10"`) is an unknown workload key; the
// error then says where it belongs.
Result<Workload> ParseBody(const Request& req, const std::vector<std::string_view>& params) {
  if (req.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument(std::string(kBodyName) +
                                   ":1:1: empty body: expected a workload as JSON or YAML, e.g. "
                                   "{\"task\": \"finetune\", \"model\": \"llama-2-7b\"}")
        .At(kBodyName, 1, 1);
  }
  Result<Workload> w = io::ParseWorkloadYaml(req.body, kBodyName);
  if (w.ok())
    return w;
  // An error at a top-level key that is no workload key is the reader's "unknown key".
  const Status error = w.status();
  for (std::string_view p : params) {
    if (error.location().field == p && !io::IsWorkloadKey(p)) {
      return Status::InvalidArgument(
                 fmt::format("{}; {} is a query parameter, not a workload field: {}?{}=...",
                             error.message(), p, req.path, p))
          .At(error.location());
    }
  }
  return w;
}

// A plan request read: the workload with the region and objective parameters applied, its
// model, and the planner's options for this request.
struct PlanInput {
  Workload workload;
  ModelArch arch;
  planner::PlanOptions options;
};

// Reads the region, objective and top parameters of `params` (when allowed) and the body; the
// error to answer, or nothing with `in` filled.
std::optional<Response> ReadPlanInput(const ServerData& data, const Request& req,
                                      ParamReader& params, PlanInput* in) {
  const std::optional<int> top = params.Int("top", 1, 1000);  // as `plan --top`
  const std::vector<std::string> regions = params.List("region");
  const std::optional<std::string> objective_text = params.Text("objective");
  std::optional<Objective> objective;
  if (!params.error() && objective_text) {
    objective = ParseObjective(*objective_text);
    if (!objective) {
      return ErrorResponse(400,
                           fmt::format("objective: expected {}, got \"{}\"",
                                       NameChoices(kObjectiveNames), *objective_text),
                           "objective");
    }
  }
  if (params.error())
    return FromError(*params.error());
  Result<Workload> w = ParseBody(req, params.names());
  if (!w.ok())
    return FromError(FromStatus(w.status()));
  // The parameters replace the body's fields, as `plan --region/--objective` replace the file's.
  if (!regions.empty())
    w->constraints.regions = regions;
  if (objective)
    w->objective = *objective;
  if (Status s = ValidateWorkload(*w); !s.ok())
    return FromError(FromStatus(s));
  if (Status s = io::ResolveFrameworks(*w); !s.ok())
    return FromError(FromStatus(s));
  Result<ModelArch> arch = planner::PlanModel(*w, data.zoo);
  if (!arch.ok())
    return FromError(FromStatus(arch.status().WithContext(kBodyName)));
  // What the body leaves unset, derived from the work as the plan will (the plan lists it).
  in->workload = DeriveDefaults(*w, *arch, data.calibration, nullptr);
  in->arch = std::move(*arch);
  in->options = data.plan_options;  // a copy: requests never share state
  if (data.today)
    in->options.today = data.today();
  in->options.top_n = top.value_or(10);
  return std::nullopt;
}

Result<planner::Plan> MakePlan(const ServerData& data, const PlanInput& in) {
  Result<planner::Plan> plan =
      planner::MakePlan(in.workload, in.arch, data.catalog, data.calibration, in.options);
  if (!plan.ok())
    return plan.status().WithContext(kBodyName);
  return plan;
}

Response Plan(const ServerData& data, const Request& req) {
  ParamReader params(req.params, {"top", "region", "objective"});
  PlanInput in;
  if (std::optional<Response> error = ReadPlanInput(data, req, params, &in))
    return *error;
  // From here on the same calls as `gpuplan plan --json` (cli/plan_command.cc).
  Result<planner::Plan> plan = MakePlan(data, in);
  if (!plan.ok())
    return FromError(FromStatus(plan.status()));
  return Json(io::PlanJson(in.workload, *plan, in.arch));
}

// `gpuplan explain TYPE --json`: every way the plan runs on one instance type, its rejections,
// and the overall winner.
Response Explain(const ServerData& data, const Request& req) {
  ParamReader params(req.params, {"instance", "region", "objective"});
  const std::optional<std::string> instance = params.Text("instance");
  PlanInput in;
  if (std::optional<Response> error = ReadPlanInput(data, req, params, &in))
    return *error;
  if (!instance) {
    return ErrorResponse(400, "instance: required, e.g. ?instance=ecs.gn7i-c8g1.2xlarge",
                         "instance");
  }
  const InstanceType* type = data.catalog.FindInstance(*instance);
  if (!type) {
    return ErrorResponse(
        400,
        fmt::format("instance: unknown instance type \"{}\"; did you mean {}?", *instance,
                    fmt::join(data.catalog.SuggestInstances(*instance), ", ")),
        "instance");
  }
  Result<planner::Plan> overall = MakePlan(data, in);
  if (!overall.ok())
    return FromError(FromStatus(overall.status()));
  in.options.only_instance = type->name;  // as cli/plan_command.cc's RunExplain
  in.options.top_n = 100;
  Result<planner::Plan> mine = MakePlan(data, in);
  if (!mine.ok())
    return FromError(FromStatus(mine.status()));
  return Json(io::ExplainJson(type->name, *overall, *mine, &in.workload));
}

// `gpuplan deploy --rank N`'s files as {"rank", "instance", "files": {name: contents}}.
Response Deploy(const ServerData& data, const Request& req) {
  ParamReader params(req.params, {"rank", "region", "objective"});
  const int rank = params.Int("rank", 1, 1000).value_or(1);
  PlanInput in;
  if (std::optional<Response> error = ReadPlanInput(data, req, params, &in))
    return *error;
  in.options.top_n = rank;
  Result<planner::Plan> plan = MakePlan(data, in);
  if (!plan.ok())
    return FromError(FromStatus(plan.status()));
  if (static_cast<size_t>(rank) > plan->candidates.size()) {
    return ErrorResponse(
        400,
        fmt::format("rank {}: the plan has only {} candidate(s)", rank, plan->candidates.size()),
        "rank");
  }
  const planner::Candidate& c = plan->candidates[static_cast<size_t>(rank - 1)];
  const InstanceType* type = data.catalog.FindInstance(c.instance);
  if (!type)
    return ErrorResponse(500, "planned instance type missing from the catalog");
  io::DeployOptions options;
  options.today = in.options.today;
  options.rank = rank;
  if (const Family* family = data.catalog.FindFamily(type->family))
    options.generation = family->generation;
  Result<io::DeployFiles> files = io::RenderDeploy(in.workload, c, *type, options);
  if (!files.ok())
    return FromError(FromStatus(files.status()));
  return Json({{"rank", rank}, {"instance", c.instance}, {"files", *files}});
}

Response Estimate(const ServerData& data, const Request& req) {
  ParamReader params(req.params,
                     {"gpu", "gpus", "gpus_per_node", "instance", "nodes", "inter_node_gbps", "tp",
                      "pp", "dp", "zero", "micro_batch", "sequence_parallel"});
  io::HardwareChoice hw_choice;
  hw_choice.gpu = params.Text("gpu").value_or("");
  hw_choice.instance = params.Text("instance").value_or("");
  // Ranges as BuildHardware/BuildLayout check them, so the message names the parameter early.
  hw_choice.gpus = params.Int("gpus", 1, 1 << 20);
  hw_choice.gpus_per_node = params.Int("gpus_per_node", 1, 64);
  hw_choice.nodes = params.Int("nodes", 1, 1 << 16);
  hw_choice.inter_node_gbps = params.Number("inter_node_gbps", 1e-3, 1e6);
  io::LayoutChoice layout_choice;
  layout_choice.tp = params.Int("tp", 1, 4096);
  layout_choice.pp = params.Int("pp", 1, 4096);
  layout_choice.dp = params.Int("dp", 1, 1 << 20);
  layout_choice.zero = params.Int("zero", 0, 3);
  layout_choice.sequence_parallel = params.Bool("sequence_parallel");
  const std::optional<int> micro_batch = params.Int("micro_batch", 1, 1 << 20);
  if (params.error())
    return FromError(*params.error());

  Result<Workload> w = ParseBody(req, params.names());
  if (!w.ok())
    return FromError(FromStatus(w.status()));
  if (micro_batch)
    w->micro_batch = *micro_batch;
  if (Status s = ValidateWorkload(*w); !s.ok())
    return FromError(FromStatus(s));
  if (Status s = io::ResolveFrameworks(*w); !s.ok())
    return FromError(FromStatus(s));

  // From here on the same calls as `gpuplan estimate --json` (cli/estimate_command.cc).
  Result<ModelArch> arch = ResolveModel(*w, data.zoo);
  if (!arch.ok())
    return FromError(FromStatus(arch.status().WithContext(kBodyName)));
  // What the body leaves unset, derived from the work as `plan` does; listed in the answer.
  std::vector<Assumption> assumed;
  *w = DeriveDefaults(*w, *arch, data.calibration, &assumed);
  if (Status s = ValidateWorkload(*w); !s.ok())
    return FromError(FromStatus(s));
  Result<perf::Hardware> hw = io::BuildHardware(hw_choice, data.catalog, io::FieldSpelling::kParam);
  if (!hw.ok())
    return FromError(FromStatus(hw.status()));
  // Training fits at the workload's memory confidence, as in the plan.
  if (w->IsTraining()) {
    hw->memory_error_ratio =
        uncertainty::MemoryErrorRatio(data.plan_options.uncertainty, *w, *arch, *hw);
  }
  Result<perf::Layout> layout =
      io::BuildLayout(layout_choice, *w, *arch, *hw, data.calibration, io::FieldSpelling::kParam);
  if (!layout.ok())
    return FromError(FromStatus(layout.status()));
  Result<perf::Estimate> e = perf::EstimateRun(*w, *arch, *hw, *layout, data.calibration);
  if (!e.ok())
    return FromError(FromStatus(e.status()));
  nlohmann::json j = io::EstimateJson(*w, *arch, *hw, *layout, *e);
  j["assumptions"] = io::AssumptionsJson(assumed);
  j["searched"] = io::SearchedChoices(layout_choice, *w, *layout);
  if (std::optional<planner::CandidateRanges> r =
          io::EstimateRanges(data.plan_options.uncertainty, *w, *arch, *hw, *e)) {
    io::AddEstimateRangesJson(j, *r, *e);
  }
  return Json(j);
}

Response CatalogGpus(const ServerData& data, const Request& req) {
  ParamReader params(req.params, {"min_gpu_memory", "alibaba"});
  const double min_memory = params.Number("min_gpu_memory", 0, 1e6).value_or(0);
  const bool alibaba = params.Bool("alibaba");
  if (params.error())
    return FromError(*params.error());
  return Json(io::GpuListJson(data.catalog, min_memory, alibaba));
}

Response CatalogInstances(const ServerData& data, const Request& req) {
  ParamReader params(req.params,
                     {"gpu", "min_gpu_memory", "min_gpus", "rdma", "family", "status", "region"});
  io::InstanceFilter f;
  f.gpu = params.Text("gpu").value_or("");
  f.min_gpu_memory = params.Number("min_gpu_memory", 0, 1e6).value_or(0);
  f.min_gpus = params.Number("min_gpus", 0, 1e6).value_or(0);
  f.rdma = params.Bool("rdma");
  f.family = params.Text("family").value_or("");
  f.status = params.Text("status").value_or("");
  f.region = params.Text("region").value_or("");
  if (params.error())
    return FromError(*params.error());
  if (Status s = io::CheckInstanceFilter(data.catalog, f, io::FieldSpelling::kParam); !s.ok()) {
    return FromError(FromStatus(s));
  }
  return Json(io::InstanceListJson(data.catalog, f));
}

Response CatalogModels(const ServerData& data, const Request& req) {
  ParamReader params(req.params, {});
  if (params.error())
    return FromError(*params.error());
  return Json(io::ModelListJson(data.zoo));
}

Response CatalogFamilies(const ServerData& data, const Request& req) {
  ParamReader params(req.params, {});
  if (params.error())
    return FromError(*params.error());
  return Json(io::FamilyListJson(data.catalog));
}

Response Health(const ServerData& data, const Request& req) {
  ParamReader params(req.params, {});
  if (params.error())
    return FromError(*params.error());
  return Json({{"ok", true},
               {"catalog",
                {{"gpus", data.catalog.gpus.size()},
                 {"instances", data.catalog.instances.size()},
                 {"families", data.catalog.families.size()},
                 {"prices", data.catalog.prices.size()},
                 {"models", data.zoo.models.size()}}},
               {"version", data.version}});
}

// `gpuplan campaign FILE --json`: the body is the campaign file (YAML or JSON), its pieces
// inline (a `file:` key is refused: a request never opens server files).
Response Campaign(const ServerData& data, const Request& req) {
  ParamReader params(req.params, {"savings_plan_rate"});
  const std::optional<double> rate = params.Number("savings_plan_rate", 0.01, 0.9);
  if (params.error())
    return FromError(*params.error());
  Result<campaign::CampaignSpec> spec = io::ParseCampaignYaml(req.body, kBodyName, false);
  if (!spec.ok())
    return FromError(FromStatus(spec.status()));
  if (rate)
    spec->savings_plan_rate = rate;
  campaign::CampaignOptions options{.plan = data.plan_options, .solver = solver::GlpkSolver()};
  if (data.today)
    options.plan.today = data.today();
  Result<campaign::CampaignPlan> plan =
      campaign::PlanCampaign(*spec, data.zoo, data.catalog, data.calibration, options);
  if (!plan.ok())
    return FromError(FromStatus(plan.status().WithContext(kBodyName)));
  return Json(io::CampaignJson(*spec, *plan));
}

Response Page(const ServerData& data, const Request&) {
  Response r;
  r.content_type = "text/html; charset=utf-8";
  r.body = WebPage(data.zoo);
  return r;
}

struct Route {
  std::string_view path;
  std::string_view method;
  Response (*handle)(const ServerData&, const Request&);
  bool has_body;
};

constexpr Route kRoutes[] = {
    {"/", "GET", Page, false},
    {"/healthz", "GET", Health, false},
    {"/v1/plan", "POST", Plan, true},
    {"/v1/campaign", "POST", Campaign, true},
    {"/v1/explain", "POST", Explain, true},
    {"/v1/deploy", "POST", Deploy, true},
    {"/v1/estimate", "POST", Estimate, true},
    {"/v1/catalog/gpus", "GET", CatalogGpus, false},
    {"/v1/catalog/instances", "GET", CatalogInstances, false},
    {"/v1/catalog/families", "GET", CatalogFamilies, false},
    {"/v1/catalog/models", "GET", CatalogModels, false},
};

Response Dispatch(const ServerData& data, const Request& req) {
  // HEAD is GET without the body (the socket layer drops it).
  const std::string_view method = req.method == "HEAD" ? std::string_view("GET") : req.method;
  std::string allow;
  for (const auto& route : kRoutes) {
    if (route.path != req.path)
      continue;
    if (route.method == method) {
      if (route.has_body && req.body.size() > data.max_body_bytes) {
        return ErrorResponse(413, fmt::format("request body of {} bytes is over the limit of {} "
                                              "bytes",
                                              req.body.size(), data.max_body_bytes));
      }
      return route.handle(data, req);
    }
    allow += (allow.empty() ? "" : ", ") + std::string(route.method);
  }
  if (allow.empty()) {
    return ErrorResponse(404, fmt::format("no such path \"{}\"; see GET / for the API", req.path));
  }
  Response r =
      ErrorResponse(405, fmt::format("{} does not accept {}; use {}", req.path, req.method, allow));
  r.headers.emplace_back("Allow", allow);
  return r;
}

}  // namespace

Response ErrorResponse(int status, std::string_view message, std::string_view field) {
  ApiError e;
  e.status = status;
  e.message = std::string(message);
  e.field = std::string(field);
  return FromError(e);
}

Response Handle(const ServerData& data, const Request& req) {
  try {
    return Dispatch(data, req);
  } catch (const std::exception& e) {
    // Library exceptions must not reach the socket layer; they are bugs to report.
    return ErrorResponse(500, std::string("internal error: ") + e.what());
  } catch (...) {
    return ErrorResponse(500, "internal error");
  }
}

}  // namespace gpuplan::server
