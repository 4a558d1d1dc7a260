"""Recent-files list and autosave/recovery helpers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktopapp import paths
from desktopapp.model.atomic import TEMP_PREFIX, TEMP_SUFFIX
from desktopapp.model.scenario import Scenario, ScenarioError
from desktopapp.model.training import TrainingInputs
from desktopapp.scenario_files import (
    AUTOSAVE_SUFFIX,
    MAX_RECENT,
    add_recent,
    autosave_path,
    clear_autosaves,
    discard_autosave,
    existing_recent,
    load_recent,
    new_session_id,
    normalise_path,
    process_is_running,
    prune_autosave_dir,
    read_autosave,
    recent_files_path,
    recovery_candidates,
    remove_recent,
    save_recent,
    trim_recent,
    write_autosave,
)

PLAN = Scenario(
    name="plan", training=TrainingInputs(params=1e9, tokens=2e10, peak_tflops=312.0, gpus=8)
)


def never_running(pid: int, started: float | None) -> bool:
    return False


def always_running(pid: int, started: float | None) -> bool:
    return True


# --- recent files ----------------------------------------------------------------------------


def test_add_recent_puts_the_path_first_without_duplicates(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    recent = add_recent([], a)
    recent = add_recent(recent, b)
    assert recent == (str(b), str(a))
    spelled_differently = tmp_path / "sub" / ".." / "a.json"
    assert add_recent(recent, spelled_differently) == (str(a), str(b))


def test_add_recent_keeps_at_most_ten(tmp_path: Path) -> None:
    recent: tuple[str, ...] = ()
    for i in range(15):
        recent = add_recent(recent, tmp_path / f"{i}.json")
    assert len(recent) == MAX_RECENT
    assert recent[0] == str(tmp_path / "14.json") and recent[-1] == str(tmp_path / "5.json")


@given(st.lists(st.sampled_from(["a.json", "b.json", "c/d.json", "e.json", "f.json"] * 3)))
def test_recent_list_properties(names: list[str]) -> None:
    recent: tuple[str, ...] = ()
    for name in names:
        recent = add_recent(recent, name, limit=3)
    assert len(recent) == min(3, len(set(names)))
    assert len(set(recent)) == len(recent)
    assert all(os.path.isabs(p) for p in recent)
    if names:
        assert recent[0] == normalise_path(names[-1])
    # The most recently used distinct names, newest first.
    expected = list(dict.fromkeys(reversed(names)))[:3]
    assert recent == tuple(normalise_path(n) for n in expected)


def test_relative_paths_become_absolute(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert add_recent([], "plan.json") == (str(tmp_path / "plan.json"),)


def test_remove_and_existing(tmp_path: Path) -> None:
    a, b, c = (str(tmp_path / n) for n in ("a.json", "b.json", "c.json"))
    assert remove_recent([a, b, c], b) == (a, c)
    assert remove_recent([a], tmp_path / "zzz.json") == (a,)
    assert existing_recent([a, b, c], exists=lambda p: p != b) == (a, c)
    Path(a).write_text("{}")
    assert existing_recent([a, b]) == (a,)


def test_trim_recent_limits() -> None:
    assert trim_recent(["/x", "/y"], 0) == ()
    with pytest.raises(ValueError, match=r"^limit: "):
        trim_recent(["/x"], -1)


def test_recent_list_is_stored_in_the_config_folder(isolated_home: Path, tmp_path: Path) -> None:
    assert load_recent() == ()
    recent = add_recent(add_recent([], tmp_path / "a.json"), tmp_path / "b.json")
    save_recent(recent)
    assert recent_files_path().parent == paths.config_dir()
    assert load_recent() == recent


@pytest.mark.parametrize(
    "contents",
    [
        "not json",
        "[]",
        '{"format": "other", "paths": ["/a"]}',
        '{"format": "desktopapp-recent-files", "paths": "/a"}',
        "[" * 10_000,
    ],
)
def test_damaged_recent_list_reads_as_empty(tmp_path: Path, contents: str) -> None:
    path = tmp_path / "recent.json"
    path.write_text(contents)
    assert load_recent(path) == ()
    assert path.read_text() == contents


def test_recent_list_skips_bad_entries(tmp_path: Path) -> None:
    path = tmp_path / "recent.json"
    entries = ["/ok.json", 3, "", "x" * 5000, "/bad\0.json", "/ok.json"]
    path.write_text(json.dumps({"format": "desktopapp-recent-files", "paths": entries}))
    assert load_recent(path) == (normalise_path("/ok.json"),)


# --- autosave names --------------------------------------------------------------------------


def test_autosave_paths(isolated_home: Path, tmp_path: Path) -> None:
    session = new_session_id()
    untitled = autosave_path(None, session)
    assert untitled.parent == paths.autosave_dir()
    assert untitled.name == f"untitled-{session}{AUTOSAVE_SUFFIX}"
    one = autosave_path(tmp_path / "x" / "my plan.json", session)
    other = autosave_path(tmp_path / "y" / "my plan.json", session)
    assert one != other  # same name, different folders
    assert one.name.startswith("my_plan-") and one.name.endswith(f"-{session}{AUTOSAVE_SUFFIX}")
    assert autosave_path(tmp_path / "x" / "my plan.json", session) == one  # stable
    weird = autosave_path(tmp_path / ("../" + "é" * 100 + ".json"), session)
    assert weird.parent == paths.autosave_dir() and len(weird.name) < 120


@pytest.mark.parametrize("session", ["", "a/b", "../x", "a-b", "x" * 65])
def test_bad_session_ids_are_refused(tmp_path: Path, session: str) -> None:
    with pytest.raises(ValueError, match=r"^session: "):
        autosave_path(None, session, folder=tmp_path)


# --- write / read / recover ------------------------------------------------------------------


def test_autosave_round_trip(tmp_path: Path) -> None:
    document = tmp_path / "docs" / "plan.json"
    path = write_autosave(PLAN, document, "s1", folder=tmp_path, now=1000.5)
    autosave = read_autosave(path)
    assert autosave.scenario == PLAN
    assert autosave.document == document
    assert autosave.saved_at == 1000.5
    assert autosave.session == "s1" and autosave.pid == os.getpid()
    assert autosave.title == "plan.json"
    assert read_autosave(write_autosave(PLAN, None, "s1", folder=tmp_path)).title == "plan"


def test_crashed_untitled_session_is_offered(tmp_path: Path) -> None:
    write_autosave(PLAN, None, "crashed", folder=tmp_path)
    (candidate,) = recovery_candidates("me", folder=tmp_path, is_running=never_running)
    assert candidate.scenario == PLAN and candidate.document is None


def test_own_and_running_sessions_are_not_offered(tmp_path: Path) -> None:
    write_autosave(PLAN, None, "me", folder=tmp_path)
    assert recovery_candidates("me", folder=tmp_path, is_running=never_running) == []
    assert recovery_candidates("other", folder=tmp_path, is_running=always_running) == []
    assert len(recovery_candidates("other", folder=tmp_path, is_running=never_running)) == 1


def test_only_autosaves_newer_than_the_last_clean_save_are_offered(tmp_path: Path) -> None:
    saved_later = tmp_path / "later.json"
    saved_earlier = tmp_path / "earlier.json"
    deleted = tmp_path / "deleted.json"
    for doc in (saved_later, saved_earlier):
        PLAN.save(doc)
    write_autosave(PLAN, saved_later, "old", folder=tmp_path, now=time.time() - 600)
    write_autosave(PLAN, saved_earlier, "old", folder=tmp_path, now=time.time() + 5)
    write_autosave(PLAN, deleted, "old", folder=tmp_path, now=time.time() - 60)
    found = recovery_candidates(None, folder=tmp_path, is_running=never_running)
    assert [c.document for c in found] == [saved_earlier, deleted]  # newest first


def test_damaged_autosaves_and_temp_debris_are_skipped(tmp_path: Path) -> None:
    write_autosave(PLAN, None, "good", folder=tmp_path)
    (tmp_path / f"untitled-bad{AUTOSAVE_SUFFIX}").write_text('{"format": "desktopapp-autos')
    (tmp_path / f"untitled-v2{AUTOSAVE_SUFFIX}").write_text(
        json.dumps({"format": "desktopapp-autosave", "version": 2})
    )
    (tmp_path / f"{TEMP_PREFIX}untitled-x{AUTOSAVE_SUFFIX}.abc{TEMP_SUFFIX}").write_text("{")
    found = recovery_candidates(None, folder=tmp_path, is_running=never_running)
    assert [c.session for c in found] == ["good"]


@pytest.mark.parametrize(
    ("change", "pattern"),
    [
        ({"format": "desktopapp-scenario"}, "not an autosave file"),
        ({"version": 9}, "unsupported autosave version 9"),
        ({"saved_at": "noon"}, "damaged autosave header"),
        ({"pid": True}, "damaged autosave header"),
        ({"session": "../x"}, "damaged autosave header"),
        ({"document": 5}, "damaged autosave header"),
        ({"pid_started": "x"}, "damaged autosave header"),
        ({"scenario": {"format": "desktopapp-scenario", "version": 1, "name": 3}}, "name:"),
    ],
)
def test_read_autosave_rejects_damage(
    tmp_path: Path, change: dict[str, object], pattern: str
) -> None:
    path = write_autosave(PLAN, None, "s", folder=tmp_path)
    wrapper = json.loads(path.read_text())
    path.write_text(json.dumps(wrapper | change))
    with pytest.raises(ScenarioError, match=pattern):
        read_autosave(path)


def test_clear_autosaves_removes_only_that_session(tmp_path: Path) -> None:
    mine = [
        write_autosave(PLAN, None, "me", folder=tmp_path),
        write_autosave(PLAN, tmp_path / "p.json", "me", folder=tmp_path),
    ]
    theirs = write_autosave(PLAN, None, "them", folder=tmp_path)
    assert sorted(clear_autosaves("me", folder=tmp_path)) == sorted(mine)
    assert list(tmp_path.iterdir()) == [theirs]
    discard_autosave(read_autosave(theirs))
    discard_autosave(theirs)  # already gone: no error
    assert list(tmp_path.iterdir()) == []


def test_default_folder_is_the_app_autosave_folder(isolated_home: Path) -> None:
    session = new_session_id()
    path = write_autosave(PLAN, None, session)
    assert path.parent == paths.autosave_dir()
    assert recovery_candidates(session) == []
    assert clear_autosaves(session) == [path]


def test_prune_autosave_dir(tmp_path: Path) -> None:
    doc = tmp_path / "doc.json"
    superseded = write_autosave(PLAN, doc, "a", folder=tmp_path, now=time.time() - 600)
    PLAN.save(doc)
    kept = write_autosave(PLAN, None, "b", folder=tmp_path)
    broken_old = tmp_path / f"untitled-c{AUTOSAVE_SUFFIX}"
    broken_new = tmp_path / f"untitled-d{AUTOSAVE_SUFFIX}"
    debris = tmp_path / f"{TEMP_PREFIX}x{TEMP_SUFFIX}"
    for path in (broken_old, broken_new, debris):
        path.write_text("{")
    long_ago = time.time() - 90 * 86400
    for path in (broken_old, debris):
        os.utime(path, (long_ago, long_ago))
    removed = prune_autosave_dir(folder=tmp_path, is_running=never_running)
    assert sorted(removed) == sorted([superseded, broken_old, debris])
    assert sorted(tmp_path.iterdir()) == sorted([doc, kept, broken_new])


def test_prune_keeps_superseded_files_of_running_sessions(tmp_path: Path) -> None:
    doc = tmp_path / "doc.json"
    live = write_autosave(PLAN, doc, "a", folder=tmp_path, now=time.time() - 600)
    PLAN.save(doc)
    assert prune_autosave_dir(folder=tmp_path, is_running=always_running) == []
    assert live.exists()


def test_autosave_write_is_atomic_and_leaves_one_file(tmp_path: Path) -> None:
    for i in range(3):
        write_autosave(Scenario(name=f"v{i}"), None, "s", folder=tmp_path)
    (only,) = tmp_path.iterdir()
    assert read_autosave(only).scenario.name == "v2"


# --- process liveness ------------------------------------------------------------------------


def test_process_is_running() -> None:
    import psutil

    me = psutil.Process(os.getpid()).create_time()
    assert process_is_running(os.getpid(), me)
    assert process_is_running(os.getpid(), None)
    assert not process_is_running(os.getpid(), me - 3600)  # pid reused by another process
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    gone = int(child.stdout)
    if not psutil.pid_exists(gone):
        assert not process_is_running(gone, None)


def test_autosave_of_this_process_counts_as_running(tmp_path: Path) -> None:
    write_autosave(PLAN, None, "here", folder=tmp_path)
    assert recovery_candidates("elsewhere", folder=tmp_path) == []
