"""Bounded time-series storage for the monitor (numpy only).

Three pieces, all preallocated so memory stays flat however long a session runs:

- :class:`RingBuffer`: the last ``capacity`` rows (timestamp + N named float channels) at full
  rate. Views are ordered oldest → newest and are slices of the storage when the requested window
  does not wrap around the end of the array (no copy), otherwise one concatenation of only the
  rows asked for.
- :class:`DecimatingBuffer`: the whole session at a coarse step. Rows are merged into time
  buckets (mean, min, max per channel); when the buffer is full, neighbouring buckets are merged
  pairwise and the step doubles, so a session of any length fits in ``capacity`` buckets.
- :class:`MonitorHistory`: one of each. The 1 min / 10 min timebases read the ring buffer, the
  1 h / whole-session ones read the decimating buffer once the ring buffer no longer covers them.

:func:`downsample` reduces a series to at most ``max_points`` for plotting: ``"minmax"`` keeps the
extremes of each bucket (spikes stay visible), ``"mean"`` keeps bucket averages.
:class:`RunningStats` keeps count/mean/min/max per channel in O(channels) memory.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from desktopapp.model.validation import InputError, require_int, require_positive

FloatArray = npt.NDArray[np.float64]
Method = Literal["minmax", "mean"]
Row = Mapping[str, float] | Sequence[float] | npt.NDArray[np.float64]

# Timebases offered by the Monitor tab, in seconds; None means the whole session.
TIMEBASES: dict[str, float | None] = {
    "1 min": 60.0,
    "10 min": 600.0,
    "1 h": 3600.0,
    "session": None,
}


def _readonly(array: FloatArray) -> FloatArray:
    view = array.view()
    view.flags.writeable = False
    return view


@dataclass(frozen=True)
class SeriesView:
    """Ordered timestamps and one array per channel, all the same length.

    Arrays from :meth:`RingBuffer.view` may share memory with the buffer: they are read-only and
    valid until the next ``append``; copy them (``np.array(v)``) to keep them longer.
    """

    timestamps: FloatArray
    values: Mapping[str, FloatArray]

    def __len__(self) -> int:
        return int(self.timestamps.shape[0])

    def downsampled(
        self, max_points: int, method: Method = "minmax"
    ) -> dict[str, tuple[FloatArray, FloatArray]]:
        """Per channel ``(t, y)`` with at most ``max_points`` points (see :func:`downsample`)."""
        return {
            name: downsample(self.timestamps, y, max_points, method)
            for name, y in self.values.items()
        }


class RingBuffer:
    """Fixed-capacity ring of ``(timestamp, values…)`` rows; oldest rows are overwritten.

    Timestamps must not decrease (``ValueError`` otherwise) so windows can be found by binary
    search. Missing values are NaN.
    """

    def __init__(self, channels: Sequence[str], capacity: int) -> None:
        names = tuple(channels)
        if len(set(names)) != len(names):
            raise InputError("channels", f"names must be unique, got {names!r}")
        self.capacity = require_int("capacity", capacity, minimum=1)
        self.channels: tuple[str, ...] = names
        self._index = {name: i for i, name in enumerate(names)}
        self._t: FloatArray = np.full(self.capacity, np.nan)
        # One contiguous row per channel, so a channel's window is a plain slice.
        self._data: FloatArray = np.full((len(names), self.capacity), np.nan)
        self._start = 0  # storage index of the oldest row
        self._size = 0
        self.total_appended = 0

    # --- writing ---------------------------------------------------------------------------
    def append(self, timestamp: float, values: Row) -> None:
        """Add one row; a mapping may omit channels (NaN) and names not in ``channels`` are
        ignored; a sequence must give every channel in order."""
        t = float(timestamp)
        if not math.isfinite(t):
            raise InputError("timestamp", f"must be a finite number, got {timestamp!r}")
        if self._size and t < self._t[self._last_index()]:
            raise InputError(
                "timestamp",
                f"must not go backwards, got {t!r} after {self._t[self._last_index()]!r}",
            )
        pos = (self._start + self._size) % self.capacity
        column = self._data[:, pos]
        if isinstance(values, Mapping):
            column.fill(np.nan)
            for name, value in values.items():
                i = self._index.get(name)
                if i is not None:
                    column[i] = value
        else:
            if len(values) != len(self.channels):
                raise InputError(
                    "values", f"expected {len(self.channels)} values, got {len(values)}"
                )
            column[:] = values
        self._t[pos] = t
        if self._size < self.capacity:
            self._size += 1
        else:
            self._start = (self._start + 1) % self.capacity
        self.total_appended += 1

    def clear(self) -> None:
        self._t.fill(np.nan)
        self._data.fill(np.nan)
        self._start = 0
        self._size = 0
        self.total_appended = 0

    # --- reading ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._size

    @property
    def nbytes(self) -> int:
        """Bytes held by the preallocated arrays (constant for the buffer's life)."""
        return int(self._t.nbytes + self._data.nbytes)

    @property
    def is_full(self) -> bool:
        return self._size == self.capacity

    def _last_index(self) -> int:
        return (self._start + self._size - 1) % self.capacity

    def first_timestamp(self) -> float:
        return float(self._t[self._start]) if self._size else math.nan

    def last_timestamp(self) -> float:
        return float(self._t[self._last_index()]) if self._size else math.nan

    def span(self) -> float:
        """Seconds between the oldest and newest row (0 with fewer than two rows)."""
        return self.last_timestamp() - self.first_timestamp() if self._size > 1 else 0.0

    def latest(self) -> dict[str, float] | None:
        """The newest row as ``{channel: value}``, or None when empty."""
        if not self._size:
            return None
        column = self._data[:, self._last_index()]
        return {name: float(column[i]) for i, name in enumerate(self.channels)}

    def _segments(self) -> tuple[slice, slice]:
        """Storage slices holding the rows in logical order: older part, newer part."""
        end = self._start + self._size
        if end <= self.capacity:
            return slice(self._start, end), slice(0, 0)
        return slice(self._start, self.capacity), slice(0, end - self.capacity)

    def count_since(self, cutoff: float) -> int:
        """Number of rows with ``timestamp >= cutoff``."""
        older, newer = self._segments()
        a, b = self._t[older], self._t[newer]
        return int(
            (a.size - np.searchsorted(a, cutoff, "left"))
            + (b.size - np.searchsorted(b, cutoff, "left"))
        )

    def view(
        self, last_seconds: float | None = None, channels: Sequence[str] | None = None
    ) -> SeriesView:
        """Rows of the last ``last_seconds`` before the newest row (all rows when None)."""
        names = self.channels if channels is None else tuple(channels)
        for name in names:
            if name not in self._index:
                raise InputError("channels", f"unknown channel {name!r}")
        if last_seconds is None or not self._size:
            count = self._size
        else:
            seconds = require_positive("last_seconds", last_seconds)
            count = self.count_since(self.last_timestamp() - seconds)
        return SeriesView(
            self._take(self._t, count),
            {name: self._take(self._data[self._index[name]], count) for name in names},
        )

    def _take(self, storage: FloatArray, count: int) -> FloatArray:
        """The newest ``count`` logical elements of one storage row, copying only on wrap."""
        if count <= 0:
            return _readonly(storage[0:0])
        first = (self._start + self._size - count) % self.capacity
        end = first + count
        if end <= self.capacity:
            return _readonly(storage[first:end])
        return _readonly(np.concatenate((storage[first:], storage[: end - self.capacity])))


class DecimatingBuffer:
    """Whole-session history in at most ``capacity`` time buckets (mean/min/max per channel).

    Bucket ``k`` covers ``[origin + k·step, origin + (k+1)·step)``. When a new bucket would not
    fit, buckets ``2j`` and ``2j+1`` merge and the step doubles (repeated until there is room),
    so the time covered is unbounded while memory is fixed.
    """

    def __init__(
        self, channels: Sequence[str], capacity: int = 1024, initial_step_s: float = 1.0
    ) -> None:
        self.channels: tuple[str, ...] = tuple(channels)
        self._index = {name: i for i, name in enumerate(self.channels)}
        self.capacity = require_int("capacity", capacity, minimum=2)
        self.step_s = require_positive("initial_step_s", initial_step_s)
        n, cap = len(self.channels), self.capacity
        self._key = np.zeros(cap, dtype=np.int64)  # bucket number k
        self._rows = np.zeros(cap)  # rows merged into each bucket
        self._tsum = np.zeros(cap)  # sum of their timestamps (for the mean time)
        self._sum = np.zeros((n, cap))  # sum of non-NaN values
        self._count = np.zeros((n, cap))  # number of non-NaN values
        self._min = np.full((n, cap), np.inf)
        self._max = np.full((n, cap), -np.inf)
        self._size = 0
        self._origin: float | None = None
        self._last_t = -math.inf

    @property
    def nbytes(self) -> int:
        arrays = (self._key, self._rows, self._tsum, self._sum, self._count, self._min, self._max)
        return int(sum(a.nbytes for a in arrays))

    def __len__(self) -> int:
        return self._size

    def append(self, timestamp: float, values: Row) -> None:
        t = float(timestamp)
        if not math.isfinite(t):
            raise InputError("timestamp", f"must be a finite number, got {timestamp!r}")
        if t < self._last_t:
            raise InputError(
                "timestamp", f"must not go backwards, got {t!r} after {self._last_t!r}"
            )
        self._last_t = t
        if self._origin is None:
            self._origin = t
        row = np.full(len(self.channels), np.nan)
        if isinstance(values, Mapping):
            for name, value in values.items():
                i = self._index.get(name)
                if i is not None:
                    row[i] = value
        else:
            if len(values) != len(self.channels):
                raise InputError(
                    "values", f"expected {len(self.channels)} values, got {len(values)}"
                )
            row[:] = values
        key = int((t - self._origin) // self.step_s)
        if self._size == 0 or key != self._key[self._size - 1]:
            while self._size == self.capacity:
                self._merge_pairs()
                key = int((t - self._origin) // self.step_s)
                if key == self._key[self._size - 1]:
                    break
            else:
                self._open_bucket(key)
        pos = self._size - 1
        self._rows[pos] += 1
        self._tsum[pos] += t
        present = row == row  # False for NaN
        self._sum[:, pos] += np.where(present, row, 0.0)
        self._count[:, pos] += present
        # fmin/fmax return the non-NaN operand, so a missing value leaves the bucket as it is
        np.fmin(self._min[:, pos], row, out=self._min[:, pos])
        np.fmax(self._max[:, pos], row, out=self._max[:, pos])

    def _open_bucket(self, key: int) -> None:
        pos = self._size
        self._key[pos] = key
        self._rows[pos] = 0
        self._tsum[pos] = 0
        self._sum[:, pos] = 0
        self._count[:, pos] = 0
        self._min[:, pos] = np.inf
        self._max[:, pos] = -np.inf
        self._size += 1

    def _merge_pairs(self) -> None:
        """Halve the resolution: buckets with the same ``key // 2`` become one."""
        n = self._size
        keys = self._key[:n] // 2
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        m = starts.size
        self._key[:m] = keys[starts]
        self._rows[:m] = np.add.reduceat(self._rows[:n], starts)
        self._tsum[:m] = np.add.reduceat(self._tsum[:n], starts)
        self._sum[:, :m] = np.add.reduceat(self._sum[:, :n], starts, axis=1)
        self._count[:, :m] = np.add.reduceat(self._count[:, :n], starts, axis=1)
        self._min[:, :m] = np.minimum.reduceat(self._min[:, :n], starts, axis=1)
        self._max[:, :m] = np.maximum.reduceat(self._max[:, :n], starts, axis=1)
        self._size = m
        self.step_s *= 2

    def _slice_since(self, cutoff: float | None) -> slice:
        n = self._size
        if cutoff is None or n == 0:
            return slice(0, n)
        times = self._tsum[:n] / self._rows[:n]
        return slice(int(np.searchsorted(times, cutoff, "left")), n)

    def timestamps(self, cutoff: float | None = None) -> FloatArray:
        """Mean timestamp of the rows in each bucket (from ``cutoff`` on)."""
        s = self._slice_since(cutoff)
        return _readonly(self._tsum[s] / self._rows[s])

    def stats(self, channel: str, cutoff: float | None = None) -> dict[str, FloatArray]:
        """``{"t", "mean", "min", "max"}`` arrays for one channel (NaN where a bucket had no
        value for it)."""
        i = self._index[channel]
        s = self._slice_since(cutoff)
        count = self._count[i, s]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(count > 0, self._sum[i, s] / count, np.nan)
        return {
            "t": self._tsum[s] / self._rows[s],
            "mean": mean,
            "min": np.where(count > 0, self._min[i, s], np.nan),
            "max": np.where(count > 0, self._max[i, s], np.nan),
        }

    def series(
        self, channel: str, cutoff: float | None = None, method: Method = "minmax"
    ) -> tuple[FloatArray, FloatArray]:
        """``(t, y)`` for plotting: bucket means, or min and max of each bucket in turn."""
        st = self.stats(channel, cutoff)
        if method == "mean":
            return st["t"], st["mean"]
        t = np.repeat(st["t"], 2)
        y = np.empty(t.size)
        y[0::2] = st["min"]
        y[1::2] = st["max"]
        return t, y


def downsample(
    timestamps: npt.ArrayLike, values: npt.ArrayLike, max_points: int, method: Method = "minmax"
) -> tuple[FloatArray, FloatArray]:
    """At most ``max_points`` points of ``(timestamps, values)`` for plotting.

    The series is cut into equal runs of consecutive samples. ``"minmax"`` keeps, per run, the
    samples holding its minimum and maximum in their time order (so the global extremes always
    survive and every output point is a real sample); ``"mean"`` keeps the mean time and the
    NaN-ignoring mean value of each run. Series already short enough are returned unchanged.
    """
    t = np.asarray(timestamps, dtype=np.float64)
    y = np.asarray(values, dtype=np.float64)
    if t.shape != y.shape or t.ndim != 1:
        raise InputError("values", f"must match timestamps in shape, got {y.shape} and {t.shape}")
    if method not in ("minmax", "mean"):
        raise InputError("method", f"must be one of minmax, mean, got {method!r}")
    limit = require_int("max_points", max_points, minimum=2)
    n = t.size
    if n <= limit:
        return t, y
    buckets = limit // 2 if method == "minmax" else limit
    per = -(-n // buckets)  # ceil: samples per run
    runs = -(-n // per)
    padded = runs * per
    yp = np.full(padded, np.nan)
    yp[:n] = y
    tp = np.full(padded, t[-1])
    tp[:n] = t
    ys = yp.reshape(runs, per)
    ts = tp.reshape(runs, per)
    if method == "mean":
        valid = ~np.isnan(ys)
        counts = valid.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(counts > 0, np.where(valid, ys, 0.0).sum(axis=1) / counts, np.nan)
        real = np.minimum(per, n - np.arange(runs) * per)
        tmeans = ts.sum(axis=1) / per
        # The padded tail repeats t[-1]; recompute the last run's mean time from real samples.
        tmeans[-1] = t[(runs - 1) * per :].sum() / real[-1]
        return tmeans, means
    all_nan = np.isnan(ys).all(axis=1)
    imin = np.where(np.isnan(ys), np.inf, ys).argmin(axis=1)
    imax = np.where(np.isnan(ys), -np.inf, ys).argmax(axis=1)
    first = np.minimum(imin, imax)
    second = np.maximum(imin, imax)
    rows = np.arange(runs)
    out_t = np.empty(2 * runs)
    out_y = np.empty(2 * runs)
    out_t[0::2] = ts[rows, first]
    out_t[1::2] = ts[rows, second]
    out_y[0::2] = ys[rows, first]
    out_y[1::2] = ys[rows, second]
    out_y[np.repeat(all_nan, 2)] = np.nan
    return out_t, out_y


class MonitorHistory:
    """Full-rate ring buffer for short timebases plus a decimating buffer for the session.

    ``raw_capacity`` rows cover ``raw_capacity / rate`` seconds (6000 rows = 10 min at 10 Hz).
    Memory is allocated once: :attr:`nbytes` does not change while appending.
    """

    def __init__(
        self,
        channels: Sequence[str],
        raw_capacity: int = 6000,
        coarse_capacity: int = 1024,
        coarse_initial_step_s: float = 1.0,
    ) -> None:
        self.channels: tuple[str, ...] = tuple(channels)
        self.raw = RingBuffer(self.channels, raw_capacity)
        self.coarse = DecimatingBuffer(self.channels, coarse_capacity, coarse_initial_step_s)

    @classmethod
    def for_rate(
        cls, channels: Sequence[str], rate_hz: float, raw_seconds: float = 600.0
    ) -> MonitorHistory:
        """Size the raw buffer to hold ``raw_seconds`` at ``rate_hz`` (plus 5% slack)."""
        rate = require_positive("rate_hz", rate_hz)
        seconds = require_positive("raw_seconds", raw_seconds)
        return cls(channels, raw_capacity=max(16, math.ceil(rate * seconds * 1.05)))

    @property
    def nbytes(self) -> int:
        return self.raw.nbytes + self.coarse.nbytes

    def __len__(self) -> int:
        return self.raw.total_appended

    def append(self, timestamp: float, values: Row) -> None:
        self.raw.append(timestamp, values)
        self.coarse.append(timestamp, values)

    def raw_covers(self, seconds: float | None) -> bool:
        """True when the ring buffer still holds every row of the requested window."""
        if not self.raw.is_full:
            return True  # nothing has been overwritten yet
        return seconds is not None and seconds <= self.raw.span()

    def series(
        self,
        channel: str,
        timebase_s: float | None = None,
        max_points: int = 1500,
        method: Method = "minmax",
    ) -> tuple[FloatArray, FloatArray]:
        """``(t, y)`` of one channel over the last ``timebase_s`` (None: whole session),
        at most ``max_points`` points."""
        if self.raw_covers(timebase_s):
            v = self.raw.view(timebase_s, channels=(channel,))
            return downsample(v.timestamps, v.values[channel], max_points, method)
        cutoff = None if timebase_s is None else self.raw.last_timestamp() - timebase_s
        t, y = self.coarse.series(channel, cutoff, method)
        return downsample(t, y, max_points, method)

    def view(
        self, timebase_s: float | None = None, max_points: int = 1500, method: Method = "minmax"
    ) -> dict[str, tuple[FloatArray, FloatArray]]:
        """:meth:`series` for every channel."""
        return {name: self.series(name, timebase_s, max_points, method) for name in self.channels}


@dataclass(frozen=True)
class ChannelSummary:
    count: int  # finite values seen
    mean: float  # NaN when count == 0
    minimum: float
    maximum: float

    def to_dict(self) -> dict[str, float | int]:
        return {"count": self.count, "mean": self.mean, "min": self.minimum, "max": self.maximum}


class RunningStats:
    """Count, mean, min and max per channel without keeping the samples (NaN ignored)."""

    def __init__(self) -> None:
        self._acc: dict[str, list[float]] = {}  # name → [count, sum, min, max]

    def add(self, values: Mapping[str, float]) -> None:
        for name, value in values.items():
            acc = self._acc.setdefault(name, [0.0, 0.0, math.inf, -math.inf])
            v = float(value)
            if math.isfinite(v):
                acc[0] += 1
                acc[1] += v
                acc[2] = min(acc[2], v)
                acc[3] = max(acc[3], v)

    def summary(self) -> dict[str, ChannelSummary]:
        out = {}
        for name, (count, total, low, high) in self._acc.items():
            if count:
                out[name] = ChannelSummary(int(count), total / count, low, high)
            else:
                out[name] = ChannelSummary(0, math.nan, math.nan, math.nan)
        return out
