"""Benchmarks of this machine's CPU/GPU: matmul, bandwidth, mixed precision, batching, profile.

Every suite is a generator of :class:`ProgressEvent`; :func:`run_benchmarks` combines suites
with overall progress and ETA. Nothing here imports torch at module import.

Typical use (GUI worker thread or CLI)::

    token = CancelToken()
    for event in run_benchmarks(BenchConfig(device="cpu", quick=True), token):
        ...  # event.fraction, event.message, event.eta_s, event.result, event.warning
"""

from desktopapp.devices.bench.core import (
    DTYPES,
    SUITES,
    BenchResult,
    Cancelled,
    CancelToken,
    ProgressEvent,
)
from desktopapp.devices.bench.runner import (
    DEFAULT_SUITES,
    BenchConfig,
    BenchRun,
    run_and_collect,
    run_benchmarks,
    versions,
)
from desktopapp.devices.bench.target import BenchDevice, parse_device, resolve_device

__all__ = [
    "DEFAULT_SUITES",
    "DTYPES",
    "SUITES",
    "BenchConfig",
    "BenchDevice",
    "BenchResult",
    "BenchRun",
    "CancelToken",
    "Cancelled",
    "ProgressEvent",
    "parse_device",
    "resolve_device",
    "run_and_collect",
    "run_benchmarks",
    "versions",
]
