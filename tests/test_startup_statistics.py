"""benchmarks/startup.py's paired ratio: the median of the per-run ratios app[i] / bare[i] and
their interquartile range, printed beside the ratio of medians so that a reader sees how far
one figure can be trusted on a loaded machine."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "startup.py"


def _startup():
    spec = importlib.util.spec_from_file_location("startup_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_paired_ratio_is_the_median_of_the_pairs_with_its_quartiles():
    startup = _startup()
    bare = [0.40, 0.40, 0.40, 0.80, 0.40]  # the fourth pair ran during a burst of load
    app = [0.48, 0.52, 0.56, 1.04, 0.60]  # ratios 1.2, 1.3, 1.4, 1.3, 1.5
    mid, low, high = startup.paired_ratio(app, bare)
    assert (mid, low, high) == pytest.approx((1.3, 1.3, 1.4))
    assert startup.paired_ratio(app[::-1], bare[::-1]) == pytest.approx((mid, low, high))


def test_the_paired_ratio_needs_one_app_run_per_bare_run():
    startup = _startup()
    with pytest.raises(ValueError, match="runs: one app run per bare run, got 2 and 3"):
        startup.paired_ratio([1.0, 1.0], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="got 0 and 0"):
        startup.paired_ratio([], [])
    assert startup.paired_ratio([0.6], [0.5]) == pytest.approx((1.2, 1.2, 1.2))


def test_phases_are_ordered_by_their_medians_with_each_steps_own_median():
    startup = _startup()
    runs = [
        {"phase:PySide6_imported": 0.10, "shown": 0.30, "ready": 0.40, "plots": 0.55},
        {"phase:PySide6_imported": 0.12, "shown": 0.34, "ready": 0.50, "plots": 0.60},
        # a run that missed one mark: only the marks of every run are listed
        {"phase:PySide6_imported": 0.11, "shown": 0.31, "ready": 0.41},
    ]
    table = startup.phase_table([*runs[:2], runs[2] | {"plots": 0.56}])
    assert [label for label, _at, _step in table] == [
        "PySide6 imported",
        "window exposed",
        "Workload tab filled",
        "plots drawn",
    ]
    # medians of the marks, and of each run's own step (ready − shown: 0.10, 0.16, 0.10)
    assert [at for _label, at, _step in table] == pytest.approx([0.11, 0.31, 0.41, 0.56])
    assert [step for _label, _at, step in table] == pytest.approx([0.11, 0.20, 0.10, 0.15])
    assert [label for label, _at, _step in startup.phase_table(runs)] == [
        "PySide6 imported",
        "window exposed",
        "Workload tab filled",
    ]
    assert startup.phase_table([]) == []


def test_the_benchmark_runs_and_names_every_step_of_both_starts(tmp_path):
    """One run per mode, to check the script and its instrumentation (no time is judged)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TMPDIR=str(tmp_path))
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--runs", "1", "--phases"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=SCRIPT.parents[1],
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    out = result.stdout
    bare, app = out.split("bare window: median ms")[1].split("ML Capacity Planner: median ms")
    for step in ("PySide6 imported", "pyqtgraph imported", "window built", "window exposed"):
        assert f"  {step} " in bare, (step, bare)
    for step in (
        "PySide6 imported",
        "app modules imported",
        "window built",
        "window exposed",
        "Workload tab filled",
        "pyqtgraph imported",
        "plots built",
        "plots drawn",
    ):
        assert f"  {step} " in app, (step, app)
    assert "torch imported at startup: no" in out
