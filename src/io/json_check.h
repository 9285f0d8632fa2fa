// A strict, bounded check of JSON text from outside (workload files, HTTP bodies) before any
// parser builds a tree of it: RFC 8259 syntax as nlohmann-json reads it (no trailing commas,
// comments, single quotes, NaN or Infinity), a nesting depth and a value count. It runs as a SAX
// pass, so a hostile body of a million brackets costs one scan and no tree.
//
//   if (Status s = io::CheckStrictJson(body, "body"); !s.ok()) return s;  // "body:1:17: ..."
//
// Thread safety: pure function.
#ifndef GPUPLAN_SRC_IO_JSON_CHECK_H_
#define GPUPLAN_SRC_IO_JSON_CHECK_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "gpuplan/status.h"

namespace gpuplan::io {

struct JsonLimits {
  int max_depth = 32;           // arrays and objects nested deeper are refused (a workload: 3)
  size_t max_values = 100'000;  // scalars, arrays and objects in all
};

// True when the first character other than white space is '{' or '[': the text is meant as JSON
// (a YAML document written in flow style is held to JSON's rules too).
bool LooksLikeJson(std::string_view text);

// OK when `text` is exactly one JSON value within `limits`. Otherwise kInvalidArgument
// "file:line:col: malformed JSON: ..." (the place nlohmann's parser stopped) or
// "file:line:col: JSON nested deeper than 32 levels" / "... more than 100000 values".
Status CheckStrictJson(std::string_view text, const std::string& file,
                       const JsonLimits& limits = {});

// The same depth bound for YAML, before yaml-cpp reads it: flow collections ("[", "{") nested
// deeper than `max_depth`, counted outside quoted scalars and comments, are kInvalidArgument
// "file:line:col: YAML nested deeper than 32 levels". Block nesting (indentation) costs yaml-cpp
// no more than the text's size, so it is not counted.
Status CheckYamlFlowDepth(std::string_view text, const std::string& file, int max_depth = 32);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_JSON_CHECK_H_
