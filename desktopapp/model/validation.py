"""Input checks shared by every model dataclass.

Each check raises :class:`InputError` (a ``ValueError``) whose ``field`` names the input and
whose text reads ``"<field>: <what is allowed>, got <value>"``, so the GUI marks the field
from ``.field`` and the CLI prints one line naming the option; nobody parses the text.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping


class InputError(ValueError):
    """Invalid input: ``field`` is the input's name (the CLI option with ``-`` → ``_``), ``text``
    says what is allowed; ``str(error)`` is ``"field: text"``."""

    def __init__(self, field: str, text: str) -> None:
        super().__init__(f"{field}: {text}")
        self.field = field
        self.text = text

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str]]:
        return (type(self), (self.field, self.text))


def no_accelerator() -> InputError:
    """Neither an accelerator nor a peak: the accelerator is the input to name (the peak is the
    way out for a device the catalog lacks, and naming it sent users to an option they never
    typed)."""
    return InputError(
        "accelerator",
        "required: an accelerator id from the catalog (e.g. h100-sxm), or the device's peak "
        "TFLOP/s when it is not in the catalog",
    )


def error_field(exc: BaseException) -> str:
    """The field a ``ValueError`` is about: ``.field`` of an :class:`InputError`; for a plain
    ``ValueError("field: …")`` still raised by older code, the single word before ``": "``;
    else ``""``."""
    field = getattr(exc, "field", None)
    if isinstance(field, str):
        return field
    first = str(exc).splitlines()[0] if str(exc) else ""
    name, sep, _rest = first.partition(": ")
    return name.strip() if sep and name.strip() and " " not in name.strip() else ""


def error_text(exc: BaseException) -> str:
    """What is wrong, without the field name (first line only)."""
    text = getattr(exc, "text", None)
    if isinstance(text, str):
        return text.splitlines()[0] if text else ""
    first = str(exc).splitlines()[0] if str(exc) else ""
    return first.partition(": ")[2] if error_field(exc) else first


# The fields' labels as the user reads them in the window and the report, in one place: a
# message says "Parameters: must be greater than 0", never "params: …". The CLI names the
# option instead (``--params``, see desktopapp.cli.format_value_error) when it has one, and
# this label when it has none. A field missing here reads as its name with spaces
# (``field_label("kv_heads")`` → "kv heads"), never with underscores.
FIELD_LABELS: dict[str, str] = {
    # workload (training, memory, inference)
    "params": "Parameters",
    "active_params": "Active parameters",
    "tokens": "Training tokens",
    "samples": "Samples",
    "forward_flops": "Forward FLOPs per sample",
    "forward_macs": "Forward MACs per sample",
    "epochs": "Epochs",
    "method": "Compute rule",
    "gpus": "Devices",
    "devices": "Devices",
    "accelerator": "Accelerator",
    "precision": "Precision",
    "peak_tflops": "Peak per device (TFLOP/s)",
    "utilization": "Utilization",
    "price": "Price per GPU-hour",
    "price_per_gpu_hour": "Price per GPU-hour",
    "price_source": "Price source",
    "project_margin": "Project margin",
    "goodput_overhead": "Goodput overhead",
    "memory_gb": "Memory per device (GB)",
    "micro_batches": "Micro-batches per step",
    "bandwidth_gbs": "Memory bandwidth (GB/s)",
    "bandwidth_efficiency": "Bandwidth efficiency",
    "optimizer": "Optimizer",
    "zero_stage": "ZeRO stage",
    "batch_size": "Micro-batch",
    "seq_len": "Sequence length",
    "layers": "Layers",
    "hidden": "Hidden size",
    "heads": "Attention heads",
    "kv_heads": "KV heads",
    "kv_precision": "KV cache precision",
    "overhead_gib": "Runtime overhead (GiB)",
    "recompute": "Activation recompute",
    "prompt_tokens": "Prompt tokens",
    "output_tokens": "Output tokens",
    "moe_top_k": "Experts per token",
    "power_cap_w": "Power cap (W)",
    "tp": "Tensor parallel",
    "pp": "Pipeline stages",
    "dp": "Data parallel",
    "cp": "Context parallel",
    "micro_batch": "Micro-batch (plan)",
    "global_batch_tokens": "Global batch (tokens)",
    "production_factor": "Production factor",
    "software_stack": "Software stack",
    "past_runs": "Past runs",
    "ttft_target_s": "Target time to first token",
    "tpot_target_s": "Target time per output token",
    "ttft_slo_s": "Target time to first token",
    "tpot_slo_s": "Target time per output token",
    # rent or buy
    "gpu_hours_per_month": "GPU-hours per month",
    "runs_per_month": "Runs per month",
    "horizon_months": "Horizon (months)",
    "months": "Horizon (months)",
    "profile": "Demand profile",
    "demand_source": "Demand from",
    "gpus_per_server": "GPUs per server",
    "server_price": "Server price",
    "life_years": "Life (years)",
    "power_kw": "Power at full load (kW)",
    "power_kw_idle": "Power when idle (kW)",
    "pue": "PUE",
    "kwh_price": "Electricity price per kWh",
    "ops_fraction": "Operations (share of capex per year)",
    "facility_usd_per_kw_month": "Facility cost per kW-month",
    "cloud_price": "Cloud price per GPU-hour",
    "spot_overhead": "Spot interruption overhead",
    "pricing": "Pricing",
    "offer": "Cloud offer",
    "on_demand": "On-demand price",
    # scenario
    "name": "Name",
    "notes": "Notes",
    # your own cloud offer (the Cost tab's add-offer dialog)
    "provider": "Provider",
    "instance": "Instance",
    "region": "Region",
    "committed_1yr": "1-yr commit price",
    "committed_3yr": "3-yr commit price",
    "spot": "Spot price",
    "price_date": "Price date",
    "source": "Source",
    "custom_offers": "Your cloud offers",
}


def field_label(field: str) -> str:
    """The user's word for an input: ``"params"`` → ``"Parameters"``; a field without an entry
    in :data:`FIELD_LABELS` reads as its last part with spaces (``"cost.demand.kv_heads"`` →
    ``"kv heads"``)."""
    key = field.strip()
    if key in FIELD_LABELS:
        return FIELD_LABELS[key]
    last = key.rsplit(".", 1)[-1]
    return FIELD_LABELS.get(last, last.replace("_", " "))


def is_file_error(exc: BaseException) -> bool:
    """An error about a file's content (``ScenarioError``: ``.source`` the file, ``.problem``
    the line, ``.field`` the dotted key)."""
    return isinstance(getattr(exc, "source", None), str) and isinstance(
        getattr(exc, "problem", None), str
    )


def user_message(exc: BaseException) -> str:
    """One line for a person: ``InputError("params", "must be greater than 0, got -1")`` →
    ``"Parameters: must be greater than 0, got -1"`` (the label, not the internal name). A
    file's error keeps the key to fix and adds its label: ``"plan.json: training.params
    (Parameters): must be greater than 0, got -1"``."""
    field = error_field(exc)
    if is_file_error(exc):
        source, problem = str(getattr(exc, "source", "")), str(getattr(exc, "problem", ""))
        if field and problem.startswith(f"{field}: "):
            rest = problem[len(field) + 2 :]
            return f"{source}: {field} ({field_label(field)}): {rest}"
        return f"{source}: {problem}"
    text = error_text(exc)
    if field:
        return f"{field_label(field)}: {text}" if text else field_label(field)
    return text or type(exc).__name__


def _as_float(field: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(field, f"expected a number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an int with hundreds of digits
        raise InputError(field, "is far too large for any real system") from None
    if math.isnan(number) or math.isinf(number):
        raise InputError(field, f"must be a finite number, got {value!r}")
    return number


def require_positive(field: str, value: object) -> float:
    """Strictly greater than zero."""
    number = _as_float(field, value)
    if number <= 0:
        raise InputError(field, f"must be greater than 0, got {value!r}")
    return number


def require_count(field: str, value: object) -> float:
    """A count of things (parameters, tokens, samples): at least one. Below one a model's time
    and memory round to nothing and its rates to infinity."""
    number = _as_float(field, value)
    if number < 1:
        if number <= 0:
            raise InputError(field, f"must be greater than 0, got {value!r}")
        hint = f"; {number:g}B is {number:g} billion" if number >= 1e-3 else ""
        raise InputError(field, f"must be at least 1 (it is a count{hint}), got {value!r}")
    return number


def require_non_negative(field: str, value: object) -> float:
    number = _as_float(field, value)
    if number < 0:
        raise InputError(field, f"must be 0 or more, got {value!r}")
    return number


def require_fraction(field: str, value: object, *, allow_zero: bool = False) -> float:
    """In (0, 1], or [0, 1] with ``allow_zero``."""
    number = _as_float(field, value)
    low_ok = number >= 0 if allow_zero else number > 0
    if not low_ok or number > 1:
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        hint = ""
        if 2 <= number <= 100:  # a percentage typed for a fraction: say how to write it
            hint = f" (a fraction: {number / 100:g} means {number:g}%)"
        raise InputError(field, f"must be in {interval}, got {value!r}{hint}")
    return number


def require_range(field: str, value: object, low: float, high: float) -> float:
    """Inclusive range check."""
    number = _as_float(field, value)
    if not low <= number <= high:
        raise InputError(field, f"must be between {low:g} and {high:g}, got {value!r}")
    return number


def require_int(field: str, value: object, *, minimum: int = 1, maximum: int | None = None) -> int:
    """A whole number (ints, or floats with no fractional part) within bounds."""
    number = _as_float(field, value)
    if number != int(number):
        raise InputError(field, f"must be a whole number, got {value!r}")
    whole = int(number)
    if whole < minimum:
        raise InputError(field, f"must be at least {minimum}, got {value!r}")
    if maximum is not None and whole > maximum:
        raise InputError(field, f"must be at most {maximum}, got {value!r}")
    return whole


def require_choice(field: str, value: object, allowed: Iterable[str]) -> str:
    options = list(allowed)
    if value not in options:
        raise InputError(field, f"must be one of {', '.join(options)}, got {value!r}")
    return str(value)


def require_shape(
    layers: object,
    hidden: object,
    heads: object,
    kv_heads: object = None,
    *,
    extra: Mapping[str, object] | None = None,
    noun: str = "model shape",
) -> None:
    """A transformer shape given whole or not at all: layers, hidden size and attention heads
    (and the ``extra`` inputs, e.g. the sequence length) together, the error naming the first
    one missing; KV heads only with them and dividing the heads; a hidden size the heads
    divide. The values' own ranges are the caller's. ``noun`` is what the messages call it."""
    shape = {"layers": layers, "hidden": hidden, "heads": heads, **(extra or {})}
    labels = [field_label(name).lower() for name in shape]
    words = f"{', '.join(labels[:-1])} and {labels[-1]}"
    given = [name for name, value in shape.items() if value is not None]
    if given and len(given) < len(shape):
        missing = next(name for name, value in shape.items() if value is None)
        raise InputError(
            missing,
            f"the {noun} needs {words} together "
            f"(given: {', '.join(field_label(name).lower() for name in given)})",
        )
    if kv_heads is not None and heads is None:
        raise InputError("kv_heads", f"needs the {noun} ({words})")
    if heads is None:
        return
    n_heads = _as_float("heads", heads)
    if hidden is not None and n_heads > 0 and _as_float("hidden", hidden) % n_heads:
        raise InputError("hidden", f"must be divisible by heads ({heads}), got {hidden}")
    if kv_heads is not None:
        n_kv = _as_float("kv_heads", kv_heads)
        if n_kv <= 0 or n_kv > n_heads or n_heads % n_kv:
            raise InputError("kv_heads", f"must divide heads ({heads}), got {kv_heads}")
