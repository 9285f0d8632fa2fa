#include "io/csv.h"

#include <gtest/gtest.h>

namespace gpuplan::io {
namespace {

TEST(CsvTest, ParsesQuotedFieldsAndComments) {
  auto t = CsvTable::Parse("# comment\nname,notes\nA10,\"24 GB, GDDR6\"\nT4,\"say \"\"hi\"\"\"\n",
                           "x.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->rows().size(), 2u);
  EXPECT_EQ(t->rows()[0].fields[1], "24 GB, GDDR6");
  EXPECT_EQ(t->rows()[1].fields[1], "say \"hi\"");
  EXPECT_EQ(t->rows()[1].line, 4);
}

struct BadCsv {
  const char* name;
  const char* text;
  const char* want_error;
};

TEST(CsvTest, MalformedFilesNameLineAndWhat) {
  const BadCsv kCases[] = {
      {"unterminated_quote", "a,b\n1,\"oops\n",
       "x.csv:3:1: unterminated quoted field (a '\"' is missing)"},
      {"wrong_field_count", "a,b\n1,2\n3\n",
       "x.csv:3: expected 2 fields as in the header, got 1 (quote fields that contain commas)"},
      {"text_after_quote", "a,b\n\"1\"x,2\n",
       "x.csv:2:4: text after a closing quote; quote the whole field"},
      {"empty", "", "x.csv:1: empty file; expected a header row"},
      {"duplicate_header", "a,a\n1,2\n", "x.csv:1: duplicate column \"a\" in header"},
  };
  for (const BadCsv& c : kCases) {
    SCOPED_TRACE(c.name);
    auto t = CsvTable::Parse(c.text, "x.csv");
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().message(), c.want_error);
  }
}

TEST(CsvTest, RowReaderReportsColumnAndExpectedForm) {
  auto t = CsvTable::Parse("name,vcpu,count\nx,eight,1/6\n", "i.csv");
  ASSERT_TRUE(t.ok());
  CsvRowReader r(*t, t->rows()[0]);
  EXPECT_NEAR(r.Number("count", 0, 16), 1.0 / 6, 1e-9);
  r.Integer("vcpu", 1, 1024);
  EXPECT_EQ(r.status().message(),
            "i.csv:2:3: field \"vcpu\": expected a whole number from 1 to 1024, got \"eight\"");
}

TEST(CsvTest, ParseDecimal) {
  EXPECT_EQ(ParseDecimal("12"), 12.0);
  EXPECT_EQ(ParseDecimal(" 0.5 "), 0.5);
  EXPECT_NEAR(*ParseDecimal("1/12"), 1.0 / 12, 1e-12);
  EXPECT_FALSE(ParseDecimal("1/0"));
  EXPECT_FALSE(ParseDecimal("abc"));
  EXPECT_FALSE(ParseDecimal(""));
}

}  // namespace
}  // namespace gpuplan::io

namespace gpuplan::io {
namespace {

TEST(CsvTest, CommentLinesBeforeTheHeaderMayHoldQuotesAndCommas) {
  auto t = CsvTable::Parse("# a \"quoted\", note\n# another\nname,v\nx,1\n", "c.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->header()[0], "name");
  ASSERT_EQ(t->rows().size(), 1u);
  EXPECT_EQ(t->rows()[0].line, 4);
}

}  // namespace
}  // namespace gpuplan::io
