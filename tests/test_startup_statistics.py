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
