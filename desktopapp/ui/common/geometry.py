"""Is anything cut off? Checks on a laid-out window's widget geometry (no pixels involved).

:func:`find_cut` lists, in words, what a person would see cut off in ``window`` as it is laid
out now; :func:`assert_nothing_cut` fails with that list. Three kinds of problem:

- **past the edge**: a visible widget reaches beyond the window's right edge, or beyond the
  right edge of the scroll area viewport that shows it (clipped with no way to reach it);
- **narrower than its text**: a ``QLabel`` or button is narrower than its text needs (its size
  hint; for a word-wrapped label the longest word, its minimum size hint) — e.g. a button that
  reads "10 mi" for "10 min". Labels that elide on purpose set the Qt property
  :data:`ELIDED_PROPERTY` to true and are skipped;
- **shorter than its text**: a label less tall than its lines need at its width (a wrapped
  card detail squeezed into a fixed-height card);
- **sideways scrolling**: a scroll area shows a horizontal scroll bar although the window is at
  least :data:`NO_HSCROLL_FROM_PX` wide (set :data:`HSCROLL_ALLOWED_PROPERTY` on a scroll
  area whose content is meant to scroll sideways, such as a wide data table).

Widgets that are hidden, zero-sized, or scrolled out of view vertically are not checked; the
problems name each widget by its object name or class, its text and its place in the window.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QGraphicsView,
    QLabel,
    QScrollBar,
    QTabBar,
    QWidget,
)

from desktopapp.model.units import plural
from desktopapp.ui.common.table_fit import ELIDED_COLUMNS_PROPERTY

ELIDED_PROPERTY = "elided"
_TITLE_NAMES = ("SectionTitle", "CardCaption", "PanelTitle", "PlotHeader")
HSCROLL_ALLOWED_PROPERTY = "hscroll_allowed"
NO_HSCROLL_FROM_PX = 1280
TOLERANCE_PX = 2  # rounding in style sheets and font metrics


@dataclass(frozen=True)
class CutProblem:
    kind: str  # "past-edge" | "narrow-text" | "short-text" | "hscroll" | "cut-cell"
    widget: str  # how a person finds it: class/object name and text
    path: str  # its ancestry, outermost first
    detail: str  # the numbers

    def __str__(self) -> str:
        return f"{self.kind}: {self.widget} ({self.detail}) in {self.path}"


def describe(widget: QWidget) -> str:
    """``QPushButton 'Session'`` / ``QLabel#CardValue '$4,120'``: class, object name, text."""
    name = type(widget).__name__
    if widget.objectName() and not widget.objectName().startswith("qt_"):
        name += f"#{widget.objectName()}"
    text = ""
    if isinstance(widget, QLabel | QAbstractButton):
        text = widget.text()
    else:  # a section or card: its title says which one
        for label in widget.findChildren(QLabel):
            if label.objectName() in _TITLE_NAMES and label.text().strip():
                text = label.text()
                break
    if text:
        plain = " ".join(text.split())
        if "<" in plain:  # rich text: drop the tags for a readable name
            import re

            plain = re.sub(r"<[^>]+>", "", plain).replace("&nbsp;", " ")
        name += f" {plain[:40]!r}"
    return name


def widget_path(widget: QWidget, stop: QWidget | None = None) -> str:
    """The chain of named/classed ancestors, e.g. ``MainWindow > CostTab > HeadlinePanel``."""
    parts: list[str] = []
    current: QWidget | None = widget.parentWidget()
    while current is not None and current is not stop:
        cls = type(current).__name__
        if not cls.startswith("Q") or current.objectName():
            parts.append(current.objectName() or cls)
        current = current.parentWidget()
    if stop is not None:
        parts.append(type(stop).__name__)
    return " > ".join(reversed(parts)) or "(top)"


def _rect_in(widget: QWidget, window: QWidget) -> QRect:
    top_left = widget.mapTo(window, QPoint(0, 0))
    return QRect(top_left, widget.size())


def _viewport_of(widget: QWidget, window: QWidget) -> tuple[QAbstractScrollArea, QRect] | None:
    """The innermost scroll area showing ``widget`` and its viewport rect in ``window``."""
    current = widget.parentWidget()
    while current is not None and current is not window:
        parent = current.parentWidget()
        if isinstance(parent, QAbstractScrollArea) and current is parent.viewport():
            return parent, _rect_in(current, window)
        current = parent
    return None


def _internal(widget: QWidget) -> bool:
    """Qt's own parts (scroll bars, tab bar buttons, plot viewports) are not content."""
    if isinstance(widget, QScrollBar):
        return True
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QGraphicsView | QTabBar | QScrollBar):
            return True
        parent = parent.parentWidget()
    return widget.objectName().startswith("qt_") and not isinstance(widget, QLabel)


def _text_width_problem(widget: QWidget) -> str | None:
    if isinstance(widget, QLabel):
        if bool(widget.property(ELIDED_PROPERTY)) or not widget.text().strip():
            return None
        if widget.pixmap() is not None and not widget.pixmap().isNull():
            return None
        need = (widget.minimumSizeHint() if widget.wordWrap() else widget.sizeHint()).width()
    elif isinstance(widget, QAbstractButton):
        if not widget.text().strip() or bool(widget.property(ELIDED_PROPERTY)):
            return None
        need = widget.sizeHint().width()
    else:
        return None
    if widget.width() + TOLERANCE_PX < need:
        return f"{widget.width()} px wide, its text needs {need} px"
    return None


def _text_height_problem(widget: QWidget) -> str | None:
    """A label whose lines do not fit its height (a wrapped detail squeezed into a fixed-height
    card shows half a line)."""
    if not isinstance(widget, QLabel) or bool(widget.property(ELIDED_PROPERTY)):
        return None
    if not widget.text().strip() or (widget.pixmap() is not None and not widget.pixmap().isNull()):
        return None
    if widget.wordWrap():
        need = widget.heightForWidth(widget.width())
        if need <= 0:
            need = widget.sizeHint().height()
    else:
        need = widget.sizeHint().height()
    if widget.height() + TOLERANCE_PX < need:
        return f"{widget.height()} px tall, its text needs {need} px"
    return None


def find_cut(window: QWidget, no_hscroll_from_px: int = NO_HSCROLL_FROM_PX) -> list[CutProblem]:
    """Everything cut off in ``window`` as laid out now (see the module docstring)."""
    problems: list[CutProblem] = []
    right_edge = window.width()
    reported: set[int] = set()  # widgets past an edge: their children are not listed again

    def plain_container(widget: QWidget) -> bool:
        # A scroll area's content or an unnamed holder: the cut widgets inside it say more.
        return type(widget) is QWidget and not widget.objectName()

    def inside_reported(widget: QWidget) -> bool:
        parent = widget.parentWidget()
        while parent is not None and parent is not window:
            if id(parent) in reported:
                return True
            parent = parent.parentWidget()
        return False

    for widget in window.findChildren(QWidget):
        if not widget.isVisibleTo(window) or widget.width() <= 0 or widget.height() <= 0:
            continue
        if widget.isWindow() or _internal(widget) or inside_reported(widget):
            continue
        rect = _rect_in(widget, window)
        shown = _viewport_of(widget, window)
        if shown is not None:
            area, viewport = shown
            if rect.bottom() < viewport.top() or rect.top() > viewport.bottom():
                continue  # scrolled out of view vertically: reachable by scrolling
            hscroll = area.horizontalScrollBar()
            if hscroll is not None and hscroll.isVisible():
                continue  # reachable by scrolling sideways (reported below from 1280 px)
            if rect.right() > viewport.right() + TOLERANCE_PX:
                if plain_container(widget):
                    continue
                problems.append(
                    CutProblem(
                        "past-edge",
                        describe(widget),
                        widget_path(widget, window),
                        f"right edge {rect.right() + 1} px, its view ends at "
                        f"{viewport.right() + 1} px",
                    )
                )
                reported.add(id(widget))
                continue
        if rect.right() + 1 > right_edge + TOLERANCE_PX:
            if plain_container(widget):
                continue
            problems.append(
                CutProblem(
                    "past-edge",
                    describe(widget),
                    widget_path(widget, window),
                    f"right edge {rect.right() + 1} px, window {right_edge} px",
                )
            )
            reported.add(id(widget))
            continue
        narrow = _text_width_problem(widget)
        if narrow is not None:
            problems.append(
                CutProblem("narrow-text", describe(widget), widget_path(widget, window), narrow)
            )
            continue
        short = _text_height_problem(widget)
        if short is not None:
            problems.append(
                CutProblem("short-text", describe(widget), widget_path(widget, window), short)
            )
    if window.width() >= no_hscroll_from_px:
        for area in window.findChildren(QAbstractScrollArea):
            if isinstance(area, QGraphicsView) or not area.isVisibleTo(window):
                continue
            if bool(area.property(HSCROLL_ALLOWED_PROPERTY)):
                continue
            bar = area.horizontalScrollBar()
            if bar is not None and bar.isVisibleTo(window) and bar.maximum() > 0:
                problems.append(
                    CutProblem(
                        "hscroll",
                        describe(area),
                        widget_path(area, window),
                        f"scrolls {bar.maximum()} px sideways at a {window.width()} px window",
                    )
                )
    return problems


def assert_nothing_cut(window: QWidget, no_hscroll_from_px: int = NO_HSCROLL_FROM_PX) -> None:
    """Fail with every cut-off widget in ``window`` (see :func:`find_cut`)."""
    problems = find_cut(window, no_hscroll_from_px) + find_cut_cells(window)
    if problems:
        listed = "\n  ".join(str(p) for p in problems[:25])
        more = f"\n  … and {len(problems) - 25} more" if len(problems) > 25 else ""
        raise AssertionError(
            f"{plural(len(problems), 'cut-off widget')} at {window.width()}×{window.height()}:\n"
            f"  {listed}{more}"
        )


def find_cut_cells(window: QWidget) -> list[CutProblem]:
    """Table cells and column headers cut short in ``window``'s visible tables, in every row
    (rows scrolled out of a page are still reachable): a one-line cell wider than its column, a
    wrapped cell with a word wider than its column or more lines than its row holds, a header
    narrower than its title ("Provide" for "Provider"), a column past the table's right edge
    (shown only by scrolling the table sideways, or not at all). A table whose cut text is meant to
    elide sets :data:`ELIDED_PROPERTY`; one whose cells in some columns elide lists them in
    :data:`ELIDED_COLUMNS_PROPERTY`."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QTableView

    from desktopapp.ui.common.table_fit import (
        cell_metrics,
        longest_word,
        text_width,
        wrapped_height,
    )

    problems: list[CutProblem] = []
    for view in window.findChildren(QTableView):
        model = view.model()
        if model is None or not view.isVisibleTo(window) or bool(view.property(ELIDED_PROPERTY)):
            continue
        name = describe(view)
        path = widget_path(view, window)
        header = view.horizontalHeader()
        reachable = view.horizontalScrollBar().isVisibleTo(window)  # hscroll: find_cut
        for column in range(model.columnCount()):
            if view.isColumnHidden(column):
                continue
            width = view.columnWidth(column)
            title = str(model.headerData(column, Qt.Orientation.Horizontal) or "")
            right = header.sectionPosition(column) + width
            if right > view.viewport().width() + TOLERANCE_PX and not reachable:
                problems.append(
                    CutProblem(
                        "cut-cell",
                        f"{name} column {title!r}",
                        path,
                        f"ends at {right} px, the table shows {view.viewport().width()} px",
                    )
                )
                continue
            if header.isVisibleTo(window) and title:
                need = header.sectionSizeFromContents(column).width()
                if width + TOLERANCE_PX < need:
                    problems.append(
                        CutProblem(
                            "cut-cell",
                            f"{name} header {title!r}",
                            path,
                            f"{width} px wide, its title needs {need} px",
                        )
                    )
            if column in (view.property(ELIDED_COLUMNS_PROPERTY) or ()):
                continue
            for row in range(model.rowCount()):
                if view.isRowHidden(row):
                    continue
                index = model.index(row, column)
                text = str(model.data(index) or "")
                if not text:
                    continue
                metrics = cell_metrics(view, index)
                room = text_width(view, index, width)
                if view.wordWrap():
                    widest = longest_word(metrics, text)
                    lines = wrapped_height(metrics, room, text)
                    fits = widest <= room + TOLERANCE_PX and lines <= view.rowHeight(row)
                else:
                    lines_w = max(metrics.horizontalAdvance(t) for t in text.split("\n"))
                    fits = lines_w <= room + TOLERANCE_PX
                if not fits:
                    problems.append(
                        CutProblem(
                            "cut-cell",
                            f"{name} row {row + 1} {text!r}",
                            path,
                            f"column {title!r} {width} px wide",
                        )
                    )
    return problems
