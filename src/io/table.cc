#include "io/table.h"

#include <algorithm>
#include <cctype>

namespace gpuplan::io {
namespace {

bool LooksNumeric(const std::string& s) {
  if (s.empty())
    return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '/' &&
        c != '%' && c != 'x') {
      return false;
    }
  }
  return std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-';
}

// Display width in terminal columns: counts UTF-8 code points, not bytes.
size_t Width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string RenderAligned(const Table& table) {
  const size_t cols = table.header.size();
  std::vector<size_t> width(cols, 0);
  std::vector<bool> numeric(cols, true);
  for (size_t c = 0; c < cols; ++c)
    width[c] = Width(table.header[c]);
  for (const auto& row : table.rows) {
    for (size_t c = 0; c < cols && c < row.size(); ++c) {
      width[c] = std::max(width[c], Width(row[c]));
      if (!row[c].empty() && row[c] != "-" && !LooksNumeric(row[c]))
        numeric[c] = false;
    }
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& row, bool header) {
    std::string line;
    for (size_t c = 0; c < cols; ++c) {
      const std::string& cell = c < row.size() ? row[c] : std::string();
      const std::string pad(width[c] - Width(cell), ' ');
      if (c > 0)
        line += "  ";
      line += (numeric[c] && !header) ? pad + cell : cell + pad;
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  };
  emit(table.header, true);
  std::string rule;
  for (size_t c = 0; c < cols; ++c)
    rule += (c ? "  " : "") + std::string(width[c], '-');
  out += rule + "\n";
  for (const auto& row : table.rows)
    emit(row, false);
  return out;
}

std::string RenderCsv(const Table& table) {
  auto field = [](const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos)
      return s;
    std::string q = "\"";
    for (char c : s) {
      if (c == '"')
        q += '"';
      q += c;
    }
    return q + "\"";
  };
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size(); ++c)
      out += (c ? "," : "") + field(row[c]);
    out += "\n";
  };
  emit(table.header);
  for (const auto& row : table.rows)
    emit(row);
  return out;
}

}  // namespace gpuplan::io
