#!/usr/bin/env python3
"""Validates a #cloud-config file against cloud-init's JSON schema, as `cloud-init schema
--config-file` does, for machines without cloud-init (installing it enables its boot services,
so scripts/install-deps.sh does not).

  check_cloud_config.py cloud-init.yaml [schema.json]

The schema is tests/testdata/deploy/cloud-config-schema-v1.json, copied from the Debian 12
package cloud-init 22.4.2-1+deb12u4. Needs python3-yaml and python3-jsonschema (Debian).
Exit 0 when valid, 1 with one line per error, 2 when a module is missing.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: check_cloud_config.py cloud-init.yaml [schema.json]", file=sys.stderr)
        return 2
    try:
        import yaml
        from jsonschema import Draft4Validator
    except ImportError as e:
        print(f"check_cloud_config: {e}: install python3-yaml and python3-jsonschema",
              file=sys.stderr)
        return 2
    schema_path = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        HERE, "..", "testdata", "deploy", "cloud-config-schema-v1.json")
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    if not text.startswith("#cloud-config\n"):
        print(f"{sys.argv[1]}:1: does not start with #cloud-config")
        return 1
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError as e:
        print(f"{sys.argv[1]}: not valid YAML: {e}")
        return 1
    errors = sorted(Draft4Validator(schema).iter_errors(config), key=lambda e: list(e.path))
    for e in errors:
        where = ".".join(str(p) for p in e.path) or "(top level)"
        print(f"{sys.argv[1]}: {where}: {e.message}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
