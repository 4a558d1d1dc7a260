"""The Hardware tab's policy and state, without Qt.

:class:`HardwareController` knows which benchmark run is on screen (its generation), what the
progress line says, what a finished, cancelled, failed or disturbed run means, which results
and findings are shown, what "Use in estimates" offers (and when it must ask "Apply anyway"),
and which saved runs the history lists. The tab forwards clicks and worker signals to it and
renders the view-models it returns; the benchmark itself runs in a worker thread
(:func:`~desktopapp.application.hardware_jobs.run_benchmark_job`), never here.

Every event of a run carries the generation it was started with: events of a run that is no
longer on screen (a newer run, a saved run opened, the tab shut down) are dropped and counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from desktopapp.application.hardware import (
    USE_AS_PEAK,
    USE_AS_UTILIZATION,
    HistoryRow,
    MeasuredDevice,
    best_by_dtype,
    eta_text,
    matmul_series,
    measured_accelerator,
    measured_device_from_info,
    percent_text,
    review_use,
    tflops_text,
    utilization_choices,
)
from desktopapp.application.hardware_jobs import BenchOutcome, History, LoadedRun
from desktopapp.application.plan import CustomAccelerator
from desktopapp.devices.bench.core import BenchResult, ProgressEvent
from desktopapp.model.validation import error_text

if TYPE_CHECKING:
    from desktopapp.devices.bench.runner import BenchConfig

THIS_RUN = "this run"
STATUS_MS = 8000  # how long a status-bar message about a run stays
NOTHING_MEASURED = "Run the matmul suite to use the measured throughput here."
USE_TEXT = "Use in estimates"
APPLY_ANYWAY_TEXT = "Apply anyway"


# --- view-models --------------------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    """The progress bar and its two lines: ``fraction`` None leaves the bar where it is."""

    message: str
    eta: str = ""
    fraction: float | None = None


@dataclass(frozen=True)
class Status:
    """A status-bar message (``ms`` 0: until replaced)."""

    text: str
    ms: int


@dataclass(frozen=True)
class RunPlan:
    """What pressing Run benchmark leads to: a config to run, or why not (``problem``)."""

    config: BenchConfig | None
    problem: str = ""


@dataclass(frozen=True)
class RunStart:
    """A run that has just been started: the generation its worker reports with."""

    generation: int
    caption: str
    progress: Progress


@dataclass(frozen=True)
class ProgressUpdate:
    """One progress event of the run on screen."""

    progress: Progress
    result: BenchResult | None  # a new row for the results table
    replot: bool  # a matmul result: the throughput plot changes
    findings_changed: bool


@dataclass(frozen=True)
class RunEnd:
    """What the end of the run on screen means (finished, cancelled, or could not start)."""

    outcome: BenchOutcome
    progress: Progress
    status: Status
    caption: str
    refresh_history: bool  # a run that ran was saved (or tried to be): list it
    findings_changed: bool


@dataclass(frozen=True)
class Findings:
    lines: tuple[str, ...]
    title: str
    visible: bool


@dataclass(frozen=True)
class PlotView:
    series: Mapping[tuple[str, str], list[tuple[int, float]]]
    peaks: Mapping[str, float]
    peak_suffix: str  # " (estimate)" when the peaks are estimates
    peak_source: str | None  # the plot tooltip's note; None: no device, leave it


@dataclass(frozen=True)
class UsePanel:
    """The "Use in estimates" row for the results on screen."""

    summary: str
    summary_tooltip: str
    enabled: bool
    utilization_available: bool  # the "share of peak as utilization" mode can be chosen
    mode: str  # the mode to show (falls back to the peak mode when the other is unavailable)
    button_text: str


@dataclass(frozen=True)
class UseResult:
    """What a press of "Use in estimates" did: ``custom`` is what to hand to the estimates
    (None: nothing applied, ``note`` says why); ``announcement`` goes to the status bar."""

    custom: CustomAccelerator | None
    note: str
    note_tooltip: str | None  # None: leave the tooltip
    button_text: str
    announcement: str = ""


@dataclass(frozen=True)
class InUse:
    """The status line under "Use in estimates": what the Workload tab plans with now."""

    text: str
    tooltip: str
    can_stop: bool


@dataclass(frozen=True)
class LoadedView:
    """A saved run opened from the history."""

    results: tuple[BenchResult, ...]
    caption: str
    progress: Progress


# --- pure helpers ---------------------------------------------------------------------------


def run_plan(
    device: str,
    suites: Sequence[str],
    dtypes: Sequence[str],
    quick: bool,
    overrides: Mapping[str, Any] | None = None,
) -> RunPlan:
    """The :class:`BenchConfig` of the panel's choices, or why it cannot run."""
    from desktopapp.devices.bench.runner import BenchConfig

    if not suites:
        return RunPlan(None, "Choose at least one suite to run.")
    if "matmul" in suites and not dtypes:
        return RunPlan(None, "Choose at least one matmul precision.")
    try:
        config = BenchConfig(
            device=device,
            suites=tuple(suites),
            dtypes=tuple(dtypes) or None,
            quick=quick,
            **dict(overrides or {}),
        )
    except (TypeError, ValueError) as exc:
        return RunPlan(None, f"Cannot start: {exc}")
    return RunPlan(config)


def end_message(outcome: BenchOutcome) -> str:
    """``Finished in 3.2 s: 6 results, saved as run #4.`` (or Cancelled, partial results)."""
    done = "Cancelled" if outcome.cancelled else "Finished"
    if outcome.run_id is not None:
        kept = "partial results saved" if outcome.cancelled else "saved"
        saved = f"{kept} as run #{outcome.run_id}"
    else:
        saved = outcome.save_error
    return f"{done} in {outcome.seconds:.1f} s: {len(outcome.results)} results, {saved}."


def in_use(custom: object) -> InUse:
    """What the estimates use now: the measured accelerator, or the catalog."""
    if not isinstance(custom, CustomAccelerator):
        return InUse("Not in use: the Workload tab plans with catalog accelerators.", "", False)
    peaks = ", ".join(f"{p} {tflops_text(v)}" for p, v in custom.peak_tflops.items())
    util = f", utilization {custom.utilization:.0%}" if custom.utilization is not None else ""
    return InUse(
        f"In use in Workload estimation: ★ {custom.name} — {peaks} TFLOP/s{util}.",
        custom.source,
        True,
    )


def history_note(count: int, path: str = "", error: str = "") -> str:
    """The line above the history list."""
    if error:
        return f"The results database could not be read: {error}"
    if count:
        where = f" in {path}" if path else ""
        return (
            f"{count} saved run{'s' if count != 1 else ''}{where}. Best figures are matmul TFLOP/s."
        )
    return "Results are saved here when a benchmark finishes."


def history_status(row: HistoryRow) -> str:
    """A run's status cell: complete or partial, disturbed, and from another machine."""
    return row.status if row.same_machine else f"{row.status} · other machine"


# --- the controller -------------------------------------------------------------------------


class HardwareController:
    """The benchmark runs, results, findings, "Use in estimates" and history of the tab."""

    def __init__(self) -> None:
        self.generation = 0
        self.running = False  # a worker is going (until it has finished, even after a cancel)
        self.closed = False
        self.dropped_events = 0
        self.results: list[BenchResult] = []
        self.findings: list[str] = []
        self.device: MeasuredDevice | None = None  # the device of the results on screen
        self.device_info: dict[str, object] = {}  # its device info, with the run conditions
        self.label = ""  # "this run", "run #3 of …"
        self.run_device = ""  # the device the run on screen was started on
        self.confirm_pending = False  # "Use in estimates" warned: the next press applies
        self.history: History = History(())

    # --- running ----------------------------------------------------------------------------
    def can_start(self) -> bool:
        return not self.running and not self.closed

    def start(self, config: BenchConfig) -> RunStart:
        """A new run goes on screen: what was shown is cleared and older events are stale."""
        self.generation += 1
        self.running = True
        self.results = []
        self.findings = []
        self.device = None
        self.device_info = {}
        self.label = THIS_RUN
        self.run_device = config.device
        self.confirm_pending = False
        return RunStart(
            self.generation,
            f"Running on {config.device}…",
            Progress(f"Starting on {config.device}…", "", 0.0),
        )

    def cancel(self) -> Progress | None:
        """Cancel pressed: the line to show until the run ends (None: nothing is running)."""
        if not self.running:
            return None
        return Progress("Cancelling after the current step…")

    def _drop(self) -> None:
        """An event of a run that is not on screen (or not what its signal carries)."""
        self.dropped_events += 1

    def device_resolved(self, generation: int, info: object) -> bool:
        """The run's device is known (its peaks give % of peak); False: dropped."""
        if generation != self.generation or not isinstance(info, Mapping):
            self._drop()
            return False
        self.device = measured_device_from_info(info, self.run_device)
        self.device_info = dict(info)
        return True

    def progress(self, generation: int, event: object) -> ProgressUpdate | None:
        """One step of the run on screen; None for an event of another run."""
        if generation != self.generation or not isinstance(event, ProgressEvent):
            self._drop()
            return None
        result = event.result
        if result is not None:
            self.results.append(result)
        changed = self._add_finding(event.warning) if event.warning else False
        return ProgressUpdate(
            Progress(event.message, eta_text(event.eta_s), event.fraction),
            result,
            result is not None and result.suite == "matmul",
            changed,
        )

    def finish(self, generation: int, outcome: object) -> RunEnd | None:
        """The run on screen ended: finished, cancelled (partial results kept) or not started."""
        if generation != self.generation or not isinstance(outcome, BenchOutcome):
            self._drop()
            return None
        self.device_info = dict(outcome.device_info)
        if outcome.error:
            return RunEnd(
                outcome,
                Progress(f"Could not start: {outcome.error}"),
                Status(f"Benchmark could not start: {outcome.error}", 0),
                "",
                refresh_history=False,
                findings_changed=False,
            )
        changed = False
        for warning in outcome.warnings:
            changed = self._add_finding(warning) or changed
        message = end_message(outcome)
        progress = Progress(message) if outcome.cancelled else Progress(message, "", 1.0)
        return RunEnd(
            outcome,
            progress,
            Status(f"Benchmark {message[0].lower()}{message[1:]}", STATUS_MS),
            self.caption(),
            refresh_history=True,
            findings_changed=changed,
        )

    def failed(self, generation: int, message: str) -> tuple[Progress, Status] | None:
        """The worker raised: the step line and the status-bar message."""
        if generation != self.generation:
            self._drop()
            return None
        return (
            Progress(f"The benchmark failed: {message}"),
            Status(f"Benchmark failed: {message}", 0),
        )

    def worker_finished(self) -> None:
        self.running = False

    def close(self) -> None:
        """The tab shuts down: anything still in flight is stale now."""
        self.closed = True
        self.generation += 1

    # --- findings ----------------------------------------------------------------------------
    def _add_finding(self, text: str) -> bool:
        if text in self.findings:
            return False
        self.findings.append(text)
        return True

    def findings_view(self) -> Findings:
        count = len(self.findings)
        title = f"Findings · {count}" if count > 1 else "Finding"
        return Findings(tuple(self.findings), title, bool(self.findings))

    # --- what is on screen ---------------------------------------------------------------------
    def caption(self) -> str:
        """``Run #3 of … · Test CPU (cpu) · peak fp32 0.896 TFLOP/s (estimate)``."""
        device = self.device
        if device is None:
            return ""
        parts = [f"{device.name} ({device.spec})"]
        if self.label and self.label != THIS_RUN:
            parts.insert(0, self.label[:1].upper() + self.label[1:])
        peaks = ", ".join(f"{d} {tflops_text(v)}" for d, v in device.peaks.items())
        if peaks:
            estimate = device.peak_source.startswith("estimate")
            parts.append(f"peak {peaks} TFLOP/s{' (estimate)' if estimate else ''}")
        else:
            parts.append("no known peak, so no % of peak")
        return " · ".join(parts)

    def plot_view(self) -> PlotView:
        device = self.device
        peaks = device.peaks if device is not None else {}
        estimate = device is not None and device.peak_source.startswith("estimate")
        return PlotView(
            matmul_series(self.results),
            peaks,
            " (estimate)" if estimate else "",
            None if device is None else device.peak_source,
        )

    # --- use in estimates ----------------------------------------------------------------------
    def use_panel(self, mode: str) -> UsePanel:
        """The "Use in estimates" row for the results on screen; a suspect or disturbed run is
        flagged here, before it can be applied. Any pending "Apply anyway" is withdrawn."""
        self.confirm_pending = False
        best = best_by_dtype(self.results)
        device = self.device
        if not best or device is None:
            return UsePanel(NOTHING_MEASURED, "", False, True, mode, USE_TEXT)
        parts = []
        for dtype, result in best.items():
            pct = percent_text(result)
            share = f" ({pct} of peak)" if pct != "—" else ""
            parts.append(f"{dtype} {tflops_text(result.tflops)} TFLOP/s{share}")
        # the estimates take the sustained figure (median over the repeats), not the fastest;
        # every figure carries its unit ("fp32 0.2 (40% of peak) · bf16 0.1 TFLOP/s" left the
        # first without one)
        text = "Uses the sustained rate (median of repeats): " + " · ".join(parts)
        peaks = [
            f"{dtype} {tflops_text(r.extra.get('tflops_best'))} TFLOP/s"
            for dtype, r in best.items()
            if r.extra.get("tflops_best")
        ]
        if peaks:
            text += "; fastest repeat " + " · ".join(peaks)
        review = review_use(self.results, device, self.device_info)
        if review.suspect:
            text += f" — suspect ({', '.join(review.suspect)} far below the datasheet)"
        elif review.needs_confirmation:
            text += " — check before use"
        shares = bool(utilization_choices(self.results, device))
        shown = USE_AS_PEAK if not shares and mode == USE_AS_UTILIZATION else mode
        return UsePanel(text, review.warning, True, shares, shown, USE_TEXT)

    def use_in_estimates(
        self, mode: str, precision: str | None, apply_anyway: bool = False
    ) -> UseResult:
        """The measured throughput as a :class:`CustomAccelerator` for the estimates.

        A suspect, out-of-range or disturbed run is not applied at once: the warning is the note
        and the button becomes "Apply anyway"; ``apply_anyway`` applies the figures as they are.
        """
        device = self.device
        button = APPLY_ANYWAY_TEXT if self.confirm_pending else USE_TEXT
        if device is None:
            return UseResult(None, "Nothing measured yet.", None, button)
        review = review_use(self.results, device, self.device_info)
        if review.needs_confirmation and not apply_anyway:
            self.confirm_pending = True
            note = f"⚠ {review.warning} Press Apply anyway to use it as it is."
            return UseResult(None, note, review.warning, APPLY_ANYWAY_TEXT)
        self.confirm_pending = False
        try:
            custom = measured_accelerator(
                self.results,
                device,
                mode=mode or USE_AS_PEAK,
                precision=precision,
                run_label=self.label,
            )
        except ValueError as exc:
            return UseResult(None, error_text(exc) or str(exc), None, USE_TEXT)
        announcement = f"★ {custom.name} (measured) is now available in Workload estimation"
        return UseResult(custom, "", None, USE_TEXT, announcement)

    # --- saved runs ------------------------------------------------------------------------------
    def open_refusal(self) -> Status | None:
        """Why a saved run cannot be opened now (None: it can)."""
        if self.running:
            return Status("A benchmark is running: wait for it or cancel it first", 6000)
        return None

    def show_loaded(self, loaded: object) -> LoadedView | None:
        """A saved run replaces what is on screen (not while a run is going)."""
        if not isinstance(loaded, LoadedRun) or self.running:
            return None
        self.generation += 1
        self.label = loaded.label
        self.device_info = dict(loaded.device_info)
        self.device = measured_device_from_info(loaded.device_info, loaded.device)
        self.results = list(loaded.results)
        self.findings = []
        for warning in loaded.warnings:
            self._add_finding(warning)
        status = " (cancelled: partial results)" if loaded.cancelled else ""
        return LoadedView(
            tuple(self.results), self.caption(), Progress(f"Showing {loaded.label}{status}.")
        )

    def history_loaded(self, history: object) -> History | None:
        if not isinstance(history, History):
            return None
        self.history = history
        return history

    def export_ids(self, selected: Sequence[int]) -> list[int]:
        """The runs to export: the selected ones, or every listed run."""
        return list(selected) or [row.run_id for row in self.history.rows]


__all__ = [
    "HardwareController",
    "InUse",
    "PlotView",
    "Progress",
    "RunEnd",
    "RunPlan",
    "Status",
    "UsePanel",
    "UseResult",
    "end_message",
    "history_note",
    "history_status",
    "in_use",
    "run_plan",
]
