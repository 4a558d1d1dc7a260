"""Qt-free hardware fakes shared by the Hardware tab tests and the presenter tests: a CPU with
a known estimated peak, and benchmark results against it."""

from __future__ import annotations

from desktopapp.devices.bench.core import BenchResult
from desktopapp.devices.cpu import CacheLevel, CpuInfo, estimate_peak

GIB = 1024**3
CPU_PEAK = 0.5  # TFLOP/s of the fake CPU's datasheet-free estimate
CPU_PEAKS = {"fp32": CPU_PEAK}


def fake_cpu() -> CpuInfo:
    features = ("sse4_2", "avx", "avx2", "fma", "f16c")
    peak = estimate_peak(
        arch="x86_64",
        vendor="AMD",
        family=25,
        features=features,
        cores=8,
        threads=16,
        virtualized=False,
        clock_ghz=3.5,
        clock_source="cpufreq cpuinfo_max_freq (/sys), the maximum boost",
    )
    return CpuInfo(
        model="Test EPYC 9000 8-Core",
        vendor="AMD",
        arch="x86_64",
        sockets=1,
        cores=8,
        threads=16,
        usable_threads=16,
        base_clock_ghz=2.4,
        max_clock_ghz=3.5,
        reported_clock_ghz=2.4,
        clock_source="cpufreq cpuinfo_max_freq (/sys), the maximum boost",
        features=features,
        caches=(CacheLevel(1, "Data", 32 * 1024, 8), CacheLevel(3, "Unified", 32 * 1024**2, 1)),
        virtualized=False,
        peak=peak,
        source="test",
        family=25,
    )


def result(dtype: str, size: int, tflops: float) -> BenchResult:
    peak = CPU_PEAKS.get(dtype)
    return BenchResult(
        suite="matmul",
        device="cpu",
        dtype=dtype,
        size=size,
        tflops=tflops,
        seconds=2.0 * size**3 / (tflops * 1e12),
        peak_tflops=peak,
        percent_of_peak=None if peak is None else 100.0 * tflops / peak,
        metric="TFLOP/s",
        value=tflops,
    )
