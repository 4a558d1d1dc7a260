"""The main window's own choices, without Qt (moved out of ``ui/main_window.py``, issue 12):
which tab and theme it starts with, its first size, how the tab keys step, and the texts it
shows for a tab that failed, for presentation mode and in the status bar's permanent note.
``ui/main_window.py`` applies them.

Sizes are ``(width, height)`` in pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

Size = tuple[int, int]

DEFAULT_SIZE: Size = (1400, 900)
MINIMUM_SIZE: Size = (960, 640)
SCREEN_SHARE = 0.95  # a first window never covers more of the screen than this
SYSTEM_THEME = "system"

# Short enough to fit beside the status bar's note at 1024 px with presentation fonts (issue
# 16); F11 is in the View menu.
PRESENTATION_ON_TEXT = "Presentation mode: Ctrl+1…4 or Ctrl+PgUp/PgDown switch tabs, Esc leaves"
PRESENTATION_OFF_TEXT = "Presentation mode off"
OFFLINE_TEXT = "Offline · every figure computed on this machine"
OFFLINE_SHORT_TEXT = "Offline"


def start_tab(initial: str | None, remembered: object, names: Sequence[str]) -> str:
    """The tab asked for, else the one remembered, else the first (an unknown name too)."""
    wanted = initial or (str(remembered) if remembered is not None else "")
    return wanted if wanted in names else names[0]


def start_theme(asked: str | None, remembered: object, modes: Sequence[str]) -> str:
    """The theme mode asked for (``--theme``), else the remembered one; ``system`` when that
    is not a known mode."""
    mode = asked or (str(remembered) if remembered is not None else SYSTEM_THEME)
    return mode if mode in modes else SYSTEM_THEME


def first_size(available: Size | None, default: Size = DEFAULT_SIZE) -> Size:
    """The window's size when none is remembered: the default, within 95 % of the screen's
    available area when there is one, never below the minimum."""
    width, height = default
    if available is not None and available[0] > 0 and available[1] > 0:
        width = min(width, round(available[0] * SCREEN_SHARE))
        height = min(height, round(available[1] * SCREEN_SHARE))
    return (max(width, MINIMUM_SIZE[0]), max(height, MINIMUM_SIZE[1]))


def stepped_index(current: int, step: int, count: int) -> int:
    """The tab ``step`` places from ``current``, wrapping around (``count`` > 0)."""
    return (current + step) % count


def failure_message(exc: BaseException) -> str:
    """One line for a tab that raised while being created: the error's first line with text,
    or its type when it has none."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def tab_failed_status(title: str, message: str) -> str:
    return f"{title}: could not open the tab: {message}"


def presentation_status(on: bool) -> str:
    return PRESENTATION_ON_TEXT if on else PRESENTATION_OFF_TEXT


def offline_note(presenting: bool) -> tuple[str, str]:
    """The status bar's permanent note and its tooltip. Presenting (larger fonts, often a
    1024 px projector) it is only "Offline", the whole sentence in the tooltip, so that the
    messages beside it (the presentation keys, a field's error) are not cut off."""
    if presenting:
        return OFFLINE_SHORT_TEXT, OFFLINE_TEXT
    return OFFLINE_TEXT, ""
