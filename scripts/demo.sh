#!/usr/bin/env bash
# The main job on the embedded catalog: what a new user sees first.
set -euo pipefail
gp=${1:-build/gpuplan}
echo "== gpuplan catalog instances --gpu A10 (the embedded catalog) =="
"$gp" catalog instances --gpu A10
echo
echo "== gpuplan catalog show ecs.gn7e-c16g1.4xlarge =="
"$gp" catalog show ecs.gn7e-c16g1.4xlarge
