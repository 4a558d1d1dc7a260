"""Issue 16, Cost tab: what a person reads is whole and in their words.

- The accelerator box shows the whole accelerator name in presentation mode (larger fonts) at
  the window sizes of the geometry checks; a name too long for any width shows its start and
  the full name in the tooltip. Checked against the font's text width, not pixels.
- The add-offer dialog marks a wrong price with the field's label, not its code name.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot

from desktopapp.model.catalog import accelerator_catalog
from desktopapp.ui.common import theme
from desktopapp.ui.cost.tab import CostTab
from desktopapp.ui.state import AppState

TODAY = date(2026, 11, 21)
# The tab's area in a window of 1024×640 and 1440×900 (menu, tab bar and status bar off).
TAB_SIZES = ((1000, 540), (1416, 800))


@pytest.fixture
def presentation(qapp: QApplication) -> Iterator[None]:
    theme.apply_theme(qapp, "light", theme.PRESENTATION_SCALE)
    yield
    theme.apply_theme(qapp, "light", 1.0)


def text_room(line: QLineEdit) -> int:
    """Pixels a line edit has for its text: its contents less the text margins and the 2 px
    Qt keeps on each side."""
    margins = line.textMargins()
    return line.contentsRect().width() - margins.left() - margins.right() - 4


def text_need(line: QLineEdit) -> int:
    return line.fontMetrics().horizontalAdvance(line.text())


def open_tab(qtbot: QtBot, state: AppState, size: tuple[int, int]) -> CostTab:
    tab = CostTab(state, today=TODAY)
    qtbot.addWidget(tab)
    tab.resize(*size)
    tab.show()
    for _ in range(3):
        QApplication.processEvents()
    return tab


@pytest.mark.parametrize("size", TAB_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_accelerator_name_is_whole_in_presentation_mode(
    qtbot: QtBot, app_state: AppState, presentation: None, size: tuple[int, int]
) -> None:
    tab = open_tab(qtbot, app_state, size)
    combo = tab.inputs.accelerator
    line = combo.lineEdit()
    assert line is not None
    assert line.text().startswith("NVIDIA H100")  # the default accelerator
    assert text_room(line) >= text_need(line), (
        f"{line.text()!r} needs {text_need(line)} px, the box has {text_room(line)} px"
    )
    # The same for the common names a person picks (no vendor's name cut).
    for acc_id in ("a100-sxm-80gb", "h200-sxm", "mi300x", "l40s"):
        assert combo.set_accelerator_id(acc_id)
        assert text_room(line) >= text_need(line), line.text()


def test_a_name_too_long_for_the_box_shows_its_start_and_the_tooltip_has_it_all(
    qtbot: QtBot, app_state: AppState, presentation: None
) -> None:
    # The panes side by side (at 1024 px they stack and the inputs get the whole width).
    tab = open_tab(qtbot, app_state, TAB_SIZES[1])
    assert not tab.splitter.is_stacked()
    combo = tab.inputs.accelerator
    line = combo.lineEdit()
    assert line is not None
    longest = max(accelerator_catalog().accelerators, key=lambda a: len(combo_label(a.id, tab)))
    combo.set_accelerator_id(longest.id)
    QApplication.processEvents()
    assert text_need(line) > text_room(line)  # really too long at this size
    assert line.cursorPosition() == 0  # the view starts at the name's start
    assert longest.name in combo.toolTip()
    # Picked by the user (signals on) it is the same.
    other = next(a for a in accelerator_catalog().accelerators if a.id != longest.id)
    combo.set_accelerator_id(other.id)
    combo.setCurrentIndex(combo.findData(longest.id))
    assert line.cursorPosition() == 0


def combo_label(acc_id: str, tab: CostTab) -> str:
    combo = tab.inputs.accelerator
    return combo.itemText(combo.findData(acc_id))


def test_a_wrong_price_is_marked_in_the_users_words(qtbot: QtBot, app_state: AppState) -> None:
    tab = CostTab(app_state, today=TODAY)
    qtbot.addWidget(tab)
    dialog = tab.open_add_dialog()
    spot = dialog.prices["spot"]
    spot.setText("-1")
    assert spot.property("invalid") is True
    assert "Spot price: must be a price in USD per GPU-hour above 0" in spot.toolTip()
    assert "spot:" not in spot.toolTip()
    assert dialog.shown_error().startswith("Spot price: ")
    # The prices left empty (not offered) are not marked.
    others = [edit for pricing, edit in dialog.prices.items() if pricing != "spot"]
    assert not any(edit.property("invalid") for edit in others)
    spot.setText("1.5")
    assert spot.property("invalid") is not True
    dialog.reject()


def test_fields_that_do_not_parse_are_named_in_the_users_words(
    qtbot: QtBot, app_state: AppState
) -> None:
    messages: list[str] = []
    app_state.status_message.connect(lambda text, _ms: messages.append(text))
    tab = CostTab(app_state, today=TODAY)
    qtbot.addWidget(tab)
    tab.inputs.server_price.setText("lots")
    tab.offers.spot_overhead.setText("-5")
    tab.recompute()
    marked = tab.marked_fields()
    price = marked[tab.inputs.server_price]
    assert price.startswith("Server price: 'lots' is not a number")
    assert marked[tab.offers.spot_overhead].startswith("Spot interruption overhead: ")
    # The field's own mark (tooltip) and the status bar say the same, without code names.
    assert "Server price: 'lots'" in tab.inputs.server_price.toolTip()
    assert any(m.startswith("Cost: cannot compare: Server price: ") for m in messages)
    shown = [*marked.values(), tab.inputs.server_price.toolTip(), *messages]
    assert not any("server_price" in text or "spot_overhead" in text for text in shown)
