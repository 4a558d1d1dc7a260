"""The production allowance fitted to a team's own finished runs, for both faces.

``desktopapp calibrate FILE`` prints :class:`OwnRunsView`; the Workload tab's "From past
runs…" button shows the same view and puts its allowance in the Production factor field.
Reading the file is here too, so both faces refuse a bad file with the same message.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktopapp.application.text import as_sentence
from desktopapp.model import perf_training, units
from desktopapp.model.own_runs import FIELD, OwnAllowance, fit_own_allowance, parse_past_runs
from desktopapp.model.validation import InputError

MAX_FILE_BYTES = 2_000_000  # a team's runs fit in a few kB; a larger file is the wrong file
NOTE_NAME_CHARS = 81  # the file name in the field's note (kept with a saved scenario)
HEADERS = ("run", "GPUs", "took", "steady state", "allowance", "from the others")


@dataclass(frozen=True)
class OwnRunsView:
    """What both faces show for a file of past runs."""

    source: str  # the file's name
    fit: OwnAllowance
    rows: tuple[tuple[str, ...], ...]  # one per run, under HEADERS
    headline: str
    lines: tuple[str, ...]  # how far to trust it, the shipped default, the note
    option: str  # the estimate's option that applies it: "--production-factor 1.23"
    applied: float  # the factor both faces apply: the usable allowance to 3 digits

    @property
    def field_note(self) -> str:
        """One line for under the field: where the factor came from."""
        fit = self.fit
        n = len(fit.runs)
        spread = f", each ×{fit.low:.2f}-×{fit.high:.2f}" if n > 1 else ""
        name = self.source  # a long file name is shortened in the middle (its end is the type)
        if len(name) > NOTE_NAME_CHARS:
            half = (NOTE_NAME_CHARS - 1) // 2
            name = name[:half] + "…" + name[-half:]
        return (
            f"×{units.format_plain(self.applied, 3)} from your {units.plural(n, 'run')} in "
            f"{name} ({fit.stack_words}{spread})"
        )

    def to_dict(self) -> dict[str, Any]:
        fit = self.fit
        return {
            "source": self.source,
            "software_stack": fit.software_stack,
            "stacks": list(fit.stacks),
            "allowance": fit.factor,
            "production_factor": self.applied,
            "allowance_low": fit.low,
            "allowance_high": fit.high,
            "median_error_from_others": fit.median_error,
            "note": fit.note or None,
            "option": self.option,
            "headline": self.headline,
            "lines": list(self.lines),
            "shipped": _shipped_dict(),
            "runs": [
                {
                    "name": r.name,
                    "accelerator": r.accelerator,
                    "gpus": r.gpus,
                    "gpu_hours": r.gpu_hours,
                    "steady_gpu_hours": r.steady_gpu_hours,
                    "allowance": r.allowance,
                    "predicted_by_others": r.predicted_by_others,
                    "software_stack": r.software_stack,
                }
                for r in fit.runs
            ],
        }


def read_past_runs_text(path: str | Path) -> str:
    """The file's text, or :class:`InputError` naming the file and what is wrong with it."""
    target = Path(path)
    name = str(path)
    try:
        if target.is_dir():
            raise InputError(FIELD, f"{name} is a folder; give the CSV file of your runs")
        size = target.stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(
                FIELD,
                f"{name} is {units.format_bytes(size)}; a file of past runs is a few kB "
                f"(at most {units.format_bytes(MAX_FILE_BYTES)})",
            )
        data = target.read_bytes()
    except FileNotFoundError:
        raise InputError(FIELD, f"{name} does not exist") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(FIELD, f"{name} cannot be read ({reason})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(
            FIELD, f"{name} is not UTF-8 text: save it as CSV (UTF-8) from the spreadsheet"
        ) from None


def own_runs_view(path: str | Path, software_stack: str | None = None) -> OwnRunsView:
    """Read, fit and describe the runs in ``path`` (InputError naming the file, line and
    column for bad input)."""
    name = Path(path).name or str(path)
    runs = parse_past_runs(read_past_runs_text(path), name)
    fit = fit_own_allowance(runs, software_stack or perf_training.DEFAULT_STACK)
    return describe(fit, name)


def describe(fit: OwnAllowance, source: str) -> OwnRunsView:
    n = len(fit.runs)
    rows = tuple(
        (
            r.name,
            f"{r.gpus:,} × {r.accelerator}"  # the catalog id: short, exact, what the file takes
            + (f" ({r.software_stack})" if len(fit.stacks) > 1 else ""),
            f"{units.format_count(r.gpu_hours)} GPU-h",
            f"{units.format_count(r.steady_gpu_hours)} GPU-h",
            f"×{r.allowance:.2f}",
            units.DASH
            if r.predicted_by_others is None
            else f"{units.format_count(r.predicted_by_others)} GPU-h "
            f"({_signed_error(r.predicted_by_others / r.gpu_hours)})",
        )
        for r in fit.runs
    )
    spread = f" (each run ×{fit.low:.2f}-×{fit.high:.2f})" if n > 1 else ""
    headline = (
        f"Your {units.plural(n, 'run')} took ×{fit.factor:.2f} the model's steady state"
        f"{spread} on the {fit.stack_words}"
    )
    if fit.usable == fit.factor:
        headline += f": a production allowance of ×{fit.usable:.2f}."
    else:
        headline += f"; an estimate takes ×{units.format_plain(fit.usable)}, the nearest it allows."
    lines = []
    if fit.median_error is not None:
        lines.append(
            "Each run predicted with the allowance fitted to the others misses by a median "
            f"×{fit.median_error:.2f}: what to expect for your next run."
        )
    else:
        lines.append(
            "One run: nothing to check the fit against. Add more runs to see how far the next "
            "one may stray."
        )
    if fit.note:
        lines.append(as_sentence(fit.note))
    lines.extend(shipped_lines())
    applied = float(f"{fit.usable:.3g}")
    option = f"--production-factor {units.format_plain(applied, 3)}"
    if fit.software_stack != perf_training.DEFAULT_STACK:
        option += f" --software-stack {fit.software_stack}"
    return OwnRunsView(source, fit, rows, headline, tuple(lines), option, applied)


def _signed_error(ratio: float) -> str:
    """'+12%' or '−8%': predicted over what the run took."""
    return f"{ratio - 1.0:+.0%}".replace("-", "−")


def shipped_lines() -> list[str]:
    """The shipped default and what fitting to one's own organisation bought on published runs
    (benchmarks/fidelity.py prints the same figures)."""
    fit = perf_training.production_fit()
    if not fit.runs:
        return []
    out = [
        f"The shipped default is ×{fit.factor:.2f}, fitted to {fit.runs} published runs of "
        "several organisations."
    ]
    own = fit.own_organisation or {}
    if own.get("runs"):
        out.append(
            f"On {own['runs']} published runs of {own['organisations']} organisations, fitting "
            "the allowance to the organisation's other runs gave a median error of "
            f"×{own['own_median_error']:.2f}, against ×{own['others_median_error']:.2f} with "
            "the allowance of the other organisations."
        )
    band = own.get("band") or {}
    if band.get("runs"):
        out.append(
            "An estimate with this factor keeps a likely range of "
            f"×{1.0 / band['ratio_high']:.2f}-×{1.0 / band['ratio_low']:.2f} of its GPU-hours: "
            "one team's runs still scatter that much (5-95% of those runs)."
        )
    return out


def _shipped_dict() -> dict[str, Any]:
    fit = perf_training.production_fit()
    return {
        "production_factor": fit.factor,
        "runs": fit.runs,
        "own_organisation": dict(fit.own_organisation or {}),
    }


__all__ = ["HEADERS", "OwnRunsView", "describe", "own_runs_view", "read_past_runs_text"]
