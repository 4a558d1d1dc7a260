"""The defaults every face uses, declared once (issue 21): serving's operating point, the
meaning of ``--batch-size`` and the GPU count assumed for a training question without one.

Serving
    A language model is served as an engine serves it: continuous batching at the highest
    concurrency that meets the latency targets, fits the KV cache and stays under the engine
    cap (:data:`desktopapp.model.serving.DEFAULT_MAX_BATCH`). A batch size the user gives is
    the number of sequences running at once (continuous batching) in the CLI and the GUI alike;
    static batching only when asked for (``--batching static``). The latency of one request on
    an idle engine is its own figure (:func:`single_request_inputs`), never the default cost.

GPU count
    When a training question gives no GPU count, :data:`GPU_CANDIDATES` are tried and the
    smallest fleet whose plan fits memory and finishes within the deadline (the user's
    ``--deadline-days``, else :data:`DEFAULT_DEADLINE_DAYS`) is taken, keeping the MFU within
    :data:`MFU_TOLERANCE` of the best such fleet. When none meets the deadline, the fastest
    fleet whose MFU stays within :data:`FALLBACK_MFU_SHARE` of the best fitting one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktopapp.model.inference import InferenceInputs

if TYPE_CHECKING:
    # The serving model: imported by serving_inputs, not when the window starts.
    from desktopapp.model.serving import ServingInputs

GPU_CANDIDATES: tuple[int, ...] = tuple(2**k for k in range(17))  # 1 … 65,536
DEFAULT_DEADLINE_DAYS = 90.0
DEADLINE_SOURCE = (
    "planning default, not sourced: published large pre-training runs took one to three months "
    "of wall time (Llama 3 405B about 54 days, Dubey et al. 2024, §3.3.4)"
)
MFU_TOLERANCE = 0.05
FALLBACK_MFU_SHARE = 0.80

BATCHING_DEFAULT = "continuous"

# serving options beyond the roofline's inputs, passed through to ServingInputs when given
SERVING_EXTRA_FIELDS = (
    "active_params",
    "experts",
    "moe_top_k",
    "head_dim",
    "kv_precision",
    "pp",
    "replicas",
    "max_running",
    "step_overhead_s",
    "compute_share",
    "bandwidth_share",
    "memory_gb",
)


@dataclass(frozen=True)
class ServingOptions:
    """How the engine serves: ``batching`` (None: continuous), ``concurrency`` (None: the
    highest the targets, the KV cache and the cap allow), latency targets (seconds) and the
    serving-only fields (``extra``: name → value, see :data:`SERVING_EXTRA_FIELDS`).
    ``batch_size_given``: the batch size was typed by the user (it then sets the concurrency
    of continuous batching, or the static batch)."""

    batching: str | None = None
    concurrency: int | None = None
    ttft_slo_s: float | None = None
    tpot_slo_s: float | None = None
    batch_size_given: bool = False
    extra: tuple[tuple[str, Any], ...] = field(default=())


def serving_inputs(
    inference: InferenceInputs, options: ServingOptions | None = None
) -> ServingInputs:
    """The serving model's inputs for one workload: the one rule of every face (the GUI's
    Workload tab, ``estimate inference``, the report). A batch size the user gave is the
    concurrency; with latency targets the targets pick the concurrency (up to the batch size
    when it is above the engine cap)."""
    from desktopapp.model.serving import DEFAULT_MAX_BATCH, from_inference

    opts = options or ServingOptions()
    ttft = opts.ttft_slo_s if opts.ttft_slo_s is not None else inference.ttft_target_s
    tpot = opts.tpot_slo_s if opts.tpot_slo_s is not None else inference.tpot_target_s
    batching = opts.batching or BATCHING_DEFAULT
    concurrency = opts.concurrency
    extra = dict(opts.extra)
    targets = ttft is not None or tpot is not None
    if concurrency is None and batching == "continuous" and opts.batch_size_given:
        if targets:  # the targets pick the concurrency, up to the batch size if it is higher
            extra.setdefault("max_running", max(inference.batch_size, DEFAULT_MAX_BATCH))
        else:
            concurrency = inference.batch_size
    cap = int(extra.pop("max_running", DEFAULT_MAX_BATCH))
    if concurrency is not None and "max_running" not in dict(opts.extra):
        cap = max(cap, int(concurrency))
    return from_inference(
        inference,
        batching=batching,
        concurrency=concurrency if batching == "continuous" else None,
        batch_size=inference.batch_size,
        max_running=cap,
        ttft_slo_s=ttft,
        tpot_slo_s=tpot,
        **extra,
    )


def single_request_inputs(inputs: ServingInputs) -> ServingInputs:
    """One request on an idle engine (its latency is shown beside the operating point)."""
    from dataclasses import replace

    return replace(
        inputs,
        batching="continuous",
        concurrency=1,
        ttft_slo_s=None,
        tpot_slo_s=None,
        max_running=max(1, inputs.max_running),
    )
