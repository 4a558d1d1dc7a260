"""Issue 25: "TP/PP show "0" instead of "auto" after typing 0". A plan field at 0 means auto:
it shows empty with the "auto" placeholder, typed or emptied, before and after focus leaves."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox
from pytestqt.qtbot import QtBot

from desktopapp.ui.estimate import create_tab
from desktopapp.ui.estimate.tab import EstimateTab
from desktopapp.ui.state import AppState


@pytest.fixture
def tab(qtbot: QtBot, app_state: AppState) -> EstimateTab:
    widget = create_tab(app_state)
    assert isinstance(widget, EstimateTab)
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    widget.show()
    qtbot.waitExposed(widget)
    widget.apply_preset("llm-7b")
    return widget


def _type(qtbot: QtBot, spin: QAbstractSpinBox, text: str) -> None:
    spin.setFocus()
    spin.lineEdit().selectAll()
    if text:
        qtbot.keyClicks(spin, text)
    else:
        qtbot.keyClick(spin, Qt.Key.Key_Backspace)


@pytest.mark.parametrize("name", ["tp", "pp", "plan_micro_batch"])
@pytest.mark.parametrize("typed", ["0", ""])
def test_zero_or_empty_plan_field_reads_auto(
    qtbot: QtBot, tab: EstimateTab, name: str, typed: str
) -> None:
    spin = getattr(tab.inputs, name)
    spin.setValue(2)
    _type(qtbot, spin, typed)
    qtbot.waitUntil(lambda: spin.value() == 0, timeout=2000)  # auto while still typing
    assert spin.lineEdit().text() in ("", "auto")
    tab.inputs.params.setFocus()  # focus leaves the field
    qtbot.waitUntil(lambda: not tab._timer.isActive(), timeout=3000)
    assert spin.value() == 0
    assert spin.lineEdit().text() == "" and spin.lineEdit().placeholderText() == "auto"
    _type(qtbot, spin, "2")
    assert spin.value() == 2 and spin.lineEdit().text() == "2"
