"""The GUI entry with hostile surroundings: screenshot mode never blocks (a bad --compare file
is one line, exit 2, the PNG is still written), a data folder that is a file or unwritable
leaves a working app that says what it cannot save, an unknown Qt platform is one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktopapp import app, paths


def _gui(args: list[str], home: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DESKTOPAPP_HOME=home, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, "-m", "desktopapp", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    "content", [b"{bad", b"", b"[1, 2]", b'{"format": "desktopapp-scenario", "version": 99}']
)
def test_screenshot_with_bad_compare_file_never_blocks(content, tmp_path):
    bad = tmp_path / "BAD.json"
    bad.write_bytes(content)
    shot = tmp_path / "shot.png"
    proc = _gui(["--screenshot", str(shot), "--compare", str(bad)], str(tmp_path / "home"))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("desktopapp: error: --compare: BAD.json")
    assert shot.stat().st_size > 0  # the screenshot is still taken
    assert bad.read_bytes() == content


@pytest.mark.parametrize("home", ["file", "proc"])
def test_unusable_data_folder_leaves_a_working_app(home, tmp_path):
    if home == "file":
        target = tmp_path / "home"
        target.write_text("not a folder", encoding="utf-8")
    else:
        target = Path("/proc/self/fdinfo")  # nothing can be created there, not even by root
    shot = tmp_path / "shot.png"
    proc = _gui(["--screenshot", str(shot), "--tab", "monitor"], str(target))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "Nothing can be saved" in proc.stderr and shot.stat().st_size > 0
    if home == "file":
        assert target.read_text(encoding="utf-8") == "not a folder"


def test_storage_problem_names_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("DESKTOPAPP_HOME", str(tmp_path))
    assert app.storage_problem() is None
    home = tmp_path / "file"
    home.write_text("x", encoding="utf-8")
    monkeypatch.setenv("DESKTOPAPP_HOME", str(home))
    problem = app.storage_problem()
    assert problem is not None and str(home) in problem
    assert paths.data_dir() == home / "data"  # looking the path up never raises


def test_unknown_qt_platform_is_one_line():
    assert app.unknown_qt_platform({"QT_QPA_PLATFORM": "offscreen"}) is None
    assert app.unknown_qt_platform({}) is None
    message = app.unknown_qt_platform({"QT_QPA_PLATFORM": "no-such-platform"})
    assert message is not None and "offscreen" in message


def test_unknown_qt_platform_exits_cleanly(tmp_path):
    env = dict(os.environ, DESKTOPAPP_HOME=str(tmp_path), QT_QPA_PLATFORM="bogus")
    proc = subprocess.run(
        [sys.executable, "-m", "desktopapp", "--screenshot", str(tmp_path / "x.png")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1 and "QT_QPA_PLATFORM" in proc.stderr


def _no_display_env(platform, tmp_path):
    """The environment of a Linux session where ``platform`` cannot open (skips elsewhere)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the display checks are for Linux")
    if platform == "linuxfb" and Path("/dev/fb0").exists():
        pytest.skip("this machine has a frame buffer")
    env = dict(os.environ, DESKTOPAPP_HOME=str(tmp_path), QT_QPA_PLATFORM=platform, DISPLAY="")
    env.pop("WAYLAND_DISPLAY", None)
    env["XDG_RUNTIME_DIR"] = str(tmp_path)  # no compositor socket there
    return env


@pytest.mark.parametrize("platform", ["xcb", "wayland", "linuxfb"])
def test_screenshot_without_a_display_renders_offscreen(platform, tmp_path):
    """Any platform that cannot open here: the screenshot is rendered offscreen, one note."""
    env = _no_display_env(platform, tmp_path)
    shot = tmp_path / "x.png"
    proc = subprocess.run(
        [sys.executable, "-m", "desktopapp", "--screenshot", str(shot)],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert "offscreen" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("platform", ["xcb", "wayland", "linuxfb"])
def test_window_without_a_display_is_one_line(platform, tmp_path):
    env = _no_display_env(platform, tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "desktopapp"], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 1 and proc.returncode != -6
    assert len(proc.stderr.strip().splitlines()) == 1 and "offscreen" in proc.stderr
