"""Shared helpers: the CLI binary (GPUPLAN_BINARY, set by ctest) to compare against, run in the
same environment as the module (GPUPLAN_TODAY, XDG_CACHE_HOME)."""

import json
import os
import subprocess
import tempfile

import pytest

# The question, as keyword arguments.
LORA_7B = dict(model="qwen2.5-7b", task="finetune", method="lora", tokens="200M")


@pytest.fixture(scope="session")
def cli():
    """cli(args, workload=None) -> the JSON `gpuplan ARGS [FILE]` prints, FILE holding
    `workload` as JSON (the CLI reads JSON as YAML)."""
    binary = os.environ.get("GPUPLAN_BINARY")
    if not binary:
        pytest.skip("GPUPLAN_BINARY not set (ctest sets it)")

    def run(args, workload=None):
        with tempfile.TemporaryDirectory() as d:
            extra = []
            if workload is not None:
                path = os.path.join(d, "workload.json")
                with open(path, "w") as f:
                    json.dump(workload, f)
                extra = [path]
            out = subprocess.run([binary, *args, *extra], check=True, capture_output=True,
                                 text=True)
            return json.loads(out.stdout)

    return run
