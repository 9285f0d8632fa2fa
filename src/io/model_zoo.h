// Loads the model zoo (data/models.csv, embedded) into a ModelZoo.
#ifndef GPUPLAN_SRC_IO_MODEL_ZOO_H_
#define GPUPLAN_SRC_IO_MODEL_ZOO_H_

#include <string>
#include <string_view>

#include "gpuplan/model.h"
#include "gpuplan/status.h"

namespace gpuplan::io {

// Parses models.csv text (columns in data/models.csv's header); `file` names it in errors.
Result<ModelZoo> ParseModelZoo(std::string_view text, const std::string& file);

// The embedded zoo. Errors only if the embedded file is broken (a bug).
Result<ModelZoo> LoadModelZoo();

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_MODEL_ZOO_H_
