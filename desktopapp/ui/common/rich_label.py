"""A word-wrapped rich-text label that remembers its sizes.

``QLabel`` lays a rich text out in a ``QTextDocument`` for every size question the layouts ask
(height for a width, size hint, minimum size hint), and a long one with tables takes
milliseconds each time: the Workload tab's assumptions (16 KB of HTML tables) were asked 27
times while the window opened, 19 of them heights for only four widths. :class:`RichLabel`
answers a height it has given for the same width, text, font and style from memory (``QLabel``
keeps its size hints itself).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QLabel, QWidget

MAX_REMEMBERED_WIDTHS = 64
# Events after which the same text can take another size.
_RESIZING_EVENTS = frozenset(
    {
        QEvent.Type.FontChange,
        QEvent.Type.StyleChange,
        QEvent.Type.ApplicationFontChange,
        QEvent.Type.LayoutDirectionChange,
        QEvent.Type.ContentsRectChange,
        QEvent.Type.Polish,
    }
)


class RichLabel(QLabel):
    """A ``QLabel`` for rich text (word-wrapped) whose size answers are kept until its text,
    font, style or margins change."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self._heights: dict[int, int] = {}
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setWordWrap(True)

    def forget_sizes(self) -> None:
        self._heights.clear()

    def setText(self, text: str) -> None:
        if text != self.text():
            self.forget_sizes()
        super().setText(text)

    def setTextFormat(self, text_format: Qt.TextFormat) -> None:
        self.forget_sizes()
        super().setTextFormat(text_format)

    def setWordWrap(self, on: bool) -> None:
        self.forget_sizes()
        super().setWordWrap(on)

    def setIndent(self, indent: int) -> None:
        self.forget_sizes()
        super().setIndent(indent)

    def setMargin(self, margin: int) -> None:
        self.forget_sizes()
        super().setMargin(margin)

    def event(self, event: QEvent) -> bool:
        if event.type() in _RESIZING_EVENTS:
            self.forget_sizes()
        return super().event(event)

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) >= MAX_REMEMBERED_WIDTHS:  # a window dragged wider and wider
                self._heights.clear()
            height = super().heightForWidth(width)
            self._heights[width] = height
        return height
