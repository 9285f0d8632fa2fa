"""Refusals raise gpuplan.Error (a ValueError) naming the keyword argument."""

import pytest

import gpuplan
from conftest import LORA_7B

ERROR_CASES = [
    # name, call, expected field, words the message must hold
    ("unknown_key", lambda: gpuplan.plan(**LORA_7B, optimiser="adam"), "optimiser",
     ["unknown key", "optimizer"]),
    ("bad_seq_len", lambda: gpuplan.plan(**LORA_7B, seq_len="long"), "seq_len",
     ["whole number"]),
    ("bad_task", lambda: gpuplan.plan(model="qwen2.5-7b", task="finetuning"), "task",
     ["finetune"]),
    ("bad_tokens", lambda: gpuplan.plan(**dict(LORA_7B, tokens="lots")), "tokens", ["lots"]),
    ("unknown_model", lambda: gpuplan.plan(**dict(LORA_7B, model="llama-9-7b")), "model",
     ["llama-9-7b"]),
    ("bad_region", lambda: gpuplan.plan(**LORA_7B, constraints={"regions": ["mars-1"]}),
     "constraints.regions", ["mars-1"]),
    ("estimate_bad_gpus", lambda: gpuplan.estimate(gpu="A10", gpus=0, **LORA_7B), "gpus",
     ["gpus"]),
    ("explain_unknown_type", lambda: gpuplan.explain("ecs.gn7i-c8g1.2xlargee", **LORA_7B),
     "instance", ["did you mean"]),
    ("catalog_bad_gpu", lambda: gpuplan.catalog.instances(gpu="H2OO"), "gpu", ["H2OO"]),
    ("plan_bad_top", lambda: gpuplan.plan(**LORA_7B, top=0), "top", ["top"]),
]


@pytest.mark.parametrize("name,call,field,words", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_error_names_the_field(name, call, field, words):
    with pytest.raises(gpuplan.Error) as caught:
        call()
    err = caught.value
    assert isinstance(err, ValueError)
    assert err.field == field, (name, err.field, err.message)
    for w in words:
        assert w in err.message, (name, err.message)
    assert str(err) == err.message
    assert not err.message.startswith("body"), err.message  # no request-body places


def test_error_pickles_with_its_field():
    import pickle
    err = pickle.loads(pickle.dumps(gpuplan.Error("expected x", "seq_len")))
    assert (err.message, err.field) == ("expected x", "seq_len")
