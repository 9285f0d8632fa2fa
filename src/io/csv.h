// A small RFC 4180 CSV reader that remembers where every field came from, so that errors can say
// `instances.csv:12:34: field "vcpu": expected a whole number >= 1, got "eight"`.
//
// Lines starting with '#' before the header are comments. Quoted fields may hold commas, quotes
// ("") and newlines. A row with a different number of fields than the header is an error.
#ifndef GPUPLAN_SRC_IO_CSV_H_
#define GPUPLAN_SRC_IO_CSV_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/status.h"

namespace gpuplan::io {

struct CsvRow {
  int line = 0;  // 1-based line where the row starts
  std::vector<std::string> fields;
  std::vector<int> columns;  // 1-based column (byte) where each field starts
};

class CsvTable {
 public:
  // Parses `text`; `file` names it in errors. Errors: unterminated quote, text after a closing
  // quote, wrong field count, empty or duplicate header names.
  static Result<CsvTable> Parse(std::string_view text, std::string file);

  const std::string& file() const { return file_; }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<CsvRow>& rows() const { return rows_; }
  // Index of a header name, or -1.
  int ColumnIndex(std::string_view name) const;
  // Error unless every name in `required` is a header column.
  Status RequireColumns(const std::vector<std::string_view>& required) const;

 private:
  std::string file_;
  std::vector<std::string> header_;
  int header_line_ = 1;
  std::vector<CsvRow> rows_;
};

// Reads typed fields from one row. The first error sticks (later calls return defaults), so a
// loader can read every field and then check status() once.
class CsvRowReader {
 public:
  CsvRowReader(const CsvTable& table, const CsvRow& row) : table_(table), row_(row) {}

  // The raw field; "" when the column is absent. With `required`, empty is an error.
  std::string Text(std::string_view column, bool required = false);
  // A decimal number in [min, max]; fractions "1/6" are accepted. Empty is an error.
  double Number(std::string_view column, double min, double max);
  // As Number, but empty gives nullopt.
  std::optional<double> OptionalNumber(std::string_view column, double min, double max);
  // A whole number in [min, max].
  int Integer(std::string_view column, int min, int max);
  // yes/no/true/false/1/0 (case-insensitive); empty gives `fallback`.
  bool Bool(std::string_view column, bool fallback);
  // One of `allowed`; empty is an error.
  std::string OneOf(std::string_view column, const std::vector<std::string_view>& allowed);

  // Records an error about `column` with `what` (e.g. `unknown GPU "H2OO"`).
  void Fail(std::string_view column, const std::string& what);
  // "file:line" of the row.
  std::string Origin() const;
  const Status& status() const { return status_; }

 private:
  const std::string* Field(std::string_view column, int* col) const;

  const CsvTable& table_;
  const CsvRow& row_;
  Status status_;
};

// Parses "1/6", "0.5", "12" into a double; nullopt when malformed.
std::optional<double> ParseDecimal(std::string_view text);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_CSV_H_
