// One name table per enum (gpuplan/enum_names.h): each table round-trips every value through
// its name, its aliases parse to their value, and the choices listed in errors are its names.
#include "gpuplan/enum_names.h"

#include <gtest/gtest.h>

#include <string>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/workload.h"
#include "io/workload_yaml.h"

namespace gpuplan {
namespace {

// Every row's name parses to its value (exactly, and in upper case when the table ignores
// case), every value has a printed name that parses back, and names are unique.
template <typename E, size_t N>
void ExpectRoundTrip(const EnumNames<E, N>& names, NameCase mode) {
  for (const EnumName<E>& n : names) {
    SCOPED_TRACE(std::string(n.name));
    EXPECT_EQ(ParseName(names, n.name, mode), n.value);
    if (n.kind != NameKind::kAlias) {
      EXPECT_EQ(NameOf(names, n.value), n.name);
    }
    EXPECT_FALSE(NameOf(names, n.value).empty()) << "an alias of a value without a name";
    if (mode == NameCase::kIgnore) {
      std::string upper(n.name);
      for (char& c : upper)
        c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
      EXPECT_EQ(ParseName(names, upper, mode), n.value);
    }
    for (const EnumName<E>& other : names) {
      if (&other != &n) {
        EXPECT_NE(other.name, n.name);
      }
    }
  }
  EXPECT_EQ(ParseName(names, "no-such-name", mode), std::nullopt);
}

TEST(EnumNamesTest, EveryTableRoundTrips) {
  {
    SCOPED_TRACE("precision");
    ExpectRoundTrip(kPrecisionNames, NameCase::kExact);
  }
  {
    SCOPED_TRACE("workload precision");
    ExpectRoundTrip(io::kWorkloadPrecisionNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("gpu vendor");
    ExpectRoundTrip(kGpuVendorNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("interconnect");
    ExpectRoundTrip(kInterconnectNames, NameCase::kExact);
  }
  {
    SCOPED_TRACE("lifecycle");
    ExpectRoundTrip(kLifecycleNames, NameCase::kExact);
  }
  {
    SCOPED_TRACE("price source");
    ExpectRoundTrip(kPriceSourceNames, NameCase::kExact);
  }
  {
    SCOPED_TRACE("currency");
    ExpectRoundTrip(kCurrencyNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("storage kind");
    ExpectRoundTrip(cost::kStorageKindNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("task");
    ExpectRoundTrip(kTaskNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("method");
    ExpectRoundTrip(kMethodNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("optimizer");
    ExpectRoundTrip(kOptimizerNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("recompute");
    ExpectRoundTrip(kRecomputeNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("offload");
    ExpectRoundTrip(kOffloadNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("objective");
    ExpectRoundTrip(kObjectiveNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("data location");
    ExpectRoundTrip(kDataLocationNames, NameCase::kIgnore);
  }
  {
    SCOPED_TRACE("engine");
    ExpectRoundTrip(kEngineNames, NameCase::kIgnore);
  }
}

// The enumerations that have an "all values" list name each of them.
TEST(EnumNamesTest, TablesCoverEveryValue) {
  for (Precision p : kAllPrecisions)
    EXPECT_FALSE(PrecisionName(p).empty());
  for (GpuVendor v : kAllGpuVendors)
    EXPECT_FALSE(GpuVendorName(v).empty());
  EXPECT_EQ(kPrecisionNames.size(), kAllPrecisions.size());
  EXPECT_EQ(kGpuVendorNames.size(), kAllGpuVendors.size());
}

// The lists error messages print, as users have seen them: they come from the tables.
TEST(EnumNamesTest, ChoicesListTheTableNames) {
  struct Case {
    const char* name;
    std::string got;
    const char* want;
  };
  const Case kCases[] = {
      {"task", NameChoices(kTaskNames), "pretrain, finetune, inference, rendering or hpc"},
      {"method", NameChoices(kMethodNames), "full, lora or qlora"},
      {"optimizer", NameChoices(kOptimizerNames),
       "adamw, adamw_8bit, sgd, adafactor, paged_adamw_8bit or paged_adamw"},
      {"recompute", NameChoices(kRecomputeNames), "none, selective or full"},
      {"offload", NameChoices(kOffloadNames), "none, optimizer or params"},
      {"objective", NameChoices(kObjectiveNames),
       "cost, time, cost_within_deadline or time_within_budget"},
      {"engine_aliases", NameChoices(kEngineNames),
       "hf, vllm (or sglang, lmdeploy), trtllm or torch"},
      {"location_without_default", NameChoices(kDataLocationNames),
       "oss, nas, cpfs, essd, local_nvme or memory"},
      {"workload_precision", NameChoices(io::kWorkloadPrecisionNames),
       "bf16, fp16, fp32, fp8 or fp64"},
      {"lifecycle_csv", NameChoices(kLifecycleNames, "|", "|"), "current|legacy|retired|preview"},
      {"gpu_vendor_lower", GpuVendorChoices(), "nvidia, amd, intel, t-head, huawei or cambricon"},
      {"one_item", JoinChoices({"a"}), "a"},
      {"none", JoinChoices({}), ""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.got, c.want);
  }
}

TEST(EnumNamesTest, AliasesParseButNeverPrint) {
  EXPECT_EQ(ParseEngine("SGLang"), Engine::kVllm);
  EXPECT_EQ(EngineName(Engine::kVllm), "vllm");
  EXPECT_EQ(ParseCurrency("rmb"), Currency::kCny);
  EXPECT_EQ(CurrencyName(Currency::kCny), "CNY");
  EXPECT_EQ(ParseDataLocation("unknown"), DataLocation::kUnknown);
  EXPECT_EQ(DataLocationName(DataLocation::kUnknown), "unknown");
  // Exact tables stay exact: the catalog's columns are lowercase words.
  EXPECT_EQ(ParseLifecycle("Current"), std::nullopt);
  EXPECT_EQ(io::ParseWorkloadPrecision("INT8"), std::nullopt);
}

}  // namespace
}  // namespace gpuplan
