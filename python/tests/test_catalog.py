"""gpuplan.catalog: the CLI's catalog and model-zoo JSON."""

import pytest

import gpuplan

CATALOG_CASES = [
    # name, call, CLI arguments
    ("gpus", lambda: gpuplan.catalog.gpus(), ["catalog", "gpus", "--json"]),
    ("gpus_alibaba", lambda: gpuplan.catalog.gpus(alibaba=True),
     ["catalog", "gpus", "--alibaba", "--json"]),
    ("instances", lambda: gpuplan.catalog.instances(), ["catalog", "instances", "--json"]),
    ("instances_a10", lambda: gpuplan.catalog.instances(gpu="A10"),
     ["catalog", "instances", "--gpu", "A10", "--json"]),
    ("families", lambda: gpuplan.catalog.families(), ["catalog", "families", "--json"]),
    ("models", lambda: gpuplan.catalog.models(), ["estimate", "--list-models", "--json"]),
]


@pytest.mark.parametrize("name,call,args", CATALOG_CASES, ids=[c[0] for c in CATALOG_CASES])
def test_catalog_equals_cli_json(cli, name, call, args):
    result = call()
    assert isinstance(result, list) and result, name
    assert result == cli(args)


def test_models_name_the_issue_model():
    names = {m["name"] for m in gpuplan.catalog.models()}
    assert "qwen2.5-7b" in names


def test_instances_filter_by_gpu():
    assert {i["gpu"] for i in gpuplan.catalog.instances(gpu="A10")} == {"A10-24G"}
