// The model zoo as JSON: one object per model, the columns `gpuplan estimate --list-models`
// shows. `estimate --list-models --json`, GET /v1/catalog/models and the Python module's
// gpuplan.catalog.models() print it. Field names are a contract: add fields, never rename them.
#ifndef GPUPLAN_SRC_IO_MODEL_LIST_JSON_H_
#define GPUPLAN_SRC_IO_MODEL_LIST_JSON_H_

#include <nlohmann/json_fwd.hpp>

#include "gpuplan/model.h"

namespace gpuplan::io {

// [{name, params_b, active_params_b, attention?, kv_cache_bytes_per_token?, experts?, top_k?,
//   shared_experts?, moe_layers? (ModelJson), kind, layers, hidden, heads, kv_heads, ffn, vocab,
//   hf_id, source, as_of}] in the zoo's order.
nlohmann::json ModelListJson(const ModelZoo& zoo);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_MODEL_LIST_JSON_H_
