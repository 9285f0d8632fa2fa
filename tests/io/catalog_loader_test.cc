#include "io/catalog_loader.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "io/file_util.h"
#include "testing/cli_runner.h"

namespace gpuplan::io {
namespace {

constexpr char kGpuHeader[] =
    "name,architecture,memory_gib,memory_bandwidth_gbs,fp32,bf16,vendor\n";
constexpr char kInstanceHeader[] =
    "name,family,gpu,gpu_count,gpu_memory_gib,vcpu,memory_gib,network_gbps,rdma,interconnect,"
    "status,arch\n";

struct BadFile {
  const char* name;
  std::string gpus;
  std::string instances;
  std::string prices;
  const char* want_error;
};

TEST(CatalogLoaderTest, EachKindOfMalformedRowGetsAClearError) {
  const std::string gpu_ok = std::string(kGpuHeader) + "X1,Hopper,80,3000,60,900,NVIDIA\n";
  const std::string ih = kInstanceHeader;
  const BadFile kCases[] = {
      {"missing_column", "name,vendor,architecture,memory_gib\nX1,NVIDIA,Hopper,80\n", "", "",
       "u/gpus.csv:1: missing column \"memory_bandwidth_gbs\" in header; required columns: "
       "name,vendor,architecture,memory_gib,memory_bandwidth_gbs"},
      {"missing_vendor_column",
       "name,architecture,memory_gib,memory_bandwidth_gbs\nX1,Hopper,80,3000\n", "", "",
       "u/gpus.csv:1: missing column \"vendor\" in header; required columns: "
       "name,vendor,architecture,memory_gib,memory_bandwidth_gbs"},
      {"unknown_vendor", std::string(kGpuHeader) + "X1,Hopper,80,3000,60,900,Nvdia\n", "", "",
       "u/gpus.csv:2:26: field \"vendor\": expected nvidia, amd, intel, t-head, huawei or "
       "cambricon, got \"Nvdia\""},
      {"vendor_empty", std::string(kGpuHeader) + "X1,Hopper,80,3000,60,900,\n", "", "",
       "u/gpus.csv:2:26: field \"vendor\": is required and empty"},
      {"not_a_number", std::string(kGpuHeader) + "X1,Hopper,eighty,3000,60,900,NVIDIA\n", "", "",
       "u/gpus.csv:2:11: field \"memory_gib\": expected a number from 0.5 to 1024, got \"eighty\""},
      {"out_of_range", std::string(kGpuHeader) + "X1,Hopper,80,3000,-5,900,NVIDIA\n", "", "",
       "u/gpus.csv:2:19: field \"fp32\": expected a number from 0.001 to 100000, got \"-5\""},
      {"required_empty", std::string(kGpuHeader) + ",Hopper,80,3000,60,900,NVIDIA\n", "", "",
       "u/gpus.csv:2:1: field \"name\": is required and empty"},
      {"bad_enum", gpu_ok, ih + "ecs.x.large,x,X1,1,80,8,64,10,no,infiniband,current,x86_64\n", "",
       "u/instances.csv:2:34: field \"interconnect\": expected one of pcie|nvlink|nvswitch, got "
       "\"infiniband\""},
      {"bad_bool", gpu_ok, ih + "ecs.x.large,x,X1,1,80,8,64,10,maybe,pcie,current,x86_64\n", "",
       "u/instances.csv:2:31: field \"rdma\": expected yes or no, got \"maybe\""},
      {"fractional_vcpu", gpu_ok, ih + "ecs.x.large,x,X1,1,80,8.5,64,10,no,pcie,current,x86_64\n",
       "",
       "u/instances.csv:2:23: field \"vcpu\": expected a whole number from 1 to 1024, got \"8.5\""},
      {"bad_arch", gpu_ok, ih + "ecs.x.large,x,X1,1,80,8,64,10,no,pcie,current,sparc\n", "",
       "u/instances.csv:2:47: field \"arch\": expected x86_64 or arm64, got \"sparc\""},
      {"bad_currency", "", "",
       "instance,region,billing,currency,price,unit,as_of,trust\necs.x,cn-hangzhou,payg,EUR,1,hour,"
       "2025-01-01,high\n",
       "u/prices.csv:2:24: field \"currency\": expected one of CNY|USD, got \"EUR\""},
      {"unquoted_comma", std::string(kGpuHeader) + "X1,Hopper,80,3000,60,900,NVIDIA,extra\n", "",
       "",
       "u/gpus.csv:2: expected 7 fields as in the header, got 8 (quote fields that contain "
       "commas)"},
  };
  for (const BadFile& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Catalog> r = ParseCatalog({.gpus = c.gpus,
                                      .families = "",
                                      .instances = c.instances,
                                      .prices = c.prices,
                                      .dir = "u/"});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), c.want_error);
  }
}

TEST(CatalogLoaderTest, OverlayAddsAndOverridesRows) {
  Result<Catalog> c = LoadCatalog(testing::TestDataPath("overlay_ok"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  for (const CatalogIssue& issue : c->Validate())
    EXPECT_FALSE(issue.error) << issue.message;
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

namespace gpuplan::io {
namespace {

// data/eri.csv: how many elastic RDMA interfaces a type attaches, joined onto instances.csv.
TEST(CatalogLoaderTest, EriRowsAttachToTheirInstanceTypes) {
  Result<Catalog> c = LoadCatalog("");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const InstanceType* ex = c->FindInstance("ecs.ebmgn7ex.32xlarge");
  ASSERT_NE(ex, nullptr);
  ASSERT_TRUE(ex->eri.has_value()) << "ebmgn7ex needs two ERIs for 160 Gbit/s (S3)";
  EXPECT_EQ(ex->eri->eri_quantity, 2);
  EXPECT_EQ(ex->eri->network_cards, 2);
  EXPECT_FALSE(ex->eri->queue_pairs.has_value()) << "no source gives the QP total";
  EXPECT_NE(ex->eri->provenance.source.find("S3"), std::string::npos);
  const InstanceType* gn7i = c->FindInstance("ecs.gn7i-c8g1.2xlarge");
  ASSERT_NE(gn7i, nullptr);
  EXPECT_FALSE(gn7i->eri.has_value()) << "no eRDMA, no ERI row";
}

TEST(CatalogLoaderTest, BadEriRowsNameTheFileAndLine) {
  struct Case {
    std::string name;
    std::string eri_csv;
    std::string expected;
  };
  const std::string header = "instance,eri_quantity,network_cards,queue_pairs,basis,source,as_of\n";
  const Case kCases[] = {
      {"unknown_type", header + "ecs.nope.2xlarge,1,1,,doc,S3,2025\n",
       "eri.csv:2: instance \"ecs.nope.2xlarge\" is not in instances.csv"},
      {"type_without_erdma", header + "ecs.gn7i-c8g1.2xlarge,1,1,,doc,S3,2025\n",
       "has rdma = no in instances.csv"},
      {"more_cards_than_eris", header + "ecs.ebmgn7ex.32xlarge,1,2,,doc,S3,2025\n",
       "expected at most eri_quantity (1) network cards"},
      {"zero_eris", header + "ecs.ebmgn7ex.32xlarge,0,1,,doc,S3,2025\n", "eri_quantity"},
  };
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.name);
    char tmpl[] = "/tmp/gpuplan-eri-overlay-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    ASSERT_TRUE(WriteFileAtomic(dir + "/eri.csv", k.eri_csv).ok());
    Result<Catalog> c = LoadCatalog(dir);
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.status().message().find(k.expected), std::string::npos) << c.status().message();
    std::filesystem::remove_all(dir);
  }
  // A good overlay row wins over the embedded one.
  char tmpl[] = "/tmp/gpuplan-eri-overlay-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  ASSERT_TRUE(
      WriteFileAtomic(dir + "/eri.csv", header + "ecs.ebmgn7ex.32xlarge,2,2,64,user,me,2026\n")
          .ok());
  Result<Catalog> c = LoadCatalog(dir);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->FindInstance("ecs.ebmgn7ex.32xlarge")->eri->queue_pairs, 64);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuplan::io
