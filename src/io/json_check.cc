#include "io/json_check.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace gpuplan::io {
namespace {

using nlohmann::json;

// Counts depth and values; aborts the parse (returns false) at the first limit passed. nlohmann
// reports no position to SAX callbacks, so the position of a limit is the bytes read so far,
// counted by the input adapter below.
class BoundedSax : public json::json_sax_t {
 public:
  BoundedSax(const JsonLimits& limits, const size_t* consumed)
      : limits_(limits), consumed_(consumed) {}

  bool null() override { return Value(); }
  bool boolean(bool /*val*/) override { return Value(); }
  bool number_integer(number_integer_t /*val*/) override { return Value(); }
  bool number_unsigned(number_unsigned_t /*val*/) override { return Value(); }
  bool number_float(number_float_t /*val*/, const string_t& /*s*/) override { return Value(); }
  bool string(string_t& /*val*/) override { return Value(); }
  bool binary(binary_t& /*val*/) override { return Value(); }
  bool start_object(std::size_t /*elements*/) override { return Open(); }
  bool key(string_t& /*val*/) override { return true; }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t /*elements*/) override { return Open(); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const json::exception& ex) override {
    error_position_ = position;
    // "[json.exception.parse_error.101] parse error at line 1, column 17: syntax error while
    // parsing object - unexpected '}'; expected string literal": the place is ours to say.
    std::string what = ex.what();
    const size_t column = what.find("column ");
    const size_t colon = column == std::string::npos ? column : what.find(": ", column);
    syntax_error_ = colon == std::string::npos ? what : what.substr(colon + 2);
    return false;
  }

  const std::string& limit_error() const { return limit_error_; }
  const std::string& syntax_error() const { return syntax_error_; }
  size_t error_position() const { return error_position_; }

 private:
  bool Value() {
    if (++values_ > limits_.max_values)
      return Limit(fmt::format("more than {} values", limits_.max_values));
    return true;
  }
  bool Open() {
    if (++depth_ > limits_.max_depth)
      return Limit(fmt::format("nested deeper than {} levels", limits_.max_depth));
    return Value();
  }
  bool Close() {
    --depth_;
    return true;
  }
  bool Limit(std::string what) {
    limit_error_ = std::move(what);
    error_position_ = *consumed_;
    return false;
  }

  const JsonLimits& limits_;
  const size_t* consumed_;
  int depth_ = 0;
  size_t values_ = 0;
  std::string limit_error_, syntax_error_;
  size_t error_position_ = 0;
};

// 1-based line and column of byte `offset` (bytes, as nlohmann counts them).
std::pair<int, int> LineColumn(std::string_view text, size_t offset) {
  int line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

// An iterator over the text that counts how far the parser has read, so a limit hit inside a
// SAX callback can name its place.
struct CountingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* p = nullptr;
  size_t* consumed = nullptr;

  reference operator*() const { return *p; }
  CountingIterator& operator++() {
    ++p;
    ++*consumed;
    return *this;
  }
  bool operator==(const CountingIterator& o) const { return p == o.p; }
  bool operator!=(const CountingIterator& o) const { return p != o.p; }
};

}  // namespace

bool LooksLikeJson(std::string_view text) {
  const size_t i = text.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && (text[i] == '{' || text[i] == '[');
}

Status CheckStrictJson(std::string_view text, const std::string& file, const JsonLimits& limits) {
  size_t consumed = 0;
  BoundedSax sax(limits, &consumed);
  const CountingIterator begin{text.data(), &consumed};
  const CountingIterator end{text.data() + text.size(), &consumed};
  bool ok = false;
  try {
    ok = json::sax_parse(begin, end, &sax, json::input_format_t::json, /*strict=*/true);
  } catch (const json::exception& e) {  // sax_parse reports through parse_error; a safety net
    return Status::InvalidArgument(file + ": malformed JSON: " + e.what());
  }
  if (ok)
    return Status::Ok();
  const size_t at = sax.error_position();
  const auto [line, col] = LineColumn(text, at > 0 ? at - 1 : 0);
  const std::string what = !sax.limit_error().empty() ? "JSON " + sax.limit_error()
                                                      : "malformed JSON: " + sax.syntax_error();
  return Status::InvalidArgument(fmt::format("{}:{}:{}: {}", file, line, col, what))
      .At(file, line, col);
}

Status CheckYamlFlowDepth(std::string_view text, const std::string& file, int max_depth) {
  int depth = 0, line = 1, col = 0;
  char quote = 0;        // the quote a scalar is open with, or 0
  bool comment = false;  // inside "# ..." up to the end of the line
  char prev = '\n';
  for (const char c : text) {
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
      comment = false;
      // A quoted flow scalar may span lines; its quote stays open.
    } else if (comment) {
      // skipped
    } else if (quote != 0) {
      if (c == quote && !(quote == '"' && prev == '\\'))
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (prev == ' ' || prev == '\t' || prev == '\n')) {
      comment = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return Status::InvalidArgument(fmt::format("{}:{}:{}: YAML nested deeper than {} levels",
                                                   file, line, col, max_depth))
            .At(file, line, col);
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    prev = c;
  }
  return Status::Ok();
}

}  // namespace gpuplan::io
