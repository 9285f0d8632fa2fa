// Defaults derived from the work (issue 31): what a workload leaves unset is filled from the job
// and the model as published, and every value the author did not give is listed with why.
#include "gpuplan/defaults.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan {
namespace {

// A workload as the edges hand it over: everything its author did not give is marked unset.
Workload Unset(Task task) {
  Workload w;
  w.task = task;
  w.unset = UnsetFields::All();
  return w;
}

ModelArch Sized(double params) {
  ModelArch m = testing::Model7B();
  m.params = params;
  return m;
}

const Assumption* Find(const std::vector<Assumption>& list, const std::string& field) {
  for (const Assumption& a : list) {
    if (a.field == field)
      return &a;
  }
  return nullptr;
}

TEST(DefaultsTest, PretrainingBatchFollowsPublishedRunsOfTheModelsSize) {
  struct Case {
    std::string name;
    double params;
    double tokens;   // 0 = no amount of work
    int want_batch;  // sequences of 2048 tokens
  };
  const Case kCases[] = {
      // GPT-3 13B: 2M tokens per step = 976.6 sequences, nearest power of two 1024 (the issue's
      // "pre-train 13B on 300B tokens in 3 weeks").
      {"13b_on_300b_tokens_takes_2m_tokens_per_step", 13e9, 300e9, 1024},
      {"125m_takes_half_a_million_tokens", 125e6, 300e9, 256},
      {"2b_takes_one_million_tokens", 2e9, 300e9, 512},
      {"70b_takes_four_million_tokens", 70e9, 2e12, 2048},
      // 1B tokens over 1000 steps = 1M tokens per step, less than the 2M of 13B runs.
      {"short_13b_run_keeps_a_thousand_steps", 13e9, 1e9, 512},
      {"tiny_run_is_at_least_one_sequence", 13e9, 1e5, 1},
      {"without_an_amount_of_work_the_published_batch", 13e9, 0, 1024},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Unset(Task::kPretrain);
    if (c.tokens > 0)
      w.tokens = c.tokens;
    std::vector<Assumption> assumed;
    const Workload d = DeriveDefaults(w, Sized(c.params), testing::EmbeddedCalibration(), &assumed);
    EXPECT_EQ(d.global_batch, c.want_batch);
    const Assumption* a = Find(assumed, "global_batch");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->value, std::to_string(c.want_batch));
    EXPECT_NE(a->why.find("tokens per step"), std::string::npos) << a->why;
  }
}

// A model counted per sample (a CNN: ResNet-50) is pre-trained one image per "sequence" at the
// large-minibatch recipe's 8,192 images per step, fewer for a short job; never the tokens rule.
TEST(DefaultsTest, PerSampleModelsPretrainInImagesNotTokens) {
  ModelArch cnn;
  cnn.name = "resnet-50";
  cnn.kind = ModelKind::kOther;
  cnn.params = 25.6e6;
  cnn.forward_flops_per_sample = 8.2e9;
  cnn.default_seq_len = 1;
  struct Case {
    std::string name;
    double samples;
    int want_batch;
  };
  const Case kCases[] = {
      // ImageNet x 90 epochs: 115M images, at the recipe's 8,192.
      {"imagenet_90_epochs", 115e6, 8192},
      // 1M images over 1,000 steps: 1,000 per step, nearest power of two 1024.
      {"short_run_keeps_a_thousand_steps", 1e6, 1024},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Unset(Task::kPretrain);
    w.samples = c.samples;
    std::vector<Assumption> assumed;
    const Workload d = DeriveDefaults(w, cnn, testing::EmbeddedCalibration(), &assumed);
    EXPECT_EQ(d.seq_len, 1);
    EXPECT_EQ(d.global_batch, c.want_batch);
    const Assumption* a = Find(assumed, "global_batch");
    ASSERT_NE(a, nullptr);
    EXPECT_NE(a->why.find("samples"), std::string::npos) << a->why;
  }
}

TEST(DefaultsTest, ServingFollowsHowTheModelIsReleased) {
  struct Case {
    std::string name;
    ModelArch::Release release;
    bool reasoning;
    int weight_bits;
    Precision want_precision;
    int want_output_tokens;
  };
  const Case kCases[] = {
      // DeepSeek-R1: FP8 weights and a reasoning model (4000 = calibration.csv
      // reasoning_output_tokens).
      {"fp8_reasoning_model_is_served_in_fp8_with_long_replies", ModelArch::Release::kFp8, true, 0,
       Precision::kFp8, 4000},
      {"plain_chat_model_keeps_bf16_and_256_tokens", ModelArch::Release::k16Bit, false, 0,
       Precision::kBf16, 256},
      {"quantised_weights_keep_the_precision", ModelArch::Release::kFp8, false, 4, Precision::kBf16,
       256},
      // gpt-oss: 16-bit compute over the MXFP4 experts it is released with.
      {"mxfp4_experts_are_served_as_released", ModelArch::Release::kMxfp4Experts, true, 0,
       Precision::kBf16, 4000},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Unset(Task::kInference);
    w.weight_bits = c.weight_bits;
    ModelArch m = testing::Model7B();
    m.release = c.release;
    m.reasoning = c.reasoning;
    std::vector<Assumption> assumed;
    const Workload d = DeriveDefaults(w, m, testing::EmbeddedCalibration(), &assumed);
    EXPECT_EQ(d.precision, c.want_precision);
    EXPECT_EQ(d.inference.output_tokens, c.want_output_tokens);
    ASSERT_NE(Find(assumed, "precision"), nullptr);
    ASSERT_NE(Find(assumed, "inference.output_tokens"), nullptr);
    EXPECT_EQ(Find(assumed, "inference.output_tokens")->value,
              std::to_string(c.want_output_tokens));
    EXPECT_NE(Find(assumed, "inference.prompt_tokens"), nullptr);
    EXPECT_EQ(Find(assumed, "global_batch"), nullptr) << "no training batch for a service";
  }
}

TEST(DefaultsTest, WhatTheAuthorGaveIsNeitherChangedNorListed) {
  Workload w = Unset(Task::kPretrain);
  w.tokens = 300e9;
  w.global_batch = 32;
  w.unset.global_batch = false;
  w.precision = Precision::kFp16;
  w.unset.precision = false;
  std::vector<Assumption> assumed;
  const Workload d = DeriveDefaults(w, Sized(13e9), testing::EmbeddedCalibration(), &assumed);
  EXPECT_EQ(d.global_batch, 32);
  EXPECT_EQ(d.precision, Precision::kFp16);
  EXPECT_EQ(Find(assumed, "global_batch"), nullptr);
  EXPECT_EQ(Find(assumed, "precision"), nullptr);
  EXPECT_NE(Find(assumed, "seq_len"), nullptr);
  EXPECT_NE(Find(assumed, "memory_confidence"), nullptr);
}

TEST(DefaultsTest, AWorkloadBuiltInCodeIsTakenAsGiven) {
  Workload w;
  w.task = Task::kPretrain;
  w.tokens = 300e9;
  std::vector<Assumption> assumed;
  const Workload d = DeriveDefaults(w, Sized(13e9), testing::EmbeddedCalibration(), &assumed);
  EXPECT_EQ(d.global_batch, w.global_batch);
  EXPECT_TRUE(assumed.empty());
}

TEST(DefaultsTest, Mxfp4ExpertsAreServedAsReleasedAndSayWhy) {
  ModelArch m = testing::Model7B();
  m.release = ModelArch::Release::kMxfp4Experts;
  std::vector<Assumption> assumed;
  const Workload once =
      DeriveDefaults(Unset(Task::kInference), m, testing::EmbeddedCalibration(), &assumed);
  EXPECT_EQ(once.weight_bits, 4);
  EXPECT_EQ(once.weight_format, WeightFormat::kMxfp4);
  EXPECT_EQ(once.quantized_layers, QuantizedLayers::kExperts);
  ASSERT_NE(Find(assumed, "precision"), nullptr);
  EXPECT_NE(Find(assumed, "precision")->why.find("MXFP4"), std::string::npos);
  // Deriving again keeps the release and gives the same reason.
  std::vector<Assumption> again;
  const Workload twice = DeriveDefaults(once, m, testing::EmbeddedCalibration(), &again);
  EXPECT_EQ(twice.weight_format, WeightFormat::kMxfp4);
  ASSERT_NE(Find(again, "precision"), nullptr);
  EXPECT_EQ(Find(again, "precision")->why, Find(assumed, "precision")->why);
  // Given weights win over the release; so does a precision the user gave.
  Workload int4 = Unset(Task::kInference);
  int4.weight_bits = 4;
  EXPECT_EQ(DeriveDefaults(int4, m, testing::EmbeddedCalibration(), nullptr).weight_format,
            WeightFormat::kInt);
  Workload bf16 = Unset(Task::kInference);
  bf16.unset.precision = false;
  EXPECT_EQ(DeriveDefaults(bf16, m, testing::EmbeddedCalibration(), nullptr).weight_bits, 0);
  // Training dequantises: the release does not apply.
  EXPECT_EQ(DeriveDefaults(Unset(Task::kFinetune), m, testing::EmbeddedCalibration(), nullptr)
                .weight_bits,
            0);
}

TEST(DefaultsTest, DerivingTwiceGivesTheSameWorkload) {
  Workload w = Unset(Task::kInference);
  ModelArch m = testing::Model7B();
  m.release = ModelArch::Release::kFp8;
  m.reasoning = true;
  const Workload once = DeriveDefaults(w, m, testing::EmbeddedCalibration(), nullptr);
  std::vector<Assumption> first, second;
  DeriveDefaults(w, m, testing::EmbeddedCalibration(), &first);
  const Workload twice = DeriveDefaults(once, m, testing::EmbeddedCalibration(), &second);
  EXPECT_EQ(twice.precision, once.precision);
  EXPECT_EQ(twice.inference.output_tokens, once.inference.output_tokens);
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i)
    EXPECT_EQ(first[i].value, second[i].value) << first[i].field;
}

}  // namespace
}  // namespace gpuplan
