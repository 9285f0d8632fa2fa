"""gpuplan from Python: which Alibaba Cloud GPU instances to rent for a deep-learning job, why,
what it costs and how long it takes (docs/python.md).

Keyword arguments are the workload file's keys (docs/plan.md, "The workload file"); nested
sections are dicts::

    import gpuplan
    plan = gpuplan.plan(model="qwen2.5-7b", task="finetune", method="lora", tokens="200M",
                        constraints={"regions": ["cn-hangzhou"]}, top=3)
    plan["candidates"][0]["instance"]

Every result is the dict the CLI prints with --json for the same question; ``to_records`` flattens
one into rows for ``pandas.DataFrame``. A refused question raises ``gpuplan.Error`` (a
ValueError) with ``.field`` and ``.message``.
"""

from . import _api, catalog
from ._api import Error
from ._gpuplan import version as __version__
from .records import to_records

__all__ = ["plan", "explain", "estimate", "catalog", "to_records", "Error"]


def plan(top=None, **workload):
    """``gpuplan plan --json [--top N]``: the ranked candidates, the rejected types and why."""
    return _api.call("POST", "/v1/plan", {"top": top}, _api.workload_body(workload))


def explain(instance, **workload):
    """``gpuplan explain INSTANCE --json``: every way the workload runs on one instance type,
    why it ranks where it does, and the plan's winner."""
    return _api.call("POST", "/v1/explain", {"instance": instance},
                     _api.workload_body(workload))


def estimate(gpu=None, gpus=None, gpus_per_node=None, instance=None, nodes=None,
             inter_node_gbps=None, tp=None, pp=None, dp=None, zero=None,
             sequence_parallel=None, **workload):
    """``gpuplan estimate --json``: memory, step time, throughput and job time of one layout on
    given hardware, either ``gpu=`` and ``gpus=`` (``gpus_per_node=``) or ``instance=`` and
    ``nodes=``; ``tp``, ``pp``, ``dp``, ``zero`` pin the layout (the rest is searched)."""
    hardware = {"gpu": gpu, "gpus": gpus, "gpus_per_node": gpus_per_node, "instance": instance,
                "nodes": nodes, "inter_node_gbps": inter_node_gbps, "tp": tp, "pp": pp,
                "dp": dp, "zero": zero, "sequence_parallel": sequence_parallel}
    return _api.call("POST", "/v1/estimate", hardware, _api.workload_body(workload))
