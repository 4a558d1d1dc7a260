"""N processes × M runs into one fresh data folder, all started at once (a shared start file).

Used by ``test_hostile_concurrency.py`` (one modest repetition) and by hand for the
repetition under load::

    python tests/hostile/concurrent_writers.py --repeat 20 --processes 8 --runs 25

Each writer process opens the results store (or the monitor store) of the same fresh folder
as the others and stores its runs; the parent then counts what was stored. Nothing is timed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_WRITER = r"""
import os, sys, time
from pathlib import Path
kind, folder, runs, go = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
rows = int(sys.argv[5])
while not go.exists():
    time.sleep(0.001)
if kind == "results":
    from desktopapp.devices.bench.core import BenchResult
    from desktopapp.devices.results_store import ResultsStore
    batch = [BenchResult(suite="gemm", device="cpu", dtype="fp32", size=256 + n, tflops=1.0,
                         seconds=0.1, peak_tflops=None, percent_of_peak=None,
                         extra={"pad": "x" * 200}) for n in range(rows)]
    for i in range(runs):
        ResultsStore(folder / "results.sqlite3").save_run(
            batch, machine=f"pid{os.getpid()}", notes=str(i))
else:
    from desktopapp.devices.session_store import SessionStore
    for i in range(runs):
        with SessionStore(folder / "monitor.sqlite3") as store:
            with store.start_session(f"pid{os.getpid()}-{i}") as rec:
                for n in range(rows):
                    rec.add_values(1000.0 + i + n / 1000, {"cpu.util": 1.0})
"""


def run_once(
    kind: str, processes: int, runs: int, folder: Path, rows: int = 20
) -> tuple[int, list[str]]:
    """Start the writers together; returns (runs stored, the failing writers' stderr)."""
    go = folder / "go"
    data = folder / "data"
    data.mkdir()
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, kind, str(data), str(runs), str(go), str(rows)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(processes)
    ]
    time.sleep(0.5)  # let the interpreters start, then release them together
    go.touch()
    errors = []
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        if proc.returncode != 0:
            errors.append(err.strip().splitlines()[-1] if err.strip() else f"rc {proc.returncode}")
    return _count(kind, data), errors


def _count(kind: str, data: Path) -> int:
    if kind == "results":
        from desktopapp.devices.results_store import ResultsStore

        return len(ResultsStore(data / "results.sqlite3").list_runs())
    from desktopapp.devices.session_store import SessionStore

    with SessionStore(data / "monitor.sqlite3", read_only=True) as store:
        return len(store.sessions())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--rows", type=int, default=20, help="measurements per run")
    parser.add_argument("--kind", choices=("results", "monitor"), default="results")
    args = parser.parse_args()
    lost_any = False
    for i in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="desktopapp-stress-") as tmp:
            stored, errors = run_once(args.kind, args.processes, args.runs, Path(tmp), args.rows)
        want = args.processes * args.runs
        print(f"repetition {i + 1}: {stored} of {want} runs stored; {len(errors)} writers failed")
        for line in errors:
            print(f"  {line}")
        lost_any |= stored != want or bool(errors)
    return 1 if lost_any else 0


if __name__ == "__main__":
    sys.exit(main())
