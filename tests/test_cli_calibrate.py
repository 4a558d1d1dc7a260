"""``desktopapp calibrate FILE``: the production allowance fitted to your own runs, as text
that fits the terminal, as JSON, and refusals that name the file, line and column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktopapp import cli
from desktopapp.application.own_runs import own_runs_view
from desktopapp.model.own_runs import EXAMPLE_CSV

RUNS = (
    "name,params,tokens,accelerator,gpus,gpu_hours,days\n"
    "Falcon-40B,40B,1T,a100-sxm-40gb,384,552960,\n"
    "Falcon-7B,7B,1.5T,a100-sxm-40gb,384,,14\n"
    "Falcon 180B,180B,3.5T,a100-sxm-40gb,4096,7M,\n"
)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def runs_file(tmp_path: Path) -> Path:
    path = tmp_path / "our runs.csv"
    path.write_text(RUNS, encoding="utf-8")
    return path


@pytest.mark.parametrize("width", (80, 120))
def test_text_fits_and_gives_the_option_to_use(width, runs_file, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    status, out, err = _run(capsys, "calibrate", str(runs_file))
    assert status == 0 and err == ""
    assert [line for line in out.splitlines() if len(line) > width] == []
    view = own_runs_view(runs_file)
    assert view.headline.split(":")[0] in " ".join(out.split())
    assert f"--production-factor {view.applied:g}" in out
    for name in ("Falcon-40B", "Falcon-7B", "Falcon 180B"):
        assert name in out


def test_json_carries_every_run_and_the_factor_an_estimate_takes(runs_file, capsys):
    before = runs_file.read_bytes()
    status, out, _ = _run(capsys, "calibrate", str(runs_file), "--json")
    assert runs_file.read_bytes() == before and sorted(
        p.name for p in runs_file.parent.iterdir()
    ) == [runs_file.name]  # read only: nothing written beside it
    doc = json.loads(out)
    assert status == 0
    assert [r["name"] for r in doc["runs"]] == ["Falcon-40B", "Falcon-7B", "Falcon 180B"]
    assert doc["runs"][1]["gpu_hours"] == 14 * 24 * 384
    assert doc["production_factor"] == float(f"{doc['allowance']:.3g}")
    assert doc["median_error_from_others"] > 1.0
    assert doc["shipped"]["own_organisation"]["runs"] > 0
    # the factor is the one `estimate train` then applies and names as given
    status, out, _ = _run(
        capsys, "estimate", "train", "--params", "7B", "--tokens", "1T", "--accelerator",
        "a100-sxm-40gb", "--gpus", "256", "--production-factor", str(doc["production_factor"]),
        "--json",
    )  # fmt: skip
    assert status == 0
    assert json.loads(out)["production_factor"] == pytest.approx(doc["production_factor"])


def test_the_stack_option_is_the_estimates(runs_file, capsys):
    _, out, _ = _run(capsys, "calibrate", str(runs_file), "--software-stack", "megatron")
    assert "--software-stack megatron" in out and "megatron stack" in out


def test_the_help_shows_an_example_file_that_reads(capsys, tmp_path):
    with pytest.raises(SystemExit):
        cli.main(["calibrate", "--help"])
    out = capsys.readouterr().out
    for line in EXAMPLE_CSV.splitlines():
        assert f"  {line}\n" in out
    example = tmp_path / "example.csv"
    example.write_text(EXAMPLE_CSV, encoding="utf-8")
    assert _run(capsys, "calibrate", str(example))[0] == 0


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "does not exist"),
        ("folder", "is a folder"),
        (b"\xff\xfe\x00bad", "is not UTF-8 text"),
        ("params,tokens\n7B,1T\n", "line 1: no accelerator column"),
        ("name,params,tokens,accelerator,gpus,gpu_hours\na,7B,1T,h100,64,10k\n", "118% of"),
    ],
)
def test_a_bad_file_is_one_line_naming_it(content, expected, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    path = tmp_path / "runs.csv"
    if content == "folder":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    before = path.read_bytes() if path.is_file() else None
    status, out, err = _run(capsys, "calibrate", str(path))
    assert status == 2 and out == ""
    assert (path.read_bytes() if path.is_file() else None) == before  # left as it was
    assert err.startswith("desktopapp calibrate: error: Past runs: ")
    assert expected in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_a_huge_file_is_refused_before_reading(tmp_path, capsys, monkeypatch):
    from desktopapp.application import own_runs

    monkeypatch.setattr(own_runs, "MAX_FILE_BYTES", 100)
    path = tmp_path / "runs.csv"
    path.write_text(RUNS, encoding="utf-8")
    status, _, err = _run(capsys, "calibrate", str(path))
    assert status == 2 and "a file of past runs is a few kB" in err


def test_the_range_it_announces_is_the_one_the_estimate_gives(runs_file, capsys):
    """One answer: the likely range calibrate promises for an estimate with its factor is the
    range `estimate train` then prints for a run inside the fitted runs' envelope."""
    _, text, _ = _run(capsys, "calibrate", str(runs_file))
    _, out, _ = _run(capsys, "calibrate", str(runs_file), "--json")
    factor = json.loads(out)["production_factor"]
    status, out, _ = _run(
        capsys, "estimate", "train", "--params", "7B", "--tokens", "1T", "--accelerator",
        "a100-sxm-40gb", "--gpus", "256", "--production-factor", str(factor), "--json",
    )  # fmt: skip
    doc = json.loads(out)
    assert status == 0
    low = doc["gpu_hours_low"] / doc["gpu_hours"]
    high = doc["gpu_hours_high"] / doc["gpu_hours"]
    assert f"likely range of ×{low:.2f}-×{high:.2f} of its" in " ".join(text.split())


def test_a_file_saved_with_a_byte_order_mark_reads(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    path.write_bytes(b"\xef\xbb\xbf" + RUNS.encode("utf-8"))
    status, out, _ = _run(capsys, "calibrate", str(path), "--json")
    assert status == 0 and len(json.loads(out)["runs"]) == 3


TRAIN = ("--params", "7B", "--tokens", "1T", "--accelerator", "a100-sxm-40gb", "--gpus", "256")


@pytest.mark.parametrize("command", (("estimate", "train", *TRAIN), ("plan", "train", *TRAIN[:4])))
def test_past_runs_refusals_name_the_option_and_the_file(command, runs_file, capsys, tmp_path):
    both = (*command, "--past-runs", str(runs_file), "--production-factor", "1.5")
    status, out, err = _run(capsys, *both)
    assert status == 2 and out == ""
    assert "--past-runs: give --past-runs or --production-factor, not both" in err
    missing = tmp_path / "none.csv"
    status, _, err = _run(capsys, *command, "--past-runs", str(missing))
    assert status == 2 and f"--past-runs: {missing} does not exist" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("name,params\nx,7B\n", encoding="utf-8")
    status, _, err = _run(capsys, *command, "--past-runs", str(bad))
    assert status == 2 and "bad.csv" in err and "Traceback" not in err


def test_plan_train_uses_the_factor_of_the_past_runs_and_says_so(runs_file, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    factor = own_runs_view(runs_file).applied
    status, out, _ = _run(capsys, "plan", "train", *TRAIN[:4], "--past-runs", str(runs_file))
    assert status == 0
    assert f"production factor for every option: ×{factor:g} from your 3 runs in" in " ".join(
        out.split()
    )
    assert [line for line in out.splitlines() if len(line) > 80] == []
    _, by_file, _ = _run(
        capsys, "plan", "train", *TRAIN[:4], "--past-runs", str(runs_file), "--json"
    )
    _, by_number, _ = _run(
        capsys, "plan", "train", *TRAIN[:4], "--production-factor", str(factor), "--json"
    )
    first, second = json.loads(by_file), json.loads(by_number)
    assert first["workload"]["production_factor"] == factor
    assert [o["cost_usd"] for o in first["options"][:5]] == [
        o["cost_usd"] for o in second["options"][:5]
    ]


def test_a_long_file_name_still_gives_a_factor_an_estimate_takes(tmp_path, capsys):
    """The note kept with the factor names the file; a 200-character name is shortened in
    the middle so the note stays within what a scenario's training inputs take."""
    path = tmp_path / ("q3-" + "x" * 190 + "-runs.csv")
    path.write_text(RUNS, encoding="utf-8")
    note = own_runs_view(path).field_note
    assert "q3-xxx" in note and "x-runs.csv" in note and "…" in note
    status, out, err = _run(capsys, "estimate", "train", *TRAIN, "--past-runs", str(path), "--json")
    assert status == 0, err
    assert json.loads(out)["training"]["production_factor_source"] == note
