// Status and Result<T>: how every fallible gpuplan call reports failure.
//
// gpuplan never lets an exception reach a user. A function that can fail returns a Status (no
// value) or a Result<T> (a T or a Status). The message names the input, the place and what was
// expected, e.g. `data/instances.csv:42:5: field "gpu": unknown GPU "H2OO"`.
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

  // Returns a copy whose message is `prefix: message`, to add where an error happened.
  Status WithContext(const std::string& prefix) const {
    return ok() ? *this : Status(code_, prefix + ": " + message_);
  }

 private:
  Status(ErrorCode code, std::string msg) : code_(code), message_(std::move(msg)) {}

  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

// A T or the Status that says why there is none. Follows std::expected's API so C++23 can
// replace it. REQUIRES: a Result built from a Status holds a non-OK one.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit, as std::expected.
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
