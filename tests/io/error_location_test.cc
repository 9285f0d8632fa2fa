// The loaders record where an error is as values (Status::location()): the file, line, column
// and field agree with the message text, so no caller needs to parse it.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/status.h"
#include "io/catalog_loader.h"
#include "io/csv.h"
#include "io/workload_yaml.h"

namespace gpuplan::io {
namespace {

struct Case {
  const char* name;
  Status status;
  const char* message_starts;  // the text, which names the same place
  const char* file;
  int line, column;
  const char* field;
};

void ExpectLocations(const Case* begin, const Case* end) {
  for (const Case* c = begin; c != end; ++c) {
    SCOPED_TRACE(c->name);
    ASSERT_FALSE(c->status.ok());
    EXPECT_TRUE(c->status.message().starts_with(c->message_starts)) << c->status.message();
    const ErrorLocation& at = c->status.location();
    EXPECT_EQ(at.file, c->file);
    EXPECT_EQ(at.line, c->line);
    EXPECT_EQ(at.column, c->column);
    EXPECT_EQ(at.field, c->field);
  }
}

Status CsvError(const char* text) { return CsvTable::Parse(text, "x.csv").status(); }

constexpr char kPriceHeader[] = "instance,region,billing,currency,price,unit,as_of,trust\n";

Status PriceError(const std::string& row) {
  return ParseCatalog({.gpus = "",
                       .families = "",
                       .instances = "",
                       .prices = std::string(kPriceHeader) + row,
                       .dir = "u/"})
      .status();
}

TEST(ErrorLocationTest, CsvLoadersRecordFileLineColumnAndField) {
  const Case kCases[] = {
      {"unterminated_quote", CsvError("a,b\n1,\"oops\n"), "x.csv:3:1:", "x.csv", 3, 1, ""},
      {"text_after_quote", CsvError("a,b\n\"1\"x,2\n"), "x.csv:2:4:", "x.csv", 2, 4, ""},
      {"wrong_field_count", CsvError("a,b\n1,2\n3\n"), "x.csv:3:", "x.csv", 3, 0, ""},
      {"duplicate_header", CsvError("a,a\n1,2\n"), "x.csv:1:", "x.csv", 1, 3, "a"},
      {"empty_file", CsvError(""), "x.csv:1:", "x.csv", 1, 0, ""},
      {"bad_billing_field", PriceError("ecs.x,cn-hangzhou,weekly,CNY,1,hour,2025-01-01,high\n"),
       "u/prices.csv:2:19: field \"billing\"", "u/prices.csv", 2, 19, "billing"},
      {"bad_currency_field", PriceError("ecs.x,cn-hangzhou,payg,EUR,1,hour,2025-01-01,high\n"),
       "u/prices.csv:2:24: field \"currency\"", "u/prices.csv", 2, 24, "currency"},
      {"missing_column",
       ParseCatalog({.gpus = "",
                     .families = "",
                     .instances = "",
                     .prices = "instance,region\necs.x,r\n",
                     .dir = "u/"})
           .status(),
       "u/prices.csv:1: missing column \"billing\"", "u/prices.csv", 1, 0, "billing"},
  };
  ExpectLocations(std::begin(kCases), std::end(kCases));
}

Status YamlError(const char* text) { return ParseWorkloadYaml(text, "job.yaml").status(); }

TEST(ErrorLocationTest, WorkloadReaderRecordsFileLineColumnAndField) {
  const Case kCases[] = {
      {"bad_value", YamlError("task: finetune\nmodel: llama-2-7b\nseq_len: long\n"),
       "job.yaml:3:10: field \"seq_len\"", "job.yaml", 3, 10, "seq_len"},
      {"nested_bad_value",
       YamlError("task: inference\nmodel: llama-2-7b\ninference:\n  engine: tgi\n"),
       "job.yaml:4:11: field \"inference.engine\"", "job.yaml", 4, 11, "inference.engine"},
      {"unknown_key", YamlError("task: finetune\nmodel: llama-2-7b\noptimiser: adamw\n"),
       "job.yaml:3:1: field \"optimiser\"", "job.yaml", 3, 1, "optimiser"},
      {"billing_list_item",
       YamlError("task: finetune\nmodel: llama-2-7b\nconstraints:\n  billing: [payg, weekly]\n"),
       "job.yaml:4:19: field \"constraints.billing\"", "job.yaml", 4, 19, "constraints.billing"},
      // ValidateWorkload's field, placed at its key's value.
      {"validated_field", YamlError("task: pretrain\nmodel: llama-2-7b\nmethod: lora\n"),
       "job.yaml:3:9: field \"method\"", "job.yaml", 3, 9, "method"},
      {"empty", YamlError(""), "job.yaml:1:1: empty workload", "job.yaml", 1, 1, ""},
  };
  ExpectLocations(std::begin(kCases), std::end(kCases));
}

// Where yaml-cpp stops in a malformed file is its business; the location and the text agree.
TEST(ErrorLocationTest, MalformedYamlRecordsWhereTheParserStopped) {
  const Status s = YamlError("task: [finetune\n");
  ASSERT_FALSE(s.ok());
  const ErrorLocation& at = s.location();
  EXPECT_EQ(at.file, "job.yaml");
  EXPECT_GT(at.line, 0);
  EXPECT_TRUE(s.message().starts_with("job.yaml:" + std::to_string(at.line) + ":" +
                                      std::to_string(at.column) + ": malformed YAML"))
      << s.message();
}

TEST(ErrorLocationTest, ContextKeepsTheLocation) {
  const Status s = Status::InvalidArgument("x.csv:2:3: field \"a\": bad").At("x.csv", 2, 3, "a");
  const Status wrapped = s.WithContext("import failed");
  EXPECT_EQ(wrapped.message(), "import failed: x.csv:2:3: field \"a\": bad");
  EXPECT_EQ(wrapped.location().line, 2);
  EXPECT_EQ(wrapped.location().field, "a");
  EXPECT_TRUE(Status::Ok().AtField("a").location().empty()) << "an OK status stays plain";
}

}  // namespace
}  // namespace gpuplan::io
