#!/usr/bin/env python3
"""Validates a JSON request body or config file against a JSON Schema kept in tests/testdata
(pai_dlc_createjob_schema.json, pai_eas_service_schema.json: each says where its field list
comes from). Every object in those schemas refuses fields it does not list, so a misspelled
field fails.

  check_json_body.py FILE.json SCHEMA.json

Needs python3-jsonschema (Debian). Exit 0 when valid, 1 with one line per error, 2 when the
module is missing.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        print("usage: check_json_body.py FILE.json SCHEMA.json", file=sys.stderr)
        return 2
    try:
        from jsonschema import Draft4Validator
    except ImportError as e:
        print(f"check_json_body: {e}: install python3-jsonschema", file=sys.stderr)
        return 2
    with open(sys.argv[2], encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[1], encoding="utf-8") as f:
        try:
            body = json.load(f)
        except json.JSONDecodeError as e:
            print(f"{sys.argv[1]}: not valid JSON: {e}")
            return 1
    errors = sorted(Draft4Validator(schema).iter_errors(body), key=lambda e: list(e.path))
    for e in errors:
        where = ".".join(str(p) for p in e.path) or "(top level)"
        print(f"{sys.argv[1]}: {where}: {e.message}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
