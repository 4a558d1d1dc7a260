"""``desktopapp estimate tco`` run in-process through the real CLI, plus one subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from desktopapp.cli import run_command
from desktopapp.model.catalog import cheapest_offer, cloud_defaults, tco_defaults
from desktopapp.model.units import HOURS_PER_YEAR

CONTRACT = [
    "estimate",
    "tco",
    "--accelerator",
    "h100-sxm",
    "--gpus",
    "8",
    "--server-price",
    "270000",
    "--life-years",
    "4",
    "--power-kw",
    "10.2",
    "--pue",
    "1.5",
    "--kwh-price",
    "0.08",
    "--ops-fraction",
    "0.1",
    "--cloud-price",
    "6.88",
]


def tco_json(capsys, *extra: str) -> dict:
    assert run_command(["estimate", "tco", *extra, "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    data = json.loads(captured.out)
    assert isinstance(data, dict)
    return data


def test_contract_command_prints_one_json_object(capsys):
    assert run_command([*CONTRACT, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    per_hour = 270000 / 8 / (4 * HOURS_PER_YEAR) + 0.1 * 270000 / 8 / HOURS_PER_YEAR
    per_hour += 10.2 / 8 * 1.5 * 0.08
    assert data["onprem_cost_per_gpu_hour"] == pytest.approx(per_hour)
    assert data["break_even_utilization"] == pytest.approx(per_hour / 6.88)
    assert data["cloud_cost_per_gpu_hour"] == pytest.approx(6.88)
    assert data["pays_off"] is True
    assert data["onprem_yearly_usd"] == pytest.approx(per_hour * 8 * HOURS_PER_YEAR)
    assert data["cloud_yearly_usd"] == pytest.approx(6.88 * 8 * 0.5 * HOURS_PER_YEAR)
    breakdown = data["onprem_yearly_breakdown_usd"]
    assert set(breakdown) == {"capex", "energy", "ops", "facility"}
    assert sum(breakdown.values()) == pytest.approx(data["onprem_yearly_usd"])
    assert breakdown["capex"] == pytest.approx(270000 / 4)
    assert set(data["cloud_yearly_breakdown_usd"]) == {"compute", "spot_overhead"}
    assert data["accelerator"] == {"id": "h100-sxm", "name": "NVIDIA H100 SXM5 80GB"}
    assert data["cloud_price_source"]["kind"] == "input"
    assert data["inputs"]["months"] == data["horizon_months"] == 48
    assert data["payback_month"] is not None and 1 <= data["payback_month"] <= 48
    assert len(data["cumulative"]["month"]) == 49
    assert "server_price" not in data["defaults_used"]
    assert data["assumptions"] and data["formula"]


def test_cheapest_catalog_offer_is_used_and_named(capsys):
    data = tco_json(capsys, "--accelerator", "h100-sxm", "--server-price", "300k")
    offer = cheapest_offer("h100-sxm", "on_demand")
    assert offer is not None
    source = data["cloud_price_source"]
    assert source["kind"] == "catalog"
    assert source["offer_id"] == offer.id
    assert data["inputs"]["cloud_price"] == pytest.approx(offer.on_demand)
    assert "cloud_price" in data["defaults_used"]
    assert data["inputs"]["server_price"] == pytest.approx(300000)


def test_defaults_fill_server_price_and_power_from_the_catalog(capsys):
    data = tco_json(capsys, "--accelerator", "h100-sxm", "--cloud-price", "3")
    fraction = tco_defaults().value("install_overhead_fraction")
    assert data["inputs"]["server_price"] == pytest.approx(300000 * (1 + fraction))
    assert data["inputs"]["power_kw"] == pytest.approx(10.2)
    assert data["inputs"]["pue"] == pytest.approx(1.5)
    assert data["inputs"]["kwh_price"] == pytest.approx(0.10)
    assert {"server_price", "power_kw", "pue", "kwh_price", "life_years"} <= set(
        data["defaults_used"]
    )
    capex = next(a for a in data["assumptions"] if a["name"] == "capex per server")
    assert capex["source"].startswith("catalog: HGX/DGX H100")


def test_spot_pricing_adds_the_interruption_overhead(capsys):
    data = tco_json(
        capsys, "--accelerator", "h100-sxm", "--server-price", "300k", "--pricing", "spot"
    )
    overhead = cloud_defaults().spot_overhead.value
    assert data["inputs"]["pricing"] == "spot"
    assert data["cloud_cost_per_gpu_hour"] == pytest.approx(
        data["inputs"]["cloud_price"] * (1 + overhead)
    )
    explicit = tco_json(
        capsys, "--accelerator", "h100-sxm", "--server-price", "300k", "--pricing", "spot",
        "--spot-overhead", "0.25", "--cloud-price", "2",
    )  # fmt: skip
    assert explicit["cloud_cost_per_gpu_hour"] == pytest.approx(2.5)


def test_idle_power_facility_utilization_and_months(capsys):
    data = tco_json(
        capsys, "--server-price", "200k", "--power-kw", "8", "--power-kw-idle", "2",
        "--facility-usd-per-kw-month", "150", "--utilization", "0.8", "--months", "60",
        "--cloud-price", "4",
    )  # fmt: skip
    assert data["accelerator"] is None
    assert data["inputs"]["power_kw_idle"] == pytest.approx(2)
    assert data["onprem_yearly_breakdown_usd"]["facility"] == pytest.approx(150 * 8 * 12)
    assert data["horizon_months"] == 60 and len(data["cumulative"]["month"]) == 61
    assert data["inputs"]["utilization"] == pytest.approx(0.8)


def test_never_pays_off_is_reported_with_a_flag(capsys):
    data = tco_json(capsys, "--accelerator", "h100-sxm", "--cloud-price", "0.5")
    assert data["break_even_utilization"] > 1
    assert data["pays_off"] is False and data["payback_month"] is None


def test_text_mode_is_a_readable_table_with_units(capsys):
    assert run_command(CONTRACT) == 0
    out = capsys.readouterr().out
    assert "Break-even utilization" in out and "21.8%" in out
    assert "Owning per GPU-hour" in out and "$1.50" in out
    assert "Cloud per useful GPU-hour" in out and "$6.88" in out
    assert "Payback" in out and "month 16" in out
    assert "Assumptions" in out and "source:" in out
    assert "Formula:" in out


def test_a_large_fleet_counts_its_gpus_with_separators(capsys):
    """A demand of 5M GPU-hours a month printed "13696 GPUs in 1,712 servers of 8"."""
    argv = ["estimate", "tco", "--accelerator", "h100-sxm", "--gpu-hours-per-month", "5e6"]
    assert run_command(argv) == 0
    out = " ".join(capsys.readouterr().out.split())  # the table wraps its cells
    assert "13,696 GPUs in 1,712 servers of 8" in out and "(13,696 GPUs)" in out
    assert "13696" not in out


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--pue", "0.8"], "--pue: must be between 1 and 3"),
        (["--utilization", "0"], "--utilization: must be in (0, 1]"),
        (["--server-price", "lots"], "--server-price: 'lots' is not a number"),
        (["--gpus", "12"], "--gpus: must be a whole number of servers of 8 GPUs"),
        (["--power-kw-idle", "20"], "--power-kw-idle: must be at most the power at full load"),
        (["--months", "0"], "--months: must be a whole number of at least 1"),
        (["--life-years", "40"], "--life-years: must be between 1 and 10"),
    ],
)
def test_bad_values_exit_2_with_one_line_naming_the_option(capsys, extra, expected):
    assert run_command([*CONTRACT, *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"desktopapp estimate: error: {expected}"), lines[0]


def test_missing_catalog_data_says_which_option_to_pass(capsys):
    assert run_command(["estimate", "tco", "--accelerator", "gaudi3"]) == 2
    assert "--server-price: no catalog server price for gaudi3" in capsys.readouterr().err
    assert run_command(["estimate", "tco", "--server-price", "1e5", "--power-kw", "5"]) == 2
    assert "--cloud-price: required without --accelerator" in capsys.readouterr().err
    args = ["estimate", "tco", "--accelerator", "tpu-v4", "--server-price", "1e5"]
    assert run_command(args) == 2
    assert "--power-kw: tpu-v4 has no published TDP" in capsys.readouterr().err


def test_unknown_accelerator_exits_2_in_a_real_process():
    proc = subprocess.run(
        [sys.executable, "-m", "desktopapp", "estimate", "tco", "--accelerator", "h100-sxmm"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "--accelerator: unknown id 'h100-sxmm'" in lines[0]
    assert "did you mean h100-sxm" in lines[0]


def _tco_json(capsys, *extra):
    assert run_command(["estimate", "tco", "--accelerator", "h100-sxm", *extra, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_shares_take_a_percent_sign_and_amounts_a_dollar_sign(capsys):
    typed = _tco_json(capsys, "--utilization", "40%", "--ops-fraction", "12%",
                      "--cloud-price", "$2.50", "--kwh-price", "$0.12")  # fmt: skip
    plain = _tco_json(capsys, "--utilization", "0.4", "--ops-fraction", "0.12",
                      "--cloud-price", "2.5", "--kwh-price", "0.12")  # fmt: skip
    assert typed == plain


@pytest.mark.parametrize(
    ("argv", "examples"),
    [
        (["estimate", "tco", "--accelerator", "h100-sxm", "--utilization", "half"], "0.4, 40%"),
        (["estimate", "tco", "--accelerator", "h100-sxm", "--gpus", "x"], "8, 0.5"),
        (["estimate", "tco", "--accelerator", "h100-sxm", "--cloud-price", "cheap"], "2.49"),
        (["plan", "serve", "--params", "7B", "--requests-per-s", "abc"], "8, 0.5"),
        (["plan", "serve", "--params", "7B", "--requests-per-s", "1", "--headroom", "x"],
         "0.4, 40%"),
        (["plan", "train", "--params", "7Q", "--tokens", "1T"], "110M, 7B"),
        (["cluster", "--prometheus", "http://127.0.0.1:1", "--price-per-gpu-hour", "x"],
         "2.49, $1.99"),
    ],
)  # fmt: skip
def test_a_value_that_is_no_number_gets_examples_of_its_kind(capsys, argv, examples):
    # a request rate, a share or a price was told "examples: 110M, 7B, 1.5e9, 3.3T"
    try:
        status = run_command(argv)  # the options a command reads itself: it returns 2
    except SystemExit as exited:  # argparse's own exit for a value its type refused
        status = exited.code
    assert status == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"examples: {examples}" in err
    if "7B" not in examples:
        assert "110M" not in err
