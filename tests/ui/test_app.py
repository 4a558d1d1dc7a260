"""GUI entry point: options, screenshots without a screen, scenario files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from desktopapp import app
from desktopapp.cli import is_gui_invocation

REPO = Path(__file__).resolve().parents[2]


def run_gui(args: list[str], home: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python -m desktopapp ARGS`` with no QT_QPA_PLATFORM and no display: like a server."""
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    env["DESKTOPAPP_HOME"] = str(home)
    env.pop("WAYLAND_DISPLAY", None)
    return subprocess.run(
        [sys.executable, "-m", "desktopapp", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--tab", "nope"], "--tab"),
        (["--size", "12"], "--size"),
        (["--size", "100x100"], "--size"),
        (["--screenshot", "out.jpg"], "--screenshot"),
        (["--screenshot", "/no/such/folder/x.png"], "folder does not exist"),
        (["--bogus"], "unrecognized arguments"),
        (["missing-scenario.json"], "no such file"),
        (["a.json", "--scenario", "b.json"], "one scenario file"),
    ],
)
def test_bad_options_exit_2_with_one_line(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert app.main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert err.count("\n") == 1, err


def test_help_and_version_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert app.main(["--version"]) == 0
    assert "desktopapp" in capsys.readouterr().out


def test_cli_routes_gui_options_to_the_app() -> None:
    assert is_gui_invocation([])
    assert is_gui_invocation(["--tab", "cost"])
    assert is_gui_invocation(["plan.json"])
    assert not is_gui_invocation(["estimate", "train"])


def test_parse_size() -> None:
    assert app.parse_size("1400x900") == (1400, 900)
    assert app.parse_size(" 1920 X 1080 ") == (1920, 1080)
    with pytest.raises(ValueError, match="--size"):
        app.parse_size("big")


def test_screenshot_of_the_estimate_tab_without_a_screen(tmp_path: Path) -> None:
    out = tmp_path / "estimate.png"
    result = run_gui(["--screenshot", str(out), "--tab", "estimate"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # stderr is for the user's errors, not Qt's platform chatter
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1400, 900)
    # Not a blank frame: many distinct colours (cards, plots, text).
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 23) for y in range(0, image.height(), 17)
    }
    assert len(colours) > 40
    # A screenshot neither reads nor writes the remembered window state.
    assert not (tmp_path / "config" / "desktopapp.ini").exists()
    # The compiled dataclass methods are kept for the next start (desktopapp.codecache)
    from desktopapp import codecache

    if codecache.supported():
        assert codecache.cache_file(tmp_path / "cache").stat().st_size > 0


def test_screenshot_size_option_and_placeholder_tab(tmp_path: Path) -> None:
    out = tmp_path / "monitor.png"
    result = run_gui(["--screenshot", str(out), "--tab", "monitor", "--size", "1024x700"], tmp_path)
    assert result.returncode == 0, result.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1024, 700)


def test_scenario_file_opens_or_says_why(qtbot: QtBot, tmp_path: Path, isolated_home: Path) -> None:
    from desktopapp.model.training import TrainingInputs
    from desktopapp.ui.main_window import MainWindow

    window = MainWindow(initial_tab="estimate", remember=False)
    qtbot.addWidget(window)
    path = tmp_path / "plan.json"
    try:
        from desktopapp.model.scenario import Scenario
    except ImportError:
        path.write_text("{}", encoding="utf-8")
        assert not app.open_scenario(window, path)
        assert "later version" in window.statusBar().currentMessage()
        return
    Scenario(
        name="plan",
        training=TrainingInputs(params=2e9, tokens=40e9, accelerator="h100-sxm", gpus=32),
    ).save(path)
    assert app.open_scenario(window, path)
    assert "plan.json" in window.statusBar().currentMessage()
    # The tab is built after the scenario was opened: it starts from the shared state.
    assert window.tab_content("estimate") is None
    tab = window.load_initial_tab()
    assert tab.inputs.params.text() == "2B"  # type: ignore[attr-defined]
    assert tab.inputs.devices.value() == 32  # type: ignore[attr-defined]
    assert window.state.estimate is not None
    assert window.state.estimate.total_flops == pytest.approx(6 * 2e9 * 40e9)

    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "desktopapp-scenario", "version": 1, "training": 3}')
    assert not app.open_scenario(window, bad)
    assert "bad.json" in window.statusBar().currentMessage()


def test_pause_gc_turns_back_on_only_what_it_turned_off() -> None:
    import gc

    was = gc.isenabled()
    try:
        gc.enable()
        resume = app.pause_gc()
        assert not gc.isenabled()
        resume()
        resume()  # a second call changes nothing
        assert gc.isenabled()
        gc.disable()
        resume = app.pause_gc()
        resume()
        assert not gc.isenabled()  # it was off before: stays off
    finally:
        (gc.enable if was else gc.disable)()


def test_gc_comes_back_once_the_first_tab_has_its_plots(qtbot: QtBot, isolated_home: Path) -> None:
    from desktopapp.ui.main_window import MainWindow

    window = MainWindow(initial_tab="estimate", remember=False)
    qtbot.addWidget(window)
    seen: list[bool] = []
    app._when_complete(window, lambda: seen.append(app.first_tab_complete(window)))
    assert not app.first_tab_complete(window)  # the tab is built once the window is shown
    window.show()
    qtbot.waitUntil(lambda: bool(seen), timeout=15_000)
    assert seen == [True]
    tab = window.tab_content("estimate")
    assert tab is not None and tab.plots_drawn()  # type: ignore[attr-defined]
    window.close()


def test_gc_comes_back_after_the_timeout_when_the_tab_never_completes(
    qtbot: QtBot, isolated_home: Path
) -> None:
    from desktopapp.ui.main_window import MainWindow

    window = MainWindow(initial_tab="estimate", remember=False)  # never shown: never built
    qtbot.addWidget(window)
    seen: list[bool] = []
    app._when_complete(window, lambda: seen.append(app.first_tab_complete(window)), 0.05)
    qtbot.waitUntil(lambda: bool(seen), timeout=5_000)
    assert seen == [False]
