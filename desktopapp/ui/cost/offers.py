"""Cloud prices for the chosen accelerator: a sortable, filterable table whose price cells are
ticked to compare them, stale prices marked, and the user's own offers (added in a small dialog,
:mod:`.offer_dialog`).

Widgets only. The table's models are :mod:`.offers_model`; its texts and rules are
:mod:`desktopapp.application.cost_offers`. A tick is reported with
``model.compare_toggled(offer_id, pricing, checked)``; the tab decides what is compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QTableView,
    QWidget,
)

from desktopapp.application.cost_offers import offers_summary
from desktopapp.model.catalog import CloudOffer
from desktopapp.model.planning import CUSTOM_OFFER_KIND, KIND_LABELS, OptionKey
from desktopapp.ui.common.fields import percent_edit
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.table_fit import fit_columns, shown_rows_height
from desktopapp.ui.common.theme import COLORS, INNER_SPACING
from desktopapp.ui.cost.offers_model import (
    ALL_KINDS,
    COLUMN_INDEX,
    OffersModel,
    OffersProxy,
)


def _field_label(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("FieldLabel")
    return label


class OffersPanel(Section):
    """The cloud-prices table with its filter row, custom-offer buttons and spot overhead."""

    add_requested = Signal()
    remove_requested = Signal(str)
    reset_requested = Signal()
    spot_overhead_edited = Signal()

    def __init__(self, today: date | None = None, parent: QWidget | None = None) -> None:
        super().__init__("Cloud prices", parent=parent)
        self.model = OffersModel(today)
        self.proxy = OffersProxy(self)
        self.proxy.setSourceModel(self.model)

        self.count_label = QLabel()
        self.count_label.setObjectName("Badge")
        self.add_header_widget(self.count_label)
        self._build_bars()
        self._build_table()
        self.empty_label = QLabel()
        self.empty_label.setObjectName("Hint")
        self.empty_label.setWordWrap(True)
        self.add(self.empty_label)
        self._build_spot_row()
        self._connect()

    def _build_bars(self) -> None:
        """The filter row and, under it, the comparison and custom-offer buttons."""
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter: provider, instance, region …")
        self.filter_edit.setClearButtonEnabled(True)
        self.kind_combo = QComboBox()
        self.kind_combo.addItem("All providers", ALL_KINDS)
        for kind, label in KIND_LABELS.items():
            self.kind_combo.addItem(label, kind)
        self.add_button = QPushButton("Add your offer…")
        self.add_button.setToolTip(
            "Add a quote you have (per GPU-hour prices); it is kept in the plan"
        )
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected offer you added")
        self.remove_button.setEnabled(False)
        self.reset_button = QPushButton("Default comparison")
        self.reset_button.setObjectName("LinkButton")
        self.reset_button.setToolTip(
            "Compare the cheapest rentable price of each kind: hyperscaler, neocloud and "
            "marketplace, on-demand, committed and spot"
        )
        # Filters on one row, actions on the next: one row is wider than the results column in
        # presentation mode (issue 16: no sideways scrolling from 1280 px).
        bar = QHBoxLayout()
        bar.setSpacing(INNER_SPACING)
        bar.addWidget(self.filter_edit, 3)
        bar.addWidget(self.kind_combo, 1)
        self.add(bar)
        actions = QHBoxLayout()
        actions.setSpacing(INNER_SPACING)
        actions.addWidget(self.reset_button)
        actions.addStretch(1)
        actions.addWidget(self.add_button)
        actions.addWidget(self.remove_button)
        for button in (self.reset_button, self.add_button, self.remove_button):
            button.setMinimumWidth(button.sizeHint().width())
        self.add(actions)

    def _build_table(self) -> None:
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(COLUMN_INDEX["on_demand"], Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        self.table.setStyleSheet(
            f"QTableView {{ border: 1px solid {COLORS['border']}; border-radius: 5px;"
            f" gridline-color: {COLORS['border']}; }}"
            f"QHeaderView::section {{ background: {COLORS['surface_alt']};"
            f" color: {COLORS['muted']}; border: none;"
            f" border-bottom: 1px solid {COLORS['border']}; padding: 4px 6px; font-weight: 600; }}"
        )
        self.table.setShowGrid(False)
        self.table.horizontalHeader().setHighlightSections(False)
        # Prices, GPU counts and dates sized to their contents at any font; names wrap; where
        # even that does not fit (presentation mode, a narrow window) the source, the region,
        # then the committed and spot prices fold away: every cell's tooltip lists them all.
        # Fixed widths read "Provide", "nstance" and "$1…" in presentation mode.
        fit_columns(
            self.table,
            wrap=tuple(
                COLUMN_INDEX[k] for k in ("provider", "instance", "region", "price_date", "source")
            ),
            fold=tuple(
                COLUMN_INDEX[k]
                for k in ("source", "region", "committed_3yr", "spot", "committed_1yr")
            ),
            fitted=self._fit_height,
        )
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.add(self.table)

    def _build_spot_row(self) -> None:
        self.spot_overhead = percent_edit(
            "spot_overhead",
            "e.g. 10",
            "Extra GPU-hours a spot job needs: work redone after an interruption plus time spent "
            "writing checkpoints and restarting, as a % of the useful hours.",
        )
        self.spot_overhead.setMaximumWidth(80)
        self.spot_note = QLabel()
        self.spot_note.setObjectName("Hint")
        self.spot_note.setWordWrap(True)
        spot_row = QHBoxLayout()
        spot_row.setSpacing(6)
        spot_row.addWidget(_field_label("Spot interruption overhead"))
        spot_row.addWidget(self.spot_overhead)
        spot_row.addWidget(_field_label("% extra GPU-hours"))
        spot_row.addSpacing(10)
        spot_row.addWidget(self.spot_note, 1)
        self.add(spot_row)

    def _connect(self) -> None:
        self.filter_edit.textChanged.connect(self._on_filter)
        self.kind_combo.currentIndexChanged.connect(self._on_kind)
        self.add_button.clicked.connect(self.add_requested)
        self.remove_button.clicked.connect(self._on_remove)
        self.reset_button.clicked.connect(self.reset_requested)
        self.spot_overhead.textEdited.connect(lambda _t: self.spot_overhead_edited.emit())
        selection = self.table.selectionModel()
        selection.selectionChanged.connect(lambda *_a: self._refresh_remove())
        self.proxy.modelReset.connect(self._refresh_remove)

    # --- content --------------------------------------------------------------------------
    def set_offers(self, offers: Sequence[CloudOffer], accelerator_name: str) -> None:
        self.model.set_offers(offers)
        summary = offers_summary(offers, self.model.ages(), accelerator_name, self.model.today)
        self.count_label.setText(summary.count)
        self.count_label.setToolTip(summary.count_tooltip)
        self.empty_label.setText(summary.hint)
        self._fit_height()
        self._refresh_remove()

    def set_compared(self, keys: Iterable[OptionKey], colors: Mapping[OptionKey, str]) -> None:
        self.model.set_compared(keys, colors)

    def _fit_height(self) -> None:
        """At most 16 rows shown (the rest scroll), room for 3 when fewer are listed."""
        shown = min(self.proxy.rowCount(), 16)
        spare = max(0, 3 - shown) * self.table.verticalHeader().defaultSectionSize()
        self.table.setFixedHeight(shown_rows_height(self.table, 16) + spare)

    def selected_offer(self) -> CloudOffer | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        source = self.proxy.mapToSource(rows[0])
        return self.model.offer_at(source.row())

    def _refresh_remove(self) -> None:
        offer = self.selected_offer()
        self.remove_button.setEnabled(offer is not None and offer.kind == CUSTOM_OFFER_KIND)

    def _on_remove(self) -> None:
        offer = self.selected_offer()
        if offer is not None and offer.kind == CUSTOM_OFFER_KIND:
            self.remove_requested.emit(offer.id)

    def _on_filter(self, text: str) -> None:
        self.proxy.set_text(text)
        self._fit_height()

    def _on_kind(self, _index: int) -> None:
        self.proxy.set_kind(str(self.kind_combo.currentData() or ""))
        self._fit_height()
