#include "io/text_check.h"

#include <fmt/format.h>

namespace gpuplan::io {

std::optional<std::string> TextProblem(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = byte(i);
    if (c < 0x80) {
      if (c == 0)
        return fmt::format("holds a NUL byte at offset {}", i);
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
        return fmt::format("holds control character 0x{:02X} at offset {}", c, i);
      ++i;
      continue;
    }
    // Table 3-7 of the Unicode Standard (well-formed UTF-8 byte sequences).
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0)
        lo = 0xA0;  // no overlong forms
      if (c == 0xED)
        hi = 0x9F;  // no UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0)
        lo = 0x90;
      if (c == 0xF4)
        hi = 0x8F;  // nothing above U+10FFFF
    }
    bool ok = len > 0 && i + len <= text.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned char b = byte(i + k);
      ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    }
    if (!ok)
      return fmt::format("is not valid UTF-8 (byte 0x{:02X} at offset {})", c, i);
    i += len;
  }
  return std::nullopt;
}

}  // namespace gpuplan::io
