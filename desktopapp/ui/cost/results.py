"""The Cost tab's result panels. They display what the tab computed with the model layer
(:mod:`desktopapp.model.planning` → :mod:`desktopapp.model.tco`); texts come from
:mod:`desktopapp.application.cost`; nothing here computes a cost. The plots are
:mod:`.plots` (``PlotsPanel`` is importable from here too)."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.cost import OWNING_COLOR
from desktopapp.model.assumptions import Assumption
from desktopapp.model.units import DASH
from desktopapp.ui.common.band_slider import BandSlider
from desktopapp.ui.common.layouts import flow_grid
from desktopapp.ui.common.result_card import ResultCard
from desktopapp.ui.common.scaled_sheet import follow_scale, scaled_pt
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.table_fit import fit_columns, shown_rows_height
from desktopapp.ui.common.theme import (
    BASE_POINT_SIZE,
    COLORS,
    INNER_SPACING,
    themed,
)
from desktopapp.ui.cost.offers_model import swatch_icon
from desktopapp.ui.cost.plots import PlotsPanel, swatch

__all__ = [
    "AssumptionsPanel",
    "ComparisonPanel",
    "HeadlinePanel",
    "HybridPanel",
    "IdlePanel",
    "PlotsPanel",
]

# --- headline -------------------------------------------------------------------------------------
RECOMMENDATION_SIZE = 1.25  # the recommendation's text against body text


class HeadlinePanel(Section):
    """The utilization slider, a one-paragraph verdict and four headline cards."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Rent or buy?", parent=parent)
        # The one recommendation for the demand (model.planning.Verdict), first and largest.
        self.recommendation = QLabel()
        self.recommendation.setObjectName("Recommendation")
        self.recommendation.setWordWrap(True)
        self.recommendation.setTextFormat(Qt.TextFormat.RichText)
        self.recommendation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        follow_scale(  # a quarter larger than body text, in presentation mode too
            self.recommendation,
            lambda: (
                f"background: {COLORS['accent_soft']}; border: 1px solid {COLORS['border']};"
                f" border-radius: 6px; padding: 10px 12px; color: {COLORS['text']};"
                f" font-size: {scaled_pt(BASE_POINT_SIZE * RECOMMENDATION_SIZE)};"
            ),
        )
        self.add(self.recommendation)
        self.utilization = BandSlider(5, 100, None)
        self.utilization.setToolTip(
            "The share of hours your own GPUs do useful work. Owning is paid every hour; a cloud "
            "GPU only for the hours you use it."
        )
        self.utilization.setMinimumWidth(220)
        caption = QLabel("Owned GPUs busy at most")
        caption.setWordWrap(True)
        caption.setMinimumWidth(caption.fontMetrics().horizontalAdvance("Owned GPUs") + 8)
        caption.setObjectName("FieldLabel")
        self.utilization_note = QLabel()
        self.utilization_note.setObjectName("Hint")
        self.utilization_note.setWordWrap(True)
        slider_row = QHBoxLayout()
        slider_row.setSpacing(12)
        slider_row.addWidget(caption, 0, Qt.AlignmentFlag.AlignTop)
        slider_row.addWidget(self.utilization, 3)
        slider_row.addWidget(self.utilization_note, 2)
        self.add(slider_row)

        self.verdict = QLabel()
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.verdict.setStyleSheet(
            f"background: {COLORS['surface_alt']}; border: 1px solid {COLORS['border']};"
            f" border-radius: 6px; padding: 8px 10px; color: {COLORS['text']};"
        )
        self.add(self.verdict)

        self.owning_card = ResultCard("Owning · per useful hour")
        self.cloud_card = ResultCard("Cheapest cloud")
        self.break_even_card = ResultCard("Owning pays off above")
        self.total_card = ResultCard("Owning · whole horizon")
        self.cards = (self.owning_card, self.cloud_card, self.break_even_card, self.total_card)
        self.add(flow_grid(self.cards))

    def clear(self, reason: str) -> None:
        self.recommendation.setText("")
        self.recommendation.setVisible(False)
        for card in self.cards:
            card.clear(reason)
        self.verdict.setText(
            f"<span style='color:{COLORS['bad']}'>{html.escape(reason)}</span>" if reason else ""
        )


# --- comparison table -------------------------------------------------------------------------

# Two-line titles where a column's figures are much narrower than its name: the names and
# verdicts, which wrap, get the width.
TABLE_COLUMNS: tuple[str, ...] = (
    "Option",
    "Per useful\nGPU-hour",
    "Break-\neven",
    "Per\nmonth",
    "Horizon",
    "Payback",
    "Cheaper",
)


class ComparisonPanel(Section):
    """Owning and every compared price, one row each: per useful GPU-hour at the chosen
    utilization, break-even, monthly and horizon totals for the demand, payback."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Every price against owning", parent=parent)
        self.table = QTableWidget(0, len(TABLE_COLUMNS))
        self.table.setHorizontalHeaderLabels(list(TABLE_COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(27)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setStyleSheet(
            f"QTableWidget {{ border: 1px solid {COLORS['border']}; border-radius: 5px; }}"
            f"QHeaderView::section {{ background: {COLORS['surface_alt']};"
            f" color: {COLORS['muted']}; border: none;"
            f" border-bottom: 1px solid {COLORS['border']}; padding: 4px 6px; font-weight: 600; }}"
        )
        self.table.horizontalHeader().setHighlightSections(False)
        # Figures sized to their contents at any font; the option's name, the break-even, the
        # payback and the verdict wrap (in presentation mode they read "Own …", "Vast.…").
        # In a narrow window the monthly figure folds first (each row's tooltip gives its
        # formula), then the payback month (the cost plot's caption gives the chosen one's).
        self._refit = fit_columns(
            self.table, wrap=(0, 2, 5, 6), fold=(3, 5), fitted=self._fit_height
        )
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.add(self.table)
        self.note = QLabel()
        self.note.setObjectName("Hint")
        self.note.setWordWrap(True)
        self.add(self.note)

    def set_horizon(self, months: int) -> None:
        self.table.setHorizontalHeaderItem(4, QTableWidgetItem(f"{months}\nmonths"))

    def set_rows(
        self, rows: Sequence[Sequence[tuple[str, str, str | None]]], colors: Sequence[str]
    ) -> None:
        """``rows``: per row, per column (text, tooltip, text colour or None); ``colors``: the
        swatch of each row's option."""
        self.table.setRowCount(len(rows))
        bold = QFont()
        bold.setBold(True)
        for r, row in enumerate(rows):
            for c, (text, tip, tone) in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(tip)
                if c > 0:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if tone:
                    item.setForeground(QColor(tone))
                    item.setFont(bold)
                if c == 0:
                    item.setIcon(swatch_icon(themed(colors[r]), 11))
                    if r == 0:
                        item.setFont(bold)
                self.table.setItem(r, c, item)
        self._refit()  # fits the columns, then the height

    def _fit_height(self) -> None:
        """Every row shown (rows grow where a name or verdict wraps); one empty row's height
        when there are none."""
        empty = 0 if self.table.rowCount() else self.table.verticalHeader().defaultSectionSize()
        self.table.setFixedHeight(shown_rows_height(self.table) + empty)

    def cell_text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return "" if item is None else item.text()

    def clear(self, reason: str) -> None:
        self.table.setRowCount(0)
        self._fit_height()
        self.note.setText(reason)


# --- hybrid and idle ----------------------------------------------------------------------------


HYBRID_NOTE = (
    "Owned GPUs take work whenever there is demand, so the hybrid can own fewer GPUs "
    "than the fleet above, which is sized at your utilization."
)


class HybridPanel(Section):
    """The best hybrid plan: own K GPUs, rent the rest of the monthly profile."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Best hybrid: own the base, rent the peaks", parent=parent)
        self.option_combo = QComboBox()
        self.option_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.option_combo.setMinimumContentsLength(18)
        self.option_combo.setToolTip("The cloud price that serves what the owned GPUs cannot")
        self.add_row("Rent the rest on", self.option_combo)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.add(self.summary)
        self.saving_card = ResultCard("Hybrid saving vs the cheaper alternative")
        self.add(self.saving_card)
        self.note = QLabel(HYBRID_NOTE)
        self.note.setTextFormat(Qt.TextFormat.RichText)
        self.note.setObjectName("Hint")
        self.note.setWordWrap(True)
        self.add(self.note)

        from desktopapp.ui.common import plots

        self._pg = plots.pg()
        self.plot = plots.make_plot("", "month", "GPU-h")
        self.plot.setFixedHeight(150)
        self.plot.getPlotItem().setTitle(None)
        self.owned_bars: Any = None
        self.rented_bars: Any = None
        self.add(self.plot)

    def set_bars(self, owned: Any, rented: Any, rented_color: str) -> None:
        import numpy as np

        pg = self._pg
        for bars in (self.owned_bars, self.rented_bars):
            if bars is not None:
                self.plot.removeItem(bars)
        x = np.arange(1, len(owned) + 1, dtype=float)
        owned_arr = np.asarray(owned, dtype=float)
        rented_arr = np.asarray(rented, dtype=float)
        self.owned_bars = pg.BarGraphItem(
            x=x,
            height=owned_arr,
            width=0.75,
            brush=pg.mkBrush(QColor(themed(OWNING_COLOR))),
            pen=None,
        )
        rented_fill = QColor(themed(rented_color))
        self.rented_bars = pg.BarGraphItem(
            x=x,
            y0=owned_arr,
            height=rented_arr,
            width=0.75,
            brush=pg.mkBrush(rented_fill),
            pen=None,
        )
        self.plot.addItem(self.owned_bars)
        self.plot.addItem(self.rented_bars)
        # The key names the colours as drawn in the active theme (owning is light in dark).
        self.note.setText(
            f"{HYBRID_NOTE} {swatch(themed(OWNING_COLOR))}&nbsp;served by owned GPUs; "
            f"{swatch(themed(rented_color))}&nbsp;rented."
        )
        top = float(np.max(owned_arr + rented_arr)) if len(x) else 1.0
        self.plot.setYRange(0, top * 1.1 if top > 0 else 1.0, padding=0.0)
        self.plot.setXRange(0.3, len(x) + 0.7, padding=0.0)

    def clear(self, reason: str) -> None:
        self.summary.setText(f"<span style='color:{COLORS['muted']}'>{html.escape(reason)}</span>")
        self.saving_card.clear(reason)
        for bars in (self.owned_bars, self.rented_bars):
            if bars is not None:
                self.plot.removeItem(bars)
        self.owned_bars = self.rented_bars = None
        self.plot.getPlotItem().setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.note.setText(HYBRID_NOTE)


class IdlePanel(QFrame):
    """A warning: what idle GPUs cost, rented and owned, for the prices being compared."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("IdleWarning")
        self.setStyleSheet(
            f"QFrame#IdleWarning {{ background: {COLORS['warn_soft']};"
            f" border: 1px solid {COLORS['warn']}; border-radius: 8px; }}"
        )
        self.title = QLabel("⚠  Idle GPUs still cost money")
        self.title.setStyleSheet(f"font-weight: 700; color: {COLORS['warn']};")
        self.rented = QLabel()
        self.owned = QLabel()
        for label in (self.rented, self.owned):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            label.setStyleSheet(f"color: {COLORS['text']};")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 12, 14, 12)
        layout.setSpacing(INNER_SPACING)
        layout.addWidget(self.title)
        layout.addWidget(self.rented)
        layout.addWidget(self.owned)
        layout.addStretch(1)

    def clear(self, reason: str) -> None:
        self.rented.setText(html.escape(reason) if reason else DASH)
        self.owned.setText("")


class AssumptionsPanel(Section):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(
            "Assumptions",
            "Every default and figure the comparison relies on. Hover a result for its formula.",
            parent=parent,
        )
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.add(self.text)
        self.names: list[str] = []

    def set_assumptions(self, assumptions: Sequence[Assumption]) -> None:
        self.names = [a.name for a in assumptions]
        muted = COLORS["muted"]
        rows = "".join(
            "<tr>"
            f"<td style='padding:3px 12px 3px 0; color:{muted}' width='24%'>"
            f"{html.escape(a.name)}</td><td style='padding:3px 0'><b>{html.escape(a.value)}</b>"
            + (
                f"<br><span style='color:{muted}; font-size:small'>{html.escape(a.source)}</span>"
                if a.source
                else ""
            )
            + "</td></tr>"
            for a in assumptions
        )
        self.text.setText(f"<table width='100%' cellspacing='0'>{rows}</table>" if rows else DASH)
