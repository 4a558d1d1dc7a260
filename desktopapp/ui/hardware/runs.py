"""Hardware tab: the benchmark runs on screen, between the controls, the worker thread and the
live results.

:class:`RunsView` starts a :class:`~desktopapp.ui.hardware.bench_worker.BenchWorker` (the
benchmark runs in its thread; the GUI thread only receives queued events), forwards every
event to the :class:`~desktopapp.application.hardware_controller.HardwareController` and renders
what it returns: the progress line, new rows, the plot, the findings, "Use in estimates".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from desktopapp.application.hardware_controller import (
    HardwareController,
    Progress,
    Status,
    in_use,
    run_plan,
)
from desktopapp.application.hardware_jobs import HardwareServices, Machine
from desktopapp.ui.hardware.bench_panel import BenchControls
from desktopapp.ui.hardware.live_panel import LivePanel
from desktopapp.ui.state import AppState, CustomAccelerator

if TYPE_CHECKING:
    from desktopapp.ui.hardware.bench_worker import BenchWorker


class RunsView(QObject):
    """Benchmark runs and saved runs shown in the live results.

    ``run_finished(BenchOutcome)``: the run on screen ended (also when it could not start);
    ``run_saved()``: it ran, so the history has a new row.
    """

    run_finished = Signal(object)
    run_saved = Signal()

    def __init__(
        self,
        controller: HardwareController,
        services: HardwareServices,
        controls: BenchControls,
        live: LivePanel,
        state: AppState,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.services = services
        self.controls = controls
        self.live = live
        self.state = state
        self.worker: BenchWorker | None = None  # while a run is going
        live.use.button.clicked.connect(
            lambda: self.use_in_estimates(apply_anyway=controller.confirm_pending)
        )
        live.use.stop_button.clicked.connect(lambda: state.set_custom_accelerator(None))
        live.use.mode.activated.connect(lambda _index: self.refresh_use_panel())
        state.custom_accelerator_changed.connect(self._on_custom_accelerator)
        controls.cancel_requested.connect(self.cancel)
        self.refresh_use_panel()
        self._on_custom_accelerator(state.custom_accelerator)

    # --- running ------------------------------------------------------------------------------
    def start(self, machine: Machine, overrides: Mapping[str, Any]) -> bool:
        """Start a run with the panel's choices; False (with the reason shown) if it cannot."""
        from desktopapp.ui.hardware.bench_worker import BenchWorker

        if not self.controller.can_start():
            return False
        controls = self.controls
        plan = run_plan(
            controls.device_spec(),
            controls.selected_suites(),
            controls.selected_dtypes(),
            controls.is_quick(),
            overrides,
        )
        if plan.config is None:
            self.show_progress(Progress(plan.problem))
            return False
        start = self.controller.start(plan.config)
        self.live.show_findings(self.controller.findings_view())
        self.live.set_results([])
        self.live.plot.clear_data()
        self.refresh_use_panel()
        self.live.caption.setText(start.caption)

        worker = BenchWorker(plan.config, self.services, machine, start.generation)
        queued = Qt.ConnectionType.QueuedConnection
        worker.device_resolved.connect(self.on_device_resolved, queued)
        worker.progress.connect(self.on_progress, queued)
        worker.succeeded.connect(self.on_run_done, queued)
        worker.failed.connect(self.on_run_failed, queued)
        worker.finished.connect(self._on_worker_finished, queued)
        self.worker = worker
        controls.set_running(True)
        self.show_progress(start.progress)
        worker.start_registered()
        return True

    def cancel(self) -> None:
        worker = self.worker
        progress = self.controller.cancel()
        if worker is None or progress is None:
            return
        worker.cancel()
        self.controls.cancel_button.setEnabled(False)
        self.controls.cancel_button.setText("Cancelling…")
        self.show_progress(progress)

    def stop(self, wait_ms: int) -> None:
        """Cancel a run and wait for its thread (the tab shuts down)."""
        worker = self.worker
        if worker is not None:
            worker.cancel()
            worker.wait(wait_ms)

    # --- worker events (queued onto the GUI thread) ----------------------------------------
    @Slot(int, object)
    def on_device_resolved(self, generation: int, info: object) -> None:
        if self.controller.device_resolved(generation, info):
            self.live.caption.setText(self.controller.caption())
            self.live.show_plot(self.controller.plot_view())

    @Slot(int, object)
    def on_progress(self, generation: int, event: object) -> None:
        update = self.controller.progress(generation, event)
        if update is None:
            return
        self.show_progress(update.progress)
        if update.result is not None:
            self.live.append_result(update.result)
            if update.replot:
                self.live.show_plot(self.controller.plot_view())
            self.refresh_use_panel()
        if update.findings_changed:
            self.live.show_findings(self.controller.findings_view())

    @Slot(int, object)
    def on_run_done(self, generation: int, outcome: object) -> None:
        end = self.controller.finish(generation, outcome)
        if end is None:
            return
        self.show_progress(end.progress)
        self.live.caption.setText(end.caption)
        self.show_status(end.status)
        if end.findings_changed:
            self.live.show_findings(self.controller.findings_view())
        self.refresh_use_panel()
        if end.refresh_history:
            self.run_saved.emit()
        self.run_finished.emit(end.outcome)

    @Slot(int, str)
    def on_run_failed(self, generation: int, message: str) -> None:
        failure = self.controller.failed(generation, message)
        if failure is not None:
            progress, status = failure
            self.show_progress(progress)
            self.show_status(status)

    @Slot()
    def _on_worker_finished(self) -> None:
        self.worker = None
        self.controller.worker_finished()
        self.controls.set_running(False)

    # --- saved runs --------------------------------------------------------------------------
    def show_loaded(self, loaded: object) -> bool:
        """Show a run loaded from the history; False when it is not shown (a run is going)."""
        view = self.controller.show_loaded(loaded)
        if view is None:
            return False
        self.live.set_results(view.results)
        self.live.show_findings(self.controller.findings_view())
        self.live.show_plot(self.controller.plot_view())
        self.refresh_use_panel()
        self.live.caption.setText(view.caption)
        self.show_progress(view.progress)
        return True

    # --- rendering -----------------------------------------------------------------------------
    def show_progress(self, progress: Progress) -> None:
        """The step line, its ETA and (when it says) the bar."""
        if progress.fraction is None:
            self.controls.step_label.setText(progress.message)
            self.controls.eta_label.setText(progress.eta)
        else:
            self.controls.show_progress(progress.fraction, progress.message, progress.eta)

    def show_status(self, status: Status) -> None:
        self.state.show_status(status.text, status.ms)

    # --- use in estimates ----------------------------------------------------------------------
    def refresh_use_panel(self) -> None:
        self.live.use.show_panel(self.controller.use_panel(self.live.use.current_mode()))

    def use_in_estimates(self, apply_anyway: bool = False) -> CustomAccelerator | None:
        """Hand the measured throughput to the Workload tab through the shared state (a
        suspect or disturbed run only on the second press, "Apply anyway")."""
        result = self.controller.use_in_estimates(
            self.live.use.current_mode(), self.state.precision, apply_anyway
        )
        self.live.use.show_result(result)
        if result.custom is not None:
            self.state.set_custom_accelerator(result.custom)
            self.state.show_status(result.announcement, 8000)
        return result.custom

    @Slot(object)
    def _on_custom_accelerator(self, custom: object) -> None:
        self.live.use.show_in_use(in_use(custom))


__all__ = ["RunsView"]
