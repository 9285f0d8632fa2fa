#!/usr/bin/env python3
"""A stand-in for the aliyun CLI that checks a RunInstances call instead of renting anything.

Put it on PATH as `aliyun` and run a generated run-instances.sh. Every `--Name value` pair is
checked the way the aliyun CLI resolves names (flat names, `X.N` for a RepeatList, `X.N.Y` for
a RepeatList's sub-parameter) against tests/testdata/deploy/runinstances_params.json, the
parameter list of aliyun-openapi-meta; values against its types and the RunInstances reference's
ranges and enums, and the cross-parameter rules the reference states. A clean call is appended
as one JSON object to $FAKE_ALIYUN_LOG and answered with a fake InstanceIdSets; a bad one exits
1 with "ERROR: ..." on stderr, as the CLI or the API would refuse it.

`aliyun ecs DescribeInstanceTypes --RegionId R --InstanceTypes.1 T` answers with the fixture in
$FAKE_ALIYUN_DESCRIBE (the script reads QueuePairNumber from it).
"""
import base64
import binascii
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
PARAMS = os.environ.get(
    "FAKE_ALIYUN_PARAMS",
    os.path.join(HERE, "..", "testdata", "deploy", "runinstances_params.json"))


def fail(message):
    print("ERROR: " + message, file=sys.stderr)
    sys.exit(1)


def parse_flags(argv):
    """--Name value pairs, in order; a flag without a value is an error (the CLI needs one)."""
    pairs = []
    i = 0
    while i < len(argv):
        name = argv[i]
        if not name.startswith("--"):
            fail(f"unexpected argument {name!r} (expected --Name value)")
        if i + 1 >= len(argv) or argv[i + 1].startswith("--"):
            fail(f"{name} has no value")
        pairs.append((name[2:], argv[i + 1]))
        i += 2
    return pairs


def resolve(name, params):
    """(canonical key for the value rules, parameter type) or fail: mirrors meta/api.go."""
    flat = {p["name"]: p for p in params}
    if name in flat and flat[name]["type"] not in ("RepeatList", "Struct"):
        return name, flat[name]["type"], None, None
    m = re.fullmatch(r"([A-Za-z0-9]+)\.([0-9]+)(?:\.([A-Za-z0-9]+))?", name)
    if m:
        base, index, sub = m.group(1), int(m.group(2)), m.group(3)
        p = flat.get(base)
        if p and p["type"] == "RepeatList":
            if index < 1:
                fail(f"--{name}: list index starts at 1")
            if sub is None and "sub_parameters" not in p:
                return f"{base}.N", "String", base, index
            for s in p.get("sub_parameters", []):
                if s["name"] == sub:
                    return f"{base}.N.{sub}", s["type"], base, index
            fail(f"--{name}: {base} has no sub-parameter {sub!r} in the RunInstances parameter list")
    fail(f"--{name}: not a RunInstances parameter (aliyun-openapi-meta RunInstances.json)")


def check_type(name, kind, value):
    if kind in ("Integer", "Long"):
        if not re.fullmatch(r"-?[0-9]+", value):
            fail(f"--{name} {value!r}: expected a whole number ({kind})")
    elif kind == "Float":
        try:
            float(value)
        except ValueError:
            fail(f"--{name} {value!r}: expected a number (Float)")
    elif kind == "Boolean":
        if value not in ("true", "false"):
            fail(f"--{name} {value!r}: expected true or false (Boolean)")


def check_value(name, key, value, rules):
    r = rules.get(key)
    if not r:
        return
    if "enum" in r and value not in r["enum"]:
        fail(f"--{name} {value!r}: expected one of {', '.join(r['enum'])}")
    if "enum_int" in r and int(value) not in r["enum_int"]:
        fail(f"--{name} {value}: expected one of {r['enum_int']}")
    if "min" in r and float(value) < r["min"]:
        fail(f"--{name} {value}: below the minimum {r['min']}")
    if "max" in r and float(value) > r["max"]:
        fail(f"--{name} {value}: above the maximum {r['max']}")
    if "min_exclusive" in r and not float(value) > r["min_exclusive"]:
        fail(f"--{name} {value}: must be > {r['min_exclusive']}")
    if "decimals" in r and "." in value and len(value.split(".")[1]) > r["decimals"]:
        fail(f"--{name} {value}: at most {r['decimals']} decimals")
    if "min_length" in r and not r["min_length"] <= len(value) <= r["max_length"]:
        fail(f"--{name}: {len(value)} characters, expected {r['min_length']}-{r['max_length']}")
    if "prefix" in r and not value.startswith(r["prefix"]):
        fail(f"--{name} {value!r}: expected an id starting with {r['prefix']}")
    if "base64_max_decoded_bytes" in r:
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            fail(f"--{name}: not valid base64")
        if len(raw) > r["base64_max_decoded_bytes"]:
            fail(f"--{name}: {len(raw)} bytes before encoding, at most "
                 f"{r['base64_max_decoded_bytes']}")


def check_rules(got, lists):
    """The cross-parameter rules of the RunInstances reference (rules_doc in the params file)."""
    if "RegionId" not in got:
        fail("--RegionId is required")
    amount = int(got.get("Amount", "1"))
    if "MinAmount" in got and int(got["MinAmount"]) > amount:
        fail(f"--MinAmount {got['MinAmount']} > --Amount {amount}")
    charge = got.get("InstanceChargeType", "PostPaid")
    if got.get("SpotStrategy", "NoSpot") != "NoSpot" and charge != "PostPaid":
        fail("--SpotStrategy needs --InstanceChargeType PostPaid")
    if "SpotPriceLimit" in got and got.get("SpotStrategy") != "SpotWithPriceLimit":
        fail("--SpotPriceLimit goes with --SpotStrategy SpotWithPriceLimit")
    for k in ("Period", "PeriodUnit", "AutoRenew"):
        if k in got and charge != "PrePaid":
            fail(f"--{k} applies to --InstanceChargeType PrePaid only")
    nics = lists.get("NetworkInterface", {})
    primary = [i for i, v in nics.items() if v.get("InstanceType") == "Primary"]
    if primary:
        if primary != [1]:
            fail("the primary interface must be NetworkInterface.1")
        for k in ("VSwitchId", "SecurityGroupId", "SecurityGroupIds.1", "PrivateIpAddress"):
            if k in got:
                fail(f"--{k} at the top level conflicts with NetworkInterface.1.InstanceType "
                     "Primary: put it in NetworkInterface.1")
        if "VSwitchId" not in nics[1]:
            fail("NetworkInterface.1 (Primary) needs a VSwitchId")
    eris = [v for v in nics.values() if v.get("NetworkInterfaceTrafficMode") == "HighPerformance"]
    if len(eris) > 1 and any("QueuePairNumber" not in v for v in eris):
        fail("several ERIs without QueuePairNumber: the first takes every queue pair and the "
             "others cannot be attached")
    for v in nics.values():
        if v.get("InstanceType") == "Secondary" and "VSwitchId" not in v:
            fail("a Secondary NetworkInterface needs its VSwitchId")
    for i, d in lists.get("DataDisk", {}).items():
        level, size = d.get("PerformanceLevel"), int(d.get("Size", "0"))
        if d.get("Category") == "cloud_essd" and level == "PL2" and size < 461:
            fail(f"DataDisk.{i}: ESSD PL2 needs at least 461 GiB, got {size}")
        if d.get("Category") == "cloud_essd" and level == "PL3" and size < 1261:
            fail(f"DataDisk.{i}: ESSD PL3 needs at least 1261 GiB, got {size}")


def run_instances(argv, spec):
    params = spec["parameters"]
    rules = spec["values"]
    got, lists = {}, {}
    for name, value in parse_flags(argv):
        key, kind, base, index = resolve(name, params)
        if name in got:
            fail(f"--{name} given twice")
        check_type(name, kind, value)
        check_value(name, key, value, rules)
        got[name] = value
        if base:
            limit = spec.get("list_limits", {}).get(base)
            if limit and index > limit:
                fail(f"--{name}: at most {limit} {base} entries")
            sub = name.split(".", 2)[2] if name.count(".") == 2 else ""
            lists.setdefault(base, {}).setdefault(index, {})[sub] = value
    for base, entries in lists.items():
        if sorted(entries) != list(range(1, len(entries) + 1)):
            fail(f"{base}.N indexes must run 1, 2, ... without gaps, got {sorted(entries)}")
    check_rules(got, lists)
    log = os.environ.get("FAKE_ALIYUN_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"api": "RunInstances", "params": got}) + "\n")
    amount = int(got.get("Amount", "1"))
    print(json.dumps({"RequestId": "FAKE", "InstanceIdSets": {
        "InstanceIdSet": [f"i-fake{n:04d}" for n in range(amount)]}}, indent=2))


def describe_instance_types(argv):
    got = dict(parse_flags(argv))
    extra = set(got) - {"RegionId", "InstanceTypes.1"}
    if extra or "InstanceTypes.1" not in got:
        fail(f"DescribeInstanceTypes: expected --RegionId and --InstanceTypes.1, got {sorted(got)}")
    fixture = os.environ.get("FAKE_ALIYUN_DESCRIBE")
    if not fixture:
        fail("DescribeInstanceTypes: no fixture (FAKE_ALIYUN_DESCRIBE)")
    with open(fixture, encoding="utf-8") as f:
        print(f.read())


def main():
    argv = sys.argv[1:]
    if len(argv) < 2 or argv[0] != "ecs":
        fail(f"the fake aliyun knows only 'ecs RunInstances' and 'ecs DescribeInstanceTypes', "
             f"got {' '.join(argv[:2])!r}")
    with open(PARAMS, encoding="utf-8") as f:
        spec = json.load(f)
    if argv[1] == "RunInstances":
        run_instances(argv[2:], spec)
    elif argv[1] == "DescribeInstanceTypes":
        describe_instance_types(argv[2:])
    else:
        fail(f"the fake aliyun does not know ecs {argv[1]}")


if __name__ == "__main__":
    main()
