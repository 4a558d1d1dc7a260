"""The main window's document policies without Qt (moved out of ui/main_window.py, issue 12):
title, the scenario's label, the recent-files menu, the report's path and the recovery line."""

from __future__ import annotations

import time
from pathlib import Path

from desktopapp.application import scenario as policy

APP = "ML Capacity Planner"


def test_window_title() -> None:
    assert policy.window_title(APP, "Untitled", fresh=True) == APP
    assert policy.window_title(APP, "plan.json", fresh=False) == f"plan.json[*] — {APP}"


def test_scenario_label() -> None:
    assert policy.scenario_label("Untitled", None) == "Untitled"
    assert policy.scenario_label("plan", Path("/w/plan.json")) == "plan.json"
    assert policy.scenario_label("Q3 plan", Path("/w/plan.json")) == "Q3 plan (plan.json)"


def test_recent_entries_number_the_first_nine() -> None:
    recent = [f"/w/p{i}.json" for i in range(11)]
    entries = policy.recent_entries(recent)
    assert entries[0] == ("&1 p0.json", "/w/p0.json", 1)
    assert entries[8] == ("&9 p8.json", "/w/p8.json", 9)
    assert entries[9] == ("p9.json", "/w/p9.json", None)
    assert [e[1] for e in entries] == recent


def test_report_path_is_suggested_beside_the_file_and_always_a_pdf() -> None:
    assert policy.suggested_report_path(Path("/w/plan.json"), "x") == Path("/w/plan-report.pdf")
    assert policy.suggested_report_path(None, "Q3: 8×H100") == Path("Q3_ 8_H100-report.pdf")
    assert policy.suggested_report_path(None, "") == Path("scenario-report.pdf")
    assert policy.report_target(Path("/w/r")) == Path("/w/r.pdf")
    assert policy.report_target(Path("/w/r.PDF")) == Path("/w/r.PDF")
    assert policy.report_target(Path("/w/r.txt")) == Path("/w/r.pdf")
    assert policy.report_saved_text("r.pdf", 1) == "Report saved: r.pdf (1 page)"
    assert policy.report_saved_text("r.pdf", 7) == "Report saved: r.pdf (7 pages)"


def test_recovery_text_names_the_work_and_escapes_it() -> None:
    saved = time.mktime((2026, 3, 1, 9, 30, 0, 0, 0, -1))
    text = policy.recovery_text("plan.json <b>", saved, older=2)
    assert "plan.json &lt;b&gt;" in text and "2026-03-01 09:30" in text
    assert "(2 older autosaves too)" in text
    assert "older" not in policy.recovery_text("plan.json", saved, older=0)
