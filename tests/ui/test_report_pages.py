"""The PDF report's pages, read from the laid-out document (issue 16: "PDF page 2 is almost
empty and opens with a split table cell"), the compare legends and empty plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pypdf import PdfReader
from PySide6.QtCore import QSizeF
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication

from desktopapp.application.compare import ScenarioSummary, summarize
from desktopapp.model.scenario import load_scenario
from desktopapp.ui.common import plots
from desktopapp.ui.scenario import charts
from desktopapp.ui.scenario.compare import CompareView
from desktopapp.ui.scenario.pagination import (
    elements,
    page_spans,
    paginate,
    straddling_rows,
)
from desktopapp.ui.scenario.report import report_html, report_layout, write_report

REPO = Path(__file__).resolve().parents[2]
RENTED = REPO / "resources" / "examples" / "h100-8x-rented.json"
OWNED = REPO / "resources" / "examples" / "a100-16x-owned.json"
FULL_ENOUGH = 0.5  # every page but the last is at least half used


def _summary(path: Path) -> ScenarioSummary:
    return summarize(load_scenario(path).scenario, path.name, path.name)


def _copies(tmp_path: Path, params: float = 7e9) -> list[ScenarioSummary]:
    """Three copies of one scenario, all still named "a" (as Save As used to leave them)."""
    out = []
    for name, gpus in (("a", 8), ("b", 64), ("c", 512)):
        document = json.loads(RENTED.read_text(encoding="utf-8"))
        document["name"] = "a"
        document["training"]["gpus"] = gpus
        document["training"]["params"] = params
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        out.append(_summary(path))
    return out


def _check_pages(doc: QTextDocument, page_height: float) -> None:
    assert straddling_rows(doc, page_height) == []
    items = elements(doc)
    for index, element in enumerate(items[:-1]):
        if element.kind == "heading":  # never the last thing on its page
            assert items[index + 1].page(page_height) == element.page(page_height), element.text
    spans = page_spans(doc, page_height)
    for number, (_first, last) in enumerate(spans[:-1], start=1):
        assert last >= FULL_ENOUGH * page_height, f"page {number} of {len(spans)} nearly empty"


# --- pagination ---------------------------------------------------------------------------------


def test_a_row_across_a_page_boundary_moves_to_the_next_page(qapp: QApplication) -> None:
    doc = QTextDocument()
    rows = "".join(
        f"<tr><td>row {i}</td><td>{'several lines of detail ' * 30 if i % 4 == 0 else 'x'}"
        "</td></tr>"
        for i in range(40)
    )
    doc.setHtml(f"<h2>Heading</h2><p>intro</p><table cellpadding='4'>{rows}</table>")
    doc.setPageSize(QSizeF(400, 700))
    assert straddling_rows(doc, 700)  # Qt alone splits cells over pages
    assert paginate(doc, 700) > 0
    assert straddling_rows(doc, 700) == []
    texts = [e.text for e in elements(doc) if e.kind == "row"]
    assert len(texts) == 40 and texts[0].startswith("row 0")  # nothing lost


def _heading_and_next(doc: QTextDocument) -> tuple[int, int]:
    items = elements(doc)
    index = next(i for i, e in enumerate(items) if e.kind == "heading")
    return items[index].page(700), items[index + 1].page(700)


def test_a_heading_at_the_bottom_of_a_page_moves_with_its_text(qapp: QApplication) -> None:
    doc = QTextDocument()
    for lines in range(5, 60):  # fill until the heading is the last thing on page 1
        filler = "".join(f"<p>line {i}</p>" for i in range(lines))
        doc.setHtml(f"{filler}<h2>Next part</h2><p>its text</p>{filler}")
        doc.setPageSize(QSizeF(400, 700))
        heading_page, next_page = _heading_and_next(doc)
        if heading_page != next_page:
            break
    assert heading_page != next_page  # the case of the issue, before paginate
    assert paginate(doc, 700) > 0
    heading_page, next_page = _heading_and_next(doc)
    assert heading_page == next_page == 1


@pytest.mark.parametrize("case", ["one", "two", "copies", "huge"])
def test_report_pages_keep_rows_together_and_are_never_nearly_empty(
    case: str, tmp_path: Path, qapp: QApplication
) -> None:
    summaries = {
        "one": lambda: [_summary(RENTED)],
        "two": lambda: [_summary(RENTED), _summary(OWNED)],
        "copies": lambda: _copies(tmp_path),
        "huge": lambda: _copies(tmp_path, params=2e14),
    }[case]()
    paged = report_layout(summaries, file_name="x.json")
    _check_pages(paged.doc, paged.content_h)
    # The real PDF writer prints the pages laid out here.
    info = write_report(tmp_path / "r.pdf", summaries, file_name="x.json")
    assert info.page_count == paged.page_count == len(PdfReader(str(tmp_path / "r.pdf")).pages)


def test_the_report_warns_about_inputs_beyond_any_real_system(
    tmp_path: Path, qapp: QApplication
) -> None:
    from datetime import datetime

    huge = _copies(tmp_path, params=2e14)
    text = report_html(huge, file_name="a.json", created=datetime(2026, 1, 1), text_width_px=600)
    assert "Check these inputs" in text and "beyond any real system" in text
    fine = [_summary(RENTED)]
    text = report_html(fine, file_name="r.json", created=datetime(2026, 1, 1), text_width_px=600)
    assert "Check these inputs" not in text


# --- compare legends and empty plots ------------------------------------------------------------


def _legend(plot: object) -> list[str]:
    legend = plot.getPlotItem().legend  # type: ignore[attr-defined]
    return [label.text for _sample, label in legend.items]


def test_compare_legends_name_each_copy_by_its_file(tmp_path: Path, qapp: QApplication) -> None:
    plot_list = charts.overlay_plots()
    charts.fill_overlay(plot_list, _copies(tmp_path))
    assert _legend(plot_list[0]) == ["a.json", "b.json", "c.json"]
    assert len(set(_legend(plot_list[3]))) == len(_legend(plot_list[3])) == 6


def test_an_emptied_plot_keeps_no_stale_axes(tmp_path: Path, qapp: QApplication) -> None:
    plot_list = charts.overlay_plots()
    charts.fill_overlay(plot_list, _copies(tmp_path))
    assert all(plots.data_curves(p) for p in plot_list)
    charts.fill_overlay(plot_list, [])
    for plot in plot_list:
        item = plot.getPlotItem()
        assert plots.data_curves(plot) == [] and _legend(plot) == []
        assert plots.empty_note(plot) == "no scenario pinned"
        assert not item.getAxis("left").style["showValues"]
    charts.fill_overlay(plot_list, _copies(tmp_path)[:1])  # data again: values back
    assert plots.empty_note(plot_list[0]) == ""
    assert plot_list[0].getPlotItem().getAxis("left").style["showValues"]


def test_compare_view_shows_plausibility_warnings(tmp_path: Path, qapp: QApplication) -> None:
    view = CompareView()
    huge = _copies(tmp_path, params=2e14)[0]
    view.pin(huge.scenario, "huge (a.json)", tmp_path / "a.json")
    assert "huge (a.json): parameters" in view.table_note.text()
    view.clear()
    assert "beyond" not in view.table_note.text()
    view.deleteLater()
