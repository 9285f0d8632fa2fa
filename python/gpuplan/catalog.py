"""The embedded catalog (with the cached prices) and the model zoo, as lists of dicts: what
``gpuplan catalog gpus --json``, ``gpuplan catalog instances --json`` and ``gpuplan estimate
--list-models --json`` print. Filters are the CLI's, as keyword arguments."""

from . import _api


def gpus(min_gpu_memory=None, alibaba=None):
    """GPU models with their specs; ``alibaba=True`` keeps those Alibaba Cloud sells."""
    return _api.call("GET", "/v1/catalog/gpus",
                     {"min_gpu_memory": min_gpu_memory, "alibaba": alibaba})


def instances(gpu=None, min_gpu_memory=None, min_gpus=None, rdma=None, family=None,
              status=None, region=None):
    """Instance types, filtered as ``gpuplan catalog instances`` filters them."""
    return _api.call("GET", "/v1/catalog/instances",
                     {"gpu": gpu, "min_gpu_memory": min_gpu_memory, "min_gpus": min_gpus,
                      "rdma": rdma, "family": family, "status": status, "region": region})


def families():
    """Instance families with their generation and GPU."""
    return _api.call("GET", "/v1/catalog/families")


def models():
    """The model zoo: every model ``model=`` may name, with its size and shape."""
    return _api.call("GET", "/v1/catalog/models")
