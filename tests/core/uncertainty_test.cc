#include "gpuplan/uncertainty.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace gpuplan::uncertainty {
namespace {

struct PercentileCase {
  const char* name;
  std::vector<double> values;
  double q;
  double want;
};

class PercentileTest : public ::testing::TestWithParam<PercentileCase> {};

TEST_P(PercentileTest, InterpolatesBetweenClosestRanks) {
  std::vector<double> v = GetParam().values;
  EXPECT_NEAR(Percentile(v, GetParam().q), GetParam().want, 1e-12);
}

// numpy.percentile(values, 100 q) with its default (linear) method.
INSTANTIATE_TEST_SUITE_P(
    Cases, PercentileTest,
    ::testing::Values(PercentileCase{"OneValue", {2.5}, 0.9, 2.5},
                      PercentileCase{"P10OfFive", {5, 1, 4, 2, 3}, 0.1, 1.4},
                      PercentileCase{"MedianOfFive", {5, 1, 4, 2, 3}, 0.5, 3},
                      PercentileCase{"P90OfFive", {5, 1, 4, 2, 3}, 0.9, 4.6},
                      PercentileCase{"MedianOfFourIsMidpoint", {1, 2, 3, 10}, 0.5, 2.5},
                      PercentileCase{"P90OfTen", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9, 9.1},
                      PercentileCase{"Extremes", {3, 1, 2}, 1.0, 3}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

std::vector<Sample> Samples(std::vector<std::string> path, std::vector<double> ratios,
                            const std::string& source) {
  std::vector<Sample> out;
  for (double r : ratios)
    out.push_back({path, r, source});
  return out;
}

TEST(UncertaintyFitTest, ThinRegimeTakesItsParentsPercentilesAndSaysSo) {
  std::vector<Sample> s = Samples({"time", "lora", "Ampere"}, {1, 1.1, 1.2, 1.3, 1.4}, "a");
  for (const Sample& x : Samples({"time", "lora", "Turing"}, {2.0, 2.2}, "b"))
    s.push_back(x);
  const Table t = Fit(s, /*min_rows=*/4, /*min_sources=*/1);
  const Band& turing = t.regimes.at("time/lora/Turing");
  EXPECT_EQ(turing.rows, 2);
  EXPECT_TRUE(turing.FellBack());
  EXPECT_EQ(turing.from, "time/lora");
  EXPECT_EQ(turing.from_rows, 7);
  const Band& lora = t.regimes.at("time/lora");
  EXPECT_DOUBLE_EQ(turing.p90, lora.p90);
  const Band& ampere = t.regimes.at("time/lora/Ampere");
  EXPECT_FALSE(ampere.FellBack());
  EXPECT_NEAR(ampere.p50, 1.2, 0.02);  // the middle run, smeared by a one-source offset
}

// A regime with runs enough but sources too few keeps its ancestor's band where its own runs
// scatter less, and widens to their p10-p90 where they scatter more; one with too few runs
// takes the ancestor's as it is.
TEST(UncertaintyFitTest, ThinRegimeWidensToItsOwnRunsWhenTheyScatterWider) {
  std::vector<Sample> s;
  for (int i = 0; i < 6; ++i)  // a well-predicted architecture from six sources
    for (const Sample& x :
         Samples({"time", "pretrain", "Hopper"}, {0.95, 1.0, 1.05}, "h" + std::to_string(i)))
      s.push_back(x);
  // Ten runs from one source, 0.4 to 2.2 (p10 0.49, p90 1.84 by linear ranks)
  for (const Sample& x : Samples({"time", "pretrain", "Blackwell"},
                                 {0.4, 0.5, 0.6, 0.8, 1.0, 1.0, 1.2, 1.5, 1.8, 2.2}, "b"))
    s.push_back(x);
  for (const Sample& x : Samples({"time", "pretrain", "Volta"}, {0.5, 2.0}, "v"))
    s.push_back(x);
  const Table t = Fit(s, /*min_rows=*/10, /*min_sources=*/4);
  const Band& parent = t.regimes.at("time/pretrain");
  const Band& blackwell = t.regimes.at("time/pretrain/Blackwell");
  EXPECT_TRUE(blackwell.FellBack());
  EXPECT_NEAR(blackwell.p10, 0.49, 1e-9);
  EXPECT_NEAR(blackwell.p90, 1.84, 1e-9);
  EXPECT_GT(blackwell.p90, parent.p90);
  const Band& hopper = t.regimes.at("time/pretrain/Hopper");
  EXPECT_FALSE(hopper.FellBack());                          // six sources: its own band
  const Band& volta = t.regimes.at("time/pretrain/Volta");  // two runs: the parent's as is
  EXPECT_DOUBLE_EQ(volta.p10, parent.p10);
  EXPECT_DOUBLE_EQ(volta.p90, parent.p90);
}

TEST(UncertaintyFitTest, RegimeFromOneSourceFallsBackWhenTwoAreRequired) {
  std::vector<Sample> s = Samples({"time", "pretrain"}, {1, 1, 1, 1, 1}, "only-source");
  for (const Sample& x : Samples({"time", "decode"}, {0.5, 1.5, 0.5, 1.5}, "other"))
    s.push_back(x);
  const Table t = Fit(s, /*min_rows=*/2, /*min_sources=*/2);
  EXPECT_EQ(t.regimes.at("time/pretrain").from, "time");
  EXPECT_EQ(t.regimes.at("time/pretrain").sources, 1);
  EXPECT_FALSE(t.regimes.at("time").FellBack());  // the root always keeps its own
}

// Three sources that each measured the same error three times: pooled, the ratios span
// 0.8..1.25; for a fourth source the band must be wider. With no spread within a source the
// between-source variance is the variance of the sources' log means, tau^2 = (log 1.25)^2; the
// centre (equal weights) is known to tau^2 / 3, and with three sources the new source's offset
// widens by t(0.9, 2) / z(0.9): p90 = exp(t(0.9, 2) sqrt(4/3) log 1.25).
TEST(UncertaintyFitTest, BandIsForANewSourceFromTheSpreadBetweenSources) {
  std::vector<Sample> s = Samples({"time"}, {0.8, 0.8, 0.8}, "a");
  for (const Sample& x : Samples({"time"}, {1.0, 1.0, 1.0}, "b"))
    s.push_back(x);
  for (const Sample& x : Samples({"time"}, {1.25, 1.25, 1.25}, "c"))
    s.push_back(x);
  const Band b = Fit(s, /*min_rows=*/1, /*min_sources=*/1)
                     .regimes.at("time");  // a copy: Fit returns a temporary
  const double half_width = 1.886 * std::sqrt(4.0 / 3.0) * std::log(1.25);
  EXPECT_NEAR(b.p50, 1.0, 1e-9);
  EXPECT_NEAR(b.p90, std::exp(half_width), 1e-4);  // z(0.9) is taken as 1.2816
  EXPECT_NEAR(b.p10, std::exp(-half_width), 1e-4);
  EXPECT_GT(b.p90, 1.6);  // the pooled p90 would be 1.25
}

// Sources that agree with each other give a band of their own spread only: ten sources whose
// runs scatter alike around the same centre have no spread between them beyond chance.
TEST(UncertaintyFitTest, AgreeingSourcesGiveTheSpreadWithinThem) {
  std::vector<Sample> s;
  for (int i = 0; i < 10; ++i)
    for (const Sample& x : Samples({"time"}, {0.9, 1.0, 1.0 / 0.9}, "s" + std::to_string(i)))
      s.push_back(x);
  const Band b = Fit(s, 1, 1).regimes.at("time");
  EXPECT_NEAR(b.p50, 1.0, 0.01);
  EXPECT_GT(b.p90, 1.0 / 0.9 - 0.01);  // the within-source spread, smeared by the centre's
  EXPECT_LT(b.p90, 1.15);              // uncertainty, not widened by a between-source term
}

// The same spread from more sources is known better: the band narrows towards the residuals'
// own percentiles as t approaches the normal.
TEST(UncertaintyFitTest, MoreSourcesGiveANarrowerBand) {
  auto band_of = [](int sources) {
    std::vector<Sample> s;
    for (int i = 0; i < sources; ++i)
      for (const Sample& x : Samples({"time"}, {i % 2 == 0 ? 0.8 : 1.25}, "s" + std::to_string(i)))
        s.push_back(x);
    return Fit(s, 1, 1).regimes.at("time");
  };
  const Band few = band_of(4), many = band_of(40);
  EXPECT_GT(few.p90 / few.p10, many.p90 / many.p10);
  EXPECT_GT(many.p90, 1.25);  // still wider than the pooled spread
  EXPECT_LT(many.p90, 1.35);
}

TEST(UncertaintyLookupTest, UnseenRegimeUsesTheNearestAncestor) {
  const Table t = Fit(Samples({"time", "lora"}, {0.9, 1.0, 1.1}, "a"), 1, 1);
  const Band b = Lookup(t, {"time", "lora", "Blackwell", "1node", "dense"});
  EXPECT_EQ(b.regime, "time/lora/Blackwell/1node/dense");
  EXPECT_EQ(b.from, "time/lora");
  EXPECT_EQ(b.rows, 0);
  EXPECT_TRUE(b.FellBack());
  const Band none = Lookup(Table{}, {"time", "lora"});
  EXPECT_EQ(none.from, "none");
  EXPECT_DOUBLE_EQ(none.p90, 1);
}

TEST(UncertaintyBandTest, PercentileAndChanceAreInverse) {
  Band b;
  b.p10 = 0.8, b.p50 = 1.0, b.p90 = 1.6;
  EXPECT_DOUBLE_EQ(b.At(0.5), 1.0);
  EXPECT_DOUBLE_EQ(b.At(0.9), 1.6);
  EXPECT_DOUBLE_EQ(b.At(0.7), 1.3);
  EXPECT_DOUBLE_EQ(b.At(0.3), 0.9);
  EXPECT_DOUBLE_EQ(b.ChanceAtMost(1.3), 0.7);
  EXPECT_DOUBLE_EQ(b.ChanceAtMost(5), 0.9);    // "at least 90%"
  EXPECT_DOUBLE_EQ(b.ChanceAtMost(0.1), 0.1);  // "at most 10%"
}

TEST(UncertaintyRegimeTest, NamesTaskArchitectureScaleAndDensity) {
  Gpu a10;
  a10.name = "A10-24G";
  a10.architecture = "Ampere";
  perf::Hardware hw;
  hw.gpu = &a10;
  hw.nodes = 2;
  hw.rdma = false;
  Workload w;
  w.task = Task::kFinetune;
  w.method = Method::kLora;
  ModelArch arch;
  EXPECT_EQ(Join(TimeRegime(w, arch, hw)), "time/lora/Ampere/multinode-tcp/dense");
  w.task = Task::kInference;
  w.inference.engine = Engine::kVllm;
  EXPECT_EQ(Join(MemoryRegime(w, arch, hw)), "memory/serving/Ampere/vllm/dense");
  w.inference.engine = Engine::kHf;
  w.inference.output_tokens = 0;
  EXPECT_EQ(Join(TimeRegime(w, arch, hw)), "time/prefill/Ampere/hf/dense");
}

}  // namespace
}  // namespace gpuplan::uncertainty
