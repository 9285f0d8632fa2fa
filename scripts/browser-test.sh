#!/usr/bin/env bash
# The browser tests of the web page (tests/browser/page_test.mjs): Debian's chromium, headless,
# driven by playwright-core from npm. ctest runs this as browser_page; `make test` runs ctest.
#   scripts/browser-test.sh build/gpuplan [screenshot.png]
# npm ci runs here, at test time (the npm registry is reachable at install and test time, never
# needed by gpuplan itself). Exits 77 (ctest: skipped) when chromium or node is not installed;
# scripts/install-deps.sh installs both.
set -euo pipefail
binary=$(realpath "${1:?usage: browser-test.sh GPUPLAN_BINARY [SCREENSHOT]}")
here=$(cd "$(dirname "$0")/.." && pwd)
screenshot=""
[ $# -ge 2 ] && screenshot=$(realpath -m "$2")
chromium=${CHROMIUM:-$(command -v chromium || true)}
if [ -z "$chromium" ] || ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  echo "browser-test: skipped: needs chromium, node and npm (scripts/install-deps.sh)" >&2
  exit 77
fi
cd "$here/tests/browser"
# Reinstall only when the lock file changed since the last install.
if ! cmp -s package-lock.json node_modules/.installed-lock.json 2> /dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.installed-lock.json
fi
export GPUPLAN_BINARY=$binary CHROMIUM=$chromium GPUPLAN_SCREENSHOT=$screenshot
exec node --test page_test.mjs
