"""Idle-GPU cost arithmetic and per-process / per-user attribution."""

from __future__ import annotations

import math

import pytest

from desktopapp.model.idle_cost import (
    ATTRIBUTION_RULE,
    IdleCostConfig,
    IdleCostTracker,
    ProcessUse,
)
from desktopapp.model.units import HOURS_PER_MONTH

GIB = 1024**3


def feed(tracker, utils_per_step, step_s=60.0, processes=(), start=0.0):
    t = start
    for utils in utils_per_step:
        tracker.update(t, utils, processes)
        t += step_s
    return t


def test_half_idle_hour_on_one_gpu():
    tracker = IdleCostTracker(IdleCostConfig(price_per_gpu_hour=3.0, max_gap_s=120.0))
    # 61 samples a minute apart: 30 intervals idle (1%), 30 busy (90%); last sample ends it
    feed(tracker, [[1.0]] * 30 + [[90.0]] * 31)
    r = tracker.report()
    (gpu,) = r.gpus
    assert gpu.observed_s == pytest.approx(3600.0)
    assert gpu.idle_s == pytest.approx(1800.0)
    assert gpu.idle_fraction == pytest.approx(0.5)
    assert gpu.idle_cost_usd == pytest.approx(1.5)
    assert r.idle_cost_usd == pytest.approx(1.5) and r.session_cost_usd == pytest.approx(3.0)
    assert r.observed_gpu_hours == pytest.approx(1.0) and r.idle_gpu_hours == pytest.approx(0.5)
    assert r.projected_monthly_waste_usd == pytest.approx(0.5 * 1 * HOURS_PER_MONTH * 3.0)
    assert gpu.idle_streak_s == 0.0 and not gpu.alert


def test_two_gpus_threshold_and_monthly_projection():
    tracker = IdleCostTracker(IdleCostConfig(price_per_gpu_hour=2.0, idle_threshold_percent=5.0))
    # GPU 0 always idle (4.9% is below 5%); GPU 1 at exactly 5% is not idle
    feed(tracker, [[4.9, 5.0]] * 11, step_s=6.0)
    r = tracker.report()
    assert [g.idle_fraction for g in r.gpus] == [1.0, 0.0]
    assert r.idle_fraction == pytest.approx(0.5)
    assert r.projected_monthly_waste_usd == pytest.approx(0.5 * 2 * HOURS_PER_MONTH * 2.0)
    assert r.idle_cost_usd == pytest.approx(60.0 / 3600 * 2.0)


def test_unknown_utilization_and_gaps_are_not_counted():
    tracker = IdleCostTracker(IdleCostConfig(max_gap_s=30.0))
    tracker.update(0.0, [0.0])
    tracker.update(10.0, [math.nan])  # 0-10 counted idle
    tracker.update(20.0, [0.0])  # 10-20 unknown: not counted
    tracker.update(1000.0, [0.0])  # 20-1000 is a gap (> 30 s): not counted
    tracker.update(1010.0, [0.0])  # 1000-1010 idle
    r = tracker.report()
    assert r.gpus[0].observed_s == pytest.approx(20.0)
    assert r.gpus[0].idle_s == pytest.approx(20.0)
    assert tracker.gap_s == pytest.approx(980.0)


def test_alert_after_n_idle_minutes_and_reset_when_busy():
    tracker = IdleCostTracker(IdleCostConfig(price_per_gpu_hour=6.0, alert_after_minutes=10.0))
    feed(tracker, [[0.0]] * 10)  # 9 minutes of idle so far
    assert tracker.report().alerts == ()
    feed(tracker, [[0.0]] * 2, start=600.0)  # 11 minutes
    r = tracker.report()
    assert r.gpus[0].alert and r.gpus[0].idle_streak_s == pytest.approx(660.0)
    assert r.alerts == ("GPU 0 idle for 11.0 min ($1.10 at $6.00/GPU-hour)",)
    feed(tracker, [[80.0], [80.0]], start=720.0)
    assert tracker.report().alerts == () and tracker.report().gpus[0].idle_streak_s == 0.0


def test_attribution_by_memory_share_and_per_user():
    procs = (
        ProcessUse(0, 100, "python", "alice", 30 * GIB),
        ProcessUse(0, 200, "jupyter", "bob", 10 * GIB),
        ProcessUse(1, 300, "python", "alice", 5 * GIB),
    )
    tracker = IdleCostTracker(IdleCostConfig(price_per_gpu_hour=4.0, max_gap_s=120.0))
    feed(tracker, [[90.0, 0.0]] * 61, processes=procs)  # one hour, both GPUs
    r = tracker.report()
    by_pid = {p.pid: p for p in r.processes}
    assert by_pid[100].gpu_hours == pytest.approx(0.75)
    assert by_pid[200].gpu_hours == pytest.approx(0.25)
    assert by_pid[300].gpu_hours == pytest.approx(1.0)  # idle time is charged too
    assert by_pid[100].cost_usd == pytest.approx(3.0)
    assert sum(p.share for p in r.processes) == pytest.approx(1.0)
    assert [p.pid for p in r.processes] == [300, 100, 200]  # most expensive first
    users = {u.user: u for u in r.users}
    assert users["alice"].gpu_hours == pytest.approx(1.75)
    assert users["bob"].cost_usd == pytest.approx(1.0)
    assert r.unattributed_gpu_hours == 0.0
    assert any(a.value == ATTRIBUTION_RULE for a in r.assumptions)


def test_equal_split_when_memory_unknown_and_unattributed_without_processes():
    tracker = IdleCostTracker(IdleCostConfig(max_gap_s=120.0))
    procs = (ProcessUse(0, 1, "a", "", math.nan), ProcessUse(0, 2, "b", "", 4 * GIB))
    feed(tracker, [[50.0]] * 31, processes=procs)  # 30 min with two processes
    feed(tracker, [[50.0]] * 31, start=1860.0)  # 30 min with none (first interval is 30→31)
    r = tracker.report()
    by_pid = {p.pid: p for p in r.processes}
    assert by_pid[1].gpu_hours == pytest.approx(by_pid[2].gpu_hours)
    assert by_pid[1].gpu_hours + by_pid[2].gpu_hours == pytest.approx(31 / 60)
    assert r.unattributed_gpu_hours == pytest.approx(30 / 60)
    assert r.users[0].user == "unknown"


def test_report_before_anything_observed():
    r = IdleCostTracker().report()
    assert r.gpus == () and math.isnan(r.idle_fraction) and r.idle_cost_usd == 0.0
    assert r.to_dict()["processes"] == []


def test_config_validation_and_time_order():
    with pytest.raises(ValueError, match=r"^price_per_gpu_hour"):
        IdleCostConfig(price_per_gpu_hour=-1.0)
    with pytest.raises(ValueError, match=r"^idle_threshold_percent"):
        IdleCostConfig(idle_threshold_percent=150.0)
    with pytest.raises(ValueError, match=r"^alert_after_minutes"):
        IdleCostConfig(alert_after_minutes=0.0)
    tracker = IdleCostTracker()
    tracker.update(5.0, [1.0])
    with pytest.raises(ValueError, match=r"^timestamp"):
        tracker.update(4.0, [1.0])
