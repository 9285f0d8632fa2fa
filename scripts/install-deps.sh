#!/usr/bin/env bash
# Installs the Debian 12 packages gpuplan needs to build and test. Idempotent: it only calls
# apt-get when something is missing. Run as root (or with sudo available).
set -euo pipefail
pkgs=(build-essential cmake ninja-build ccache pkg-config python3
      libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libcpp-httplib-dev libssl-dev
      libgtest-dev libgmock-dev libbenchmark-dev clang
      # The campaign's mixed-integer programs (src/solver).
      libglpk-dev
      # The style checks `make test` runs (scripts/check-style.sh).
      clang-format clang-tidy
      # The web page's browser tests (tests/browser).
      chromium nodejs
      # The deploy checks: shellcheck, systemd-analyze verify, the cloud-config schema check.
      # Not cloud-init: its package enables boot services (tests/testdata/deploy/README.md).
      shellcheck systemd python3-yaml python3-jsonschema
      # Packaging (cpack -G DEB, dpkg-shlibdeps) and the Python module (python/).
      dpkg-dev pybind11-dev python3-pybind11 python3-dev python3-pytest
      # The portable agent check runs it in a root with no C library (check-agent-portable.sh).
      busybox-static
      # The generated completions' checks (tests/install/install_test.sh: zsh -n, fish).
      zsh fish)
# npm comes with nodejs from some sources (NodeSource); Debian packages it apart.
command -v npm > /dev/null || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#pkgs[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
