// The embedded model zoo and calibration load, and their numbers agree with the sources.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"
#include "io/calibration_csv.h"
#include "io/catalog_loader.h"
#include "io/embedded_data.h"
#include "io/model_zoo.h"

namespace gpuplan::io {
namespace {

// The shipped data/calibration.csv with `rows` ("parameter,scope,value,...\n" each) in place of
// the shipped rows of the same parameter and scope: a complete file that differs where a test
// says so (a file missing a row does not load).
std::string ShippedCalibrationWith(std::string_view rows) {
  std::vector<std::string> replaced;
  for (size_t at = 0; at < rows.size();) {
    const size_t end = rows.find('\n', at);
    const std::string_view row = rows.substr(at, end - at);
    const size_t second = row.find(',', row.find(',') + 1);
    replaced.emplace_back(row.substr(0, second + 1));  // "parameter,scope,"
    at = end == std::string_view::npos ? rows.size() : end + 1;
  }
  std::string out;
  const std::string_view shipped = EmbeddedData("calibration.csv");
  for (size_t at = 0; at < shipped.size();) {
    const size_t end = std::min(shipped.find('\n', at), shipped.size());
    const std::string_view line = shipped.substr(at, end - at);
    bool drop = false;
    for (const std::string& key : replaced)
      drop = drop || line.rfind(key, 0) == 0;
    if (!drop)
      out.append(line).push_back('\n');
    at = end + 1;
  }
  return out + std::string(rows);
}

TEST(ModelZooTest, EmbeddedZooLoadsAndShapesMatchPublishedParams) {
  Result<ModelZoo> zoo = LoadModelZoo();
  ASSERT_TRUE(zoo.ok()) << zoo.status().message();
  // Parameters computed from the shape agree with the published totals (biases and position
  // tables aside) to 2%: a wrong hidden/ffn/vocab shows up here.
  struct Case {
    const char* name;
    double want_b;
  };
  const Case kCases[] = {
      {"llama-2-7b", 6.738},   {"llama-2-70b", 68.977},    {"llama-3.1-405b", 405.853},
      {"qwen2.5-0.5b", 0.494}, {"qwen2.5-72b", 72.706},    {"mistral-7b", 7.242},
      {"gpt3-175b", 175.0},    {"bloom-176b", 176.247},    {"tinyllama-1.1b", 1.1},
      {"opt-66b", 66.0},       {"stablelm-3b-4e1t", 2.795}};  // its card: 2,795,443,200
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const ModelArch* m = zoo->Find(c.name);
    ASSERT_NE(m, nullptr);
    ModelArch shape_only = *m;
    shape_only.params = 0;
    EXPECT_NEAR(shape_only.Params() / 1e9, c.want_b, 0.02 * c.want_b);
  }
  for (const ModelArch& m : zoo->models) {
    SCOPED_TRACE(m.name);
    EXPECT_TRUE(ValidateModelArch(m).ok());
    EXPECT_FALSE(m.source.empty());
    EXPECT_FALSE(m.as_of.empty());
  }
  EXPECT_NE(zoo->Find("meta-llama/Llama-2-7b"), nullptr);  // HF-style ids resolve
  EXPECT_EQ(zoo->Suggest("llama-2-7").front(), "llama-2-7b");
}

TEST(ModelZooTest, MoeRowsShapesMatchPublishedTotalAndActive) {
  Result<ModelZoo> zoo = LoadModelZoo();
  ASSERT_TRUE(zoo.ok()) << zoo.status().message();
  // Every row with a published total and active count: the shape's own counts agree within
  // 4 % (total) and 10 % (active, counted with or without the input embedding table: OpenAI
  // leaves it out of gpt-oss's 3.6B / 5.1B, the others count it).
  int checked = 0;
  for (const ModelArch& m : zoo->models) {
    if (!m.IsMoe() || m.params <= 0 || m.active_params <= 0)
      continue;
    SCOPED_TRACE(m.name);
    ModelArch shape_only = m;
    shape_only.params = 0;
    shape_only.active_params = 0;
    EXPECT_NEAR(shape_only.Params() / m.params, 1.0, 0.04);
    const double active = shape_only.ActiveParams();
    const double without_embedding = active - static_cast<double>(m.vocab) * m.hidden;
    EXPECT_TRUE(std::abs(active / m.active_params - 1) < 0.10 ||
                std::abs(without_embedding / m.active_params - 1) < 0.10)
        << active / 1e9 << " or " << without_embedding / 1e9 << " vs " << m.active_params / 1e9;
    ++checked;
  }
  EXPECT_GE(checked, 10);
  ASSERT_NE(zoo->Find("Qwen/Qwen3-30B-A3B"), nullptr);  // a Hugging Face id finds its row
  EXPECT_EQ(zoo->Find("deepseek-ai/DeepSeek-R1")->name, "deepseek-r1");
}

TEST(ModelZooTest, BadRowsNameLineAndField) {
  const std::string header =
      "name,kind,mlp,layers,hidden,heads,kv_heads,ffn,vocab,tied_embeddings,dropout,params_b,"
      "forward_gflops_per_sample,default_seq_len,basis,source,as_of,notes\n";
  struct Case {
    const char* name;
    const char* row;
    const char* want;
  };
  const Case kCases[] = {
      {"kv_heads_not_divisor", "m,decoder,gelu,2,64,8,3,256,100,no,no,,,,repo,s,2024,\n",
       "m.csv:2:1: field \"name\": field \"kv_heads\": expected a divisor of heads (8), got 3"},
      {"bad_kind", "m,rnn,gelu,2,64,8,8,256,100,no,no,,,,repo,s,2024,\n",
       "m.csv:2:3: field \"kind\": expected one of decoder|encoder|other, got \"rnn\""},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<ModelZoo> zoo = ParseModelZoo(header + c.row, "m.csv");
    ASSERT_FALSE(zoo.ok());
    EXPECT_EQ(zoo.status().message(), c.want);
  }
}

TEST(CalibrationCsvTest, EmbeddedCalibrationLoadsEveryArchitecture) {
  Result<Calibration> cal = LoadCalibration();
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  for (const char* arch : {"Ampere", "Hopper", "Volta", "Turing", "Ada Lovelace"}) {
    SCOPED_TRACE(arch);
    Gpu g;
    g.architecture = arch;
    const ArchEfficiency e = cal->For(g);
    EXPECT_EQ(e.architecture, arch);
    EXPECT_GT(e.gemm_fraction, 0.3);
    EXPECT_LE(e.gemm_fraction, 1.0);
  }
}

// A scope that names no catalog architecture or GPU would silently never apply (it once did:
// "Ada" against the catalog's "Ada Lovelace").
TEST(CalibrationCsvTest, EveryScopeNamesACatalogArchitectureOrGpu) {
  Result<Calibration> cal = LoadCalibration();
  Result<Catalog> catalog = LoadCatalog("");
  ASSERT_TRUE(cal.ok() && catalog.ok());
  for (const ArchEfficiency& a : cal->archs) {
    SCOPED_TRACE(a.architecture);
    bool found = false;
    for (const Gpu& g : catalog->gpus)
      found = found || g.architecture == a.architecture;
    EXPECT_TRUE(found) << "no catalog GPU has architecture " << a.architecture;
  }
  for (const GpuEfficiency& g : cal->gpus) {
    SCOPED_TRACE(g.gpu);
    const Gpu* gpu = catalog->FindGpu(g.gpu);
    ASSERT_NE(gpu, nullptr);
    EXPECT_EQ(gpu->name, g.gpu) << "use the canonical name, not an alias";
  }
}

// A gpu:NAME row changes only that GPU and only the value it names; the rest comes from the
// architecture. GA102's FP32 peak counts a shared datapath twice, so A10's SGEMM fraction is
// about half A100's.
TEST(CalibrationCsvTest, GpuRowsOverrideOnlyTheirGpuAndValue) {
  const std::string text = ShippedCalibrationWith(
      "gemm_fraction,Ampere,0.75,f,x,prior\n"
      "simt_fraction,Ampere,0.8,f,x,prior\n"
      "simt_fraction,gpu:A10-24G,0.35,f,x,fit\n");
  Result<Calibration> cal = ParseCalibration(text, "c.csv");
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  Gpu a10, a100;
  a10.name = "A10-24G";
  a100.name = "A100-80G-SXM";
  a10.architecture = a100.architecture = "Ampere";
  EXPECT_DOUBLE_EQ(cal->For(a10).simt_fraction, 0.35);
  EXPECT_DOUBLE_EQ(cal->For(a10).gemm_fraction, 0.75);
  EXPECT_DOUBLE_EQ(cal->For(a100).simt_fraction, 0.8);
}

// cuDNN's fused attention has its own fraction only where a row gives it; elsewhere (and for
// FlashAttention-2) the architecture's attention_fraction. The shipped table tells the kernels
// apart on Hopper only, where the NeMo/Megatron measurements are.
TEST(CalibrationCsvTest, CudnnAttentionFractionOnlyWhereARowGivesIt) {
  const std::string text = ShippedCalibrationWith(
      "attention_fraction,Hopper,0.2,f,x,fit\n"
      "cudnn_attention_fraction,Hopper,0.3,f,x,fit\n"
      "attention_fraction,Ampere,0.3,f,x,fit\n"
      "cudnn_attention_fraction,gpu:H20-96G,0.25,f,x,prior\n");
  Result<Calibration> cal = ParseCalibration(text, "c.csv");
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  Result<Calibration> shipped = LoadCalibration();
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  struct Case {
    std::string name;
    const Calibration* calibration;
    std::string gpu, architecture;
    double flash2, cudnn;
  };
  const Case kCases[] = {
      {"hopper_row", &*cal, "H100-80G-SXM", "Hopper", 0.2, 0.3},
      {"gpu_row_overrides_cudnn_only", &*cal, "H20-96G", "Hopper", 0.2, 0.25},
      {"no_cudnn_row_is_flash2", &*cal, "A100-80G-SXM", "Ampere", 0.3, 0.3},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Gpu g;
    g.name = c.gpu;
    g.architecture = c.architecture;
    const ArchEfficiency e = c.calibration->For(g);
    EXPECT_DOUBLE_EQ(e.AttentionFraction(AttentionKernel::kFlash2), c.flash2);
    EXPECT_DOUBLE_EQ(e.AttentionFraction(AttentionKernel::kCudnn), c.cudnn);
  }
  Gpu h100, a100;
  h100.name = "H100-80G-SXM";
  h100.architecture = "Hopper";
  a100.name = "A100-80G-SXM";
  a100.architecture = "Ampere";
  const ArchEfficiency hopper = shipped->For(h100), ampere = shipped->For(a100);
  EXPECT_GT(hopper.AttentionFraction(AttentionKernel::kCudnn),
            hopper.AttentionFraction(AttentionKernel::kFlash2))
      << "Transformer Engine's cuDNN attention outruns FlashAttention-2 on Hopper";
  EXPECT_DOUBLE_EQ(ampere.AttentionFraction(AttentionKernel::kCudnn),
                   ampere.AttentionFraction(AttentionKernel::kFlash2))
      << "no measurement tells the kernels apart on Ampere";
}

// Fused attention is tensor-core MMAs at the GEMM ceiling plus vector work at the achieved FP32
// rate; the shipped fractions hold on the part they were fitted on (H100 SXM, A100) and on parts
// of its tensor-to-FP32 balance, and move on a part of another: 1 / (1/g' + (1/a - 1/g) x
// (P / (F x simt)) / reference), g the architecture's GEMM ceiling the reference ran its MMAs
// at and g' the part's own. H20 (g' = 0.8, its own row): 148 / (39.5 x 0.77) / 19.17 = 0.2538,
// so FlashAttention 1 / (1/0.8 + (5 - 1.6667) x 0.2538) = 0.4771 and cuDNN
// 1 / (1/0.8 + 1.6667 x 0.2538) = 0.5977; A10: 125 / (31.2 x 0.35) / 20 = 0.5723,
// 1 / (1/0.75 + 2 x 0.5723) = 0.4036. The serving engines' Hopper kernel (0.6) is at the
// Hopper GEMM ceiling, all MMAs and no vector work, so the H20 reaches its own ceiling, 0.8;
// Ampere has no serving row and serves at attention_fraction.
TEST(CalibrationCsvTest, AttentionFractionsMoveWithThePartsTensorToVectorBalance) {
  Result<Calibration> cal = LoadCalibration();
  Result<Catalog> catalog = LoadCatalog("");
  ASSERT_TRUE(cal.ok() && catalog.ok());
  struct Case {
    std::string name;
    std::string gpu;
    double flash2, cudnn, serving;
  };
  const Case kCases[] = {
      {"h100_is_the_reference", "H100-80G-SXM", 0.2, 0.3, 0.6},
      {"h200_same_chip", "H200-141G-SXM", 0.2, 0.3, 0.6},
      {"h20_tensor_cores_cut", "H20-96G", 0.47707, 0.59771, 0.8},
      {"a100_is_the_reference", "A100-80G-SXM", 0.3, 0.3, 0.3},
      {"a10_ga102", "A10-24G", 0.40355, 0.40355, 0.40355},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const Gpu* gpu = catalog->FindGpu(c.gpu);
    ASSERT_NE(gpu, nullptr);
    const ArchEfficiency e = cal->For(*gpu);
    EXPECT_NEAR(e.AttentionFraction(AttentionKernel::kFlash2), c.flash2, 5e-5);
    EXPECT_NEAR(e.AttentionFraction(AttentionKernel::kCudnn), c.cudnn, 5e-5);
    EXPECT_NEAR(e.ServingAttentionFraction(), c.serving, 5e-5);
  }
  // The H20's own decode bandwidth row (fitted on its SGLang rows) stays on the H20.
  EXPECT_DOUBLE_EQ(cal->For(*catalog->FindGpu("H20-96G")).memory_bw_fraction, 0.40);
  EXPECT_DOUBLE_EQ(cal->For(*catalog->FindGpu("H100-80G-SXM")).memory_bw_fraction, 0.80);
  // A fraction measured on the GPU itself is used as given.
  const std::string text =
      ShippedCalibrationWith("attention_fraction,gpu:H20-96G,0.25,f,x,prior\n");
  Result<Calibration> measured = ParseCalibration(text, "c.csv");
  ASSERT_TRUE(measured.ok()) << measured.status().message();
  const ArchEfficiency h20 = measured->For(*catalog->FindGpu("H20-96G"));
  EXPECT_DOUBLE_EQ(h20.AttentionFraction(AttentionKernel::kFlash2), 0.25);
  EXPECT_NEAR(h20.AttentionFraction(AttentionKernel::kCudnn), 0.59771, 5e-5);
}

TEST(CalibrationCsvTest, UnknownParametersAreErrors) {
  const char* text =
      "parameter,scope,value,unit,source,fitted\n"
      "dp_overlapp,*,0.5,fraction,x,prior\n";
  Result<Calibration> cal = ParseCalibration(text, "c.csv");
  ASSERT_FALSE(cal.ok());
  EXPECT_EQ(cal.status().message(),
            "c.csv:2:1: field \"parameter\": unknown parameter \"dp_overlapp\" for scope \"*\"");
}

// The data file is the only source of the model's values (issue 24): a parameter without a row
// is an error that names it, never a silent stand-in. So are a row given twice and one that sets
// no known parameter.
TEST(CalibrationCsvTest, MissingDuplicateAndUnknownRowsAreErrorsNamingThem) {
  const std::string shipped(EmbeddedData("calibration.csv"));
  const std::string header = "parameter,scope,value,unit,source,fitted\n";
  // The shipped text without the lines that start with one of `prefixes`.
  auto without = [&](std::vector<std::string> prefixes) {
    std::string out;
    for (size_t at = 0; at < shipped.size();) {
      const size_t end = std::min(shipped.find('\n', at), shipped.size());
      bool drop = false;
      for (const std::string& p : prefixes)
        drop = drop || shipped.compare(at, p.size(), p) == 0;
      if (!drop)
        out.append(shipped, at, end - at).push_back('\n');
      at = end + 1;
    }
    return out;
  };
  struct Case {
    std::string name;
    std::string text;
    std::string want;
  };
  const Case kCases[] = {
      {"missing_global", without({"fp8_gemm_factor,*,"}),
       "c.csv: missing row (parameter,scope): fp8_gemm_factor,*"},
      {"missing_fallback_fraction", without({"simt_fraction,fallback,"}),
       "c.csv: missing row (parameter,scope): simt_fraction,fallback"},
      {"missing_two", without({"dp_overlap,*,", "gemm_fraction,fallback,"}),
       "c.csv: missing rows (parameter,scope): dp_overlap,*; gemm_fraction,fallback"},
      {"duplicate",
       header + "dp_overlap,*,0.8,fraction,x,prior\ndp_overlap,*,0.5,fraction,x,prior\n",
       "c.csv:3:1: field \"parameter\": parameter \"dp_overlap\" for scope \"*\" is given twice "
       "(first on line 2)"},
      {"unknown_for_scope", header + "dp_overlap,Hopper,0.5,fraction,x,prior\n",
       "c.csv:2:1: field \"parameter\": expected gemm_fraction, memory_bw_fraction, "
       "attention_fraction, cudnn_attention_fraction, serving_attention_fraction, simt_fraction or "
       "attention_reference_ratio "
       "for scope \"Hopper\", got \"dp_overlap\""},
      {"reference_ratio_on_a_gpu",
       header + "attention_reference_ratio,gpu:H20-96G,19,ratio,x,prior\n",
       "c.csv:2:27: field \"scope\": attention_reference_ratio belongs to an architecture or "
       "\"fallback\", not to \"gpu:H20-96G\""},
      {"reference_ratio_out_of_range",
       header + "attention_reference_ratio,Hopper,0.5,ratio,x,prior\n",
       "c.csv:2:34: field \"value\": expected a tensor-to-FP32 ratio from 1 to 1000"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Calibration> cal = ParseCalibration(c.text, "c.csv");
    ASSERT_FALSE(cal.ok());
    EXPECT_EQ(cal.status().message(), c.want);
  }
}

// An architecture takes what it does not set from the fallback row wherever that row stands in
// the file (it once took it as of the line where the architecture first appeared).
TEST(CalibrationCsvTest, ArchitecturesInheritTheFallbackRowsWhereverTheyStand) {
  // Volta's rows come first in the file and give no attention_fraction; the fallback's is moved
  // to the end.
  const std::string text = ShippedCalibrationWith("attention_fraction,fallback,0.45,f,x,prior\n");
  Result<Calibration> cal = ParseCalibration(text, "c.csv");
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  Gpu volta, unlisted, hopper;
  volta.architecture = "Volta";
  unlisted.architecture = "Blackwell";
  hopper.architecture = "Hopper";
  EXPECT_DOUBLE_EQ(cal->For(volta).attention_fraction, 0.45) << "inherited";
  EXPECT_DOUBLE_EQ(cal->For(unlisted).attention_fraction, 0.45) << "the fallback itself";
  EXPECT_DOUBLE_EQ(cal->For(hopper).attention_fraction, 0.2) << "its own row";
}

// Without the file nothing has a value: an unloaded calibration is NaN, not a model.
TEST(CalibrationCsvTest, AnUnloadedCalibrationHasNoValues) {
  const Calibration none;
  EXPECT_TRUE(std::isnan(none.dp_overlap));
  EXPECT_TRUE(std::isnan(none.fallback.gemm_fraction));
  Result<Calibration> cal = LoadCalibration();
  ASSERT_TRUE(cal.ok()) << cal.status().message();
  EXPECT_DOUBLE_EQ(cal->dp_overlap, 0.8) << "data/calibration.csv";
}

}  // namespace
}  // namespace gpuplan::io
