#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/cli_runner.h"

namespace gpuplan {
namespace {

using testing::RunGpuplan;

struct FilterCase {
  const char* name;
  std::vector<std::string> args;
  size_t min_rows;  // at least this many types match
  bool (*every)(const nlohmann::json& row);
};

TEST(CatalogCommandTest, FiltersKeepOnlyMatchingTypes) {
  const FilterCase kCases[] = {
      {"gpu_alias",
       {"--gpu", "A10"},
       10,
       [](const nlohmann::json& r) { return r["gpu"] == "A10-24G"; }},
      {"min_gpu_memory",
       {"--min-gpu-memory", "40"},
       20,
       [](const nlohmann::json& r) { return r["gpu_memory_gib"].get<double>() >= 40; }},
      {"min_gpus",
       {"--min-gpus", "8"},
       15,
       [](const nlohmann::json& r) { return r["gpu_count"].get<double>() >= 8; }},
      {"rdma", {"--rdma"}, 15, [](const nlohmann::json& r) { return r["rdma"].get<bool>(); }},
      {"family",
       {"--family", "gn7i"},
       10,
       [](const nlohmann::json& r) { return r["family"] == "gn7i"; }},
      {"status",
       {"--status", "preview"},
       5,
       [](const nlohmann::json& r) { return r["status"] == "preview"; }},
      {"region",
       {"--region", "cn-hangzhou"},
       20,
       [](const nlohmann::json& r) { return r["payg_price"]["region"] == "cn-hangzhou"; }},
      {"combined",
       {"--min-gpus", "8", "--rdma", "--min-gpu-memory", "80"},
       1,
       [](const nlohmann::json& r) {
         return r["name"] == "ecs.ebmgn7ex.32xlarge" || r["name"] == "ecs.sccgn7ex.32xlarge" ||
                r["gpu_memory_gib"] == 96;
       }},
  };
  for (const FilterCase& c : kCases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = {"catalog", "instances", "--json"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto run = RunGpuplan(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    auto rows = nlohmann::json::parse(run.out);
    EXPECT_GE(rows.size(), c.min_rows);
    for (const auto& row : rows)
      EXPECT_TRUE(c.every(row)) << row["name"];
  }
}

TEST(CatalogCommandTest, JsonHasTheContractFields) {
  auto run = RunGpuplan({"catalog", "instances", "--json"});
  ASSERT_EQ(run.exit_code, 0);
  auto rows = nlohmann::json::parse(run.out);
  ASSERT_GE(rows.size(), 118u);
  for (const char* key : {"name", "family", "gpu", "gpu_count", "gpu_memory_gib", "vcpu",
                          "memory_gib", "network_gbps", "rdma", "status"}) {
    EXPECT_TRUE(rows[0].contains(key)) << key;
  }
  run = RunGpuplan({"catalog", "gpus", "--json"});
  ASSERT_EQ(run.exit_code, 0);
  rows = nlohmann::json::parse(run.out);
  for (const auto& g : rows) {
    SCOPED_TRACE(g["name"].get<std::string>());
    EXPECT_TRUE(g.contains("memory_gib") && g.contains("memory_bandwidth_gbs"));
    ASSERT_TRUE(g["tflops"].is_object());
    for (const auto& [precision, v] : g["tflops"].items()) {
      EXPECT_TRUE(precision == "fp64" || precision == "fp32" || precision == "tf32" ||
                  precision == "bf16" || precision == "fp16" || precision == "fp8" ||
                  precision == "int8")
          << precision;
      EXPECT_GT(v.get<double>(), 0);
    }
  }
  // T4 has no BF16 unit: the key is absent, not 0.
  auto t4 =
      std::find_if(rows.begin(), rows.end(), [](const auto& g) { return g["name"] == "T4-16G"; });
  ASSERT_NE(t4, rows.end());
  EXPECT_FALSE((*t4)["tflops"].contains("bf16"));
}

TEST(CatalogCommandTest, OutputFormatsMatchGoldenFiles) {
  struct Golden {
    const char* file;
    std::vector<std::string> args;
  };
  const Golden kCases[] = {
      {"catalog_instances_gn7e.txt", {"catalog", "instances", "--family", "gn7e"}},
      {"catalog_instances_gn7e.csv", {"catalog", "instances", "--family", "gn7e", "--csv"}},
      {"catalog_instances_gn7e.json", {"catalog", "instances", "--family", "gn7e", "--json"}},
      {"catalog_show_gn7i_c8g1_2xlarge.txt", {"catalog", "show", "ecs.gn7i-c8g1.2xlarge"}},
      {"catalog_families.txt", {"catalog", "families"}},
  };
  for (const Golden& g : kCases) {
    SCOPED_TRACE(g.file);
    auto run = RunGpuplan(g.args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    testing::ExpectGolden(g.file, run.out);
  }
}

struct ErrorCase {
  const char* name;
  std::vector<std::string> args;
  int exit_code;
  const char* want_err;
};

TEST(CatalogCommandTest, UnknownNamesFailWithSuggestions) {
  const ErrorCase kCases[] = {
      // The answers are families.csv's sourced corrections.
      {"article_confusion",
       {"catalog", "show", "gn7-m20"},
       1,
       "gn7-m10/gn7-m20 do not exist; the 80 GB A100-class types are gn7e, ebmgn7e and ebmgn7ex"},
      {"no_such_type_size",
       {"catalog", "show", "ecs.gn7-lc4.2xlarge"},
       1,
       "4 x L20 is ecs.gn8is-4x.16xlarge, not ecs.gn7-lc4.2xlarge"},
      {"no_such_family_in_a_type",
       {"catalog", "show", "gn7v-c8g1.2xlarge"},
       1,
       "There is no gn7v or gn8i"},
      {"gn5_is_not_v100",
       {"catalog", "show", "ecs.gn5-i4.2xlarge"},
       1,
       "ecs.gn5-i4.2xlarge does not exist: the 4-GPU gn5 type is ecs.gn5-c8g1.8xlarge"},
      {"two_families_answer",
       {"catalog", "show", "gn6v-c4g1.xlarge"},
       1,
       "the smallest gn6v is ecs.gn6v-c8g1.2xlarge. T4 is gn6i (not gn6v)."},
      {"typo_gets_did_you_mean",
       {"catalog", "show", "ecs.gn7i-c8g1.4xlarge"},
       1,
       "did you mean ecs.gn7i-"},
      {"no_gni_family", {"catalog", "show", "gni"}, 1, "There is no 'gni' family"},
      {"unknown_gpu_filter",
       {"catalog", "instances", "--gpu", "H2OO"},
       2,
       "--gpu: unknown GPU \"H2OO\""},
      {"bad_status", {"catalog", "instances", "--status", "old"}, 2, "--status: expected current"},
      {"bad_flag", {"catalog", "instances", "--bogus"}, 2, "Run 'gpuplan --help'"},
      {"missing_overlay",
       {"--catalog", "/nonexistent", "catalog", "gpus"},
       1,
       "is not a directory"},
  };
  for (const ErrorCase& c : kCases) {
    SCOPED_TRACE(c.name);
    auto run = RunGpuplan(c.args);
    EXPECT_EQ(run.exit_code, c.exit_code);
    EXPECT_NE(run.err.find(c.want_err), std::string::npos) << run.err;
  }
}

TEST(CatalogCommandTest, ShowSaysPriceUnknownRatherThanZero) {
  auto run = RunGpuplan({"catalog", "show", "ecs.gn9gc.4xlarge"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("price unknown"), std::string::npos);
  EXPECT_NE(run.out.find("preview"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan
