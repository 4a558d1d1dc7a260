"""Monitor tab's Cluster panel against the real Prometheus stack."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pytestqt")

from desktopapp.ui.monitor.cluster import ClusterPanel
from tests.cluster.conftest import Stack


def test_panel_reads_the_fleet(qtbot: Any, prometheus_stack: Stack) -> None:
    panel = ClusterPanel()
    qtbot.addWidget(panel)
    panel.url.setText(prometheus_stack.prometheus_url)
    panel.price.setValue(3.0)
    with qtbot.waitSignal(panel.runner.result_ready, timeout=20_000):
        panel.refresh()
    assert "2 busy, 1 idle, 0 unreachable" in panel.summary.text()
    assert "$3.00 per hour" in panel.summary.text()
    assert panel.table.rowCount() == 3
    assert "communication stall" in panel.diagnosis.text()
    assert panel.heat_image.image is not None and panel.heat_image.image.shape[1] == 3
    panel.runner.shutdown()


def test_panel_unreachable_is_one_line(qtbot: Any) -> None:
    panel = ClusterPanel()
    qtbot.addWidget(panel)
    panel.url.setText("http://127.0.0.1:1")
    with qtbot.waitSignal(panel.runner.error, timeout=20_000):
        panel.refresh()
    assert "unreachable" in panel.summary.text() and "\n" not in panel.summary.text()
    panel.runner.shutdown()
