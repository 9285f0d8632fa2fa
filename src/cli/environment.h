// What the command line takes from the process environment, read once in main() and passed
// down in CliContext: commands never call getenv, and tests give each run its own environment
// instead of setenv.
#ifndef GPUPLAN_SRC_CLI_ENVIRONMENT_H_
#define GPUPLAN_SRC_CLI_ENVIRONMENT_H_

#include <string>

namespace gpuplan::cli {

// Every field is the variable's value, "" when unset or empty.
struct CliEnvironment {
  std::string catalog_dir;     // $GPUPLAN_CATALOG: catalog overlay directory (--catalog wins)
  std::string today;           // $GPUPLAN_TODAY: "YYYY-MM-DD" instead of the clock's date
  std::string xdg_cache_home;  // $XDG_CACHE_HOME: the price cache is under it, else under $HOME
  std::string home;            // $HOME: ~/.cache/gpuplan and ~/.aliyun/config.json
  // Alibaba Cloud credentials (the standard variable names), for `gpuplan prices refresh`.
  std::string access_key_id;      // $ALIBABA_CLOUD_ACCESS_KEY_ID
  std::string access_key_secret;  // $ALIBABA_CLOUD_ACCESS_KEY_SECRET
  std::string security_token;     // $ALIBABA_CLOUD_SECURITY_TOKEN

  // Reads the variables above from this process's environment (main() calls it once).
  static CliEnvironment FromProcess();
};

}  // namespace gpuplan::cli

#endif  // GPUPLAN_SRC_CLI_ENVIRONMENT_H_
