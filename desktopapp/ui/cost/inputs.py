"""The Cost tab's input column: the demand and the servers you would buy.

Widgets only: no formulas. Fields are attributes; every user change emits one of the signals
below and the tab reads the fields, builds the model inputs and writes values back under
``QSignalBlocker``. Cloud prices are chosen in the table on the right (:mod:`.offers`).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QWidget

from desktopapp.model.planning import (
    DEMAND_SOURCES,
    LIFE_CHOICES,
    MAX_GPUS_PER_SERVER,
    PROFILE_LABELS,
)
from desktopapp.model.scenario import MAX_HORIZON_MONTHS
from desktopapp.ui.common.accelerator_combo import AcceleratorCombo
from desktopapp.ui.common.fields import (
    InputsColumn,
    amount_edit,
    choice_combo,
    field_label,
    field_pair,
    hint_label,
    link_button,
    percent_edit,
    show_longest_item,
    source_row,
    spin_box,
    with_units,
)
from desktopapp.ui.common.quantity_edit import QuantityEdit
from desktopapp.ui.common.section import Section


def keep_start_visible(combo: QComboBox) -> None:
    """An editable combo shows the start of a name too long for it (its vendor and model, the
    rest in the tooltip), not the end: Qt leaves the cursor, and so the view, at the end of
    the text it sets. Not while the user types in it."""
    line = combo.lineEdit()
    if line is None:
        return

    def show_start(_text: str = "") -> None:
        if not line.hasFocus():
            line.setCursorPosition(0)

    line.textChanged.connect(show_start)
    show_start()


class CostInputsPanel(InputsColumn):
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
        self._build_demand()
        self._build_owning()
        self.finish(minimum_width=360)

    # --- demand -------------------------------------------------------------------------------
    def _build_demand(self) -> None:
        section = Section("Demand", "What you need to run, and on which accelerator.")
        self.accelerator = AcceleratorCombo()
        self.accelerator.accelerator_changed.connect(self.accelerator_chosen)
        # The whole width of the card, under its caption: in presentation mode the label
        # column left too little room and the name lost its start ("A H100 SXM5 …", issue 16).
        caption = field_label("Accelerator")
        caption.setBuddy(self.accelerator)
        section.add_wide(caption)
        section.add_wide(self.accelerator)
        keep_start_visible(self.accelerator)
        self.accelerator_note = hint_label()
        section.add_wide(self.accelerator_note)

        # Under its caption across the card, wide enough for its longest choice: beside the
        # label column it read "Workload estimate × runs p" in presentation mode.
        self.demand_source = choice_combo(
            DEMAND_SOURCES,
            "Type the GPU-hours you need each month, or take them from the Workload tab's estimate",
        )
        show_longest_item(self.demand_source)
        caption = field_label("Demand from")
        caption.setBuddy(self.demand_source)
        section.add_wide(caption)
        section.add_wide(self.demand_source)
        self.gpu_hours = QuantityEdit(
            "gpu_hours_per_month",
            placeholder="e.g. 5000, 20k",
            tooltip="GPU-hours of useful work needed each month (k = thousand)",
        )
        section.add_row("GPU-hours", with_units(self.gpu_hours, after="a month"))
        self.runs_per_month = QuantityEdit(
            "runs_per_month",
            placeholder="e.g. 1, 4, 0.5",
            tooltip="How often the Workload tab's run is repeated each month (shared with it)",
        )
        self.runs_container = QWidget()
        runs_layout = with_units(self.runs_per_month, after="per month")
        runs_layout.setContentsMargins(0, 0, 0, 0)
        self.runs_container.setLayout(runs_layout)
        self.runs_row_label = section.add_row("Runs", self.runs_container)
        self.demand_rule = hint_label()
        section.add_row("", self.demand_rule)

        self.horizon = spin_box(
            1,
            MAX_HORIZON_MONTHS,
            48,
            "How far ahead to compare totals (the cumulative plot and the hybrid plan)",
            suffix=" months",
        )
        section.add_row("Horizon", self.horizon)
        self.profile = choice_combo(
            PROFILE_LABELS.items(),
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
        self._build_servers(section)
        self._build_running_costs(section)
        self.defaults_note = hint_label()
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

    def _build_servers(self, section: Section) -> None:
        """Server price, GPUs per server, useful life and power, with where each came from."""
        self.server_price = amount_edit(
            "server_price",
            "your quote per server",
            "Everything you capitalise per server: the server, its share of the network fabric "
            "and storage, installation",
            currency=True,
        )
        section.add_row("Server price", with_units(self.server_price, "$", "per server"))
        self.server_price_source = hint_label()
        self.server_price_reset_button = link_button("Use catalog")
        section.add_row("", source_row(self.server_price_source, self.server_price_reset_button))

        self.gpus_per_server = spin_box(1, MAX_GPUS_PER_SERVER, 8, "Accelerators in one server")
        self.life = choice_combo(
            ((years, f"{years} years") for years in LIFE_CHOICES),
            "Straight-line depreciation with no resale value",
            chars=6,
        )
        section.add_row("GPUs/server", field_pair(self.gpus_per_server, "Useful life", self.life))

        self.power_kw = amount_edit("power_kw", "kW", "Whole server at full load, kW")
        self.power_kw_idle = amount_edit(
            "power_kw_idle",
            "as full",
            "Whole server when idle, kW. Empty: the same as at full load (the cautious choice "
            "when you do not know it).",
            allow_empty=True,
        )
        power_row = QHBoxLayout()
        power_row.setSpacing(6)
        power_row.addWidget(self.power_kw, 1)
        power_row.addWidget(field_label("kW full,"))
        power_row.addWidget(self.power_kw_idle, 1)
        power_row.addWidget(field_label("kW idle"))
        section.add_row("Power", power_row)
        self.power_source = hint_label()
        self.power_reset_button = link_button("Use catalog")
        section.add_row("", source_row(self.power_source, self.power_reset_button))

    def _build_running_costs(self, section: Section) -> None:
        """PUE and electricity, operations, facility."""
        self.pue = QuantityEdit(
            "pue", placeholder="1.5", tooltip="Power usage effectiveness: facility ÷ IT power"
        )
        self.kwh_price = amount_edit(
            "kwh_price", "0.10", "Electricity price, USD per kWh", currency=True
        )
        energy_row = QHBoxLayout()
        energy_row.setSpacing(6)
        energy_row.addWidget(self.pue, 1)
        energy_row.addSpacing(6)
        energy_row.addWidget(field_label("Electricity $"))
        energy_row.addWidget(self.kwh_price, 1)
        energy_row.addWidget(field_label("/ kWh"))
        section.add_row("PUE", energy_row)

        self.ops_percent = percent_edit(
            "ops_fraction",
            "10",
            "Staff, maintenance and space per year, as a % of the purchase price",
        )
        section.add_row("Operations", with_units(self.ops_percent, after="% of capex a year"))
        self.facility = amount_edit(
            "facility_usd_per_kw_month",
            "0",
            "Colocation or data-centre space per kW of server power per month (0 when space is "
            "counted in operations)",
            currency=True,
        )
        section.add_row("Facility", with_units(self.facility, "$", "per kW-month"))
