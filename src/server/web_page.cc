#include "server/web_page.h"

#include "gpuplan/model.h"

namespace gpuplan::server {
namespace {

// The page as two raw strings, kept in their own files so they are reviewed as HTML and script.
constexpr std::string_view kMarkup =
#include "server/web_page_html.inc"
    ;
constexpr std::string_view kScript =
#include "server/web_page_js.inc"
    ;

void Fill(std::string& page, std::string_view slot, std::string_view with) {
  page.replace(page.find(slot), slot.size(), with);
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string WebPage(const ModelZoo& zoo) {
  std::string options;
  for (const ModelArch& m : zoo.models) options += "<option value=\"" + HtmlEscape(m.name) + "\">";
  std::string page(kMarkup);
  Fill(page, "SCRIPT", kScript);  // first: the zoo's names must not be searched for slots
  Fill(page, "MODEL_OPTIONS", options);
  return page;
}

}  // namespace gpuplan::server
