"""Smoke test of a built bundle (or of any ``desktopapp`` program): does it start and work?

    python3 packaging/smoke_test.py [BUNDLE_DIR | PROGRAM]   # default: dist/desktopapp
    packaging/smoke_test.sh [BUNDLE_DIR | PROGRAM]           # the same

It runs the program offscreen (``QT_QPA_PLATFORM=offscreen``) from an empty temporary folder,
with ``DESKTOPAPP_HOME`` there too, so neither the checkout nor the user's folders help it, and
checks, timing each step:

1. ``--version`` prints ``desktopapp <version>`` (run twice: first start, then warm cache);
2. ``detect --json`` prints JSON, and ``catalog accelerators --json`` prints ≥ 30 rows; each is
   skipped, with a message, only while the program lacks the command (``desktopapp detect
   --help`` exits 2, argparse's "invalid choice");
3. ``--screenshot FILE.png`` writes a non-trivial PNG, for the default tab and then for each
   ``--tab`` (tabs import their code when first shown); skipped only while the program has no
   GUI module yet (``No module named 'desktopapp.app'``).

A traceback on stderr fails a step even when the exit status is 0 (the window shows a failing
tab as an error panel and still writes the PNG).

Exit status 0 when every check that ran passed, 1 otherwise. Only the standard library is
used, so any Python 3.11 can run it against the bundle.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIN_SCREENSHOT_BYTES = 10_000
MIN_ACCELERATORS = 30
NO_GUI_MARKER = "No module named 'desktopapp.app'"
TRACEBACK_MARKER = "Traceback (most recent call last)"
TABS = ("estimate", "cost", "hardware", "monitor")  # desktopapp --tab choices


@dataclass
class Step:
    name: str
    status: str  # "ok", "skip", "fail"
    seconds: float
    detail: str = ""


@dataclass
class SmokeReport:
    program: Path
    steps: list[Step] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(step.status != "fail" for step in self.steps)

    def step(self, name: str) -> Step | None:
        return next((s for s in self.steps if s.name == name), None)


def find_program(target: Path) -> Path:
    """The executable inside a bundle folder, or the given program itself."""
    if target.is_dir():
        for name in ("desktopapp", "desktopapp.exe"):
            if (target / name).is_file():
                return target / name
        mac = target / "Contents" / "MacOS" / "desktopapp"  # ML Capacity Planner.app
        if mac.is_file():
            return mac
        raise FileNotFoundError(f"no desktopapp executable in {target}")
    if not target.is_file():
        raise FileNotFoundError(f"{target} does not exist (build it with packaging/build.sh)")
    return target


def smoke_env(workdir: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "DESKTOPAPP_HOME")
    }
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["DESKTOPAPP_HOME"] = str(workdir / "home")
    return env


def run_smoke(target: Path, timeout: float = 180.0) -> SmokeReport:
    program = find_program(target.resolve())
    report = SmokeReport(program)
    with tempfile.TemporaryDirectory(prefix="desktopapp-smoke-") as tmp:
        workdir = Path(tmp)
        env = smoke_env(workdir)

        def run(*args: str) -> tuple[subprocess.CompletedProcess[str], float]:
            start = time.perf_counter()
            proc = subprocess.run(
                [str(program), *args],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            return proc, time.perf_counter() - start

        def failed(proc: subprocess.CompletedProcess[str]) -> str:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            return f"exit {proc.returncode}: " + " | ".join(tail)

        def problem(proc: subprocess.CompletedProcess[str]) -> str:
            """Why the run failed: an exit status, or a traceback the program caught."""
            if proc.returncode != 0:
                return failed(proc)
            if TRACEBACK_MARKER in proc.stderr:
                return "traceback on stderr: " + " | ".join(proc.stderr.strip().splitlines()[-3:])
            return ""

        # 1. --version, cold then warm.
        for name in ("version (first start)", "version (warm)"):
            proc, secs = run("--version")
            if proc.returncode == 0 and re.fullmatch(r"desktopapp \S+", proc.stdout.strip()):
                report.steps.append(Step(name, "ok", secs, proc.stdout.strip()))
            else:
                report.steps.append(Step(name, "fail", secs, failed(proc)))
                return report  # nothing else can work

        # 2. headless commands, when the program has them.
        for command, args in (
            ("detect", ("detect", "--json")),
            ("catalog", ("catalog", "accelerators", "--json")),
        ):
            name = " ".join(args)
            if run(command, "--help")[0].returncode != 0:  # argparse: invalid choice
                report.steps.append(
                    Step(name, "skip", 0.0, f"no {command} command yet (`{command} --help` fails)")
                )
                continue
            proc, secs = run(*args)
            trouble = problem(proc)
            if trouble:
                report.steps.append(Step(name, "fail", secs, trouble))
                continue
            try:
                payload = json.loads(proc.stdout)
            except json.JSONDecodeError as exc:
                report.steps.append(Step(name, "fail", secs, f"not JSON: {exc}"))
                continue
            if command == "catalog":
                rows = (
                    payload
                    if isinstance(payload, list)
                    else next((v for v in payload.values() if isinstance(v, list)), [])
                )
                if len(rows) < MIN_ACCELERATORS:
                    report.steps.append(
                        Step(name, "fail", secs, f"{len(rows)} rows, expected ≥ {MIN_ACCELERATORS}")
                    )
                    continue
                report.steps.append(Step(name, "ok", secs, f"{len(rows)} accelerators"))
            else:
                report.steps.append(Step(name, "ok", secs, f"{len(proc.stdout)} characters"))

        # 3. the GUI, offscreen, to PNGs: the default tab, then each tab by name. Tabs are
        #    imported when first shown, so each must be opened once to prove that everything
        #    it imports is in the bundle; a tab that fails shows an error panel and prints a
        #    traceback, which counts as a failure even though the PNG is written.
        for tab in (None, *TABS):
            name = "--screenshot" if tab is None else f"--screenshot --tab {tab}"
            shot = workdir / f"screenshot-{tab or 'default'}.png"
            proc, secs = run("--screenshot", str(shot), *(("--tab", tab) if tab else ()))
            if NO_GUI_MARKER in proc.stderr:
                report.steps.append(Step(name, "skip", secs, "the program has no GUI module yet"))
                break
            if tab and proc.returncode == 2 and "invalid choice" in proc.stderr:
                report.steps.append(Step(name, "skip", secs, f"the app has no {tab} tab"))
                continue
            trouble = problem(proc)
            if trouble:
                report.steps.append(Step(name, "fail", secs, trouble))
                continue
            data = shot.read_bytes() if shot.is_file() else b""
            if not data.startswith(PNG_SIGNATURE) or len(data) < MIN_SCREENSHOT_BYTES:
                report.steps.append(
                    Step(name, "fail", secs, f"no plausible PNG written ({len(data)} bytes)")
                )
            else:
                report.steps.append(Step(name, "ok", secs, f"{len(data)} byte PNG"))
    return report


def bundle_size(program: Path) -> str:
    folder = program.parent
    if folder.name == "MacOS":
        folder = folder.parent.parent
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return f"{total / 2**20:.0f} MiB in {folder}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "target",
        nargs="?",
        type=Path,
        default=REPO / "dist" / "desktopapp",
        help="bundle folder or desktopapp program (default: dist/desktopapp)",
    )
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per command")
    args = parser.parse_args(argv)
    try:
        report = run_smoke(args.target, timeout=args.timeout)
    except (FileNotFoundError, subprocess.TimeoutExpired) as exc:
        print(f"smoke test: FAIL: {exc}", file=sys.stderr)
        return 1
    print(f"smoke test of {report.program}")
    print(f"  size: {bundle_size(report.program)}")
    for step in report.steps:
        print(f"  {step.status.upper():4}  {step.name:<32} {step.seconds:6.2f} s  {step.detail}")
    print("smoke test: " + ("PASS" if report.ok else "FAIL"))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
