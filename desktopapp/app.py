"""GUI entry point: ``desktopapp`` with no arguments, GUI options, or a scenario file.

Options::

    desktopapp [SCENARIO.json] [--scenario FILE] [--tab estimate|cost|hardware|monitor]
               [--compare FILE ...] [--theme system|light|dark] [--presentation]
               [--screenshot FILE.png [--size WxH]]

A scenario file opens as the window's document (a file that cannot be used is named in a
banner and the status bar; the window starts empty). ``--compare`` pins more scenario files
next to it in the Compare dialog. ``--theme`` overrides the remembered theme for this run;
``--presentation`` starts in presentation mode.

``--screenshot`` renders the window (or, with ``--compare``, the Compare dialog) offscreen
(``QT_QPA_PLATFORM=offscreen`` unless a platform is set) once the tab has its first data,
writes the PNG and exits 0. Bad options exit 2 with one line on stderr. Without
``--screenshot``, autosaves of a session that ended unexpectedly are offered in a banner.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from desktopapp import APP_NAME, __version__, codecache, paths
from desktopapp.cli_base import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, OneLineErrorParser
from desktopapp.ui import TAB_NAMES

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication, QWidget

    from desktopapp.ui.main_window import MainWindow
    from desktopapp.ui.scenario.compare import CompareDialog

SCREENSHOT_READY_TIMEOUT_S = 8.0
_SIZE_RE = re.compile(r"^\s*(\d{2,5})\s*[xX×]\s*(\d{2,5})\s*$")
MIN_SIZE = (640, 480)
MAX_SIZE = (7680, 4320)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(
        prog="desktopapp",
        description=f"{APP_NAME}: open the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"desktopapp {__version__}")
    parser.add_argument("scenario_path", nargs="?", metavar="SCENARIO", help="scenario file")
    parser.add_argument("--scenario", metavar="FILE", help="open a scenario file")
    parser.add_argument("--tab", choices=TAB_NAMES, help="tab to show first")
    parser.add_argument(
        "--screenshot", metavar="FILE.png", help="render the window into a PNG and exit"
    )
    parser.add_argument("--size", metavar="WxH", help="window size, e.g. 1400x900")
    parser.add_argument(
        "--compare",
        metavar="FILE",
        action="append",
        default=[],
        help="pin a scenario file in the Compare dialog (repeat for more)",
    )
    parser.add_argument(
        "--theme", choices=("system", "light", "dark"), help="colour theme for this run"
    )
    parser.add_argument("--presentation", action="store_true", help="start in presentation mode")
    return parser


def parse_size(text: str) -> tuple[int, int]:
    """``"1400x900"`` → (1400, 900); ValueError naming ``--size`` otherwise."""
    match = _SIZE_RE.match(text)
    if not match:
        raise ValueError(f"--size: expected WIDTHxHEIGHT such as 1400x900, got {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if not (MIN_SIZE[0] <= width <= MAX_SIZE[0] and MIN_SIZE[1] <= height <= MAX_SIZE[1]):
        raise ValueError(
            f"--size: must be between {MIN_SIZE[0]}x{MIN_SIZE[1]} and "
            f"{MAX_SIZE[0]}x{MAX_SIZE[1]}, got {text!r}"
        )
    return width, height


def _usage_error(message: str) -> int:
    sys.stderr.write(f"desktopapp: error: {message}\n")
    return EXIT_USAGE


# The X11 libraries Qt's xcb platform plugin loads (Debian/Ubuntu package → shared library).
X11_PACKAGES: dict[str, str] = {
    "libxcb-cursor0": "xcb-cursor",
    "libxcb-icccm4": "xcb-icccm",
    "libxcb-keysyms1": "xcb-keysyms",
    "libxkbcommon-x11-0": "xkbcommon-x11",
    "libegl1": "EGL",
    "libgl1": "GL",
    "libfontconfig1": "fontconfig",
    "libdbus-1-3": "dbus-1",
}


def display_problem(environ: dict[str, str] | None = None) -> str | None:
    """Why a window cannot open here, in one line, or None when it probably can.

    Qt itself aborts (exit 134) with a hint that names one library even when the real problem
    is that there is no screen at all; this check runs before Qt and says what to do instead.
    """
    env = os.environ if environ is None else environ
    unknown = unknown_qt_platform(env)
    if unknown is not None:
        return unknown
    if not sys.platform.startswith("linux"):
        return None
    platforms = [
        part.split(":")[0].strip()
        for part in env.get("QT_QPA_PLATFORM", "").split(";")
        if part.strip()
    ]
    if any(name in ("offscreen", "minimal", "vnc") for name in platforms):
        return None  # these need no screen: Qt falls back to them in the order given
    platform = platforms[0] if platforms else ""
    if platform.startswith("wayland") or (not platform and env.get("WAYLAND_DISPLAY")):
        return _wayland_problem(env)
    if platform in ("eglfs", "linuxfb", "minimalegl", "vkkhrdisplay"):
        device = "/dev/fb0" if platform == "linuxfb" else "/dev/dri"
        if not Path(device).exists():
            return (
                f"QT_QPA_PLATFORM={platform} needs {device}, which this machine lacks. To "
                "render without a screen use --screenshot FILE.png or set "
                "QT_QPA_PLATFORM=offscreen"
            )
        return None
    if platform and not platform.startswith("xcb"):
        return None
    if not env.get("DISPLAY"):
        return (
            "no display found (DISPLAY is not set). To render without a screen use "
            "--screenshot FILE.png or set QT_QPA_PLATFORM=offscreen; for a window, run it on a "
            "desktop or under Xvfb"
        )
    local = env["DISPLAY"].strip()
    if local.startswith(":"):
        number = local[1:].split(".")[0]
        if number.isdigit() and not Path(f"/tmp/.X11-unix/X{number}").exists():
            return (
                f"no X server answers on DISPLAY={local[:20]!r} (no /tmp/.X11-unix/X{number}). "
                "To render without a screen use --screenshot FILE.png or set "
                "QT_QPA_PLATFORM=offscreen"
            )
    import ctypes.util

    missing = [pkg for pkg, lib in X11_PACKAGES.items() if ctypes.util.find_library(lib) is None]
    if missing:
        return (
            f"the window needs X11 libraries that are missing: {' '.join(missing)} "
            f"(Debian/Ubuntu: sudo apt-get install {' '.join(missing)}); "
            "or render without a screen with --screenshot FILE.png"
        )
    return None


def _wayland_problem(env: dict[str, str] | os._Environ[str]) -> str | None:
    if env.get("WAYLAND_DISPLAY"):
        return None  # named by the session: Qt's to check
    name = "wayland-0"
    runtime = env.get("XDG_RUNTIME_DIR", "")
    socket_path = Path(name) if name.startswith("/") else Path(runtime or "/nonexistent") / name
    if socket_path.exists():
        return None
    return (
        f"no Wayland compositor found ({name[:40]!r} is not a socket in XDG_RUNTIME_DIR). To "
        "render without a screen use --screenshot FILE.png or set QT_QPA_PLATFORM=offscreen"
    )


def unknown_qt_platform(environ: dict[str, str] | os._Environ[str]) -> str | None:
    """One line when ``QT_QPA_PLATFORM`` names a platform plugin this Qt does not have (Qt
    itself would abort with SIGABRT); None when it is fine or cannot be checked."""
    wanted = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if not wanted:
        return None
    import importlib.util

    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins" / "platforms"
    if not folder.is_dir():
        return None
    available = sorted(
        name.split(".")[0].removeprefix("lib").removeprefix("q")
        for name in os.listdir(folder)
        if name.split(".")[0].removeprefix("lib").startswith("q")
    )
    if not available or wanted in available:
        return None
    return (
        f"QT_QPA_PLATFORM={wanted[:40]!r} is not a Qt platform this install has "
        f"(available: {', '.join(available)})"
    )


# Qt messages that say nothing to the user (offscreen plugin limits, font-database chatter).
QUIET_QT_MESSAGES: tuple[str, ...] = (
    "This plugin does not support",
    "propagateSizeHints",
    "QFont::setPointSizeF",
    "Populating font family aliases",
)


def quiet_qt_messages() -> None:
    """Keep stderr for the user's errors: drop Qt's harmless platform chatter, pass the rest."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    def handler(kind: QtMsgType, _context: object, message: str) -> None:
        if kind in (QtMsgType.QtDebugMsg, QtMsgType.QtInfoMsg):
            return
        if any(text in message for text in QUIET_QT_MESSAGES):
            return
        sys.stderr.write(f"Qt: {message}\n")

    qInstallMessageHandler(handler)


def _ensure_application() -> QApplication:
    from desktopapp.ui.common.qt_compat import guard_singleton_refcounts, speed_up_feature_check

    speed_up_feature_check()  # before PySide6 is imported: a faster per-module import check
    guard_singleton_refcounts()  # PySide6 6.12 on Python < 3.12 leaks references to None
    quiet_qt_messages()

    from PySide6.QtWidgets import QApplication

    from desktopapp.ui.common.icons import app_icon
    from desktopapp.ui.common.theme import apply_theme

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setOrganizationName("desktopapp")
    app.setDesktopFileName("desktopapp")
    apply_theme(app)
    app.setWindowIcon(app_icon())
    return app


def open_scenario(window: MainWindow, path: Path) -> bool:
    """Open a scenario file given on the command line as the window's document.

    A file that cannot be used changes nothing; its problem (one line naming the file) goes
    to the status bar and to a banner over the tabs, so start-up is never blocked by a dialog.
    """
    if window.document.open(path, confirm=False, dialog=False):
        return True
    message = window.statusBar().currentMessage()
    window.show_banner(f"<b>Could not open {path.name}</b><br>{message}", "error")
    return False


def wait_until_ready(window: MainWindow, timeout_s: float = SCREENSHOT_READY_TIMEOUT_S) -> bool:
    """Process events until the current tab reports ready and has drawn its plots (or the
    timeout passes); returns whether it reported ready."""
    from PySide6.QtCore import QEventLoop
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        if first_tab_complete(window):
            break
        time.sleep(0.01)
    ready = window.is_tab_ready()
    # A few more rounds so layouts, plots and deferred paints settle.
    for _ in range(5):
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    return ready


def _when_ready(
    window: MainWindow, then: Callable[[], object], timeout_s: float = SCREENSHOT_READY_TIMEOUT_S
) -> None:
    """Call ``then`` once the current tab reports ready (or after ``timeout_s``)."""
    from desktopapp.ui.common.timers import when

    when(window.is_tab_ready, then, window, timeout_s)


# Longest the garbage collector waits for the first tab (a tab that never completes must not
# leave it off for the whole session).
STARTUP_GC_PAUSE_S = 15.0


def pause_gc() -> Callable[[], None]:
    """Turn the cyclic garbage collector off for start-up; returns the call that turns it back
    on (only if it was on; calling it again does nothing).

    Start-up creates hundreds of thousands of long-lived objects (modules, classes, widgets);
    each collection pass walks all of them again and frees next to nothing, a tenth of the time
    to the first complete tab. Reference counting still frees everything else at once.
    """
    was_enabled = gc.isenabled()
    gc.disable()

    def resume() -> None:
        if was_enabled and not gc.isenabled():
            gc.enable()

    return resume


def first_tab_complete(window: MainWindow) -> bool:
    """The current tab shows its first figures and, where it has them, its plots."""
    if not window.is_tab_ready():
        return False
    content = window.tab_content(window.current_tab_name())
    drawn = getattr(content, "plots_drawn", None)
    return drawn is None or bool(drawn())


def _when_complete(
    window: MainWindow, then: Callable[[], object], timeout_s: float = STARTUP_GC_PAUSE_S
) -> None:
    """Call ``then`` once the current tab is complete (:func:`first_tab_complete`) or after
    ``timeout_s``."""
    from desktopapp.ui.common.timers import when

    when(lambda: first_tab_complete(window), then, window, timeout_s, every_ms=20)


def save_screenshot(window: QWidget, path: Path) -> None:
    pixmap = window.grab()
    if pixmap.isNull() or not pixmap.save(str(path), "PNG"):
        raise OSError(f"--screenshot: could not write {path}")


def main(argv: Sequence[str] | None = None) -> int:
    # before the window's modules create their dataclasses: their compiled methods from the
    # last start (saved once the first tab is complete, and at exit)
    if codecache.install(paths.cache_dir()):
        atexit.register(codecache.save)
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse: --help/--version (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE

    size: tuple[int, int] | None = None
    if args.size is not None:
        try:
            size = parse_size(args.size)
        except ValueError as exc:
            return _usage_error(str(exc))
    if args.scenario and args.scenario_path and args.scenario != args.scenario_path:
        return _usage_error("give one scenario file, either positionally or with --scenario")
    scenario_text = args.scenario or args.scenario_path
    scenario = Path(scenario_text) if scenario_text else None
    if scenario is not None and not scenario.is_file():
        return _usage_error(f"scenario: no such file: {scenario}")
    compared = [Path(text) for text in args.compare]
    for path in compared:
        if not path.is_file():
            return _usage_error(f"--compare: no such file: {path}")
    if len(compared) > 3:
        return _usage_error("--compare: at most 3 files (4 scenarios with the current one)")
    screenshot = Path(args.screenshot) if args.screenshot else None
    if screenshot is not None:
        if screenshot.suffix.lower() != ".png":
            return _usage_error(f"--screenshot: expected a .png file name, got {screenshot}")
        if not screenshot.parent.exists():
            return _usage_error(f"--screenshot: folder does not exist: {screenshot.parent}")
        if not os.environ.get("QT_QPA_PLATFORM"):
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        unknown = unknown_qt_platform(os.environ)
        if unknown is not None:
            sys.stderr.write(f"desktopapp: error: {unknown}\n")
            return EXIT_FAILURE
        problem = display_problem()
        if problem is not None:  # a screenshot needs no screen: render offscreen, say so
            wanted = os.environ.get("QT_QPA_PLATFORM", "")[:40]
            sys.stderr.write(
                f"desktopapp: note: QT_QPA_PLATFORM={wanted!r} cannot open here; rendering "
                "the screenshot offscreen\n"
            )
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
    else:
        problem = display_problem()
        if problem is not None:
            sys.stderr.write(f"desktopapp: error: {problem}\n")
            return EXIT_FAILURE

    resume_gc = pause_gc()
    try:
        return _run(args, size, scenario, compared, screenshot, resume_gc)
    finally:
        resume_gc()


def _run(
    args: argparse.Namespace,
    size: tuple[int, int] | None,
    scenario: Path | None,
    compared: list[Path],
    screenshot: Path | None,
    resume_gc: Callable[[], None],
) -> int:
    """The window (or the screenshot) for options :func:`main` has checked."""
    app = _ensure_application()
    from desktopapp.ui.main_window import DEFAULT_SIZE, MainWindow

    # A screenshot neither uses nor changes the remembered geometry and tab.
    window = MainWindow(
        initial_tab=args.tab,
        remember=screenshot is None,
        theme_mode=args.theme or ("light" if screenshot is not None else None),
    )
    if size is not None:
        window.resize(*size)
    elif screenshot is not None:
        window.resize(DEFAULT_SIZE)
    window.show()
    unsaved = storage_problem()
    if unsaved is not None:  # a working app that says what it cannot save
        import html

        window.show_banner(html.escape(unsaved), "warn")
        sys.stderr.write(f"desktopapp: warning: {unsaved}\n")
    if screenshot is None:
        window.offer_recovery()  # a banner; a file that fails to open below replaces it
    if scenario is not None:
        open_scenario(window, scenario)
    if args.presentation:
        window.set_presentation(True)
        if size is not None:  # a screenshot of presentation mode at a chosen size
            window.showNormal()
            window.resize(*size)
    compare_problems: list[str] = []

    def open_compare() -> CompareDialog:
        # Pinned only once the current tab has shown its data: pinned earlier, the current
        # scenario is still empty and its column reads "—" throughout.
        dialog = window.show_compare()
        if screenshot is not None:  # screenshot mode never blocks: no message box
            dialog.show_error = lambda _title, _message: None
        compare_problems.extend(dialog.add_files(compared))
        if size is not None:
            dialog.resize(*size)
        return dialog

    def first_tab_done() -> None:
        resume_gc()
        codecache.save()  # the methods compiled by this start, for the next one

    if screenshot is None:
        _when_complete(window, first_tab_done)
        if compared:
            _when_ready(window, open_compare)
        return int(app.exec())

    ready = wait_until_ready(window)
    first_tab_done()
    if not ready:
        sys.stderr.write(
            f"desktopapp: warning: the {window.current_tab_name()} tab did not report ready "
            f"within {SCREENSHOT_READY_TIMEOUT_S:g} s; saving what is shown\n"
        )
    dialog = None
    if compared:
        dialog = open_compare()
        wait_until_ready(window)  # the dialog's plots and layout settle
    try:
        save_screenshot(dialog if dialog is not None else window, screenshot)
    except OSError as exc:
        sys.stderr.write(f"desktopapp: error: {exc}\n")
        window.close()
        return EXIT_FAILURE
    window.close()
    if compare_problems:
        problems = "; ".join(line for p in compare_problems for line in p.splitlines())
        sys.stderr.write(f"desktopapp: error: --compare: {problems[:500]}\n")
        return EXIT_USAGE
    return EXIT_OK


def storage_problem() -> str | None:
    """One line when settings, autosaves or results cannot be saved (the data folder is a file,
    read-only, …), else None."""
    for folder in (paths.data_dir(), paths.config_dir()):
        problem = paths.folder_problem(folder)
        if problem is not None:
            return (
                f"Nothing can be saved: {problem}. Settings, autosaves and benchmark results "
                "will not be kept this session; set DESKTOPAPP_HOME to a writable folder"
            )
    return None


if __name__ == "__main__":
    sys.exit(main())
