// The data/*.csv and data/deploy/*.tmpl files compiled into the binary (cmake/embed_data.cmake).
#ifndef GPUPLAN_SRC_IO_EMBEDDED_DATA_H_
#define GPUPLAN_SRC_IO_EMBEDDED_DATA_H_

#include <span>
#include <string_view>

namespace gpuplan::io {

struct EmbeddedFile {
  std::string_view name;     // path inside data/: "gpus.csv", "deploy/run-instances.sh.tmpl"
  std::string_view content;  // the file's bytes
};

// Every embedded file, sorted by name.
std::span<const EmbeddedFile> EmbeddedDataFiles();

// The content of data/`name`, or an empty view when there is no such file.
std::string_view EmbeddedData(std::string_view name);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_EMBEDDED_DATA_H_
