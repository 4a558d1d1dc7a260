"""``desktopapp detect`` (what this machine has) and ``desktopapp bench`` (what it delivers)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from desktopapp.commands.options import add_command, add_json_option, option_number
from desktopapp.commands.output import (
    Column,
    output_width,
    print_bullet,
    print_json,
    print_key_values,
    print_paragraph,
    print_table,
    wrap_text,
)
from desktopapp.model import units
from desktopapp.model.units import DASH, format_bytes, format_duration, plural


def _whole_number(text: str) -> int:
    value = option_number(text)
    if not value.is_integer():
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number")
    return int(value)


def register(subparsers: Any) -> None:
    detect = add_command(
        subparsers,
        "detect",
        "show CPU, RAM, GPUs and torch of this machine",
        "Detect the CPU (model, cores, ISA features, estimated peak), RAM, NVIDIA GPUs (through "
        "NVML) and what torch can use. Never fails: missing parts are listed under problems.",
        run_detect,
    )
    add_json_option(detect, "machine-readable output")
    detect.add_argument(
        "--no-torch", action="store_true", help="skip the torch part (faster: no torch import)"
    )

    bench = add_command(
        subparsers,
        "bench",
        "measure matmul TFLOP/s, bandwidth, mixed precision, batching on this machine",
        "Run benchmark suites on one device; progress goes to stderr, results to stdout, and "
        "the run is saved to the results database unless --no-save.",
        run_bench,
    )
    bench.add_argument("--quick", action="store_true", help="small sizes and budgets (~30 s)")
    bench.add_argument("--device", default="cpu", help="cpu, cuda, cuda:N or mps (default cpu)")
    bench.add_argument(
        "--suite",
        default=None,
        help="comma-separated names from: matmul, bandwidth, amp, batching, quantization, "
        "profile, memory "
        "(default: all but profile and memory; memory: real training steps of a small "
        "transformer, measured peak against the memory model); or allreduce alone: "
        "collectives over --nproc processes",
    )
    bench.add_argument(
        "--dtype",
        default=None,
        help="matmul dtypes, comma-separated: fp32,tf32,fp16,bf16,fp8 (default per device)",
    )
    bench.add_argument(
        "--max-size",
        type=_whole_number,
        default=None,
        help="largest matmul side N, 16-65536 (default: the whole sweep, which stops by itself "
        "where the next size would exceed the budget)",
    )
    bench.add_argument(
        "--budget-s",
        type=option_number,
        default=None,
        help="time budget per measurement step in seconds, 0.01-600 (default 2, or 0.4 with "
        "--quick)",
    )
    add_json_option(bench, "machine-readable output")
    bench.add_argument("--no-save", action="store_true", help="do not save to the results store")
    bench.add_argument("--notes", default="", help="free text stored with the run")
    bench.add_argument(
        "--nproc",
        type=_whole_number,
        default=None,
        help="--suite allreduce: local processes (ranks), default 2",
    )
    from desktopapp.commands.collective import add_subcommands

    add_subcommands(bench, subparsers._parser_class)


# --- detect ----------------------------------------------------------------------------------


def _clock_text(value: float | None) -> str:
    return f"{value:.2f} GHz" if value else DASH


def run_detect(args: argparse.Namespace) -> int:
    from desktopapp.devices.detect import detect_system

    report = detect_system(include_torch=not args.no_torch)
    if args.json:
        print_json(report.to_dict())
        return 0
    cpu = report.cpu
    topology = (
        f"{plural(cpu.sockets, 'socket')}, {plural(cpu.cores, 'core')}, "
        f"{plural(cpu.threads, 'thread')}"
    )
    if cpu.virtualized:
        topology += " (virtual machine)"
    caches = ", ".join(f"{c.label} {format_bytes(c.size_bytes)} ×{c.instances}" for c in cpu.caches)
    pairs: list[tuple[str, str]] = [
        ("CPU", f"{cpu.model} ({cpu.vendor}, {cpu.arch})"),
        ("", topology),
        (
            "Clock",
            f"base {_clock_text(cpu.base_clock_ghz)}, max {_clock_text(cpu.max_clock_ghz)}, "
            f"reported {_clock_text(cpu.reported_clock_ghz)}",
        ),
        ("ISA (ML)", " ".join(cpu.features) or DASH),
        ("Caches", caches or DASH),
    ]
    if cpu.peak is not None:
        pairs.append(("Peak FP32", f"estimate: {cpu.peak.formula}"))
        pairs.append(("", f"clock: {cpu.clock_assumption}"))
        pairs.extend(("", f"assumes {a}") for a in cpu.peak.assumptions[:2])
    else:
        pairs.append(("Peak FP32", "unknown (no clock could be read)"))
    mem = report.memory
    pairs.append(
        (
            "RAM",
            f"{format_bytes(mem.total_bytes)} total, {format_bytes(mem.available_bytes)} available"
            if mem.total_bytes
            else mem.reason,
        )
    )
    if not report.gpus:
        pairs.append(("GPUs", "none"))
    for gpu in report.gpus:
        where = f"{gpu.torch_device}" if gpu.torch_device else "not visible to torch"
        pcie = (
            f"PCIe gen {gpu.pcie_gen_current}/{gpu.pcie_gen_max} x{gpu.pcie_width_current}/"
            f"{gpu.pcie_width_max}"
            if gpu.pcie_gen_max
            else "PCIe —"
        )
        pairs.append(
            (
                f"GPU {gpu.index}",
                f"{gpu.name}, {format_bytes(gpu.memory_total_bytes)}, "
                f"CC {gpu.compute_capability or DASH}, {where}",
            )
        )
        pairs.append(
            (
                "",
                f"driver {gpu.driver_version or DASH} (CUDA {gpu.cuda_driver_version or DASH}), "
                f"power limit {gpu.power_limit_w or DASH} W, {pcie}, MIG {gpu.mig_mode}, "
                f"ECC {gpu.ecc_mode}",
            )
        )
        if gpu.catalog is not None:
            pairs.append(("", gpu.catalog.note))
    torch = report.torch
    if torch is None:
        pairs.append(("torch", "not probed (--no-torch)"))
    elif not torch.installed:
        pairs.append(("torch", torch.reason))
    else:
        accel = ", ".join(d.id for d in torch.devices) or "CPU only"
        pairs.append(
            (
                "torch",
                f"{torch.version} (CUDA {torch.cuda_version or DASH}, ROCm "
                f"{torch.hip_version or DASH}, cuDNN {torch.cudnn_version or DASH})",
            )
        )
        pairs.append(
            (
                "",
                f"devices: {accel}; threads {torch.num_threads}; BLAS {torch.blas or DASH}; "
                f"CPU kernels {torch.cpu_capability or DASH}",
            )
        )
    print_key_values(pairs)
    if report.problems:
        print("\nProblems:")
        for problem in report.problems:
            print_bullet(problem)
    return 0


# --- bench -----------------------------------------------------------------------------------


def _split(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    items = tuple(p.strip().lower() for p in text.split(",") if p.strip())
    return items or None


def _flops_text(tflops: float) -> str:
    """TFLOP/s, or GFLOP/s below 1 TFLOP/s (a CPU's "0.0004663 TFLOP/s" reads badly)."""
    if tflops < 1.0:
        return f"{units.format_plain(tflops * 1000, 4)} GFLOP/s"
    return f"{units.format_plain(tflops, 4)} TFLOP/s"


def _progress_line(event: Any) -> str:
    eta = ""
    if event.eta_s is not None and not event.done:
        eta = "ETA <1 s" if event.eta_s < 1 else f"ETA {format_duration(event.eta_s)}"
    return f"[{event.fraction * 100:3.0f}%] {eta:>12}  {event.message}"


def _run_interruptible(config: Any, on_event: Any, target: Any) -> Any:
    """Run the suites; the first Ctrl-C (or SIGTERM, e.g. from a job scheduler or `kill`)
    cancels like the GUI's Cancel button (what was measured is kept, marked cancelled); a
    second one aborts at once."""
    import signal
    import threading

    from desktopapp.devices.bench.core import CancelToken
    from desktopapp.devices.bench.runner import run_and_collect

    token = CancelToken()

    def on_interrupt(signum: int, frame: Any) -> None:
        if token.cancelled:
            raise KeyboardInterrupt
        token.cancel()
        why = "SIGTERM: " if signum == signal.SIGTERM else ""
        sys.stderr.write(
            f"\n{why}stopping after the current step; what was measured is kept "
            "(Ctrl-C again to abort)\n"
        )
        sys.stderr.flush()

    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, on_interrupt)
    try:
        return run_and_collect(config, token=token, on_event=on_event, target=target)
    finally:
        for sig_number, handler in previous.items():
            signal.signal(sig_number, handler)


def _save(run: Any, notes: str) -> tuple[int | None, str | None, str | None]:
    """(run id, where, None) when saved, else (None, None, why not: one line)."""
    import sqlite3

    from desktopapp.devices.results_store import ResultsStore, ResultsStoreError, save_bench_run

    try:
        store = ResultsStore()
        return save_bench_run(run, notes=notes, store=store), str(store.path), None
    except ResultsStoreError as exc:
        why = str(exc)
    except (OSError, sqlite3.Error) as exc:
        why = f"the results database cannot be written ({exc.__class__.__name__}: {exc})"
    first = (why.splitlines() or [""])[0]
    return None, None, first if len(first) <= 400 else first[:399] + "…"


def run_bench(args: argparse.Namespace) -> int:
    if (_split(args.suite) or ()) == ("allreduce",):
        from desktopapp.commands.collective import run_collective_bench

        return run_collective_bench(args)
    from desktopapp.devices.bench.runner import DEFAULT_SUITES, BenchConfig
    from desktopapp.devices.bench.target import resolve_device

    config = BenchConfig(
        device=args.device,
        suites=_split(args.suite) or DEFAULT_SUITES,
        dtypes=_split(args.dtype),
        max_size=args.max_size,
        budget_s=args.budget_s,
        quick=args.quick,
    )
    target = resolve_device(config.device)  # ValueError("device: …") → exit 2

    def on_event(event: Any) -> None:
        width = output_width(sys.stderr)
        for line in wrap_text(_progress_line(event), width, " " * 22, first=""):
            sys.stderr.write(line + "\n")
        if event.warning:
            for line in wrap_text(event.warning, width, " " * 14, first="        note: "):
                sys.stderr.write(line + "\n")
        sys.stderr.flush()

    run = _run_interruptible(config, on_event, target)
    run_id: int | None = None
    notes = list(run.warnings)
    saved_to: str | None = None
    if not args.no_save:
        run_id, saved_to, why = _save(run, args.notes)
        if why is not None:
            notes.append(f"not saved: {why}")
            sys.stderr.write(f"desktopapp bench: warning: not saved: {why}\n")
    if args.json:
        payload = run.to_dict()
        payload["notes"] = notes
        payload["run_id"] = run_id
        payload["saved_to"] = saved_to
        print_json(payload)
        return 0
    rows = []
    for r in run.results:
        if r.value is None:
            value = DASH
        elif r.metric == "TFLOP/s":
            value = _flops_text(r.value)
        else:
            value = f"{units.format_plain(r.value, 4)} {r.metric}"
        best = r.extra.get("tflops_best")
        pct = DASH if r.percent_of_peak is None else f"{r.percent_of_peak:.0f}%"
        rows.append(
            [
                r.suite,
                r.dtype,
                r.variant or DASH,
                r.size,
                value,
                DASH if best is None else _flops_text(best),
                format_duration(r.seconds),
                pct,
            ]
        )
    width = output_width()
    for line in wrap_text(
        f"{target.name} ({target.spec}); peaks: {target.peak_source or DASH}", width, "  "
    ):
        print(line)
    print_table(
        rows,
        headers=[
            Column("suite", whole=True),
            Column("dtype", whole=True),
            Column("variant", drop=1),
            Column("size", right=True),
            Column("result (median)"),
            Column("best repeat", drop=2),
            Column("time/op", drop=3),
            Column("% peak", drop=4),
        ],
    )
    for r in run.results:
        if r.suite == "memory" and r.extra.get("measured_bytes"):  # measured vs predicted
            print()
            print_paragraph(
                f"Memory of one training step, micro-batch {r.size} ({r.extra['method']}):"
            )
            from desktopapp.devices.bench.memory import memory_terms

            print_table(
                [
                    [term, format_bytes(v), format_bytes(p), f"{p / v:.2f}×" if v else DASH]
                    for term, v, p in memory_terms(r)
                ],
                headers=["term", "measured", "predicted", "predicted/measured"],
            )
    for r in run.results:
        if r.suite == "profile" and r.extra.get("operators"):
            print()
            print_paragraph(f"Top operators of one training step ({r.extra.get('sorted_by', '')}):")
            print_table(
                [
                    [op["name"], format_duration(op["self_seconds"]), f"{op['percent']:.1f}%"]
                    for op in r.extra["operators"]
                ],
                headers=["operator", "self time", "share"],
            )
    if notes:
        print("\nNotes:")
        for note in notes:
            print_bullet(note)
    if run.conditions is not None and not run.disturbed:  # a disturbed run is in the notes
        print()
        for line in wrap_text(run.conditions["summary"], width, "  ", first="Conditions: "):
            print(line)
    if run_id is not None:
        print(f"\nSaved as run #{run_id} in {saved_to}")
    if run.cancelled:
        print("\nCancelled: partial results.")
    return 0
