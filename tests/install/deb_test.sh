#!/usr/bin/env bash
# `cpack -G DEB` on BUILD into a fresh temporary directory, then: the gpuplan package's Depends
# name the shared libraries (dpkg-shlibdeps) and python3; it holds the binary, man page,
# completions and Python module in their places; the gpuplan-dev package holds the CMake
# package config; and the binary and module extracted with `dpkg-deb -x` plan. A real `dpkg -i`
# in a clean Debian 12 chroot needs the Debian archive, which this test cannot reach
# (docs/install.md). ctest: `install_deb`.
# Usage: tests/install/deb_test.sh BUILD SOURCE_DIR [PYTHON]
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
python=${3:-}
command -v dpkg-deb >/dev/null || { echo "deb_test: no dpkg-deb: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "deb_test: FAIL: $*" >&2; exit 1; }

(cd "$work" && cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out") >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack -G DEB"; }
deb=$(find "$work/out" -maxdepth 1 -name 'gpuplan_*.deb' | head -1)
dev=$(find "$work/out" -maxdepth 1 -name 'gpuplan-dev_*.deb' | head -1)
[ -n "$deb" ] || fail "no gpuplan_*.deb in $(ls "$work/out")"
[ -n "$dev" ] || fail "no gpuplan-dev_*.deb in $(ls "$work/out")"
echo "built: $(basename -a "$work"/out/*.deb | tr '\n' ' ')"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
if command -v dpkg-shlibdeps >/dev/null; then
  for lib in libc6 libstdc++6 libyaml-cpp libfmt; do
    grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib"
  done
fi
[ -z "$python" ] || grep -q "python3 (>=" <<<"$depends" || fail "Depends lacks python3"

contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/gpuplan ./usr/share/man/man1/gpuplan.1 \
         ./usr/share/bash-completion/completions/gpuplan ./usr/share/zsh/vendor-completions/_gpuplan \
         ./usr/share/fish/vendor_completions.d/gpuplan.fish; do
  grep -q " $f\$" <<<"$contents" || fail "$deb lacks $f"
done
[ -z "$python" ] || grep -q " ./usr/lib/python3/dist-packages/gpuplan/__init__.py\$" <<<"$contents" ||
  fail "$deb lacks the Python package in /usr/lib/python3/dist-packages"
dev_contents=$(dpkg-deb -c "$dev")
grep -q "/cmake/gpuplan/gpuplanConfig.cmake\$" <<<"$dev_contents" || fail "$dev lacks gpuplanConfig.cmake"

dpkg-deb -x "$deb" "$work/root"
out=$("$work/root/usr/bin/gpuplan" plan "$src/examples/llm-lora-finetune.yaml" --top 1) ||
  fail "the extracted gpuplan plan exited $?"
grep -q "ecs\." <<<"$out" || fail "the extracted gpuplan planned nothing: $out"
echo "ok: extracted /usr/bin/gpuplan plans"
if [ -n "$python" ]; then
  PYTHONPATH=$work/root/usr/lib/python3/dist-packages "$python" -c \
    "import gpuplan; print(gpuplan.plan(model='qwen2.5-7b', task='finetune', method='lora', tokens='200M')['candidates'][0]['instance'])" ||
    fail "the extracted Python module cannot plan"
  echo "ok: extracted Python module plans"
fi
echo "deb_test: all passed"
