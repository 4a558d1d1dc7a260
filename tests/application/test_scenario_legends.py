"""Compare and report legends tell scenarios apart (issue 16: three copies read "a, a, a")."""

from __future__ import annotations

from desktopapp.application.compare import legend_labels, summarize
from desktopapp.model.scenario import Scenario
from desktopapp.model.training import TrainingInputs

TRAINING = TrainingInputs(params=7e9, tokens=1e11, accelerator="h100-sxm", gpus=8, price=2.0)


def _summary(name: str, label: str, file_name: str = "", params: float = 7e9):
    training = TrainingInputs(params=params, tokens=1e11, accelerator="h100-sxm", gpus=8, price=2.0)
    return summarize(Scenario(name=name, training=training), label, file_name)


def test_distinct_names_are_the_legend() -> None:
    summaries = [_summary("rented", "rented (r.json)", "r.json"), _summary("owned", "owned")]
    assert legend_labels(summaries) == ["rented", "owned"]


def test_repeated_names_fall_back_to_the_file_names() -> None:
    summaries = [_summary("a", f"a ({n}.json)", f"{n}.json") for n in ("a", "b", "c")]
    assert legend_labels(summaries) == ["a.json", "b.json", "c.json"]


def test_a_name_repeated_without_files_uses_the_labels_then_numbers() -> None:
    assert legend_labels([_summary("a", "a"), _summary("a", "a (b.json)")]) == [
        "a",
        "a (b.json)",
    ]
    assert legend_labels([_summary("a", "a.json", "a.json"), _summary("a", "a.json")]) == [
        "a.json (1)",
        "a.json (2)",
    ]


def test_the_summary_carries_plausibility_warnings() -> None:
    absurd = _summary("huge", "huge", params=2e14)
    assert len(absurd.warnings) == 1 and "beyond any real system" in absurd.warnings[0]
    assert _summary("fine", "fine").warnings == ()


def test_a_problem_speaks_the_field_label(monkeypatch) -> None:
    from desktopapp.model import training as training_model
    from desktopapp.model.validation import InputError

    def refuse(_inputs: object) -> None:
        raise InputError("gpu_hours_per_month", "must be 0 or more")

    from desktopapp.application import snapshot

    monkeypatch.setattr(training_model, "estimate_training", refuse)
    monkeypatch.setattr(snapshot, "estimate_training", refuse)  # Compare renders the snapshot
    broken = summarize(Scenario(name="x", training=TRAINING))
    assert broken.problems == ("Training: GPU-hours per month: must be 0 or more",)
