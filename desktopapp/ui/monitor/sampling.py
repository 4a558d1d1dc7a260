"""Sampling for the Monitor tab, off the GUI thread.

- :class:`SamplingThread` is one long-lived registered worker thread
  (:mod:`desktopapp.ui.common.workers`). It builds the sampler itself (``RealSampler`` starts
  NVML, which can take a while), then waits on a condition variable: it uses no CPU between
  requests. Each request takes one sample and sends it back through a queued signal together
  with the request's *generation*. Commands (start or finish a recording) run in the same thread
  between two samples, so the SQLite writes never touch the GUI thread either.
- :class:`SamplingController` lives on the GUI thread and owns the registered ``QTimer`` that
  paces the requests. At most one request is outstanding: when a sample stalls (an NVML call
  that hangs), ticks are skipped rather than queued, ``stall_changed`` reports for how long, and
  the window stays responsive. Stopping or pausing bumps the generation, so a sample that was
  already on its way is dropped instead of being plotted late.
"""

from __future__ import annotations

import math
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot

from desktopapp.devices.sampler import Sampler, SampleSink, SystemSample
from desktopapp.ui.common.timers import register_timer
from desktopapp.ui.common.workers import Worker

SamplerFactory = Callable[[], Sampler]

MIN_INTERVAL_S = 0.02  # programmatic floor (tests, benchmarks); the UI offers 0.25 s and up
MAX_INTERVAL_S = 10.0
STALL_AFTER_S = 3.0  # an answer missing for this long (or 3 intervals) is reported


def _first_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return text or type(exc).__name__


class SamplingThread(Worker):
    """Takes samples on request in its own thread; see the module docstring.

    ``sampled(generation, sample)`` is emitted from this thread; connect it with a queued
    connection (the controller does). ``failed(message)`` reports a sampler that could not be
    built or raised (samplers should never raise, but a broken one must not kill the thread).
    """

    sampled = Signal(int, object)
    sampler_failed = Signal(str)
    sink_failed = Signal(str)

    def __init__(self, factory: SamplerFactory, name: str = "monitor-sampler") -> None:
        super().__init__(self._unused, 0, name)
        self._factory = factory
        self._cond = threading.Condition()
        self._request: int | None = None
        self._commands: deque[Callable[[SamplingThread], None]] = deque()
        self._stopping = False
        self.samples_taken = 0
        self.sampler: Sampler | None = None
        # Where every sample also goes (a session recorder); set and cleared only from inside
        # this thread, through call().
        self.sink: SampleSink | None = None

    @staticmethod
    def _unused() -> None:  # Worker wants a callable; run() is overridden below
        return None

    # --- called from the GUI thread ---------------------------------------------------------
    def request(self, generation: int) -> None:
        """Ask for one sample (a newer request replaces one not yet started)."""
        with self._cond:
            self._request = generation
            self._cond.notify()

    def call(self, command: Callable[[SamplingThread], None]) -> None:
        """Run ``command(thread)`` in the sampling thread before the next sample."""
        with self._cond:
            self._commands.append(command)
            self._cond.notify()

    def stop(self, timeout_ms: int = 3000) -> bool:
        """Finish pending commands, end the thread and wait for it; False if it is stuck."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        self.requestInterruption()
        if not self.isRunning():
            return True
        return self.wait(timeout_ms)

    # --- the thread ---------------------------------------------------------------------------
    def run(self) -> None:
        try:
            self.sampler = self._factory()
        except Exception as exc:
            traceback.print_exc()
            self.sampler_failed.emit(f"the sampler could not start: {_first_line(exc)}")
        try:
            self._loop()
        finally:
            self._close_sink()
            if self.sampler is not None:
                try:
                    self.sampler.close()
                except Exception:
                    traceback.print_exc()

    def _close_sink(self) -> None:
        """Detach the sink and close it if it can be closed (a recording left open)."""
        sink, self.sink = self.sink, None
        close = getattr(sink, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                traceback.print_exc()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not (self._stopping or self._request is not None or self._commands):
                    self._cond.wait()
                generation, self._request = self._request, None
                commands = list(self._commands)
                self._commands.clear()
                stopping = self._stopping
            for command in commands:
                try:
                    command(self)
                except Exception:  # a failing command must not stop the sampling
                    traceback.print_exc()
            if stopping:
                return
            if generation is None or self.sampler is None:
                continue
            try:
                sample = self.sampler.sample()
            except Exception as exc:
                traceback.print_exc()
                self.sampler_failed.emit(f"sampling failed: {_first_line(exc)}")
                continue
            self.samples_taken += 1
            if self.sink is not None:
                try:
                    self.sink.add(sample)
                except Exception as exc:  # disk full, database locked …: stop recording
                    traceback.print_exc()
                    self._close_sink()
                    self.sink_failed.emit(f"recording stopped: {_first_line(exc)}")
            self.sampled.emit(generation, sample)


class SamplingController(QObject):
    """Paces :class:`SamplingThread` with a registered timer; delivers current samples only.

    ``sample_ready(sample)``: a sample of the current generation (on the GUI thread).
    ``stall_changed(seconds)``: how long the outstanding request has been waiting once that
    passes :data:`STALL_AFTER_S` (or three intervals), and ``0.0`` when answers flow again.
    ``failed(message)``: the sampler could not be built or raised; ``sink_failed(message)``:
    the recorder attached to the thread raised and was detached.
    """

    sample_ready = Signal(object)
    stall_changed = Signal(float)
    failed = Signal(str)
    sink_failed = Signal(str)

    def __init__(
        self,
        factory: SamplerFactory,
        interval_s: float = 1.0,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._factory = factory
        self._interval_s = self._checked(interval_s)
        self.timer = register_timer(QTimer(self))
        self.timer.setObjectName("monitor-sampling")
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(round(self._interval_s * 1000))
        self.timer.timeout.connect(self._on_tick)
        self.worker_thread: SamplingThread | None = None
        self.generation = 0
        self._pending: tuple[int, float] | None = None  # (generation, monotonic time asked)
        self._burst_left = 0
        self.burst_delivered = 0  # samples taken during warm-up bursts (not at the interval)
        self._stalled = False
        self._shut_down = False
        self.failure: str | None = None  # why the sampler could not start (then it stays off)
        self.delivered = 0
        self.dropped = 0
        self.skipped_ticks = 0

    # --- settings ---------------------------------------------------------------------------
    @staticmethod
    def _checked(interval_s: float) -> float:
        if not (math.isfinite(interval_s) and MIN_INTERVAL_S <= interval_s <= MAX_INTERVAL_S):
            raise ValueError(
                f"interval: must be between {MIN_INTERVAL_S:g} and {MAX_INTERVAL_S:g} s, "
                f"got {interval_s!r}"
            )
        return float(interval_s)

    @property
    def interval_s(self) -> float:
        return self._interval_s

    def set_interval(self, interval_s: float) -> None:
        self._interval_s = self._checked(interval_s)
        if self._burst_left == 0:
            self.timer.setInterval(round(self._interval_s * 1000))

    def burst(self, count: int, interval_s: float) -> None:
        """Take the next ``count`` samples ``interval_s`` apart, then go back to the interval
        (fills the plots at once when the tab opens)."""
        self._burst_left = max(0, int(count))
        if self._burst_left:
            self.timer.setInterval(round(min(self._checked(interval_s), self._interval_s) * 1000))

    def in_burst(self) -> bool:
        """True while a warm-up burst still has samples to take."""
        return self._burst_left > 0

    # --- running ----------------------------------------------------------------------------
    def is_running(self) -> bool:
        return self.timer.isActive()

    def start(self) -> None:
        """Start (or keep) the timer; the first request goes out at once (not after the
        sampler failed to start: nothing would answer)."""
        if self._shut_down or self.failure is not None:
            return
        self._ensure_thread()
        if not self.timer.isActive():
            self.timer.start()
            self._on_tick()

    def stop(self) -> None:
        """Stop the timer and drop any sample still on its way."""
        self.timer.stop()
        self.invalidate()

    def invalidate(self) -> None:
        """Start a new generation: samples requested before now are dropped on arrival."""
        self.generation += 1
        self._set_stalled(0.0)

    def sample_once(self) -> None:
        """Request one sample now (even while stopped), unless one is outstanding."""
        if self._shut_down or self.failure is not None:
            return
        self._ensure_thread()
        self._request()

    def call_in_thread(self, command: Callable[[SamplingThread], None]) -> None:
        """Run ``command(thread)`` in the sampling thread (starting it if needed)."""
        self._ensure_thread().call(command)

    def shutdown(self, timeout_ms: int = 3000) -> bool:
        """Stop for good: timer, generation, thread. Returns False if the thread is stuck."""
        self.timer.stop()
        self.invalidate()
        self._shut_down = True
        if self.worker_thread is None:
            return True
        return self.worker_thread.stop(timeout_ms)

    # --- internals --------------------------------------------------------------------------
    def _ensure_thread(self) -> SamplingThread:
        if self.worker_thread is None:
            thread = SamplingThread(self._factory)
            thread.sampled.connect(self._on_sampled, Qt.ConnectionType.QueuedConnection)
            thread.sampler_failed.connect(self._on_failed, Qt.ConnectionType.QueuedConnection)
            thread.sink_failed.connect(self.sink_failed, Qt.ConnectionType.QueuedConnection)
            thread.start_registered()
            self.worker_thread = thread
        return self.worker_thread

    def _request(self) -> None:
        now = time.monotonic()
        if self._pending is not None and self._pending[0] == self.generation:
            waited = now - self._pending[1]
            self.skipped_ticks += 1
            if waited >= max(STALL_AFTER_S, 3 * self._interval_s):
                self._set_stalled(waited)
            return
        assert self.worker_thread is not None
        self._pending = (self.generation, now)
        self.worker_thread.request(self.generation)

    @Slot()
    def _on_tick(self) -> None:
        if self.worker_thread is None:
            return
        self._request()

    @Slot(int, object)
    def _on_sampled(self, generation: int, sample: object) -> None:
        if self._pending is not None and self._pending[0] == generation:
            self._pending = None
        if generation != self.generation or self._shut_down:
            self.dropped += 1
            return
        self._set_stalled(0.0)
        in_burst = self._burst_left > 0
        if in_burst:
            self._burst_left -= 1
            if self._burst_left == 0:
                self.timer.setInterval(round(self._interval_s * 1000))
        if not isinstance(sample, SystemSample):
            return
        self.delivered += 1
        if in_burst:
            self.burst_delivered += 1
        self.sample_ready.emit(sample)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._pending = None
        thread = self.worker_thread
        if thread is not None and thread.sampler is None:
            # The sampler could not be built: no request will ever be answered, so stop the
            # timer (no "hanging driver" stall later) and keep the reason.
            self.failure = message
            self.timer.stop()
            self._set_stalled(0.0)
        self.failed.emit(message)

    def _set_stalled(self, seconds: float) -> None:
        stalled = seconds > 0
        if stalled or self._stalled:
            self._stalled = stalled
            self.stall_changed.emit(seconds)
