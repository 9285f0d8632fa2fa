#include "io/field_spelling.h"

#include <algorithm>

namespace gpuplan::io {

std::string FieldName(FieldSpelling s, std::string_view name) {
  std::string out(name);
  if (s == FieldSpelling::kFlag) {
    std::replace(out.begin(), out.end(), '_', '-');
    out = "--" + out;
  }
  return out;
}

std::string FieldWithValue(FieldSpelling s, std::string_view name, std::string_view value) {
  return FieldName(s, name) + (s == FieldSpelling::kFlag ? " " : "=") + std::string(value);
}

}  // namespace gpuplan::io
