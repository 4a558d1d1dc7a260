"""The main window's menus, actions and shortcuts: File (scenario commands, recent files,
export, quit), View (one checkable action per tab, next/previous tab, Compare, Sensitivity,
Notes, presentation mode, the Theme submenu) and Help.

:func:`build_menus` creates them on a :class:`~desktopapp.ui.main_window.MainWindow` and
connects them to its slots; the window declares the attributes it gets (``new_action``,
``view_actions``, …).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from desktopapp import APP_NAME
from desktopapp.application.scenario import recent_entries
from desktopapp.ui import TABS
from desktopapp.ui.common.theme import THEME_MODES

if TYPE_CHECKING:
    from desktopapp.ui.main_window import MainWindow

THEME_LABELS = {"system": "&System", "light": "&Light", "dark": "&Dark"}
THEME_SHORTCUTS = {"system": "Ctrl+Alt+S", "light": "Ctrl+Alt+L", "dark": "Ctrl+Alt+D"}


def make_action(
    parent: QWidget,
    text: str,
    shortcut: str | QKeySequence | Sequence[str],
    slot: Callable[[], object],
    tip: str = "",
) -> QAction:
    """An action with one shortcut (or several) and a status tip, calling ``slot()``."""
    action = QAction(text, parent)
    if isinstance(shortcut, str | QKeySequence):
        action.setShortcut(QKeySequence(shortcut))
    else:
        action.setShortcuts([QKeySequence(k) for k in shortcut])
    action.setStatusTip(tip)
    action.triggered.connect(lambda _checked=False: slot())
    return action


def build_menus(window: MainWindow) -> None:
    build_file_menu(window)
    build_view_menu(window)
    build_theme_menu(window)
    window.help_menu = window.menuBar().addMenu("&Help")
    window.about_action = QAction(f"&About {APP_NAME}", window)
    window.about_action.setShortcut(QKeySequence("F1"))
    window.about_action.setMenuRole(QAction.MenuRole.AboutRole)
    window.about_action.triggered.connect(window.show_about)
    window.help_menu.addAction(window.about_action)


def build_file_menu(window: MainWindow) -> None:
    window.file_menu = menu = window.menuBar().addMenu("&File")
    doc = window.document
    window.new_action = make_action(window, "&New", "Ctrl+N", doc.new, "Start a new scenario")
    window.open_action = make_action(
        window, "&Open…", "Ctrl+O", doc.open_dialog, "Open a scenario file"
    )
    window.recent_menu = QMenu("Open &Recent", window)
    window.save_action = make_action(window, "&Save", "Ctrl+S", doc.save, "Save the scenario")
    window.save_as_action = make_action(
        window, "Save &As…", "Ctrl+Shift+S", doc.save_as, "Save the scenario under a new name"
    )
    window.export_action = make_action(
        window,
        "&Export Report…",
        ["Ctrl+E", "Ctrl+P"],
        window.export_report,
        "A PDF with every input, result, plot and source",
    )
    menu.addAction(window.new_action)
    menu.addAction(window.open_action)
    menu.addMenu(window.recent_menu)
    menu.addSeparator()
    menu.addAction(window.save_action)
    menu.addAction(window.save_as_action)
    menu.addSeparator()
    menu.addAction(window.export_action)
    window.file_separator = menu.addSeparator()
    window.quit_action = QAction("&Quit", window)
    window.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
    window.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
    window.quit_action.triggered.connect(window.close)
    menu.addAction(window.quit_action)


def _build_tab_actions(window: MainWindow) -> None:
    """One checkable action per tab (Ctrl+1 …), then next and previous tab."""
    group = QActionGroup(window)
    group.setExclusive(True)
    window.view_actions = {}
    for info in TABS:
        action = QAction(info.title, window)
        action.setCheckable(True)
        action.setShortcut(QKeySequence(info.shortcut))
        action.setStatusTip(info.summary)
        action.triggered.connect(lambda _checked=False, n=info.name: window.set_current_tab(n))
        group.addAction(action)
        window.view_menu.addAction(action)
        window.view_actions[info.name] = action
    window.next_tab_action = make_action(
        window, "Ne&xt Tab", "Ctrl+PgDown", lambda: window.step_tab(1), "Show the next tab"
    )
    window.previous_tab_action = make_action(
        window, "Pre&vious Tab", "Ctrl+PgUp", lambda: window.step_tab(-1), "Show the previous tab"
    )
    window.view_menu.addAction(window.next_tab_action)
    window.view_menu.addAction(window.previous_tab_action)


def build_view_menu(window: MainWindow) -> None:
    window.view_menu = menu = window.menuBar().addMenu("&View")
    _build_tab_actions(window)
    menu.addSeparator()
    window.compare_action = make_action(
        window,
        "&Compare Scenarios…",
        "Ctrl+Shift+C",
        window.show_compare,
        "Pin scenarios and see them side by side",
    )
    window.sensitivity_action = make_action(
        window,
        "Se&nsitivity…",
        "Ctrl+Shift+T",
        lambda: window.show_compare(page=2),
        "Which inputs move the cost and the time most (tornado chart)",
    )
    # checked while the dock is shown; the dock is made the first time (MainWindow.notes_dock)
    window.notes_action = QAction("Scenario &Notes", window)
    window.notes_action.setCheckable(True)
    window.notes_action.triggered.connect(window.show_notes)
    window.notes_action.setShortcut(QKeySequence("Ctrl+Shift+N"))
    window.notes_action.setStatusTip("Name and notes saved with the scenario")
    for action in (window.compare_action, window.sensitivity_action, window.notes_action):
        menu.addAction(action)
    menu.addSeparator()
    window.presentation_action = QAction("&Presentation Mode", window)
    window.presentation_action.setCheckable(True)
    window.presentation_action.setShortcut(QKeySequence("F11"))
    window.presentation_action.setStatusTip(
        "Full screen, larger text and high-contrast plots (F11 or Esc to leave)"
    )
    window.presentation_action.toggled.connect(window.set_presentation)
    menu.addAction(window.presentation_action)
    window.leave_presentation_action = make_action(
        window, "Leave Presentation", "Esc", lambda: window.set_presentation(False)
    )
    window.leave_presentation_action.setEnabled(False)
    window.addAction(window.leave_presentation_action)  # shortcut only, not in the menu


def build_theme_menu(window: MainWindow) -> None:
    window.theme_menu = window.view_menu.addMenu("&Theme")
    group = QActionGroup(window)
    group.setExclusive(True)
    window.theme_actions = {}
    for mode in THEME_MODES:
        action = QAction(THEME_LABELS[mode], window)
        action.setCheckable(True)
        action.setShortcut(QKeySequence(THEME_SHORTCUTS[mode]))
        action.setStatusTip(
            "Follow the desktop's light or dark setting"
            if mode == "system"
            else f"Always use the {mode} theme"
        )
        action.triggered.connect(lambda _checked=False, m=mode: window.set_theme_mode(m))
        group.addAction(action)
        window.theme_menu.addAction(action)
        window.theme_actions[mode] = action


def rebuild_recent_menu(window: MainWindow) -> None:
    """File → Open Recent: the recent files (Ctrl+Alt+1 … for the first nine), then Clear."""
    menu = window.recent_menu
    menu.clear()
    document = window.document
    recent = document.recent
    for text, path, digit in recent_entries(recent):
        action = menu.addAction(text)
        action.setToolTip(path)
        action.setStatusTip(path)
        if digit is not None:
            action.setShortcut(QKeySequence(f"Ctrl+Alt+{digit}"))
        action.triggered.connect(lambda _c=False, p=path: document.open(p))
    menu.addSeparator()
    clear = menu.addAction("&Clear Recent Files")
    clear.setShortcut(QKeySequence("Ctrl+Alt+0"))
    clear.setEnabled(bool(recent))
    clear.triggered.connect(document.clear_recent)
    menu.setEnabled(True)


def check_action(actions: dict[str, QAction], key: str) -> None:
    """Tick the action for ``key`` (a tab or a theme mode) when it is not ticked yet."""
    action = actions.get(key)
    if action is not None and not action.isChecked():
        action.setChecked(True)
