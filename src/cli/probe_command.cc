// `gpuplan probe`: measure this instance and compare it with what the catalog promises.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "agent/clock.h"
#include "agent/cuda_probe.h"
#include "agent/gpu_telemetry.h"
#include "agent/metadata_client.h"
#include "agent/probe.h"
#include "agent/probe_calibration.h"
#include "agent/proc_reader.h"
#include "cli/commands.h"
#include "io/file_util.h"

namespace gpuplan::cli {
namespace {

struct ProbeFlags {
  std::string instance;
  std::string path;
  bool json = false;
  std::string save;
  std::string metadata_url = std::string(agent::kDefaultMetadataUrl);
  double metadata_timeout = 1;
  bool no_metadata = false;
  std::string cuda_plugin;
  bool no_gpu = false;
  bool no_cpu = false;
  bool quick = false;
  double seconds = 0.5;
  int gemm_size = 8192;
  double disk_mib = 256;
  std::string proc_root = "/proc";
};

void RunProbeCommand(CliContext& ctx, const ProbeFlags& f) {
  auto usage = [&](const std::string& msg) {
    ctx.Fail(Status::InvalidArgument(msg), /*usage=*/true);
  };
  if (!(f.seconds > 0) || f.seconds > 60)
    return usage("--seconds: expected 0 to 60 seconds");
  if (f.gemm_size < 256 || f.gemm_size > 32768) {
    return usage("--gemm-size: expected 256 to 32768");
  }
  if (!(f.disk_mib >= 1) || f.disk_mib > 65536)
    return usage("--disk-mib: expected 1 to 65536");
  if (!(f.metadata_timeout > 0) || f.metadata_timeout > 60) {
    return usage("--metadata-timeout: expected 0 to 60 seconds");
  }

  // The probe reports what it can even when the catalog cannot load: a JSON document is
  // promised on stdout in every case.
  Catalog empty;
  Result<Catalog> loaded = LoadCliCatalog(ctx);
  const Catalog& catalog = loaded.ok() ? *loaded : empty;

  agent::SystemClock clock;
  agent::ProcReader proc(f.proc_root);
  agent::ProbeEnvironment env;
  env.clock = &clock;
  env.proc = &proc;
  std::unique_ptr<agent::MetadataClient> metadata;
  if (f.no_metadata) {
    env.metadata_error = "metadata lookup disabled with --no-metadata";
  } else if (f.instance.empty()) {
    agent::MetadataOptions mo;
    mo.base_url = f.metadata_url;
    mo.timeout_seconds = f.metadata_timeout;
    auto client = agent::MetadataClient::Create(mo, &clock);
    if (!client.ok())
      return ctx.Fail(client.status(), /*usage=*/true);
    metadata = std::move(*client);
    env.metadata = metadata.get();
  }
  std::unique_ptr<agent::GpuTelemetry> nvml;
  std::unique_ptr<agent::CudaProbe> cuda;
  if (f.no_gpu) {
    env.telemetry_error = env.cuda_error = "GPU tests disabled with --no-gpu";
  } else {
    nvml = agent::OpenGpuTelemetry(&env.telemetry_error);
    env.telemetry = nvml.get();
    cuda = agent::LoadCudaProbePlugin(f.cuda_plugin, &env.cuda_error);
    env.cuda = cuda.get();
  }

  agent::ProbeOptions o;
  o.instance = f.instance;
  o.disk_path = f.path;
  o.disk.file_mib = f.disk_mib;
  o.disk.seconds = f.quick ? 0.3 : 1.0;
  o.cpu_seconds = f.quick ? 0.1 : 0.3;
  o.skip_cpu = f.no_cpu;
  o.cuda.seconds_per_test = f.quick ? std::min(f.seconds, 0.1) : f.seconds;
  o.cuda.gemm_size = f.quick ? std::min(f.gemm_size, 4096) : f.gemm_size;
  agent::ProbeReport report = agent::RunProbe(o, env, catalog);
  if (!loaded.ok())
    report.notes.push_back("catalog not loaded: " + loaded.status().message());

  if (f.json) {
    *ctx.out << agent::ProbeReportJson(report).dump(2) << "\n";
  } else {
    *ctx.out << agent::RenderProbeTable(report);
  }
  if (!f.save.empty()) {
    const std::string text = agent::CalibrationToJson(agent::CalibrationFromReport(report));
    if (Status s = io::WriteFileAtomic(f.save, text); !s.ok())
      return ctx.Fail(s);
    *ctx.err << "gpuplan probe: calibration saved to " << f.save << "\n";
  }
  ctx.exit_code = ExitCode::kOk;
}

}  // namespace

void AddProbeCommand(CLI::App& app, CliContext& ctx) {
  auto f = std::make_shared<ProbeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "probe",
      "Measure this instance (GEMM TFLOPS, memory, PCIe, GPU-GPU, NCCL, disk, CPU) and compare "
      "with the catalog; what cannot be measured is listed with the reason");
  cmd->add_option("--instance", f->instance,
                  "Instance type to compare with (default: ask the metadata service)");
  cmd->add_option("--path", f->path,
                  "Directory (a temporary test file is written) or file on the dataset disk to "
                  "read; default: no disk test");
  cmd->add_flag("--json", f->json, "Print JSON (one document)");
  cmd->add_option("--save", f->save,
                  "Write a calibration file (JSON) that estimate and plan can use");
  cmd->add_option("--metadata-url", f->metadata_url, "Base URL of the instance metadata service")
      ->capture_default_str();
  cmd->add_option("--metadata-timeout", f->metadata_timeout, "Seconds to wait for it")
      ->capture_default_str();
  cmd->add_flag("--no-metadata", f->no_metadata, "Do not ask the metadata service");
  cmd->add_option("--cuda-plugin", f->cuda_plugin,
                  "Path of libgpuplan_cuda_probe.so (default: $GPUPLAN_CUDA_PROBE, then next to "
                  "gpuplan)");
  cmd->add_flag("--no-gpu", f->no_gpu, "Skip NVML and the CUDA tests");
  cmd->add_flag("--no-cpu", f->no_cpu, "Skip the CPU test");
  cmd->add_flag("--quick", f->quick, "Shorter tests (less steady numbers)");
  cmd->add_option("--seconds", f->seconds, "Timed phase of each GPU test")->capture_default_str();
  cmd->add_option("--gemm-size", f->gemm_size, "M = N = K of the GEMM test")->capture_default_str();
  cmd->add_option("--disk-mib", f->disk_mib, "Size of the disk test file, MiB")
      ->capture_default_str();
  cmd->add_option("--proc-root", f->proc_root, "Where /proc is (for tests)")->capture_default_str();
  cmd->callback([&ctx, f] { RunProbeCommand(ctx, *f); });
}

}  // namespace gpuplan::cli
