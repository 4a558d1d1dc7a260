"""Compare up to four scenarios side by side, and see what each result is most sensitive to.

:class:`CompareView` holds the pinned scenarios (the window's current one, files) and shows:

- **Side by side**: a table of inputs and results, one column per scenario. A cell that differs
  from the first scenario is highlighted; numeric results also show the change against it,
  green when better and red when worse.
- **Plots**: wall time and cost against devices, cost against utilization, and owning against
  renting per useful GPU-hour, every scenario in its own colour (model sweeps).
- **Sensitivity**: tornado charts of the cost and the wall time of one scenario when each input
  moves ±25% (:mod:`desktopapp.model.sensitivity`).

:class:`CompareDialog` puts the view in a window with "Pin current", "Add files…" and "Export
report…". It is not modal, so the main window can be edited and re-pinned meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QFont, QIcon, QKeySequence, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktopapp.application.compare import (
    ScenarioSummary,
    delta_text,
    relative_change,
    summarize,
    union_keys,
)
from desktopapp.model.scenario import Scenario, ScenarioError, load_scenario
from desktopapp.model.validation import user_message
from desktopapp.ui.common.export import install_export_actions
from desktopapp.ui.common.theme import COLORS, INNER_SPACING, SERIES, SPACING
from desktopapp.ui.scenario import charts

MAX_PINNED = 4
RESULTS = "Results"
TABLE_NOTE = (
    "Highlighted: differs from the first scenario. Changes are against the first "
    "scenario; green is better, red worse. Right-click to copy or export as CSV."
)


@dataclass(frozen=True)
class Pin:
    """One compared scenario: a snapshot of the window's (``current``) or a file's."""

    label: str
    summary: ScenarioSummary
    path: Path | None = None
    current: bool = False

    @property
    def scenario(self) -> Scenario:
        return self.summary.scenario


def swatch_icon(color: str, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


class CompareView(QWidget):
    """The three pages (see the module docstring). ``pins_changed`` after any change."""

    pins_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pins: list[Pin] = []
        self.pages = QTabWidget()
        self.pages.setDocumentMode(True)
        self.pages.setAccessibleName("Compare pages")

        self.empty = QLabel(
            "Pin the current scenario or add scenario files to compare them side by side."
        )
        self.empty.setObjectName("Hint")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)

        self.table = QTableWidget(0, 1)
        self.table.setAccessibleName("Scenario comparison table")
        self.table.setObjectName("compare-table")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        table_page = QWidget()
        table_layout = QVBoxLayout(table_page)
        table_layout.setContentsMargins(0, SPACING, 0, 0)
        self.table_note = QLabel(TABLE_NOTE)
        self.table_note.setObjectName("Hint")
        self.table_note.setWordWrap(True)
        table_layout.addWidget(self.table, 1)
        table_layout.addWidget(self.table_note)

        plots_page = QWidget()
        grid = QGridLayout(plots_page)
        grid.setContentsMargins(0, SPACING, 0, 0)
        grid.setSpacing(INNER_SPACING)
        self.plots = charts.overlay_plots()
        for index, plot in enumerate(self.plots):
            grid.addWidget(plot, index // 2, index % 2)

        sens_page = QWidget()
        sens = QVBoxLayout(sens_page)
        sens.setContentsMargins(0, SPACING, 0, 0)
        sens.setSpacing(INNER_SPACING)
        chooser = QHBoxLayout()
        chooser_label = QLabel("Scenario")
        chooser_label.setObjectName("FieldLabel")
        self.sensitivity_choice = QComboBox()
        self.sensitivity_choice.setAccessibleName("Scenario for the sensitivity charts")
        self.sensitivity_choice.setMinimumWidth(280)
        chooser_label.setBuddy(self.sensitivity_choice)
        chooser.addWidget(chooser_label)
        chooser.addWidget(self.sensitivity_choice)
        chooser.addStretch(1)
        sens.addLayout(chooser)
        charts_row = QHBoxLayout()
        charts_row.setSpacing(INNER_SPACING)
        self.tornado_cost = charts.tornado_plot("cost")
        self.tornado_time = charts.tornado_plot("hours")
        charts_row.addWidget(self.tornado_cost, 1)
        charts_row.addWidget(self.tornado_time, 1)
        sens.addLayout(charts_row, 1)
        self.tornado_legend = QLabel(charts.tornado_legend_html())
        self.tornado_legend.setObjectName("Legend")
        self.tornado_legend.setWordWrap(True)
        sens.addWidget(self.tornado_legend)
        self.sensitivity_choice.currentIndexChanged.connect(self._show_sensitivity)

        self.pages.addTab(table_page, "Side by side")
        self.pages.addTab(plots_page, "Plots")
        self.pages.addTab(sens_page, "Sensitivity")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        layout.addWidget(self.pages, 1)
        install_export_actions(self)
        self.refresh()

    # --- pins -----------------------------------------------------------------------------------
    @property
    def pins(self) -> tuple[Pin, ...]:
        return tuple(self._pins)

    def summaries(self) -> list[ScenarioSummary]:
        return [pin.summary for pin in self._pins]

    def is_full(self) -> bool:
        return len(self._pins) >= MAX_PINNED

    def pin(
        self,
        scenario: Scenario,
        label: str,
        path: Path | None = None,
        current: bool = False,
        file_name: str = "",
    ) -> bool:
        """Add a scenario (a pin of the same file, or the current scenario again, is replaced);
        False when :data:`MAX_PINNED` are pinned already. ``file_name`` (default: ``path``'s)
        tells scenarios of the same name apart in the legends."""
        shown_file = file_name or (path.name if path is not None else "")
        new = Pin(label, summarize(scenario, label, shown_file), path, current)
        for index, old in enumerate(self._pins):
            same_file = path is not None and old.path == path and old.current == current
            same_current = current and old.current
            if same_file or same_current:
                self._pins[index] = new
                self.refresh()
                return True
        if self.is_full():
            return False
        self._pins.append(new)
        self.refresh()
        return True

    def add_file(self, path: Path) -> str | None:
        """Pin a scenario file; returns the problem (ScenarioError's line) or None."""
        if self.is_full() and not any(p.path == path and not p.current for p in self._pins):
            return f"At most {MAX_PINNED} scenarios can be compared; remove one first."
        try:
            loaded = load_scenario(path)
        except ScenarioError as exc:
            return user_message(exc)
        label = f"{loaded.scenario.name} ({path.name})"
        self.pin(loaded.scenario, label, path)
        return None

    def remove(self, index: int) -> None:
        if 0 <= index < len(self._pins):
            del self._pins[index]
            self.refresh()

    def clear(self) -> None:
        self._pins.clear()
        self.refresh()

    def move_first(self, index: int) -> None:
        """Make a pin the reference (first column) the others are compared with."""
        if 0 < index < len(self._pins):
            self._pins.insert(0, self._pins.pop(index))
            self.refresh()

    # --- showing ---------------------------------------------------------------------------------
    def refresh(self) -> None:
        has_pins = bool(self._pins)
        self.empty.setVisible(not has_pins)
        self.pages.setVisible(has_pins)
        self._fill_table()
        self.table_note.setText(self.note_text())
        charts.fill_overlay(self.plots, self.summaries())
        self._fill_sensitivity_choice()
        self.pins_changed.emit()

    def _fill_table(self) -> None:
        table = self.table
        summaries = self.summaries()
        keys = union_keys(summaries)
        table.clear()
        table.setColumnCount(1 + len(summaries))
        headers = ["", *[s.label for s in summaries]]
        table.setHorizontalHeaderLabels(headers)
        for col, _summary in enumerate(summaries, start=1):
            item = table.horizontalHeaderItem(col)
            if item is not None:
                item.setIcon(swatch_icon(SERIES[(col - 1) % len(SERIES)]))
        section_rows = sorted({k[0] for k in keys}, key=[k[0] for k in keys].index)
        table.setRowCount(len(keys) + len(section_rows))
        bold = QFont(table.font())
        bold.setBold(True)
        row = 0
        current_section = None
        highlight = QBrush(QColor(COLORS["accent_soft"]))
        section_brush = QBrush(QColor(COLORS["surface_alt"]))
        for section, label in keys:
            if section != current_section:
                current_section = section
                heading = QTableWidgetItem(section.upper())
                heading.setFont(bold)
                heading.setForeground(QBrush(QColor(COLORS["accent_dark"])))
                heading.setBackground(section_brush)
                table.setItem(row, 0, heading)
                for col in range(1, len(summaries) + 1):
                    filler = QTableWidgetItem("")
                    filler.setBackground(section_brush)
                    table.setItem(row, col, filler)
                row += 1
            name = QTableWidgetItem(label)
            name.setForeground(QBrush(QColor(COLORS["muted"])))
            table.setItem(row, 0, name)
            reference = summaries[0].row(section, label) if summaries else None
            for col, summary in enumerate(summaries, start=1):
                found = summary.row(section, label)
                text = found.text if found is not None else "—"
                item = QTableWidgetItem(text)
                if found is not None and found.detail:
                    item.setToolTip(found.detail)
                differs = col > 1 and (
                    (found is None) != (reference is None)
                    or (
                        found is not None and reference is not None and found.text != reference.text
                    )
                )
                if differs:
                    item.setBackground(highlight)
                    item.setFont(bold)
                    item.setData(Qt.ItemDataRole.UserRole, "differs")
                if col > 1 and section == RESULTS and found is not None and reference is not None:
                    change = relative_change(found.value, reference.value)
                    shown = delta_text(change)
                    if shown:
                        item.setText(f"{text}   {shown}")
                        assert change is not None
                        if found.better:
                            good = (change < 0) == (found.better == "lower")
                            item.setForeground(QBrush(QColor(COLORS["good" if good else "bad"])))
                table.setItem(row, col, item)
            row += 1
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for col in range(1, table.columnCount()):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)

    def note_text(self) -> str:
        """The note under the table, with a "check the value" line per input of a pinned
        scenario beyond any real system."""
        lines = [TABLE_NOTE]
        for pin in self._pins:
            lines += [f"⚠ {pin.label}: {warning}" for warning in pin.summary.warnings]
        return "\n".join(lines)

    def differing_cells(self) -> list[tuple[str, int]]:
        """(row label, column) of every highlighted cell (for tests and the report)."""
        out: list[tuple[str, int]] = []
        for row in range(self.table.rowCount()):
            name = self.table.item(row, 0)
            for col in range(1, self.table.columnCount()):
                item = self.table.item(row, col)
                if item is not None and item.data(Qt.ItemDataRole.UserRole) == "differs":
                    out.append((name.text() if name is not None else "", col))
        return out

    def _fill_sensitivity_choice(self) -> None:
        combo = self.sensitivity_choice
        wanted = combo.currentText()
        with QSignalBlocker(combo):
            combo.clear()
            for index, pin in enumerate(self._pins):
                combo.addItem(swatch_icon(SERIES[index % len(SERIES)]), pin.label)
            found = combo.findText(wanted)
            combo.setCurrentIndex(found if found >= 0 else 0)
        self._show_sensitivity()

    def _show_sensitivity(self, *_args: object) -> None:
        index = self.sensitivity_choice.currentIndex()
        result = self._pins[index].summary.sensitivity() if 0 <= index < len(self._pins) else None
        charts.fill_tornado(self.tornado_cost, result, "cost")
        charts.fill_tornado(self.tornado_time, result, "hours")

    def restyle(self) -> None:
        """Redraw with the active theme's colours."""
        self.tornado_legend.setText(charts.tornado_legend_html())
        self.refresh()


class CompareDialog(QDialog):
    """A window around :class:`CompareView` with its buttons (see the module docstring).

    ``current_scenario`` gives the window's scenario, its label and (optionally) its file
    name; ``export_report`` writes a
    report of the given summaries (both supplied by the main window). File choices and error
    messages go through replaceable callables, like the scenario document's.
    """

    def __init__(
        self,
        current_scenario: Callable[[], tuple[Scenario, str] | tuple[Scenario, str, str]],
        export_report: Callable[[Sequence[ScenarioSummary]], object] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("CompareDialog")
        self.setWindowTitle("Compare scenarios")
        self.setWindowFlag(Qt.WindowType.WindowMaximizeButtonHint, True)
        self.resize(1320, 860)
        self._current = current_scenario
        self._export = export_report
        self.choose_files: Callable[[], list[Path]] = self._files_dialog
        self.show_error: Callable[[str, str], None] = self._error_box

        self.view = CompareView()
        title = QLabel("Compare scenarios")
        title.setObjectName("DialogTitle")
        self.subtitle = QLabel("")
        self.subtitle.setObjectName("Hint")
        self.pin_button = QPushButton("Pin current")
        self.pin_button.setToolTip("Add the scenario in the main window (Ctrl+Shift+P)")
        self.add_button = QPushButton("Add files…")
        self.add_button.setToolTip("Add scenario files to the comparison (Ctrl+O)")
        self.export_button = QPushButton("Export report…")
        self.export_button.setToolTip("PDF report of the pinned scenarios (Ctrl+E)")
        self.export_button.setEnabled(export_report is not None)
        self.close_button = QPushButton("Close")
        for button in (self.pin_button, self.add_button, self.export_button, self.close_button):
            button.setAccessibleName(button.text().rstrip("…"))
        self.chips = QHBoxLayout()
        self.chips.setSpacing(6)

        top = QHBoxLayout()
        heading = QVBoxLayout()
        heading.setSpacing(2)
        heading.addWidget(title)
        heading.addWidget(self.subtitle)
        top.addLayout(heading, 1)
        for button in (self.pin_button, self.add_button, self.export_button, self.close_button):
            top.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(SPACING + 6, SPACING, SPACING + 6, SPACING)
        layout.setSpacing(INNER_SPACING)
        layout.addLayout(top)
        layout.addLayout(self.chips)
        layout.addWidget(self.view, 1)

        self.pin_button.clicked.connect(self.pin_current)
        self.add_button.clicked.connect(self.add_files)
        self.export_button.clicked.connect(self.export)
        self.close_button.clicked.connect(self.close)
        self.view.pins_changed.connect(self._show_chips)
        self.actions_by_name: dict[str, QAction] = {}
        for name, keys, slot in (
            ("pin", "Ctrl+Shift+P", self.pin_current),
            ("add", "Ctrl+O", self.add_files),
            ("export", "Ctrl+E", self.export),
            ("table", "Ctrl+1", lambda: self.view.pages.setCurrentIndex(0)),
            ("plots", "Ctrl+2", lambda: self.view.pages.setCurrentIndex(1)),
            ("sensitivity", "Ctrl+3", lambda: self.view.pages.setCurrentIndex(2)),
        ):
            action = QAction(name, self)
            action.setShortcut(QKeySequence(keys))
            action.triggered.connect(lambda _c=False, s=slot: s())
            self.addAction(action)
            self.actions_by_name[name] = action
        self._show_chips()

    def pin_current(self) -> bool:
        scenario, label, *file_name = self._current()
        shown_file = str(file_name[0]) if file_name else ""
        if not self.view.pin(scenario, label, current=True, file_name=shown_file):
            self.show_error("Compare scenarios", f"At most {MAX_PINNED} scenarios can be compared.")
            return False
        return True

    def add_files(self, paths: Sequence[Path] | None = None) -> list[str]:
        """Pin files (chosen in a dialog when not given); returns the problems shown."""
        chosen = list(paths) if paths is not None else self.choose_files()
        problems = [p for p in (self.view.add_file(Path(path)) for path in chosen) if p]
        if problems:
            self.show_error("Could not add to the comparison", "\n".join(problems))
        return problems

    def export(self) -> object:
        if self._export is None or not self.view.pins:
            return None
        return self._export(self.view.summaries())

    def _show_chips(self) -> None:
        while self.chips.count():
            item = self.chips.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()
                widget.deleteLater()
        for index, pin in enumerate(self.view.pins):
            chip = QPushButton(swatch_icon(SERIES[index % len(SERIES)]), f"{pin.label}  ✕")
            chip.setToolTip(
                "Remove from the comparison"
                + ("" if index == 0 else " (the first is the reference)")
            )
            chip.setAccessibleName(f"Remove {pin.label}")
            chip.clicked.connect(lambda _c=False, i=index: self.view.remove(i))
            self.chips.addWidget(chip)
        self.chips.addStretch(1)
        count = len(self.view.pins)
        self.subtitle.setText(
            f"{count} of {MAX_PINNED} scenarios pinned · the first is the reference"
            if count
            else f"Pin up to {MAX_PINNED} scenarios: the current one and files"
        )
        self.pin_button.setEnabled(True)
        self.add_button.setEnabled(not self.view.is_full())
        self.export_button.setEnabled(self._export is not None and count > 0)

    def _files_dialog(self) -> list[Path]:
        names, _filter = QFileDialog.getOpenFileNames(
            self, "Add scenarios", "", "Scenario files (*.json);;All files (*)"
        )
        return [Path(n) for n in names]

    def _error_box(self, title: str, message: str) -> None:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.warning(self, title, message)

    def restyle(self) -> None:
        self.view.restyle()
        self._show_chips()
