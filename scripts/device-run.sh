#!/usr/bin/env bash
# The one device check, run on a rented GPU machine (made for the H200 device; any single NVIDIA
# GPU with CUDA 13 and PyTorch works) from the repository root, with the prebuilt carry of
# scripts/make-device-carry.sh in .devcarry/ (nothing is compiled there unless the carried probe
# plugin cannot be loaded). Writes at most these 8 files under $OUT (default ./device-run-out):
#   env.txt            GPU, driver, CUDA, OS, carry manifest, where the CUDA libraries were found
#   probe.json         gpuplan probe --json (measured vs the catalog's expectations)
#   probe.txt          the same as a table
#   calibration.json   gpuplan probe --save
#   measurements.csv   tools/h200_measure.py: training, LoRA and inference rows in the schema of
#                      the validation set (rewritten after every case)
#   validate.txt       gpuplan validate --rows on measurements.csv
#   validate.json      the same, --json
#   run.log            everything printed, with timestamps
# Every step has a timeout and the next step runs whatever the last one did; the whole run stays
# inside DEVICE_RUN_BUDGET_S (default 400 s) so a 7-minute slot is never overrun.
# Usage: bash scripts/device-run.sh     (env: OUT, CARRY=.devcarry, PYTHON=python3,
#                                         DEVICE_RUN_BUDGET_S=400, MEASURE_BUDGET_S=250,
#                                         MEASURE_ARGS=extra flags for tools/h200_measure.py)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$here/device-run-out}
carry=${CARRY:-$here/.devcarry}
py=${PYTHON:-python3}
budget=${DEVICE_RUN_BUDGET_S:-400}
start=$(date +%s)
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH

stamp() { echo "[$(date -u +%H:%M:%S) +$(($(date +%s) - start))s] $*"; }
# Seconds left in the whole run's budget, less a reserve (arg 1) for the steps after this one.
left() { local l=$((start + budget - $(date +%s) - ${1:-0})); ((l < 5)) && l=5; echo "$l"; }
# min(a, b)
min() { (($1 < $2)) && echo "$1" || echo "$2"; }

main() {
  stamp "device-run: out=$out carry=$carry budget=${budget}s"

  # --- 1. Environment, and where this machine keeps the CUDA libraries the plugin needs.
  local sp="" dirs=() lib d found
  sp=$(timeout 20 "$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null)
  local candidates=(/usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib
                    /usr/local/nvidia/lib64 /usr/local/nvidia/lib)
  if [[ -n $sp && -d $sp/nvidia ]]; then
    for d in "$sp"/nvidia/*/lib "$sp"/nvidia/*/*/lib; do [[ -d $d ]] && candidates+=("$d"); done
  fi
  for lib in libcudart.so.13 libcublasLt.so.13 libnccl.so.2 libnvidia-ml.so.1 libcuda.so.1; do
    found=""
    for d in "${candidates[@]}"; do
      if [[ -e $d/$lib ]]; then found=$d; break; fi
    done
    if [[ -n $found ]]; then
      [[ " ${dirs[*]-} " == *" $found "* ]] || dirs+=("$found")
      echo "lib $lib: $found"
    elif ldconfig -p 2>/dev/null | grep -q "$lib"; then
      echo "lib $lib: system loader path"
    else
      echo "lib $lib: NOT FOUND"
    fi
  done > "$out/libs.tmp"
  local cuda_path
  cuda_path=$(IFS=:; echo "${dirs[*]-}")
  local ldp="$carry/lib${cuda_path:+:$cuda_path}"
  # gpuplan needs a libstdc++ with the carry's GLIBCXX (MANIFEST.txt); this machine's is normally
  # newer. If not, the carried one goes first.
  if ! LD_LIBRARY_PATH="$ldp" timeout 10 "$carry/gpuplan" --version > /dev/null 2>&1; then
    if LD_LIBRARY_PATH="$carry/lib:$carry/fallback${cuda_path:+:$cuda_path}" timeout 10 "$carry/gpuplan" --version > /dev/null 2>&1; then
      ldp="$carry/lib:$carry/fallback${cuda_path:+:$cuda_path}"
      stamp "gpuplan runs only with the carried libstdc++/libgcc_s (fallback/)"
    else
      stamp "WARNING: the carried gpuplan does not start here:"
      LD_LIBRARY_PATH="$ldp" timeout 10 "$carry/gpuplan" --version 2>&1 | head -5
    fi
  fi
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm); $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME"); $(ldd --version 2>&1 | head -1); $(nproc) CPUs"
    timeout 20 nvidia-smi --query-gpu=name,memory.total,driver_version,power.limit,clocks.max.sm,clocks.max.mem,pcie.link.gen.max,pcie.link.width.max --format=csv 2>&1
    timeout 10 nvidia-smi -L 2>&1
    command -v nvcc > /dev/null && nvcc --version | tail -2
    echo "python: $py -> $(command -v "$py"), purelib $sp"
    echo "gpuplan LD_LIBRARY_PATH: $ldp"
    cat "$out/libs.tmp"
    echo "--- carry manifest"
    cat "$carry/MANIFEST.txt" 2>&1
    echo "--- ldd carried plugin"
    LD_LIBRARY_PATH="$ldp" ldd "$carry/libgpuplan_cuda_probe.so" 2>&1
  } > "$out/env.txt" 2>&1
  rm -f "$out/libs.tmp"
  cat "$out/env.txt"

  # --- 2. The probe plugin: the carried one, else built here with nvcc (no NCCL: one GPU).
  local plugin="$carry/libgpuplan_cuda_probe.so"
  # (Only the CUDA directories here: the carried zlib/OpenSSL are for gpuplan, not for Python.)
  if ! LD_LIBRARY_PATH="$cuda_path" timeout 20 "$py" -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$plugin" 2>> "$out/env.txt"; then
    stamp "carried plugin does not load here; building it with nvcc (fallback)"
    local tmpd=/tmp/gpuplan-device-plugin ldirs=()
    mkdir -p "$tmpd"
    for d in "${dirs[@]-}"; do [[ -n $d ]] && ldirs+=("-L$d"); done
    if timeout "$(min 120 "$(left 300)")" nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC \
        -gencode arch=compute_90,code=sm_90 -I "$here/src" "$here/cuda/cuda_probe.cu" \
        -o "$tmpd/libgpuplan_cuda_probe.so" "${ldirs[@]}" -lcublasLt; then
      plugin="$tmpd/libgpuplan_cuda_probe.so"
      echo "plugin: built here with nvcc (no NCCL)" >> "$out/env.txt"
    else
      stamp "nvcc fallback failed; the probe will list the GPU tests as not measured"
    fi
  fi

  # --- 3. gpuplan probe (about 15-30 s on one GPU).
  stamp "probe"
  LD_LIBRARY_PATH="$ldp" timeout -k 5 "$(min 90 "$(left 280)")" "$carry/gpuplan" probe --no-metadata \
    --cuda-plugin "$plugin" --path /tmp --disk-mib 256 --json --save "$out/calibration.json" \
    > "$out/probe.json"
  stamp "probe exit $?"
  timeout 30 "$py" - "$out/probe.json" > "$out/probe.txt" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"instance {d.get('instance_type')} ({d.get('instance_source')}), gpu {d.get('gpu_model')}, "
      f"{len(d.get('devices', []))} device(s): {[x.get('name') for x in d.get('devices', [])]}")
f = lambda v: "-" if v is None else f"{v:.4g}"
for m in d.get("metrics", []):
    g = m.get("gpu")
    print(f"{m['id']:24} gpu={'all' if g is None else g:>3} measured={f(m.get('measured')):>9} "
          f"expected={f(m.get('expected')):>9} peak={f(m.get('peak')):>9} {m.get('unit', ''):7} "
          f"{m.get('verdict', ''):12} {(m.get('note') or '')[:90]}")
for n in d.get("not_measured", []):
    print(f"not measured: {n.get('id')} gpu={n.get('gpu')}: {n.get('reason')}")
for n in d.get("notes", []):
    print("note:", n)
print("summary:", d.get("summary"))
PY
  cat "$out/probe.txt"

  # --- 4. PyTorch measurements -> measurements.csv (its own budget ends before the timeout).
  local t
  t=$(left 45)
  if ((t >= 90)); then
    local extra=()
    read -r -a extra <<< "${MEASURE_ARGS:-}"
    stamp "measure (timeout ${t}s)"
    PYTHONUNBUFFERED=1 timeout -k 10 "$t" "$py" "$here/tools/h200_measure.py" \
      --out "$out/measurements.csv" --budget-s "$(min "$((t - 40))" "${MEASURE_BUDGET_S:-250}")" "${extra[@]}"
    stamp "measure exit $?"
  else
    stamp "measure skipped: only ${t}s left"
  fi
  rm -f "$out"/*.tmp

  # --- 5. gpuplan validate on what was measured.
  if [[ -s $out/measurements.csv ]]; then
    LD_LIBRARY_PATH="$ldp" timeout 20 "$carry/gpuplan" validate --rows "$out/measurements.csv" \
      > "$out/validate.txt" 2>&1
    stamp "validate exit $?"
    LD_LIBRARY_PATH="$ldp" timeout 20 "$carry/gpuplan" validate --json "$out/measurements.csv" \
      > "$out/validate.json"
    cat "$out/validate.txt"
  fi
  stamp "device-run: done; files: $(cd "$out" && ls | tr '\n' ' ')"
}

main "$@" 2>&1 | tee "$out/run.log"
rm -f "$out"/*.tmp
