"""The add-offer dialog: type a quote (provider, instance, GPUs, region, any of the four
prices, date, source). What is allowed is :mod:`desktopapp.application.cost_offers`; the dialog
shows its verdict: the message under the form, the price fields it names marked, "Add offer"
enabled only for a complete, valid offer."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.cost_offers import OfferForm, check_offer_form
from desktopapp.model.catalog import PRICING_MODELS, CloudOffer
from desktopapp.model.planning import PRICING_LABELS
from desktopapp.ui.common.quantity_edit import QuantityEdit
from desktopapp.ui.common.theme import COLORS, INNER_SPACING


class CustomOfferDialog(QDialog):
    """Type a quote: provider, instance, GPUs, region, any of the four prices, date, source.

    OK is enabled only when :func:`~desktopapp.application.cost_offers.check_offer_form`
    accepts the fields; the reason is shown otherwise, in the user's words ("On-demand price:
    …", never "on_demand: …"). :meth:`offer` gives the checked offer.
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
        self._build_fields(today or date.today())
        self._build_layout()

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

    def _build_fields(self, today: date) -> None:
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
            self.prices[pricing] = QuantityEdit(
                pricing,
                allow_empty=True,
                currency=True,
                placeholder="not offered",
                tooltip=f"{PRICING_LABELS[pricing]} price in USD per GPU-hour (empty: none)",
            )
        self.price_date = QLineEdit(today.isoformat())
        self.price_date.setPlaceholderText("YYYY-MM-DD")
        self.source = QLineEdit("Quote")
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {COLORS['bad']};")

    def _build_layout(self) -> None:
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

    def offer(self) -> CloudOffer | None:
        return self._offer

    def error(self) -> str:
        """What stops the offer from being added (also before it is shown)."""
        return self._problem

    def shown_error(self) -> str:
        return self.error_label.text()

    def form(self) -> OfferForm:
        """The fields as typed."""
        return OfferForm(
            provider=self.provider.text(),
            instance=self.instance.text(),
            gpus=self.gpus.value(),
            region=self.region.text(),
            prices={pricing: edit.text() for pricing, edit in self.prices.items()},
            price_date=self.price_date.text(),
            source=self.source.text(),
        )

    def _on_edit(self, *_args: object) -> None:
        self._touched = True
        self._validate()

    def _validate(self) -> None:
        check = check_offer_form(self.form(), self._accelerator_id, self._existing)
        for pricing, problem in check.price_problems.items():
            # The field's mark (red border, tooltip) says the same as the message below. A
            # field's own mark goes when its text changes: nothing to clear here.
            edit = self.prices[pricing]
            if edit.error() != problem:
                edit.set_error(problem)
        self._offer = check.offer
        self._problem = check.problem
        self.error_label.setText(check.problem if self._touched else "")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(check.ok)

    def accept(self) -> None:
        if self._offer is None:
            return
        super().accept()
