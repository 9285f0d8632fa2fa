#include "io/validation.h"

#include <gtest/gtest.h>

#include <string>

#include "io/benchmark_burst.h"
#include "io/calibration_csv.h"
#include "io/catalog_loader.h"
#include "io/model_zoo.h"

namespace gpuplan::io {
namespace {

TEST(ValidationTest, StatsUseMedianAndNearestRankP90) {
  struct Case {
    const char* name;
    std::vector<double> values;
    double median, p90;
  };
  const Case kCases[] = {
      {"odd", {0.3, 0.1, 0.2}, 0.2, 0.3},
      {"even", {0.4, 0.1, 0.2, 0.3}, 0.25, 0.4},
      {"ten", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5.5, 9},
      {"empty", {}, 0, 0},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    ErrorStats s = Stats(c.values);
    EXPECT_DOUBLE_EQ(s.median_ape, c.median);
    EXPECT_DOUBLE_EQ(s.p90_ape, c.p90);
  }
}

// The embedded catalog, model zoo and calibration every harness test predicts with.
struct EmbeddedData {
  Result<Catalog> catalog;
  Result<ModelZoo> zoo;
  Result<Calibration> cal;
  bool ok() const { return catalog.ok() && zoo.ok() && cal.ok(); }
};

EmbeddedData LoadEmbedded() {
  EmbeddedData d{LoadCatalog(""), LoadModelZoo(), LoadCalibration()};
  if (d.catalog.ok())
    d.catalog->Validate();
  return d;
}

TEST(ValidationTest, RowsGetStatusAndReason) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,params_b,layers,hidden,heads,kv_heads,ffn,vocab,seq_len,task,precision,gpu,gpus,"
      "tp,pp,dp,zero,micro_batch,global_batch,recompute,metric,value,memory_kind,mfu_basis,"
      "notes\n";
  const std::string rows =
      "ok-mfu,mpt-7b,,32,4096,32,32,16384,50368,2048,pretrain,bf16,A100-80G-SXM,8,1,1,8,3,8,"
      "64,none,mfu,0.5,,peak_tflops=312;flops=model,\n"
      "other-gpu,mpt-7b,,32,4096,32,32,16384,50368,2048,pretrain,bf16,OTHER,8,1,1,8,3,8,64,"
      "none,mfu,0.5,,,\n"
      "no-seq,llama-2-7b,,,,,,,,,finetune_lora,bf16,A100-40G-SXM,1,1,1,1,0,2,2,,peak_mem_gib,"
      "20,allocated,,\n"
      "bad-number,mpt-7b,,32,4096,32,32,16384,50368,2048,pretrain,bf16,A100-80G-SXM,8,1,1,8,3,8,"
      "64,none,mfu,fast,,,\n"
      "oom,llama-2-70b,,,,,,,,2048,finetune_full,bf16,A100-80G-SXM,1,1,1,1,0,1,1,none,fits,0,,,\n";
  Result<ValidationReport> r =
      Validate(header + rows, "v.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 5u);
  struct Want {
    RowStatus status;
    const char* reason;
  };
  const Want kWant[] = {
      {RowStatus::kOk, ""},
      {RowStatus::kUnsupported, "unknown GPU \"OTHER\""},
      {RowStatus::kUnsupported, "missing seq_len"},
      {RowStatus::kError,
       "v.csv:5:102: field \"value\": expected a number from -1e+18 to 1e+18, got \"fast\""},
      {RowStatus::kOk, ""},
  };
  for (size_t i = 0; i < r->rows.size(); ++i) {
    SCOPED_TRACE(r->rows[i].id);
    EXPECT_EQ(r->rows[i].status, kWant[i].status);
    EXPECT_EQ(r->rows[i].reason, kWant[i].reason);
  }
  EXPECT_GT(r->rows[0].predicted, 0.2);  // a plausible MFU, not a placeholder
  EXPECT_LT(r->rows[0].predicted, 0.8);
  EXPECT_EQ(r->rows[4].predicted, 0);  // 70B full fine-tune does not fit one GPU
  EXPECT_EQ(r->summary.fits_rows, 1);  // the only memory row is unsupported
  EXPECT_EQ(r->summary.fits_correct, 1);
  EXPECT_EQ(r->summary.total, 5);
  EXPECT_EQ(r->summary.unsupported, 2);
  EXPECT_EQ(r->summary.errors, 1);
}

// A serving engine's throughput with no batch stated is a full-load benchmark: predicted at as
// many concurrent sequences as the KV cache holds (up to the engine's limit), not at batch 1.
// HF generate has no such mode: it runs the batch it is given.
TEST(ValidationTest, ServingThroughputWithoutBatchIsAtFullLoad) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,batch_size_inference,output_tokens,"
      "metric,value,notes\n";
  const std::string rows =
      "vllm-full,llama-3-8b,512,inference_offline,bf16,H100-80G-SXM,1,1,1,1,,256,"
      "tokens_per_s_per_gpu,5000,impl=vLLM 0.6\n"
      "vllm-batch1,llama-3-8b,512,inference_offline,bf16,H100-80G-SXM,1,1,1,1,1,256,"
      "tokens_per_s_per_gpu,100,impl=vLLM 0.6\n"
      "hf-unset,llama-3-8b,512,inference_offline,bf16,H100-80G-SXM,1,1,1,1,,256,"
      "tokens_per_s_per_gpu,30,impl=HF transformers\n";
  Result<ValidationReport> r =
      Validate(header + rows, "v.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 3u);
  for (const ValidationRow& row : r->rows) {
    SCOPED_TRACE(row.id);
    EXPECT_EQ(row.status, RowStatus::kOk);
  }
  EXPECT_EQ(r->rows[0].reason, "full load: batch 256; ");
  EXPECT_GT(r->rows[0].predicted, 20 * r->rows[1].predicted);
  EXPECT_EQ(r->rows[2].reason, "");
  EXPECT_LT(r->rows[2].predicted, r->rows[1].predicted);  // eager HF at batch 1
}

// A training row that states its global batch but not its micro-batch (many published runs) is
// predicted at the micro-batch the layout search picks under the row's own degrees, and says so;
// one that states neither stays unsupported with the reason.
TEST(ValidationTest, TrainingRowWithoutMicroBatchTakesTheSearchedOne) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,gpus_per_node,tp,pp,dp,zero,micro_batch,"
      "global_batch,recompute,metric,value,notes\n";
  const std::string rows =
      "stated,llama-2-7b,4096,pretrain,bf16,A100-80G-SXM,8,8,1,1,8,1,1,64,full,"
      "tokens_per_s_per_gpu,3000,\n"
      "searched,llama-2-7b,4096,pretrain,bf16,A100-80G-SXM,8,8,1,1,8,1,,64,full,"
      "tokens_per_s_per_gpu,3000,\n"
      "neither,llama-2-7b,4096,pretrain,bf16,A100-80G-SXM,8,8,1,1,8,1,,,full,"
      "tokens_per_s_per_gpu,3000,\n";
  Result<ValidationReport> r =
      Validate(header + rows, "v.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 3u);
  EXPECT_EQ(r->rows[0].status, RowStatus::kOk);
  EXPECT_EQ(r->rows[1].status, RowStatus::kOk);
  EXPECT_NE(r->rows[1].reason.find("(searched: the row states none)"), std::string::npos)
      << r->rows[1].reason;
  // The search's micro-batch is the fastest that fits: never slower than micro-batch 1.
  EXPECT_GE(r->rows[1].predicted, r->rows[0].predicted * 0.999);
  EXPECT_EQ(r->rows[2].status, RowStatus::kUnsupported);
  EXPECT_EQ(r->rows[2].reason, "missing micro_batch and global_batch");
}

// A row that states neither its micro-batch nor its recomputation leaves both to the search: at
// 8K tokens standard attention's scores (16 heads x 8192^2 per layer) fit no micro-batch of
// GPT-3 1.3B on an 80 GB A100 without recomputation, and the run did run. A row that states
// `none` keeps it, and says nothing fits.
TEST(ValidationTest, TrainingRowWithNeitherMicroBatchNorRecomputeSearchesBoth) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,gpus_per_node,tp,pp,dp,zero,micro_batch,"
      "global_batch,recompute,flash_attention,metric,value,notes\n";
  const std::string rows =
      "neither,gpt3-1.3b,8192,pretrain,bf16,A100-80G-SXM,8,8,1,1,8,1,,128,,no,tflops_per_gpu,72,\n"
      "none,gpt3-1.3b,8192,pretrain,bf16,A100-80G-SXM,8,8,1,1,8,1,,128,none,no,tflops_per_gpu,72,"
      "\n";
  Result<ValidationReport> r =
      Validate(header + rows, "v.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0].status, RowStatus::kOk);
  EXPECT_EQ(r->rows[0].reason.find("nothing fits"), std::string::npos) << r->rows[0].reason;
  EXPECT_EQ(r->rows[0].reason.find("recompute none"), std::string::npos) << r->rows[0].reason;
  EXPECT_NE(r->rows[0].reason.find(", recompute "), std::string::npos) << r->rows[0].reason;
  EXPECT_NE(r->rows[1].reason.find("nothing fits"), std::string::npos) << r->rows[1].reason;
  // Recomputing costs time: the run that fits is slower than the one that cannot.
  EXPECT_LT(r->rows[0].predicted, r->rows[1].predicted);
}

// A serving row that set its cache type says so in its notes (kv_cache_dtype=fp8): the cache
// is predicted in one byte, so the row's memory is the weights plus half the 16-bit cache; an
// unknown type is the row's error, naming the names allowed.
TEST(ValidationTest, ANotedFp8KvCacheIsPredictedInOneByte) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,batch_size_inference,output_tokens,"
      "metric,value,memory_kind,notes\n";
  const std::string rows =
      "auto,llama-3-8b,4096,inference_offline,bf16,H100-80G-SXM,1,1,1,1,8,256,peak_mem_gib,20,"
      "allocated,impl=vLLM\n"
      "fp8,llama-3-8b,4096,inference_offline,bf16,H100-80G-SXM,1,1,1,1,8,256,peak_mem_gib,20,"
      "allocated,impl=vLLM; kv_cache_dtype=fp8;\n"
      "bad,llama-3-8b,4096,inference_offline,bf16,H100-80G-SXM,1,1,1,1,8,256,peak_mem_gib,20,"
      "allocated,impl=vLLM; kv_cache_dtype=int4;\n";
  Result<ValidationReport> r =
      Validate(header + rows, "v.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 3u);
  EXPECT_EQ(r->rows[0].status, RowStatus::kOk);
  EXPECT_EQ(r->rows[1].status, RowStatus::kOk);
  // 2 x 32 layers x 8 KV heads x 128 x (4096 + 256) tokens x 8 sequences: 4.25 GiB in 16 bits.
  EXPECT_NEAR(r->rows[0].predicted - r->rows[1].predicted, 4.25 / 2, 0.05);
  EXPECT_NE(r->rows[2].status, RowStatus::kOk);
  EXPECT_NE(r->rows[2].reason.find("kv_cache_dtype=int4 is not one of auto"), std::string::npos)
      << r->rows[2].reason;
}

// A recipe that overlaps its tensor-parallel communication with the GEMMs
// (tp_comm_overlap=True in the notes, as Megatron-Bridge's performance recipes set it) is
// predicted faster than the same run with the communication exposed.
TEST(ValidationTest, ANotedTensorParallelOverlapHidesItsCommunication) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,micro_batch,global_batch,recompute,"
      "framework,metric,value,notes\n";
  const std::string run =
      "llama-3-70b,8192,pretrain,bf16,H100-80G-SXM,16,4,4,1,1,16,full,megatron,"
      "tokens_per_s_per_gpu,400,";
  const std::string rows = "exposed," + run + "\noverlapped," + run + "tp_comm_overlap=True\n";
  Result<ValidationReport> r =
      Validate(header + rows, "v.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 2u);
  ASSERT_EQ(r->rows[0].status, RowStatus::kOk) << r->rows[0].reason;
  ASSERT_EQ(r->rows[1].status, RowStatus::kOk) << r->rows[1].reason;
  EXPECT_GT(r->rows[1].predicted, 1.02 * r->rows[0].predicted);
}

// Megatron-Bridge prints model TFLOP/s with the attention core counted at seq / 2 (its
// flop_utils attn_layer_flops), gpuplan's model FLOPs count the full square (6N + 12Lhs): a row
// whose basis says attention=causal is predicted as the source counts, so the speed compares,
// not the convention. Llama 3 8B at 8,192 tokens: 12 x 32 layers x 4,096 x 8,192 = 12.9 GFLOP
// a token of attention, half of it left out; counted as the GPU runs it with full recomputation
// (flops=hardware), attention runs four passes: 16 x 32 x 4,096 x 8,192.
TEST(ValidationTest, ACausalFlopsBasisCountsHalfTheAttentionSquare) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,micro_batch,global_batch,recompute,"
      "metric,value,mfu_basis\n";
  const std::string run = "llama-3-8b,8192,pretrain,bf16,H100-80G-SXM,8,1,1,8,1,64,";
  std::string rows;
  for (const char* recompute : {"none", "full"}) {
    const std::string r = run + recompute + ",";
    rows += std::string("tokens,") + r + "tokens_per_s_per_gpu,9000,\n";
    for (const char* flops : {"model", "hardware"}) {
      rows += std::string("full,") + r + "tflops_per_gpu,500,flops=" + flops + "\n";
      rows +=
          std::string("causal,") + r + "tflops_per_gpu,500,flops=" + flops + ";attention=causal\n";
    }
  }
  rows += "typo," + run + "none,tflops_per_gpu,500,flops=model;attention=casual\n";
  Result<ValidationReport> r =
      Validate(header + rows, "v.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 11u);
  // A basis the validator cannot read is the row's error, naming the field, not a silent default.
  EXPECT_EQ(r->rows[10].status, RowStatus::kError);
  EXPECT_NE(r->rows[10].reason.find(
                "v.csv:12:86: field \"mfu_basis\": attention= expects causal or full, got "
                "\"casual\""),
            std::string::npos)
      << r->rows[10].reason;
  r->rows.pop_back();
  for (const auto& row : r->rows)
    ASSERT_EQ(row.status, RowStatus::kOk) << row.id << ": " << row.reason;
  const double attention_pass = 4.0 * 32 * 4096 * 8192;  // one pass over the full square
  struct Case {
    const char* name;
    size_t tokens, full, causal;
    double attention;
  };
  const Case kCases[] = {{"model", 0, 1, 2, 3 * attention_pass},
                         {"hardware_no_recompute", 0, 3, 4, 3 * attention_pass},
                         {"model_recompute", 5, 6, 7, 3 * attention_pass},
                         {"hardware_recompute", 5, 8, 9, 4 * attention_pass}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const double flops_per_token = r->rows[c.full].predicted * 1e12 / r->rows[c.tokens].predicted;
    EXPECT_NEAR(r->rows[c.causal].predicted / r->rows[c.full].predicted,
                1 - 0.5 * c.attention / flops_per_token, 1e-9);
  }
}

// A convolutional network's run that states its layout (memory_format=nchw: DeepLearningExamples'
// TF32 configs) is predicted with cuDNN's transposes, slower than the channels-last default; an
// unknown layout is the row's error.
TEST(ValidationTest, ANotedNchwLayoutSlowsTensorCoreConvolutions) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,micro_batch,global_batch,metric,value,"
      "notes\n";
  const std::string rows =
      "nhwc,resnet-50,1,pretrain,tf32,A100-80G-SXM,1,1,1,1,256,256,samples_per_s_per_gpu,938,\n"
      "nchw,resnet-50,1,pretrain,tf32,A100-80G-SXM,1,1,1,1,256,256,samples_per_s_per_gpu,938,"
      "memory_format=nchw;\n"
      "bad,resnet-50,1,pretrain,tf32,A100-80G-SXM,1,1,1,1,256,256,samples_per_s_per_gpu,938,"
      "memory_format=chw;\n";
  Result<ValidationReport> r =
      Validate(header + rows, "v.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 3u);
  ASSERT_EQ(r->rows[0].status, RowStatus::kOk) << r->rows[0].reason;
  ASSERT_EQ(r->rows[1].status, RowStatus::kOk) << r->rows[1].reason;
  EXPECT_LT(r->rows[1].predicted, 0.8 * r->rows[0].predicted);
  EXPECT_NE(r->rows[2].status, RowStatus::kOk);
  EXPECT_NE(r->rows[2].reason.find("memory_format=chw is not one of nhwc, nchw"), std::string::npos)
      << r->rows[2].reason;
}

// Inference rows count per model copy: GPUs that run independent copies (dp, or GPUs beyond
// the stated degrees) each serve their own batch, so a per-GPU rate on 8 GPUs at dp 8 is one
// GPU's rate, not an eighth of it (issue 27: multi-GPU inference rows came out 2-8x low). For
// each metric the 8-GPU row must predict what the 1-GPU row predicts.
TEST(ValidationTest, InferenceIsCountedPerModelCopy) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  struct Case {
    const char* name;
    const char* model;
    const char* task;
    const char* metric;
    const char* eight_gpus;  // the gpus,tp,pp,dp columns of the multi-GPU row
  };
  const Case kCases[] = {
      {"OfflineDp8", "llama-3-8b", "inference_offline", "output_tokens_per_s_per_gpu", "8,1,1,8"},
      {"OfflineNoDegrees", "llama-3-8b", "inference_offline", "output_tokens_per_s_per_gpu",
       "8,,,"},
      {"DecodeTokensDp8", "llama-3-8b", "inference_decode", "tokens_per_s_per_gpu", "8,1,1,8"},
      {"DecodeOutputDp8", "llama-3-8b", "inference_decode", "output_tokens_per_s_per_gpu",
       "8,1,1,8"},
      {"ImagesDp8", "resnet-50", "inference_offline", "samples_per_s_per_gpu", "8,1,1,8"},
  };
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,batch_size_inference,output_tokens,"
      "metric,value,notes\n";
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const std::string common =
        std::string(",") + c.model + ",512," + c.task + ",bf16,H100-80G-SXM,";
    const std::string tail = std::string(",64,128,") + c.metric + ",1000,impl=vLLM 0.6\n";
    const std::string rows =
        "one" + common + "1,1,1,1" + tail + "eight" + common + c.eight_gpus + tail;
    Result<ValidationReport> r =
        Validate(header + rows, "v.csv", *data.catalog, *data.zoo, *data.cal);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->rows.size(), 2u);
    ASSERT_EQ(r->rows[0].status, RowStatus::kOk) << r->rows[0].reason;
    ASSERT_EQ(r->rows[1].status, RowStatus::kOk) << r->rows[1].reason;
    EXPECT_GT(r->rows[0].predicted, 0);
    EXPECT_NEAR(r->rows[1].predicted, r->rows[0].predicted, 1e-9 * r->rows[0].predicted);
  }
}

// A rate or time the model predicts as 0 is not scored as a prediction (it would read as a
// 100% error that is really "not modelled"): the row is unsupported, with the reason.
TEST(ValidationTest, AZeroPredictionIsNeverOk) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  // Prefill-only rows generate nothing: their output-token rate is 0.
  const std::string csv =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,batch_size_inference,output_tokens,"
      "metric,value,notes\n"
      "zero,llama-3-8b,512,inference_prefill,bf16,H100-80G-SXM,1,1,1,1,8,0,"
      "output_tokens_per_s_per_gpu,1000,impl=vLLM 0.6\n";
  Result<ValidationReport> r = Validate(csv, "v.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0].status, RowStatus::kUnsupported);
  EXPECT_NE(r->rows[0].reason.find("predicts 0"), std::string::npos) << r->rows[0].reason;
}

// A measurement faster than its own labels allow (Llama 3 8B in BF16 on one H100 at batch 1:
// reading 15 GB of weights a token at 3.35 TB/s caps decode near 220 tokens/s and a token's step
// near 4.5 ms) is reported inconsistent with the bound in its reason, not scored, and not counted
// against the model's coverage; a plausible one is predicted as usual.
TEST(ValidationTest, AMeasurementFasterThanItsLabelsAllowIsInconsistent) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string csv =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,batch_size_inference,output_tokens,"
      "metric,value,notes\n"
      "plausible,llama-3-8b,512,inference_offline,bf16,H100-80G-SXM,1,1,1,1,1,256,"
      "output_tokens_per_s_per_gpu,150,impl=TensorRT-LLM\n"
      "too-fast,llama-3-8b,512,inference_offline,bf16,H100-80G-SXM,1,1,1,1,1,256,"
      "output_tokens_per_s_per_gpu,400,impl=TensorRT-LLM\n"
      "tpot-too-short,llama-3-8b,512,inference_offline,bf16,H100-80G-SXM,1,1,1,1,1,256,"
      "tpot_ms,3,impl=TensorRT-LLM\n"
      "ttft-too-short,llama-3-8b,512,inference_prefill,bf16,H100-80G-SXM,1,1,1,1,1,1,"
      "ttft_ms,2,impl=TensorRT-LLM\n";
  Result<ValidationReport> r = Validate(csv, "v.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 4u);
  EXPECT_EQ(r->rows[0].status, RowStatus::kOk) << r->rows[0].reason;
  for (size_t i = 1; i < 4; ++i) {
    SCOPED_TRACE(r->rows[i].id);
    EXPECT_EQ(r->rows[i].status, RowStatus::kInconsistent);
    EXPECT_NE(r->rows[i].reason.find("datasheet bandwidth"), std::string::npos)
        << r->rows[i].reason;
  }
  EXPECT_EQ(RowStatusName(RowStatus::kInconsistent), "inconsistent");
  EXPECT_EQ(r->summary.inconsistent, 3);
  EXPECT_EQ(r->summary.throughput.rows, 1);
  EXPECT_DOUBLE_EQ(r->summary.supported_fraction, 1.0);
}

// A hybrid whose notes count Mamba-2 layers is refused with the count, not predicted as a
// transformer with an attention and an MLP in every layer; the same row without it is predicted.
TEST(ValidationTest, HybridMambaRowsAreUnsupportedNotReadAsTransformers) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,layers,hidden,heads,kv_heads,vocab,experts,top_k,moe_ffn,seq_len,task,precision,"
      "gpu,gpus,tp,pp,dp,ep,micro_batch,global_batch,metric,value,notes\n";
  const std::string row =
      ",nano-moe,52,2688,32,2,131072,128,6,1856,8192,pretrain,bf16,H100-80G-SXM,8,1,1,8,8,1,64,"
      "tokens_per_s_per_gpu,10000,";
  Result<ValidationReport> r =
      Validate(header + "hybrid" + row + "arch: hybrid; mamba_layers=23\n" + "plain" + row + "\n",
               "m.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0].status, RowStatus::kUnsupported);
  EXPECT_NE(r->rows[0].reason.find("23 Mamba-2 layers"), std::string::npos) << r->rows[0].reason;
  EXPECT_EQ(r->rows[1].status, RowStatus::kOk) << r->rows[1].reason;
}

// The memory savers a row names reach the prediction: offload (cpu = optimizer, or params),
// "optimizer in backward" in the notes; an offload the layout does not know is unsupported.
TEST(ValidationTest, OffloadAndOptimizerInBackwardReachThePrediction) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,optimizer,gpu,gpus,tp,pp,dp,zero,offload,micro_batch,"
      "global_batch,recompute,metric,value,memory_kind,notes\n";
  const std::string full8b = ",llama-3.1-8b,2048,finetune_full,bf16,adamw,A100-80G-SXM,1,1,1,1,0,";
  const std::string fsdp70b =
      ",llama-3.1-70b,2048,finetune_full,bf16,adamw,A100-80G-SXM,8,1,1,8,3,";
  const std::string one = ",2,2,full,peak_mem_gib,20,allocated,";     // micro 2, global 2
  const std::string eight = ",2,16,full,peak_mem_gib,20,allocated,";  // micro 2 on dp 8
  const std::string csv = header + "8b-plain" + full8b + "none" + one + "\n" + "8b-in-bwd" +
                          full8b + "none" + one + "optimizer in backward\n" + "8b-cpu" + full8b +
                          "cpu" + one + "\n" + "70b-plain" + fsdp70b + "none" + eight + "\n" +
                          "70b-params" + fsdp70b + "params" + eight + "\n" + "70b-disk" + fsdp70b +
                          "nvme" + eight + "\n";
  Result<ValidationReport> r = Validate(csv, "o.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 6u);
  for (size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(r->rows[i].id);
    ASSERT_EQ(r->rows[i].status, RowStatus::kOk) << r->rows[i].reason;
  }
  struct Saving {
    const char* name;
    size_t with, without;
    double at_least_gib;  // what the saver must take off the predicted peak
  };
  const Saving kSavings[] = {
      // 8B weights' bf16 gradients (16 GB) are never held at once.
      {"optimizer_in_backward", 1, 0, 8},
      // Adam's fp32 moments (and master weights) of 8B live in host memory.
      {"optimizer_offload", 2, 0, 40},
      // FSDP's shard of 70B parameters, gradients and optimizer state moves to the host.
      {"params_offload", 4, 3, 10},
  };
  for (const Saving& s : kSavings) {
    SCOPED_TRACE(s.name);
    EXPECT_LT(r->rows[s.with].predicted + s.at_least_gib, r->rows[s.without].predicted);
  }
  EXPECT_EQ(r->rows[5].status, RowStatus::kUnsupported);
  EXPECT_EQ(r->rows[5].reason,
            "unknown offload \"nvme\" (expected none, cpu, optimizer or params)");
}

// The `framework` column names the stack a run used, and its attention kernel times the run:
// Megatron on H100 runs cuDNN attention (the shipped calibration's Hopper cudnn fraction), an
// unnamed stack FlashAttention-2; on A100 nothing tells them apart. An unknown name is an error
// naming the field.
TEST(ValidationTest, FrameworkColumnTimesTheRunWithItsAttentionKernel) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,micro_batch,global_batch,recompute,"
      "metric,value,framework,notes\n";
  const std::string h100 =
      ",llama-2-7b,8192,pretrain,bf16,H100-80G-SXM,8,1,1,8,1,8,selective,"
      "tokens_per_s_per_gpu,3000,";
  const std::string a100 =
      ",llama-2-7b,8192,pretrain,bf16,A100-80G-SXM,8,1,1,8,1,8,selective,"
      "tokens_per_s_per_gpu,3000,";
  const std::string csv = header + "h100-megatron" + h100 + "megatron,\n" + "h100-unnamed" + h100 +
                          ",\n" + "a100-megatron" + a100 + "megatron,\n" + "a100-unnamed" + a100 +
                          ",\n" + "nemo" + h100 + "nemo,\n";
  Result<ValidationReport> r = Validate(csv, "f.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 5u);
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(r->rows[i].id);
    ASSERT_EQ(r->rows[i].status, RowStatus::kOk) << r->rows[i].reason;
  }
  // At 8K tokens the attention core is about a third of a 7B step on H100.
  EXPECT_GT(r->rows[0].predicted, 1.05 * r->rows[1].predicted) << "cuDNN attention under megatron";
  EXPECT_DOUBLE_EQ(r->rows[2].predicted, r->rows[3].predicted) << "A100: one attention fraction";
  EXPECT_EQ(r->rows[4].status, RowStatus::kError);
  EXPECT_NE(r->rows[4].reason.find("field \"framework\": unknown framework \"nemo\""),
            std::string::npos)
      << r->rows[4].reason;
}

// The notes token cross_entropy= says how a run's loss held the logits where its stack's version
// differs from the framework row (torchtune before v0.3): fp32 holds 14 bytes per logit, the
// 16-bit loss 8; a value outside the four is unsupported with the reason.
TEST(ValidationTest, CrossEntropyNoteSetsTheLossMemory) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,micro_batch,global_batch,recompute,"
      "lora_rank,metric,value,memory_kind,notes\n";
  const std::string row =
      ",llama-2-7b,2048,finetune_lora,bf16,A100-80G-SXM,1,1,1,1,4,8,full,8,peak_mem_gib,20,"
      "allocated,";
  const std::string csv = header + "fp32" + row + "cross_entropy=fp32\n" + "native" + row +
                          "an older stack; cross_entropy=native\n" + "liger" + row +
                          "cross_entropy=liger\n";
  Result<ValidationReport> r = Validate(csv, "l.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 3u);
  ASSERT_EQ(r->rows[0].status, RowStatus::kOk) << r->rows[0].reason;
  ASSERT_EQ(r->rows[1].status, RowStatus::kOk) << r->rows[1].reason;
  // 2048 x 4 x 32,000 logits x 6 bytes = 1.46 GiB apart, before the allocator's share.
  EXPECT_NEAR(r->rows[0].predicted - r->rows[1].predicted, 1.46, 0.2);
  EXPECT_EQ(r->rows[2].status, RowStatus::kUnsupported);
  EXPECT_NE(r->rows[2].reason.find(
                "cross_entropy=liger is not one of fp32, chunked, fused, native, fused_linear"),
            std::string::npos)
      << r->rows[2].reason;
}

// All prompts issued at once (vllm bench serve --request-rate inf): past the engine's batch limit
// they queue, and the mean TTFT counts the wait; a burst the engine holds whole waits for nothing.
TEST(ValidationTest, ABurstsMeanTtftCountsTheQueue) {
  struct Case {
    const char* name;
    int requests, concurrent;
    double want;
  };
  const Case kCases[] = {
      {"fits_one_batch", 200, 256, 0},
      {"exactly_two_batches", 512, 256, 0.5},
      // 256 wait one batch, 256 two, 232 three: (256 + 512 + 696) / 1000.
      {"gpustack_sharegpt_1000_at_256", 1000, 256, 1.464},
      {"nothing_runs", 10, 0, 0},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    EXPECT_NEAR(MeanBatchesQueuedBehind(c.requests, c.concurrent), c.want, 1e-12);
  }
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,model,seq_len,task,precision,gpu,gpus,tp,pp,dp,batch_size_inference,output_tokens,"
      "metric,value,notes\n";
  const std::string tail = ",llama-3-8b,215,inference_serving,bf16,H100-80G-SXM,1,1,1,1,";
  const std::string csv = header + "burst" + tail + "1000,197,ttft_ms,20000,engine vLLM\n" + "one" +
                          tail + "100,197,ttft_ms,200,engine vLLM\n";
  Result<ValidationReport> r = Validate(csv, "b.csv", *data.catalog, *data.zoo, *data.cal);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 2u);
  ASSERT_EQ(r->rows[0].status, RowStatus::kOk) << r->rows[0].reason;
  ASSERT_EQ(r->rows[1].status, RowStatus::kOk) << r->rows[1].reason;
  EXPECT_NE(r->rows[0].reason.find("engine runs 256 at once; the other 744 queue: TTFT adds 1.46 "
                                   "batch lifetimes"),
            std::string::npos)
      << r->rows[0].reason;
  // The burst waits 1.464 lifetimes of a 256-request batch: whole seconds, not one prefill.
  EXPECT_GT(r->rows[0].predicted, 20 * r->rows[1].predicted);
}

}  // namespace
}  // namespace gpuplan::io

namespace gpuplan::io {
namespace {

// Rows of one run count once; throughput rows get the inverted time range; coverage counts runs.
TEST(ValidationUncertaintyTest, RowsCarryPredictedRangeAndSummaryCoverage) {
  const EmbeddedData data = LoadEmbedded();
  ASSERT_TRUE(data.ok());
  const std::string header =
      "id,source,model,layers,hidden,heads,kv_heads,ffn,vocab,seq_len,task,precision,gpu,gpus,"
      "tp,pp,dp,zero,micro_batch,global_batch,recompute,metric,value,memory_kind,mfu_basis,"
      "notes\n";
  const std::string run =
      ",mpt-7b,32,4096,32,32,16384,50368,2048,pretrain,bf16,A100-80G-SXM,8,1,"
      "1,8,3,8,64,none,";
  const std::string csv = header + "R1,a" + run + "mfu,0.5,,peak_tflops=312;flops=model,\n" +
                          "R1.b,a" + run + "tokens_per_s_per_gpu,3000,,,\n" + "R2,b" + run +
                          "tokens_per_s_per_gpu,1000,,,\n";
  uncertainty::Table table = uncertainty::Fit({{{"time"}, 0.8, "x"}, {{"time"}, 1.25, "y"}}, 1, 1);
  table.regimes.at("time").p10 = 0.8;
  table.regimes.at("time").p90 = 1.25;
  Result<ValidationReport> r = Validate(csv, "u.csv", *data.catalog, *data.zoo, *data.cal, &table);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 3u);
  for (const ValidationRow& row : r->rows) {
    SCOPED_TRACE(row.id);
    ASSERT_TRUE(row.predicted_range.has_value());
    // A throughput: faster than predicted by 1/0.8 at p10 of time, slower by 1/1.25 at p90.
    EXPECT_NEAR(row.predicted_range->first, row.predicted / 1.25, 1e-9);
    EXPECT_NEAR(row.predicted_range->second, row.predicted / 0.8, 1e-9);
  }
  EXPECT_TRUE(r->rows[0].sample);
  EXPECT_FALSE(r->rows[1].sample);  // R1.b is the same run as R1
  EXPECT_EQ(r->summary.coverage_rows, 2);
  ASSERT_TRUE(r->summary.coverage_80.has_value());
  int inside = 0;
  for (const ValidationRow& row : r->rows) {
    if (row.sample && row.measured >= row.predicted_range->first &&
        row.measured <= row.predicted_range->second) {
      ++inside;
    }
  }
  EXPECT_DOUBLE_EQ(*r->summary.coverage_80, inside / 2.0);
  // Two sources: each checked against a fit on the other.
  EXPECT_EQ(r->summary.heldout_rows, 2);
}

}  // namespace
}  // namespace gpuplan::io
