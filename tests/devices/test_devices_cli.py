"""``desktopapp detect`` and ``desktopapp bench`` in-process, with tiny sizes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktopapp.cli import run_command
from desktopapp.devices.results_store import ResultsStore
from desktopapp.devices.torch_info import torch_installed


def run_json(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> tuple[int, dict[str, Any], str]:
    status = run_command(argv)
    captured = capsys.readouterr()
    return status, json.loads(captured.out), captured.err


def test_detect_json(capsys: pytest.CaptureFixture[str], no_nvml: None) -> None:
    status, data, _ = run_json(capsys, ["detect", "--json"])
    assert status == 0
    cpu = data["cpu"]
    assert cpu["model"] and cpu["cores"] >= 1 and cpu["threads"] >= cpu["cores"]
    assert isinstance(cpu["flags"], list)
    assert cpu["peak_fp32_gflops_estimate"] is None or cpu["peak_fp32_gflops_estimate"] > 0
    assert "GHz" in cpu["clock_assumption"] or "unknown" in cpu["clock_assumption"]
    assert data["memory"]["total_bytes"] > 0
    assert data["gpus"] == []
    assert isinstance(data["problems"], list)
    assert any(p.startswith("No NVIDIA GPU: unavailable because") for p in data["problems"])
    torch = data["torch"]
    assert torch["installed"] == torch_installed()
    if not torch["installed"]:
        assert any(p.startswith("torch not installed: pip install") for p in data["problems"])


def test_detect_text_without_torch(capsys: pytest.CaptureFixture[str], no_nvml: None) -> None:
    assert run_command(["detect", "--no-torch"]) == 0
    out = capsys.readouterr().out
    assert "CPU" in out and "Peak FP32" in out and "not probed" in out
    assert "No NVIDIA GPU" in out


def test_bench_json_tiny_no_save(capsys: pytest.CaptureFixture[str], isolated_home: Path) -> None:
    status, data, err = run_json(
        capsys,
        [
            "bench",
            "--suite",
            "matmul",
            "--dtype",
            "fp32",
            "--max-size",
            "64",
            "--budget-s",
            "0.05",
            "--json",
            "--no-save",
        ],
    )
    assert status == 0
    (r,) = data["results"]
    for key in ("suite", "device", "dtype", "size", "tflops", "seconds", "peak_tflops"):
        assert key in r
    assert (r["suite"], r["device"], r["dtype"], r["size"]) == ("matmul", "cpu", "fp32", 64)
    assert r["tflops"] > 0 and r["seconds"] > 0
    assert r["tflops_best"] >= r["tflops"]  # peak (fastest repeat) beside the median
    assert r["extra"]["spread_pct"] >= 0
    assert data["device_info"]["device"] == "cpu" and isinstance(data["notes"], list)
    assert data["run_id"] is None
    assert "matmul fp32 64×64" in err and "[100%]" in err  # progress on stderr only
    assert ResultsStore().list_runs() == []


def test_bench_saves_to_the_store(capsys: pytest.CaptureFixture[str], isolated_home: Path) -> None:
    status, data, _ = run_json(
        capsys,
        ["bench", "--suite", "matmul,bandwidth", "--dtype", "fp32", "--max-size", "32",
         "--budget-s", "0.02", "--json", "--notes", "from a test"],
    )  # fmt: skip
    assert status == 0 and isinstance(data["run_id"], int)
    stored = ResultsStore().load_run(data["run_id"])
    assert stored.summary.notes == "from a test"
    assert {r.suite for r in stored.results} == {"matmul", "bandwidth"}
    assert stored.summary.config["max_size"] == 32


def test_bench_text_output(capsys: pytest.CaptureFixture[str], isolated_home: Path) -> None:
    assert run_command(
        ["bench", "--suite", "matmul", "--dtype", "fp32", "--max-size", "32", "--budget-s",
         "0.02", "--no-save"]
    ) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "FLOP/s" in out and "suite" in out and "matmul" in out
    assert "best repeat" in out and "result (median)" in out  # peak beside sustained


def test_bench_text_fits_80_columns(
    capsys: pytest.CaptureFixture[str], isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert run_command(
        ["bench", "--suite", "matmul", "--dtype", "fp32,bf16", "--max-size", "32",
         "--budget-s", "0.02", "--no-save"]
    ) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    rows = [line.split() for line in lines if line.startswith("matmul")]
    assert {row[1] for row in rows} == {"fp32", "bf16"}  # dtype ids whole


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["bench", "--device", "gpu"], "--device:"),
        (["bench", "--device", "cuda:7"], "--device: cuda:7"),
        (["bench", "--suite", "matmul,bogus"], "--suite:"),
        (["bench", "--dtype", "fp64"], "--dtype:"),
        (["bench", "--budget-s", "0"], "--budget-s:"),
    ],
)
def test_bench_bad_options_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], option: str
) -> None:
    assert run_command(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and option in err
