"""Cloud prices for the chosen accelerator: a sortable, filterable table whose price cells are
ticked to compare them, stale prices marked, and the user's own offers (added in a small dialog).

Widgets only. The table model shows what the tab gives it (offers, compared prices, colours,
today's date) and reports a tick with ``compare_toggled(offer_id, pricing, checked)``; the tab
decides what is compared.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktopapp.model import units
from desktopapp.model.catalog import PRICING_MODELS, CloudOffer
from desktopapp.model.planning import (
    CUSTOM_OFFER_KIND,
    FRESH,
    KIND_LABELS,
    MAYBE_STALE,
    PRICING_LABELS,
    STALE,
    STALE_AFTER_MONTHS,
    OptionKey,
    PriceAge,
    make_custom_offer,
    price_age,
)
from desktopapp.ui.common.fields import percent_edit
from desktopapp.ui.common.quantity_edit import QuantityEdit
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.theme import COLORS, INNER_SPACING

SORT_ROLE = Qt.ItemDataRole.UserRole + 10
OFFER_ID_ROLE = Qt.ItemDataRole.UserRole + 11
STALE_ROLE = Qt.ItemDataRole.UserRole + 12

# (key, header); price columns use the catalog's pricing names as keys.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("provider", "Provider"),
    ("instance", "Instance"),
    ("gpus", "GPUs"),
    ("region", "Region"),
    ("on_demand", "On-demand"),
    ("committed_1yr", "1-yr"),
    ("committed_3yr", "3-yr"),
    ("spot", "Spot"),
    ("price_date", "Price date"),
    ("source", "Source"),
)
COLUMN_INDEX: Mapping[str, int] = {key: i for i, (key, _h) in enumerate(COLUMNS)}
PRICE_COLUMNS = frozenset(COLUMN_INDEX[p] for p in PRICING_MODELS)
ALL_KINDS = ""


def swatch_icon(hex_color: str, size: int = 10) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(hex_color))
    painter.drawRoundedRect(0, 0, size, size, 2, 2)
    painter.end()
    return QIcon(pixmap)


class OffersModel(QAbstractTableModel):
    """Rows are offers; price cells are checkable ("compare this price")."""

    compare_toggled = Signal(str, str, bool)

    def __init__(self, today: date | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self._offers: list[CloudOffer] = []
        self._ages: list[PriceAge] = []
        self._compared: set[OptionKey] = set()
        self._colors: dict[OptionKey, str] = {}
        self.today = today or date.today()

    # --- content ------------------------------------------------------------------------------
    def set_offers(self, offers: Sequence[CloudOffer]) -> None:
        self.beginResetModel()
        self._offers = list(offers)
        self._ages = [price_age(o.price_date, self.today) for o in self._offers]
        self.endResetModel()

    def set_compared(self, keys: Iterable[OptionKey], colors: Mapping[OptionKey, str]) -> None:
        keys = set(keys)
        if keys == self._compared and dict(colors) == self._colors:
            return
        self._compared = keys
        self._colors = dict(colors)
        if self._offers:
            first = self.index(0, min(PRICE_COLUMNS))
            last = self.index(len(self._offers) - 1, max(PRICE_COLUMNS))
            self.dataChanged.emit(first, last)

    def offers(self) -> list[CloudOffer]:
        return list(self._offers)

    def offer_at(self, row: int) -> CloudOffer:
        return self._offers[row]

    def age_at(self, row: int) -> PriceAge:
        return self._ages[row]

    def compared(self) -> set[OptionKey]:
        return set(self._compared)

    # --- Qt model -----------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._offers)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        key = COLUMNS[section][0]
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][1]
        if role == Qt.ItemDataRole.ToolTipRole:
            if key in PRICING_MODELS:
                return (
                    f"{PRICING_LABELS[key]} price in USD per GPU-hour. Tick a price to compare "
                    "it with owning."
                )
            if key == "price_date":
                return (
                    f"When the price was taken. ⚠ stale: more than {STALE_AFTER_MONTHS} months "
                    f"before today ({self.today.isoformat()})."
                )
        if role == Qt.ItemDataRole.TextAlignmentRole and (key in PRICING_MODELS or key == "gpus"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() in PRICE_COLUMNS and self._price(index) is not None:
            base |= Qt.ItemFlag.ItemIsUserCheckable
        return base

    def _price(self, index: QModelIndex | QPersistentModelIndex) -> float | None:
        offer = self._offers[index.row()]
        price = offer.price(COLUMNS[index.column()][0])
        return price if price is not None and price > 0 else None

    def _key(self, index: QModelIndex | QPersistentModelIndex) -> OptionKey:
        return (self._offers[index.row()].id, COLUMNS[index.column()][0])

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._offers):
            return None
        offer = self._offers[index.row()]
        age = self._ages[index.row()]
        key = COLUMNS[index.column()][0]
        is_price = key in PRICING_MODELS
        price = self._price(index) if is_price else None
        compared = is_price and self._key(index) in self._compared

        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(offer, age, key, price)
        if role == SORT_ROLE:
            return self._sort_value(offer, key, price)
        if role == OFFER_ID_ROLE:
            return offer.id
        if role == STALE_ROLE:
            return age.status
        if role == Qt.ItemDataRole.CheckStateRole and is_price and price is not None:
            return Qt.CheckState.Checked if compared else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            if compared:
                font.setBold(True)
            if not offer.rentable:
                font.setItalic(True)
            return font
        if role == Qt.ItemDataRole.ForegroundRole:
            if key == "price_date" and age.status in (STALE, MAYBE_STALE):
                return QBrush(QColor(COLORS["warn"]))
            if not offer.rentable or key == "source":
                return QBrush(QColor(COLORS["muted"]))
            return None
        if role == Qt.ItemDataRole.BackgroundRole:
            color = self._colors.get(self._key(index)) if compared else None
            if color:  # the price's colour in the plots, lightly: the table is the legend
                tint = QColor(color)
                tint.setAlpha(48)
                return QBrush(tint)
            if offer.kind == CUSTOM_OFFER_KIND:
                return QBrush(QColor(COLORS["accent_soft"]))
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and (is_price or key == "gpus"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(offer, age, key, price)
        return None

    def _display(self, offer: CloudOffer, age: PriceAge, key: str, price: float | None) -> str:
        if key in PRICING_MODELS:
            return "" if price is None else units.format_money(price)
        if key == "gpus":
            return f"{offer.gpus}"
        if key == "price_date":
            if age.status == STALE:
                return f"{offer.price_date} ⚠ stale"
            if age.status == MAYBE_STALE:
                return f"{offer.price_date} ⚠ maybe"
            return offer.price_date or units.DASH
        if key == "provider":
            return offer.provider
        text: str = getattr(offer, key)
        return text

    def _sort_value(self, offer: CloudOffer, key: str, price: float | None) -> Any:
        if key in PRICING_MODELS:
            return math.inf if price is None else price
        if key == "gpus":
            return float(offer.gpus)
        value: str = getattr(offer, key)
        return value.lower()

    def _tooltip(self, offer: CloudOffer, age: PriceAge, key: str, price: float | None) -> str:
        kind = KIND_LABELS.get(offer.kind, offer.kind)
        lines = [f"<b>{html.escape(offer.name)}</b> · {html.escape(offer.region or 'any region')}"]
        lines.append(f"{html.escape(kind)}, confidence {html.escape(offer.confidence)}")
        if not offer.rentable:
            lines.append("<i>Not rentable as listed (a market index or an assumed rate).</i>")
        if key in PRICING_MODELS and price is not None:
            lines.append(
                f"{PRICING_LABELS[key]}: <b>{units.format_money(price)}</b> per GPU-hour. "
                "Tick to compare it with owning."
            )
        if age.status != FRESH:
            lines.append(
                f"<span style='color:{COLORS['warn']}'>{html.escape(age.explanation)}</span>"
            )
        else:
            lines.append(html.escape(age.explanation))
        lines.append(f"Source: {html.escape(offer.source)}")
        if offer.notes:
            notes = offer.notes if len(offer.notes) <= 400 else offer.notes[:399] + "…"
            lines.append(f"<span style='color:{COLORS['muted']}'>{html.escape(notes)}</span>")
        return "<br>".join(lines)

    def setData(
        self, index: QModelIndex | QPersistentModelIndex, value: Any, role: int = 0
    ) -> bool:
        if role != Qt.ItemDataRole.CheckStateRole or not index.isValid():
            return False
        if index.column() not in PRICE_COLUMNS or self._price(index) is None:
            return False
        checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value)
        key = self._key(index)
        if checked == (key in self._compared):
            return False
        if checked:
            self._compared.add(key)
        else:
            self._compared.discard(key)
        self.dataChanged.emit(index, index)
        self.compare_toggled.emit(key[0], key[1], checked)
        return True


class OffersProxy(QSortFilterProxyModel):
    """Sorts by :data:`SORT_ROLE`; filters by text (any column) and provider kind."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setDynamicSortFilter(True)
        self._kind = ALL_KINDS
        self._words: list[str] = []

    def set_text(self, text: str) -> None:
        self.beginFilterChange()
        self._words = text.lower().split()
        self.endFilterChange()

    def set_kind(self, kind: str) -> None:
        self.beginFilterChange()
        self._kind = kind
        self.endFilterChange()

    def lessThan(
        self,
        left: QModelIndex | QPersistentModelIndex,
        right: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        """Prices an offer does not list sort last in either order."""
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        a_missing = isinstance(a, float) and math.isinf(a)
        b_missing = isinstance(b, float) and math.isinf(b)
        if a_missing != b_missing:
            descending = self.sortOrder() == Qt.SortOrder.DescendingOrder
            return a_missing if descending else b_missing
        return bool(super().lessThan(left, right))

    def filterAcceptsRow(
        self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex
    ) -> bool:
        model = self.sourceModel()
        if not isinstance(model, OffersModel):
            return True
        offer = model.offer_at(source_row)
        if self._kind and offer.kind != self._kind:
            return False
        if not self._words:
            return True
        haystack = " ".join(
            (
                offer.provider,
                offer.instance,
                offer.region,
                offer.source,
                offer.price_date,
                KIND_LABELS.get(offer.kind, offer.kind),
            )
        ).lower()
        return all(word in haystack for word in self._words)


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

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(COLUMN_INDEX["on_demand"], Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setStyleSheet(
            f"QTableView {{ border: 1px solid {COLORS['border']}; border-radius: 5px;"
            f" gridline-color: {COLORS['border']}; }}"
            f"QHeaderView::section {{ background: {COLORS['surface_alt']};"
            f" color: {COLORS['muted']}; border: none;"
            f" border-bottom: 1px solid {COLORS['border']}; padding: 4px 6px; font-weight: 600; }}"
        )
        self.table.setShowGrid(False)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        widths = {
            "provider": 84,
            "gpus": 52,
            "region": 84,
            "on_demand": 100,
            "committed_1yr": 74,
            "committed_3yr": 74,
            "spot": 74,
            "price_date": 138,
        }
        for key, width in widths.items():
            header.resizeSection(COLUMN_INDEX[key], width)
        # Instance and source share what is left; both elide, their tooltips say it all.
        for key in ("instance", "source"):
            header.setSectionResizeMode(COLUMN_INDEX[key], QHeaderView.ResizeMode.Stretch)
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.add(self.table)

        self.empty_label = QLabel()
        self.empty_label.setObjectName("Hint")
        self.empty_label.setWordWrap(True)
        self.add(self.empty_label)

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
        stale = sum(1 for row in range(len(offers)) if self.model.age_at(row).is_stale)
        self.count_label.setText(
            f"{len(offers)} offer{'' if len(offers) == 1 else 's'} · {accelerator_name}"
        )
        self.count_label.setToolTip(
            f"{stale} with a price older than {STALE_AFTER_MONTHS} months "
            f"(today is {self.model.today.isoformat()})"
        )
        if offers:
            self.empty_label.setText(
                "Tick the prices to compare with owning; each gets a colour in the plots. "
                f"⚠ marks prices older than {STALE_AFTER_MONTHS} months. Italic rows are market "
                "indexes or assumed rates, not rentable as listed."
            )
        else:
            self.empty_label.setText(
                f"No cloud offer for {accelerator_name} in the catalog. Add the quote you have "
                "with “Add your offer…”."
            )
        self._fit_height()
        self._refresh_remove()

    def set_compared(self, keys: Iterable[OptionKey], colors: Mapping[OptionKey, str]) -> None:
        self.model.set_compared(keys, colors)

    def _fit_height(self) -> None:
        rows = max(3, min(self.proxy.rowCount(), 16))
        header = self.table.horizontalHeader().sizeHint().height()
        self.table.setFixedHeight(
            header + rows * self.table.verticalHeader().defaultSectionSize() + 4
        )

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


class CustomOfferDialog(QDialog):
    """Type a quote: provider, instance, GPUs, region, any of the four prices, date, source.

    OK is enabled only when :func:`planning.make_custom_offer` accepts the fields; the reason
    is shown otherwise. :meth:`offer` gives the checked offer.
    """

    def __init__(
        self,
        accelerator_id: str,
        accelerator_name: str,
        existing_ids: Iterable[str],
        today: date | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Add a cloud offer for {accelerator_name}")
        self._accelerator_id = accelerator_id
        self._existing = set(existing_ids)
        self._offer: CloudOffer | None = None

        self.provider = QLineEdit()
        self.provider.setPlaceholderText("e.g. Your reseller")
        self.instance = QLineEdit()
        self.instance.setPlaceholderText("e.g. 8× H100 SXM node")
        self.gpus = QSpinBox()
        self.gpus.setRange(1, 1024)
        self.gpus.setValue(8)
        self.region = QLineEdit()
        self.region.setPlaceholderText("e.g. eu-west")
        self.prices: dict[str, QuantityEdit] = {}
        for pricing in PRICING_MODELS:
            edit = QuantityEdit(
                pricing,
                allow_empty=True,
                currency=True,
                placeholder="not offered",
                tooltip=f"{PRICING_LABELS[pricing]} price in USD per GPU-hour (empty: none)",
            )
            self.prices[pricing] = edit
        self.price_date = QLineEdit((today or date.today()).isoformat())
        self.price_date.setPlaceholderText("YYYY-MM-DD")
        self.source = QLineEdit("Quote")
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {COLORS['bad']};")

        form = QFormLayout()
        form.setHorizontalSpacing(12)
        form.setVerticalSpacing(INNER_SPACING)
        form.addRow("Provider", self.provider)
        form.addRow("Instance", self.instance)
        form.addRow("GPUs", self.gpus)
        form.addRow("Region", self.region)
        for pricing, edit in self.prices.items():
            form.addRow(f"{PRICING_LABELS[pricing]} $/GPU-h", edit)
        form.addRow("Price date", self.price_date)
        form.addRow("Source", self.source)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Add offer")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 14)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(420)

        # The problem is shown only once the user has typed something: an empty form is not
        # an error yet (Add offer stays disabled until the offer is complete).
        self._touched = False
        self._problem = ""
        for line in (self.provider, self.instance, self.region, self.price_date, self.source):
            line.textChanged.connect(self._on_edit)
        for edit in self.prices.values():
            edit.textChanged.connect(self._on_edit)
        self.gpus.valueChanged.connect(self._on_edit)
        self._validate()

    def offer(self) -> CloudOffer | None:
        return self._offer

    def error(self) -> str:
        """What stops the offer from being added (also before it is shown)."""
        return self._problem

    def shown_error(self) -> str:
        return self.error_label.text()

    def _on_edit(self, *_args: object) -> None:
        self._touched = True
        self._validate()

    def _validate(self) -> None:
        problem = ""
        prices: dict[str, float | None] = {}
        for pricing, edit in self.prices.items():
            if edit.is_empty():
                prices[pricing] = None  # not offered
                continue
            if edit.error() is not None:
                problem = edit.error() or ""
                break
            prices[pricing] = edit.value()
        offer: CloudOffer | None = None
        if not problem:
            try:
                offer = make_custom_offer(
                    self._accelerator_id,
                    self.provider.text(),
                    self.instance.text(),
                    self.gpus.value(),
                    self.region.text(),
                    prices,
                    self.price_date.text(),
                    self.source.text(),
                    self._existing,
                )
            except ValueError as exc:
                problem = str(exc).splitlines()[0]
        self._offer = offer
        self._problem = problem
        self.error_label.setText(problem if self._touched else "")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(offer is not None)

    def accept(self) -> None:
        if self._offer is None:
            return
        super().accept()
