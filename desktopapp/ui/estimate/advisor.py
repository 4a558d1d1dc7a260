"""The Workload tab's "What to run on" view (issue 24): a ranked table of accelerators, fleet
sizes and pricing (or serving fleets), a Pareto plot (time or latency against cost, one marker
per option, the current choice marked) and one recommendation; a clicked option is applied to
the Workload and Cost tabs through the shared state.

The search (:mod:`desktopapp.application.advisor`) runs in a registered worker thread with
progress and Cancel; the view only renders its :class:`~desktopapp.model.advisor.Ranking`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QThread, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application import advisor as app
from desktopapp.application.text import implausible_inputs
from desktopapp.model import advisor as adv
from desktopapp.model import units
from desktopapp.model.validation import error_field, error_text
from desktopapp.ui.common.workers import Worker

if TYPE_CHECKING:
    from desktopapp.ui.state import AppState

TRAIN, SERVE = "train", "serve"
MAX_ROWS = 200  # table rows shown (the plot shows every option)
TRAIN_HEADERS = ("#", "Accelerator", "GPUs", "Pricing", "$/GPU-h", "Days", "Cost", "Likely cost")
SERVE_HEADERS = (
    "#",
    "Accelerator",
    "Precision",
    "GPUs/replica",
    "Replicas",
    "Pricing",
    "$/month",
    "TPOT",
    "$/M tokens",
)
FIELD_LABELS = {
    "deadline_days": "Deadline",
    "budget": "Budget",
    "max_gpus": "Max GPUs",
    "pricing": "Pricing",
    "requests_per_s": "Requests/s",
    "include": "Only",
    "exclude": "Leave out",
    "params": "Parameters",
}


class _Relay(QObject):
    """Carries the worker's progress to the GUI thread (queued across threads)."""

    progress = Signal(int, int)


class AdvisorDialog(QDialog):
    """What to run on: constraints, Search/Cancel with progress, ranking, Pareto plot, Apply."""

    applied = Signal(object)  # the option put into the Workload tab

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("AdvisorDialog")
        self.setWindowTitle("What to run on")
        self.state = state
        self.ranking: adv.Ranking | None = None
        self._worker: Worker | None = None
        self._generation = 0
        self._input_warnings: list[str] = []
        self._relay = _Relay(self)
        self._relay.progress.connect(self._on_progress)
        self._plot: Any = None
        self._scatter: Any = None
        self._current_item: Any = None
        self._selected_item: Any = None
        self._build()
        self._restore_choice()
        self._on_mode_changed()

    # --- layout ---------------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.mode = QComboBox()
        self.mode.addItem("Training run", TRAIN)
        self.mode.addItem("Serving load", SERVE)
        self.mode.setToolTip("Rank fleets for the Workload tab's training run or its serving model")
        self.mode.currentIndexChanged.connect(self._on_mode_changed)
        row.addWidget(self.mode)
        self.deadline = QDoubleSpinBox()
        self.deadline.setRange(0, 10_000)
        self.deadline.setDecimals(1)
        self.deadline.setSpecialValueText("none")
        self.deadline.setSuffix(" days")
        self.deadline.setToolTip("The run must finish within this many days (none: no deadline)")
        self.deadline_label = QLabel("Deadline")
        row.addWidget(self.deadline_label)
        row.addWidget(self.deadline)
        row.addWidget(QLabel("Budget"))
        self.budget = QLineEdit()
        self.budget.setPlaceholderText("none (USD, e.g. 1.5M)")
        self.budget.setToolTip(
            "Most the whole run may cost (training) or the fleet per month (serving), USD"
        )
        row.addWidget(self.budget)
        row.addWidget(QLabel("Max GPUs"))
        self.max_gpus = QSpinBox()
        self.max_gpus.setRange(0, 1_000_000)
        self.max_gpus.setSpecialValueText(f"{app.DEFAULT_MAX_GPUS:,}")
        self.max_gpus.setToolTip(f"Largest fleet considered (default {app.DEFAULT_MAX_GPUS:,})")
        row.addWidget(self.max_gpus)
        self.rate_label = QLabel("Requests/s")
        row.addWidget(self.rate_label)
        self.rate = QLineEdit("10")
        self.rate.setToolTip("Mean requests per second the serving fleet must carry")
        row.addWidget(self.rate)
        row.addStretch(1)
        layout.addLayout(row)

        names_row = QHBoxLayout()
        names_row.addWidget(QLabel("Only"))
        self.include = QLineEdit()
        self.include.setPlaceholderText("every accelerator and cloud (e.g. h100-sxm, b200, Lambda)")
        self.include.setToolTip(
            "Only these catalog accelerators or cloud providers, comma-separated (empty: all)"
        )
        names_row.addWidget(self.include, 1)
        names_row.addWidget(QLabel("Leave out"))
        self.exclude = QLineEdit()
        self.exclude.setPlaceholderText("none (e.g. tpu-v6e, Vast.ai)")
        self.exclude.setToolTip("Catalog accelerators or cloud providers to leave out")
        names_row.addWidget(self.exclude, 1)
        layout.addLayout(names_row)

        pricing_row = QHBoxLayout()
        pricing_row.addWidget(QLabel("Pricing"))
        self.pricing_boxes: dict[str, QCheckBox] = {}
        for kind in adv.PRICING_KINDS:
            box = QCheckBox(adv.PRICING_WORDS[kind])
            box.setChecked(True)
            self.pricing_boxes[kind] = box
            pricing_row.addWidget(box)
        pricing_row.addStretch(1)
        self.search_button = QPushButton("Search")
        self.search_button.setDefault(True)
        self.search_button.clicked.connect(self.search)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(140)
        self.progress.setTextVisible(True)
        self.progress.setFormat("%p%")
        self.progress.setToolTip("Share of the catalog's accelerators searched")
        self.progress.setValue(0)
        pricing_row.addWidget(self.progress)
        pricing_row.addWidget(self.search_button)
        pricing_row.addWidget(self.cancel_button)
        layout.addLayout(pricing_row)

        self.recommendation = QLabel("Search ranks every catalog accelerator, fleet and price.")
        self.recommendation.setObjectName("AdvisorRecommendation")
        self.recommendation.setWordWrap(True)
        self.recommendation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.recommendation)
        # what every option assumes (fleet-size cap, a production factor of your own, the load)
        self.notes = QLabel("")
        self.notes.setObjectName("Hint")
        self.notes.setWordWrap(True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes.setVisible(False)
        layout.addWidget(self.notes)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.table = QTableWidget(0, len(TRAIN_HEADERS))
        self.table.setObjectName("AdvisorTable")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.itemSelectionChanged.connect(self._on_row_selected)
        self.table.doubleClicked.connect(lambda _index: self.apply_selected())
        self.splitter.addWidget(self.table)
        self.plot_holder = QWidget()
        self._plot_layout = QVBoxLayout(self.plot_holder)
        self._plot_layout.setContentsMargins(0, 0, 0, 0)
        self.splitter.addWidget(self.plot_holder)
        self.splitter.setSizes([760, 420])
        layout.addWidget(self.splitter, 1)

        bottom = QHBoxLayout()
        self.status = QLabel("")
        self.status.setObjectName("AdvisorStatus")
        self.status.setWordWrap(True)
        bottom.addWidget(self.status, 1)
        self.apply_button = QPushButton("Apply to Workload and Cost")
        self.apply_button.setEnabled(False)
        self.apply_button.setToolTip(
            "Put the selected option's accelerator, fleet and price into the Workload tab (the "
            "Cost tab follows)"
        )
        self.apply_button.clicked.connect(self.apply_selected)
        bottom.addWidget(self.apply_button)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        bottom.addWidget(close)
        layout.addLayout(bottom)
        self.resize(1180, 720)

    def _on_mode_changed(self) -> None:
        serving = self.mode.currentData() == SERVE
        self.rate.setVisible(serving)
        self.rate_label.setVisible(serving)
        self.deadline.setVisible(not serving)
        self.deadline_label.setVisible(not serving)

    # --- inputs ---------------------------------------------------------------------------------
    def constraints(self) -> adv.Constraints:
        """The constraints as typed; InputError naming the field when one is invalid."""
        budget = app.parse_budget(self.budget.text())
        serving = self.mode.currentData() == SERVE
        include = app.resolve_names([self.include.text()], "include")
        exclude = app.resolve_names([self.exclude.text()], "exclude")
        return adv.Constraints(
            include=include,
            exclude=exclude,
            deadline_days=None if serving or self.deadline.value() <= 0 else self.deadline.value(),
            budget_usd=budget,
            max_gpus=self.max_gpus.value() or None,
            pricing=tuple(k for k, box in self.pricing_boxes.items() if box.isChecked()),
        )

    def _owning(self) -> app.OwningOverrides | None:
        inputs = self.state.cost.inputs
        return None if inputs is None else app.OwningOverrides.from_onprem(inputs.onprem)

    def _preset(self) -> Any:
        preset_id = self.state.preset_id
        if not preset_id:
            return None
        from desktopapp.model.presets import load_presets

        return next((p for p in load_presets() if p.id == preset_id), None)

    def _job(self) -> Any:
        """The search to run (a callable for the worker), built from the state now."""
        constraints = self.constraints()
        owning = self._owning()
        relay = self._relay
        if self.mode.currentData() == SERVE:
            rate = app.parse_rate(self.rate.text())
            workload: Any = app.serve_workload_of(self.state.inference, rate)
            search: Any = app.search_serving
        else:
            workload = app.train_workload_of(self.state.training, self.state.memory, self._preset())
            search = app.search_training
        # inputs beyond any real system: searched all the same, and said above the notes
        self._input_warnings = implausible_inputs(workload)

        def run() -> adv.Ranking:
            thread = QThread.currentThread()
            result: adv.Ranking = search(
                workload,
                constraints,
                owning=owning,
                progress=relay.progress.emit,
                cancelled=thread.isInterruptionRequested,
            )
            return result

        return run

    # --- search ---------------------------------------------------------------------------------
    def search(self) -> None:
        """Start the search in a worker (a running one is cancelled first)."""
        self.cancel()
        try:
            job = self._job()
        except ValueError as exc:
            field = error_field(exc)
            label = FIELD_LABELS.get(field, field.replace("_", " ").capitalize() if field else "")
            self.status.setText(f"{label}: {error_text(exc)}" if label else error_text(exc))
            return
        self._generation += 1
        worker = Worker(job, self._generation, name="plan-search")
        worker.succeeded.connect(self._on_done)
        worker.failed.connect(self._on_failed)
        self._worker = worker
        self.progress.setValue(0)
        self.status.setText("Searching…")
        self.search_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        worker.start_registered()

    def cancel(self) -> None:
        worker = self._worker
        if worker is not None and worker.isRunning():
            worker.requestInterruption()
            worker.wait(5000)
            self.status.setText("Search cancelled.")
        self._worker = None
        self.search_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def is_searching(self) -> bool:
        return self._worker is not None and self._worker.isRunning()

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setValue(int(100 * done / total) if total else 100)

    def _on_failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            return
        self._finish()
        if "SearchCancelled" not in message:
            self.status.setText(f"Search failed: {message}")

    def _on_done(self, generation: int, ranking: object) -> None:
        if generation != self._generation or not isinstance(ranking, adv.Ranking):
            return
        self._finish()
        self.show_ranking(ranking)

    def _finish(self) -> None:
        self._worker = None
        self.search_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setValue(100)

    def closeEvent(self, event: Any) -> None:
        self.cancel()
        super().closeEvent(event)

    # --- results --------------------------------------------------------------------------------
    def show_ranking(self, ranking: adv.Ranking) -> None:
        self.ranking = ranking
        self.recommendation.setText(ranking.recommendation)
        warnings = [f"Check this input: {w}" for w in self._input_warnings]
        lines = [*warnings, *app.note_lines(ranking)]
        self.notes.setText("\n".join(lines))
        self.notes.setVisible(bool(lines))
        meeting = sum(1 for o in ranking.options if o.meets_constraints)
        self.status.setText(
            f"{len(ranking.options):,} options ({meeting:,} meet the constraints), "
            f"{len(ranking.excluded):,} left out; {ranking.searched:,} setups modelled. "
            "Click a row or a marker, then Apply."
        )
        self._fill_table(ranking)
        self._draw_plot(ranking)
        self.apply_button.setEnabled(False)

    def _fill_table(self, ranking: adv.Ranking) -> None:
        train = ranking.kind == TRAIN
        headers = TRAIN_HEADERS if train else SERVE_HEADERS
        table = self.table
        table.blockSignals(True)
        table.clearContents()
        table.setColumnCount(len(headers))
        table.setHorizontalHeaderLabels(list(headers))
        shown = ranking.options[:MAX_ROWS]
        table.setRowCount(len(shown))
        for row, o in enumerate(shown):
            cells = _train_cells(o) if train else _serve_cells(o)
            for col, text in enumerate((str(row + 1), *cells)):
                item = QTableWidgetItem(text)
                if headers[col] not in ("Accelerator", "Pricing", "Precision"):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                item.setToolTip(_tooltip(o))
                if not o.meets_constraints:
                    item.setForeground(Qt.GlobalColor.gray)
                table.setItem(row, col, item)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        table.blockSignals(False)

    def _draw_plot(self, ranking: adv.Ranking) -> None:
        from desktopapp.ui.common.theme import COLORS, plot_palette

        if self._plot is None:
            self._plot = pareto_plot(ranking)
            self._plot.setObjectName("AdvisorPlot")
            holder = self._plot_layout
            holder.addWidget(self._plot, 1)
            self.legend = QLabel()
            self.legend.setObjectName("AdvisorLegend")
            self.legend.setWordWrap(True)
            holder.addWidget(self.legend)
        palette_now = plot_palette()

        def dot(color: str, text: str, symbol: str = "●") -> str:
            return f"<span style='color:{color}'>{symbol}</span> {text}"

        self.legend.setText(
            " · ".join(
                (
                    dot(palette_now.series[0], "Pareto front"),
                    dot(palette_now.series_color(1), "meets the constraints"),
                    dot(COLORS["faint"], "misses them"),
                    dot(palette_now.reference, "current choice", "★"),
                    dot(palette_now.axis_text, "selected", "○"),
                )
            )
        )
        training = self.state.training
        scatter, current = draw_pareto(
            self._plot, ranking, lambda o: app.is_current(o, training), "current choice"
        )
        scatter.sigClicked.connect(self._on_points_clicked)
        self._scatter = scatter
        self._current_item = current
        self._selected_item = None

    def _on_points_clicked(self, _item: Any, points: Any, *_args: Any) -> None:
        if len(points):
            self.select(int(points[0].data()))

    def select(self, index: int) -> None:
        """Select option ``index`` of the ranking (table row and plot ring)."""
        if self.ranking is None or not 0 <= index < len(self.ranking.options):
            return
        if index < self.table.rowCount():
            self.table.selectRow(index)
        self._mark_selected(index)

    def _on_row_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows:
            self._mark_selected(rows[0].row())

    def _mark_selected(self, index: int) -> None:
        from desktopapp.ui.common.plots import pg
        from desktopapp.ui.common.theme import plot_palette

        assert self.ranking is not None
        self._selected = index
        self.apply_button.setEnabled(True)
        o = self.ranking.options[index]
        self.status.setText(f"Selected: {o.short()} — {_tooltip(o)}")
        if self._plot is None:
            return
        if self._selected_item is not None:
            self._plot.removeItem(self._selected_item)
        module = pg()
        ring = module.ScatterPlotItem(
            [math.log10(_x(o))],
            [math.log10(_y(o))],
            symbol="o",
            size=18,
            brush=module.mkBrush(0, 0, 0, 0),
            pen=module.mkPen(plot_palette().axis_text, width=2.5),
        )
        ring.setZValue(10)
        ring.setToolTip("selected option")
        self._plot.addItem(ring)
        self._selected_item = ring

    def selected_option(self) -> Any:
        if self.ranking is None or self.apply_button.isEnabled() is False:
            return None
        return self.ranking.options[getattr(self, "_selected", 0)]

    # --- apply ----------------------------------------------------------------------------------
    def apply_selected(self) -> None:
        option = self.selected_option()
        if option is None:
            return
        state = self.state
        if isinstance(option, adv.TrainOption):
            if state.training is None:
                return
            state.set_workload(training=app.apply_training(state.training, option))
        else:
            training, inference = app.apply_serving(state.training, state.inference, option)
            state.set_workload(training=training, inference=inference)
        self._remember(option)
        state.show_status(f"Applied from What to run on: {option.short()}")
        self.applied.emit(option)
        if self.ranking is not None:
            self._draw_plot(self.ranking)

    def _remember(self, option: Any) -> None:
        """The constraints and the chosen option, kept with the plan for the scenario file."""
        choice = adv.AdvisorChoice.of(
            self.mode.currentData(),
            self.constraints(),
            option,
            None if self.mode.currentData() != SERVE else _float(self.rate.text()),
        )
        self.state.plan.advisor_choice = choice

    def _restore_choice(self) -> None:
        choice = getattr(self.state.plan, "advisor_choice", None)
        if not isinstance(choice, adv.AdvisorChoice):
            return
        index = self.mode.findData(choice.kind)
        if index >= 0:
            self.mode.setCurrentIndex(index)
        self.deadline.setValue(choice.deadline_days or 0)
        self.budget.setText("" if choice.budget_usd is None else f"{choice.budget_usd:g}")
        self.max_gpus.setValue(choice.max_gpus or 0)
        for kind, box in self.pricing_boxes.items():
            box.setChecked(kind in choice.pricing)
        self.include.setText(", ".join(choice.include))
        self.exclude.setText(", ".join(choice.exclude))
        if choice.requests_per_s is not None:
            self.rate.setText(f"{choice.requests_per_s:g}")


def pareto_plot(ranking: adv.Ranking) -> Any:
    """An empty plot styled for a ranking's Pareto front (log axes, time or latency × cost)."""
    from desktopapp.ui.common.plots import make_plot

    train = ranking.kind == TRAIN
    return make_plot("", "", "", log_x=True, log_y=True, x_unit="" if train else "s", y_unit="$")


def draw_pareto(plot: Any, ranking: adv.Ranking, marked: Any, marked_text: str) -> tuple[Any, Any]:
    """One marker per option (the Pareto front in the first series colour and joined, those
    that meet the constraints in the second, the rest faint) and a star on the option for
    which ``marked(option)`` is true; returns (the scatter, the star or None)."""
    from desktopapp.ui.common.plots import pg, set_titles
    from desktopapp.ui.common.theme import COLORS, plot_palette

    train = ranking.kind == TRAIN
    if train:
        set_titles(plot, "Pareto front: wall time against cost", "Wall time (days)", "Cost")
    else:
        set_titles(
            plot, "Pareto front: latency against cost", "Time per output token", "Cost per month"
        )
    module = pg()
    palette = plot_palette()
    plot.clear()
    options = ranking.options
    xs = [_x(o) for o in options]
    ys = [_y(o) for o in options]
    spots = []
    for i, o in enumerate(options):
        if o.pareto:
            brush, size = module.mkBrush(palette.series[0]), 9
        elif o.meets_constraints:
            brush, size = module.mkBrush(palette.series_color(1)), 6
        else:
            brush, size = module.mkBrush(COLORS["faint"]), 5
        spots.append(
            {
                "pos": (math.log10(xs[i]), math.log10(ys[i])),
                "data": i,
                "brush": brush,
                "size": size,
                "pen": None,
            }
        )
    _x_ticks(plot, xs, train)
    _log_ticks(plot, "left", ys, _money_tick)
    scatter = module.ScatterPlotItem()
    scatter.addPoints(spots)
    plot.addItem(scatter)
    front = sorted((xs[i], ys[i]) for i, o in enumerate(options) if o.pareto)
    if len(front) > 1:
        line = module.PlotDataItem(
            [p[0] for p in front],
            [p[1] for p in front],
            pen=module.mkPen(palette.series[0], width=1.5),
        )
        plot.addItem(line)
    star = None
    hit = next((i for i, o in enumerate(options) if marked(o)), None)
    if hit is not None:
        star = module.ScatterPlotItem(
            [math.log10(xs[hit])],
            [math.log10(ys[hit])],
            symbol="star",
            size=18,
            brush=module.mkBrush(palette.reference),
            pen=module.mkPen(palette.marker_outline, width=1),
        )
        star.setToolTip(marked_text)
        star.setZValue(9)
        plot.addItem(star)
    return scatter, star


def report_plot(scenario: Any) -> Any:
    """The report's Pareto plot for a scenario that asked for a ranking (None otherwise): a
    plot widget for the report to render into ``img://advisor-pareto``."""
    ranking = app.ranking_for_scenario(scenario)
    if ranking is None or not ranking.options:
        return None
    plot = pareto_plot(ranking)
    choice = scenario.advisor
    draw_pareto(plot, ranking, lambda o: app.is_chosen(o, choice), "chosen option")
    return plot


STEPS = (1.0, 2.0, 5.0)


def _x_ticks(plot: Any, xs: list[float], train: bool) -> None:
    """Plain 1-2-5 ticks on the log time axis (days, or milliseconds per token)."""
    _log_ticks(
        plot, "bottom", xs, (lambda v: f"{v:,g}") if train else (lambda v: f"{v * 1000:,g} ms")
    )


def _money_tick(v: float) -> str:
    """``$50k``, ``$2M``: short enough that the axis never drops a label for lack of room."""
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if v >= scale:
            return f"${v / scale:g}{suffix}"
    return f"${v:g}"


def _log_ticks(plot: Any, axis: str, values: list[float], label: Any) -> None:
    """1-2-5 ticks over the values' range on a log axis, decades only when the range is
    wide; pyqtgraph's own crowd into each other on short ranges or vanish on long ones."""
    if not values:
        return
    low, high = min(values), max(values)
    candidates = [m * 10.0**k for k in range(-6, 13) for m in STEPS]
    picked = [v for v in candidates if low * 0.8 <= v <= high * 1.25]
    if len(picked) > 9:
        picked = [v for v in picked if f"{v:.0e}".startswith("1")]
    if len(picked) < 2:
        return
    item = plot.getPlotItem().getAxis(axis)
    item.setTicks([[(math.log10(v), label(v)) for v in picked], []])


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _x(o: Any) -> float:
    return max(o.wall_days if isinstance(o, adv.TrainOption) else o.tpot_seconds, 1e-9)


def _y(o: Any) -> float:
    return max(o.cost_usd if isinstance(o, adv.TrainOption) else o.cost_per_month_usd, 1e-9)


def _pricing(o: Any) -> str:
    return adv.PRICING_WORDS[o.pricing] + (" (stale)" if o.offer.stale else "")


def _train_cells(o: adv.TrainOption) -> tuple[str, ...]:
    return (
        o.accelerator,
        f"{o.gpus:,}",
        _pricing(o),
        f"${o.price_usd_per_gpu_hour:.3g}",
        f"{o.wall_days:.3g}",
        units.format_money(o.cost_usd),
        f"{units.format_money(o.cost_low_usd)} … {units.format_money(o.cost_high_usd)}",
    )


def _serve_cells(o: adv.ServeOption) -> tuple[str, ...]:
    return (
        o.accelerator,
        o.precision,
        str(o.gpus_per_replica),
        f"{o.replicas:,}",
        _pricing(o),
        units.format_money(o.cost_per_month_usd),
        units.format_duration(o.tpot_seconds),
        units.format_money(o.cost_per_million_tokens),
    )


def _tooltip(o: Any) -> str:
    where = o.offer.basis or o.offer.label()
    if isinstance(o, adv.TrainOption):
        text = f"{o.plan}; {o.gpu_hours:,.0f} GPU-hours; price: {where}"
    else:
        text = (
            f"{units.plural(o.concurrency, 'sequence')} per replica, TTFT "
            f"{units.format_duration(o.ttft_seconds)}; price: {where}"
        )
    if o.misses:
        text += f"; misses: {o.misses}"
    return text
