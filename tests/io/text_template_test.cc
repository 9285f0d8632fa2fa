// io::RenderTemplate, the substitution the deploy files (data/deploy/*.tmpl) are rendered with:
// values, sections shown or hidden by a flag, tags alone on a line standing for whole lines, and
// errors that name the template and line for every name without a value.
#include "io/text_template.h"

#include <gtest/gtest.h>

#include <string>

namespace gpuplan::io {
namespace {

TemplateValues Values() {
  TemplateValues v;
  v.text["region"] = "cn-hangzhou";
  v.text["lines"] = "  --A 1\n  --B 2\n";
  v.text["empty"] = "";
  v.flags["on"] = true;
  v.flags["off"] = false;
  return v;
}

struct RenderCase {
  const char* name;
  const char* tmpl;
  const char* want;
};

TEST(TextTemplateTest, RendersValuesSectionsAndWholeLines) {
  const RenderCase kCases[] = {
      {"plain_text", "no tags at all\n", "no tags at all\n"},
      {"value", "REGION='{{region}}'\n", "REGION='cn-hangzhou'\n"},
      {"value_next_to_braces", "${X:-{{region}}}", "${X:-cn-hangzhou}"},
      {"shell_braces_untouched", "${#devs[@]} {x} }}", "${#devs[@]} {x} }}"},
      {"inline_section_on", "a{{#on}}, b{{/on}}.", "a, b."},
      {"inline_section_off", "a{{#off}}, b{{/off}}.", "a."},
      {"inverted_section", "{{^off}}shown{{/off}}{{^on}}hidden{{/on}}", "shown"},
      {"section_lines_on", "head\n{{#on}}\ninside\n{{/on}}\ntail\n", "head\ninside\ntail\n"},
      {"section_lines_off", "head\n{{#off}}\ninside\n{{/off}}\ntail\n", "head\ntail\n"},
      {"indented_tag_alone", "head\n  {{#on}}  \nx\n  {{/on}}\n", "head\nx\n"},
      {"nested_hidden_by_outer", "{{#off}}\n{{#on}}\nx\n{{/on}}\n{{/off}}\ny\n", "y\n"},
      {"nested_both_on", "{{#on}}\n{{^off}}\nx\n{{/off}}\n{{/on}}\n", "x\n"},
      {"value_alone_is_lines", "args=(\n{{lines}}\n)\n", "args=(\n  --A 1\n  --B 2\n)\n"},
      {"empty_value_alone_leaves_no_line", "a\n{{empty}}\nb\n", "a\nb\n"},
      {"two_tags_on_a_line_are_inline", "{{#on}}{{region}}\n{{/on}}", "cn-hangzhou\n"},
      {"tag_on_last_line_without_newline", "x {{#on}}y{{/on}}", "x y"},
  };
  for (const RenderCase& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<std::string> out = RenderTemplate("t.tmpl", c.tmpl, Values());
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(*out, c.want);
  }
}

struct ErrorCase {
  const char* name;
  const char* tmpl;
  const char* want;  // the whole message
};

TEST(TextTemplateTest, ErrorsNameTheTemplateLineAndTag) {
  const ErrorCase kCases[] = {
      {"unknown_value", "a\nb {{regoin}}\n", "t.tmpl line 2: no value for {{regoin}}"},
      {"unknown_flag", "{{#clustr}}x{{/clustr}}", "t.tmpl line 1: no flag for {{#clustr}}"},
      // Every name is checked, also in a part that is left out.
      {"unknown_value_in_hidden_part", "{{#off}}\n{{typo}}\n{{/off}}\n",
       "t.tmpl line 2: no value for {{typo}}"},
      {"flag_used_as_value", "{{on}}", "t.tmpl line 1: no value for {{on}}"},
      {"unclosed_tag", "x\n\n{{region", "t.tmpl line 3: '{{' without '}}'"},
      {"empty_tag", "{{}}", "t.tmpl line 1: empty tag"},
      {"unclosed_section", "{{#on}}\nx\n", "t.tmpl: {{#on}} is never closed"},
      {"closed_out_of_order", "{{#on}}{{^off}}x{{/on}}{{/off}}",
       "t.tmpl line 1: {{/on}} closes {{^off}}"},
      {"closed_without_open", "x{{/on}}", "t.tmpl line 1: {{/on}} closes nothing"},
  };
  for (const ErrorCase& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<std::string> out = RenderTemplate("t.tmpl", c.tmpl, Values());
    ASSERT_FALSE(out.ok()) << *out;
    EXPECT_EQ(out.status().code(), ErrorCode::kInternal);
    EXPECT_EQ(out.status().message(), c.want);
  }
}

}  // namespace
}  // namespace gpuplan::io
