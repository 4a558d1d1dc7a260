"""The shipped example scenarios (resources/examples) are what scripts/make_example_scenarios.py
writes: a generator that drifted from the files (it wrote a 40% utilization the app saves as
untouched, null) would undo a deliberate change the next time someone regenerates them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "make_example_scenarios.py"
EXAMPLES = REPO / "resources" / "examples"


@pytest.fixture(scope="module")
def generator():
    spec = importlib.util.spec_from_file_location("make_example_scenarios", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_example_scenarios"] = module  # dataclasses look the module up
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("make_example_scenarios", None)


def test_the_generator_writes_the_shipped_examples(generator, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(generator, "OUT", tmp_path)
    generator.main()
    written = sorted(p.name for p in tmp_path.glob("*.json"))
    assert written == sorted(p.name for p in EXAMPLES.glob("*.json"))
    for name in written:
        fresh = (tmp_path / name).read_text(encoding="utf-8")
        shipped = (EXAMPLES / name).read_text(encoding="utf-8")
        assert fresh == shipped, f"{name} differs: run scripts/make_example_scenarios.py"
    assert str(tmp_path) in capsys.readouterr().out  # it says where it wrote
