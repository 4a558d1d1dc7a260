"""The main window's tabs: one page per tab, whose content is built the first time it is
shown (see :mod:`desktopapp.ui`), an error panel in place of a tab whose code raised, and the
factories tabs are built with (``ui.tabs.FACTORIES``; tests add to them).

:class:`TabDeck` owns the pages of the window's ``QTabWidget``; the window asks it to build,
settle and shut down the tabs and says what to do around a build (``around_build``, the
scenario document's "loading, not an edit"), when one is done (``loaded``) and when one failed
(``failed``).
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from desktopapp.application.window import failure_message
from desktopapp.ui import TAB_NAMES, TABS, TabInfo, tab_info
from desktopapp.ui.common.placeholder import ComingPanel
from desktopapp.ui.common.theme import current_scale, current_theme
from desktopapp.ui.common.timers import when
from desktopapp.ui.state import AppState
from desktopapp.ui.tabs import FACTORIES, Flushable, TabFactory, TabView

_FACTORIES: dict[str, TabFactory] = dict(FACTORIES)


def tab_factories() -> dict[str, TabFactory]:
    """The factories the window builds tabs with (``ui.tabs.FACTORIES``; tests add to it)."""
    return _FACTORIES


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


class TabHost(QWidget):
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


def create_tab_content(
    info: TabInfo,
    state: AppState,
    parent: QWidget | None,
    failed: Callable[[str], None] = lambda _message: None,
) -> tuple[QWidget, bool]:
    """The tab's widget, or an :class:`ErrorPanel` (``True``: a placeholder) when there is no
    such tab or its factory raised (``failed`` gets the one-line reason)."""
    factory = tab_factories().get(info.name)
    if factory is None:
        return ErrorPanel(info.title, f"no tab named {info.name!r}"), True
    try:
        widget = factory(state, parent)
    except Exception as exc:  # a broken tab must not take the window down
        traceback.print_exc()
        message = failure_message(exc)
        failed(message)
        return ErrorPanel(info.title, message), True
    if not isinstance(widget, QWidget):
        return ErrorPanel(info.title, "create_tab did not return a widget"), True
    return widget, False


# How long the first tab's context-menu actions wait for its plots (a tab that never draws
# them still gets its actions).
EXPORT_WAIT_S = 15.0


def _install_export_actions(content: QWidget) -> None:
    from desktopapp.ui.common.export import install_export_actions

    install_export_actions(content)


def decorate(content: QWidget, actions_later: bool = False) -> None:
    """Export/copy actions on the tab's plots, tables and cards (with ``actions_later``, the
    first tab of a window coming up, once its plots are drawn); the active theme."""
    drawn = getattr(content, "plots_drawn", None)
    if actions_later and drawn is not None:
        # a right-click menu is not needed in the first tenth of a second, and the plots it
        # would decorate are built after the figures
        when(drawn, lambda: _install_export_actions(content), content, EXPORT_WAIT_S)
    else:
        _install_export_actions(content)
    if current_theme() != "light" or current_scale() != 1.0:
        from desktopapp.ui.common.appearance import restyle

        restyle(content)


@contextlib.contextmanager
def _nothing() -> Iterator[None]:
    yield


class TabDeck:
    """The window's tab pages, each built when first needed."""

    def __init__(
        self,
        tabs: QTabWidget,
        state: AppState,
        around_build: Callable[[], AbstractContextManager[object]] = _nothing,
    ) -> None:
        self.tabs = tabs
        self.state = state
        self.around_build = around_build
        self.loaded: Callable[[str], None] = lambda _name: None
        self.failed: Callable[[TabInfo, str], None] = lambda _info, _message: None
        self.hosts: dict[str, TabHost] = {}
        for info in TABS:
            host = TabHost(info)
            self.hosts[info.name] = host
            tabs.addTab(host, info.title)
            tabs.setTabToolTip(tabs.count() - 1, info.summary)

    def current_name(self) -> str:
        host = self.tabs.currentWidget()
        return host.info.name if isinstance(host, TabHost) else TAB_NAMES[0]

    def name_at(self, index: int) -> str | None:
        host = self.tabs.widget(index)
        return host.info.name if isinstance(host, TabHost) else None

    def show(self, name: str) -> None:
        """Make a tab current without building it (``ValueError`` for an unknown name)."""
        self.tabs.setCurrentWidget(self.hosts[tab_info(name).name])

    def content(self, name: str) -> QWidget | None:
        return self.hosts[name].content

    def is_placeholder(self, name: str) -> bool:
        return self.hosts[name].is_placeholder

    def create(self, info: TabInfo, parent: QWidget | None = None) -> tuple[QWidget, bool]:
        return create_tab_content(
            info, self.state, parent, lambda message: self.failed(info, message)
        )

    def ensure_loaded(self, name: str, first_screen: bool = False) -> QWidget:
        """The tab's content, built now if it is not yet (``first_screen``: the window's first
        tab, whose context-menu actions wait until its plots are drawn)."""
        host = self.hosts[name]
        if host.content is not None:
            return host.content
        with self.around_build():
            # Built as the host's child from the start: reparenting a finished tree would
            # make the style sheet polish every widget of it a second time.
            content, placeholder = self.create(host.info, host)
            host.set_content(content, placeholder)
        decorate(content, actions_later=first_screen)
        self.loaded(name)
        return content

    def settle(self) -> None:
        """Run every loaded tab's pending recompute now (after a scenario was applied)."""
        for host in self.hosts.values():
            if isinstance(host.content, Flushable):
                try:
                    host.content.flush()
                except Exception:  # a broken tab must not stop a file from opening
                    traceback.print_exc()

    def shutdown(self) -> None:
        """Let every loaded tab stop its timers and workers."""
        for host in self.hosts.values():
            if isinstance(host.content, TabView):
                try:
                    host.content.shutdown()
                except Exception:
                    traceback.print_exc()
