// gpuplan._gpuplan: the Python module's one native function. It answers a request to the HTTP
// API's handler (server::Handle: the same loaders, planner and JSON writers as `gpuplan plan
// --json`) in-process, over the catalog, model zoo and calibration `gpuplan serve` loads, read
// once on the first call with the process environment (GPUPLAN_CATALOG, GPUPLAN_TODAY, the price
// cache under XDG_CACHE_HOME). python/gpuplan/__init__.py turns keyword arguments into the
// request and the answer into dicts or gpuplan.Error.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "server/api.h"

namespace {

namespace py = pybind11;
using gpuplan::Result;
using gpuplan::server::ServerData;

// Loaded once (a function-local static: thread-safe); warnings go to standard error as the
// CLI's do.
const Result<ServerData>& Data() {
  static const Result<ServerData> data = [] {
    gpuplan::cli::CliContext ctx;
    ctx.env = gpuplan::cli::CliEnvironment::FromProcess();
    ctx.catalog_dir = ctx.env.catalog_dir;
    ctx.out = &std::cout;
    ctx.err = &std::cerr;
    return gpuplan::cli::LoadServerData(ctx);
  }();
  return data;
}

// (HTTP status, JSON body) for METHOD PATH?PARAMS with BODY.
std::pair<int, std::string> Request(std::string method, std::string path,
                                    gpuplan::server::Params params, std::string body) {
  py::gil_scoped_release unlocked;  // planning takes seconds; other Python threads may run
  const Result<ServerData>& data = Data();
  if (!data.ok()) {
    gpuplan::server::Response r = gpuplan::server::ErrorResponse(500, data.status().message());
    return {r.status, r.body};
  }
  gpuplan::server::Request req{std::move(method), std::move(path), std::move(params),
                               std::move(body)};
  gpuplan::server::Response r = gpuplan::server::Handle(*data, req);
  return {r.status, std::move(r.body)};
}

}  // namespace

PYBIND11_MODULE(_gpuplan, m) {
  m.doc() = "gpuplan's native half: requests to the planner's JSON API, answered in-process";
  m.attr("version") = gpuplan::cli::kVersion;
  m.def("request", &Request, py::arg("method"), py::arg("path"), py::arg("params"), py::arg("body"),
        "Answers METHOD PATH (as `gpuplan serve` would) with (status, JSON text)");
}
