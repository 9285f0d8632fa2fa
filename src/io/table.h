// Plain tables and their renderings: aligned text for terminals, CSV for scripts.
#ifndef GPUPLAN_SRC_IO_TABLE_H_
#define GPUPLAN_SRC_IO_TABLE_H_

#include <string>
#include <vector>

namespace gpuplan::io {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // each the size of header
};

// Columns padded to their widest cell, two spaces apart; numeric columns right-aligned; a dashed
// rule under the header. Trailing spaces are trimmed.
std::string RenderAligned(const Table& table);

// RFC 4180 CSV with a header row; fields with commas, quotes or newlines are quoted.
std::string RenderCsv(const Table& table);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_TABLE_H_
