"""Monitor tab: live plots from a fake sampler at 50 Hz, bounded buffers, diagnosis, pause,
timebases, cursor, idle cost and its alert, recording and CSV export, the CPU-only view, and
sampling that stops when the tab is hidden and never blocks the GUI thread."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktopapp.devices.problems import NO_GPU, Problem
from desktopapp.devices.sampler import MonitorSession, SystemSample
from desktopapp.devices.session_store import SessionStore, read_csv
from desktopapp.model.idle_cost import IdleCostReport
from desktopapp.model.ringbuffer import MonitorHistory
from desktopapp.model.units import GIB, MIB, format_money
from desktopapp.testing.sampler import FakeProcessSpec, FakeSampler
from desktopapp.ui.common.timers import active_timers
from desktopapp.ui.common.workers import live_workers
from desktopapp.ui.monitor import sampling
from desktopapp.ui.monitor import tab as tab_module
from desktopapp.ui.monitor.layout import format_ago, nice_ceiling, plot_specs
from desktopapp.ui.monitor.panels import LiveStrip
from desktopapp.ui.monitor.tab import MonitorTab
from desktopapp.ui.state import AppState, PriceChoice

FAST = 0.02  # 50 Hz
MakeTab = Callable[..., MonitorTab]
NO_NVML = Problem(
    NO_GPU,
    "GPU: unavailable because the NVML library (libnvidia-ml) was not found: "
    "no NVIDIA driver installed",
)


@pytest.fixture
def make_tab(
    qtbot: QtBot, app_state: AppState, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> MakeTab:
    """A shown Monitor tab sampling ``sampler`` every 20 ms (closed, and so shut down, by
    pytest-qt at teardown)."""
    monkeypatch.setattr(tab_module, "WARM_UP_INTERVAL_S", FAST)

    def make(sampler: object | None = None, *, show: bool = True, **kwargs: Any) -> MonitorTab:
        factory = kwargs.pop("sampler_factory", None)
        if factory is None:
            fake = sampler if sampler is not None else FakeSampler()
            factory = lambda: fake  # noqa: E731
        kwargs.setdefault("interval_s", FAST)
        kwargs.setdefault("store_path", tmp_path / "monitor.sqlite3")
        tab = MonitorTab(app_state, sampler_factory=factory, **kwargs)
        qtbot.addWidget(tab)
        tab.resize(1300, 860)
        if show:
            tab.show()
            qtbot.waitExposed(tab)
        return tab

    return make


def session_of(tab: MonitorTab) -> MonitorSession:
    assert tab.session is not None and tab.session.history is not None
    return tab.session


def history_of(tab: MonitorTab) -> MonitorHistory:
    history = session_of(tab).history
    assert history is not None
    return history


def report_of(tab: MonitorTab) -> IdleCostReport:
    report = tab.idle_report()
    assert report is not None
    return report


def live_of(tab: MonitorTab) -> LiveStrip:
    assert tab.live is not None
    return tab.live


def wait_samples(qtbot: QtBot, tab: MonitorTab, count: int, timeout: int = 5000) -> None:
    target = tab.samples + count
    qtbot.waitUntil(lambda: tab.samples >= target, timeout=timeout)


# --- plots and buffers --------------------------------------------------------------------------


def test_plots_update_in_place_at_50_hz(qtbot: QtBot, make_tab: MakeTab) -> None:
    tab = make_tab(FakeSampler(gpu_count=2, gpu_util=(10.0, 50.0, 90.0)))
    wait_samples(qtbot, tab, 5)
    grid = tab.grid
    assert set(grid.plots) == {"gpu_util", "gpu_power", "gpu_temp", "cpu", "memory", "io"}
    counts = dict(grid.item_counts())
    curves = {key: dict(plot.curves) for key, plot in grid.plots.items()}
    util = grid.plots["gpu_util"].curves["gpu0.util"]
    first_len = len(util.xData)
    draws = tab.draws
    wait_samples(qtbot, tab, 50)  # a second at 50 Hz
    qtbot.waitUntil(lambda: tab.draws >= draws + 3, timeout=3000)
    assert dict(grid.item_counts()) == counts  # no item added per tick
    for key, plot in grid.plots.items():
        assert plot.curves == curves[key]  # the very same curve objects
    assert len(util.xData) > first_len  # setData gave them the new samples
    assert set(np.unique(util.yData)) <= {10.0, 50.0, 90.0}
    # Drawing is throttled: far fewer redraws than samples.
    assert tab.draws <= tab.samples // 2 + 2


def test_history_stays_bounded_after_many_samples(qtbot: QtBot, make_tab: MakeTab) -> None:
    fake = FakeSampler(gpu_count=1, cores=4, interval_s=0.5)
    tab = make_tab(fake, show=False, buffer_seconds=10.0)
    tab.show()
    qtbot.waitExposed(tab)
    tab.set_paused(True)
    feed = FakeSampler(gpu_count=1, cores=4, interval_s=0.5, start=1_800_000_000.0)
    tab.controller.sample_ready.emit(feed.sample())
    history = history_of(tab)
    raw_capacity, nbytes = history.raw.capacity, history.nbytes
    shapes = (history.raw._t.shape, history.raw._data.shape)
    for _ in range(1500):  # 12 minutes of fake time through the whole display path
        tab.controller.sample_ready.emit(feed.sample())
    assert history.nbytes == nbytes
    assert (history.raw._t.shape, history.raw._data.shape) == shapes
    assert len(history.raw) == raw_capacity  # full, old rows overwritten
    assert len(history.coarse) <= history.coarse.capacity
    tab.set_timebase("session")
    for plot in tab.grid.plots.values():
        for curve in plot.curves.values():
            assert len(curve.xData) <= 1600


def test_layout_for_two_gpus_and_formatting() -> None:
    channels = list(FakeSampler(gpu_count=2, cores=3).sample().channels())
    layout = plot_specs(channels)
    assert layout.gpu_indices == (0, 1)
    assert layout.core_channels == ("cpu.core0", "cpu.core1", "cpu.core2")
    util = layout.plot("gpu_util")
    assert [c.channel for c in util.curves] == [
        "gpu0.util",
        "gpu0.mem.percent",
        "gpu1.util",
        "gpu1.mem.percent",
    ]
    assert [c.label for c in util.curves][:2] == ["GPU 0 util", "GPU 0 memory"]
    assert layout.plot("cpu").strip_channels == layout.core_channels
    cpu_only = plot_specs([n for n in channels if not n.startswith("gpu")])
    assert not cpu_only.has_gpu
    assert [p.key for p in cpu_only.plots] == ["cpu", "memory", "disk", "network"]
    assert format_ago(0.0) == "now"
    assert format_ago(-90.0, 30) == "−90 s"
    assert format_ago(-300.0, 60) == "−5 min"
    assert [nice_ceiling(v) for v in (0.7, 3.1, 240.0, 1000.0)] == [1.0, 5.0, 250.0, 1000.0]


def test_time_axis_grows_in_steps_and_labels_before_now(qtbot: QtBot) -> None:
    from desktopapp.ui.common.plots import pg
    from desktopapp.ui.monitor.charts import TimeAxis, visible_span

    # The window grows in steps (still axis between samples) and stops at the timebase.
    assert [visible_span(e, 60.0) for e in (0.5, 3, 7, 12, 40, 59, 300)] == [
        2.0,
        5.0,
        10.0,
        15.0,
        60.0,
        60.0,
        60.0,
    ]
    assert visible_span(5000.0, None) == 7200.0
    axis = TimeAxis()
    widget = pg().PlotWidget(axisItems={"bottom": axis})
    qtbot.addWidget(widget)
    levels = axis.tickSpacing(-600.0, 0.0, 400.0)
    assert levels[0][0] in (120.0, 300.0)  # round minutes, not 1-2-5 × 10ⁿ seconds
    values = [v for v in range(-600, 1, int(levels[0][0]))]
    labels = axis.tickStrings(values, 1.0, levels[0][0])
    assert labels[-1] == "now" and labels[0] == "−10 min"
    axis.set_mode("clock")
    widget.resize(500, 200)
    widget.grab()  # a paint gives the date axis its font metrics
    levels = axis.tickValues(1_700_000_000.0 - 600, 1_700_000_000.0, 400.0)
    spacing, ticks = next((sp, t) for sp, t in levels if len(t))
    clock = axis.tickStrings(ticks, 1.0, spacing)
    assert clock and all(":" in text for text in clock)  # HH:MM


# --- diagnosis -----------------------------------------------------------------------------------


def test_diagnosis_names_the_input_bottleneck(qtbot: QtBot, make_tab: MakeTab) -> None:
    fake = FakeSampler(gpu_count=1, gpu_util=(20.0,), cpu_percent=(95.0,), interval_s=0.5)
    tab = make_tab(fake)
    qtbot.waitUntil(lambda: "Data loading bottleneck" in tab.diagnosis_text(), timeout=5000)
    text = tab.diagnosis_text()
    assert "WARNING" in text
    assert "GPU 20%" in text and "CPU 95%" in text  # the evidence, with numbers
    assert "num_workers" in text  # the advice
    assert tab.diagnosis.current is not None
    assert tab.diagnosis.current.key == "input_bound"


# --- pause, timebase, axis, cursor ---------------------------------------------------------------


def test_pause_stops_updates_and_resume_continues(qtbot: QtBot, make_tab: MakeTab) -> None:
    tab = make_tab(FakeSampler(gpu_count=1))
    wait_samples(qtbot, tab, 5)
    tab.set_paused(True)
    assert tab.is_paused() and not tab.is_sampling()
    assert tab.controller.timer not in active_timers()
    assert tab.status_pill.text().endswith("PAUSED")
    qtbot.wait(50)  # a sample already requested may still land, then nothing more
    samples = tab.samples
    curve = tab.grid.plots["gpu_util"].curves["gpu0.util"]
    x_before = np.array(curve.xData)
    qtbot.wait(300)
    assert tab.samples == samples
    assert np.array_equal(curve.xData, x_before)
    tab.pause_button.click()  # the button resumes
    assert not tab.is_paused() and tab.is_sampling()
    wait_samples(qtbot, tab, 5)


def test_timebase_and_clock_axis(qtbot: QtBot, make_tab: MakeTab) -> None:
    fake = FakeSampler(gpu_count=1, interval_s=1.0)  # one fake second per sample
    tab = make_tab(fake)
    wait_samples(qtbot, tab, 130)
    tab.set_paused(True)
    qtbot.wait(50)
    grid = tab.grid
    view = grid.plots["cpu"].view
    curve = grid.plots["cpu"].curves["cpu.percent"]
    elapsed = session_of(tab).duration_s
    assert elapsed >= 129

    tab.set_timebase("1 min")
    (x0, x1), _ = view.viewRange()
    assert (x0, x1) == pytest.approx((-60.0, 0.0))
    assert curve.xData.min() >= -60.0 - 1e-6 and curve.xData.max() == pytest.approx(0.0)

    tab.timebase.buttons["session"].click()
    assert tab.timebase_key == "session"
    (x0, x1), _ = view.viewRange()
    assert x1 - x0 >= elapsed
    assert curve.xData.min() == pytest.approx(-elapsed)

    tab.set_axis_mode("clock")
    newest = history_of(tab).raw.last_timestamp()
    (x0, x1), _ = view.viewRange()
    assert x1 == pytest.approx(newest)
    assert curve.xData.max() == pytest.approx(newest)
    assert grid.plots["cpu"].time_axis.mode == "clock"


def test_cursor_reads_the_same_moment_in_every_plot(qtbot: QtBot, make_tab: MakeTab) -> None:
    ramp = [float(i) for i in range(100)]
    fake = FakeSampler(gpu_count=1, gpu_util=ramp, cpu_percent=ramp, cycle=False)
    tab = make_tab(fake)
    wait_samples(qtbot, tab, 40)
    tab.set_paused(True)
    qtbot.wait(50)
    grid = tab.grid
    t, _y = grid.series("gpu0.util")
    moment = float(t[10])
    grid.set_cursor_time(moment, pinned=True)
    readings = grid.readings_at(moment)
    util = dict((c.channel, v) for c, v in readings["gpu_util"])
    cpu = dict((c.channel, v) for c, v in readings["cpu"])
    assert util["gpu0.util"] == 10.0
    assert cpu["cpu.percent"] == 10.0
    positions = {plot.cursor.value() for plot in grid.plots.values()}
    assert len(positions) == 1  # one line, at the same x, in every plot
    assert all(plot.cursor.isVisible() for plot in grid.plots.values())
    assert "GPU util" in grid.plots["gpu_util"].value_box.toHtml()
    assert tab.cursor_label.text().startswith("Cursor at")
    grid.set_cursor_time(math.nan)
    assert not any(plot.cursor.isVisible() for plot in grid.plots.values())

    # Hovering: the scene reports the mouse position, the cursor follows it.
    plot = grid.plots["memory"]
    centre = plot.view.sceneBoundingRect().center()
    plot.widget.scene().sigMouseMoved.emit(QPointF(centre))
    assert math.isfinite(grid.cursor_time())
    assert not grid.pinned


# --- idle cost -----------------------------------------------------------------------------------


def test_idle_meter_accumulates_and_alerts_without_a_dialog(
    qtbot: QtBot, make_tab: MakeTab, app_state: AppState
) -> None:
    app_state.set_price(PriceChoice(3.5, "catalog", from_catalog=True, offer_name="Test Cloud"))
    procs = (FakeProcessSpec(0, 4242, "python", "carol", "python serve.py", 0.4),)
    fake = FakeSampler(gpu_count=1, gpu_util=(0.0,), interval_s=1.0, processes=procs)
    tab = make_tab(fake)
    assert tab.idle_panel.price.text() == "3.50"
    assert "Test Cloud" in tab.idle_panel.price_source.text()
    tab.idle_panel.alert_box.setChecked(True)
    tab.idle_panel.alert_minutes.setValue(1)
    qtbot.waitUntil(lambda: tab.alert_banner.isVisible(), timeout=5000)
    assert "GPU 0 idle" in tab.alert_banner.message()
    assert QApplication.activeModalWidget() is None  # a banner, not a blocking dialog
    report = report_of(tab)
    assert report.idle_gpu_hours > 0
    assert report.price_per_gpu_hour == 3.5
    tab.set_paused(True)
    tab._render(force=True)
    report = report_of(tab)
    assert tab.idle_panel.cost_card.value_text() == format_money(report.idle_cost_usd)
    assert tab.idle_panel.share_card.value_text() == "100%"

    # A typed price overrides the Workload tab's and reprices the whole session.
    tab.idle_panel.price.setText("7")
    assert report_of(tab).price_per_gpu_hour == 7.0
    assert tab.idle_panel.reset_button.isVisible()
    tab.idle_panel.reset_button.click()
    assert report_of(tab).price_per_gpu_hour == 3.5

    # Attribution: the process and its user carry the GPU time.
    assert tab.cost_model.rows[0].pid == 4242
    assert tab.user_model.column_texts(0) == ["carol"]
    assert tab.process_model.column_texts(0) == ["4242"]

    tab.alert_banner.close_button.click()
    assert not tab.alert_banner.isVisible()
    tab._render(force=True)
    assert not tab.alert_banner.isVisible()  # stays dismissed while the streak lasts


def test_process_table_sorts_by_value_not_text(qtbot: QtBot, make_tab: MakeTab) -> None:
    procs = (
        FakeProcessSpec(0, 11, "python", "ann", "a.py", memory_fraction=512 * MIB / (80 * GIB)),
        FakeProcessSpec(0, 22, "python", "bob", "b.py", memory_fraction=2 * GIB / (80 * GIB)),
        FakeProcessSpec(0, 33, "python", "cy", "c.py", memory_fraction=900 * MIB / (80 * GIB)),
    )
    tab = make_tab(FakeSampler(gpu_count=1, processes=procs))
    qtbot.waitUntil(lambda: len(tab.process_model.rows) == 3, timeout=5000)
    from PySide6.QtCore import Qt

    from desktopapp.ui.monitor.tables import PROCESS_GPU_MEMORY_COLUMN

    tab.process_table.sortByColumn(PROCESS_GPU_MEMORY_COLUMN, Qt.SortOrder.DescendingOrder)
    assert tab.process_model.column_texts(0) == ["22", "33", "11"]
    tab.process_table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert tab.process_model.column_texts(0) == ["11", "22", "33"]


# --- recording and export ------------------------------------------------------------------------


def test_csv_export_of_the_shown_history(qtbot: QtBot, make_tab: MakeTab, tmp_path: Path) -> None:
    tab = make_tab(FakeSampler(gpu_count=1))
    wait_samples(qtbot, tab, 30)
    tab.set_paused(True)
    qtbot.wait(50)
    target = tmp_path / "history.csv"
    with qtbot.waitSignal(tab.export_finished, timeout=5000) as blocker:
        assert tab.export_history_csv(target)
    path, rows = blocker.args
    assert Path(path) == target and rows == tab.samples
    header, body = read_csv(target)
    assert header[:3] == ["timestamp (s)", "time (UTC)", "elapsed (s)"]
    assert "gpu0.util (%)" in header and "cpu.percent (%)" in header
    assert len(body) == rows
    column = header.index("gpu0.util (%)")
    assert {row[column] for row in body} == {"50"}


def test_recording_to_the_session_store_and_export(
    qtbot: QtBot, make_tab: MakeTab, tmp_path: Path
) -> None:
    tab = make_tab(FakeSampler(gpu_count=1, interval_s=0.5))
    wait_samples(qtbot, tab, 3)
    with qtbot.waitSignal(tab.recording_changed, timeout=5000) as started:
        tab.record_button.click()
    assert started.args == [True]
    assert tab.status_pill.text().startswith("●  REC")
    # Recording keeps sampling while the tab is hidden.
    tab.hide()
    assert tab.is_sampling()
    wait_samples(qtbot, tab, 25)
    with qtbot.waitSignal(tab.recording_changed, timeout=5000):
        tab.stop_recording()
    assert not tab.is_sampling()  # hidden and no longer recording
    with SessionStore(tmp_path / "monitor.sqlite3") as store:
        sessions = store.sessions()
        assert len(sessions) == 1 and sessions[0].sample_count >= 25
        assert sessions[0].ended is not None
        assert sessions[0].meta["source"] == "gui"
    assert tab.export_recording_action.isEnabled()
    target = tmp_path / "session.csv"
    with qtbot.waitSignal(tab.export_finished, timeout=5000) as done:
        assert tab.export_recording_csv(target)
    assert done.args[1] == sessions[0].sample_count
    assert len(read_csv(target)[1]) == sessions[0].sample_count


# --- CPU-only, problems, failures ----------------------------------------------------------------


def test_cpu_only_view_says_why_there_is_no_gpu(qtbot: QtBot, make_tab: MakeTab) -> None:
    fake = FakeSampler(gpu_count=0, problems_at={0: (NO_NVML,)})
    tab = make_tab(fake)
    wait_samples(qtbot, tab, 3)
    assert set(tab.grid.plots) == {"cpu", "memory", "disk", "network"}
    message = tab.no_gpu_message()
    assert message.startswith("No GPU data: the NVML library (libnvidia-ml) was not found")
    assert message.count("\n") == 0  # one line
    # Issue 16: without a GPU the process table shows the busiest processes by CPU and memory
    # (devices.top_processes, read in a worker thread); the GPU cost pages are hidden.
    assert tab.tables_box.isVisible()
    assert tab.tables.tabText(0) == "Top processes (CPU, memory)"
    assert not tab.tables.isTabVisible(1) and not tab.tables.isTabVisible(2)
    qtbot.waitUntil(lambda: tab.host_model.rowCount() > 0, timeout=5000)
    page = tab._table_pages[0][0]
    assert page.currentWidget() is tab.host_table
    rows = tab.host_model.rowCount()
    assert rows <= 16  # the top 8 by CPU and the top 8 by memory, each process once
    memory = [tab.host_model.data(tab.host_model.index(r, 4)) for r in range(rows)]
    assert all(str(text).endswith("B") for text in memory)
    assert not tab.idle_panel.cards.isVisible()
    assert "No GPU utilization measured" in tab.diagnosis_text() or "Collecting" in (
        tab.diagnosis_text()
    )
    strip = tab.grid.plots["cpu"].strip
    qtbot.waitUntil(lambda: strip.isVisible(), timeout=3000)  # the per-core heat strip
    assert strip.image.shape[1] == fake.cores


def test_lost_gpu_and_sensor_notes_are_shown(qtbot: QtBot, make_tab: MakeTab) -> None:
    notes = {i: ("disk counters unavailable on this system",) for i in range(10_000)}
    fake = FakeSampler(gpu_count=2, lose_gpu_at={1: 4}, problems_at=notes)
    tab = make_tab(fake)
    qtbot.waitUntil(lambda: "lost" in tab.no_gpu_message(), timeout=5000)
    assert tab.no_gpu_message().startswith("GPU 1")
    qtbot.waitUntil(lambda: live_of(tab).gpu_tiles[1].value == "lost", timeout=3000)
    assert live_of(tab).gpu_tiles[0].value.startswith("50%")  # the other GPU carries on
    assert tab.notes_label.text() == "1 sensor note"
    assert "disk counters unavailable" in tab.notes_label.toolTip()


def test_failing_sampler_is_reported_and_counts_as_ready(qtbot: QtBot, make_tab: MakeTab) -> None:
    def broken() -> FakeSampler:
        raise RuntimeError("psutil exploded")

    tab = make_tab(sampler_factory=broken)
    qtbot.waitUntil(tab.is_ready, timeout=5000)
    assert "psutil exploded" in tab.stall_banner.message()


def test_a_sampler_that_cannot_start_stops_the_timer_and_keeps_the_reason(
    qtbot: QtBot, make_tab: MakeTab
) -> None:
    def broken() -> FakeSampler:
        raise RuntimeError("psutil exploded")

    tab = make_tab(sampler_factory=broken)
    qtbot.waitUntil(lambda: tab.controller.failure is not None, timeout=5000)
    assert not tab.controller.timer.isActive()
    tab.controller.start()  # showing the tab again does not restart a sampler that is not there
    assert not tab.controller.timer.isActive()
    tab.controller.stall_changed.emit(9.0)  # what a stalled request would report
    assert "psutil exploded" in tab.stall_banner.message()
    assert "hanging" not in tab.stall_banner.message()
    tab.controller.stall_changed.emit(0.0)  # "answers flow again" must not hide the reason
    assert "psutil exploded" in tab.stall_banner.message()
    assert tab.is_ready() and not tab.is_sampling()


class _BlockingSampler:
    """Blocks inside ``sample()`` until released, like an NVML call that hangs."""

    def __init__(self) -> None:
        self.fake = FakeSampler(gpu_count=1)
        self.entered = threading.Event()
        self.release = threading.Event()

    def sample(self) -> SystemSample:
        self.entered.set()
        self.release.wait(10)
        return self.fake.sample()

    def close(self) -> None:
        self.release.set()


def test_a_hanging_sampler_does_not_block_the_gui_and_stale_samples_drop(
    qtbot: QtBot, make_tab: MakeTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sampling, "STALL_AFTER_S", 0.15)
    blocking = _BlockingSampler()
    tab = make_tab(blocking)
    qtbot.waitUntil(blocking.entered.is_set, timeout=3000)
    # The GUI thread keeps running while the sample hangs; ticks are skipped, not queued.
    qtbot.waitUntil(lambda: tab.stall_banner.isVisible(), timeout=3000)
    assert "has not answered" in tab.stall_banner.message()
    assert tab.controller.skipped_ticks > 0
    tab.set_paused(True)  # new generation: the hanging sample is now stale
    blocking.release.set()
    qtbot.waitUntil(lambda: tab.controller.dropped >= 1, timeout=3000)
    assert tab.samples == 0  # the stale sample never reached the plots
    assert not tab.stall_banner.isVisible()


# --- visibility, readiness, shutdown --------------------------------------------------------------


def test_hidden_tab_stops_its_timer_and_shutdown_ends_the_thread(
    qtbot: QtBot, make_tab: MakeTab
) -> None:
    tab = make_tab(FakeSampler(gpu_count=1))
    wait_samples(qtbot, tab, 3)
    assert tab.controller.timer in active_timers()
    tab.hide()
    assert not tab.is_sampling()
    assert tab.controller.timer not in active_timers()
    assert not [t for t in active_timers() if t.parent() in (tab, tab.controller)]
    samples = tab.samples
    qtbot.wait(150)
    assert tab.samples <= samples + 1  # at most the one already on its way
    tab.show()
    assert tab.is_sampling()
    wait_samples(qtbot, tab, 3)
    thread = tab.controller.worker_thread
    assert thread is not None and thread in live_workers()
    tab.shutdown()
    assert not thread.isRunning()
    assert thread not in live_workers()
    assert tab.status_pill.text() == "STOPPED"


def test_interval_menu_and_ready_after_the_warm_up(qtbot: QtBot, make_tab: MakeTab) -> None:
    tab = make_tab(FakeSampler(gpu_count=1), interval_s=1.0, show=False)
    with qtbot.waitSignal(tab.ready, timeout=60_000):
        tab.show()  # warm-up samples come FAST apart, then the chosen interval
    assert tab.samples >= tab_module.WARM_UP_SAMPLES
    assert not tab.controller.in_burst()
    assert tab.controller.timer.interval() == 1000
    assert tab.controller.burst_delivered == tab_module.WARM_UP_SAMPLES
    panel = tab.session_panel
    assert panel is not None
    text = panel.duration.text()
    assert f"{tab.samples} samples" in text
    count, spacing = tab_module.WARM_UP_SAMPLES, tab_module.WARM_UP_INTERVAL_S
    burst = f"the first {count} taken {spacing:g} s apart"
    assert f"{burst} to fill the plots, then every 1 s)" in text
    tab.interval_combo.setCurrentIndex(0)
    tab.interval_combo.activated.emit(0)
    assert tab.interval_s == 0.25
    assert tab.controller.timer.interval() == 250


def test_main_window_stops_monitor_sampling_on_another_tab(
    qtbot: QtBot, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktopapp.ui.main_window import MainWindow

    monkeypatch.delenv("DESKTOPAPP_MONITOR_DEMO", raising=False)
    window = MainWindow(initial_tab="estimate", remember=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.set_current_tab("monitor")
    monitor = window.tab_content("monitor")
    assert isinstance(monitor, MonitorTab)
    qtbot.waitUntil(lambda: monitor.samples >= 2, timeout=5000)  # the real sampler
    assert monitor.is_sampling()
    window.set_current_tab("estimate")
    assert not monitor.is_sampling()
    assert monitor.controller.timer not in active_timers()
    window.close()  # shutdown() ends the sampling thread
    assert monitor.controller.worker_thread is not None
    assert not monitor.controller.worker_thread.isRunning()


# --- gaps, session totals, earlier recordings ---------------------------------------------------


def test_resume_after_a_long_pause_leaves_a_gap_not_a_line(qtbot: QtBot, make_tab: MakeTab) -> None:
    now = [1_700_000_000.0]

    def clock() -> float:
        now[0] += 0.1
        return now[0]

    tab = make_tab(FakeSampler(gpu_count=0, clock=clock))
    wait_samples(qtbot, tab, 10)
    tab.set_paused(True)
    qtbot.wait(50)
    now[0] += 120.0  # two minutes pass while paused
    tab.set_paused(False)
    wait_samples(qtbot, tab, 5)
    tab.set_paused(True)
    qtbot.wait(50)
    tab.set_timebase("session")
    t, y = tab.grid.series("cpu.percent")
    gaps = np.flatnonzero(np.isnan(y))
    assert gaps.size == 1
    i = int(gaps[0])
    assert t[i + 1] - t[i - 1] > 100  # the marker sits inside the pause
    assert np.isfinite(y[:i]).all() and np.isfinite(y[i + 1 :]).all()


def test_session_totals_from_running_stats() -> None:
    from desktopapp.model.ringbuffer import RunningStats
    from desktopapp.ui.monitor.summary import format_energy, session_totals

    fake = FakeSampler(gpu_count=1, gpu_util=(0.0, 100.0), interval_s=1.0)
    stats = RunningStats()
    for _ in range(11):
        stats.add(fake.sample().channels())
    totals = session_totals(stats.summary(), 10.0, 11, [(0, "Fake GPU")])
    gpu = totals.gpus[0]
    assert gpu.mean_util_percent == pytest.approx(100 * 5 / 11)
    # The fake counter adds power × 1 s per sample: 60 W idle, 400 W busy.
    assert gpu.energy_j == pytest.approx(5 * 60.0 + 5 * 400.0)
    assert not gpu.energy_estimated
    assert totals.gpu_energy_j == gpu.energy_j
    assert gpu.peak_memory_bytes == pytest.approx(40 * GIB)
    # Without an energy counter: mean power × duration, marked as an estimate.
    summary = {k: v for k, v in stats.summary().items() if k != "gpu0.energy"}
    estimated = session_totals(summary, 10.0, 11, [(0, "Fake GPU")]).gpus[0]
    assert estimated.energy_estimated
    assert estimated.energy_j == pytest.approx(estimated.mean_power_w * 10.0)
    assert format_energy(7.2e6) == "2.00 kWh" and format_energy(3600.0) == "1.00 Wh"


def test_session_panel_and_earlier_recordings_menu(
    qtbot: QtBot, make_tab: MakeTab, tmp_path: Path
) -> None:
    tab = make_tab(FakeSampler(gpu_count=1, interval_s=0.5))
    wait_samples(qtbot, tab, 5)
    with qtbot.waitSignal(tab.recording_changed, timeout=5000):
        tab.start_recording("before lunch")
    wait_samples(qtbot, tab, 5)
    with qtbot.waitSignal(tab.recording_changed, timeout=5000):
        tab.stop_recording()
    tab._render(force=True)
    panel = tab.session_panel
    assert panel is not None and panel.energy is not None
    assert panel.energy.text().endswith("Wh")
    assert "mean util" in panel.gpu_rows[0].text()
    tab._fill_earlier_menu()
    texts = [a.text() for a in tab.earlier_menu.actions()]
    assert len(texts) == 1 and "before lunch" in texts[0]


def test_minimized_window_stops_sampling(qtbot: QtBot, make_tab: MakeTab) -> None:
    from PySide6.QtCore import Qt

    tab = make_tab(FakeSampler(gpu_count=1))
    wait_samples(qtbot, tab, 3)
    tab.setWindowState(Qt.WindowState.WindowMinimized)
    qtbot.waitUntil(lambda: not tab.is_sampling(), timeout=2000)
    tab.setWindowState(Qt.WindowState.WindowNoState)
    qtbot.waitUntil(tab.is_sampling, timeout=2000)
    wait_samples(qtbot, tab, 3)


def test_cluster_page_remembers_its_prometheus_url(qtbot: QtBot, isolated_home: Any) -> None:
    from desktopapp.ui.monitor.cluster import ClusterPanel

    first = ClusterPanel()
    qtbot.addWidget(first)
    assert first.url.text() == ""
    first.url.setText("http://prometheus.example:9090")
    first.token_file.setText("/etc/prom/token")
    first.remember()
    again = ClusterPanel()
    qtbot.addWidget(again)
    assert again.url.text() == "http://prometheus.example:9090"
    assert again.token_file.text() == "/etc/prom/token"


def test_a_short_window_scrolls_the_page_instead_of_squeezing_the_plots(
    qtbot: QtBot, make_tab: MakeTab
) -> None:
    """At 1024×640 in presentation mode the four plots were squeezed to ~30 px each."""
    from desktopapp.ui.monitor.assembly import PLOTS_MIN_HEIGHT

    tab = make_tab()
    qtbot.waitUntil(lambda: tab.session is not None, timeout=5000)
    tab.resize(1000, 420)
    qtbot.waitUntil(lambda: tab.widgets.page_scroll.verticalScrollBar().maximum() > 0)
    assert tab.plots.height() >= PLOTS_MIN_HEIGHT
    tab.resize(1300, 1200)  # room enough: nothing scrolls, the page fills the view
    qtbot.waitUntil(lambda: tab.widgets.page_scroll.verticalScrollBar().maximum() == 0)
    viewport = tab.widgets.page_scroll.viewport().height()
    assert tab.widgets.page_scroll.widget().height() == viewport


def test_a_refused_idle_price_says_why_under_the_field(qtbot: QtBot) -> None:
    """The Monitor's price field turned red with its reason only in a tooltip (issue 25: an
    inline message under each invalid input)."""
    from PySide6.QtCore import Qt

    from desktopapp.ui.monitor.idle_panel import IdleCostPanel

    panel = IdleCostPanel()
    qtbot.addWidget(panel)
    panel.show()
    emitted: list[float] = []
    panel.price_changed.connect(emitted.append)
    panel.price.setText("-2")
    assert panel.price_error.isVisible()
    # drawn as rich text (red, bold), never as its markup
    assert panel.price_error.textFormat() == Qt.TextFormat.RichText
    assert "Price per GPU-hour: must be greater than 0, got &#x27;-2&#x27;" in (
        panel.price_error.text()
    )
    panel.price.setText("lots")
    assert "examples: 2.49, $1.99, 300k" in panel.price_error.text()  # a price's examples
    assert emitted == []
    panel.price.setText("2.5")
    assert not panel.price_error.isVisible() and emitted == [2.5]


def test_a_failed_cluster_read_says_the_table_is_an_earlier_one(
    qtbot: QtBot, isolated_home: Any
) -> None:
    """After a refresh fails, the table still holds the last read: the line says so."""
    from types import SimpleNamespace

    from desktopapp.ui.monitor.cluster import ClusterPanel

    panel = ClusterPanel()
    qtbot.addWidget(panel)
    panel.show_error("Prometheus at http://p:9090 is unreachable (Connection refused)")
    assert panel.summary.text() == "Prometheus at http://p:9090 is unreachable (Connection refused)"
    counts = {"busy": 1, "idle": 0, "unreachable": 0}
    costs = {"idle_cost_per_hour": 0.0, "idle_cost_per_month": 0.0, "price_per_gpu_hour": 2.0}
    fleet = SimpleNamespace(**counts, **costs)
    read = SimpleNamespace(
        fleet=fleet, gpus=(), heat_map=None, findings=(), problems=(), metric_source=""
    )
    panel.show_snapshot(read)
    assert panel.summary.text().startswith("1 busy, 0 idle, 0 unreachable GPUs")
    panel.show_error("Prometheus at http://p:9090 is unreachable (Connection refused)")
    assert panel.summary.text().startswith("Prometheus at http://p:9090 is unreachable")
    assert " — the table shows the read of " in panel.summary.text()
