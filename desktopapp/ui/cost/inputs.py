"""The Cost tab's input column: the demand and the servers you would buy.

Widgets only: no formulas. Fields are attributes; every user change emits one of the signals
below and the tab reads the fields, builds the model inputs and writes values back under
``QSignalBlocker``. Cloud prices are chosen in the table on the right (:mod:`.offers`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktopapp.model.scenario import MAX_HORIZON_MONTHS
from desktopapp.ui.common.accelerator_combo import AcceleratorCombo
from desktopapp.ui.common.quantity_edit import QuantityEdit
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.theme import SPACING
from desktopapp.ui.cost.planning import (
    DEMAND_SOURCES,
    LIFE_CHOICES,
    MAX_GPUS_PER_SERVER,
    PROFILE_LABELS,
)


def _label(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("FieldLabel")
    return label


def _hint() -> QLabel:
    label = QLabel()
    label.setObjectName("Hint")
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


def _spin(minimum: int, maximum: int, value: int, suffix: str = "", tooltip: str = "") -> QSpinBox:
    spin = QSpinBox()
    spin.setRange(minimum, maximum)
    spin.setValue(value)
    spin.setSuffix(suffix)
    spin.setGroupSeparatorShown(True)
    spin.setAccelerated(True)
    spin.setToolTip(tooltip)
    spin.setMinimumWidth(64)
    return spin


def _combo(items: tuple[tuple[object, str], ...], tooltip: str = "") -> QComboBox:
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(10)
    combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    for value, text in items:
        combo.addItem(text, value)
    combo.setToolTip(tooltip)
    return combo


def _with_units(edit: QWidget, before: str = "", after: str = "") -> QHBoxLayout:
    row = QHBoxLayout()
    row.setSpacing(6)
    if before:
        row.addWidget(_label(before))
    row.addWidget(edit, 1)
    if after:
        row.addWidget(_label(after))
    return row


def _link_button(text: str) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName("LinkButton")
    button.setCursor(Qt.CursorShape.PointingHandCursor)
    button.setFlat(True)
    return button


class CostInputsPanel(QScrollArea):
    """Demand and owning inputs. ``edited`` fires on any user change that needs a recompute;
    the more specific signals fire first where the tab has something else to do."""

    edited = Signal()
    accelerator_chosen = Signal(str)
    demand_source_chosen = Signal(str)
    gpus_per_server_changed = Signal(int)
    server_price_typed = Signal()
    server_price_reset = Signal()
    power_typed = Signal()
    power_reset = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        content = QWidget()
        self.column = QVBoxLayout(content)
        self.column.setContentsMargins(0, 0, 8, 0)
        self.column.setSpacing(SPACING)
        self._build_demand()
        self._build_owning()
        self.column.addStretch(1)
        self.setWidget(content)
        self.setMinimumWidth(360)

    # --- demand -------------------------------------------------------------------------------
    def _build_demand(self) -> None:
        section = Section("Demand", "What you need to run, and on which accelerator.")
        self.accelerator = AcceleratorCombo()
        self.accelerator.accelerator_changed.connect(self.accelerator_chosen)
        section.add_row("Accelerator", self.accelerator)
        self.accelerator_note = _hint()
        section.add_row("", self.accelerator_note)

        self.demand_source = _combo(
            tuple(DEMAND_SOURCES),
            "Type the GPU-hours you need each month, or take them from the Workload tab's estimate",
        )
        section.add_row("Demand from", self.demand_source)
        self.gpu_hours = QuantityEdit(
            "gpu_hours_per_month",
            placeholder="e.g. 5000, 20k",
            tooltip="GPU-hours of useful work needed each month (k = thousand)",
        )
        section.add_row("GPU-hours", _with_units(self.gpu_hours, after="a month"))
        self.runs_per_month = QuantityEdit(
            "runs_per_month",
            placeholder="e.g. 1, 4, 0.5",
            tooltip="How often the Workload tab's run is repeated each month (shared with it)",
        )
        self.runs_container = QWidget()
        runs_layout = _with_units(self.runs_per_month, after="per month")
        runs_layout.setContentsMargins(0, 0, 0, 0)
        self.runs_container.setLayout(runs_layout)
        self.runs_row_label = section.add_row("Runs", self.runs_container)
        self.demand_rule = _hint()
        section.add_row("", self.demand_rule)

        self.horizon = _spin(
            1,
            MAX_HORIZON_MONTHS,
            48,
            " months",
            "How far ahead to compare totals (the cumulative plot and the hybrid plan)",
        )
        section.add_row("Horizon", self.horizon)
        self.profile = _combo(
            tuple(PROFILE_LABELS.items()),
            "How the demand moves month by month; the hybrid plan owns the steady part and "
            "rents the peaks",
        )
        section.add_row("Profile", self.profile, "Month-by-month shape for the hybrid plan.")

        self.demand_source.activated.connect(
            lambda i: self.demand_source_chosen.emit(str(self.demand_source.itemData(i)))
        )
        self.gpu_hours.textEdited.connect(lambda _t: self.edited.emit())
        self.runs_per_month.textEdited.connect(lambda _t: self.edited.emit())
        self.horizon.valueChanged.connect(lambda _v: self.edited.emit())
        self.profile.activated.connect(lambda _i: self.edited.emit())
        self.demand_section = section
        self.column.addWidget(section)

    def show_runs_row(self, visible: bool) -> None:
        self.runs_row_label.setVisible(visible)
        self.runs_container.setVisible(visible)

    # --- owning -------------------------------------------------------------------------------
    def _build_owning(self) -> None:
        section = Section("Owning", "Servers you buy and run yourself.")
        self.server_price = QuantityEdit(
            "server_price",
            minimum=0.0,
            minimum_inclusive=True,
            currency=True,
            placeholder="your quote per server",
            tooltip="Everything you capitalise per server: the server, its share of the network "
            "fabric and storage, installation",
        )
        section.add_row("Server price", _with_units(self.server_price, "$", "per server"))
        self.server_price_source = _hint()
        self.server_price_reset_button = _link_button("Use catalog")
        source_row = QHBoxLayout()
        source_row.setContentsMargins(0, 0, 0, 0)
        source_row.addWidget(self.server_price_source, 1)
        source_row.addWidget(self.server_price_reset_button, 0, Qt.AlignmentFlag.AlignTop)
        section.add_row("", source_row)

        self.gpus_per_server = _spin(1, MAX_GPUS_PER_SERVER, 8, "", "Accelerators in one server")
        self.life = _combo(
            tuple((years, f"{years} years") for years in LIFE_CHOICES),
            "Straight-line depreciation with no resale value",
        )
        self.life.setMinimumContentsLength(6)
        row = QHBoxLayout()
        row.setSpacing(10)
        row.addWidget(self.gpus_per_server, 1)
        row.addWidget(_label("Useful life"))
        row.addWidget(self.life, 1)
        section.add_row("GPUs/server", row)

        self.power_kw = QuantityEdit(
            "power_kw",
            minimum=0.0,
            minimum_inclusive=True,
            placeholder="kW",
            tooltip="Whole server at full load, kW",
        )
        self.power_kw_idle = QuantityEdit(
            "power_kw_idle",
            minimum=0.0,
            minimum_inclusive=True,
            allow_empty=True,
            placeholder="as full",
            tooltip="Whole server when idle, kW. Empty: the same as at full load (the cautious "
            "choice when you do not know it).",
        )
        power_row = QHBoxLayout()
        power_row.setSpacing(6)
        power_row.addWidget(self.power_kw, 1)
        power_row.addWidget(_label("kW full,"))
        power_row.addWidget(self.power_kw_idle, 1)
        power_row.addWidget(_label("kW idle"))
        section.add_row("Power", power_row)
        self.power_source = _hint()
        self.power_reset_button = _link_button("Use catalog")
        power_source_row = QHBoxLayout()
        power_source_row.setContentsMargins(0, 0, 0, 0)
        power_source_row.addWidget(self.power_source, 1)
        power_source_row.addWidget(self.power_reset_button, 0, Qt.AlignmentFlag.AlignTop)
        section.add_row("", power_source_row)

        self.pue = QuantityEdit(
            "pue", placeholder="1.5", tooltip="Power usage effectiveness: facility ÷ IT power"
        )
        self.kwh_price = QuantityEdit(
            "kwh_price",
            minimum=0.0,
            minimum_inclusive=True,
            currency=True,
            placeholder="0.10",
            tooltip="Electricity price, USD per kWh",
        )
        energy_row = QHBoxLayout()
        energy_row.setSpacing(6)
        energy_row.addWidget(self.pue, 1)
        energy_row.addSpacing(6)
        energy_row.addWidget(_label("Electricity $"))
        energy_row.addWidget(self.kwh_price, 1)
        energy_row.addWidget(_label("/ kWh"))
        section.add_row("PUE", energy_row)

        self.ops_percent = QuantityEdit(
            "ops_fraction",
            minimum=0.0,
            minimum_inclusive=True,
            placeholder="10",
            tooltip="Staff, maintenance and space per year, as a % of the purchase price",
        )
        self.ops_percent.set_extra_check(lambda v: None if v <= 100 else "must be at most 100%")
        section.add_row("Operations", _with_units(self.ops_percent, after="% of capex a year"))
        self.facility = QuantityEdit(
            "facility_usd_per_kw_month",
            minimum=0.0,
            minimum_inclusive=True,
            currency=True,
            placeholder="0",
            tooltip="Colocation or data-centre space per kW of server power per month (0 when "
            "space is counted in operations)",
        )
        section.add_row("Facility", _with_units(self.facility, "$", "per kW-month"))
        self.defaults_note = _hint()
        section.add_wide(self.defaults_note)

        self.server_price.textEdited.connect(lambda _t: self.server_price_typed.emit())
        self.server_price_reset_button.clicked.connect(self.server_price_reset)
        self.power_kw.textEdited.connect(lambda _t: self.power_typed.emit())
        self.power_reset_button.clicked.connect(self.power_reset)
        self.gpus_per_server.valueChanged.connect(self.gpus_per_server_changed)
        self.life.activated.connect(lambda _i: self.edited.emit())
        for edit in (
            self.power_kw_idle,
            self.pue,
            self.kwh_price,
            self.ops_percent,
            self.facility,
        ):
            edit.textEdited.connect(lambda _t: self.edited.emit())
        self.owning_section = section
        self.column.addWidget(section)
