"""The main window's own choices without Qt (moved out of ui/main_window.py, issue 12): the
start tab and theme, the first size, tab stepping and the texts it shows."""

from __future__ import annotations

import pytest

from desktopapp.application import window as policy

NAMES = ("estimate", "cost", "hardware", "monitor")
MODES = ("system", "light", "dark")


@pytest.mark.parametrize(
    ("initial", "remembered", "expected"),
    [
        ("cost", "monitor", "cost"),  # asked for wins
        (None, "monitor", "monitor"),  # else the remembered one
        (None, None, "estimate"),  # else the first
        (None, "gone_tab", "estimate"),  # a tab that no longer exists
        ("nonsense", "monitor", "estimate"),
        ("", "hardware", "hardware"),
    ],
)
def test_start_tab(initial: str | None, remembered: object, expected: str) -> None:
    assert policy.start_tab(initial, remembered, NAMES) == expected


@pytest.mark.parametrize(
    ("asked", "remembered", "expected"),
    [
        ("dark", "light", "dark"),
        (None, "light", "light"),
        (None, None, "system"),
        (None, "sepia", "system"),
        ("sepia", "dark", "system"),
    ],
)
def test_start_theme(asked: str | None, remembered: object, expected: str) -> None:
    assert policy.start_theme(asked, remembered, MODES) == expected


def test_first_size_fits_the_screen_but_not_below_the_minimum() -> None:
    assert policy.first_size(None) == policy.DEFAULT_SIZE
    assert policy.first_size((3840, 2160)) == policy.DEFAULT_SIZE
    assert policy.first_size((1280, 800)) == (1216, 760)  # 95 % of the screen
    assert policy.first_size((800, 600)) == policy.MINIMUM_SIZE
    assert policy.first_size((0, 0)) == policy.DEFAULT_SIZE  # no usable screen size


def test_tab_steps_wrap_around() -> None:
    assert policy.stepped_index(0, 1, 4) == 1
    assert policy.stepped_index(3, 1, 4) == 0
    assert policy.stepped_index(0, -1, 4) == 3


def test_texts_for_a_broken_tab_and_presentation_mode() -> None:
    assert policy.failure_message(RuntimeError("sensor exploded\nTraceback …")) == (
        "sensor exploded"
    )
    assert policy.failure_message(RuntimeError("")) == "RuntimeError"
    assert policy.failure_message(KeyError()) == "KeyError"
    assert policy.tab_failed_status("Monitor", "boom") == "Monitor: could not open the tab: boom"
    assert "Esc leaves" in policy.presentation_status(True)
    assert policy.presentation_status(False) == "Presentation mode off"


def test_presenting_the_offline_note_is_one_word_with_the_sentence_in_its_tooltip() -> None:
    """Issue 16: beside the whole sentence, the presentation keys were cut off at 1024 px."""
    assert policy.offline_note(False) == (policy.OFFLINE_TEXT, "")
    text, tooltip = policy.offline_note(True)
    assert text == "Offline" and tooltip == policy.OFFLINE_TEXT
    assert len(text) < len(policy.OFFLINE_TEXT)
    # The keys message is shorter than the one that was cut off, and names them all.
    message = policy.presentation_status(True)
    assert len(message) < 80
    assert all(key in message for key in ("Ctrl+1", "Ctrl+PgUp/PgDown", "Esc"))
