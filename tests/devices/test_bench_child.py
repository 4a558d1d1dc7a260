"""Benchmarks in a child process (issue 25, item 10): the GUI process only reads a pipe;
Cancel ends a child whose step does not stop in time; a bad device is a one-line error."""

from __future__ import annotations

import os
import threading

import pytest

from desktopapp.devices.bench.child import ChildRun, event_from_dict
from desktopapp.devices.bench.core import BenchResult, CancelToken, ProgressEvent
from desktopapp.devices.bench.priority import BACKGROUND_NICENESS, lower_priority
from desktopapp.devices.bench.runner import BenchConfig


def test_events_survive_the_pipe() -> None:
    result = BenchResult("matmul", "cpu", "fp32", 64, 0.1, 1e-5, 0.2, 50.0,
                         {"tflops_best": 0.12}, "", "TFLOP/s", 0.1)  # fmt: skip
    event = ProgressEvent(0.5, "matmul fp32 64×64", 1.5, result, "a note", "matmul",
                          conditions={"disturbed": False})  # fmt: skip
    back = event_from_dict(event.to_dict())
    assert back == event


def test_a_child_run_streams_results_and_ends_by_itself() -> None:
    config = BenchConfig(suites=("matmul",), dtypes=("fp32",), sizes=(32,), budget_s=0.02)
    run = ChildRun(config, CancelToken())
    assert run.device_info["device"] == "cpu"
    events = list(run.events())
    assert events[-1].done and not events[-1].cancelled
    assert [e.result.size for e in events if e.result is not None] == [32]
    assert events[-1].conditions is not None  # the run conditions travel back too
    assert run.proc.wait(timeout=10) is not None  # ended (reaped in the background)


def test_cancel_ends_a_child_that_does_not_stop_in_time() -> None:
    token = CancelToken()
    config = BenchConfig(suites=("matmul",), dtypes=("fp32",), sizes=(4096,), budget_s=600)
    run = ChildRun(config, token, grace_s=0.0)  # no grace: the child is ended at once
    events = run.events()
    first = next(events)
    assert not first.done
    token.cancel()
    rest = list(events)
    assert rest[-1].done and rest[-1].cancelled
    assert run.proc.wait(timeout=10) is not None  # ended, not left running


def test_a_bad_device_is_a_value_error_naming_the_field() -> None:
    config = BenchConfig(device="cuda:7", suites=("matmul",))
    with pytest.raises(ValueError, match=r"^device"):
        ChildRun(config, CancelToken())


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="POSIX niceness")
def test_the_child_runs_below_the_gui_process_priority() -> None:
    # With more runnable threads than cores, the child's torch threads took the GUI thread's
    # CPU: 70-137 ms gaps under a 2-process load; at lower priority, the idle 24-26 ms.
    config = BenchConfig(suites=("matmul",), dtypes=("fp32",), sizes=(32,), budget_s=0.02)
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    for background, expected in ((True, min(19, mine + BACKGROUND_NICENESS)), (False, mine)):
        run = ChildRun(config, CancelToken(), background=background)
        try:
            # the child lowers its priority before it reports its device (the first line)
            assert os.getpriority(os.PRIO_PROCESS, run.proc.pid) == expected
        finally:
            list(run.events())


def test_a_child_that_cannot_lower_its_priority_still_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(_increment: int) -> int:
        raise PermissionError("not allowed")

    monkeypatch.setattr(os, "nice", refuse, raising=False)
    assert lower_priority() == "priority unchanged: not allowed"


def test_closing_kills_the_child_and_reaps_it_without_waiting_for_it() -> None:
    # Killed below normal priority on a busy machine, a child took 160-220 ms to exit, and
    # Cancel waited for it: it is now reaped in another thread.
    class SlowToExit:
        stdin = stdout = stderr = None

        def __init__(self) -> None:
            self.killed = False
            self.exited = threading.Event()
            self.waited_on: list[threading.Thread] = []

        def poll(self) -> int | None:
            return -9 if self.exited.is_set() else None

        def kill(self) -> None:
            self.killed = True

        def wait(self, timeout: float | None = None) -> int:
            self.waited_on.append(threading.current_thread())
            self.exited.wait(timeout)
            return -9

    run = ChildRun.__new__(ChildRun)  # only close() is under test
    proc = SlowToExit()
    run.proc = proc  # type: ignore[assignment]
    run.close()  # returns while the child has not exited
    assert proc.killed and not proc.exited.is_set()
    proc.exited.set()
    for thread in threading.enumerate():
        if thread.name == "bench-child-reap":
            thread.join(timeout=10)
    assert proc.waited_on and threading.current_thread() not in proc.waited_on
