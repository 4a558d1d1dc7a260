"""Results store: round trip, compare, export, and a damaged file that must stay untouched."""

from __future__ import annotations

import csv
import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from desktopapp.devices.bench.core import BenchResult
from desktopapp.devices.results_store import (
    SCHEMA_VERSION,
    ResultsStore,
    ResultsStoreError,
)
from desktopapp.paths import results_db_path


def result(
    suite: str = "matmul", dtype: str = "fp32", size: int = 1024, value: float = 0.1, **kw: Any
) -> BenchResult:
    seconds = kw.pop("seconds", 2 * size**3 / (value * 1e12) if suite == "matmul" else 0.01)
    return BenchResult(
        suite=suite,
        device=kw.pop("device", "cpu"),
        dtype=dtype,
        size=size,
        tflops=value if suite == "matmul" else None,
        seconds=seconds,
        peak_tflops=kw.pop("peak", 0.2),
        percent_of_peak=kw.pop("pct", 50.0),
        extra=kw.pop("extra", {"repeats": 5}),
        variant=kw.pop("variant", ""),
        metric="TFLOP/s" if suite == "matmul" else "GB/s",
        value=value,
    )


def test_default_path_is_under_desktopapp_home(isolated_home: Path) -> None:
    store = ResultsStore()
    assert store.path == results_db_path()
    assert str(store.path).startswith(str(isolated_home))
    assert store.schema_version == SCHEMA_VERSION
    assert store.list_runs() == []


def test_round_trip(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite3")
    rows = [
        result(size=512, value=0.08, extra={"repeats": 7, "threads": 2}),
        result(dtype="bf16", size=512, value=0.02, variant="a@b.T", peak=None, pct=None),
        result(suite="bandwidth", dtype="uint8", size=2**20, value=11.5, peak=None, pct=None),
        result(suite="amp", dtype="bf16", size=128, value=3000.0, seconds=math.nan),
    ]
    run_id = store.save_run(
        rows,
        machine="abc123",
        hostname="box",
        device="cpu",
        versions={"torch": "2.13.0"},
        config={"quick": True},
        device_info={"name": "Some CPU"},
        notes="first",
        warnings=["bf16 is slow here"],
        seconds=12.5,
    )
    (summary,) = store.list_runs()
    assert summary.id == run_id and summary.machine == "abc123" and summary.measurement_count == 4
    assert summary.versions == {"torch": "2.13.0"} and summary.config == {"quick": True}
    assert summary.warnings == ("bf16 is slow here",) and summary.seconds == 12.5
    assert "Some CPU" in summary.label
    loaded = store.load_run(run_id)
    assert loaded.results[:3] == tuple(rows[:3])
    assert math.isnan(loaded.results[3].seconds)  # NaN is stored as NULL and comes back NaN
    store.set_notes(run_id, "edited")
    assert store.load_run(run_id).summary.notes == "edited"
    with pytest.raises(ValueError, match=r"^run: no run with id 999"):
        store.load_run(999)
    # A second handle on the same file sees the same data.
    assert ResultsStore(tmp_path / "r.sqlite3").list_runs()[0].id == run_id


def test_list_filters_by_machine_and_delete(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite3")
    a = store.save_run([result()], machine="m1", started="2026-01-01T00:00:00+00:00")
    b = store.save_run([result()], machine="m2", started="2026-02-01T00:00:00+00:00")
    assert [r.id for r in store.list_runs()] == [b, a]  # newest first
    assert [r.id for r in store.list_runs(machine="m1")] == [a]
    store.delete_run(a)
    assert [r.id for r in store.list_runs()] == [b]
    with pytest.raises(ValueError):
        store.delete_run(a)


def test_compare_runs_matches_measurements(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite3")
    a = store.save_run(
        [result(size=512, value=0.1), result(size=1024, value=0.2), result(size=2048, value=0.3)],
        machine="m1",
    )
    b = store.save_run(
        [
            result(size=512, value=0.1),
            result(size=1024, value=0.3, device="cuda:0"),
            result(size=4096, value=0.5),
        ],
        machine="m2",
    )
    comparison = store.compare_runs(a, b)
    assert not comparison.same_machine
    by_size = {m.size: m for m in comparison.matched}
    assert set(by_size) == {512, 1024}
    assert by_size[512].ratio == pytest.approx(1.0) and by_size[512].better == "same"
    assert by_size[1024].ratio == pytest.approx(1.5) and by_size[1024].better == "b"
    assert [r.size for r in comparison.only_a] == [2048]
    assert [r.size for r in comparison.only_b] == [4096]
    json.dumps(comparison.to_dict())


def test_export_json_and_csv(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite3")
    run_id = store.save_run(
        [result(size=256, value=0.05, extra={"note": "x, y"}), result(suite="bandwidth")],
        machine="m",
    )
    data = json.loads(store.export_json([run_id], tmp_path / "out.json").read_text())
    assert data["format"] == "desktopapp-bench-results"
    assert data["runs"][0]["results"][0]["extra"] == {"note": "x, y"}
    with store.export_csv([run_id], tmp_path / "out.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2
    assert rows[0]["suite"] == "matmul" and float(rows[0]["tflops"]) == pytest.approx(0.05)
    assert rows[1]["tflops"] == ""  # None → empty cell
    assert json.loads(rows[0]["extra"]) == {"note": "x, y"}


def _snapshot(path: Path) -> tuple[bytes, int, list[str]]:
    return path.read_bytes(), path.stat().st_mtime_ns, sorted(p.name for p in path.parent.iterdir())


def test_corrupt_file_is_reported_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite3"
    path.write_bytes(b"this is not an SQLite database, it is the user's data\x00\xff" * 100)
    before = _snapshot(path)
    with pytest.raises(ResultsStoreError) as info:
        ResultsStore(path)
    message = str(info.value)
    assert str(path) in message and "left untouched" in message and "not a readable" in message
    assert _snapshot(path) == before  # same bytes, same mtime, no journal files beside it


def test_other_programs_database_is_not_touched(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE contacts (name TEXT)")
        conn.execute("INSERT INTO contacts VALUES ('Ada')")
    conn.close()
    before = _snapshot(path)
    with pytest.raises(ResultsStoreError, match="another program"):
        ResultsStore(path)
    assert _snapshot(path) == before


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite3"
    ResultsStore(path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    conn.close()
    before = _snapshot(path)
    with pytest.raises(ResultsStoreError, match="newer"):
        ResultsStore(path)
    assert _snapshot(path) == before


def test_empty_file_not_made_by_the_app_is_named_and_left(tmp_path: Path) -> None:
    # The app creates its database complete and links it into place: it never leaves a
    # zero-length file, so one found there is someone else's and is not written into.
    path = tmp_path / "results.sqlite3"
    path.write_bytes(b"")
    with pytest.raises(ResultsStoreError, match="empty file"):
        ResultsStore(path)
    assert path.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.sqlite3"]


def test_a_new_database_appears_complete_and_alone(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite3"
    ResultsStore(path)
    assert path.read_bytes().startswith(b"SQLite format 3\x00")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.sqlite3"]
