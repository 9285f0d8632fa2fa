"""Results as rows for pandas: ``pandas.DataFrame(gpuplan.to_records(result))``."""


def _flatten(value, prefix, row):
    if isinstance(value, dict):
        for key, v in value.items():
            _flatten(v, f"{prefix}.{key}" if prefix else key, row)
    else:
        row[prefix] = value


def flatten(record):
    """One dict with nested dicts' keys joined by dots: {"cost": {"total": 1}} -> {"cost.total": 1}.
    Lists stay values."""
    row = {}
    _flatten(record, "", row)
    return row


def to_records(result):
    """A list of flat dicts, one per row of ``result``: per candidate of a plan or an explain
    (``result["candidates"]``), per entry of a catalog list, or the one estimate."""
    if isinstance(result, list):
        rows = result
    elif isinstance(result, dict) and isinstance(result.get("candidates"), list):
        rows = result["candidates"]
    elif isinstance(result, dict):
        rows = [result]
    else:
        raise TypeError(f"to_records: expected a gpuplan result (dict or list), got "
                        f"{type(result).__name__}")
    return [flatten(r) if isinstance(r, dict) else {"value": r} for r in rows]
