"""The Hardware tab's controller without widgets or threads: a run from start through progress
to its end, cancel with partial results, stale events, a disturbed or suspect run, applying a
measurement to the estimates or withholding it, saved runs and the history."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from fakes.hardware import CPU_PEAK, CPU_PEAKS, GIB, result

from desktopapp.application.hardware import (
    USE_AS_PEAK,
    USE_AS_UTILIZATION,
    busbw_for_estimates,
    busbw_use,
    history_row,
)
from desktopapp.application.hardware_controller import (
    APPLY_ANYWAY_TEXT,
    USE_TEXT,
    HardwareController,
    RunStart,
    history_note,
    history_status,
    in_use,
    run_plan,
)
from desktopapp.application.hardware_jobs import BenchOutcome, History, LoadedRun
from desktopapp.devices.bench.core import BenchResult, ProgressEvent

DEVICE_INFO: dict[str, Any] = {
    "device": "cpu",
    "kind": "cpu",
    "name": "Test EPYC 9000 8-Core",
    "peak_tflops": CPU_PEAKS,
    "peak_source": "estimate: 8 cores × 3.50 GHz × 32 FLOP/cycle",
    "catalog_id": None,
    "memory_bytes": 64 * GIB,
}
DISTURBED = {"disturbed": True, "summary": "disturbed run: other processes used 60% of CPUs"}


def started(controller: HardwareController, dtypes: tuple[str, ...] = ("fp32",)) -> RunStart:
    plan = run_plan("cpu", ("matmul",), dtypes, quick=True)
    assert plan.config is not None and plan.problem == ""
    start = controller.start(plan.config)
    assert controller.device_resolved(start.generation, DEVICE_INFO)
    return start


def step(controller: HardwareController, generation: int, bench: BenchResult) -> None:
    update = controller.progress(generation, ProgressEvent(0.5, "matmul…", 1.0, result=bench))
    assert update is not None and update.result == bench


def outcome(
    results: tuple[BenchResult, ...],
    cancelled: bool = False,
    run_id: int | None = 7,
    info: Mapping[str, Any] = DEVICE_INFO,
    **extra: Any,
) -> BenchOutcome:
    return BenchOutcome(
        results, (), cancelled, "2026-11-26T10:00:00+00:00", 1.5, info, run_id, **extra
    )


def test_a_run_goes_from_start_through_progress_to_its_end() -> None:
    controller = HardwareController()
    start = started(controller)
    assert controller.running and not controller.can_start()
    assert start.caption == "Running on cpu…"
    assert start.progress.fraction == 0.0 and "Starting on cpu" in start.progress.message
    assert "Test EPYC 9000 8-Core (cpu)" in controller.caption()
    assert "peak fp32 0.5 TFLOP/s (estimate)" in controller.caption()
    assert not controller.use_panel(USE_AS_PEAK).enabled  # nothing measured yet

    first = result("fp32", 64, 0.2)
    event = ProgressEvent(0.5, "matmul fp32 64×64…", 12.0, result=first, warning="slow clock")
    update = controller.progress(start.generation, event)
    assert update is not None
    assert update.progress.fraction == 0.5 and update.progress.message == "matmul fp32 64×64…"
    assert "left" in update.progress.eta
    assert update.result == first and update.replot and update.findings_changed
    again = controller.progress(
        start.generation, ProgressEvent(0.6, "…", None, warning="slow clock")
    )
    assert again is not None and not again.findings_changed and again.result is None
    assert controller.findings_view().lines == ("slow clock",)
    panel = controller.use_panel(USE_AS_PEAK)
    assert panel.enabled and panel.summary == (
        "Uses the sustained rate (median of repeats): fp32 0.2 TFLOP/s (40% of peak)"
    )
    assert controller.plot_view().series == {("fp32", ""): [(64, 0.2)]}

    end = controller.finish(start.generation, outcome((first,)))
    assert end is not None
    assert end.progress.fraction == 1.0
    assert end.progress.message == "Finished in 1.5 s: 1 results, saved as run #7."
    assert end.status.text.startswith("Benchmark finished in 1.5 s") and end.status.ms > 0
    assert end.refresh_history
    assert controller.running  # until the worker thread itself has finished
    controller.worker_finished()
    assert not controller.running and controller.can_start()


def test_cancel_keeps_the_partial_results() -> None:
    controller = HardwareController()
    assert controller.cancel() is None  # nothing running
    start = started(controller)
    partial = (result("fp32", 64, 0.1), result("fp32", 128, 0.2))
    for bench in partial:
        step(controller, start.generation, bench)
    cancelling = controller.cancel()
    assert cancelling is not None and cancelling.message.startswith("Cancelling")
    assert cancelling.fraction is None  # the bar stays where the run got to

    end = controller.finish(start.generation, outcome(partial, cancelled=True, run_id=3))
    assert end is not None and end.refresh_history
    assert end.progress.fraction is None
    assert end.progress.message == "Cancelled in 1.5 s: 2 results, partial results saved as run #3."
    assert controller.results == list(partial)
    assert controller.use_panel(USE_AS_PEAK).enabled  # partial results can still be used
    custom = controller.use_in_estimates(USE_AS_PEAK, None).custom
    assert custom is not None and dict(custom.peak_tflops) == {"fp32": 0.2}


def test_a_run_that_could_not_start_or_was_not_saved_says_so() -> None:
    controller = HardwareController()
    start = started(controller)
    end = controller.finish(start.generation, outcome((), run_id=None, info={}, error="no GPU"))
    assert end is not None and not end.refresh_history and end.caption == ""
    assert end.progress.message == "Could not start: no GPU" and end.status.ms == 0
    controller.worker_finished()
    start = started(controller)
    bench = (result("fp32", 64, 0.2),)
    unsaved = outcome(bench, run_id=None, save_error="not saved: disk full")
    end = controller.finish(start.generation, unsaved)
    assert end is not None and end.progress.message.endswith("1 results, not saved: disk full.")
    failed = controller.failed(start.generation, "boom")
    assert failed is not None and failed[0].message == "The benchmark failed: boom"


def test_events_of_a_run_no_longer_on_screen_are_dropped() -> None:
    controller = HardwareController()
    old = started(controller)
    step(controller, old.generation, result("fp32", 64, 0.2))
    controller.worker_finished()
    new = started(controller)  # clears what the old run showed
    assert new.generation != old.generation
    late = result("fp32", 4096, 9.0)
    stale = ProgressEvent(0.5, "old", result=late)
    assert controller.progress(old.generation, stale) is None
    assert controller.finish(old.generation, outcome((late,))) is None
    assert controller.failed(old.generation, "old") is None
    assert not controller.device_resolved(old.generation, DEVICE_INFO)
    assert controller.progress(new.generation, "not an event") is None
    assert controller.dropped_events == 5
    assert controller.results == []
    controller.close()  # the tab shuts down: the run still in flight is stale too
    assert controller.progress(new.generation, stale) is None
    assert not controller.can_start()


def test_a_disturbed_run_is_flagged_and_applied_only_when_confirmed() -> None:
    controller = HardwareController()
    start = started(controller)
    bench = result("fp32", 64, 0.3)  # 60% of peak: plausible, but measured under load
    step(controller, start.generation, bench)
    info = {**DEVICE_INFO, "conditions": DISTURBED}
    assert controller.finish(start.generation, outcome((bench,), info=info)) is not None
    panel = controller.use_panel(USE_AS_PEAK)
    assert panel.summary.endswith("— check before use")
    assert "60% of CPUs" in panel.summary_tooltip

    first = controller.use_in_estimates(USE_AS_PEAK, None)
    assert first.custom is None  # not applied silently
    assert first.note.startswith("⚠") and "60% of CPUs" in first.note
    assert first.button_text == APPLY_ANYWAY_TEXT and controller.confirm_pending
    second = controller.use_in_estimates(USE_AS_PEAK, None, apply_anyway=True)
    assert second.custom is not None and dict(second.custom.peak_tflops) == {"fp32": 0.3}
    assert second.button_text == USE_TEXT and not controller.confirm_pending
    row = history_row(7, "2026-11-26T10:00:00+00:00", "cpu", info, {}, [bench], False)
    assert history_status(row) == "complete · disturbed"


def test_applying_a_clean_measurement_to_the_estimates() -> None:
    controller = HardwareController()
    start = started(controller, ("fp32", "bf16"))
    for bench in (result("fp32", 64, 0.2), result("fp32", 128, 0.3), result("bf16", 64, 0.05)):
        step(controller, start.generation, bench)

    as_peak = controller.use_in_estimates(USE_AS_PEAK, "bf16")
    custom = as_peak.custom
    assert custom is not None and as_peak.note == ""
    assert custom.name == "Test EPYC 9000 8-Core" and custom.memory_bytes == 64 * GIB
    assert dict(custom.peak_tflops) == pytest.approx({"fp32": 0.3, "bf16": 0.05})
    assert custom.utilization is None and "(this run)" in custom.source
    assert "now available in Workload estimation" in as_peak.announcement

    share = controller.use_in_estimates(USE_AS_UTILIZATION, "fp32").custom
    assert share is not None and dict(share.peak_tflops) == {"fp32": CPU_PEAK}
    assert share.utilization == pytest.approx(0.6)
    shown = in_use(share)
    assert shown.can_stop and "utilization 60%" in shown.text and shown.tooltip == share.source
    assert not in_use(None).can_stop and in_use(None).text.startswith("Not in use")


def test_rejecting_a_suspect_measurement() -> None:
    controller = HardwareController()
    assert controller.use_in_estimates(USE_AS_PEAK, None).note == "Nothing measured yet."
    start = started(controller)
    step(controller, start.generation, result("fp32", 64, 0.01))  # 2% of peak
    panel = controller.use_panel(USE_AS_PEAK)
    assert "suspect (fp32 far below the datasheet)" in panel.summary
    assert "0.01" in panel.summary  # shown as measured

    warned = controller.use_in_estimates(USE_AS_PEAK, None)
    assert warned.custom is None and "far below" in warned.note
    assert warned.button_text == APPLY_ANYWAY_TEXT
    # The user looks again (another mode, a refresh) instead of confirming: the pending
    # "Apply anyway" is withdrawn, and the next press warns again rather than applying.
    assert controller.use_panel(USE_AS_PEAK).button_text == USE_TEXT
    assert not controller.confirm_pending
    again = controller.use_in_estimates(USE_AS_PEAK, None, apply_anyway=controller.confirm_pending)
    assert again.custom is None and again.button_text == APPLY_ANYWAY_TEXT


def test_the_utilization_mode_needs_a_known_peak() -> None:
    controller = HardwareController()
    start = started(controller, ("bf16",))
    step(controller, start.generation, result("bf16", 64, 0.05))  # no bf16 peak known
    panel = controller.use_panel(USE_AS_UTILIZATION)
    assert not panel.utilization_available and panel.mode == USE_AS_PEAK
    failed = controller.use_in_estimates(USE_AS_UTILIZATION, None)
    assert failed.custom is None and "share of peak" in failed.note


def test_the_choices_that_cannot_start_a_run() -> None:
    assert run_plan("cpu", (), ("fp32",), True).problem == "Choose at least one suite to run."
    assert "matmul precision" in run_plan("cpu", ("matmul",), (), True).problem
    assert run_plan("cpu", ("bandwidth",), (), True).config is not None
    bad = run_plan("cpu", ("matmul",), ("fp32",), True, {"budget_s": -1.0})
    assert bad.config is None and bad.problem.startswith("Cannot start:")
    sized = run_plan("cpu", ("matmul",), ("fp32",), True, {"sizes": (32, 64)})
    assert sized.config is not None and sized.config.sizes == (32, 64)


def test_a_saved_run_replaces_what_is_on_screen_but_not_a_running_one() -> None:
    controller = HardwareController()
    loaded = LoadedRun(
        3,
        "run #3 of 2026-11-26 10:00",
        (result("fp32", 64, 0.1), result("fp32", 128, 0.25)),
        DEVICE_INFO,
        "cpu",
        ("an earlier finding", "an earlier finding"),
        True,
    )
    start = started(controller)
    refusal = controller.open_refusal()
    assert refusal is not None and "running" in refusal.text
    assert controller.show_loaded(loaded) is None
    controller.worker_finished()
    assert controller.open_refusal() is None

    view = controller.show_loaded(loaded)
    assert view is not None and view.results == loaded.results
    assert view.caption.startswith("Run #3 of 2026-11-26 10:00 · Test EPYC")
    assert (
        view.progress.message == "Showing run #3 of 2026-11-26 10:00 (cancelled: partial results)."
    )
    assert controller.findings_view().lines == ("an earlier finding",)
    assert controller.generation > start.generation  # late events of the old run are dropped
    custom = controller.use_in_estimates(USE_AS_PEAK, None).custom
    assert custom is not None and "run #3" in custom.source


def test_history_rows_and_what_export_takes() -> None:
    controller = HardwareController()
    rows = tuple(
        history_row(i, "2026-11-26T10:00:00+00:00", "cpu", {}, {}, [result("fp32", 64, 0.1)], False)
        for i in (1, 2, 3)
    )
    assert controller.history_loaded("not a history") is None
    assert controller.history_loaded(History(rows, "", "/tmp/results.sqlite3")) is not None
    assert controller.export_ids([]) == [1, 2, 3]
    assert controller.export_ids([2]) == [2]
    assert history_note(3, "/x.db") == "3 saved runs in /x.db. Best figures are matmul TFLOP/s."
    assert history_note(1).startswith("1 saved run. ")
    assert "could not be read: locked" in history_note(0, error="locked")
    assert history_note(0).startswith("Results are saved here")
    other = history_row(4, "2026-11-26T10:00:00+00:00", "cpu", {}, {}, [], True, same_machine=False)
    assert history_status(other) == "partial (cancelled) · other machine"


def test_the_measured_busbw_offered_to_the_estimates() -> None:
    choice = busbw_for_estimates([("all_reduce", 1 << 20, 20e9), ("all_reduce", 1 << 28, 90e9)])
    offered = busbw_use(choice, None, can_hand_over=True)
    assert offered.can_use and not offered.can_stop
    assert offered.text.startswith("This run: all-reduce bus bandwidth 90 GB/s")
    assert not busbw_use(choice, None, can_hand_over=False).can_use  # no shared state
    used = busbw_use(choice, 90e9, can_hand_over=True)
    assert used.can_stop and "Estimates use a measured" in used.text and "90 GB/s" in used.text
    nothing = busbw_use(busbw_for_estimates([("broadcast", 1 << 20, 5e9)]), None, True)
    assert not nothing.can_use and nothing.text.startswith("Run the collectives")


def test_use_in_estimates_says_it_takes_the_sustained_median_and_shows_the_peak() -> None:
    """Issue 23: the panel states which figure the estimates use, beside the fastest repeat."""
    from dataclasses import replace

    controller = HardwareController()
    start = started(controller)
    step(
        controller, start.generation, replace(result("fp32", 64, 0.2), extra={"tflops_best": 0.25})
    )
    summary = controller.use_panel(USE_AS_PEAK).summary
    assert "sustained rate (median of repeats): fp32 0.2 TFLOP/s" in summary
    assert "fastest repeat fp32 0.25 TFLOP/s" in summary


def test_every_rate_in_the_use_panel_carries_its_unit() -> None:
    """With two precisions measured, each figure says TFLOP/s (the first used to have none)."""
    import re

    controller = HardwareController()
    start = started(controller)
    step(controller, start.generation, result("fp32", 64, 0.2))
    step(controller, start.generation, result("bf16", 64, 0.4))
    summary = controller.use_panel(USE_AS_PEAK).summary
    figures = re.findall(r"(?:fp32|bf16) [0-9.]+( TFLOP/s)?", summary)
    assert len(figures) == 2 and all(figures), summary
