"""Main window: tabs by name, menus, status bar, remembered geometry and tab, lazy imports."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktopapp import APP_NAME
from desktopapp.ui import TAB_NAMES, TABS, TabInfo
from desktopapp.ui.main_window import ErrorPanel, MainWindow, app_settings, tab_factories
from desktopapp.ui.tabs import FACTORIES, TabView

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def window_factory(qtbot: QtBot, isolated_home: Path) -> Callable[..., MainWindow]:
    def make(**kwargs: Any) -> MainWindow:
        window = MainWindow(**kwargs)
        qtbot.addWidget(window)
        return window

    return make


def test_window_opens_offscreen_with_a_tab_per_job(
    qtbot: QtBot, window_factory: Callable[..., MainWindow]
) -> None:
    window = window_factory(initial_tab="cost")
    assert window.tab_content("cost") is None  # built once the window is on screen
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(window.is_tab_ready, timeout=5000)
    assert window.windowTitle() == APP_NAME
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [t.title for t in TABS]
    assert window.current_tab_name() == "cost"
    assert window.tab_content("cost") is not None
    assert window.is_tab_ready()
    # Only the visible tab is loaded at start.
    assert all(window.tab_content(name) is None for name in TAB_NAMES if name != "cost")
    assert not window.windowIcon().isNull()


def test_first_tab_gets_its_menu_actions_once_its_plots_are_drawn(
    qtbot: QtBot, window_factory: Callable[..., MainWindow]
) -> None:
    """Issue 25 item 9: the first tab's save/copy actions are added after its plots are drawn
    (not on the way to the first screen), so the plots built after the figures get them too."""
    from desktopapp.app import first_tab_complete
    from desktopapp.ui.common import export

    window = window_factory(initial_tab="estimate")
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: first_tab_complete(window), timeout=10_000)
    tab = window.tab_content("estimate")
    assert tab is not None
    plots = tab.modelled._build_plots()["plots"]  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: all(len(p.actions()) == 3 for p in plots), timeout=10_000)
    card = tab.training_results.time_card  # type: ignore[attr-defined]
    assert [a.text() for a in card.actions()] == ["Copy result with formula"]
    assert export.install_export_actions(tab) == 0  # nothing left without them


def test_default_size_and_view_shortcuts(
    qtbot: QtBot, window_factory: Callable[..., MainWindow]
) -> None:
    from PySide6.QtWidgets import QApplication

    from desktopapp.ui.main_window import DEFAULT_SIZE, MINIMUM_SIZE

    window = window_factory(initial_tab="monitor")
    available = QApplication.primaryScreen().availableGeometry().size()
    expected = DEFAULT_SIZE.boundedTo(available * 0.95).expandedTo(MINIMUM_SIZE)
    assert window.size() == expected  # 1400×900 on any screen big enough
    shortcuts = {name: action.shortcut() for name, action in window.view_actions.items()}
    assert shortcuts == {
        name: QKeySequence(f"Ctrl+{i}") for i, name in enumerate(TAB_NAMES, start=1)
    }
    assert window.quit_action.shortcut() == QKeySequence("Ctrl+Q")
    window.view_actions["hardware"].trigger()
    assert window.current_tab_name() == "hardware"
    assert window.view_actions["hardware"].isChecked()
    window.tabs.setCurrentIndex(TAB_NAMES.index("monitor"))
    assert window.view_actions["monitor"].isChecked()
    assert window.tab_content("monitor") is not None  # loaded when shown
    menus = [action.text() for action in window.menuBar().actions()]
    assert menus == ["&File", "&View", "&Help"]


def test_unknown_tab_shows_an_error_panel(
    qtbot: QtBot, window_factory: Callable[..., MainWindow]
) -> None:
    window = window_factory(initial_tab="monitor")
    widget, placeholder = window._create_tab(
        TabInfo("not_a_tab", "Future", "Something later", "Ctrl+9")
    )
    qtbot.addWidget(widget)
    assert placeholder and isinstance(widget, ErrorPanel)
    assert "not_a_tab" in widget.message


def test_broken_tab_shows_error_panel_and_status(
    qtbot: QtBot, window_factory: Callable[..., MainWindow], monkeypatch: pytest.MonkeyPatch
) -> None:
    def create_tab(state: object, parent: object = None) -> QWidget:
        raise RuntimeError("sensor library exploded")

    monkeypatch.setitem(tab_factories(), "broken_tab", create_tab)
    window = window_factory(initial_tab="monitor")
    widget, placeholder = window._create_tab(TabInfo("broken_tab", "Broken", "x", "Ctrl+9"))
    qtbot.addWidget(widget)
    assert placeholder and isinstance(widget, ErrorPanel)
    assert "sensor library exploded" in widget.message
    assert "sensor library exploded" in window.statusBar().currentMessage()


def test_every_tab_follows_the_tab_protocol(
    qtbot: QtBot, window_factory: Callable[..., MainWindow]
) -> None:
    window = window_factory(initial_tab="estimate")
    assert set(FACTORIES) == set(TAB_NAMES)
    for name in TAB_NAMES:
        content = window.ensure_tab_loaded(name)
        assert not window.is_placeholder(name), name
        assert isinstance(content, TabView), name
        assert hasattr(content, "ready"), name


def test_presentation_keys_fit_beside_the_offline_note_at_1024_px(
    qtbot: QtBot, window_factory: Callable[..., MainWindow]
) -> None:
    """Issue 16: at 1024×640 with presentation fonts the permanent note cut the message off."""
    from PySide6.QtWidgets import QApplication

    from desktopapp.application import window as policy
    from desktopapp.ui.common import theme

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply_theme(app, "light", 1.0)  # as the app starts: its fonts, then presentation's
    try:
        window = window_factory(initial_tab="hardware", remember=False, theme_mode="light")
        window.resize(1024, 640)
        window.show()
        qtbot.waitExposed(window)
        window.set_presentation(True)
        window.showNormal()
        window.resize(1024, 640)
        QApplication.processEvents()
        bar = window.statusBar()
        note = window.offline_label
        assert bar.currentMessage() == policy.presentation_status(True)
        assert note.toolTip() == policy.OFFLINE_TEXT
        message_width = bar.fontMetrics().horizontalAdvance(bar.currentMessage())
        assert message_width + note.sizeHint().width() < bar.width()
        window.set_presentation(False)
        QApplication.processEvents()
        assert note.text() == policy.OFFLINE_TEXT and note.toolTip() == ""
    finally:
        theme.apply_theme(app, "light", 1.0)


def test_state_status_messages_reach_the_status_bar(
    window_factory: Callable[..., MainWindow],
) -> None:
    window = window_factory(initial_tab="monitor")
    window.state.show_status("Scenario saved", 0)
    assert window.statusBar().currentMessage() == "Scenario saved"


def test_about_box_lists_versions(qtbot: QtBot, window_factory: Callable[..., MainWindow]) -> None:
    window = window_factory(initial_tab="monitor")
    dialog = window.show_about()
    text = dialog.text()  # type: ignore[attr-defined]
    for name in ("Python", "Qt", "PySide6", "pyqtgraph", "numpy"):
        assert name in text
    dialog.close()


def test_geometry_and_last_tab_remembered_across_windows(
    qtbot: QtBot,
    window_factory: Callable[..., MainWindow],
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The offscreen screen is 800×800 and restoreGeometry keeps windows on screen, so the
    # test uses a size that fits (with a lower minimum than the real 960×640).
    import desktopapp.ui.main_window as main_window

    monkeypatch.setattr(main_window, "MINIMUM_SIZE", QSize(400, 300))
    first = window_factory()
    first.show()
    qtbot.waitExposed(first)
    first.resize(777, 555)
    first.set_current_tab("hardware")
    first.close()
    settings_file = Path(app_settings().fileName())
    assert settings_file.parent == Path(os.environ["DESKTOPAPP_HOME"]) / "config"
    assert settings_file.is_file()

    second = window_factory()
    assert second.current_tab_name() == "hardware"
    assert second.size() == QSize(777, 555)
    # --tab wins over the remembered tab; remember=False neither reads nor writes.
    third = window_factory(initial_tab="monitor", remember=False)
    third.show()
    third.resize(600, 400)
    third.close()
    fourth = window_factory()
    assert fourth.current_tab_name() == "hardware"
    assert fourth.size() == QSize(777, 555)


# (the window start leaves torch and NVML unimported: tests/ui/test_startup_imports.py)


# --- Save As and the scenario's name (issue 16) --------------------------------------------------


def test_save_as_renames_a_copy_but_keeps_a_typed_name(
    window_factory: Callable[..., MainWindow], tmp_path: Path
) -> None:
    from desktopapp.model.scenario import load_scenario

    window = window_factory(initial_tab="monitor", remember=False)
    doc = window.document
    assert doc.save_as(tmp_path / "a.json")
    assert doc.name == "a" and load_scenario(tmp_path / "a.json").scenario.name == "a"
    assert doc.save_as(tmp_path / "b.json")  # a copy: named after its file, not "a" again
    assert doc.name == "b" and load_scenario(tmp_path / "b.json").scenario.name == "b"
    assert window.windowTitle().startswith("b.json")
    doc.set_name("Quarterly plan")
    assert doc.save_as(tmp_path / "c.json")
    assert load_scenario(tmp_path / "c.json").scenario.name == "Quarterly plan"


def test_a_failed_save_as_keeps_the_name(
    window_factory: Callable[..., MainWindow], tmp_path: Path
) -> None:
    window = window_factory(initial_tab="monitor", remember=False)
    doc = window.document
    errors: list[tuple[str, str]] = []
    doc.show_error = lambda title, message: errors.append((title, message))
    assert doc.save_as(tmp_path / "a.json") and doc.name == "a"
    assert not doc.save_as(tmp_path / "missing" / "b.json")
    assert doc.name == "a" and doc.path == tmp_path / "a.json" and errors
