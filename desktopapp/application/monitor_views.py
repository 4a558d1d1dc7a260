"""The Monitor tab's view-models and its policy without state, without Qt.

The view-models are what :class:`~desktopapp.application.monitor_controller.MonitorController`
answers and the tab renders: :class:`SessionLayout` (what to build with the first sample),
:class:`SampleView` and :class:`ProblemsView` (what a sample changed), :class:`Frame` (one
redraw: plots, and the diagnosis, :class:`IdleView`, session totals and :class:`TablesView`
when due), :class:`BannerView` and :class:`StatusView`. The functions say when to sample, how
to draw lines, and the words and tones of the status pill, the banners and the table notes;
:class:`RedrawSchedule` says when each part of the tab is due, given the time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from desktopapp.application.monitor_summary import SessionTotals
from desktopapp.devices.sampler import ChannelSpec, GpuProcess, MonitorUpdate, SystemSample
from desktopapp.model.diagnosis import Diagnosis
from desktopapp.model.idle_cost import IdleCostReport, ProcessCost, UserCost
from desktopapp.model.units import format_duration, format_money

BUFFER_RATE_HZ = 10.0  # full-rate buffer sized for 10 min at 10 Hz (40 min at 1 s)
BUFFER_SECONDS = 600.0
MIN_REDRAW_S = 0.25  # at most 4 redraws a second, however fast the sampling
FAST_STREAM_S = 0.5  # sampling faster than this draws plain (not antialiased) lines
DETAIL_REFRESH_S = 2.0  # diagnosis, idle cost and session totals (they move slowly)
TABLE_REFRESH_S = 2.0  # process and cost tables (the sampler refreshes processes every 2 s)
WARM_UP_SAMPLES = 10  # taken quickly when the tab opens, to fill the plots
# "ready" (plots filled) only once the warm-up burst is over and the interval has taken over.
READY_SAMPLES = WARM_UP_SAMPLES

INFO, WARN, BAD = "info", "warn", "bad"  # banner tones
NO_GPU_IDLE_NOTE = (
    "No GPU is measured here, so no GPU time can sit idle. The meter starts counting on a "
    "machine with an NVIDIA GPU."
)
NO_PROCESS_TEXT = "No process is using a GPU right now."
NO_PROCESS_COST_TEXT = "No GPU time attributed to a process yet."
NO_USER_COST_TEXT = "No GPU time attributed to a user yet."
HOST_PROCESSES_NOTE = (
    "No GPU here: the busiest processes of this machine by CPU (100% = one core) and the "
    f"largest by memory, refreshed every {TABLE_REFRESH_S:g} s."
)


# --- view-models ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BannerView:
    """A banner's message and tone (``"info"``, ``"warn"`` or ``"bad"``); ``None`` in its place
    means the banner is hidden."""

    text: str
    tone: str


@dataclass(frozen=True)
class SessionLayout:
    """What the first sample says the tab must build."""

    specs: tuple[ChannelSpec, ...]
    gpus: tuple[tuple[int, str], ...]  # (index, name)
    has_gpu: bool  # GPU channels to plot (else CPU, memory, disk and network only)
    no_gpu_reason: str  # "" with a GPU
    gpu_banner: BannerView | None  # the no-GPU reason, or the demo note

    @property
    def channel_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.specs)

    @property
    def no_gpu_tables_text(self) -> str:
        return f"No GPU data: {self.no_gpu_reason}."


@dataclass(frozen=True)
class ProblemsView:
    """The sampler's problems as the tab shows them: notes in the toolbar (all in the
    tooltip), a lost GPU in the GPU banner."""

    notes_label: str
    notes_tooltip: str
    gpu_banner: BannerView | None


@dataclass(frozen=True)
class SampleView:
    """What one sample changed: ``layout`` with the session's first sample only, ``problems``
    only when they differ from the previous sample's."""

    update: MonitorUpdate
    layout: SessionLayout | None
    problems: ProblemsView | None


@dataclass(frozen=True)
class IdleView:
    report: IdleCostReport
    idle_threshold_percent: float
    alert: BannerView | None
    flash: bool  # the alert just appeared: draw the user's attention once


@dataclass(frozen=True)
class TablesView:
    processes: tuple[GpuProcess, ...]
    process_costs: tuple[ProcessCost, ...]
    user_costs: tuple[UserCost, ...]
    attribution_note: str
    empty_texts: tuple[str, str, str] = (NO_PROCESS_TEXT, NO_PROCESS_COST_TEXT, NO_USER_COST_TEXT)


@dataclass(frozen=True)
class Frame:
    """One redraw. ``wait_s > 0``: nothing is due yet, ask again after that long. Otherwise the
    plots and live tiles are drawn; the slower parts are ``None`` when not due (or, for the
    idle cost and the tables, when there is no GPU)."""

    wait_s: float
    smooth: bool = True  # antialiased lines
    sample: SystemSample | None = None
    diagnosis: Diagnosis | None = None
    idle: IdleView | None = None
    totals: SessionTotals | None = None
    tables: TablesView | None = None
    became_ready: bool = False

    @property
    def due(self) -> bool:
        return self.wait_s <= 0


@dataclass(frozen=True)
class StatusView:
    text: str
    tone: str  # "stopped", "rec", "paused", "live" or "idle"


# --- policy without state ---------------------------------------------------------------------


def wants_sampling(*, shut_down: bool, paused: bool, on_screen: bool, recording: bool) -> bool:
    """Sample while shown (and not paused); a recording keeps sampling while hidden."""
    if shut_down or paused:
        return False
    return on_screen or recording


def smooth_lines(running: bool, interval_s: float) -> bool:
    """Antialiased lines, except while streaming faster than :data:`FAST_STREAM_S`."""
    return not (running and interval_s < FAST_STREAM_S)


def status_view(*, shut_down: bool, recording: bool, paused: bool, running: bool) -> StatusView:
    if shut_down:
        return StatusView("STOPPED", "stopped")
    if recording:
        return StatusView("●  REC · PAUSED" if paused else "●  REC", "rec")
    if paused:
        return StatusView("❚❚  PAUSED", "paused")
    if running:
        return StatusView("●  LIVE", "live")
    return StatusView("IDLE", "idle")


def record_button_text(recording: bool, session_id: int | None) -> str:
    if recording and session_id is not None:
        return f"■  Stop recording #{session_id}"
    return "■  Stop recording" if recording else "●  Record"


def failure_banner(message: str) -> BannerView:
    return BannerView(f"Monitoring stopped: {message}", BAD)


def stall_banner(seconds: float, failure: str | None) -> BannerView | None:
    """The sampler has not answered for ``seconds`` (0: it answers again). After the sampler
    failed to start, the banner keeps that real reason, never a "hanging driver" guess."""
    if failure is not None:
        return failure_banner(failure)
    if seconds > 0:
        return BannerView(
            f"The sampler has not answered for {seconds:.0f} s (a driver call is hanging); "
            "the window keeps working and the plots resume when it answers.",
            WARN,
        )
    return None


def attribution_note(report: IdleCostReport) -> str:
    unattributed_s = report.unattributed_gpu_hours * 3600
    unattributed = format_duration(unattributed_s) if unattributed_s >= 1 else "none"
    return (
        "GPU time is split among the processes on each GPU by the memory they hold; "
        f"time with no process: {unattributed} · "
        f"at {format_money(report.price_per_gpu_hour)} per GPU-hour"
    )


class RedrawSchedule:
    """When the plots (at most every ``min_redraw_s``), the text panels (every ``detail_s``)
    and the tables (every ``table_s``) are due; the time is passed in (a monotonic clock)."""

    def __init__(
        self,
        min_redraw_s: float = MIN_REDRAW_S,
        detail_s: float = DETAIL_REFRESH_S,
        table_s: float = TABLE_REFRESH_S,
    ) -> None:
        self.min_redraw_s = min_redraw_s
        self.detail_s = detail_s
        self.table_s = table_s
        self._last_draw = -math.inf
        self._last_detail = -math.inf
        self._last_table = -math.inf

    def due_parts(
        self, now: float, *, force: bool = False, warming: bool = False
    ) -> tuple[float, bool, bool]:
        """``(wait_s, details, tables)``: ``wait_s > 0`` means nothing is drawn yet; else the
        plots are drawn now and ``details`` / ``tables`` say whether those are due too (always
        when forced or while warming up)."""
        wait = self.min_redraw_s - (now - self._last_draw)
        if not force and wait > 0:
            return wait, False, False
        self._last_draw = now
        details = force or warming or now - self._last_detail >= self.detail_s
        if details:
            self._last_detail = now
        tables = force or warming or now - self._last_table >= self.table_s
        if tables:
            self._last_table = now
        return 0.0, details, tables
