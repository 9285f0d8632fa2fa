#include "io/embedded_data.h"

namespace gpuplan::io {

std::string_view EmbeddedData(std::string_view name) {
  for (const EmbeddedFile& f : EmbeddedDataFiles()) {
    if (f.name == name)
      return f.content;
  }
  return {};
}

}  // namespace gpuplan::io
