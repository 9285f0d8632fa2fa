#include "server/web_page.h"

#include <fmt/format.h>

#include "gpuplan/billing.h"
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

// One checkbox per billing mode the planner can price, from the billing table
// (gpuplan/billing.h), with its alias for links that use it ("subscription").
std::string BillingOptions() {
  std::string boxes;
  for (const BillingMode& m : kBillingModes) {
    if (!m.costed)
      continue;
    const std::string name = HtmlEscape(m.name);
    boxes += "<label class=\"check\"><input type=\"checkbox\" name=\"billing\" value=\"" + name +
             "\"" + (m.alias.empty() ? "" : " data-alias=\"" + HtmlEscape(m.alias) + "\"") + "> " +
             name + "</label>\n";
  }
  return boxes;
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
  // The picker shows each zoo model with its size, so "which 7B models" reads at a glance.
  for (const ModelArch& m : zoo.models) {
    const double params = m.Params();
    const std::string size =
        params >= 1e9 ? fmt::format("{:.3g}B", params / 1e9) : fmt::format("{:.3g}M", params / 1e6);
    options += "<option value=\"" + HtmlEscape(m.name) + "\">" +
               (params > 0 ? HtmlEscape(size + " parameters") : "") + "</option>";
  }
  std::string page(kMarkup);
  Fill(page, "SCRIPT", kScript);  // first: the zoo's names must not be searched for slots
  Fill(page, "MODEL_OPTIONS", options);
  Fill(page, "BILLING_CHOICES", HtmlEscape(BillingChoices(BillingUse::kCosted)));
  Fill(page, "BILLING_OPTIONS", BillingOptions());
  return page;
}

}  // namespace gpuplan::server
