#!/usr/bin/env bash
# The error model behind every range gpuplan prints (data/uncertainty.csv) is generated from the
# performance model's own predictions on the shipped validation sets. This refits it with the
# gpuplan given and fails when the committed table differs, i.e. when the model (or its
# calibration, or the sets) changed and the ranges were not regenerated. The "# commit:" line is
# informational and not compared.
# Usage: scripts/check-uncertainty.sh PATH/TO/gpuplan [--update]
#   --update: rewrite data/uncertainty.csv (then rebuild: the binary embeds it) and commit it.
set -euo pipefail
gpuplan=${1:?usage: scripts/check-uncertainty.sh PATH/TO/gpuplan [--update]}
mode=${2:-check}
here=$(cd "$(dirname "$0")/.." && pwd)
data="$here/tests/testdata/validation"
table="$here/data/uncertainty.csv"
# The sets the ranges are fitted on: the calibration sets and the held-out published and device
# training measurements (out-of-sample errors are the honest ones). The H200 decode rows are left
# out: decode time on that VM was unstable (docs/on-instance.md, "Device check").
sets=(calibration.csv calibration_inference.csv heldout_published.csv h200_device_training.csv
      calibration_moe.csv)
files=()
for s in "${sets[@]}"; do files+=("$data/$s"); done
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
"$gpuplan" validate --fit-uncertainty "${files[@]}" --commit "$commit" -o "$fresh" >/dev/null
if [ "$mode" = "--update" ]; then
  cp "$fresh" "$table"
  echo "wrote $table (model commit $commit); rebuild gpuplan to embed it"
  exit 0
fi
if [ ! -f "$table" ]; then
  echo "data/uncertainty.csv is missing: run scripts/check-uncertainty.sh $gpuplan --update" >&2
  exit 1
fi
if ! diff -u <(grep -v '^# commit:' "$table") <(grep -v '^# commit:' "$fresh") >&2; then
  echo "data/uncertainty.csv is stale: the model's predictions changed since it was fitted." >&2
  echo "Regenerate: scripts/check-uncertainty.sh $gpuplan --update, rebuild, commit." >&2
  exit 1
fi
echo "data/uncertainty.csv is up to date ($(grep '^# model_hash:' "$table"))"
