// The workload flags shared by `estimate`, `plan` and `explain`: what each flag sets, how flags
// override a YAML file, the errors that name the flag, and the commands end to end.
#include "cli/workload_flags.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/workload_yaml.h"
#include "testing/cli_runner.h"

namespace gpuplan::cli {
namespace {

using testing::CliRun;
constexpr WorkloadUse kPlan = WorkloadUse::kPlan;
constexpr WorkloadUse kEstimate = WorkloadUse::kEstimate;
using testing::RunGpuplan;

// A LoRA job with constraints, as a file would give it.
constexpr char kLoraYaml[] = R"(task: finetune
method: lora
model: llama-2-7b
seq_len: 2048
global_batch: 32
tokens: 100M
constraints:
  regions: [cn-hangzhou]
  max_gpus: 8
  budget: {amount: 5000, currency: CNY}
  billing: [payg, spot]
objective: cost
)";

std::optional<Workload> Base(const char* yaml) {
  if (yaml == nullptr)
    return std::nullopt;
  Result<Workload> w = io::ParseWorkloadYaml(yaml, "base.yaml");
  EXPECT_TRUE(w.ok()) << w.status().message();
  return w.ok() ? std::optional<Workload>(*w) : std::nullopt;
}

TEST(WorkloadFlagsTest, FlagsSetTheFieldsTheyNameAndOverrideTheFile) {
  struct Case {
    const char* name;
    WorkloadUse use;
    const char* yaml;  // the file's workload; nullptr = flags only
    std::function<void(WorkloadFlags&)> flags;
    std::function<void(const Workload&)> check;
  };
  const Case kCases[] = {
      {"flags_only_lora", kPlan, nullptr,
       [](WorkloadFlags& f) {
         f.model = "llama-3-8b";
         f.task = "finetune";
         f.method = "lora";
         f.tokens = "1e9";
       },
       [](const Workload& w) {
         EXPECT_EQ(w.model_name, "llama-3-8b");
         EXPECT_EQ(w.task, Task::kFinetune);
         EXPECT_EQ(w.method, Method::kLora);
         EXPECT_EQ(w.tokens, 1e9);
         EXPECT_EQ(w.seq_len, 2048) << "unset flags keep the schema defaults";
       }},
      {"no_master_weights_means_pure_16_bit_training", kEstimate,
       "task: finetune\nmodel: llama-2-7b\nmaster_weights: true\n",
       [](WorkloadFlags& f) { f.no_master_weights = true; },
       [](const Workload& w) { EXPECT_FALSE(w.master_weights); }},
      {"yaml_master_weights_false_is_kept", kEstimate,
       "task: finetune\nmodel: llama-2-7b\nmaster_weights: false\n", [](WorkloadFlags&) {},
       [](const Workload& w) { EXPECT_FALSE(w.master_weights); }},
      {"qlora_implies_4_bit_weights", kPlan, nullptr,
       [](WorkloadFlags& f) {
         f.model = "llama-2-13b";
         f.method = "qlora";
       },
       [](const Workload& w) { EXPECT_EQ(w.weight_bits, 4); }},
      {"weight_format_and_quantized_layers", kEstimate, nullptr,
       [](WorkloadFlags& f) {
         f.model = "gpt-oss-120b";
         f.task = "inference";
         f.weight_bits = 4;
         f.weight_format = "mxfp4";
         f.quantized_layers = "experts";
       },
       [](const Workload& w) {
         EXPECT_EQ(w.weight_format, WeightFormat::kMxfp4);
         EXPECT_EQ(w.quantized_layers, QuantizedLayers::kExperts);
       }},
      {"flag_overrides_one_field_and_keeps_the_rest", kPlan, kLoraYaml,
       [](WorkloadFlags& f) {
         f.seq_len = 4096;
         f.model = "qwen2.5-7b";
       },
       [](const Workload& w) {
         EXPECT_EQ(w.seq_len, 4096);
         EXPECT_EQ(w.model_name, "qwen2.5-7b");
         EXPECT_EQ(w.method, Method::kLora);
         EXPECT_EQ(w.tokens, 1e8);
         EXPECT_EQ(w.constraints.regions, std::vector<std::string>{"cn-hangzhou"});
         EXPECT_EQ(w.constraints.max_gpus, 8);
       }},
      {"new_task_drops_the_files_finetune_method", kPlan, kLoraYaml,
       [](WorkloadFlags& f) { f.task = "pretrain"; },
       [](const Workload& w) {
         EXPECT_EQ(w.task, Task::kPretrain);
         EXPECT_EQ(w.method, Method::kFull);
       }},
      {"model_flag_replaces_an_inline_architecture", kPlan,
       "task: pretrain\nmodel: {layers: 2, hidden: 256, heads: 4, ffn: 1024, vocab: 1000}\n",
       [](WorkloadFlags& f) { f.model = "llama-2-7b"; },
       [](const Workload& w) {
         EXPECT_EQ(w.model_name, "llama-2-7b");
         EXPECT_FALSE(w.inline_arch.has_value());
       }},
      {"inline_architecture", kPlan, nullptr,
       [](WorkloadFlags& f) {
         f.task = "pretrain";
         f.layers = 24;
         f.hidden = 2048;
         f.heads = 16;
         f.ffn = 8192;
         f.vocab = 50257;
       },
       [](const Workload& w) {
         ASSERT_TRUE(w.inline_arch.has_value());
         EXPECT_EQ(w.model_name, "inline");
         EXPECT_EQ(w.inline_arch->kv_heads, 16) << "--kv-heads defaults to --heads";
         EXPECT_EQ(w.inline_arch->mlp, MlpKind::kGelu) << "ffn = 4 x hidden is a GELU MLP";
       }},
      {"planning_flags_replace_the_constraints", kPlan, kLoraYaml,
       [](WorkloadFlags& f) {
         f.regions = {"cn-beijing", "cn-shanghai"};
         f.billing = {"payg", "subscription"};
         f.max_gpus = 2;
         f.max_nodes = 1;
         f.deadline_hours = 12;
         f.budget = 300;
         f.currency = "USD";
         f.objective = "time";
       },
       [](const Workload& w) {
         const Constraints& c = w.constraints;
         EXPECT_EQ(c.regions, (std::vector<std::string>{"cn-beijing", "cn-shanghai"}));
         EXPECT_EQ(c.billing, (std::vector<Billing>{Billing::kPayg, Billing::kSubscriptionMonth}));
         EXPECT_EQ(c.max_gpus, 2);
         EXPECT_EQ(c.max_nodes, 1);
         EXPECT_EQ(c.deadline_hours, 12);
         ASSERT_TRUE(c.budget.has_value());
         EXPECT_EQ(c.budget->amount, 300);
         EXPECT_EQ(c.budget->currency, "USD");
         EXPECT_EQ(w.objective, Objective::kTime);
       }},
      {"currency_alone_keeps_the_files_amount", kPlan, kLoraYaml,
       [](WorkloadFlags& f) { f.currency = "USD"; },
       [](const Workload& w) {
         ASSERT_TRUE(w.constraints.budget.has_value());
         EXPECT_EQ(w.constraints.budget->amount, 5000);
         EXPECT_EQ(w.constraints.budget->currency, "USD");
       }},
      {"serving_targets", kPlan, nullptr,
       [](WorkloadFlags& f) {
         f.task = "inference";
         f.model = "qwen2.5-7b";
         f.requests_per_s = 20;
         f.ttft_ms = 800;
         f.tpot_ms = 40;
         f.prompt_tokens = 1024;
         f.engine = "trtllm";
       },
       [](const Workload& w) {
         EXPECT_EQ(w.inference.requests_per_s, 20);
         EXPECT_EQ(w.inference.ttft_ms, 800);
         EXPECT_EQ(w.inference.tpot_ms, 40);
         EXPECT_EQ(w.inference.prompt_tokens, 1024);
         EXPECT_EQ(w.inference.engine, Engine::kTrtllm);
       }},
      {"rendering_needs_no_model", kPlan, nullptr, [](WorkloadFlags& f) { f.task = "rendering"; },
       [](const Workload& w) {
         EXPECT_EQ(w.task, Task::kRendering);
         EXPECT_TRUE(w.model_name.empty());
       }},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    WorkloadFlags flags;
    c.flags(flags);
    Result<Workload> w = MergeWorkloadFlags(flags, Base(c.yaml), c.use);
    ASSERT_TRUE(w.ok()) << w.status().message();
    c.check(*w);
  }
}

TEST(WorkloadFlagsTest, BadValueIsAnErrorNamingTheFlag) {
  struct Case {
    const char* name;
    WorkloadUse use;
    const char* yaml;
    std::function<void(WorkloadFlags&)> flags;
    std::string want;  // the whole message
  };
  // The modes --billing takes, as the billing table lists them.
  const std::string billing_choices = BillingChoices(BillingUse::kAny);
  const Case kCases[] = {
      {"no_model", kPlan, nullptr, [](WorkloadFlags& f) { f.task = "finetune"; },
       "give a workload file or --model NAME (or --model-config PATH for a config.json, or "
       "--layers/--hidden/... inline)"},
      {"precision", kPlan, kLoraYaml, [](WorkloadFlags& f) { f.precision = "bf8"; },
       "--precision: expected bf16, fp16, fp32, fp8 or fp64, got \"bf8\""},
      {"task", kPlan, kLoraYaml, [](WorkloadFlags& f) { f.task = "train"; },
       "--task: expected pretrain, finetune, inference, rendering or hpc, got \"train\""},
      {"tokens", kPlan, kLoraYaml, [](WorkloadFlags& f) { f.tokens = "lots"; },
       "--tokens: expected an amount like 100M or 2B, got \"lots\""},
      {"billing", kPlan, kLoraYaml,
       [](WorkloadFlags& f) {
         f.billing = {"spot", "monthly"};
       },
       "--billing: expected " + billing_choices + ", got \"monthly\""},
      {"objective", kPlan, kLoraYaml, [](WorkloadFlags& f) { f.objective = "cheapest"; },
       "--objective: expected cost, time, cost_within_deadline or time_within_budget, got "
       "\"cheapest\""},
      {"latency", kPlan, kLoraYaml, [](WorkloadFlags& f) { f.latency = "chat"; },
       "--latency: expected interactive or batch (or none), got \"chat\""},
      {"currency", kPlan, kLoraYaml, [](WorkloadFlags& f) { f.currency = "EUR"; },
       "--currency: expected CNY or USD, got \"EUR\""},
      {"currency_without_budget", kPlan, "task: finetune\nmodel: llama-2-7b\n",
       [](WorkloadFlags& f) { f.currency = "USD"; },
       "--currency needs a budget: give --budget AMOUNT"},
      {"estimate_needs_a_model_even_for_rendering", kEstimate, nullptr,
       [](WorkloadFlags& f) { f.task = "rendering"; },
       "give a workload file or --model NAME (or --model-config PATH for a config.json, or "
       "--layers/--hidden/... inline)"},
      {"half_an_inline_architecture", kPlan, nullptr,
       [](WorkloadFlags& f) {
         f.layers = 2;
         f.hidden = 256;
       },
       "an inline architecture needs --layers, --hidden, --heads, --ffn and --vocab (--kv-heads "
       "defaults to --heads; with --experts, --ffn is the dense layers' width)"},
      {"validation_names_the_flag_that_set_the_field", kPlan, kLoraYaml,
       [](WorkloadFlags& f) { f.seq_len = 0; }, "--seq-len: expected a whole number >= 1, got 0"},
      {"lora_flag_on_a_pretraining_file", kPlan, "task: pretrain\nmodel: llama-2-7b\n",
       [](WorkloadFlags& f) { f.method = "lora"; },
       "--method: expected full unless task is finetune (lora and qlora are fine-tuning "
       "methods), got lora"},
      {"field_from_the_file_keeps_its_name", kPlan,
       "task: finetune\nmodel: llama-2-7b\nglobal_batch: 8\nmicro_batch: 4\n",
       [](WorkloadFlags& f) { f.global_batch = 2; },
       "field \"micro_batch\": expected at most global_batch (2), got 4"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    WorkloadFlags flags;
    c.flags(flags);
    Result<Workload> w = MergeWorkloadFlags(flags, Base(c.yaml), c.use);
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(w.status().message(), c.want);
  }
}

// --billing takes every row of the billing table by its name and its alias, as the workload
// file's constraints.billing does, and its help lists them.
TEST(WorkloadFlagsTest, BillingTakesEveryModeOfTheTable) {
  for (const BillingMode& m : kBillingModes) {
    for (std::string_view spelling : {m.name, m.alias}) {
      if (spelling.empty())
        continue;
      SCOPED_TRACE(std::string(spelling));
      WorkloadFlags flags;
      flags.billing = {std::string(spelling)};
      Result<Workload> w = MergeWorkloadFlags(flags, Base(kLoraYaml), kPlan);
      ASSERT_TRUE(w.ok()) << w.status().message();
      EXPECT_EQ(w->constraints.billing, std::vector<Billing>{m.billing});
      Result<Workload> file =
          io::ParseWorkloadYaml("task: finetune\nmodel: llama-2-7b\nconstraints:\n  billing: [" +
                                    std::string(spelling) + "]\n",
                                "job.yaml");
      ASSERT_TRUE(file.ok()) << file.status().message();
      EXPECT_EQ(file->constraints.billing, std::vector<Billing>{m.billing});
    }
  }
  const CliRun help = RunGpuplan({"plan", "--help"});
  EXPECT_NE(help.out.find(BillingChoices(BillingUse::kAny)), std::string::npos) << help.out;
  Result<Workload> bad = io::ParseWorkloadYaml(
      "task: finetune\nmodel: llama-2-7b\nconstraints:\n  billing: monthly\n", "job.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "job.yaml:4:12: field \"constraints.billing\": expected " +
                                        BillingChoices(BillingUse::kAny) + ", got \"monthly\"");
}

// End to end: the same job as a file and as flags gives the same answer.
class WorkloadFlagsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One file per test and process: ctest runs these tests in parallel.
    path_ = ::testing::TempDir() + "workload_flags_lora_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
            std::to_string(::getpid()) + ".yaml";
    std::ofstream(path_) << kLoraYaml;
  }
  void TearDown() override { std::remove(path_.c_str()); }

  // kLoraYaml as flags: the job (every command), then the constraints (plan and explain).
  static std::vector<std::string> JobFlags() {
    return {"--task",    "finetune", "--method",       "lora", "--model",  "llama-2-7b",
            "--seq-len", "2048",     "--global-batch", "32",   "--tokens", "100M"};
  }
  static std::vector<std::string> PlanningFlags() {
    return {"--region",  "cn-hangzhou", "--max-gpus",  "8",         "--budget",
            "5000",      "--currency",  "CNY",         "--billing", "payg",
            "--billing", "spot",        "--objective", "cost"};
  }
  static std::vector<std::string> Cat(std::vector<std::string> a,
                                      const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }

  std::string path_;
};

TEST_F(WorkloadFlagsCliTest, FileAndFlagsGiveTheSameAnswer) {
  struct Case {
    const char* name;
    std::vector<std::string> command;  // before the workload
    std::vector<std::string> flags;    // the file's workload as flags
    std::vector<std::string> after;    // after the workload
  };
  const Case kCases[] = {
      {"plan", {"plan"}, Cat(JobFlags(), PlanningFlags()), {"--json", "--top", "20"}},
      {"explain",
       {"explain", "ecs.gn7i-c8g1.2xlarge"},
       Cat(JobFlags(), PlanningFlags()),
       {"--json"}},
      {"estimate", {"estimate"}, JobFlags(), {"--gpu", "A10", "--gpus", "1", "--json"}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const CliRun file = RunGpuplan(Cat(Cat(c.command, {path_}), c.after));
    const CliRun flags = RunGpuplan(Cat(Cat(c.command, c.flags), c.after));
    ASSERT_EQ(file.exit_code, 0) << file.err;
    ASSERT_EQ(flags.exit_code, 0) << flags.err;
    EXPECT_EQ(nlohmann::json::parse(flags.out), nlohmann::json::parse(file.out));
  }
}

TEST_F(WorkloadFlagsCliTest, PlanFromFlagsAlone) {
  // The issue's example: no file at all.
  const CliRun run = RunGpuplan({"plan", "--model", "llama-3-8b", "--task", "finetune", "--method",
                                 "lora", "--tokens", "1e9", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["workload"]["model"], "llama-3-8b");
  EXPECT_EQ(j["workload"]["method"], "lora");
  ASSERT_FALSE(j["candidates"].empty());
  EXPECT_GT(j["candidates"][0]["time"]["job_hours"].get<double>(), 0);
  const CliRun text = RunGpuplan({"explain", "ecs.gn7i-c8g1.2xlarge", "--model", "llama-2-7b",
                                  "--method", "lora", "--tokens", "100M"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("ecs.gn7i-c8g1.2xlarge can run it"), std::string::npos) << text.out;
}

TEST_F(WorkloadFlagsCliTest, FlagsOverrideTheFile) {
  struct Case {
    const char* name;
    std::vector<std::string> flags;
    std::function<void(const nlohmann::json&)> check;
  };
  const Case kCases[] = {
      {"region_and_gpus",
       {"--region", "cn-beijing", "--max-gpus", "1"},
       [](const nlohmann::json& j) {
         ASSERT_FALSE(j["candidates"].empty());
         for (const auto& c : j["candidates"]) {
           EXPECT_EQ(c["region"], "cn-beijing");
           EXPECT_EQ(c["gpus"], 1);
         }
       }},
      {"model_and_objective",
       {"--model", "llama-2-13b", "--objective", "time"},
       [](const nlohmann::json& j) {
         EXPECT_EQ(j["workload"]["model"], "llama-2-13b");
         EXPECT_EQ(j["workload"]["objective"], "time");
         EXPECT_EQ(j["workload"]["method"], "lora") << "the file's other fields stay";
       }},
      {"billing",
       {"--billing", "payg"},
       [](const nlohmann::json& j) {
         ASSERT_FALSE(j["candidates"].empty());
         for (const auto& c : j["candidates"])
           EXPECT_EQ(c["billing"], "payg");
       }},
      {"budget_too_small_is_an_empty_plan",
       {"--budget", "0.01"},
       [](const nlohmann::json& j) {
         EXPECT_TRUE(j["candidates"].empty());
         EXPECT_FALSE(j["rejected"].empty());
       }},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const CliRun run = RunGpuplan(Cat({"plan", path_, "--json"}, c.flags));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    c.check(nlohmann::json::parse(run.out));
  }
}

TEST_F(WorkloadFlagsCliTest, BadFlagExitsWithUsageNamingTheFlag) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    std::string want_err;
  };
  const std::string billing_choices = BillingChoices(BillingUse::kAny);
  const Case kCases[] = {
      {"plan_without_workload",
       {"plan", "--task", "finetune"},
       "give a workload file or --model NAME"},
      {"plan_flags_only",
       {"plan", "--model", "llama-3-8b", "--precision", "bf8"},
       "--precision: expected bf16, fp16, fp32, fp8 or fp64, got \"bf8\""},
      {"plan_with_file",
       {"plan", path_, "--tokens", "lots"},
       "--tokens: expected an amount like 100M or 2B, got \"lots\""},
      {"plan_range", {"plan", path_, "--max-gpus", "0"}, "--max-gpus"},
      {"plan_not_a_number", {"plan", path_, "--seq-len", "long"}, "--seq-len"},
      {"explain",
       {"explain", "ecs.gn7i-c8g1.2xlarge", path_, "--billing", "monthly"},
       "--billing: expected " + billing_choices + ", got \"monthly\""},
      {"estimate_with_file",
       {"estimate", path_, "--method", "dora", "--gpu", "A10"},
       "--method: expected full, lora or qlora, got \"dora\""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const CliRun run = RunGpuplan(c.args);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_NE(run.err.find(c.want_err), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace gpuplan::cli
