"""The benchmark worker: a registered :class:`~desktopapp.ui.common.workers.Worker` that also
reports the resolved device and every progress event through queued signals."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktopapp.application.hardware_jobs import (
    BenchOutcome,
    HardwareServices,
    Machine,
    run_benchmark_job,
)
from desktopapp.devices.bench.core import CancelToken, ProgressEvent
from desktopapp.devices.bench.runner import BenchConfig
from desktopapp.ui.common.workers import Worker


class BenchWorker(Worker):
    """Runs :func:`run_benchmark_job` in its own thread.

    Signals (emitted from the worker thread, delivered queued on the GUI thread), each with the
    run's generation so the tab can drop events of a run it no longer shows:

    - ``device_resolved(generation, device_info)``
    - ``progress(generation, ProgressEvent)``
    - ``succeeded(generation, BenchOutcome)`` / ``failed(generation, message)`` (from Worker)
    """

    device_resolved = Signal(int, object)
    progress = Signal(int, object)

    def __init__(
        self,
        config: BenchConfig,
        services: HardwareServices,
        machine: Machine,
        generation: int,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(self._job, generation, f"hardware-bench-{generation}", parent)
        self.config = config
        self.token = CancelToken()
        self._services = services
        self._machine = machine

    def cancel(self) -> None:
        """Ask the run to stop (thread-safe; takes effect at the suite's next check)."""
        self.token.cancel()
        self.requestInterruption()

    def _job(self) -> BenchOutcome:  # worker thread
        return run_benchmark_job(
            self.config,
            self.token,
            self._services,
            self._machine,
            on_start=self._emit_device,
            on_event=self._emit_progress,
            stop_requested=self.isInterruptionRequested,
        )

    def _emit_device(self, info: Mapping[str, Any]) -> None:
        self.device_resolved.emit(self.generation, dict(info))

    def _emit_progress(self, event: ProgressEvent) -> None:
        self.progress.emit(self.generation, event)
