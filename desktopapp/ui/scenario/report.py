"""One-click PDF report of a scenario (and the scenarios compared with it), with Qt's own PDF
writer: ``QTextDocument`` lays out the HTML, ``QPdfWriter`` + ``QPainter`` draw it page by page
with a running header and a "page i of n" footer.

What the report says, and in which order, is :mod:`desktopapp.application.report_html` (no
Qt); this module renders its plots to images (the compare view's overlay plots and tornado
charts, light theme), lays the HTML out for A4 and paints the pages.

Parts follow each other without forced page breaks (a forced break after a page that ran over
by a few lines left a nearly empty page). :func:`~desktopapp.ui.scenario.pagination.paginate`
keeps every table row on one page and every heading with what it introduces.
"""

from __future__ import annotations

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
from desktopapp.application.compare import ScenarioSummary
from desktopapp.application.report_html import page_texts, report_style, report_title
from desktopapp.application.report_html import report_html as html_of_report
from desktopapp.model.atomic import atomic_write_bytes
from desktopapp.ui.common.export import plot_image
from desktopapp.ui.common.theme import COLORS, SERIES, current_theme, use_palette
from desktopapp.ui.scenario import charts
from desktopapp.ui.scenario.pagination import paginate

RESOLUTION_DPI = 300
MARGIN_MM = (16.0, 20.0, 16.0, 18.0)  # left, top, right, bottom
CSS_PX_PER_INCH = 96.0  # QTextDocument sizes (img width, table widths) are CSS pixels


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
    from desktopapp.ui.estimate.advisor import report_plot  # issue 24: What to run on

    pareto = report_plot(summaries[0].scenario) if summaries else None
    if pareto is not None:
        images["advisor-pareto"] = _render(pareto, 820, 420)
    return images


# --- HTML ---------------------------------------------------------------------------------------


def report_html(
    summaries: Sequence[ScenarioSummary],
    *,
    file_name: str,
    created: datetime,
    text_width_px: float,
) -> str:
    """:func:`desktopapp.application.report_html.report_html` in the active palette."""
    return html_of_report(
        summaries,
        file_name=file_name,
        created=created,
        text_width_px=text_width_px,
        colors=COLORS,
        series=SERIES,
    )


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
    title = report_title(summaries)
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
    doc.setDefaultStyleSheet(report_style(COLORS))
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
    _setup_writer(writer, report_title(summaries))
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
    left, top = paged.margins[:2]
    content_w, content_h = paged.content_w, paged.content_h
    count = paged.page_count
    small = QFont("DejaVu Sans")
    small.setPointSizeF(7.0)
    for n, index in enumerate(range(count) if pages is None else pages):
        if n and new_page is not None:
            new_page()
        _header_footer(painter, small, paged, page_texts(title, created, index, count))
        painter.save()
        painter.translate(left, top - index * content_h)
        doc.drawContents(painter, QRectF(0, index * content_h, content_w, content_h))
        painter.restore()


def _header_footer(
    painter: QPainter, font: QFont, paged: PagedReport, texts: Sequence[str]
) -> None:
    """The running header (texts 0 and 1, left and right, over a rule) and footer (2 and 3)."""
    left, top, right, bottom = paged.margins
    head_left, head_right, foot_left, foot_right = texts
    align_left = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
    align_right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    painter.save()
    painter.setFont(font)
    painter.setPen(QColor(COLORS["muted"]))
    line_h = _mm_to_px(5)
    header = QRectF(left, top - _mm_to_px(9), paged.content_w, line_h)
    painter.drawText(header, align_left, head_left)
    painter.drawText(header, align_right, head_right)
    pen = QPen(QColor(COLORS["border"]))
    pen.setWidthF(_mm_to_px(0.25))
    painter.setPen(pen)
    y = top - _mm_to_px(3.5)
    painter.drawLine(int(left), int(y), int(paged.page_w - right), int(y))
    painter.setPen(QColor(COLORS["muted"]))
    footer = QRectF(left, paged.page_h - bottom + _mm_to_px(5), paged.content_w, line_h)
    painter.drawText(footer, align_left, foot_left)
    painter.drawText(footer, align_right, foot_right)
    painter.restore()
