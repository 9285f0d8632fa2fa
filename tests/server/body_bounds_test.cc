// Issue 32: a 1 MB body of nested brackets took 865 ms and 118 MB of server memory, and a JSON
// body with a trailing comma or a repeated key was accepted. Both are now a 400 before any tree
// is built.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "server/api.h"

namespace gpuplan {
namespace {

const server::ServerData& Data() {
  static const server::ServerData* data = [] {
    std::ostringstream out, err;
    cli::CliContext ctx;
    ctx.out = &out;
    ctx.err = &err;
    Result<server::ServerData> d = cli::LoadServerData(ctx);
    EXPECT_TRUE(d.ok()) << d.status().message();
    return new server::ServerData(d.ok() ? std::move(*d) : server::ServerData{});
  }();
  return *data;
}

TEST(BodyBoundsTest, Issue32BadOrDeepBodiesAre400WithTheirPlace) {
  struct Case {
    const char* name;
    std::string body;
    const char* want;
  };
  const Case kCases[] = {
      {"deep_json", std::string(500000, '[') + std::string(500000, ']'),
       "body:1:33: JSON nested deeper than 32 levels"},
      {"deep_yaml", "task: finetune\nmodel: " + std::string(500000, '{'),
       "body:2:40: YAML nested deeper than 32 levels"},
      {"trailing_comma", R"({"task": "finetune", "model": "llama-2-7b",})",
       "body:1:44: malformed JSON: syntax error while parsing object key - unexpected '}'; "
       "expected string literal"},
      {"duplicate_key", R"({"task": "finetune", "model": "llama-2-7b", "model": "llama-2-13b"})",
       "body:1:45: field \"model\": duplicate key \"model\" (first given at line 1)"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    server::Request req;
    req.method = "POST";
    req.path = "/v1/plan";
    req.body = c.body;
    const auto start = std::chrono::steady_clock::now();
    const server::Response r = server::Handle(Data(), req);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.status, 400) << r.body;
    const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    ASSERT_TRUE(j.contains("error")) << r.body;
    EXPECT_EQ(j["error"]["message"], c.want);
    EXPECT_LT(ms, 500) << "a bounded body is refused in one scan";
  }
}

}  // namespace
}  // namespace gpuplan
