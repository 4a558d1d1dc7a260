"""View-model of the serving estimate (Qt-free): what the Workload tab's inference part shows.

- the throughput-against-latency curve as the concurrency grows (arrays, one point per
  concurrency), with the latency targets as lines;
- time-to-first-token and time-per-output-token cards with formula tooltips and units;
- the cost per million output tokens at the chosen concurrency;
- one line per phase saying what bounds it.

The numbers come from :func:`desktopapp.model.serving.estimate_serving`; this module only
formats them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from desktopapp.application.text import CardView, assumption_rows, formula_tooltip
from desktopapp.model import units
from desktopapp.model.assumptions import Assumption
from desktopapp.model.serving import ServingEstimate, ServingInputs, estimate_serving

FloatArray = npt.NDArray[np.float64]

CURVE_TITLE = "Throughput vs time per output token as concurrency grows"
CURVE_X_LABEL = "time per output token (ms)"
CURVE_Y_LABEL = "output tokens/s per GPU"


@dataclass(frozen=True, eq=False)
class ServingCurveView:
    """One point per concurrency (increasing); all arrays have the same length."""

    concurrency: FloatArray
    tpot_ms: FloatArray
    ttft_ms: FloatArray
    tokens_per_second: FloatArray  # whole deployment
    tokens_per_second_per_gpu: FloatArray
    tokens_per_second_per_user: FloatArray  # 1000 / tpot_ms
    meets_slo: npt.NDArray[np.bool_]
    current_index: int
    title: str = CURVE_TITLE
    x_label: str = CURVE_X_LABEL
    y_label: str = CURVE_Y_LABEL


@dataclass(frozen=True)
class SloLine:
    """A latency target: vertical on the TPOT axis, or on a TTFT plot."""

    axis: str  # "tpot_ms" | "ttft_ms"
    value_ms: float
    label: str
    met: bool


@dataclass(frozen=True, eq=False)
class ServingView:
    ttft: CardView
    tpot: CardView
    throughput: CardView
    cost: CardView | None  # None: no price
    curve: ServingCurveView
    slo_lines: tuple[SloLine, ...]
    bound_notes: tuple[str, ...]
    concurrency_text: str
    cost_text: str
    notes: tuple[str, ...]
    assumptions: tuple[Assumption, ...]
    formula: str
    slo_met: bool | None


def serving_view_for(inputs: ServingInputs) -> ServingView:
    """Estimate and format; raises :class:`~desktopapp.model.validation.InputError`."""
    return serving_view(estimate_serving(inputs))


def _target(value: float, target: float | None) -> str:
    if target is None:
        return ""
    mark = "✓ met" if value <= target else "✗ missed"
    return f" · target {units.format_duration(target)} {mark}"


def _tooltip(title: str, formula: str, est: ServingEstimate) -> str:
    return formula_tooltip(title, formula, assumption_rows(est.assumptions))


def bound_notes(est: ServingEstimate) -> tuple[str, str]:
    """The prefill line ("prefill: compute-bound, …") and the decode line (bytes per step)."""
    inp = est.inputs
    prefill = (
        f"prefill: {est.prefill_bound}-bound, {units.format_duration(est.prefill_seconds)} "
        f"for a {inp.prompt_tokens:,}-token prompt"
    )
    decode = (
        f"decode: {est.decode_bound}-bound at {est.concurrency:,} sequences, reads "
        f"{units.format_bytes(est.bytes_per_step / inp.tp)} per device per step"
    )
    if est.comm_seconds > 0:
        decode += f", all-reduces {units.format_duration(est.comm_seconds)} per step"
    return prefill, decode


def _current_index(concurrency: FloatArray, used: int) -> int:
    return int(np.argmin(np.abs(concurrency - float(used))))


def serving_view(est: ServingEstimate) -> ServingView:
    inp = est.inputs
    c = est.curve
    total_gpus = est.total_gpus
    tpot_ms = np.asarray(c.tpot_seconds, dtype=float) * 1e3
    curve = ServingCurveView(
        concurrency=np.asarray(c.concurrency, dtype=float),
        tpot_ms=tpot_ms,
        ttft_ms=np.asarray(c.ttft_seconds, dtype=float) * 1e3,
        tokens_per_second=np.asarray(c.tokens_per_second, dtype=float),
        tokens_per_second_per_gpu=np.asarray(c.tokens_per_second, dtype=float) / total_gpus,
        tokens_per_second_per_user=1e3 / tpot_ms,
        meets_slo=np.asarray(c.meets_slo, dtype=bool),
        current_index=_current_index(np.asarray(c.concurrency, dtype=float), est.concurrency),
    )
    lines: list[SloLine] = []
    if inp.tpot_slo_s is not None:
        lines.append(
            SloLine(
                "tpot_ms",
                inp.tpot_slo_s * 1e3,
                f"TPOT target {units.format_duration(inp.tpot_slo_s)}",
                est.tpot_seconds <= inp.tpot_slo_s,
            )
        )
    if inp.ttft_slo_s is not None:
        lines.append(
            SloLine(
                "ttft_ms",
                inp.ttft_slo_s * 1e3,
                f"TTFT target {units.format_duration(inp.ttft_slo_s)}",
                est.ttft_seconds <= inp.ttft_slo_s,
            )
        )
    ttft_formula = (
        "TTFT = prefill + one decode step\n"
        f"= {units.format_duration(est.prefill_seconds)} + "
        f"{units.format_duration(est.step_seconds)} = {units.format_duration(est.ttft_seconds)}"
        "\nprefill = max(2·N_active·p + 2·L·d·p² FLOPs / achieved compute, weights / achieved "
        "bandwidth) + all-reduces"
    )
    ttft = CardView(
        units.format_duration(est.ttft_seconds),
        f"prefill {est.prefill_bound}-bound" + _target(est.ttft_seconds, inp.ttft_slo_s),
        _tooltip("Time to first token", ttft_formula + "\n" + est.formula, est),
    )
    tpot = CardView(
        units.format_duration(est.tpot_seconds),
        f"decode {est.decode_bound}-bound · {est.concurrency:,} sequences"
        + _target(est.tpot_seconds, inp.tpot_slo_s),
        _tooltip("Time per output token", est.formula, est),
    )
    throughput = CardView(
        units.format_count(est.tokens_per_second).replace(" ", ""),
        f"{units.format_count(est.tokens_per_second_per_gpu)} per GPU on {total_gpus} GPU(s)",
        _tooltip("Output tokens per second", est.formula, est),
        unit="tokens/s",
    )
    cost: CardView | None = None
    cost_text = ""
    if est.cost_per_million_tokens is not None:
        cost_text = (
            f"{units.format_money(est.cost_per_million_tokens)} per million output tokens at "
            f"{est.concurrency:,} sequences"
        )
        cost = CardView(
            units.format_money(est.cost_per_million_tokens),
            f"per million output tokens at {est.concurrency:,} sequences"
            + (f" ({est.price_source})" if est.price_source else ""),
            _tooltip("Cost per million output tokens", est.formula, est),
        )
    kv = (
        f"the KV cache holds {est.max_concurrency:,}"
        if est.max_concurrency is not None
        else "KV-cache bound unknown (no device memory)"
    )
    return ServingView(
        ttft=ttft,
        tpot=tpot,
        throughput=throughput,
        cost=cost,
        curve=curve,
        slo_lines=tuple(lines),
        bound_notes=bound_notes(est),
        concurrency_text=f"{est.concurrency:,} sequences at once ({est.concurrency_reason}); {kv}",
        cost_text=cost_text,
        notes=est.notes,
        assumptions=est.assumptions,
        formula=est.formula,
        slo_met=est.slo_met,
    )
