// How an error message names a field the user set: as a CLI flag ("--gpus-per-node") or as an
// HTTP query parameter ("gpus_per_node"). Code shared by `gpuplan` subcommands and `gpuplan
// serve` takes a FieldSpelling so each front end's messages name what its user typed.
#ifndef GPUPLAN_SRC_IO_FIELD_SPELLING_H_
#define GPUPLAN_SRC_IO_FIELD_SPELLING_H_

#include <string>
#include <string_view>

namespace gpuplan::io {

enum class FieldSpelling { kFlag, kParam };

// `name` in snake_case ("gpus_per_node") as `s` spells it: "--gpus-per-node" or "gpus_per_node".
std::string FieldName(FieldSpelling s, std::string_view name);

// The field with a value: "--gpus 8" or "gpus=8".
std::string FieldWithValue(FieldSpelling s, std::string_view name, std::string_view value);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_FIELD_SPELLING_H_
