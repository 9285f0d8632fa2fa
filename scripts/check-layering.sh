#!/usr/bin/env bash
# The library boundaries the build cannot enforce by include paths alone (docs/development.md, "Code
# layout"); run by ctest as `layering`. Prints every violation as file:line and exits 1.
#   - src/core's own headers are private to it: nothing includes "core/...".
#   - gpuplan_core and its tests (tests/core) reach no edge: no io/net/cli/agent/server header.
#   - gpuplan_io has no network: no cpp-httplib, OpenSSL or net/ header.
#   - the agent links statically (gpuplan-agent): no cpp-httplib, OpenSSL or net/ header, and
#     dlopen only in the two files the portable build swaps out.
#   - the CLI reads the environment in one place (src/cli/environment.cc), and tests set it
#     through CliEnvironment, never setenv.
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
status=0
fail() {  # fail WHY < grep -n output
  local hits
  hits=$(cat)
  if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | sed "s|\$|   <- $1|"
    status=1
  fi
}
src() { git ls-files --cached --others --exclude-standard -- "$@" 2>/dev/null || find "$@" -type f; }
grep_in() {  # grep_in REGEX PATHS...
  local re=$1; shift
  local files
  files=$(src "$@" | grep -E '\.(cc|h|cu|inc)$')
  [ -z "$files" ] && return 0
  # shellcheck disable=SC2086
  grep -nE "$re" $files
}

# Each check is `fail WHY < <(grep ...)`: fail runs in this shell, so it can set $status.
fail 'src/core headers are private to gpuplan_core; public API lives in include/gpuplan' \
  < <(grep_in '#include "core/' src include tests bench fuzz tools cuda)
fail 'the core (and its tests) must not depend on an edge library' \
  < <(grep_in '#include "(io|net|cli|agent|server)/' src/core include tests/core)
fail 'gpuplan_io parses and renders; network code belongs in src/net (gpuplan_net)' \
  < <(grep_in '#include [<"](httplib\.h|openssl/|net/)' src/io)
fail 'the agent is linked statically into gpuplan-agent: no shared-only library (docs/on-instance.md)' \
  < <(grep_in '#include [<"](httplib\.h|openssl/|net/)' src/agent)
fail 'a static program cannot dlopen: only nvml_telemetry.cc and cuda_probe.cc may (gpuplan-agent swaps them)' \
  < <(src src/agent | grep -E '\.(cc|h)$' | grep -vE '^src/agent/(nvml_telemetry|cuda_probe)\.cc$' |
      xargs grep -nE '\bdlopen\s*\(' 2>/dev/null | grep -vE '^[^:]*:[0-9]+:\s*//')
fail 'the CLI reads the environment only in src/cli/environment.cc (CliEnvironment)' \
  < <(src src/cli | grep -E '\.(cc|h)$' | grep -v '^src/cli/environment\.cc$' |
      xargs grep -nE '\bgetenv\s*\(' 2>/dev/null)
fail 'tests pass a cli::CliEnvironment (testing::TestEnvironment()) instead of setenv' \
  < <(grep_in '\b(setenv|unsetenv|putenv)\s*\(' tests)

if [ "$status" -eq 0 ]; then
  echo "layering: ok"
fi
exit "$status"
