"""Inputs of an opened workload that the Workload tab has no field for, kept and said (Qt-free).

A scenario file (hand-written, or from a later version of the app) may hold inputs the tab
cannot show: a device memory or peak override, the runtime overhead, micro-batches per step,
the serving compute share and bandwidth efficiency. Recomputing from the fields alone dropped
them, so the tab planned with other figures than ``estimate … --scenario`` for the same file,
and saving lost them. The tab keeps them (:func:`carried_from`), adds them to the inputs it
builds, and shows :func:`carried_note` until a preset replaces the workload or the user asks
for the defaults.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from desktopapp.model import units

# (section, field) with no Workload-tab field → how the note names it (the CLI's option)
_WORDS: Mapping[tuple[str, str], str] = {
    ("training", "peak_tflops"): "training peak {v:g} TFLOP/s per device (--peak-tflops)",
    ("memory", "memory_gb"): "device memory {v:g} GB (--memory-gb)",
    ("memory", "overhead_gib"): "runtime overhead {v:g} GiB per device (--overhead-gib)",
    ("memory", "micro_batches"): "{v:g} micro-batches per step in memory (--micro-batches)",
    ("inference", "peak_tflops"): "serving peak {v:g} TFLOP/s per device (--peak-tflops)",
    ("inference", "bandwidth_gbs"): "serving memory bandwidth {v:g} GB/s (--bandwidth-gbs)",
    ("inference", "utilization"): "serving compute share {p} (--utilization)",
    (
        "inference",
        "bandwidth_efficiency",
    ): "serving bandwidth efficiency {p} (--bandwidth-efficiency)",
}

# section → its fields with no Workload-tab field, in the note's order
CARRIED_FIELDS: Mapping[str, tuple[str, ...]] = {
    section: tuple(name for sec, name in _WORDS if sec == section)
    for section in dict.fromkeys(sec for sec, _name in _WORDS)
}


def carried_from(section: str, inputs: Any) -> dict[str, Any]:
    """The fields of ``inputs`` (a dataclass of ``section``) with no tab field whose value is
    not the dataclass default."""
    if inputs is None:
        return {}
    defaults = {f.name: f.default for f in dataclasses.fields(inputs)}
    out: dict[str, Any] = {}
    for name in CARRIED_FIELDS.get(section, ()):
        value = getattr(inputs, name, None)
        if value is not None and value != defaults.get(name):
            out[name] = value
    return out


def carried_note(carried: Mapping[str, Mapping[str, Any]]) -> str:
    """One sentence naming what is kept ("" when nothing is)."""
    parts = [
        _WORDS[(section, name)].format(v=value, p=units.format_percent(value, 0))
        for section in CARRIED_FIELDS
        for name, value in carried.get(section, {}).items()
    ]
    if not parts:
        return ""
    return (
        "Kept from the opened file, with no field in this tab: "
        + "; ".join(parts)
        + ". They are used here as in the command line."
    )
