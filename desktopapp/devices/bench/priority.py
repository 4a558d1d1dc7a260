"""Below-normal priority for benchmark processes the desktop app starts.

The GUI runs benchmarks in child processes (``child``, the collective suite's ranks). Out of the
GUI's interpreter lock is not enough on a machine with more runnable threads than cores: with
two busy processes beside the app on 2 CPUs, the child's torch threads still took the GUI
thread's CPU, and 20-30 ms of GUI work when the first results arrived stretched to 70-137 ms.
At niceness +10 the longest gap under the same load is the idle one (23-26 ms against
21-24 ms, ``benchmarks/gui_responsiveness.py``). On an idle machine the priority changes
nothing; on a busy one the run's conditions mark it disturbed anyway. Where Linux groups
processes by session (autogroup, the default on desktop distributions), a niceness orders only
the threads of its own group (sched(7)): the child yields to the window that started it, not to
the user's other work. The CLI's benchmarks run at the priority the user started them with.
"""

from __future__ import annotations

import os
import sys

BACKGROUND_NICENESS = 10  # added to the niceness on POSIX (the most is 19)
FLAG = "--background"  # the command-line flag of a child that lowers its priority


def lower_priority() -> str | None:
    """Put the calling process below normal priority. Call it before the process starts any
    thread: on Linux a thread's niceness is its own, and new threads inherit their creator's.
    Returns None, or why the priority stayed as it was (also written to stderr, which the
    parent keeps for its error messages); never raises: the run goes on as before."""
    try:
        if hasattr(os, "nice"):
            os.nice(BACKGROUND_NICENESS)
        else:  # Windows
            import psutil

            psutil.Process().nice(psutil.BELOW_NORMAL_PRIORITY_CLASS)
    except (OSError, AttributeError, ImportError) as exc:
        problem = f"priority unchanged: {exc}"
        sys.stderr.write(problem + "\n")
        return problem
    return None
