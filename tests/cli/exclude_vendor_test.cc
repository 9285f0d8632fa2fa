// "No NVIDIA" (issue 12, item 7): the GPU vendor column, constraints.exclude_vendors and
// --exclude-vendor. Every GPU in the embedded catalog is NVIDIA, so excluding it must give an
// empty plan with one reason for the whole catalog and a note on what else exists and what is
// unknown about it.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuplan/plan.h"
#include "io/calibration_csv.h"
#include "io/catalog_loader.h"
#include "io/model_zoo.h"
#include "io/workload_yaml.h"
#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

using testing::CliRun;
using testing::RunGpuplan;

constexpr char kChoices[] = "expected nvidia, amd, intel, t-head, huawei or cambricon";

std::string LoraYaml(const std::string& constraints) {
  return "task: finetune\nmethod: lora\nmodel: llama-2-7b\ntokens: 100M\nconstraints:\n" +
         constraints;
}

TEST(ExcludeVendorTest, EveryEmbeddedGpuHasItsVendor) {
  Result<Catalog> c = io::LoadCatalog("");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_FALSE(c->gpus.empty());
  for (const Gpu& g : c->gpus) {
    EXPECT_EQ(g.vendor, GpuVendor::kNvidia) << g.name;
    EXPECT_EQ(g.vendor_name.rfind("NVIDIA", 0), 0u) << g.name << ": vendor_name and vendor agree";
  }
}

TEST(ExcludeVendorTest, VendorNamesParseInAnyCase) {
  struct Case {
    const char* text;
    std::optional<GpuVendor> want;
  };
  const Case kCases[] = {{"nvidia", GpuVendor::kNvidia},
                         {"NVIDIA", GpuVendor::kNvidia},
                         {"T-Head", GpuVendor::kThead},
                         {"amd", GpuVendor::kAmd},
                         {"huawei", GpuVendor::kHuawei},
                         {"nvida", std::nullopt},
                         {"", std::nullopt}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(ParseGpuVendor(c.text), c.want);
  }
}

TEST(ExcludeVendorTest, YamlKeyReadsAListOrOneVendor) {
  struct Case {
    const char* name;
    std::string constraints;
    std::vector<GpuVendor> want;
    const char* want_error;  // "" = parses
  };
  const Case kCases[] = {
      {"list", "  exclude_vendors: [nvidia]\n", {GpuVendor::kNvidia}, ""},
      {"scalar", "  exclude_vendors: NVIDIA\n", {GpuVendor::kNvidia}, ""},
      {"two", "  exclude_vendors: [amd, nvidia]\n", {GpuVendor::kAmd, GpuVendor::kNvidia}, ""},
      {"unknown", "  exclude_vendors: [nvida]\n", {}, "\"constraints.exclude_vendors\""},
      {"not_a_name",
       "  exclude_vendors: {a: b}\n",
       {},
       "\"constraints.exclude_vendors\": expected a text value"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Workload> w = io::ParseWorkloadYaml(LoraYaml(c.constraints), "w.yaml");
    if (std::string(c.want_error).empty()) {
      ASSERT_TRUE(w.ok()) << w.status().message();
      EXPECT_EQ(w->constraints.exclude_vendors, c.want);
    } else {
      ASSERT_FALSE(w.ok());
      const std::string m = w.status().message();
      EXPECT_NE(m.find("w.yaml:6:"), std::string::npos) << m;
      EXPECT_NE(m.find(c.want_error), std::string::npos) << m;
      if (std::string(c.name) == "unknown") {
        EXPECT_NE(m.find(std::string(kChoices) + ", got \"nvida\""), std::string::npos)
            << m << ": names the allowed values";
      }
    }
  }
}

// The planner on a catalog where one GPU is relabelled AMD: the fold reads the catalog, it does
// not assume that everything is NVIDIA.
TEST(ExcludeVendorTest, PlannerKeepsOtherVendorsAndFoldsWhenNothingIsLeft) {
  Result<Catalog> loaded = io::LoadCatalog("");
  Result<ModelZoo> zoo = io::LoadModelZoo();
  Result<Calibration> cal = io::LoadCalibration();
  ASSERT_TRUE(loaded.ok() && zoo.ok() && cal.ok());
  Catalog catalog = *loaded;
  for (Gpu& g : catalog.gpus) {
    if (g.name == "A10-24G")
      g.vendor = GpuVendor::kAmd;
  }
  struct Case {
    const char* name;
    std::string constraints;
    bool want_candidates;
    bool want_folded;
    std::string want_reason;  // in the folded reason, or in every vendor rejection
    bool want_note;
  };
  const Case kCases[] = {
      {"no_nvidia_leaves_the_amd_types", "  exclude_vendors: [nvidia]\n", true, false,
       "vendor NVIDIA excluded by constraints.exclude_vendors", true},
      {"no_amd", "  exclude_vendors: [amd]\n", true, false,
       "vendor AMD excluded by constraints.exclude_vendors", false},
      {"neither", "  exclude_vendors: [nvidia, amd]\n", false, true,
       "every GPU in the instance catalog is NVIDIA or AMD", true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Workload> w = io::ParseWorkloadYaml(LoraYaml(c.constraints), "w.yaml");
    ASSERT_TRUE(w.ok()) << w.status().message();
    Result<ModelArch> arch = planner::PlanModel(*w, *zoo);
    ASSERT_TRUE(arch.ok());
    planner::PlanOptions options;
    options.today = "2026-12-01";
    options.top_n = 200;
    Result<planner::Plan> plan = planner::MakePlan(*w, *arch, catalog, *cal, options);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_EQ(!plan->candidates.empty(), c.want_candidates);
    for (const planner::Candidate& cand : plan->candidates) {
      const InstanceType* t = catalog.FindInstance(cand.instance);
      ASSERT_NE(t, nullptr);
      const GpuVendor v = catalog.FindGpu(t->gpu)->vendor;
      EXPECT_EQ(std::count(w->constraints.exclude_vendors.begin(),
                           w->constraints.exclude_vendors.end(), v),
                0)
          << cand.instance << " uses an excluded vendor";
    }
    if (c.want_folded) {
      ASSERT_EQ(plan->rejected.size(), 1u) << "one reason, not one line per type";
      EXPECT_EQ(plan->rejected[0].instance, "*");
      EXPECT_NE(plan->rejected[0].reason.find(c.want_reason), std::string::npos)
          << plan->rejected[0].reason;
    } else {
      const auto vendor_rejections =
          std::count_if(plan->rejected.begin(), plan->rejected.end(),
                        [&](const auto& r) { return r.reason == c.want_reason; });
      EXPECT_GT(vendor_rejections, 0);
    }
    const bool has_note = std::any_of(plan->notes.begin(), plan->notes.end(), [](const auto& n) {
      return n.find("T-Head PPU") != std::string::npos;
    });
    EXPECT_EQ(has_note, c.want_note);
  }
}

class ExcludeVendorCliTest : public ::testing::Test {
 protected:
  static std::vector<std::string> Job() {
    return {"--model", "llama-2-7b", "--task", "finetune", "--method", "lora", "--tokens", "100M"};
  }
  static std::vector<std::string> Cat(std::vector<std::string> a,
                                      const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }
  static std::string WriteYaml(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + name;
    FILE* f = fopen(path.c_str(), "w");
    fputs(text.c_str(), f);
    fclose(f);
    return path;
  }
};

// What the user asked: no NVIDIA. The plan is empty, says why once, and says what else exists.
void ExpectNoNvidiaAnswer(const nlohmann::json& j) {
  EXPECT_TRUE(j["candidates"].empty());
  ASSERT_EQ(j["rejected"].size(), 1u) << j["rejected"].dump(1);
  EXPECT_EQ(j["rejected"][0]["instance"], "*");
  EXPECT_EQ(j["rejected"][0]["reason"],
            "every GPU in the instance catalog is NVIDIA, and constraints.exclude_vendors "
            "excludes it: no instance fits");
  ASSERT_EQ(j["notes"].size(), 1u);
  const std::string note = j["notes"][0];
  // The real options and what is unknown, from the research note; no speed or price figure.
  for (const char* fact :
       {"no Huawei Ascend or Cambricon", "T-Head PPU", "810E, 96 GB", "ml.gp7vf.16.40xlarge",
        "Lingjun", "ACK", "no public price", "cannot plan or price it", "data/SOURCES.md V1"}) {
    EXPECT_NE(note.find(fact), std::string::npos) << fact << " in: " << note;
  }
  for (const char* invented : {"TFLOPS:", "CNY", "USD", "/h"}) {
    EXPECT_EQ(note.find(invented), std::string::npos) << invented;
  }
}

TEST_F(ExcludeVendorCliTest, FileAndFlagGiveTheSameEmptyPlan) {
  const std::string file = WriteYaml("no_nvidia.yaml", LoraYaml("  exclude_vendors: [nvidia]\n"));
  const std::string amd_file = WriteYaml("no_amd.yaml", LoraYaml("  exclude_vendors: [amd]\n"));
  struct Case {
    const char* name;
    std::vector<std::string> args;
  };
  const Case kCases[] = {
      {"yaml_key", {"plan", file, "--json"}},
      {"flag", Cat(Cat({"plan"}, Job()), {"--exclude-vendor", "nvidia", "--json"})},
      {"flag_upper_case", Cat(Cat({"plan"}, Job()), {"--exclude-vendor", "NVIDIA", "--json"})},
      {"flag_repeated", Cat(Cat({"plan"}, Job()),
                            {"--exclude-vendor", "amd", "--exclude-vendor", "nvidia", "--json"})},
      {"flag_adds_to_the_file", {"plan", amd_file, "--exclude-vendor", "nvidia", "--json"}},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const CliRun run = RunGpuplan(c.args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    ExpectNoNvidiaAnswer(nlohmann::json::parse(run.out));
  }
}

TEST_F(ExcludeVendorCliTest, OtherVendorsLeaveThePlanAsItWas) {
  const CliRun plain = RunGpuplan(Cat(Cat({"plan"}, Job()), {"--json"}));
  const CliRun amd = RunGpuplan(Cat(Cat({"plan"}, Job()), {"--exclude-vendor", "amd", "--json"}));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(amd.exit_code, 0) << amd.err;
  EXPECT_FALSE(nlohmann::json::parse(amd.out)["candidates"].empty());
  EXPECT_EQ(nlohmann::json::parse(amd.out), nlohmann::json::parse(plain.out));
}

TEST_F(ExcludeVendorCliTest, TextExplainAndDeploySayItOnce) {
  const std::vector<std::string> flag = {"--exclude-vendor", "nvidia"};
  const CliRun text = RunGpuplan(Cat(Cat({"plan"}, Job()), flag));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::string reason = "every GPU in the instance catalog is NVIDIA";
  const size_t at = text.out.find(reason);
  ASSERT_NE(at, std::string::npos) << text.out;
  EXPECT_EQ(text.out.find(reason, at + 1), std::string::npos) << "said once:\n" << text.out;
  EXPECT_EQ(text.out.find("ecs.gn"), std::string::npos) << "no line per type:\n" << text.out;
  EXPECT_NE(text.out.find("T-Head PPU"), std::string::npos) << text.out;

  const CliRun explain = RunGpuplan(Cat(Cat({"explain", "ecs.gn7i-c8g1.2xlarge"}, Job()), flag));
  ASSERT_EQ(explain.exit_code, 0) << explain.err;
  EXPECT_NE(explain.out.find("cannot run this workload: " + reason), std::string::npos)
      << explain.out;
  EXPECT_NE(explain.out.find("T-Head PPU"), std::string::npos) << explain.out;

  const CliRun deploy = RunGpuplan(Cat(Cat({"deploy"}, Job()), Cat(flag, {"--dry-run"})));
  EXPECT_NE(deploy.exit_code, 0);
  EXPECT_NE(deploy.err.find("nothing to deploy"), std::string::npos) << deploy.err;
  EXPECT_NE(deploy.err.find(reason), std::string::npos) << deploy.err;
}

TEST_F(ExcludeVendorCliTest, UnknownVendorIsAnErrorNamingTheFlagAndTheChoices) {
  const std::string file = WriteYaml("typo.yaml", LoraYaml("  exclude_vendors: [nvida]\n"));
  struct Case {
    const char* name;
    std::vector<std::string> args;
    int want_exit;
    std::string want_err;
  };
  const Case kCases[] = {
      {"plan_flag", Cat(Cat({"plan"}, Job()), {"--exclude-vendor", "nvida"}), 2,
       std::string("--exclude-vendor: ") + kChoices + ", got \"nvida\""},
      {"explain_flag",
       Cat(Cat({"explain", "ecs.gn7i-c8g1.2xlarge"}, Job()), {"--exclude-vendor", "ascend"}), 2,
       std::string("--exclude-vendor: ") + kChoices + ", got \"ascend\""},
      {"deploy_flag", Cat(Cat({"deploy"}, Job()), {"--exclude-vendor", "nvidia-ish", "--dry-run"}),
       2, std::string("--exclude-vendor: ") + kChoices + ", got \"nvidia-ish\""},
      {"empty_flag", Cat(Cat({"plan"}, Job()), {"--exclude-vendor", ""}), 2,
       std::string("--exclude-vendor: ") + kChoices + ", got \"\""},
      {"yaml_key", {"plan", file}, 1, "field \"constraints.exclude_vendors\""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const CliRun run = RunGpuplan(c.args);
    EXPECT_EQ(run.exit_code, c.want_exit) << run.err;
    EXPECT_NE(run.err.find(c.want_err), std::string::npos) << run.err;
    EXPECT_NE(run.err.find(kChoices), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace gpuplan
