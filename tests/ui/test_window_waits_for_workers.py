"""The window waits for its workers when it closes: a worker still inside an import or a driver
call (the Hardware tab's torch probe under load) cannot be interrupted and outlived the tab's
5-second wait ("hardware-torch-1" still running at the presentation-keys test's teardown)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from desktopapp.ui.common import workers
from desktopapp.ui.main_window import MainWindow


def test_close_waits_for_a_worker_that_outlives_the_tabs_wait(
    qtbot: QtBot, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = MainWindow(initial_tab="workload", remember=False)
    qtbot.addWidget(window)
    release = threading.Event()
    runner = workers.TaskRunner("slow-probe", window)
    runner.submit(lambda: release.wait(30.0))  # ignores interruption, like an import
    qtbot.waitUntil(runner.is_busy, timeout=2000)
    original: Callable[..., Any] = workers.TaskRunner.shutdown
    # every tab's own wait gives up at once, as the 5 s wait did under load
    monkeypatch.setattr(
        workers.TaskRunner, "shutdown", lambda self, timeout_ms=0: original(self, 0)
    )
    timer = threading.Timer(0.3, release.set)
    timer.start()
    try:
        window.close()
        assert not [w for w in workers.live_workers() if w.objectName().startswith("slow")]
    finally:
        release.set()
        timer.join()
