#!/usr/bin/env python3
"""Validates Kubernetes manifests (YAML, one or more documents) the way `kubectl apply
--validate=strict` does: every field must exist in the published schema of its kind, with the
right type, and required fields must be there. No cluster is needed.

  check_k8s.py manifest.yaml [schema_dir]

Kinds and their schemas (schema_dir defaults to tests/testdata/deploy/):
  apps/v1 Deployment, v1 Service, autoscaling/v2 HorizontalPodAutoscaler
      k8s_openapi_excerpt.json (Kubernetes OpenAPI v2 definitions, release-1.36)
  kubeflow.org/v1 PyTorchJob
      kubeflow_pytorchjob_v1_schema.json (the training-operator v1.9.0 CRD's openAPIV3Schema)
A kind not listed is an error. As in the API server, an object schema with properties refuses
any other field (strict field validation), int-or-string fields take both, and a Quantity takes
a string or a number. Needs python3-yaml and python3-jsonschema (Debian). Exit 0 when valid,
1 with one line per error, 2 when a module is missing.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
INT_OR_STRING = {"anyOf": [{"type": "integer"}, {"type": "string"}]}
QUANTITY = {"anyOf": [{"type": "number"}, {"type": "string"}]}


def strict(schema):
    """The schema with unknown fields refused and Kubernetes' string/number unions allowed."""
    if isinstance(schema, list):
        return [strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if schema.get("format") == "int-or-string" or schema.get("x-kubernetes-int-or-string"):
        return dict(INT_OR_STRING)
    out = {k: strict(v) for k, v in schema.items()}
    if "properties" in out and "additionalProperties" not in out and \
            not schema.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    return out


def load_schemas(schema_dir):
    with open(os.path.join(schema_dir, "k8s_openapi_excerpt.json"), encoding="utf-8") as f:
        definitions = strict(json.load(f)["definitions"])
    definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"] = dict(QUANTITY)
    with open(os.path.join(schema_dir, "kubeflow_pytorchjob_v1_schema.json"),
              encoding="utf-8") as f:
        pytorchjob = strict(json.load(f))
    # The CRD's metadata is a bare object (the API server checks it as ObjectMeta).
    pytorchjob["properties"]["metadata"] = {
        "$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}

    def by_ref(name):
        return {"$ref": "#/definitions/" + name, "definitions": definitions}

    pytorchjob["definitions"] = definitions
    return {
        ("apps/v1", "Deployment"): by_ref("io.k8s.api.apps.v1.Deployment"),
        ("v1", "Service"): by_ref("io.k8s.api.core.v1.Service"),
        ("autoscaling/v2", "HorizontalPodAutoscaler"):
            by_ref("io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"),
        ("kubeflow.org/v1", "PyTorchJob"): pytorchjob,
    }


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: check_k8s.py manifest.yaml [schema_dir]", file=sys.stderr)
        return 2
    try:
        import yaml
        from jsonschema import Draft4Validator
    except ImportError as e:
        print(f"check_k8s: {e}: install python3-yaml and python3-jsonschema", file=sys.stderr)
        return 2
    schema_dir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        HERE, "..", "testdata", "deploy")
    schemas = load_schemas(schema_dir)
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        try:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        except yaml.YAMLError as e:
            print(f"{path}: not valid YAML: {e}")
            return 1
    problems = []
    if not docs:
        problems.append(f"{path}: no documents")
    for n, doc in enumerate(docs, 1):
        if not isinstance(doc, dict):
            problems.append(f"{path}: document {n}: not a mapping")
            continue
        gvk = (doc.get("apiVersion"), doc.get("kind"))
        name = (doc.get("metadata") or {}).get("name", "?")
        schema = schemas.get(gvk)
        if schema is None:
            problems.append(f"{path}: document {n}: {gvk[0]} {gvk[1]}: no schema for this kind "
                            f"(known: {', '.join(f'{a} {k}' for a, k in schemas)})")
            continue
        for e in sorted(Draft4Validator(schema).iter_errors(doc), key=lambda e: list(e.path)):
            where = ".".join(str(p) for p in e.path) or "(top level)"
            problems.append(f"{path}: {gvk[1]} {name}: {where}: {e.message}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
