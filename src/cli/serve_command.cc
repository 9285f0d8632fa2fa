// `gpuplan serve [--host 127.0.0.1] [--port 8080] [--catalog DIR]`: the HTTP JSON API and the
// web page (server/api.h) over the catalog, model zoo and calibration loaded once at start.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <memory>
#include <ostream>
#include <thread>

#include "agent/stop_signal.h"
#include "cli/commands.h"
#include "cli/plan_inputs.h"
#include "gpuplan/cost.h"
#include "server/api.h"
#include "server/http_server.h"

namespace gpuplan::cli {
namespace {

struct ServeFlags {
  std::string host = "127.0.0.1";  // loopback: other machines need an explicit --host
  int port = 8080;
};

bool IsLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.starts_with("127.");
}

void RunServe(CliContext& ctx, const ServeFlags& f) {
  Result<server::ServerData> data = LoadServerData(ctx);
  if (!data.ok())
    return ctx.Fail(data.status());
  server::HttpServer http(*data, *ctx.err);
  Result<int> port = http.Bind(f.host, f.port);
  if (!port.ok())
    return ctx.Fail(port.status());
  const std::atomic<bool>* stop = agent::InstallStopSignalHandlers();
  const std::string where = f.host.find(':') != std::string::npos ? "[" + f.host + "]" : f.host;
  *ctx.out << fmt::format("gpuplan serve: listening on http://{}:{}/ (Ctrl-C to stop)\n", where,
                          *port)
           << std::flush;
  if (!IsLoopback(f.host)) {
    *ctx.err << "gpuplan: warning: --host " << f.host
             << " makes the API reachable from other machines; it has no authentication\n";
  }
  // The signal handler only sets a flag; this thread turns it into a clean stop of the accept
  // loop, after which in-flight requests finish.
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!stop->load() && !done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    http.Stop();
  });
  Status s = http.Run();
  done = true;
  watcher.join();
  if (!s.ok())
    return ctx.Fail(s);
  if (agent::StopSignalNumber() != 0) {
    *ctx.err << "gpuplan serve: stopped by signal " << agent::StopSignalNumber() << "\n";
  }
}

}  // namespace

Result<server::ServerData> LoadServerData(const CliContext& ctx) {
  server::ServerData data;
  Result<ModelData> model_data = LoadModelData(ctx);
  if (!model_data.ok())
    return model_data.status();
  data.catalog = std::move(model_data->catalog);
  data.zoo = std::move(model_data->zoo);
  data.calibration = std::move(model_data->calibration);
  data.plan_options = CliPlanOptions(ctx);  // as `plan` builds them, once
  // Reads the clock (or the fixed $GPUPLAN_TODAY) per request; thread-safe.
  data.today = [env = ctx.env] { return CliToday(env); };
  return data;
}

void AddServeCommand(CLI::App& app, CliContext& ctx) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "HTTP JSON API (POST /v1/plan, /v1/estimate; GET /v1/catalog/..., /healthz) and a web page "
      "at /; listens on 127.0.0.1 only unless --host says otherwise");
  cmd->add_option("--host", flags->host,
                  "Address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 = every "
                  "interface, reachable from the network, no authentication)");
  cmd->add_option("--port", flags->port, "TCP port (default 8080; 0 = any free port)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--catalog", ctx.catalog_dir,
                  "Catalog overlay directory (as gpuplan --catalog; default $GPUPLAN_CATALOG)");
  cmd->callback([&ctx, flags] { RunServe(ctx, *flags); });
}

}  // namespace gpuplan::cli
