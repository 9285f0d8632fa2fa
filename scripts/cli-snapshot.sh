#!/usr/bin/env bash
# Record what a fixed set of gpuplan commands print (stdout, stderr, exit code) into DIR, one file
# per command, so a refactor can be checked byte for byte: run it before and after, then `diff -r`.
# Usage: scripts/cli-snapshot.sh BUILD/gpuplan DIR
set -uo pipefail
gp=$(realpath "$1"); out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export GPUPLAN_TODAY=2026-12-01
cache=$(mktemp -d); trap 'rm -rf "$cache"' EXIT
export XDG_CACHE_HOME=$cache HOME=$cache
unset GPUPLAN_CATALOG ALIBABA_CLOUD_ACCESS_KEY_ID ALIBABA_CLOUD_ACCESS_KEY_SECRET
cd "$here"
n=0
snap() {  # snap NAME ARGS...
  local name=$1; shift
  n=$((n + 1))
  { "$gp" "$@" >"$out/$name.out" 2>"$out/$name.err"; echo "rc=$?" >"$out/$name.rc"; } </dev/null
}
for f in examples/*.yaml; do
  b=$(basename "$f" .yaml)
  snap "plan-$b" plan "$f" --top 5
  snap "plan-$b-json" plan "$f" --top 3 --json
done
snap plan-70b-time plan --model llama-2-70b --task finetune --method full --seq-len 4096 --global-batch 64 --tokens 100M --max-nodes 2 --objective time --top 3
snap plan-7b-lora plan --model llama-2-7b --task finetune --method lora --tokens 50M --top 5
snap plan-serve-70b plan --model llama-3-70b --task inference --top 3
snap plan-qwen3-moe plan --model qwen3-30b-a3b --task finetune --method lora --tokens 20M --top 3
snap plan-deepseek-r1 plan --model deepseek-r1 --task inference --top 3 --json
snap plan-confidence plan examples/llm-lora-finetune.yaml --confidence 0.9 --top 3
snap estimate-70b estimate --model llama-2-70b --task finetune --method full --seq-len 4096 --global-batch 64 --tokens 100M --instance ecs.ebmgn7ex.32xlarge --nodes 2
snap estimate-70b-json estimate --model llama-2-70b --task finetune --method full --seq-len 4096 --global-batch 64 --tokens 100M --instance ecs.ebmgn7ex.32xlarge --nodes 2 --json
snap estimate-7b-lora estimate --model llama-2-7b --task finetune --method lora --instance ecs.gn7e-c16g1.4xlarge --json
snap estimate-7b-pinned estimate --model llama-2-7b --task finetune --method full --instance ecs.gn7e-c16g1.32xlarge --nodes 2 --tp 1 --pp 1 --zero 1
snap estimate-8b-offload estimate --model llama-3-8b --task finetune --method full --instance ecs.gn7i-c8g1.2xlarge --offload optimizer
snap estimate-infer estimate --model llama-3-8b --task inference --instance ecs.gn7i-c8g1.2xlarge --json
snap explain-gn7i explain ecs.gn7i-c8g1.2xlarge examples/llm-lora-finetune.yaml
snap explain-gn8is explain ecs.gn8is.2xlarge examples/llm-lora-finetune.yaml
snap catalog-gpus catalog gpus
snap catalog-families catalog families
snap catalog-instances catalog instances
snap catalog-show catalog show ecs.gn8is.2xlarge
snap prices-show prices --instance ecs.gn7i-c8g1.2xlarge
snap prices-json prices --instance ecs.gn7e-c16g1.4xlarge --region cn-beijing --json
snap prices-compare prices compare --instance ecs.gn7i-c8g1.2xlarge --region cn-hangzhou --hours 500
snap prices-compare-svc prices compare --instance ecs.gn7e-c16g1.4xlarge --region cn-beijing --monthly-hours 720 --instances 2
snap deploy-dry deploy examples/llm-lora-finetune.yaml --dry-run
snap validate-training validate tests/testdata/validation/calibration.csv
snap validate-moe validate tests/testdata/validation/calibration_moe.csv
snap err-bad-flag plan --model llama-2-7b --task finetune --method lora --cp 0
snap err-bad-precision estimate --model llama-2-7b --task finetune --method lora --precision fp4 --instance ecs.gn7i-c8g1.2xlarge
snap err-bad-billing plan --model llama-2-7b --task finetune --method lora --billing monthly
snap err-bad-prices-billing prices --instance ecs.gn7i-c8g1.2xlarge --billing weekly
snap err-unknown-model estimate --model llama-9b --task finetune --method lora --instance ecs.gn7i-c8g1.2xlarge
snap err-no-file plan /nonexistent.yaml
snap help-plan plan --help
snap help-estimate estimate --help
echo "$n commands recorded in $out"
