#include "io/uncertainty_csv.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpuplan::io {
namespace {

constexpr char kHeader[] =
    "# model_hash: 0123456789abcdef\n# commit: abc\n# sources: a.csv\n# min_rows: 3\n"
    "# min_sources: 1\nregime,rows,sources,p10,p50,p90,from,from_rows\n";

TEST(UncertaintyCsvTest, WriteThenParseGivesTheSameTable) {
  uncertainty::Table t = uncertainty::Fit(
      {{{"time", "lora"}, 0.9, "s"}, {{"time", "lora"}, 1.1, "s"}, {{"time", "full"}, 1.3, "t"}}, 2,
      1);
  t.model_hash = "feedfacecafebeef";
  t.commit = "0000000";
  t.sources = "a.csv b.csv";
  Result<uncertainty::Table> back = ParseUncertainty(WriteUncertainty(t), "u.csv");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->model_hash, t.model_hash);
  EXPECT_EQ(back->sources, t.sources);
  EXPECT_EQ(back->min_rows, 2);
  ASSERT_EQ(back->regimes.size(), t.regimes.size());
  EXPECT_EQ(back->regimes.at("time/full").from, "time");
  // The p50 of one source's 0.9 and 1.1 is their geometric mean (the centre is in log ratio).
  EXPECT_NEAR(back->regimes.at("time/lora").p50, std::sqrt(0.9 * 1.1), 1e-4);
  EXPECT_NEAR(back->regimes.at("time/lora").p90, t.regimes.at("time/lora").p90, 1e-4);
}

struct BadCase {
  const char* name;
  std::string text;
  const char* message;
};

class UncertaintyCsvBadTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(UncertaintyCsvBadTest, SaysWhatIsWrong) {
  Result<uncertainty::Table> t = ParseUncertainty(GetParam().text, "u.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find(GetParam().message), std::string::npos)
      << t.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, UncertaintyCsvBadTest,
    ::testing::Values(
        BadCase{"NoHash", "# min_rows: 3\nregime,rows,sources,p10,p50,p90,from,from_rows\n",
                "model_hash"},
        BadCase{"PercentilesOutOfOrder", std::string(kHeader) + "time,5,1,1.2,1.0,1.5,time,5\n",
                "p10 <= p50 <= p90"},
        BadCase{"FromNotListed", std::string(kHeader) + "time/lora,1,1,0.9,1,1.1,time,5\n",
                "not listed"},
        BadCase{"BadNumber", std::string(kHeader) + "time,5,1,x,1,1.1,time,5\n", "p10"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(UncertaintyCsvTest, EmbeddedTableLoadsWithItsRootRegimes) {
  Result<uncertainty::Table> t = LoadUncertainty();
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_TRUE(t->regimes.count("time") && t->regimes.count("memory"));
  const uncertainty::Band& time = t->regimes.at("time");
  EXPECT_LT(time.p10, 1.0);  // the model is sometimes slower and sometimes faster than the truth
  EXPECT_GT(time.p90, 1.0);
  EXPECT_GT(time.rows, 500);
}

}  // namespace
}  // namespace gpuplan::io
