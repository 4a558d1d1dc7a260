"""The Monitor tab's sample path without Qt: samples go into ``MonitorController``, view-models
come out (layout, problems, gaps, warm-up and readiness, idle cost and its alert, redraw
schedule), plus the CSV export helpers of ``application.monitor_export``."""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from desktopapp.application.monitor import DEFAULT_IDLE_PRICE_USD
from desktopapp.application.monitor_controller import MonitorController
from desktopapp.application.monitor_export import (
    earlier_recordings,
    history_table,
    recorded_sessions,
    recording_label,
    recording_meta,
)
from desktopapp.application.monitor_views import (
    HOST_PROCESSES_NOTE,
    NO_PROCESS_TEXT,
    READY_SAMPLES,
    WARM_UP_SAMPLES,
    BannerView,
    RedrawSchedule,
    record_button_text,
    smooth_lines,
    stall_banner,
    status_view,
    wants_sampling,
)
from desktopapp.application.plan import PriceChoice
from desktopapp.devices import problems as kinds
from desktopapp.devices.problems import Problem
from desktopapp.devices.session_store import SessionInfo, SessionStore
from desktopapp.testing.sampler import FakeProcessSpec, FakeSampler

NO_NVML = Problem(kinds.NO_GPU, "GPU: unavailable because no NVIDIA driver installed.")


class Workload:
    """The Workload tab's price, as the controller reads it (changeable by the test)."""

    def __init__(self, price: PriceChoice | None = None) -> None:
        self.price = price or PriceChoice(None)

    def __call__(self) -> PriceChoice:
        return self.price


def controller(workload: Workload | None = None, **kwargs: object) -> MonitorController:
    return MonitorController(workload or Workload(), **kwargs)  # type: ignore[arg-type]


def feed(ctl: MonitorController, fake: FakeSampler, count: int, interval_s: float = 1.0) -> None:
    for _ in range(count):
        ctl.feed(fake.sample(), interval_s)


# --- samples in, view-models out -----------------------------------------------------------------


def test_the_first_sample_lays_out_the_session_and_later_ones_do_not() -> None:
    ctl = controller()
    fake = FakeSampler(gpu_count=2, gpu_util=(20.0, 80.0), interval_s=1.0)
    first = ctl.feed(fake.sample(), 1.0)
    assert first.layout is not None
    assert first.layout.has_gpu and first.layout.gpu_banner is None
    assert first.layout.gpus == ((0, "Fake GPU 80GB"), (1, "Fake GPU 80GB"))
    assert "gpu1.util" in first.layout.channel_names
    assert first.update.sample.gpus[0].util_percent == 20.0
    second = ctl.feed(fake.sample(), 1.0)
    assert second.layout is None and second.problems is None  # same (no) problems
    assert ctl.samples == 2
    assert ctl.session is not None and ctl.session.samples_taken == 2
    history = ctl.history
    assert history is not None and len(history.raw) == 2
    assert ctl.last is second.update


def test_problems_are_reported_when_they_change_and_a_lost_gpu_goes_to_the_banner() -> None:
    note = "disk counters unavailable on this system"
    fake = FakeSampler(gpu_count=2, lose_gpu_at={1: 2}, problems_at={1: (note,), 2: (note,)})
    ctl = controller()
    assert ctl.feed(fake.sample(), 1.0).problems is None
    noted = ctl.feed(fake.sample(), 1.0).problems
    assert noted is not None
    assert noted.notes_label == "1 sensor note" and noted.notes_tooltip == note
    assert noted.gpu_banner is None
    lost = ctl.feed(fake.sample(), 1.0).problems
    assert lost is not None and lost.gpu_banner is not None
    assert lost.gpu_banner.tone == "warn" and lost.gpu_banner.text.startswith("GPU 1")


def test_without_a_gpu_the_layout_says_why_and_no_idle_cost_or_gpu_tables_come() -> None:
    ctl = controller()
    fake = FakeSampler(gpu_count=0, problems_at={0: (NO_NVML,)})
    view = ctl.feed(fake.sample(), 1.0)
    layout = view.layout
    assert layout is not None and not layout.has_gpu
    assert layout.no_gpu_reason == "no NVIDIA driver installed"
    assert layout.gpu_banner == BannerView(
        "No GPU data: no NVIDIA driver installed. Showing CPU, memory, disk and network only.",
        "info",
    )
    assert layout.no_gpu_tables_text == "No GPU data: no NVIDIA driver installed."
    # The problem changes the notes, not the no-GPU banner.
    assert view.problems is not None and view.problems.gpu_banner == layout.gpu_banner
    assert ctl.idle_view() is None and ctl.tables_view() is None
    assert "No GPU here" in HOST_PROCESSES_NOTE


def test_a_demo_note_takes_the_gpu_banner() -> None:
    ctl = controller(demo_note="Demo data")
    layout = ctl.feed(FakeSampler(gpu_count=0).sample(), 1.0).layout
    assert layout is not None and layout.gpu_banner == BannerView("Demo data", "info")


# --- gaps ----------------------------------------------------------------------------------------


def test_a_resume_after_a_pause_puts_one_gap_row_halfway_into_the_history() -> None:
    now = [1_700_000_000.0]

    def clock() -> float:
        now[0] += 1.0
        return now[0]

    ctl = controller(warm_up=False)
    fake = FakeSampler(gpu_count=1, clock=clock)
    ctl.starting()
    feed(ctl, fake, 5)
    ctl.starting()  # resumed with no pause in between: no gap
    feed(ctl, fake, 1)
    now[0] += 120.0  # paused for two minutes
    ctl.starting()
    feed(ctl, fake, 3)
    history = ctl.history
    assert history is not None
    view = history.raw.view(None, channels=("gpu0.util",))
    t = np.asarray(view.timestamps)
    y = np.asarray(view.values["gpu0.util"])
    gaps = np.flatnonzero(np.isnan(y))
    assert gaps.size == 1 and len(t) == 10  # 9 samples and one gap row
    i = int(gaps[0])
    assert t[i] == pytest.approx((t[i - 1] + t[i + 1]) / 2)
    assert t[i + 1] - t[i - 1] > 100
    assert ctl.samples == 9  # the gap row is not a sample
    # The exported history leaves the gap row out.
    assert ctl.layout is not None
    assert history_table(history, ctl.layout.specs, None).rows == 9


def test_steps_while_running_never_make_a_gap() -> None:
    ctl = controller(warm_up=False)
    ctl.starting()
    fake = FakeSampler(gpu_count=0, interval_s=5.0)  # slower than the interval: still running
    feed(ctl, fake, 6, interval_s=1.0)
    history = ctl.history
    assert history is not None
    values = history.raw.view(None, channels=("cpu.percent",)).values["cpu.percent"]
    assert not np.isnan(np.asarray(values)).any()


# --- warm-up and readiness -----------------------------------------------------------------------


def test_the_warm_up_burst_is_asked_for_once() -> None:
    ctl = controller()
    assert ctl.starting() == WARM_UP_SAMPLES
    assert ctl.starting() == 0
    assert controller(warm_up=False).starting() == 0


def test_ready_once_enough_samples_are_drawn_and_the_burst_is_over() -> None:
    ctl = controller()
    assert ctl.frame(0.0) is None  # nothing to draw before the first sample
    fake = FakeSampler(gpu_count=1)
    feed(ctl, fake, READY_SAMPLES - 1)
    assert not ctl.frame(10.0, force=True).became_ready  # type: ignore[union-attr]
    feed(ctl, fake, 1)
    frame = ctl.frame(20.0, force=True, in_burst=True)
    assert frame is not None and not frame.became_ready and not ctl.ready
    frame = ctl.frame(30.0, force=True)
    assert frame is not None and frame.became_ready and ctl.ready
    again = ctl.frame(40.0, force=True)
    assert again is not None and not again.became_ready  # ready is said once


def test_a_failed_sampler_counts_as_ready_and_keeps_its_reason_on_the_banner() -> None:
    ctl = controller()
    banner, newly_ready = ctl.sampler_failed("the sampler could not start: psutil exploded")
    assert newly_ready and ctl.ready
    assert banner == BannerView(
        "Monitoring stopped: the sampler could not start: psutil exploded", "bad"
    )
    assert not ctl.sampler_failed("again")[1]
    # A stall reported after the failure does not replace the reason with a guess.
    kept = stall_banner(9.0, "the sampler could not start: psutil exploded")
    assert kept == banner
    hanging = stall_banner(9.0, None)
    assert hanging is not None and "has not answered for 9 s" in hanging.text
    assert hanging.tone == "warn"
    assert stall_banner(0.0, None) is None


# --- drawing schedule ----------------------------------------------------------------------------


def test_redraws_are_throttled_and_slow_parts_come_less_often() -> None:
    schedule = RedrawSchedule(min_redraw_s=0.25, detail_s=2.0, table_s=2.0)
    assert schedule.due_parts(100.0) == (0.0, True, True)
    wait, details, tables = schedule.due_parts(100.1)
    assert wait == pytest.approx(0.15) and not details and not tables
    assert schedule.due_parts(100.3) == (0.0, False, False)  # plots only
    assert schedule.due_parts(100.35, force=True) == (0.0, True, True)
    assert schedule.due_parts(100.7, warming=True) == (0.0, True, True)
    assert schedule.due_parts(102.8) == (0.0, True, True)


def test_a_frame_carries_what_is_due() -> None:
    ctl = controller()
    feed(ctl, FakeSampler(gpu_count=1, interval_s=1.0), WARM_UP_SAMPLES + 2)  # warmed up
    full = ctl.frame(1000.0, running=True, interval_s=0.25)
    assert full is not None and full.due and not full.smooth  # fast stream: plain lines
    assert full.diagnosis is not None and full.idle is not None
    assert full.totals is not None and full.totals.samples == WARM_UP_SAMPLES + 2
    assert full.tables is not None and full.tables.empty_texts[0] == NO_PROCESS_TEXT
    throttled = ctl.frame(1000.1)
    assert throttled is not None and not throttled.due and throttled.wait_s > 0
    plots_only = ctl.frame(1000.5, running=True, interval_s=1.0)
    assert plots_only is not None and plots_only.due and plots_only.smooth
    assert plots_only.sample is not None and plots_only.diagnosis is None
    assert plots_only.tables is None and plots_only.idle is None


def test_running_policy_and_the_status_pill() -> None:
    assert wants_sampling(shut_down=False, paused=False, on_screen=True, recording=False)
    assert wants_sampling(shut_down=False, paused=False, on_screen=False, recording=True)
    assert not wants_sampling(shut_down=False, paused=True, on_screen=True, recording=True)
    assert not wants_sampling(shut_down=True, paused=False, on_screen=True, recording=False)
    assert not smooth_lines(True, 0.25) and smooth_lines(False, 0.25) and smooth_lines(True, 1.0)
    pill = status_view(shut_down=False, recording=True, paused=True, running=False)
    assert (pill.text, pill.tone) == ("●  REC · PAUSED", "rec")
    assert status_view(shut_down=True, recording=True, paused=False, running=True).text == (
        "STOPPED"
    )
    assert status_view(shut_down=False, recording=False, paused=False, running=True).tone == "live"
    assert status_view(shut_down=False, recording=False, paused=False, running=False).text == (
        "IDLE"
    )
    assert record_button_text(True, 7) == "■  Stop recording #7"
    assert record_button_text(True, None) == "■  Stop recording"
    assert record_button_text(False, 7) == "●  Record"


# --- idle cost -----------------------------------------------------------------------------------


def test_the_price_follows_the_workload_unless_typed_and_reprices_the_session() -> None:
    workload = Workload(PriceChoice(3.5, "catalog", from_catalog=True, offer_name="Test Cloud"))
    ctl = controller(workload)
    first = ctl.follow_workload()
    assert first is not None and first.usd_per_gpu_hour == 3.5 and "Test Cloud" in first.source
    feed(ctl, FakeSampler(gpu_count=1, gpu_util=(0.0,), interval_s=1.0), 20)
    assert ctl.last is not None and ctl.last.idle.price_per_gpu_hour == 3.5
    idle_cost = ctl.last.idle.idle_cost_usd
    assert idle_cost > 0

    typed = ctl.type_price(7.0)
    assert typed.typed and ctl.price_typed
    assert ctl.last.idle.price_per_gpu_hour == 7.0  # the whole session, repriced
    assert ctl.last.idle.idle_cost_usd == pytest.approx(idle_cost * 2)
    workload.price = PriceChoice(1.0, "typed in the Workload tab")
    assert ctl.follow_workload() is None  # the typed price wins: nothing changes
    assert ctl.last.idle.price_per_gpu_hour == 7.0

    back = ctl.reset_price()
    assert not back.typed and back.usd_per_gpu_hour == 1.0
    assert ctl.last.idle.price_per_gpu_hour == 1.0
    workload.price = PriceChoice(None)
    default = ctl.follow_workload()
    assert default is not None and default.usd_per_gpu_hour == DEFAULT_IDLE_PRICE_USD


def test_the_idle_alert_shows_flashes_once_and_stays_dismissed_for_the_streak() -> None:
    ctl = controller()
    ctl.set_alert_after(1.0)
    fake = FakeSampler(gpu_count=1, gpu_util=(0.0,), interval_s=10.0)
    feed(ctl, fake, 3)  # 20 s idle: no alert yet
    quiet = ctl.idle_view()
    assert quiet is not None and quiet.alert is None and not quiet.flash
    feed(ctl, fake, 6)  # 80 s idle
    first = ctl.idle_view()
    assert first is not None and first.alert is not None and first.flash
    assert first.alert.text.startswith("Idle alert: ") and first.alert.tone == "warn"
    second = ctl.idle_view()
    assert second is not None and second.alert is not None and not second.flash
    ctl.dismiss_alert()
    dismissed = ctl.idle_view()
    assert dismissed is not None and dismissed.alert is None
    # The streak ends (the GPU gets busy): the next idle streak alerts again.
    # (Each interval counts with the utilization read at its start.)
    busy = FakeSampler(gpu_count=1, gpu_util=(90.0,), interval_s=10.0, start=fake.start + 100)
    feed(ctl, busy, 1)
    still = ctl.idle_view()
    assert still is not None and still.report.alerts and still.alert is None  # dismissed
    feed(ctl, busy, 1)
    assert ctl.idle_view().alert is None  # type: ignore[union-attr]
    idle_again = FakeSampler(gpu_count=1, gpu_util=(0.0,), interval_s=10.0, start=fake.start + 120)
    feed(ctl, idle_again, 9)
    again = ctl.idle_view()
    assert again is not None and again.alert is not None and again.flash
    ctl.set_alert_after(None)  # no alert wanted any more
    assert ctl.idle_view().alert is None  # type: ignore[union-attr]


def test_the_tables_attribute_gpu_time_to_processes_and_users() -> None:
    procs = (FakeProcessSpec(0, 4242, "python", "carol", "python serve.py", 0.4),)
    ctl = controller(Workload(PriceChoice(2.0, "catalog")))
    ctl.follow_workload()
    feed(ctl, FakeSampler(gpu_count=1, gpu_util=(0.0,), interval_s=1.0, processes=procs), 5)
    tables = ctl.tables_view()
    assert tables is not None
    assert [p.pid for p in tables.processes] == [4242]
    assert tables.process_costs[0].pid == 4242
    assert [u.user for u in tables.user_costs] == ["carol"]
    assert "time with no process: none" in tables.attribution_note
    assert tables.attribution_note.endswith("at $2.00 per GPU-hour")
    totals = ctl.totals()
    assert totals is not None and totals.samples == 5 and totals.gpus[0].index == 0


# --- recordings and export -----------------------------------------------------------------------


def test_recording_names_notes_and_the_earlier_recordings_menu() -> None:
    sample = FakeSampler(gpu_count=1).sample()
    assert recording_meta(0.5, sample) == {
        "source": "gui",
        "interval_s": 0.5,
        "gpus": ["Fake GPU 80GB"],
    }
    assert recording_meta(1.0, None)["gpus"] == []
    assert recording_label("", datetime(2026, 1, 2, 3, 4)) == "Monitor 2026-01-02 03:04"
    assert recording_label("before lunch", datetime(2026, 1, 2)) == "before lunch"
    done = SessionInfo(3, "before lunch", "host", 1_700_000_000.0, 1_700_000_125.0, 125, {})
    open_ = SessionInfo(4, "", "host", 1_700_000_200.0, None, 7, {})
    offered = earlier_recordings([done, open_], recording_id=4)
    assert offered == [(3, "#3 · before lunch · 2.08 min · 125 samples")]
    unfinished = earlier_recordings([open_], recording_id=None)[0][1]
    assert unfinished.startswith("#4 · ") and "unfinished · 7 samples" in unfinished


def test_recorded_sessions_reads_the_store_without_writing(tmp_path: Path) -> None:
    path = tmp_path / "monitor.sqlite3"
    assert recorded_sessions(path) == []  # no store yet
    with SessionStore(path) as store:
        recorder = store.start_session("first")
        recorder.add(FakeSampler(gpu_count=0).sample())
        recorder.finish()
    before = path.read_bytes()
    (info,) = recorded_sessions(path)
    assert info.label == "first" and info.sample_count == 1
    assert path.read_bytes() == before
    assert math.isfinite(info.duration_s)
