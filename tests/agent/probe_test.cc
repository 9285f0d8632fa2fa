#include "agent/probe.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "agent/metadata_client.h"
#include "agent/probe_calibration.h"
#include "agent/proc_reader.h"
#include "gpuplan/catalog.h"
#include "io/catalog_loader.h"
#include "testing/agent_fakes.h"
#include "testing/cli_runner.h"
#include "testing/mock_metadata_server.h"

namespace gpuplan::agent {
namespace {

using testing::FakeClock;
using testing::FakeCudaProbe;
using testing::FakeGpuTelemetry;
using testing::MockMetadataServer;

const Catalog& Embedded() {
  static const Catalog* catalog = [] {
    auto* c = new Catalog(*io::LoadCatalog(""));
    c->Validate();
    return c;
  }();
  return *catalog;
}

const ProbeMetric* Find(const ProbeReport& r, const std::string& id, int gpu) {
  for (const ProbeMetric& m : r.metrics) {
    if (m.id == id && m.gpu == gpu)
      return &m;
  }
  return nullptr;
}

// Two A10s as NVML and the CUDA plugin would report them on ecs.gn7i-2x.8xlarge.
struct TwoA10s {
  FakeGpuTelemetry nvml;
  FakeCudaProbe cuda;
  TwoA10s() {
    for (int i = 0; i < 2; ++i) {
      GpuInfo g;
      g.index = i;
      g.name = "NVIDIA A10";
      g.memory_total_gib = 22.49;
      g.pcie_gen_max = i == 0 ? 4 : 3;  // GPU 1 sits in a gen3 slot
      g.pcie_width_max = 16;
      g.power_limit_w = 150;
      g.driver_version = "550.54.15";
      nvml.devices.push_back(g);
      cuda.result.devices.push_back({i, "NVIDIA A10", 22.49, 8, 6});
      cuda.result.measurements.push_back({i, "gemm_bf16_tflops", i == 0 ? 92.0 : 45.0, "fake"});
      cuda.result.measurements.push_back({i, "memory_bandwidth_gbs", 505, "fake"});
      cuda.result.measurements.push_back({i, "h2d_gbs", i == 0 ? 24.5 : 12.1, "fake"});
    }
    cuda.result.measurements.push_back({1, "p2p_gbs", 21, "fake"});
    cuda.result.skipped.push_back({-1, "allreduce_busbw_gbs", "built without NCCL"});
    cuda.result.skipped.push_back({0, "gemm_fp16_tflops", "cuBLASLt found no algorithm"});
  }
};

TEST(ProbeTest, WithoutGpusEveryGpuMetricSaysWhyItIsMissing) {
  FakeClock clock;
  ProcReader proc(testing::TestDataPath("proc/t0"));
  ProbeEnvironment env;
  env.clock = &clock;
  env.proc = &proc;
  env.telemetry_error = "cannot load libnvidia-ml.so.1";
  env.cuda_error = "CUDA probe plugin not loaded";
  env.metadata_error = "disabled";
  ProbeOptions o;
  o.instance = "ecs.gn7i-c8g1.2xlarge";
  o.skip_cpu = true;
  ProbeReport r = RunProbe(o, env, Embedded());
  EXPECT_EQ(r.instance_type, "ecs.gn7i-c8g1.2xlarge");
  EXPECT_EQ(r.instance_source, "flag");
  EXPECT_EQ(r.gpu_model, "A10-24G");
  EXPECT_TRUE(r.devices.empty());
  const ProbeMetric* gemm = Find(r, "gemm_bf16_tflops", -1);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->verdict, Verdict::kNotMeasured);
  EXPECT_EQ(gemm->note, "CUDA probe plugin not loaded");
  EXPECT_NEAR(*gemm->expected, 87.5, 1e-9);  // the expectation is still shown
  EXPECT_EQ(Find(r, "gpu_count", -1)->verdict, Verdict::kNotMeasured);
  const ProbeMetric* mem = Find(r, "host_memory_gib", -1);
  ASSERT_TRUE(mem->measured);
  EXPECT_NEAR(*mem->measured, 16, 1e-9);
  EXPECT_EQ(mem->verdict, Verdict::kBad);  // 16 GiB seen, the type has 30

  nlohmann::json j = ProbeReportJson(r);
  EXPECT_EQ(j["instance_type"], "ecs.gn7i-c8g1.2xlarge");
  EXPECT_TRUE(j["devices"].empty());
  bool listed = false;
  for (const auto& n : j["not_measured"]) {
    if (n["id"] == "gemm_bf16_tflops")
      listed = n["reason"] == "CUDA probe plugin not loaded";
  }
  EXPECT_TRUE(listed);
  EXPECT_GT(j["summary"]["not-measured"].get<int>(), 10);
  std::string table = RenderProbeTable(r);
  EXPECT_NE(table.find("GEMM BF16 (tensor)"), std::string::npos);
  EXPECT_NE(table.find("not-measured"), std::string::npos);
}

TEST(ProbeTest, MeasurementsGetVerdictsPerGpu) {
  TwoA10s gpus;
  FakeClock clock;
  ProcReader proc(testing::TestDataPath("proc/t0"));
  ProbeEnvironment env;
  env.clock = &clock;
  env.proc = &proc;
  env.telemetry = &gpus.nvml;
  env.cuda = &gpus.cuda;
  ProbeOptions o;
  o.instance = "gn7i-2x.8xlarge";  // without "ecs." works too
  o.skip_cpu = true;
  o.cuda.seconds_per_test = 0.25;
  ProbeReport r = RunProbe(o, env, Embedded());
  EXPECT_EQ(gpus.cuda.runs, 1);
  EXPECT_EQ(gpus.cuda.last_options.seconds_per_test, 0.25);
  EXPECT_EQ(r.instance_type, "ecs.gn7i-2x.8xlarge");
  EXPECT_EQ(r.driver_version, "550.54.15");
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[0].compute_capability, "8.6");
  struct Want {
    const char* id;
    int gpu;
    Verdict verdict;
  };
  const Want kWants[] = {
      {"gpu_count", -1, Verdict::kOk},
      {"gemm_bf16_tflops", 0, Verdict::kOk},
      {"gemm_bf16_tflops", 1, Verdict::kBad},
      {"h2d_gbs", 0, Verdict::kOk},
      {"h2d_gbs", 1, Verdict::kBad},
      {"pcie_gen", 0, Verdict::kOk},
      {"pcie_gen", 1, Verdict::kBad},
      {"memory_bandwidth_gbs", 1, Verdict::kOk},
      {"gemm_fp16_tflops", 0, Verdict::kNotMeasured},
      {"gemm_fp32_tflops", 0, Verdict::kNotMeasured},
      {"p2p_gbs", 1, Verdict::kLow},
      {"allreduce_busbw_gbs", -1, Verdict::kNotMeasured},
  };
  for (const Want& w : kWants) {
    SCOPED_TRACE(std::string(w.id) + " gpu " + std::to_string(w.gpu));
    const ProbeMetric* m = Find(r, w.id, w.gpu);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(VerdictName(m->verdict), VerdictName(w.verdict));
  }
  EXPECT_EQ(Find(r, "gemm_fp16_tflops", 0)->note, "cuBLASLt found no algorithm");
  EXPECT_EQ(Find(r, "allreduce_busbw_gbs", -1)->note, "built without NCCL");
}

TEST(ProbeTest, InstanceTypeFromTheMetadataService) {
  struct Case {
    const char* name;
    std::string body;
    const char* want_type;
    const char* want_source;
    const char* want_note;  // "" = no note about the instance
  };
  const Case kCases[] = {
      {"known_type", "ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c8g1.2xlarge", "metadata", ""},
      {"unknown_type", "ecs.gn99-c8g1.2xlarge", "ecs.gn99-c8g1.2xlarge", "metadata",
       "is not in the catalog"},
      {"garbage", "<html>oops</html>", "", "unknown", "not an instance type name"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    MockMetadataServer server;
    MockMetadataServer::Behaviour b;
    b.instance_type = c.body;
    server.Set(b);
    MetadataOptions mo;
    mo.base_url = server.url();
    mo.timeout_seconds = 1;
    auto client = MetadataClient::Create(mo);
    ASSERT_TRUE(client.ok());
    FakeClock clock;
    ProcReader proc(testing::TestDataPath("proc/t0"));
    ProbeEnvironment env;
    env.clock = &clock;
    env.proc = &proc;
    env.metadata = client->get();
    ProbeOptions o;
    o.skip_cpu = true;
    ProbeReport r = RunProbe(o, env, Embedded());
    EXPECT_EQ(r.instance_type, c.want_type);
    EXPECT_EQ(r.instance_source, c.want_source);
    bool noted = false;
    for (const std::string& n : r.notes)
      noted |= *c.want_note && n.find(c.want_note) != n.npos;
    EXPECT_EQ(noted, *c.want_note != 0);
  }
}

TEST(ProbeTest, GpuMatchedFromTheDriverNameWhenTheInstanceIsUnknown) {
  TwoA10s gpus;
  FakeClock clock;
  ProbeEnvironment env;
  env.clock = &clock;
  env.telemetry = &gpus.nvml;
  env.cuda = &gpus.cuda;
  env.metadata_error = "disabled";
  ProbeOptions o;
  o.skip_cpu = true;
  ProbeReport r = RunProbe(o, env, Embedded());
  EXPECT_EQ(r.gpu_model, "A10-24G");
  EXPECT_EQ(Find(r, "gemm_bf16_tflops", 0)->verdict, Verdict::kOk);
  EXPECT_EQ(Find(r, "gpu_count", -1)->verdict, Verdict::kNoExpectation);
  EXPECT_EQ(Find(r, "host_memory_gib", -1)->note, "no /proc");
}

TEST(ProbeTest, CalibrationFromAReportRoundTrips) {
  TwoA10s gpus;
  FakeClock clock;
  ProbeEnvironment env;
  env.clock = &clock;
  env.telemetry = &gpus.nvml;
  env.cuda = &gpus.cuda;
  ProbeOptions o;
  o.instance = "ecs.gn7i-2x.8xlarge";
  o.skip_cpu = true;
  ProbeCalibration c = CalibrationFromReport(RunProbe(o, env, Embedded()));
  EXPECT_EQ(c.gpu, "A10-24G");
  EXPECT_EQ(c.gpu_count, 2);
  EXPECT_NEAR(c.measured["gemm_bf16_tflops"], (92.0 + 45.0) / 2, 1e-9);
  EXPECT_NEAR(c.efficiency["gemm_bf16"], (92.0 + 45.0) / 2 / 125, 1e-9);
  EXPECT_NEAR(c.efficiency["memory_bandwidth"], 505.0 / 600, 1e-9);
  EXPECT_EQ(c.efficiency.count("gemm_fp16"), 0u);  // not measured: no efficiency
  Result<ProbeCalibration> back = ParseCalibration(CalibrationToJson(c), "cal.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->instance_type, "ecs.gn7i-2x.8xlarge");
  EXPECT_EQ(back->efficiency, c.efficiency);
  EXPECT_EQ(back->measured, c.measured);
}

TEST(ProbeCalibrationTest, MalformedFilesNameTheField) {
  struct Case {
    const char* name;
    const char* json;
    const char* want;
  };
  const Case kCases[] = {
      {"not_json", "{", "cal.json: not valid JSON"},
      {"array", "[]", "cal.json: field \"(top level)\": expected an object"},
      {"wrong_format", R"({"format":"x","version":1})",
       "cal.json: field \"format\": expected \"gpuplan-probe-calibration\""},
      {"wrong_version", R"({"format":"gpuplan-probe-calibration","version":2})",
       "cal.json: field \"version\": expected 1"},
      {"efficiency_above_peak",
       R"({"format":"gpuplan-probe-calibration","version":1,"efficiency":{"gemm_bf16":1.7}})",
       "cal.json: field \"efficiency.gemm_bf16\": expected a number greater than 0 and at most "
       "1.05"},
      {"efficiency_text",
       R"({"format":"gpuplan-probe-calibration","version":1,"efficiency":{"h2d":"fast"}})",
       "field \"efficiency.h2d\""},
      {"gpu_count_negative", R"({"format":"gpuplan-probe-calibration","version":1,"gpu_count":-1})",
       "field \"gpu_count\": expected a whole number from 0 to 1024"},
      {"instance_number", R"({"format":"gpuplan-probe-calibration","version":1,"instance_type":7})",
       "field \"instance_type\": expected a string or null"},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    Result<ProbeCalibration> r = ParseCalibration(c.json, "cal.json");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(c.want), std::string::npos) << r.status().message();
  }
  EXPECT_FALSE(LoadCalibration("/nonexistent/cal.json").ok());
}

TEST(HostProbeTest, DiskReadOfADirectoryAndOfAFile) {
  char dir[] = "/tmp/gpuplan-probe-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  DiskProbeOptions o;
  o.file_mib = 4;
  o.seconds = 0.05;
  o.random_threads = 2;
  Result<DiskProbeResult> r = MeasureDiskRead(dir, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->seq_read_mbs, 0);
  EXPECT_GT(r->random_read_iops, 0);
  EXPECT_NE(access(r->path.c_str(), F_OK), 0) << "the test file must be removed";

  const std::string small = std::string(dir) + "/small";
  FILE* f = fopen(small.c_str(), "w");
  fputs("tiny", f);
  fclose(f);
  Result<DiskProbeResult> tiny = MeasureDiskRead(small, o);
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(tiny.status().message().find("smaller than 1 MiB"), std::string::npos);
  unlink(small.c_str());
  rmdir(dir);
  Result<DiskProbeResult> missing = MeasureDiskRead("/nonexistent/data", o);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
}

TEST(HostProbeTest, CpuThroughputIsPositive) {
  CpuProbeResult r = MeasureCpu(0.02);
  EXPECT_GE(r.online_cpus, 1);
  EXPECT_GT(r.gflops_one_core, 0);
  EXPECT_GT(r.gflops_all_cores, 0);
}

}  // namespace
}  // namespace gpuplan::agent
