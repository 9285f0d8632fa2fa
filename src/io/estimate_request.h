// The hardware and parallel layout of one `estimate`, as a user names them (CLI flags or HTTP
// query parameters), turned into perf::Hardware and perf::Layout; and the estimate's JSON form
// (the contract in docs/estimate.md, `--json`). `gpuplan estimate` and `POST /v1/estimate`
// share these, so both accept the same choices, fail with the same messages and print the same
// JSON.
//
//   const io::FieldSpelling flags = io::FieldSpelling::kFlag;
//   Result<perf::Hardware> hw = io::BuildHardware(hardware, catalog, flags);
//   Result<perf::Layout> l = io::BuildLayout(layout, w, arch, *hw, cal, flags);
//   Result<perf::Estimate> e = perf::EstimateRun(w, arch, *hw, *l, cal);
//   std::string text = io::EstimateJson(w, arch, *hw, *l, *e).dump(2);
//
// Thread safety: plain values and pure functions.
#ifndef GPUPLAN_SRC_IO_ESTIMATE_REQUEST_H_
#define GPUPLAN_SRC_IO_ESTIMATE_REQUEST_H_

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/estimate.h"
#include "io/field_spelling.h"

namespace gpuplan::io {

// What hardware: a GPU model and a count (gpu, gpus, gpus_per_node), or an instance type and a
// node count (instance, nodes). Unset fields take the defaults BuildHardware documents.
struct HardwareChoice {
  std::string gpu;       // GPU name or alias
  std::string instance;  // instance type name
  std::optional<int> gpus, gpus_per_node, nodes;
  std::optional<double> inter_node_gbps;  // overrides the network between nodes, Gbit/s
};

// The parallel degrees the user fixes; every unset one is searched (perf::SearchLayout, the
// search `plan` runs), together with the workload's own pins (micro_batch, recompute, cp,
// virtual_stages, offload ...).
struct LayoutChoice {
  std::optional<int> tp, pp, dp, zero, ep;
  bool sequence_parallel = false;
};

// The hardware of `choice` in `catalog`: an instance type x nodes (default 1), or gpus (default
// 1) of one GPU model at gpus_per_node (default min(gpus, 8)) per node. Errors: InvalidArgument
// for a missing, conflicting or out-of-range field, NotFound for an unknown GPU or type (with
// suggestions); the messages name the field as `spelling` says.
Result<perf::Hardware> BuildHardware(const HardwareChoice& choice, const Catalog& catalog,
                                     FieldSpelling spelling);

// The layout of `choice` on `hw`: the fastest that fits with the given degrees pinned (the one
// `plan` picks when none is given), else the one with the least memory. InvalidArgument when
// the degrees are out of range or no layout has them (tp x pp not dividing the GPUs ...).
Result<perf::Layout> BuildLayout(const LayoutChoice& choice, const Workload& w,
                                 const ModelArch& arch, const perf::Hardware& hw,
                                 const Calibration& cal, FieldSpelling spelling);

// The layout dimensions `choice` and `w` left open that the search chose, as "field value" (e.g.
// "micro_batch 2", "offload optimizer"; ep, cp, virtual stages and the memory savers only when
// the search switched them on): the estimate lists them so a memory saver or a degree the user
// did not ask for is never switched on silently.
std::vector<std::string> SearchedChoices(const LayoutChoice& choice, const Workload& w,
                                         const perf::Layout& l);

// The model's identity and size for --json outputs: name, params_b, active_params_b (= params_b
// for dense models), and for MoE/MLA models experts, top_k and attention.
nlohmann::json ModelJson(const ModelArch& arch);

// {"model", "workload", "hardware", "layout", "memory", "fits", "time", "throughput", "job",
//  "inference"?}: every number of the estimate with its breakdowns.
nlohmann::json EstimateJson(const Workload& w, const ModelArch& arch, const perf::Hardware& hw,
                            const perf::Layout& l, const perf::Estimate& e);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_ESTIMATE_REQUEST_H_
