"""The cloud-price table's Qt models: :class:`OffersModel` (rows are offers; price cells are
checkable, "compare this price") and :class:`OffersProxy` (sort and filter).

They show what the tab gives them (offers, compared prices, colours, today's date); the texts,
sort values and the filter rule are :mod:`desktopapp.application.cost_offers`. A tick is
reported with ``compare_toggled(offer_id, pricing, checked)``; the tab decides what is compared.
"""

from __future__ import annotations

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

from desktopapp.application.cost_offers import (
    ALL_KINDS,
    COLUMN_INDEX,
    COLUMNS,
    RIGHT_ALIGNED,
    cell_text,
    cell_tooltip,
    filter_words,
    header_tooltip,
    listed_price,
    missing_sorts_last,
    offer_matches,
    sort_value,
)
from desktopapp.model.catalog import PRICING_MODELS, CloudOffer
from desktopapp.model.planning import CUSTOM_OFFER_KIND, OptionKey
from desktopapp.model.price_age import MAYBE_STALE, STALE, PriceAge, price_age
from desktopapp.ui.common.table_fit import soft_breaks
from desktopapp.ui.common.theme import COLORS

__all__ = [
    "ALL_KINDS",
    "COLUMNS",
    "COLUMN_INDEX",
    "OFFER_ID_ROLE",
    "PRICE_COLUMNS",
    "SORT_ROLE",
    "STALE_ROLE",
    "OffersModel",
    "OffersProxy",
    "swatch_icon",
]

SORT_ROLE = Qt.ItemDataRole.UserRole + 10
OFFER_ID_ROLE = Qt.ItemDataRole.UserRole + 11
STALE_ROLE = Qt.ItemDataRole.UserRole + 12
PRICE_COLUMNS = frozenset(COLUMN_INDEX[p] for p in PRICING_MODELS)
# Titles much wider than their figures take two lines (the names get the width)
_TWO_LINE_HEADERS = {"on_demand": "On-\ndemand", "price_date": "Price\ndate"}
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


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

    def ages(self) -> list[PriceAge]:
        return list(self._ages)

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
        key, header = COLUMNS[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return _TWO_LINE_HEADERS.get(key, header)
        if role == Qt.ItemDataRole.ToolTipRole:
            return header_tooltip(key, self.today)
        if role == Qt.ItemDataRole.TextAlignmentRole and key in RIGHT_ALIGNED:
            return _RIGHT
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() in PRICE_COLUMNS and self._price(index) is not None:
            base |= Qt.ItemFlag.ItemIsUserCheckable
        return base

    def _price(self, index: QModelIndex | QPersistentModelIndex) -> float | None:
        return listed_price(self._offers[index.row()], COLUMNS[index.column()][0])

    def _key(self, index: QModelIndex | QPersistentModelIndex) -> OptionKey:
        return (self._offers[index.row()].id, COLUMNS[index.column()][0])

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._offers):
            return None
        offer = self._offers[index.row()]
        age = self._ages[index.row()]
        key = COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            text = cell_text(offer, age, key)
            return soft_breaks(text) if key == "instance" else text
        if role == SORT_ROLE:
            return sort_value(offer, key)
        if role == OFFER_ID_ROLE:
            return offer.id
        if role == STALE_ROLE:
            return age.status
        if role == Qt.ItemDataRole.ToolTipRole:
            return cell_tooltip(offer, age, key, COLORS)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if key in RIGHT_ALIGNED else None
        return self._style(index, offer, age, key, role)

    def _style(
        self,
        index: QModelIndex | QPersistentModelIndex,
        offer: CloudOffer,
        age: PriceAge,
        key: str,
        role: int,
    ) -> Any:
        """Check state, font, colours: compared prices ticked, bold and tinted with their
        colour in the plots (the table is the legend); stale dates in the warning colour."""
        listed = key in PRICING_MODELS and self._price(index) is not None
        compared = listed and self._key(index) in self._compared
        if role == Qt.ItemDataRole.CheckStateRole and listed:
            return Qt.CheckState.Checked if compared else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.FontRole:
            font = QFont()
            font.setBold(compared)
            font.setItalic(not offer.rentable)
            return font
        if role == Qt.ItemDataRole.ForegroundRole:
            if key == "price_date" and age.status in (STALE, MAYBE_STALE):
                return QBrush(QColor(COLORS["warn"]))
            if not offer.rentable or key == "source":
                return QBrush(QColor(COLORS["muted"]))
            return None
        if role == Qt.ItemDataRole.BackgroundRole:
            color = self._colors.get(self._key(index)) if compared else None
            if color:
                tint = QColor(color)
                tint.setAlpha(48)
                return QBrush(tint)
            if offer.kind == CUSTOM_OFFER_KIND:
                return QBrush(QColor(COLORS["accent_soft"]))
        return None

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
        self._words = filter_words(text)
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
        descending = self.sortOrder() == Qt.SortOrder.DescendingOrder
        decided = missing_sorts_last(left.data(SORT_ROLE), right.data(SORT_ROLE), descending)
        if decided is not None:
            return decided
        return bool(super().lessThan(left, right))

    def filterAcceptsRow(
        self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex
    ) -> bool:
        model = self.sourceModel()
        if not isinstance(model, OffersModel):
            return True
        return offer_matches(model.offer_at(source_row), self._kind, self._words)
