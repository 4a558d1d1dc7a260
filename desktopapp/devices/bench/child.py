"""A benchmark run in a child process, its progress streamed back as JSON lines.

The desktop app runs benchmarks here rather than in a thread of its own process: a benchmark
step is Python and torch work that competes with the GUI thread for the interpreter lock, and
with two busy processes beside it the GUI thread waited 245-1,278 ms at a time. In a child the
GUI process only reads a pipe. Cancel is a line on the child's stdin (the suites stop at their
next check); if the child has not wound down within ``grace_s`` it is ended, so Cancel takes
effect within a second whatever the step. What was measured before is kept.

The child runs below normal priority (``background``, the default; see ``priority``): the
GUI's CPU share, not only its interpreter lock, must survive a busy machine.

Protocol, one JSON object per line on stdout: ``{"kind": "device", "info": {...}}`` first (or
``{"kind": "error", "message": "device: ..."}`` and exit status 2), then
``{"kind": "event", "event": ProgressEvent.to_dict()}`` for each event. Stdin: ``cancel``
cancels; end of input (the parent went away) cancels and ends the child.

    python -m desktopapp.devices.bench.child '<BenchConfig as JSON>' [--background]
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

from desktopapp.devices.bench.core import BenchResult, CancelToken, ProgressEvent
from desktopapp.devices.bench.priority import FLAG as BACKGROUND_FLAG
from desktopapp.devices.bench.priority import lower_priority

START_TIMEOUT_S = 120.0  # importing torch on a cold disk can take a while
CANCEL_GRACE_S = 0.5  # then the child is ended: Cancel within a second whatever the step


def config_to_json(config: Any) -> str:
    """A BenchConfig as the child's argument (every field explicit)."""
    return json.dumps(
        {
            "device": config.device,
            "suites": list(config.suites),
            "dtypes": list(config.dtypes) if config.dtypes else None,
            "sizes": list(config.sizes) if config.sizes else None,
            "max_size": config.max_size,
            "budget_s": config.budget_s,
            "quick": config.quick,
        }
    )


def config_from_json(text: str) -> Any:
    from desktopapp.devices.bench.runner import BenchConfig

    data = json.loads(text)
    return BenchConfig(
        device=str(data["device"]),
        suites=tuple(data["suites"]),
        dtypes=tuple(data["dtypes"]) if data.get("dtypes") else None,
        sizes=tuple(int(s) for s in data["sizes"]) if data.get("sizes") else None,
        max_size=data.get("max_size"),
        budget_s=data.get("budget_s"),
        quick=bool(data.get("quick")),
    )


def event_from_dict(data: Mapping[str, Any]) -> ProgressEvent:
    result = data.get("result")
    return ProgressEvent(
        fraction=float(data.get("fraction") or 0.0),
        message=str(data.get("message") or ""),
        eta_s=data.get("eta_s"),
        result=BenchResult.from_dict(result) if isinstance(result, Mapping) else None,
        warning=data.get("warning"),
        suite=str(data.get("suite") or ""),
        done=bool(data.get("done")),
        cancelled=bool(data.get("cancelled")),
        conditions=data.get("conditions"),
    )


class ChildRun:
    """The parent's side: ``device_info`` once started, then :meth:`events`."""

    def __init__(
        self,
        config: Any,
        token: CancelToken,
        *,
        grace_s: float = CANCEL_GRACE_S,
        background: bool = True,
    ):
        self.token = token
        self.grace_s = grace_s
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        command = [sys.executable, "-m", "desktopapp.devices.bench.child", config_to_json(config)]
        if background:
            command.append(BACKGROUND_FLAG)
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._errors: list[str] = []
        threading.Thread(target=self._pump, name="bench-child-out", daemon=True).start()
        threading.Thread(target=self._pump_err, name="bench-child-err", daemon=True).start()
        self.device_info: dict[str, Any] = {}
        try:
            first = self._first_line()
        except BaseException:
            self.close()
            raise
        if first.get("kind") == "error":
            self.close()
            raise ValueError(str(first.get("message")))
        self.device_info = dict(first.get("info") or {})

    def _pump(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        for line in stream:
            self._lines.put(line)
        self._lines.put(None)

    def _pump_err(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        for line in stream:
            self._errors.append(line.rstrip())
            del self._errors[:-20]

    def _why(self) -> str:
        return next((e for e in reversed(self._errors) if e.strip()), "no output")

    def _first_line(self) -> dict[str, Any]:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.token.cancelled:
                raise ValueError("cancelled before the benchmark started")
            try:
                line = self._lines.get(timeout=0.05)
            except queue.Empty:
                continue
            if line is None:
                raise ValueError(f"the benchmark process ended at start ({self._why()})")
            with contextlib.suppress(ValueError):
                msg = json.loads(line)
                if isinstance(msg, dict) and msg.get("kind") in ("device", "error"):
                    return msg
        raise ValueError("the benchmark process did not start in time")

    def _send_cancel(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            assert self.proc.stdin is not None
            self.proc.stdin.write("cancel\n")
            self.proc.stdin.flush()

    def events(self) -> Iterator[ProgressEvent]:
        """The child's events; closing the generator ends the child."""
        cancel_sent: float | None = None
        last_fraction = 0.0
        try:
            while True:
                if self.token.cancelled and cancel_sent is None:
                    self._send_cancel()
                    cancel_sent = time.monotonic()
                if cancel_sent is not None and time.monotonic() - cancel_sent > self.grace_s:
                    yield ProgressEvent(last_fraction, "cancelled", 0.0, done=True, cancelled=True)
                    return
                try:
                    line = self._lines.get(timeout=0.05)
                except queue.Empty:
                    continue
                if line is None:
                    if cancel_sent is not None:
                        yield ProgressEvent(
                            last_fraction, "cancelled", 0.0, done=True, cancelled=True
                        )
                        return
                    why = f"the benchmark process ended early ({self._why()})"
                    yield ProgressEvent(last_fraction, why, 0.0, warning=why, done=True)
                    return
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(msg, dict) or msg.get("kind") != "event":
                    continue
                event = event_from_dict(msg["event"])
                last_fraction = event.fraction
                yield event
                if event.done:
                    return
        finally:
            self.close()

    def close(self) -> None:
        """End the child (killed if still running) without waiting for it to go: a killed
        child below normal priority on a busy machine took 160-220 ms to exit, and Cancel
        waited for it. It is reaped, and its pipes closed, in a daemon thread."""
        proc = self.proc
        if proc.poll() is None:
            proc.kill()
            threading.Thread(target=self._reap, name="bench-child-reap", daemon=True).start()
        else:
            self._reap()

    def _reap(self) -> None:
        proc = self.proc
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


# --- the child -------------------------------------------------------------------------------


def _watch_stdin(token: CancelToken) -> None:
    for line in sys.stdin:
        if line.strip() == "cancel":
            token.cancel()
    token.cancel()  # the parent went away: stop, then leave
    time.sleep(2.0)
    os._exit(1)


def main(argv: list[str] | None = None) -> int:
    from desktopapp.devices.bench.runner import run_benchmarks
    from desktopapp.devices.bench.target import resolve_device

    args = sys.argv[1:] if argv is None else argv
    if BACKGROUND_FLAG in args[1:]:
        lower_priority()
    out = sys.stdout

    def send(msg: dict[str, Any]) -> None:
        out.write(json.dumps(msg, default=str) + "\n")
        out.flush()

    token = CancelToken()
    threading.Thread(target=_watch_stdin, args=(token,), daemon=True).start()
    try:
        config = config_from_json(args[0])
        target = resolve_device(config.device)
        events = run_benchmarks(config, token, target)
    except (ValueError, KeyError, IndexError) as exc:
        send({"kind": "error", "message": str(exc)})
        return 2
    send({"kind": "device", "info": target.to_dict()})
    for event in events:
        send({"kind": "event", "event": event.to_dict()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
