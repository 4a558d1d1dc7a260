"""Atomic file writes: a reader sees the old file or the new one, never half of either.

The data goes to a temporary file in the same folder (same file system, so the rename is
atomic), is flushed and fsynced, then ``os.replace`` puts it in place and the folder is fsynced
so the rename itself survives a power cut. If the writer dies midway the old file is untouched;
what is left is a temporary file whose name starts with :data:`TEMP_PREFIX` and ends with
:data:`TEMP_SUFFIX`, so it is never mistaken for data (``*.json`` does not match it) and
:func:`remove_stale_temp_files` can sweep it up later.

Pure standard library; used for scenarios, autosaves, settings and exports.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from pathlib import Path

TEMP_PREFIX = ".desktopapp-tmp-"
TEMP_SUFFIX = ".tmp"
# A temporary file older than this is debris from a writer that died, not a write in progress.
STALE_AFTER_S = 3600.0

_O_BINARY: int = getattr(os, "O_BINARY", 0)  # Windows only; 0 elsewhere
_CHUNK = 1 << 20


def temp_path_for(target: Path) -> Path:
    """A fresh temporary name beside ``target``: ``.desktopapp-tmp-<name>.<random>.tmp``.

    ``os.urandom`` is what ``secrets.token_hex`` reads; importing :mod:`secrets` would load
    OpenSSL's hashlib (about 7 ms) into every start of the window for nothing more."""
    return target.with_name(f"{TEMP_PREFIX}{target.name}.{os.urandom(6).hex()}{TEMP_SUFFIX}")


def is_temp_file(path: str | os.PathLike[str]) -> bool:
    """True for names :func:`atomic_write_bytes` uses for its temporary files."""
    name = Path(path).name
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte (``os.write`` may write less than asked). Tests replace this."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_CHUNK])
        view = view[written:]


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable; not possible (nor needed) on Windows."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on folders; the data itself is already synced
    finally:
        os.close(fd)


def _open_temp(target: Path) -> tuple[Path, int]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY
    for _ in range(100):
        candidate = temp_path_for(target)
        try:
            # 0o666 minus the umask, like any other new file (mkstemp would give 0o600).
            return candidate, os.open(candidate, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file beside {target}")


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically; the folder must exist.

    An existing file keeps its permission bits. On any error the temporary file is removed and
    the old file (if any) is left exactly as it was.
    """
    target = write_target(path)
    try:
        info = target.stat()
    except FileNotFoundError:
        existing_mode: int | None = None
    else:
        if not stat.S_ISREG(info.st_mode):  # never replace a folder, device or pipe
            raise OSError(
                errno.EISDIR if stat.S_ISDIR(info.st_mode) else errno.EINVAL,
                "not a regular file",
                str(target),
            )
        existing_mode = info.st_mode & 0o7777
    temp, fd = _open_temp(target)
    try:
        try:
            _write_all(fd, data)
            if existing_mode is not None and os.name != "nt":
                os.fchmod(fd, existing_mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _fsync_dir(target.parent)
    remove_stale_temp_files(target.parent, prefix=f"{TEMP_PREFIX}{target.name}.")


def write_target(path: str | os.PathLike[str]) -> Path:
    """The file a save really writes: a symbolic link is followed (its target is replaced,
    the link stays), so saving through a link never turns the link into a plain file."""
    target = Path(path)
    if target.is_symlink():
        return Path(os.path.realpath(target))
    return target


def atomic_write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """:func:`atomic_write_bytes` for text; newlines are written as given (no translation)."""
    atomic_write_bytes(path, text.encode(encoding))


def remove_stale_temp_files(
    folder: str | os.PathLike[str], older_than_s: float = STALE_AFTER_S, prefix: str = ""
) -> list[Path]:
    """Delete temporary files left in ``folder`` by writers that died; returns what went.

    Only names matching :func:`is_temp_file` (and starting with ``prefix``) and last modified
    more than ``older_than_s`` ago are touched, so a write in progress in another process is
    left alone. :func:`atomic_write_bytes` calls it for its own target after each save, so
    debris of an interrupted save is swept up by the next save of that file, wherever it is.
    """
    removed: list[Path] = []
    cutoff = time.time() - older_than_s
    try:
        entries = list(Path(folder).iterdir())
    except OSError:
        return removed
    for entry in entries:
        if not is_temp_file(entry) or not entry.name.startswith(prefix):
            continue
        try:
            if entry.is_file() and entry.stat().st_mtime <= cutoff:
                entry.unlink()
                removed.append(entry)
        except OSError:
            continue
    return removed
