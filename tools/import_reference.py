#!/usr/bin/env python3
"""Regenerates data/instances.csv and data/prices.csv from the research notes in
../shared/data (alibaba_reference.md section 1.2, alibaba_prices.md sections 1 and appendices).

Run from the repository root: tools/import_reference.py ../shared/data
The output is reviewed in the diff; the script only copies and normalises, it adds no facts.
"""
import csv, io, re, sys

src = sys.argv[1] if len(sys.argv) > 1 else "../shared/data"

# Family -> (canonical GPU, interconnect, cpu, arch, status, as_of). Interconnect and status
# follow the family table in alibaba_reference.md section 1.1.
FAMILY = {
    "gn4": ("M40-12G", "pcie", "(not recorded)", "retired"),
    "gn5": ("P100-16G-PCIE", "pcie", "Intel Xeon E5-2682 v4 (Broadwell) 2.5 GHz", "legacy"),
    "gn5i": ("P4-8G", "pcie", "Intel Xeon E5-2682 v4 (Broadwell) 2.5 GHz", "legacy"),
    "gn6v": ("V100-16G-SXM2", "nvlink", "Intel Xeon Platinum 8163 (Skylake) 2.5 GHz", "legacy"),
    "gn6e": ("V100-32G-SXM2", "nvlink", "Intel Xeon Platinum 8163 (Skylake) 2.5 GHz", "legacy"),
    "gn6i": ("T4-16G", "pcie", "Intel Xeon Platinum 8163 (Skylake) 2.5 GHz", "current"),
    "vgn6i-vws": ("T4-16G", "pcie", "Intel Xeon Platinum 8163 (Skylake) 2.5 GHz", "current"),
    "gn7": ("A100-40G-SXM", "nvswitch", "Intel Xeon Platinum 8269CY (Cascade Lake) 2.5 GHz", "current"),
    "gn7e": ("A100-80G-SXM", "nvlink", "(not stated in doc)", "current"),
    "gn7i": ("A10-24G", "pcie", "Intel Xeon (Ice Lake) 2.9 GHz, 3.5 GHz all-core turbo", "current"),
    "gn7s": ("A30-24G", "pcie", "Intel Xeon (Ice Lake) 2.9 GHz, 3.5 GHz all-core turbo", "legacy"),
    "gn7r": ("A16-16G", "pcie", "Ampere Altra Max (ARM) 3.0 GHz", "current"),
    "vgn7i-vws": ("A10-24G", "pcie", "Intel Xeon (Ice Lake) 2.9/3.5 GHz", "current"),
    "sgn7i-vws": ("A10-24G", "pcie", "Intel Xeon (Ice Lake) 2.9/3.5 GHz (shared)", "current"),
    "sgn8ia": ("L20-48G", "pcie", "AMD EPYC Genoa 3.4-3.75 GHz (shared, oversold ~1:1.5)", "current"),
    "gn8is": ("L20-48G", "pcie", "Intel Xeon 4th gen high-frequency, 3.9 GHz all-core turbo", "current"),
    "gn8v": ("H20-96G", "nvlink", "Intel Xeon 4th gen, up to 2.8 GHz base, 3.1 GHz all-core turbo", "current"),
    "gn8v-tee": ("H20-96G", "nvlink", "Intel Xeon 4th gen with TDX, 3.1 GHz all-core turbo", "current"),
    "gn9gc": ("BW-PRO-72G", "pcie", "high-frequency CPU (CIPU 2.0)", "preview"),
    "ebmgn6i": ("T4-16G", "pcie", "Intel Xeon Platinum 8163 2.5 GHz", "current"),
    "ebmgn6v": ("V100-16G-SXM2", "nvlink", "Intel Xeon Platinum 8163 2.5 GHz", "legacy"),
    "ebmgn6e": ("V100-32G-SXM2", "nvlink", "Intel Xeon Platinum 8163 2.5 GHz", "legacy"),
    "ebmgn7": ("A100-40G-SXM", "nvswitch", "Intel Xeon Platinum 8269CY 2.5 GHz", "current"),
    "ebmgn7e": ("A100-80G-SXM", "nvlink", "Intel Xeon Scalable 2.9 GHz base, 3.5 GHz all-core turbo", "current"),
    "ebmgn7ex": ("A100-80G-SXM", "nvlink", "Intel Xeon (Ice Lake) 2.9/3.5 GHz", "current"),
    "ebmgn7i": ("A10-24G", "pcie", "Intel Xeon (Ice Lake) 2.9/3.5 GHz", "current"),
    "ebmgn7ix": ("A10-24G", "pcie", "Intel Xeon (Ice Lake) 2.9/3.5 GHz; CIPU 1.0", "current"),
    "ebmgn8v": ("H20-96G", "nvlink", "Intel Xeon 4th gen, 3.1 GHz all-core turbo; CIPU 1.0", "current"),
    "ebmgn8ia": ("L20-48G", "pcie", "2 x AMD EPYC Genoa 9T34, 3.4-3.75 GHz", "current"),
    "ebmgn8is": ("L20-48G", "pcie", "Intel Xeon (Sapphire Rapids) 3.4 GHz, 3.9 GHz all-core turbo", "current"),
    "ebmgn9g": ("BW-PRO-48G", "pcie", "AMD Turin-C 3.3-5 GHz", "preview"),
    "ebmgn9ge": ("BW-PRO-72G", "pcie", "AMD Turin-C 3.3-5 GHz", "preview"),
    "ebmgn9gc": ("BW-PRO-72G", "pcie", "AMD Turin-C 3.3-5 GHz", "preview"),
}
# eRDMA bandwidth by family where the docs state it (alibaba_reference.md section 5.5).
RDMA_GBPS = {"ebmgn7ex": 160, "ebmgn7ix": 160, "ebmgn8v": 160, "ebmgn8ia": 160, "ebmgn8is": 160,
             "gn9gc": 360, "ebmgn9g": 360, "ebmgn9ge": 360, "ebmgn9gc": 360}
# Inferred GPU models (the docs give only memory sizes).
INFERRED_GPU = {"gn7e", "ebmgn7", "ebmgn7e", "gn8v", "gn8v-tee", "ebmgn8v", "sgn8ia"}
DATES = {"S1": "2025-11", "S2": "2025-11", "S3": "2025-11", "S4": "2021", "S5": "2021", "S7": "2024", "S8": "n/a"}
# Rows the reference lists whose specs are too incomplete to plan with (no RAM or GPU model).
SKIP = {"ecs.gn8ia.8xlarge": "GPU count, RAM and network unknown (only a usable-memory map, S7)",
        "ecs.ebmgn8te.32xlarge": "GPU model unverified (one third-party log)"}


def block(text, header_start):
    i = text.index(header_start)
    j = text.index("```", i)
    return text[i:j]


def num(s):
    s = (s or "").strip()
    m = re.match(r"^([0-9.]+)", s)
    return m.group(1) if m else ""


def main():
    ref = open(f"{src}/alibaba_reference.md", encoding="utf-8").read()
    rows = list(csv.DictReader(io.StringIO(block(ref, "instance_type,family,gpu_model"))))
    out = io.StringIO()
    cols = ["name", "family", "gpu", "gpu_count", "gpu_memory_gib", "vcpu", "memory_gib",
            "network_gbps", "network_burst_gbps", "pps", "rdma", "rdma_gbps", "interconnect",
            "local_nvme_gib", "cpu", "arch", "status", "basis", "source", "as_of", "notes"]
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols)
    skipped = []
    for r in rows:
        name, fam = r["instance_type"], r["family"]
        if name in SKIP:
            skipped.append(f"{name}: {SKIP[name]}")
            continue
        gpu, ic, cpu, status = FAMILY[fam]
        count = r["gpu_count"].strip()
        mem_per_gpu = r["gpu_mem_gb_per_gpu"].strip()
        if fam == "sgn8ia":  # "slice": the slice memory over the 48 GB GPU.
            count = f"{mem_per_gpu}/48" if mem_per_gpu != "48" else "1"
        elif "/" in count:
            frac = count
            base = {"T4-16G": 16, "A10-24G": 24}[gpu]
            num_, den = frac.split("/")
            mem_per_gpu = f"{base * int(num_) / int(den):.4g}"
        net = r["net_gbps"].strip()
        burst = ""
        m = re.match(r"([0-9.]+) \(burst ([0-9.]+)\)", net)
        if m:
            net, burst = m.group(1), m.group(2)
        net = num(net)
        rdma = "yes" if r["eri"].startswith("yes") else "no"
        rdma_gbps = str(RDMA_GBPS[fam]) if rdma == "yes" and fam in RDMA_GBPS else ""
        basis = r["basis"]
        notes = [r["notes"]] if r["notes"] else []
        if fam in INFERRED_GPU:
            basis = "doc; GPU model inferred"
            notes.append("GPU model inferred: the doc gives only the memory size")
        if rdma == "yes" and not rdma_gbps:
            notes.append("eRDMA supported; bandwidth not stated")
        sources = r["source"]
        as_of = max((DATES.get(s, "") for s in sources.split(";")), default="")
        w.writerow([name, fam, gpu, count, num(mem_per_gpu), num(r["vcpu"]), num(r["mem_gib"]),
                    net, burst, num(r["pps"]), rdma, rdma_gbps, ic, num(r["local_nvme_gib"]),
                    cpu, "arm64" if fam == "gn7r" else "x86_64", status, basis, sources, as_of,
                    "; ".join(notes)])
    open("data/instances.csv", "w").write(out.getvalue())
    known = {r["instance_type"] for r in rows} - set(SKIP)
    print(f"instances.csv: {len(known)} types; skipped: {skipped}")

    pr = open(f"{src}/alibaba_prices.md", encoding="utf-8").read()
    price_rows = []
    for start in ("## 1. Price points", "## Appendix A.", "## Appendix B."):
        i = pr.index(start)
        j = pr.index("```csv", i) + len("```csv\n")
        k = pr.index("```", j)
        price_rows += list(csv.DictReader(io.StringIO(pr[j:k])))
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["instance", "region", "zone", "billing", "currency", "price", "unit", "as_of",
                "source", "trust", "notes"])
    seen, dropped = set(), {}
    unit_map = {"per instance-hour": "hour", "per hour": "hour", "per month": "month",
                "per instance-month": "month"}
    # C1 (instance only) rows, so a Q1 quote (which includes a 100 GiB system disk) does not
    # shadow the list price of the same type and region.
    c1_keys = {(r["instance_type"], r["region"], r["billing"]) for r in price_rows
               if r["source"] == "C1"}
    billing_map = {"payg": "payg", "spot": "spot", "pay_as_you_go": "payg",
                   "reserved_instance_no_upfront_hourly": "reserved_no_upfront",
                   "subscription_monthly": "subscription_month", "subscription_month": "subscription_month"}
    expanded = []
    for r in price_rows:
        # Q1 quotes name two regions ("cn-shanghai or cn-shenzhen"): one row per region.
        for region in r["region"].split(" or "):
            expanded.append(dict(r, region=region.strip()))
    for r in expanded:
        inst = r["instance_type"]
        if r["source"] == "Q1" and (inst, r["region"], r["billing"]) in c1_keys:
            dropped[inst + " Q1 (C1 list price exists)"] = dropped.get(inst + " Q1 (C1 list price exists)", 0) + 1
            continue
        if "promotion" in r["notes"]:  # a promotion is not a list price (prices.md 2.3)
            dropped[inst + " promotion"] = dropped.get(inst + " promotion", 0) + 1
            continue
        billing = billing_map.get(r["billing"])
        unit = unit_map.get(r["unit"])
        date = r["date_of_source"]
        if inst not in known or billing is None or unit is None or not re.match(r"^\d{4}-\d{2}", date):
            dropped[inst + " " + r["billing"]] = dropped.get(inst + " " + r["billing"], 0) + 1
            continue
        zone = ""
        m = re.search(r"zone ([a-z0-9-]+)", r["notes"])
        if billing == "spot" and m:
            zone = m.group(1)
        key = (inst, r["region"], zone, billing, r["source"])
        if key in seen:
            continue
        seen.add(key)
        w.writerow([inst, r["region"], zone, billing, r["currency"], r["price"], unit, date[:10],
                    r["source"], r["trust"], r["notes"]])
    open("data/prices.csv", "w").write(out.getvalue())
    print(f"prices.csv: {len(seen)} rows; dropped (type not in catalog or no usable date/billing): {len(dropped)} kinds")
    for k, v in sorted(dropped.items()):
        print("  dropped", k, v)


main()
