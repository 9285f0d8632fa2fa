// Text from outside is refused when a JSON writer or a terminal could not take it (issue 32:
// an invalid UTF-8 byte reached nlohmann's dump() and threw type_error 316 at the user).
#include "io/text_check.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuplan::io {
namespace {

TEST(TextCheckTest, TextProblemNamesTheByte) {
  struct Case {
    const char* name;
    std::string text;
    const char* want;  // nullptr: accepted
  };
  const Case kCases[] = {
      {"ascii", "cn-hangzhou-h", nullptr},
      {"empty", "", nullptr},
      {"tab_newline", "a\tb\nc\r\n", nullptr},
      {"two_byte", "\xC3\xA9t\xC3\xA9", nullptr},
      {"three_byte", "\xE6\x9D\xAD\xE5\xB7\x9E", nullptr},
      {"four_byte", "\xF0\x9F\x98\x80", nullptr},
      {"nul", std::string("ab\0c", 4), "holds a NUL byte at offset 2"},
      {"escape", "a\x1b[31m", "holds control character 0x1B at offset 1"},
      {"truncated_two_byte", "2026-11-2\xC7", "is not valid UTF-8 (byte 0xC7 at offset 9)"},
      {"lone_continuation", "a\x80", "is not valid UTF-8 (byte 0x80 at offset 1)"},
      {"overlong_slash", "\xC0\xAF", "is not valid UTF-8 (byte 0xC0 at offset 0)"},
      {"overlong_three_byte", "\xE0\x80\xAF", "is not valid UTF-8 (byte 0xE0 at offset 0)"},
      {"surrogate", "\xED\xA0\x80", "is not valid UTF-8 (byte 0xED at offset 0)"},
      {"above_u10ffff", "\xF4\x90\x80\x80", "is not valid UTF-8 (byte 0xF4 at offset 0)"},
      {"latin1_byte", "caf\xE9", "is not valid UTF-8 (byte 0xE9 at offset 3)"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    std::optional<std::string> why = TextProblem(c.text);
    if (c.want == nullptr) {
      EXPECT_FALSE(why.has_value()) << *why;
    } else {
      ASSERT_TRUE(why.has_value());
      EXPECT_EQ(*why, c.want);
    }
  }
}

}  // namespace
}  // namespace gpuplan::io
