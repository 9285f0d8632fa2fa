// Issue 32: a workload with `model` given twice planned the second silently (YAML and JSON),
// JSON was read by the YAML parser so a trailing comma passed, and a body of a million nested
// brackets built a tree of hundreds of MB before anything refused it.
#include <gtest/gtest.h>

#include <string>

#include "io/json_check.h"
#include "io/workload_yaml.h"

namespace gpuplan::io {
namespace {

TEST(WorkloadStrictnessTest, Issue32DuplicateKeysAreErrorsWithTheirPlace) {
  struct Case {
    const char* name;
    std::string text;
    const char* want;
  };
  const Case kCases[] = {
      {"yaml_top_level", "task: finetune\nmodel: llama-2-7b\nmodel: llama-2-13b\n",
       "w.yaml:3:1: field \"model\": duplicate key \"model\" (first given at line 2)"},
      {"yaml_nested",
       "task: finetune\nmodel: llama-2-7b\nconstraints:\n  max_gpus: 8\n  max_gpus: 16\n",
       "w.yaml:5:3: field \"constraints.max_gpus\": duplicate key \"max_gpus\" (first given at "
       "line 4)"},
      {"json_top_level", R"({"task": "finetune", "model": "llama-2-7b", "model": "llama-2-13b"})",
       "w.yaml:1:45: field \"model\": duplicate key \"model\" (first given at line 1)"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Workload> w = ParseWorkloadYaml(c.text, "w.yaml");
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.status().message(), c.want);
  }
}

TEST(WorkloadStrictnessTest, Issue32JsonIsParsedAsStrictJson) {
  struct Case {
    const char* name;
    std::string text;
    const char* want;
  };
  const Case kCases[] = {
      {"trailing_comma", R"({"task": "finetune", "model": "llama-2-7b",})",
       "body:1:44: malformed JSON: syntax error while parsing object key - unexpected '}'; "
       "expected string literal"},
      {"single_quotes", R"({'task': 'finetune'})",
       "body:1:2: malformed JSON: syntax error while parsing object key - invalid literal; "
       "last read: '{''; expected string literal"},
      {"nan_number", R"({"task": "finetune", "model": "llama-2-7b", "epochs": NaN})",
       "body:1:55: malformed JSON: syntax error while parsing value - invalid literal; last "
       "read: '\"epochs\": N'"},
      {"second_line", "{\"task\": \"finetune\",\n \"model\": llama}",
       "body:2:11: malformed JSON: syntax error while parsing value - invalid literal; last "
       "read: '\"model\": l'"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<Workload> w = ParseWorkloadYaml(c.text, "body");
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.status().message(), c.want);
  }
  // Valid JSON still reads as before.
  Result<Workload> ok = ParseWorkloadYaml(R"({"task": "finetune", "model": "llama-2-7b"})", "b");
  EXPECT_TRUE(ok.ok()) << ok.status().message();
}

TEST(WorkloadStrictnessTest, Issue32DeepOrHugeJsonIsRefusedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  Status s = CheckStrictJson(deep, "body");
  EXPECT_EQ(s.message(), "body:1:33: JSON nested deeper than 32 levels");
  Result<Workload> w = ParseWorkloadYaml(deep, "body");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(), "body:1:33: JSON nested deeper than 32 levels");

  std::string wide = "[";
  for (int i = 0; i < 20; ++i)
    wide += i ? ",1" : "1";
  wide += "]";
  EXPECT_EQ(CheckStrictJson(wide, "b", {.max_depth = 4, .max_values = 10}).message(),
            "b:1:21: JSON more than 10 values");  // the parser stood past the 10th 1
  EXPECT_TRUE(CheckStrictJson(wide, "b").ok());
}

TEST(WorkloadStrictnessTest, Issue32DeepYamlFlowIsRefusedBeforeParsing) {
  const std::string deep = "task: finetune\nmodel: " + std::string(50000, '[');
  Result<Workload> w = ParseWorkloadYaml(deep, "w.yaml");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(), "w.yaml:2:40: YAML nested deeper than 32 levels");
  // Brackets inside quotes and comments are text, not nesting.
  const std::string quoted = "task: finetune  # " + std::string(40, '[') +
                             "\nmodel: llama-2-7b\nframework: \"" + std::string(40, '{') + "\"\n";
  EXPECT_TRUE(CheckYamlFlowDepth(quoted, "w.yaml").ok());
}

TEST(WorkloadStrictnessTest, LooksLikeJson) {
  struct Case {
    const char* text;
    bool want;
  };
  const Case kCases[] = {{"{}", true},           {"  \n[1]", true}, {"task: x", false},
                         {"# {comment}", false}, {"", false},       {"   ", false}};
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.text);
    EXPECT_EQ(LooksLikeJson(c.text), c.want);
  }
}

}  // namespace
}  // namespace gpuplan::io
