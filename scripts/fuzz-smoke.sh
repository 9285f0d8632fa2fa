#!/usr/bin/env bash
# Runs every libFuzzer target of a GPUPLAN_FUZZ build for a short time each, seeded from
# tests/testdata (and fuzz/seeds/ where the tests have no files of that format) with the
# target's dictionary fuzz/dicts/<target>.dict. Fails on any crash, leak, timeout or
# out-of-memory, and prints each target's coverage (edges), features and executions.
#
#   scripts/fuzz-smoke.sh [BUILD_DIR] [SECONDS_PER_TARGET] [TARGET ...]
#   (default build-fuzz, 20 s, every *_fuzzer in BUILD_DIR)
#
# The corpus each run grows is kept in BUILD_DIR/fuzz-corpus/<target>/ so that a longer run
# (make fuzz) starts where the last one stopped. Crash inputs go to BUILD_DIR/fuzz-artifacts/.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-fuzz}
seconds=${2:-20}
shift $(( $# > 2 ? 2 : $# ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$build"/*_fuzzer; do
    [ -x "$f" ] && targets+=("$(basename "$f")")
  done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz-smoke: no *_fuzzer binaries in $build (build with: make fuzz-build)" >&2
  exit 1
fi

# The seed folders of each target: files of its format that the tests already hold.
seeds() {
  local t=$root/tests/testdata
  case "$1" in
    catalog_csv_fuzzer) echo "$t/overlay_ok $t/overlay_bad $root/tests/golden/catalog_instances_gn7e.csv" ;;
    hf_config_fuzzer) echo "$t/hf_configs" ;;
    diffusers_config_fuzzer) echo "$t/diffusers/flux.1-dev $t/diffusers/wan2.1-t2v-14b" ;;
    price_import_fuzzer) echo "$t/aliyun" ;;
    proc_parsers_fuzzer) echo "$t/proc" ;;
    server_request_fuzzer) echo "$root/fuzz/seeds/server_request" ;;
    spot_notice_fuzzer) echo "$root/fuzz/seeds/spot_notice" ;;
    workload_yaml_fuzzer) echo "$t/workloads $root/examples" ;;
    campaign_yaml_fuzzer) echo "$root/examples" ;;
    *) echo "$root/fuzz/seeds/${1%_fuzzer}" ;;
  esac
}

mkdir -p "$build/fuzz-artifacts"
status=0
report=()
for target in "${targets[@]}"; do
  name=${target%_fuzzer}
  corpus=$build/fuzz-corpus/$name
  mkdir -p "$corpus"
  # libFuzzer reads only the files directly inside a folder; copy the seeds in, flat.
  for s in $(seeds "$target"); do
    if [ -d "$s" ]; then
      find "$s" -type f ! -name README.md -exec sh -c 'cp "$1" "$2/seed-$(basename "$(dirname "$1")")-$(basename "$1")"' _ {} "$corpus" \;
    elif [ -f "$s" ]; then
      cp "$s" "$corpus/seed-$(basename "$s")"
    fi
  done
  dict=$root/fuzz/dicts/$name.dict
  dict_flag=()
  [ -f "$dict" ] && dict_flag=(-dict="$dict")
  log=$build/fuzz-artifacts/$name.log
  echo "== $target: ${seconds}s, corpus $corpus" >&2
  # -timeout: one input over 10 s is a hang; -rss_limit_mb: over 2 GiB is a memory bug.
  # ASan's leak checker is on by default: a leak fails the run too.
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "$build/$target" "${dict_flag[@]}" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
       -artifact_prefix="$build/fuzz-artifacts/$name-" "$corpus" >"$log" 2>&1; then
    result=ok
  else
    result=FAILED
    status=1
    tail -40 "$log" >&2
  fi
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | cut -d' ' -f2)
  corp=$(find "$corpus" -type f | wc -l)
  report+=("$(printf '%-24s %-7s edges %6s  features %6s  execs %10s  corpus %5s' \
    "$target" "$result" "${cov:-?}" "${ft:-?}" "${execs:-?}" "$corp")")
done
printf '%s\n' "${report[@]}"
exit $status
