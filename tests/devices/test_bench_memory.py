"""bench --suite memory on the CPU build: real training steps, measured peak against the
memory model, term by term (issue 22)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from desktopapp.devices.bench import Cancelled, CancelToken
from desktopapp.devices.bench.core import SUITES
from desktopapp.devices.bench.memory import MemoryShape, memory_suite
from desktopapp.devices.bench.target import resolve_device

TINY = MemoryShape(
    layers=2, hidden=64, heads=2, ffn_hidden=192, vocab=256, seq_len=32, micro_batches=(1, 4)
)


@pytest.fixture(scope="module")
def results():
    events = list(memory_suite(resolve_device("cpu"), shape=TINY, precision="mixed"))
    assert events[-1].fraction == 1.0
    return [e.result for e in events if e.result is not None]


def test_memory_suite_is_registered():
    assert "memory" in SUITES


def test_one_result_per_micro_batch_with_terms(results):
    assert [r.size for r in results] == [1, 4]
    for r in results:
        assert r.suite == "memory" and r.metric == "predicted/measured"
        assert set(r.extra["measured_bytes"]) == set(r.extra["predicted_bytes"]) - {
            "peak_with_allowance"
        }


def test_saved_activations_match_the_model_term_by_term(results):
    for r in results:
        ratio = r.extra["ratio_measured_over_predicted"]
        assert ratio["persistent"] == pytest.approx(1.0, abs=0.01)
        assert ratio["layers"] == pytest.approx(1.0, abs=0.05)
        assert ratio["output"] == pytest.approx(1.0, abs=0.05)


def test_peak_within_0_95_to_1_15_of_measured(results):
    for r in results:
        assert 0.95 <= r.extra["predicted_over_measured_peak"] <= 1.15
    # the activations grow with the micro-batch: the measured peak does too
    assert (
        results[1].extra["measured_bytes"]["peak_allocated"]
        > (results[0].extra["measured_bytes"]["peak_allocated"])
    )


def test_cancel_between_steps():
    token = CancelToken()
    gen = memory_suite(resolve_device("cpu"), shape=TINY, precision="fp32", token=token)
    next(gen)  # building the model
    next(gen)  # micro-batch 1 starts
    token.cancel()
    with pytest.raises(Cancelled):
        for _ in gen:
            pass


def test_profiler_chatter_is_dropped_and_other_native_stderr_kept(capfd):
    import os

    from desktopapp.devices.bench.memory import _profiler_chatter_filtered

    with _profiler_chatter_filtered():
        os.write(2, b"USDT:2026-11-28 10:00:00 1:1 SyncActivityProfilerHandler.cpp:52] start\n")
        os.write(
            2,
            b"[W CPUAllocator.cpp:245] Memory block of unknown size was allocated "
            b"before the profiling started, profiler results will not include it\n",
        )
        os.write(2, b"a real native error\n")
    err = capfd.readouterr().err
    assert "USDT" not in err and "Memory block of unknown size" not in err
    assert "a real native error" in err


def test_bench_memory_output_fits_80_columns(capfd, monkeypatch):
    # the progress lines, the term tables' headings and the notes wrap; the profiler's
    # native chatter (kineto's "USDT: … profiler_start") no longer reaches the terminal
    from desktopapp import cli

    monkeypatch.setenv("COLUMNS", "80")
    status = cli.main(["bench", "--suite", "memory", "--quick", "--no-save"])
    out, err = capfd.readouterr()
    assert status == 0, err[-800:]
    lines = (out + err).splitlines()
    assert "Memory of one training step" in out
    assert [line for line in lines if len(line) > 80] == []
    assert not any("USDT" in line for line in lines)


def test_the_hardware_tab_offers_the_memory_suite_and_shows_its_figures(results):
    """The window runs every suite the CLI has (allreduce has its own panel), and a memory
    result reads as the measured peak and the model's ratio, with the terms in the tooltip."""
    from desktopapp.application import hardware

    offered = {key for key, _label, _tip in hardware.SUITE_INFO}
    assert offered == set(SUITES)
    assert "memory" in hardware.NEEDS_TORCH
    r = results[-1]
    peak = r.extra["measured_bytes"]["peak_allocated"]
    ratio = r.extra["predicted_bytes"]["peak_allocated"] / peak
    assert hardware.size_text(r) == "micro-batch 4"
    cell = hardware.table_result_text(r)
    assert cell == f"{hardware.units.format_bytes(peak)}, model {ratio:.2f}×"
    tip = hardware.result_tooltip(r)
    assert "peak allocated: measured" in tip and "layers: measured" in tip
    assert "2 layers, hidden 64" in tip and "{" not in tip  # the shape in words, not a dict
