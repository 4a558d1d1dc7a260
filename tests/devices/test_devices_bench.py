"""Benchmark suites on tiny sizes: results, budgets, out-of-memory back-off, cancel, findings."""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

import pytest
from devices_samples import EPYC_7763_VM, write_tree

from desktopapp.devices.bench import (
    BenchConfig,
    Cancelled,
    CancelToken,
    resolve_device,
    run_and_collect,
    run_benchmarks,
)
from desktopapp.devices.bench import batching as batching_mod
from desktopapp.devices.bench import models as models_mod
from desktopapp.devices.bench.amp import amp_suite
from desktopapp.devices.bench.bandwidth import bandwidth_suite
from desktopapp.devices.bench.batching import batching_suite, quantization_suite
from desktopapp.devices.bench.core import BenchResult, ProgressEvent, is_oom, time_op
from desktopapp.devices.bench.matmul import NumpyMatmul, matmul_suite
from desktopapp.devices.bench.models import BlockShape, LmShape
from desktopapp.devices.bench.profile import profile_suite
from desktopapp.devices.bench.runner import busy_warning
from desktopapp.devices.bench.target import BenchDevice, parse_device
from desktopapp.devices.cpu import read_cpu_info
from desktopapp.devices.torch_info import torch_installed

needs_torch = pytest.mark.skipif(not torch_installed(), reason="torch not installed")


class FakeBackend:
    """Ops that sleep a chosen time; optional out-of-memory above a size or an error."""

    name = "fake"

    def __init__(
        self,
        seconds: Callable[[str, int, bool], float],
        oom_above: int | None = None,
        error_at: int | None = None,
    ) -> None:
        self.seconds = seconds
        self.oom_above = oom_above
        self.error_at = error_at
        self.prepared: list[tuple[str, int, bool]] = []

    def unsupported(self, dtype: str) -> str | None:
        return "not in this fake" if dtype == "fp8" else None

    def prepare(self, n: int, dtype: str, transposed: bool = False) -> Callable[[], object]:
        self.prepared.append((dtype, n, transposed))
        if self.oom_above is not None and n > self.oom_above:
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
        if self.error_at == n:
            raise ValueError("boom")
        delay = self.seconds(dtype, n, transposed)
        return lambda: time.sleep(delay)

    def mode(self, dtype: str) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def sync(self) -> None:
        return None

    def release(self) -> None:
        return None

    def bytes_needed(self, n: int, dtype: str) -> float:
        return 0.0

    def free_bytes(self) -> float | None:
        return None

    def threads(self) -> int | None:
        return None


class OomNumpy(NumpyMatmul):
    """Real numpy matmul, but allocation above ``limit`` fails like CUDA does."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self.tried: list[int] = []

    def prepare(self, n: int, dtype: str, transposed: bool = False) -> Callable[[], object]:
        self.tried.append(n)
        if n > self.limit:
            raise RuntimeError(f"CUDA out of memory. Tried to allocate {n * n * 4} bytes")
        return super().prepare(n, dtype, transposed)


# Tests that run real numpy/torch kernels and assert which sizes or modes were measured use a
# budget no loaded machine can exceed on these tiny shapes (each size is capped at a few
# repeats, so the tests stay fast): the budget logic itself is tested with fake backends.
LOAD_PROOF_BUDGET_S = 30.0


def cpu_target(**changes: object) -> BenchDevice:
    return replace(resolve_device("cpu"), **changes)  # type: ignore[arg-type]


def amd_target(tmp_path: Path) -> BenchDevice:
    cpu = read_cpu_info(write_tree(tmp_path, {"proc/cpuinfo": EPYC_7763_VM}))
    assert cpu.peak is not None
    return BenchDevice(
        spec="cpu",
        kind="cpu",
        index=0,
        name=cpu.model,
        peaks={"fp32": cpu.peak.tflops},
        peak_source="estimate",
        cpu=cpu,
    )


def collect(
    stream: Iterable[ProgressEvent],
) -> tuple[list[ProgressEvent], list[BenchResult], list[str]]:
    events = list(stream)
    results = [e.result for e in events if e.result is not None]
    warnings = [e.warning for e in events if e.warning]
    return events, results, warnings


def check_progress(events: list[ProgressEvent]) -> None:
    fractions = [e.fraction for e in events]
    assert all(0.0 <= f <= 1.0 for f in fractions)
    assert fractions == sorted(fractions), "progress went backwards"
    assert fractions[-1] == 1.0
    assert all(e.eta_s is None or e.eta_s >= 0 for e in events)


def test_numpy_matmul_results_are_positive_and_consistent() -> None:
    target = cpu_target(torch_available=False)
    events, results, _ = collect(
        matmul_suite(target, dtypes=("fp32",), sizes=(32, 64, 128), budget_s=LOAD_PROOF_BUDGET_S)
    )
    check_progress(events)
    assert [r.size for r in results] == [32, 64, 128]
    peak = target.peak("fp32")
    for r in results:
        assert isinstance(r, BenchResult)
        assert (r.suite, r.device, r.dtype, r.extra["backend"]) == (
            "matmul",
            "cpu",
            "fp32",
            "numpy",
        )
        assert r.seconds > 0 and r.tflops is not None and r.tflops > 0
        assert r.tflops == pytest.approx(2 * r.size**3 / r.seconds / 1e12)
        assert r.value == r.tflops and r.metric == "TFLOP/s"
        assert r.extra["repeats"] >= 1 and r.extra["min_s"] <= r.seconds
        assert r.peak_tflops == peak
        if peak:
            assert r.percent_of_peak == pytest.approx(100 * r.tflops / peak)
        assert r.to_dict()["size"] == r.size
        assert BenchResult.from_dict(r.to_dict()) == r


@needs_torch
def test_torch_matmul_tiny_sizes_fp32_and_bf16() -> None:
    target = cpu_target()
    events, results, _ = collect(
        matmul_suite(target, dtypes=("fp32", "bf16"), sizes=(32, 64), budget_s=LOAD_PROOF_BUDGET_S)
    )
    check_progress(events)
    fp32 = [r for r in results if r.dtype == "fp32"]
    assert [r.size for r in fp32] == [32, 64]
    assert all(r.extra["backend"] == "torch" and r.extra.get("threads", 1) >= 1 for r in fp32)
    bf16 = [r for r in results if r.dtype == "bf16"]
    assert {r.variant for r in bf16} <= {"", "a@b.T"} and bf16
    assert all(r.tflops and r.tflops > 0 and r.peak_tflops is None for r in bf16)


def test_out_of_memory_backs_off_and_reports_largest_fit() -> None:
    target = cpu_target(torch_available=False)
    backend = OomNumpy(limit=100)
    _, results, warnings = collect(
        matmul_suite(
            target,
            dtypes=("fp32",),
            sizes=(32, 64, 128, 256),
            budget_s=LOAD_PROOF_BUDGET_S,
            backend=backend,
        )
    )
    sizes = [r.size for r in results]
    assert sizes == [32, 64, 96]  # 128 failed, the back-off found 96
    assert all(s <= 100 for s in sizes)
    assert 256 not in backend.tried  # the sweep stopped growing after the failure
    oom = next(w for w in warnings if "out of memory" in w)
    assert "128×128" in oom and "largest size that fit: 96×96" in oom


def test_out_of_memory_at_the_first_size_halves_until_it_fits() -> None:
    backend = OomNumpy(limit=70)
    _, results, warnings = collect(
        matmul_suite(
            cpu_target(torch_available=False),
            dtypes=("fp32",),
            sizes=(256,),
            budget_s=LOAD_PROOF_BUDGET_S,
            backend=backend,
        )
    )
    assert backend.tried[:3] == [256, 128, 64]
    assert [r.size for r in results] == [64]
    assert any("largest size that fit: 64×64" in w for w in warnings)


def test_an_error_is_reported_and_the_next_dtype_still_runs() -> None:
    backend = FakeBackend(lambda d, n, t: 0.0005, error_at=64)
    _, results, warnings = collect(
        matmul_suite(
            cpu_target(),
            dtypes=("fp32", "fp16", "fp8"),
            sizes=(32, 64, 128),
            budget_s=0.5,
            backend=backend,
            layout_check=False,
        )
    )
    assert [(r.dtype, r.size) for r in results] == [("fp32", 32), ("fp16", 32)]
    assert any("fp32 64×64 failed: ValueError: boom" in w for w in warnings)
    assert any("fp8 skipped: not in this fake" in w for w in warnings)


def test_slow_dtype_skips_sizes_predicted_over_budget(tmp_path: Path) -> None:
    # bf16 30× slower than fp32, and ×8 per doubling: the next size would blow the budget.
    def seconds(dtype: str, n: int, transposed: bool) -> float:
        base = 0.0005 * (n / 32) ** 3
        return base * (30 if dtype == "bf16" else 1)

    backend = FakeBackend(seconds)
    target = amd_target(tmp_path)
    _, results, warnings = collect(
        matmul_suite(
            target, dtypes=("fp32", "bf16"), sizes=(32, 64, 128), budget_s=0.2, backend=backend
        )
    )
    assert ("bf16", 64, False) not in backend.prepared  # predicted 0.12 s × 2 > 0.2 s budget
    assert [r.size for r in results if r.dtype == "fp32"] == [32, 64, 128]
    assert [r.size for r in results if r.dtype == "bf16"] == [32, 32]  # a@b and a@b.T
    skip = next(w for w in warnings if w.startswith("matmul bf16: sizes from 64 skipped"))
    assert "over the 0.2 s budget" in skip
    finding = next(w for w in warnings if "no native bf16 on this CPU" in w)
    assert "mixed precision would slow training down here" in finding


def test_layout_sensitivity_is_reported() -> None:
    backend = FakeBackend(lambda d, n, t: 0.004 if (d == "bf16" and t) else 0.0004)
    _, _, warnings = collect(
        matmul_suite(cpu_target(), dtypes=("bf16",), sizes=(32,), budget_s=0.5, backend=backend)
    )
    assert any("layout-sensitive" in w and "nn.Linear" in w for w in warnings)


def test_time_op_batches_fast_ops_and_respects_cancel() -> None:
    calls = []
    timing = time_op(lambda: calls.append(1), lambda: None, budget_s=0.05)
    assert timing.inner > 1 and timing.repeats >= 3 and timing.median_s > 0
    assert not timing.over_budget
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        time_op(lambda: None, lambda: None, budget_s=1.0, token=token)


def test_cancel_from_another_thread_stops_the_suite_between_steps() -> None:
    token = CancelToken()
    backend = FakeBackend(lambda d, n, t: 0.02)
    results: list[object] = []
    box: dict[str, object] = {"results": results}

    def work() -> None:
        events = matmul_suite(
            cpu_target(),
            dtypes=("fp32", "fp16", "bf16"),
            sizes=(32, 64, 128, 256, 512, 1024),
            budget_s=0.3,
            backend=backend,
            token=token,
            layout_check=False,
        )
        try:
            for event in events:
                if event.result is not None:
                    results.append(event.result)
        except Cancelled:
            box["cancelled"] = True

    thread = threading.Thread(target=work, name="bench-test")
    thread.start()
    deadline = time.monotonic() + 120  # a bound against a hang, not a speed requirement
    while not results and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.005)
    token.cancel()
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert box.get("cancelled") is True
    assert 0 < len(results) < 18


def test_runner_cancel_yields_a_final_cancelled_event() -> None:
    token = CancelToken()
    config = BenchConfig(
        suites=("matmul",), dtypes=("fp32",), sizes=(32, 64, 128, 256), budget_s=0.05
    )
    events = []
    for event in run_benchmarks(config, token, target=cpu_target(torch_available=False)):
        events.append(event)
        if event.result is not None:
            token.cancel()
    assert events[-1].cancelled and events[-1].done
    assert sum(1 for e in events if e.result is not None) == 1


def test_closing_the_generator_stops_the_run() -> None:
    gen = run_benchmarks(
        BenchConfig(suites=("matmul",), dtypes=("fp32",), sizes=(32, 64), budget_s=0.02),
        target=cpu_target(torch_available=False),
    )
    first = next(gen)
    assert first.fraction == 0.0
    gen.close()
    with pytest.raises(StopIteration):
        next(gen)


def test_runner_without_torch_uses_numpy_and_skips_torch_suites() -> None:
    seen: list[ProgressEvent] = []
    run = run_and_collect(
        BenchConfig(suites=("matmul", "amp", "bandwidth"), sizes=(32,), budget_s=0.02),
        on_event=seen.append,
        target=cpu_target(torch_available=False, torch_reason="torch not installed"),
    )
    check_progress(seen)
    assert seen[-1].done and not run.cancelled
    assert [r.extra.get("backend") for r in run.results if r.suite == "matmul"] == ["numpy"]
    assert any(r.suite == "bandwidth" and (r.value or 0) > 0 for r in run.results)
    assert any(w.startswith("amp skipped: torch not installed") for w in run.warnings)
    assert any("bf16 skipped" in w for w in run.warnings)  # numpy measures fp32 only
    data = run.to_dict()
    assert data["device_info"]["device"] == "cpu" and data["results"]


def test_config_validation_names_the_option() -> None:
    with pytest.raises(ValueError, match=r"^suite:"):
        BenchConfig(suites=("matmul", "nonsense"))
    with pytest.raises(ValueError, match=r"^dtype:"):
        BenchConfig(dtypes=("fp64",))
    with pytest.raises(ValueError, match=r"^device:"):
        BenchConfig(device="gpu")
    with pytest.raises(ValueError, match=r"^max_size:"):
        BenchConfig(max_size=3)
    with pytest.raises(ValueError, match=r"^budget_s:"):
        BenchConfig(budget_s=0)
    assert parse_device("CUDA:1") == ("cuda", 1)
    with pytest.raises(ValueError, match=r"^device:"):
        parse_device("mps:1")


def test_unavailable_device_is_a_device_error() -> None:
    from desktopapp.devices.torch_info import detect_torch

    info = detect_torch()
    if info.installed and info.cuda_available and len(info.cuda_devices) > 7:
        pytest.skip("this machine has cuda:7")
    with pytest.raises(ValueError, match=r"^device: cuda:7"):
        resolve_device("cuda:7")


def test_quick_config_defaults() -> None:
    target = cpu_target()
    quick = BenchConfig(quick=True)
    assert quick.budget < BenchConfig().budget
    assert max(quick.matmul_sizes(target)) <= 2048
    assert BenchConfig(max_size=100).matmul_sizes(target) == (100,)
    assert BenchConfig(max_size=600).matmul_sizes(target) == (256, 512)


def test_is_oom_and_busy_warning() -> None:
    assert is_oom(RuntimeError("CUDA out of memory. Tried to allocate 20.00 MiB"))
    assert is_oom(MemoryError())
    assert is_oom(
        RuntimeError(
            "[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: "
            "can't allocate memory: you tried to allocate 1 bytes"
        )
    )
    assert not is_oom(ValueError("shapes do not match"))
    assert busy_warning(load=0.1, cpus=2) is None
    assert "load average 3.0 on 2" in (busy_warning(load=3.0, cpus=2) or "")


def test_numpy_bandwidth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("desktopapp.devices.bench.bandwidth._copy_bytes", lambda t, q: 2**20)
    _, results, _ = collect(bandwidth_suite(cpu_target(torch_available=False), budget_s=0.05))
    (copy,) = results
    assert copy.variant == "device copy" and copy.metric == "GB/s"
    assert copy.value == pytest.approx(2 * 2**20 / copy.seconds / 1e9)


@needs_torch
def test_torch_bandwidth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("desktopapp.devices.bench.bandwidth._copy_bytes", lambda t, q: 2**20)
    _, results, _ = collect(bandwidth_suite(cpu_target(), budget_s=0.05))
    assert results[0].value and results[0].value > 0


TINY = BlockShape(d_model=32, heads=2, ff=64, seq=8, batch=4)


TINY_LADDER = (LmShape(32, 1, 2, 1, 8, 64), LmShape(48, 1, 2, 2, 8, 64))


@needs_torch
def test_amp_suite_measures_every_precision_at_the_chosen_size() -> None:
    events, results, warnings = collect(amp_suite(cpu_target(), budget_s=0.2, ladder=TINY_LADDER))
    check_progress(events)
    by_mode = {r.dtype: r for r in results}
    assert set(by_mode) == {"fp32", "bf16"}
    fp32, bf16 = by_mode["fp32"], by_mode["bf16"]
    assert fp32.size == bf16.size == fp32.extra["batch"] * fp32.extra["seq"]
    assert bf16.variant == "autocast" and fp32.variant == ""
    for r in (fp32, bf16):
        assert r.extra["repeats"] >= 5
        assert r.extra["tokens_per_s"] == pytest.approx(r.size / r.seconds)
        assert r.tflops == pytest.approx(r.extra["flop_per_step"] / r.seconds / 1e12)
        assert r.extra["params"] in (s.params for s in TINY_LADDER)
        assert r.extra["loss_finite"]
    assert bf16.extra["speedup_vs_fp32"] == pytest.approx(fp32.seconds / bf16.seconds)
    finding = next(w for w in warnings if "autocast" in w)
    assert fp32.extra["model"] in finding  # the sentence names the size


@needs_torch
def test_batching_and_quantization_tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batching_mod, "_mlp_size", lambda t, q: (64, 16))
    _, results, warnings = collect(
        batching_suite(cpu_target(), budget_s=LOAD_PROOF_BUDGET_S, batches=(1, 4, 16))
    )
    assert [r.size for r in results] == [1, 4, 16]
    for r in results:
        assert r.value == pytest.approx(r.size / r.seconds)
        assert r.extra["latency_ms"] == pytest.approx(r.seconds * 1000)
    assert any(w.startswith("batching: throughput grows") for w in warnings)
    _, qresults, qwarnings = collect(quantization_suite(cpu_target(), budget_s=0.05, batch=8))
    fp32, int8 = qresults
    assert (fp32.dtype, int8.dtype, int8.variant) == ("fp32", "int8", "dynamic")
    assert int8.extra["speedup_vs_fp32"] == pytest.approx(fp32.seconds / int8.seconds)
    assert 0 < int8.extra["relative_output_error"] < 0.2
    assert any(w.startswith("dynamic int8 quantization") for w in qwarnings)


def test_quantization_on_gpu_is_skipped_plainly() -> None:
    gpu = BenchDevice(spec="cuda:0", kind="cuda", index=0, name="fake GPU")
    (event,) = list(quantization_suite(gpu))
    assert event.result is None and "CPU only" in (event.warning or "")


@needs_torch
def test_profile_lists_top_operators(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("desktopapp.devices.bench.profile.block_shape", lambda t, q: TINY)
    _, results, _ = collect(profile_suite(cpu_target(), budget_s=0.5, limit=5))
    (result,) = results
    ops = result.extra["operators"]
    assert 0 < len(ops) <= 5
    assert all(op["self_seconds"] >= 0 and 0 <= op["percent"] <= 100 for op in ops)
    assert [op["self_seconds"] for op in ops] == sorted(
        (op["self_seconds"] for op in ops), reverse=True
    )
    assert sum(op["percent"] for op in ops) <= 100.0 + 1e-6


def test_models_module_imports_without_torch() -> None:
    assert models_mod.BlockShape().tokens == 8 * 128
    assert math.isfinite(TINY.tokens)


@needs_torch
def test_dtype_support_rules() -> None:
    from desktopapp.devices.bench.matmul import TorchMatmul

    cpu = TorchMatmul(cpu_target())
    assert cpu.unsupported("fp32") is None and cpu.unsupported("bf16") is None
    assert "CUDA only" in (cpu.unsupported("tf32") or "")
    assert "8.9" in (cpu.unsupported("fp8") or "")
    ampere = TorchMatmul(
        BenchDevice(spec="cuda:0", kind="cuda", index=0, name="A100", compute_capability=(8, 0))
    )
    import torch

    if torch.version.hip is None:
        assert ampere.unsupported("tf32") is None
        fp8 = ampere.unsupported("fp8") or ""
        expected = "this GPU is 8.0" if hasattr(torch, "_scaled_mm") else "no fp8 matmul"
        assert expected in fp8
    volta = TorchMatmul(
        BenchDevice(spec="cuda:0", kind="cuda", index=0, name="V100", compute_capability=(7, 0))
    )
    assert "8.0" in (volta.unsupported("tf32") or "")
