#include "cli/wizard.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "io/model_zoo.h"
#include "io/workload_yaml.h"

namespace gpuplan::cli {
namespace {

struct WizardCase {
  const char* name;
  const char* answers;
  bool ok;
  const char* want;  // substring of the YAML, or of the error
};

const std::vector<std::string> kKnownRegions = {"ap-southeast-1", "cn-beijing", "cn-hangzhou",
                                                "cn-shanghai"};

TEST(WizardTest, AnswersBecomeAWorkloadThePlannerAccepts) {
  const WizardCase kCases[] = {
      {"all_defaults", "\n\n\n\n\n\n\n\n\n\n\n\n\n", true, "method: lora\nmodel: llama-2-7b"},
      {"invalid_then_valid_task", "train\npretrain\nllama-2-13b\n\n4096\n\n1B\n\n\n\n\n\n\n", true,
       "task: pretrain\nmodel: llama-2-13b\nprecision: bf16\nseq_len: 4096"},
      {"help_does_not_consume_a_try",
       "?\n?\ninference\nqwen2.5-7b\n\n50\n\n\n\n\n\ncn-shanghai, cn-hangzhou\n\n\n\n\n\n", true,
       "requests_per_s: 50"},
      {"service_asks_ttft_and_tpot", "inference\nqwen2.5-7b\n\n10\n\n\n2000\n100\n\n\n\n\n\n", true,
       "  ttft_ms: 2000\n  tpot_ms: 100\n"},
      {"no_latency_target_by_default", "inference\nqwen2.5-7b\n\n10\n\n\n\n\n\n\n\n\n\n", true,
       "  output_tokens: 256\nconstraints:"},
      {"misspelt_region_is_asked_again", "\n\n\n\n\n\n\ncn-hangzhuo\ncn-hangzhou\n\n\n\n\n\n", true,
       "regions: [cn-hangzhou]"},
      {"unknown_region_three_times", "\n\n\n\n\n\n\ncn-hangzhuo\nmars-1\ncn-hangzhou,xx\n", false,
       "three invalid answers for \"regions\""},
      {"regions_list", "\n\n\n\n\n\n\ncn-shanghai,ap-southeast-1\n\n\n\n\n\n", true,
       "regions: [cn-shanghai, ap-southeast-1]"},
      {"three_bad_answers", "x\ny\nz\n", false, "three invalid answers for \"task\""},
      {"unknown_model_suggests", "\n\nllama-2-7\nllama-2-7\nllama-2-7\n", false,
       "three invalid answers for \"model\""},
      {"input_ends", "\n\n", false, "input ended at \"model\""},
  };
  Result<ModelZoo> zoo = io::LoadModelZoo();
  ASSERT_TRUE(zoo.ok()) << zoo.status().message();
  for (const WizardCase& c : kCases) {
    SCOPED_TRACE(c.name);
    std::istringstream in(c.answers);
    std::ostringstream out;
    Result<std::string> yaml = AskWorkload(in, out, *zoo, kKnownRegions);
    ASSERT_EQ(yaml.ok(), c.ok) << (yaml.ok() ? *yaml : yaml.status().message());
    if (c.ok) {
      EXPECT_NE(yaml->find(c.want), std::string::npos) << *yaml;
      Result<Workload> w = io::ParseWorkloadYaml(*yaml, "wizard.yaml");
      EXPECT_TRUE(w.ok()) << w.status().message();
    } else {
      EXPECT_NE(yaml.status().message().find(c.want), std::string::npos) << yaml.status().message();
    }
  }
}

TEST(WizardTest, MisspeltRegionGetsTheNearestKnownOne) {
  Result<ModelZoo> zoo = io::LoadModelZoo();
  ASSERT_TRUE(zoo.ok()) << zoo.status().message();
  std::istringstream in("\n\n\n\n\n\n\ncn-hangzhuo\n?\ncn-hangzhou\n\n\n\n\n\n");
  std::ostringstream out;
  ASSERT_TRUE(AskWorkload(in, out, *zoo, kKnownRegions).ok());
  EXPECT_NE(out.str().find("regions: unknown region \"cn-hangzhuo\"; did you mean cn-hangzhou?"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("known regions: ap-southeast-1 cn-beijing cn-hangzhou cn-shanghai"),
            std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace gpuplan::cli
