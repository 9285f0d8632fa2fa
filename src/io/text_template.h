// A small text template: what the deploy files (data/deploy/*.tmpl) are written in, so that the
// shell, Terraform and cloud-init text lives in data files that read as the files they render.
//
//   {{name}}                 the text value `name`
//   {{#flag}} ... {{/flag}}  the part between, when `flag` is on
//   {{^flag}} ... {{/flag}}  the part between, when `flag` is off
//
// A tag alone on its line (spaces around it allowed) stands for whole lines: the line goes, with
// its newline, and a value put there must end in its own newline (or be empty). Every name a
// template uses must have a value or flag, even in a part that is left out, so that a misspelt
// name fails on every render, not only in the case that shows it.
//
//   TemplateValues v;
//   v.text["region"] = "cn-hangzhou";
//   v.flags["cluster"] = true;
//   Result<std::string> t = RenderTemplate("deploy/x.tmpl", "{{region}}{{#cluster}}!{{/cluster}}",
//   v);
//   // *t == "cn-hangzhou!"
//
// Thread safety: a pure function over values.
#ifndef GPUPLAN_SRC_IO_TEXT_TEMPLATE_H_
#define GPUPLAN_SRC_IO_TEXT_TEMPLATE_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "gpuplan/status.h"

namespace gpuplan::io {

struct TemplateValues {
  std::map<std::string, std::string, std::less<>> text;  // {{name}}
  std::map<std::string, bool, std::less<>> flags;        // {{#name}}, {{^name}}
};

// `tmpl` with its tags replaced. `name` (the template's file) and the line number are in every
// error: an unknown name, an unclosed tag, a section closed out of order or not at all.
Result<std::string> RenderTemplate(std::string_view name, std::string_view tmpl,
                                   const TemplateValues& values);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_TEXT_TEMPLATE_H_
