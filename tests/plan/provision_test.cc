// Provisioning that comes with every plan, on instance types of the embedded catalog: where the
// data goes (and whether it is fast enough), and which OS, driver and CUDA the GPU needs.
#include "gpuplan/provision.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/cost.h"
#include "testing/embedded_data.h"

namespace gpuplan::planner {
namespace {

const InstanceType& Type(const char* name) {
  const InstanceType* t = testing::EmbeddedCatalog().FindInstance(name);
  EXPECT_NE(t, nullptr) << name << " is in data/instances.csv";
  static const InstanceType kNone;
  return t ? *t : kNone;
}

const std::vector<StorageClass>& Storage() { return testing::EmbeddedCatalog().storage; }

TEST(ProvisionStorageTest, TheChoiceSustainsTheReadRate) {
  struct Case {
    const char* name;
    const char* instance;
    std::optional<double> dataset_gb;
    int nodes;
    double required_mbs;
    const char* want_kind;
    bool throughput_known = true;  // data/storage.csv gives the kind's throughput
  };
  const Case kCases[] = {
      // 10 GB in 188 GiB of RAM: the page cache serves it after the first epoch.
      {"small_dataset_in_page_cache", "ecs.gn7i-c32g1.8xlarge", 10, 1, 150, "essd_pl1"},
      // gn5 has 440 GiB of local NVMe: a 300 GB dataset goes there.
      // No source gives the local disks' throughput: unknown (0), not a guess.
      {"local_nvme_when_it_holds_the_data", "ecs.gn5-c4g1.xlarge", 300, 1, 800, "local_nvme",
       false},
      // Two nodes read the same data: a shared file system.
      {"two_nodes_share_cpfs", "ecs.ebmgn7ex.32xlarge", 2000, 2, 3000, "cpfs"},
      // One node, no local disk, 2 TB: the smallest ESSD level fast enough.
      {"modest_rate_on_pl1", "ecs.gn7i-c8g1.2xlarge", 2000, 1, 300, "essd_pl1"},
      {"faster_rate_on_pl2", "ecs.gn7i-c8g1.2xlarge", 2000, 1, 700, "essd_pl2"},
      {"fastest_rate_on_pl3", "ecs.gn7i-c8g1.2xlarge", 2000, 1, 2000, "essd_pl3"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Workload w;
    w.task = Task::kFinetune;
    w.dataset.size_gb = c.dataset_gb;
    const StoragePlan s = ChooseStorage(w, Type(c.instance), c.nodes, c.required_mbs,
                                        testing::EmbeddedCalibration(), Storage());
    EXPECT_EQ(s.kind, c.want_kind) << s.why;
    if (c.throughput_known) {
      EXPECT_GE(s.expected_mbs, c.required_mbs) << "the choice is fast enough";
    } else {
      EXPECT_EQ(s.expected_mbs, 0) << "unknown";
      EXPECT_NE(s.why.find("throughput is not documented"), std::string::npos) << s.why;
    }
    EXPECT_DOUBLE_EQ(s.required_mbs, c.required_mbs);
    if (c.dataset_gb) {
      EXPECT_GE(s.size_gib * 1073741824.0, *c.dataset_gb * 1e9) << "the dataset fits on it";
    }
    EXPECT_FALSE(s.why.empty());
  }
}

TEST(ProvisionStorageTest, ARateNoDiskReachesGetsTheFastestLevelNotAFalsePromise) {
  Workload w;
  w.task = Task::kPretrain;
  w.dataset.size_gb = 2000;
  const StoragePlan s = ChooseStorage(w, Type("ecs.gn7i-c8g1.2xlarge"), 1, 10000,
                                      testing::EmbeddedCalibration(), Storage());
  EXPECT_EQ(s.kind, "essd_pl3");
  EXPECT_LT(s.expected_mbs, 10000) << "it says what the disk delivers, below what was asked";
}

// The price of storage comes from data/storage.csv (ESSD PL1: CNY 0.0021/GiB-h, derived from
// the Q1 quotes) and the sizes it is sold in from its rows; other kinds have no sourced price.
TEST(StorageCostTest, SourcedPricesOrUnknown) {
  using cost::StorageCost;
  using cost::StorageCostEstimate;
  using cost::StorageKind;
  struct Case {
    const char* name;
    StorageKind kind;
    double gib, hours;
    bool ok;
    std::optional<double> want;
  };
  const Case kCases[] = {
      {"pl1_100gib_month", StorageKind::kEssdPl1, 100, 730, true, 153.3},
      {"local_nvme_included", StorageKind::kLocalNvme, 3576, 730, true, 0.0},
      {"pl2_price_unknown", StorageKind::kEssdPl2, 1000, 730, true, std::nullopt},
      {"cpfs_price_unknown", StorageKind::kCpfs, 10240, 730, true, std::nullopt},
      {"pl2_too_small", StorageKind::kEssdPl2, 100, 730, false, std::nullopt},
      {"pl3_too_small", StorageKind::kEssdPl3, 1000, 730, false, std::nullopt},
      {"pl1_too_large", StorageKind::kEssdPl1, 70000, 730, false, std::nullopt},
      {"zero_size", StorageKind::kOss, 0, 730, false, std::nullopt},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<StorageCostEstimate> e = StorageCost(Storage(), c.kind, c.gib, c.hours);
    ASSERT_EQ(e.ok(), c.ok);
    if (!c.ok)
      continue;
    EXPECT_EQ(e->total.has_value(), c.want.has_value()) << e->reason;
    if (c.want) {
      EXPECT_NEAR(e->total->amount(), *c.want, 1e-9);
    } else {
      EXPECT_NE(e->reason.find("price unknown"), std::string::npos);
    }
  }
  Result<StorageCostEstimate> pl1 = StorageCost(Storage(), StorageKind::kEssdPl1, 100, 1);
  ASSERT_TRUE(pl1.ok());
  EXPECT_EQ(pl1->reason,
            "CNY 0.0021/GiB-h (derived from Q1 DescribePrice quotes: a 100 GiB PL1 system disk "
            "adds CNY 0.21/h over the C1 list price of two types (alibaba_prices.md 2.1 and 2.4); "
            "China site; one derived data point, trust medium; Q1, 2026-09-24)");
}

// Every storage.csv row carries its source and date, and the ESSD levels keep their documented
// formula (reference 5.1, S16): PL2 reaches its 750 MB/s cap at 1260 GiB, PL3 its 4000 at 7760.
TEST(StorageCostTest, StorageRowsAreSourced) {
  ASSERT_FALSE(Storage().empty());
  for (const StorageClass& k : Storage()) {
    SCOPED_TRACE(k.kind);
    EXPECT_FALSE(k.provenance.source.empty());
    EXPECT_FALSE(k.provenance.as_of.empty());
    if (k.price_per_gib_hour) {
      EXPECT_FALSE(k.price_provenance.source.empty());
      EXPECT_FALSE(k.price_provenance.as_of.empty());
    }
  }
  const StorageClass* pl2 = FindStorage(Storage(), "essd_pl2");
  const StorageClass* pl3 = FindStorage(Storage(), "essd_pl3");
  ASSERT_TRUE(pl2 && pl3);
  EXPECT_DOUBLE_EQ(pl2->GibAtMaxMbs().value_or(0), 1260);
  EXPECT_DOUBLE_EQ(pl3->GibAtMaxMbs().value_or(0), 7760);
  EXPECT_FALSE(FindStorage(Storage(), "local_nvme")->ThroughputMbs(1000)) << "not in the sources";
}

TEST(ProvisionImageTest, TheImageSupportsTheGpusArchitecture) {
  struct Case {
    const char* name;
    const char* instance;
    const char* want_cuda;  // a CUDA version the recommendation must name
    const char* want_os;    // a word of the OS line
  };
  const Case kCases[] = {
      {"ampere_a10", "ecs.gn7i-c8g1.2xlarge", "12", "Ubuntu"},
      {"hopper_h20_tdx_needs_alinux", "ecs.gn8v-tee.4xlarge", "12", "TDX"},
      {"arm_host_gets_arm64", "ecs.gn7r-c16g1.4xlarge", "12", "arm64"},
      {"blackwell_needs_cuda_12_8", "ecs.gn9gc.4xlarge", "12.8", "Ubuntu"},
      {"volta_v100_stays_on_cuda_12", "ecs.gn6v-c8g1.2xlarge", "12", "Ubuntu"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const InstanceType& t = Type(c.instance);
    const ImagePlan img =
        ChooseImage(testing::EmbeddedCatalog().ArchitectureOf(testing::EmbeddedCatalog().GpuOf(t)),
                    testing::EmbeddedCatalog().GpuOf(t), t);
    EXPECT_NE(img.cuda.find(c.want_cuda), std::string::npos) << img.cuda;
    EXPECT_NE(img.os.find(c.want_os), std::string::npos) << img.os;
    EXPECT_FALSE(img.driver.empty());
    EXPECT_FALSE(img.framework.empty());
    EXPECT_FALSE(img.why.empty());
  }
}

TEST(ProvisionImageTest, GpusCuda13DroppedArePinnedToCuda12) {
  // CUDA 13.0 removed Maxwell, Pascal and Volta (NVIDIA CUDA 13.0 release notes).
  for (const char* instance : {"ecs.gn6v-c8g1.2xlarge", "ecs.gn5-c4g1.xlarge"}) {
    SCOPED_TRACE(instance);
    const InstanceType& t = Type(instance);
    const ImagePlan img =
        ChooseImage(testing::EmbeddedCatalog().ArchitectureOf(testing::EmbeddedCatalog().GpuOf(t)),
                    testing::EmbeddedCatalog().GpuOf(t), t);
    EXPECT_NE(img.cuda.find("12"), std::string::npos) << img.cuda;
    EXPECT_EQ(img.cuda.find("13 or newer"), std::string::npos) << img.cuda;
  }
}

}  // namespace
}  // namespace gpuplan::planner
