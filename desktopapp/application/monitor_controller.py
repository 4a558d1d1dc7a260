"""The Monitor tab's sample path, without Qt: :class:`MonitorController`.

One direction only: the sampling thread hands a :class:`~desktopapp.devices.sampler.SystemSample`
to the tab, the tab forwards it to :meth:`MonitorController.feed`, and the controller returns a
view-model (a ``SampleView``, then a ``Frame`` from :meth:`MonitorController.frame`, both in
:mod:`desktopapp.application.monitor_views`) that the tab renders. The controller owns:

- the session (:class:`~desktopapp.devices.sampler.MonitorSession`: history buffers, running
  stats, diagnosis, idle cost), built with the first sample, and the per-GPU diagnosis;
- the gap policy: after a resume, a long step gets an empty row in the history
  (:class:`~desktopapp.application.monitor.GapPolicy`);
- the warm-up burst and when the tab counts as ready;
- the idle-cost price (typed here, else the Workload tab's, else the default) and the alert,
  including whether the user dismissed the alert banner;
- when plots, panels and tables are due (a
  :class:`~desktopapp.application.monitor_views.RedrawSchedule`, given the time explicitly).

The view-models and the policy without state are in :mod:`desktopapp.application.monitor_views`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from desktopapp.application.monitor import (
    GapPolicy,
    IdlePrice,
    PerGpuDiagnosis,
    gpu_indices,
    idle_config,
    idle_price,
    no_gpu_reason,
    sort_problems,
)
from desktopapp.application.monitor_summary import SessionTotals, session_totals
from desktopapp.application.monitor_views import (
    BUFFER_RATE_HZ,
    BUFFER_SECONDS,
    INFO,
    READY_SAMPLES,
    WARM_UP_SAMPLES,
    WARN,
    BannerView,
    Frame,
    IdleView,
    ProblemsView,
    RedrawSchedule,
    SampleView,
    SessionLayout,
    TablesView,
    attribution_note,
    failure_banner,
    smooth_lines,
)
from desktopapp.application.plan import PriceChoice
from desktopapp.devices.sampler import (
    MonitorSession,
    MonitorUpdate,
    SystemSample,
)
from desktopapp.model.diagnosis import DiagnosisThresholds
from desktopapp.model.idle_cost import IdleCostConfig
from desktopapp.model.ringbuffer import MonitorHistory

# --- the controller ---------------------------------------------------------------------------


class _SampledElsewhere:
    """The session's sampler slot: samples are taken in the sampling thread and fed in."""

    def sample(self) -> SystemSample:
        raise RuntimeError("the Monitor tab samples in its sampling thread")

    def close(self) -> None:
        return None


class MonitorController:
    """Samples in, view-models out (see the module docstring). Not thread-safe: feed it from
    one thread (the GUI thread).

    ``workload_price`` is read whenever the price is needed (the Workload tab's current price);
    ``demo_note`` is shown in the GPU banner when the data is a demo; ``warm_up`` asks for a
    burst of :data:`WARM_UP_SAMPLES` the first time sampling starts.
    """

    def __init__(
        self,
        workload_price: Callable[[], PriceChoice],
        *,
        demo_note: str = "",
        warm_up: bool = True,
        buffer_seconds: float = BUFFER_SECONDS,
        rate_hz: float = BUFFER_RATE_HZ,
        thresholds: DiagnosisThresholds | None = None,
    ) -> None:
        self._workload_price = workload_price
        self._demo_note = demo_note
        self._warm_up = warm_up
        self._buffer_seconds = buffer_seconds
        self._rate_hz = rate_hz
        self._thresholds = thresholds
        self.session: MonitorSession | None = None
        self.layout: SessionLayout | None = None
        self.last: MonitorUpdate | None = None
        self.samples = 0
        self.ready = False
        self.schedule = RedrawSchedule()
        self._per_gpu = PerGpuDiagnosis(thresholds)  # a busy and an idle GPU are not averaged
        self._gaps = GapPolicy()  # a pause leaves a gap in the plots
        self._warmed = False
        self._problems: tuple[str, ...] = ()
        self._typed_price: float | None = None
        self._alert_after_minutes: float | None = None
        self._alert_dismissed = False
        self._alert_shown = False

    # --- samples ----------------------------------------------------------------------------
    def feed(self, sample: SystemSample, interval_s: float) -> SampleView:
        """Append a sample (after a gap row when it follows a pause) and update the session."""
        layout = self._start(sample) if self.session is None else None
        session = self.session
        assert session is not None
        history = session.history
        if history is not None and len(history):
            gap = self._gaps.gap_at(sample.timestamp, history.raw.last_timestamp(), interval_s)
            if gap is not None:
                history.append(gap, {})  # a gap, not a line across the pause
        else:
            self._gaps.no_history()
        self.last = session.feed(sample)
        self._per_gpu.feed(sample)
        self.samples += 1
        problems = None
        if sample.problems != self._problems:
            self._problems = sample.problems
            problems = self._problems_view(sample.problems)
        return SampleView(self.last, layout, problems)

    def _start(self, sample: SystemSample) -> SessionLayout:
        self.session = MonitorSession(
            _SampledElsewhere(),
            rate_hz=self._rate_hz,
            raw_seconds=self._buffer_seconds,
            thresholds=self._thresholds,
            idle_config=self.idle_config(),
        )
        specs = sample.channel_specs()
        has_gpu = bool(gpu_indices(s.name for s in specs))
        reason = "" if has_gpu else no_gpu_reason(sample.problems)
        gpus = tuple((g.index, g.name) for g in sample.gpus)
        self.layout = SessionLayout(specs, gpus, has_gpu, reason, self._layout_banner(reason))
        return self.layout

    def _layout_banner(self, no_gpu_reason: str) -> BannerView | None:
        if self._demo_note:
            return BannerView(self._demo_note, INFO)
        if no_gpu_reason:
            return BannerView(
                f"No GPU data: {no_gpu_reason}. Showing CPU, memory, disk and network only.", INFO
            )
        return None

    def _problems_view(self, problems: tuple[str, ...]) -> ProblemsView:
        """A lost GPU goes to the banner (with a GPU view); other sensor problems to the notes'
        tooltip. Otherwise the banner shows what the layout put there (or nothing)."""
        view = sort_problems(problems)
        layout = self.layout
        if view.lost and layout is not None and layout.has_gpu:
            banner: BannerView | None = BannerView(view.lost[0], WARN)
        else:
            banner = layout.gpu_banner if layout is not None else None
        return ProblemsView(view.notes_label, "\n".join(view.notes), banner)

    @property
    def has_gpu(self) -> bool:
        return self.layout is not None and self.layout.has_gpu

    @property
    def history(self) -> MonitorHistory | None:
        return None if self.session is None else self.session.history

    @property
    def warming(self) -> bool:
        return self.samples <= WARM_UP_SAMPLES

    # --- running ----------------------------------------------------------------------------
    def starting(self) -> int:
        """Sampling (re)starts: returns how many warm-up samples to take quickly first (only
        the first time), and remembers that the next step may span a pause."""
        burst = 0
        if self._warm_up and not self._warmed:
            self._warmed = True
            burst = WARM_UP_SAMPLES
        self._gaps.resume(self.samples > 0)
        return burst

    def sampler_failed(self, message: str) -> tuple[BannerView, bool]:
        """The banner for a sampler that failed, and whether the tab becomes ready now
        (nothing more will come, so it counts as ready with the message on screen)."""
        newly_ready = not self.ready
        self.ready = True
        return failure_banner(message), newly_ready

    # --- drawing ----------------------------------------------------------------------------
    def frame(
        self,
        now: float,
        *,
        force: bool = False,
        running: bool = False,
        interval_s: float = 1.0,
        in_burst: bool = False,
    ) -> Frame | None:
        """What to redraw at monotonic time ``now`` (``None`` before the first sample)."""
        if self.session is None or self.session.history is None or self.last is None:
            return None
        wait, details, tables = self.schedule.due_parts(now, force=force, warming=self.warming)
        if wait > 0:
            return Frame(wait)
        update = self.last
        became_ready = False
        if not self.ready and self.samples >= READY_SAMPLES and not in_burst:
            self.ready = became_ready = True
        return Frame(
            0.0,
            smooth=smooth_lines(running, interval_s),
            sample=update.sample,
            diagnosis=self._per_gpu.view(update.diagnosis) if details else None,
            idle=self.idle_view() if details else None,
            totals=self.totals() if details else None,
            tables=self.tables_view() if tables else None,
            became_ready=became_ready,
        )

    def idle_view(self) -> IdleView | None:
        """The idle-cost panel and alert (``None`` without a GPU). The alert banner shows while
        a GPU is idle too long, unless the user dismissed it during this idle streak; ``flash``
        is set the first time it appears."""
        if not self.has_gpu or self.last is None:
            return None
        report = self.last.idle
        alert, flash = None, False
        if report.alerts:
            if not self._alert_dismissed:
                alert = BannerView("Idle alert: " + "; ".join(report.alerts), WARN)
                flash = not self._alert_shown
                self._alert_shown = True
        else:
            self._alert_dismissed = False
            self._alert_shown = False
        return IdleView(report, self.idle_config().idle_threshold_percent, alert, flash)

    def dismiss_alert(self) -> None:
        self._alert_dismissed = True

    def tables_view(self) -> TablesView | None:
        """The GPU process and cost tables (``None`` without a GPU)."""
        if not self.has_gpu or self.last is None:
            return None
        report = self.last.idle
        return TablesView(
            self.last.sample.processes, report.processes, report.users, attribution_note(report)
        )

    def totals(self) -> SessionTotals | None:
        session, last = self.session, self.last
        if session is None or last is None:
            return None
        gpus = [(g.index, g.name) for g in last.sample.gpus]
        return session_totals(
            session.stats.summary(), session.duration_s, session.samples_taken, gpus
        )

    # --- price and idle configuration -------------------------------------------------------
    def price(self) -> IdlePrice:
        return idle_price(self._typed_price, self._workload_price())

    def idle_config(self) -> IdleCostConfig:
        return idle_config(self.price(), self._alert_after_minutes)

    @property
    def price_typed(self) -> bool:
        return self._typed_price is not None

    def follow_workload(self) -> IdlePrice | None:
        """The Workload tab's price changed (or may have): the price to show, or ``None`` when a
        typed price overrides it (nothing changes)."""
        if self._typed_price is not None:
            return None
        self._apply_idle_config()
        return self.price()

    def type_price(self, usd_per_gpu_hour: float) -> IdlePrice:
        self._typed_price = usd_per_gpu_hour
        self._apply_idle_config()
        return self.price()

    def reset_price(self) -> IdlePrice:
        """Follow the Workload tab's price again."""
        self._typed_price = None
        self._apply_idle_config()
        return self.price()

    def set_alert_after(self, minutes: float | None) -> None:
        self._alert_after_minutes = minutes
        self._apply_idle_config()

    def _apply_idle_config(self) -> None:
        """Reprice the whole session with the new configuration."""
        if self.session is None:
            return
        self.session.idle.config = self.idle_config()
        if self.last is not None:
            self.last = replace(self.last, idle=self.session.idle.report())
