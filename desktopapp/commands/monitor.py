"""``desktopapp monitor``: live CPU, memory and GPU readings from the command line.

- ``monitor --once [--json]``: one sample (CPU % needs two readings: the sampler primes its
  counters, waits ``ONCE_INTERVAL_S`` and samples).
- ``monitor --interval 1 --duration 10 [--csv out.csv] [--quiet] [--json] [--record]``: a line
  per sample (unless ``--quiet`` or ``--json``), then a summary: mean/min/max per channel, the
  diagnosis verdicts and, with GPUs, the idle cost. Without ``--duration`` it runs until Ctrl-C;
  Ctrl-C always stops cleanly and keeps what was recorded. The CSV is streamed to
  ``<file>.part`` and renamed at the end; ``--record`` also stores the session in
  ``monitor.sqlite3``.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import signal
import sys
import threading
import time
from datetime import datetime
from typing import Any, TextIO

from desktopapp.commands.options import (
    add_command,
    add_json_option,
    option_money,
    option_number,
)
from desktopapp.model import units
from desktopapp.model.units import (
    DASH,
    format_bytes,
    format_duration,
    format_money,
)
from desktopapp.model.validation import require_positive, require_range

MIN_INTERVAL_S = 0.05
MAX_INTERVAL_S = 3600.0
ONCE_INTERVAL_S = 0.3
# Longest --duration: a year of samples (a bound that keeps every figure finite; longer
# monitoring runs until Ctrl-C without --duration).
MAX_DURATION_S = 366 * 86400.0


# Channels shown in the text summary (the JSON summary has all of them).
_SUMMARY_CHANNELS = (
    "cpu.percent",
    "cpu.max_core",
    "mem.percent",
    "swap.in",
    "swap.out",
    "disk.read",
    "disk.write",
    "net.rx",
    "net.tx",
)
_GPU_SUMMARY_SUFFIXES = ("util", "mem.percent", "power", "temp", "sm_clock")


def register(subparsers: Any) -> None:
    p = add_command(
        subparsers,
        "monitor",
        "sample CPU, memory and GPU use live; diagnose bottlenecks",
        "Sample CPU, memory, disk, network and NVIDIA GPUs (NVML). Prints a line per sample, "
        "then a summary with a bottleneck diagnosis.",
        run,
    )
    p.add_argument("--once", action="store_true", help="take one sample and exit")
    add_json_option(p, "JSON output (sample, or run summary)")
    p.add_argument(
        "--interval",
        type=option_number,
        default=1.0,
        metavar="SECONDS",
        help=f"seconds between samples ({MIN_INTERVAL_S:g} to {MAX_INTERVAL_S:g}; default 1)",
    )
    p.add_argument(
        "--duration",
        type=option_number,
        default=None,
        metavar="SECONDS",
        help=f"stop after this long, up to {MAX_DURATION_S:g} s = 1 year "
        "(default: run until Ctrl-C)",
    )
    p.add_argument("--csv", default=None, metavar="FILE", help="write samples to CSV")
    p.add_argument("--quiet", action="store_true", help="no line per sample")
    p.add_argument(
        "--no-processes", action="store_true", help="do not list the processes on the GPUs"
    )
    p.add_argument(
        "--record", action="store_true", help="also store the session in monitor.sqlite3"
    )
    p.add_argument("--label", default="", help="label of the recorded session")
    p.add_argument(
        "--serve-metrics",
        default=None,
        metavar="HOST:PORT",
        help="serve this machine's samples in the Prometheus text format at "
        "http://HOST:PORT/metrics (desktopapp_ prefix) until Ctrl-C or --duration; HOST "
        "defaults to 127.0.0.1",
    )
    p.add_argument(
        "--price-per-gpu-hour",
        type=option_money,
        default=None,
        metavar="USD",
        help="price of one GPU-hour for the idle cost (default 2.00)",
    )


def run(args: argparse.Namespace) -> int:
    interval = require_range("interval", args.interval, MIN_INTERVAL_S, MAX_INTERVAL_S)
    duration = None if args.duration is None else require_positive("duration", args.duration)
    if duration is not None and duration > MAX_DURATION_S:
        raise ValueError(
            f"duration: must be at most {MAX_DURATION_S:g} s (a year); leave it out to run "
            "until Ctrl-C"
        )
    from desktopapp.model.idle_cost import IdleCostConfig

    idle_config = (
        IdleCostConfig()
        if args.price_per_gpu_hour is None
        else IdleCostConfig(price_per_gpu_hour=args.price_per_gpu_hour)
    )
    from desktopapp.devices.sampler import RealSampler

    if args.serve_metrics is not None:
        _refuse_with_serve_metrics(args)
        return _serve_metrics(args.serve_metrics, duration, as_json=args.json)
    sampler = RealSampler(include_processes=not args.no_processes, prime=True)
    if args.once:
        return _once(sampler, args)
    return _loop(sampler, args, interval, duration, idle_config)


def _refuse_with_serve_metrics(args: argparse.Namespace) -> None:
    """--serve-metrics answers scrapes until Ctrl-C or --duration: --once, --record and --csv
    have no meaning with it and are refused (named), not ignored."""
    from desktopapp.devices.exporter import parse_address

    parse_address(args.serve_metrics)  # a bad address first: it names --serve-metrics
    given = [
        name
        for name, on in (
            ("--once", args.once),
            ("--record", args.record),
            ("--csv", args.csv is not None),
        )
        if on
    ]
    if given:
        raise ValueError(
            f"serve_metrics: cannot be combined with {' or '.join(given)} (it serves samples "
            "to scrapers until Ctrl-C or --duration); run those without --serve-metrics"
        )


def _serve_metrics(address: str, duration: float | None, as_json: bool = False) -> int:
    """Serve /metrics until Ctrl-C, SIGTERM or ``duration``; each scrape takes a sample."""
    from desktopapp.devices.exporter import parse_address, serve
    from desktopapp.devices.sampler import RealSampler

    host, _ = parse_address(address)
    sampler = RealSampler(include_processes=False, prime=True)
    try:
        server, _thread, port = serve(sampler, address)
    except OSError as exc:
        sampler.close()
        sys.stderr.write(f"desktopapp monitor: error: cannot serve on {address} ({exc})\n")
        return 1
    url = f"http://{host}:{port}/metrics"
    if as_json:
        from desktopapp.commands.output import print_json

        print_json({"metrics_url": url})
        sys.stdout.flush()
    else:
        print(f"serving {url} (Ctrl-C to stop)", flush=True)
    previous = _install_sigterm()
    end = None if duration is None else time.monotonic() + duration
    try:
        while end is None or time.monotonic() < end:
            time.sleep(0.2)
    except (KeyboardInterrupt, _Terminated):
        pass
    finally:
        _restore_sigterm(previous)
        server.shutdown()
        server.server_close()
        sampler.close()
    return 0


def _once(sampler: Any, args: argparse.Namespace) -> int:
    from desktopapp.commands.output import print_json
    from desktopapp.devices.session_store import CsvSampleWriter, check_csv_target

    try:
        if args.csv is not None:
            check_csv_target(args.csv)  # a bad --csv is refused before measuring (exit 2)
        time.sleep(ONCE_INTERVAL_S)
        sample = sampler.sample()
    finally:
        sampler.close()
    if args.json:  # the sample is printed first: a CSV problem cannot lose it
        print_json(sample.to_dict())
    else:
        _print_sample_details(sample, sys.stdout)
    if args.csv is not None:
        try:
            with CsvSampleWriter(args.csv, sample.channel_specs()) as writer:
                writer.write(sample.timestamp, sample.channels())
        except (OSError, ValueError) as exc:
            sys.stderr.write(f"desktopapp monitor: error: {_one_line(exc)}\n")
            return EXIT_FAILURE
        if not args.json:  # where the row went, as a run's summary says it
            sys.stdout.write(f"\nCSV written to {writer.path} (1 row)\n")
    return 0


EXIT_FAILURE = 1
EXIT_USAGE = 2


class _Terminated(Exception):
    """SIGTERM while monitoring: stop like Ctrl-C, keeping everything measured."""


def _on_sigterm(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the cleanup
    raise _Terminated


def _one_line(exc: BaseException, limit: int = 400) -> str:
    text = (str(exc).splitlines() or [type(exc).__name__])[0]
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _GuardedSink:
    """Passes samples to the session recorder; a database failure (disk full, file removed)
    stops recording with one warning instead of ending the monitor run."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        self.error: str | None = None

    def add(self, sample: Any) -> None:
        if self.error is not None:
            return
        try:
            self.recorder.add(sample)
        except (ValueError, OSError) as exc:
            self.error = _one_line(exc)
            sys.stderr.write(f"desktopapp monitor: warning: recording stopped: {self.error}\n")


def _open_recording(args: argparse.Namespace, interval: float) -> tuple[Any, Any]:
    """The session store and recorder for --record; ValueError names --record."""
    from desktopapp.devices.session_store import SessionStore, SessionStoreError

    try:
        store = SessionStore()
    except SessionStoreError as exc:
        raise ValueError(f"record: {_one_line(exc)}") from None
    try:
        recorder = store.start_session(args.label, meta={"interval_s": interval, "source": "cli"})
    except SessionStoreError as exc:
        store.close()
        raise ValueError(f"record: {_one_line(exc)}") from None
    return store, recorder


def _loop(
    sampler: Any,
    args: argparse.Namespace,
    interval: float,
    duration: float | None,
    idle_config: Any,
) -> int:
    from desktopapp.devices.sampler import MonitorSession
    from desktopapp.devices.session_store import CsvSampleWriter, CsvWriteError, check_csv_target

    try:
        if args.csv is not None:
            check_csv_target(args.csv)  # refused before anything is measured (exit 2)
        store, recorder = _open_recording(args, interval) if args.record else (None, None)
    except BaseException:
        sampler.close()
        raise
    sink = _GuardedSink(recorder) if recorder is not None else None
    session = MonitorSession(sampler, rate_hz=1.0 / interval, idle_config=idle_config, sink=sink)
    writer: CsvSampleWriter | None = None
    errors: list[str] = []
    csv_failed = False
    live = not (args.quiet or args.json)
    problems_seen: list[str] = []
    last_problems: tuple[str, ...] = ()
    interrupted = False
    stopped_by: str | None = None
    previous_term = _install_sigterm()
    start = time.monotonic()
    next_at = start
    try:
        while True:
            next_at += interval
            _sleep_until(next_at)
            update = session.tick()
            sample = update.sample
            if args.csv is not None and not csv_failed:
                try:
                    if writer is None:
                        writer = CsvSampleWriter(args.csv, sample.channel_specs())
                    writer.write(sample.timestamp, sample.channels())
                except (CsvWriteError, OSError, ValueError) as exc:
                    csv_failed = True
                    errors.append(_one_line(exc))
                    sys.stderr.write(f"desktopapp monitor: warning: {errors[-1]}\n")
            for text in sample.problems:
                if text not in problems_seen and len(problems_seen) < 100:
                    problems_seen.append(text)
            if live:
                if sample.problems != last_problems:
                    for text in sample.problems:
                        if text not in last_problems:
                            sys.stderr.write(f"note: {text}\n")
                print(_live_line(sample), flush=True)
            last_problems = sample.problems
            if duration is not None and time.monotonic() - start >= duration - 1e-3:
                break
            if time.monotonic() > next_at + interval:  # fell behind: do not burst
                next_at = time.monotonic()
    except KeyboardInterrupt:
        interrupted, stopped_by = True, "SIGINT"
    except _Terminated:
        interrupted, stopped_by = True, "SIGTERM"
    finally:
        session.close()
        if writer is not None and writer.error is None:
            try:
                writer.close()
            except (CsvWriteError, OSError) as exc:
                errors.append(_one_line(exc))
        if recorder is not None:
            try:
                recorder.finish()
            except (ValueError, OSError) as exc:
                errors.append(f"record: {_one_line(exc)}")
        if store is not None:
            store.close()
        _restore_sigterm(previous_term)
    if sink is not None and sink.error is not None:
        errors.insert(0, f"record: recording stopped: {sink.error}")
    summary = _summary(session, interval, interrupted, writer, recorder, problems_seen)
    summary["stopped_by"] = stopped_by
    summary["errors"] = errors
    if args.json:
        from desktopapp.commands.output import print_json

        print_json(summary)
    elif not args.quiet:
        _print_summary(summary, sys.stdout)
    for text in errors:
        sys.stderr.write(f"desktopapp monitor: warning: {text}\n")
    return EXIT_FAILURE if errors else 0


def _install_sigterm() -> Any:
    """SIGTERM ends the run the way Ctrl-C does (main thread only; elsewhere left alone)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        return signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):
        return None


def _restore_sigterm(previous: Any) -> None:
    if previous is None:
        return
    with contextlib.suppress(ValueError, OSError, TypeError):
        signal.signal(signal.SIGTERM, previous)


def _sleep_until(deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)


# --- text output ---------------------------------------------------------------------------


def _pct(value: float) -> str:
    return f"{value:3.0f}%" if math.isfinite(value) else f"  {DASH} "


def _live_line(sample: Any) -> str:
    clock = datetime.fromtimestamp(sample.timestamp).strftime("%H:%M:%S")
    cpu, mem = sample.cpu, sample.memory
    parts = [
        clock,
        f"CPU {_pct(cpu.percent)} (max core {_pct(cpu.max_core_percent).strip()})",
        f"RAM {_pct(mem.percent)}",
    ]
    if math.isfinite(mem.swap_in_bytes_s + mem.swap_out_bytes_s) and (
        mem.swap_in_bytes_s + mem.swap_out_bytes_s > 0
    ):
        parts.append(f"swap {format_bytes(mem.swap_in_bytes_s + mem.swap_out_bytes_s)}/s")
    for g in sample.gpus:
        if not g.available:
            parts.append(f"GPU{g.index} lost")
            continue
        text = (
            f"GPU{g.index} {_pct(g.util_percent)} "
            f"{format_bytes(g.memory_used_bytes)}/{format_bytes(g.memory_total_bytes)}"
        )
        if math.isfinite(g.power_w):
            text += f" {g.power_w:.0f} W"
        if math.isfinite(g.temperature_c):
            text += f" {g.temperature_c:.0f} °C"
        slow = [r for r in g.throttle_reasons if r != "idle"]
        if slow:
            text += f" [{', '.join(slow)}]"
        parts.append(text)
    return "  ".join(parts)


def _print_sample_details(sample: Any, out: TextIO) -> None:
    from desktopapp.commands.output import print_bullet, print_key_values, print_table

    cpu, mem, io = sample.cpu, sample.memory, sample.io
    load = ", ".join(f"{v:.2f}" for v in cpu.load_avg) if math.isfinite(cpu.load_avg[0]) else DASH
    rows = [
        ("CPU", f"{_pct(cpu.percent).strip()} of {cpu.count} logical cores"),
        ("per core", " ".join(_pct(v).strip() for v in cpu.per_core)),
        ("load average", load),
        (
            "RAM",
            f"{format_bytes(mem.used_bytes)} of {format_bytes(mem.total_bytes)} "
            f"({_pct(mem.percent).strip()})",
        ),
        (
            "swap",
            f"{format_bytes(mem.swap_used_bytes)} of {format_bytes(mem.swap_total_bytes)}",
        ),
        (
            "disk read / write",
            f"{format_bytes(io.disk_read_bytes_s)}/s / {format_bytes(io.disk_write_bytes_s)}/s",
        ),
        (
            "network rx / tx",
            f"{format_bytes(io.net_rx_bytes_s)}/s / {format_bytes(io.net_tx_bytes_s)}/s",
        ),
    ]
    print_key_values(rows, stream=out)
    for g in sample.gpus:
        out.write(f"\nGPU {g.index}: {g.name}{'' if g.available else ' (lost)'}\n")
        if not g.available:
            continue
        gpu_rows = [
            (
                "utilization",
                f"{_pct(g.util_percent).strip()} (memory {_pct(g.memory_util_percent).strip()})",
            ),
            (
                "memory",
                f"{format_bytes(g.memory_used_bytes)} of {format_bytes(g.memory_total_bytes)}",
            ),
            ("power", f"{_num(g.power_w, 'W')} of {_num(g.power_limit_w, 'W')}"),
            ("energy counter", _num(g.energy_j / 3.6e6, "kWh", 3)),
            (
                "temperature",
                f"{_num(g.temperature_c, '°C')} "
                f"(slowdown at {_num(g.temperature_slowdown_c, '°C')})",
            ),
            (
                "clocks SM / memory",
                f"{_num(g.sm_clock_mhz, 'MHz')} / {_num(g.memory_clock_mhz, 'MHz')}",
            ),
            ("clock reasons", ", ".join(g.throttle_reasons) or "none"),
            ("PCIe rx / tx", f"{_num(g.pcie_rx_mb_s, 'MB/s')} / {_num(g.pcie_tx_mb_s, 'MB/s')}"),
            ("fan", _num(g.fan_percent, "%")),
        ]
        print_key_values(gpu_rows, stream=out)
        if g.processes:
            print_table(
                [
                    (
                        p.pid,
                        p.user or DASH,
                        format_bytes(p.used_memory_bytes),
                        _num(p.cpu_percent, "%"),
                        format_bytes(p.rss_bytes),
                        (p.command or p.name or p.note)[:60],
                    )
                    for p in g.processes
                ],
                headers=("PID", "user", "GPU memory", "CPU", "RSS", "command"),
                stream=out,
            )
    if sample.problems:
        out.write("\n")
        for text in sample.problems:
            print_bullet(text, "note: ", out)


def _num(value: float, unit: str, digits: int = 0) -> str:
    return f"{value:.{digits}f} {unit}" if math.isfinite(value) else DASH


def _summary(
    session: Any,
    interval: float,
    interrupted: bool,
    writer: Any,
    recorder: Any,
    problems: list[str],
) -> dict[str, Any]:
    from desktopapp.devices.sampler import channel_unit

    last = session.last
    gpus = last.sample.gpus if last is not None else ()
    summary: dict[str, Any] = {
        "samples": session.samples_taken,
        "duration_s": session.duration_s,
        "interval_s": interval,
        "interrupted": interrupted,
        "csv": str(writer.path if writer.error is None else writer.error.path)
        if writer is not None
        else None,
        "csv_rows": writer.rows if writer is not None else None,
        "session_id": recorder.session_id if recorder is not None else None,
        "channels": {
            name: {"unit": channel_unit(name), **stats.to_dict()}
            for name, stats in session.stats.summary().items()
        },
        "diagnosis": [v.to_dict() for v in last.diagnosis.verdicts] if last else [],
        "problems": problems,
    }
    if gpus and last is not None:
        summary["idle_cost"] = last.idle.to_dict()
    return summary


def _print_summary(summary: dict[str, Any], out: TextIO) -> None:
    from desktopapp.commands.output import print_table

    count = units.plural(summary["samples"], "sample")
    if summary["samples"] > 1:  # one sample spans no time
        count += f" over {format_duration(summary['duration_s'])}"
    out.write(f"\n{count}{' (interrupted)' if summary['interrupted'] else ''}\n")
    channels = summary["channels"]
    names = [n for n in _SUMMARY_CHANNELS if n in channels]
    names += [
        n for n in channels if n.startswith("gpu") and n.partition(".")[2] in _GPU_SUMMARY_SUFFIXES
    ]
    rows = []
    for name in names:
        st = channels[name]
        unit = st["unit"]
        rows.append((name, _fmt(st["mean"], unit), _fmt(st["min"], unit), _fmt(st["max"], unit)))
    if rows:
        print_table(rows, headers=("channel", "mean", "min", "max"), stream=out)
    for verdict in summary["diagnosis"]:
        out.write(f"\n[{verdict['severity']}] {verdict['title']}\n")
        out.write(f"  {verdict['evidence']}\n  → {verdict['advice']}\n")
    idle = summary.get("idle_cost")
    if idle:
        out.write(
            f"\nidle GPU time {format_duration(idle['idle_gpu_hours'] * 3600)} "
            f"costing {format_money(idle['idle_cost_usd'])}; at this idle fraction the "
            f"waste is {format_money(idle['projected_monthly_waste_usd'])} per month\n"
        )
    if summary["csv"]:
        rows_written = units.plural(summary["csv_rows"] or 0, "row")
        out.write(f"\nCSV written to {summary['csv']} ({rows_written})\n")
    if summary["session_id"] is not None:
        out.write(f"session {summary['session_id']} recorded in monitor.sqlite3\n")


def _fmt(value: float, unit: str) -> str:
    if not isinstance(value, int | float) or not math.isfinite(value):
        return DASH
    if unit == "B":
        return format_bytes(value)
    if unit == "B/s":
        return f"{format_bytes(value)}/s"
    if unit == "%":
        return f"{value:.1f}%"
    return f"{units.format_plain(value, 4)} {unit}".rstrip()
