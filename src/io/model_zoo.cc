#include "io/model_zoo.h"

#include <tuple>
#include <utility>

#include "gpuplan/workload.h"
#include "io/csv.h"
#include "io/embedded_data.h"

namespace gpuplan::io {
namespace {

// A whole number column that may be empty (kind=other rows have no shape).
int OptionalInt(CsvRowReader& r, std::string_view column, int max) {
  if (r.Text(column).empty())
    return 0;
  return r.Integer(column, 0, max);
}

// head_dim, MLA ranks, MoE and sliding-window columns; all optional (empty = not used).
void ParseModernShape(CsvRowReader& r, ModelArch& m) {
  m.head_dim = OptionalInt(r, "head_dim", 1 << 16);
  const std::string attention = r.Text("attention");
  if (!attention.empty()) {
    m.attention = r.OneOf("attention", {"mha", "gqa", "mla"}) == "mla" ? AttentionKind::kMla
                                                                       : AttentionKind::kGqa;
  }
  m.mla.q_lora_rank = OptionalInt(r, "q_lora_rank", 1 << 20);
  m.mla.kv_lora_rank = OptionalInt(r, "kv_lora_rank", 1 << 20);
  m.mla.qk_rope_head_dim = OptionalInt(r, "qk_rope_head_dim", 1 << 16);
  m.mla.qk_nope_head_dim = OptionalInt(r, "qk_nope_head_dim", 1 << 16);
  m.mla.v_head_dim = OptionalInt(r, "v_head_dim", 1 << 16);
  m.moe.experts = OptionalInt(r, "experts", 1 << 16);
  m.moe.top_k = OptionalInt(r, "top_k", 1 << 16);
  m.moe.expert_ffn = OptionalInt(r, "moe_ffn", 1 << 22);
  m.moe.shared_experts = OptionalInt(r, "shared_experts", 1 << 10);
  m.moe.shared_ffn = OptionalInt(r, "shared_ffn", 1 << 22);
  m.moe.dense_layers = OptionalInt(r, "dense_layers", 1000);
  if (!r.Text("moe_every").empty())
    m.moe.moe_every = r.Integer("moe_every", 1, 1000);
  m.sliding_window = OptionalInt(r, "sliding_window", 1 << 24);
  m.sliding_layers = OptionalInt(r, "sliding_layers", 1000);
}

// kind=other inference columns (all optional; empty modality = inference not modelled).
void ParseGeneration(CsvRowReader& r, GenerationShape& g) {
  const std::string modality = r.Text("modality");
  if (!modality.empty()) {
    const std::string m = r.OneOf("modality", {"image", "diffusion", "speech"});
    g.modality = ParseModality(m).value_or(Modality::kNone);
  }
  g.steps = OptionalInt(r, "steps", 100000);
  g.cfg = r.Bool("cfg", false);
  if (const std::string size = r.Text("native_size"); !size.empty()) {
    const std::optional<std::pair<int, int>> wh = ParseImageSize(size);
    if (!wh)
      r.Fail("native_size", "expected WIDTHxHEIGHT in pixels (1024x1024), got \"" + size + "\"");
    else
      std::tie(g.native_width, g.native_height) = *wh;
  }
  g.frames = OptionalInt(r, "frames", 100000);
  g.once_flops = r.OptionalNumber("once_gflops", 0, 1e9).value_or(0) * 1e9;
  g.aux_params = r.OptionalNumber("aux_params_b", 0, 1e5).value_or(0) * 1e9;
  g.decoder_params = r.OptionalNumber("decoder_params_b", 0, 1e5).value_or(0) * 1e9;
  g.peak_bytes = r.OptionalNumber("vae_peak_gib", 0, 1e5).value_or(0) * 1073741824.0;
}

ModelArch ParseModelRow(CsvRowReader& r) {
  ModelArch m;
  m.name = r.Text("name", true);
  const std::string kind = r.OneOf("kind", {"decoder", "encoder", "other"});
  m.kind = kind == "decoder"   ? ModelKind::kDecoder
           : kind == "encoder" ? ModelKind::kEncoder
                               : ModelKind::kOther;
  if (m.kind != ModelKind::kOther) {
    m.mlp = r.OneOf("mlp", {"gelu", "swiglu"}) == "swiglu" ? MlpKind::kSwiglu : MlpKind::kGelu;
    m.layers = r.Integer("layers", 1, 1000);
    m.hidden = r.Integer("hidden", 1, 1 << 20);
    m.heads = r.Integer("heads", 1, 4096);
    m.kv_heads = r.Integer("kv_heads", 1, 4096);
    m.ffn = OptionalInt(r, "ffn", 1 << 22);  // empty when every layer is MoE
    m.vocab = r.Integer("vocab", 1, 1 << 22);
  } else {
    m.layers = OptionalInt(r, "layers", 1000);
    m.hidden = OptionalInt(r, "hidden", 1 << 20);  // a diffusion transformer's width
    ParseGeneration(r, m.gen);
  }
  if (m.kind != ModelKind::kOther)
    ParseModernShape(r, m);
  m.tied_embeddings = r.Bool("tied_embeddings", false);
  m.dropout = r.Bool("dropout", false);
  m.params = r.OptionalNumber("params_b", 1e-6, 1e5).value_or(0) * 1e9;
  m.active_params = r.OptionalNumber("active_params_b", 1e-6, 1e5).value_or(0) * 1e9;
  m.hf_id = r.Text("hf_id");
  if (!r.Text("release_weights").empty()) {
    const std::string release = r.OneOf("release_weights", {"bf16", "fp16", "fp8", "mxfp4"});
    m.release = release == "fp8"     ? ModelArch::Release::kFp8
                : release == "mxfp4" ? ModelArch::Release::kMxfp4Experts
                                     : ModelArch::Release::k16Bit;
  }
  m.reasoning = r.Bool("reasoning", false);
  m.forward_flops_per_sample =
      r.OptionalNumber("forward_gflops_per_sample", 1e-6, 1e9).value_or(0) * 1e9;
  m.activation_elements_per_sample =
      r.OptionalNumber("activation_melems_per_sample", 1e-6, 1e6).value_or(0) * 1e6;
  m.default_seq_len = OptionalInt(r, "default_seq_len", 1 << 24);
  m.source = r.Text("source", true);
  m.as_of = r.Text("as_of", true);
  if (m.kind == ModelKind::kOther && (m.params <= 0 || m.forward_flops_per_sample <= 0)) {
    r.Fail("params_b", "kind other needs params_b and forward_gflops_per_sample");
  }
  if (r.status().ok()) {
    if (Status s = ValidateModelArch(m); !s.ok())
      r.Fail("name", s.message());
  }
  return m;
}

}  // namespace

Result<ModelZoo> ParseModelZoo(std::string_view text, const std::string& file) {
  Result<CsvTable> table = CsvTable::Parse(text, file);
  if (!table.ok())
    return table.status();
  if (Status s =
          table->RequireColumns({"name", "kind", "mlp", "layers", "hidden", "heads", "kv_heads",
                                 "ffn", "vocab", "tied_embeddings", "params_b", "source", "as_of"});
      !s.ok()) {
    return s;
  }
  ModelZoo zoo;
  for (const CsvRow& row : table->rows()) {
    CsvRowReader r(*table, row);
    ModelArch m = ParseModelRow(r);
    if (!r.status().ok())
      return r.status();
    if (zoo.Find(m.name) != nullptr) {
      return Status::InvalidArgument(r.Origin() + ": duplicate model \"" + m.name + "\"");
    }
    zoo.models.push_back(std::move(m));
  }
  return zoo;
}

Result<ModelZoo> LoadModelZoo() {
  return ParseModelZoo(EmbeddedData("models.csv"), "data/models.csv");
}

}  // namespace gpuplan::io
