#!/usr/bin/env bash
# The style checks `make test` runs: clang-format on every C++ file (.clang-format) and
# clang-tidy on gpuplan's sources (.clang-tidy; src/core/.clang-tidy adds: no I/O headers in the
# core). Usage: scripts/check-style.sh BUILD_DIR (needs its compile_commands.json).
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
status=0

mapfile -t cxx < <(git ls-files '*.cc' '*.h' ':!:tests/browser/**')
if ! clang-format --dry-run --Werror "${cxx[@]}" 2>/tmp/gpuplan-format.$$; then
  echo "clang-format: these files differ from .clang-format (run 'make format'):"
  grep -o '^[^:]*\.\(cc\|h\)' /tmp/gpuplan-format.$$ | sort -u | sed 's/^/  /'
  status=1
fi
rm -f /tmp/gpuplan-format.$$
echo "clang-format: ${#cxx[@]} files checked"

# Compiler warnings are the -Werror build's business (-w here); tidy reports only its checks.
mapfile -t sources < <(git ls-files 'src/*.cc')
if ! printf '%s\n' "${sources[@]}" |
    xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet --extra-arg=-w 2>/dev/null; then
  echo "clang-tidy: findings above (see .clang-tidy)"
  status=1
fi
echo "clang-tidy: ${#sources[@]} files checked"
exit $status
