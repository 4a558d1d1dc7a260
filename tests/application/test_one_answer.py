"""Issue 21: one workload, one answer. Every face (the CLI's --json, ``report --json``,
Compare's rows, the report HTML and a save/reopen round trip) renders one snapshot
(:mod:`desktopapp.application.snapshot`); the figures agree after display rounding."""

from __future__ import annotations

import ast
import json
from html import escape as html_escape
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktopapp.application.compare import summarize
from desktopapp.application.report_html import standalone_html
from desktopapp.application.snapshot import (
    WorkloadRequest,
    compute_snapshot,
    request_from_preset,
    request_from_scenario,
    scenario_from_preset,
    snapshot_json,
    training_figures,
)
from desktopapp.cli import run_command
from desktopapp.model import units
from desktopapp.model.inference import InferenceInputs
from desktopapp.model.presets import get_preset, preset_ids
from desktopapp.model.scenario import Scenario, load_scenario
from desktopapp.model.training import TrainingInputs
from tests.application.cli_run import cli_json as _cli_json

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "resources" / "examples").glob("*.json"))
TRAINING_PRESETS = [p for p in preset_ids() if get_preset(p).has_training_estimate]


def _rel(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return a == pytest.approx(b, rel=1e-9)


# --- parity over the presets and the example scenarios ---------------------------------------


@pytest.mark.parametrize("preset", TRAINING_PRESETS)
def test_cli_report_and_compare_agree_for_every_preset(
    preset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _cli_json(capsys, ["report", "--preset", preset, "--json"])
    train = _cli_json(capsys, ["estimate", "train", "--preset", preset, "--json"])
    snap = compute_snapshot(request_from_scenario(scenario_from_preset(preset)))
    doc = snapshot_json(snap)
    assert report["training"]["gpu_hours"] == pytest.approx(doc["training"]["gpu_hours"])
    for key in ("gpu_hours", "wall_days", "cost_usd", "gpus", "mfu", "gpu_hours_high"):
        assert _rel(train["training"][key], report["training"][key]), key
    assert train["gpu_hours"] == pytest.approx(report["training"]["gpu_hours"])
    assert train["training_seconds"] == pytest.approx(report["training"]["wall_seconds"])
    # the chain adds up: steady × production ÷ goodput = wall
    t = report["training"]
    assert t["steady_seconds"] * t["production_factor"] / t["goodput"] == pytest.approx(
        t["wall_seconds"]
    )
    # Compare's rows show the same figures, rounded for display
    rows = {r.label: r for r in summarize(scenario_from_preset(preset)).rows}
    assert rows["Wall time"].text == units.format_duration(t["wall_seconds"])
    if t["cost_usd"] is not None:
        assert rows["Cost of the run"].text == units.format_money(t["cost_usd"])


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_scenarios_agree_everywhere(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _cli_json(capsys, ["report", str(path), "--json"])
    train = _cli_json(capsys, ["estimate", "train", "--scenario", str(path), "--json"])
    t = report["training"]
    assert train["training"]["gpu_hours"] == pytest.approx(t["gpu_hours"])
    assert train["training"]["wall_days"] == pytest.approx(t["wall_days"])
    # save and reopen: the same figures
    scenario = load_scenario(path).scenario
    copy = tmp_path / "copy.json"
    scenario.save(copy)
    again = snapshot_json(compute_snapshot(request_from_scenario(Scenario.load(copy))))
    assert again["training"] == report["training"]
    assert again["memory"] == report["memory"]
    assert again["verdict"] == report["verdict"]
    # the report's HTML shows the snapshot's figures
    html = standalone_html([summarize(scenario, file_name=path.name)], file_name=path.name)
    assert units.format_duration(t["wall_seconds"]) in html
    # ... and opens with the headline sentence of the Workload tab and `estimate train`
    assert f"<p class='lead'><b>{html_escape(train['headline'])}</b></p>" in html
    if report["verdict"] is not None:
        assert report["verdict"]["text"].split(":")[0] in html
    assert "linear in the device count" not in html  # no flat 40% model
    # Compare's rows: the modelled run, not the flat model
    rows = {r.label: r for r in summarize(scenario).rows}
    assert rows["Wall time"].text == units.format_duration(t["wall_seconds"])
    assert rows["GPU-hours"].value == pytest.approx(t["gpu_hours"])
    assert rows["Rent or buy verdict"].text == report["verdict"]["text"]


def test_serving_defaults_are_the_engines_operating_point(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The CLI and the report serve llm-7b at the same operating point (no concurrency 1
    default); one request's latency is its own figure."""
    cli = _cli_json(capsys, ["estimate", "inference", "--preset", "llm-7b", "--json"])
    report = _cli_json(capsys, ["report", "--preset", "llm-7b", "--json"])
    serving = report["serving"]
    assert serving["tokens_per_second"] == pytest.approx(cli["tokens_per_second"])
    assert serving["concurrency"] == cli["concurrency"] > 1
    assert serving["single_request_latency_seconds"] < serving["latency_seconds"]
    assert cli["single_request_latency_seconds"] == pytest.approx(
        serving["single_request_latency_seconds"]
    )


@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    params=st.floats(1e8, 5e11).map(lambda v: float(f"{v:.3g}")),
    tokens=st.floats(1e9, 2e13).map(lambda v: float(f"{v:.3g}")),
    gpus=st.sampled_from([1, 2, 8, 16, 64, 256, 1024, 4096]),
    accelerator=st.sampled_from(["h100-sxm", "a100-sxm-80gb", "h200-sxm", "mi300x"]),
)
def test_training_figures_match_the_cli(
    params: float, tokens: float, gpus: int, accelerator: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["estimate", "train", "--params", f"{params:g}", "--tokens", f"{tokens:g}"]
    argv += ["--gpus", str(gpus), "--accelerator", accelerator, "--price", "2", "--json"]
    capsys.readouterr()
    status = run_command(argv)
    out = capsys.readouterr()
    training = TrainingInputs(params=params, tokens=tokens, gpus=gpus, accelerator=accelerator)
    try:
        fig = training_figures(training.__class__(**{**training.__dict__, "price": 2.0}))
    except ValueError:
        assert status == 2 and out.err.startswith("desktopapp estimate: error: --")
        return
    assert status == 0, out.err
    doc = json.loads(out.out)
    assert doc["training"]["gpu_hours"] == pytest.approx(fig.gpu_hours)
    assert doc["training"]["cost_usd"] == pytest.approx(fig.cost_usd)
    assert doc["memory"]["zero_stage"] == doc["parallel_plan"]["zero_stage"]
    assert doc["memory"]["micro_batch"] == doc["parallel_plan"]["micro_batch"]


# --- under-specified questions ---------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        [],
        ["--seq-len", "2048", "--layers", "32", "--hidden", "4096", "--heads", "32"],
        ["--active-params", "1.6B"],
    ],
    ids=["no-shape", "shape", "moe"],
)
def test_train_without_gpus_answers_and_names_the_assumption(
    extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["estimate", "train", "--params", "6.7B", "--tokens", "1T"]
    doc = _cli_json(capsys, [*argv, "--accelerator", "a100-sxm-80gb", *extra, "--json"])
    assert doc["gpus_assumed"] is True and doc["model"] == "modelled run"
    assert f"{doc['training']['gpus']:,} GPUs assumed" in doc["gpus_rule"]
    assert doc["training"]["wall_days"] <= 90.0
    text = capsys.readouterr()
    run_command([*argv, "--accelerator", "a100-sxm-80gb", *extra])
    text = capsys.readouterr()
    assert "GPUs assumed" in text.out and "catalog --accelerator" not in text.err


def test_deadline_days_sets_the_fleet(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["estimate", "train", "--params", "7B", "--tokens", "1T", "--accelerator", "h100-sxm"]
    slow = _cli_json(capsys, [*argv, "--deadline-days", "120", "--json"])
    fast = _cli_json(capsys, [*argv, "--deadline-days", "10", "--json"])
    assert fast["training"]["gpus"] > slow["training"]["gpus"]
    assert fast["training"]["wall_days"] <= 10.0
    assert "your deadline" in fast["gpus_rule"]


def test_default_batch_at_scale_is_near_a_16m_batch(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["estimate", "train", "--params", "405B", "--tokens", "15.6T"]
    argv += ["--accelerator", "h100-sxm", "--gpus", "16384", "--json"]
    default = _cli_json(capsys, argv)
    given16 = _cli_json(capsys, [*argv, "--global-batch-tokens", "16M"])
    ratio = default["training"]["wall_days"] / given16["training"]["wall_days"]
    assert 1 / 1.5 <= ratio <= 1.5
    # a user value always wins
    small = _cli_json(capsys, [*argv, "--global-batch-tokens", "4M"])
    assert small["training"]["wall_days"] > default["training"]["wall_days"]


LLAMA3_405B_SHAPE = ["--layers", "126", "--hidden", "16384", "--heads", "128", "--kv-heads", "8"]
LLAMA3_405B_SHAPE += ["--seq-len", "8192"]


def test_shaped_405b_default_batch_is_near_a_16m_batch(capsys: pytest.CaptureFixture[str]) -> None:
    """With the Llama 3 shape, "16M" (16e6 tokens = 1,953 sequences, just under the 2,048 that
    DP × micro-batch plans need) once left only poor plans: 1.56× the default batch's time."""
    argv = ["estimate", "train", "--params", "405B", "--tokens", "15.6T"]
    argv += ["--accelerator", "h100-sxm", "--gpus", "16384", *LLAMA3_405B_SHAPE, "--json"]
    default = _cli_json(capsys, argv)
    given16 = _cli_json(capsys, [*argv, "--global-batch-tokens", "16M"])
    ratio = given16["training"]["wall_days"] / default["training"]["wall_days"]
    assert 1 / 1.5 <= ratio <= 1.5
    assert given16["training"]["mfu"] >= 0.9 * default["training"]["mfu"]


def test_a_given_batch_is_rounded_to_whole_micro_batches_and_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["estimate", "train", "--params", "405B", "--tokens", "15.6T"]
    argv += ["--accelerator", "h100-sxm", "--gpus", "16384", *LLAMA3_405B_SHAPE, "--json"]
    out = _cli_json(capsys, [*argv, "--global-batch-tokens", "16M"])
    plan = out["parallel_plan"]
    m = plan["micro_batches_per_step"]
    assert m == int(m)  # whole micro-batches
    sequences = plan["dp"] * plan["micro_batch"] * int(m)
    assert sequences == 2048  # the nearest whole multiple of DP × micro-batch to 1,953
    batch = next(a for a in out["assumptions"] if a["name"] == "global batch")
    assert "16M tokens asked → 2,048 sequences = 16.8M tokens" in batch["value"]
    assert "±10%" in batch["source"]
    assert "16M tokens asked → 2,048 sequences" in plan["reason"]
    # steps follow the batch actually run
    assert out["steps"] == pytest.approx(15.6e12 / (2048 * 8192))


# --- scenario plans honoured; refusals -------------------------------------------------------


def _scenario_with(tmp_path: Path, **training: object) -> Path:
    doc = json.loads((REPO / "resources/examples/h100-8x-rented.json").read_text("utf-8"))
    doc["training"].update(training)
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_scenario_plan_fields_are_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _scenario_with(tmp_path, tp=2, production_factor=1.0)
    doc = _cli_json(capsys, ["estimate", "train", "--scenario", str(path), "--json"])
    assert doc["parallel_plan"]["tp"] == 2 == doc["inputs"]["tp"]
    assert doc["production_factor"] == 1.0 == doc["inputs"]["production_factor"]
    over = _cli_json(capsys, ["estimate", "train", "--scenario", str(path), "--tp", "4", "--json"])
    assert over["parallel_plan"]["tp"] == 4 and over["production_factor"] == 1.0


def test_a_factor_from_past_runs_gives_one_range_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The factor `calibrate` prints, saved in a scenario (as the Workload tab's field saves
    it): `estimate train`, `report` and the snapshot give the same likely range, the
    own-organisation scatter band (not the MFU band)."""
    runs = tmp_path / "runs.csv"
    runs.write_text(
        "name,params,tokens,accelerator,gpus,gpu_hours\n"
        "base,7B,2T,h100-sxm,256,60k\nchat,13B,300B,a100-sxm-80gb,128,70k\n",
        encoding="utf-8",
    )
    factor = _cli_json(capsys, ["calibrate", str(runs), "--json"])["production_factor"]
    path = _scenario_with(tmp_path, production_factor=factor)
    train = _cli_json(capsys, ["estimate", "train", "--scenario", str(path), "--json"])
    report = _cli_json(capsys, ["report", str(path), "--json"])
    snap = snapshot_json(compute_snapshot(request_from_scenario(Scenario.load(path))))
    for key in ("gpu_hours", "gpu_hours_low", "gpu_hours_high", "production_factor"):
        assert _rel(train["training"][key], report["training"][key]), key
        assert _rel(snap["training"][key], report["training"][key]), key
    assert report["training"]["production_factor"] == pytest.approx(factor)
    assert "own organisation" in train["range_meaning"]


def test_past_runs_give_the_factor_and_its_source_on_every_face(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`estimate train --past-runs F` is `--production-factor` with calibrate's factor, and
    says where it came from; saved in a scenario (as the Workload tab saves the field's note)
    the source travels to `estimate train`, `report` and the snapshot; a factor given on the
    line replaces the saved one and its source."""
    runs = tmp_path / "runs.csv"
    runs.write_text(
        "name,params,tokens,accelerator,gpus,gpu_hours\n"
        "base,7B,2T,h100-sxm,256,60k\nchat,13B,300B,a100-sxm-80gb,128,70k\n",
        encoding="utf-8",
    )
    cal = _cli_json(capsys, ["calibrate", str(runs), "--json"])
    workload = ["--params", "7B", "--tokens", "1T", "--accelerator", "h100-sxm", "--gpus", "64"]
    by_file = _cli_json(
        capsys, ["estimate", "train", *workload, "--past-runs", str(runs), "--json"]
    )
    by_number = _cli_json(
        capsys,
        ["estimate", "train", *workload, "--production-factor", str(cal["production_factor"]),
         "--json"],
    )  # fmt: skip
    for key in ("gpu_hours", "gpu_hours_low", "gpu_hours_high", "production_factor"):
        assert _rel(by_file["training"][key], by_number["training"][key]), key
    source = by_file["training"]["production_factor_source"]
    assert source.startswith(f"×{cal['production_factor']:g} from your 2 runs in runs.csv")
    assert by_number["training"]["production_factor_source"] == "given"
    assumption = next(a for a in by_file["assumptions"] if a["name"] == "production factor")
    assert assumption["source"] == source
    # saved in a scenario, with its source
    path = _scenario_with(
        tmp_path, production_factor=cal["production_factor"], production_factor_source=source
    )
    train = _cli_json(capsys, ["estimate", "train", "--scenario", str(path), "--json"])
    report = _cli_json(capsys, ["report", str(path), "--json"])
    snap = snapshot_json(compute_snapshot(request_from_scenario(Scenario.load(path))))
    for doc in (train, report, snap):
        assert doc["training"]["production_factor_source"] == source
    scenario = Scenario.load(path)
    html = standalone_html([summarize(scenario, file_name=path.name)], file_name=path.name)
    assert html_escape(f"production factor: {source}") in html  # the report and the PDF
    assert Scenario.load(path).training.production_factor_source == source  # type: ignore[union-attr]
    over = _cli_json(
        capsys, ["estimate", "train", "--scenario", str(path), "--production-factor", "2", "--json"]
    )
    assert over["training"]["production_factor"] == 2.0
    assert over["training"]["production_factor_source"] == "given"
    assert over["inputs"]["production_factor_source"] == ""
    # the fitted default names its fit
    plain = _cli_json(capsys, ["estimate", "train", *workload, "--json"])
    assert plain["training"]["production_factor_source"].startswith("fitted to ")


def test_invalid_saved_plan_is_refused_naming_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _scenario_with(tmp_path, tp=3)
    capsys.readouterr()
    assert run_command(["estimate", "train", "--scenario", str(path)]) == 2
    err = capsys.readouterr().err
    assert "plan.json" in err and "training.tp" in err


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["train", "--params", "7B", "--tokens", "1T", "--accelerator", "h100-sxm",
          "--global-batch-tokens", "0.5"], "--global-batch-tokens"),
        (["train", "--params", "7B", "--tokens", "1T", "--accelerator", "h100-sxm",
          "--global-batch-tokens", "1e-300"], "--global-batch-tokens"),
        (["train", "--params", "7B", "--tokens", "1T", "--accelerator", "h100-sxm",
          "--layers", "32.5", "--hidden", "4096", "--heads", "32"], "--layers"),
        (["inference", "--params", "47B", "--active-params", "13B", "--accelerator",
          "h100-sxm", "--gpus", "2", "--experts", "1e18"], "--experts"),
        (["inference", "--params", "47B", "--active-params", "13B", "--accelerator",
          "h100-sxm", "--gpus", "2", "--moe-top-k", "1e18"], "--moe-top-k"),
        (["inference", "--params", "47B", "--active-params", "13B", "--accelerator",
          "h100-sxm", "--gpus", "2", "--experts", "4", "--moe-top-k", "5"], "--moe-top-k"),
        (["inference", "--params", "7B", "--accelerator", "h100-sxm", "--layers", "1e9",
          "--hidden", "4096", "--heads", "32"], "--layers"),
        (["inference", "--params", "7B", "--accelerator", "h100-sxm", "--layers", "32",
          "--hidden", "4096", "--heads", "32", "--head-dim", "1e18"], "--head-dim"),
    ],
)  # fmt: skip
def test_refusals_name_the_true_cause(
    argv: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_command(["estimate", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]  # after any "warning:" lines
    assert err.startswith(f"desktopapp estimate: error: {option}:"), err
    assert "--gpus:" not in err and "--accelerator:" not in err


@pytest.mark.parametrize("command", [["train", "--tokens", "1T"], ["inference"]])
def test_a_missing_accelerator_is_named_not_the_peak_nobody_typed(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --accelerator (the one required choice) the refusal named --peak-tflops, an
    option the user never typed and rarely needs."""
    capsys.readouterr()
    assert run_command(["estimate", command[0], "--params", "7B", *command[1:]]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("desktopapp estimate: error: --accelerator: required"), err
    assert "h100-sxm" in err and "peak" in err  # what to give, and the way out of the catalog


SIZE_OPTIONS = {
    "--params": ["7B", "1e15", "1e-9"],
    "--layers": ["32", "1e9", "0"],
    "--hidden": ["4096", "1e9"],
    "--heads": ["32", "7"],
    "--prompt-tokens": ["512", "1e9"],
    "--head-dim": ["128", "1e18"],
    "--batch-size": ["1", "1e9", "2.5"],
}


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(picks=st.dictionaries(st.sampled_from(sorted(SIZE_OPTIONS)), st.integers(0, 2), min_size=1))
def test_a_refusal_names_an_option_that_was_given(
    picks: dict[str, int], capsys: pytest.CaptureFixture[str]
) -> None:  # fmt: skip
    options: list[str] = []
    for name, index in picks.items():
        values = SIZE_OPTIONS[name]
        options += [name, values[index % len(values)]]
    if "--params" not in picks:
        options += ["--params", "7B"]
    if {"--layers", "--hidden", "--heads"} & set(picks):
        for name, value in (("--layers", "32"), ("--hidden", "4096"), ("--heads", "32")):
            if name not in picks:
                options += [name, value]
    given_names = set(options[::2]) | {"--accelerator"}
    capsys.readouterr()
    try:
        status = run_command(["estimate", "inference", "--accelerator", "h100-sxm", *options])
    except SystemExit as exc:  # argparse: a value it cannot read, named by its option
        status = int(exc.code or 0)
    err = capsys.readouterr().err
    if status == 0:
        return
    assert status == 2, err
    last = err.strip().splitlines()[-1]
    named = last.split("error: ", 1)[1].split(":", 1)[0].split()[-1]
    assert named in given_names, err


# --- the layers -------------------------------------------------------------------------------

ORCHESTRATION = {
    "estimate_run",
    "estimate_training",
    "with_run",
    "run_inputs_from_training",
    "estimate_serving",
    "from_inference",
    "model_run",
    "headline_estimate",
    "plan_demand",
    "demand_verdict",
    "estimate_memory",
    "estimate_inference",
}


def test_model_orchestration_stays_out_of_commands_and_ui() -> None:
    """commands/ and ui/ render the application's snapshot; they call no model
    orchestration themselves (issue 21)."""
    found = []
    for folder in ("commands", "ui"):
        for path in sorted((REPO / "desktopapp" / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                name = None
                if isinstance(node, ast.ImportFrom):
                    names = {a.name for a in node.names} & ORCHESTRATION
                    if names:
                        found.append(f"{path.relative_to(REPO)}: imports {sorted(names)}")
                elif isinstance(node, ast.Attribute) and node.attr in ORCHESTRATION:
                    name = node.attr
                if name:
                    found.append(f"{path.relative_to(REPO)}:{node.lineno}: {name}")
    assert found == []


def test_request_from_preset_matches_the_preset_scenario() -> None:
    for preset in TRAINING_PRESETS:
        a = snapshot_json(compute_snapshot(request_from_preset(preset)))
        b = snapshot_json(compute_snapshot(request_from_scenario(scenario_from_preset(preset))))
        assert a["training"] == b["training"], preset
        assert a["verdict"] == b["verdict"], preset


def test_an_invalid_input_makes_the_snapshot_not_current() -> None:
    training = TrainingInputs(params=7e9, tokens=1e12, gpus=8, accelerator="h100-sxm", tp=3)
    snap = compute_snapshot(WorkloadRequest(training=training))
    assert not snap.current and snap.training is None  # never the flat model instead
    assert [e.field for e in snap.errors] == ["tp"]


def test_the_recommendation_of_a_verdict_is_the_verdicts_choice() -> None:
    """One rule: a hybrid panel built with ``recommendation_of`` says what the verdict says."""
    from desktopapp.model.planning import recommendation_of

    for path in EXAMPLES:
        snap = compute_snapshot(request_from_scenario(load_scenario(path).scenario))
        assert snap.cost is not None and snap.verdict is not None and snap.cost.hybrid is not None
        advice = recommendation_of(snap.verdict, snap.cost.hybrid, 8)
        assert advice is not None
        assert advice.choice == snap.verdict.choice
        assert advice.owned_gpus == snap.verdict.best.owned_gpus
        assert advice.cost_usd == snap.verdict.best.cost_usd


def test_a_bad_latency_target_in_a_file_names_the_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = json.loads((REPO / "resources/examples/h100-8x-rented.json").read_text("utf-8"))
    doc["inference"] = {"params": 7e9, "accelerator": "h100-sxm", "ttft_target_s": 1e-12}
    path = tmp_path / "serve.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    capsys.readouterr()
    assert run_command(["estimate", "inference", "--scenario", str(path)]) == 2
    err = capsys.readouterr().err
    assert "serve.json" in err and "inference.ttft_target_s" in err


# --- the tornado and the utilization curve start from the headline ---------------------------


@pytest.mark.parametrize("preset", ["foundation-175b", "llm-7b", "bert-base"])
def test_the_tornado_base_is_the_snapshots_headline(preset: str) -> None:
    """Compare's and the PDF's sensitivity once ran the flat 40% model (9.00 days for the 175B
    preset beside the headline's 10.2): its base is now the snapshot's wall time and cost."""
    summary = summarize(scenario_from_preset(preset))
    fig = summary.snapshot.training
    result = summary.sensitivity()
    assert result is not None and fig is not None
    assert result.base_hours == pytest.approx(fig.wall_seconds / 3600.0, rel=1e-9)
    assert _rel(result.base_cost, fig.cost_usd)
    bars = {bar.name: bar for bar in result.bars}
    # every input moved through the headline's own model: more GPUs never take longer here,
    # and the MFU bar scales the headline's time by 1 / (1 ± 25%)
    assert bars["gpus"].high_hours < result.base_hours < bars["gpus"].low_hours
    util = bars["utilization"]
    assert util.base_value == pytest.approx(fig.mfu)
    assert util.low_hours == pytest.approx(result.base_hours / 0.75)
    assert util.high_hours == pytest.approx(result.base_hours * util.base_value / util.high_value)
    # the cost-vs-utilization curve passes through the headline at its MFU
    curve = summary.curves().utilization
    assert curve is not None and curve.cost_usd is not None and fig.cost_usd is not None
    at = float(np.interp(fig.mfu, curve.values, curve.cost_usd * curve.values)) / fig.mfu
    assert at == pytest.approx(fig.cost_usd, rel=1e-9)


def test_the_workload_tabs_utilization_curve_passes_through_the_headline() -> None:
    from desktopapp.application.workload import training_curves

    snap = compute_snapshot(request_from_preset("foundation-175b"))
    fig = snap.training
    assert fig is not None and fig.modelled.sets_headline
    curves = training_curves(fig.estimate, fig.inputs)
    assert curves.cost_by_utilization is not None and fig.cost_usd is not None
    pct = curves.current_utilization_pct
    # cost × utilization is constant along the curve (time ∝ 1 / MFU)
    assert np.allclose(curves.cost_by_utilization * curves.utilization_pct, fig.cost_usd * pct)


@pytest.mark.parametrize("preset", TRAINING_PRESETS)
def test_compare_s_scaling_curve_is_the_workload_tab_s(preset: str) -> None:
    # Both search plans only at the plotted GPU counts (2^k): Compare's overlaid
    # curve and the Workload tab's scaling plot must be the same points.
    from desktopapp.application.compare import _modelled_sweep
    from desktopapp.application.training_view import ModelledView, modelled_view

    snap = compute_snapshot(request_from_scenario(scenario_from_preset(preset)))
    compared = _modelled_sweep(snap)
    if compared is None:  # not modelled, or the user's utilization sets the headline
        return
    assert snap.training is not None and snap.training.modelled is not None
    view = modelled_view(snap.training.modelled)
    assert isinstance(view, ModelledView)
    shown = np.isfinite(view.scaling.hours)
    assert np.array_equal(compared.values, view.scaling.gpus[shown])
    assert np.allclose(compared.training_hours, view.scaling.hours[shown], rtol=1e-12)
    if view.scaling.cost is not None:
        assert compared.cost_usd is not None
        assert np.allclose(compared.cost_usd, view.scaling.cost[shown], rtol=1e-12)


def _h100_option(capsys: pytest.CaptureFixture[str], args: list[str], note: str) -> dict:
    """`plan train ARGS` ranked on H100 only: its 64-GPU option, after checking that a note
    of the ranking says ``note`` (the input every option assumes)."""
    ranked = _cli_json(capsys, ["plan", "train", *args, "--include", "h100-sxm", "--json"])
    assert any(note in line for line in ranked["notes"]), ranked["notes"]
    return next(o for o in ranked["options"] if o["gpus"] == 64)


def test_the_software_stack_is_one_input_on_every_face(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The stack was a CLI-only option: a scenario could not keep it and the Workload tab
    could not set it. Saved in a scenario it now gives what `--software-stack` gives, in
    `estimate train`, `report` and `plan train` (what to run on)."""
    workload = ["--params", "7B", "--tokens", "1T", "--accelerator", "h100-sxm", "--gpus", "64"]
    flags = _cli_json(
        capsys, ["estimate", "train", *workload, "--software-stack", "megatron", "--json"]
    )
    typical = _cli_json(capsys, ["estimate", "train", *workload, "--json"])
    assert flags["training"]["gpu_hours"] != pytest.approx(typical["training"]["gpu_hours"])
    path = _scenario_with(
        tmp_path, params=7e9, tokens=1e12, accelerator="h100-sxm", gpus=64,
        software_stack="megatron", tp=None, pp=None, micro_batch=None, production_factor=None,
        global_batch_tokens=None,
    )  # fmt: skip
    saved = Scenario.load(path).training
    assert saved is not None and saved.software_stack == "megatron"
    by_file = _cli_json(capsys, ["estimate", "train", "--scenario", str(path), "--json"])
    report = _cli_json(capsys, ["report", str(path), "--json"])
    for doc in (by_file, report):
        assert _rel(doc["training"]["gpu_hours"], flags["training"]["gpu_hours"])
    # the option given on the line still wins over the file
    over = _cli_json(
        capsys,
        ["estimate", "train", "--scenario", str(path), "--software-stack", "typical", "--json"],
    )
    assert _rel(over["training"]["gpu_hours"], typical["training"]["gpu_hours"])
    # what to run on: an H100 × 64 option is the same run
    option = _h100_option(
        capsys,
        ["--params", "7B", "--tokens", "1T", "--software-stack", "megatron"],
        "every option modelled on the megatron software stack",
    )
    assert option["gpu_hours"] == pytest.approx(flags["training"]["gpu_hours"], rel=1e-9)


def test_power_cap_and_experts_per_token_are_one_input_on_every_face(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--power-cap-w` and `--moe-top-k` were CLI-only run options: a scenario could not keep
    them and the Workload tab could not set them, so a capped fleet or a top-8 mixture of
    experts got other numbers in the GUI, the saved file and the report. Saved in a scenario
    they now give what the options give, in `estimate train`, `report` and `plan train`."""
    workload = ["--params", "47B", "--active-params", "13B", "--tokens", "1T",
                "--accelerator", "h100-sxm", "--gpus", "64"]  # fmt: skip
    flags = _cli_json(
        capsys,
        ["estimate", "train", *workload, "--power-cap-w", "450", "--moe-top-k", "8", "--json"],
    )
    plain = _cli_json(capsys, ["estimate", "train", *workload, "--json"])
    capped_only = _cli_json(
        capsys, ["estimate", "train", *workload, "--power-cap-w", "450", "--json"]
    )
    # each term moves the answer (a cap below the 700 W TDP slows the matmuls; top-8 routing
    # sends four times the all-to-all traffic of top-2)
    assert capped_only["training"]["gpu_hours"] > plain["training"]["gpu_hours"] * 1.05
    assert flags["training"]["gpu_hours"] > capped_only["training"]["gpu_hours"] * 1.02
    path = _scenario_with(
        tmp_path, params=47e9, active_params=13e9, tokens=1e12, accelerator="h100-sxm",
        gpus=64, power_cap_w=450.0, moe_top_k=8, tp=None, pp=None, micro_batch=None,
        production_factor=None, global_batch_tokens=None,
    )  # fmt: skip
    doc = json.loads(path.read_text("utf-8"))
    doc["memory"] = None  # the example's memory section has a 7B model's shape
    path.write_text(json.dumps(doc), encoding="utf-8")
    saved = Scenario.load(path).training
    assert saved is not None and (saved.power_cap_w, saved.moe_top_k) == (450.0, 8)
    by_file = _cli_json(capsys, ["estimate", "train", "--scenario", str(path), "--json"])
    report = _cli_json(capsys, ["report", str(path), "--json"])
    for doc in (by_file, report):
        assert _rel(doc["training"]["gpu_hours"], flags["training"]["gpu_hours"])
    assumptions = {a["name"]: a for a in by_file["assumptions"]}
    assert "450 W" in assumptions["power cap"]["value"]
    assert "top-8" in assumptions["mixture of experts"]["value"]
    # options given on the line still win over the file
    over = _cli_json(
        capsys,
        ["estimate", "train", "--scenario", str(path), "--power-cap-w", "700",
         "--moe-top-k", "2", "--json"],
    )  # fmt: skip
    assert _rel(over["training"]["gpu_hours"], plain["training"]["gpu_hours"])
    # what to run on: an H100 × 64 option is the same run, and the ranking says the cap
    option = _h100_option(
        capsys,
        ["--params", "47B", "--active-params", "13B", "--tokens", "1T", "--power-cap-w", "450",
         "--moe-top-k", "8"],
        "capped at 450 W",
    )  # fmt: skip
    assert option["gpu_hours"] == pytest.approx(flags["training"]["gpu_hours"], rel=1e-9)


def test_moe_routing_and_kv_format_are_one_serving_input_on_every_face(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--experts`, `--moe-top-k` and `--kv-precision` were CLI-only serving options: a
    scenario could not keep them and the Workload tab could not set them. Saved with the
    scenario's inference inputs they now give what the options give, in `estimate inference`,
    `report` and `plan serve` (what to run on)."""
    model = ["--params", "46.7B", "--active-params", "12.9B", "--accelerator", "h100-sxm",
             "--gpus", "2"]  # fmt: skip
    routing = ["--experts", "16", "--moe-top-k", "4", "--kv-precision", "fp8"]
    flags = _cli_json(capsys, ["estimate", "inference", *model, *routing, "--json"])
    plain = _cli_json(capsys, ["estimate", "inference", *model, "--json"])
    assert flags["tokens_per_second"] != pytest.approx(plain["tokens_per_second"], rel=0.01)
    inference = InferenceInputs(
        params=46.7e9, active_params=12.9e9, accelerator="h100-sxm", gpus=2, experts=16,
        moe_top_k=4, kv_precision="fp8",
    )  # fmt: skip
    path = tmp_path / "moe.json"
    path.write_text(Scenario(name="moe", inference=inference).to_json(), encoding="utf-8")
    saved = Scenario.load(path).inference
    assert saved is not None
    assert (saved.experts, saved.moe_top_k, saved.kv_precision) == (16, 4, "fp8")
    by_file = _cli_json(capsys, ["estimate", "inference", "--scenario", str(path), "--json"])
    report = _cli_json(capsys, ["report", str(path), "--json"])["serving"]
    for doc in (by_file, report):
        assert _rel(doc["tokens_per_second"], flags["tokens_per_second"])
        assert doc["concurrency"] == flags["concurrency"]
    # options given on the line still win over the file
    over = _cli_json(
        capsys,
        ["estimate", "inference", "--scenario", str(path), "--experts", "8", "--moe-top-k",
         "2", "--kv-precision", "bf16", "--json"],
    )  # fmt: skip
    assert _rel(over["tokens_per_second"], plain["tokens_per_second"])
    # what to run on: the 2-GPU H100 bf16 replica is the same engine
    ranked = _cli_json(
        capsys,
        ["plan", "serve", "--params", "46.7B", "--active-params", "12.9B", *routing,
         "--requests-per-s", "5", "--include", "h100-sxm", "--json"],
    )  # fmt: skip
    assert "every option keeps its KV cache in fp8" in ranked["notes"]
    option = next(
        o for o in ranked["options"] if o["gpus_per_replica"] == 2 and o["precision"] == "bf16"
    )
    assert option["tokens_per_second_per_replica"] == pytest.approx(
        flags["tokens_per_second"], rel=1e-9
    )
    # the GUI's dialog builds its serving workload from the tab's inference inputs
    from desktopapp.application.advisor import serve_workload_of

    served = serve_workload_of(saved, requests_per_s=5.0)
    assert (served.experts, served.moe_top_k, served.kv_precision) == (16, 4, "fp8")


def test_a_saved_serving_utilization_means_what_the_option_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--utilization 0.3 --bandwidth-efficiency 0.6` set the serving model's compute and
    bandwidth shares, but the same values saved in a scenario reached only the roofline: the
    file and the options served at different rates."""
    model = ["--params", "7B", "--accelerator", "h100-sxm", "--layers", "32", "--hidden",
             "4096", "--heads", "32"]  # fmt: skip
    shares = ["--utilization", "0.3", "--bandwidth-efficiency", "0.6"]
    flags = _cli_json(capsys, ["estimate", "inference", *model, *shares, "--json"])
    plain = _cli_json(capsys, ["estimate", "inference", *model, "--json"])
    assert flags["tokens_per_second"] < plain["tokens_per_second"] * 0.95
    inference = InferenceInputs(
        params=7e9, accelerator="h100-sxm", layers=32, hidden=4096, heads=32, utilization=0.3,
        bandwidth_efficiency=0.6,
    )  # fmt: skip
    path = tmp_path / "shares.json"
    path.write_text(Scenario(name="shares", inference=inference).to_json(), encoding="utf-8")
    by_file = _cli_json(capsys, ["estimate", "inference", "--scenario", str(path), "--json"])
    report = _cli_json(capsys, ["report", str(path), "--json"])["serving"]
    for doc in (by_file, report):
        assert _rel(doc["tokens_per_second"], flags["tokens_per_second"])


def test_the_report_rents_and_owns_as_the_cost_tab_shows() -> None:
    """The report (terminal, Compare, PDF) priced owning at the file's busy cap and renting at
    the file's one cloud price, and named the file's 16 owned GPUs, while the Cost tab and the
    verdict beside them planned a fleet sized to the demand (32 GPUs, 63% busy) against the
    cheapest compared price: two answers in one report."""
    from desktopapp.application.cost import break_even_card, cloud_card, owning_card

    scenario = load_scenario(REPO / "resources/examples/a100-16x-owned.json").scenario
    summary = summarize(scenario)
    comparison = summary.snapshot.cost
    assert comparison is not None and comparison.fleet is not None
    cheapest = comparison.cheapest
    assert cheapest is not None
    cards = owning_card(comparison), cloud_card(cheapest), break_even_card(comparison)
    rows = {r.label: r for r in summary.rows if r.section in ("Results", "Rent or buy")}
    assert rows["Owning per useful GPU-hour"].text == f"{cards[0].value}/GPU-h"
    assert rows["Renting per useful GPU-hour"].text == f"{cards[1].value}/GPU-h"
    assert rows["Break-even utilization"].text == cards[2].value
    fleet = comparison.fleet
    assert rows["Owned fleet"].text.startswith(f"{fleet.gpus} GPUs")
    verdict = summary.snapshot.verdict
    assert verdict is not None
    from desktopapp.application.verdict import verdict_text

    if "owning" in verdict_text(verdict):
        assert f"owning {fleet.gpus} GPUs" in verdict_text(verdict)
    # and its assumptions are the Cost tab's: 4 servers busy 63%, not the file's 2 servers
    from desktopapp.application.cost import fleet_assumptions

    groups = dict(summary.assumptions)
    assert groups["Rent or buy"] == fleet_assumptions(comparison)
    capex = next(a for a in groups["Rent or buy"] if a.name == "capex")
    assert f"{fleet.servers} servers" in capex.value


def test_what_to_run_on_ranks_with_the_workloads_goodput(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A goodput overhead in the workload (the Workload tab's field, a scenario's, or
    `--goodput-overhead`) reached the estimate but not the ranking: its H100 × 64 option had
    other GPU-hours than the headline for the same run."""
    from desktopapp.application.advisor import TrainWorkload

    path = _scenario_with(
        tmp_path, params=7e9, tokens=1e12, accelerator="h100-sxm", gpus=64,
        goodput_overhead=0.25, tp=None, pp=None, micro_batch=None, production_factor=None,
        global_batch_tokens=None,
    )  # fmt: skip
    by_file = _cli_json(capsys, ["estimate", "train", "--scenario", str(path), "--json"])
    assert by_file["goodput"] == pytest.approx(0.8)
    option = _h100_option(
        capsys,
        ["--params", "7B", "--tokens", "1T", "--goodput-overhead", "0.25"],
        "every option at goodput 80% (given)",
    )
    assert option["gpu_hours"] == pytest.approx(by_file["training"]["gpu_hours"], rel=1e-9)
    # the GUI's dialog builds its workload from the tab's training inputs
    saved = Scenario.load(path).training
    assert saved is not None
    assert TrainWorkload.from_training(saved, {}).goodput_overhead == 0.25


def test_compare_and_the_report_name_the_runs_own_inputs(tmp_path: Path) -> None:
    """Two scenarios that differ only in a power cap, the MoE routing or the software stack
    showed different results in Compare and the report with no row saying why."""
    plain = _scenario_with(tmp_path, params=47e9, tokens=1e12, accelerator="h100-sxm", gpus=64)
    rows = {r.label: r for r in summarize(Scenario.load(plain)).rows}
    for label in ("Power cap", "Software stack", "Active parameters (MoE)"):
        assert label not in rows
    path = _scenario_with(
        tmp_path, params=47e9, active_params=13e9, moe_top_k=8, tokens=1e12,
        accelerator="h100-sxm", gpus=64, power_cap_w=500.0, software_stack="megatron",
    )  # fmt: skip
    rows = {r.label: r for r in summarize(Scenario.load(path)).rows}
    assert rows["Power cap"].text == "500 W per GPU" and rows["Power cap"].value == 500.0
    assert rows["Software stack"].text == "Megatron-LM / NeMo"
    assert rows["Active parameters (MoE)"].text == "13B, top-8"
    default_k = _scenario_with(
        tmp_path, params=47e9, active_params=13e9, tokens=1e12, accelerator="h100-sxm", gpus=64
    )
    rows = {r.label: r for r in summarize(Scenario.load(default_k)).rows}
    assert rows["Active parameters (MoE)"].text == "13B, top-2 (default)"


def test_estimate_memory_of_a_scenario_names_the_plans_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`estimate memory --scenario` answers for the file's memory inputs (here ZeRO-3 with
    checkpointing: about 11 GiB per device) while `estimate train`, `report` and the Workload
    tab show the training plan's memory (ZeRO-1: about 57 GiB): it now says so, with the
    plan's figure, instead of leaving two answers to one question."""
    owned = str(REPO / "resources/examples/a100-16x-owned.json")
    train = _cli_json(capsys, ["estimate", "train", "--scenario", owned, "--json"])
    plan_bytes = train["memory"]["per_device_bytes"]
    memory = _cli_json(capsys, ["estimate", "memory", "--scenario", owned, "--json"])
    assert memory["per_device_bytes"] < plan_bytes * 0.5
    assert units.format_bytes(plan_bytes) in memory["note"]
    assert "ZeRO-3" in memory["note"] and "ZeRO-1" in memory["note"]
    capsys.readouterr()
    assert run_command(["estimate", "memory", "--scenario", owned]) == 0
    assert f"needs {units.format_bytes(plan_bytes)} per device" in capsys.readouterr().out
    # without a scenario there is no plan to point at
    given = ["estimate", "memory", "--params", "7B", "--layers", "32", "--hidden", "4096",
             "--heads", "32", "--seq-len", "4096", "--json"]  # fmt: skip
    assert "note" not in _cli_json(capsys, given)
