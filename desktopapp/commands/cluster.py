"""``desktopapp cluster``: a fleet's GPUs and hosts from a Prometheus server.

``--once`` reads once; without it the view refreshes every ``--interval`` seconds until Ctrl-C.
Prometheus problems (unreachable, auth refused) are one line on stderr: with ``--once`` an
error with exit status 1; while watching, a line saying when it tries again.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

from desktopapp.commands.options import add_command, add_json_option, option_money
from desktopapp.commands.output import print_json, print_table
from desktopapp.model.units import DASH, format_bytes


def register(subparsers: Any) -> None:
    p = add_command(
        subparsers,
        "cluster",
        "fleet GPU use, idle cost and problems from Prometheus (DCGM-exporter, node-exporter)",
        "Read DCGM-exporter and node-exporter metrics through a Prometheus server's HTTP API: "
        "per-GPU utilization, memory and power, busy/idle/unreachable counts, the idle cost and "
        "a diagnosis per node and job.",
        run,
    )
    p.add_argument("--prometheus", required=True, metavar="URL", help="e.g. http://prom:9090")
    p.add_argument("--token-file", default=None, metavar="FILE", help="bearer token file")
    p.add_argument("--once", action="store_true", help="read once and exit")
    p.add_argument("--interval", type=float, default=15.0, help="refresh seconds (default 15)")
    p.add_argument(
        "--price-per-gpu-hour",
        type=option_money,
        default=2.0,
        metavar="USD",
        help="price of one GPU-hour for the idle cost (default 2.00, as `monitor`)",
    )
    p.add_argument(
        "--idle-below", type=float, default=5.0, help="a GPU is idle below this %% (default 5)"
    )
    p.add_argument(
        "--timeout-s",
        type=float,
        default=5.0,
        help="time limit for one read of the cluster, every query included (default 5 s)",
    )
    add_json_option(p, "machine-readable output")


IMPLAUSIBLE = "implausible"


def _fmt(value: float, unit: str, digits: int = 0, odd: bool = False) -> str:
    if odd:
        return IMPLAUSIBLE
    return f"{value:.{digits}f} {unit}" if math.isfinite(value) else DASH


def _print(snapshot: Any) -> None:
    fleet = snapshot.fleet
    print(
        f"{snapshot.url}: {fleet.busy} busy, {fleet.idle} idle, {fleet.unreachable} unreachable "
        + (f"and {fleet.implausible} implausible " if fleet.implausible else "")
        + f"GPUs; idle cost {fleet.idle_cost_per_hour:.2f}/h, "
        f"{fleet.idle_cost_per_month:,.0f}/month at {fleet.price_per_gpu_hour:.2f} per GPU-hour"
    )
    if snapshot.gpus:
        print(f"utilization from {snapshot.metric_source}")
        print_table(
            [
                [
                    g.node,
                    g.gpu,
                    _fmt(g.util, "%", odd="util" in g.implausible),
                    IMPLAUSIBLE
                    if "memory_used_bytes" in g.implausible
                    else format_bytes(g.memory_used_bytes)
                    if math.isfinite(g.memory_used_bytes)
                    else DASH,
                    _fmt(g.power_w, "W", odd="power_w" in g.implausible),
                    _fmt(g.temperature_c, "°C", odd="temperature_c" in g.implausible),
                    g.pod or g.job or DASH,
                ]
                for g in snapshot.gpus
            ],
            headers=["node", "gpu", "util", "memory", "power", "temp", "pod/job"],
        )
    if snapshot.nodes:
        print_table(
            [
                [
                    n.node,
                    _fmt(n.cpu_percent, "%"),
                    format_bytes(n.memory_used_bytes)
                    if math.isfinite(n.memory_used_bytes)
                    else DASH,
                    _fmt(n.network_rx_bytes_s / 1e6, "MB/s", 2),
                    n.source or DASH,
                ]
                for n in snapshot.nodes
            ],
            headers=["node", "cpu", "memory used", "net rx", "source"],
        )
    for line in snapshot.findings:
        print(f"  - {line}")
    for line in snapshot.problems:
        print(f"  problem: {line}")


def run(args: argparse.Namespace) -> int:
    from desktopapp.devices.cluster import ClusterError, PrometheusClient, collect, read_token_file
    from desktopapp.model.validation import require_range

    require_range("interval", args.interval, 1.0, 86400.0)
    require_range("timeout_s", args.timeout_s, 0.1, 600.0)
    require_range("price_per_gpu_hour", args.price_per_gpu_hour, 0.0, 1000.0)
    require_range("idle_below", args.idle_below, 0.0, 100.0)
    token = read_token_file(args.token_file) if args.token_file else None
    client = PrometheusClient(args.prometheus, token, args.timeout_s)
    while True:
        try:
            snapshot = collect(
                client,
                price_per_gpu_hour=args.price_per_gpu_hour,
                idle_below_percent=args.idle_below,
            )
        except ClusterError as exc:
            if args.once:
                sys.stderr.write(f"desktopapp cluster: error: {exc}\n")
                return 1
            # watching: say that it goes on, rather than an error that looks final
            sys.stderr.write(
                f"desktopapp cluster: {exc}; trying again in {args.interval:g} s (Ctrl-C stops)\n"
            )
            sys.stderr.flush()
            snapshot = None
        if snapshot is not None:
            if args.json:
                print_json(snapshot.to_dict())
            else:
                _print(snapshot)
        if args.once:
            return 0
        sys.stdout.flush()
        time.sleep(args.interval)
