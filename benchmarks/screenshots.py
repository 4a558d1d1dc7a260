"""Screenshots of every tab for a person to look at, plus what the geometry check finds cut.

Renders each tab with the app's own ``desktopapp --screenshot FILE.png --tab TAB`` (offscreen,
one fresh process per picture, the same path a user takes) in three sets:

- ``presentation``: presentation mode at 1440×900, light theme;
- ``dark``: dark theme at 1440×900, normal mode;
- ``narrow``: 1024×640, light theme, normal mode;

into ``out/`` (ignored by git) as ``out/SET-WxH-TAB.png``. With ``--check`` it then opens the
same cases in this process and writes what :func:`desktopapp.ui.common.geometry.find_cut`
reports (widgets past the right edge, labels and buttons narrower than their text, sideways
scrolling from 1280 px) to ``out/screenshots-cut.txt``, one block per picture.

    .venv/bin/python benchmarks/screenshots.py [--out out] [--check] [--sets presentation,dark]
                                               [--tabs estimate,cost]

Exit status 1 when a picture could not be rendered; cut widgets are reported, not enforced
(tests/ui/test_layout_geometry.py is the test).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TABS: tuple[str, ...] = ("estimate", "cost", "hardware", "monitor")


@dataclass(frozen=True)
class ShotSet:
    name: str
    size: tuple[int, int]
    theme: str
    presentation: bool

    def file_name(self, tab: str) -> str:
        return f"{self.name}-{self.size[0]}x{self.size[1]}-{tab}.png"

    def cli_args(self, tab: str, path: Path) -> list[str]:
        args = [
            "--screenshot",
            str(path),
            "--tab",
            tab,
            "--size",
            f"{self.size[0]}x{self.size[1]}",
            "--theme",
            self.theme,
        ]
        return [*args, "--presentation"] if self.presentation else args


SETS: dict[str, ShotSet] = {
    "presentation": ShotSet("presentation", (1440, 900), "light", True),
    "dark": ShotSet("dark", (1440, 900), "dark", False),
    "narrow": ShotSet("narrow", (1024, 640), "light", False),
}


def _environment(home: str) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["DESKTOPAPP_HOME"] = home  # no remembered settings, no recovery banner from the user's
    return env


def render(shot_set: ShotSet, tab: str, out: Path, home: str) -> tuple[Path, float, str]:
    """One picture through the CLI; returns its path, the seconds it took and stderr."""
    path = out / shot_set.file_name(tab)
    command = [sys.executable, "-m", "desktopapp", *shot_set.cli_args(tab, path)]
    started = time.perf_counter()
    result = subprocess.run(
        command, cwd=REPO, env=_environment(home), capture_output=True, text=True, timeout=180
    )
    elapsed = time.perf_counter() - started
    if result.returncode != 0 or not path.is_file():
        raise RuntimeError(
            f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}"
        )
    return path, elapsed, result.stderr.strip()


def check(cases: list[tuple[ShotSet, str]]) -> list[str]:
    """What the geometry check finds cut in each case, opened in this process the way the
    CLI opens it for a screenshot."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from desktopapp.app import wait_until_ready
    from desktopapp.ui.common.geometry import find_cut
    from desktopapp.ui.common.leaks import find_leaks
    from desktopapp.ui.common.qt_compat import guard_singleton_refcounts
    from desktopapp.ui.common.theme import apply_theme
    from desktopapp.ui.main_window import MainWindow

    guard_singleton_refcounts()
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([])
    lines: list[str] = []
    for shot_set, tab in cases:
        window = MainWindow(initial_tab=tab, remember=False, theme_mode=shot_set.theme)
        window.resize(*shot_set.size)
        window.show()
        if shot_set.presentation:
            window.set_presentation(True)
            window.showNormal()
            window.resize(*shot_set.size)
        wait_until_ready(window)
        problems = find_cut(window)
        lines.append(f"{shot_set.file_name(tab)}: {len(problems)} cut")
        lines.extend(f"  {problem}" for problem in problems)
        window.close()
        window.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        find_leaks(clean_up=True)
        apply_theme(app, "light", 1.0)  # each case starts as a fresh process would
    del app
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "out"), help="folder for the PNGs")
    parser.add_argument("--sets", default=",".join(SETS), help=f"any of {', '.join(SETS)}")
    parser.add_argument("--tabs", default=",".join(TABS), help=f"any of {', '.join(TABS)}")
    parser.add_argument("--check", action="store_true", help="also report cut widgets")
    args = parser.parse_args(argv)
    sets = [SETS[name] for name in args.sets.split(",") if name]
    tabs = [tab for tab in args.tabs.split(",") if tab]
    unknown = [tab for tab in tabs if tab not in TABS]
    if unknown:
        parser.error(f"--tabs: unknown tab {unknown[0]!r}; choose from {', '.join(TABS)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    cases = [(shot_set, tab) for shot_set in sets for tab in tabs]
    with tempfile.TemporaryDirectory(prefix="desktopapp-shots-") as home:
        for shot_set, tab in cases:
            try:
                path, seconds, warning = render(shot_set, tab, out, home)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                failed += 1
                print(f"FAILED {shot_set.file_name(tab)}: {exc}", file=sys.stderr)
                continue
            note = f"  ({warning})" if warning else ""
            print(f"{path}  {seconds:.1f} s{note}")
    if args.check:
        report = out / "screenshots-cut.txt"
        with tempfile.TemporaryDirectory(prefix="desktopapp-check-") as home:
            os.environ["DESKTOPAPP_HOME"] = home
            lines = check(cases)
        report.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{report}: geometry check of {len(cases)} cases")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
