#include "io/csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

namespace gpuplan::io {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Splits CSV text into records: RFC 4180 quoting (a quoted field may hold commas, newlines and
// doubled quotes), '#' comment lines before the header, CRLF line ends; blank lines are dropped.
// Errors name file:line:column.
class RecordSplitter {
 public:
  RecordSplitter(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  Result<std::vector<CsvRow>> Split() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (at_record_start_ && records_.empty() && c == '#') {
        SkipCommentLine();
        continue;
      }
      if (at_record_start_) {
        current_.line = line_;
        at_record_start_ = false;
        field_col_ = col_;
      }
      if (quoted_) {
        QuotedChar(c);
      } else if (Status s = PlainChar(c); !s.ok()) {
        return s;
      }
      ++i_;
      ++col_;
    }
    if (quoted_)
      return Error("unterminated quoted field (a '\"' is missing)");
    if (!at_record_start_)
      EndRecord();
    return std::move(records_);
  }

 private:
  // A comment line before the header: skipped whole (quotes in it mean nothing).
  void SkipCommentLine() {
    while (i_ < text_.size() && text_[i_] != '\n')
      ++i_;
    ++i_;
    ++line_;
    col_ = 1;
  }

  void QuotedChar(char c) {
    if (c == '"') {
      if (i_ + 1 < text_.size() && text_[i_ + 1] == '"') {
        field_.push_back('"');
        ++i_;
        ++col_;
      } else {
        quoted_ = false;
        was_quoted_ = true;
      }
      return;
    }
    field_.push_back(c);
    if (c == '\n') {
      ++line_;
      col_ = 0;
    }
  }

  Status PlainChar(char c) {
    if (c == '"') {
      if (!field_.empty() || was_quoted_)
        return Error("a quote may only start a field");
      quoted_ = true;
    } else if (c == ',') {
      EndField();
      field_col_ = col_ + 1;
    } else if (c == '\n') {
      EndRecord();
      ++line_;
      col_ = 0;
    } else if (c == '\r') {
      // Part of a CRLF line ending; ignored.
    } else {
      if (was_quoted_)
        return Error("text after a closing quote; quote the whole field");
      field_.push_back(c);
    }
    return Status::Ok();
  }

  void EndField() {
    current_.fields.push_back(std::move(field_));
    current_.columns.push_back(field_col_);
    field_.clear();
    was_quoted_ = false;
  }

  void EndRecord() {
    EndField();
    const bool blank = current_.fields.size() == 1 && Trim(current_.fields[0]).empty();
    if (!blank)
      records_.push_back(std::move(current_));
    current_ = CsvRow();
    at_record_start_ = true;
  }

  Status Error(const std::string& what) const {
    return Status::InvalidArgument(fmt::format("{}:{}:{}: {}", file_, line_, col_, what))
        .At(file_, line_, col_);
  }

  std::string_view text_;
  const std::string& file_;
  std::vector<CsvRow> records_;
  size_t i_ = 0;
  int line_ = 1;
  int col_ = 1;
  bool at_record_start_ = true;
  CsvRow current_;
  std::string field_;
  int field_col_ = 1;
  bool quoted_ = false;      // inside quotes
  bool was_quoted_ = false;  // the current field was quoted (closing quote seen)
};

// The header row's column names: each non-empty and unique.
Result<std::vector<std::string>> HeaderNames(const CsvRow& header, const std::string& file) {
  std::vector<std::string> names;
  for (size_t h = 0; h < header.fields.size(); ++h) {
    std::string name(Trim(header.fields[h]));
    if (name.empty()) {
      return Status::InvalidArgument(fmt::format("{}:{}:{}: empty column name in header", file,
                                                 header.line, header.columns[h]))
          .At(file, header.line, header.columns[h]);
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      return Status::InvalidArgument(
                 fmt::format("{}:{}: duplicate column \"{}\" in header", file, header.line, name))
          .At(file, header.line, header.columns[h], name);
    }
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace

std::optional<double> ParseDecimal(std::string_view text) {
  text = Trim(text);
  if (text.empty())
    return std::nullopt;
  const size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    auto num = ParseDecimal(text.substr(0, slash));
    auto den = ParseDecimal(text.substr(slash + 1));
    if (!num || !den || *den == 0)
      return std::nullopt;
    return *num / *den;
  }
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value))
    return std::nullopt;
  return value;
}

Result<CsvTable> CsvTable::Parse(std::string_view text, std::string file) {
  CsvTable table;
  table.file_ = std::move(file);
  Result<std::vector<CsvRow>> split = RecordSplitter(text, table.file_).Split();
  if (!split.ok())
    return split.status();
  std::vector<CsvRow>& records = *split;
  if (records.empty()) {
    return Status::InvalidArgument(
               fmt::format("{}:1: empty file; expected a header row", table.file_))
        .At(table.file_, 1, 0);
  }
  table.header_line_ = records.front().line;
  Result<std::vector<std::string>> header = HeaderNames(records.front(), table.file_);
  if (!header.ok())
    return header.status();
  table.header_ = *std::move(header);
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
    if (header_[i] == name)
      return static_cast<int>(i);
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
  if (index < 0)
    return nullptr;
  *col = row_.columns[static_cast<size_t>(index)];
  return &row_.fields[static_cast<size_t>(index)];
}

std::string CsvRowReader::Origin() const { return fmt::format("{}:{}", table_.file(), row_.line); }

void CsvRowReader::Fail(std::string_view column, const std::string& what) {
  if (!status_.ok())
    return;
  int col = 0;
  const std::string* field = Field(column, &col);
  const std::string where =
      field ? fmt::format("{}:{}:{}", table_.file(), row_.line, col) : Origin();
  status_ = Status::InvalidArgument(fmt::format("{}: field \"{}\": {}", where, column, what))
                .At(table_.file(), row_.line, field ? col : 0, std::string(column));
}

std::string CsvRowReader::Text(std::string_view column, bool required) {
  int col = 0;
  const std::string* field = Field(column, &col);
  std::string value = field ? std::string(Trim(*field)) : std::string();
  if (required && value.empty())
    Fail(column, "is required and empty");
  return value;
}

std::optional<double> CsvRowReader::OptionalNumber(std::string_view column, double min,
                                                   double max) {
  const std::string text = Text(column);
  if (text.empty())
    return std::nullopt;
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
  if (text.empty())
    return fallback;
  if (text == "yes" || text == "true" || text == "1")
    return true;
  if (text == "no" || text == "false" || text == "0")
    return false;
  Fail(column, fmt::format("expected yes or no, got \"{}\"", text));
  return fallback;
}

std::string CsvRowReader::OneOf(std::string_view column,
                                const std::vector<std::string_view>& allowed) {
  std::string text = Text(column);
  if (std::find(allowed.begin(), allowed.end(), text) == allowed.end()) {
    Fail(column, fmt::format("expected one of {}, got \"{}\"", fmt::join(allowed, "|"), text));
  }
  return text;
}

}  // namespace gpuplan::io
