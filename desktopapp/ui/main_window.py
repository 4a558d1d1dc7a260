"""The main window: one tab per job, loaded lazily by name (see :mod:`desktopapp.ui`).

Around the tabs: the scenario document (File menu: New, Open, Recent, Save, Save As, Export
report; title "plan.json* — ML Capacity Planner"; unsaved changes asked about on close;
autosave and crash recovery), the Notes dock, the Compare dialog, presentation mode and the
light / dark / system theme (View menu). Every plot, table and result card of every tab gets
export and copy actions in its context menu.

The window is put together from (issue 12): :mod:`.window_tabs` (the tab pages, built when
first shown), :mod:`.window_menus` (menus, actions, shortcuts), :mod:`.window_scenario`
(Compare, Export report, recovery) and the Qt-free choices of
:mod:`desktopapp.application.window` (start tab and theme, first size, texts). Here: the
window's own state (theme, presentation, geometry, settings) and closing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QMenu,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktopapp import APP_NAME
from desktopapp.application import window as policy
from desktopapp.application.scenario import window_title
from desktopapp.ui import TAB_NAMES, TabInfo, tab_info
from desktopapp.ui.common.icons import app_icon
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
from desktopapp.ui.settings import app_settings
from desktopapp.ui.state import AppState
from desktopapp.ui.tabs import TabView
from desktopapp.ui.window_menus import build_menus, check_action, rebuild_recent_menu
from desktopapp.ui.window_scenario import ScenarioCommands, report_path_dialog
from desktopapp.ui.window_tabs import ErrorPanel, TabDeck, tab_factories

if TYPE_CHECKING:
    from desktopapp.application.compare import ScenarioSummary
    from desktopapp.ui.scenario.compare import CompareDialog
    from desktopapp.ui.scenario.report import ReportInfo

# Importable from here as before the split (tests, the app, the monitor's settings).
__all__ = [
    "DEFAULT_SIZE",
    "MINIMUM_SIZE",
    "ErrorPanel",
    "MainWindow",
    "app_settings",
    "tab_factories",
]

DEFAULT_SIZE = QSize(*policy.DEFAULT_SIZE)
MINIMUM_SIZE = QSize(*policy.MINIMUM_SIZE)
KEY_GEOMETRY = "window/geometry"
KEY_LAST_TAB = "window/last_tab"
KEY_THEME = "view/theme"
KEY_NOTES_VISIBLE = "view/notes_visible"
# on close, how long to wait for a worker that cannot be interrupted (an import of torch on a
# loaded machine takes several seconds)
WORKER_WAIT_MS = 30_000


class MainWindow(QMainWindow):
    """Tabs, menus, status bar; geometry and last tab remembered in the settings file.

    ``tab_loaded(name)`` is emitted after a tab's content was created (or its placeholder).
    """

    tab_loaded = Signal(str)

    # Menus and actions, made by window_menus.build_menus.
    file_menu: QMenu
    recent_menu: QMenu
    view_menu: QMenu
    theme_menu: QMenu
    help_menu: QMenu
    new_action: QAction
    open_action: QAction
    save_action: QAction
    save_as_action: QAction
    export_action: QAction
    file_separator: QAction
    quit_action: QAction
    view_actions: dict[str, QAction]
    next_tab_action: QAction
    previous_tab_action: QAction
    compare_action: QAction
    sensitivity_action: QAction
    notes_action: QAction
    presentation_action: QAction
    leave_presentation_action: QAction
    theme_actions: dict[str, QAction]
    about_action: QAction

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
        self._build_central()
        self.scenario = ScenarioCommands(
            self, self.document, self.banner, self.show_status, lambda s: self.choose_report_path(s)
        )
        build_menus(self)
        self._build_status_bar()
        self.state.status_message.connect(self.show_status)
        self.document.changed.connect(self._update_title)
        self.document.recent_changed.connect(self._rebuild_recent_menu)
        self._rebuild_recent_menu()
        self._update_title()
        settings = self._settings_factory()
        self._restore_geometry(settings if remember else None)
        self._start(settings if remember else None, initial_tab, theme_mode)

    def _build_central(self) -> None:
        """The message banner over the tabs; the Notes dock (hidden) on the right."""
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(False)
        self.deck = TabDeck(self.tabs, self.state, self.document.tab_loading)
        self.deck.loaded = self.tab_loaded.emit
        self.deck.failed = lambda info, message: self.show_status(
            policy.tab_failed_status(info.title, message), 0
        )
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
        self._notes_dock: NotesDock | None = None  # made when first shown (see notes_dock)

    @property
    def notes_dock(self) -> NotesDock:
        """The Notes dock on the right, hidden until View → Scenario Notes. Made the first
        time it is asked for: a text editor nobody has opened yet costs the first window
        nothing."""
        if self._notes_dock is None:
            dock = NotesDock(self.document, self)
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
            dock.hide()
            # the menu's check mark follows the dock (closed with its own button, too)
            dock.toggleViewAction().toggled.connect(self.notes_action.setChecked)
            self._notes_dock = dock
        return self._notes_dock

    def show_notes(self, on: bool) -> None:
        """Show (or close) the Notes dock, as its own toggle action does."""
        view = self.notes_dock.toggleViewAction()
        if view.isChecked() != on:
            view.trigger()

    def _start(
        self, settings: QSettings | None, initial_tab: str | None, theme_mode: str | None
    ) -> None:
        """The first tab (shown now, built once the window is exposed, so the window appears
        at once) and the theme: asked for, else remembered."""
        remembered_tab = (
            settings.value(KEY_LAST_TAB, TAB_NAMES[0]) if settings is not None else None
        )
        start = policy.start_tab(initial_tab, remembered_tab, TAB_NAMES)
        self.tabs.setCurrentWidget(self.deck.hosts[start])
        self._sync_view_actions()
        self._initial_tab: str | None = start
        self.tabs.currentChanged.connect(self._on_current_changed)

        remembered_theme = settings.value(KEY_THEME, "system") if settings is not None else None
        self._theme_mode = policy.start_theme(theme_mode, remembered_theme, THEME_MODES)
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
        return self.deck.current_name()

    def set_current_tab(self, name: str) -> None:
        """Show a tab, building it now if needed."""
        info = tab_info(name)  # ValueError for an unknown name
        self._initial_tab = None
        self.ensure_tab_loaded(info.name)
        self.deck.show(info.name)
        self._sync_view_actions()

    def tab_content(self, name: str) -> QWidget | None:
        """The loaded content of a tab (``None`` while not loaded yet)."""
        return self.deck.content(name)

    def is_placeholder(self, name: str) -> bool:
        return self.deck.is_placeholder(name)

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
        self.deck.ensure_loaded(name, first_screen=True)

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
        # What a new tab publishes while it is built is not an edit of the scenario.
        return self.deck.ensure_loaded(name)

    def settle_tabs(self) -> None:
        """Run every loaded tab's pending recompute now (after a scenario was applied)."""
        self.deck.settle()

    def _create_tab(self, info: TabInfo, parent: QWidget | None = None) -> tuple[QWidget, bool]:
        return self.deck.create(info, parent)

    def _on_current_changed(self, index: int) -> None:
        name = self.deck.name_at(index)
        if name is not None:
            self._initial_tab = None
            content = self.ensure_tab_loaded(name)
            from desktopapp.ui.common.export import install_export_actions

            install_export_actions(content)  # plots a tab made since it was built
        self._sync_view_actions()

    def step_tab(self, step: int) -> None:
        """Next (1) or previous (−1) tab, wrapping around."""
        count = self.tabs.count()
        if count:
            self.tabs.setCurrentIndex(policy.stepped_index(self.tabs.currentIndex(), step, count))

    # --- menus and status bar -------------------------------------------------------------------
    def _rebuild_recent_menu(self) -> None:
        rebuild_recent_menu(self)

    def recent_actions(self) -> list[QAction]:
        return [a for a in self.recent_menu.actions() if not a.isSeparator()]

    def _build_status_bar(self) -> None:
        status = self.statusBar()
        status.setSizeGripEnabled(True)
        self.offline_label = QLabel()
        self.offline_label.setContentsMargins(0, 0, 8, 0)
        self._show_offline_note()
        status.addPermanentWidget(self.offline_label)

    def _show_offline_note(self) -> None:
        text, tooltip = policy.offline_note(self._presentation)
        self.offline_label.setText(text)
        self.offline_label.setToolTip(tooltip)

    def _sync_view_actions(self) -> None:
        check_action(self.view_actions, self.current_tab_name())

    def show_status(self, message: str, timeout_ms: int = 6000) -> None:
        self.statusBar().showMessage(message, timeout_ms)

    def show_about(self) -> QWidget:
        from desktopapp.ui.common.about import AboutDialog

        if self._about is None:
            dialog = AboutDialog(self)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
            self._about = dialog
        self._about.show()
        self._about.raise_()
        return self._about

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
        return self.scenario.offer_recovery()

    def current_summary(self) -> ScenarioSummary:
        return self.scenario.current_summary()

    def show_compare(self, page: int | None = None) -> CompareDialog:
        """The Compare dialog (not modal); the current scenario is pinned when none is."""
        return self.scenario.show_compare(page)

    @property
    def compare_dialog(self) -> CompareDialog | None:
        return self.scenario.compare

    def report_summaries(self) -> list[ScenarioSummary]:
        """The current scenario first, then the other scenarios pinned in the Compare dialog."""
        return self.scenario.report_summaries()

    def export_report(
        self, summaries: Sequence[ScenarioSummary] | None = None
    ) -> ReportInfo | None:
        """File → Export report: a PDF of the current scenario (and the pinned ones)."""
        return self.scenario.export_report(summaries)

    def _report_path_dialog(self, suggested: str) -> Path | None:
        return report_path_dialog(self, suggested)

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
        check_action(self.theme_actions, self._theme_mode)

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
        self._show_offline_note()
        self.show_status(policy.presentation_status(on), 6000)

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
        if self.scenario.compare is not None:
            self.scenario.compare.restyle()

    # --- geometry and closing -------------------------------------------------------------------
    def _restore_geometry(self, settings: QSettings | None) -> None:
        geometry = None if settings is None else settings.value(KEY_GEOMETRY)
        if isinstance(geometry, QByteArray | bytes) and self.restoreGeometry(QByteArray(geometry)):
            return
        screen = QApplication.primaryScreen()
        available = None
        if screen is not None:
            area = screen.availableGeometry().size()
            available = (area.width(), area.height())
        self.resize(QSize(*policy.first_size(available)))

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
        """Save settings and let every loaded tab stop its timers and workers, then wait for
        any worker still running (idempotent)."""
        if self._shut_down:
            return
        self._shut_down = True
        self.save_settings()
        self.deck.shutdown()
        # A worker inside an import or a driver call (the torch probe under load) cannot be
        # interrupted and may outlast a tab's own wait: none outlives the window.
        from desktopapp.ui.common.workers import stop_all_workers

        stop_all_workers(WORKER_WAIT_MS)
        if self._about is not None:
            self._about.close()
        self.scenario.close()
        self.document.shutdown(clean=True)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._shut_down and not self.document.confirm_discard():
            event.ignore()  # "Cancel", or a save that did not happen
            return
        self.shutdown()
        super().closeEvent(event)
