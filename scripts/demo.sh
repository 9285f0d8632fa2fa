#!/usr/bin/env bash
# The main job on the embedded catalog: a plan for an example workload.
set -euo pipefail
gp=${1:-build/gpuplan}
here=$(cd "$(dirname "$0")/.." && pwd)
echo "== gpuplan plan examples/llm-lora-finetune.yaml (embedded catalog and prices) =="
"$gp" plan "$here/examples/llm-lora-finetune.yaml" --top 5
