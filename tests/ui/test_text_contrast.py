"""Text that says something reads at 4.5:1 on the card it sits on, in both themes: the result
cards' details ("at $1.99 per GPU-hour", "8 devices at 70% utilization"), the Hardware tab's
notes, units and empty-state text were drawn in the faint colour, 3.0:1 in the light theme
and 4.45:1 in the dark one. Faint stays for disabled controls."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktopapp.ui.common import theme
from desktopapp.ui.main_window import MainWindow

# Labels drawn straight on a card (no background of their own), by object name.
ON_CARD = {
    "CardDetail",
    "CardCaption",
    "Hint",
    "FieldLabel",
    "SectionNote",
    "Faint",
    "PeakUnit",
    "PeakCaption",
    "Empty",
    "FactLabel",
    "FactNote",
    "Muted",
    "DeviceKind",
}
MIN_TEXT_CONTRAST = 4.5


@pytest.fixture
def in_theme(qapp: QApplication, isolated_home: Path) -> Iterator[None]:
    yield
    theme.apply_theme(qapp, "light", 1.0)


@pytest.mark.parametrize("name", ["light", "dark"])
@pytest.mark.parametrize("tab", ["estimate", "cost", "hardware"])
def test_text_on_cards_reads_at_four_and_a_half_to_one(
    qtbot: QtBot, qapp: QApplication, in_theme: None, tab: str, name: str
) -> None:
    from desktopapp.app import wait_until_ready

    theme.apply_theme(qapp, name, 1.0)
    window = MainWindow(initial_tab=tab, remember=False, theme_mode=name)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    assert wait_until_ready(window, 60.0)
    page = window.tab_content(tab)
    assert page is not None
    checked, low = 0, []
    for label in page.findChildren(QLabel):
        if label.objectName() not in ON_CARD or not label.isVisible() or not label.isEnabled():
            continue
        if not label.text().strip():
            continue
        label.ensurePolished()
        color = label.palette().color(label.foregroundRole()).name()
        for background in ("surface", "surface_alt"):
            ratio = theme.contrast_ratio(color, theme.COLORS[background])
            if ratio < MIN_TEXT_CONTRAST:
                text = label.text()[:40]
                low.append(f"{label.objectName()} {text!r}: {ratio:.2f} on {background}")
        checked += 1
    assert checked, "no label checked"
    assert not low, "\n".join(low)
