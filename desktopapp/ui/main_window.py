"""The main window: one tab per job, loaded lazily by name (see :mod:`desktopapp.ui`)."""

from __future__ import annotations

import importlib
import traceback
from collections.abc import Callable

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktopapp import APP_NAME
from desktopapp.ui import TAB_NAMES, TABS, TabInfo, tab_info
from desktopapp.ui.common.icons import app_icon
from desktopapp.ui.common.placeholder import ComingPanel
from desktopapp.ui.state import AppState

DEFAULT_SIZE = QSize(1400, 900)
MINIMUM_SIZE = QSize(960, 640)
SETTINGS_FILE = "desktopapp.ini"
KEY_GEOMETRY = "window/geometry"
KEY_LAST_TAB = "window/last_tab"


def app_settings() -> QSettings:
    """The app's settings file (IniFormat) under ``paths.config_dir()``."""
    from desktopapp.paths import config_dir

    return QSettings(str(config_dir() / SETTINGS_FILE), QSettings.Format.IniFormat)


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

        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(False)
        self._hosts: dict[str, _TabHost] = {}
        for info in TABS:
            host = _TabHost(info)
            self._hosts[info.name] = host
            self.tabs.addTab(host, info.title)
            self.tabs.setTabToolTip(self.tabs.count() - 1, info.summary)
        self.setCentralWidget(self.tabs)

        self._build_menus()
        self._build_status_bar()
        self.state.status_message.connect(self.show_status)

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
        is_ready = getattr(content, "is_ready", None)
        return bool(is_ready()) if callable(is_ready) else True

    def ensure_tab_loaded(self, name: str) -> QWidget:
        host = self._hosts[name]
        if host.content is not None:
            return host.content
        content, placeholder = self._create_tab(host.info)
        host.set_content(content, placeholder)
        self.tab_loaded.emit(name)
        return content

    def _create_tab(self, info: TabInfo) -> tuple[QWidget, bool]:
        module_name = f"desktopapp.ui.{info.name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                traceback.print_exc()
                return ErrorPanel(info.title, str(exc)), True
            return ComingPanel(info.title, info.summary), True
        factory = getattr(module, "create_tab", None)
        if not callable(factory):
            return ComingPanel(info.title, info.summary), True
        try:
            widget = factory(self.state, None)
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
            self.ensure_tab_loaded(host.info.name)
        self._sync_view_actions()

    # --- menus and status bar -------------------------------------------------------------------
    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("&File")
        # New / Open / Save arrive with scenario files; they go before this separator.
        self.file_separator = self.file_menu.addSeparator()
        self.quit_action = QAction("&Quit", self)
        self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(self.close)
        self.file_menu.addAction(self.quit_action)

        self.view_menu = bar.addMenu("&View")
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

        self.help_menu = bar.addMenu("&Help")
        self.about_action = QAction(f"&About {APP_NAME}", self)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.show_about)
        self.help_menu.addAction(self.about_action)

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
            hook = getattr(host.content, "shutdown", None)
            if callable(hook):
                try:
                    hook()
                except Exception:
                    traceback.print_exc()
        if self._about is not None:
            self._about.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)
