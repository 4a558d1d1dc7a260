"""Compare view, tornado charts, PDF report, and plot/table/result export."""

from __future__ import annotations

import csv
import io
import re
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktopapp.application.compare import delta_text, relative_change, summarize
from desktopapp.application.snapshot import compute_snapshot, request_from_scenario
from desktopapp.model import units
from desktopapp.model.catalog import accelerator_catalog, offer_by_id
from desktopapp.model.scenario import load_scenario
from desktopapp.ui.common import export
from desktopapp.ui.main_window import MainWindow
from desktopapp.ui.scenario import charts
from desktopapp.ui.scenario.compare import MAX_PINNED, CompareView
from desktopapp.ui.scenario.document import DISCARD
from desktopapp.ui.scenario.report import write_report

REPO = Path(__file__).resolve().parents[2]
RENTED = REPO / "resources" / "examples" / "h100-8x-rented.json"
OWNED = REPO / "resources" / "examples" / "a100-16x-owned.json"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def window(qtbot: QtBot, isolated_home: Path) -> MainWindow:
    win = MainWindow(initial_tab="monitor", remember=False)
    qtbot.addWidget(win)
    win.document.ask_unsaved = lambda _name: DISCARD
    errors: list[tuple[str, str]] = []
    win.document.show_error = lambda title, message: errors.append((title, message))
    win.errors = errors  # type: ignore[attr-defined]
    return win


def pdf_text(path: Path) -> tuple[int, str]:
    reader = PdfReader(str(path))
    text = "\n".join(page.extract_text() or "" for page in reader.pages)
    # NFKC: Qt's PDF writer keeps ligatures ("ﬁ"); compare the plain letters.
    return len(reader.pages), re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text))


def snapshot_of(path: Path) -> Any:
    """The scenario's snapshot: the figures every face shows (issue 21)."""
    return compute_snapshot(request_from_scenario(load_scenario(path).scenario))


def wall_text(path: Path) -> str:
    fig = snapshot_of(path).training
    assert fig is not None
    return units.format_duration(fig.wall_seconds)


def owned_wall_cell() -> str:
    """The owned scenario's wall time in the compare table, against the rented one."""
    rented, owned = snapshot_of(RENTED).training, snapshot_of(OWNED).training
    change = relative_change(owned.wall_seconds / 3600.0, rented.wall_seconds / 3600.0)
    return f"{wall_text(OWNED)}   {delta_text(change)}"


def data_items(plot: Any) -> list[Any]:
    items = plot.getPlotItem().listDataItems()
    return [item for item in items if item.xData is not None and len(item.xData) > 1]


# --- compare --------------------------------------------------------------------------------------


def test_compare_rented_against_owned(qtbot: QtBot, window: MainWindow) -> None:
    assert window.document.open(RENTED)
    window.compare_action.trigger()
    dialog = window.compare_dialog
    assert dialog is not None and dialog.isVisible()
    assert [p.current for p in dialog.view.pins] == [True]  # the current scenario, pinned
    assert dialog.add_files([OWNED]) == []
    view = dialog.view
    assert [p.label for p in view.pins] == [
        "8 × H100, rented on demand (h100-8x-rented.json)",
        "16 × A100, owned (a100-16x-owned.json)",
    ]
    table = view.table
    assert table.columnCount() == 3
    headers = [table.horizontalHeaderItem(c).text() for c in range(3)]  # type: ignore[union-attr]
    assert headers[1:] == [p.label for p in view.pins]
    differing = {name for name, _col in view.differing_cells()}
    assert {"Accelerator", "Devices", "Wall time", "Cost of the run"} <= differing
    assert "Parameters" not in differing and "Training tokens" not in differing
    # Results show the change against the first scenario.
    texts = {}
    for row in range(table.rowCount()):
        name, cell = table.item(row, 0), table.item(row, 2)
        assert name is not None and cell is not None
        texts[name.text()] = cell.text()
    assert texts["Wall time"] == owned_wall_cell()
    assert texts["Devices"] == "16"
    # Overlaid curves: one per scenario in each plot (the model's sweeps).
    time_plot, cost_plot, util_plot, tco_plot = view.plots
    assert len(data_items(time_plot)) == 2 and len(data_items(cost_plot)) == 2
    assert len(data_items(util_plot)) == 2
    assert len(data_items(tco_plot)) == 4  # owning curve and renting line per scenario
    rented = summarize(load_scenario(RENTED).scenario)
    curves = rented.curves()
    assert curves.devices is not None
    first = data_items(time_plot)[0]
    assert list(first.xData) == pytest.approx(list(curves.devices.values))
    # The sensitivity page follows the chosen scenario.
    view.sensitivity_choice.setCurrentIndex(1)
    labels = charts.fill_tornado(view.tornado_time, view.pins[1].summary.sensitivity(), "hours")
    assert labels[0].startswith(("Devices", "Utilization", "Peak"))
    assert any(label.startswith("Parameters  5.25B … 8.75B") for label in labels)


def test_compare_limits_and_bad_files(window: MainWindow, tmp_path: Path) -> None:
    dialog = window.show_compare()
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "desktopapp-scenario", "version": 99}', encoding="utf-8")
    problems = dialog.add_files([bad])
    assert problems == [
        "bad.json: format version 99 is newer than this app supports (3); update the app to open it"
    ]
    assert window.errors[-1][1] == problems[0]  # type: ignore[attr-defined]
    assert len(dialog.view.pins) == 1
    copies = []
    for index in range(4):
        copy = tmp_path / f"plan{index}.json"
        copy.write_bytes(OWNED.read_bytes())
        copies.append(copy)
    dialog.add_files(copies)
    assert len(dialog.view.pins) == MAX_PINNED
    assert "At most 4" in window.errors[-1][1]  # type: ignore[attr-defined]
    assert not dialog.add_button.isEnabled()
    assert dialog.pin_current()  # re-pinning the current one replaces it
    dialog.view.remove(0)
    assert len(dialog.view.pins) == MAX_PINNED - 1 and dialog.add_button.isEnabled()


def test_compare_view_empty_and_reference(qtbot: QtBot) -> None:
    view = CompareView()
    qtbot.addWidget(view)
    assert view.pages.isHidden() and not view.empty.isHidden()
    owned = load_scenario(OWNED).scenario
    rented = load_scenario(RENTED).scenario
    view.pin(owned, "owned")
    view.pin(rented, "rented", path=RENTED)
    view.move_first(1)
    assert [p.label for p in view.pins] == ["rented", "owned"]
    assert view.table.horizontalHeaderItem(1).text() == "rented"  # type: ignore[union-attr]


# --- report ---------------------------------------------------------------------------------------


def test_export_report_pdf(window: MainWindow, tmp_path: Path) -> None:
    assert window.document.open(RENTED)
    window.choose_report_path = lambda _suggested: tmp_path / "report"
    window.export_action.trigger()
    target = tmp_path / "report.pdf"
    assert target.is_file()
    assert "Report saved: report.pdf" in window.statusBar().currentMessage()
    pages, text = pdf_text(target)
    info = write_report(tmp_path / "again.pdf", [window.current_summary()])
    assert pages == info.page_count >= 3  # summary, scaling and sensitivity, sources
    assert f"Page {pages} of {pages}" in text
    assert "8 × H100, rented on demand" in text  # title
    assert "Scenario report" in text
    assert "7B" in text and "150B" in text and "$3.99/GPU-h" in text  # inputs with units
    fig = snapshot_of(RENTED).training
    assert fig is not None and fig.cost_usd is not None
    # results with units: the snapshot's figures (the modelled run, not a flat 40%)
    assert wall_text(RENTED) in text and units.format_money(fig.cost_usd) in text
    assert "linear in the device count" not in text
    # Sources and dates of the catalog numbers used.
    acc = accelerator_catalog().get("h100-sxm")
    assert re.sub(r"\s+", " ", acc.source)[:25] in text and acc.source_date in text
    offer = offer_by_id("lambda/gpu-8x-h100-sxm5/all")
    assert offer.source[:20] in text and offer.price_date in text
    assert "Sources of catalog figures" in text


def test_report_of_a_comparison_has_a_comparison_page(tmp_path: Path, qapp: QApplication) -> None:
    summaries = [summarize(load_scenario(p).scenario, p.name) for p in (RENTED, OWNED)]
    one = write_report(tmp_path / "one.pdf", summaries[:1])
    two = write_report(tmp_path / "two.pdf", summaries, file_name="h100-8x-rented.json")
    pages, text = pdf_text(tmp_path / "two.pdf")
    assert pages == two.page_count > one.page_count
    assert "Comparison" in text and "compared with a100-16x-owned.json" in text
    assert owned_wall_cell().split()[-1] in text  # how much longer the owned run takes
    assert "NVIDIA A100 80GB SXM4" in text and "2023-09" in text  # the A100 server price date
    with pytest.raises(ValueError, match="summaries"):
        write_report(tmp_path / "none.pdf", [])


def test_report_write_failure_is_reported(window: MainWindow, tmp_path: Path) -> None:
    window.choose_report_path = lambda _s: tmp_path / "missing-folder" / "r.pdf"
    assert window.export_report() is None
    assert window.errors and "r.pdf" in window.errors[-1][1]  # type: ignore[attr-defined]
    assert not (tmp_path / "missing-folder").exists()


# --- export ---------------------------------------------------------------------------------------


def test_plot_to_svg_and_png(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    assert window.document.open(RENTED)
    tab = window.ensure_tab_loaded("estimate")
    window.set_current_tab("estimate")
    plot = tab.plots.time_plot  # type: ignore[attr-defined]
    titles = [a.text() for a in plot.actions()]
    assert titles == ["Save plot as PNG…", "Save plot as SVG…", "Copy plot image"]
    chosen: list[str] = []

    def choose(_parent: object, _title: str, suggested: str, _filters: str) -> Path:
        chosen.append(suggested)
        return tmp_path / Path(suggested).stem

    original = export.choose_path
    export.choose_path = choose
    try:
        plot.actions()[1].trigger()
        plot.actions()[0].trigger()
    finally:
        export.choose_path = original
    assert chosen == ["wall-time-vs-devices.svg", "wall-time-vs-devices.png"]
    svg = tmp_path / "wall-time-vs-devices.svg"
    root = ET.parse(svg).getroot()
    assert root.tag == f"{SVG}svg"
    drawn = [e for e in root.iter() if e.tag in (f"{SVG}path", f"{SVG}polyline", f"{SVG}line")]
    texts = [e.text or "" for e in root.iter(f"{SVG}text")]
    assert len(drawn) > 5
    assert "devices" in " ".join(texts) and "512" in texts
    assert root.find(f"{SVG}title") is not None
    png = QImage(str(tmp_path / "wall-time-vs-devices.png"))
    assert not png.isNull()
    assert png.width() == plot.width() * 2  # sharp: two pixels per point
    colours = {png.pixel(x, png.height() // 2) for x in range(0, png.width(), 3)}
    assert len(colours) > 3  # not a blank image


def test_table_to_csv(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    assert window.document.open(RENTED)
    dialog = window.show_compare()
    dialog.add_files([OWNED])
    table = dialog.view.table
    assert [a.text() for a in table.actions()] == ["Copy table", "Export table as CSV…"]
    path = export.save_table_csv(table, tmp_path / "compare.csv")
    text = path.read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["", *[p.label for p in dialog.view.pins]]
    by_name = {row[0]: row[1:] for row in rows[1:]}
    assert by_name["Devices"] == ["8", "16"]
    assert by_name["Wall time"] == [wall_text(RENTED), owned_wall_cell()]
    table.actions()[0].trigger()
    assert QApplication.clipboard().text() == export.table_csv(table)


def test_copy_result_with_formula(qtbot: QtBot, window: MainWindow) -> None:
    assert window.document.open(RENTED)
    tab = window.ensure_tab_loaded("estimate")
    card = tab.training_results.time_card  # type: ignore[attr-defined]
    actions = card.actions()
    assert [a.text() for a in actions] == ["Copy result with formula"]
    QApplication.clipboard().clear()
    actions[0].trigger()
    text = QApplication.clipboard().text()
    # the example plans with the modelled run (its utilization is saved as the default)
    est = window.state.estimate
    assert est is not None
    assert text.startswith(f"Wall time: {units.format_duration(est.training_seconds)} (8 devices")
    assert "step = compute" in text  # the modelled run's formula
    assert "goodput" in text and "likely range" in text  # the inputs that went in
    assert "Copied Wall time" in window.statusBar().currentMessage()


def test_export_actions_are_idempotent(qtbot: QtBot, window: MainWindow) -> None:
    tab = window.ensure_tab_loaded("estimate")
    assert export.install_export_actions(tab) == 0  # installed when the tab was built
    assert len(tab.plots.time_plot.actions()) == 3  # type: ignore[attr-defined]


def test_screenshot_of_a_scenario_and_of_the_compare_dialog(tmp_path: Path) -> None:
    from tests.ui.test_app import run_gui

    shot = tmp_path / "compare.png"
    result = run_gui(
        [str(RENTED), "--compare", str(OWNED), "--screenshot", str(shot), "--size", "1200x800"],
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1200, 800)
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 23) for y in range(0, image.height(), 17)
    }
    assert len(colours) > 30
