// The diffusers pipeline reader over published pipeline folders (tests/testdata/diffusers):
// the shape and defaults each gives, agreement with the zoo rows that cite the same configs, and
// the errors a user sees for what it does not read.
#include "io/diffusers_config.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "gpuplan/estimate.h"
#include "io/hf_config.h"
#include "testing/embedded_calibration.h"
#include "testing/embedded_data.h"

namespace gpuplan::io {
namespace {

std::string Pipeline(const std::string& name) {
  return std::string(GPUPLAN_SOURCE_DIR) + "/tests/testdata/diffusers/" + name;
}

TEST(DiffusersConfigTest, PublishedPipelinesGiveTheirPublishedShapes) {
  struct Case {
    const char* dir;
    double params_b,
        aux_b;  // published: the denoiser; text encoders + VAE (the zoo's aux_params_b)
    int layers, hidden, steps;
    bool cfg;
    int width, height, frames;
    double once_tflops_min, once_tflops_max;  // hand-computed below
  };
  // FLUX.1-dev: 12B transformer; CLIP-L 0.12B + T5-XXL encoder 4.76B + VAE 0.08B. Once per
  // image: T5 at 512 tokens 2 x 4.76B x 512 = 4.9 TFLOPs, the VAE decode at 1024x1024 about 7.3.
  // Wan 2.1 14B: UMT5-XXL encoder 5.7B + VAE 0.1B; the 81-frame 832x480 decode about 290.
  const Case kCases[] = {
      {"flux.1-dev", 12, 4.97, 57, 3072, 28, false, 1024, 1024, 0, 10, 14},
      {"wan2.1-t2v-14b", 14, 5.83, 40, 5120, 50, true, 832, 480, 81, 200, 400},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.dir);
    Result<HfModelConfig> r = LoadHfModelConfig(Pipeline(c.dir));  // the folder
    ASSERT_TRUE(r.ok()) << r.status().message();
    const ModelArch& m = r->arch;
    EXPECT_EQ(m.kind, ModelKind::kOther);
    EXPECT_EQ(m.gen.modality, Modality::kDiffusion);
    EXPECT_TRUE(m.IsDit());
    EXPECT_NEAR(m.params / 1e9, c.params_b, 0.03 * c.params_b);
    EXPECT_NEAR(m.gen.aux_params / 1e9, c.aux_b, 0.05 * c.aux_b);
    EXPECT_EQ(m.layers, c.layers);
    EXPECT_EQ(m.hidden, c.hidden);
    EXPECT_EQ(m.gen.steps, c.steps);
    EXPECT_EQ(m.gen.cfg, c.cfg);
    EXPECT_EQ(m.gen.native_width, c.width);
    EXPECT_EQ(m.gen.native_height, c.height);
    EXPECT_EQ(m.gen.frames, c.frames);
    EXPECT_GE(m.gen.once_flops / 1e12, c.once_tflops_min);
    EXPECT_LE(m.gen.once_flops / 1e12, c.once_tflops_max);
    EXPECT_GT(m.gen.peak_bytes, 1e9);
    EXPECT_FALSE(r->notes.empty());  // the defaults it assumed are said
  }
}

// The same model read from its folder and from the zoo row that cites it plans the same: one
// 28-step 1024x1024 FLUX.1-dev image on an H100 within 5%.
TEST(DiffusersConfigTest, FolderAndZooRowAgree) {
  Result<HfModelConfig> r = LoadHfModelConfig(Pipeline("flux.1-dev"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ModelArch* zoo = testing::EmbeddedZoo().Find("flux.1-dev");
  const Gpu* gpu = testing::EmbeddedCatalog().FindGpu("H100-80G-SXM");
  ASSERT_NE(zoo, nullptr);
  ASSERT_NE(gpu, nullptr);
  Workload w;
  w.task = Task::kInference;
  w.model_name = "flux.1-dev";
  w.precision = Precision::kBf16;
  w.inference.batch = 1;
  w.inference.steps = 28;
  w.inference.engine = Engine::kTorch;
  perf::Layout l;
  const perf::Hardware hw = perf::HardwareFor(*gpu, 1, 1);
  Result<perf::Estimate> from_zoo =
      perf::EstimateRun(w, *zoo, hw, l, testing::EmbeddedCalibration());
  Result<perf::Estimate> from_folder =
      perf::EstimateRun(w, r->arch, hw, l, testing::EmbeddedCalibration());
  ASSERT_TRUE(from_zoo.ok()) << from_zoo.status().message();
  ASSERT_TRUE(from_folder.ok()) << from_folder.status().message();
  EXPECT_NEAR(from_folder->inference->request_s / from_zoo->inference->request_s, 1, 0.05);
  EXPECT_NEAR(from_folder->memory.per_gpu_gib / from_zoo->memory.per_gpu_gib, 1, 0.05);
}

// What it does not read, and broken files, are refused naming the file, the field or the class
// and what to do instead.
TEST(DiffusersConfigTest, ErrorsNameTheFileAndTheWayOut) {
  const std::string flux_index =
      R"({"_class_name": "FluxPipeline", "transformer": ["diffusers", "FluxTransformer2DModel"]})";
  struct Case {
    const char* name;
    std::string index;
    std::map<std::string, std::string> files;
    const char* want;
  };
  const Case kCases[] = {
      {"unet_pipeline",
       R"({"_class_name": "StableDiffusionXLPipeline", "unet": ["diffusers", "UNet2DConditionModel"]})",
       {},
       "--model sdxl"},
      {"not_json", "{oops", {}, "p/model_index.json:1:"},
      {"not_an_object", "[1, 2]", {}, "model_index.json: not a JSON object"},
      {"no_transformer",
       R"({"_class_name": "X", "vae": ["diffusers", "AutoencoderKL"]})",
       {},
       "no \"transformer\" component"},
      {"missing_folder", flux_index, {}, "component \"transformer\""},
      {"unknown_class",
       flux_index,
       {{"transformer/config.json",
         R"({"_class_name": "HunyuanVideoTransformer3DModel", "num_attention_heads": 24,
             "attention_head_dim": 128})"}},
       "HunyuanVideoTransformer3DModel\" is not read"},
      {"missing_field",
       flux_index,
       {{"transformer/config.json",
         R"({"_class_name": "FluxTransformer2DModel", "num_attention_heads": 24,
             "attention_head_dim": 128})"}},
       "transformer/config.json: field \"num_layers\" is missing"},
      {"wrong_type",
       flux_index,
       {{"transformer/config.json",
         R"({"_class_name": "FluxTransformer2DModel", "num_attention_heads": "24",
             "attention_head_dim": 128, "num_layers": 19})"}},
       "field \"num_attention_heads\": expected a number"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<HfModelConfig> r = ParseDiffusersPipeline(
        c.index, "p/model_index.json", [&](const std::string& path) -> Result<std::string> {
          auto it = c.files.find(path);
          if (it == c.files.end())
            return Status::NotFound(path + ": no such file");
          return it->second;
        });
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(c.want), std::string::npos) << r.status().message();
  }
  Result<HfModelConfig> sdxl = LoadHfModelConfig(Pipeline("sdxl"));
  ASSERT_FALSE(sdxl.ok());
  EXPECT_NE(sdxl.status().message().find("--model sdxl"), std::string::npos);
}

}  // namespace
}  // namespace gpuplan::io
