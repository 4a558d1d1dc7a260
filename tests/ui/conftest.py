"""Qt test fixtures: every test under tests/ui/ must leave no visible top-level window, no
running registered worker and no active registered timer behind (the test fails otherwise).

Register windows with ``qtbot.addWidget`` (pytest-qt closes them at teardown, before these
checks run), workers through ``desktopapp.ui.common.workers`` and timers through
``desktopapp.ui.common.timers``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication

from desktopapp.ui.common.qt_compat import guard_singleton_refcounts
from desktopapp.ui.state import AppState

# PySide6 6.12 on Python < 3.12 drops a reference to None on every void call; without the
# guard a long Qt test session aborts with "none_dealloc".
guard_singleton_refcounts()


@pytest.fixture(autouse=True)
def no_leaked_qt_objects() -> Iterator[None]:
    yield
    from desktopapp.ui.common.leaks import find_leaks

    problems = find_leaks(clean_up=True)
    if problems:
        pytest.fail("; ".join(problems), pytrace=False)


@pytest.fixture
def app_state(qapp: QApplication) -> Iterator[AppState]:
    state = AppState()
    yield state
    state.deleteLater()
