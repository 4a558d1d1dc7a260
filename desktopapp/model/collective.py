"""Reading measured collective bandwidth against the advertised link rate (pure logic).

- Inside one node the per-GPU wire rate is the scale-up link (NVLink, Infinity Fabric …) of
  ``model.interconnect``. An all-reduce busbw above it means the switch reduces in the network
  (NVLink SHARP / NVLS): each GPU then sends its data once instead of 2(n−1)/n times.
- Across nodes the ranks of a node share its NICs, so the rate each NIC carries is
  ``busbw × gpus_per_node / nics_per_node`` (one NIC per GPU on HGX/DGX systems, the default:
  NVIDIA DGX H100 user guide, 8 ConnectX-7 for 8 GPUs). An all-reduce busbw above the per-GPU
  NIC share means in-network reduction (InfiniBand SHARP).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from desktopapp.model.interconnect import bus_factor
from desktopapp.model.validation import InputError, require_int

GB = 1e9


@dataclass(frozen=True)
class CollectivePeak:
    """The highest busbw of one op over the size sweep (bytes/s) and where it was reached."""

    op: str
    busbw: float  # bytes/s
    nbytes: int


@dataclass(frozen=True)
class AdvertisedRate:
    """The per-GPU link rate a busbw is compared with (bytes/s, one direction)."""

    bytes_per_s: float
    name: str  # "NVLink 4", "scale-out NIC share"
    source: str


def peaks(rows: Iterable[tuple[str, int, float]]) -> tuple[CollectivePeak, ...]:
    """``(op, bytes, busbw bytes/s)`` rows → the best busbw of each op, in first-seen order."""
    best: dict[str, CollectivePeak] = {}
    for op, nbytes, busbw in rows:
        if not math.isfinite(busbw):
            continue
        if op not in best or busbw > best[op].busbw:
            best[op] = CollectivePeak(op, float(busbw), int(nbytes))
    return tuple(best.values())


def advertised_rate(accelerator: str, nodes: int) -> AdvertisedRate:
    """Scale-up link within a node, the GPU's NIC share across nodes (ValueError if unknown)."""
    from desktopapp.model.interconnect import interconnect_for

    require_int("nodes", nodes, minimum=1)
    link = interconnect_for(accelerator)
    if nodes == 1:
        return AdvertisedRate(
            link.scale_up_bandwidth, link.scale_up_name or "scale-up link", link.source
        )
    return AdvertisedRate(
        link.scale_out_bandwidth, link.scale_out_name or "NIC share per GPU", link.source
    )


def interpret(
    rows: Iterable[tuple[str, int, float]],
    *,
    nodes: int,
    gpus_per_node: int,
    nics_per_node: int | None = None,
    advertised: AdvertisedRate | None = None,
) -> tuple[str, ...]:
    """Plain-language lines about measured busbw (bytes/s) against the wire rate.

    In-network reduction can lift an all-reduce's busbw at most by its bus factor 2(n−1)/n
    (each GPU then sends its data once); a busbw above that is called implausible.
    """
    require_int("nodes", nodes, minimum=1)
    require_int("gpus_per_node", gpus_per_node, minimum=1)
    nics = gpus_per_node if nics_per_node is None else nics_per_node
    require_int("nics_per_node", nics, minimum=1)
    lines: list[str] = []
    for peak in peaks(rows):
        text = f"{peak.op}: best busbw {peak.busbw / GB:.2f} GB/s at {peak.nbytes} bytes"
        if advertised is not None:
            share = peak.busbw / advertised.bytes_per_s
            text += (
                f", {share * 100:.0f}% of the advertised {advertised.bytes_per_s / GB:.0f} GB/s "
                f"per GPU ({advertised.name})"
            )
            ranks = nodes * gpus_per_node
            most = 1.05 * float(bus_factor("all_reduce", ranks)) if ranks > 1 else 1.0
            if share > most:
                text += (
                    "; above what even in-network reduction allows: check the measurement "
                    "(ranks per node, message sizes)"
                )
            elif share > 1.0 and peak.op == "all_reduce":
                where = "NVLink SHARP (NVLS)" if nodes == 1 else "InfiniBand SHARP"
                text += (
                    f"; above the wire rate: the network reduces in the switch ({where}), "
                    "so each GPU sends its data about once instead of 2(n-1)/n times"
                )
            elif share > 1.0:
                text += "; above the wire rate, which this op cannot reach: check the setup"
        lines.append(text)
        if nodes > 1:
            per_nic = peak.busbw * gpus_per_node / nics
            lines.append(
                f"{peak.op}: per NIC {per_nic * 8 / GB:.0f} Gbit/s ({per_nic / GB:.2f} GB/s; "
                f"busbw × {gpus_per_node} GPUs / {nics} NICs per node)"
            )
    if advertised is None and lines:
        lines.append("no advertised link rate known for this device: bandwidths not compared")
    return tuple(lines)


# --- the collective results file (``bench import``) -------------------------------------------

# Limits of a results file: generous for any real sweep (4 ops × 26 sizes per run), far below
# what would take a long time or much disk to store.
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_ROWS = 10_000
MAX_DEPTH = 8  # document → results → row → value is 4 deep
MAX_NODES = 4096
MAX_GPUS_PER_NODE = 64
MAX_BYTES = 2**53  # exact in a float and in SQLite's INTEGER
MAX_SECONDS = 86_400.0 * 7
_MAX_TEXT = 500
_MAX_LIST = 4096
RESULT_OPS: tuple[str, ...] = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")


def _where(path: str, key: str | int) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else key)


def _depth(value: object, limit: int) -> int:
    """Nesting depth of parsed JSON (iterative: no recursion on hostile input)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if deepest > limit:
            return deepest
        if isinstance(item, dict):
            stack.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, level + 1) for v in item)
    return deepest


def _whole(where: str, value: object, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(where, f"must be a whole number, got {_shown(value)}")
    if not minimum <= value <= maximum:
        raise InputError(where, f"must be {minimum} to {maximum}, got {_shown(value)}")
    return value


def _positive_time(where: str, value: object, *, zero_ok: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(where, f"must be a number of seconds, got {_shown(value)}")
    number = float(value)
    low_ok = number >= 0 if zero_ok else number > 0
    if not (math.isfinite(number) and low_ok and number <= MAX_SECONDS):
        what = "0 or more" if zero_ok else "above 0"
        raise InputError(
            where, f"must be finite and {what} (at most {MAX_SECONDS:.0f} s), got {_shown(value)}"
        )
    return number


def _text(where: str, value: object, limit: int = _MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise InputError(where, f"must be text, got {_shown(value)}")
    if len(value) > limit:
        raise InputError(where, f"must be at most {limit} characters, got {len(value)}")
    if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in value):
        raise InputError(where, "must not hold control characters")
    return value


def _flag(where: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InputError(where, f"must be true or false, got {_shown(value)}")
    return value


def _shown(value: object) -> str:
    text = repr(value) if not isinstance(value, dict | list) else type(value).__name__
    return text if len(text) <= 40 else text[:39] + "…"


def _row(where: str, raw: object, ops: tuple[str, ...]) -> dict[str, object]:
    if not isinstance(raw, dict):
        raise InputError(where, f"must be an object, got {_shown(raw)}")
    for key in ("op", "bytes", "seconds", "world_size", "backend"):
        if key not in raw:
            raise InputError(_where(where, key), "is missing")
    op = _text(_where(where, "op"), raw["op"], 40)
    if op not in ops:
        raise InputError(_where(where, "op"), f"must be one of {', '.join(ops)}, got {op!r}")
    seconds = _positive_time(_where(where, "seconds"), raw["seconds"])
    row: dict[str, object] = {
        "op": op,
        "bytes": _whole(_where(where, "bytes"), raw["bytes"], 1, MAX_BYTES),
        "seconds": seconds,
        "min_seconds": _positive_time(
            _where(where, "min_seconds"), raw.get("min_seconds", seconds)
        ),
        "world_size": _whole(_where(where, "world_size"), raw["world_size"], 1, 1_000_000),
        "backend": _text(_where(where, "backend"), raw["backend"], 40),
        "iterations": _whole(_where(where, "iterations"), raw.get("iterations", 1), 1, 10**9),
    }
    if float(row["min_seconds"]) > seconds * (1 + 1e-9):  # type: ignore[arg-type]
        raise InputError(
            _where(where, "min_seconds"),
            f"must not exceed the median time {seconds!r} s, got {raw.get('min_seconds')!r}",
        )
    for key in ("algbw_gbs", "busbw_gbs"):  # recomputed from bytes and time; checked only
        if key in raw and raw[key] is not None:
            value = raw[key]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputError(_where(where, key), f"must be a number, got {_shown(value)}")
            if not (math.isfinite(float(value)) and value >= 0):
                raise InputError(_where(where, key), f"must be finite, got {_shown(value)}")
    return row


def validate_results_file(
    data: object, *, expected_format: str, ops: tuple[str, ...] = RESULT_OPS
) -> dict[str, object]:
    """The collective results file, every field checked (types, ranges, limits) before
    anything is stored; returns a clean copy holding only the fields the app reads.
    Raises :class:`InputError` naming the field (``results[3].bytes``) and what is allowed."""
    if _depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise InputError("file", f"nested deeper than {MAX_DEPTH} levels: not a results file")
    if not isinstance(data, dict) or data.get("format") != expected_format:
        raise InputError(
            "file", f'not a collective benchmark file (expected "format": "{expected_format}")'
        )
    rows = data.get("results")
    if not isinstance(rows, list):
        raise InputError("results", "the file has no list of results")
    if not rows:
        raise InputError("results", "the list is empty: nothing was measured, nothing to store")
    if len(rows) > MAX_ROWS:
        raise InputError("results", f"at most {MAX_ROWS:,} rows, got {len(rows):,}")
    out: dict[str, object] = {"format": expected_format}
    out["results"] = [_row(f"results[{i}]", r, ops) for i, r in enumerate(rows)]
    out["nodes"] = _whole("nodes", data.get("nodes", 1), 1, MAX_NODES)
    out["gpus_per_node"] = _whole(
        "gpus_per_node", data.get("gpus_per_node", 1), 1, MAX_GPUS_PER_NODE
    )
    out["world_size"] = _whole("world_size", data.get("world_size", 1), 1, 1_000_000)
    out["cancelled"] = _flag("cancelled", data.get("cancelled", False))
    out["seconds"] = _positive_time("seconds", data.get("seconds", 0.0), zero_ok=True)
    out["started"] = _text("started", data.get("started", ""), 64)
    out["backend"] = _text("backend", data.get("backend", ""), 40)
    out["device_name"] = _text("device_name", data.get("device_name", ""), 200)
    for key, limit in (("hosts", _MAX_LIST), ("notes", 200)):
        items = data.get(key) or []
        if not isinstance(items, list):
            raise InputError(key, f"must be a list of text, got {_shown(items)}")
        if len(items) > limit:
            raise InputError(key, f"at most {limit} entries, got {len(items)}")
        size = 2000 if key == "notes" else 255
        out[key] = [_text(f"{key}[{i}]", v, size) for i, v in enumerate(items)]
    versions = data.get("versions") or {}
    if not isinstance(versions, dict) or len(versions) > 64:
        raise InputError("versions", "must be an object of at most 64 entries")
    out["versions"] = {
        _text("versions", k, 64): (
            v if v is None or isinstance(v, bool | int | float) else _text(f"versions.{k}", v)
        )
        for k, v in versions.items()
    }
    out["config"] = _config(data.get("config") or {}, ops)
    return out


def _config(raw: object, ops: tuple[str, ...]) -> dict[str, object]:
    if not isinstance(raw, dict):
        raise InputError("config", f"must be an object, got {_shown(raw)}")
    config: dict[str, object] = {
        "device": _text("config.device", raw.get("device", "cpu"), 40),
        "nproc": _whole("config.nproc", raw.get("nproc", 1), 1, 1_000_000),
        "min_bytes": _whole("config.min_bytes", raw.get("min_bytes", 1024), 1, MAX_BYTES),
        "budget_s": _positive_time("config.budget_s", raw.get("budget_s", 4.0)),
        "warmup": _whole("config.warmup", raw.get("warmup", 2), 0, 10**6),
        "iters": _whole("config.iters", raw.get("iters", 5), 1, 10**6),
    }
    if raw.get("max_bytes") is not None:
        config["max_bytes"] = _whole("config.max_bytes", raw["max_bytes"], 1, MAX_BYTES)
    chosen = raw.get("ops") or list(ops)
    if not isinstance(chosen, list) or not all(isinstance(o, str) and o in ops for o in chosen):
        raise InputError("config.ops", f"must be a list of {', '.join(ops)}")
    config["ops"] = list(chosen)
    return config
