"""Fidelity of the training performance model against published figures.

1. Every calibration row of resources/published_throughput.json (from the reference's
   published_throughput.csv), run on the software stack its source names: published MFU/HFU,
   the in-sample prediction and the leave-one-out prediction (the row left out of the
   2-parameter fit), and the share within 1.25× (target: ≥ 80% leave-one-out). The
   stack-blind fit (every row as 'typical', the planner's default) is summarised too.
2. Published GPU-hours of training runs (scripts/data/published_runs.csv, each with its source
   and date; not used in the MFU fit), predicted from what a planner has (params, tokens,
   accelerator, GPU count where published, else 1,024, sequence length, shape, vocabulary, MoE
   top-k, batch and power cap where published; the 'typical' stack). Runs marked "fit" set
   the production allowance; "check" runs are only compared. Judged out of sample only:
   a time split (fitted to the runs published before the median date, judged on the later
   ones) and an organisation split (each organisation's runs predicted with the allowance and
   range fitted to the others). Targets (issue 22): the likely range holds ≥ 80% of the
   judged runs, median error ≤ 1.3×, median predicted/published 0.87-1.15.
3. Measured H200 training throughput (../shared/reference/measured_h200.csv, checked only).

    .venv/bin/python benchmarks/fidelity.py
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktopapp.model.perf_calibration import UNKNOWN_RUN_GPUS, fit_production, run_inputs
from desktopapp.model.perf_training import (
    DEFAULT_GOODPUT,
    WIDEN_PER_REASON,
    RunEstimate,
    RunInputs,
    _throughput_document,
    estimate_run,
    production_fit,
    range_widening,
)

MEASURED = (
    Path(__file__).resolve().parent.parent.parent / "shared" / "reference" / "measured_h200.csv"
)


def _h200_inputs(
    layers: int, hidden: int, heads: int, ffn: int, vocab: int, seq: int, mb: int, **kw: object
) -> RunInputs:
    """One GPU, the given micro-batch, one micro-batch per step, FSDP stack (plain PyTorch),
    production allowance 1, goodput 1: the steady state of a measured training step. N counts
    SwiGLU MLPs (3·h·ffn) and untied input embedding and output head."""
    params = layers * (4 * hidden * hidden + 3 * hidden * ffn) + 2 * vocab * hidden
    fields: dict = dict(
        params=params,
        tokens=1e9,
        accelerator="h200-sxm",
        gpus=1,
        seq_len=seq,
        layers=layers,
        hidden=hidden,
        heads=heads,
        vocab=vocab,
        micro_batch=mb,
        tp=1,
        pp=1,
        dp=1,
        global_batch_tokens=mb * seq,
        software_stack="fsdp",
        production_factor=1.0,
        goodput=1.0,
        recompute=False,
    )
    fields.update(kw)
    return RunInputs(**fields)  # type: ignore[arg-type]


def _tokens_per_s(inp: RunInputs) -> float:
    est = estimate_run(inp)
    return (inp.micro_batch or 1) * (inp.seq_len or 1) / est.step_seconds


def _measured_h200() -> None:
    """Checked-only validation points: the measured H200 throughput rows (not used in any fit),
    and the two shapes issue 22 names (their measured figures are stated in the issue as the
    old model's ratio only, so the term change is shown as a ratio)."""
    import csv

    if not MEASURED.is_file():
        print(f"measured H200 rows: {MEASURED} not present, skipped")
        return
    print("Measured H200 training throughput (checked only, not fitted): predicted/measured")
    with MEASURED.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["metric"] != "tokens_per_second" or row["precision"] != "bf16-autocast":
                continue
            inp = _h200_inputs(
                int(row["layers"]),
                int(row["hidden"]),
                int(row["heads"]),
                int(row["ffn_hidden"]),
                int(row["vocab"]),
                int(row["seq_len"]),
                int(row["micro_batch"]),
            )
            pred = _tokens_per_s(inp)
            print(
                f"  {row['model']:12s} s={row['seq_len']} mb={row['micro_batch']}: measured "
                f"{float(row['value']):,.0f} tokens/s, predicted {pred:,.0f} "
                f"({pred / float(row['value']):.2f}×)"
            )
    for label, shape, old_slow in (
        ("1.36B at seq 8192", (24, 2048, 16, 5632, 32000, 8192, 2), 1.29),
        ("8 layers, hidden 4096, 128k vocab", (8, 4096, 32, 11008, 128256, 2048, 8), 1.31),
    ):
        new = _tokens_per_s(_h200_inputs(*shape))
        old = _tokens_per_s(_h200_inputs(*shape, flash_attention=False, tied_embeddings=True))
        print(
            f"  {label}: the work terms (causal attention, no input-embedding matmul) make the "
            f"prediction {new / old:.2f}× faster; issue 22 measured the old terms "
            f"{old_slow:.2f}× slow"
        )


def _err(ratio: float) -> float:
    return max(ratio, 1.0 / ratio)


def _overheads(est: RunEstimate, top: int = 3) -> str:
    """The largest parts of the step other than compute, as shares of the step."""
    short = {
        "recompute": "recompute",
        "tensor_parallel_comm": "TP",
        "context_parallel_comm": "CP",
        "expert_parallel_comm": "EP",
        "pipeline_comm": "PP sends",
        "pipeline_bubble": "bubble",
        "data_parallel_comm": "DP",
    }
    parts = est.breakdown.to_dict()
    shares = sorted(
        ((v / est.step_seconds, short[k]) for k, v in parts.items() if k in short and v > 0),
        reverse=True,
    )
    text = ", ".join(f"{name} {share:.0%}" for share, name in shares[:top] if share >= 0.005)
    return text or "compute only"


def main() -> int:
    doc = _throughput_document()
    blind = doc["calibration"]
    cal = blind["stack_aware"]
    stacks = [row.get("software_stack", "typical") for row in doc["training"]]
    print(
        "Calibration rows: published vs predicted (MFU, or HFU where published as HFU), each "
        "row on the software stack its source names"
    )
    print(
        f"{'row':70s} {'stack':>8s} {'metric':>6s} {'publ.':>6s} {'in-smp':>6s} {'LOO':>6s} "
        f"{'LOO/pub':>7s}"
    )
    for row, stack in zip(cal["per_row"], stacks, strict=True):
        ratio = row["leave_one_out"] / row["published"]
        flag = "" if _err(ratio) <= 1.25 else "  > 1.25×"
        print(
            f"{row['label'][:70]:70s} {stack:>8s} {row['metric']:>6s} {row['published']:6.3f} "
            f"{row['in_sample']:6.3f} {row['leave_one_out']:6.3f} {ratio:7.2f}{flag}"
        )
    for name, fit in (("stack-aware (megatron/fsdp)", cal), ("stack-blind ('typical')", blind)):
        print(
            f"{name}: non-matmul share k = {fit['kernel_overhead']}, attention efficiency a = "
            f"{fit['attention_efficiency']} ({fit['rows']} rows); in-sample within 1.25×: "
            f"{fit['in_sample_within_1_25']:.0%}; leave-one-out within 1.25×: "
            f"{fit['loo_within_1_25']:.0%}; band {fit['band']['ratio_low']:.2f} … "
            f"{fit['band']['ratio_high']:.2f} (quantiles {fit['band']['quantiles']})"
        )
    print(
        f"leave-one-out within 1.25× (rows on their own stack): {cal['loo_within_1_25']:.0%} "
        "(target ≥ 80%)"
    )
    print()
    prod = production_fit()
    doc_runs = doc["runs"]
    fit = fit_production(doc_runs)  # recomputed here from the committed table, not read back
    print(
        "Published GPU-hours of training runs (scripts/data/published_runs.csv; 'typical' "
        f"stack-blind fit). fit = sets the production allowance (×{fit['factor']:.3f} over "
        f"{fit['runs']} runs), check = compared only. org-out = predicted with the allowance "
        "fitted to the other organisations' runs; range = the app's likely range for the run"
    )
    print(
        f"{'run':20s} {'organisation':13s} {'use':5s} {'acc':>14s} {'GPUs':>6s} "
        f"{'published':>11s} {'org-out':>11s} {'ratio':>6s} {'in?':>4s} {'MFU':>5s}  plan"
    )
    errors, ratios, inside_fit, widened = [], [], 0, []
    for run, row in zip(doc_runs, fit["per_run"], strict=True):
        inp = run_inputs(run)
        est: RunEstimate = estimate_run(inp)
        ratio = row["organisation_out"] / run["gpu_hours"]
        # the shipped range around the org-out prediction (band from all runs: a slight
        # in-sample touch; the split figures below are the strict ones)
        lo = row["organisation_out"] * est.gpu_hours_low / est.gpu_hours
        hi = row["organisation_out"] * est.gpu_hours_high / est.gpu_hours
        inside = lo <= run["gpu_hours"] <= hi
        _, reasons = range_widening(inp, prod.envelope)
        if reasons:
            widened.append((run["model"], inside, reasons))
        if run["use"] == "fit":
            errors.append(_err(ratio))
            ratios.append(ratio)
            inside_fit += inside
        mark = "" if run["gpus"] else "*"
        print(
            f"{run['model'][:20]:20s} {run['organisation'][:13]:13s} {run['use']:5s} "
            f"{run['accelerator_id']:>14s} {inp.gpus:>5d}{mark:1s} {run['gpu_hours']:11,.0f} "
            f"{row['organisation_out']:11,.0f} {ratio:6.2f} {'yes' if inside else 'NO':>4s} "
            f"{est.mfu:5.2f}  TP{est.plan.tp} PP{est.plan.pp} DP{est.plan.dp}; {_overheads(est)}"
        )
    print(f"* GPU count not published: {UNKNOWN_RUN_GPUS:,} assumed")
    for model, inside, reasons in widened:
        print(
            f"  range widened for {model} ({'inside' if inside else 'outside'}): "
            + "; ".join(reasons)
        )
    n = len(errors)
    steady_err = [_err(r["steady"] / r["published"]) for r in fit["per_run"] if r["use"] == "fit"]
    print(
        f"without the production allowance (steady state ÷ goodput {DEFAULT_GOODPUT:g}): "
        f"median error ×{statistics.median(steady_err):.2f}; allowance of each fitted run "
        f"(published/steady) {fit['allowance_range']['low']:.2f}-"
        f"{fit['allowance_range']['high']:.2f} (10-90%)"
    )
    print(
        f"in-sample (allowance fitted to all {n} runs, for reference only): median error "
        f"×{fit['in_sample_median_error']:.2f}, within 1.5× {fit['in_sample_within_1_5']:.0%}"
    )
    t = fit["splits"]["time"]
    for label, key in (("fitted runs", "fitted_only"), ("all runs incl. check", "all")):
        s_ = t[key]
        print(
            f"TIME SPLIT ({label}): allowance fitted to the {s_['train_runs']} fit runs published "
            f"before {t['cutoff']} ({t['rule']}) = ×{s_['allowance']:.3f}; on the "
            f"{s_['judged_runs']} later runs: range held the published GPU-hours on "
            f"{s_['inside']} of {s_['judged_runs']} ({s_['coverage']:.0%}), median error "
            f"×{s_['median_error']:.2f}, within 1.5× {s_['within_1_5']:.0%}, median "
            f"predicted/published {s_['median_ratio']:.2f}"
        )
    o = fit["splits"]["organisation"]
    print(
        f"ORGANISATION SPLIT: each of {o['organisations']} organisations left out in turn "
        f"(allowance and range fitted to the others): range held the published GPU-hours on "
        f"{o['fitted_inside']} of {o['fitted_runs']} fitted runs ({o['fitted_coverage']:.0%}) "
        f"and {o['inside']} of {o['judged_runs']} runs incl. check ({o['coverage']:.0%}); "
        f"fitted runs: median error ×{o['fitted_median_error']:.2f}, within 1.5× "
        f"{o['fitted_within_1_5']:.0%}, median predicted/published "
        f"{o['fitted_median_ratio']:.2f} (targets: ≥ 80% inside, ≤ ×1.3, 0.87-1.15)"
    )
    print(
        f"  checked runs (never used in any fit), each with the other organisations' "
        f"allowance: range held {o['checked_inside']} of {o['checked_runs']} "
        f"({o['checked_coverage']:.0%}); median error ×{o['checked_median_error']:.2f} "
        f"(target ≤ ×1.3: {'met' if o['checked_median_error'] <= 1.3 else 'NOT met'}), "
        f"within 1.5× {o['checked_within_1_5']:.0%}, median predicted/published "
        f"{o['checked_median_ratio']:.2f}; all {o['judged_runs']} runs: median error "
        f"×{o['all_median_error']:.2f}, median predicted/published {o['all_median_ratio']:.2f}"
    )
    for org, r in o["per_organisation"].items():
        print(
            f"  {org:14s} allowance without it ×{r['allowance']:.3f}; {r['inside']} of "
            f"{r['judged_runs']} inside; median predicted/published {r['median_ratio']:.2f}"
        )
    own = fit["splits"]["own_organisation"]
    chk = own["checked"]
    print(
        f"OWN-ORGANISATION FIT (`desktopapp calibrate`: the allowance fitted to a team's own "
        f"runs): {own['runs']} runs of the {own['organisations']} organisations with two runs or "
        f"more, each predicted with the allowance of its organisation's other runs: median error "
        f"×{own['own_median_error']:.2f}, within 1.5× {own['own_within_1_5']:.0%}, median "
        f"predicted/published {own['own_median_ratio']:.2f}; the same runs with the other "
        f"organisations' allowance: ×{own['others_median_error']:.2f}, within 1.5× "
        f"{own['others_within_1_5']:.0%}"
    )
    if chk.get("runs"):
        print(
            f"  of them the {chk['runs']} checked runs: ×{chk['own_median_error']:.2f} "
            f"(within 1.5× {chk['own_within_1_5']:.0%}) against ×"
            f"{chk['others_median_error']:.2f} ({chk['others_within_1_5']:.0%})"
        )
    band = own["band"]
    bt = band.get("time_split") or {}
    print(
        f"  the range of an estimate with a given production factor: the 5-95% band of these "
        f"runs, {band['ratio_low']:.2f}-{band['ratio_high']:.2f} predicted/published"
        + (
            f"; built from the {bt['early_runs']} runs published before {bt['cutoff']} "
            f"({bt['band'][0]:.2f}-{bt['band'][1]:.2f}), it held {bt['inside']} of "
            f"{bt['later_runs']} later runs ({bt['inside'] / bt['later_runs']:.0%})"
            if bt
            else ""
        )
    )
    print(
        f"shipped range: the {prod.band_quantiles[0]:.0%}-{prod.band_quantiles[1]:.0%} band of "
        f"the organisation-out errors of all {prod.runs + prod.checked_runs} runs, fitted and "
        f"checked ({prod.band_low:.2f}-{prod.band_high:.2f} predicted/published), widened "
        f"×{WIDEN_PER_REASON:g} per reason off the fitted envelope; "
        f"{inside_fit} of {n} fitted runs inside it around their org-out prediction"
    )
    print()
    _measured_h200()
    print()
    return __import__("fidelity_serving").main()  # serving rows (issue 14), same folder


if __name__ == "__main__":
    sys.exit(main())
