"""Calibration of the training performance model against published throughput.

Two parameters are fitted to benchmark rows, no more: the non-matmul kernel share ``k`` and the
attention efficiency ``a`` (see :mod:`desktopapp.model.perf_training`). Everything else (matmul
efficiency, link bandwidths, overlaps) is a published or stated default. The fit minimises the
mean squared log error of predicted against published MFU (HFU for rows that publish HFU) on a
fixed grid, so it is deterministic. Leave-one-out refits without each row and predicts it.

A third, the production factor, is fitted to whole production runs: published GPU-hours of large
training runs against the model's steady state (the benchmark-calibrated step time over the
goodput). It is the exponential of the mean log ratio (least squares in log space, like the
MFU fit); leave-one-out predicts each run with the factor fitted to the others.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from desktopapp.model.interconnect import Interconnect
from desktopapp.model.perf_training import (
    DEFAULT_GOODPUT,
    DEFAULT_STACK,
    RunInputs,
    predicted_mfu,
    steady_gpu_hours,
)

K_GRID = tuple(float(x) for x in np.round(np.arange(0.0, 0.81, 0.04), 3))
A_GRID = tuple(float(x) for x in np.round(np.arange(0.20, 1.01, 0.05), 3))
BAND_QUANTILES = (0.10, 0.90)
UNKNOWN_RUN_GPUS = 1024  # a published run that gives no GPU count is planned on 1,024


@dataclass(frozen=True)
class CalRow:
    label: str
    inputs: RunInputs
    metric: str  # "mfu" | "hfu"
    published: float


def row_inputs(row: Mapping[str, Any]) -> RunInputs:
    """RunInputs for one calibration row of published_throughput.json.

    No row publishes its global batch: it is taken as 4M tokens or one sequence per GPU,
    whichever is larger (weak-scaling benchmarks grow the batch with the GPU count).
    """
    shape = row.get("shape") or {}
    plan = row.get("plan") or {}
    precision = row["precision"] if row["precision"] in ("bf16", "fp16", "fp8") else "bf16"
    return RunInputs(
        params=float(row["params"]),
        active_params=row.get("active_params"),
        tokens=1e12,
        accelerator=row["accelerator_id"],
        gpus=int(row["gpus"]),
        precision=precision,
        seq_len=int(row["seq_len"]),
        layers=shape.get("layers"),
        hidden=shape.get("hidden"),
        heads=shape.get("heads"),
        kv_heads=shape.get("kv_heads"),
        tp=plan.get("tp"),
        pp=plan.get("pp"),
        dp=plan.get("dp"),
        virtual_stages=plan.get("virtual_stages"),
        zero_stage=plan.get("zero_stage"),
        recompute=True if row["metric"] == "hfu" else None,
        scale_up_domain=row.get("scale_up_domain"),
        software_stack=row.get("software_stack", "typical"),
        power_cap_w=row.get("power_cap_w"),
        moe_top_k=row.get("moe_top_k"),
        global_batch_tokens=max(4 * 1024 * 1024, int(row["gpus"]) * int(row["seq_len"])),
    )


def cal_rows(training_rows: Sequence[Mapping[str, Any]]) -> list[CalRow]:
    out = []
    for row in training_rows:
        published = float(row["published"])
        if row["kind"] == "training_tflops":  # model TFLOP/s per GPU -> share of the peak
            from desktopapp.model.catalog import get_accelerator

            acc = get_accelerator(row["accelerator_id"])
            published = published / acc.peak_tflops[row["precision"]]
        out.append(
            CalRow(
                label=f"{row['model']} · {row['accelerator_id']} × {row['gpus']} "
                f"({row['parallelism']}, s={row['seq_len']}, {row['precision']})",
                inputs=row_inputs(row),
                metric=row["metric"],
                published=published,
            )
        )
    return out


def _predict(
    row: CalRow, k: float, a: float, ics: Mapping[str, Interconnect] | None, table: Any
) -> float:
    ic = None if ics is None else ics[row.inputs.accelerator]
    mfu, hfu = predicted_mfu(row.inputs, k, a, ic, table)
    return hfu if row.metric == "hfu" else mfu


def error_grid(
    rows: Sequence[CalRow], ics: Mapping[str, Interconnect] | None = None, table: Any = None
) -> np.ndarray:
    """log(predicted/published) for every row at every (k, a) grid point: [row, k, a]."""
    out = np.empty((len(rows), len(K_GRID), len(A_GRID)))
    for r, row in enumerate(rows):
        for i, k in enumerate(K_GRID):
            for j, a in enumerate(A_GRID):
                out[r, i, j] = np.log(_predict(row, k, a, ics, table) / row.published)
    return out


def fit(grid: np.ndarray, keep: np.ndarray | None = None) -> tuple[int, int]:
    """Grid indices minimising the mean squared log error over the kept rows."""
    g = grid if keep is None else grid[keep]
    loss = np.mean(g**2, axis=0)
    i, j = np.unravel_index(int(np.argmin(loss)), loss.shape)
    return int(i), int(j)


def calibrate(
    rows: Sequence[CalRow], ics: Mapping[str, Interconnect] | None = None, table: Any = None
) -> dict[str, Any]:
    """Two fits (JSON-ready): the stack-blind one (every row as the 'typical' stack: what a
    planner who names no stack gets) at the top level, and under ``stack_aware`` the one in
    which each row runs on the software stack its source names (used for 'megatron'/'fsdp')."""
    blind = [replace(row, inputs=replace(row.inputs, software_stack=DEFAULT_STACK)) for row in rows]
    out = _calibrate_one(blind, ics, table, "stack-blind: every row as the 'typical' stack")
    out["stack_aware"] = _calibrate_one(
        rows, ics, table, "stack-aware: each row on the software stack its source names"
    )
    return out


def _calibrate_one(
    rows: Sequence[CalRow], ics: Mapping[str, Interconnect] | None, table: Any, mode: str
) -> dict[str, Any]:
    """In-sample fit, leave-one-out predictions and the error band (JSON-ready)."""
    grid = error_grid(rows, ics, table)
    i, j = fit(grid)
    in_ratio = np.exp(grid[:, i, j])
    loo = np.empty(len(rows))
    for r in range(len(rows)):
        keep = np.ones(len(rows), dtype=bool)
        keep[r] = False
        li, lj = fit(grid, keep)
        loo[r] = np.exp(grid[r, li, lj])

    def within(x: np.ndarray, f: float) -> float:
        return float(np.mean((x <= f) & (x >= 1 / f)))

    lo, hi = np.quantile(loo, BAND_QUANTILES)

    return {
        "kernel_overhead": K_GRID[i],
        "attention_efficiency": A_GRID[j],
        "grid": {
            "kernel_overhead": [K_GRID[0], K_GRID[-1], len(K_GRID)],
            "attention_efficiency": [A_GRID[0], A_GRID[-1], len(A_GRID)],
        },
        "rows": len(rows),
        "in_sample_within_1_25": _r6(within(in_ratio, 1.25)),
        "loo_within_1_25": _r6(within(loo, 1.25)),
        "loo_median_ratio": _r6(float(np.median(loo))),
        "band": {
            "quantiles": list(BAND_QUANTILES),
            "ratio_low": _r6(float(lo)),
            "ratio_high": _r6(float(hi)),
        },
        "per_row": [
            {
                "label": row.label,
                "metric": row.metric,
                "published": _r6(row.published),
                "in_sample": _r6(float(row.published * in_ratio[r])),
                "leave_one_out": _r6(float(row.published * loo[r])),
            }
            for r, row in enumerate(rows)
        ],
        "source": (
            f"grid fit of 2 parameters to {len(rows)} published MFU/HFU rows "
            f"(published_throughput.csv), minimising mean squared log error; {mode}"
        ),
    }


# --- production runs --------------------------------------------------------------------------


def run_inputs(run: Mapping[str, Any], **overrides: Any) -> RunInputs:
    """What a planner has for one published run (the ``runs`` table): params, tokens,
    accelerator, GPU count where published (else :data:`UNKNOWN_RUN_GPUS`), sequence length,
    shape, MoE top-k, global batch and power cap where published; the 'typical' stack and the
    default goodput. ``overrides`` replace fields."""
    fields: dict[str, Any] = dict(
        params=run["params"],
        active_params=run.get("active_params"),
        tokens=run["tokens"],
        accelerator=run["accelerator_id"],
        gpus=run["gpus"] or UNKNOWN_RUN_GPUS,
        precision=run.get("precision", "bf16"),
        seq_len=run["seq_len"],
        layers=run["layers"],
        hidden=run["hidden"],
        heads=run["heads"],
        kv_heads=run["kv_heads"],
        global_batch_tokens=run.get("global_batch_tokens"),
        moe_top_k=run.get("moe_top_k"),
        power_cap_w=run.get("power_cap_w"),
    )
    fields.update(overrides)
    return RunInputs(**fields)


def fit_production(
    runs: Sequence[Mapping[str, Any]],
    k: float | None = None,
    a: float | None = None,
    ics: Mapping[str, Interconnect] | None = None,
    table: Any = None,
) -> dict[str, Any]:
    """The production factor (JSON-ready): fitted to every run, with each run's leave-one-out
    prediction (the factor refitted without it) and the error band of those predictions."""
    steady = np.asarray(
        [
            steady_gpu_hours(
                run_inputs(run, production_factor=1.0),
                k,
                a,
                None if ics is None else ics[run["accelerator_id"]],
                table,
            )
            for run in runs
        ]
    )
    published = np.asarray([float(run["gpu_hours"]) for run in runs])
    gpus = [run.get("gpus") for run in runs]
    known = [int(g) for g in gpus if g]
    logs = np.log(steady / published)
    n = len(runs)
    factor = _r6(float(np.exp(-np.mean(logs))))
    in_ratio = np.exp(logs) * factor
    loo = np.exp(logs - (np.sum(logs) - logs) / (n - 1))  # factor fitted to the other runs

    def err(x: np.ndarray) -> np.ndarray:
        return np.maximum(x, 1.0 / x)

    lo, hi = np.quantile(loo, BAND_QUANTILES)
    return {
        "factor": factor,
        "goodput": DEFAULT_GOODPUT,
        "runs": n,
        "gpus_range": [min(known), max(known)] if known else None,
        "gpu_hours_range": [_r6(float(published.min())), _r6(float(published.max()))],
        "in_sample_median_error": _r6(float(np.median(err(in_ratio)))),
        "in_sample_within_1_5": _r6(float(np.mean(err(in_ratio) <= 1.5))),
        "loo_median_error": _r6(float(np.median(err(loo)))),
        "loo_within_1_5": _r6(float(np.mean(err(loo) <= 1.5))),
        "loo_median_ratio": _r6(float(np.median(loo))),
        "band": {
            "quantiles": list(BAND_QUANTILES),
            "ratio_low": _r6(float(lo)),
            "ratio_high": _r6(float(hi)),
        },
        "per_run": [
            {
                "model": run["model"],
                "published": float(run["gpu_hours"]),
                "steady": _r6(float(steady[r])),
                "in_sample": _r6(float(steady[r] * factor)),
                "leave_one_out": _r6(float(published[r] * loo[r])),
            }
            for r, run in enumerate(runs)
        ],
        "source": (
            f"exp(−mean log(steady/published)) over {n} published large runs (GPU-hours from "
            "papers and model cards; runs table of published_throughput.json), steady = the "
            f"stack-blind model's GPU-hours at goodput {DEFAULT_GOODPUT:g}; leave-one-out: each "
            "run predicted with the factor fitted to the others"
        ),
    }


def _r6(x: float) -> float:  # 6 significant digits: the JSON stays stable across platforms
    return float(f"{x:.6g}")
