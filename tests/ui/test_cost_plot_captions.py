"""The Cost tab's cumulative plot: the "pays back in month N" caption sits clear of the lines
that cross there and inside the plot (the caption used to sit below and to the left of the
crossing, where owning's rising line ran through its words)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktopapp.ui.common import theme

MONTHS = np.arange(49.0)
OWNING = 720e3 + 8.3e3 * MONTHS  # capex up front, then running costs


def _payback_month(rent: np.ndarray) -> int:
    return int(np.argmax(rent >= OWNING))


def _shown_panel(qtbot: QtBot, qapp: QApplication) -> Any:
    """The Cost tab's plots panel, light theme, shown at a fixed size."""
    from desktopapp.ui.cost.plots import PlotsPanel

    theme.apply_theme(qapp, "light", 1.0)
    panel = PlotsPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 460)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def _captions(panel: Any) -> list[tuple[str, Any]]:
    """(text, rectangle in data coordinates) of every caption on the cumulative plot."""
    out = []
    for item in panel.cumulative_plot.getPlotItem().items:
        text_item = getattr(item, "textItem", None)
        if text_item is not None and text_item.toPlainText().strip():
            out.append((text_item.toPlainText(), item.mapRectToView(item.boundingRect())))
    return out


def _crosses(rect: Any, xs: np.ndarray, ys: np.ndarray) -> bool:
    """Whether the polyline (xs, ys) passes through ``rect``."""
    low, high = sorted((rect.top(), rect.bottom()))
    inside = (xs >= rect.left()) & (xs <= rect.right())
    samples = np.linspace(rect.left(), rect.right(), 50)
    line = np.interp(samples, xs, ys)
    return bool(np.any((line >= low) & (line <= high))) or bool(
        np.any((ys[inside] >= low) & (ys[inside] <= high))
    )


@pytest.mark.parametrize(
    "monthly_rent",
    [
        pytest.param(27e3, id="late-payback"),  # month 39 of 48
        pytest.param(140e3, id="early-payback"),  # month 6 of 48
    ],
)
def test_payback_caption_keeps_clear_of_the_lines_and_inside_the_plot(
    qtbot: QtBot, qapp: QApplication, monthly_rent: float
) -> None:
    panel = _shown_panel(qtbot, qapp)
    rent = monthly_rent * MONTHS
    month = _payback_month(rent)
    panel.set_cumulative(MONTHS, OWNING, [("Cloud A", "#E0812E", rent, month)])
    for _ in range(3):
        QApplication.processEvents()
    captions = _captions(panel)
    assert [text for text, _rect in captions] == [f"pays back in month {month}\nagainst Cloud A"]
    rect = captions[0][1]
    assert not _crosses(rect, MONTHS, OWNING), "the caption covers owning's line"
    assert not _crosses(rect, MONTHS, rent), "the caption covers the cloud's line"
    (x_low, x_high), (y_low, y_high) = panel.cumulative_plot.getPlotItem().viewRange()
    assert x_low <= rect.left() and rect.right() <= x_high, "the caption is cut at a side"
    assert y_low <= min(rect.top(), rect.bottom()) and max(rect.top(), rect.bottom()) <= y_high


def test_break_even_captions_keep_clear_of_owning_curve(qtbot: QtBot, qapp: QApplication) -> None:
    """Owning's cost per useful hour falls with utilization; a caption below and to the right
    of its crossing with a flat price sat on the curve ("37%" over the white line)."""
    panel = _shown_panel(qtbot, qapp)
    u = np.linspace(0.05, 1.0, 96)
    owning = 1.99 / u
    prices = [("GCP", "#E0812E", 5.4), ("RunPod", "#2F6FDE", 2.69), ("Lambda", "#1B9E77", 3.9)]
    options = [(label, color, price, 1.99 / price) for label, color, price in prices]
    panel.set_curves(u, owning, 0.5, 1.99 / 0.5, options, None, None)
    for _ in range(3):
        QApplication.processEvents()
    captions = [
        (item.textItem.toPlainText(), item.mapRectToView(item.boundingRect()))
        for item in panel.curve_plot.getPlotItem().items
        if getattr(item, "textItem", None) is not None
        and item.textItem.toPlainText().strip().endswith("%")
    ]
    assert len(captions) == 3
    covered = [text for text, rect in captions if _crosses(rect, u * 100.0, owning)]
    assert not covered, f"captions on owning's curve: {covered}"


def test_every_payback_caption_stays_inside_the_plot(qtbot: QtBot, qapp: QApplication) -> None:
    """Three paybacks, the last at month 46 of 48: its short caption went below and to the
    right of its dot and was cut at the plot's right edge. Only the first caption is worded,
    and it names the price it pays back against."""
    panel = _shown_panel(qtbot, qapp)
    options = []
    for label, color, monthly in [
        ("GCP · On-demand", "#E0812E", 60e3),
        ("RunPod · On-demand", "#2F6FDE", 35e3),
        ("Lambda · 1-yr commit", "#1B9E77", 24e3),
    ]:
        rent = monthly * MONTHS
        options.append((label, color, rent, _payback_month(rent)))
    assert [o[3] for o in options] == [14, 27, 46]
    panel.set_cumulative(MONTHS, OWNING, options)
    for _ in range(3):
        QApplication.processEvents()
    captions = _captions(panel)
    assert [text for text, _rect in captions] == [
        "pays back in month 14\nagainst GCP · On-demand",
        "m27",
        "m46",
    ]
    (x_low, x_high), _ = panel.cumulative_plot.getPlotItem().viewRange()
    for text, rect in captions:
        assert x_low <= rect.left() and rect.right() <= x_high, f"{text!r} is cut at a side"


def test_a_long_price_name_at_presentation_size_stays_inside(
    qtbot: QtBot, qapp: QApplication
) -> None:
    """At the presentation font a worded caption naming a long offer ran past the plot's right
    edge, and on the left it would run past the left: it takes its narrower form (the pricing
    on its own line) on the side with more room."""
    from desktopapp.ui.cost.plots import PlotsPanel

    theme.apply_theme(qapp, "dark", 1.35)
    try:
        panel = PlotsPanel()
        qtbot.addWidget(panel)
        panel.resize(1000, 520)
        panel.show()
        qtbot.waitExposed(panel)
        rent = 60e3 * MONTHS
        month = _payback_month(rent)
        label = "GCP a3-highgpu-8g · On-demand"
        panel.set_cumulative(MONTHS, OWNING, [(label, "#E0812E", rent, month)])
        for _ in range(3):
            QApplication.processEvents()
        captions = _captions(panel)
        (x_low, x_high), _ = panel.cumulative_plot.getPlotItem().viewRange()
        for text, rect in captions:
            assert x_low <= rect.left() and rect.right() <= x_high, f"{text!r} is cut"
        assert "GCP a3-highgpu-8g" in captions[0][0] and "On-demand" in captions[0][0]
    finally:
        theme.apply_theme(qapp, "light", 1.0)


def test_in_a_plot_too_narrow_for_any_side_the_caption_slides_inside(
    qtbot: QtBot, qapp: QApplication
) -> None:
    """A crossing mid-plot in a narrow window at the presentation font: neither side of the
    dot has room even for the narrow form, so the caption slides inside rather than being cut;
    a wider window puts it back beside its dot (it is placed again on every resize)."""
    from desktopapp.ui.cost.plots import PlotsPanel

    theme.apply_theme(qapp, "dark", 1.35)
    try:
        panel = PlotsPanel()
        qtbot.addWidget(panel)
        panel.resize(300, 1100)  # the plots stack, each as wide as the panel
        panel.show()
        qtbot.waitExposed(panel)
        rent = 38.3e3 * MONTHS
        month = _payback_month(rent)
        assert month == 24
        label = "GCP a3-highgpu-8g · On-demand"
        panel.set_cumulative(MONTHS, OWNING, [(label, "#E0812E", rent, month)])
        for _ in range(3):
            QApplication.processEvents()
        (x_low, x_high), _ = panel.cumulative_plot.getPlotItem().viewRange()
        ((text, rect),) = _captions(panel)
        assert x_low - 1e-6 <= rect.left() and rect.right() <= x_high + 1e-6, text
        assert text.count("\n") == 2  # the narrow form

        def at_its_dot() -> bool:  # the caption's anchor point is the crossing itself
            items = [
                item
                for item in panel.cumulative_plot.getPlotItem().items
                if getattr(item, "textItem", None) is not None
                and item.textItem.toPlainText().strip()
            ]
            return abs(items[0].pos().x() - month) < 1e-9

        assert not at_its_dot()  # slid inside
        panel.resize(1600, 1100)
        qtbot.waitUntil(at_its_dot, timeout=3000)
    finally:
        theme.apply_theme(qapp, "light", 1.0)
