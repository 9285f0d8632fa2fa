// `gpuplan serve`: the HTTP API answered over a real socket by a server started in-process on an
// ephemeral port, compared with what the CLI prints for the same input.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "gpuplan/billing.h"
#include "server/api.h"
#include "server/http_server.h"
#include "server/web_page.h"
#include "testing/cli_runner.h"

extern char** environ;

namespace gpuplan {
namespace {

using testing::RunGpuplan;

std::string Example(const std::string& name) {
  return std::string(GPUPLAN_SOURCE_DIR) + "/examples/" + name;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What the CLI prints for `args`, parsed; fails the test when it exits non-zero.
nlohmann::json CliJson(const std::vector<std::string>& args) {
  auto run = RunGpuplan(args);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.exit_code == 0 ? nlohmann::json::parse(run.out) : nlohmann::json();
}

server::ServerData LoadData() {
  std::ostringstream out, err;
  cli::CliContext ctx;
  ctx.out = &out;
  ctx.err = &err;
  Result<server::ServerData> data = cli::LoadServerData(ctx);
  EXPECT_TRUE(data.ok()) << data.status().message();
  return data.ok() ? std::move(*data) : server::ServerData{};
}

// One server for the suite: loaded like `gpuplan serve`, bound to a free loopback port.
class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    data_ = new server::ServerData(LoadData());
    http_ = new server::HttpServer(*data_, log_);
    Result<int> port = http_->Bind("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.status().message();
    port_ = *port;
    thread_ = new std::thread([] { (void)http_->Run(); });
  }
  static void TearDownTestSuite() {
    http_->Stop();
    thread_->join();
    delete thread_;
    delete http_;
    delete data_;
  }

  static httplib::Client Client() {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    return c;
  }

  static nlohmann::json Body(const httplib::Result& r) {
    if (!r)
      return nlohmann::json();
    return nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  }

  static inline server::ServerData* data_ = nullptr;
  static inline server::HttpServer* http_ = nullptr;
  static inline std::thread* thread_ = nullptr;
  static inline std::ostringstream log_;  // written by the server only while it runs
  static inline int port_ = 0;
};

TEST_F(ServerTest, PlanEqualsTheCliPlanJson) {
  struct Case {
    const char* name;
    std::string example;
    std::string query;               // for /v1/plan
    std::vector<std::string> flags;  // the same for `gpuplan plan`
  };
  const Case cases[] = {
      {"lora example", "llm-lora-finetune.yaml", "", {}},
      {"top and objective",
       "llm-lora-finetune.yaml",
       "?top=3&objective=time",
       {"--top", "3", "--objective", "time"}},
      {"region replaces the file's",
       "llama-13b-qlora-budget.yaml",
       "?region=cn-beijing",
       {"--region", "cn-beijing"}},
      {"inference", "high-concurrency-inference.yaml", "?top=5", {"--top", "5"}},
      {"rendering without a model", "rendering-farm.yaml", "", {}},
  };
  httplib::Client client = Client();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = {"plan", Example(c.example), "--json"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const nlohmann::json want = CliJson(args);
    auto r = client.Post(("/v1/plan" + c.query).c_str(), ReadText(Example(c.example)),
                         "application/yaml");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json; charset=utf-8");
    EXPECT_EQ(Body(r), want);
    EXPECT_FALSE(want["candidates"].empty());
  }
}

TEST_F(ServerTest, ExplainEqualsTheCliExplainJson) {
  const std::string type = "ecs.gn7i-c8g1.2xlarge";
  const nlohmann::json want =
      CliJson({"explain", type, Example("llm-lora-finetune.yaml"), "--json"});
  auto r = Client().Post(("/v1/explain?instance=" + type).c_str(),
                         ReadText(Example("llm-lora-finetune.yaml")), "application/yaml");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Body(r), want);
  EXPECT_FALSE(want["candidates"].empty());
}

TEST_F(ServerTest, DeployFilesEqualWhatTheCliWrites) {
  const std::string dir = ::testing::TempDir() + "/gpuplan-serve-deploy";
  std::filesystem::remove_all(dir);
  auto run = RunGpuplan({"deploy", Example("llm-lora-finetune.yaml"), "--rank", "2", "--out", dir});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto r = Client().Post("/v1/deploy?rank=2", ReadText(Example("llm-lora-finetune.yaml")),
                         "application/yaml");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const nlohmann::json j = Body(r);
  EXPECT_EQ(j["rank"], 2);
  ASSERT_EQ(j["files"].size(), 4u) << j.dump();
  for (const auto& [name, text] : j["files"].items()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(text.get<std::string>(), ReadText(dir + "/" + name));
  }
  std::filesystem::remove_all(dir);
}

TEST_F(ServerTest, ExplainAndDeployNameTheirBadParameter) {
  struct Case {
    const char* name;
    std::string target;
    std::string field, message;
  };
  const Case cases[] = {
      {"explain without a type", "/v1/explain", "instance", "instance: required"},
      {"explain of an unknown type", "/v1/explain?instance=ecs.nope", "instance",
       "unknown instance type \"ecs.nope\""},
      {"deploy past the plan's end", "/v1/deploy?rank=1000", "rank", "the plan has only"},
      {"deploy rank not a number", "/v1/deploy?rank=first", "rank", "expected a whole number"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = Client().Post(c.target.c_str(), ReadText(Example("llm-lora-finetune.yaml")),
                           "application/yaml");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << r->body;
    const nlohmann::json j = Body(r);
    EXPECT_EQ(j["error"]["field"], c.field) << r->body;
    EXPECT_NE(j["error"]["message"].get<std::string>().find(c.message), std::string::npos)
        << r->body;
  }
}

TEST_F(ServerTest, JsonAndYamlBodiesGiveTheSamePlan) {
  const std::string yaml =
      "task: finetune\nmethod: qlora\nmodel: llama-2-13b\nseq_len: 4096\ntokens: 50M\n"
      "constraints:\n  regions: [cn-hangzhou]\n  billing: [payg]\n";
  const std::string json =
      R"({"task": "finetune", "method": "qlora", "model": "llama-2-13b", "seq_len": 4096,
          "tokens": "50M", "constraints": {"regions": ["cn-hangzhou"], "billing": ["payg"]}})";
  httplib::Client client = Client();
  auto from_yaml = client.Post("/v1/plan", yaml, "application/yaml");
  auto from_json = client.Post("/v1/plan", json, "application/json");
  ASSERT_TRUE(from_yaml && from_json);
  ASSERT_EQ(from_yaml->status, 200) << from_yaml->body;
  ASSERT_EQ(from_json->status, 200) << from_json->body;
  EXPECT_EQ(from_yaml->body, from_json->body);
  EXPECT_EQ(Body(from_json)["workload"]["method"], "qlora");
  EXPECT_FALSE(Body(from_json)["candidates"].empty());
}

TEST_F(ServerTest, BadRequestsName400LineAndField) {
  struct Case {
    const char* name;
    std::string target;
    std::string body;
    std::string field;  // "" = none expected
    int line;           // 0 = none expected
    std::string message_has;
  };
  const Case cases[] = {
      {"yaml field with a bad value", "/v1/plan",
       "task: finetune\nmodel: llama-2-7b\nseq_len: long\n", "seq_len", 3, "body:3:"},
      {"json key misspelt", "/v1/plan",
       "{\"task\": \"finetune\",\n \"model\": \"llama-2-7b\",\n \"optimiser\": \"adamw\"}",
       "optimiser", 3, "did you mean \"optimizer\""},
      {"json cut short", "/v1/plan", "{\"task\": \"finetune\",\n \"model\": ", "", 2,
       "malformed JSON"},
      {"a list, not a workload", "/v1/plan", "[1, 2, 3]", "(document)", 1, "expected a mapping"},
      {"empty body", "/v1/plan", "", "", 1, "empty body"},
      {"unknown model", "/v1/plan", "task: finetune\nmodel: llama-9-7b\n", "model", 0,
       "unknown model"},
      {"missing task", "/v1/plan", "model: llama-2-7b\n", "task", 1, "field \"task\""},
      {"validated field at its key", "/v1/plan",
       "task: pretrain\nmodel: llama-2-7b\nmethod: lora\n", "method", 3,
       "body:3:9: field \"method\""},
      {"billing mode unknown", "/v1/plan",
       "task: finetune\nmodel: llama-2-7b\nconstraints:\n  billing: [weekly]\n",
       "constraints.billing", 4, "expected payg, spot, subscription_month (or subscription)"},
      {"top out of range", "/v1/plan?top=0", "task: finetune\nmodel: llama-2-7b\n", "top", 0,
       "top: expected a whole number from 1 to 1000"},
      {"unknown objective", "/v1/plan?objective=cheapest", "task: finetune\nmodel: llama-2-7b\n",
       "objective", 0, "time_within_budget"},
      {"unknown parameter", "/v1/plan?topp=3", "task: finetune\nmodel: llama-2-7b\n", "topp", 0,
       "unknown query parameter \"topp\""},
      {"estimate without hardware", "/v1/estimate", "task: finetune\nmodel: llama-2-7b\n", "", 0,
       "give gpu=NAME gpus=N, or instance=TYPE [nodes=K]"},
      {"estimate unknown gpu", "/v1/estimate?gpu=H2OO&gpus=8",
       "task: finetune\nmodel: llama-2-7b\n", "gpu", 0, "gpu: unknown GPU \"H2OO\""},
      {"estimate layout that does not divide", "/v1/estimate?gpu=A100-80G-SXM&gpus=8&tp=3",
       "task: finetune\nmodel: llama-2-7b\n", "tp", 0, "tp=3 x pp=1 does not divide the 8 GPUs"},
      {"estimate zero stage", "/v1/estimate?gpu=A10&gpus=1&zero=4",
       "task: finetune\nmodel: llama-2-7b\n", "zero", 0,
       "zero: expected a whole number from 0 to 3"},
      {"estimate gpu and instance", "/v1/estimate?gpu=A10&instance=ecs.gn7i-c8g1.2xlarge",
       "task: finetune\nmodel: llama-2-7b\n", "", 0, "give either instance or gpu/gpus, not both"},
      {"hardware in the body", "/v1/estimate", "task: finetune\nmodel: llama-2-7b\ngpu: A10\n",
       "gpu", 3, "gpu is a query parameter, not a workload field: /v1/estimate?gpu=..."},
      {"top in the body", "/v1/plan",
       "{\"task\": \"finetune\", \"model\": \"llama-2-7b\", \"top\": 3}", "top", 1,
       "top is a query parameter"},
      {"catalog unknown gpu filter", "/v1/catalog/instances?gpu=H2OO", "", "gpu", 0,
       "did you mean"},
      {"catalog bad status", "/v1/catalog/instances?status=old", "", "status", 0,
       "expected current"},
      {"catalog bad number", "/v1/catalog/gpus?min_gpu_memory=lots", "", "min_gpu_memory", 0,
       "expected a number"},
  };
  httplib::Client client = Client();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const bool get = c.target.starts_with("/v1/catalog");
    auto r = get ? client.Get(c.target.c_str())
                 : client.Post(c.target.c_str(), c.body, "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400) << r->body;
    const nlohmann::json e = Body(r)["error"];
    ASSERT_TRUE(e.is_object()) << r->body;
    EXPECT_NE(e["message"].get<std::string>().find(c.message_has), std::string::npos) << e;
    if (c.field.empty()) {
      EXPECT_FALSE(e.contains("field")) << e;
    } else {
      EXPECT_EQ(e.value("field", ""), c.field) << e;
    }
    if (c.line > 0) {
      EXPECT_EQ(e.value("line", 0), c.line) << e;
    }
  }
}

TEST_F(ServerTest, UnknownPathsAndWrongMethods) {
  struct Case {
    const char* name;
    std::string method, path;
    int status;
    std::string allow;
  };
  const Case cases[] = {
      {"unknown path", "GET", "/v2/plan", 404, ""},
      {"unknown path, POST", "POST", "/nothing", 404, ""},
      {"plan is POST only", "GET", "/v1/plan", 405, "POST"},
      {"estimate is POST only", "PUT", "/v1/estimate", 405, "POST"},
      {"the page is GET only", "DELETE", "/", 405, "GET"},
      {"catalog is GET only", "POST", "/v1/catalog/gpus", 405, "GET"},
  };
  httplib::Client client = Client();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    httplib::Result r = c.method == "GET"    ? client.Get(c.path.c_str())
                        : c.method == "POST" ? client.Post(c.path.c_str(), "{}", "application/json")
                        : c.method == "PUT"  ? client.Put(c.path.c_str(), "{}", "application/json")
                                             : client.Delete(c.path.c_str());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, c.status);
    EXPECT_TRUE(Body(r)["error"]["message"].is_string()) << r->body;
    EXPECT_EQ(r->get_header_value("Allow"), c.allow);
  }
}

TEST_F(ServerTest, OversizedBodyGets413) {
  httplib::Client client = Client();
  const std::string body(data_->max_body_bytes + 1, ' ');
  auto r = client.Post("/v1/plan", body, "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_TRUE(Body(r)["error"]["message"].is_string()) << r->body;
  // The same limit in the handler itself, for bodies that reach it some other way.
  server::Request req;
  req.method = "POST";
  req.path = "/v1/estimate";
  req.body = body;
  const server::Response direct = server::Handle(*data_, req);
  EXPECT_EQ(direct.status, 413);
  EXPECT_NE(direct.body.find("over the limit of 1048576 bytes"), std::string::npos) << direct.body;
}

TEST_F(ServerTest, CatalogEndpointsEqualTheCliJson) {
  struct Case {
    const char* name;
    std::string target;
    std::vector<std::string> cli;
  };
  const Case cases[] = {
      {"gpus", "/v1/catalog/gpus", {"catalog", "gpus", "--json"}},
      {"gpus filtered",
       "/v1/catalog/gpus?min_gpu_memory=80&alibaba=true",
       {"catalog", "gpus", "--json", "--min-gpu-memory", "80", "--alibaba"}},
      {"instances", "/v1/catalog/instances", {"catalog", "instances", "--json"}},
      {"instances filtered",
       "/v1/catalog/instances?gpu=A10&region=cn-hangzhou",
       {"catalog", "instances", "--json", "--gpu", "A10", "--region", "cn-hangzhou"}},
      {"instances rdma family",
       "/v1/catalog/instances?rdma&family=ebmgn7ex&min_gpus=8",
       {"catalog", "instances", "--json", "--rdma", "--family", "ebmgn7ex", "--min-gpus", "8"}},
      {"families", "/v1/catalog/families", {"catalog", "families", "--json"}},
      {"models", "/v1/catalog/models", {"estimate", "--list-models", "--json"}},
  };
  httplib::Client client = Client();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = client.Get(c.target.c_str());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    const nlohmann::json got = Body(r);
    EXPECT_EQ(got, CliJson(c.cli));
    EXPECT_FALSE(got.empty());
  }
}

TEST_F(ServerTest, EstimateEqualsTheCliEstimateJson) {
  struct Case {
    const char* name;
    std::string query;
    std::vector<std::string> flags;
  };
  const Case cases[] = {
      {"gpus", "?gpu=A100-80G-SXM&gpus=8", {"--gpu", "A100-80G-SXM", "--gpus", "8"}},
      // A layout the LoRA workload's framework (the PEFT stack: data parallel only) runs.
      {"instance and nodes with a layout",
       "?instance=ecs.ebmgn7ex.32xlarge&nodes=2&dp=16&zero=3",
       {"--instance", "ecs.ebmgn7ex.32xlarge", "--nodes", "2", "--dp", "16", "--zero", "3"}},
      {"micro-batch replaces the body's",
       "?gpu=A10&gpus=4&gpus_per_node=4&micro_batch=1",
       {"--gpu", "A10", "--gpus", "4", "--gpus-per-node", "4", "--micro-batch", "1"}},
  };
  const std::string workload = Example("llm-lora-finetune.yaml");
  httplib::Client client = Client();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> args = {"estimate", workload, "--json"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    auto r =
        client.Post(("/v1/estimate" + c.query).c_str(), ReadText(workload), "application/yaml");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(Body(r), CliJson(args));
  }
}

TEST_F(ServerTest, ALayoutTheFrameworkCannotRunIsA400NamingTheParameter) {
  // The LoRA example runs on the PEFT stack (data parallel only): tp 8 is not estimated.
  auto r = Client().Post("/v1/estimate?instance=ecs.ebmgn7ex.32xlarge&nodes=2&tp=8",
                         ReadText(Example("llm-lora-finetune.yaml")), "application/yaml");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  const nlohmann::json j = nlohmann::json::parse(r->body);
  EXPECT_EQ(j["error"]["field"], "tp");
  EXPECT_NE(j["error"]["message"].get<std::string>().find(
                "tp: framework peft (HF PEFT + Transformers Trainer / TRL on accelerate"),
            std::string::npos)
      << r->body;
}

TEST_F(ServerTest, HealthzCountsTheCatalog) {
  auto r = Client().Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  const nlohmann::json j = Body(r);
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["catalog"]["gpus"], data_->catalog.gpus.size());
  EXPECT_EQ(j["catalog"]["instances"], data_->catalog.instances.size());
  EXPECT_EQ(j["catalog"]["families"], data_->catalog.families.size());
  EXPECT_GT(j["catalog"]["instances"].get<int>(), 100);
  EXPECT_EQ(j["version"], "0.1.0");
}

TEST_F(ServerTest, PageHasTheFormAndNothingExternal) {
  auto r = Client().Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  const std::string& page = r->body;
  for (const char* want :
       {"<form", "name=\"task\"", "name=\"method\"", "name=\"model\"", "name=\"precision\"",
        "name=\"seq_len\"", "name=\"tokens\"", "name=\"global_batch\"", "name=\"region\"",
        "name=\"objective\"", "fetch(\"/v1/plan", "<option value=\"llama-2-7b\">", "textContent",
        // every field a plan link can carry (the workload YAML's keys)
        "name=\"requests_per_s\"", "name=\"ttft_ms\"", "name=\"tpot_ms\"", "name=\"max_gpus\"",
        "name=\"max_nodes\"", "name=\"budget\"", "name=\"deadline_hours\"", "name=\"billing\"",
        "name=\"engine\"", "name=\"lora_rank\"", "name=\"micro_batch\"", "id=\"copy-link\"",
        "id=\"svg-ns\""}) {
    EXPECT_NE(page.find(want), std::string::npos) << want;
  }
  for (const char* banned : {"http://", "https://", "src=", "href=", "@import", "url(", "innerHTML",
                             "outerHTML", "insertAdjacentHTML", "document.write", "eval("}) {
    EXPECT_EQ(page.find(banned), std::string::npos) << banned;
  }
}

// Issue 24: the billing boxes come from the billing table, every mode the planner can price
// (the page once listed three of them by hand), and no slot is left unfilled.
TEST_F(ServerTest, PageOffersEveryCostedBillingMode) {
  auto r = Client().Get("/");
  ASSERT_TRUE(r);
  const std::string& page = r->body;
  for (const BillingMode& m : kBillingModes) {
    const std::string box = "name=\"billing\" value=\"" + std::string(m.name) + "\"";
    EXPECT_EQ(page.find(box) != std::string::npos, m.costed) << m.name;
  }
  EXPECT_NE(page.find("value=\"subscription_month\" data-alias=\"subscription\""),
            std::string::npos);
  EXPECT_EQ(page.find("BILLING_"), std::string::npos);
}

TEST_F(ServerTest, ConcurrentRequestsGiveTheSameAnswer) {
  const std::string body = ReadText(Example("llm-lora-finetune.yaml"));
  auto first = Client().Post("/v1/plan", body, "application/yaml");
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200);
  std::atomic<int> same{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&] {
      for (int k = 0; k < 3; ++k) {
        auto r = Client().Post("/v1/plan", body, "application/yaml");
        if (r && r->status == 200 && r->body == first->body)
          ++same;
      }
    });
  }
  for (std::thread& t : threads)
    t.join();
  EXPECT_EQ(same.load(), 18);
}

TEST(ServerLogTest, OneLinePerRequestThenACleanStop) {
  server::ServerData data = LoadData();
  std::ostringstream log;
  server::HttpServer http(data, log);
  Result<int> port = http.Bind("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  std::thread run([&] { EXPECT_TRUE(http.Run().ok()); });
  httplib::Client client("127.0.0.1", *port);
  auto a = client.Get("/healthz");
  auto b = client.Get("/nowhere?x=1");
  ASSERT_TRUE(a && b);
  http.Stop();
  run.join();
  const std::string text = log.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
  EXPECT_NE(text.find("GET /healthz -> 200"), std::string::npos) << text;
  EXPECT_NE(text.find("GET /nowhere?x=1 -> 404"), std::string::npos) << text;
  EXPECT_NE(text.find("127.0.0.1"), std::string::npos) << text;
}

TEST(ServerLogTest, StopBeforeRunReturnsAtOnce) {
  server::ServerData data = LoadData();
  std::ostringstream log;
  server::HttpServer http(data, log);
  ASSERT_TRUE(http.Bind("127.0.0.1", 0).ok());
  http.Stop();
  EXPECT_TRUE(http.Run().ok());
}

TEST(ServerLogTest, BindingATakenPortFailsClearly) {
  server::ServerData data = LoadData();
  std::ostringstream log;
  server::HttpServer first(data, log), second(data, log);
  Result<int> port = first.Bind("127.0.0.1", 0);
  ASSERT_TRUE(port.ok());
  Result<int> again = second.Bind("127.0.0.1", *port);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("cannot listen on 127.0.0.1:" + std::to_string(*port)),
            std::string::npos);
}

TEST(HtmlEscapeTest, EscapesMarkup) {
  struct Case {
    const char* name;
    std::string in, want;
  };
  const Case cases[] = {
      {"plain", "llama-2-7b", "llama-2-7b"},
      {"tag", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
      {"quotes and ampersand", "a\"b'c&d", "a&quot;b&#39;c&amp;d"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(server::HtmlEscape(c.in), c.want);
  }
}

// The real binary: `gpuplan serve --port 0` prints where it listens, answers, and exits 0 on
// SIGTERM and SIGINT.
TEST(ServeCommandTest, ServesThenExitsCleanlyOnSignals) {
  for (int sig : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(sig);
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    const std::string binary = GPUPLAN_BINARY;
    std::vector<char*> argv = {const_cast<char*>(binary.c_str()), const_cast<char*>("serve"),
                               const_cast<char*>("--port"), const_cast<char*>("0"), nullptr};
    // This process's environment with the test's empty price cache, not the developer's.
    std::vector<std::string> vars = {"XDG_CACHE_HOME=" + testing::TestEnvironment().xdg_cache_home};
    for (char** e = environ; *e; ++e) {
      if (std::string_view(*e).rfind("XDG_CACHE_HOME=", 0) != 0)
        vars.push_back(*e);
    }
    std::vector<char*> envp;
    for (std::string& v : vars)
      envp.push_back(v.data());
    envp.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    std::string line;
    char ch = 0;
    while (read(out[0], &ch, 1) == 1 && ch != '\n')
      line += ch;
    close(out[0]);
    const size_t at = line.find("http://127.0.0.1:");
    ASSERT_NE(at, std::string::npos) << line;
    const int port = std::stoi(line.substr(at + 17));
    httplib::Client client("127.0.0.1", port);
    auto r = client.Get("/healthz");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    kill(pid, sig);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
}

TEST(ServeCommandTest, HelpSaysLoopbackByDefault) {
  auto run = RunGpuplan({"serve", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("127.0.0.1"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--port"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace gpuplan
