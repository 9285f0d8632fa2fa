#!/usr/bin/env python3
"""Checks a generated main.tf against an excerpt of the alicloud provider's alicloud_instance
schema (tests/testdata/deploy/alicloud_instance_schema.json) without Terraform or the provider.

  check_terraform.py main.tf [schema.json]

Checks: every argument and nested block of each alicloud_instance resource exists in the schema
and is not computed-only; literal values pass the schema's ValidateFunc (enums, ranges, lengths,
regexes), and variables' defaults do too; `var.X` is declared with a matching type; output
references name real attributes; the terraform block pins aliyun/alicloud with a `>=` version no
older than the newest `since` of the arguments used. Exit 0 when clean, 1 with one line per
problem. It reads the subset of HCL that gpuplan writes (one attribute per line, blocks on
their own lines) and says so when it meets anything else.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
problems = []


def problem(line, message):
    problems.append(f"main.tf:{line}: {message}")


def strip_comment(text):
    out, in_str, i = [], False, 0
    while i < len(text):
        ch = text[i]
        if in_str:
            out.append(ch)
            if ch == "\\":
                out.append(text[i + 1] if i + 1 < len(text) else "")
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
            out.append(ch)
        elif ch == "#" or text.startswith("//", i):
            break
        else:
            out.append(ch)
        i += 1
    return "".join(out).strip()


class Node:
    def __init__(self, kind, labels, line):
        self.kind, self.labels, self.line = kind, labels, line
        self.attrs = {}     # name -> (value text, line)
        self.children = []  # Node


def parse(text):
    root = Node("root", [], 0)
    stack = [root]
    for n, raw in enumerate(text.splitlines(), 1):
        line = strip_comment(raw)
        if not line:
            continue
        if line == "}":
            if len(stack) == 1:
                problem(n, "unbalanced '}'")
            else:
                stack.pop()
            continue
        m = re.fullmatch(r'([A-Za-z_][A-Za-z0-9_-]*)((?:\s+"[^"]*")*)\s*\{', line)
        if m:
            node = Node(m.group(1), re.findall(r'"([^"]*)"', m.group(2)), n)
            stack[-1].children.append(node)
            stack.append(node)
            continue
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*\{", line)
        if m:  # an object value (required_providers entries): parsed like a block
            node = Node(m.group(1), [], n)
            node.is_object = True
            stack[-1].children.append(node)
            stack.append(node)
            continue
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(.+)", line)
        if m:
            if m.group(1) in stack[-1].attrs:
                problem(n, f"argument {m.group(1)} given twice")
            stack[-1].attrs[m.group(1)] = (m.group(2).strip(), n)
            continue
        problem(n, f"cannot read this line (not gpuplan's HCL subset): {line}")
    if len(stack) != 1:
        problem(stack[-1].line, f"block {stack[-1].kind} is not closed")
    return root


def literal(value):
    """(kind, python value) of a literal, or (None, None) for an expression."""
    if re.fullmatch(r'"(?:[^"\\]|\\.)*"', value):
        return "string", value[1:-1]
    if re.fullmatch(r"-?[0-9]+", value):
        return "int", int(value)
    if re.fullmatch(r"-?[0-9]+\.[0-9]+", value):
        return "float", float(value)
    if value in ("true", "false"):
        return "bool", value == "true"
    return None, None


def check_value(line, name, spec, value, variables):
    kind, v = literal(value)
    if kind is None:
        m = re.fullmatch(r"var\.([A-Za-z_][A-Za-z0-9_]*)", value)
        if m:
            var = variables.get(m.group(1))
            if var is None:
                problem(line, f"{name} = {value}: variable {m.group(1)} is not declared")
                return
            want = {"string": "string", "number": "number", "bool": "bool"}.get(spec["type"])
            if want and var["type"] != want:
                problem(line, f"{name}: variable {m.group(1)} is {var['type']}, the schema wants "
                        f"{spec['type']}")
            if var.get("default") is not None:
                check_value(var["line"], f"{name} (default of var.{m.group(1)})", spec,
                            var["default"], variables)
            return
        m = re.fullmatch(r"\[(.*)\]", value)
        if m and spec["type"].startswith(("set(", "list(")):
            for item in [x.strip() for x in m.group(1).split(",") if x.strip()]:
                check_value(line, name + "[]", {"type": spec["type"][4:-1]}, item, variables)
            return
        return  # another expression (filebase64(...), templates): type-checked by Terraform
    t = spec["type"]
    if t == "string" and kind != "string":
        problem(line, f"{name} = {value}: expected a string")
        return
    if t == "number" and kind not in ("int", "float"):
        problem(line, f"{name} = {value}: expected a number")
        return
    if t == "bool" and kind != "bool":
        problem(line, f"{name} = {value}: expected true or false")
        return
    if spec.get("integer") and kind != "int":
        problem(line, f"{name} = {value}: expected a whole number")
    if "enum" in spec and v not in spec["enum"]:
        problem(line, f"{name} = {value}: expected one of {', '.join(spec['enum'])}")
    if "enum_int" in spec and v not in spec["enum_int"]:
        problem(line, f"{name} = {value}: expected one of {spec['enum_int']}")
    if "min" in spec and v < spec["min"]:
        problem(line, f"{name} = {value}: below {spec['min']}")
    if "max" in spec and v > spec["max"]:
        problem(line, f"{name} = {value}: above {spec['max']}")
    if "min_length" in spec and kind == "string" and "${" not in v and \
            not spec["min_length"] <= len(v) <= spec["max_length"]:
        problem(line, f"{name}: {len(v)} characters, expected {spec['min_length']}-"
                f"{spec['max_length']}")
    if "regex" in spec and kind == "string" and not re.match(spec["regex"], v):
        problem(line, f"{name} = {value}: must match {spec['regex']}")


def version_tuple(text):
    return tuple(int(x) for x in text.split("."))


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    schema_path = sys.argv[2] if len(sys.argv) == 3 else os.path.join(
        HERE, "..", "testdata", "deploy", "alicloud_instance_schema.json")
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    with open(sys.argv[1], encoding="utf-8") as f:
        root = parse(f.read())

    variables = {}
    for node in root.children:
        if node.kind == "variable" and node.labels:
            t = node.attrs.get("type", ("string", node.line))[0]
            d = node.attrs.get("default")
            variables[node.labels[0]] = {"type": t, "default": d[0] if d else None,
                                         "line": d[1] if d else node.line}

    newest = "0.0.0"
    instances = []
    for node in root.children:
        if node.kind != "resource" or node.labels[:1] != [schema["resource"]]:
            continue
        instances.append(node.labels[1])
        for name, (value, line) in node.attrs.items():
            if name in schema["meta_arguments"]:
                continue
            if name in schema["computed_only"]:
                problem(line, f"{name} is computed by the provider and cannot be set")
                continue
            spec = schema["attributes"].get(name)
            if spec is None:
                problem(line, f"{name}: not an argument of {schema['resource']}")
                continue
            check_value(line, name, spec, value, variables)
            if spec.get("since") and version_tuple(spec["since"]) > version_tuple(newest):
                newest = spec["since"]
        counts = {}
        for child in node.children:
            block = schema["blocks"].get(child.kind)
            if block is None:
                problem(child.line, f"block {child.kind}: not a block of {schema['resource']}")
                continue
            counts[child.kind] = counts.get(child.kind, 0) + 1
            if block.get("since") and version_tuple(block["since"]) > version_tuple(newest):
                newest = block["since"]
            for name, (value, line) in child.attrs.items():
                spec = block["attributes"].get(name)
                if spec is None:
                    problem(line, f"{child.kind}.{name}: not an argument of the block")
                    continue
                check_value(line, f"{child.kind}.{name}", spec, value, variables)
            for name, spec in block["attributes"].items():
                if spec.get("required") and name not in child.attrs:
                    problem(child.line, f"{child.kind}: required argument {name} is missing")
        for kind, n in counts.items():
            limit = schema["blocks"][kind].get("max_items")
            if limit and n > limit:
                problem(node.line, f"{n} {kind} blocks, at most {limit}")
    if not instances:
        problem(0, f"no resource \"{schema['resource']}\"")

    for node in root.children:
        if node.kind != "output":
            continue
        value, line = node.attrs.get("value", ("", node.line))
        for res, attr in re.findall(schema["resource"] + r"\.([A-Za-z0-9_]+)(?:\[[^\]]*\])?\.([a-z_]+)", value):
            if res not in instances:
                problem(line, f"output refers to {schema['resource']}.{res}, which is not declared")
            elif attr not in schema["attributes"] and attr not in schema["computed_only"]:
                problem(line, f"output refers to attribute {attr}, which {schema['resource']} lacks")

    pinned = None
    for node in root.children:
        if node.kind != "terraform":
            continue
        for rp in (c for c in node.children if c.kind == "required_providers"):
            for entry in rp.children:
                source = entry.attrs.get("source", ("", entry.line))[0].strip('"')
                if source.lower() != schema["provider_source"]:
                    continue
                version = entry.attrs.get("version")
                if not version:
                    problem(entry.line, f"provider {source} has no version constraint: pin "
                            f">= {newest} (the newest argument used needs it)")
                    pinned = "missing"
                    continue
                m = re.fullmatch(r'">=\s*([0-9]+\.[0-9]+\.[0-9]+)"', version[0])
                if not m:
                    problem(version[1], f"version {version[0]}: expected \">= X.Y.Z\"")
                elif version_tuple(m.group(1)) < version_tuple(newest):
                    problem(version[1], f"version {version[0]} allows providers older than "
                            f"{newest}, which the arguments used need")
                pinned = "ok"
    if pinned is None:
        problem(0, f"no required_providers entry for {schema['provider_source']}")

    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
