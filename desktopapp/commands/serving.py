"""The serving part of ``desktopapp estimate inference`` (language models): options, the
model's inputs from them, JSON and text output. Non-language models (``--forward-flops``) keep
the one-step roofline of :mod:`desktopapp.model.inference`.
"""

from __future__ import annotations

import argparse
from typing import Any

from desktopapp.application import defaults
from desktopapp.application.defaults import ServingOptions
from desktopapp.commands.options import option_size
from desktopapp.commands.output import print_bullet, print_key_values, print_paragraph
from desktopapp.model import units
from desktopapp.model.inference import InferenceEstimate, InferenceInputs
from desktopapp.model.serving import (
    BATCHING_MODES,
    DEFAULT_MAX_BATCH,
    KV_PRECISIONS,
    ServingEstimate,
    ServingInputs,
    static_sweep,
)


def add_routing_options(p: argparse.ArgumentParser, count: Any) -> None:
    """The served model's routing and KV format (``estimate inference`` and ``plan serve``;
    saved with a scenario's inference inputs)."""
    p.add_argument("--experts", type=count, help="experts per MoE layer (default 8)")
    p.add_argument("--moe-top-k", type=count, help="experts per token (default 2)")
    p.add_argument(
        "--kv-precision",
        choices=KV_PRECISIONS,
        help="KV-cache number format (default 16 bit; fp8 halves it)",
    )


def add_options(p: argparse.ArgumentParser, quantity: Any, count: Any) -> None:
    """Options of the serving model, added to ``estimate inference``."""
    p.add_argument(
        "--batching",
        choices=BATCHING_MODES,
        help="continuous (serving engines; the default, and --batch-size is then the number "
        "of sequences at once) or static (batch jobs: one batch of --batch-size at a time)",
    )
    p.add_argument(
        "--concurrency",
        type=count,
        help="sequences running at once per replica (continuous batching; default: the most "
        "that meet the latency targets, the KV cache and the engine cap allow)",
    )
    p.add_argument("--ttft-slo-ms", type=quantity, help="target time to first token, ms")
    p.add_argument("--tpot-slo-ms", type=quantity, help="target time per output token, ms")
    p.add_argument(
        "--active-params",
        type=option_size,
        help="parameters each token uses (mixture of experts; default: all)",
    )
    add_routing_options(p, count)
    p.add_argument("--head-dim", type=count, help="attention head width (default hidden/heads)")
    p.add_argument(
        "--pp", type=count, help="pipeline stages among the --gpus of one replica (default 1)"
    )
    p.add_argument("--replicas", type=count, help="copies of the deployment (default 1)")
    p.add_argument(
        "--max-running",
        type=count,
        help=f"engine cap on running sequences (default {DEFAULT_MAX_BATCH}, vLLM's max_num_seqs)",
    )
    p.add_argument(
        "--step-overhead-ms",
        type=quantity,
        help="fixed time per engine step, ms (default: fitted to published results)",
    )


def serving_options(args: argparse.Namespace, base: InferenceInputs) -> ServingOptions:
    """How the engine serves, from the options given (the defaults are
    :mod:`desktopapp.application.defaults`': continuous batching at the highest concurrency the
    targets, the KV cache and the engine cap allow; a given --batch-size is the concurrency)."""
    extra: dict[str, Any] = {}
    for name in ("active_params", "experts", "head_dim", "kv_precision", "pp", "replicas"):
        value = getattr(args, name, None)
        if value is not None:
            extra[name] = value
    if args.moe_top_k is not None:
        extra["moe_top_k"] = args.moe_top_k
    if args.max_running is not None:
        extra["max_running"] = args.max_running
    if args.step_overhead_ms is not None:
        extra["step_overhead_s"] = _ms("step_overhead_ms", args.step_overhead_ms, allow_zero=True)
    if getattr(args, "utilization", None) is not None:
        extra["compute_share"] = base.utilization
    if getattr(args, "bandwidth_efficiency", None) is not None:
        extra["bandwidth_share"] = base.bandwidth_efficiency
    return ServingOptions(
        batching=args.batching,
        concurrency=args.concurrency,
        ttft_slo_s=None if args.ttft_slo_ms is None else _ms("ttft_slo_ms", args.ttft_slo_ms),
        tpot_slo_s=None if args.tpot_slo_ms is None else _ms("tpot_slo_ms", args.tpot_slo_ms),
        batch_size_given=getattr(args, "batch_size", None) is not None,
        extra=tuple(sorted(extra.items())),
    )


def serving_inputs(args: argparse.Namespace, base: InferenceInputs) -> ServingInputs:
    """The serving model's inputs: the one rule of every face
    (:func:`desktopapp.application.defaults.serving_inputs`) with the options given."""
    return defaults.serving_inputs(base, serving_options(args, base))


def _ms(field: str, value: float, allow_zero: bool = False) -> float:
    from desktopapp.model.validation import require_non_negative, require_range

    if allow_zero:
        return require_range(field, value, 0.0, 1000.0) / 1000.0
    require_non_negative(field, value)
    return require_range(field, value, 0.001, 86_400_000.0) / 1000.0


# Keys the roofline printed that the serving model now answers (same meaning, see README).
SHARED_KEYS = {
    "step_seconds": "step_seconds",
    "bound": "bound",
    "compute_seconds": "compute_seconds",
    "memory_seconds": "memory_seconds",
    "flops_per_step": "flops_per_step",
    "bytes_per_step": "bytes_per_step",
    "prefill_seconds": "prefill_seconds",
    "latency_seconds": "latency_seconds",
    "decode_tokens_per_second": "decode_tokens_per_second",
    "requests_per_second": "requests_per_second",
}


def payload(est: InferenceEstimate, serving: ServingEstimate) -> dict[str, Any]:
    """The roofline's JSON with the serving model's answers (new keys added, shared ones
    replaced so that every figure comes from one model)."""
    doc = est.to_dict()
    sdoc = serving.to_dict()
    for key, source in SHARED_KEYS.items():
        doc[key] = sdoc[source]
    doc.update(sdoc)
    doc["throughput_per_second"] = serving.tokens_per_second
    doc["tokens_per_second"] = serving.tokens_per_second
    doc["cost_per_million"] = serving.cost_per_million_tokens
    doc["cost_per_million_tokens"] = serving.cost_per_million_tokens
    doc["formula"] = serving.formula
    doc["assumptions"] = [a.to_dict() for a in (*serving.assumptions, *est.assumptions[:2])]
    doc["inputs"]["batching"] = serving.batching
    return doc


def sweep_payload(inputs: ServingInputs, batch_sizes: Any) -> dict[str, Any]:
    sw = static_sweep(inputs, batch_sizes)
    return {
        "batch_size": sw.batch_size.astype(int).tolist(),
        "step_seconds": sw.step_seconds.tolist(),
        "throughput_per_second": sw.throughput_per_second.tolist(),
        "latency_seconds": sw.latency_seconds.tolist(),
        "bound": ["compute" if c else "memory" for c in sw.compute_bound.tolist()],
        "cost_per_million": None if sw.cost_per_million is None else sw.cost_per_million.tolist(),
        "memory_per_device_bytes": sw.memory_per_device_bytes.tolist(),
    }


def print_serving(
    e: ServingEstimate, device: str, single: ServingEstimate | None = None, headline: str = ""
) -> None:
    inp = e.inputs
    where = f"{inp.gpus} × {device}" + (f", {inp.replicas:,} replicas" if inp.replicas > 1 else "")
    mode = (
        f"continuous batching, {units.plural(e.concurrency, 'sequence')}"
        if e.batching == "continuous"
        else f"static batch {inp.batch_size}"
    )
    print_paragraph(f"Serving estimate ({inp.precision}, {mode}, {where})")
    if headline:  # the Workload tab's serving line, word for word
        print_paragraph(headline)
    rows = [
        ("time to first token", units.format_duration(e.ttft_seconds)),
        ("time per output token", units.format_duration(e.tpot_seconds)),
        (
            "throughput",
            f"{units.format_plain(e.tokens_per_second, 4)} output tokens/s "
            f"({units.format_plain(e.tokens_per_second_per_gpu, 4)} per GPU)",
        ),
        ("decode step", f"{units.format_duration(e.step_seconds)} ({e.decode_bound}-bound)"),
        (
            "latency per request",
            f"{units.format_duration(e.latency_seconds)} ({inp.prompt_tokens} prompt + "
            f"{inp.output_tokens} output tokens)",
        ),
        ("concurrency", f"{e.concurrency} ({e.concurrency_reason})"),
    ]
    if single is not None:
        rows.append(
            (
                "one request alone",
                f"{units.format_duration(single.latency_seconds)} (time to first token "
                f"{units.format_duration(single.ttft_seconds)}; an idle engine, not the cost)",
            )
        )
    if e.max_concurrency is not None:
        rows.append(("KV cache holds", units.plural(e.max_concurrency, "sequence")))
    cost = units.format_money(e.cost_per_million_tokens)
    if e.price_per_gpu_hour is not None:
        cost += f" at {units.format_money(e.price_per_gpu_hour)}/GPU-hour"
    elif e.price_source:
        cost += f" ({e.price_source})"
    rows.append(("cost per million output tokens", cost))
    if e.slo_met is not None:
        rows.append(("latency targets", "met" if e.slo_met else "NOT met"))
    print_key_values(rows)
    for note in e.notes:
        print_bullet(note)
