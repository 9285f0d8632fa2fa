"""gpuplan.estimate: one layout on given hardware, as `gpuplan estimate --json`."""

import pytest

import gpuplan
from conftest import LORA_7B

ESTIMATE_CASES = [
    # name, hardware keyword arguments, the same as CLI flags
    ("gpu_count", dict(gpu="A10", gpus=8), ["--gpu", "A10", "--gpus", "8"]),
    ("instance", dict(instance="ecs.gn7i-8x.16xlarge"), ["--instance", "ecs.gn7i-8x.16xlarge"]),
    # The LoRA workload's framework (the PEFT stack) runs data parallel only.
    ("pinned_layout", dict(gpu="A100-80G-SXM", gpus=8, dp=8, zero=2),
     ["--gpu", "A100-80G-SXM", "--gpus", "8", "--dp", "8", "--zero", "2"]),
]


@pytest.mark.parametrize("name,hardware,flags", ESTIMATE_CASES,
                         ids=[c[0] for c in ESTIMATE_CASES])
def test_estimate_equals_cli_json(cli, name, hardware, flags):
    result = gpuplan.estimate(**hardware, **LORA_7B)
    assert result["memory"], name
    assert result == cli(["estimate", "--json", *flags], LORA_7B)


def test_estimate_pins_the_layout():
    result = gpuplan.estimate(gpu="A100-80G-SXM", gpus=8, zero=2, **LORA_7B)
    assert result["layout"]["zero"] == 2
