"""The compiled methods of dataclasses, kept between starts of the window (CPython 3.11).

Python compiles the generated source of every dataclass's ``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__`` each time the class is created:
``dataclasses._create_fn`` runs ``exec`` on a new text for each method. It caches a module's
bytecode in ``__pycache__``, but not these. The window creates about 85 dataclasses before
its first tab is drawn, about 490 methods; compiling them took 51 ms of a 570 ms start on
the 2-CPU reference VM (``benchmarks/startup.py``, issue 25 item 9).

:func:`install` swaps in a ``_create_fn`` that looks the text up in a table of code objects
before compiling it; :func:`save` writes the table (``marshal``) when it grew. The key is the
whole generated text, so a changed class or field compiles anew, and the code object run is
the one ``exec`` would have compiled from that text (same source, same ``"<string>"`` file
name; globals and defaults are bound when it runs, as before). The file is per bytecode
version (``importlib.util.MAGIC_NUMBER``); one that cannot be read is ignored and replaced.
Only CPython 3.11's own ``_create_fn`` is replaced, recognised by its bytecode (3.12 names a
local differently, 3.13 has no such function); on any other Python nothing is swapped.

Only the GUI installs it (``desktopapp.app``): the command line and the tests create the
classes as Python does.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import marshal
import sys
import threading
import zlib
from pathlib import Path
from types import CodeType
from typing import Any

from desktopapp.model.atomic import atomic_write_bytes

# The private function replaced, as CPython 3.11 has it: the CRC-32 of its bytecode, constants
# and names (the same in every 3.11 release whose source of it is unchanged; 3.12 names the
# return type's local __dataclass_return_type__, 3.13 builds a class's methods in one exec).
SUPPORTED = ((3, 11),)
_FINGERPRINTS = frozenset({"34bed53b"})
_SIGNATURE = ("name", "args", "body", "globals", "locals", "return_type")
MAX_ENTRIES = 5000  # far above the app's ~600 methods; a table past it is not grown

_lock = threading.Lock()
_state: dict[str, Any] = {"path": None, "table": {}, "added": 0, "original": None}


FORMAT = 1  # of the table's file: a new number makes every older file unread


def cache_file(folder: Path) -> Path:
    magic = importlib.util.MAGIC_NUMBER.hex()
    return folder / f"dataclass-code-v{FORMAT}-{magic}.marshal"


def _read(path: Path) -> dict[str, CodeType]:
    try:
        table = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {k: v for k, v in table.items() if isinstance(k, str) and isinstance(v, CodeType)}


def original_fn() -> Any:
    """``dataclasses._create_fn`` as Python has it (``None`` where it does not)."""
    return _state["original"] or getattr(dataclasses, "_create_fn", None)


def supported() -> bool:
    """Whether this Python's ``dataclasses`` has the function this module replaces (looked at
    as Python has it, also once replaced)."""
    original = original_fn()
    if sys.version_info[:2] not in SUPPORTED or original is None:
        return False
    try:
        if tuple(inspect.signature(original).parameters) != _SIGNATURE:
            return False
    except (TypeError, ValueError):
        return False
    return fingerprint(original) in _FINGERPRINTS


def fingerprint(function: Any) -> str:
    """CRC-32 of a function's bytecode, constants, names and local names, in hex (nested code,
    such as a generator expression's, by the same parts: no file name or address enters it).
    It tells one release's function from another, not an attacker's; zlib, not hashlib, which
    would load OpenSSL at start-up (about 3-7 ms)."""
    code = getattr(function, "__code__", None)
    if not isinstance(code, CodeType):
        return ""

    def crc(item: CodeType, value: int) -> int:
        value = zlib.crc32(item.co_code, value)
        for const in item.co_consts:
            if isinstance(const, CodeType):
                value = crc(const, value)
            else:
                value = zlib.crc32(repr(const).encode(), value)
        return zlib.crc32(repr((item.co_names, item.co_varnames)).encode(), value)

    return f"{crc(code, 0):08x}"


def install(folder: Path) -> bool:
    """Use and keep compiled dataclass methods under ``folder``; False where unsupported.
    Installing twice changes nothing."""
    if _state["original"] is not None:
        return True
    if not supported():
        return False
    path = cache_file(folder)
    _state.update(path=path, table=_read(path), added=0, original=original_fn())
    setattr(dataclasses, "_create_fn", _create_fn)  # noqa: B010 (a private name mypy lacks)
    return True


def uninstall() -> None:
    """Put Python's own function back (the table is kept until :func:`save`)."""
    original = _state["original"]
    if original is not None:
        setattr(dataclasses, "_create_fn", original)  # noqa: B010
        _state["original"] = None


def stats() -> tuple[int, int]:
    """(methods in the table, methods compiled since install)."""
    return len(_state["table"]), int(_state["added"])


def save() -> bool:
    """Write the table when methods were compiled since it was read; True if written. Never
    raises: a cache that cannot be written costs the next start the compile, nothing more."""
    path: Path | None = _state["path"]
    with _lock:
        if path is None or not _state["added"]:
            return False
        data = marshal.dumps(dict(_state["table"]))
        _state["added"] = 0
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)
    except OSError:
        return False
    return True


def _create_fn(
    name: str,
    args: list[str],
    body: list[str],
    *,
    globals: dict[str, Any] | None = None,  # the names dataclasses passes
    locals: dict[str, Any] | None = None,
    return_type: Any = dataclasses.MISSING,
) -> Any:
    # The text is built exactly as CPython 3.11's dataclasses._create_fn builds it; only
    # its compiled form may come from the table.
    if locals is None:
        locals = {}
    return_annotation = ""
    if return_type is not dataclasses.MISSING:
        locals["_return_type"] = return_type
        return_annotation = "->_return_type"
    joined = ",".join(args)
    lines = "\n".join(f"  {b}" for b in body)
    txt = f" def {name}({joined}){return_annotation}:\n{lines}"
    local_vars = ", ".join(locals.keys())
    txt = f"def __create_fn__({local_vars}):\n{txt}\n return {name}"
    table: dict[str, CodeType] = _state["table"]
    code = table.get(txt)
    if code is None:
        # dont_inherit: no __future__ flag of this module (annotations) may change the code;
        # dataclasses, which has none, compiles the text the same way
        code = compile(txt, "<string>", "exec", dont_inherit=True)
        with _lock:
            if len(table) < MAX_ENTRIES:
                table[txt] = code
                _state["added"] += 1
    ns: dict[str, Any] = {}
    exec(code, globals, ns)  # as dataclasses does, with the code of the same text
    return ns["__create_fn__"](**locals)
