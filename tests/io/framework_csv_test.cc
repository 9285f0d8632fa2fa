// data/frameworks.csv: the parser's good rows and each bad-row error (file:line, field), and
// the shipped table's facts that the planner's answers rest on.
#include "io/framework_csv.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace gpuplan::io {
namespace {

constexpr char kHeader[] =
    "# a comment\n"
    "name,label,launcher,full,lora,qlora,tp,sequence_parallel,cp,pp,vp,ep,zero_stages,"
    "zero_stages_model_parallel,offload_optimizer,offload_params,optimizer_in_backward,"
    "activation_offload,selective_recompute,optimizer_8bit,attention_kernel,main_grads,"
    "selective_policy,zero3_fetch,cross_entropy,source,checked,note\n";
// A good data-parallel row and a good model-parallel row.
constexpr char kDp[] =
    "dp,Data parallel,accelerate,yes,yes,yes,no,no,no,no,no,no,0 1 2 "
    "3,,yes,yes,no,no,no,yes,flash2,param,attention,module,fp32,"
    "https://example.org/dp,2026-12-01,\"a note, with a comma\"\n";
constexpr char kMp[] =
    "mp,Model parallel,torchrun,yes,no,no,yes,yes,yes,yes,yes,yes,0 "
    "1,0,no,no,no,yes,yes,no,cudnn,fp32,matmuls,layer,fused,"
    "https://example.org/mp,2026-11-30,\n";

TEST(FrameworkCsvTest, GoodRowsParseWithEveryCapability) {
  Result<FrameworkTable> t = ParseFrameworks(std::string(kHeader) + kDp + kMp, "f.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->rows.size(), 2u);
  const Framework& dp = t->rows[0];
  EXPECT_EQ(dp.name, "dp");
  EXPECT_EQ(dp.launcher, "accelerate");
  EXPECT_TRUE(dp.caps.qlora);
  EXPECT_FALSE(dp.caps.tp);
  EXPECT_EQ(dp.caps.zero_stages, 0b1111u);
  EXPECT_EQ(dp.caps.zero_stages_model_parallel, 0u);
  EXPECT_TRUE(dp.caps.offload_params);
  EXPECT_TRUE(dp.caps.optimizer_8bit);
  EXPECT_FALSE(dp.caps.selective_recompute);
  EXPECT_EQ(dp.note, "a note, with a comma");
  EXPECT_EQ(dp.attention_kernel, AttentionKernel::kFlash2);
  const Framework& mp = t->rows[1];
  EXPECT_TRUE(mp.caps.vp);
  EXPECT_TRUE(mp.caps.activation_offload);
  EXPECT_TRUE(mp.caps.selective_recompute);
  EXPECT_EQ(mp.caps.zero_stages, 0b0011u);
  EXPECT_EQ(mp.caps.zero_stages_model_parallel, 0b0001u);
  EXPECT_EQ(mp.checked, "2026-11-30");
  EXPECT_EQ(mp.attention_kernel, AttentionKernel::kCudnn);
  EXPECT_FALSE(dp.fp32_main_grads);
  EXPECT_TRUE(mp.fp32_main_grads);
  EXPECT_FALSE(dp.selective_keeps_matmuls);
  EXPECT_TRUE(mp.selective_keeps_matmuls);
  EXPECT_TRUE(dp.zero3_fetches_modules);
  EXPECT_FALSE(mp.zero3_fetches_modules);
  EXPECT_EQ(dp.cross_entropy, CrossEntropy::kFp32);
  EXPECT_EQ(mp.cross_entropy, CrossEntropy::kFused);
  EXPECT_EQ(t->Find("MP"), &t->rows[1]);
  EXPECT_EQ(t->Find("auto"), nullptr);
  EXPECT_EQ(t->Names(), "dp, mp");
}

// `row` (a good row above) with its fields (0-based: 3 = full, 12 = zero_stages ...) replaced.
std::string With(std::string row, const std::vector<std::pair<int, std::string>>& fields) {
  for (const auto& [nth, value] : fields) {
    size_t begin = 0;
    for (int i = 0; i < nth; ++i)
      begin = row.find(',', begin) + 1;
    row.replace(begin, row.find(',', begin) - begin, value);
  }
  return row;
}
std::string DpWith(int nth, const std::string& value) { return With(kDp, {{nth, value}}); }

TEST(FrameworkCsvTest, EachBadRowNamesFileLineAndField) {
  struct Case {
    std::string name;
    std::string rows;
    std::string want;  // a part of the message
    std::string field;
  };
  const Case kCases[] = {
      {"yes_no_misspelt", DpWith(6, "maybe"), "f.csv:3:", "tp"},
      {"zero_stage_out_of_range", DpWith(12, "0 4"), "expected ZeRO stages 0 to 3", "zero_stages"},
      {"zero_without_plain_dp", DpWith(12, "1 2"), "must include 0", "zero_stages"},
      {"model_parallel_stages_without_tp_pp", DpWith(13, "0"), "must be empty when tp and pp",
       "zero_stages_model_parallel"},
      {"model_parallel_stages_not_a_subset", With(kMp, {{13, "0 2"}}), "subset of zero_stages",
       "zero_stages_model_parallel"},
      {"model_parallel_stages_without_plain_dp", With(kMp, {{13, "1"}}), "must include 0 when tp",
       "zero_stages_model_parallel"},
      {"sequence_parallel_without_tp", DpWith(7, "yes"), "needs tp yes", "sequence_parallel"},
      {"vp_without_pp", DpWith(10, "yes"), "needs pp yes", "vp"},
      {"no_method", With(kDp, {{3, "no"}, {4, "no"}, {5, "no"}}), "must run full, lora or qlora",
       "full"},
      {"name_auto_is_reserved", DpWith(0, "auto"), "other than \"auto\"", "name"},
      {"name_upper_case", DpWith(0, "Peft"), "lower-case name", "name"},
      {"selective_recompute_misspelt", DpWith(18, "partly"), "f.csv:3:", "selective_recompute"},
      {"attention_kernel_unknown", DpWith(20, "flash3"), "f.csv:3:", "attention_kernel"},
      {"main_grads_unknown", DpWith(21, "fp16"), "f.csv:3:", "main_grads"},
      {"selective_policy_unknown", DpWith(22, "layers"), "f.csv:3:", "selective_policy"},
      {"zero3_fetch_unknown", DpWith(23, "tensor"), "f.csv:3:", "zero3_fetch"},
      {"cross_entropy_unknown", DpWith(24, "liger"), "f.csv:3:", "cross_entropy"},
      {"missing_source", DpWith(25, ""), "f.csv:3:", "source"},
      {"source_not_a_url", DpWith(25, "the docs"), "docs URL", "source"},
      {"checked_not_a_date", DpWith(26, "Dec 2026"), "expected a date YYYY-MM-DD", "checked"},
      {"listed_twice", std::string(kDp) + kDp, "listed twice", "name"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<FrameworkTable> t = ParseFrameworks(std::string(kHeader) + c.rows, "f.csv");
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.status().message().find(c.want), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find("field \"" + c.field + "\""), std::string::npos)
        << t.status().message();
    EXPECT_EQ(t.status().location().file, "f.csv");
    EXPECT_GE(t.status().location().line, 3);
    EXPECT_EQ(t.status().location().field, c.field);
  }
  // A missing column and an empty table are errors too.
  EXPECT_FALSE(ParseFrameworks("name,label\npeft,x\n", "f.csv").ok());
  Result<FrameworkTable> empty = ParseFrameworks(kHeader, "f.csv");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no frameworks listed"), std::string::npos);
}

TEST(FrameworkCsvTest, ShippedTableKeepsTheFactsThePlannerRestsOn) {
  Result<FrameworkTable> t = LoadFrameworks();
  ASSERT_TRUE(t.ok()) << t.status().message();
  struct Fact {
    std::string name;
    bool lora, qlora, tp, cp, pp, vp, selective_recompute, keeps_matmuls;
    AttentionKernel kernel;
    bool zero3_modules;
  };
  // The PEFT stack is data parallel only and the one auto picks for adapters (its ZeRO-3 is
  // DeepSpeed's, per submodule, as is DeepSpeed's own; the FSDP stacks gather per layer);
  // Megatron-Core runs every model-parallel dimension but no QLoRA, selective recomputation of the
  // attention core, and Transformer Engine's cuDNN attention (the others: FlashAttention-2 or
  // SDPA's flash backend); torchtitan's selective recomputation is its op-level policy (every other
  // matmul kept); the others checkpoint whole layers.
  constexpr AttentionKernel kFa2 = AttentionKernel::kFlash2;
  const Fact kFacts[] = {
      {"peft", true, true, false, false, false, false, false, false, kFa2, true},
      {"torchtune", true, true, false, false, false, false, false, false, kFa2, false},
      {"megatron", true, false, true, true, true, true, true, false, AttentionKernel::kCudnn,
       false},
      {"torchtitan", false, false, true, true, true, true, true, true, kFa2, false},
      {"deepspeed", false, false, true, false, true, false, false, false, kFa2, true},
  };
  for (const Fact& f : kFacts) {
    SCOPED_TRACE(f.name);
    const Framework* row = t->Find(f.name);
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->caps.lora, f.lora);
    EXPECT_EQ(row->caps.qlora, f.qlora);
    EXPECT_EQ(row->caps.tp, f.tp);
    EXPECT_EQ(row->caps.cp, f.cp);
    EXPECT_EQ(row->caps.pp, f.pp);
    EXPECT_EQ(row->caps.vp, f.vp);
    EXPECT_EQ(row->caps.selective_recompute, f.selective_recompute);
    EXPECT_EQ(row->selective_keeps_matmuls, f.keeps_matmuls);
    EXPECT_EQ(row->attention_kernel, f.kernel);
    EXPECT_EQ(row->zero3_fetches_modules, f.zero3_modules);
    EXPECT_FALSE(row->source.empty());
    EXPECT_FALSE(row->checked.empty());
  }
  EXPECT_EQ(t->rows.front().name, "peft") << "auto's first choice for adapters";
  Workload w;
  w.task = Task::kFinetune;
  w.method = Method::kQlora;
  w.weight_bits = 4;
  ASSERT_TRUE(ResolveFrameworks(w).ok());
  ASSERT_EQ(w.frameworks.size(), 1u);
  EXPECT_EQ(w.frameworks[0].name, "peft");
  w.method = Method::kFull;
  w.weight_bits = 0;
  ASSERT_TRUE(ResolveFrameworks(w).ok());
  EXPECT_EQ(w.frameworks.size(), t->rows.size()) << "every shipped row runs full training";
}

}  // namespace
}  // namespace gpuplan::io
