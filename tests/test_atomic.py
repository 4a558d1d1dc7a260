"""Atomic writes: the old file survives a writer that fails or is killed midway."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from desktopapp.model import atomic
from desktopapp.model.atomic import (
    TEMP_PREFIX,
    TEMP_SUFFIX,
    atomic_write_bytes,
    atomic_write_text,
    is_temp_file,
    remove_stale_temp_files,
)

REPO_ROOT = Path(__file__).resolve().parent.parent


def test_writes_a_new_file_and_leaves_nothing_else(tmp_path: Path) -> None:
    target = tmp_path / "plan.json"
    atomic_write_bytes(target, b"hello")
    assert target.read_bytes() == b"hello"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


def test_replaces_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "plan.json"
    target.write_bytes(b"old contents that are longer than the new ones")
    atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


def test_large_payload_is_written_completely(tmp_path: Path) -> None:
    data = os.urandom(3 * (1 << 20) + 17)  # more than one chunk
    target = tmp_path / "big.bin"
    atomic_write_bytes(target, data)
    assert target.read_bytes() == data


def test_text_is_utf8_without_newline_translation(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    atomic_write_text(target, "a\nb\r\nµ")
    assert target.read_bytes() == "a\nb\r\nµ".encode()


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_keeps_permission_bits_of_the_replaced_file(tmp_path: Path) -> None:
    target = tmp_path / "plan.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    atomic_write_bytes(target, b"new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_new_file_gets_the_usual_mode_not_0600(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        target = tmp_path / "plan.json"
        atomic_write_bytes(target, b"x")
        assert stat.S_IMODE(target.stat().st_mode) == 0o644
    finally:
        os.umask(umask)


def test_failed_write_keeps_old_file_and_removes_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "plan.json"
    target.write_bytes(b"precious")

    def half_then_fail(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "_write_all", half_then_fail)
    with pytest.raises(OSError, match="No space"):
        atomic_write_bytes(target, b"replacement data")
    assert target.read_bytes() == b"precious"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


def test_failed_rename_removes_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "plan.json"
    target.write_bytes(b"precious")

    def refuse(src: object, dst: object) -> None:
        raise PermissionError("locked")

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(PermissionError):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"precious"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]


def test_missing_folder_raises_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        atomic_write_bytes(tmp_path / "absent" / "plan.json", b"x")
    assert list(tmp_path.iterdir()) == []


def test_temp_names_are_recognisable() -> None:
    name = atomic.temp_path_for(Path("/x/plan.json")).name
    assert name.startswith(TEMP_PREFIX + "plan.json.")
    assert name.endswith(TEMP_SUFFIX)
    assert is_temp_file(name)
    assert not is_temp_file("plan.json")
    assert not is_temp_file(".desktopapp-tmp-plan.json")  # no suffix: not ours
    assert not Path(name).match("*.json")


def test_remove_stale_temp_files_only_touches_old_temp_files(tmp_path: Path) -> None:
    old_temp = tmp_path / f"{TEMP_PREFIX}plan.json.abc{TEMP_SUFFIX}"
    fresh_temp = tmp_path / f"{TEMP_PREFIX}plan.json.def{TEMP_SUFFIX}"
    data = tmp_path / "plan.json"
    other_tmp = tmp_path / "something.tmp"
    for p in (old_temp, fresh_temp, data, other_tmp):
        p.write_bytes(b"x")
    an_hour_ago = time.time() - 7200
    for p in (old_temp, data, other_tmp):
        os.utime(p, (an_hour_ago, an_hour_ago))
    removed = remove_stale_temp_files(tmp_path, older_than_s=3600)
    assert removed == [old_temp]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [fresh_temp.name, "plan.json", "something.tmp"]
    )
    assert remove_stale_temp_files(tmp_path / "missing") == []


# The child writes half of the new contents to the temporary file, says so, then hangs.
_KILLED_WRITER = textwrap.dedent(
    """
    import os, sys, time
    from desktopapp.model import atomic

    def slow(fd, data):
        os.write(fd, data[: len(data) // 2])
        os.fsync(fd)
        print("partial", flush=True)
        time.sleep(60)
        os.write(fd, data[len(data) // 2 :])

    atomic._write_all = slow
    atomic.atomic_write_bytes(sys.argv[1], b"N" * 100_000)
    """
)


def test_writer_killed_mid_write_leaves_old_file_intact(tmp_path: Path) -> None:
    target = tmp_path / "plan.json"
    old = b'{"format": "desktopapp-scenario", "version": 1}\n'
    target.write_bytes(old)
    old_mtime = target.stat().st_mtime_ns
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(target)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "partial"
        debris = [p for p in tmp_path.iterdir() if p != target]
        assert len(debris) == 1 and debris[0].stat().st_size == 50_000  # really mid-write
    finally:
        child.kill()
        child.wait(timeout=10)
        if child.stdout is not None:
            child.stdout.close()
    if os.name != "nt":
        assert child.returncode == -signal.SIGKILL
    assert target.read_bytes() == old
    assert target.stat().st_mtime_ns == old_mtime
    leftovers = [p for p in tmp_path.iterdir() if p != target]
    assert len(leftovers) == 1
    assert is_temp_file(leftovers[0])
    assert list(tmp_path.glob("*.json")) == [target]  # never mistaken for a scenario
    assert remove_stale_temp_files(tmp_path, older_than_s=0) == leftovers
    assert list(tmp_path.iterdir()) == [target]
