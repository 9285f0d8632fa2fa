"""gpuplan.to_records: flat rows for pandas.DataFrame."""

import pytest

import gpuplan
from conftest import LORA_7B

RECORD_CASES = [
    ("plan", lambda: gpuplan.plan(**LORA_7B, top=3), 3),
    ("explain", lambda: gpuplan.explain("ecs.gn7i-8x.16xlarge", **LORA_7B), None),
    ("estimate", lambda: gpuplan.estimate(gpu="A10", gpus=8, **LORA_7B), 1),
    ("catalog_gpus", lambda: gpuplan.catalog.gpus(), None),
]


@pytest.mark.parametrize("name,call,count", RECORD_CASES, ids=[c[0] for c in RECORD_CASES])
def test_records_are_flat(name, call, count):
    records = gpuplan.to_records(call())
    assert records, name
    if count is not None:
        assert len(records) == count
    for row in records:
        assert all(not isinstance(v, dict) for v in row.values()), name
        assert all(isinstance(k, str) for k in row)


def test_plan_records_have_one_row_per_candidate():
    plan = gpuplan.plan(**LORA_7B, top=3)
    rows = gpuplan.to_records(plan)
    assert [r["instance"] for r in rows] == [c["instance"] for c in plan["candidates"]]
    assert any(k.startswith("cost.") for k in rows[0])


def test_records_feed_pandas():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(gpuplan.to_records(gpuplan.plan(**LORA_7B, top=3)))
    assert len(frame) == 3 and "instance" in frame.columns


def test_records_refuse_other_values():
    with pytest.raises(TypeError):
        gpuplan.to_records("plan")
