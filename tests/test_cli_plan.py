"""``desktopapp plan train|serve`` (issue 24): JSON keys, a table that fits 80 columns, bad
input as exit 2 with one line naming the option."""

from __future__ import annotations

import json

import pytest

from desktopapp.cli import run_command
from desktopapp.model.catalog import accelerator_catalog

TRAIN = ["plan", "train", "--params", "7B", "--tokens", "1T", "--layers", "32", "--hidden",
         "4096", "--heads", "32", "--include", "h100-sxm,a100-sxm-80gb,tpu-v6e,gb200"]  # fmt: skip
SERVE = ["plan", "serve", "--params", "8B", "--layers", "32", "--hidden", "4096", "--heads",
         "32", "--kv-heads", "8", "--requests-per-s", "4", "--ttft-slo-ms", "2000",
         "--tpot-slo-ms", "60", "--include", "h100-sxm,a100-sxm-80gb,l4"]  # fmt: skip

OPTION_KEYS = {
    "accelerator",
    "gpus",
    "pricing",
    "offer",
    "price_usd_per_gpu_hour",
    "cost_low_usd",
    "cost_high_usd",
    "meets_constraints",
    "pareto",
}


def _json(capsys, argv):
    assert run_command([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_plan_train_json(capsys):
    doc = _json(capsys, [*TRAIN, "--deadline-days", "30", "--budget", "1M"])
    assert doc["options"] and isinstance(doc["recommendation"], str)
    for option in doc["options"]:
        assert OPTION_KEYS | {"wall_days", "cost_usd"} <= option.keys()
    best = doc["options"][0]
    assert best["meets_constraints"] and best["wall_days"] <= 30 and best["cost_usd"] <= 1e6
    assert any(o["pareto"] for o in doc["options"])
    assert all(e["reason"] for e in doc["excluded"])
    assert doc["constraints"]["deadline_days"] == 30
    assert f"{best['gpus']:,}" in doc["recommendation"]


def test_plan_serve_json(capsys):
    doc = _json(capsys, SERVE)
    assert doc["options"]
    for option in doc["options"]:
        assert OPTION_KEYS | {"replicas", "cost_per_month_usd"} <= option.keys()
    costs = [o["cost_per_month_usd"] for o in doc["options"] if o["meets_constraints"]]
    assert costs == sorted(costs)


@pytest.mark.parametrize("argv", [TRAIN, SERVE])
def test_table_fits_80_columns_and_keeps_accelerator_ids(capsys, monkeypatch, argv):
    monkeypatch.setenv("COLUMNS", "80")
    assert run_command([*argv, "--rows", "40"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    ids = set(accelerator_catalog().ids)
    rows = [line.split() for line in lines if line[:3].strip().isdigit()]
    assert rows
    assert all(row[1] in ids for row in rows)  # never cut


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        (["--deadline-days", "0"], "--deadline-days"),
        (["--deadline-days", "-2"], "--deadline-days"),
        (["--budget", "-5"], "--budget"),
        (["--include", "h100-sxn"], "--include"),
        (["--include", "h100-sxm", "--exclude", "h100-sxm"], "--exclude"),
        (["--pricing", "cheapest"], "--pricing"),
        (["--max-gpus", "0"], "--max-gpus"),
        # a broken shape is the workload's error, named once (it was a "not modelled" reason
        # for every option, the first shown being a TPU's missing interconnect data)
        (["--kv-heads", "3"], "--kv-heads"),
        (["--layers", "32"], "--hidden"),
    ],
)
def test_bad_train_input_is_one_line_exit_2(capsys, extra, option):
    assert run_command(["plan", "train", "--params", "7B", "--tokens", "1T", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and option in err and "Traceback" not in err


def test_unknown_include_suggests(capsys):
    assert (
        run_command(["plan", "train", "--params", "7B", "--tokens", "1T", "--include", "h100-sxn"])
        == 2
    )
    assert "did you mean h100-sxm" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "option"),
    [
        (["--requests-per-s", "-3"], "--requests-per-s"),
        (["--requests-per-s", "0"], "--requests-per-s"),
        (["--requests-per-s", "2", "--tpot-slo-ms", "0"], "--tpot-slo-ms"),
        (["--requests-per-s", "2", "--precision", "fp9"], "--precision"),
        ([], "--requests-per-s"),
        (["--requests-per-s", "2", "--layers", "32"], "--hidden"),
        (["--requests-per-s", "2", "--kv-heads", "3"], "--kv-heads"),
        ([*SERVE[4:10], "--kv-heads", "5", "--requests-per-s", "2"], "--kv-heads"),
    ],
)
def test_bad_serve_input_is_one_line_exit_2(capsys, extra, option):
    assert run_command(["plan", "serve", "--params", "8B", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and option in err and "Traceback" not in err


def test_counts_of_one_read_in_the_singular(capsys):
    # ten million output tokens per request leave room for one sequence per replica
    argv = ["plan", "serve", "--params", "7B", "--requests-per-s", "5", "--output-tokens",
            "10M", "--include", "gb200", "--pricing", "owned"]  # fmt: skip
    assert run_command(argv) == 0
    out = capsys.readouterr().out
    assert "1 sequence each" in out and "1 sequences" not in out
