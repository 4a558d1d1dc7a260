"""Calibration of the training performance model against published throughput.

Two parameters are fitted to benchmark rows, no more: the non-matmul kernel share ``k`` and the
attention efficiency ``a`` (see :mod:`desktopapp.model.perf_training`). Everything else (matmul
efficiency, link bandwidths, overlaps) is a published or stated default. The fit minimises the
mean squared log error of predicted against published MFU (HFU for rows that publish HFU) on a
fixed grid, so it is deterministic. Leave-one-out refits without each row and predicts it.

A third, the production allowance (``production_factor``), is fitted to whole training runs:
published GPU-hours (scripts/data/published_runs.csv, rows marked "fit") against the model's
steady state (the benchmark-calibrated step time over the goodput). It is the exponential of
the mean log ratio (least squares in log space, like the MFU fit). It is judged only out of
sample: a time split and an organisation split (:func:`fit_production`), whose errors give the
likely range.
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
    range_widening,
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
        vocab=run.get("vocab"),
        tied_embeddings=bool(run.get("tied_embeddings", False)),
    )
    fields.update(overrides)
    return RunInputs(**fields)


SPLIT_QUANTILES = (0.05, 0.95)  # of out-of-sample predicted/published GPU-hours: the range


def _org(run: Mapping[str, Any], i: int) -> str:
    """A run's organisation (a run without one is its own organisation)."""
    return str(run.get("organisation") or f"run {i}")


def _fitted(run: Mapping[str, Any]) -> bool:
    return run.get("use", "fit") == "fit"


def envelope(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What the fitted runs cover (JSON-ready): accelerators, total params, published GPU
    counts and how many are mixtures of experts; inputs outside it get a wider range."""
    known = [int(r["gpus"]) for r in runs if r.get("gpus")]
    return {
        "accelerators": sorted({str(r["accelerator_id"]) for r in runs}),
        "params": [float(min(r["params"] for r in runs)), float(max(r["params"] for r in runs))],
        "gpus": [min(known), max(known)] if known else None,
        "moe_runs": sum(1 for r in runs if r.get("active_params")),
    }


def _quantile_band(ratios: np.ndarray) -> tuple[float, float]:
    lo, hi = np.quantile(ratios, SPLIT_QUANTILES)
    return float(lo), float(hi)


def _org_out_ratios(logs: np.ndarray, orgs: Sequence[str], train: np.ndarray) -> np.ndarray:
    """predicted/published of every run, each with the allowance fitted to the training runs of
    the other organisations (NaN where no such run is left)."""
    out = np.full(len(logs), np.nan)
    org_arr = np.asarray(orgs)
    for org in set(orgs):
        keep = train & (org_arr != org)
        if keep.any():
            mine = org_arr == org
            out[mine] = np.exp(logs[mine] - np.mean(logs[keep]))
    return out


def _error(ratio: np.ndarray) -> np.ndarray:
    """max(r, 1/r): how far a predicted/published ratio is off, either way."""
    return np.maximum(ratio, 1.0 / ratio)


def own_organisation_split(
    logs: np.ndarray,
    orgs: Sequence[str],
    fit_mask: np.ndarray,
    other: np.ndarray,
    dates: Sequence[str] | None = None,
    cutoff: str | None = None,
) -> dict[str, Any]:
    """What fitting the allowance to a team's own runs buys (``desktopapp calibrate``): each
    run of an organisation with two runs or more, predicted with the allowance fitted to that
    organisation's other runs (fitted and checked alike: they are the team's history), against
    the same runs predicted with the allowance fitted to the other organisations' fitted runs
    (``other``: :func:`_org_out_ratios` of the same runs, as ``fit_production`` has them).
    With ``dates`` and ``cutoff``, the band is also checked by time: built from the runs
    published before the cutoff, it is judged on the later ones."""
    org_arr = np.asarray(orgs)
    own = np.full(len(logs), np.nan)
    for org in set(orgs):
        mine = np.flatnonzero(org_arr == org)
        if len(mine) < 2:
            continue
        for i in mine:
            others = [j for j in mine if j != i]
            own[i] = np.exp(logs[i] - np.mean(logs[others]))
    judged = np.isfinite(own)
    both = judged & np.isfinite(other)

    def figures(mask: np.ndarray) -> dict[str, Any]:
        if not mask.any():
            return {"runs": 0}
        return {
            "runs": int(mask.sum()),
            "own_median_error": _r6(float(np.median(_error(own[mask])))),
            "own_within_1_5": _r6(float(np.mean(_error(own[mask]) <= 1.5))),
            "own_median_ratio": _r6(float(np.median(own[mask]))),
            "others_median_error": _r6(float(np.median(_error(other[mask])))),
            "others_within_1_5": _r6(float(np.mean(_error(other[mask]) <= 1.5))),
        }

    lo, hi = _quantile_band(own[judged]) if judged.any() else (float("nan"), float("nan"))
    band_time: dict[str, Any] = {}
    if dates is not None and cutoff is not None:
        early = judged & np.asarray([d < cutoff for d in dates])
        late = judged & ~early
        if early.any() and late.any():
            e_lo, e_hi = _quantile_band(own[early])
            held = (own[late] >= e_lo) & (own[late] <= e_hi)
            band_time = {
                "cutoff": cutoff,
                "band": [_r6(e_lo), _r6(e_hi)],
                "early_runs": int(early.sum()),
                "later_runs": int(late.sum()),
                "inside": int(held.sum()),
            }
    return {
        "rule": "each run predicted with the allowance fitted to its own organisation's other "
        "runs (organisations with two runs or more); 'others' = the same runs with the "
        "allowance fitted to the other organisations' fitted runs",
        "organisations": len({orgs[int(i)] for i in np.flatnonzero(both)}),
        **figures(both),
        "checked": figures(both & ~fit_mask),
        # the scatter left when the allowance is one's own: the range of an estimate whose
        # production factor is given (perf_training._likely_band)
        "band": {
            "quantiles": list(SPLIT_QUANTILES),
            "ratio_low": _r6(lo),
            "ratio_high": _r6(hi),
            "runs": int(judged.sum()),
            "time_split": band_time,
        },
    }


def judge(
    logs: np.ndarray,
    orgs: Sequence[str],
    runs: Sequence[Mapping[str, Any]],
    train: np.ndarray,
    judged: np.ndarray,
    inputs: Sequence[RunInputs],
    band_runs: np.ndarray | None = None,
) -> dict[str, Any]:
    """Fit the allowance to the ``train`` runs, predict the ``judged`` ones; the range is the
    5-95% band of the organisation-out errors of the ``band_runs`` (default: the train runs;
    the splits pass every run on the training side, checked ones too), widened where a judged
    run lies outside the train runs' envelope (as the app does for a new run)."""
    allowance = float(np.exp(-np.mean(logs[train])))
    inner = _org_out_ratios(logs, orgs, train)[train if band_runs is None else band_runs]
    lo, hi = _quantile_band(inner[np.isfinite(inner)])
    env = envelope([r for r, t in zip(runs, train, strict=True) if t])
    ratios, inside = [], []
    for i in np.flatnonzero(judged):
        ratio = float(np.exp(logs[i]) * allowance)
        widen, _ = range_widening(inputs[int(i)], env)
        ratios.append(ratio)
        inside.append(lo / widen <= ratio <= hi * widen)
    r = np.asarray(ratios)
    err = _error(r)
    return {
        "allowance": _r6(allowance),
        "train_runs": int(train.sum()),
        "judged_runs": len(ratios),
        "band": [_r6(lo), _r6(hi)],
        "inside": int(sum(inside)),
        "coverage": _r6(float(np.mean(inside))) if inside else None,
        "median_error": _r6(float(np.median(err))) if inside else None,
        "within_1_5": _r6(float(np.mean(err <= 1.5))) if inside else None,
        "median_ratio": _r6(float(np.median(r))) if inside else None,
        "judged": [str(runs[int(i)]["model"]) for i in np.flatnonzero(judged)],
        "inside_each": [bool(x) for x in inside],
    }


def fit_production(
    runs: Sequence[Mapping[str, Any]],
    k: float | None = None,
    a: float | None = None,
    ics: Mapping[str, Interconnect] | None = None,
    table: Any = None,
) -> dict[str, Any]:
    """The production allowance (JSON-ready), fitted to the runs marked "fit", and the
    validation that cannot flatter: a time split (fitted to the runs published before the
    median date of the fitted runs, judged on the later ones) and an organisation split (each
    organisation's runs predicted with the allowance fitted to the other organisations). The
    shipped range is the 5-95% band of the organisation-out errors of every published run:
    the allowance is fitted to the "fit" runs only, but how far production runs stray from it
    is measured on all of them, the checked ones too (added blind, they strayed further: with
    the band of the fitted runs alone the range held 15 of 27 of them)."""
    inputs = [run_inputs(run, production_factor=1.0) for run in runs]
    steady = np.asarray(
        [
            steady_gpu_hours(inp, k, a, None if ics is None else ics[run["accelerator_id"]], table)
            for inp, run in zip(inputs, runs, strict=True)
        ]
    )
    published = np.asarray([float(run["gpu_hours"]) for run in runs])
    fit_mask = np.asarray([_fitted(run) for run in runs])
    fitted_runs = [run for run, f in zip(runs, fit_mask, strict=True) if f]
    orgs = [_org(run, i) for i, run in enumerate(runs)]
    known = [int(run["gpus"]) for run in fitted_runs if run.get("gpus")]
    logs = np.log(steady / published)
    n = int(fit_mask.sum())
    factor = _r6(float(np.exp(-np.mean(logs[fit_mask]))))
    in_ratio = np.exp(logs) * factor
    fit_logs = logs[fit_mask]
    loo = np.full(len(runs), np.nan)  # leave one run out (fitted runs); check runs: the fit
    loo[fit_mask] = np.exp(fit_logs - (np.sum(fit_logs) - fit_logs) / max(n - 1, 1))
    loo[~fit_mask] = in_ratio[~fit_mask]
    org_out = _org_out_ratios(logs, orgs, fit_mask)
    lo, hi = _quantile_band(org_out[np.isfinite(org_out)])

    dates = sorted(str(run["date"]) for run in fitted_runs)
    cutoff = dates[len(dates) // 2]
    before = np.asarray([str(run["date"]) < cutoff for run in runs])
    early = fit_mask & before
    late = np.asarray([str(run["date"]) >= cutoff for run in runs])
    # the organisation split, each organisation judged with the others' fit
    by_org: dict[str, dict[str, Any]] = {}
    fit_inside = 0
    check_inside = 0
    for org in sorted(set(orgs)):
        mine = np.asarray([o == org for o in orgs])
        if (fit_mask & ~mine).any():
            by_org[org] = judge(logs, orgs, runs, fit_mask & ~mine, mine, inputs, ~mine)
            each = zip(np.flatnonzero(mine), by_org[org]["inside_each"], strict=True)
            for i, ok in each:
                if ok and fit_mask[i]:
                    fit_inside += 1
                elif ok:
                    check_inside += 1
    org_rows = list(by_org.values())
    org_inside = sum(r["inside"] for r in org_rows)
    org_judged = sum(r["judged_runs"] for r in org_rows)
    org_ratio = org_out[np.isfinite(org_out)]
    org_fit_ratio = org_out[fit_mask]
    # the runs never used in any fit, each predicted with the other organisations' allowance:
    # the figure a planner meets on a run the model has not seen
    org_check_ratio = org_out[~fit_mask & np.isfinite(org_out)]
    checked = len(org_check_ratio)
    splits = {
        "time": {
            "cutoff": cutoff,
            "rule": "cutoff = the median publication date of the fitted runs",
            "fitted_only": {
                "cutoff": cutoff,
                **judge(logs, orgs, runs, early, late & fit_mask, inputs, before),
            },
            "all": judge(logs, orgs, runs, early, late, inputs, before),
        },
        "organisation": {
            "organisations": len(org_rows),
            "inside": org_inside,
            "judged_runs": org_judged,
            "coverage": _r6(org_inside / max(1, org_judged)),
            "fitted_inside": fit_inside,
            "fitted_runs": n,
            "fitted_coverage": _r6(fit_inside / max(1, n)),
            "fitted_median_error": _r6(float(np.median(_error(org_fit_ratio)))),
            "fitted_within_1_5": _r6(float(np.mean(_error(org_fit_ratio) <= 1.5))),
            "fitted_median_ratio": _r6(float(np.median(org_fit_ratio))),
            "all_median_ratio": _r6(float(np.median(org_ratio))),
            "all_median_error": _r6(float(np.median(_error(org_ratio)))),
            "checked_runs": checked,
            "checked_inside": check_inside,
            "checked_coverage": _r6(check_inside / checked) if checked else None,
            "checked_median_error": (
                _r6(float(np.median(_error(org_check_ratio)))) if checked else None
            ),
            "checked_within_1_5": (
                _r6(float(np.mean(_error(org_check_ratio) <= 1.5))) if checked else None
            ),
            "checked_median_ratio": _r6(float(np.median(org_check_ratio))) if checked else None,
            "per_organisation": {
                org: {k2: r[k2] for k2 in ("allowance", "judged_runs", "inside", "median_ratio")}
                for org, r in by_org.items()
            },
        },
    }
    dates_all = [str(run["date"]) for run in runs]
    splits["own_organisation"] = own_organisation_split(
        logs, orgs, fit_mask, org_out, dates_all, cutoff
    )
    a_lo, a_hi = np.quantile(published[fit_mask] / steady[fit_mask], (0.10, 0.90))
    return {
        "factor": factor,
        "goodput": DEFAULT_GOODPUT,
        "runs": n,
        "checked_runs": int((~fit_mask).sum()),
        "gpus_range": [min(known), max(known)] if known else None,
        "gpu_hours_range": [_r6(float(published.min())), _r6(float(published.max()))],
        "envelope": envelope(fitted_runs),
        "allowance_range": {
            "quantiles": [0.10, 0.90],
            "low": _r6(float(a_lo)),
            "high": _r6(float(a_hi)),
            "basis": "published/steady GPU-hours of each fitted run",
        },
        "in_sample_median_error": _r6(float(np.median(_error(in_ratio[fit_mask])))),
        "in_sample_within_1_5": _r6(float(np.mean(_error(in_ratio[fit_mask]) <= 1.5))),
        "loo_median_error": _r6(float(np.median(_error(loo[fit_mask])))),
        "loo_within_1_5": _r6(float(np.mean(_error(loo[fit_mask]) <= 1.5))),
        "loo_median_ratio": _r6(float(np.median(loo[fit_mask]))),
        "band": {
            "quantiles": list(SPLIT_QUANTILES),
            "ratio_low": _r6(lo),
            "ratio_high": _r6(hi),
            "basis": "organisation-out predictions of all published runs, fitted and checked",
            "runs": int(np.isfinite(org_out).sum()),
        },
        "splits": splits,
        "per_run": [
            {
                "model": run["model"],
                "organisation": orgs[r],
                "use": "fit" if fit_mask[r] else "check",
                "published": float(run["gpu_hours"]),
                "steady": _r6(float(steady[r])),
                "in_sample": _r6(float(steady[r] * factor)),
                "leave_one_out": _r6(float(published[r] * loo[r])),
                "organisation_out": _r6(float(published[r] * org_out[r])),
            }
            for r, run in enumerate(runs)
        ],
        "source": (
            f"production allowance = exp(−mean log(steady/published)) over the {n} runs marked "
            "'fit' in scripts/data/published_runs.csv (GPU-hours from papers and model cards, "
            "or GPUs × days), steady = the stack-blind model's GPU-hours at goodput "
            f"{DEFAULT_GOODPUT:g}; judged out of sample by a time split and an organisation split"
        ),
    }


def _r6(x: float) -> float:  # 6 significant digits: the JSON stays stable across platforms
    return float(f"{x:.6g}")
