#include "cli/environment.h"

#include <cstdlib>

namespace gpuplan::cli {
namespace {

std::string Var(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

CliEnvironment CliEnvironment::FromProcess() {
  CliEnvironment env;
  env.catalog_dir = Var("GPUPLAN_CATALOG");
  env.today = Var("GPUPLAN_TODAY");
  env.xdg_cache_home = Var("XDG_CACHE_HOME");
  env.home = Var("HOME");
  env.access_key_id = Var("ALIBABA_CLOUD_ACCESS_KEY_ID");
  env.access_key_secret = Var("ALIBABA_CLOUD_ACCESS_KEY_SECRET");
  env.security_token = Var("ALIBABA_CLOUD_SECURITY_TOKEN");
  return env;
}

}  // namespace gpuplan::cli
