"""Ring buffer, decimating session buffer, downsampling, bounded memory."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktopapp.model.ringbuffer import (
    TIMEBASES,
    DecimatingBuffer,
    MonitorHistory,
    RingBuffer,
    RunningStats,
    downsample,
)


@given(
    capacity=st.integers(1, 20),
    steps=st.lists(st.floats(0.0, 5.0), max_size=60),
    last_seconds=st.one_of(st.none(), st.floats(0.01, 40.0)),
)
def test_ring_buffer_matches_a_reference_list(capacity, steps, last_seconds):
    buf = RingBuffer(("a", "b"), capacity)
    rows = []
    t = 0.0
    for i, dt in enumerate(steps):
        t += dt
        buf.append(t, {"a": float(i), "b": -float(i)})
        rows.append((t, float(i)))
    kept = rows[-capacity:] if rows else []
    if last_seconds is not None and kept:
        cutoff = kept[-1][0] - last_seconds
        kept = [r for r in kept if r[0] >= cutoff]
    view = buf.view(last_seconds)
    assert len(buf) == min(capacity, len(rows))
    assert view.timestamps.tolist() == [r[0] for r in kept]
    assert view.values["a"].tolist() == [r[1] for r in kept]
    assert view.values["b"].tolist() == [-r[1] for r in kept]
    assert buf.total_appended == len(rows)


def test_view_is_a_slice_when_not_wrapped_and_copies_only_the_window_when_wrapped():
    buf = RingBuffer(("x",), 10)
    for i in range(8):
        buf.append(float(i), [float(i)])
    v = buf.view(3.0)
    assert v.timestamps.tolist() == [4.0, 5.0, 6.0, 7.0]
    assert np.shares_memory(v.values["x"], buf._data)  # no copy
    assert not v.values["x"].flags.writeable
    for i in range(8, 14):  # wraps: storage now holds 4..13 starting at index 4
        buf.append(float(i), [float(i)])
    tail = buf.view(2.0)  # 11, 12, 13 sit at storage 1..3: still contiguous
    assert tail.values["x"].tolist() == [11.0, 12.0, 13.0]
    assert np.shares_memory(tail.values["x"], buf._data)
    across = buf.view(5.0)  # 8..13 cross the end of the storage: one copy of 6 values
    assert across.values["x"].tolist() == [8.0, 9.0, 10.0, 11.0, 12.0, 13.0]
    assert not np.shares_memory(across.values["x"], buf._data)
    assert across.values["x"].size == 6


def test_ring_buffer_rules():
    buf = RingBuffer(("x", "y"), 4)
    assert len(buf.view()) == 0 and buf.latest() is None
    buf.append(1.0, {"x": 1.0, "unknown": 5.0})  # missing → NaN, unknown ignored
    latest = buf.latest()
    assert latest is not None and math.isnan(latest["y"])
    with pytest.raises(ValueError, match="timestamp: must not go backwards"):
        buf.append(0.5, [1.0, 2.0])
    with pytest.raises(ValueError, match="values: expected 2"):
        buf.append(2.0, [1.0])
    with pytest.raises(ValueError, match="channels: unknown"):
        buf.view(channels=("z",))
    with pytest.raises(ValueError, match="channels: names must be unique"):
        RingBuffer(("x", "x"), 3)
    with pytest.raises(ValueError, match="capacity"):
        RingBuffer(("x",), 0)
    buf.clear()
    assert len(buf) == 0


def test_memory_stays_flat_for_a_long_10_hz_run():
    channels = [f"c{i}" for i in range(40)]
    hist = MonitorHistory.for_rate(channels, rate_hz=10.0, raw_seconds=600.0)
    nbytes = hist.nbytes
    row = np.linspace(0.0, 100.0, len(channels))
    t = 0.0
    for _ in range(6400):  # a bit over 10 min at 10 Hz: the raw buffer has wrapped
        hist.append(t, row)
        t += 0.1
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for _ in range(9000):  # 15 more minutes
            hist.append(t, row)
            t += 0.1
        after, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert hist.nbytes == nbytes  # preallocated, nothing grows
    assert after - before < 64 * 1024
    assert len(hist.raw) == hist.raw.capacity == math.ceil(10 * 600 * 1.05)
    assert len(hist.coarse) <= hist.coarse.capacity
    assert len(hist) == 15_400


def test_decimating_buffer_keeps_extremes_and_mean_in_fixed_space():
    buf = DecimatingBuffer(("v",), capacity=16, initial_step_s=1.0)
    values = np.sin(np.arange(5000) / 37.0) * 50 + 50
    values[1234] = 500.0  # a spike
    values[4321] = -20.0
    for i, v in enumerate(values):
        buf.append(i * 0.5, [v])
    assert len(buf) <= 16
    assert buf.step_s >= 2500 / 16  # doubled until the 2500 s fit
    stats = buf.stats("v")
    assert stats["max"].max() == 500.0 and stats["min"].min() == -20.0
    weights = buf._count[0, : len(buf)]
    assert np.average(stats["mean"], weights=weights) == pytest.approx(values.mean())
    assert np.all(np.diff(buf.timestamps()) > 0)
    t, y = buf.series("v", method="minmax")
    assert len(t) == 2 * len(buf) and y.max() == 500.0


def test_decimating_buffer_survives_gaps_and_nan():
    buf = DecimatingBuffer(("v", "w"), capacity=4, initial_step_s=1.0)
    for t in (0.0, 10.0, 1000.0, 1e5, 1e6, 1e6 + 1):  # huge gaps force repeated merging
        buf.append(t, {"v": t})
    assert len(buf) <= 4
    st_w = buf.stats("w")
    assert np.isnan(st_w["mean"]).all() and np.isnan(st_w["max"]).all()
    assert buf.stats("v")["max"].max() == 1e6 + 1


@given(
    values=st.lists(st.one_of(st.floats(-1e6, 1e6), st.just(math.nan)), min_size=1, max_size=400),
    max_points=st.integers(2, 60),
)
def test_minmax_downsampling_bounds_points_and_keeps_extremes(values, max_points):
    y = np.array(values)
    t = np.arange(y.size, dtype=float) * 0.1
    tx, ty = downsample(t, y, max_points, "minmax")
    assert tx.size == ty.size <= max_points
    assert np.all(np.diff(tx) >= 0)
    finite = y[np.isfinite(y)]
    if finite.size:
        assert np.nanmax(ty) == finite.max() and np.nanmin(ty) == finite.min()
    # every output point is a real sample
    for a, b in zip(tx, ty, strict=True):
        i = round(a / 0.1)
        assert b == y[i] or (math.isnan(b) and math.isnan(y[i]))


@given(n=st.integers(1, 500), max_points=st.integers(2, 50))
def test_mean_downsampling_keeps_the_mean(n, max_points):
    y = np.arange(n, dtype=float) ** 1.5
    t = np.arange(n, dtype=float)
    tx, ty = downsample(t, y, max_points, "mean")
    assert tx.size <= max_points
    per = -(-n // max_points) if n > max_points else 1
    weights = [min(per, n - i * per) for i in range(tx.size)]
    assert np.average(ty, weights=weights) == pytest.approx(y.mean())
    assert np.average(tx, weights=weights) == pytest.approx(t.mean())


def test_downsample_input_checks():
    with pytest.raises(ValueError, match="max_points"):
        downsample([0, 1, 2], [0, 1, 2], 1)
    with pytest.raises(ValueError, match="method"):
        downsample([0, 1, 2], [0, 1, 2], 2, "median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="values"):
        downsample([0, 1, 2], [0, 1], 2)


def test_history_switches_to_the_coarse_buffer_for_long_timebases():
    hist = MonitorHistory(("u",), raw_capacity=100, coarse_capacity=64)
    for i in range(1000):  # 1 Hz for 1000 s: raw keeps the last 100 s
        hist.append(float(i), [float(i % 100)])
    assert hist.raw_covers(TIMEBASES["1 min"])
    assert not hist.raw_covers(TIMEBASES["10 min"]) and not hist.raw_covers(None)
    t, y = hist.series("u", TIMEBASES["1 min"], max_points=1000)
    assert t[0] == 939.0 and t[-1] == 999.0 and len(t) == 61  # raw, full resolution
    t, y = hist.series("u", None, max_points=100)
    assert len(t) <= 100 and t[0] < 20  # the whole session, from the coarse buffer
    assert y.max() == 99.0 and y.min() == 0.0
    t, _ = hist.series("u", TIMEBASES["10 min"], max_points=2000)
    assert 380 <= t[0] <= 420 and t[-1] > 990
    view = hist.view(None, max_points=50, method="mean")
    assert set(view) == {"u"} and len(view["u"][0]) <= 50


def test_running_stats_ignore_nan():
    stats = RunningStats()
    for v in (1.0, math.nan, 3.0):
        stats.add({"a": v, "b": math.nan})
    s = stats.summary()
    assert (s["a"].count, s["a"].mean, s["a"].minimum, s["a"].maximum) == (2, 2.0, 1.0, 3.0)
    assert s["b"].count == 0 and math.isnan(s["b"].mean)
