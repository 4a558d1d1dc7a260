"""Serving model against published measurements: every row of
``resources/serving_calibration.json``, predicted (with the fitted defaults and leave-one-out)
against measured, and the old one-step roofline for comparison.

    python benchmarks/fidelity_serving.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from serving_catalog import OUT, predict  # noqa: E402

from desktopapp.model.inference import InferenceInputs, estimate_inference  # noqa: E402

UNITS = {"decode_rate": "tok/s/user", "throughput": "tok/s", "ttft": "s"}


def _old(row: dict) -> float | None:
    """The one-step roofline the app used before (static batch, no communication)."""
    i = row["inputs"]
    if i.get("active_params"):
        return None
    args = {
        k: i[k]
        for k in ("params", "accelerator", "layers", "hidden", "heads", "kv_heads")
        if k in i
    }
    prec = i.get("precision", "bf16")
    batch = 1 if row["kind"] != "throughput" else i.get("batch_size", 256)
    est = estimate_inference(
        InferenceInputs(
            **args,
            precision=prec,
            gpus=i.get("gpus", 1),
            batch_size=batch,
            prompt_tokens=i.get("prompt_tokens", 512),
            output_tokens=i.get("output_tokens", 256),
        )
    )
    if row["kind"] == "decode_rate":
        return 1.0 / est.step_seconds
    if row["kind"] == "ttft":
        return est.prefill_seconds
    return est.throughput_per_second


def main() -> int:
    doc = json.loads(OUT.read_text(encoding="utf-8"))
    fit = doc["fit"]
    rows = doc["rows"]
    print(
        "Serving rows: published vs predicted (fitted defaults), leave-one-out error, and the "
        "old one-step roofline"
    )
    print(f"{'row':<86} {'published':>10} {'model':>10} {'ratio':>6} {'LOO err':>8} {'old':>6}")
    old_err = []
    for row, loo in zip(rows, fit["loo_errors"], strict=True):
        pred = float(predict(row))
        old = _old(row)
        ratio = pred / row["value"]
        old_ratio = None if old is None else old / row["value"]
        if old_ratio is not None:
            old_err.append(max(old_ratio, 1 / old_ratio))
        unit = UNITS[row["kind"]]
        print(
            f"{row['name'][:86]:<86} {row['value']:>10,.4g} {pred:>10,.4g} {ratio:>6.2f} "
            f"{loo:>8.2f} {'' if old_ratio is None else f'{old_ratio:.2f}':>6}  {unit}"
        )
    print(
        f"fitted: bandwidth share {fit['bandwidth_share']:.2f}, compute share "
        f"{fit['compute_share']:.2f}, overhead per step {fit['step_overhead_s'] * 1e3:.2f} ms, "
        f"all-reduce latency (2 devices) {fit['allreduce_latency_s'] * 1e6:.0f} µs, GEMM "
        f"half-rate rows M½ {fit.get('gemm_half_ridge', 0.0):.2f} × the rows where FLOP time "
        "equals weight-read time (dense matmuls: the step's tokens; routed experts: k/E of them)"
    )
    print(
        f"in-sample: {fit['in_sample_within_1_5']:.0%} within 1.5×, median error "
        f"×{fit['in_sample_median_error']:.2f}"
    )
    print(
        f"leave-one-out: {fit['loo_within_1_5']:.0%} within 1.5× (target ≥ 80%), median error "
        f"×{fit['loo_median_error']:.2f} (target ≤ 1.25)"
    )
    if old_err:
        arr = np.asarray(old_err)
        print(
            f"old one-step roofline on the {arr.size} dense rows: {np.mean(arr <= 1.5):.0%} within "
            f"1.5×, median error ×{np.median(arr):.2f}"
        )
    print(f"software generation of the defaults: {doc['software']}")
    hold = doc.get("holdout") or []
    if hold:
        print(
            "\nSources NOT used for calibration (other GPUs, engines and publishers; fitted "
            "defaults, no refit):"
        )
        print(f"{'row':<70} {'published':>10} {'model':>10} {'ratio':>6}")
        errors: dict[str, list[float]] = {}
        for row in hold:
            pred = float(np.asarray(predict(row), dtype=float).reshape(-1)[0])
            ratio = pred / row["value"]
            errors.setdefault(row["source"], []).append(max(ratio, 1 / ratio))
            print(
                f"{row['name'][:70]:<70} {row['value']:>10,.4g} {pred:>10,.4g} {ratio:>6.2f}  "
                f"{UNITS[row['kind']]}"
            )
        every = np.concatenate([np.asarray(v) for v in errors.values()])
        for source, errs in errors.items():
            arr = np.asarray(errs)
            print(
                f"  {np.mean(arr <= 1.5):4.0%} within 1.5×, median ×{np.median(arr):.2f} "
                f"({arr.size} rows): {source[:90]}"
            )
        blind = np.asarray(
            [
                max(r["predicted"] / r["value"], r["value"] / r["predicted"])
                for r in hold
                if r.get("blind")
            ]
        )
        if blind.size:
            print(
                f"  blind subset (added after the GPU/engine split was settled): "
                f"{np.mean(blind <= 1.5):.0%} within 1.5×, median ×{np.median(blind):.2f} "
                f"({blind.size} rows)"
            )
        unseen = doc.get("holdout_summary", {}).get("unseen_gpus")
        if unseen:
            print(
                f"  on GPUs with no calibration rows ({', '.join(unseen['gpus'])}): "
                f"{unseen['within_1_5']:.0%} within 1.5×, median ×{unseen['median_error']:.2f} "
                f"({unseen['rows']} rows); predicted/measured {unseen['ratio_low']:.2f}-"
                f"{unseen['ratio_high']:.2f} (the likely range given for such GPUs)"
            )
        lo, hi = np.quantile(
            [float(np.asarray(predict(r), dtype=float).reshape(-1)[0]) / r["value"] for r in hold],
            [0.1, 0.9],
        )
        print(
            f"out of sample: {np.mean(every <= 1.5):.0%} within 1.5× (target ≥ 80%), median "
            f"error ×{np.median(every):.2f} over {every.size} rows from {len(errors)} sources; "
            f"predicted/measured 10-90% range {lo:.2f}-{hi:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
