"""``desktopapp bench --suite allreduce``, ``bench cluster-command`` and ``bench import``.

The parser pieces are added to ``bench`` by ``commands.devices``; the handlers live here.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from desktopapp.commands.output import print_bullet, print_json, print_table
from desktopapp.model.units import format_duration, plural

MODULE = "desktopapp.devices.bench.collective"


def add_subcommands(bench: argparse.ArgumentParser, parser_class: Any) -> None:
    """``bench cluster-command`` and ``bench import`` (``bench`` alone runs suites)."""
    from desktopapp.commands.options import add_json_option

    subs = bench.add_subparsers(dest="bench_action", metavar="ACTION", parser_class=parser_class)
    cmd = subs.add_parser(
        "cluster-command",
        help="print torchrun or srun/sbatch lines running the collective benchmark on a cluster",
        description="Print the exact command lines that run the collective benchmark module "
        "across nodes; rank 0 writes JSON that `desktopapp bench import FILE` stores.",
    )
    cmd.add_argument("--nodes", type=int, required=True, help="number of nodes, 1-4096")
    cmd.add_argument("--gpus-per-node", type=int, required=True, help="GPUs per node, 1-64")
    cmd.add_argument("--scheduler", choices=("torchrun", "slurm"), default="torchrun")
    cmd.add_argument("--output", default="allreduce-results.json", help="JSON file rank 0 writes")
    cmd.add_argument("--port", type=int, default=29500, help="rendezvous port (default 29500)")
    cmd.add_argument("--budget-s", type=float, default=60.0, help="sweep time budget, seconds")
    cmd.set_defaults(handler=run_cluster_command)
    imp = subs.add_parser(
        "import",
        help="store a collective benchmark JSON written on a cluster",
        description="Store the JSON written by the collective benchmark module like a local run.",
    )
    imp.add_argument("file", help="JSON file written by rank 0")
    imp.add_argument("--accelerator", default=None, help="catalog id for the advertised rate")
    imp.add_argument("--notes", default="", help="free text stored with the run")
    add_json_option(imp, "machine-readable output")
    imp.set_defaults(handler=run_import)


# --- cluster-command ---------------------------------------------------------------------------


def _control_characters(text: str) -> bool:
    """C0/C1 control characters and the Unicode line and paragraph separators."""
    return any(ord(ch) < 32 or 127 <= ord(ch) < 160 or ch in "\u2028\u2029\ufeff" for ch in text)


def safe_output_path(output: str) -> str:
    """The --output path as the printed commands use it: refused when empty or holding control
    characters (a newline would end a comment line or a command); a path starting with ``-``
    gets ``./`` so no program reads it as an option."""
    from desktopapp.model.validation import InputError

    if not output or not output.strip():
        raise InputError("output", "must name the JSON file rank 0 writes, got an empty path")
    if _control_characters(output):
        raise InputError(
            "output", "must not hold control characters (newline, tab, escape …) in the path"
        )
    if len(output) > 4096:
        raise InputError("output", f"must be at most 4096 characters, got {len(output)}")
    return f"./{output}" if output.startswith("-") else output


def cluster_command_lines(
    nodes: int, gpus_per_node: int, scheduler: str, output: str, port: int, budget_s: float
) -> list[str]:
    """The printed lines. Safe by construction: every interpolated value is a checked whole
    number or passes through ``shlex.quote``; paths cannot hold control characters, cannot be
    read as options, and stand after ``--`` where a command takes them as operands."""
    from desktopapp.model.validation import require_choice, require_int, require_range

    nodes = require_int("nodes", nodes, minimum=1, maximum=4096)
    gpus_per_node = require_int("gpus_per_node", gpus_per_node, minimum=1, maximum=64)
    port = require_int("port", port, minimum=1, maximum=65535)
    budget = require_range("budget_s", budget_s, 1.0, 3600.0)
    scheduler = require_choice("scheduler", scheduler, ("torchrun", "slurm"))
    path = shlex.quote(safe_output_path(output))
    module_args = (
        f"-m {MODULE} --device cuda --budget-s {shlex.quote(f'{budget:g}')} --output={path}"
    )
    importing = f"desktopapp bench import -- {path}"
    if scheduler == "torchrun":
        return [
            "# run on every node; MASTER_ADDR = host name of the first node (rendezvous host)",
            f"torchrun --nnodes={nodes} --nproc-per-node={gpus_per_node} "
            f'--rdzv-backend=c10d --rdzv-endpoint="$MASTER_ADDR:{port}" '
            f"--rdzv-id=desktopapp-allreduce {module_args}",
            "# then, on the rank 0 node (where the file was written):",
            importing,
        ]
    return [
        "#!/bin/bash",
        "#SBATCH --job-name=desktopapp-allreduce",
        f"#SBATCH --nodes={nodes}",
        f"#SBATCH --ntasks-per-node={gpus_per_node}",
        f"#SBATCH --gpus-per-node={gpus_per_node}",
        "#SBATCH --time=00:20:00",
        'export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)',
        f"export MASTER_PORT={port}",
        f"srun python {module_args}",
        f"# submit with sbatch; afterwards: {importing}",
    ]


def run_cluster_command(args: argparse.Namespace) -> int:
    for line in cluster_command_lines(
        args.nodes, args.gpus_per_node, args.scheduler, args.output, args.port, args.budget_s
    ):
        print(line)
    return 0


# --- local run and import -----------------------------------------------------------------------


def _interpretation(run: Any, accelerator: str | None) -> tuple[str, ...]:
    from desktopapp.model.collective import advertised_rate, interpret

    advertised = None
    name = accelerator or (run.device_name if run.backend == "nccl" else None)
    if name:
        try:
            advertised = advertised_rate(name, run.nodes)
        except (ValueError, KeyError, OSError):
            advertised = None
    if run.world_size == 1:
        from desktopapp.devices.bench.collective import ONE_RANK_NOTE

        copy = max((r.copy_gbs or 0.0 for r in run.results), default=0.0)
        return (f"{ONE_RANK_NOTE}; fastest local copy {copy:,.0f} GB/s",)
    rows = [(r.op, r.bytes, r.busbw_gbs * 1e9) for r in run.results]
    lines = interpret(rows, nodes=run.nodes, gpus_per_node=run.gpus_per_node, advertised=advertised)
    if run.backend == "gloo":
        lines += (
            "Gloo on one machine moves data through loopback TCP and memory copies: a measure "
            "of this host, not of a network link",
        )
    return lines


def _save(run: Any, notes: str) -> tuple[int | None, str | None, str | None]:
    import sqlite3

    from desktopapp.devices.bench.collective import save_collective_run
    from desktopapp.devices.results_store import ResultsStore, ResultsStoreError

    try:
        store = ResultsStore()
        return save_collective_run(run, notes=notes, store=store), str(store.path), None
    except ResultsStoreError as exc:
        return None, None, str(exc).splitlines()[0]
    except (OSError, sqlite3.Error) as exc:
        return None, None, f"the results database cannot be written ({type(exc).__name__})"


def _report(run: Any, args: argparse.Namespace, accelerator: str | None) -> int:
    notes = list(run.warnings)
    run_id, saved_to = None, None
    if not getattr(args, "no_save", False):
        run_id, saved_to, why = _save(run, args.notes)
        if why is not None:
            notes.append(f"not saved: {why}")
            sys.stderr.write(f"desktopapp bench: warning: not saved: {why}\n")
    interpretation = _interpretation(run, accelerator)
    if args.json:
        payload = run.to_dict()
        payload["notes"] = notes
        payload["interpretation"] = list(interpretation)
        payload["run_id"] = run_id
        payload["saved_to"] = saved_to
        print_json(payload)
        return 0 if run.results or run.cancelled else 1
    print_bullet(
        f"{run.device_name or run.backend}: {plural(run.world_size, 'rank')}, {run.backend}, "
        f"{plural(run.nodes, 'node')}; time = median over iterations of the slowest rank",
        bullet="",
    )
    one_rank = run.world_size == 1
    # one rank: the op moves nothing; time and rate are those of a timed copy of the message
    print_table(
        [
            [
                r.op,
                r.bytes,
                _copy_time(r) if one_rank else format_duration(r.seconds),
                f"{r.copy_gbs or 0.0:.3f}" if one_rank else f"{r.algbw_gbs:.3f}",
                *(() if one_rank else (f"{r.busbw_gbs:.3f}",)),
            ]
            for r in run.results
        ],
        headers=["op", "bytes"]
        + (["copy time", "local copy GB/s"] if one_rank else ["time", "algbw GB/s", "busbw GB/s"]),
    )
    for line in interpretation:
        print_bullet(line)
    for note in notes:
        if run.world_size == 1 and note.startswith("one rank:"):
            continue  # said in the interpretation above
        print_bullet(note, bullet="  note: ")
    if run_id is not None:
        print(f"\nSaved as run #{run_id} in {saved_to}")
    if run.cancelled:
        print("\nCancelled: partial results.")
    return 0 if run.results or run.cancelled else 1


def run_collective_bench(args: argparse.Namespace) -> int:
    """``desktopapp bench --suite allreduce --device cpu|cuda --nproc N``."""
    import signal
    import threading

    from desktopapp.devices.bench.collective import CollectiveConfig, check_local, run_local
    from desktopapp.devices.bench.core import CancelToken

    device = args.device.split(":")[0]
    nproc = args.nproc if args.nproc is not None else 2
    budget = args.budget_s if args.budget_s is not None else (2.0 if args.quick else 8.0)
    config = CollectiveConfig(device=device, nproc=nproc, budget_s=budget)
    check_local(config)
    token = CancelToken()

    def on_interrupt(signum: int, frame: Any) -> None:
        if token.cancelled:
            raise KeyboardInterrupt
        token.cancel()
        sys.stderr.write("\nstopping after the current size (Ctrl-C again to abort)\n")

    def on_event(event: Any) -> None:
        sys.stderr.write(f"[{event.fraction * 100:3.0f}%] {event.message}\n")
        sys.stderr.flush()

    previous: Any = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        run = run_local(config, token=token, on_event=on_event)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return _report(run, args, None)


def _json_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def load_results_file(path: Path) -> dict[str, Any]:
    """The collective results file, read with a bound (regular file, size limit) and checked
    field by field (``model.collective.validate_results_file``) before anything is stored."""
    from desktopapp.devices.bench.collective import EXPORT_FORMAT, OPS
    from desktopapp.devices.bounded_read import read_bounded
    from desktopapp.model.collective import MAX_FILE_BYTES, validate_results_file
    from desktopapp.model.validation import InputError

    raw = read_bounded(path, MAX_FILE_BYTES, "file")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_json_constant)
    except UnicodeDecodeError:
        raise InputError("file", f"{path} is not UTF-8 text") from None
    except RecursionError:
        raise InputError("file", f"{path} is nested too deeply to be a results file") from None
    except ValueError as exc:  # JSONDecodeError, NaN/Infinity, over-long integers
        raise InputError("file", f"{path} is not valid JSON ({_short(str(exc))})") from None
    return validate_results_file(data, expected_format=EXPORT_FORMAT, ops=OPS)


def _short(text: str, limit: int = 80) -> str:
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_import(args: argparse.Namespace) -> int:
    from desktopapp.devices.bench.collective import CollectiveRun

    if args.accelerator is not None:
        from desktopapp.model.catalog import get_accelerator

        get_accelerator(args.accelerator)  # unknown: refused with a suggestion, nothing stored
    data = load_results_file(Path(args.file))
    run = CollectiveRun.from_dict(data)
    return _report(run, args, args.accelerator)


def _copy_time(row: Any) -> str:
    """One rank: the timed local copy's median time ("—" where an older file lacks it)."""
    return "—" if not row.copy_seconds else format_duration(row.copy_seconds)
