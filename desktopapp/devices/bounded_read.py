"""Read a file the user named, with bounds: regular files only, at most ``limit`` bytes.

A named pipe is opened without blocking and refused (no hang), a device such as ``/dev/zero``
(also behind a symbolic link) is refused before a byte is read, and a file larger than the
limit is refused without being read whole. Errors are ``InputError`` naming the option.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from desktopapp.model.validation import InputError


def read_bounded(path: str | Path, limit: int, field: str) -> bytes:
    """The bytes of the regular file ``path`` (``InputError(field, …)`` otherwise)."""
    shown = str(path)
    if any(ord(ch) < 32 for ch in shown):
        raise InputError(field, "the file name holds control characters")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise InputError(field, f"cannot read {shown} ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(field, f"{shown} is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(field, f"{shown} is not a regular file (a pipe or a device)")
        if info.st_size > limit:
            raise InputError(
                field, f"{shown} is {info.st_size:,} bytes; at most {limit:,} bytes are read"
            )
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # grew while being read
                raise InputError(field, f"{shown} is larger than {limit:,} bytes")
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(field, f"cannot read {shown} ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
