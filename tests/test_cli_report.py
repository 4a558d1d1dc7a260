"""``desktopapp report``: a file it cannot write is refused before any work, naming why; a
scenario is taken as SCENARIO or ``--scenario FILE`` (as the estimate commands take it)."""

from __future__ import annotations

import json

import pytest

from desktopapp.cli import run_command


@pytest.mark.parametrize("option", ["--html", "--pdf"])
def test_a_missing_folder_is_named(tmp_path, capsys, option):
    target = tmp_path / "no-such-folder" / "report.out"
    assert run_command(["report", "--preset", "llm-7b", option, str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{option}: the folder {target.parent} does not exist" in err
    assert not target.parent.exists()  # nothing made on the way


def test_a_folder_given_as_the_file_is_named(tmp_path, capsys):
    assert run_command(["report", "--preset", "llm-7b", "--html", str(tmp_path)]) == 2
    assert f"--html: {tmp_path} is a folder; give a file name in it" in capsys.readouterr().err


def test_a_file_given_as_the_folder_is_named(tmp_path, capsys):
    plain = tmp_path / "notes.txt"
    plain.write_text("mine", encoding="utf-8")
    assert run_command(["report", "--preset", "llm-7b", "--html", str(plain / "r.html")]) == 2
    assert f"{plain} is a file, not a folder" in capsys.readouterr().err
    assert plain.read_text(encoding="utf-8") == "mine"  # a file the app does not own: untouched


def _scenario(tmp_path):
    path = tmp_path / "plan.json"
    document = {"format": "desktopapp-scenario", "version": 1, "name": "plan"}
    document["training"] = {"params": 7e9, "tokens": 1e12, "accelerator": "h100-sxm"}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_the_scenario_option_reads_as_the_positional_file(tmp_path, capsys):
    path = _scenario(tmp_path)
    assert run_command(["report", str(path), "--json"]) == 0
    positional = json.loads(capsys.readouterr().out)
    assert run_command(["report", "--scenario", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == positional


def test_two_different_scenarios_are_refused(tmp_path, capsys):
    path = _scenario(tmp_path)
    other = tmp_path / "other.json"
    assert run_command(["report", str(path), "--scenario", str(other)]) == 2
    assert "give one scenario file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("training", "expected"),
    [
        ({}, None),  # the fitted default: the chain says it, no extra line
        ({"production_factor": 1.5}, "Production factor: ×1.5 (given)"),
        (
            {
                "production_factor": 1.5,
                "production_factor_source": "×1.5 from your 4 runs in r.csv",
            },
            "Production factor: ×1.5 from your 4 runs in r.csv",
        ),
        ({"production_factor": 1.5, "utilization": 0.4}, None),  # set aside: a note says so
    ],
)
def test_the_text_report_says_where_a_given_factor_came_from(
    training, expected, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "200")
    path = tmp_path / "plan.json"
    document = {"format": "desktopapp-scenario", "version": 2, "name": "plan"}
    document["training"] = {"params": 7e9, "tokens": 1e12, "accelerator": "h100-sxm", "gpus": 8}
    document["training"].update(training)
    path.write_text(json.dumps(document), encoding="utf-8")
    assert run_command(["report", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    said = [line for line in lines if line.startswith("Production factor:")]
    assert said == ([expected] if expected else [])


def test_the_text_report_says_how_busy_and_which_price(capsys, monkeypatch):
    """Owning and renting per useful GPU-hour mean little without how busy the owned fleet
    is and which price renting is: the terminal report says both, as the Cost tab's cards."""
    from pathlib import Path

    monkeypatch.setenv("COLUMNS", "200")
    owned = Path(__file__).resolve().parents[1] / "resources/examples/a100-16x-owned.json"
    assert run_command(["report", str(owned)]) == 0
    lines = {
        line.split("  ")[0]: line for line in capsys.readouterr().out.splitlines() if "  " in line
    }
    assert "% busy; " in lines["Owning per useful GPU-hour"]
    assert "GPUs sized to the demand" in lines["Owning per useful GPU-hour"]
    assert "(cheapest compared: " in lines["Renting per useful GPU-hour"]
    assert "across " in lines["Break-even utilization"]
