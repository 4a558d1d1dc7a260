"""Hardware tab's Collectives panel: a real 2-process Gloo run through the worker, the plot
with the advertised line, and the interpretation."""

from __future__ import annotations

from typing import Any

import pytest

from desktopapp.model.units import format_duration

pytest.importorskip("pytestqt")
pytest.importorskip("torch.distributed")

from desktopapp.devices.bench.collective import (
    CollectiveConfig,
    CollectiveResult,
    CollectiveRun,
)
from desktopapp.ui.common.workers import live_workers
from desktopapp.ui.hardware.collective import CollectivePanel


def _run(nodes: int = 1) -> CollectiveRun:
    rows = tuple(
        CollectiveResult(op, size, size / 300e9, size / 320e9, 8, "nccl", 5)
        for op in ("all_reduce", "all_gather", "reduce_scatter", "broadcast")
        for size in (1 << 20, 1 << 24, 1 << 28)
    )
    return CollectiveRun(
        CollectiveConfig(device="cuda", nproc=8),
        rows,
        (),
        "",
        1.0,
        False,
        8,
        "nccl",
        nodes=nodes,
        gpus_per_node=8,
    )


def test_plot_and_advertised_line(qtbot: Any) -> None:
    panel = CollectivePanel()
    qtbot.addWidget(panel)
    panel.show_run(_run())
    assert len(panel.plot.getPlotItem().listDataItems()) == 4
    assert panel.advertised_line is None
    assert panel.table.rowCount() == 12
    panel.accelerator.setCurrentIndex(panel.accelerator.findData("h100-sxm"))
    assert panel.advertised_line is not None
    assert panel.advertised_line.value() == pytest.approx(panel.advertised().bytes_per_s)
    assert "of the advertised" in panel.interpretation.text()


def test_real_gloo_run_through_the_panel(qtbot: Any, isolated_home: Any) -> None:
    panel = CollectivePanel()
    qtbot.addWidget(panel)
    panel.budget.setValue(0.5)
    panel.start()
    assert panel.worker is not None
    with qtbot.waitSignal(panel.worker.succeeded, timeout=90_000):
        pass
    qtbot.waitUntil(lambda: not live_workers(), timeout=10_000)
    assert panel.run is not None and panel.run.backend == "gloo"
    assert {r.op for r in panel.run.results} >= {"all_reduce", "broadcast"}
    assert "saved as run #" in panel.status.text()
    assert panel.run_button.isEnabled()


def test_use_in_estimates_hands_busbw_to_state(qtbot: Any) -> None:
    from desktopapp.ui.state import AppState

    state = AppState()
    panel = CollectivePanel(state=state)
    qtbot.addWidget(panel)
    assert not panel.use_button.isEnabled()  # nothing measured yet
    panel.show_run(_run())
    assert panel.use_button.isEnabled()
    with qtbot.waitSignal(state.measured_busbw_changed) as blocker:
        panel.use_button.click()
    # busbw at the largest all-reduce message: algbw 300 GB/s x 2(n-1)/n (n = 8) = 525 GB/s
    assert blocker.args == [pytest.approx(525e9)]
    assert state.measured_busbw == pytest.approx(525e9)
    assert "525 GB/s" in panel.use_label.text()
    assert panel.stop_using_button.isEnabled()
    panel.stop_using_button.click()
    assert state.measured_busbw is None
    assert not panel.stop_using_button.isEnabled()


def test_state_measured_busbw_rules(qtbot: Any) -> None:
    from desktopapp.ui.state import AppState

    state = AppState()
    emitted: list[object] = []
    state.measured_busbw_changed.connect(emitted.append)
    state.set_measured_busbw(100e9)
    state.set_measured_busbw(100e9)  # no change: no signal
    state.set_measured_busbw(None)
    assert emitted == [100e9, None]
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="bus bandwidth"):
            state.set_measured_busbw(bad)


def test_busbw_choice_ignores_other_ops() -> None:
    from desktopapp.application.hardware import busbw_for_estimates

    assert busbw_for_estimates([("broadcast", 1 << 20, 5e9)]) is None
    choice = busbw_for_estimates(
        [("all_reduce", 1 << 20, 20e9), ("all_reduce", 1 << 28, 90e9), ("broadcast", 1 << 30, 1e12)]
    )
    assert choice is not None and choice.bytes_per_s == 90e9 and choice.message_bytes == 1 << 28


def _one_rank_run() -> CollectiveRun:
    rows = tuple(
        # the op "took" almost nothing (in place on one rank); the real copy took 2·size/2000 GB/s
        CollectiveResult(
            "all_reduce", size, 1e-6, 1e-6, 1, "nccl", 5, copy_seconds=2 * size / 2000e9
        )
        for size in (1 << 20, 1 << 28)
    )
    return CollectiveRun(
        CollectiveConfig(device="cuda", nproc=1), rows, (), "", 1.0, False, 1, "nccl"
    )


def test_one_rank_reports_the_local_copy_rate_not_zero_busbw(qtbot: Any) -> None:
    run = _one_rank_run()
    row = run.results[-1].to_dict()
    assert row["busbw_gbs"] is None and row["copy_gbs"] == pytest.approx(2000.0)
    stored = run.results[-1].to_bench_result("cuda")
    assert stored.metric == "GB/s local copy" and stored.value == pytest.approx(2000.0)
    panel = CollectivePanel()
    qtbot.addWidget(panel)
    panel.show_run(run)
    assert panel.table.horizontalHeaderItem(4).text() == "local copy"
    assert panel.table.item(1, 4).text() == "2000.000 GB/s"
    # the time is the timed copy's (the op itself took 1 µs), and no algorithm bandwidth
    assert panel.table.horizontalHeaderItem(2).text() == "copy time"
    assert panel.table.item(1, 2).text() == format_duration(run.results[-1].copy_seconds)
    assert panel.table.item(1, 2).text() != format_duration(1e-6)
    assert panel.table.item(1, 3).text() == "—"
    assert "no bus traffic to measure" in panel.interpretation.text()
    assert panel.busbw_choice() is None  # nothing to hand to the estimates
    panel.show_run(_run())  # several ranks: unchanged
    assert panel.table.horizontalHeaderItem(4).text() == "busbw"
