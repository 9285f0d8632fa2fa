// Frameworks as capabilities: the search never returns a layout none of the workload's
// frameworks runs (brute force over the small search cases), the capability check names what
// is missing, and the `auto` rule picks the frameworks the header documents.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpuplan/framework.h"
#include "gpuplan/layout_search.h"
#include "perf/layout_search_cutoff.h"
#include "testing/embedded_calibration.h"
#include "testing/layout_cases.h"

namespace gpuplan {
namespace {

using perf::Layout;
using perf::LayoutPins;
using perf::LayoutSearch;

constexpr unsigned kAllStages = 0b1111;

// Data parallel with ZeRO 0-3 and offload: the shape of the PEFT stack.
FrameworkCaps DataParallelOnly() {
  FrameworkCaps c;
  c.full = c.lora = c.qlora = true;
  c.zero_stages = kAllStages;
  c.offload_optimizer = c.offload_params = true;
  return c;
}
// Single device or FSDP full shard, with every memory saver: torchtune's shape.
FrameworkCaps FsdpWithSavers() {
  FrameworkCaps c;
  c.full = c.lora = c.qlora = true;
  c.zero_stages = 0b1001;
  c.offload_optimizer = c.offload_params = true;
  c.optimizer_in_backward = c.activation_offload = true;
  return c;
}
// Tensor and pipeline parallel without interleaving or cp, only ZeRO 0-1 beside them.
FrameworkCaps ModelParallelLowZero() {
  FrameworkCaps c;
  c.full = c.lora = true;
  c.tp = c.sequence_parallel = c.pp = true;
  c.zero_stages = kAllStages;
  c.zero_stages_model_parallel = 0b0011;
  c.offload_optimizer = true;
  return c;
}

// Tensor parallel without Megatron's sequence parallelism (DeepSpeed AutoTP's shape).
FrameworkCaps TensorParallelWithoutSequenceParallel() {
  FrameworkCaps c = ModelParallelLowZero();
  c.sequence_parallel = false;
  return c;
}

// Model parallel with Megatron's selective recomputation.
FrameworkCaps MegatronLike() {
  FrameworkCaps c = ModelParallelLowZero();
  c.selective_recompute = true;
  return c;
}

bool AnyRuns(const std::vector<FrameworkCaps>& space, const Layout& l) {
  for (const FrameworkCaps& c : space) {
    if (Runs(c, l))
      return true;
  }
  return false;
}

TEST(FrameworkSpaceTest, SearchOnlyReturnsLayoutsAFrameworkRunsAndMatchesBruteForce) {
  struct Space {
    std::string name;
    std::vector<FrameworkCaps> frameworks;
  };
  const Space kSpaces[] = {
      {"data_parallel_only", {DataParallelOnly()}},
      {"fsdp_with_savers", {FsdpWithSavers()}},
      {"model_parallel_low_zero", {ModelParallelLowZero()}},
      {"union_of_two", {DataParallelOnly(), ModelParallelLowZero()}},
      {"selective_only_with_model_parallel", {DataParallelOnly(), MegatronLike()}},
  };
  const Calibration& cal = testing::EmbeddedCalibration();
  for (const testing::LayoutCase& c : testing::SmallLayoutCases()) {
    const perf::Hardware hw = c.Hardware();
    const LayoutSearch unrestricted = perf::SearchLayout(c.w, c.arch, hw, cal);
    for (const Space& space : kSpaces) {
      SCOPED_TRACE(c.name + " / " + space.name);
      LayoutPins pins;
      pins.frameworks = space.frameworks;
      const LayoutSearch fast = perf::SearchLayout(c.w, c.arch, hw, cal, pins);
      const LayoutSearch all = perf::ExhaustiveLayoutSearch(c.w, c.arch, hw, cal, pins);
      EXPECT_EQ(fast.ok, all.ok) << fast.reason << " / " << all.reason;
      EXPECT_EQ(fast.configurations, all.configurations) << "both cover the same space";
      if (!all.ok)
        continue;
      ASSERT_TRUE(fast.ok) << fast.reason;
      EXPECT_TRUE(AnyRuns(space.frameworks, fast.layout)) << DescribeLayout(fast.layout);
      EXPECT_TRUE(AnyRuns(space.frameworks, all.layout)) << DescribeLayout(all.layout);
      // The pick is the optimum of the restricted space too (the search estimates a heavier
      // recomputation whenever hiding more data-parallel traffic behind its longer backward
      // could win, as in 13b_two_nodes_over_tcp / data_parallel_only).
      EXPECT_NEAR(fast.estimate.time.step_s, all.estimate.time.step_s,
                  2e-6 * all.estimate.time.step_s)
          << "search " << DescribeLayout(fast.layout) << " vs exhaustive "
          << DescribeLayout(all.layout);
      // A smaller space never finds a faster layout than the whole one.
      ASSERT_TRUE(unrestricted.ok);
      EXPECT_GE(fast.estimate.time.step_s, unrestricted.estimate.time.step_s * (1 - 2e-6));
    }
  }
}

TEST(FrameworkSpaceTest, DataParallelOnlyStackNeverGetsModelParallelism) {
  // The expert's case in miniature: a 7B LoRA on 4 PCIe A10s under the PEFT stack's shape is
  // data parallel (tp = cp = pp = vp = 1) whatever is fastest in the whole space.
  const testing::LayoutCase c = testing::SmallLayoutCases()[2];
  ASSERT_EQ(c.name, "7b_lora_four_pcie_a10");
  LayoutPins pins;
  pins.frameworks = {DataParallelOnly()};
  const LayoutSearch s =
      perf::SearchLayout(c.w, c.arch, c.Hardware(), testing::EmbeddedCalibration(), pins);
  ASSERT_TRUE(s.ok) << s.reason;
  EXPECT_EQ(s.layout.tp * s.layout.cp * s.layout.pp * s.layout.vp, 1) << DescribeLayout(s.layout);
  EXPECT_EQ(s.layout.dp, 4);
  EXPECT_FALSE(s.layout.sequence_parallel);
}

TEST(FrameworkSpaceTest, SelectiveRecomputationIsSearchedOnlyWhereAFrameworkRunsIt) {
  // The 7B LoRA on four A10s without flash attention (selective recomputation drops the s x s
  // scores there): the PEFT stack's shape checkpoints whole layers only, so its space holds two
  // recomputations per micro-batch, and the same stack with Megatron's selective three.
  testing::LayoutCase c = testing::SmallLayoutCases()[2];
  ASSERT_EQ(c.name, "7b_lora_four_pcie_a10");
  c.w.flash_attention = false;
  FrameworkCaps with_selective = DataParallelOnly();
  with_selective.selective_recompute = true;
  LayoutPins full_only, all_three;
  full_only.frameworks = {DataParallelOnly()};
  all_three.frameworks = {with_selective};
  const LayoutSearch a =
      perf::SearchLayout(c.w, c.arch, c.Hardware(), testing::EmbeddedCalibration(), full_only);
  const LayoutSearch b =
      perf::SearchLayout(c.w, c.arch, c.Hardware(), testing::EmbeddedCalibration(), all_three);
  ASSERT_TRUE(a.ok && b.ok) << a.reason << " / " << b.reason;
  EXPECT_EQ(a.configurations * 3, b.configurations * 2);
  EXPECT_NE(a.layout.recompute, Recompute::kSelective) << DescribeLayout(a.layout);
  EXPECT_LE(b.estimate.time.step_s, a.estimate.time.step_s * (1 + 2e-6));
}

TEST(FrameworkSpaceTest, MissingNamesTheFirstCapabilityTheLayoutNeeds) {
  const auto with = [](auto set) {
    Layout l;
    set(l);
    return l;
  };
  struct Row {
    std::string name;
    FrameworkCaps caps;
    Layout layout;
    std::string field;  // "" = runs
    std::string says;
  };
  const Row kRows[] = {
      {"plain_dp_runs", DataParallelOnly(), with([](Layout& l) { l.dp = 4; }), "", ""},
      {"cp_on_dp_stack", DataParallelOnly(), with([](Layout& l) { l.cp = 2; }), "cp", "cp 2"},
      {"tp_before_cp", DataParallelOnly(), with([](Layout& l) {
         l.tp = 2;
         l.cp = 2;
       }),
       "tp", "tensor parallelism (tp 2)"},
      {"vp_needs_interleaving", ModelParallelLowZero(), with([](Layout& l) {
         l.pp = 2;
         l.vp = 7;
       }),
       "virtual_stages", "vp 7"},
      {"sequence_parallel_without_it", TensorParallelWithoutSequenceParallel(), with([](Layout& l) {
         l.tp = 2;
         l.sequence_parallel = true;
       }),
       "sequence_parallel", "sequence parallelism"},
      {"zero3_with_pp", ModelParallelLowZero(), with([](Layout& l) {
         l.pp = 2;
         l.zero = 3;
       }),
       "zero", "together with tensor or pipeline parallelism"},
      {"zero2_on_fsdp", FsdpWithSavers(), with([](Layout& l) { l.zero = 2; }), "zero",
       "ZeRO stage 2"},
      {"oib_on_dp_stack", DataParallelOnly(),
       with([](Layout& l) { l.optimizer_in_backward = true; }), "optimizer_in_backward",
       "optimizer step in backward"},
      {"activation_offload_on_fsdp", FsdpWithSavers(), with([](Layout& l) {
         l.activation_offload = true;
         l.zero = 3;
       }),
       "", ""},
      {"params_offload_missing", ModelParallelLowZero(),
       with([](Layout& l) { l.offload = Offload::kParams; }), "offload", "parameter offload"},
      {"selective_on_dp_stack", DataParallelOnly(),
       with([](Layout& l) { l.recompute = Recompute::kSelective; }), "recompute",
       "selective recomputation"},
      {"full_recompute_runs_everywhere", DataParallelOnly(),
       with([](Layout& l) { l.recompute = Recompute::kFull; }), "", ""},
      {"selective_on_megatron", MegatronLike(), with([](Layout& l) {
         l.tp = 2;
         l.recompute = Recompute::kSelective;
       }),
       "", ""},
  };
  for (const Row& r : kRows) {
    SCOPED_TRACE(r.name);
    const std::optional<MissingCapability> m = Missing(r.caps, r.layout);
    if (r.field.empty()) {
      EXPECT_FALSE(m) << m->what;
      continue;
    }
    ASSERT_TRUE(m);
    EXPECT_EQ(m->field, r.field);
    EXPECT_NE(m->what.find(r.says), std::string::npos) << m->what;
  }
}

FrameworkTable Table() {
  FrameworkTable t;
  const auto row = [](std::string name, FrameworkCaps caps) {
    Framework f;
    f.name = std::move(name);
    f.label = f.name + " stack";
    f.launcher = "torchrun";
    f.caps = caps;
    return f;
  };
  FrameworkCaps titan = ModelParallelLowZero();
  titan.lora = false;
  titan.cp = titan.vp = true;
  FrameworkCaps tune = FsdpWithSavers();
  tune.optimizer_8bit = true;
  FrameworkCaps adapters_only = DataParallelOnly();
  adapters_only.full = false;
  t.rows = {row("peft", adapters_only), row("tune", tune), row("titan", titan)};
  return t;
}

TEST(FrameworkSpaceTest, AutoAndNamedChoices) {
  struct Row {
    std::string name;
    Task task;
    Method method;
    Optimizer optimizer;
    std::string choice;
    std::vector<std::string> want;  // the frameworks, in order; empty with `error`
    std::string error;              // a part of the message
  };
  const Row kRows[] = {
      {"lora_auto_is_first_adapter_row",
       Task::kFinetune,
       Method::kLora,
       Optimizer::kAdamw,
       "auto",
       {"peft"},
       ""},
      {"qlora_auto", Task::kFinetune, Method::kQlora, Optimizer::kAdamw, "", {"peft"}, ""},
      {"full_auto_is_every_full_row",
       Task::kPretrain,
       Method::kFull,
       Optimizer::kAdamw,
       "AUTO",
       {"tune", "titan"},
       ""},
      {"eight_bit_optimizer_filters",
       Task::kPretrain,
       Method::kFull,
       Optimizer::kAdamw8bit,
       "auto",
       {"tune"},
       ""},
      {"named_any_case", Task::kFinetune, Method::kLora, Optimizer::kAdamw, "Tune", {"tune"}, ""},
      {"named_unknown_lists_names",
       Task::kFinetune,
       Method::kLora,
       Optimizer::kAdamw,
       "axolotl",
       {},
       "unknown framework \"axolotl\"; expected auto, peft, tune, titan"},
      {"named_without_method_lists_others",
       Task::kFinetune,
       Method::kLora,
       Optimizer::kAdamw,
       "titan",
       {},
       "does not run LoRA; frameworks that do: peft, tune"},
      {"no_row_for_8bit_lora",
       Task::kFinetune,
       Method::kLora,
       Optimizer::kAdamw8bit,
       "peft",
       {},
       "8-bit optimizer"},
      {"serving_auto_is_unrestricted",
       Task::kInference,
       Method::kFull,
       Optimizer::kAdamw,
       "auto",
       {},
       ""},
      {"serving_named_is_an_error",
       Task::kInference,
       Method::kFull,
       Optimizer::kAdamw,
       "tune",
       {},
       "applies to task pretrain or finetune"},
  };
  const FrameworkTable table = Table();
  for (const Row& r : kRows) {
    SCOPED_TRACE(r.name);
    Workload w;
    w.task = r.task;
    w.method = r.method;
    w.optimizer = r.optimizer;
    Result<std::vector<Framework>> got = FrameworksFor(table, r.choice, w);
    if (!r.error.empty()) {
      ASSERT_FALSE(got.ok());
      EXPECT_NE(got.status().message().find(r.error), std::string::npos) << got.status().message();
      EXPECT_EQ(got.status().location().field, "framework");
      continue;
    }
    ASSERT_TRUE(got.ok()) << got.status().message();
    std::vector<std::string> names;
    for (const Framework& f : *got)
      names.push_back(f.name);
    EXPECT_EQ(names, r.want);
  }
}

TEST(FrameworkSpaceTest, ThePickNamesTheFirstFrameworkThatRunsItAndWhy) {
  Workload w;
  w.task = Task::kPretrain;
  w.method = Method::kFull;
  Result<std::vector<Framework>> fw = FrameworksFor(Table(), "auto", w);
  ASSERT_TRUE(fw.ok());
  w.frameworks = *fw;  // tune, titan
  Layout dp;
  dp.dp = 8;
  dp.zero = 3;
  ASSERT_NE(FrameworkFor(w.frameworks, dp), nullptr);
  EXPECT_EQ(FrameworkFor(w.frameworks, dp)->name, "tune");
  Layout interleaved;
  interleaved.pp = 2;
  interleaved.vp = 7;
  interleaved.cp = 2;
  ASSERT_NE(FrameworkFor(w.frameworks, interleaved), nullptr);
  EXPECT_EQ(FrameworkFor(w.frameworks, interleaved)->name, "titan");
  const std::string why = FrameworkWhy(w, interleaved);
  EXPECT_NE(why.find("runs on titan"), std::string::npos) << why;
  EXPECT_NE(why.find("tune lacks context parallelism (cp 2)"), std::string::npos) << why;
  Layout nobody;
  nobody.pp = 2;
  nobody.zero = 3;
  EXPECT_EQ(FrameworkFor(w.frameworks, nobody), nullptr);
  EXPECT_EQ(FrameworkWhy(w, nobody), "");

  Workload lora;
  lora.method = Method::kLora;
  fw = FrameworksFor(Table(), "auto", lora);
  ASSERT_TRUE(fw.ok());
  lora.frameworks = *fw;
  const std::string lora_why = FrameworkWhy(lora, dp);
  EXPECT_NE(lora_why.find("runs on peft"), std::string::npos) << lora_why;
  EXPECT_NE(lora_why.find("lora fine-tuning uses the PEFT stack (--framework auto)"),
            std::string::npos)
      << lora_why;
}

}  // namespace
}  // namespace gpuplan
