"""One-click PDF report of a scenario (and the scenarios compared with it), with Qt's own PDF
writer: ``QTextDocument`` lays out the HTML, ``QPdfWriter`` + ``QPainter`` draw it page by page
with a running header and a "page i of n" footer.

Contents, in this order:

1. Title, date, notes, key results, warnings about inputs beyond any real system, every input
   and assumption, results with units.
2. Scaling: wall time and cost against devices, cost against utilization, owning against
   renting (the plots of the compare view, rendered to images, light theme).
3. Sensitivity: the tornado charts of cost and wall time (±25% per input).
4. Comparison (two or more scenarios): the side-by-side table.
5. Assumptions and sources: every assumption of every estimate, and the source, date and
   confidence of every catalog figure used (accelerator rows, offers, server prices).

Parts follow each other without forced page breaks (a forced break after a page that ran over
by a few lines left a nearly empty page). :func:`~desktopapp.ui.scenario.pagination.paginate`
keeps every table row on one page and every heading with what it introduces.
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, QSize, QSizeF, Qt, QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QImage,
    QPageLayout,
    QPageSize,
    QPaintDevice,
    QPainter,
    QPdfWriter,
    QPen,
    QTextDocument,
)

from desktopapp import APP_NAME, __version__
from desktopapp.application.compare import (
    ScenarioSummary,
    delta_text,
    relative_change,
    union_keys,
)
from desktopapp.model.atomic import atomic_write_bytes
from desktopapp.ui.common.export import plot_image
from desktopapp.ui.common.theme import COLORS, current_theme, use_palette
from desktopapp.ui.scenario import charts
from desktopapp.ui.scenario.pagination import paginate

RESOLUTION_DPI = 300
MARGIN_MM = (16.0, 20.0, 16.0, 18.0)  # left, top, right, bottom
CSS_PX_PER_INCH = 96.0  # QTextDocument sizes (img width, table widths) are CSS pixels
RESULTS = "Results"
KEY_RESULTS = ("Total compute", "Wall time", "GPU-hours", "Cost of the run")


@dataclass(frozen=True)
class ReportInfo:
    path: Path
    page_count: int
    title: str


@contextmanager
def light_palette() -> Iterator[None]:
    """Reports are printed light whatever the window's theme."""
    previous = current_theme()
    use_palette("light")
    try:
        yield
    finally:
        use_palette(previous)


def _esc(text: object) -> str:
    return html.escape(str(text))


# --- images -------------------------------------------------------------------------------------


def _render(plot: Any, width: int, height: int) -> QImage:
    plot.resize(width, height)
    image = plot_image(plot, QSize(width, height), pixel_ratio=2.5)
    plot.deleteLater()
    return image


def render_images(summaries: Sequence[ScenarioSummary]) -> dict[str, QImage]:
    """Overlay plots and the first scenario's tornado charts, as images keyed by name."""
    images: dict[str, QImage] = {}
    plot_list = charts.overlay_plots()
    charts.fill_overlay(plot_list, summaries)
    for index, plot in enumerate(plot_list):
        images[f"overlay{index}"] = _render(plot, 460, 300)
    result = summaries[0].sensitivity() if summaries else None
    for metric in ("cost", "hours"):
        plot = charts.tornado_plot(metric)
        charts.fill_tornado(plot, result, metric)
        images[f"tornado-{metric}"] = _render(plot, 820, charts.tornado_height(result))
    return images


# --- HTML ---------------------------------------------------------------------------------------

_STYLE = """
body {{ color: {text}; }}
h1 {{ font-size: 20pt; font-weight: 700; margin-bottom: 2px; color: {text}; }}
h2 {{ font-size: 13pt; font-weight: 700; margin-top: 16px; margin-bottom: 6px;
      color: {accent_dark}; }}
h3 {{ font-size: 10pt; font-weight: 700; margin-top: 10px; margin-bottom: 4px; color: {text}; }}
h4 {{ font-size: 8.5pt; font-weight: 700; margin-top: 6px; margin-bottom: 2px; color: {text}; }}
p {{ margin-top: 2px; margin-bottom: 4px; }}
.sub {{ color: {muted}; font-size: 9pt; }}
.muted {{ color: {muted}; }}
.small {{ font-size: 7.5pt; color: {muted}; }}
.section {{ font-weight: 700; color: {accent_dark}; background-color: {surface_alt}; }}
.value {{ font-weight: 600; }}
.big {{ font-size: 15pt; font-weight: 600; color: {text}; white-space: nowrap; }}
.caption {{ font-size: 7.5pt; font-weight: 700; color: {muted}; }}
.good {{ color: {good}; font-weight: 600; }}
.bad {{ color: {bad}; font-weight: 600; }}
.diff {{ background-color: {accent_soft}; font-weight: 600; }}
"""


def _key_cards(summary: ScenarioSummary) -> str:
    cells = []
    for label in KEY_RESULTS:
        row = summary.row(RESULTS, label)
        value = row.text if row is not None else "—"
        cells.append(
            f"<td width='25%' bgcolor='{COLORS['surface_alt']}' style='padding: 8px'>"
            f"<span class='caption'>{_esc(label.upper())}</span><br>"
            f"<span class='big'>{_esc(value)}</span></td>"
        )
    project = next(
        (r for r in summary.rows if r.section == RESULTS and r.label.startswith("Whole project")),
        None,
    )
    note = (
        "<p class='small'>Low end: this estimate, compute only. "
        f"{_esc(project.label)} for experiments, tuning, failed and repeated runs: "
        f"{_esc(project.text)}.</p>"
        if project is not None
        else ""
    )
    return (
        "<table width='100%' cellspacing='6' cellpadding='0'><tr>"
        + "".join(cells)
        + "</tr></table>"
        + note
    )


def _rows_table(summary: ScenarioSummary, results: bool) -> str:
    lines = [
        "<table width='100%' cellspacing='0' cellpadding='4' "
        f"style='border-collapse: collapse; border-color: {COLORS['border']}'>"
    ]
    section = None
    for row in summary.rows:
        if (row.section == RESULTS) != results:
            continue
        if row.section != section and not results:
            section = row.section
            lines.append(f"<tr><td colspan='3' class='section'>{_esc(section.upper())}</td></tr>")
        detail = (
            f"<span class='small'>{_esc(row.detail)}</span>"
            if row.detail and row.detail != row.text and len(row.detail) < 400
            else ""
        )
        lines.append(
            f"<tr><td width='26%' class='muted'>{_esc(row.label)}</td>"
            f"<td width='34%' class='value'>{_esc(row.text)}</td><td>{detail}</td></tr>"
        )
    lines.append("</table>")
    return "".join(lines)


def _comparison_table(summaries: Sequence[ScenarioSummary]) -> str:
    keys = union_keys(summaries)
    width = int(70 / max(1, len(summaries)))
    head = "".join(
        f"<th width='{width}%' align='left' style='color: {charts.SERIES[i % len(charts.SERIES)]}'>"
        f"■ {_esc(s.label)}</th>"
        for i, s in enumerate(summaries)
    )
    lines = [
        "<table width='100%' cellspacing='0' cellpadding='4'>",
        f"<tr><th width='30%'></th>{head}</tr>",
    ]
    section = None
    for sec, label in keys:
        if sec != section:
            section = sec
            lines.append(
                f"<tr><td colspan='{len(summaries) + 1}' class='section'>"
                f"{_esc(sec.upper())}</td></tr>"
            )
        reference = summaries[0].row(sec, label)
        cells = []
        for index, summary in enumerate(summaries):
            row = summary.row(sec, label)
            text = "—" if row is None else row.text
            css = ""
            extra = ""
            if index > 0:
                differs = (row is None) != (reference is None) or (
                    row is not None and reference is not None and row.text != reference.text
                )
                css = " class='diff'" if differs else ""
                if sec == RESULTS and row is not None and reference is not None:
                    change = relative_change(row.value, reference.value)
                    if change is not None and abs(change) >= 0.0005:
                        good = row.better and ((change < 0) == (row.better == "lower"))
                        kind = "good" if good else ("bad" if row.better else "muted")
                        extra = f" <span class='{kind}'>{delta_text(change)}</span>"
            cells.append(f"<td{css}>{_esc(text)}{extra}</td>")
        lines.append(f"<tr><td class='muted'>{_esc(label)}</td>{''.join(cells)}</tr>")
    lines.append("</table>")
    return "".join(lines)


def _warnings(summary: ScenarioSummary) -> str:
    """Inputs beyond any real system: still computed, but worth a second look."""
    if not summary.warnings:
        return ""
    items = "".join(f"<li>{_esc(w)}</li>" for w in summary.warnings)
    return f"<p class='bad'>Check these inputs:</p><ul>{items}</ul>"


def _assumptions_and_sources(summaries: Sequence[ScenarioSummary]) -> str:
    parts = ["<h2>Assumptions</h2>"]
    for summary in summaries:
        if len(summaries) > 1:
            parts.append(f"<h3>{_esc(summary.label)}</h3>")
        for title, assumptions in summary.assumptions:
            parts.append(f"<h4>{_esc(title)}</h4>")  # a heading: kept with its table
            parts.append("<table width='100%' cellspacing='0' cellpadding='3'>")
            for a in assumptions:
                parts.append(
                    f"<tr><td width='24%' class='muted'>{_esc(a.name)}</td>"
                    f"<td width='30%' class='value'>{_esc(a.value)}</td>"
                    f"<td class='small'>{_esc(a.source)}</td></tr>"
                )
            parts.append("</table>")
        if summary.problems:
            parts.append(
                "<p class='bad'>Not computable: " + _esc("; ".join(summary.problems)) + "</p>"
            )
        if len(summaries) > 1:
            parts.append(_warnings(summary))
    parts.append("<h2>Sources of catalog figures</h2>")
    parts.append(
        "<p class='small'>Every catalog number the results used, with where it comes from, "
        "when it was taken and how confident the catalog is in it.</p>"
    )
    parts.append(
        "<table width='100%' cellspacing='0' cellpadding='3'>"
        "<tr><th align='left' width='26%'>Figure</th><th align='left' width='22%'>Value</th>"
        "<th align='left'>Source</th><th align='left' width='10%'>Date</th></tr>"
    )
    seen: set[tuple[str, str]] = set()
    for summary in summaries:
        for source in summary.sources:
            key = (source.what, source.source)
            if key in seen:
                continue
            seen.add(key)
            confidence = f" · {source.confidence} confidence" if source.confidence else ""
            parts.append(
                f"<tr><td class='value'>{_esc(source.what)}</td>"
                f"<td>{_esc(source.value)}</td>"
                f"<td class='small'>{_esc(source.source)}{_esc(confidence)}</td>"
                f"<td>{_esc(source.date or '—')}</td></tr>"
            )
    parts.append("</table>")
    return "".join(parts)


def report_html(
    summaries: Sequence[ScenarioSummary],
    *,
    file_name: str,
    created: datetime,
    text_width_px: float,
) -> str:
    """The report as HTML for ``QTextDocument`` (images as ``img://name`` resources)."""
    first = summaries[0]
    title = first.scenario.name or first.label
    others = [s.label for s in summaries[1:]]
    subtitle = " · ".join(
        part
        for part in (
            "Scenario report",
            file_name,
            f"compared with {', '.join(others)}" if others else "",
            created.strftime("%Y-%m-%d %H:%M"),
        )
        if part
    )
    half = int(text_width_px / 2 - 6)
    full = int(text_width_px)
    notes = (
        f"<table width='100%' cellpadding='8' bgcolor='{COLORS['surface_alt']}'><tr><td>"
        f"<span class='caption'>NOTES</span><br>"
        f"{_esc(first.scenario.notes).replace(chr(10), '<br>')}</td></tr></table>"
        if first.scenario.notes.strip()
        else ""
    )
    problems = (
        f"<p class='bad'>Not computable: {_esc('; '.join(first.problems))}</p>"
        if first.problems
        else ""
    )
    parts = [
        f"<h1>{_esc(title)}</h1>",
        f"<p class='sub'>{_esc(subtitle)}</p>",
        notes,
        "<h2>Key results</h2>",
        _key_cards(first),
        problems,
        _warnings(first),
        "<h2>Results</h2>",
        _rows_table(first, results=True),
        "<h2>Inputs and assumptions</h2>",
        _rows_table(first, results=False),
        "<h2>Scaling</h2>",
        "<p class='muted'>Every curve comes from the model's sweeps with all other inputs as "
        "given; the dots mark each scenario's own choice."
        + (" One colour per scenario." if len(summaries) > 1 else "")
        + "</p>",
        "<table cellspacing='0' cellpadding='2'>"
        f"<tr><td><img src='img://overlay0' width='{half}'></td>"
        f"<td><img src='img://overlay1' width='{half}'></td></tr>"
        f"<tr><td><img src='img://overlay2' width='{half}'></td>"
        f"<td><img src='img://overlay3' width='{half}'></td></tr></table>",
        "<p class='small'>Cost against utilization: model FLOPs utilization of the run. Owning "
        "against renting: cost of a useful GPU-hour of an owned fleet at each fleet "
        "utilization (solid) and of the rented price (dashed); they cross at the break-even.</p>",
        "<h2>Sensitivity</h2>",
        f"<p class='muted'>{_esc(first.label)}: how the result moves when one input is 25% lower "
        "or higher and everything else stays as given. Blue: input lower; orange: input "
        "higher. The longest bars are the inputs worth pinning down first.</p>",
        f"<p><img src='img://tornado-cost' width='{full}'></p>",
        f"<p><img src='img://tornado-hours' width='{full}'></p>",
    ]
    if len(summaries) > 1:
        parts += [
            "<h2>Comparison</h2>",
            "<p class='muted'>Highlighted: differs from the first scenario. Changes are against "
            "the first scenario; green is better, red worse.</p>",
            _comparison_table(summaries),
        ]
    parts.append(_assumptions_and_sources(summaries))
    parts.append(
        f"<p class='small'>Generated by {_esc(APP_NAME)} {_esc(__version__)}. Estimates, not "
        "quotes: check prices with the provider before you commit.</p>"
    )
    return "".join(p for p in parts if p)


# --- PDF ----------------------------------------------------------------------------------------


def _mm_to_px(mm: float) -> float:
    return mm / 25.4 * RESOLUTION_DPI


def write_report(
    path: str | Path,
    summaries: Sequence[ScenarioSummary],
    *,
    file_name: str = "",
    created: datetime | None = None,
) -> ReportInfo:
    """Write the PDF (atomically) and return its page count. Raises OSError when the file
    cannot be written and ValueError without a scenario."""
    if not summaries:
        raise ValueError("summaries: give at least one scenario")
    target = Path(path)
    created = created or datetime.now()
    title = summaries[0].scenario.name or summaries[0].label
    tmp = target.with_name(f".{target.name}.partial")
    with light_palette():
        images = render_images(summaries)
        pages = _paint_pdf(tmp, summaries, images, title, file_name, created)
    try:
        atomic_write_bytes(target, tmp.read_bytes())
    finally:
        tmp.unlink(missing_ok=True)
    return ReportInfo(target, pages, title)


@dataclass
class PagedReport:
    """The report laid out for the page: the document (in the writer's device pixels), the
    page geometry and how many rows or headings :func:`paginate` moved."""

    doc: QTextDocument
    page_w: float
    page_h: float
    margins: tuple[float, float, float, float]  # left, top, right, bottom
    moves: int
    keep: tuple[object, ...] = ()  # the paint device (and its buffer) the layout measures with

    @property
    def content_w(self) -> float:
        return self.page_w - self.margins[0] - self.margins[2]

    @property
    def content_h(self) -> float:
        return self.page_h - self.margins[1] - self.margins[3]

    @property
    def page_count(self) -> int:
        return self.doc.pageCount()


def _setup_writer(writer: QPdfWriter, title: str) -> None:
    writer.setResolution(RESOLUTION_DPI)
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(QMarginsF(0, 0, 0, 0), QPageLayout.Unit.Millimeter)
    writer.setTitle(f"{title} — scenario report")
    writer.setCreator(f"{APP_NAME} {__version__}")


def layout_report(
    device: QPaintDevice,
    summaries: Sequence[ScenarioSummary],
    images: dict[str, QImage],
    *,
    file_name: str,
    created: datetime,
) -> PagedReport:
    """Lay the report out for ``device`` (the PDF writer: A4 at :data:`RESOLUTION_DPI`) and
    paginate it. Tests read the pages from the result without drawing anything."""
    left, top, right, bottom = (_mm_to_px(m) for m in MARGIN_MM)
    page_w, page_h = float(device.width()), float(device.height())
    content_w, content_h = page_w - left - right, page_h - top - bottom
    css_scale = RESOLUTION_DPI / CSS_PX_PER_INCH

    doc = QTextDocument()
    doc.documentLayout().setPaintDevice(device)
    font = QFont("DejaVu Sans")
    font.setPointSizeF(8.5)
    doc.setDefaultFont(font)
    doc.setDocumentMargin(0)
    doc.setDefaultStyleSheet(_STYLE.format(**COLORS))
    for name, image in images.items():
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"img://{name}"), image)
    doc.setHtml(
        report_html(
            summaries, file_name=file_name, created=created, text_width_px=content_w / css_scale
        )
    )
    doc.setPageSize(QSizeF(content_w, content_h))
    moves = paginate(doc, content_h, css_scale)
    return PagedReport(doc, page_w, page_h, (left, top, right, bottom), moves)


def report_layout(
    summaries: Sequence[ScenarioSummary],
    *,
    file_name: str = "",
    created: datetime | None = None,
) -> PagedReport:
    """The report as :func:`write_report` lays it out (same writer settings, same images),
    written to memory only: for tests and previews."""
    if not summaries:
        raise ValueError("summaries: give at least one scenario")
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    _setup_writer(writer, summaries[0].scenario.name or summaries[0].label)
    with light_palette():
        images = render_images(summaries)
        paged = layout_report(
            writer, summaries, images, file_name=file_name, created=created or datetime.now()
        )
    paged.keep = (writer, buffer)  # the layout measures with the writer: keep it alive
    return paged


def _paint_pdf(
    tmp: Path,
    summaries: Sequence[ScenarioSummary],
    images: dict[str, QImage],
    title: str,
    file_name: str,
    created: datetime,
) -> int:
    writer = QPdfWriter(str(tmp))
    _setup_writer(writer, title)
    paged = layout_report(writer, summaries, images, file_name=file_name, created=created)
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError(f"{tmp.name}: could not start the PDF")
    try:
        paint_pages(painter, paged, title, created, new_page=writer.newPage)
    finally:
        painter.end()
    return paged.page_count


def paint_pages(
    painter: QPainter,
    paged: PagedReport,
    title: str,
    created: datetime,
    new_page: Any = None,
    pages: Sequence[int] | None = None,
) -> None:
    """Draw the pages (header, footer, content) with ``painter``; ``new_page()`` between pages
    (the PDF writer's), or nothing when each page is drawn on its own device."""
    doc = paged.doc
    left, top, right, bottom = paged.margins
    content_w, content_h = paged.content_w, paged.content_h
    count = paged.page_count
    small = QFont("DejaVu Sans")
    small.setPointSizeF(7.0)
    for n, index in enumerate(range(count) if pages is None else pages):
        if n and new_page is not None:
            new_page()
        _header_footer(
            painter,
            small,
            index,
            count,
            title,
            created,
            left,
            top,
            right,
            bottom,
            paged.page_w,
            paged.page_h,
        )
        painter.save()
        painter.translate(left, top - index * content_h)
        doc.drawContents(painter, QRectF(0, index * content_h, content_w, content_h))
        painter.restore()


def page_images(
    summaries: Sequence[ScenarioSummary], *, file_name: str = "", width_px: int = 620
) -> list[QImage]:
    """Each page of the report as an image ``width_px`` wide (a preview to look at; the PDF
    itself comes from :func:`write_report`)."""
    created = datetime.now()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    title = summaries[0].scenario.name or summaries[0].label
    _setup_writer(writer, title)
    out = []
    with light_palette():
        images = render_images(summaries)
        paged = layout_report(writer, summaries, images, file_name=file_name, created=created)
        scale = width_px / paged.page_w
        for index in range(paged.page_count):
            image = QImage(
                width_px, int(paged.page_h * scale), QImage.Format.Format_ARGB32_Premultiplied
            )
            image.fill(QColor("white"))
            dots_per_meter = round(RESOLUTION_DPI / 0.0254)  # fonts sized as on the writer
            image.setDotsPerMeterX(dots_per_meter)
            image.setDotsPerMeterY(dots_per_meter)
            painter = QPainter(image)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.scale(scale, scale)
            paint_pages(painter, paged, title, created, pages=[index])
            painter.end()
            out.append(image)
    return out


def _header_footer(
    painter: QPainter,
    font: QFont,
    index: int,
    count: int,
    title: str,
    created: datetime,
    left: float,
    top: float,
    right: float,
    bottom: float,
    page_w: float,
    page_h: float,
) -> None:
    painter.save()
    painter.setFont(font)
    painter.setPen(QColor(COLORS["muted"]))
    line_h = _mm_to_px(5)
    header = QRectF(left, top - _mm_to_px(9), page_w - left - right, line_h)
    painter.drawText(
        header,
        int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
        f"{APP_NAME} · scenario report",
    )
    painter.drawText(
        header, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), title
    )
    pen = QPen(QColor(COLORS["border"]))
    pen.setWidthF(_mm_to_px(0.25))
    painter.setPen(pen)
    y = top - _mm_to_px(3.5)
    painter.drawLine(int(left), int(y), int(page_w - right), int(y))
    painter.setPen(QColor(COLORS["muted"]))
    footer = QRectF(left, page_h - bottom + _mm_to_px(5), page_w - left - right, line_h)
    painter.drawText(
        footer,
        int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
        f"Generated {created:%Y-%m-%d %H:%M}",
    )
    painter.drawText(
        footer,
        int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
        f"Page {index + 1} of {count}",
    )
    painter.restore()
