"""pyqtgraph imported without building every PySide6 class (ui.common.pyqtgraph_module).

Each import runs in a fresh interpreter: pyqtgraph's import happens once per process, and
another test of this worker may already have made it.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from desktopapp.ui.common import pyqtgraph_module

REPO = Path(__file__).resolve().parents[2]

_REPORT = r"""
import json, sys
from PySide6 import QtCore, QtGui, QtWidgets
sources = {"QtCore": QtCore, "QtGui": QtGui, "QtWidgets": QtWidgets}
listed_before = {name: set(dir(module)) for name, module in sources.items()}
if sys.argv[1] == "app":
    from desktopapp.ui.common.pyqtgraph_module import import_pyqtgraph
    import_pyqtgraph()
else:
    import pyqtgraph  # noqa: F401
import pyqtgraph.Qt as mirrors

# how many of PySide6's names exist as objects right after the import (the rest are made
# when first read)
built = sum(len(vars(module)) for module in sources.values())
listed = sum(len(module.__dir__()) for module in sources.values())


def describe(value, source_value):
    if value is source_value:
        return "pyside"
    kind = type(value).__name__
    return f"{kind}:{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"


seen = {}
for name, module in sources.items():
    mirror = getattr(mirrors, name)
    own = {n for n in vars(mirror) if not n.startswith("__")}
    names = set(dir(module)) | own
    for attr in sorted(names):
        source_value = getattr(module, attr, None)
        seen[f"{name}.{attr}"] = describe(getattr(mirror, attr), source_value)
print(json.dumps({
    "built": built,
    "listed": listed,
    "listing_kept": all(set(dir(m)) == listed_before[n] for n, m in sources.items()),
    "seen": seen,
}))
"""


def _report(mode: str) -> dict:
    result = _fresh(_REPORT, mode)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def _fresh(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (offscreen Qt, this checkout first on the path)."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env={**_env(), "QT_QPA_PLATFORM": "offscreen"},
    )


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.mark.skipif(
    pyqtgraph_module._mirror_files() is None, reason="this pyqtgraph's Qt copies hold code"
)
def test_every_name_reads_as_pyqtgraph_own_import_has_it_with_far_fewer_classes_built() -> None:
    app = _report("app")
    plain = _report("plain")
    # the same object (PySide6's, or pyqtgraph's patch) behind every name of the three copies
    assert app["seen"] == plain["seen"]
    patched = {name for name, value in plain["seen"].items() if value != "pyside"}
    assert patched, "pyqtgraph patches some names of its copies (QtGui.QFileSystemModel ...)"
    # pyqtgraph's own import builds every class; this one leaves most for later
    assert plain["built"] >= 0.95 * plain["listed"]
    assert app["built"] < 0.6 * plain["built"], (app["built"], plain["built"])
    assert app["listing_kept"] and plain["listing_kept"]


_NAMESPACE = r"""
import json, sys
from desktopapp.ui.common.pyqtgraph_module import DEFERRED, import_pyqtgraph
if sys.argv[1] == "app":
    pg = import_pyqtgraph()
else:
    import pyqtgraph as pg
watched = DEFERRED + ("pyqtgraph.parametertree", "pyqtgraph.multiprocess")
loaded_at_import = sorted(name for name in sys.modules if name.startswith(watched))
# no module of pyqtgraph kept a name imported from a stand-in
from desktopapp.ui.common.pyqtgraph_module import _Pending
pending = sorted(
    f"{module.__name__}.{attr}"
    for module in list(sys.modules.values())
    if getattr(module, "__name__", "").startswith("pyqtgraph")
    for attr, value in list(vars(module).items())
    if isinstance(value, _Pending)
)
first = sys.argv[2]
if first == "dir":
    listed = sorted(dir(pg))
else:  # a name of pyqtgraph, or a module of a package: graphicsItems.ROI
    package, _, name = first.rpartition(".")
    owner = sys.modules[f"pyqtgraph.{package}"] if package else pg
    listed = [getattr(owner, name).__name__]
packages = sorted({"pyqtgraph"} | {name.rpartition(".")[0] for name in DEFERRED})


def describe(value):
    if isinstance(value, type(sys)):
        return f"module:{value.__name__}"
    name = getattr(value, "__qualname__", None)
    if isinstance(name, str) and not isinstance(value, (str, int, float)):
        return f"{type(value).__name__}:{getattr(value, '__module__', '')}.{name}"
    return type(value).__name__


print(json.dumps({
    "loaded_at_import": loaded_at_import,
    "pending": pending,
    "listed": listed,
    "namespaces": {
        package: {name: describe(value) for name, value in vars(sys.modules[package]).items()}
        for package in packages
    },
    "modules": sorted(name for name in sys.modules if name.startswith("pyqtgraph")),
}))
"""


def _namespace(mode: str, first: str) -> dict:
    result = _fresh(_NAMESPACE, mode, first)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


_DEFERRING = pytest.mark.skipif(
    pyqtgraph_module._mirror_files() is None
    or pyqtgraph_module._version(pyqtgraph_module._mirror_files() or {})
    not in pyqtgraph_module.DEFERRED_IN,
    reason="this pyqtgraph is imported whole",
)


@_DEFERRING
@pytest.mark.parametrize(
    "first",
    [
        "dir",
        "ColorMapWidget",
        "RemoteGraphicsView",
        "parametertree",
        "widgets.TableWidget",
        "graphicsItems.ROI",
        "imageview",
    ],
)
def test_deferred_widgets_load_when_first_read_and_leave_pyqtgraph_as_its_own_import(
    first: str,
) -> None:
    plain = _namespace("plain", "dir")
    app = _namespace("app", first)
    # pyqtgraph's own import loads the deferred modules, its parameter tree and multiprocess
    # packages; the app's does not ...
    assert set(pyqtgraph_module.DEFERRED) <= set(plain["loaded_at_import"])
    assert "pyqtgraph.parametertree" in plain["loaded_at_import"]
    assert "pyqtgraph.multiprocess" in plain["loaded_at_import"]
    assert app["loaded_at_import"] == []
    assert app["pending"] == [] and plain["pending"] == []
    # ... until a name of theirs is read (or pyqtgraph is listed): then every name of
    # pyqtgraph and of the packages holding them reads what pyqtgraph's own import gives it
    parents = {name.rpartition(".")[0] for name in pyqtgraph_module.DEFERRED}
    assert sorted(app["namespaces"]) == sorted({"pyqtgraph"} | parents)
    assert app["namespaces"] == plain["namespaces"]
    assert app["modules"] == plain["modules"]
    if first == "dir":
        assert app["listed"] == plain["listed"]


@_DEFERRING
def test_a_name_pyqtgraph_lacks_is_still_an_attribute_error() -> None:
    code = (
        "from desktopapp.ui.common.pyqtgraph_module import import_pyqtgraph\n"
        "pg = import_pyqtgraph()\n"
        "import sys\n"
        "for _ in range(2):\n"
        "    try:\n"
        "        pg.NoSuchThing\n"
        "    except AttributeError as exc:\n"
        "        print(exc)\n"
        "print('pyqtgraph.parametertree' in sys.modules, '__getattr__' in vars(pg))\n"
    )
    result = _fresh(code)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert lines[:2] == ["module 'pyqtgraph' has no attribute 'NoSuchThing'"] * 2
    # the miss loaded the deferred modules once (as a plain import would have them) and
    # pyqtgraph has no module __getattr__ left, as in its own import
    assert lines[2] == "True False"


def test_the_version_is_read_from_pyqtgraphs_file_and_other_releases_are_imported_whole(
    tmp_path,
) -> None:
    init = _fake_pyqtgraph(tmp_path, {})
    files = {name: init.parent / "Qt" / name / "__init__.py" for name in pyqtgraph_module.MIRRORED}
    init.write_text("import os\n__version__ = '0.13.7'\n")
    assert pyqtgraph_module._version(files) == "0.13.7"
    assert "0.13.7" not in pyqtgraph_module.DEFERRED_IN
    init.write_text("__version__ = None\n")
    assert pyqtgraph_module._version(files) == "None"
    init.unlink()
    assert pyqtgraph_module._version(files) is None


_FAILING = r"""
import sys
from PySide6 import QtCore
before = set(dir(QtCore))  # PySide6 may list a name twice once it is built: compare sets
sys.modules["pyqtgraph.colormap"] = None  # pyqtgraph's import fails half way
from desktopapp.ui.common.pyqtgraph_module import import_pyqtgraph
try:
    import_pyqtgraph()
except ImportError:
    pass
else:
    raise SystemExit("the import did not fail")
assert set(dir(QtCore)) == before, "PySide6's names are listed again"
left = [name for name in sys.modules if name.startswith("pyqtgraph.Qt.Qt")]
assert not left, left
from desktopapp.ui.common.pyqtgraph_module import DEFERRED
stand_ins = [name for name in DEFERRED if name in sys.modules]
assert not stand_ins, stand_ins
print("ok")
"""


@pytest.mark.skipif(
    pyqtgraph_module._mirror_files() is None, reason="this pyqtgraph's Qt copies hold code"
)
def test_a_failed_import_puts_pysides_name_lists_back() -> None:
    result = _fresh(_FAILING)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]


def _fake_pyqtgraph(root: Path, code: dict[str, str]) -> Path:
    init = root / "pyqtgraph" / "__init__.py"
    init.parent.mkdir(parents=True)
    init.write_text("")
    for name in pyqtgraph_module.MIRRORED:
        path = root / "pyqtgraph" / "Qt" / name / "__init__.py"
        path.parent.mkdir(parents=True)
        path.write_text(code.get(name, ""))
    return init


def test_copies_are_used_only_while_pyqtgraph_leaves_them_empty(tmp_path, monkeypatch) -> None:
    init = _fake_pyqtgraph(tmp_path / "empty", {})
    monkeypatch.setattr(
        pyqtgraph_module.importlib.util, "find_spec", lambda _name: SimpleNamespace(origin=init)
    )
    files = pyqtgraph_module._mirror_files()
    assert files is not None and sorted(files) == sorted(pyqtgraph_module.MIRRORED)

    init = _fake_pyqtgraph(tmp_path / "code", {"QtGui": "from PySide6.QtGui import *\n"})
    monkeypatch.setattr(
        pyqtgraph_module.importlib.util, "find_spec", lambda _name: SimpleNamespace(origin=init)
    )
    assert pyqtgraph_module._mirror_files() is None

    monkeypatch.setattr(pyqtgraph_module.importlib.util, "find_spec", lambda _name: None)
    assert pyqtgraph_module._mirror_files() is None


def test_a_missing_name_is_reported_against_the_copy() -> None:
    from PySide6 import QtCore

    forward = pyqtgraph_module._forwarder("pyqtgraph.Qt.QtCore", QtCore)
    assert forward("QPointF") is QtCore.QPointF
    with pytest.raises(AttributeError, match=r"'pyqtgraph\.Qt\.QtCore' has no attribute 'Nope'"):
        forward("Nope")


def test_the_app_imports_pyqtgraph_in_one_place() -> None:
    """Any other ``import pyqtgraph`` run first would make pyqtgraph build every class."""
    offenders = []
    for path in sorted((REPO / "desktopapp").rglob("*.py")):
        if path.name == "pyqtgraph_module.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            if any(name == "pyqtgraph" or name.startswith("pyqtgraph.") for name in names):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []
