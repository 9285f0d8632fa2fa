#include "io/framework_csv.h"

#include <string>
#include <vector>

#include "gpuplan/cost.h"
#include "gpuplan/strings.h"
#include "gpuplan/workload.h"
#include "io/csv.h"
#include "io/embedded_data.h"

namespace gpuplan::io {
namespace {

// data/frameworks.csv's spellings of CrossEntropy, from its name table.
std::vector<std::string_view> CrossEntropyNames() {
  std::vector<std::string_view> names;
  for (const EnumName<CrossEntropy>& n : kCrossEntropyNames)
    names.push_back(n.name);
  return names;
}

// "0 1 2 3" -> bits 0..3; empty -> 0 (no stage). A token other than 0..3 fails the field.
unsigned ZeroStages(CsvRowReader& r, std::string_view column) {
  const std::string text = r.Text(column);
  unsigned bits = 0;
  for (char c : text) {
    if (c == ' ')
      continue;
    if (c < '0' || c > '3') {
      r.Fail(column,
             "expected ZeRO stages 0 to 3 separated by spaces (\"0 1 2 3\"), got \"" + text + "\"");
      return 0;
    }
    bits |= 1u << (c - '0');
  }
  return bits;
}

bool YesNo(CsvRowReader& r, std::string_view column) {
  return r.OneOf(column, {"yes", "no"}) == "yes";
}

}  // namespace

Result<FrameworkTable> ParseFrameworks(std::string_view text, const std::string& file) {
  Result<CsvTable> table = CsvTable::Parse(text, file);
  if (!table.ok())
    return table.status();
  if (Status s = table->RequireColumns({"name",
                                        "label",
                                        "launcher",
                                        "full",
                                        "lora",
                                        "qlora",
                                        "tp",
                                        "sequence_parallel",
                                        "cp",
                                        "pp",
                                        "vp",
                                        "ep",
                                        "zero_stages",
                                        "zero_stages_model_parallel",
                                        "offload_optimizer",
                                        "offload_params",
                                        "optimizer_in_backward",
                                        "activation_offload",
                                        "selective_recompute",
                                        "optimizer_8bit",
                                        "attention_kernel",
                                        "main_grads",
                                        "selective_policy",
                                        "zero3_fetch",
                                        "cross_entropy",
                                        "source",
                                        "checked",
                                        "note"});
      !s.ok()) {
    return s;
  }
  FrameworkTable out;
  for (const CsvRow& row : table->rows()) {
    CsvRowReader r(*table, row);
    Framework f;
    f.name = r.Text("name", true);
    f.label = r.Text("label", true);
    f.launcher = r.Text("launcher", true);
    FrameworkCaps& c = f.caps;
    c.full = YesNo(r, "full");
    c.lora = YesNo(r, "lora");
    c.qlora = YesNo(r, "qlora");
    c.tp = YesNo(r, "tp");
    c.sequence_parallel = YesNo(r, "sequence_parallel");
    c.cp = YesNo(r, "cp");
    c.pp = YesNo(r, "pp");
    c.vp = YesNo(r, "vp");
    c.ep = YesNo(r, "ep");
    c.zero_stages = ZeroStages(r, "zero_stages");
    c.zero_stages_model_parallel = ZeroStages(r, "zero_stages_model_parallel");
    c.offload_optimizer = YesNo(r, "offload_optimizer");
    c.offload_params = YesNo(r, "offload_params");
    c.optimizer_in_backward = YesNo(r, "optimizer_in_backward");
    c.activation_offload = YesNo(r, "activation_offload");
    c.selective_recompute = YesNo(r, "selective_recompute");
    c.optimizer_8bit = YesNo(r, "optimizer_8bit");
    f.attention_kernel = ParseAttentionKernel(r.OneOf("attention_kernel", {"flash2", "cudnn"}))
                             .value_or(f.attention_kernel);
    f.fp32_main_grads = r.OneOf("main_grads", {"param", "fp32"}) == "fp32";
    f.selective_keeps_matmuls = r.OneOf("selective_policy", {"attention", "matmuls"}) == "matmuls";
    f.zero3_fetches_modules = r.OneOf("zero3_fetch", {"layer", "module"}) == "module";
    f.cross_entropy = ParseName(kCrossEntropyNames, r.OneOf("cross_entropy", CrossEntropyNames()))
                          .value_or(f.cross_entropy);
    f.source = r.Text("source", true);
    f.checked = r.Text("checked", true);
    f.note = r.Text("note");
    if (!r.status().ok())
      return r.status();
    if (f.name != strings::Lower(f.name) || f.name == "auto" ||
        f.name.find_first_of(" ,") != std::string::npos) {
      r.Fail("name", "expected a lower-case name without spaces, other than \"auto\", got \"" +
                         f.name + "\"");
    } else if (out.Find(f.name) != nullptr) {
      r.Fail("name", "framework \"" + f.name + "\" listed twice");
    } else if (!(c.zero_stages & 1u)) {
      r.Fail("zero_stages", "must include 0 (plain data parallel)");
    } else if ((c.zero_stages_model_parallel & ~c.zero_stages) != 0) {
      r.Fail("zero_stages_model_parallel", "must be a subset of zero_stages");
    } else if ((c.tp || c.pp) && !(c.zero_stages_model_parallel & 1u)) {
      r.Fail("zero_stages_model_parallel", "must include 0 when tp or pp is yes");
    } else if (!c.tp && !c.pp && c.zero_stages_model_parallel != 0) {
      r.Fail("zero_stages_model_parallel", "must be empty when tp and pp are no");
    } else if (c.sequence_parallel && !c.tp) {
      r.Fail("sequence_parallel", "needs tp yes (it shards over the tensor-parallel group)");
    } else if (c.vp && !c.pp) {
      r.Fail("vp", "needs pp yes (virtual stages interleave a pipeline)");
    } else if (!c.full && !c.lora && !c.qlora) {
      r.Fail("full", "a framework must run full, lora or qlora training");
    } else if (f.checked.size() != 10 || !DaysBetween(f.checked, f.checked)) {
      r.Fail("checked", "expected a date YYYY-MM-DD, got \"" + f.checked + "\"");
    } else if (f.source.find("https://") != 0) {
      r.Fail("source", "expected the docs URL(s) the row comes from, got \"" + f.source + "\"");
    }
    if (!r.status().ok())
      return r.status();
    out.rows.push_back(std::move(f));
  }
  if (out.rows.empty())
    return Status::InvalidArgument(file + ": no frameworks listed");
  return out;
}

Result<FrameworkTable> LoadFrameworks() {
  return ParseFrameworks(EmbeddedData("frameworks.csv"), "data/frameworks.csv");
}

Status ResolveFrameworks(Workload& w) {
  Result<FrameworkTable> table = LoadFrameworks();
  if (!table.ok())
    return table.status();
  Result<std::vector<Framework>> fw = FrameworksFor(*table, w.framework, w);
  if (!fw.ok())
    return fw.status();
  w.frameworks = std::move(*fw);
  return Status::Ok();
}

}  // namespace gpuplan::io
