"""Checks before a measurement is applied to estimates, and plausibility of typed inputs.

A measurement the user applies ("Use in estimates") is never changed silently. Before it is
used, :func:`review_measurement` says whether it looks broken (far below the datasheet), is
beyond the peak it is compared with, or was taken while other work disturbed the machine; the
caller shows the message and lets the user choose. :func:`plausibility_warnings` flags typed
inputs beyond any real system (they are allowed, but rarely meant).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from desktopapp.model import units

# Under this share of the datasheet peak a matmul run is suspect: the best-shape efficiency of
# current accelerators is 0.5-0.97 of peak (published_throughput.csv, matmul_efficiency rows) and
# even a small or badly shaped GEMM on a CPU reaches well over 5%. Far below it, something else
# was measured: another process, a debug build, the wrong device, a throttled or idle-clocked GPU.
SUSPECT_SHARE = 0.05


@dataclass(frozen=True)
class MeasurementReview:
    """What to tell the user before a measured figure is used in estimates."""

    dtype: str
    measured_tflops: float
    peak_tflops: float | None
    share_of_peak: float | None  # measured ÷ peak, unclamped; None without a peak
    suspect: bool  # far below the datasheet
    over_peak: bool  # above the peak it is compared with (the peak estimate is low)
    disturbed: bool  # taken while other processes loaded the machine
    conditions: str = ""

    @property
    def ok(self) -> bool:
        return not (self.suspect or self.over_peak or self.disturbed)

    def message(self) -> str:
        """Empty when there is nothing to say; otherwise the sentences to show before use."""
        rate = units.format_flop_rate(self.measured_tflops * 1e12)
        peak = units.format_flop_rate(self.peak_tflops * 1e12) if self.peak_tflops else ""
        parts = []
        if self.suspect and self.share_of_peak is not None:
            parts.append(
                f"{self.dtype} matmul reached {rate}, {units.format_percent(self.share_of_peak)} "
                f"of the {peak} peak: far below what this hardware delivers (under "
                f"{SUSPECT_SHARE:.0%} usually means another process, a debug build, the wrong "
                "device or idle clocks). Planning with it would be very pessimistic."
            )
        if self.over_peak and self.share_of_peak is not None:
            parts.append(
                f"{self.dtype} matmul reached {rate}, "
                f"{units.format_percent(self.share_of_peak)} of the {peak} peak it is compared "
                "with: the peak estimate is too low. As a utilization it can only be used as "
                "100%; as a peak the measured figure is used as it is."
            )
        if self.disturbed:
            parts.append(
                "The run was disturbed by other load"
                + (f" ({self.conditions})" if self.conditions else "")
                + ": its figures understate this machine."
            )
        return " ".join(parts)


def review_measurement(
    measured_tflops: float,
    peak_tflops: float | None,
    *,
    dtype: str = "fp32",
    disturbed: bool = False,
    conditions: str = "",
) -> MeasurementReview:
    """Review one measured matmul throughput against its peak before it is applied."""
    if not math.isfinite(measured_tflops) or measured_tflops <= 0:
        raise ValueError(f"measured TFLOP/s: must be a positive number, got {measured_tflops!r}")
    share = None
    if peak_tflops is not None and math.isfinite(peak_tflops) and peak_tflops > 0:
        share = measured_tflops / peak_tflops
    return MeasurementReview(
        dtype=dtype,
        measured_tflops=measured_tflops,
        peak_tflops=peak_tflops if share is not None else None,
        share_of_peak=share,
        suspect=share is not None and share < SUSPECT_SHARE,
        over_peak=share is not None and share > 1.0,
        disturbed=disturbed,
        conditions=conditions,
    )


@dataclass(frozen=True)
class Limit:
    label: str  # the field as the user knows it
    largest_real: float  # beyond any system or run that exists
    example: str  # the largest real one, for scale
    smallest_real: float | None = None  # below any real model: most likely a missing suffix
    small_example: str = ""  # the smallest real one, for scale


# Inputs larger than these describe no real system; each limit sits well above the largest
# public example named beside it.
PLAUSIBLE_LIMITS: dict[str, Limit] = {
    # below 1,000 parameters: no network worth planning compute for (the smallest preset,
    # small-nn, has 500k); "7" typed for "7B" is the likely cause
    "params": Limit(
        "parameters",
        100e12,
        "the largest published dense or MoE models: ~2T",
        1_000,
        "the smallest preset network has 500k",
    ),
    "active_params": Limit(
        "active parameters",
        100e12,
        "~0.1T active in the largest MoE",
        1_000,
        "the smallest preset network has 500k",
    ),
    "tokens": Limit("training tokens", 1e15, "the largest published runs: ~36T tokens"),
    "gpus": Limit("devices", 1e6, "the largest training clusters: ~100k-200k GPUs"),
    "devices": Limit("devices", 1e6, "the largest training clusters: ~100k-200k GPUs"),
    "seq_len": Limit("sequence length", 100e6, "the longest published contexts: ~10M tokens"),
    "peak_tflops": Limit("peak per device", 1e6, "GB200 fp8 dense: ~5,000 TFLOP/s"),
    "epochs": Limit("epochs", 10_000, "ImageNet-style schedules: ~100-600 epochs"),
    "batch_size": Limit("batch size", 1e7, "the largest batches in use: ~1e5-1e6"),
    "layers": Limit("layers", 10_000, "the deepest production transformers: ~100-200 layers"),
    "hidden": Limit("hidden size", 1e6, "the widest production transformers: ~20k-30k"),
    # a million GPUs busy every hour of a month: beyond the largest clusters (~100k-200k GPUs,
    # the "devices" limit above) several times over
    "gpu_hours_per_month": Limit(
        "GPU-hours a month",
        1e9,
        "a million GPUs busy all month: ~730M GPU-h; the largest clusters have ~100k-200k",
    ),
    # ChatGPT: 2.5 billion prompts a day, about 29,000 a second (OpenAI to Axios, 2025-07-21);
    # Google Search: about 5 trillion searches a year, about 160,000 a second (Alphabet, 2025)
    "requests_per_s": Limit(
        "requests per second",
        1e7,
        "ChatGPT: 2.5 billion prompts a day, ~29,000/s (OpenAI, 2025-07)",
    ),
}


def plausibility_warnings(values: dict[str, float | int | None]) -> list[str]:
    """One sentence per input beyond any real system (the input is still used)."""
    warnings = []
    for name, value in values.items():
        limit = PLAUSIBLE_LIMITS.get(name)
        if limit is None or value is None:
            continue
        number = float(value)
        if math.isfinite(number) and number > limit.largest_real:
            warnings.append(
                f"{limit.label}: {units.format_big_count(number)} is beyond any real system "
                f"({limit.example}); check the value"
            )
        elif limit.smallest_real is not None and 0 < number < limit.smallest_real:
            typed = units.format_plain(number)
            warnings.append(
                f"{limit.label}: {typed} is below any real model ({limit.small_example}); "
                f"a count needs its suffix: {typed}B is {typed} billion, {typed}M {typed} million"
            )
    return warnings
