"""The recent-files list and autosave/crash recovery, as plain functions (no Qt).

The GUI owns the timing (a timer calls :func:`write_autosave` every minute while a scenario
has unsaved changes; a clean save or a clean exit calls :func:`clear_autosaves`); this module
owns the file names and the rules:

- An autosave lives under :func:`desktopapp.paths.autosave_dir`, one file per session and
  document: ``<document stem>-<hash of its path>-<session>.autosave.json`` (``untitled-…`` when
  the scenario was never saved). It wraps the scenario document with the document's path, the
  time of the autosave and the process that wrote it.
- At start-up, :func:`recovery_candidates` lists the autosaves worth offering: those of sessions
  no longer running that are newer than the last clean save of their document (the document's
  modification time; an untitled or since-deleted document always qualifies).
- The recent-files list is a tuple of absolute paths, newest first, without duplicates, at most
  :data:`MAX_RECENT` long.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktopapp import paths
from desktopapp.model.atomic import atomic_write_text, remove_stale_temp_files
from desktopapp.model.scenario import (
    MAX_FILE_BYTES,
    LoadedScenario,
    Scenario,
    ScenarioError,
    parse_json_document,
    read_scenario_bytes,
    scenario_from_document,
)

MAX_RECENT = 10
RECENT_FORMAT = "desktopapp-recent-files"
RECENT_FILE_NAME = "recent-files.json"

AUTOSAVE_FORMAT = "desktopapp-autosave"
AUTOSAVE_VERSION = 1
AUTOSAVE_SUFFIX = ".autosave.json"
_MAX_STEM = 40


# --- recent files ----------------------------------------------------------------------------


def normalise_path(path: str | os.PathLike[str]) -> str:
    """Absolute, normalised path text (``..`` removed); case-folded only where the OS is."""
    return os.path.normpath(os.path.abspath(os.fspath(path)))


def _same_key(path: str) -> str:
    return os.path.normcase(path)


def trim_recent(
    recent: Iterable[str | os.PathLike[str]], limit: int = MAX_RECENT
) -> tuple[str, ...]:
    """Normalise, drop duplicates (the first, newest, one stays) and keep ``limit`` entries."""
    if limit < 0:
        raise ValueError(f"limit: must be 0 or more, got {limit!r}")
    out: list[str] = []
    seen: set[str] = set()
    for entry in recent:
        if len(out) >= limit:
            break
        path = normalise_path(entry)
        key = _same_key(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return tuple(out)


def add_recent(
    recent: Sequence[str | os.PathLike[str]],
    path: str | os.PathLike[str],
    limit: int = MAX_RECENT,
) -> tuple[str, ...]:
    """``path`` first, then the others without it; at most ``limit`` entries."""
    return trim_recent([path, *recent], limit)


def remove_recent(
    recent: Sequence[str | os.PathLike[str]], path: str | os.PathLike[str]
) -> tuple[str, ...]:
    """The list without ``path`` (e.g. after it failed to open)."""
    key = _same_key(normalise_path(path))
    return tuple(p for p in trim_recent(recent, len(recent)) if _same_key(p) != key)


def existing_recent(
    recent: Sequence[str | os.PathLike[str]],
    exists: Callable[[str], bool] = os.path.isfile,
) -> tuple[str, ...]:
    """Only the entries that still exist (for showing the menu)."""
    return tuple(p for p in trim_recent(recent, len(recent)) if exists(p))


def recent_files_path() -> Path:
    return paths.config_dir() / RECENT_FILE_NAME


def load_recent(path: Path | None = None) -> tuple[str, ...]:
    """The stored list; an absent or unreadable file gives an empty list (never raises)."""
    target = path or recent_files_path()
    try:
        document = parse_json_document(read_scenario_bytes(target), target.name)
    except ScenarioError:
        return ()
    if not isinstance(document, dict) or document.get("format") != RECENT_FORMAT:
        return ()
    entries = document.get("paths")
    if not isinstance(entries, list):
        return ()
    texts = [e for e in entries if isinstance(e, str) and 0 < len(e) <= 4096 and "\0" not in e]
    return trim_recent(texts)


def save_recent(recent: Sequence[str | os.PathLike[str]], path: Path | None = None) -> None:
    import json

    target = path or recent_files_path()
    document = {"format": RECENT_FORMAT, "version": 1, "paths": list(trim_recent(recent))}
    atomic_write_text(target, json.dumps(document, indent=2, ensure_ascii=False) + "\n")


# --- autosave --------------------------------------------------------------------------------


def new_session_id() -> str:
    """An id for this run of the app: process id plus randomness (unique across restarts)."""
    return f"{os.getpid()}x{os.urandom(4).hex()}"  # as secrets.token_hex, without hashlib


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_SESSION = re.compile(r"^[A-Za-z0-9]{1,64}$")


def _check_session(session: str) -> str:
    if not isinstance(session, str) or not _SESSION.match(session):
        raise ValueError(f"session: letters and digits only (1-64), got {session!r}")
    return session


def autosave_path(
    document: str | os.PathLike[str] | None, session: str, folder: Path | None = None
) -> Path:
    """Where ``session`` autosaves ``document`` (None: an untitled scenario)."""
    _check_session(session)
    base = folder or paths.autosave_dir()
    if document is None:
        return base / f"untitled-{session}{AUTOSAVE_SUFFIX}"
    full = normalise_path(document)
    stem = _UNSAFE.sub("_", Path(full).stem).strip("._")[:_MAX_STEM] or "scenario"
    import hashlib  # when a named scenario autosaves: OpenSSL's hashlib costs each start ~5 ms

    digest = hashlib.sha256(_same_key(full).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return base / f"{stem}-{digest}-{session}{AUTOSAVE_SUFFIX}"


def _process_started(pid: int) -> float | None:
    """Start time of process ``pid`` (epoch seconds), or None when it does not exist."""
    try:
        import psutil

        return float(psutil.Process(pid).create_time())
    except Exception:  # no psutil, no such process, access denied: all mean "not known"
        return None


def process_is_running(pid: int, started: float | None) -> bool:
    """Is the process that wrote an autosave still running (pid reuse is ruled out by its
    start time when one was recorded)?"""
    now_started = _process_started(pid)
    if now_started is None:
        return False
    return started is None or abs(now_started - started) < 1.0


def write_autosave(
    scenario: Scenario,
    document: str | os.PathLike[str] | None,
    session: str,
    *,
    folder: Path | None = None,
    now: float | None = None,
) -> Path:
    """Write (atomically) this session's autosave of ``scenario``; returns its path."""
    import json

    target = autosave_path(document, session, folder)
    wrapper: dict[str, Any] = {
        "format": AUTOSAVE_FORMAT,
        "version": AUTOSAVE_VERSION,
        "saved_at": time.time() if now is None else float(now),
        "document": None if document is None else normalise_path(document),
        "session": session,
        "pid": os.getpid(),
        "pid_started": _process_started(os.getpid()),
        "scenario": scenario.to_dict(),
    }
    text = json.dumps(wrapper, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    if len(text.encode("utf-8")) > MAX_FILE_BYTES:
        raise ScenarioError(target.name, "the autosave would be larger than the 10 MB limit")
    atomic_write_text(target, text)
    return target


@dataclass(frozen=True)
class Autosave:
    """One autosave file, read and checked."""

    path: Path
    document: Path | None  # the scenario file it belongs to; None when untitled
    saved_at: float  # epoch seconds
    session: str
    pid: int
    pid_started: float | None
    loaded: LoadedScenario

    @property
    def scenario(self) -> Scenario:
        return self.loaded.scenario

    @property
    def title(self) -> str:
        """What a recovery dialog shows: the document's file name, or the scenario's name."""
        return self.document.name if self.document is not None else self.scenario.name


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def read_autosave(path: Path) -> Autosave:
    """Read and check one autosave; raises :class:`ScenarioError` naming the file."""
    wrapper = parse_json_document(read_scenario_bytes(path), path.name)
    if not isinstance(wrapper, dict) or wrapper.get("format") != AUTOSAVE_FORMAT:
        raise ScenarioError(path.name, "not an autosave file")
    if wrapper.get("version") != AUTOSAVE_VERSION:
        raise ScenarioError(path.name, f"unsupported autosave version {wrapper.get('version')!r}")
    saved_at = _number(wrapper.get("saved_at"))
    pid = wrapper.get("pid")
    session = wrapper.get("session")
    document = wrapper.get("document")
    started = wrapper.get("pid_started")
    if (
        saved_at is None
        or isinstance(pid, bool)
        or not isinstance(pid, int)
        or not isinstance(session, str)
        or not _SESSION.match(session)
        or not (document is None or (isinstance(document, str) and 0 < len(document) <= 4096))
        or not (started is None or _number(started) is not None)
    ):
        raise ScenarioError(path.name, "damaged autosave header")
    loaded = scenario_from_document(wrapper.get("scenario"), path.name)
    return Autosave(
        path=path,
        document=None if document is None else Path(document),
        saved_at=saved_at,
        session=session,
        pid=pid,
        pid_started=None if started is None else float(started),
        loaded=loaded,
    )


def _autosave_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.name.endswith(AUTOSAVE_SUFFIX))
    except OSError:
        return []


def _superseded(autosave: Autosave) -> bool:
    """The document was saved cleanly at or after the autosave."""
    if autosave.document is None:
        return False
    try:
        return autosave.document.stat().st_mtime >= autosave.saved_at
    except OSError:  # deleted or moved since: the autosave is all that is left
        return False


def recovery_candidates(
    current_session: str | None = None,
    *,
    folder: Path | None = None,
    is_running: Callable[[int, float | None], bool] = process_is_running,
) -> list[Autosave]:
    """Autosaves worth offering after a crash, newest first.

    Skips this session's own files, those of sessions still running (another window of the
    app), those older than their document's last clean save, and unreadable ones.
    """
    base = folder or paths.autosave_dir()
    found: list[Autosave] = []
    for path in _autosave_files(base):
        try:
            autosave = read_autosave(path)
        except ScenarioError:
            continue
        if autosave.session == current_session or _superseded(autosave):
            continue
        if is_running(autosave.pid, autosave.pid_started):
            continue
        found.append(autosave)
    found.sort(key=lambda a: a.saved_at, reverse=True)
    return found


def discard_autosave(autosave: Autosave | Path) -> None:
    """Delete one autosave (recovered, or declined by the user)."""
    path = autosave.path if isinstance(autosave, Autosave) else autosave
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def clear_autosaves(session: str, *, folder: Path | None = None) -> list[Path]:
    """Delete every autosave of ``session``: after a clean save and on a clean exit."""
    suffix = f"-{_check_session(session)}{AUTOSAVE_SUFFIX}"
    removed: list[Path] = []
    for path in _autosave_files(folder or paths.autosave_dir()):
        if path.name.endswith(suffix):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            removed.append(path)
    return removed


def prune_autosave_dir(
    *,
    folder: Path | None = None,
    max_age_days: float = 30.0,
    now: float | None = None,
    is_running: Callable[[int, float | None], bool] = process_is_running,
) -> list[Path]:
    """Housekeeping at start-up: remove temp debris from killed writers, autosaves that a
    clean save superseded, and unreadable autosaves older than ``max_age_days``. Files of
    running sessions are kept. Returns what was removed."""
    base = folder or paths.autosave_dir()
    removed = remove_stale_temp_files(base)
    cutoff = (time.time() if now is None else now) - max_age_days * 86400.0
    for path in _autosave_files(base):
        try:
            autosave = read_autosave(path)
        except ScenarioError:
            try:
                old = path.stat().st_mtime < cutoff
            except OSError:
                continue
            if old:
                discard_autosave(path)
                removed.append(path)
            continue
        if _superseded(autosave) and not is_running(autosave.pid, autosave.pid_started):
            discard_autosave(autosave)
            removed.append(path)
    return removed
