"""The packaging files stay consistent with the app, with or without the validators installed.

The ``.desktop`` file is read with configparser and the AppStream metainfo with ElementTree, so
breakage is caught even where ``desktop-file-validate`` / ``appstreamcli`` are missing; where
they exist they run too. ``install-desktop.sh`` is exercised into a temporary data folder.
"""

from __future__ import annotations

import ast
import configparser
import re
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from desktopapp import APP_NAME, __version__

REPO = Path(__file__).resolve().parents[2]
PACKAGING = REPO / "packaging"
DESKTOP = PACKAGING / "desktopapp.desktop"
APP_ID = "io.github.desktopapp.MLCapacityPlanner"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
INSTALL = PACKAGING / "install-desktop.sh"

# Keys of the Desktop Entry Specification 1.4 that this file may use (typos fail the test).
KNOWN_KEYS = {
    "Type", "Version", "Name", "GenericName", "NoDisplay", "Comment", "Icon", "Hidden",
    "OnlyShowIn", "NotShowIn", "DBusActivatable", "TryExec", "Exec", "Path", "Terminal",
    "Actions", "MimeType", "Categories", "Implements", "Keywords", "StartupNotify",
    "StartupWMClass", "PrefersNonDefaultGPU", "SingleMainWindow",
}  # fmt: skip
MAIN_CATEGORIES = {
    "AudioVideo", "Audio", "Video", "Development", "Education", "Game", "Graphics", "Network",
    "Office", "Science", "Settings", "System", "Utility",
}  # fmt: skip


def desktop_entry(path: Path = DESKTOP) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    assert parser.sections() == ["Desktop Entry"]
    return parser["Desktop Entry"]


def script_names() -> set[str]:
    with open(REPO / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    return set(project.get("scripts", {})) | set(project.get("gui-scripts", {}))


# ------------------------------------------------------------------------ .desktop
def test_desktop_entry_keys() -> None:
    entry = desktop_entry()
    unknown = set(entry) - KNOWN_KEYS
    assert not unknown, f"unknown keys: {unknown}"
    assert entry["Type"] == "Application"
    assert entry["Name"] == APP_NAME
    assert entry["Icon"] == APP_ID, "install-desktop.sh installs the icon under the app id"
    assert entry["Terminal"] == "false"
    program, *rest = entry["Exec"].split()
    assert program == "desktopapp" and program in script_names()
    assert rest in ([], ["%f"], ["%F"]), "field codes other than a file make no sense here"
    assert entry["TryExec"] == "desktopapp"
    for key in ("Categories", "Keywords"):
        assert entry[key].endswith(";"), f"{key} must end with ';'"
    categories = [c for c in entry["Categories"].split(";") if c]
    assert len([c for c in categories if c in MAIN_CATEGORIES]) == 1, "one main category"


def test_desktop_file_validate() -> None:
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        pytest.skip("desktop-file-validate not installed (apt-get install desktop-file-utils)")
    proc = subprocess.run([tool, str(DESKTOP)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "error" not in proc.stdout.lower()


# ------------------------------------------------------------------------ metainfo
def test_metainfo_content() -> None:
    text = METAINFO.read_text(encoding="utf-8")
    root = ET.fromstring(text)
    assert root.tag == "component"
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    assert root.findtext("name") == APP_NAME
    assert root.findtext("metadata_license") == "CC0-1.0"
    with open(REPO / "pyproject.toml", "rb") as f:
        license_text = tomllib.load(f)["project"]["license"]["text"]
    assert root.findtext("project_license") == license_text
    assert (root.findtext("summary") or "").strip()
    launchable = root.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == "desktopapp.desktop"  # the name install-desktop.sh installs
    assert [b.text for b in root.iterfind("provides/binary")] == ["desktopapp"]
    releases = root.findall("releases/release")
    assert releases and releases[0].get("version") == __version__, (
        "add a <release> for the new version at the top of <releases>"
    )
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", releases[0].get("date") or "")
    assert root.find("content_rating") is not None
    # No screenshots or links: nothing of this project is published on an external host.
    assert root.find("screenshots") is None
    assert root.find("url") is None
    assert not re.search(r"https?://", text)


def test_metainfo_describes_the_four_tabs() -> None:
    from desktopapp.ui import TABS

    root = ET.fromstring(METAINFO.read_text(encoding="utf-8"))
    items = [" ".join("".join(li.itertext()).split()) for li in root.iterfind("description/ul/li")]
    assert len(items) == len(TABS) == 4
    for tab, item in zip(TABS, items, strict=True):
        assert item.startswith(f"{tab.title}:"), f"describe the {tab.title!r} tab: {item!r}"


def test_launchable_matches_the_desktop_file_name_the_app_sets() -> None:
    app = REPO / "desktopapp" / "app.py"
    match = re.search(r"setDesktopFileName\(\s*['\"]([^'\"]+)['\"]", app.read_text())
    if match is None:
        pytest.skip("desktopapp/app.py sets no desktop file name")
    name = match.group(1).removesuffix(".desktop")
    assert f"{name}.desktop" == "desktopapp.desktop", (
        "Wayland matches the window to the entry by this name: keep app.py, the metainfo "
        "launchable and DESKTOP_ID in install-desktop.sh the same"
    )
    assert f"DESKTOP_ID={name}\n" in INSTALL.read_text()


def test_appstreamcli_validate() -> None:
    tool = shutil.which("appstreamcli")
    if tool is None:
        pytest.skip("appstreamcli not installed (apt-get install appstream)")
    proc = subprocess.run(
        [tool, "validate", "--no-net", str(METAINFO)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ------------------------------------------------------------------------ scripts and spec
@pytest.mark.parametrize("script", ["build.sh", "smoke_test.sh", "install-desktop.sh"])
def test_shell_scripts_parse_and_are_executable(script: str) -> None:
    path = PACKAGING / script
    assert path.stat().st_mode & 0o111, f"{script} is not executable"
    proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_spec_is_valid_python_and_bundles_resources() -> None:
    source = (PACKAGING / "desktopapp.spec").read_text(encoding="utf-8")
    ast.parse(source, filename="desktopapp.spec")
    assert '"desktopapp/resources"' in source, "resources must land where resources.py looks"
    assert "hiddenimports = _package_modules()" in source, "lazily imported modules must be in"
    assert "BUNDLE_WITH_TORCH" in source


def test_smoke_test_script_finds_no_program(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(PACKAGING / "smoke_test.py"), str(tmp_path / "nothing")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert "does not exist" in proc.stderr


# ------------------------------------------------------------------------ install-desktop.sh
def _fake_program(folder: Path) -> Path:
    program = folder / "desktopapp"
    program.write_text("#!/bin/sh\necho desktopapp 0\n")
    program.chmod(0o755)
    return program


def test_install_desktop_and_uninstall(tmp_path: Path) -> None:
    data = tmp_path / "data home"
    bin_dir = tmp_path / "my apps"  # a space: Exec must quote the path
    bin_dir.mkdir()
    program = _fake_program(bin_dir)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}

    proc = subprocess.run(
        ["bash", str(INSTALL), "--prefix", str(data), "--exec", str(program)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    installed = data / "applications" / "desktopapp.desktop"
    entry = desktop_entry(installed)
    assert entry["Exec"] == f'"{program}" %f'
    assert entry["TryExec"] == str(program)
    assert entry["Icon"] == APP_ID
    assert (data / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()

    icons = REPO / "resources" / "icons"
    pngs = sorted(data.glob(f"icons/hicolor/*/apps/{APP_ID}.png"))
    if any(icons.glob("*.png")):
        sizes = {p.parent.parent.name for p in pngs}
        assert {"48x48", "256x256"} <= sizes, sizes
        for p in pngs:
            n = int(p.parent.parent.name.split("x")[0])
            head = p.read_bytes()[:24]
            assert int.from_bytes(head[16:20], "big") == n, f"{p} is not {n} px wide"
    if (icons / "desktopapp.svg").is_file():
        assert (data / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg").is_file()
    tool = shutil.which("desktop-file-validate")
    if tool:
        check = subprocess.run([tool, str(installed)], capture_output=True, text=True)
        assert check.returncode == 0, check.stdout

    proc = subprocess.run(
        ["bash", str(INSTALL), "--prefix", str(data), "--uninstall"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    left = [p for p in data.rglob("*") if p.is_file() and APP_ID in p.name]
    assert not installed.exists() and not left, left


def test_install_desktop_refuses_unsafe_exec_paths(tmp_path: Path) -> None:
    folder = tmp_path / "a$b"
    folder.mkdir()
    program = _fake_program(folder)
    proc = subprocess.run(
        ["bash", str(INSTALL), "--prefix", str(tmp_path / "data"), "--exec", str(program)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "must not contain" in proc.stderr
    assert not (tmp_path / "data" / "applications" / "desktopapp.desktop").exists()
