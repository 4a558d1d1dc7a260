"""Your own past runs: the production allowance fitted to what your team's runs really took.

The shipped allowance (:func:`~desktopapp.model.perf_training.production_fit`) is fitted to
published runs of many organisations, and how far a run strays from it depends mostly on who
ran it (``benchmarks/fidelity.py``, organisation split). A planner who has finished runs of
their own can fit the allowance to those instead: each run's GPU-hours over the model's steady
state for its inputs is that run's allowance, and their geometric mean is the fit (the same
rule as the shipped fit). With two runs or more, each run is also predicted with the allowance
fitted to the others, which says how well the fit carries to the next run.

The runs come as CSV text, one run per row (:func:`parse_past_runs`); the header names the
columns (:data:`REQUIRED_COLUMNS`, :data:`OPTIONAL_COLUMNS`, in any order and case).
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from desktopapp.model import units
from desktopapp.model.catalog import get_accelerator
from desktopapp.model.perf_training import DEFAULT_STACK, RunInputs, steady_gpu_hours
from desktopapp.model.training import PRODUCTION_FACTOR_RANGE
from desktopapp.model.validation import InputError, error_text, require_positive

FIELD = "past_runs"  # the input every refusal names: the file of past runs
MAX_RUNS = 500  # each run is one plan search (a few ms); more is not a team's history
REQUIRED_COLUMNS = ("params", "tokens", "accelerator", "gpus")
HOURS_COLUMNS = ("gpu_hours", "days")  # one of them: what the run took
OPTIONAL_COLUMNS = (
    "name",
    "active_params",
    "precision",
    "seq_len",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "vocab",
    "global_batch_tokens",
    "moe_top_k",
    "software_stack",  # the run's own stack (megatron, fsdp, typical); empty: the fit's
)
_SIZES = ("params", "tokens", "active_params", "global_batch_tokens", "gpu_hours", "days")
_COUNTS = ("gpus", "seq_len", "layers", "hidden", "heads", "kv_heads", "vocab", "moe_top_k")
EXAMPLE_CSV = (  # one of gpu_hours and days per row
    "name,params,tokens,accelerator,gpus,gpu_hours,days\n"
    "base-7b,7B,2T,h100-sxm,256,60k,\n"
    "chat-13b,13B,300B,a100-sxm-80gb,128,,21\n"
)


@dataclass(frozen=True)
class PastRun:
    """One finished run: what a planner would have typed, and the GPU-hours it took."""

    name: str
    inputs: RunInputs
    gpu_hours: float
    line: int = 0  # the CSV line it came from (0: not from a file)
    source: str = ""  # the file's name
    stack_given: bool = False  # the row named its software stack (else the fit's applies)

    def __post_init__(self) -> None:
        object.__setattr__(self, "gpu_hours", require_positive("gpu_hours", self.gpu_hours))


@dataclass(frozen=True)
class RunFit:
    """One past run against the model."""

    name: str
    accelerator: str
    gpus: int
    gpu_hours: float  # what it took
    steady_gpu_hours: float  # the model's steady state ÷ goodput for its inputs
    allowance: float  # gpu_hours / steady_gpu_hours
    predicted_by_others: float | None  # GPU-hours with the allowance of the other runs
    software_stack: str = ""  # the stack it was modelled on

    @property
    def error(self) -> float | None:
        """max(r, 1/r) of predicted_by_others / gpu_hours (None with a single run)."""
        if self.predicted_by_others is None:
            return None
        ratio = self.predicted_by_others / self.gpu_hours
        return max(ratio, 1.0 / ratio)


@dataclass(frozen=True)
class OwnAllowance:
    """The production allowance fitted to a team's own runs."""

    runs: tuple[RunFit, ...]
    factor: float  # geometric mean of the runs' allowances
    usable: float  # factor within PRODUCTION_FACTOR_RANGE (what an estimate can take)
    software_stack: str
    low: float  # the smallest and largest allowance among the runs
    high: float
    median_error: float | None  # of each run predicted with the others' allowance (≥ 2 runs)
    note: str  # why ``usable`` differs from ``factor`` ('' when it does not)

    @property
    def stacks(self) -> tuple[str, ...]:
        """The stacks the runs were modelled on (rows may name their own)."""
        return tuple(sorted({r.software_stack for r in self.runs}))

    @property
    def stack_words(self) -> str:
        """ "typical stack", or "fsdp and megatron stacks" when rows named their own."""
        stacks = self.stacks
        if len(stacks) == 1:
            return f"{stacks[0]} stack"
        return f"{', '.join(stacks[:-1])} and {stacks[-1]} stacks"


def fit_own_allowance(runs: Sequence[PastRun], software_stack: str = DEFAULT_STACK) -> OwnAllowance:
    """Fit the allowance to ``runs`` (each planned on ``software_stack``). Raises
    :class:`InputError` naming the run (its CSV line) when the model cannot plan it."""
    if not runs:
        raise InputError(FIELD, "no runs to fit: give at least one finished run")
    steady = []
    stacks: list[str] = []
    for run in runs:
        inputs = _on_stack(run, software_stack)
        stacks.append(inputs.software_stack)
        try:
            steady.append(steady_gpu_hours(inputs))
        except (ValueError, ArithmeticError) as exc:
            raise InputError(FIELD, f"{_where(run)}: the model cannot plan it ({exc})") from None
    logs = [math.log(run.gpu_hours / s) for run, s in zip(runs, steady, strict=True)]
    n = len(runs)
    factor = math.exp(sum(logs) / n)
    fits = []
    for i, (run, s) in enumerate(zip(runs, steady, strict=True)):
        others = None
        if n > 1:
            others = s * math.exp((sum(logs) - logs[i]) / (n - 1))
        fits.append(
            RunFit(
                name=run.name,
                accelerator=run.inputs.accelerator,
                gpus=run.inputs.gpus,
                gpu_hours=run.gpu_hours,
                steady_gpu_hours=s,
                allowance=run.gpu_hours / s,
                predicted_by_others=others,
                software_stack=stacks[i],
            )
        )
    errors = [f.error for f in fits if f.error is not None]
    low_limit, high_limit = PRODUCTION_FACTOR_RANGE
    usable = min(max(factor, low_limit), high_limit)
    note = ""
    yours = "your run" if n == 1 else "your runs"
    if factor < low_limit:
        note = (
            f"{yours} took ×{factor:.2f} of the modelled steady state, faster than the model "
            f"expects; an estimate takes ×{low_limit:g} at least (a tuned benchmark's pace), "
            f"so the model is pessimistic for {yours}: try a faster software stack"
        )
    elif factor > high_limit:
        note = (
            f"{yours} took ×{factor:.2f} of the modelled steady state; an estimate takes at "
            f"most ×{high_limit:g}: check the runs' GPU counts and hours, or add the rest as "
            "goodput overhead (failures and restarts)"
        )
    return OwnAllowance(
        runs=tuple(fits),
        factor=factor,
        usable=usable,
        software_stack=software_stack,
        low=min(f.allowance for f in fits),
        high=max(f.allowance for f in fits),
        median_error=statistics.median(errors) if errors else None,
        note=note,
    )


def _on_stack(run: PastRun, software_stack: str) -> RunInputs:
    """The run's inputs as modelled: on its own stack where its row named one."""
    stack = run.inputs.software_stack if run.stack_given else software_stack
    try:
        return replace(run.inputs, software_stack=stack, production_factor=1.0)
    except ValueError as exc:
        raise InputError("software_stack", error_text(exc)) from None


def _where(run: PastRun) -> str:
    if not run.line:
        return run.name
    return f"{run.source} line {run.line} ({run.name})".lstrip()


# --- the CSV ----------------------------------------------------------------------------------


def _column(name: str) -> str:
    return name.strip().lower().replace(" ", "_").replace("-", "_")


def parse_past_runs(text: str, source: str = "past runs") -> list[PastRun]:
    """Runs from CSV text with a header row. ``source`` (the file's name) starts every message:
    ``"runs.csv line 3, gpus: must be a whole number, got 2.5"``. Blank lines and lines that
    start with ``#`` are skipped."""
    lines = [
        (number, line)
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not lines:
        raise InputError(FIELD, f"{source} is empty: {_expected()}")
    header_line, header_text = lines[0]
    known = set(REQUIRED_COLUMNS) | set(HOURS_COLUMNS) | set(OPTIONAL_COLUMNS)
    delimiter = _delimiter(header_text, known)
    header = [_column(c) for c in next(csv.reader([header_text], delimiter=delimiter))]
    unknown = [c for c in header if c not in known]
    if unknown:
        raise InputError(
            FIELD,
            f"{source} line {header_line}: unknown column {unknown[0]!r}; the columns are "
            f"{', '.join(REQUIRED_COLUMNS)}, gpu_hours or days, and optionally "
            f"{', '.join(OPTIONAL_COLUMNS)}",
        )
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise InputError(FIELD, f"{source} line {header_line}: column {repeated[0]!r} twice")
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing or not any(c in header for c in HOURS_COLUMNS):
        what = missing[0] if missing else "gpu_hours (or days)"
        raise InputError(FIELD, f"{source} line {header_line}: no {what} column; {_expected()}")
    if len(lines) - 1 > MAX_RUNS:
        raise InputError(FIELD, f"{source}: {len(lines) - 1:,} runs; at most {MAX_RUNS} are read")
    if len(lines) == 1:
        raise InputError(FIELD, f"{source}: a header but no runs; {_expected()}")
    runs = []
    for number, line in lines[1:]:
        cells = next(csv.reader(io.StringIO(line), delimiter=delimiter), [])
        if len(cells) > len(header):
            hint = (
                " (a comma inside a number? write 1000 or 1k, not 1,000)"
                if delimiter == ","
                else ""
            )
            raise InputError(
                FIELD,
                f"{source} line {number}: {len(cells)} values for {len(header)} columns{hint}",
            )
        row = {c: v.strip() for c, v in zip(header, cells, strict=False) if v.strip()}
        runs.append(replace(_run(row, f"{source} line {number}", number), source=source))
    return runs


DELIMITERS = (",", ";", "\t")  # spreadsheets in many locales save CSV with ";"


def _delimiter(header_text: str, known: set[str]) -> str:
    """The separator that makes the most known columns of the header (comma on a tie)."""

    def known_columns(delimiter: str) -> int:
        cells = next(csv.reader([header_text], delimiter=delimiter), [])
        return sum(_column(c) in known for c in cells)

    return max(DELIMITERS, key=known_columns)


def _expected() -> str:
    return (
        f"a header row naming {', '.join(REQUIRED_COLUMNS)} and gpu_hours (or days), then one "
        "row per run"
    )


def _run(row: dict[str, str], where: str, line: int) -> PastRun:
    for column in REQUIRED_COLUMNS:
        if column not in row:
            raise InputError(FIELD, f"{where}: {column} is empty; every run needs it")
    if "gpu_hours" not in row and "days" not in row:
        raise InputError(FIELD, f"{where}: gpu_hours and days are empty; give one of them")
    values: dict[str, float | str] = {}
    for column, cell in row.items():
        if column in _SIZES or column in _COUNTS:
            try:
                number = units.parse_quantity(cell, column)
            except ValueError as exc:
                raise InputError(FIELD, f"{where}, {exc}") from None
            if number <= 0:
                raise InputError(FIELD, f"{where}, {column}: must be above 0, got {cell}")
            if column in _COUNTS and number != int(number):
                raise InputError(FIELD, f"{where}, {column}: must be a whole number, got {cell}")
            values[column] = int(number) if column in _COUNTS else number
        elif column in ("software_stack", "precision"):  # choices, in any case ("FSDP")
            values[column] = cell.lower()
        else:
            values[column] = cell
    gpus = int(values["gpus"])
    if "gpu_hours" in values and "days" in values:
        hours = float(values["gpu_hours"])
        from_days = float(values["days"]) * 24.0 * gpus
        if abs(from_days - hours) > 0.05 * hours:
            raise InputError(
                FIELD,
                f"{where}: gpu_hours {units.format_plain(hours, 4)} and days × 24 × gpus "
                f"{units.format_plain(from_days, 4)} disagree; give one of them",
            )
    else:
        hours = (
            float(values["gpu_hours"])
            if "gpu_hours" in values
            else float(values["days"]) * 24.0 * gpus
        )
    fields = {
        k: v for k, v in values.items() if k not in ("name", "gpu_hours", "days", "accelerator")
    }
    try:
        accelerator = get_accelerator(str(values["accelerator"])).id
        inputs = RunInputs(accelerator=accelerator, **fields)  # type: ignore[arg-type]
    except ValueError as exc:
        raise InputError(FIELD, f"{where}, {exc}") from None
    name = str(values.get("name") or f"line {line}")
    _check_pace(inputs, hours, where)
    given = "software_stack" in values
    return PastRun(name=name, inputs=inputs, gpu_hours=hours, line=line, stack_given=given)


MAX_PLAUSIBLE_MFU = 0.8  # no published run is near it (the best dense runs: about 0.6)


def _check_pace(inputs: RunInputs, gpu_hours: float, where: str) -> None:
    """Refuse GPU-hours too few for the run's own arithmetic (6·N·D at the GPUs' peak): most
    often wall-clock hours entered as GPU-hours, or tokens with the wrong suffix."""
    peak = get_accelerator(inputs.accelerator).peak_flops(inputs.precision)
    flops = 6.0 * (inputs.active_params or inputs.params) * inputs.tokens
    mfu = flops / (gpu_hours * units.SECONDS_PER_HOUR * peak)
    if mfu > MAX_PLAUSIBLE_MFU:
        raise InputError(
            FIELD,
            f"{where}: {units.format_count(gpu_hours)} GPU-hours would run these GPUs at "
            f"{mfu:.0%} of their peak for 6·N·D (the best published runs reach about 60%); "
            "GPU-hours are wall-clock hours × GPUs: check gpu_hours (or days), gpus and tokens",
        )
