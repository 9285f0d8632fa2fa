#!/usr/bin/env bash
# The portable agent check (docs/on-instance.md, "The portable agent"; issue 29): builds
# gpuplan-agent in BUILD, then
#   1. its highest GLIBC_ symbol version (objdump -T) is at most the baseline, 2.28 (Alibaba
#      Cloud Linux 3, the oldest image the plans recommend), or it has no dynamic symbols;
#   2. ldd lists only the C library family (libc, libm, libpthread, libdl, librt, the loader),
#      or none at all (a static program);
#   3. it runs inside a chroot with no C library (busybox-static for the shell, made afresh in
#      BUILD/agent-chroot/bare from local files, no network): probe --help,
#      watch-spot --help, monitor on a fake /proc (tests/testdata/proc/t0) with a fake nvidia-smi,
#      probe --json --save with the same, and watch-spot --once against a closed port.
# Usage: scripts/check-agent-portable.sh [BUILD]. Needs root for chroot (CI runs
# as root); without it the chroot part is skipped with a loud message and the exit code is 77.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
baseline=2.28
start=$(date +%s)
fail() { echo "check-agent-portable: FAIL: $*" >&2; exit 1; }

cmake --build "$build" --target gpuplan-agent -j "$(nproc)"
bin=$(cd "$build" && pwd)/gpuplan-agent
[ -x "$bin" ] || fail "$bin was not built"
echo "check-agent-portable: $bin, $(stat -c %s "$bin") bytes"

# 1. The glibc baseline.
glibc_max=$(objdump -T "$bin" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' |
  sort -V | tail -n 1 || true)
if [ -z "$glibc_max" ]; then
  echo "check-agent-portable: objdump -T: no GLIBC_ symbol versions (statically linked)"
elif [ "$(printf '%s\n%s\n' "$glibc_max" "$baseline" | sort -V | tail -n 1)" != "$baseline" ]; then
  fail "objdump -T: needs GLIBC_$glibc_max, newer than the baseline GLIBC_$baseline" \
    "(Alibaba Cloud Linux 3); objdump -T $bin | grep GLIBC_$glibc_max"
else
  echo "check-agent-portable: objdump -T: highest GLIBC_$glibc_max <= $baseline"
fi

# 2. Only the C library family, if anything.
ldd_out=$(ldd "$bin" 2>&1 || true)
if grep -qE 'not a dynamic executable|statically linked' <<< "$ldd_out"; then
  echo "check-agent-portable: ldd: $(tr -d '\t' <<< "$ldd_out" | head -n 1)"
else
  libc_family='^\s*(linux-vdso\.so|(/lib[^ ]*/)?ld-linux|lib(c|m|pthread|dl|rt)\.so\.[0-9])'
  others=$(grep -vE "$libc_family" <<< "$ldd_out" || true)
  [ -z "$others" ] || fail "ldd lists libraries outside the C library family:"$'\n'"$others"
  echo "check-agent-portable: ldd: only the C library family"
fi

# 3. A root with no C library at all: busybox-static for /bin/sh and env, nothing else. A static
#    agent that runs here runs on any glibc; a dynamic one gets only the libraries ldd named.
#    Made from local packages, so the check needs no network (CI could not reach a bullseye
#    mirror for debootstrap).
if [ "$(id -u)" -ne 0 ]; then
  echo "check-agent-portable: SKIPPED the chroot run: chroot needs root (CI runs as root)." \
    "Checks 1 and 2 passed." >&2
  exit 77
fi
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || fail "busybox is not installed (scripts/install-deps.sh: busybox-static)"
grep -qE 'not a dynamic executable|statically linked' <<< "$(ldd "$busybox" 2>&1 || true)" ||
  fail "$busybox is dynamic; install busybox-static (scripts/install-deps.sh)"
root=$build/agent-chroot/bare
rm -rf "$root"
mkdir -p "$root/bin" "$root/usr/bin" "$root/tmp" "$root/root"
cp "$busybox" "$root/bin/busybox"
for applet in sh env head cat; do ln -s busybox "$root/bin/$applet"; done
ln -s /bin/env "$root/usr/bin/env"
if ! grep -qE 'not a dynamic executable|statically linked' <<< "$ldd_out"; then
  grep -oE '/[^ ]+\.so[^ ]*' <<< "$ldd_out" | while read -r lib; do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
fi
opt=$root/opt/gpuplan
rm -rf "$opt"
mkdir -p "$opt/bin"
cp "$bin" "$opt/bin/gpuplan"
cp -r "$here/tests/testdata/proc/t0" "$opt/proc"
# A fake nvidia-smi (the H20 of ecs.gn8v.4xlarge) answering the portable agent's two queries.
cat > "$opt/bin/nvidia-smi" << 'SMI'
#!/bin/sh
case "$*" in
  *utilization.gpu*) echo "0, 87, 45, 80123, 97871, 312.34, 500.00" ;;
  *) echo "0, NVIDIA H20, 97871, 5, 16, 500.00, 550.54.15" ;;
esac
SMI
chmod +x "$opt/bin/nvidia-smi"
in_root() { chroot "$root" /usr/bin/env -i PATH=/opt/gpuplan/bin:/usr/bin:/bin HOME=/root "$@"; }
in_root /bin/sh -c 'true' || fail "chroot $root /bin/sh failed: is chroot permitted here?"
echo "check-agent-portable: running in $root (busybox $($busybox | head -n 1 | cut -d' ' -f2)," \
  "$(find "$root" -name 'libc.so*' | wc -l) C libraries)"

expect() {  # expect WHAT WANT_EXIT WANT_TEXT COMMAND...
  local what=$1 want_exit=$2 want_text=$3 out code=0
  shift 3
  out=$(in_root "$@" 2>&1) || code=$?
  [ "$code" -eq "$want_exit" ] || fail "$what: exit $code, expected $want_exit; output:"$'\n'"$out"
  grep -qF -- "$want_text" <<< "$out" || fail "$what: no \"$want_text\" in:"$'\n'"$out"
  echo "check-agent-portable: ok: $what"
}
expect "probe --help" 0 "--metadata-url" gpuplan probe --help
expect "watch-spot --help" 0 "--deadline-margin" gpuplan watch-spot --help
expect "monitor --samples 2 on a fake /proc and nvidia-smi" 0 ",87.00," \
  gpuplan monitor --samples 2 --interval 0.2 --proc-root /opt/gpuplan/proc
expect "monitor --json diagnosis" 0 '"type":"diagnosis"' \
  gpuplan monitor --json --samples 2 --interval 0.2 --proc-root /opt/gpuplan/proc
expect "probe --json --save with nvidia-smi" 0 '"NVIDIA H20"' \
  gpuplan probe --json --quick --no-metadata --no-cpu --instance ecs.gn8v.4xlarge \
  --proc-root /opt/gpuplan/proc --save /tmp/calibration.json
expect "watch-spot --once, service down" 5 "no reply from http://127.0.0.1:9" \
  gpuplan watch-spot --metadata-url http://127.0.0.1:9 --pid 1 --once
echo "check-agent-portable: passed in $(($(date +%s) - start)) s"
