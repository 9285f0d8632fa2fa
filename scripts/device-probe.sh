#!/usr/bin/env bash
# Builds gpuplan and the CUDA probe plugin on a GPU machine and runs `gpuplan probe` there,
# writing the results under $OUT (default ./device-probe-out):
#   probe.json        gpuplan probe --json (measured vs the catalog's expectations)
#   probe.txt         the same as a table
#   calibration.json  gpuplan probe --save
#   env.txt           nvidia-smi, nvcc and build facts
# Usage: scripts/device-probe.sh [EXTRA PROBE FLAGS...]   e.g. --instance ecs.gn8v.4xlarge
# Set CUDA_ARCH (default 90: H100/H200/H20) to build for another GPU generation only.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$here/device-probe-out}
build=${BUILD:-$here/build-device}
arch=${CUDA_ARCH:-90}
mkdir -p "$out"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,memory.total,pcie.link.gen.max,pcie.link.width.max,power.limit,driver_version,clocks.max.sm --format=csv 2>&1
  nvidia-smi topo -m 2>&1 | head -20
  command -v nvcc && nvcc --version | tail -2
  nproc
} > "$out/env.txt" 2>&1

export PATH=/usr/local/cuda/bin:$PATH
# Only what the probe needs: no tests, one CUDA architecture, so the build takes about a minute.
if ! cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_BUILD_TESTS=OFF \
    -DGPUPLAN_CUDA_PROBE=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" > "$out/cmake.log" 2>&1; then
  echo "device-probe: cmake failed, see $out/cmake.log" >&2
  tail -20 "$out/cmake.log" >&2
  exit 1
fi
grep -i "gpuplan:" "$out/cmake.log" >> "$out/env.txt"
if ! cmake --build "$build" -j "$(nproc)" --target gpuplan gpuplan_cuda_probe > "$out/build.log" 2>&1; then
  echo "device-probe: build failed, see $out/build.log" >&2
  tail -30 "$out/build.log" >&2
  exit 1
fi

probe=("$build/gpuplan" probe --metadata-timeout 0.5 --path /tmp --disk-mib 1024 "$@")
"${probe[@]}" --json --save "$out/calibration.json" > "$out/probe.json" 2> "$out/probe.stderr"
rc=$?
echo "device-probe: probe --json exit $rc"
python3 - "$out/probe.json" <<'PY' | tee "$out/probe.txt"
import json, sys
d = json.load(open(sys.argv[1]))
print(f"instance {d['instance_type']} ({d['instance_source']}), gpu {d['gpu_model']}, "
      f"{len(d['devices'])} device(s): {[x['name'] for x in d['devices']]}")
for m in d["metrics"]:
    f = lambda v: "-" if v is None else f"{v:.4g}"
    print(f"{m['id']:24} gpu={m['gpu'] if m['gpu'] is not None else 'all':>3} "
          f"measured={f(m['measured']):>9} expected={f(m['expected']):>9} peak={f(m['peak']):>9} "
          f"{m['unit']:7} {m['verdict']:12} {m['note'][:70]}")
for n in d["notes"]:
    print("note:", n)
PY
exit $rc
