#include "io/csv.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace gpuplan::io {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::optional<double> ParseDecimal(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return std::nullopt;
  const size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    auto num = ParseDecimal(text.substr(0, slash));
    auto den = ParseDecimal(text.substr(slash + 1));
    if (!num || !den || *den == 0) return std::nullopt;
    return *num / *den;
  }
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

Result<CsvTable> CsvTable::Parse(std::string_view text, std::string file) {
  CsvTable table;
  table.file_ = std::move(file);
  std::vector<CsvRow> records;
  size_t i = 0;
  int line = 1;
  int col = 1;
  bool at_record_start = true;
  CsvRow current;
  std::string field;
  int field_col = 1;
  bool quoted = false;     // inside quotes
  bool was_quoted = false; // the current field was quoted (closing quote seen)
  auto error = [&](const std::string& what) {
    return Status::InvalidArgument(fmt::format("{}:{}:{}: {}", table.file_, line, col, what))
        .At(table.file_, line, col);
  };
  auto end_field = [&] {
    current.fields.push_back(std::move(field));
    current.columns.push_back(field_col);
    field.clear();
    was_quoted = false;
  };
  auto end_record = [&] {
    end_field();
    const bool blank = current.fields.size() == 1 && Trim(current.fields[0]).empty();
    if (!blank) records.push_back(std::move(current));
    current = CsvRow();
    at_record_start = true;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (at_record_start && records.empty() && c == '#') {
      // A comment line before the header: skip it whole (quotes in it mean nothing).
      while (i < text.size() && text[i] != '\n') ++i;
      ++i;
      ++line;
      col = 1;
      continue;
    }
    if (at_record_start) {
      current.line = line;
      at_record_start = false;
      field_col = col;
    }
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          ++i;
          ++col;
        } else {
          quoted = false;
          was_quoted = true;
        }
      } else {
        field.push_back(c);
        if (c == '\n') {
          ++line;
          col = 0;
        }
      }
    } else if (c == '"') {
      if (!field.empty() || was_quoted) return error("a quote may only start a field");
      quoted = true;
    } else if (c == ',') {
      end_field();
      field_col = col + 1;
    } else if (c == '\n') {
      end_record();
      ++line;
      col = 0;
    } else if (c == '\r') {
      // Part of a CRLF line ending; ignored.
    } else {
      if (was_quoted) return error("text after a closing quote; quote the whole field");
      field.push_back(c);
    }
    ++i;
    ++col;
  }
  if (quoted) return error("unterminated quoted field (a '\"' is missing)");
  if (!at_record_start) end_record();
  if (records.empty()) {
    return Status::InvalidArgument(
               fmt::format("{}:1: empty file; expected a header row", table.file_))
        .At(table.file_, 1, 0);
  }
  table.header_line_ = records.front().line;
  for (size_t h = 0; h < records.front().fields.size(); ++h) {
    std::string name(Trim(records.front().fields[h]));
    if (name.empty()) {
      return Status::InvalidArgument(fmt::format("{}:{}:{}: empty column name in header",
                                                 table.file_, table.header_line_,
                                                 records.front().columns[h]))
          .At(table.file_, table.header_line_, records.front().columns[h]);
    }
    if (std::find(table.header_.begin(), table.header_.end(), name) != table.header_.end()) {
      return Status::InvalidArgument(fmt::format("{}:{}: duplicate column \"{}\" in header",
                                                 table.file_, table.header_line_, name))
          .At(table.file_, table.header_line_, records.front().columns[h], name);
    }
    table.header_.push_back(std::move(name));
  }
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].fields.size() != table.header_.size()) {
      return Status::InvalidArgument(
                 fmt::format("{}:{}: expected {} fields as in the header, got {} (quote fields "
                             "that contain commas)",
                             table.file_, records[r].line, table.header_.size(),
                             records[r].fields.size()))
          .At(table.file_, records[r].line, 0);
    }
    table.rows_.push_back(std::move(records[r]));
  }
  return table;
}

int CsvTable::ColumnIndex(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

Status CsvTable::RequireColumns(const std::vector<std::string_view>& required) const {
  for (std::string_view name : required) {
    if (ColumnIndex(name) < 0) {
      return Status::InvalidArgument(
                 fmt::format("{}:{}: missing column \"{}\" in header; required columns: {}", file_,
                             header_line_, name, fmt::join(required, ",")))
          .At(file_, header_line_, 0, std::string(name));
    }
  }
  return Status::Ok();
}

const std::string* CsvRowReader::Field(std::string_view column, int* col) const {
  const int index = table_.ColumnIndex(column);
  if (index < 0) return nullptr;
  *col = row_.columns[static_cast<size_t>(index)];
  return &row_.fields[static_cast<size_t>(index)];
}

std::string CsvRowReader::Origin() const { return fmt::format("{}:{}", table_.file(), row_.line); }

void CsvRowReader::Fail(std::string_view column, const std::string& what) {
  if (!status_.ok()) return;
  int col = 0;
  const std::string* field = Field(column, &col);
  const std::string where = field ? fmt::format("{}:{}:{}", table_.file(), row_.line, col)
                                  : Origin();
  status_ = Status::InvalidArgument(fmt::format("{}: field \"{}\": {}", where, column, what))
                .At(table_.file(), row_.line, field ? col : 0, std::string(column));
}

std::string CsvRowReader::Text(std::string_view column, bool required) {
  int col = 0;
  const std::string* field = Field(column, &col);
  std::string value = field ? std::string(Trim(*field)) : std::string();
  if (required && value.empty()) Fail(column, "is required and empty");
  return value;
}

std::optional<double> CsvRowReader::OptionalNumber(std::string_view column, double min,
                                                   double max) {
  const std::string text = Text(column);
  if (text.empty()) return std::nullopt;
  auto value = ParseDecimal(text);
  if (!value || *value < min || *value > max) {
    Fail(column, fmt::format("expected a number from {} to {}, got \"{}\"", min, max, text));
    return std::nullopt;
  }
  return value;
}

double CsvRowReader::Number(std::string_view column, double min, double max) {
  const std::string text = Text(column);
  if (text.empty()) {
    Fail(column, fmt::format("expected a number from {} to {}, got nothing", min, max));
    return 0;
  }
  return OptionalNumber(column, min, max).value_or(0);
}

int CsvRowReader::Integer(std::string_view column, int min, int max) {
  const std::string text = Text(column);
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < min ||
      value > max) {
    Fail(column, fmt::format("expected a whole number from {} to {}, got \"{}\"", min, max, text));
    return min;
  }
  return value;
}

bool CsvRowReader::Bool(std::string_view column, bool fallback) {
  const std::string text = Lower(Text(column));
  if (text.empty()) return fallback;
  if (text == "yes" || text == "true" || text == "1") return true;
  if (text == "no" || text == "false" || text == "0") return false;
  Fail(column, fmt::format("expected yes or no, got \"{}\"", text));
  return fallback;
}

std::string CsvRowReader::OneOf(std::string_view column,
                                const std::vector<std::string_view>& allowed) {
  const std::string text = Text(column);
  if (std::find(allowed.begin(), allowed.end(), text) == allowed.end()) {
    Fail(column, fmt::format("expected one of {}, got \"{}\"", fmt::join(allowed, "|"), text));
  }
  return text;
}

}  // namespace gpuplan::io
