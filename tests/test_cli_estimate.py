"""``desktopapp estimate train|memory|inference``: JSON keys, text tables, one-line errors."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from desktopapp.cli import run_command
from desktopapp.model import catalog

WORKED = [
    "estimate",
    "train",
    "--params",
    "110M",
    "--tokens",
    "3.3B",
    "--peak-tflops",
    "312",
    "--utilization",
    "0.4",
    "--gpus",
    "8",
    "--price",
    "2",
]


def _json(capsys, argv):
    assert run_command([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_train_worked_example_json(capsys):
    doc = _json(capsys, WORKED)
    for key in (
        "total_flops",
        "total_pflops",
        "training_hours",
        "training_days",
        "gpu_hours",
        "estimated_cost_usd",
        "peak_tflops",
        "utilization",
        "planning_range",
        "assumptions",
        "formula",
        "price_source",
    ):
        assert key in doc, key
    assert doc["total_flops"] == pytest.approx(2.178e18)
    assert round(doc["training_hours"], 3) == 0.606
    assert doc["estimated_cost_usd"] == pytest.approx(9.70, abs=0.005)
    assert doc["planning_range"]["high_hours"] == pytest.approx(3 * doc["training_hours"])
    assert doc["price_source"] == "given"
    assert all({"name", "value", "source"} <= a.keys() for a in doc["assumptions"])


def test_train_forward_rule(capsys):
    doc = _json(
        capsys,
        [
            "estimate",
            "train",
            "--forward-flops",
            "8.2G",
            "--samples",
            "1.281167M",
            "--epochs",
            "90",
            "--peak-tflops",
            "312",
        ],
    )
    assert doc["method"] == "forward"
    assert doc["total_flops"] == pytest.approx(3 * 8.2e9 * 1.281167e6 * 90)
    assert doc["estimated_cost_usd"] is None


def test_train_price_defaults_to_the_cheapest_catalog_offer(capsys):
    doc = _json(
        capsys, ["estimate", "train", "--params", "7B", "--tokens", "1T", "--accelerator", "h100"]
    )
    offer = catalog.cheapest_offer(catalog.get_accelerator("h100").id, "on_demand")
    assert offer is not None
    assert doc["price_per_gpu_hour"] == offer.on_demand
    assert offer.id in doc["price_source"]
    assert doc["estimated_cost_usd"] == pytest.approx(doc["gpu_hours"] * offer.on_demand)


def test_train_from_a_preset_with_overrides(capsys):
    doc = _json(capsys, ["estimate", "train", "--preset", "llm-7b", "--gpus", "512"])
    assert doc["devices"] == 512
    assert doc["total_flops"] == pytest.approx(6 * 7e9 * 2e12)
    assert doc["accelerator"] == "a100-sxm-80gb"


def test_train_text_table_has_units(capsys):
    assert run_command(WORKED) == 0
    out = capsys.readouterr().out
    assert "2.18 EFLOP" in out
    assert "36.4 min" in out
    assert "$9.70" in out
    assert "Formula:" in out and "Assumptions:" in out


SHAPED_405B = ["estimate", "train", "--params", "405B", "--tokens", "15.6T", "--accelerator"]
SHAPED_405B += ["h100-sxm", "--gpus", "16384", "--layers", "126", "--hidden", "16384"]
SHAPED_405B += ["--heads", "128", "--kv-heads", "8", "--seq-len", "8192"]


@pytest.mark.parametrize("width", [80, 120])
def test_train_prints_the_answer_before_formula_and_assumptions(width, capsys, monkeypatch):
    """Issue 25: the headline, chain, plan, MFU, likely range and step breakdown come first
    (they once followed ~80 lines of assumptions), and no line is wider than the terminal."""
    monkeypatch.setenv("COLUMNS", str(width))
    assert run_command(SHAPED_405B) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if len(line) > width] == []
    assert lines[1].startswith("405B on 16,384 H100: about ")  # the Workload tab's hero

    def first(prefix: str) -> int:
        return next(i for i, line in enumerate(lines) if line.startswith(prefix))

    formula = first("Formula:")
    assert first("Assumptions:") > formula
    for key in ("wall time chain", "likely range", "parallel plan", "MFU / HFU", "step time"):
        assert first(key) < formula, key
    assert first("  compute") < formula  # the step breakdown
    assert formula < 45


def test_train_json_keeps_its_keys_and_order(capsys):
    doc = _json(capsys, SHAPED_405B)
    assert list(doc)[:4] == ["mfu", "hfu", "step_seconds", "step_breakdown"]
    assert doc["training"]["chain"].startswith("steady state")


def test_memory_json(capsys):
    doc = _json(
        capsys,
        [
            "estimate",
            "memory",
            "--params",
            "7B",
            "--precision",
            "bf16",
            "--layers",
            "32",
            "--hidden",
            "4096",
            "--heads",
            "32",
            "--seq-len",
            "4096",
            "--batch-size",
            "1",
            "--checkpointing",
            "--zero-stage",
            "3",
            "--gpus",
            "8",
            "--accelerator",
            "h100-sxm",
        ],
    )
    for key in (
        "weights_bytes",
        "gradients_bytes",
        "optimizer_bytes",
        "activations_bytes",
        "kv_cache_bytes",
        "overhead_bytes",
        "total_bytes",
        "per_device_bytes",
        "fits",
        "suggestions",
    ):
        assert key in doc, key
    assert doc["weights_bytes"] == 14e9
    assert doc["fits"] is True
    assert doc["per_device"]["weights_bytes"] == pytest.approx(14e9 / 8)
    assert doc["suggestions"] == []


def test_memory_without_accelerator_has_null_fit(capsys):
    doc = _json(capsys, ["estimate", "memory", "--params", "1B"])
    assert doc["fits"] is None
    assert doc["total_bytes"] == pytest.approx(16e9 * 1.05 + 2**30)  # + 5% allocator allowance


def test_memory_that_does_not_fit_lists_suggestions(capsys):
    argv = ["estimate", "memory", "--params", "7B", "--gpus", "8", "--accelerator", "h100-sxm"]
    doc = _json(capsys, argv)
    assert doc["fits"] is False
    assert doc["suggestions"]
    assert all(s["per_device_bytes"] < doc["per_device_bytes"] for s in doc["suggestions"])
    assert run_command(argv) == 0
    out = capsys.readouterr().out
    assert "does NOT fit" in out and "What would make it fit" in out and "GiB" in out


def test_memory_inference_mode(capsys):
    doc = _json(
        capsys,
        [
            "estimate",
            "memory",
            "--params",
            "7B",
            "--mode",
            "inference",
            "--precision",
            "int4",
            "--layers",
            "32",
            "--hidden",
            "4096",
            "--heads",
            "32",
            "--seq-len",
            "4096",
        ],
    )
    assert doc["weights_bytes"] == 3.5e9
    assert doc["kv_cache_bytes"] == 2 * 2**30
    assert doc["optimizer_bytes"] == 0


def test_inference_json_and_sweep(capsys):
    doc = _json(
        capsys,
        [
            "estimate",
            "inference",
            "--params",
            "7B",
            "--peak-tflops",
            "1000",
            "--bandwidth-gbs",
            "2000",
            "--batch-size",
            "16",
            "--price",
            "2",
            "--layers",
            "32",
            "--hidden",
            "4096",
            "--heads",
            "32",
            "--kv-heads",
            "8",
            # short requests: the KV cache stays small, so large batches turn compute-bound
            "--prompt-tokens",
            "16",
            "--output-tokens",
            "16",
            "--sweep",
        ],
    )
    for key in (
        "step_seconds",
        "bound",
        "tokens_per_second",
        "latency_seconds",
        "cost_per_million_tokens",
        "compute_seconds",
        "memory_seconds",
    ):
        assert key in doc, key
    assert doc["bound"] == "memory"
    assert doc["sweep"]["batch_size"][0] == 1 and doc["sweep"]["batch_size"][-1] == 1024
    assert doc["sweep"]["bound"][-1] == "compute"


def test_inference_on_a_catalog_accelerator_text(capsys):
    argv = ["estimate", "inference", "--params", "7B", "--accelerator", "h100-sxm"]
    assert run_command(argv) == 0
    out = capsys.readouterr().out
    assert "memory-bound" in out and "tokens/s" in out and "cost per million output tokens" in out


def test_estimate_without_a_subcommand_is_a_usage_error(capsys):
    assert run_command(["estimate"]) == 2


BAD = [
    (["train", "--params", "110M", "--tokens", "3.3B", "--peak-tflops", "312", "--gpus", "0"],
     "--gpus"),
    (["train", "--params", "110M", "--tokens", "3.3B", "--peak-tflops", "312",
      "--utilization", "1.5"], "--utilization"),
    (["train", "--params", "110M", "--tokens", "3.3B", "--peak-tflops", "312",
      "--utilization", "0"], "--utilization"),
    (["train", "--params=-5", "--tokens", "3.3B", "--peak-tflops", "312"], "--params"),
    (["train", "--params", "110M", "--tokens", "3.3B"], "--accelerator"),
    (["train", "--params", "110M", "--tokens", "3.3B", "--accelerator", "h10"], "--accelerator"),
    (["train", "--preset", "bert"], "--preset"),
    (["train", "--preset", "tree-ensembles"], "--preset"),
    (["train", "--params", "1B", "--tokens", "1B", "--peak-tflops", "1", "--pricing", "x"],
     "--pricing"),
    (["memory", "--params", "7B", "--zero-stage", "4"], "--zero-stage"),
    (["memory", "--params", "7B", "--precision", "int4"], "--precision"),
    (["memory", "--params", "7B", "--layers", "32"], "--hidden"),
    # no --gpus: every fleet size refused the same input, which is the cause (it read as
    # "--params: no fleet … fits this model in memory")
    (["train", "--params", "7B", "--tokens", "1T", "--accelerator", "h100-sxm", "--layers",
      "32"], "--hidden"),
    (["train", "--params", "7B", "--tokens", "1T", "--accelerator", "h100-sxm", "--kv-heads",
      "3"], "--kv-heads"),
    (["train", "--params", "7B", "--tokens", "1T", "--accelerator", "a100-sxm-80gb",
      "--precision", "fp8"], "--precision"),
    (["memory", "--params", "0"], "--params"),
    (["memory"], "--params"),
    (["inference", "--params", "7B", "--peak-tflops", "100"], "--bandwidth-gbs"),
    (["inference", "--params", "7B", "--accelerator", "h100-sxm", "--batch-size", "0"],
     "--batch-size"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "option"), BAD)
def test_bad_input_is_one_line_naming_the_option(capsys, argv, option):
    assert run_command(["estimate", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert f"{option}:" in lines[0]
    assert captured.out == ""


def test_unknown_accelerator_suggests_close_ids(capsys):
    run_command(["estimate", "train", "--params", "1B", "--tokens", "1B", "--accelerator", "h10"])
    assert "did you mean h100" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["abc", "nan", "inf", "7X"])
def test_unreadable_numbers_are_argparse_errors(capsys, value):
    with pytest.raises(SystemExit) as exc:
        run_command(["estimate", "train", "--params", value, "--tokens", "1B"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--params" in err[0]


def _desktopapp(*args):
    return subprocess.run(
        [sys.executable, "-m", "desktopapp", "estimate", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_subprocess_worked_example():
    done = _desktopapp(*WORKED[1:], "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total_flops"] == pytest.approx(2.178e18)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["train", "--params", "nan", "--tokens", "1B", "--peak-tflops", "1"], "--params"),
        (["memory", "--params", "7B", "--gpus", "-3"], "--gpus"),
    ],
)
def test_subprocess_bad_input_exit_2_one_line(args, option):
    done = _desktopapp(*args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0]


def test_tco_is_registered_under_estimate_when_available():
    import importlib.util

    from desktopapp.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    estimate = sub.choices["estimate"]
    inner = next(a for a in estimate._actions if isinstance(a, argparse._SubParsersAction))
    assert {"train", "memory", "inference"} <= set(inner.choices)
    if importlib.util.find_spec("desktopapp.commands.tco") is not None:
        assert "tco" in inner.choices


def test_train_from_scenario_file_matches_direct_options(tmp_path, capsys):
    """`estimate train --scenario plan.json` runs the saved numbers headless."""
    import json as _json

    from desktopapp.cli import run_command
    from desktopapp.model.scenario import Scenario
    from desktopapp.model.training import TrainingInputs

    plan = tmp_path / "plan.json"
    Scenario(
        name="bert",
        training=TrainingInputs(
            params=110e6, tokens=3.3e9, peak_tflops=312, utilization=0.4, gpus=8, price=2.0
        ),
    ).save(plan)
    assert run_command(["estimate", "train", "--scenario", str(plan), "--json"]) == 0
    from_file = _json.loads(capsys.readouterr().out)
    assert from_file["total_flops"] == 2.178e18
    assert round(from_file["training_hours"], 3) == 0.606
    # An option given on the command line overrides the scenario.
    assert (
        run_command(["estimate", "train", "--scenario", str(plan), "--gpus", "16", "--json"]) == 0
    )
    assert _json.loads(capsys.readouterr().out)["devices"] == 16


def test_scenario_and_preset_together_is_a_usage_error(tmp_path, capsys):
    from desktopapp.cli import run_command

    plan = tmp_path / "plan.json"
    plan.write_text("{}")
    assert run_command(["estimate", "train", "--scenario", str(plan), "--preset", "bert-base"]) == 2
    assert "--scenario: give --scenario or --preset" in capsys.readouterr().err


def test_corrupt_scenario_is_one_line_and_file_untouched(tmp_path, capsys):
    from desktopapp.cli import run_command

    plan = tmp_path / "plan.json"
    plan.write_text('{"format": "desktopapp-scenario", "version": 1,')
    before = plan.read_bytes()
    assert run_command(["estimate", "train", "--scenario", str(plan), "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "plan.json" in err
    assert plan.read_bytes() == before


def test_one_micro_batch_per_step_is_singular(capsys) -> None:
    # 70B on 16,384 TPU v6e: DP 4,096 leaves one micro-batch per step ("1 micro-batches" before)
    argv = ["estimate", "train", "--params", "70B", "--tokens", "2T"]
    argv += ["--accelerator", "tpu-v6e", "--gpus", "16384", "--json"]
    assert run_command(argv) == 0
    plan = json.loads(capsys.readouterr().out)["parallel_plan"]
    assert plan["micro_batches_per_step"] == 1
    assert "1 micro-batch per step" in plan["reason"]


def test_memory_takes_the_micro_batch_as_train_spells_it(capsys):
    """`estimate train --micro-batch 4` and `estimate memory --micro-batch 4` mean the same
    sequences per device; before, memory had only --batch-size, and argparse's prefix
    matching turned --micro-batch into --micro-batches (gradient accumulation) without a word."""
    shape = ["estimate", "memory", "--params", "1.3B", "--layers", "24", "--hidden", "2048",
             "--heads", "16", "--seq-len", "2048"]  # fmt: skip
    spelled = _json(capsys, [*shape, "--micro-batch", "4"])
    aliased = _json(capsys, [*shape, "--batch-size", "4"])
    one = _json(capsys, [*shape, "--micro-batch", "1"])
    assert spelled["activations_bytes"] == aliased["activations_bytes"]
    assert spelled["activations_bytes"] == pytest.approx(4 * one["activations_bytes"], rel=0.02)


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "train", "--params", "7B", "--tokens", "1T", "--prod", "2"],
        ["estimate", "memory", "--params", "7B", "--micro-batc", "2"],
    ],
)
def test_abbreviated_options_are_refused_not_guessed(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        run_command(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments" in err and argv[-2] in err


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "train", "--params", "110M", "--tokens", "3.3B", "--accelerator",
         "a100-sxm-80gb", "--gpus", "8"],
        ["estimate", "inference", "--params", "7B", "--accelerator", "h100-sxm"],
    ],
)  # fmt: skip
def test_price_takes_the_monitor_spelling_too(capsys, argv):
    """--price-per-gpu-hour (monitor, cluster) is the same option as --price here."""
    plain = _json(capsys, [*argv, "--price", "3"])
    spelled = _json(capsys, [*argv, "--price-per-gpu-hour", "3"])
    cheaper = _json(capsys, [*argv, "--price", "1.5"])
    assert plain == spelled
    assert plain != cheaper


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["inference", "--preset", "llm-7b", "--concurrency", "0"], "--concurrency"),
        (["inference", "--preset", "llm-7b", "--ttft-slo-ms", "0"], "--ttft-slo-ms"),
    ],
)
def test_a_refusal_names_its_option_once(capsys, argv, option):
    """The snapshot's message names the field; the option replaces that name rather than
    standing in front of it ("--concurrency: concurrency: must be …" before)."""
    assert run_command(["estimate", *argv]) == 2
    line = capsys.readouterr().err.strip()
    message = line.split(f"{option}: ", 1)[1]
    assert message.startswith("must"), line
    assert option.strip("-").replace("-", " ") not in message.split(",")[0], line


@pytest.mark.parametrize("typed", ["--micro-batch", "--batch-size"])
def test_a_refused_value_names_the_option_as_the_command_lists_it(capsys, typed):
    """`estimate memory` stores --micro-batch (alias --batch-size) as batch_size: the message
    names --micro-batch, the name `estimate train` and the help list first, never an option
    derived from the internal field name."""
    assert run_command(["estimate", "memory", "--params", "7B", typed, "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("desktopapp estimate: error: --micro-batch: must be at least 1"), err


def test_only_options_named_unlike_their_field_are_recorded_for_messages():
    from desktopapp.cli_base import OPTION_NAMES, OneLineErrorParser, flag

    parser = OneLineErrorParser(prog="t")
    parser.add_argument("--gpus", type=int)
    parser.add_argument("--micro-batch", "--batch-size", dest="batch_size", type=int)
    parser.add_argument("--flash-attention", action=argparse.BooleanOptionalAction)
    args = parser.parse_args(["--batch-size", "2"])
    assert getattr(args, OPTION_NAMES) == {"batch_size": "--micro-batch"}
    assert flag("batch_size", args) == "--micro-batch"
    assert flag("gpus", args) == "--gpus"
    assert flag("flash_attention", args) == "--flash-attention"
    assert flag("seq_len", argparse.Namespace()) == "--seq-len"


def test_the_wall_time_chain_of_one_gpu_reads_in_the_singular(capsys):
    argv = ["estimate", "train", "--params", "1B", "--tokens", "10B", "--accelerator",
            "h100-sxm", "--gpus", "1"]  # fmt: skip
    assert run_command(argv) == 0
    out = " ".join(capsys.readouterr().out.split())  # the chain wraps at the terminal width
    assert " on 1 GPU;" in out and "1 GPUs" not in out


def test_one_sequence_in_the_serving_title_reads_in_the_singular(capsys):
    assert run_command(["estimate", "inference", "--params", "700B", "--accelerator", "l4"]) == 0
    out = capsys.readouterr().out
    assert "continuous batching, 1 sequence," in out and "1 sequences" not in out


def test_goodput_overhead_0_means_none_and_empty_the_published_goodput(capsys):
    """`--goodput-overhead 0` took the published 90% goodput as if nothing had been given."""
    run = ["estimate", "train", "--params", "7B", "--tokens", "1T", "--accelerator", "h100-sxm"]
    run += ["--gpus", "64"]
    default = _json(capsys, run)
    none = _json(capsys, [*run, "--goodput-overhead", "0"])
    some = _json(capsys, [*run, "--goodput-overhead", "0.25"])
    assert default["goodput"] == pytest.approx(0.9) and default["goodput_overhead"] is None
    assert none["goodput"] == 1.0 and none["goodput_overhead"] == 0.0
    assert some["goodput"] == pytest.approx(0.8)
    hours = [doc["training"]["gpu_hours"] for doc in (none, default, some)]
    assert hours == sorted(hours) and hours[0] == pytest.approx(hours[1] * 0.9)
