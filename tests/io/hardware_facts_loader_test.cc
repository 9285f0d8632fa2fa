// Hardware facts as data: the compute_only / inference_only columns of gpus.csv and
// architectures.csv (driver, CUDA, image and reference fabric per compute capability).
#include <gtest/gtest.h>

#include <string>

#include "io/catalog_loader.h"

namespace gpuplan::io {
namespace {

constexpr char kGpuHeader[] =
    "name,architecture,compute_capability,memory_gib,memory_bandwidth_gbs,fp32,bf16,vendor,"
    "compute_only,inference_only\n";
constexpr char kArchHeader[] =
    "compute_capability,architecture,min_driver,cuda,framework,image_note,newest_cuda_major,"
    "reference_nic_gbps,basis,source,as_of\n";
constexpr char kArchRow[] =
    "9.0,Hopper,>= 535,12.4 or newer,PyTorch >= 2.4,Hopper (sm_90) runs CUDA 12,,400,doc,X1,"
    "2025-08\n";

Result<Catalog> Parse(const std::string& gpus, const std::string& architectures) {
  return ParseCatalog({.gpus = gpus,
                       .families = "",
                       .instances = "",
                       .prices = "",
                       .architectures = architectures,
                       .dir = "u/"});
}

TEST(HardwareFactsLoaderTest, GpuColumnsSayWhatTheCardIsFor) {
  struct Case {
    const char* name;
    std::string row;
    bool compute_only, inference_only;
  };
  const Case kCases[] = {
      {"compute_only", "ZX-1,Hopper,9.0,80,3000,60,900,NVIDIA,yes,no\n", true, false},
      {"inference_only", "ZX-1,Hopper,9.0,80,3000,60,900,NVIDIA,no,yes\n", false, true},
      {"empty_is_no", "ZX-1,Hopper,9.0,80,3000,60,900,NVIDIA,,\n", false, false},
      {"any_case", "ZX-1,Hopper,9.0,80,3000,60,900,NVIDIA,YES,True\n", true, true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Catalog> r = Parse(std::string(kGpuHeader) + c.row, "");
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->gpus.size(), 1u);
    EXPECT_EQ(r->gpus[0].compute_only, c.compute_only);
    EXPECT_EQ(r->gpus[0].inference_only, c.inference_only);
  }
  // An overlay written before the columns existed still loads: both are no.
  Result<Catalog> old = Parse(
      "name,architecture,memory_gib,memory_bandwidth_gbs,vendor\nZX-1,Hopper,80,3000,NVIDIA\n", "");
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_FALSE(old->gpus[0].compute_only);
  EXPECT_FALSE(old->gpus[0].inference_only);
}

TEST(HardwareFactsLoaderTest, ArchitectureRowIsReadWithItsSource) {
  Result<Catalog> r =
      Parse("", std::string(kArchHeader) + kArchRow +
                    "7.0,Volta,535 or 550 branch,12.x,PyTorch 2.x,Volta is legacy,12,100,doc,X1,"
                    "2025-08\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->architectures.size(), 2u);
  const Architecture& hopper = r->architectures[0];
  EXPECT_EQ(hopper.compute_capability, "9.0");
  EXPECT_EQ(hopper.architecture, "Hopper");
  EXPECT_EQ(hopper.min_driver, ">= 535");
  EXPECT_EQ(hopper.cuda, "12.4 or newer");
  EXPECT_EQ(hopper.framework, "PyTorch >= 2.4");
  EXPECT_EQ(hopper.Sm(), 90);
  EXPECT_FALSE(hopper.newest_cuda_major.has_value()) << "empty = supported by current CUDA";
  EXPECT_DOUBLE_EQ(hopper.reference_nic_gbps, 400);
  EXPECT_EQ(hopper.provenance.source, "X1");
  EXPECT_EQ(hopper.provenance.as_of, "2025-08");
  EXPECT_EQ(hopper.provenance.origin, "u/architectures.csv:2");
  ASSERT_TRUE(r->architectures[1].newest_cuda_major.has_value());
  EXPECT_EQ(*r->architectures[1].newest_cuda_major, 12);
}

TEST(HardwareFactsLoaderTest, BadRowsGetTheFileLineAndField) {
  struct Case {
    const char* name;
    std::string gpus, architectures;
    const char* want_error;
  };
  const std::string ah = kArchHeader;
  const Case kCases[] = {
      {"gpu_flag_not_yes_or_no",
       std::string(kGpuHeader) + "ZX-1,Hopper,9.0,80,3000,60,900,NVIDIA,maybe,no\n", "",
       "u/gpus.csv:2:39: field \"compute_only\": expected yes or no, got \"maybe\""},
      {"gpu_second_flag",
       std::string(kGpuHeader) + "ZX-1,Hopper,9.0,80,3000,60,900,NVIDIA,no,often\n", "",
       "u/gpus.csv:2:42: field \"inference_only\": expected yes or no, got \"often\""},
      {"missing_column", "",
       "compute_capability,architecture,min_driver,cuda,framework,image_note,newest_cuda_major,"
       "basis,source,as_of\n9.0,Hopper,>= 535,12.x,PyTorch,note,,doc,X1,2025-08\n",
       "u/architectures.csv:1: missing column \"reference_nic_gbps\" in header; required columns: "
       "compute_capability,architecture,min_driver,cuda,framework,image_note,newest_cuda_major,"
       "reference_nic_gbps,source,as_of"},
      {"compute_capability_not_major_minor", "",
       ah + "sm_90,Hopper,>= 535,12.x,PyTorch,note,,400,doc,X1,2025-08\n",
       "u/architectures.csv:2:1: field \"compute_capability\": expected major.minor such as 8.6 "
       "or 10.0, got \"sm_90\""},
      {"architecture_empty", "", ah + "9.0,,>= 535,12.x,PyTorch,note,,400,doc,X1,2025-08\n",
       "u/architectures.csv:2:5: field \"architecture\": is required and empty"},
      {"note_names_another_sm", "",
       ah +
           "10.0,Blackwell,>= 570,12.8,PyTorch,Blackwell (sm_120) needs 12.8,,400,doc,X1,2025-08\n",
       "u/architectures.csv:2:36: field \"image_note\": names sm_120, but compute capability 10.0 "
       "is sm_100"},
      {"driver_empty", "", ah + "9.0,Hopper,,12.x,PyTorch,note,,400,doc,X1,2025-08\n",
       "u/architectures.csv:2:12: field \"min_driver\": is required and empty"},
      {"cuda_major_not_whole", "",
       ah + "9.0,Hopper,>= 535,12.x,PyTorch,note,12.5,400,doc,X1,2025-08\n",
       "u/architectures.csv:2:37: field \"newest_cuda_major\": expected a whole CUDA major "
       "version, "
       "got 12.5"},
      {"nic_missing", "", ah + "9.0,Hopper,>= 535,12.x,PyTorch,note,,,doc,X1,2025-08\n",
       "u/architectures.csv:2:38: field \"reference_nic_gbps\": expected a number from 1 to "
       "100000, "
       "got nothing"},
      {"no_source", "", ah + "9.0,Hopper,>= 535,12.x,PyTorch,note,,400,doc,,2025-08\n",
       "u/architectures.csv:2:46: field \"source\": is required and empty (a source id of "
       "data/SOURCES.md)"},
      {"no_date", "", ah + "9.0,Hopper,>= 535,12.x,PyTorch,note,,400,doc,X1,\n",
       "u/architectures.csv:2:49: field \"as_of\": is required and empty (the source's date)"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Catalog> r = Parse(c.gpus, c.architectures);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(), c.want_error);
  }
}

TEST(HardwareFactsLoaderTest, ValidateChecksGpusAgainstTheirArchitectureRow) {
  struct Case {
    const char* name;
    std::string gpu_row;
    std::string extra_arch_row;
    bool want_error;
    const char* want_message;  // "" = no finding
  };
  const Case kCases[] = {
      {"matching_row", "ZX-1,Hopper,9.0,80,3000,60,900,NVIDIA,no,no\n", "", false, ""},
      {"architecture_disagrees", "ZX-1,Ampere,9.0,80,3000,60,900,NVIDIA,no,no\n", "", true,
       "u/gpus.csv:2: GPU \"ZX-1\": architecture \"Ampere\" but compute capability 9.0 is "
       "\"Hopper\" in architectures.csv (u/architectures.csv:2)"},
      {"no_row_is_unknown_not_an_error", "ZX-1,Ada,8.9,80,3000,60,900,NVIDIA,no,no\n", "", false,
       "u/gpus.csv:2: GPU \"ZX-1\": compute capability \"8.9\" has no row in architectures.csv: "
       "its driver, CUDA and image are unknown (add the row from NVIDIA's CUDA GPU list, "
       "developer.nvidia.com/cuda-gpus, and the CUDA release notes)"},
      {"duplicate_row", "ZX-1,Hopper,9.0,80,3000,60,900,NVIDIA,no,no\n",
       "9.0,Hopper,>= 550,12.x,PyTorch,note,,400,doc,X1,2025-08\n", true,
       "u/architectures.csv:3: duplicate compute capability \"9.0\""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Catalog> r = Parse(std::string(kGpuHeader) + c.gpu_row,
                              std::string(kArchHeader) + kArchRow + c.extra_arch_row);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const std::vector<CatalogIssue> issues = r->Validate();
    if (std::string(c.want_message).empty()) {
      EXPECT_TRUE(issues.empty()) << issues.front().message;
      continue;
    }
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].error, c.want_error);
    EXPECT_EQ(issues[0].message, c.want_message);
  }
}

// The embedded catalog: every GPU has its architecture row, and the facts the rules used to
// read from names are in the columns.
TEST(HardwareFactsLoaderTest, EmbeddedCatalogHasTheFactsInItsColumns) {
  Result<Catalog> c = LoadCatalog("");
  ASSERT_TRUE(c.ok()) << c.status().message();
  for (const CatalogIssue& issue : c->Validate()) {
    EXPECT_EQ(issue.message.find("architectures.csv"), std::string::npos) << issue.message;
  }
  struct Case {
    const char* gpu;
    bool compute_only, inference_only;
    int sm;
  };
  const Case kCases[] = {
      {"T4-16G", false, true, 75},     {"A16-16G", false, true, 86},
      {"P4-8G", true, true, 61},       {"A100-80G-SXM", true, false, 80},
      {"H20-96G", true, false, 90},    {"A10-24G", false, false, 86},
      {"L20-48G", false, false, 89},   {"BW-PRO-48G", false, false, 120},
      {"B200-180G", true, false, 100}, {"A800-80G-SXM", true, false, 80},
  };
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.gpu);
    const Gpu* g = c->FindGpu(k.gpu);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->compute_only, k.compute_only);
    EXPECT_EQ(g->inference_only, k.inference_only);
    const Architecture* a = c->ArchitectureOf(*g);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->architecture, g->architecture);
    EXPECT_EQ(a->Sm(), k.sm);
    EXPECT_FALSE(a->provenance.source.empty());
  }
}

}  // namespace
}  // namespace gpuplan::io
