"""Every ``from desktopapp… import name`` in benchmarks/ and scripts/ names something that
exists, including the imports inside functions (a benchmark imported ``preload`` from a module
it had moved out of, and only failed when run). mypy checks the package, not these scripts."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted([*REPO.glob("benchmarks/*.py"), *REPO.glob("scripts/*.py")])


def app_imports(path: Path) -> list[tuple[str, str, int]]:
    """(module, name, line) of each ``from desktopapp… import name`` anywhere in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("desktopapp"):
            found += [(node.module or "", alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [
                (a.name, "", node.lineno) for a in node.names if a.name.startswith("desktopapp")
            ]
    return found


def test_the_scripts_import_the_app():
    assert len(SCRIPTS) > 10
    assert sum(len(app_imports(p)) for p in SCRIPTS) > 30


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_app_import_of_a_script_resolves(path):
    missing = []
    for module_name, name, line in app_imports(path):
        module = importlib.import_module(module_name)
        if name and name != "*" and not hasattr(module, name):
            try:
                importlib.import_module(f"{module_name}.{name}")
            except ImportError:
                missing.append(f"line {line}: {module_name} has no {name}")
    assert missing == []
