"""The production allowance fitted to a team's own finished runs (model.own_runs)."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktopapp.model.own_runs import (
    EXAMPLE_CSV,
    MAX_RUNS,
    PastRun,
    fit_own_allowance,
    parse_past_runs,
)
from desktopapp.model.perf_training import RunInputs, steady_gpu_hours
from desktopapp.model.validation import InputError

HEADER = "name,params,tokens,accelerator,gpus,gpu_hours"


def _runs(*rows: str) -> list[PastRun]:
    return parse_past_runs("\n".join([HEADER, *rows]), "runs.csv")


def test_each_runs_allowance_is_what_it_took_over_the_models_steady_state():
    runs = _runs("a,7B,1T,h100-sxm,256,60k", "b,13B,1T,a100-sxm-80gb,512,220k")
    fit = fit_own_allowance(runs)
    for run, row in zip(runs, fit.runs, strict=True):
        steady = steady_gpu_hours(run.inputs)
        assert row.steady_gpu_hours == pytest.approx(steady)
        assert row.allowance == pytest.approx(run.gpu_hours / steady)
    allowances = [r.allowance for r in fit.runs]
    assert fit.factor == pytest.approx(math.exp(statistics.mean(map(math.log, allowances))))
    assert (fit.low, fit.high) == (min(allowances), max(allowances))


def test_each_run_is_predicted_from_the_others():
    runs = _runs(
        "a,7B,1T,h100-sxm,256,60k", "b,7B,1T,h100-sxm,256,90k", "c,7B,2T,h100-sxm,256,150k"
    )
    fit = fit_own_allowance(runs)
    for i, row in enumerate(fit.runs):
        others = [r.allowance for j, r in enumerate(fit.runs) if j != i]
        expected = row.steady_gpu_hours * math.exp(statistics.mean(map(math.log, others)))
        assert row.predicted_by_others == pytest.approx(expected)
    errors = sorted(r.error for r in fit.runs)
    assert fit.median_error == pytest.approx(errors[1])
    assert fit.median_error > 1.0  # a and b took different hours for the same work


def test_a_single_run_has_no_check_and_identical_runs_predict_each_other_exactly():
    single = fit_own_allowance(_runs("a,7B,1T,h100-sxm,256,60k"))
    assert single.median_error is None and single.runs[0].predicted_by_others is None
    twins = fit_own_allowance(_runs("a,7B,1T,h100-sxm,256,60k", "b,7B,1T,h100-sxm,256,60k"))
    assert twins.median_error == pytest.approx(1.0)


def test_an_allowance_outside_what_an_estimate_takes_is_clamped_and_says_why():
    runs = _runs("a,7B,1T,h100-sxm,256,60k")
    steady = steady_gpu_hours(runs[0].inputs)
    fast = fit_own_allowance(_runs(f"a,7B,1T,h100-sxm,256,{steady * 0.8:.0f}"))
    assert fast.factor == pytest.approx(0.8, rel=1e-3) and fast.usable == 1.0
    assert "faster than the model expects" in fast.note
    slow = fit_own_allowance(_runs(f"a,7B,1T,h100-sxm,256,{steady * 4:.0f}"))
    assert slow.usable == 3.0 and "at most ×3" in slow.note
    assert fit_own_allowance(runs).note == ""


def test_the_stack_changes_the_steady_state():
    runs = _runs("a,7B,1T,h100-sxm,256,60k")
    typical = fit_own_allowance(runs)
    megatron = fit_own_allowance(runs, "megatron")
    assert megatron.software_stack == "megatron"
    assert megatron.factor != pytest.approx(typical.factor)


def test_a_row_may_name_its_own_stack_and_the_others_take_the_fits():
    """A team that trained some runs with Megatron and some with FSDP says so per row: each
    run's steady state is on its own stack, rows without one take the fit's stack."""
    text = (
        HEADER + ",software_stack\n"
        "a,7B,1T,h100-sxm,256,60k,megatron\n"
        "b,13B,1T,a100-sxm-80gb,512,220k,\n"
        "c,7B,1T,h100-sxm,256,60k,FSDP\n"
    )
    runs = parse_past_runs(text, "runs.csv")
    assert [r.stack_given for r in runs] == [True, False, True]
    fit = fit_own_allowance(runs, "typical")
    assert [r.software_stack for r in fit.runs] == ["megatron", "typical", "fsdp"]
    assert fit.stacks == ("fsdp", "megatron", "typical")
    assert fit.stack_words == "fsdp, megatron and typical stacks"
    for run, row in zip(runs, fit.runs, strict=True):
        on_its_stack = RunInputs(
            **{
                **run.inputs.__dict__,
                "software_stack": row.software_stack,
                "production_factor": 1.0,
            }
        )
        assert row.steady_gpu_hours == pytest.approx(steady_gpu_hours(on_its_stack))
    # the fit's stack applies only to the rows that named none
    on_megatron = fit_own_allowance(runs, "megatron")
    assert [r.software_stack for r in on_megatron.runs] == ["megatron", "megatron", "fsdp"]
    assert on_megatron.runs[0].steady_gpu_hours == pytest.approx(fit.runs[0].steady_gpu_hours)
    assert fit_own_allowance(runs[1:2]).stack_words == "typical stack"
    with pytest.raises(InputError) as info:
        parse_past_runs(HEADER + ",software_stack\na,7B,1T,h100-sxm,256,60k,deepspeed", "r.csv")
    assert "r.csv line 2, software_stack: must be one of" in str(info.value)
    assert "'deepspeed'" in str(info.value)
    (upper,) = parse_past_runs("params,tokens,accelerator,gpus,gpu_hours,precision\n"
                               "7B,1T,h100-sxm,256,60k,BF16", "r.csv")  # fmt: skip
    assert upper.inputs.precision == "bf16"


def test_csv_reading_takes_suffixes_days_any_column_order_and_the_shape():
    text = (
        "# our runs\n"
        "Days, GPUs, Accelerator, Tokens, Params, Layers, Hidden, Heads, Name\n"
        "\n"
        "21,128,A100 80GB,300B,13B,40,5120,40,chat\n"
    )
    (run,) = parse_past_runs(text, "runs.csv")
    assert run.name == "chat" and run.line == 4
    assert run.gpu_hours == 21 * 24 * 128
    assert run.inputs == RunInputs(
        params=13e9,
        tokens=3e11,
        accelerator="a100-sxm-80gb",
        gpus=128,
        layers=40,
        hidden=5120,
        heads=40,
    )
    example = parse_past_runs(EXAMPLE_CSV, "example.csv")
    assert [r.name for r in example] == ["base-7b", "chat-13b"]
    assert example[1].gpu_hours == 21 * 24 * 128


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "runs.csv is empty"),
        (HEADER, "a header but no runs"),
        ("params,tokens,accelerator,gpus\n7B,1T,h100,8", "no gpu_hours (or days) column"),
        ("params,tokens,gpus,gpu_hours\n7B,1T,8,1k", "no accelerator column"),
        ("params,tokens,accelerator,gpus,gpu_hour\n7B,1T,h100,8,1k", "unknown column 'gpu_hour'"),
        ("params,params,tokens,accelerator,gpus,gpu_hours\n", "column 'params' twice"),
        (HEADER + "\na,7B,1T,h1000,8,1k", "line 2, accelerator: unknown id 'h1000'"),
        (HEADER + "\na,7B,1T,h100,8.5,1k", "line 2, gpus: must be a whole number, got 8.5"),
        (HEADER + "\na,7B,1,000B,h100,8,1k", "line 2: 7 values for 6 columns"),
        (HEADER + "\na,7B,1T,h100,8,-5", "line 2, gpu_hours: must be above 0, got -5"),
        (HEADER + "\na,7B,,h100,8,5k", "line 2: tokens is empty; every run needs it"),
        (HEADER + "\na,7B,1T,h100,8,", "line 2: gpu_hours and days are empty"),
        (HEADER + "\na,7B,1T,h100,8,lots", "line 2, gpu_hours: 'lots' is not a number"),
        (HEADER + ",days\na,7B,1T,h100,8,1k,2", "gpu_hours 1,000 and days × 24 × gpus 384"),
        (HEADER + ",layers\na,7B,1T,h100,8,100k,32", "line 2, hidden: the model shape needs"),
        # 10k GPU-hours for 7B × 1T on H100 is 118% of peak: wall-clock hours, most likely
        (HEADER + "\na,7B,1T,h100,64,10k", "would run these GPUs at 118% of their peak"),
    ],
)
def test_bad_files_are_refused_naming_the_line_and_column(text, expected):
    with pytest.raises(InputError) as info:
        parse_past_runs(text, "runs.csv")
    assert info.value.field == "past_runs"
    assert expected in str(info.value) and str(info.value).startswith("past_runs: runs.csv")


def test_too_many_runs_are_refused():
    rows = "\n".join(["a,7B,1T,h100-sxm,256,60k"] * (MAX_RUNS + 1))
    with pytest.raises(InputError, match=f"at most {MAX_RUNS}"):
        parse_past_runs(f"{HEADER}\n{rows}", "runs.csv")


def test_no_runs_and_an_unknown_stack_are_refused():
    with pytest.raises(InputError, match="no runs to fit"):
        fit_own_allowance([])
    with pytest.raises(InputError) as info:
        fit_own_allowance(_runs("a,7B,1T,h100-sxm,256,60k"), "jax")
    assert info.value.field == "software_stack"


CELLS = st.sampled_from(
    ["7B", "1T", "h100", "h100-sxm", "256", "60k", "", "-1", "0", "nan", "1e400", "x", "2.5",
     '"1,000"', "１０", "1,5", "inf", " ", "#", "a100-sxm-80gb"]
)  # fmt: skip
COLUMNS = st.sampled_from(
    ["name", "params", "tokens", "accelerator", "gpus", "gpu_hours", "days", "layers",
     "hidden", "heads", "kv_heads", "seq_len", "vocab", "precision", "Params", "GPU hours", "x"]
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    header=st.lists(COLUMNS, min_size=1, max_size=8),
    rows=st.lists(st.lists(CELLS, min_size=0, max_size=9), min_size=0, max_size=4),
)
def test_any_file_gives_runs_or_a_message_naming_the_file(header, rows):
    """Whatever a spreadsheet exports, the result is runs the fit takes or one InputError
    about the file, never another exception."""
    text = "\n".join([",".join(header), *(",".join(r) for r in rows)])
    try:
        runs = parse_past_runs(text, "runs.csv")
    except InputError as exc:
        assert exc.field == "past_runs" and "runs.csv" in str(exc)
        return
    fit = fit_own_allowance(runs)
    assert math.isfinite(fit.factor) and fit.factor > 0
    assert 1.0 <= fit.usable <= 3.0


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_the_separator_a_spreadsheet_chose_is_read(delimiter):
    """Spreadsheets in many locales save CSV with semicolons; tab-separated text is what a
    copy from a sheet gives. Windows line ends too."""
    text = (
        delimiter.join(["name", "params", "tokens", "accelerator", "gpus", "gpu_hours"])
        + "\r\n"
        + delimiter.join(["base", "7B", "2T", "h100-sxm", "256", "60k"])
        + "\r\n"
    )
    (run,) = parse_past_runs(text, "runs.csv")
    assert (run.name, run.inputs.params, run.inputs.gpus, run.gpu_hours) == (
        "base",
        7e9,
        256,
        60e3,
    )


def test_a_decimal_comma_in_a_semicolon_file_is_refused_with_the_fix():
    text = "name;params;tokens;accelerator;gpus;gpu_hours\nbase;6,7B;2T;h100-sxm;256;60k\n"
    with pytest.raises(InputError, match="write decimals with a dot"):
        parse_past_runs(text, "runs.csv")


def test_a_run_no_plan_fits_is_refused_naming_the_file_line_and_run():
    runs = parse_past_runs(f"{HEADER}\nhuge,1T,1T,h100-sxm,8,100M\n", "runs.csv")
    with pytest.raises(InputError) as info:
        fit_own_allowance(runs)
    text = str(info.value)
    assert text.startswith("past_runs: runs.csv line 2 (huge): the model cannot plan it")
    assert "add GPUs" in text
