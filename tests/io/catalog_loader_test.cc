#include "io/catalog_loader.h"

#include <gtest/gtest.h>

#include "testing/cli_runner.h"

namespace gpuplan::io {
namespace {

constexpr char kGpuHeader[] =
    "name,architecture,memory_gib,memory_bandwidth_gbs,fp32,bf16\n";
constexpr char kInstanceHeader[] =
    "name,family,gpu,gpu_count,gpu_memory_gib,vcpu,memory_gib,network_gbps,rdma,interconnect,status,arch\n";

struct BadFile {
  const char* name;
  std::string gpus;
  std::string instances;
  std::string prices;
  const char* want_error;
};

TEST(CatalogLoaderTest, EachKindOfMalformedRowGetsAClearError) {
  const std::string gpu_ok = std::string(kGpuHeader) + "X1,Hopper,80,3000,60,900\n";
  const std::string ih = kInstanceHeader;
  const BadFile kCases[] = {
      {"missing_column", "name,architecture,memory_gib\nX1,Hopper,80\n", "", "",
       "u/gpus.csv:1: missing column \"memory_bandwidth_gbs\" in header; required columns: "
       "name,architecture,memory_gib,memory_bandwidth_gbs"},
      {"not_a_number", std::string(kGpuHeader) + "X1,Hopper,eighty,3000,60,900\n", "", "",
       "u/gpus.csv:2:11: field \"memory_gib\": expected a number from 0.5 to 1024, got \"eighty\""},
      {"out_of_range", std::string(kGpuHeader) + "X1,Hopper,80,3000,-5,900\n", "", "",
       "u/gpus.csv:2:19: field \"fp32\": expected a number from 0.001 to 100000, got \"-5\""},
      {"required_empty", std::string(kGpuHeader) + ",Hopper,80,3000,60,900\n", "", "",
       "u/gpus.csv:2:1: field \"name\": is required and empty"},
      {"bad_enum", gpu_ok, ih + "ecs.x.large,x,X1,1,80,8,64,10,no,infiniband,current,x86_64\n", "",
       "u/instances.csv:2:34: field \"interconnect\": expected one of pcie|nvlink|nvswitch, got \"infiniband\""},
      {"bad_bool", gpu_ok, ih + "ecs.x.large,x,X1,1,80,8,64,10,maybe,pcie,current,x86_64\n", "",
       "u/instances.csv:2:31: field \"rdma\": expected yes or no, got \"maybe\""},
      {"fractional_vcpu", gpu_ok, ih + "ecs.x.large,x,X1,1,80,8.5,64,10,no,pcie,current,x86_64\n", "",
       "u/instances.csv:2:23: field \"vcpu\": expected a whole number from 1 to 1024, got \"8.5\""},
      {"bad_arch", gpu_ok, ih + "ecs.x.large,x,X1,1,80,8,64,10,no,pcie,current,sparc\n", "",
       "u/instances.csv:2:47: field \"arch\": expected x86_64 or arm64, got \"sparc\""},
      {"bad_currency", "", "",
       "instance,region,billing,currency,price,unit,as_of,trust\necs.x,cn-hangzhou,payg,EUR,1,hour,2025-01-01,high\n",
       "u/prices.csv:2:24: field \"currency\": expected one of CNY|USD, got \"EUR\""},
      {"unquoted_comma", std::string(kGpuHeader) + "X1,Hopper,80,3000,60,900,extra\n", "", "",
       "u/gpus.csv:2: expected 6 fields as in the header, got 7 (quote fields that contain commas)"},
  };
  for (const BadFile& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Catalog> r = ParseCatalog(
        {.gpus = c.gpus, .families = "", .instances = c.instances, .prices = c.prices, .dir = "u/"});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), c.want_error);
  }
}

TEST(CatalogLoaderTest, OverlayAddsAndOverridesRows) {
  Result<Catalog> c = LoadCatalog(testing::TestDataPath("overlay_ok"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  for (const CatalogIssue& issue : c->Validate()) EXPECT_FALSE(issue.error) << issue.message;
  const InstanceType* added = c->FindInstance("ecs.gn7i-c8g1.2xlarge-test");
  ASSERT_NE(added, nullptr);
  EXPECT_EQ(added->vcpu, 8);
  const Gpu* a10 = c->FindGpu("A10-24G");
  ASSERT_NE(a10, nullptr);
  EXPECT_DOUBLE_EQ(a10->memory_bandwidth_gbs, 601) << "the overlay replaces the embedded row";
}

TEST(CatalogLoaderTest, OverlayErrorsNameTheUserFile) {
  Result<Catalog> c = LoadCatalog(testing::TestDataPath("overlay_bad"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("overlay_bad/instances.csv:2:"), std::string::npos)
      << c.status().message();
  Result<Catalog> missing = LoadCatalog("/nonexistent/dir");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("is not a directory"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::io
