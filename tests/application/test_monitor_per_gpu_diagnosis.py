"""Issue 16: with a busy and an idle GPU (the demo monitor) the diagnosis names each GPU instead
of averaging them into "GPU partly used"."""

from __future__ import annotations

from desktopapp.application.monitor import PerGpuDiagnosis
from desktopapp.model.diagnosis import Diagnoser
from desktopapp.testing.sampler import FakeSampler


def _run(sampler: FakeSampler, steps: int) -> tuple[PerGpuDiagnosis, object]:
    per_gpu = PerGpuDiagnosis()
    combined = Diagnoser()
    diagnosis = None
    for _ in range(steps):
        sample = sampler.sample()
        per_gpu.feed(sample)
        diagnosis = combined.update(sample.observation())
    return per_gpu, diagnosis


def test_a_busy_and_an_idle_gpu_are_diagnosed_apart() -> None:
    sampler = FakeSampler(gpu_count=2, gpu_util=([95.0] * 40, [0.5] * 40), interval_s=1.0)
    per_gpu, combined = _run(sampler, 30)
    shown = per_gpu.view(combined)  # type: ignore[arg-type]
    titles = [v.title for v in shown.verdicts if v.category == "utilization"]
    assert any(t.startswith("GPU 1:") and "underused" in t for t in titles), titles
    assert any(t.startswith("GPU 0:") for t in titles), titles
    assert not any("partly used" in t for t in titles)
    assert shown.worst is not None and shown.worst.title.startswith("GPU 1:")


def test_one_gpu_keeps_the_session_diagnosis() -> None:
    sampler = FakeSampler(gpu_count=1, gpu_util=([50.0] * 40,), interval_s=1.0)
    per_gpu, combined = _run(sampler, 20)
    assert per_gpu.view(combined) is combined  # type: ignore[arg-type]


def test_warming_up_shows_one_collecting_verdict() -> None:
    sampler = FakeSampler(gpu_count=2, gpu_util=([95.0] * 40, [0.5] * 40), interval_s=1.0)
    per_gpu, combined = _run(sampler, 2)
    assert per_gpu.view(combined) is combined  # type: ignore[arg-type]
