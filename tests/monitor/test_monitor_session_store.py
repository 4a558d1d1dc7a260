"""Session store: SQLite round-trip with batched inserts, and CSV export."""

from __future__ import annotations

import math
import sqlite3

import numpy as np
import pytest

from desktopapp.devices.sampler import ChannelSpec
from desktopapp.devices.session_store import (
    LEADING_COLUMNS,
    CsvSampleWriter,
    SessionStore,
    csv_value,
    monitor_db_path,
    read_csv,
)
from desktopapp.testing.sampler import FakeProcessSpec, FakeSampler


def fake(n_gpus=2):
    return FakeSampler(
        gpu_count=n_gpus,
        gpu_util=((10.0, 20.0, 30.0), (90.0,)),
        processes=(FakeProcessSpec(0, 11), FakeProcessSpec(1, 22, user="bob")),
        problems_at={3: ("hiccup",), 4: ("hiccup",), 9: ("other",)},
        interval_s=0.1,
    )


def test_round_trip_with_batched_commits(isolated_home):
    store = SessionStore()
    assert store.path == monitor_db_path() == isolated_home / "data" / "monitor.sqlite3"
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    sampler = fake()
    samples = [sampler.sample() for _ in range(120)]
    with store.start_session("run 1", meta={"interval_s": 0.1}, batch_size=50) as rec:
        for s in samples:
            rec.add(s)
    commits = sum(1 for s in statements if s.strip().upper() == "COMMIT")
    assert commits <= 5  # 120 samples: a few batches, never one commit per sample

    (info,) = store.sessions()
    assert (info.label, info.sample_count, info.meta) == ("run 1", 120, {"interval_s": 0.1})
    assert info.ended == pytest.approx(samples[-1].timestamp)
    data = store.load(info.id)
    expected_channels = samples[0].channel_specs()
    assert data.channels == expected_channels
    np.testing.assert_array_equal(data.timestamps, [s.timestamp for s in samples])
    for spec in expected_channels:
        np.testing.assert_array_equal(
            data.values[spec.name], [s.channels()[spec.name] for s in samples]
        )
    # processes: written once (the fake's list never changes), problems: on change only
    assert sorted((p.gpu_index, p.pid, p.user) for p in data.processes) == [
        (0, 11, "alice"),
        (1, 22, "bob"),
    ]
    assert [text for _, text in data.problems] == ["hiccup", "other"]
    store.close()


def test_channel_added_mid_session_reads_nan_before(tmp_path):
    with SessionStore(tmp_path / "m.sqlite3") as store:
        rec = store.start_session(batch_size=2)
        rec.add_values(1.0, {"cpu.percent": 10.0})
        rec.add_values(2.0, {"cpu.percent": 20.0, "gpu0.util": 50.0})
        rec.add_values(3.0, {"gpu0.util": 60.0})
        rec.finish()
        rec.finish()  # idempotent
        data = store.load(rec.session_id)
    assert [c.name for c in data.channels] == ["cpu.percent", "gpu0.util"]
    assert data.channels[1].unit == "%"
    assert np.isnan(data.values["gpu0.util"][0]) and data.values["gpu0.util"][2] == 60.0
    assert np.isnan(data.values["cpu.percent"][2])
    with pytest.raises(ValueError, match=r"^session: already finished"):
        rec.add_values(4.0, {"cpu.percent": 1.0})


def test_unfinished_session_flushes_by_time_and_keeps_rows(tmp_path):
    store = SessionStore(tmp_path / "m.sqlite3")
    rec = store.start_session(batch_size=10_000, flush_interval_s=0.0)
    sampler = fake(1)
    for _ in range(3):
        rec.add(sampler.sample())
    # a second connection (another process, a crash) sees the rows without finish()
    other = sqlite3.connect(store.path)
    assert other.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 3
    other.close()
    assert store.session(rec.session_id).ended is None
    store.close()


def test_export_csv_has_units_and_round_trips(tmp_path):
    store = SessionStore(tmp_path / "m.sqlite3")
    sampler = fake()
    samples = [sampler.sample() for _ in range(7)]
    with store.start_session() as rec:
        for s in samples:
            rec.add(s)
    out = store.export_csv(rec.session_id, tmp_path / "export.csv")
    store.close()
    header, rows = read_csv(out)
    assert header[:3] == list(LEADING_COLUMNS)
    assert "gpu0.util (%)" in header and "gpu1.power (W)" in header
    assert "mem.used (B)" in header and "gpu0.pcie.rx (MB/s)" in header
    assert len(rows) == 7
    col = header.index("gpu0.util (%)")
    assert [float(r[col]) for r in rows] == [s.gpus[0].util_percent for s in samples]
    fan = header.index("gpu0.fan (%)")
    assert all(r[fan] == "" for r in rows)  # NaN → empty cell
    assert rows[0][1].endswith("Z") and float(rows[-1][2]) == pytest.approx(0.6)
    assert not (tmp_path / "export.csv.part").exists()


def test_csv_writer_streams_to_part_file_then_renames(tmp_path):
    target = tmp_path / "live.csv"
    writer = CsvSampleWriter(target, [ChannelSpec("cpu.percent", "%")])
    writer.write(10.0, {"cpu.percent": 12.5})
    assert not target.exists()
    _, rows = read_csv(writer.part)  # flushed as it goes
    assert rows == [["10", "1970-01-01T00:00:10.000Z", "0.000", "12.5"]]
    writer.close()
    writer.close()
    assert target.exists() and not writer.part.exists()
    with pytest.raises(ValueError, match=r"^csv"):
        writer.write(11.0, {})


def test_csv_value_formatting():
    assert csv_value(3.0) == "3"
    assert csv_value(0.1) == "0.1"
    assert csv_value(85899345920.0) == "85899345920"
    assert csv_value(math.nan) == "" and csv_value(math.inf) == ""
    assert float(csv_value(1 / 3)) == 1 / 3


def test_sessions_listing_delete_and_errors(tmp_path):
    path = tmp_path / "m.sqlite3"
    with SessionStore(path) as store:
        a = store.start_session("a", started=100.0)
        b = store.start_session("b", started=200.0)
        a.finish()
        b.finish()
        assert [s.label for s in store.sessions()] == ["b", "a"]
        store.delete(a.session_id)
        assert [s.label for s in store.sessions()] == ["b"]
        with pytest.raises(ValueError, match=r"^session: no recorded session"):
            store.load(a.session_id)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(ValueError, match="newer version"):
        SessionStore(path)
