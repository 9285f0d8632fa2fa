// The single web page of `gpuplan serve`: a form for every workload and constraint field that
// posts to /v1/plan with fetch() and draws the answer: the time-vs-cost chart with the Pareto
// front, the ranked table, and per candidate its why, memory and step-time bars, cost and advice.
// The page's state lives in its query string (a plan link; the keys are the workload YAML's),
// and opening a link runs its plan. Self-contained (no external script, style, font or URL), and
// every server or user string reaches the page through textContent, never innerHTML. Markup in
// web_page_html.inc, script in web_page_js.inc.
#ifndef GPUPLAN_SRC_SERVER_WEB_PAGE_H_
#define GPUPLAN_SRC_SERVER_WEB_PAGE_H_

#include <string>
#include <string_view>

namespace gpuplan {
class ModelZoo;
}

namespace gpuplan::server {

// The page, with the zoo's model names as suggestions for the model field.
std::string WebPage(const ModelZoo& zoo);

// `text` with & < > " ' replaced by character references.
std::string HtmlEscape(std::string_view text);

}  // namespace gpuplan::server

#endif  // GPUPLAN_SRC_SERVER_WEB_PAGE_H_
