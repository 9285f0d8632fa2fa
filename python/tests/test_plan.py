"""gpuplan.plan and gpuplan.explain: the CLI's JSON for the same question."""

import pytest

import gpuplan
from conftest import LORA_7B

PLAN_CASES = [
    ("issue_question", LORA_7B, {}),
    ("top_3", LORA_7B, {"top": 3}),
    ("region_constraint", dict(LORA_7B, constraints={"regions": ["cn-hangzhou"]}), {}),
    ("inference_service", dict(model="qwen2.5-7b", task="inference",
                               inference={"requests_per_s": 5}), {"top": 2}),
    ("pretrain_budget", dict(model="llama-2-7b", task="pretrain", tokens="1B",
                             constraints={"max_gpus": 16}), {"top": 2}),
]


@pytest.mark.parametrize("name,workload,options", PLAN_CASES, ids=[c[0] for c in PLAN_CASES])
def test_plan_equals_cli_json(cli, name, workload, options):
    result = gpuplan.plan(**workload, **options)
    assert isinstance(result, dict)
    assert result["candidates"], name
    args = ["plan", "--json"]
    if "top" in options:
        args += ["--top", str(options["top"])]
    assert result == cli(args, workload)


def test_plan_top_limits_candidates():
    assert len(gpuplan.plan(**LORA_7B, top=2)["candidates"]) <= 2


def test_plan_region_is_respected():
    result = gpuplan.plan(**LORA_7B, constraints={"regions": ["cn-beijing"]}, top=5)
    assert {c["region"] for c in result["candidates"]} == {"cn-beijing"}


def test_none_arguments_are_left_out():
    assert gpuplan.plan(**LORA_7B, seq_len=None, top=1) == gpuplan.plan(**LORA_7B, top=1)


EXPLAIN_CASES = [
    ("a10_single", "ecs.gn7i-c8g1.2xlarge"),
    ("a10_eight", "ecs.gn7i-8x.16xlarge"),
]


@pytest.mark.parametrize("name,instance", EXPLAIN_CASES, ids=[c[0] for c in EXPLAIN_CASES])
def test_explain_equals_cli_json(cli, name, instance):
    result = gpuplan.explain(instance, **LORA_7B)
    assert "winner" in result or "candidates" in result, name
    assert result == cli(["explain", instance, "--json"], LORA_7B)
