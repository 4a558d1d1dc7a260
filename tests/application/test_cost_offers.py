"""The Cost tab's cloud-price table and add-offer dialog rules, without Qt (moved out of
ui/cost/offers.py, issue 12): cell texts, sorting, filtering, and messages that name the field
in the user's words and say what is allowed (issue 16)."""

from __future__ import annotations

import dataclasses
import math
from datetime import date

import pytest

from desktopapp.application import cost_offers as rules
from desktopapp.model import units
from desktopapp.model.catalog import PRICING_MODELS, offers_for
from desktopapp.model.price_age import STALE, price_age
from desktopapp.model.validation import FIELD_LABELS

TODAY = date(2026, 11, 21)
COLORS = {"warn": "#a60", "muted": "#777"}


def complete_form(**changes: object) -> rules.OfferForm:
    form = rules.OfferForm(
        provider="Our reseller",
        instance="8x H100 node",
        gpus=8,
        region="eu-west",
        prices={"on_demand": "$2.10", "spot": "1.1"},
        price_date="2026-10",
        source="Quote",
    )
    return dataclasses.replace(form, **changes)  # type: ignore[arg-type]


# --- the add-offer dialog -------------------------------------------------------------------------


def test_a_complete_form_gives_the_offer() -> None:
    check = rules.check_offer_form(complete_form(), "h100-sxm", ())
    assert check.ok and check.problem == "" and check.price_problems == {}
    offer = check.offer
    assert offer is not None
    assert (offer.on_demand, offer.spot, offer.committed_1yr) == (2.10, 1.1, None)
    assert offer.kind == "custom" and offer.accelerator_id == "h100-sxm"
    taken = rules.check_offer_form(complete_form(), "h100-sxm", (offer.id,)).offer
    assert taken is not None and taken.id != offer.id


@pytest.mark.parametrize(
    ("changes", "label", "allowed"),
    [
        ({"provider": "  "}, "Provider", "give the provider's name"),
        ({"instance": ""}, "Instance", "give the instance or product name"),
        ({"price_date": "2026-13"}, "Price date", "use YYYY, YYYY-MM or YYYY-MM-DD"),
        ({"prices": {}}, "On-demand price", "give at least one price per GPU-hour"),
        ({"prices": {"on_demand": "abc"}}, "On-demand price", "must be a price in USD"),
        ({"prices": {"committed_1yr": "-1"}}, "1-yr commit price", "must be a price in USD"),
        ({"prices": {"committed_3yr": "0"}}, "3-yr commit price", "above 0"),
        ({"prices": {"spot": "$"}}, "Spot price", "leave it empty when not offered"),
    ],
)
def test_every_problem_names_the_field_in_the_users_words(
    changes: dict[str, object], label: str, allowed: str
) -> None:
    check = rules.check_offer_form(complete_form(**changes), "h100-sxm", ())
    assert check.offer is None and not check.ok
    assert check.problem.startswith(f"{label}: ")
    assert allowed in check.problem
    # No code name: no underscores, no lower-case field name before the colon.
    assert "_" not in check.problem.partition(":")[0]
    assert check.problem.partition(":")[0] in FIELD_LABELS.values()


def test_each_wrong_price_gets_its_own_message_and_the_first_is_reported() -> None:
    form = complete_form(prices={"on_demand": "2", "committed_1yr": "x", "spot": "-3"})
    check = rules.check_offer_form(form, "h100-sxm", ())
    assert set(check.price_problems) == {"committed_1yr", "spot"}
    assert check.price_problems["committed_1yr"].startswith("1-yr commit price: ")
    assert check.price_problems["spot"].startswith("Spot price: ")
    assert check.problem == check.price_problems["committed_1yr"]
    # A wrong price is reported before a missing provider (the order the dialog shows).
    both = rules.check_offer_form(dataclasses.replace(form, provider=""), "h100-sxm", ())
    assert both.problem == check.price_problems["committed_1yr"]


@pytest.mark.parametrize(
    ("text", "value"), [("", None), ("  ", None), ("2.5", 2.5), ("$2.49", 2.49), ("$ 3", 3.0)]
)
def test_price_texts(text: str, value: float | None) -> None:
    assert rules.parse_price("spot", text) == value


@pytest.mark.parametrize("text", ["abc", "0", "-1", "nan", "inf", "$", "1,5"])
def test_bad_price_texts_say_what_is_allowed(text: str) -> None:
    with pytest.raises(ValueError) as caught:
        rules.parse_price("spot", text)
    assert getattr(caught.value, "field", None) == "spot"
    assert "must be a price in USD per GPU-hour above 0" in str(caught.value)


# --- the table ------------------------------------------------------------------------------------


def test_cells_show_prices_gpus_and_stale_dates() -> None:
    offers = offers_for("h100-sxm")
    offer = next(o for o in offers if o.on_demand and not o.committed_1yr)
    age = price_age(offer.price_date, TODAY)
    assert rules.cell_text(offer, age, "on_demand") == units.format_money(offer.on_demand or 0)
    assert rules.cell_text(offer, age, "committed_1yr") == ""  # not offered
    assert rules.cell_text(offer, age, "gpus") == str(offer.gpus)
    assert rules.cell_text(offer, age, "provider") == offer.provider
    old = dataclasses.replace(offer, price_date="2020-01")
    stale = price_age(old.price_date, TODAY)
    assert stale.status == STALE
    assert rules.cell_text(old, stale, "price_date") == "2020-01 ⚠ stale"
    assert [key for key, _h in rules.COLUMNS][4:8] == list(PRICING_MODELS)


def test_sort_values_put_missing_prices_last_in_either_order() -> None:
    offer = next(o for o in offers_for("h100-sxm") if o.committed_1yr is None)
    assert math.isinf(rules.sort_value(offer, "committed_1yr"))  # type: ignore[arg-type]
    assert rules.sort_value(offer, "gpus") == float(offer.gpus)
    assert rules.sort_value(offer, "provider") == offer.provider.lower()
    missing, price = math.inf, 2.0
    assert rules.missing_sorts_last(price, missing, descending=False) is True
    assert rules.missing_sorts_last(missing, price, descending=False) is False
    assert rules.missing_sorts_last(price, missing, descending=True) is False
    assert rules.missing_sorts_last(missing, price, descending=True) is True
    assert rules.missing_sorts_last(1.0, 2.0, descending=False) is None
    assert rules.missing_sorts_last("a", "b", descending=True) is None


def test_filter_matches_every_word_and_the_kind() -> None:
    offers = offers_for("h100-sxm")
    gcp = next(o for o in offers if o.id == "gcp/a3-highgpu-8g/us-east4")
    assert rules.offer_matches(gcp, rules.ALL_KINDS, rules.filter_words("GCP us-east"))
    assert not rules.offer_matches(gcp, rules.ALL_KINDS, rules.filter_words("gcp eu-west"))
    assert rules.offer_matches(gcp, gcp.kind, [])
    other = next(kind for kind in ("hyperscaler", "neocloud") if kind != gcp.kind)
    assert not rules.offer_matches(gcp, other, [])


def test_tooltips_and_summary() -> None:
    offers = offers_for("h100-sxm")
    offer = next(o for o in offers if o.on_demand)
    old = dataclasses.replace(offer, price_date="2020-01", notes="x" * 1000)
    age = price_age(old.price_date, TODAY)
    tip = rules.cell_tooltip(old, age, "on_demand", COLORS)
    assert "Tick to compare it with owning." in tip and COLORS["warn"] in tip
    assert "x" * rules.NOTES_CHARS not in tip and "x" * (rules.NOTES_CHARS - 1) + "…" in tip
    assert "Tick" not in rules.cell_tooltip(old, age, "region", COLORS)
    assert "2026-11-21" in (rules.header_tooltip("price_date", TODAY) or "")
    assert rules.header_tooltip("region", TODAY) is None

    ages = [price_age(o.price_date, TODAY) for o in offers]
    summary = rules.offers_summary(offers, ages, "NVIDIA H100", TODAY)
    assert summary.count == f"{len(offers)} offers · NVIDIA H100"
    assert summary.count_tooltip.startswith(f"{sum(a.is_stale for a in ages)} with a price")
    assert "Tick the prices" in summary.hint
    empty = rules.offers_summary([], [], "Some GPU", TODAY)
    assert empty.count == "0 offers · Some GPU" and "No cloud offer for Some GPU" in empty.hint


def test_every_cell_tooltip_lists_all_the_offer_s_prices() -> None:
    """A narrow table folds the committed and spot columns away (ui.common.table_fit); each
    cell's tooltip still gives every price the offer lists, and only those."""
    offer = next(o for o in offers_for("h100-sxm") if o.on_demand and o.spot)
    age = price_age(offer.price_date, TODAY)
    tip = rules.cell_tooltip(offer, age, "provider", COLORS)
    line = next(part for part in tip.split("<br>") if part.startswith("Prices per GPU-hour: "))
    for key in PRICING_MODELS:
        price = rules.listed_price(offer, key)
        shown = price is not None and units.format_money(price) in line
        assert shown == (price is not None), key
    bare = dataclasses.replace(offer, on_demand=None, spot=None, committed_1yr=None,
                               committed_3yr=None)  # fmt: skip
    assert "Prices per GPU-hour" not in rules.cell_tooltip(bare, age, "provider", COLORS)
