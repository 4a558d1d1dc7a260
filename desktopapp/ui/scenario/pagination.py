"""Page breaks for a ``QTextDocument`` printed page by page (the PDF report).

Qt lays a paged document out line by line: a table row whose cells hold several lines can start
on one page and end on the next (a "split table cell"), and a heading can end a page with its
text on the next one. :func:`paginate` moves such things to the next page after layout:

- **Table rows stay together.** A row that would cross a page boundary starts on the next page
  (its cells get the missing height as top padding). A row taller than a page is left to split.
- **Headings stay with what follows.** A heading (and an intro paragraph right after it) whose
  next element starts on a later page moves to that page; so does a table's heading row (its
  first row, or a row of one cell across the table, like "PRICE") whose next row does.

:func:`page_spans` and :func:`straddling_rows` read the layout back (for the report's tests and
checks), in the document's own units: page ``i`` covers ``i × page_height`` to
``(i + 1) × page_height``.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import (
    QTextBlock,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextTable,
)

MAX_PASSES = 400  # each pass fixes one row or heading; a report has a few dozen at most
INTRO_MAX_CHARS = 400  # a paragraph right after a heading this short is kept with it
OBJECT_CHAR = "\ufffc"  # an image in a block's text
EDGE = 1.0  # layout units (1/300 inch on the PDF writer) of rounding at a page boundary
# An element starting this share of a page below its top is at the top already (the margin of a
# heading, the padding of a row): moving it to the next page would gain nothing.
TOP_SHARE = 0.03


@dataclass(frozen=True)
class Element:
    """One top-level thing on the page, in document order: a paragraph, or a table row."""

    kind: str  # "heading" | "paragraph" | "row"
    top: float
    bottom: float
    text: str
    block: QTextBlock | None = None  # paragraphs and headings
    table: QTextTable | None = None  # rows
    row: int = -1
    heads: bool = False  # a heading row: kept with the row after it

    def page(self, page_height: float) -> int:
        # A line Qt moved to the next page sits on the boundary, give or take rounding.
        return int((self.top + EDGE) // page_height)

    def last_page(self, page_height: float) -> int:
        return int(max(self.top + EDGE, self.bottom - EDGE) // page_height)


def _is_heading(block: QTextBlock) -> bool:
    return block.blockFormat().headingLevel() > 0


def _line_span(doc: QTextDocument, first: QTextBlock, last: QTextBlock) -> tuple[float, float]:
    """From the first line of ``first`` to the last line of ``last``, in document units (a
    block's bounding rectangle starts before a line Qt moved to the next page)."""
    layout = doc.documentLayout()
    top_rect, bottom_rect = layout.blockBoundingRect(first), layout.blockBoundingRect(last)
    top, bottom = top_rect.top(), bottom_rect.bottom()
    first_layout, last_layout = first.layout(), last.layout()
    if first_layout is not None and first_layout.lineCount() > 0:
        top = top_rect.top() + first_layout.lineAt(0).rect().top()
    if last_layout is not None and last_layout.lineCount() > 0:
        line = last_layout.lineAt(last_layout.lineCount() - 1)
        bottom = bottom_rect.top() + line.rect().bottom()
    return top, bottom


def _row_span(doc: QTextDocument, table: QTextTable, row: int) -> tuple[float, float, str]:
    top, bottom, texts = float("inf"), float("-inf"), []
    for col in range(table.columns()):
        cell = table.cellAt(row, col)
        if not cell.isValid() or cell.row() != row or cell.column() != col:
            continue  # spanned from another cell
        first = cell.firstCursorPosition().block()
        last = cell.lastCursorPosition().block()
        cell_top, cell_bottom = _line_span(doc, first, last)
        top, bottom = min(top, cell_top), max(bottom, cell_bottom)
        block = first
        while block.isValid():
            texts.append(block.text())
            if block == last:
                break
            block = block.next()
    return top, bottom, " ".join(t for t in texts if t)


def elements(doc: QTextDocument) -> list[Element]:
    """The document's paragraphs and table rows in order, with their extent (document units).
    Empty paragraphs (Qt puts one after every table) are left out."""
    out: list[Element] = []
    seen_tables: set[int] = set()
    block = doc.begin()
    while block.isValid():
        table = QTextCursor(block).currentTable()
        if table is None:
            text = block.text()
            if text.strip():
                top, bottom = _line_span(doc, block, block)
                kind = "heading" if _is_heading(block) else "paragraph"
                out.append(Element(kind, top, bottom, text, block=block))
        elif table.firstPosition() not in seen_tables:
            seen_tables.add(table.firstPosition())
            for row in range(table.rows()):
                top, bottom, text = _row_span(doc, table, row)
                if top <= bottom:
                    heads = table.rows() > 1 and (
                        row == 0 or table.cellAt(row, 0).columnSpan() == table.columns()
                    )
                    out.append(Element("row", top, bottom, text, table=table, row=row, heads=heads))
        block = block.next()
    return out


def straddling_rows(doc: QTextDocument, page_height: float) -> list[Element]:
    """Table rows, no taller than a page, whose cells start on one page and end on another."""
    return [
        e
        for e in elements(doc)
        if e.kind == "row"
        and e.bottom - e.top < page_height
        and e.page(page_height) != e.last_page(page_height)
    ]


def page_spans(doc: QTextDocument, page_height: float) -> list[tuple[float, float]]:
    """For each page: where its first and last element start and end, relative to the page's
    top (both 0.0 for a page with nothing on it)."""
    count = max(1, doc.pageCount())
    firsts: list[float | None] = [None] * count
    lasts: list[float] = [0.0] * count
    for element in elements(doc):
        page = min(element.page(page_height), count - 1)
        offset = page * page_height
        if firsts[page] is None:
            firsts[page] = element.top - offset
        end_page = min(element.last_page(page_height), count - 1)
        lasts[end_page] = max(lasts[end_page], element.bottom - end_page * page_height)
    return [(first or 0.0, last) for first, last in zip(firsts, lasts, strict=True)]


def _push_row(element: Element, page_height: float, device_per_unit: float) -> None:
    """Top padding for every cell of the row, so its content starts on the next page."""
    assert element.table is not None
    table = element.table
    missing = (element.page(page_height) + 1) * page_height - element.top
    default = table.format().cellPadding()
    for col in range(table.columns()):
        cell = table.cellAt(element.row, col)
        if not cell.isValid() or cell.row() != element.row or cell.column() != col:
            continue
        fmt = cell.format().toTableCellFormat()
        has_own = fmt.hasProperty(QTextFormat.Property.TableCellTopPadding)
        current = fmt.topPadding() if has_own else default
        fmt.setTopPadding(current + missing / device_per_unit + 1.0)
        cell.setFormat(fmt)


def _break_before(block: QTextBlock) -> None:
    cursor = QTextCursor(block)
    fmt = QTextBlockFormat()
    fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
    cursor.mergeBlockFormat(fmt)


def _first_problem(items: list[Element], page_height: float) -> tuple[str, Element] | None:
    for index, element in enumerate(items):
        at_page_top = element.top - element.page(page_height) * page_height < max(
            EDGE, TOP_SHARE * page_height
        )
        if element.kind == "row":
            short = element.bottom - element.top < page_height
            if short and element.page(page_height) != element.last_page(page_height):
                return "row", element
            after = items[index + 1] if index + 1 < len(items) else None
            if (
                element.heads
                and not at_page_top
                and after is not None
                and after.table is not None
                and element.table is not None
                and after.table.firstPosition() == element.table.firstPosition()
                and after.page(page_height) > element.page(page_height)
            ):
                return "row", element
            continue
        if element.kind != "heading" or element.block is None:
            continue
        before = items[index - 1] if index else None
        if (
            _has_break(element.block)
            and before is not None
            and element.page(page_height) > before.last_page(page_height) + 1
        ):
            # Qt broke twice (the content before ends at a page's foot): a blank page
            return "blank", element
        # The heading, an intro paragraph after it, and the start of what they introduce.
        following = items[index + 1 : index + 3]
        if not following:
            continue
        target = following[0]
        if (
            target.kind == "paragraph"
            and len(target.text) <= INTRO_MAX_CHARS
            and OBJECT_CHAR not in target.text
            and len(following) > 1
        ):
            target = following[1]
        if target.page(page_height) > element.page(page_height) and not at_page_top:
            return "heading", element
    return None


def _has_break(block: QTextBlock) -> bool:
    policy = block.blockFormat().pageBreakPolicy()
    return bool(policy & QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)


def _clear_break(block: QTextBlock) -> None:
    cursor = QTextCursor(block)
    fmt = block.blockFormat()
    fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_Auto)
    cursor.setBlockFormat(fmt)


def _push_heading(
    doc: QTextDocument, block: QTextBlock, page_height: float, device_per_unit: float
) -> None:
    """Qt broke twice before ``block`` (a blank page): drop its break and move it to the next
    page with top margin instead, as a row is moved."""
    _clear_break(block)
    top, _bottom = _line_span(doc, block, block)
    page = int((top + EDGE) // page_height)
    missing = (page + 1) * page_height - top
    cursor = QTextCursor(block)
    fmt = block.blockFormat()
    fmt.setTopMargin(fmt.topMargin() + missing / device_per_unit + 1.0)
    cursor.setBlockFormat(fmt)


def _clear_breaks_after(items: list[Element], heading: Element) -> None:
    """The headings right after ``heading`` (an h3 then its h4) move with it now: a break
    one of them got earlier would leave ``heading`` alone on its page."""
    index = next(i for i, e in enumerate(items) if e is heading)
    for element in items[index + 1 : index + 3]:
        if element.kind != "heading" or element.block is None:
            break
        if _has_break(element.block):
            cursor = QTextCursor(element.block)
            fmt = element.block.blockFormat()
            fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_Auto)
            cursor.setBlockFormat(fmt)


def paginate(doc: QTextDocument, page_height: float, device_per_unit: float = 1.0) -> int:
    """Move straddling table rows and stranded headings to the next page (see the module
    docstring); ``doc`` must have its page size set. ``device_per_unit``: layout units per
    format unit (the paint device's DPI ÷ 96 when the layout draws on a printer). Returns the
    number of moves."""
    moves = 0
    for _ in range(MAX_PASSES):
        items = elements(doc)
        problem = _first_problem(items, page_height)
        if problem is None:
            break
        kind, element = problem
        if kind == "row":
            _push_row(element, page_height, device_per_unit)
        elif kind == "blank":
            assert element.block is not None
            _push_heading(doc, element.block, page_height, device_per_unit)
        else:
            assert element.block is not None
            _break_before(element.block)
            _clear_breaks_after(items, element)
        moves += 1
    return moves
