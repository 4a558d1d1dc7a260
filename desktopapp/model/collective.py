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
from desktopapp.model.validation import require_int

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
