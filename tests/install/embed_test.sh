#!/usr/bin/env bash
# Installs BUILD's dev component (headers, static libraries, CMake package config) into a fresh
# temporary prefix, then configures and builds examples/embed against it with find_package
# (gpuplan) and runs it on an example workload. ctest: `install_embed_example`.
# Usage: tests/install/embed_test.sh BUILD SOURCE_DIR [MAKE_PROGRAM]
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
make_program=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "embed_test: FAIL: $*" >&2; exit 1; }
command -v c++ >/dev/null || { echo "embed_test: no C++ compiler: skipped"; exit 77; }

cmake --install "$build" --prefix "$work/prefix" --component dev >/dev/null || fail "cmake --install --component dev"
[ -f "$work/prefix/lib/cmake/gpuplan/gpuplanConfig.cmake" ] ||
  [ -n "$(find "$work/prefix" -name gpuplanConfig.cmake)" ] || fail "no gpuplanConfig.cmake installed"
generator=()
[ -n "$make_program" ] && [[ $make_program == *ninja* ]] && generator=(-G Ninja "-DCMAKE_MAKE_PROGRAM=$make_program")
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src/examples/embed" -B "$work/build" "${generator[@]}" "${launcher[@]}" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configuring examples/embed against the installed package"; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; fail "building examples/embed"; }
out=$("$work/build/gpuplan_embed" "$src/examples/llm-lora-finetune.yaml") || fail "gpuplan_embed exited $?: $out"
grep -q "ecs\." <<<"$out" || fail "gpuplan_embed printed no instance: $out"
echo "$out" | head -6
echo "embed_test: examples/embed built against the installed package and planned"
