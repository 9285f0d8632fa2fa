// Checks on text that arrives from outside (API responses, caches, files) before gpuplan stores
// or prints it: JSON writers (nlohmann) throw on invalid UTF-8, and a NUL byte truncates C
// strings and terminals, so such text is refused where it is read, with the file and field.
//
// Thread safety: pure functions.
#ifndef GPUPLAN_SRC_IO_TEXT_CHECK_H_
#define GPUPLAN_SRC_IO_TEXT_CHECK_H_

#include <optional>
#include <string>
#include <string_view>

namespace gpuplan::io {

// Why `text` is not acceptable as a field value, e.g. "holds a NUL byte at offset 3" or "is not
// valid UTF-8 (byte 0xC7 at offset 9)"; nullopt when it is well-formed UTF-8 (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF) without NUL or other control characters
// (tab, line feed and carriage return are allowed).
std::optional<std::string> TextProblem(std::string_view text);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_TEXT_CHECK_H_
