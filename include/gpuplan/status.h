// Status and Result<T>: how every fallible gpuplan call reports failure.
//
// gpuplan never lets an exception reach a user. A function that can fail returns a Status (no
// value) or a Result<T> (a T or a Status). The message names the input, the place and what was
// expected, e.g. `data/instances.csv:42:5: field "gpu": unknown GPU "H2OO"`. Loaders also record
// that place as values (Status::location(): file, line, column, field), so a caller that needs
// them (the HTTP API's error JSON) reads them instead of parsing the text.
//
//   Result<Catalog> catalog = LoadCatalog(files);
//   if (!catalog.ok()) return Fail(catalog.status());
//   Use(*catalog);
//
// Thread safety: values; safe to copy and share when not mutated.
#ifndef GPUPLAN_INCLUDE_GPUPLAN_STATUS_H_
#define GPUPLAN_INCLUDE_GPUPLAN_STATUS_H_

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace gpuplan {

enum class ErrorCode {
  kOk = 0,
  kInvalidArgument,  // The caller's input (a flag, a file, a field) is malformed.
  kNotFound,         // A named thing (GPU, instance type, model, file) does not exist.
  kIoError,          // The operating system refused a read or write.
  kUnavailable,      // A remote service is down, slow or throttling; retrying may help.
  kUnsupported,      // The input is valid but gpuplan does not model it.
  kInternal,         // A bug in gpuplan.
};

// Where in the input an error is. Every part is optional: "" and 0 mean not known. `field` is the
// input's own name for the value: a YAML key path ("inference.batch"), a CSV column ("vcpu"),
// or an option in snake_case ("gpus_per_node") whichever way the front end spells it.
struct ErrorLocation {
  std::string file;  // as named in the message: "data/instances.csv", "body"
  int line = 0;      // 1-based
  int column = 0;    // 1-based byte column
  std::string field;
  bool empty() const { return file.empty() && line == 0 && column == 0 && field.empty(); }
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK.

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(ErrorCode::kInvalidArgument, std::move(msg));
  }
  static Status NotFound(std::string msg) { return Status(ErrorCode::kNotFound, std::move(msg)); }
  static Status IoError(std::string msg) { return Status(ErrorCode::kIoError, std::move(msg)); }
  static Status Unavailable(std::string msg) {
    return Status(ErrorCode::kUnavailable, std::move(msg));
  }
  static Status Unsupported(std::string msg) {
    return Status(ErrorCode::kUnsupported, std::move(msg));
  }
  static Status Internal(std::string msg) { return Status(ErrorCode::kInternal, std::move(msg)); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Where the error is, as far as the code that found it knew; the message says the same.
  const ErrorLocation& location() const { return location_; }

  // Returns a copy whose message is `prefix: message`, to add where an error happened. The
  // location is kept.
  Status WithContext(const std::string& prefix) const {
    if (ok())
      return *this;
    Status s(code_, prefix + ": " + message_);
    s.location_ = location_;
    return s;
  }
  // Returns a copy that records `where` (the message is unchanged). An OK status stays OK.
  Status At(ErrorLocation where) const {
    if (ok())
      return *this;
    Status s = *this;
    s.location_ = std::move(where);
    return s;
  }
  Status At(std::string file, int line, int column, std::string field = "") const {
    ErrorLocation where;
    where.file = std::move(file);
    where.line = line;
    where.column = column;
    where.field = std::move(field);
    return At(std::move(where));
  }
  // Records only the field (an input with no file, e.g. a validated Workload).
  Status AtField(std::string field) const {
    ErrorLocation where;
    where.field = std::move(field);
    return At(std::move(where));
  }

 private:
  Status(ErrorCode code, std::string msg) : code_(code), message_(std::move(msg)) {}

  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
  ErrorLocation location_;
};

// A T or the Status that says why there is none. Follows std::expected's API so C++23 can
// replace it. REQUIRES: a Result built from a Status holds a non-OK one.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}        // NOLINT: implicit, as std::expected.
  Result(Status status) : data_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(data_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok().
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // The error, or OK when a value is held.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(data_); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace gpuplan

#endif  // GPUPLAN_INCLUDE_GPUPLAN_STATUS_H_
