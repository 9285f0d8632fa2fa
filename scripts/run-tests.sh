#!/usr/bin/env bash
# Runs every check CI runs, on an already configured build directory ($1), then builds and runs
# the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer in $2, then the fuzz
# smoke run on the libFuzzer build $3 when one is given (make fuzz-build).
set -euo pipefail
build=${1:-build}
asan=${2:-build-asan}
fuzz=${3:-}
jobs=$(nproc)
here=$(cd "$(dirname "$0")/.." && pwd)

echo "== unit and CLI tests =="
ctest --test-dir "$build" --output-on-failure -j "$jobs"

echo "== contracts (command, flag and JSON names the issues promise) =="
areas=(catalog)
for extra in estimate validate plan prices agent; do
  [ -f "$here/scripts/contract-areas/$extra" ] && areas+=("$extra")
done
contracts="$here/../shared/checks/contracts.py"
if [ ! -f "$contracts" ]; then
  # A clone without shared/: run the project's copy in the layout it expects
  # (checks/contracts.py next to data/validation/calibration.csv).
  layout=$(mktemp -d)
  trap 'rm -rf "$layout"' EXIT
  mkdir -p "$layout/checks" "$layout/data"
  cp "$here/tests/contracts.py" "$layout/checks/contracts.py"
  ln -s "$here/tests/testdata/validation" "$layout/data/validation"
  contracts="$layout/checks/contracts.py"
fi
python3 "$contracts" "$build/gpuplan" "${areas[@]}"

echo "== portable agent: glibc baseline, ldd, runs in a chroot with no C library (issue 29) =="
# 77: not root, so no chroot (the script says so loudly); CI runs as root and runs it all.
"$here/scripts/check-agent-portable.sh" "$build" || [ $? -eq 77 ]
# Its commands, flags and JSON fields are gpuplan's (the agent contracts, on the static binary).
python3 "$contracts" "$build/gpuplan-agent" agent

echo "== style: clang-format and clang-tidy (.clang-format, .clang-tidy) =="
"$here/scripts/check-style.sh" "$build"

echo "== uncertainty table (data/uncertainty.csv regenerated from the model and compared) =="
"$here/scripts/check-uncertainty.sh" "$build/gpuplan"

if [ -x "$here/scripts/accuracy.sh" ]; then
  echo "== accuracy harness =="
  "$here/scripts/accuracy.sh" "$build/gpuplan"
fi

echo "== ASan + UBSan build and tests =="
cmake -S "$here" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGPUPLAN_WERROR=ON \
  -DGPUPLAN_SANITIZE=address,undefined -DGPUPLAN_CUDA_PROBE=OFF
cmake --build "$asan" -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$asan" --output-on-failure -j "$jobs"

if [ -n "$fuzz" ]; then
  echo "== fuzz smoke: every libFuzzer target about 20 s (scripts/fuzz-smoke.sh) =="
  "$here/scripts/fuzz-smoke.sh" "$fuzz" 20
fi
echo "== all checks passed =="
