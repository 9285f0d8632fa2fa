// `gpuplan wizard`: the interactive checklist (see wizard.h).
#include "cli/wizard.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "gpuplan/plan.h"
#include "gpuplan/strings.h"
#include "gpuplan/workload.h"
#include "io/file_util.h"
#include "io/model_zoo.h"
#include "io/workload_yaml.h"

namespace gpuplan::cli {
namespace {

// Returns "" when `answer` is valid, else what is expected.
using Check = std::function<std::string(const std::string& answer)>;

struct Question {
  std::string key;  // for the prompt
  std::string prompt;
  std::string fallback;  // default answer; "" = none (the key is left out)
  std::string help;
  Check check;
};

std::string OneOf(const std::string& a, std::initializer_list<const char*> options) {
  for (const char* o : options) {
    if (a == o)
      return "";
  }
  std::string list;
  for (const char* o : options)
    list += std::string(list.empty() ? "" : ", ") + o;
  return "expected one of " + list;
}

// A job on a model (from the zoo), as opposed to rendering or HPC.
bool IsModelJob(const std::string& task) {
  return task == "pretrain" || task == "finetune" || task == "inference";
}

std::string PositiveNumber(const std::string& a) {
  auto v = ParseAmount(a);
  return v && *v > 0 ? "" : "expected a positive number (suffixes K M B T allowed)";
}

// Asks one question; nullopt at end of input or after three invalid answers.
Result<std::string> Ask(std::istream& in, std::ostream& out, const Question& q) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    out << q.prompt << (q.fallback.empty() ? " [skip]" : " [" + q.fallback + "]") << ": "
        << std::flush;
    std::string line;
    if (!std::getline(in, line)) {
      return Status::InvalidArgument("wizard: input ended at \"" + q.key + "\"");
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
      line.pop_back();
    while (!line.empty() && line.front() == ' ')
      line.erase(0, 1);
    if (line == "?") {
      out << "  " << q.help << "\n";
      --attempt;
      continue;
    }
    if (line.empty())
      return q.fallback;
    const std::string problem = q.check ? q.check(line) : "";
    if (problem.empty())
      return line;
    out << "  " << q.key << ": " << problem << " (type ? for help)\n";
  }
  return Status::InvalidArgument("wizard: three invalid answers for \"" + q.key + "\"");
}

// The items of a comma-separated answer, without the spaces around them (empty ones kept).
std::vector<std::string> CommaItems(const std::string& answer) {
  std::vector<std::string> items;
  std::stringstream ss(answer);
  std::string item;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && item.front() == ' ')
      item.erase(0, 1);
    while (!item.empty() && item.back() == ' ')
      item.pop_back();
    items.push_back(item);
  }
  return items;
}

std::string YamlList(const std::string& csv) {
  std::string out;
  for (const std::string& item : CommaItems(csv)) {
    if (!item.empty())
      out += (out.empty() ? "" : ", ") + item;
  }
  return "[" + out + "]";
}

// "" when every comma-separated region is in `known`, else the first unknown one with the
// nearest spelling.
std::string KnownRegionList(const std::string& answer, const std::vector<std::string>& known) {
  for (const std::string& item : CommaItems(answer)) {
    if (item.empty() || std::find(known.begin(), known.end(), item) != known.end())
      continue;
    std::string nearest;
    int best = 4;
    for (const std::string& k : known) {
      if (int d = strings::EditDistance(strings::Lower(item), k); d < best) {
        best = d;
        nearest = k;
      }
    }
    return "unknown region \"" + item + "\"" +
           (nearest.empty() ? "" : "; did you mean " + nearest + "?") +
           " (? lists the known regions)";
  }
  return "";
}

// Asks a question of the interview (Ask with its streams).
using Asker = std::function<Result<std::string>(const Question&)>;

// The task, the fine-tuning method, the model and the precision; returns the task.
Result<std::string> AskJob(const Asker& ask, const ModelZoo& zoo, std::string& yaml) {
  Result<std::string> task =
      ask({"task", "What is the job? pretrain, finetune, inference, rendering, hpc", "finetune",
           "pretrain = train from scratch; finetune = adapt a model; inference = serve or "
           "batch-predict; rendering = graphics; hpc = FP64 simulation",
           [](const std::string& a) {
             return OneOf(a, {"pretrain", "finetune", "inference", "rendering", "hpc"});
           }});
  if (!task.ok())
    return task.status();
  yaml += "task: " + *task + "\n";
  if (*task == "finetune") {
    Result<std::string> method =
        ask({"method", "Method? full, lora, qlora", "lora",
             "full updates every weight (16 bytes/param with AdamW); lora trains small adapters on "
             "a frozen base; qlora also quantises the base to 4 bits",
             [](const std::string& a) {
               return OneOf(a, {"full", "lora", "qlora"});
             }});
    if (!method.ok())
      return method.status();
    yaml += "method: " + *method + "\n";
  }
  if (IsModelJob(*task)) {
    Result<std::string> model =
        ask({"model", "Model name (e.g. llama-2-7b, qwen2.5-7b, mistral-7b)", "llama-2-7b",
             "a model gpuplan knows; 'gpuplan estimate --list-models' lists them all",
             [&zoo](const std::string& a) {
               if (zoo.Find(a))
                 return std::string();
               auto near = zoo.Suggest(a);
               return "unknown model" +
                      (near.empty() ? std::string() : "; did you mean " + near[0] + "?");
             }});
    if (!model.ok())
      return model.status();
    yaml += "model: " + *model + "\n";
  }
  const std::string default_precision = *task == "hpc"         ? "fp64"
                                        : *task == "rendering" ? "fp32"
                                                               : "bf16";
  Result<std::string> precision =
      ask({"precision", "Precision? bf16, fp16, fp32, fp8, fp64", default_precision,
           "bf16 is the default for training on Ampere and newer; fp16 for V100/T4; fp8 needs "
           "Hopper/Ada/Blackwell; fp64 for HPC",
           [](const std::string& a) {
             return OneOf(a, {"bf16", "fp16", "fp32", "fp8", "fp64"});
           }});
  if (!precision.ok())
    return precision.status();
  yaml += "precision: " + *precision + "\n";
  return task;
}

// Training: sequence length, global batch and the tokens to train on.
Status AskTrainingAmount(const Asker& ask, std::string& yaml) {
  for (const Question& q :
       {Question{"seq_len", "Sequence length (tokens per sample)", "2048",
                 "longer sequences need more activation memory", PositiveNumber},
        Question{"global_batch", "Global batch (sequences per optimizer step)", "32",
                 "micro-batch x data-parallel x accumulation", PositiveNumber},
        Question{"tokens", "Tokens to train on (e.g. 100M, 2B)", "100M",
                 "the amount of work; the plan's hours and cost scale with it", PositiveNumber}}) {
    Result<std::string> a = ask(q);
    if (!a.ok())
      return a.status();
    yaml += q.key + ": " + *a + "\n";
  }
  return Status::Ok();
}

// Inference: the request rate, the lengths and the latency targets.
Status AskServing(const Asker& ask, std::string& yaml) {
  yaml += "inference:\n";
  for (const Question& q :
       {Question{"requests_per_s", "Requests per second to serve", "10",
                 "sustained rate; replicas are sized for it", PositiveNumber},
        Question{"prompt_tokens", "Prompt tokens per request", "512", "input length",
                 PositiveNumber},
        Question{"output_tokens", "Output tokens per request", "256", "generated length",
                 PositiveNumber},
        // Unset, a service gets the interactive default, as the CLI without --ttft-ms/--tpot-ms.
        Question{"ttft_ms", "Target time to first token, ms", "",
                 "prefill latency target, e.g. 1000; Enter = the interactive default (2000, as "
                 "'gpuplan plan' without --ttft-ms)",
                 PositiveNumber},
        Question{"tpot_ms", "Target time per output token, ms", "",
                 "decode latency target, e.g. 50 (about 20 tokens/s per user); Enter = the "
                 "interactive default (100, as without --tpot-ms)",
                 PositiveNumber}}) {
    Result<std::string> a = ask(q);
    if (!a.ok())
      return a.status();
    if (!a->empty())
      yaml += "  " + q.key + ": " + *a + "\n";
  }
  return Status::Ok();
}

// The constraints: regions, most GPUs, and for a model job a deadline and a budget.
Status AskLimits(const Asker& ask, const std::string& task,
                 const std::vector<std::string>& known_regions, std::string& yaml) {
  yaml += "constraints:\n";
  std::string region_help = "prices differ by region; known regions:";
  for (const std::string& r : known_regions)
    region_help += " " + r;
  Result<std::string> regions =
      ask({"regions", "Regions (comma separated)", "cn-hangzhou", region_help,
           [&known_regions](const std::string& a) { return KnownRegionList(a, known_regions); }});
  if (!regions.ok())
    return regions.status();
  yaml += "  regions: " + YamlList(*regions) + "\n";
  Result<std::string> max_gpus = ask(
      {"max_gpus", "Most GPUs you may use", "8", "an upper bound for the search", PositiveNumber});
  if (!max_gpus.ok())
    return max_gpus.status();
  yaml += "  max_gpus: " + *max_gpus + "\n";
  // A deadline or budget needs an amount of work (tokens, or a service's request rate) to be
  // held against; rendering and HPC jobs have none here.
  if (!IsModelJob(task))
    return Status::Ok();
  const bool service = task == "inference";
  if (!service) {
    Result<std::string> deadline = ask({"deadline_hours", "Deadline in hours", "",
                                        "plans slower than this are rejected", PositiveNumber});
    if (!deadline.ok())
      return deadline.status();
    if (!deadline->empty())
      yaml += "  deadline_hours: " + *deadline + "\n";
  }
  Result<std::string> budget = ask({"budget", service ? "Budget in CNY per month" : "Budget in CNY",
                                    "", "plans costing more are rejected", PositiveNumber});
  if (!budget.ok())
    return budget.status();
  if (!budget->empty())
    yaml += "  budget: {amount: " + *budget + ", currency: CNY}\n";
  return Status::Ok();
}

// The billing modes to consider and what to optimise.
Status AskBillingAndObjective(const Asker& ask, const std::string& task, std::string& yaml) {
  Result<std::string> billing =
      ask({"billing", "Billing modes (payg, spot, subscription)",
           task == "inference" ? "payg, subscription" : "payg, spot",
           "spot is cheaper but can be reclaimed with 5 minutes' notice: checkpoint often; "
           "subscription pays off above ~66% utilisation",
           [](const std::string& a) {
             for (const std::string& item : CommaItems(a)) {
               if (std::string p = OneOf(item, {"payg", "spot", "subscription"}); !p.empty())
                 return p;
             }
             return std::string();
           }});
  if (!billing.ok())
    return billing.status();
  yaml += "  billing: " + YamlList(*billing) + "\n";
  Result<std::string> objective = ask(
      {"objective", "Objective? cost or time", "cost",
       "cost = cheapest plan that meets the constraints; time = fastest", [](const std::string& a) {
         return OneOf(a, {"cost", "time", "cost_within_deadline", "time_within_budget"});
       }});
  if (!objective.ok())
    return objective.status();
  yaml += "objective: " + *objective + "\n";
  return Status::Ok();
}

}  // namespace

Result<std::string> AskWorkload(std::istream& in, std::ostream& out, const ModelZoo& zoo,
                                const std::vector<std::string>& known_regions) {
  out << "gpuplan wizard: answer each question; Enter takes the default, ? explains.\n";
  std::string yaml = "# Written by gpuplan wizard. Edit freely; 'gpuplan plan FILE' plans it.\n";
  const Asker ask = [&](const Question& q) -> Result<std::string> { return Ask(in, out, q); };
  Result<std::string> task = AskJob(ask, zoo, yaml);
  if (!task.ok())
    return task.status();
  if (*task == "pretrain" || *task == "finetune") {
    if (Status s = AskTrainingAmount(ask, yaml); !s.ok())
      return s;
  }
  if (*task == "inference") {
    if (Status s = AskServing(ask, yaml); !s.ok())
      return s;
  }
  if (Status s = AskLimits(ask, *task, known_regions, yaml); !s.ok())
    return s;
  if (Status s = AskBillingAndObjective(ask, *task, yaml); !s.ok())
    return s;
  return yaml;
}

namespace {

// Refuses an --output that exists, unless --force (as deploy --out does): the wizard is run
// in a project folder, where workload.yaml may be the user's own file (issue 32).
Status CheckNewOutput(const std::string& path, bool force) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    return Status::IoError(fmt::format("--output {}: {}", path, ec.message()));
  if (!std::filesystem::exists(st))
    return Status::Ok();
  if (std::filesystem::is_directory(st))
    return Status::InvalidArgument(
        fmt::format("--output {}: is a directory, expected a file", path));
  if (force)
    return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "--output {}: the file exists; pass --force to replace it, or -o another path", path));
}

}  // namespace

void AddWizardCommand(CLI::App& app, CliContext& ctx) {
  auto path = std::make_shared<std::string>("workload.yaml");
  auto plan_after = std::make_shared<bool>(true);
  auto force = std::make_shared<bool>(false);
  CLI::App* wizard = app.add_subcommand(
      "wizard", "Answer the checklist questions, write a workload YAML, then plan it");
  wizard->add_option("--output,-o", *path, "Where to write the workload (default workload.yaml)");
  wizard->add_flag("!--no-plan", *plan_after, "Only write the file; do not plan it");
  wizard->add_flag("--force", *force, "Replace --output when it exists");
  wizard->callback([&ctx, path, plan_after, force] {
    // Before the questions, so nobody answers them all to be refused at the end.
    if (Status s = CheckNewOutput(*path, *force); !s.ok())
      return ctx.Fail(s, /*usage=*/true);
    Result<ModelZoo> zoo = io::LoadModelZoo();
    if (!zoo.ok())
      return ctx.Fail(zoo.status());
    Result<Catalog> catalog = LoadCliCatalog(ctx);
    if (!catalog.ok())
      return ctx.Fail(catalog.status());
    Result<std::string> yaml = AskWorkload(std::cin, *ctx.out, *zoo,
                                           planner::KnownRegions(*catalog, LoadCliMarketData(ctx)));
    if (!yaml.ok())
      return ctx.Fail(yaml.status());
    // The wizard's own output must parse; a failure here is a bug, reported with the text.
    if (Result<Workload> w = io::ParseWorkloadYaml(*yaml, *path); !w.ok()) {
      return ctx.Fail(
          Status::Internal("wizard wrote an invalid workload: " + w.status().message()));
    }
    // Again at the end: the file may have appeared while the questions were answered.
    if (Status s = CheckNewOutput(*path, *force); !s.ok())
      return ctx.Fail(s, /*usage=*/true);
    if (Status s = io::WriteFileAtomic(*path, *yaml); !s.ok())
      return ctx.Fail(s);
    *ctx.out << "wrote " << *path << "\n";
    if (*plan_after) {
      const char* argv[] = {"gpuplan", "plan", path->c_str()};
      ctx.exit_code = static_cast<ExitCode>(RunCli(3, argv, ctx.env, *ctx.out, *ctx.err));
    }
  });
}

}  // namespace gpuplan::cli
