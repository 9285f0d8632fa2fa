#include "io/model_list_json.h"

#include <nlohmann/json.hpp>
#include <string>

#include "io/estimate_request.h"

namespace gpuplan::io {

nlohmann::json ModelListJson(const ModelZoo& zoo) {
  nlohmann::json list = nlohmann::json::array();
  for (const ModelArch& m : zoo.models) {
    nlohmann::json j = ModelJson(m);
    j["kind"] = std::string(ModelKindName(m.kind));
    j["layers"] = m.layers;
    j["hidden"] = m.hidden;
    j["heads"] = m.heads;
    j["kv_heads"] = m.kv_heads;
    j["ffn"] = m.ffn;
    j["vocab"] = m.vocab;
    j["hf_id"] = m.hf_id;
    j["source"] = m.source;
    j["as_of"] = m.as_of;
    list.push_back(std::move(j));
  }
  return list;
}

}  // namespace gpuplan::io
