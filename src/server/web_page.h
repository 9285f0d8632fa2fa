// The single web page of `gpuplan serve`: a form for the common workload fields that posts to
// /v1/plan with fetch() and shows the ranked table, the why and the advice. Self-contained (no
// external script, style or font), and every server or user string reaches the page through
// textContent, never innerHTML.
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
