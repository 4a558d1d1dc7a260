"""Sampler problems as records: what kind, which device, and the text the user reads.

A :class:`Problem` *is* its text (a ``str`` subclass), so samples, JSON output, the session
store and CSV keep plain strings, while the Monitor tab sorts problems by ``kind`` instead of
reading the words.
"""

from __future__ import annotations

NO_GPU = "no_gpu"  # no NVML / no driver / no device: the GPU part of the monitor is off
GPU_LOST = "gpu_lost"  # a GPU fell off the bus (NVML_ERROR_GPU_IS_LOST); NaN from then on
GPU_FIELD = "gpu_field"  # some fields of one GPU could not be read this sample
GPU_READ = "gpu_read"  # reading a GPU (or all GPUs) failed this sample
HOST = "host"  # a host sensor (CPU, memory, disk, network) is unavailable or failed
WARMING_UP = "warming_up"  # rates need two readings: expected on the first sample
PROCESSES = "processes"  # process details (user, command) unavailable
CLOSED = "closed"  # the sampler was closed
OTHER = "other"

KINDS: tuple[str, ...] = (
    NO_GPU,
    GPU_LOST,
    GPU_FIELD,
    GPU_READ,
    HOST,
    WARMING_UP,
    PROCESSES,
    CLOSED,
    OTHER,
)


class Problem(str):
    """One problem of one sample: ``kind`` (one of :data:`KINDS`), ``device`` (``"GPU 1"``,
    ``"host"`` or ``""``) and the text (``str(problem)``)."""

    kind: str
    device: str

    def __new__(cls, kind: str, text: str, device: str = "") -> Problem:
        if kind not in KINDS:
            raise ValueError(f"kind: must be one of {', '.join(KINDS)}, got {kind!r}")
        obj = super().__new__(cls, text)
        obj.kind = kind
        obj.device = device
        return obj

    @property
    def text(self) -> str:
        return str.__str__(self)

    def __reduce__(self) -> tuple[type[Problem], tuple[str, str, str]]:
        return (type(self), (self.kind, self.text, self.device))


def kind_of(problem: str) -> str:
    """The kind of a problem (:data:`OTHER` for a plain string, e.g. one typed into a test)."""
    return getattr(problem, "kind", OTHER)
