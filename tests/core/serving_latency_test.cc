// The latency targets a serving plan is held to (gpuplan/plan.h ServingTargets): the interactive
// defaults, batch mode, and what the plan says when the pick is near a target or nothing meets
// it. On an in-memory catalog with the shipped calibration (data/calibration.csv); prices are test
// inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpuplan/plan.h"
#include "serving/search.h"
#include "testing/catalog_builder.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::planner {
namespace {

using testing::CatalogBuilder;

constexpr char kA100x8[] = "ecs.ebmgn7ex.32xlarge";

const Catalog& EightA100() {
  static const Catalog* c = new Catalog(CatalogBuilder()
                                            .AddGpu(testing::GpuA100())
                                            .AddInstance(testing::Ebmgn7ex32xlarge())
                                            .AddPrice(kA100x8, "cn-hangzhou", Billing::kPayg, 250)
                                            .Build());
  return *c;
}

// A chat service of Llama 3 70B on eight A100s (the expert's example): at the engine's largest
// batch a token takes far longer than a reader waits.
Workload Chat() {
  Workload w;
  w.task = Task::kInference;
  w.model_name = "llama-3-70b";
  w.inference.requests_per_s = 4;
  w.constraints.regions = {"cn-hangzhou"};
  return w;
}

Plan PlanOn(const Workload& w) {
  PlanOptions options;
  options.today = "2026-11-30";
  Result<Plan> plan =
      MakePlan(w, testing::Llama3_70B(), EightA100(), testing::EmbeddedCalibration(), options);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? *plan : Plan{};
}

bool HasNote(const Plan& p, const std::string& text) {
  return std::any_of(p.notes.begin(), p.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

bool HasAdvice(const Candidate& c, const std::string& rule) {
  return std::any_of(c.advice.begin(), c.advice.end(),
                     [&](const rules::Advice& a) { return a.rule == rule; });
}

TEST(ServingLatencyTest, TargetsInForce) {
  const Calibration& cal = testing::EmbeddedCalibration();
  struct Case {
    const char* name;
    Workload w;
    LatencyMode mode;
    std::optional<double> ttft, tpot;
    bool ttft_default, tpot_default;
  };
  Workload offline = Chat();
  offline.inference.requests_per_s.reset();
  offline.samples = 1e6;
  Workload offline_interactive = offline;
  offline_interactive.inference.latency = LatencyMode::kInteractive;
  Workload own_tpot = Chat();
  own_tpot.inference.tpot_ms = 150;
  Workload none = Chat();
  none.inference.latency = LatencyMode::kBatch;
  Workload encoder = Chat();
  encoder.inference.output_tokens = 0;
  Workload training = Chat();
  training.task = Task::kFinetune;
  const Case kCases[] = {
      {"a_service_gets_both_defaults", Chat(), LatencyMode::kInteractive, 2000, 100, true, true},
      {"an_offline_job_gets_none", offline, LatencyMode::kBatch, {}, {}, false, false},
      {"interactive_offline_job_gets_them", offline_interactive, LatencyMode::kInteractive, 2000,
       100, true, true},
      {"a_given_target_stays_the_other_defaults", own_tpot, LatencyMode::kInteractive, 2000, 150,
       true, false},
      {"latency_none_is_batch_mode", none, LatencyMode::kBatch, {}, {}, false, false},
      {"no_tokens_generated_no_default", encoder, LatencyMode::kInteractive, {}, {}, false, false},
      {"training_has_no_targets", training, LatencyMode::kBatch, {}, {}, false, false},
  };
  EXPECT_EQ(cal.interactive_ttft_ms, 2000) << "data/calibration.csv interactive_ttft_ms";
  EXPECT_EQ(cal.interactive_tpot_ms, 100) << "data/calibration.csv interactive_tpot_ms";
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const LatencyTargets t = ServingTargets(c.w, cal);
    EXPECT_EQ(t.mode, c.mode);
    EXPECT_EQ(t.ttft_ms, c.ttft);
    EXPECT_EQ(t.tpot_ms, c.tpot);
    EXPECT_EQ(t.ttft_default, c.ttft_default);
    EXPECT_EQ(t.tpot_default, c.tpot_default);
  }
  EXPECT_EQ(ParseLatencyMode("none"), LatencyMode::kBatch) << "'none' spells batch";
  EXPECT_EQ(ParseLatencyMode("Interactive"), LatencyMode::kInteractive);
}

TEST(ServingLatencyTest, TheDefaultTargetMovesThePickOffTheThroughputBatch) {
  Workload batch = Chat();
  batch.inference.latency = LatencyMode::kBatch;
  const Plan throughput = PlanOn(batch);
  const Plan interactive = PlanOn(Chat());
  ASSERT_FALSE(throughput.candidates.empty());
  ASSERT_FALSE(interactive.candidates.empty());
  const Candidate& fast = throughput.candidates[0];
  const Candidate& chat = interactive.candidates[0];
  ASSERT_TRUE(fast.estimate.inference && chat.estimate.inference);
  // The case: the cheapest setup without a target runs a large batch a reader cannot follow.
  ASSERT_GT(fast.estimate.inference->tpot_ms, 100);
  EXPECT_LE(chat.estimate.inference->tpot_ms, 100) << "held to the interactive default";
  EXPECT_LT(chat.estimate.inference->batch, fast.estimate.inference->batch);
  EXPECT_GE(chat.nodes, fast.nodes) << "a smaller batch needs at least as many copies";
  EXPECT_GE(chat.monthly->per_month.amount(), fast.monthly->per_month.amount());
  EXPECT_TRUE(HasNote(interactive, "latency: held to TTFT <= 2000 ms and TPOT <= 100 ms"));
  EXPECT_NE(chat.why.find("within TTFT <= 2000 ms and TPOT <= 100 ms"), std::string::npos)
      << chat.why;
  // Batch mode keeps the throughput pick and says it is not for a person reading the stream.
  EXPECT_FALSE(HasNote(throughput, "latency: held to"));
  EXPECT_TRUE(HasAdvice(fast, "latency-batch-only"));
}

TEST(ServingLatencyTest, NoneKeepsTheThroughputPickOfTheServingSearch) {
  Workload none = Chat();
  none.inference.latency = LatencyMode::kBatch;
  const Plan p = PlanOn(none);
  ASSERT_FALSE(p.candidates.empty());
  // The serving search with no target at all, on the same hardware (one instance per copy group).
  Result<perf::Hardware> hw = perf::HardwareFor(EightA100(), *EightA100().FindInstance(kA100x8), 1);
  ASSERT_TRUE(hw.ok());
  int evaluated = 0;
  const serving::ServingSetup s = serving::SearchServing(
      none, testing::Llama3_70B(), *hw, testing::EmbeddedCalibration(), &evaluated);
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(p.candidates[0].estimate.inference->batch, s.estimate.inference->batch);
  EXPECT_EQ(p.candidates[0].layout.tp, s.layout.tp);
  EXPECT_EQ(p.candidates[0].nodes, s.groups);
}

TEST(ServingLatencyTest, NoConfigurationMeetsATargetSaysWhatWould) {
  struct Case {
    const char* name;
    double ttft_ms, tpot_ms;  // 0 = the default
    const char* missed;
  };
  const Case kCases[] = {
      {"tpot_below_any_setup", 0, 2, "TPOT <= 2 ms"},
      {"ttft_below_any_setup", 1, 0, "TTFT <= 1 ms"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w = Chat();
    if (c.ttft_ms > 0)
      w.inference.ttft_ms = c.ttft_ms;
    if (c.tpot_ms > 0)
      w.inference.tpot_ms = c.tpot_ms;
    const Plan p = PlanOn(w);
    EXPECT_TRUE(p.candidates.empty());
    ASSERT_EQ(p.rejected.size(), 1u);
    EXPECT_NE(p.rejected[0].reason.find("misses " + std::string(c.missed)), std::string::npos)
        << "a latency miss, not a memory problem: " << p.rejected[0].reason;
    EXPECT_EQ(p.rejected[0].reason.find("GiB per GPU"), std::string::npos) << p.rejected[0].reason;
    const std::string want = std::string("latency: no configuration meets");
    auto note = std::find_if(p.notes.begin(), p.notes.end(), [&](const std::string& n) {
      return n.find(want) != std::string::npos;
    });
    ASSERT_NE(note, p.notes.end());
    EXPECT_NE(note->find("the fastest seen"), std::string::npos) << *note;
    EXPECT_NE(note->find(kA100x8), std::string::npos) << "where it was seen: " << *note;
    EXPECT_NE(note->find("more GPUs per copy"), std::string::npos) << *note;
    EXPECT_NE(note->find("more memory bandwidth"), std::string::npos) << *note;
    EXPECT_NE(note->find("--weight-bits 8|4"), std::string::npos) << "quantization: " << *note;
  }
}

TEST(ServingLatencyTest, APickCloseToItsTargetIsFlagged) {
  // The interactive pick's own TPOT, made the target: met, with no room left.
  const Plan interactive = PlanOn(Chat());
  ASSERT_FALSE(interactive.candidates.empty());
  Workload tight = Chat();
  tight.inference.tpot_ms = interactive.candidates[0].estimate.inference->tpot_ms * 1.01;
  const Plan p = PlanOn(tight);
  ASSERT_FALSE(p.candidates.empty());
  EXPECT_LE(p.candidates[0].estimate.inference->tpot_ms, *tight.inference.tpot_ms);
  EXPECT_TRUE(HasAdvice(p.candidates[0], "latency-near-target"));
  EXPECT_FALSE(HasAdvice(interactive.candidates[0], "latency-over-target"));
}

}  // namespace
}  // namespace gpuplan::planner
