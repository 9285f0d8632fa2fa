#include "io/text_template.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace gpuplan::io {
namespace {

bool Blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char ch) { return ch == ' ' || ch == '\t'; });
}

// One {{...}} tag: where it starts and ends in the template, and the span of text it replaces
// (the whole line when it stands alone on it).
struct Tag {
  char kind = 0;  // 0 (a value), '#', '^' or '/'
  std::string_view key;
  size_t cut_from = 0;  // text before this is copied; the tag replaces [cut_from, resume)
  size_t resume = 0;
};

// The tag opening at `at`; `copied` is where the text not yet copied starts (a tag after another
// on the same line is not alone on it).
Result<Tag> ReadTag(std::string_view tmpl, size_t at, size_t copied, std::string_view where) {
  const size_t end = tmpl.find("}}", at + 2);
  if (end == std::string_view::npos)
    return Status::Internal(fmt::format("{}: '{{{{' without '}}}}'", where));
  Tag tag;
  std::string_view inside = tmpl.substr(at + 2, end - at - 2);
  if (!inside.empty() && (inside[0] == '#' || inside[0] == '^' || inside[0] == '/')) {
    tag.kind = inside[0];
    inside.remove_prefix(1);
  }
  if (inside.empty())
    return Status::Internal(fmt::format("{}: empty tag", where));
  tag.key = inside;
  tag.cut_from = at;
  tag.resume = end + 2;
  const size_t newline_before = tmpl.rfind('\n', at);
  const size_t line_start = newline_before == std::string_view::npos ? 0 : newline_before + 1;
  const size_t line_end = tmpl.find('\n', end + 2);
  if (line_start >= copied && line_end != std::string_view::npos &&
      Blank(tmpl.substr(line_start, at - line_start)) &&
      Blank(tmpl.substr(end + 2, line_end - end - 2))) {
    tag.cut_from = line_start;
    tag.resume = line_end + 1;
  }
  return tag;
}

}  // namespace

Result<std::string> RenderTemplate(std::string_view name, std::string_view tmpl,
                                   const TemplateValues& values) {
  struct Open {
    char kind;  // '#' or '^'
    std::string_view key;
    bool shown;  // this section and every one around it are rendered
  };
  std::vector<Open> open;
  auto OpenTag = [](const Open& o) { return fmt::format("{{{{{}{}}}}}", o.kind, o.key); };
  auto shown = [&open] { return open.empty() || open.back().shown; };
  std::string out;
  size_t copied = 0;
  for (size_t at = tmpl.find("{{"); at != std::string_view::npos; at = tmpl.find("{{", copied)) {
    const std::string where =
        fmt::format("{} line {}", name,
                    1 + std::count(tmpl.begin(), tmpl.begin() + static_cast<long>(at), '\n'));
    Result<Tag> tag = ReadTag(tmpl, at, copied, where);
    if (!tag.ok())
      return tag.status();
    if (shown())
      out += tmpl.substr(copied, tag->cut_from - copied);
    copied = tag->resume;
    if (tag->kind == 0) {
      const auto value = values.text.find(tag->key);
      if (value == values.text.end())
        return Status::Internal(fmt::format("{}: no value for {{{{{}}}}}", where, tag->key));
      if (shown())
        out += value->second;
    } else if (tag->kind == '/') {
      if (open.empty() || open.back().key != tag->key) {
        return Status::Internal(
            fmt::format("{}: {{{{/{}}}}} closes {}", where, tag->key,
                        open.empty() ? std::string("nothing") : OpenTag(open.back())));
      }
      open.pop_back();
    } else {
      const auto flag = values.flags.find(tag->key);
      if (flag == values.flags.end())
        return Status::Internal(
            fmt::format("{}: no flag for {{{{{}{}}}}}", where, tag->kind, tag->key));
      open.push_back({tag->kind, tag->key, shown() && flag->second == (tag->kind == '#')});
    }
  }
  if (!open.empty()) {
    return Status::Internal(fmt::format("{}: {} is never closed", name, OpenTag(open.back())));
  }
  out += tmpl.substr(copied);
  return out;
}

}  // namespace gpuplan::io
