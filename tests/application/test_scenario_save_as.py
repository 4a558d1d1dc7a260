"""Save As names the scenario after the new file unless the user named it (issue 16: "Save As
keeps the old scenario name", so three copies of a.json all read "a")."""

from __future__ import annotations

from pathlib import Path

from desktopapp.application.scenario import UNTITLED, name_after_save_as
from desktopapp.model.scenario import MAX_NAME_CHARS


def test_a_name_taken_from_the_old_file_follows_the_new_file() -> None:
    assert name_after_save_as("a", Path("/w/a.json"), Path("/w/b.json")) == "b"


def test_an_untitled_scenario_takes_the_file_stem() -> None:
    assert name_after_save_as(UNTITLED, None, Path("/w/plan.json")) == "plan"
    assert name_after_save_as(UNTITLED, Path("/w/a.json"), Path("/w/q3.json")) == "q3"


def test_a_name_the_user_typed_is_kept() -> None:
    assert name_after_save_as("Quarterly plan", Path("/w/a.json"), Path("/w/b.json")) == (
        "Quarterly plan"
    )
    assert name_after_save_as("Quarterly plan", None, Path("/w/b.json")) == "Quarterly plan"


def test_saving_to_the_same_file_changes_nothing() -> None:
    assert name_after_save_as(UNTITLED, Path("/w/a.json"), Path("/w/a.json")) == UNTITLED
    assert name_after_save_as("a", Path("/w/a.json"), Path("/w/a.json")) == "a"


def test_a_very_long_file_name_gives_a_valid_name() -> None:
    long = "x" * (MAX_NAME_CHARS + 50)
    name = name_after_save_as(UNTITLED, None, Path(f"/w/{long}.json"))
    assert name == "x" * MAX_NAME_CHARS
