// Provisioning that comes with every plan, on instance types of the embedded catalog: where the
// data goes (and whether it is fast enough), and which OS, driver and CUDA the GPU needs.
#include "gpuplan/provision.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "testing/embedded_data.h"

namespace gpuplan::planner {
namespace {

const InstanceType& Type(const char* name) {
  const InstanceType* t = testing::EmbeddedCatalog().FindInstance(name);
  EXPECT_NE(t, nullptr) << name << " is in data/instances.csv";
  static const InstanceType kNone;
  return t ? *t : kNone;
}

TEST(ProvisionStorageTest, TheChoiceSustainsTheReadRate) {
  struct Case {
    const char* name;
    const char* instance;
    std::optional<double> dataset_gb;
    int nodes;
    double required_mbs;
    const char* want_kind;
  };
  const Case kCases[] = {
      // 10 GB in 188 GiB of RAM: the page cache serves it after the first epoch.
      {"small_dataset_in_page_cache", "ecs.gn7i-c32g1.8xlarge", 10, 1, 150, "essd_pl1"},
      // gn5 has 440 GiB of local NVMe: a 300 GB dataset goes there.
      {"local_nvme_when_it_holds_the_data", "ecs.gn5-c4g1.xlarge", 300, 1, 800, "local_nvme"},
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
    const StoragePlan s =
        ChooseStorage(w, Type(c.instance), c.nodes, c.required_mbs, testing::EmbeddedCalibration());
    EXPECT_EQ(s.kind, c.want_kind) << s.why;
    EXPECT_GE(s.expected_mbs, c.required_mbs) << "the choice is fast enough";
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
  const StoragePlan s =
      ChooseStorage(w, Type("ecs.gn7i-c8g1.2xlarge"), 1, 10000, testing::EmbeddedCalibration());
  EXPECT_EQ(s.kind, "essd_pl3");
  EXPECT_LT(s.expected_mbs, 10000) << "it says what the disk delivers, below what was asked";
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
