"""Per-widget style sheets whose font sizes follow presentation mode.

The application style sheet is rebuilt at the active scale on every theme or scale change
(:func:`desktopapp.ui.common.theme.apply_theme`), but a sheet set on one widget with a fixed
``font-size: 9pt`` keeps that size: after F11 the Hardware tab's device titles, chips and
table headers, the Monitor's status pill and verdict, stayed at their normal-mode size while
the body text around them grew by :data:`~desktopapp.ui.common.theme.PRESENTATION_SCALE`,
so a heading ended up smaller than the text under it. :func:`follow_scale` sets a sheet built
by a function and builds it again whenever the widget's font changes (a scale change always
changes the application font); the builder writes its sizes with :func:`scaled_pt`.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget

from desktopapp.ui.common.theme import current_scale

_REBUILD_ON = frozenset(
    {
        QEvent.Type.FontChange,
        QEvent.Type.ApplicationFontChange,
        QEvent.Type.PaletteChange,
        QEvent.Type.ApplicationPaletteChange,
    }
)


def scaled_pt(points: float) -> str:
    """A style-sheet font size: ``points`` at the active scale (``"12.6pt"``)."""
    return f"{round(points * current_scale(), 1):g}pt"


class _Follower(QObject):
    """Calls ``apply`` after any of ``events`` reaches its widget (an event filter on the
    widget, owned by it)."""

    def __init__(
        self, widget: QWidget, apply: Callable[[], None], events: frozenset[QEvent.Type]
    ) -> None:
        super().__init__(widget)
        self._widget = widget
        self._apply = apply
        self._events = events

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._widget and event.type() in self._events:
            self._apply()
        return False


def follow_font(
    widget: QWidget, apply: Callable[[], None], events: frozenset[QEvent.Type] = _REBUILD_ON
) -> Callable[[], None]:
    """Run ``apply`` now and again whenever ``widget`` gets one of ``events`` (by default a font
    or palette change: presentation mode and theme switches); returns ``apply``."""
    widget.installEventFilter(_Follower(widget, apply, events))
    apply()
    return apply


def follow_scale(widget: QWidget, build: Callable[[], str]) -> Callable[[], None]:
    """Give ``widget`` the sheet ``build()`` returns, now and after every font or palette
    change; returns a function that rebuilds it on demand (after the state ``build`` reads
    changed)."""

    def apply() -> None:
        sheet = build()
        if sheet != widget.styleSheet():  # the same sheet again would loop
            widget.setStyleSheet(sheet)

    return follow_font(widget, apply)
