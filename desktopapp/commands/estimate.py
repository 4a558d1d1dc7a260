"""``desktopapp estimate train|memory|inference`` (and ``tco`` where that module exists).

Options map one to one onto the model's input fields (``--zero-stage`` → ``zero_stage``), so
a ``ValueError`` from the model names the option. Numeric options accept ``110M``, ``7B``,
``1.5e9``; a value argparse cannot read ends as exit status 2 with one line naming the option.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import math
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from desktopapp.cli_base import flag
from desktopapp.commands.calibrate import add_past_runs_option, apply_past_runs
from desktopapp.commands.options import (
    add_command,
    add_json_option,
    add_run_terms,
    ask_for_subcommand,
    option_count,
    option_fraction,
    option_money,
    option_number,
    option_size,
)
from desktopapp.commands.output import (
    output_width,
    print_bullet,
    print_json,
    print_key_values,
    print_paragraph,
    print_table,
    warn_implausible,
)
from desktopapp.model import perf_training, units
from desktopapp.model.assumptions import Assumption
from desktopapp.model.catalog import PRICING_MODELS
from desktopapp.model.inference import (
    INFERENCE_PRECISIONS,
    InferenceEstimate,
    InferenceInputs,
    inference_sweep_batch,
)
from desktopapp.model.inference import with_catalog_price as inference_catalog_price
from desktopapp.model.memory import (
    INFERENCE_PRECISIONS as MEMORY_PRECISIONS,
)
from desktopapp.model.memory import (
    MLPS,
    MODES,
    OPTIMIZERS,
    SHAPE_TERMS,
    MemoryEstimate,
    MemoryInputs,
)
from desktopapp.model.presets import get_preset, preset_ids
from desktopapp.model.scenario import (
    inference_inputs_from_scenario,
    memory_inputs_from_scenario,
    training_inputs_from_scenario,
)
from desktopapp.model.training import (
    METHODS,
    TRAINING_PRECISIONS,
    TrainingEstimate,
    TrainingInputs,
    with_catalog_price,
)
from desktopapp.model.training_defaults import MAX_EXPERTS

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
SWEEP_BATCH_SIZES: tuple[int, ...] = tuple(2**i for i in range(11))  # 1 … 1024


# --- argparse value types --------------------------------------------------------------------


# ``110M``, ``7B``, ``1.5e9`` → float; anything else is an argparse error (exit 2)
quantity = option_number
size = option_size  # a parameter or token count: 110M, 7B, 3.3T
fraction = option_fraction  # 0.4 or 40%
money = option_money  # 2.49 or $1.99


count = option_count  # a whole number comes back as int (8, 1k)


def _add_starting_points(parser: argparse.ArgumentParser) -> None:
    """--preset and --scenario: where the inputs start; options given on the line override."""
    parser.add_argument(
        "--preset",
        help="start from a workload preset (options given override it): " + ", ".join(preset_ids()),
    )
    parser.add_argument(
        "--scenario", metavar="FILE", help="start from a saved scenario (options given override it)"
    )


def _choices_help(text: str, choices: Sequence[str]) -> str:
    return f"{text} ({', '.join(choices)})"


# --- register --------------------------------------------------------------------------------


def register(subparsers: Any) -> None:
    estimate = add_command(
        subparsers,
        "estimate",
        "training compute/time/cost, memory per device, inference roofline, rent vs buy",
        "Estimate what ML work needs. Add --json for machine-readable output.",
    )

    sub = estimate.add_subparsers(dest="estimate_command", metavar="WHAT")
    ask_for_subcommand(
        estimate,
        lambda: (
            f"say what to estimate: {', '.join(sub.choices)} "
            "(desktopapp estimate --help lists them)"
        ),
    )
    _register_train(sub)
    _register_memory(sub)
    _register_inference(sub)
    try:
        tco = importlib.import_module("desktopapp.commands.tco")
    except ModuleNotFoundError as exc:
        if exc.name != "desktopapp.commands.tco":
            raise
    else:
        tco.register_tco(sub)
        tco_parser = sub.choices.get("tco")
        tco_handler = tco_parser.get_default("handler") if tco_parser is not None else None
        if tco_parser is not None and tco_handler is not None:
            # the same overflow / memory guard; inf allowed in JSON (never breaks even)
            tco_parser.set_defaults(handler=_guard(tco_handler, strict_json=False))


def _register_train(sub: Any) -> None:
    p = add_command(
        sub,
        "train",
        "training compute, wall time, GPU-hours and cost",
        "C = 6·N·D (--params, --tokens) or C = 3 × forward × samples × epochs (--forward-flops, "
        "--samples, --epochs); T = C / (peak × utilization × devices).",
        _guard(run_train),
    )
    _add_starting_points(p)
    p.add_argument("--params", type=size, help="parameters N (e.g. 110M, 7B)")
    p.add_argument("--tokens", type=size, help="training tokens D per epoch (e.g. 3.3B)")
    p.add_argument("--forward-flops", type=size, help="forward FLOPs per sample (2 × MACs)")
    p.add_argument("--samples", type=quantity, help="training samples per epoch")
    p.add_argument("--epochs", type=quantity, help="passes over the data (default 1)")
    p.add_argument("--method", help=_choices_help("compute rule, default auto", METHODS))
    p.add_argument(
        "--accelerator",
        help="catalog id (desktopapp catalog accelerators); this or --peak-tflops is required",
    )
    p.add_argument(
        "--peak-tflops",
        type=quantity,
        help="per-device dense peak in TFLOP/s; this or --accelerator is required",
    )
    p.add_argument(
        "--precision", help=_choices_help("compute precision, default bf16", TRAINING_PRECISIONS)
    )
    p.add_argument(
        "--gpus",
        type=count,
        help="devices (default: the smallest fleet whose plan fits and meets --deadline-days; "
        "the output says which)",
    )
    p.add_argument(
        "--deadline-days",
        type=quantity,
        help="wall time the run must finish in when --gpus is not given (default 90 days)",
    )
    p.add_argument(
        "--utilization",
        type=fraction,
        help="model FLOPs utilization in (0, 1] (default: the accelerator's published figure "
        "where the catalog has one, else 0.40)",
    )
    p.add_argument(
        "--price",
        "--price-per-gpu-hour",  # as monitor and cluster spell it
        dest="price",
        type=money,
        help="USD per GPU-hour (default: the cheapest catalog offer for --accelerator under "
        "--pricing; no cost without either)",
    )
    p.add_argument(
        "--pricing",
        default="on_demand",
        help=_choices_help("catalog price used when --price is omitted", PRICING_MODELS),
    )
    p.add_argument(
        "--project-margin",
        type=quantity,
        help="whole-project multiplier (default 3; rule of thumb 2-3×)",
    )
    # modelled run (issue 13): shape, plan and batch; see desktopapp.model.perf_training
    p.add_argument("--seq-len", type=count, help="sequence length (default 4096)")
    p.add_argument("--layers", type=count, help="transformer layers (with --hidden --heads)")
    p.add_argument("--hidden", type=count, help="hidden size")
    p.add_argument("--heads", type=count, help="attention heads")
    p.add_argument("--kv-heads", type=count, help="key/value heads (GQA; default = heads)")
    _add_shape_terms(p)
    p.add_argument(
        "--active-params", type=size, help="active parameters per token (mixture of experts)"
    )
    p.add_argument("--tp", type=count, help="tensor-parallel degree (default: searched)")
    p.add_argument("--pp", type=count, help="pipeline-parallel degree (default: searched)")
    p.add_argument("--dp", type=count, help="data-parallel degree (default: GPUs ÷ TP ÷ PP)")
    p.add_argument("--micro-batch", type=count, help="sequences per micro-batch (searched)")
    p.add_argument(
        "--global-batch-tokens",
        type=size,
        help="tokens per optimizer step (default: by model size and fleet, 0.5M-16M, shown "
        "under Assumptions)",
    )
    add_run_terms(p)
    p.add_argument(
        "--production-factor",
        "--production-allowance",
        dest="production_factor",
        type=quantity,
        help="production allowance: wall time of a production run over the modelled steady "
        "state ÷ goodput (ablations, data/schedule changes, idle capacity), 1-3 (default: "
        "fitted to published runs' GPU-hours, shown under Assumptions; 1 = as fast as a tuned "
        "benchmark); failures and restarts are --goodput-overhead",
    )
    add_past_runs_option(p)
    p.add_argument(
        "--busbw-gbs",
        type=quantity,
        help="measured all-reduce bus bandwidth inside a node, GB/s (e.g. from `bench --suite "
        "allreduce`; default: the interconnect catalog's)",
    )
    add_json_option(p)


def _add_shape_terms(p: argparse.ArgumentParser) -> None:
    """The memory terms of a transformer's shape (train and memory take them alike)."""
    p.add_argument(
        "--ffn-hidden", type=count, help="MLP width (default 4·hidden for gelu, ≈8·hidden/3 swiglu)"
    )
    p.add_argument("--vocab", type=count, help="vocabulary size (default 32000, Llama 2)")
    p.add_argument("--mlp", help=_choices_help("MLP kind, default swiglu", MLPS))


def _register_memory(sub: Any) -> None:
    p = add_command(
        sub,
        "memory",
        "memory per device: weights, gradients, optimizer, activations, KV cache",
        "Memory per device for training (ZeRO 0-3) or inference, and whether it fits the "
        "accelerator's memory.",
        _guard(run_memory),
    )
    _add_starting_points(p)
    p.add_argument("--params", type=size, help="parameters (e.g. 7B)")
    p.add_argument(
        "--precision",
        help=_choices_help("default mixed (train) / bf16 (inference)", MEMORY_PRECISIONS),
    )
    p.add_argument("--optimizer", help=_choices_help("default adamw", OPTIMIZERS))
    p.add_argument("--mode", help=_choices_help("default train", MODES))
    p.add_argument(
        "--layers", type=count, help="transformer layers (no default: activations need the shape)"
    )
    p.add_argument("--hidden", type=count, help="hidden size (no default)")
    p.add_argument("--heads", type=count, help="attention heads (no default)")
    p.add_argument("--kv-heads", type=count, help="key/value heads (GQA; default = heads)")
    p.add_argument("--seq-len", type=count, help="sequence length (no default)")
    _add_shape_terms(p)
    p.add_argument(
        "--micro-batch",  # as `estimate train` spells it
        "--batch-size",
        dest="batch_size",
        metavar="N",
        type=count,
        help="sequences per micro-batch per device (default 1)",
    )
    p.add_argument(
        "--checkpointing",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="full activation checkpointing",
    )
    p.add_argument(
        "--flash-attention",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="attention scores not stored (SDPA flash kernel, PyTorch ≥ 2.0; the default); "
        "--no-flash-attention: the probabilities are kept",
    )
    p.add_argument("--zero-stage", type=count, help="ZeRO stage 0-3 (default 0)")
    p.add_argument(
        "--gpus", type=count, help="devices in all: TP × PP × CP × data parallel (default 1)"
    )
    p.add_argument("--tp", type=count, help="tensor-parallel degree, training (default 1)")
    p.add_argument("--pp", type=count, help="pipeline stages, training (default 1)")
    p.add_argument("--cp", type=count, help="context-parallel degree, training (default 1)")
    p.add_argument(
        "--micro-batches",
        type=count,
        help="micro-batches per optimizer step (default 1; more: gradients are kept)",
    )
    p.add_argument("--accelerator", help="catalog id: check the fit against its memory")
    p.add_argument("--memory-gb", type=quantity, help="device memory in GB (overrides catalog)")
    p.add_argument(
        "--overhead-gib", type=quantity, help="runtime overhead per device in GiB (default 1)"
    )
    add_json_option(p)


def _register_inference(sub: Any) -> None:
    p = add_command(
        sub,
        "inference",
        "serving: time to first token, time per output token, throughput, cost per million",
        "Language models are served as engines run them: prefill and decode, continuous "
        "batching bounded by the KV cache, tensor-parallel all-reduces, mixture-of-experts "
        "reads, quantized weights; --ttft-slo-ms/--tpot-slo-ms pick the highest concurrency "
        "that meets them. --forward-flops models keep the one-step roofline "
        "max(FLOPs / (peak × utilization), bytes / (bandwidth × efficiency)).",
        _guard(run_inference),
    )
    _add_starting_points(p)
    p.add_argument("--params", type=size, help="parameters (e.g. 7B)")
    p.add_argument(
        "--forward-flops",
        type=size,
        help="FLOPs per sample for non-language models (predictions instead of tokens)",
    )
    p.add_argument(
        "--accelerator",
        help="catalog id; this or --peak-tflops with --bandwidth-gbs is required",
    )
    p.add_argument(
        "--peak-tflops",
        type=quantity,
        help="per-device dense peak in TFLOP/s (default: the accelerator's)",
    )
    p.add_argument(
        "--bandwidth-gbs",
        type=quantity,
        help="per-device memory bandwidth, GB/s (default: the accelerator's)",
    )
    p.add_argument("--precision", help=_choices_help("default bf16", INFERENCE_PRECISIONS))
    p.add_argument("--batch-size", type=count, help="concurrent sequences (default 1)")
    p.add_argument("--prompt-tokens", type=count, help="prompt length (default 512)")
    p.add_argument(
        "--architecture",
        choices=("decoder", "encoder"),
        help="decoder: generates tokens (default); encoder (BERT): one forward pass of "
        "--prompt-tokens per request",
    )
    p.add_argument("--output-tokens", type=count, help="generated tokens (default 256)")
    p.add_argument("--layers", type=count, help="layers (adds the KV cache)")
    p.add_argument("--hidden", type=count, help="hidden size")
    p.add_argument("--heads", type=count, help="attention heads")
    p.add_argument("--kv-heads", type=count, help="key/value heads (GQA; default = heads)")
    p.add_argument(
        "--gpus",
        type=count,
        help="devices one replica is split over (default: the fewest, 1-64, that hold the "
        "weights and the KV cache; the output says so)",
    )
    p.add_argument(
        "--utilization", type=fraction, help="compute utilization in (0, 1] (default 0.40)"
    )
    p.add_argument(
        "--bandwidth-efficiency", type=fraction, help="achieved share of bandwidth (default 0.8)"
    )
    p.add_argument(
        "--price",
        "--price-per-gpu-hour",  # as monitor and cluster spell it
        dest="price",
        type=money,
        help="USD per GPU-hour (default: the cheapest catalog offer for --accelerator under "
        "--pricing)",
    )
    p.add_argument(
        "--pricing",
        default="on_demand",
        help=_choices_help("catalog price used when --price is omitted", PRICING_MODELS),
    )
    p.add_argument(
        "--sweep",
        action="store_true",
        help="add the throughput-vs-batch curve (batch 1 … 1024)",
    )
    from desktopapp.commands import serving as serving_cli

    serving_cli.add_options(p, quantity, count)
    add_json_option(p)


def _guard(
    handler: Callable[[argparse.Namespace], int], strict_json: bool = True
) -> Callable[[argparse.Namespace], int]:
    """Missing resources (a broken install) become one line and exit 1, not a traceback.

    No non-finite result passes as a result: the output is held back until the handler is
    done, and an overflow (``OverflowError``, an infinity in the JSON result or "inf"/"nan" in
    the text), or inputs too large to compute with (``MemoryError``), becomes one line naming
    the largest inputs, exit 2. An overflow in an intermediate that does not reach the result
    is not an error, and prints no numpy warning."""

    def run(args: argparse.Namespace) -> int:
        return guarded_run(handler, args, strict_json=strict_json)

    return run


def guarded_run(
    handler: Callable[[argparse.Namespace], int], args: argparse.Namespace, strict_json: bool
) -> int:
    import io
    import re
    import warnings
    from contextlib import redirect_stdout

    import numpy as np

    from desktopapp.commands.output import NonFiniteResultError, reject_infinity

    prog = f"desktopapp estimate {getattr(args, 'estimate_command', '') or ''}".rstrip()
    buffer = io.StringIO()
    try:
        with (
            warnings.catch_warnings(),
            np.errstate(over="ignore"),  # an overflow is judged by the result, below
            redirect_stdout(buffer),
            reject_infinity(strict_json),
        ):
            warnings.filterwarnings("ignore", message=".*overflow", category=RuntimeWarning)
            status = handler(args)
    except FileNotFoundError as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return EXIT_FAILURE
    except (OverflowError, FloatingPointError, NonFiniteResultError) as exc:
        sys.stderr.write(f"{prog}: error: {_overflow_text(args, exc)}\n")
        return EXIT_USAGE
    except MemoryError:
        sys.stderr.write(
            f"{prog}: error: {_largest_inputs(args)} to compute with; use realistic values\n"
        )
        return EXIT_USAGE
    except ValueError as exc:
        raise blame(exc, args) from None
    text = buffer.getvalue()
    if not getattr(args, "json", False) and re.search(r"(?<![\w.])-?(inf|nan)(?![\w])", text):
        sys.stderr.write(f"{prog}: error: {_overflow_text(args, None)}\n")
        return EXIT_USAGE
    sys.stdout.write(text)
    sys.stdout.flush()
    return status


def _numeric_options(args: argparse.Namespace) -> list[tuple[str, float]]:
    found = []
    for dest, value in vars(args).items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        found.append((flag(dest, args), float(value)))
    return found


def _extremity(value: float) -> float:
    import math

    return abs(math.log10(abs(value))) if value else 0.0


def _largest_inputs(args: argparse.Namespace) -> str:
    """``the inputs (--params 1e+300, --tokens 1e+300) are too large`` (the three most extreme
    numeric options given: furthest from 1 on a log scale), or "too small" for tiny ones."""
    given = sorted(_numeric_options(args), key=lambda kv: -_extremity(kv[1]))[:3]
    if not given:
        return "the inputs are too large or too small"
    listed = ", ".join(f"{name} {value:g}" for name, value in given)
    first = given[0][1]
    size = "too small" if first and abs(first) < 1.0 else "too large"
    return f"the inputs ({listed}) are {size}"


def _overflow_text(args: argparse.Namespace, exc: BaseException | None) -> str:
    path = getattr(exc, "where", None) if exc is not None else None
    where = f" ({path})" if isinstance(path, str) and path else ""
    return (
        f"the result is not a finite number{where}: {_largest_inputs(args)} to compute "
        "with; use realistic values"
    )


# --- refusals: the model's fields and the options that set them ------------------------------

# A model input whose option has another name (the one table; every other field is its option
# with "_" → "-").
FIELD_OPTIONS: dict[str, str] = {
    "ttft_slo_s": "ttft_slo_ms",
    "tpot_slo_s": "tpot_slo_ms",
    "step_overhead_s": "step_overhead_ms",
    "compute_share": "utilization",
    "bandwidth_share": "bandwidth_efficiency",
    "measured_busbw": "busbw_gbs",
    "concurrency": "concurrency",
    "memory_gb": "memory_gb",
    "devices": "gpus",
}
# The inputs a refusal about a derived quantity comes from, when its own option was not given
# (a model that does not fit "gpus" is caused by its size; a missing peak by the accelerator).
FIELD_CAUSES: dict[str, tuple[str, ...]] = {
    "gpus": (
        "layers",
        "hidden",
        "heads",
        "kv_heads",
        "head_dim",
        "seq_len",
        "prompt_tokens",
        "output_tokens",
        "params",
        "active_params",
        "experts",
        "micro_batch",
        "global_batch_tokens",
        "batch_size",
        "concurrency",
        "precision",
        "kv_precision",
        "memory_gb",
        "accelerator",
        "tp",
        "pp",
    ),
    "accelerator": ("peak_tflops", "bandwidth_gbs", "precision"),
    "precision": ("accelerator",),
    "peak_tflops": ("accelerator",),
    "bandwidth_gbs": ("accelerator",),
    "tp": ("gpus", "heads", "hidden"),
    "pp": ("gpus", "layers"),
    "micro_batch": ("global_batch_tokens", "seq_len", "gpus"),
    "global_batch_tokens": ("seq_len", "gpus"),
}


def _given_option(args: argparse.Namespace, dest: str) -> bool:
    value = getattr(args, dest, None)
    return value is not None and value is not False and dest not in ("pricing",)


def blame(exc: ValueError, args: argparse.Namespace) -> ValueError:
    """The refusal naming its true cause: the option of the field refused when it was given;
    otherwise the given options the refused quantity comes from (a KV cache too large for the
    device names --layers when --layers was given, not the --gpus the user never typed)."""
    from desktopapp.model.validation import InputError, error_field, error_text, is_file_error

    if is_file_error(exc):
        return exc
    field = error_field(exc)
    if not field:
        return exc
    dest = FIELD_OPTIONS.get(field, field)
    if _given_option(args, dest) or getattr(args, "scenario", None) is not None:
        return InputError(dest, error_text(exc)) if dest != field else exc
    causes = [c for c in FIELD_CAUSES.get(dest, ()) if _given_option(args, c)]
    causes.sort(key=lambda c: -_excess(c, getattr(args, c)))  # the most absurd first
    if not causes:
        return InputError(dest, error_text(exc)) if dest != field else exc
    listed = ", ".join(flag(c, args) + _shown(getattr(args, c)) for c in causes[:4])
    own = flag(dest, args) if dest in vars(args) else dest.replace("_", " ")
    return InputError(causes[0], f"{error_text(exc)} (from {listed}; {own} was not given)")


# Largest values real systems use, for inputs PLAUSIBLE_LIMITS does not list (a refusal names
# the given input furthest beyond its range first).
TYPICAL_MAX: dict[str, float] = {
    "head_dim": 1024,
    "heads": 1024,
    "kv_heads": 1024,
    "prompt_tokens": 10e6,
    "output_tokens": 10e6,
    "experts": 4096,
    "micro_batch": 1e5,
    "global_batch_tokens": 1e9,
    "concurrency": 1e6,
    "tp": 64,
    "pp": 256,
}


def _excess(name: str, value: Any) -> float:
    """How far beyond real systems a given value lies (1: within; larger: further)."""
    from desktopapp.model.measurement import PLAUSIBLE_LIMITS

    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return 0.0
    limit = PLAUSIBLE_LIMITS.get(name)
    largest = limit.largest_real if limit is not None else TYPICAL_MAX.get(name)
    return max(1.0, float(value) / largest) if largest else 1.0


def _shown(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int | float):
        return f" {value:g}"
    return f" {value}"


# --- building inputs -------------------------------------------------------------------------


def _given(args: argparse.Namespace, names: Sequence[str]) -> dict[str, Any]:
    return {n: getattr(args, n) for n in names if getattr(args, n, None) is not None}


def _check_pricing(args: argparse.Namespace) -> None:
    if args.pricing not in PRICING_MODELS:
        raise ValueError(
            f"pricing: must be one of {', '.join(PRICING_MODELS)}, got {args.pricing!r}"
        )


TRAIN_OPTIONS = (
    "params",
    "tokens",
    "forward_flops",
    "samples",
    "epochs",
    "method",
    "accelerator",
    "peak_tflops",
    "precision",
    "gpus",
    "utilization",
    "price",
    "goodput_overhead",
    "project_margin",
    *perf_training.TRAINING_PLAN_FIELDS,  # saved with the inputs (scenario files) too
)


def _check_one_source(args: argparse.Namespace) -> None:
    if args.scenario is not None and args.preset is not None:
        raise ValueError("scenario: give --scenario or --preset, not both")


def training_inputs_from_args(args: argparse.Namespace) -> TrainingInputs:
    _check_pricing(args)
    given = _given(args, TRAIN_OPTIONS)
    if "production_factor" in given:  # a factor given here replaces a saved one and its note
        given.setdefault("production_factor_source", "")
    _check_one_source(args)
    if args.scenario is not None:
        inputs = training_inputs_from_scenario(args.scenario, given)
    elif args.preset is not None:
        preset = get_preset(args.preset)
        other_rule = {"6nd": {"forward_flops", "samples"}, "forward": {"params", "tokens"}}
        if given.keys() & other_rule.get(preset.method, set()):
            # The other compute rule: keep the preset's hardware, not its workload figures.
            hardware = {"accelerator": preset.accelerator, "precision": preset.precision}
            inputs = TrainingInputs(**(hardware | {"gpus": preset.devices} | given))
        else:
            inputs = preset.to_training_inputs(**given)
    else:
        inputs = TrainingInputs(**given)
    return _priced(inputs, args.pricing, with_catalog_price)


P = TypeVar("P", TrainingInputs, InferenceInputs)


def _priced(inputs: P, pricing: str, price_from_catalog: Callable[[P, str], P]) -> P:
    """Inputs without a price get the catalog's for their accelerator under ``pricing``, or a
    price source that says there is none and asks for ``--price``."""
    if inputs.price is not None or inputs.accelerator is None:
        return inputs
    priced = price_from_catalog(inputs, pricing)
    if priced.price is None:
        priced = dataclasses.replace(
            inputs,
            price_source=f"no {pricing.replace('_', '-')} catalog offer for "
            f"{inputs.accelerator}; give --price",
        )
    return priced


MEMORY_OPTIONS = (
    "params",
    "mode",
    "precision",
    "optimizer",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "seq_len",
    "ffn_hidden",
    "vocab",
    "mlp",
    "batch_size",
    "checkpointing",
    "flash_attention",
    "zero_stage",
    "gpus",
    "tp",
    "pp",
    "cp",
    "micro_batches",
    "accelerator",
    "memory_gb",
    "overhead_gib",
)


def memory_inputs_from_args(args: argparse.Namespace) -> MemoryInputs:
    given = _given(args, MEMORY_OPTIONS)
    _check_one_source(args)
    if args.scenario is not None:
        return memory_inputs_from_scenario(args.scenario, given)
    if args.preset is not None:
        preset = get_preset(args.preset)
        if given.get("mode") == "inference" and "precision" not in given:
            given["precision"] = None  # the inference default, not the preset's training one
        return preset.to_memory_inputs(**given)
    if "params" not in given:
        raise ValueError("params: required (e.g. --params 7B)")
    return MemoryInputs(**given)


INFERENCE_OPTIONS = (
    "params",
    "forward_flops",
    "accelerator",
    "peak_tflops",
    "bandwidth_gbs",
    "precision",
    "batch_size",
    "prompt_tokens",
    "output_tokens",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "gpus",
    "utilization",
    "bandwidth_efficiency",
    "price",
    "architecture",
    # the model's routing and the KV format: saved with a scenario's inference inputs too
    "active_params",
    "experts",
    "moe_top_k",
    "kv_precision",
)


def inference_inputs_from_args(args: argparse.Namespace) -> InferenceInputs:
    _check_pricing(args)
    given = _given(args, INFERENCE_OPTIONS)
    _check_one_source(args)
    scenario_inputs: InferenceInputs | None = None
    if args.scenario is not None:
        scenario_inputs = inference_inputs_from_scenario(args.scenario, given)
    elif args.preset is not None:
        preset = get_preset(args.preset)
        if preset.params is None:
            raise ValueError(f"preset: {preset.id!r} has no parameter count for inference")
        base = preset.inference_fields()
        if "peak_tflops" in given and "bandwidth_gbs" in given and "accelerator" not in given:
            base["accelerator"] = None
        given = base | given
    if scenario_inputs is not None:
        inputs = scenario_inputs
    elif "params" not in given:
        raise ValueError("params: required (e.g. --params 7B)")
    else:
        inputs = InferenceInputs(**given)
    return _priced(inputs, args.pricing, inference_catalog_price)


# --- handlers --------------------------------------------------------------------------------


def _emit(args: argparse.Namespace, est: Any, print_text: Callable[[Any], None]) -> int:
    """The estimate as JSON with --json, else as the readable text."""
    if args.json:
        print_json(est.to_dict())
    else:
        print_text(est)
    return EXIT_OK


def _run_options(args: argparse.Namespace) -> dict[str, Any]:
    """The modelled run's options given on the line (None: not given)."""
    extra = {n: getattr(args, n, None) for n in perf_training.RUN_OPTIONS}
    extra["production_factor_source"] = getattr(args, "production_factor_source", None)
    if getattr(args, "busbw_gbs", None) is not None:
        from desktopapp.model.validation import require_range

        extra["measured_busbw"] = require_range("busbw_gbs", args.busbw_gbs, 1e-3, 1e5) * 1e9
    if args.preset is not None and args.scenario is None:  # the preset's sourced shape
        preset = get_preset(args.preset)
        if preset.method == "6nd" and all(extra[n] is None for n in ("layers", "hidden", "heads")):
            for name in ("layers", "hidden", "heads", "seq_len", *SHAPE_TERMS):
                if extra[name] is None:
                    extra[name] = getattr(preset, name)
    return {k: v for k, v in extra.items() if v is not None}


def _check_integer_options(args: argparse.Namespace, names: Sequence[str]) -> None:
    """Integer options are whole numbers (``--layers 2.5`` is refused, naming the option)."""
    from desktopapp.model.validation import InputError

    for name in names:
        value = getattr(args, name, None)
        if isinstance(value, float) and not value.is_integer():
            raise InputError(name, f"must be a whole number, got {value:g}")


TRAIN_INTEGER_OPTIONS = (
    "gpus",
    "seq_len",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "ffn_hidden",
    "vocab",
    "tp",
    "pp",
    "dp",
    "micro_batch",
    "moe_top_k",
)


def _check_train_options(args: argparse.Namespace) -> None:
    from desktopapp.model.validation import InputError

    _check_integer_options(args, TRAIN_INTEGER_OPTIONS)
    gbt = getattr(args, "global_batch_tokens", None)
    if gbt is not None and (gbt < 1 or not float(gbt).is_integer()):
        raise InputError(
            "global_batch_tokens", f"must be a whole number of tokens (≥ 1), got {gbt:g}"
        )
    top_k = getattr(args, "moe_top_k", None)
    if top_k is not None and top_k > MAX_EXPERTS:
        raise InputError("moe_top_k", f"must be at most {MAX_EXPERTS:,} experts, got {top_k:g}")
    deadline = getattr(args, "deadline_days", None)
    if deadline is not None and not 0 < deadline <= 36_500:
        raise InputError("deadline_days", f"must be in (0, 36500] days, got {deadline:g}")


def _check_moe_train(args: argparse.Namespace) -> None:
    top_k = getattr(args, "moe_top_k", None)
    if (
        top_k is not None
        and getattr(args, "active_params", None) is None
        and args.scenario is None
        and args.preset is None
    ):
        from desktopapp.model.validation import InputError

        raise InputError("moe_top_k", "applies to a mixture of experts: give --active-params too")


def _train_request(args: argparse.Namespace) -> tuple[Any, TrainingInputs]:
    """The snapshot request of ``estimate train`` and its training inputs."""
    from desktopapp.application.snapshot import WorkloadRequest

    _check_train_options(args)
    apply_past_runs(args)
    _check_moe_train(args)
    inputs = training_inputs_from_args(args)
    gpus_given = args.gpus is not None or args.preset is not None or args.scenario is not None
    request = WorkloadRequest(
        training=inputs,
        run_options=WorkloadRequest.options(_run_options(args)),
        preset_id=args.preset,
        gpus_given=gpus_given,
        deadline_days=getattr(args, "deadline_days", None),
        with_verdict=False,
    )
    return request, inputs


def _refuse(args: argparse.Namespace, section: str, field: str, message: str) -> None:
    """Raise the refusal of a snapshot error, naming its true cause: the option given, or the
    scenario file and its field when the value came from the file."""
    from desktopapp.model.validation import InputError, field_label

    dest = field.replace("-", "_")
    given_here = getattr(args, dest, None) is not None
    scenario = getattr(args, "scenario", None)
    label, sep, rest = message.partition(": ")
    if field and sep and label == field_label(field):
        message = rest  # the snapshot's message names the field itself; the option replaces it
    if scenario is not None and field and not given_here:
        from pathlib import Path

        if section == "serving":  # the file's names for the serving model's fields
            section = "inference"
            field = {"ttft_slo_s": "ttft_target_s", "tpot_slo_s": "tpot_target_s"}.get(field, field)

        from desktopapp.model.scenario import ScenarioError

        raise ScenarioError(
            Path(scenario).name, f"{section}.{field}: {message}", f"{section}.{field}"
        )
    raise InputError(field or section, message)


def run_train(args: argparse.Namespace) -> int:
    from desktopapp.application.snapshot import compute_snapshot, training_json

    request, inputs = _train_request(args)
    warn_implausible(inputs, quiet=args.json)
    snap = compute_snapshot(request)
    if snap.training is None:
        error = snap.errors[0]
        _refuse(args, error.section, error.field, error.message)
    fig = snap.training
    assert fig is not None
    est = fig.estimate
    run = fig.modelled.run
    figures = training_json(fig)
    if args.json:
        doc: dict[str, Any] = {}
        if run is not None:
            run_keys = run.to_dict()
            if not fig.modelled.sets_headline:  # the user's utilization: its hours stand
                run_keys["gpu_hours_low"] = fig.gpu_hours_low
                run_keys["gpu_hours_high"] = fig.gpu_hours_high
            doc.update(run_keys)
        else:
            doc.update(perf_training.simple_keys(est.utilization))
            if fig.modelled.reason:
                doc["model"] = fig.modelled.reason
        doc.update(est.to_dict())
        doc["model"] = "modelled run" if run is not None else doc.get("model")
        doc["training"] = figures
        doc["headline"] = _headline(fig)
        doc["gpus_assumed"] = fig.gpus.assumed
        doc["gpus_rule"] = fig.gpus.rule
        if snap.memory is not None and snap.memory_for_plan:
            from desktopapp.application.snapshot import memory_json

            doc["memory"] = memory_json(snap.memory, True)
        print_json(doc)
        return EXIT_OK
    # the answer first (headline, chain, plan, MFU, likely range, step breakdown), then the
    # figures it rests on, then Formula and Assumptions (issue 25: the key result first)
    assumed = fig.gpus.rule if fig.gpus.assumed else ""
    print_training(est, _modelled_rows(fig), _headline(fig), assumed)  # warnings: why not modelled
    print_training_footer(est)
    return EXIT_OK


def _headline(fig: Any) -> str:
    """ "405B on 16,384 H100: about 134 days, $82M (likely $52-126M)": the Workload tab's hero
    sentence for the same figures (one sentence, one function: application.workload)."""
    from desktopapp.application.workload import training_headline

    return training_headline(fig)


def _modelled_rows(fig: Any) -> list[tuple[str, str]]:
    """The modelled run's summary rows (only the warnings when the run was not modelled)."""
    run = fig.modelled.run
    if run is None:
        return [("note", w) for w in fig.warnings]
    likely = (
        f"{units.format_number(fig.gpu_hours_low or 0.0)} … "
        f"{units.format_number(fig.gpu_hours_high or 0.0)} GPU-h"
    )
    if fig.cost_low_usd is not None and fig.cost_high_usd is not None:
        likely += (
            f"; {units.format_money(fig.cost_low_usd)} … {units.format_money(fig.cost_high_usd)}"
        )
    likely += " (its meaning: Assumptions, likely range)"
    return [
        ("wall time chain", fig.chain),
        ("likely range", likely),
        ("parallel plan", run.plan_reason),
        ("MFU / HFU", f"{run.mfu:.1%} / {run.hfu:.1%}"),
        ("step time", units.format_duration(run.step_seconds)),
        *[
            (f"  {k.replace('_', ' ')}", units.format_duration(v))
            for k, v in run.breakdown.to_dict().items()
            if v > 0
        ],
        *[("note", w) for w in fig.warnings],
    ]


MEMORY_INTEGER_OPTIONS = (
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "seq_len",
    "batch_size",
    "zero_stage",
    "gpus",
    "ffn_hidden",
    "vocab",
    "tp",
    "pp",
    "cp",
    "micro_batches",
)


def run_memory(args: argparse.Namespace) -> int:
    _check_integer_options(args, MEMORY_INTEGER_OPTIONS)
    inputs = memory_inputs_from_args(args)
    warn_implausible(inputs, quiet=args.json)
    from desktopapp.application.snapshot import WorkloadRequest, compute_snapshot

    snap = compute_snapshot(WorkloadRequest(memory=inputs, with_verdict=False))
    if snap.memory is None:
        error = snap.errors[0]
        _refuse(args, error.section, error.field, error.message)
    shown = snap.memory
    assert shown is not None  # refused above
    note = _plan_memory_note(args, shown)
    if args.json:
        doc = shown.to_dict()
        if note:
            doc["note"] = note
        print_json(doc)
        return EXIT_OK
    print_memory(shown)
    if note:
        print()
        print_paragraph(f"Note: {note}")
    return EXIT_OK


def _plan_memory_note(args: argparse.Namespace, shown: MemoryEstimate) -> str:
    """With --scenario: where the scenario's training plan (what `estimate train --scenario`,
    `report` and the Workload tab show as memory per device) needs another figure than the
    memory section's configuration shown here, say so ("" when they agree or there is none)."""
    if args.scenario is None:
        return ""
    from desktopapp.application.snapshot import compute_snapshot, request_from_scenario
    from desktopapp.model.scenario import load_scenario

    snap = compute_snapshot(
        request_from_scenario(load_scenario(args.scenario).scenario, with_verdict=False)
    )
    plan = snap.memory
    if not snap.memory_for_plan or plan is None:
        return ""
    if math.isclose(plan.per_device_bytes, shown.per_device_bytes, rel_tol=0.01):
        return ""
    return (
        f"these are the scenario's memory inputs ({_memory_setup(shown)}). Its training plan "
        f"({_memory_setup(plan)}), which estimate train --scenario, report and the Workload "
        f"tab show, needs {units.format_bytes(plan.per_device_bytes)} per device."
    )


def _memory_setup(e: MemoryEstimate) -> str:
    """The parallel layout and batch of a memory estimate, in words."""
    inp = e.inputs
    words = [f"ZeRO-{inp.zero_stage}", f"micro-batch {inp.batch_size}"]
    if inp.micro_batches > 1:
        words.append(f"{inp.micro_batches} micro-batches per step")
    words += [f"{name} {value}" for name, value in (("TP", inp.tp), ("PP", inp.pp)) if value > 1]
    if inp.checkpointing:
        words.append("activation checkpointing")
    return ", ".join(words)


INFERENCE_INTEGER_OPTIONS = (
    "batch_size",
    "prompt_tokens",
    "output_tokens",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "gpus",
    "concurrency",
    "experts",
    "moe_top_k",
    "head_dim",
    "pp",
    "replicas",
    "max_running",
)


def _check_moe(args: argparse.Namespace) -> None:
    """--moe-top-k ≤ --experts ≤ MAX_EXPERTS (the serving default is 8 experts)."""
    from desktopapp.model.serving import DEFAULT_MOE_EXPERTS
    from desktopapp.model.validation import InputError

    experts = getattr(args, "experts", None)
    if experts is not None and experts > MAX_EXPERTS:
        raise InputError(
            "experts",
            f"must be at most {MAX_EXPERTS:,} (published models: up to 2,048), got {experts:g}",
        )
    top_k = getattr(args, "moe_top_k", None)
    limit = experts if experts is not None else DEFAULT_MOE_EXPERTS
    if top_k is not None and top_k > limit:
        which = "--experts" if experts is not None else f"the default {DEFAULT_MOE_EXPERTS} experts"
        raise InputError("moe_top_k", f"must be at most {which} ({limit:g}), got {top_k:g}")


def run_inference(args: argparse.Namespace) -> int:
    from desktopapp.application.snapshot import WorkloadRequest, compute_snapshot
    from desktopapp.commands import serving as serving_cli

    _check_integer_options(args, INFERENCE_INTEGER_OPTIONS)
    _check_moe(args)
    inputs = inference_inputs_from_args(args)
    warn_implausible(inputs, quiet=args.json)
    options = serving_cli.serving_options(args, inputs)
    snap = compute_snapshot(
        WorkloadRequest(
            inference=inputs,
            serving=options,
            user_given=frozenset(
                name
                for name, given in (
                    ("inference.batch_size", options.batch_size_given),
                    ("inference.gpus", args.gpus is not None or args.scenario is not None),
                )
                if given
            ),
            with_verdict=False,
        )
    )
    if snap.errors:
        error = snap.errors[0]
        _refuse(args, error.section, error.field, error.message)
    est = snap.inference
    assert est is not None
    from desktopapp.application.workload import inference_headline

    headline = inference_headline(est, snap.serving)  # the Workload tab's serving line
    if snap.serving is not None:
        return _run_serving(args, est, snap.serving, snap.single_request, headline)
    sweep = inference_sweep_batch(inputs, SWEEP_BATCH_SIZES) if args.sweep else None
    if args.json:
        payload = est.to_dict()
        payload["headline"] = headline
        if sweep is not None:
            payload["sweep"] = {
                "batch_size": sweep.batch_size.astype(int).tolist(),
                "step_seconds": sweep.step_seconds.tolist(),
                "throughput_per_second": sweep.throughput_per_second.tolist(),
                "latency_seconds": sweep.latency_seconds.tolist(),
                "bound": ["compute" if c else "memory" for c in sweep.compute_bound.tolist()],
                "cost_per_million": (
                    None if sweep.cost_per_million is None else sweep.cost_per_million.tolist()
                ),
                "memory_per_device_bytes": sweep.memory_per_device_bytes.tolist(),
            }
        print_json(payload)
    else:
        print_inference(est, headline)
        if sweep is not None:
            print("\nThroughput against batch size:")
            rows = []
            for i, b in enumerate(sweep.batch_size.astype(int).tolist()):
                cost = None if sweep.cost_per_million is None else sweep.cost_per_million[i]
                rows.append(
                    [
                        str(b),
                        units.format_duration(float(sweep.step_seconds[i])),
                        units.format_plain(float(sweep.throughput_per_second[i]), 4)
                        + f" {est.unit}s/s",
                        units.format_duration(float(sweep.latency_seconds[i])),
                        "compute" if sweep.compute_bound[i] else "memory",
                        units.format_money(None if cost is None else float(cost)),
                    ]
                )
            print_table(
                rows,
                headers=["batch", "step", "throughput", "latency", "bound", f"$/M {est.unit}s"],
            )
    return EXIT_OK


def _run_serving(
    args: argparse.Namespace, est: InferenceEstimate, serving: Any, single: Any, headline: str
) -> int:
    """Language models: the serving model at the snapshot's operating point."""
    from desktopapp.commands import serving as serving_cli

    if args.json:
        doc = serving_cli.payload(est, serving)
        doc["headline"] = headline
        doc["single_request_latency_seconds"] = None if single is None else single.latency_seconds
        doc["single_request_ttft_seconds"] = None if single is None else single.ttft_seconds
        if args.sweep:
            doc["sweep"] = serving_cli.sweep_payload(serving.inputs, SWEEP_BATCH_SIZES)
        print_json(doc)
        return EXIT_OK
    serving_cli.print_serving(
        serving, est.accelerator_name or "given peak/bandwidth", single, headline
    )
    if args.sweep:
        sweep = serving_cli.sweep_payload(serving.inputs, SWEEP_BATCH_SIZES)
        print("\nStatic batches against batch size:")
        rows = []
        for i, b in enumerate(sweep["batch_size"]):
            cost = None if sweep["cost_per_million"] is None else sweep["cost_per_million"][i]
            rows.append(
                [
                    str(b),
                    units.format_duration(sweep["step_seconds"][i]),
                    f"{units.format_plain(sweep['throughput_per_second'][i], 4)} tokens/s",
                    units.format_duration(sweep["latency_seconds"][i]),
                    sweep["bound"][i],
                    units.format_money(cost),
                ]
            )
        print_table(rows, headers=["batch", "step", "throughput", "latency", "bound", "$/M tokens"])
    _print_footer(serving.formula, serving.assumptions)
    return EXIT_OK


# --- text output -----------------------------------------------------------------------------


def _print_footer(formula: str, assumptions: Sequence[Assumption]) -> None:
    """Formula lines and assumptions, wrapped to the terminal (whole lines into a pipe)."""
    width = output_width()
    print("\nFormula:")
    for line in formula.splitlines():
        _print_wrapped(f"  {line}", width, "      ")
    print("\nAssumptions:")
    for a in assumptions:
        source = f"  [{a.source}]" if a.source else ""
        _print_wrapped(f"  - {a.name}: {a.value}{source}", width, "    ")


def _print_wrapped(text: str, width: int | None, indent: str) -> None:
    if width is None or len(text) <= width:
        print(text)
        return
    print(textwrap.fill(text, width, subsequent_indent=indent, break_on_hyphens=False))


def print_training(
    e: TrainingEstimate,
    modelled: Sequence[tuple[str, str]] = (),
    headline: str = "",
    assumed: str = "",
) -> None:
    """The training answer: title, the ``headline`` sentence, the ``modelled`` run's rows
    (chain, range, plan, MFU, breakdown), then the figures; Formula and Assumptions follow
    from :func:`print_training_footer`. ``assumed``: how the GPU count was chosen, if it was."""
    rule = "C = 6·N·D" if e.method == "6nd" else "C = 3 × forward × samples × epochs"
    print(f"Training estimate ({rule})")
    if headline:
        print_paragraph(headline)
    if assumed:
        print_paragraph(assumed)
    if headline or assumed:
        print()
    device = e.accelerator_name or "given peak"
    cost = units.format_money(e.estimated_cost_usd)
    if e.price_per_gpu_hour is not None:
        cost += f" at {units.format_money(e.price_per_gpu_hour)}/GPU-hour"
    elif e.price_source:
        cost += f" ({e.price_source})"
    low_cost = units.format_money(e.planning_low_cost_usd)
    high_cost = units.format_money(e.planning_high_cost_usd)
    rows = [
        ("total compute", units.format_flops(e.total_flops)),
        ("device", f"{e.devices:,} × {device}"),
        (
            "peak per device",
            f"{units.format_plain(e.peak_tflops, 4)} TFLOP/s ({e.inputs.precision}, dense)",
        ),
        *([] if modelled else [("utilization", units.format_percent(e.utilization))]),
        (
            "training time",
            f"{units.format_duration(e.training_seconds)} "
            f"({units.format_number(e.training_hours)} h)",
        ),
        ("GPU-hours", units.format_number(e.gpu_hours)),
        ("estimated cost", cost),
        (
            f"planning range (×1 … ×{e.project_margin:g})",
            f"{units.format_hours(e.planning_low_hours)} … "
            f"{units.format_hours(e.planning_high_hours)}; {low_cost} … {high_cost}",
        ),
    ]
    if e.price_per_gpu_hour is not None and e.price_source not in ("", "given"):
        rows.append(("price source", e.price_source))
    print_key_values([*modelled, *rows])


def print_training_footer(e: TrainingEstimate) -> None:
    """Formula and Assumptions of a training estimate, wrapped to the terminal."""
    _print_footer(e.formula, e.assumptions)


def print_memory(e: MemoryEstimate) -> None:
    inp = e.inputs
    fb = units.format_bytes
    title = "training" if inp.mode == "train" else "inference"
    print(f"Memory estimate ({title}, {inp.precision}, {units.plural(inp.gpus, 'device')})")
    rows = [
        ("component", "total", "per device"),
        ("weights", fb(e.weights_bytes), fb(e.per_device_weights_bytes)),
        ("gradients", fb(e.gradients_bytes), fb(e.per_device_gradients_bytes)),
        ("optimizer", fb(e.optimizer_bytes), fb(e.per_device_optimizer_bytes)),
        ("activations", fb(e.activations_bytes), fb(e.per_device_activations_bytes)),
        ("KV cache", fb(e.kv_cache_bytes), fb(e.per_device_kv_cache_bytes)),
        ("runtime overhead", fb(e.overhead_bytes), fb(e.overhead_bytes)),
        ("total", fb(e.total_bytes), fb(e.per_device_bytes)),
    ]
    if e.fragmentation_bytes:  # training: the allocator allowance, before the total
        frag = fb(e.fragmentation_bytes)
        rows.insert(-1, ("allocator allowance", frag, frag))
    print_table(rows[1:], headers=rows[0])
    if e.peak_phase:
        print_paragraph(
            f"per device: the {e.peak_phase} peak binds (the larger of the backward peak and "
            "the optimizer step; see the formula)"
        )
    if e.device_memory_bytes is None:
        print("\nfits: — (give --accelerator or --memory-gb to check)")
    else:
        name = e.accelerator_name or "device"
        verdict = "fits" if e.fits else "does NOT fit"
        headroom = e.headroom_bytes or 0.0
        print()
        print_paragraph(
            f"{verdict} in {name} ({fb(e.device_memory_bytes)}): headroom {fb(headroom)} "
            f"({units.format_percent(e.headroom_fraction)})"
        )
    if e.suggestions:
        print("\nWhat would make it fit:")
        for s in e.suggestions:
            mark = "fits" if s.fits else "still too big"
            print_bullet(f"{s.description}: {fb(s.per_device_bytes)} per device ({mark})")
    _print_footer(e.formula, e.assumptions)


def print_inference(e: InferenceEstimate, headline: str = "") -> None:
    inp = e.inputs
    device = e.accelerator_name or "given peak/bandwidth"
    print(f"Inference estimate ({inp.precision}, batch {inp.batch_size}, {inp.gpus} × {device})")
    if headline:  # the Workload tab's serving line, word for word
        print_paragraph(headline)
    rate = f"{units.format_plain(e.throughput_per_second, 4)} {e.unit}s/s"
    rows = [
        ("step time", f"{units.format_duration(e.step_seconds)} ({e.bound}-bound)"),
        ("compute time per step", units.format_duration(e.compute_seconds)),
        ("memory time per step", units.format_duration(e.memory_seconds)),
    ]
    if inp.is_language_model:
        rows += [
            ("prefill", units.format_duration(e.prefill_seconds)),
            (
                "latency per request",
                f"{units.format_duration(e.latency_seconds)} ({inp.prompt_tokens} prompt + "
                f"{inp.output_tokens} output tokens)",
            ),
            (
                "throughput",
                f"{rate} (decode {units.format_plain(e.decode_tokens_per_second, 4)} tokens/s)",
            ),
        ]
    else:
        rows += [
            ("latency per batch", units.format_duration(e.latency_seconds)),
            ("throughput", rate),
        ]
    cost = units.format_money(e.cost_per_million)
    if e.price_per_gpu_hour is not None:
        cost += f" at {units.format_money(e.price_per_gpu_hour)}/GPU-hour"
    elif e.price_source:
        cost += f" ({e.price_source})"
    rows.append((f"cost per million {e.unit}s", cost))
    if e.compute_bound_batch_size is not None:
        rows.append(("compute-bound from batch", f"{e.compute_bound_batch_size:,.0f}"))
    memory = units.format_bytes(e.memory_per_device_bytes)
    if e.device_memory_bytes is not None:
        memory += f" of {units.format_bytes(e.device_memory_bytes)}"
        memory += " (fits)" if e.fits else " (does NOT fit)"
    rows.append(("memory per device", memory))
    if e.price_per_gpu_hour is not None and e.price_source not in ("", "given"):
        rows.append(("price source", e.price_source))
    print_key_values(rows)
    _print_footer(e.formula, e.assumptions)
