"""Issue 25: the readability check also with results present: after a quick benchmark run into
the data folder, a recorded monitor session and a scenario with serving, every tab at 1024×640
and 1440×900 in presentation mode cuts nothing off, never scrolls sideways, draws no faint
curve, and its plot tick labels are at least as large as body text in normal mode.

The data folder is filled once per module by the real CLI (``desktopapp bench --quick``, a
small matmul and bandwidth sweep, and ``desktopapp monitor --record``), in subprocesses.
``DESKTOPAPP_GEOMETRY_SHOTS=DIR`` saves a screenshot of every case for a person to look at.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktopapp.ui.common import theme
from desktopapp.ui.common.geometry import find_cut, find_cut_cells

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "resources" / "examples" / "h100-8x-rented.json"
SERVING = {  # 70B served on 2 H100 at 16 concurrent requests
    "params": 70e9,
    "accelerator": "h100-sxm",
    "gpus": 2,
    "batch_size": 16,
    "layers": 80,
    "hidden": 8192,
    "heads": 64,
    "kv_heads": 8,
    "price": 2.0,
}
TABS = ("estimate", "cost", "hardware", "monitor")
CASES = [
    pytest.param((1024, 640), "light", id="1024x640-light"),
    pytest.param((1024, 640), "dark", id="1024x640-dark"),
    pytest.param((1440, 900), "light", id="1440x900-light"),
]


def _cli(home: Path, *argv: str) -> None:
    env = dict(os.environ, DESKTOPAPP_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-m", "desktopapp", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.fixture(scope="module")
def results_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("home-with-results")
    _cli(
        home,
        "bench", "--quick", "--suite", "matmul,bandwidth", "--max-size", "128",
        "--budget-s", "0.05", "--notes", "readability check",
    )  # fmt: skip
    _cli(home, "monitor", "--duration", "1.5", "--interval", "0.25", "--record", "--quiet")
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    document["inference"] = SERVING
    (home / "serving.json").write_text(json.dumps(document), encoding="utf-8")
    return home


@pytest.fixture
def window_with_results(
    qtbot: QtBot, qapp: QApplication, results_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[object]:
    from desktopapp.app import open_scenario, wait_until_ready
    from desktopapp.ui.main_window import MainWindow

    monkeypatch.setenv("DESKTOPAPP_HOME", str(results_home))
    windows: list[MainWindow] = []

    def open_window(tab: str, size: tuple[int, int], name: str) -> MainWindow:
        window = MainWindow(initial_tab=tab, remember=False, theme_mode=name)
        qtbot.addWidget(window)
        windows.append(window)
        window.resize(*size)
        window.show()
        assert open_scenario(window, results_home / "serving.json")
        window.set_presentation(True)
        window.showNormal()
        window.resize(*size)
        assert wait_until_ready(window, 60.0), f"the {tab} tab did not report ready"
        for _ in range(5):
            QApplication.processEvents()
        return window

    yield open_window
    for window in windows:
        window.close()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    theme.apply_theme(qapp, "light", 1.0)


def _faint_curves(window: object) -> list[str]:
    from desktopapp.ui.common.appearance import plot_widgets
    from desktopapp.ui.common.plots import pg

    module = pg()
    palette = theme.plot_palette()
    background = palette.background
    decorative = {palette.marker_outline.lower(), palette.marker_fill.lower()}
    low = []
    for plot in plot_widgets(window):  # type: ignore[arg-type]
        if not plot.isVisible():
            continue
        for item in plot.getPlotItem().items:
            opts = getattr(item, "opts", None)
            if not isinstance(opts, dict) or isinstance(item, module.TextItem):
                continue
            for key in ("pen", "symbolBrush", "brush"):
                value = opts.get(key)
                color = getattr(value, "color", None)
                if not callable(color) or color().alpha() != 255 or value.style() == 0:
                    continue
                drawn = color().name()
                if drawn.lower() in decorative:
                    continue
                if theme.contrast_ratio(drawn, background) < theme.MIN_PLOT_CONTRAST:
                    low.append(f"{type(item).__name__}.{key} {drawn}")
    return low


def _small_ticks(window: object) -> list[str]:
    from desktopapp.ui.common.appearance import plot_widgets

    small = []
    for plot in plot_widgets(window):  # type: ignore[arg-type]
        if not plot.isVisible():
            continue
        for name in ("bottom", "left"):
            axis = plot.getPlotItem().getAxis(name)
            font = axis.style.get("tickFont")
            if axis.isVisible() and (font is None or font.pointSizeF() < theme.BASE_POINT_SIZE):
                size = "default" if font is None else f"{font.pointSizeF():.1f} pt"
                small.append(f"{plot.objectName() or type(plot).__name__} {name}: {size}")
    return small


@pytest.mark.parametrize(("size", "name"), CASES)
@pytest.mark.parametrize("tab", TABS)
def test_a_tab_with_results_reads_on_a_projector(
    window_with_results, tab: str, size: tuple[int, int], name: str
) -> None:
    window = window_with_results(tab, size, name)
    assert window.size() == QSize(*size) and window.is_presenting()
    shots = os.environ.get("DESKTOPAPP_GEOMETRY_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        shot = Path(shots) / f"results-{tab}-{size[0]}x{size[1]}-{name}.png"
        window.grab().save(str(shot), "PNG")
    problems = [str(p) for p in find_cut(window, 0)]
    problems += [f"faint curve: {c}" for c in _faint_curves(window)]
    problems += [f"tick labels smaller than body text: {t}" for t in _small_ticks(window)]
    problems += [str(p) for p in find_cut_cells(window)]
    assert not problems, "\n".join(problems)
