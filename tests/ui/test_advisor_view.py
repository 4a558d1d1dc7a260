"""The Workload tab's "What to run on" view (issue 24): opened from the tab, the search runs in a
worker, the table and the Pareto plot show every option, and an applied option puts its
accelerator, fleet and price into the Workload tab, whose headline then equals the option."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from desktopapp.model import advisor as adv
from desktopapp.ui.estimate import create_tab
from desktopapp.ui.estimate.advisor import AdvisorDialog
from desktopapp.ui.estimate.tab import EstimateTab
from desktopapp.ui.state import AppState


@pytest.fixture
def tab(qtbot: QtBot, app_state: AppState) -> EstimateTab:
    widget = create_tab(app_state)
    assert isinstance(widget, EstimateTab)
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    return widget


def _open(qtbot: QtBot, tab: EstimateTab) -> AdvisorDialog:
    tab.advisor_button.click()
    dialog = tab.advisor_dialog
    assert isinstance(dialog, AdvisorDialog) and dialog.isVisible()
    qtbot.addWidget(dialog)
    return dialog


def _search(qtbot: QtBot, dialog: AdvisorDialog) -> adv.Ranking:
    dialog.search()
    qtbot.waitUntil(
        lambda: dialog.ranking is not None and not dialog.is_searching(), timeout=120_000
    )
    assert dialog.ranking is not None
    return dialog.ranking


def test_ranking_plot_and_apply(qtbot: QtBot, tab: EstimateTab, app_state: AppState) -> None:
    dialog = _open(qtbot, tab)
    dialog.deadline.setValue(30)
    for kind in ("committed_1yr", "committed_3yr", "owned"):
        dialog.pricing_boxes[kind].setChecked(False)
    ranking = _search(qtbot, dialog)
    assert ranking.options and dialog.table.rowCount() == min(len(ranking.options), 200)
    assert dialog.table.item(0, 1).text() == ranking.options[0].accelerator
    assert dialog.recommendation.text() == ranking.recommendation
    assert len(dialog._scatter.points()) == len(ranking.options)  # one marker per option
    assert {o.pricing for o in ranking.options} <= {"on_demand", "spot"}

    # apply the third option: the Workload tab shows it, and its headline equals the option
    dialog.select(2)
    option = ranking.options[2]
    dialog.apply_button.click()
    qtbot.waitUntil(lambda: app_state.training.accelerator == option.accelerator, timeout=5000)
    qtbot.waitUntil(lambda: not tab._timer.isActive(), timeout=5000)
    assert tab.inputs.devices.value() == option.gpus
    assert tab.inputs.accelerator.accelerator_id() == option.accelerator
    estimate = app_state.estimate
    assert estimate is not None
    assert estimate.gpu_hours == pytest.approx(option.gpu_hours, rel=1e-9)
    assert estimate.estimated_cost_usd == pytest.approx(option.cost_usd, rel=1e-9)
    # the plot marks the current choice; the scenario keeps the constraints and the choice
    assert dialog._current_item is not None
    choice = app_state.plan.advisor_choice
    assert choice.deadline_days == 30 and choice.accelerator == option.accelerator
    assert choice.gpus == option.gpus and choice.chosen_pricing == option.pricing


def test_cancel_and_bad_budget(qtbot: QtBot, tab: EstimateTab) -> None:
    dialog = _open(qtbot, tab)
    dialog.budget.setText("-5")
    dialog.search()
    assert dialog.status.text().startswith("Budget:")
    assert not dialog.is_searching()
    # refused as `plan train --budget` refuses it: the same bound, words and examples
    for typed, words in (
        ("-5", "Budget: must be an amount in USD above 0, got -5"),
        ("1e40", "Budget: '1e40' is too large (at most 1e+18)"),
        ("lots", "Budget: 'lots' is not a number (examples: 2.49, $1.99, 300k)"),
    ):
        dialog.budget.setText(typed)
        dialog.search()
        assert dialog.status.text() == words, dialog.status.text()
    dialog.budget.setText("$1.5M")
    assert dialog.constraints().budget_usd == 1.5e6


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("-1", "Requests/s: must be a rate above 0 requests/s, got -1"),
        ("1e40", "Requests/s: '1e40' is too large (at most 1e+18)"),
        ("lots", "Requests/s: 'lots' is not a number (examples: 8, 0.5, 2k, 1.5e9)"),
    ],
)
def test_the_request_rate_is_refused_as_plan_serve_refuses_it(
    qtbot: QtBot, tab: EstimateTab, typed: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """1e40 requests/s was searched (34,686,382,044,680,264 replicas "meeting the
    constraints"); -1 read "got -1.0" and a word gave parameter-count examples."""
    from desktopapp.cli import run_command

    dialog = _open(qtbot, tab)
    dialog.mode.setCurrentIndex(dialog.mode.findData("serve"))
    dialog.rate.setText(typed)
    dialog.search()
    assert dialog.status.text() == words, dialog.status.text()
    assert not dialog.is_searching()
    capsys.readouterr()
    try:
        status = run_command(["plan", "serve", "--params", "8B", f"--requests-per-s={typed}"])
    except SystemExit as stop:  # argparse refuses what does not parse
        status = stop.code
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith(words.split(": ", 1)[1]), err
    dialog.budget.setText("")
    dialog.include.setText("h100-sxn")
    dialog.search()
    assert dialog.status.text().startswith("Only:") and "h100-sxm" in dialog.status.text()
    dialog.include.setText("h100-sxm")
    dialog.exclude.setText("h100")
    dialog.search()
    assert dialog.status.text().startswith("Leave out:")
    dialog.exclude.setText("")
    dialog.search()
    dialog.cancel()
    assert not dialog.is_searching()
    assert dialog.search_button.isEnabled()


def test_serving_mode(qtbot: QtBot, tab: EstimateTab, app_state: AppState) -> None:
    tab.apply_preset("llm-7b")
    dialog = _open(qtbot, tab)
    dialog.mode.setCurrentIndex(dialog.mode.findData("serve"))
    assert dialog.rate.isVisibleTo(dialog) and not dialog.deadline.isVisibleTo(dialog)
    dialog.rate.setText("20")
    ranking = _search(qtbot, dialog)
    assert ranking.kind == "serve" and ranking.options
    dialog.select(0)
    option = ranking.options[0]
    dialog.apply_button.click()
    qtbot.waitUntil(lambda: app_state.inference.gpus == option.gpus_per_replica, timeout=5000)
    assert app_state.inference.precision == option.precision


def test_saved_scenario_keeps_constraints_and_choice(qtbot: QtBot, app_state: AppState) -> None:
    from desktopapp.application.scenario import apply_workload, scenario_from_state
    from desktopapp.model.scenario import Scenario

    choice = adv.AdvisorChoice(
        deadline_days=30, budget_usd=5e5, pricing=("on_demand", "spot"), include=("b200",),
        accelerator="h100-sxm", gpus=64, chosen_pricing="spot", offer="x",
    )  # fmt: skip
    app_state.plan.advisor_choice = choice
    saved = scenario_from_state(app_state.plan, name="s", notes="")
    reopened = Scenario.from_json(saved.to_json())
    other = AppState()
    try:
        apply_workload(other.plan, reopened)
        assert other.plan.advisor_choice == choice
        dialog = AdvisorDialog(other)
        qtbot.addWidget(dialog)
        assert dialog.deadline.value() == 30
        assert dialog.constraints().budget_usd == 5e5
        assert not dialog.pricing_boxes["owned"].isChecked()
        assert dialog.pricing_boxes["spot"].isChecked()
        assert dialog.constraints().include == ("b200",)
    finally:
        other.deleteLater()


def test_window_save_and_open_keep_the_choice(qtbot: QtBot, app_state: AppState, tmp_path) -> None:
    from desktopapp.model.training import TrainingInputs
    from desktopapp.ui.scenario.document import ScenarioDocument

    app_state.set_workload(
        training=TrainingInputs(params=7e9, tokens=1e12, accelerator="h100-sxm", gpus=64)
    )
    choice = adv.AdvisorChoice(deadline_days=12, accelerator="h100-sxm", gpus=64)
    app_state.plan.advisor_choice = choice
    doc = ScenarioDocument(app_state, autosave_folder=tmp_path / "auto")
    doc.show_error = lambda title, message: pytest.fail(message)
    path = tmp_path / "plan.json"
    assert doc.save_as(path)
    assert '"advisor"' in path.read_text()
    app_state.plan.advisor_choice = None
    assert doc.open(path, confirm=False, dialog=False)
    assert app_state.plan.advisor_choice == choice
    doc.deleteLater()


def test_pdf_report_has_the_ranking_and_the_plot(qtbot: QtBot, app_state: AppState, tmp_path):
    from pypdf import PdfReader

    from desktopapp.application.advisor import ranking_for_scenario
    from desktopapp.application.compare import summarize
    from desktopapp.model.scenario import Scenario
    from desktopapp.model.training import TrainingInputs
    from desktopapp.ui.scenario.report import render_images, write_report

    training = TrainingInputs(params=7e9, tokens=1e12, accelerator="h100-sxm", gpus=64)
    choice = adv.AdvisorChoice(
        deadline_days=30, include=("h100-sxm", "a100-sxm-80gb"), accelerator="h100-sxm",
        gpus=64, chosen_pricing="spot",
    )  # fmt: skip
    asked = summarize(Scenario(name="asked", training=training, advisor=choice), "asked", "")
    plain = summarize(Scenario(name="plain", training=training), "plain", "")
    assert "advisor-pareto" in render_images([asked])
    assert "advisor-pareto" not in render_images([plain])
    path = tmp_path / "report.pdf"
    write_report(path, [asked])
    text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(path).pages)
    assert "What to run on" in text
    ranking = ranking_for_scenario(asked.scenario)
    assert ranking is not None and ranking.options[0].accelerator in text


def test_the_notes_every_option_assumes_are_shown_as_the_cli_prints_them(
    qtbot: QtBot, tab: EstimateTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ranking's notes (the fleet-size cap; a production factor from your own runs) were
    printed by `plan train` but not shown in the dialog."""
    from desktopapp.ui.estimate import own_runs_dialog

    source = "×1.4 from your 2 runs in runs.csv (typical stack, each ×1.20-×1.60)"
    monkeypatch.setattr(
        own_runs_dialog,
        "ask_production_factor",
        lambda parent=None, software_stack=None: (1.4, source),
    )
    tab.inputs.past_runs_button.click()
    tab.flush()
    dialog = _open(qtbot, tab)
    assert dialog.notes.isHidden()  # nothing searched yet
    dialog.include.setText("h100-sxm")
    ranking = _search(qtbot, dialog)
    from desktopapp.application.advisor import note_lines

    assert not dialog.notes.isHidden()
    assert dialog.notes.text().splitlines() == list(note_lines(ranking))
    assert f"Note: production factor for every option: {source}." in dialog.notes.text()
    assert all(o.accelerator == "h100-sxm" for o in ranking.options)


def test_a_rate_beyond_any_real_service_is_searched_and_flagged(
    qtbot: QtBot, tab: EstimateTab, capsys: pytest.CaptureFixture[str]
) -> None:
    """1e9 requests/s (ChatGPT serves about 29,000/s) was planned without a word; the dialog
    and `plan serve` now both say so, and still answer."""
    from desktopapp.cli import run_command

    dialog = _open(qtbot, tab)
    dialog.mode.setCurrentIndex(dialog.mode.findData("serve"))
    dialog.rate.setText("1e9")
    dialog.include.setText("h100-sxm")
    ranking = _search(qtbot, dialog)
    assert ranking.options
    first = dialog.notes.text().splitlines()[0]
    assert first.startswith("Check this input: requests per second: 1B is beyond any real"), first
    capsys.readouterr()
    argv = ["plan", "serve", "--params", "8B", "--requests-per-s", "1e9", "--include", "h100-sxm"]
    assert run_command(argv) == 0
    err = " ".join(capsys.readouterr().err.split())  # a terminal wraps the warning
    assert f"warning: {first.removeprefix('Check this input: ')}" in err, err
