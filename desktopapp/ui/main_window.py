"""The main window: one tab per job, loaded lazily by name (see :mod:`desktopapp.ui`).

Around the tabs: the scenario document (File menu: New, Open, Recent, Save, Save As, Export
report; title "plan.json* — ML Capacity Planner"; unsaved changes asked about on close;
autosave and crash recovery), the Notes dock, the Compare dialog, presentation mode and the
light / dark / system theme (View menu). Every plot, table and result card of every tab gets
export and copy actions in its context menu.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QGuiApplication,
    QKeySequence,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktopapp import APP_NAME
from desktopapp.application.scenario import (
    recent_entries,
    recovery_text,
    report_saved_text,
    report_target,
    scenario_label,
    suggested_report_path,
    window_title,
)
from desktopapp.ui import TAB_NAMES, TABS, TabInfo, tab_info
from desktopapp.ui.common.icons import app_icon
from desktopapp.ui.common.placeholder import ComingPanel
from desktopapp.ui.common.theme import (
    PRESENTATION_SCALE,
    THEME_MODES,
    apply_theme,
    current_scale,
    current_theme,
    resolve_theme,
)
from desktopapp.ui.scenario.document import AUTOSAVE_INTERVAL_MS, ScenarioDocument
from desktopapp.ui.scenario.panels import MessageBanner, NotesDock
from desktopapp.ui.state import AppState
from desktopapp.ui.tabs import FACTORIES, Flushable, TabFactory, TabView

if TYPE_CHECKING:
    from desktopapp.application.compare import ScenarioSummary
    from desktopapp.ui.scenario.compare import CompareDialog
    from desktopapp.ui.scenario.report import ReportInfo

DEFAULT_SIZE = QSize(1400, 900)
MINIMUM_SIZE = QSize(960, 640)
SETTINGS_FILE = "desktopapp.ini"
KEY_GEOMETRY = "window/geometry"
KEY_LAST_TAB = "window/last_tab"
KEY_THEME = "view/theme"
KEY_NOTES_VISIBLE = "view/notes_visible"
THEME_LABELS = {"system": "&System", "light": "&Light", "dark": "&Dark"}
THEME_SHORTCUTS = {"system": "Ctrl+Alt+S", "light": "Ctrl+Alt+L", "dark": "Ctrl+Alt+D"}


def app_settings() -> QSettings:
    """The app's settings file (IniFormat) under ``paths.config_dir()``."""
    from desktopapp.paths import config_dir

    return QSettings(str(config_dir() / SETTINGS_FILE), QSettings.Format.IniFormat)


def tab_factories() -> dict[str, TabFactory]:
    """The factories the window builds tabs with (``ui.tabs.FACTORIES``; tests add to it)."""
    return _FACTORIES


_FACTORIES: dict[str, TabFactory] = dict(FACTORIES)


class ErrorPanel(QWidget):
    """Shown instead of a tab whose code raised while being created (the window carries on)."""

    def __init__(self, title: str, message: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        panel = ComingPanel(
            title, f"This tab could not be opened: {message}\nDetails were printed to the log."
        )
        for label in panel.findChildren(QLabel):
            if label.objectName() == "Badge":
                label.setText("Failed to load")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(panel)
        self.message = message

    def is_ready(self) -> bool:
        return True


class _TabHost(QWidget):
    """Holds a tab's content once it is loaded (the tab widget's page for that name)."""

    def __init__(self, info: TabInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.info = info
        self.content: QWidget | None = None
        self.is_placeholder = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.loading = QLabel(f"Opening {info.title}…")
        self.loading.setObjectName("Hint")
        self.loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(self.loading)

    def set_content(self, widget: QWidget, placeholder: bool) -> None:
        self.content = widget
        self.is_placeholder = placeholder
        layout = self.layout()
        assert layout is not None
        layout.removeWidget(self.loading)
        self.loading.deleteLater()
        layout.addWidget(widget)


class MainWindow(QMainWindow):
    """Tabs, menus, status bar; geometry and last tab remembered in the settings file.

    ``tab_loaded(name)`` is emitted after a tab's content was created (or its placeholder).
    """

    tab_loaded = Signal(str)

    def __init__(
        self,
        initial_tab: str | None = None,
        state: AppState | None = None,
        settings_factory: Callable[[], QSettings] = app_settings,
        remember: bool = True,
        parent: QWidget | None = None,
        autosave_interval_ms: int = AUTOSAVE_INTERVAL_MS,
        theme_mode: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(APP_NAME)
        self.setWindowIcon(app_icon())
        self.setMinimumSize(MINIMUM_SIZE)
        self.state = state if state is not None else AppState(self)
        self._settings_factory = settings_factory
        self._remember = remember  # False: ignore and keep the saved geometry/tab (screenshots)
        self._shut_down = False
        self._about: QWidget | None = None
        self._compare: CompareDialog | None = None
        self._presentation = False
        self._state_before_presentation = Qt.WindowState.WindowNoState
        self._autosave_started = False
        # Replaceable in tests: where File → Export report writes (None: cancelled).
        self.choose_report_path: Callable[[str], Path | None] = self._report_path_dialog
        self.document = ScenarioDocument(
            self.state, self, autosave_interval_ms=autosave_interval_ms
        )
        self.document.dialog_parent = self
        self.document.settle = self.settle_tabs

        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(False)
        self._hosts: dict[str, _TabHost] = {}
        for info in TABS:
            host = _TabHost(info)
            self._hosts[info.name] = host
            self.tabs.addTab(host, info.title)
            self.tabs.setTabToolTip(self.tabs.count() - 1, info.summary)
        self.banner = MessageBanner()
        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(0, 0, 0, 0)
        central_layout.setSpacing(0)
        banner_row = QVBoxLayout()
        banner_row.setContentsMargins(12, 8, 12, 0)
        banner_row.addWidget(self.banner)
        central_layout.addLayout(banner_row)
        central_layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)
        self.notes_dock = NotesDock(self.document, self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.notes_dock)
        self.notes_dock.hide()

        self._build_menus()
        self._build_status_bar()
        self.state.status_message.connect(self.show_status)
        self.document.changed.connect(self._update_title)
        self.document.recent_changed.connect(self._rebuild_recent_menu)
        self._rebuild_recent_menu()
        self._update_title()

        settings = self._settings_factory()
        self._restore_geometry(settings if remember else None)
        last_tab = settings.value(KEY_LAST_TAB, TAB_NAMES[0]) if remember else TAB_NAMES[0]
        start = initial_tab or str(last_tab)
        if start not in self._hosts:
            start = TAB_NAMES[0]
        # The first tab is built right after the window is first exposed, so the window
        # appears at once (the tab shows "Opening …" for the moment it takes).
        self.tabs.setCurrentWidget(self._hosts[start])
        self._sync_view_actions()
        self._initial_tab: str | None = start
        self.tabs.currentChanged.connect(self._on_current_changed)

        remembered = settings.value(KEY_THEME, "system") if remember else "system"
        mode = theme_mode or str(remembered)
        self._theme_mode = mode if mode in THEME_MODES else "system"
        self._sync_theme_actions()
        hints = QGuiApplication.styleHints()
        scheme_changed = getattr(hints, "colorSchemeChanged", None)
        if scheme_changed is not None:
            scheme_changed.connect(self._on_system_scheme)
        if resolve_theme(self._theme_mode) != current_theme() or current_scale() != 1.0:
            self._apply_appearance()

    # --- tabs -------------------------------------------------------------------------------
    def tab_names(self) -> tuple[str, ...]:
        return TAB_NAMES

    def current_tab_name(self) -> str:
        host = self.tabs.currentWidget()
        return host.info.name if isinstance(host, _TabHost) else TAB_NAMES[0]

    def set_current_tab(self, name: str) -> None:
        """Show a tab, building it now if needed."""
        info = tab_info(name)  # ValueError for an unknown name
        self._initial_tab = None
        self.ensure_tab_loaded(info.name)
        self.tabs.setCurrentWidget(self._hosts[info.name])
        self._sync_view_actions()

    def tab_content(self, name: str) -> QWidget | None:
        """The loaded content of a tab (``None`` while not loaded yet)."""
        return self._hosts[name].content

    def is_placeholder(self, name: str) -> bool:
        return self._hosts[name].is_placeholder

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._autosave_started and not self._shut_down:
            self._autosave_started = True
            self.document.start_autosave()
        if self._initial_tab is not None:
            QTimer.singleShot(0, self, self._load_initial_tab)

    def _load_initial_tab(self, attempts: int = 0) -> None:
        """Build the first tab once the window has been exposed (drawn) once."""
        name = self._initial_tab
        if name is None:
            return
        handle = self.windowHandle()
        if handle is not None and not handle.isExposed() and attempts < 50:
            QTimer.singleShot(10, self, lambda: self._load_initial_tab(attempts + 1))
            return
        self._initial_tab = None
        self.ensure_tab_loaded(name)

    def load_initial_tab(self) -> QWidget:
        """Build the first tab now (for callers that do not show the window)."""
        name = self._initial_tab or self.current_tab_name()
        self._initial_tab = None
        return self.ensure_tab_loaded(name)

    def is_tab_ready(self, name: str | None = None) -> bool:
        """Whether a tab (default: the current one) has shown its first data."""
        content = self.tab_content(name or self.current_tab_name())
        if content is None:
            return False
        return content.is_ready() if isinstance(content, TabView) else True

    def ensure_tab_loaded(self, name: str) -> QWidget:
        host = self._hosts[name]
        if host.content is not None:
            return host.content
        # What a new tab publishes while it is built is not an edit of the scenario.
        with self.document.tab_loading():
            # Built as the host's child from the start: reparenting a finished tree would
            # make the style sheet polish every widget of it a second time.
            content, placeholder = self._create_tab(host.info, host)
            host.set_content(content, placeholder)
        self._decorate(content)
        self.tab_loaded.emit(name)
        return content

    def _decorate(self, content: QWidget) -> None:
        """Export/copy actions on the tab's plots, tables and cards; the active theme."""
        from desktopapp.ui.common.export import install_export_actions

        install_export_actions(content)
        if current_theme() != "light" or current_scale() != 1.0:
            from desktopapp.ui.common.appearance import restyle

            restyle(content)

    def settle_tabs(self) -> None:
        """Run every loaded tab's pending recompute now (after a scenario was applied)."""
        for host in self._hosts.values():
            if isinstance(host.content, Flushable):
                try:
                    host.content.flush()
                except Exception:  # a broken tab must not stop a file from opening
                    traceback.print_exc()

    def _create_tab(self, info: TabInfo, parent: QWidget | None = None) -> tuple[QWidget, bool]:
        factory = tab_factories().get(info.name)
        if factory is None:
            return ErrorPanel(info.title, f"no tab named {info.name!r}"), True
        try:
            widget = factory(self.state, parent)
        except Exception as exc:  # a broken tab must not take the window down
            traceback.print_exc()
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self.show_status(f"{info.title}: could not open the tab: {message}", 0)
            return ErrorPanel(info.title, message), True
        if not isinstance(widget, QWidget):
            return ErrorPanel(info.title, "create_tab did not return a widget"), True
        return widget, False

    def _on_current_changed(self, index: int) -> None:
        host = self.tabs.widget(index)
        if isinstance(host, _TabHost):
            self._initial_tab = None
            content = self.ensure_tab_loaded(host.info.name)
            from desktopapp.ui.common.export import install_export_actions

            install_export_actions(content)  # plots a tab made since it was built
        self._sync_view_actions()

    # --- menus and status bar -------------------------------------------------------------------
    def _action(
        self,
        text: str,
        shortcut: str | QKeySequence | Sequence[str],
        slot: Callable[[], object],
        tip: str = "",
    ) -> QAction:
        action = QAction(text, self)
        if isinstance(shortcut, str | QKeySequence):
            action.setShortcut(QKeySequence(shortcut))
        else:
            action.setShortcuts([QKeySequence(k) for k in shortcut])
        action.setStatusTip(tip)
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _build_menus(self) -> None:
        self._build_file_menu()
        self._build_view_menu()
        self._build_theme_menu()
        self.help_menu = self.menuBar().addMenu("&Help")
        self.about_action = QAction(f"&About {APP_NAME}", self)
        self.about_action.setShortcut(QKeySequence("F1"))
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.show_about)
        self.help_menu.addAction(self.about_action)

    def _build_file_menu(self) -> None:
        self.file_menu = self.menuBar().addMenu("&File")
        doc = self.document
        self.new_action = self._action("&New", "Ctrl+N", doc.new, "Start a new scenario")
        self.open_action = self._action("&Open…", "Ctrl+O", doc.open_dialog, "Open a scenario file")
        self.recent_menu = QMenu("Open &Recent", self)
        self.save_action = self._action("&Save", "Ctrl+S", doc.save, "Save the scenario")
        self.save_as_action = self._action(
            "Save &As…", "Ctrl+Shift+S", doc.save_as, "Save the scenario under a new name"
        )
        self.export_action = self._action(
            "&Export Report…",
            ["Ctrl+E", "Ctrl+P"],
            self.export_report,
            "A PDF with every input, result, plot and source",
        )
        for action in (self.new_action, self.open_action):
            self.file_menu.addAction(action)
        self.file_menu.addMenu(self.recent_menu)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.save_action)
        self.file_menu.addAction(self.save_as_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.export_action)
        self.file_separator = self.file_menu.addSeparator()
        self.quit_action = QAction("&Quit", self)
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(self.close)
        self.file_menu.addAction(self.quit_action)

    def _build_view_menu(self) -> None:
        self.view_menu = self.menuBar().addMenu("&View")
        self._view_group = QActionGroup(self)
        self._view_group.setExclusive(True)
        self.view_actions: dict[str, QAction] = {}
        for info in TABS:
            action = QAction(info.title, self)
            action.setCheckable(True)
            action.setShortcut(QKeySequence(info.shortcut))
            action.setStatusTip(info.summary)
            action.triggered.connect(lambda _checked=False, n=info.name: self.set_current_tab(n))
            self._view_group.addAction(action)
            self.view_menu.addAction(action)
            self.view_actions[info.name] = action
        self.next_tab_action = self._action(
            "Ne&xt Tab", "Ctrl+PgDown", lambda: self.step_tab(1), "Show the next tab"
        )
        self.previous_tab_action = self._action(
            "Pre&vious Tab", "Ctrl+PgUp", lambda: self.step_tab(-1), "Show the previous tab"
        )
        self.view_menu.addAction(self.next_tab_action)
        self.view_menu.addAction(self.previous_tab_action)
        self.view_menu.addSeparator()
        self.compare_action = self._action(
            "&Compare Scenarios…",
            "Ctrl+Shift+C",
            self.show_compare,
            "Pin scenarios and see them side by side",
        )
        self.sensitivity_action = self._action(
            "Se&nsitivity…",
            "Ctrl+Shift+T",
            lambda: self.show_compare(page=2),
            "Which inputs move the cost and the time most (tornado chart)",
        )
        self.notes_action = self.notes_dock.toggleViewAction()
        self.notes_action.setText("Scenario &Notes")
        self.notes_action.setShortcut(QKeySequence("Ctrl+Shift+N"))
        self.notes_action.setStatusTip("Name and notes saved with the scenario")
        for action in (self.compare_action, self.sensitivity_action, self.notes_action):
            self.view_menu.addAction(action)
        self.view_menu.addSeparator()
        self.presentation_action = QAction("&Presentation Mode", self)
        self.presentation_action.setCheckable(True)
        self.presentation_action.setShortcut(QKeySequence("F11"))
        self.presentation_action.setStatusTip(
            "Full screen, larger text and high-contrast plots (F11 or Esc to leave)"
        )
        self.presentation_action.toggled.connect(self.set_presentation)
        self.view_menu.addAction(self.presentation_action)
        self.leave_presentation_action = self._action(
            "Leave Presentation", "Esc", lambda: self.set_presentation(False)
        )
        self.leave_presentation_action.setEnabled(False)
        self.addAction(self.leave_presentation_action)  # shortcut only, not in the menu

    def _build_theme_menu(self) -> None:
        self.theme_menu = self.view_menu.addMenu("&Theme")
        self._theme_group = QActionGroup(self)
        self._theme_group.setExclusive(True)
        self.theme_actions: dict[str, QAction] = {}
        for mode in THEME_MODES:
            action = QAction(THEME_LABELS[mode], self)
            action.setCheckable(True)
            action.setShortcut(QKeySequence(THEME_SHORTCUTS[mode]))
            action.setStatusTip(
                "Follow the desktop's light or dark setting"
                if mode == "system"
                else f"Always use the {mode} theme"
            )
            action.triggered.connect(lambda _checked=False, m=mode: self.set_theme_mode(m))
            self._theme_group.addAction(action)
            self.theme_menu.addAction(action)
            self.theme_actions[mode] = action

    def _rebuild_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        recent = self.document.recent
        for text, path, digit in recent_entries(recent):
            action = menu.addAction(text)
            action.setToolTip(path)
            action.setStatusTip(path)
            if digit is not None:
                action.setShortcut(QKeySequence(f"Ctrl+Alt+{digit}"))
            action.triggered.connect(lambda _c=False, p=path: self.document.open(p))
        menu.addSeparator()
        clear = menu.addAction("&Clear Recent Files")
        clear.setShortcut(QKeySequence("Ctrl+Alt+0"))
        clear.setEnabled(bool(recent))
        clear.triggered.connect(self.document.clear_recent)
        menu.setEnabled(True)

    def recent_actions(self) -> list[QAction]:
        return [a for a in self.recent_menu.actions() if not a.isSeparator()]

    def _build_status_bar(self) -> None:
        status = self.statusBar()
        status.setSizeGripEnabled(True)
        self.offline_label = QLabel("Offline · every figure computed on this machine")
        self.offline_label.setContentsMargins(0, 0, 8, 0)
        status.addPermanentWidget(self.offline_label)

    def _sync_view_actions(self) -> None:
        action = self.view_actions.get(self.current_tab_name())
        if action is not None and not action.isChecked():
            action.setChecked(True)

    def show_status(self, message: str, timeout_ms: int = 6000) -> None:
        self.statusBar().showMessage(message, timeout_ms)

    # --- scenario ------------------------------------------------------------------------------
    def _update_title(self) -> None:
        doc = self.document
        self.setWindowTitle(window_title(APP_NAME, doc.display_name(), doc.is_fresh()))
        self.setWindowModified(doc.is_modified())

    def show_banner(
        self,
        text: str,
        kind: str = "info",
        actions: tuple[tuple[str, Callable[[], None]], ...] = (),
    ) -> None:
        self.banner.show_message(text, kind, actions)

    def offer_recovery(self) -> list[Any]:
        """After a crash: offer the newest autosave of an ended session in the banner (not a
        blocking dialog). Returns the candidates found (newest first)."""
        from desktopapp import scenario_files

        with contextlib.suppress(OSError):
            scenario_files.prune_autosave_dir(folder=self.document.autosave_folder)
        candidates = self.document.recovery_candidates()
        if not candidates:
            return []
        newest = candidates[0]
        self.show_banner(
            recovery_text(newest.title, newest.saved_at, len(candidates) - 1),
            "warn",
            (
                ("&Restore", lambda: self._restore(newest)),
                ("&Discard", lambda: self.document.discard_recovery(candidates)),
            ),
        )
        return candidates

    def _restore(self, autosave: Any) -> None:
        if self.document.confirm_discard():
            self.document.restore(autosave)

    def current_summary(self) -> ScenarioSummary:
        from desktopapp.application.compare import summarize

        doc = self.document
        file_name = doc.path.name if doc.path is not None else ""
        return summarize(doc.current_scenario(), self._current_label(), file_name)

    def _current_label(self) -> str:
        return scenario_label(self.document.name, self.document.path)

    def show_compare(self, page: int | None = None) -> CompareDialog:
        """The Compare dialog (not modal); the current scenario is pinned when none is."""
        from desktopapp.ui.scenario.compare import CompareDialog

        if self._compare is None:
            self._compare = CompareDialog(
                lambda: (
                    self.document.current_scenario(),
                    self._current_label(),
                    self.document.path.name if self.document.path is not None else "",
                ),
                self.export_report,
                self,
            )
            self._compare.show_error = self.document.show_error
        dialog = self._compare
        if not dialog.view.pins:
            dialog.pin_current()
        if page is not None:
            dialog.view.pages.setCurrentIndex(page)
        if current_theme() != "light" or current_scale() != 1.0:
            dialog.restyle()
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    @property
    def compare_dialog(self) -> CompareDialog | None:
        return self._compare

    def report_summaries(self) -> list[ScenarioSummary]:
        """The current scenario first, then the other scenarios pinned in the Compare dialog."""
        summaries = [self.current_summary()]
        if self._compare is not None:
            summaries += [pin.summary for pin in self._compare.view.pins if not pin.current]
        return summaries

    def export_report(
        self, summaries: Sequence[ScenarioSummary] | None = None
    ) -> ReportInfo | None:
        """File → Export report: a PDF of the current scenario (and the pinned ones)."""
        from desktopapp.ui.scenario.report import write_report

        chosen = list(summaries) if summaries else self.report_summaries()
        doc = self.document
        chosen_path = self.choose_report_path(str(suggested_report_path(doc.path, doc.name)))
        if chosen_path is None:
            return None
        target = report_target(chosen_path)
        try:
            info = write_report(
                target, chosen, file_name=doc.path.name if doc.path is not None else ""
            )
        except (OSError, ValueError) as exc:
            message = f"{target.name}: {exc}"
            self.show_status(f"Could not write the report: {message}", 0)
            self.document.show_error("Could not write the report", message)
            return None
        self.show_status(report_saved_text(target.name, info.page_count), 8000)
        return info

    def _report_path_dialog(self, suggested: str) -> Path | None:
        name, _filter = QFileDialog.getSaveFileName(
            self, "Export report", suggested, "PDF document (*.pdf)"
        )
        return Path(name) if name else None

    # --- appearance ----------------------------------------------------------------------------
    @property
    def theme_mode(self) -> str:
        return self._theme_mode

    def set_theme_mode(self, mode: str) -> None:
        """Light, dark or follow the system; remembered in the settings."""
        resolve_theme(mode)  # ValueError for an unknown mode
        self._theme_mode = mode
        self._sync_theme_actions()
        if self._remember:
            settings = self._settings_factory()
            settings.setValue(KEY_THEME, mode)
            settings.sync()
        self._apply_appearance()

    def _sync_theme_actions(self) -> None:
        action = self.theme_actions.get(self._theme_mode)
        if action is not None and not action.isChecked():
            action.setChecked(True)

    def _on_system_scheme(self, *_args: object) -> None:
        if self._theme_mode == "system":
            self._apply_appearance()

    def is_presenting(self) -> bool:
        return self._presentation

    def set_presentation(self, on: bool) -> None:
        """Full screen, larger fonts and high-contrast plots; F11 or Esc toggles back."""
        on = bool(on)
        if on == self._presentation:
            return
        self._presentation = on
        if self.presentation_action.isChecked() != on:
            self.presentation_action.setChecked(on)
        self.leave_presentation_action.setEnabled(on)
        if on:
            self._state_before_presentation = self.windowState()
            self.showFullScreen()
        else:
            self.setWindowState(self._state_before_presentation)
            self.show()
        self._apply_appearance()
        self.show_status(
            "Presentation mode: Ctrl+1 … Ctrl+4 or Ctrl+PgUp/PgDown switch tabs, F11 or Esc leaves"
            if on
            else "Presentation mode off",
            6000,
        )

    def _apply_appearance(self) -> None:
        app = QApplication.instance()
        if not isinstance(app, QApplication):
            return
        from desktopapp.ui.common.appearance import restyle, restyle_application

        apply_theme(
            app,
            resolve_theme(self._theme_mode),
            PRESENTATION_SCALE if self._presentation else 1.0,
        )
        restyle(self)
        restyle_application(skip=self)
        if self._compare is not None:
            self._compare.restyle()

    def step_tab(self, step: int) -> None:
        """Next (1) or previous (−1) tab, wrapping around."""
        count = self.tabs.count()
        if count:
            self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % count)

    def show_about(self) -> QWidget:
        from desktopapp.ui.common.about import AboutDialog

        if self._about is None:
            dialog = AboutDialog(self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
            self._about = dialog
        self._about.show()
        self._about.raise_()
        return self._about

    # --- geometry and closing -------------------------------------------------------------------
    def _restore_geometry(self, settings: QSettings | None) -> None:
        geometry = None if settings is None else settings.value(KEY_GEOMETRY)
        if isinstance(geometry, QByteArray | bytes) and self.restoreGeometry(QByteArray(geometry)):
            return
        size = QSize(DEFAULT_SIZE)
        screen = QApplication.primaryScreen()
        if screen is not None:
            available = screen.availableGeometry().size()
            if available.width() > 0 and available.height() > 0:
                size = size.boundedTo(available * 0.95)
        self.resize(size.expandedTo(MINIMUM_SIZE))

    def save_settings(self) -> None:
        if not self._remember:
            return
        settings = self._settings_factory()
        if self._presentation:  # remember the window, not the full screen
            self.set_presentation(False)
        settings.setValue(KEY_GEOMETRY, self.saveGeometry())
        settings.setValue(KEY_LAST_TAB, self.current_tab_name())
        settings.sync()

    def shutdown(self) -> None:
        """Save settings and let every loaded tab stop its timers and workers (idempotent)."""
        if self._shut_down:
            return
        self._shut_down = True
        self.save_settings()
        for host in self._hosts.values():
            if isinstance(host.content, TabView):
                try:
                    host.content.shutdown()
                except Exception:
                    traceback.print_exc()
        if self._about is not None:
            self._about.close()
        if self._compare is not None:
            self._compare.close()
        self.document.shutdown(clean=True)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._shut_down and not self.document.confirm_discard():
            event.ignore()  # "Cancel", or a save that did not happen
            return
        self.shutdown()
        super().closeEvent(event)
