"""Catalog ids are matched on their characters after case folding (ASCII space, ``_`` and ``-``
read alike), never by dropping characters: a DEL, a non-breaking hyphen or a zero-width space
makes a different id, refused with a suggestion."""

from __future__ import annotations

import pytest

from desktopapp.cli import run_command
from desktopapp.model.catalog import accelerator_catalog
from desktopapp.model.validation import InputError


@pytest.mark.parametrize(
    "key", ["h100\x7f-sxm", "h100\u2011sxm", "h100-\u200bsxm", "h\u0000100-sxm", "h100.sxm"]
)
def test_odd_characters_do_not_match_an_id(key):
    catalog = accelerator_catalog()
    assert catalog.find(key) is None
    with pytest.raises(InputError) as info:
        catalog.get(key)
    assert "h100-sxm" in str(info.value) and "did you mean" in str(info.value)


@pytest.mark.parametrize("key", ["h100-sxm", "H100-SXM", "H100 SXM", "h100_sxm", " h100-sxm "])
def test_case_and_plain_separators_still_match(key):
    acc = accelerator_catalog().find(key)
    assert acc is not None and acc.id == "h100-sxm"


def test_cli_refuses_a_non_breaking_hyphen_with_a_suggestion(capsys):
    code = run_command(
        [
            "estimate",
            "train",
            "--params",
            "1B",
            "--tokens",
            "1B",
            "--accelerator",
            "h100\u2011sxm",
            "--gpus",
            "8",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "accelerator" in err and "h100-sxm" in err and "Traceback" not in err
