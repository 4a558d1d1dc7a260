"""``desktopapp catalog accelerators|cloud`` run in-process, plus one real subprocess."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from desktopapp.cli import main, run_command
from desktopapp.model.catalog import Accelerator, CloudOffer, accelerator_catalog, cloud_offers


def run_json(capsys, *argv: str):
    assert run_command([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_accelerators_json_lists_every_field(capsys):
    rows = run_json(capsys, "catalog", "accelerators")
    assert len(rows) == len(accelerator_catalog().accelerators) >= 30
    fields = {f.name for f in dataclasses.fields(Accelerator)}
    for row in rows:
        assert {"id", "name"} <= set(row)
        assert fields <= set(row)
    by_id = {r["id"]: r for r in rows}
    assert by_id["h100-sxm"]["peak_tflops"]["bf16"] == pytest.approx(989.4)
    assert by_id["h100-sxm"]["source"]


def test_vendor_filter_is_case_insensitive(capsys):
    rows = run_json(capsys, "catalog", "accelerators", "--vendor", "amd")
    assert rows and {r["vendor"] for r in rows} == {"AMD"}
    assert {r["id"] for r in rows} == {"mi250x", "mi300x", "mi325x"}


def test_accelerators_table_has_units_sources_and_dates(capsys):
    assert run_command(["catalog", "accelerators", "--vendor", "NVIDIA"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    for column in ("ID", "MEMORY", "BANDWIDTH", "BF16/FP16", "TDP", "DATE", "SOURCE", "CONF."):
        assert column in header
    h100 = next(line for line in out.splitlines() if line.startswith("h100-sxm "))
    assert "80 GB" in h100 and "3.35 TB/s" in h100 and "989 TFLOP/s" in h100
    assert "700 W" in h100 and "$27,500" in h100 and "2026-05" in h100
    assert "tpu-v4" not in out  # filtered to NVIDIA


def test_cloud_json_filtered_by_alias(capsys):
    rows = run_json(capsys, "catalog", "cloud", "--accelerator", "NVIDIA H100 80GB HBM3")
    assert rows and {r["accelerator_id"] for r in rows} == {"h100-sxm"}
    fields = {f.name for f in dataclasses.fields(CloudOffer)}
    for row in rows:
        assert {"id", "name"} <= set(row) and fields <= set(row)
    assert "aws/p5.48xlarge/us-east-1" in {r["id"] for r in rows}


def test_cloud_table_lists_all_offers_with_dates(capsys):
    assert run_command(["catalog", "cloud"]) == 0
    out = capsys.readouterr().out
    assert "ON-DEMAND" in out.splitlines()[0] and "DATE" in out.splitlines()[0]
    assert f"{len(cloud_offers())} offers" in out
    p5 = next(line for line in out.splitlines() if line.startswith("aws/p5.48xlarge/us-east-1 "))
    assert "$6.88" in p5 and "2025-06" in p5
    index = next(line for line in out.splitlines() if line.startswith("market-index/"))
    assert " * " in index  # not rentable as listed


def test_unknown_vendor_is_one_line_exit_2(capsys):
    assert run_command(["catalog", "accelerators", "--vendor", "Nvidiaa"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("desktopapp catalog: error: --vendor: no accelerators from")
    assert "NVIDIA" in lines[0]


def test_missing_list_name_is_a_usage_error_naming_the_lists(capsys):
    assert main(["catalog"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("desktopapp catalog: error: say which list: accelerators, cloud")


def test_unknown_accelerator_exits_2_in_a_real_process():
    proc = subprocess.run(
        [sys.executable, "-m", "desktopapp", "catalog", "cloud", "--accelerator", "h100-sxmm"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("desktopapp catalog: error: --accelerator: unknown id 'h100-sxmm'")
    assert "did you mean h100-sxm" in lines[0]
