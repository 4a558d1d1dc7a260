"""Which term of the training model moves the published-runs error (issue 13).

Each line changes one planner assumption or switches one term of the step model off, refits the
two calibrated MFU parameters where the step model changed (so every line is judged with its
own best fit), and prints the calibration's leave-one-out share within 1.25× (rows on their own
stack, and stack-blind), then the published runs judged leave-one-out with the production factor
refitted for that line (each run predicted with the factor fitted to the other runs): share
within 1.5× and median error, and every run's steady-state predicted/published GPU-hours (before
the production factor). A diagnostic only: nothing here feeds back into the defaults.

    .venv/bin/python benchmarks/fidelity_terms.py
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from desktopapp.model import perf_training as pt
from desktopapp.model.perf_calibration import cal_rows, calibrate, run_inputs

Outputs = dict[str, Any]


def _err(ratio: float) -> float:
    return max(ratio, 1.0 / ratio)


@contextmanager
def _model(
    constants: Mapping[str, Any] | None = None,
    drop: tuple[str, ...] = (),
    refit: bool = False,
) -> Iterator[dict[str, Any]]:
    """Patch module constants of perf_training, drop step parts (``bubble``, ``dp``) from every
    evaluated plan, and refit the calibration under the patched model when ``refit``."""
    saved = {name: getattr(pt, name) for name in (constants or {})}
    evaluate, cal = pt._evaluate, pt.calibration

    def without(*args: Any, **kwargs: Any) -> Outputs:
        out = evaluate(*args, **kwargs)
        for part in drop:
            out["step"] = out["step"] - out[part]
            out[part] = out[part] * 0.0
        return out

    try:
        for name, value in (constants or {}).items():
            setattr(pt, name, value)
        if drop:
            pt._evaluate = without
        fit = pt._throughput_document()["calibration"]
        if refit:
            fit = calibrate(cal_rows(pt._throughput_document()["training"]))

            def refitted(stack: str = pt.DEFAULT_STACK) -> pt.Calibration:
                return pt.Calibration.from_fit(
                    fit if stack == pt.DEFAULT_STACK else fit["stack_aware"]
                )

            pt.calibration = refitted  # type: ignore[assignment]
        yield fit
    finally:
        for name, value in saved.items():
            setattr(pt, name, value)
        pt._evaluate, pt.calibration = evaluate, cal


def _ratios(overrides: Callable[[Mapping[str, Any]], dict[str, Any]]) -> list[float]:
    """Steady-state predicted/published GPU-hours (production factor 1) of every run."""
    out = []
    for run in pt._throughput_document()["runs"]:
        inp = run_inputs(run, **{"production_factor": 1.0, **overrides(run)})
        out.append(pt.estimate_run(inp).gpu_hours / run["gpu_hours"])
    return out


def _loo_errors(ratios: list[float]) -> list[float]:
    """Each run's error with the production factor (exp of −mean log ratio) fitted to the others."""
    logs = np.log(np.asarray(ratios))
    rest = (logs.sum() - logs) / (len(logs) - 1)
    return [_err(float(r)) for r in np.exp(logs - rest)]


def _line(name: str, fit: Mapping[str, Any], ratios: list[float]) -> str:
    errors = _loo_errors(ratios)
    within = sum(e <= 1.5 for e in errors) / len(errors)
    return (
        f"{name:40s} {fit['stack_aware']['loo_within_1_25']:5.0%} {fit['loo_within_1_25']:5.0%} "
        f"{within:5.0%} ×{statistics.median(errors):.3f} | " + " ".join(f"{r:4.2f}" for r in ratios)
    )


def _none(run: Mapping[str, Any]) -> dict[str, Any]:
    return {}


def main() -> int:
    runs = pt._throughput_document()["runs"]
    print(__doc__.split("\n\n")[0])
    print(
        "steady-state ratios (predicted/published GPU-hours at production factor 1), in this "
        "order: " + ", ".join(run["model"] for run in runs)
    )
    print(f"{'change':40s} {'LOO':>5s} {'blind':>5s} {'≤1.5×':>5s} {'median':>6s} | ratios")

    def unknown(field: str, value: Any) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
        return lambda run: {} if run[field] else {field: value}

    planner = [
        ("as shipped", _none),
        ("unknown GPU count 512", unknown("gpus", 512)),
        ("unknown GPU count 2048", unknown("gpus", 2048)),
        ("unknown global batch 2M tokens", unknown("global_batch_tokens", 2**21)),
        ("unknown global batch 8M tokens", unknown("global_batch_tokens", 2**23)),
    ]
    for name, overrides in planner:
        with _model() as fit:
            print(_line(name, fit, _ratios(overrides)))
    terms: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
        ("no change (check)", {}, ()),
        ("no pipeline bubble", {}, ("bubble",)),
        ("no data-parallel traffic", {}, ("dp",)),
        ("tensor-parallel traffic hidden", {"TP_OVERLAP": 1.0}, ()),
        ("expert all-to-all hidden", {"EP_OVERLAP": 1.0}, ()),
        ("interleaving up to ×4 (before)", {"PLANS_VIRTUAL": (2, 4)}, ()),
    ]
    for name, constants, drop in terms:
        with _model(constants, drop, refit=True) as fit:
            print(_line(name + " (refit)", fit, _ratios(_none)))
    steady = [_err(r) for r in _ratios(_none)]
    print(
        f"as shipped without any production factor (goodput {pt.DEFAULT_GOODPUT:g} only): "
        f"{sum(e <= 1.5 for e in steady) / len(steady):.0%} within 1.5×, median error "
        f"×{statistics.median(steady):.3f}; shipped factor ×{pt.production_fit().factor:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
