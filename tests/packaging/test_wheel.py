"""The wheel works on its own: ``pip install`` (not editable) into a fresh venv finds everything.

One module-scoped fixture builds the wheel (``pip wheel --no-deps``), makes a venv *without*
system site-packages, installs the wheel with ``--no-deps`` (so torch, optional at run time, is
not pulled) and then its other runtime dependencies, read from the wheel's own metadata. The
checks run ``desktopapp`` from a temporary folder outside the checkout, so the checkout's
``resources/`` cannot be found by accident.

Checks for pieces that other parts of the app provide (the catalog and detect commands, the
GUI's ``--screenshot``) skip, naming what is missing, only while that piece does not exist;
they start checking as soon as it lands.
"""

from __future__ import annotations

import email.parser
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from desktopapp import __version__

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
RESOURCES = REPO / "resources"
MIN_ACCELERATORS = 30
MIN_SCREENSHOT_BYTES = 10_000
PIP_TIMEOUT_S = 240


@dataclass
class Installed:
    wheel: Path
    venv: Path
    python: Path
    program: Path
    site_packages: Path
    workdir: Path  # outside the checkout; every command runs here
    env: dict[str, str]
    deps_from_pip: bool  # False: fell back to the test interpreter's site-packages (offline)

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.program), *args],
            cwd=self.workdir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def python_c(self, code: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.python), "-c", code],
            cwd=self.workdir,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


def _pip(python: Path | str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", "--no-input", *args],
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT_S,
        check=False,
    )


def _runtime_requirements(wheel: Path) -> list[str]:
    """Requires-Dist of the wheel without extras-only entries and without torch."""
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(zf.read(name).decode("utf-8"))
    reqs = []
    for req in metadata.get_all("Requires-Dist") or []:
        if "extra ==" in req:
            continue
        if re.split(r"[\s<>=!~\[;(]", req, maxsplit=1)[0].lower() == "torch":
            continue
        reqs.append(req)
    return reqs


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("wheel-install")
    assert not root.resolve().is_relative_to(REPO), "temporary folder must be outside the repo"
    started = time.monotonic()

    dist = root / "dist"
    built = _pip(sys.executable, "wheel", "--no-deps", "--quiet", "-w", str(dist), str(REPO))
    assert built.returncode == 0, f"pip wheel failed:\n{built.stdout}\n{built.stderr}"
    wheel = next(dist.glob("desktopapp-*.whl"))

    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False, clear=True).create(env_dir)
    python = env_dir / "bin" / "python"
    site_packages = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )

    done = _pip(python, "install", "--quiet", "--no-deps", str(wheel))
    assert done.returncode == 0, f"installing the wheel failed:\n{done.stderr}"
    deps = _pip(python, "install", "--quiet", *_runtime_requirements(wheel))
    deps_from_pip = deps.returncode == 0
    if not deps_from_pip:
        # Offline: borrow this interpreter's packages. A plain path in a .pth file goes on
        # sys.path after the venv's own site-packages and its .pth files are not processed, so
        # the checkout's editable install does not leak in (test_imports_from_the_venv checks).
        borrowed = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
        (site_packages / "zz_borrowed_deps.pth").write_text("\n".join(borrowed) + "\n")

    workdir = root / "work"
    workdir.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
    }
    env.update(
        QT_QPA_PLATFORM="offscreen",
        DESKTOPAPP_HOME=str(root / "home"),
        PATH=f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}",
    )
    print(f"wheel install set-up took {time.monotonic() - started:.1f} s")
    return Installed(
        wheel=wheel,
        venv=env_dir,
        python=python,
        program=env_dir / "bin" / "desktopapp",
        site_packages=site_packages,
        workdir=workdir,
        env=env,
        deps_from_pip=deps_from_pip,
    )


def _has_command(installed: Installed, command: str) -> bool:
    """``desktopapp COMMAND --help`` exits 0 once the command exists (argparse: 2 before)."""
    return installed.run(command, "--help").returncode == 0


def _checkout_resource_files() -> list[str]:
    return sorted(
        p.relative_to(RESOURCES).as_posix()
        for p in RESOURCES.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".tmp")
    )


def test_wheel_holds_package_and_every_resource(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as zf:
        names = set(zf.namelist())
    assert "desktopapp/__init__.py" in names
    assert "desktopapp/cli.py" in names
    missing = [f for f in _checkout_resource_files() if f"desktopapp/resources/{f}" not in names]
    assert not missing, f"resources missing from the wheel: {missing}"
    stray = sorted({n.split("/")[0] for n in names} - {"desktopapp"})
    assert all(s.endswith(".dist-info") for s in stray), f"unexpected top-level entries: {stray}"
    size_mib = installed.wheel.stat().st_size / 2**20
    print(f"wheel {installed.wheel.name}: {size_mib:.2f} MiB")


def test_imports_from_the_venv_not_the_checkout(installed: Installed) -> None:
    proc = installed.python_c("import desktopapp; print(desktopapp.__file__)")
    assert proc.returncode == 0, proc.stderr
    location = Path(proc.stdout.strip()).resolve()
    assert location.is_relative_to(installed.site_packages.resolve()), location
    assert not location.is_relative_to(REPO)
    assert not installed.workdir.resolve().is_relative_to(REPO)


def test_every_resource_is_installed(installed: Installed) -> None:
    installed_resources = installed.site_packages / "desktopapp" / "resources"
    missing = [f for f in _checkout_resource_files() if not (installed_resources / f).is_file()]
    assert not missing, f"not installed: {missing}"
    if not (RESOURCES / "accelerators.json").is_file():
        pytest.skip("resources/accelerators.json is not in the checkout yet")
    proc = installed.python_c(
        "from desktopapp.resources import resources_dir; print(resources_dir())"
    )
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()).resolve() == installed_resources.resolve()


def test_app_icon_found_from_the_package(installed: Installed) -> None:
    if importlib.util.find_spec("desktopapp.ui.common.icons") is None:
        pytest.skip("desktopapp.ui.common.icons does not exist yet")
    proc = installed.python_c(
        "from desktopapp.ui.common.icons import icons_dir, svg_path; "
        "print(icons_dir()); print(svg_path().is_file())"
    )
    assert proc.returncode == 0, proc.stderr
    folder, svg_exists = proc.stdout.split()
    assert Path(folder).resolve().is_relative_to(installed.site_packages.resolve()), folder
    assert svg_exists == "True"


def test_version(installed: Installed) -> None:
    proc = installed.run("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"desktopapp {__version__}"


def test_runs_without_torch(installed: Installed) -> None:
    if not installed.deps_from_pip:
        pytest.skip("dependencies borrowed from the test interpreter (offline), which has torch")
    proc = installed.python_c("import importlib.util; print(importlib.util.find_spec('torch'))")
    assert proc.stdout.strip() == "None", "torch must not be installed with the wheel's deps"
    assert installed.run("--version").returncode == 0


def test_catalog_accelerators_json(installed: Installed) -> None:
    if not _has_command(installed, "catalog"):
        pytest.skip("no catalog command yet (`desktopapp catalog --help` fails)")
    proc = installed.run("catalog", "accelerators", "--json")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    rows = (
        payload
        if isinstance(payload, list)
        else next((v for v in payload.values() if isinstance(v, list)), [])
    )
    assert len(rows) >= MIN_ACCELERATORS, f"{len(rows)} accelerators"


def test_detect_json(installed: Installed) -> None:
    if not _has_command(installed, "detect"):
        pytest.skip("no detect command yet (`desktopapp detect --help` fails)")
    proc = installed.run("detect", "--json")
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)


def _tab_names() -> list[str]:
    try:
        from desktopapp.ui import TAB_NAMES
    except ImportError:
        return []
    return list(TAB_NAMES)


# The default tab, then each tab by name: tabs import their code when first shown, so each must
# be opened once to prove the installed package has everything it imports. A failing tab shows
# an error panel and prints a traceback but still writes the PNG, hence the stderr check.
@pytest.mark.parametrize("tab", [None, *_tab_names()])
def test_screenshot(installed: Installed, tab: str | None) -> None:
    has_gui = installed.python_c(
        "import importlib.util; print(importlib.util.find_spec('desktopapp.app') is not None)"
    )
    if has_gui.stdout.strip() != "True":
        pytest.skip("desktopapp.app (the GUI, which handles --screenshot) does not exist yet")
    shot = installed.workdir / f"out-{tab or 'default'}.png"
    shot.unlink(missing_ok=True)
    proc = installed.run("--screenshot", shot.name, *(["--tab", tab] if tab else []), timeout=180)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    assert "Traceback (most recent call last)" not in proc.stderr, proc.stderr
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(data) >= MIN_SCREENSHOT_BYTES, f"only {len(data)} bytes"
