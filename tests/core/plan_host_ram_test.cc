// Instance types that differ only in host RAM: a layout that offloads the optimizer states to
// the host fits one and not the other, so the planner must search each on its own hardware (it
// used to share one search between them, and the second type inherited the first one's
// offload layout even when its host could not hold the states).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpuplan/plan.h"
#include "testing/catalog_builder.h"
#include "testing/embedded_calibration.h"
#include "testing/perf_fixtures.h"

namespace gpuplan::planner {
namespace {

using testing::CatalogBuilder;

constexpr char kBigHost[] = "ecs.big-host.8xlarge";
constexpr char kSmallHost[] = "ecs.small-host.8xlarge";

// One A10 each; the big host is listed (and so searched) first.
Catalog TwoHosts() {
  return CatalogBuilder()
      .AddGpu(testing::GpuA10())
      .AddInstance({.name = kBigHost, .gpu = "A10-24G", .vcpu = 32, .ram_gib = 512})
      .AddInstance({.name = kSmallHost, .gpu = "A10-24G", .vcpu = 32, .ram_gib = 32})
      .AddPrice(kBigHost, "cn-hangzhou", Billing::kPayg, 20)
      .AddPrice(kSmallHost, "cn-hangzhou", Billing::kPayg, 10)
      .Build();
}

TEST(PlanHostRamTest, AnOffloadLayoutIsOfferedOnlyWhereTheHostHoldsIt) {
  // Full fine-tuning of a 7B model on one 24 GB card fits only with the optimizer states (about
  // 80 GB of fp32 Adam states and master weights) in host RAM.
  Workload w;
  w.task = Task::kFinetune;
  w.method = Method::kFull;
  w.model_name = "llama-2-7b";
  w.seq_len = 1024;
  w.global_batch = 8;
  w.tokens = 10e6;
  w.constraints.regions = {"cn-hangzhou"};
  w.constraints.billing = {Billing::kPayg};
  w.constraints.max_nodes = 1;
  PlanOptions options;
  options.today = "2026-11-30";
  const Catalog catalog = TwoHosts();
  Result<Plan> plan =
      MakePlan(w, testing::Llama2_7B(), catalog, testing::EmbeddedCalibration(), options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  auto has = [&](const char* instance) {
    return std::any_of(plan->candidates.begin(), plan->candidates.end(),
                       [&](const Candidate& c) { return c.instance == instance; });
  };
  ASSERT_TRUE(has(kBigHost)) << "512 GiB of host RAM holds the offloaded states";
  for (const Candidate& c : plan->candidates) {
    SCOPED_TRACE(c.instance);
    EXPECT_NE(c.layout.offload, perf::Offload::kNone) << "nothing fits one A10 without offload";
    EXPECT_LE(c.estimate.memory.host_gib, c.estimate.memory.host_capacity_gib);
  }
  EXPECT_FALSE(has(kSmallHost)) << "32 GiB of host RAM cannot hold them";
  auto rejected = std::find_if(plan->rejected.begin(), plan->rejected.end(),
                               [](const Rejection& r) { return r.instance == kSmallHost; });
  ASSERT_NE(rejected, plan->rejected.end());
  EXPECT_NE(rejected->reason.find("host RAM"), std::string::npos) << rejected->reason;
}

}  // namespace
}  // namespace gpuplan::planner
