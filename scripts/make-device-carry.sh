#!/usr/bin/env bash
# Builds, on this (GPU-less) machine, what scripts/device-run.sh runs on the GPU machine, and puts
# it in .devcarry/ (git-ignored through .git/info/exclude), to travel with carry=[".devcarry"]:
#   .devcarry/gpuplan                      Release build, no tests
#   .devcarry/libgpuplan_cuda_probe.so     the CUDA probe plugin (sm_90: H100/H200/H20)
#   .devcarry/lib/                         shared libraries gpuplan needs that a CUDA + PyTorch
#                                          image lacks (fmt, yaml-cpp, cpp-httplib, OpenSSL, ...)
#   .devcarry/fallback/                    this machine's libstdc++/libgcc_s, used only when the
#                                          GPU machine's own are too old to run gpuplan
#   .devcarry/MANIFEST.txt                 commit, build flags, sizes, the newest glibc symbol used
# The CUDA runtime, cuBLASLt and NCCL are NOT carried: the GPU machine has them (CUDA 13, like
# this machine's nvcc) and device-run.sh finds them there.
# Usage: scripts/make-device-carry.sh        (env: BUILD, CARRY, CUDA_ARCH=90, JOBS=2)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build-device}
carry=${CARRY:-$here/.devcarry}
arch=${CUDA_ARCH:-90}
jobs=${JOBS:-2}
export PATH=/usr/local/cuda/bin:$PATH

mkdir -p "$build"
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_BUILD_TESTS=OFF \
  -DGPUPLAN_CUDA_PROBE=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" > "$build/carry-cmake.log" 2>&1 ||
  { cat "$build/carry-cmake.log" >&2; exit 1; }
ninja -C "$build" -j "$jobs" gpuplan gpuplan_cuda_probe
plugin="$build/libgpuplan_cuda_probe.so"
if [[ ! -f $plugin ]]; then
  echo "make-device-carry: $plugin was not built (nvcc or cuBLASLt not found; see $build/carry-cmake.log)" >&2
  exit 1
fi

rm -rf "$carry"
mkdir -p "$carry/lib" "$carry/fallback"
cp "$build/gpuplan" "$plugin" "$carry/"
strip --strip-unneeded "$carry/gpuplan" "$carry/libgpuplan_cuda_probe.so"

# Every shared library the two need, as this machine resolves them, sorted into: the C library
# (the GPU machine's own, newer one serves), the CUDA libraries (the GPU machine's serve),
# libstdc++/libgcc_s (fallback only) and the rest (carried).
ldd "$build/gpuplan" "$plugin" | awk '/=> \// {print $1, $3}' | sort -u |
  while read -r name path; do
    case $name in
      libc.so.* | libm.so.* | libdl.so.* | librt.so.* | libpthread.so.* | ld-linux* | libresolv.so.*) ;;
      libcuda.so.* | libcudart.so.* | libcublas*.so.* | libnccl.so.* | libnvidia-*) ;;
      libstdc++.so.* | libgcc_s.so.*) cp -L "$path" "$carry/fallback/$name" ;;
      *) cp -L "$path" "$carry/lib/$name" ;;
    esac
  done

# The newest glibc symbol version anything carried needs: the GPU machine's glibc must be at
# least this (device-run.sh checks).
glibc_needed=$(for f in "$carry"/gpuplan "$carry"/*.so "$carry"/lib/*; do objdump -T "$f" 2>/dev/null; done |
  grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -1)
glibcxx_needed=$(for f in "$carry"/gpuplan "$carry"/*.so "$carry"/lib/*; do objdump -T "$f" 2>/dev/null; done |
  grep -o 'GLIBCXX_[0-9.]*' | sort -u -V | tail -1)
{
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME"), $(ldd --version | head -1)"
  echo "source: $(git -C "$here" rev-parse --short HEAD)$(git -C "$here" diff --quiet HEAD -- src include cuda CMakeLists.txt data || echo ' + uncommitted changes in the working tree')"
  echo "flags: Release, GPUPLAN_BUILD_TESTS=OFF, GPUPLAN_CUDA_PROBE=ON, CMAKE_CUDA_ARCHITECTURES=$arch, $(nvcc --version | tail -1)"
  echo "glibc_needed: $glibc_needed"
  echo "glibcxx_needed: $glibcxx_needed"
  echo "plugin needs (found on the GPU machine by device-run.sh):"
  ldd "$plugin" | awk '/libcudart|libcublas|libnccl/ {print "  " $1}'
  echo "files:"
  (cd "$carry" && find . -type f ! -name MANIFEST.txt -printf '  %p %s\n' | sort)
} > "$carry/MANIFEST.txt"
cat "$carry/MANIFEST.txt"
size=$(du -sm "$carry" | cut -f1)
echo "make-device-carry: $carry is ${size} MiB"
if ((size > 40)); then
  echo "make-device-carry: over 40 MiB: the working tree that travels is limited to 64 MiB" >&2
  exit 1
fi

# Every library that is neither glibc, CUDA nor libstdc++/libgcc_s must come from the carry.
stray=$(LD_LIBRARY_PATH="$carry/lib" ldd "$carry/gpuplan" | awk '/=> \// {print $1, $3}' |
  grep -v -E '^(libc|libm|libdl|librt|libpthread|libresolv|libstdc\+\+|libgcc_s)\.so' |
  grep -v -F "$carry/lib/" || true)
if [[ -n $stray ]]; then
  echo "make-device-carry: not resolved from the carry: $stray" >&2
  exit 1
fi
# Smoke test: it starts with the carried libraries and reports no GPU gracefully here.
LD_LIBRARY_PATH="$carry/lib" "$carry/gpuplan" probe --json --no-metadata --no-cpu --quick \
  > "$build/carry-smoke.json" 2> "$build/carry-smoke.err" || { cat "$build/carry-smoke.err" >&2; exit 1; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("make-device-carry: smoke probe ok: gpu", d["gpu_model"], d["summary"])' \
  "$build/carry-smoke.json"
