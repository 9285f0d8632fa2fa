#!/usr/bin/env python3
"""Writes the Kubernetes schema excerpts tests/deploy_tools/check_k8s.py validates against.

  make_k8s_excerpts.py SWAGGER.json PYTORCHJOBS_CRD.yaml OUT_DIR

SWAGGER.json: kubernetes-client/python `kubernetes/swagger.json.unprocessed` (the Kubernetes
OpenAPI v2 document the client is generated from). PYTORCHJOBS_CRD.yaml: kubeflow/training-operator
`manifests/base/crds/kubeflow.org_pytorchjobs.yaml` (the CRD the API server validates PyTorchJobs
with). Writes k8s_openapi_excerpt.json (the definitions reachable from Deployment, Service,
HorizontalPodAutoscaler v2) and kubeflow_pytorchjob_v1_schema.json (the CRD's openAPIV3Schema).
Both keep every property, type, enum, format and `required` list as published; only the
`description` texts are dropped, to keep the files small.
"""
import json
import sys

import yaml

ROOTS = ["io.k8s.api.apps.v1.Deployment", "io.k8s.api.core.v1.Service",
         "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"]


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items()
                if not (k == "description" and isinstance(v, str))}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def refs(x, out):
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "$ref" and isinstance(v, str):
                out.append(v.rsplit("/", 1)[-1])
            else:
                refs(v, out)
    elif isinstance(x, list):
        for v in x:
            refs(v, out)


def main():
    swagger_path, crd_path, out_dir = sys.argv[1:4]
    with open(swagger_path, encoding="utf-8") as f:
        definitions = json.load(f)["definitions"]
    seen, stack = set(), list(ROOTS)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        found = []
        refs(definitions[name], found)
        stack.extend(found)
    excerpt = {"definitions": {n: strip(definitions[n]) for n in sorted(seen)}}
    with open(f"{out_dir}/k8s_openapi_excerpt.json", "w", encoding="utf-8") as f:
        json.dump(excerpt, f, indent=0, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    with open(crd_path, encoding="utf-8") as f:
        crd = yaml.safe_load(f)
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1")
    with open(f"{out_dir}/kubeflow_pytorchjob_v1_schema.json", "w", encoding="utf-8") as f:
        json.dump(strip(version["schema"]["openAPIV3Schema"]), f, indent=0, sort_keys=True,
                  separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
