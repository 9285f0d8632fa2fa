#include <gtest/gtest.h>

#include "gpuplan/catalog.h"
#include "io/catalog_loader.h"

namespace gpuplan {
namespace {

Catalog Embedded() {
  Result<Catalog> c = io::LoadCatalog("");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : Catalog();
}

TEST(CatalogTest, EmbeddedCatalogLoadsAndValidatesWithoutErrors) {
  Catalog c = Embedded();
  for (const CatalogIssue& issue : c.Validate())
    EXPECT_FALSE(issue.error) << issue.message;
  EXPECT_GE(c.instances.size(), 118u);
  EXPECT_GE(c.gpus.size(), 27u);
  EXPECT_GE(c.families.size(), 33u);
  EXPECT_GE(c.prices.size(), 1000u);
  for (const InstanceType& t : c.instances) {
    SCOPED_TRACE(t.name);
    EXPECT_FALSE(t.provenance.source.empty()) << "every row carries its source";
    EXPECT_FALSE(t.provenance.as_of.empty()) << "every row carries its date";
  }
}

struct InstanceFact {
  const char* name;
  const char* gpu;
  double gpu_count;
  double gpu_memory_gib;
  int vcpu;
  double memory_gib;
  bool rdma;
};

TEST(CatalogTest, SpotChecksOfDocumentedFacts) {
  // From Alibaba's instance family docs (reference S1/S2/S3); the articles got several wrong.
  const InstanceFact kFacts[] = {
      {"ecs.gn7i-c8g1.2xlarge", "A10-24G", 1, 24, 8, 30, false},  // 30 GiB, not 60
      {"ecs.gn6v-c8g1.2xlarge", "V100-16G-SXM2", 1, 16, 8, 32, false},
      {"ecs.ebmgn7ex.32xlarge", "A100-80G-SXM", 8, 80, 128, 1024, true},
      {"ecs.gn6i-c4g1.xlarge", "T4-16G", 1, 16, 4, 15, false},
      {"ecs.gn6e-c12g1.12xlarge", "V100-32G-SXM2", 4, 32, 48, 368, false},
      {"ecs.gn8is-4x.16xlarge", "L20-48G", 4, 48, 64, 512, true},
      {"ecs.gn7e-c16g1.4xlarge", "A100-80G-SXM", 1, 80, 16, 125, false},  // 1 GPU, not 4
      {"ecs.gn7-c13g1.26xlarge", "A100-40G-SXM", 8, 40, 104, 756, false},
      {"ecs.ebmgn8v.48xlarge", "H20-96G", 8, 96, 192, 1024, true},
      {"ecs.vgn7i-vws-m4.xlarge", "A10-24G", 1.0 / 6, 4, 4, 30, false},
  };
  Catalog c = Embedded();
  (void)c.Validate();
  for (const InstanceFact& f : kFacts) {
    SCOPED_TRACE(f.name);
    const InstanceType* t = c.FindInstance(f.name);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->gpu, f.gpu);
    EXPECT_NEAR(t->gpu_count, f.gpu_count, 1e-3);
    EXPECT_NEAR(t->gpu_memory_gib, f.gpu_memory_gib, 0.01);
    EXPECT_EQ(t->vcpu, f.vcpu);
    EXPECT_DOUBLE_EQ(t->memory_gib, f.memory_gib);
    EXPECT_EQ(t->rdma, f.rdma);
  }
}

TEST(CatalogTest, LookupsAcceptAliasesCaseAndMissingPrefix) {
  Catalog c = Embedded();
  ASSERT_NE(c.FindGpu("a10"), nullptr);
  EXPECT_EQ(c.FindGpu("a10")->name, "A10-24G");
  EXPECT_EQ(c.FindGpu("A100 80GB")->name, "A100-80G-SXM");
  EXPECT_EQ(c.FindGpu("h20")->name, "H20-96G");
  ASSERT_NE(c.FindInstance("gn7i-c8g1.2xlarge"), nullptr);
  EXPECT_EQ(c.FindInstance("ECS.GN7I-C8G1.2XLARGE")->name, "ecs.gn7i-c8g1.2xlarge");
  EXPECT_EQ(c.FindInstance("ecs.gn7-m20.8xlarge"), nullptr);
  EXPECT_EQ(c.FindGpu("H2OO"), nullptr);
}

TEST(CatalogTest, SuggestionsPointAtTheSameFamily) {
  Catalog c = Embedded();
  auto near = c.SuggestInstances("ecs.gn7i-c8g1.4xlarge");
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near[0].rfind("ecs.gn7i-", 0), 0u) << near[0];
  auto gpus = c.SuggestGpus("A100-80");
  ASSERT_FALSE(gpus.empty());
  EXPECT_EQ(gpus[0], "A100-80G-SXM");
}

struct Corruption {
  const char* name;
  void (*corrupt)(Catalog&);
  const char* want_substring;
};

TEST(CatalogTest, ValidateFindsBrokenReferencesAndImplausibleRows) {
  const Corruption kCases[] = {
      {"unknown_gpu", [](Catalog& c) { c.instances[0].gpu = "H2OO"; }, "unknown GPU \"H2OO\""},
      {"memory_mismatch", [](Catalog& c) { c.instances[0].gpu_memory_gib = 80; }, "does not match"},
      {"duplicate_instance", [](Catalog& c) { c.instances.push_back(c.instances[0]); },
       "duplicate name"},
      {"unknown_family", [](Catalog& c) { c.instances[0].family = "gn7v"; },
       "unknown family \"gn7v\""},
      {"price_unknown_instance", [](Catalog& c) { c.prices[0].instance = "ecs.gn7-m20.8xlarge"; },
       "price for unknown instance"},
      {"zero_price", [](Catalog& c) { c.prices[0].amount = 0; }, "price must be > 0"},
      {"swapped_peaks",
       [](Catalog& c) { c.gpus[5].tflops[static_cast<int>(Precision::kFp16)] = 1; },
       "columns swapped"},
  };
  for (const Corruption& k : kCases) {
    SCOPED_TRACE(k.name);
    Catalog c = Embedded();
    k.corrupt(c);
    auto issues = c.Validate();
    ASSERT_FALSE(issues.empty());
    EXPECT_TRUE(issues[0].error);
    EXPECT_NE(issues[0].message.find(k.want_substring), std::string::npos) << issues[0].message;
    EXPECT_NE(issues[0].message.find("data/"), std::string::npos) << "names the file";
  }
}

}  // namespace
}  // namespace gpuplan
