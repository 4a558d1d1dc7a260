"""The Cost tab's cloud-price table and add-offer dialog, without Qt.

Table (``ui/cost/offers_model.py`` shows it): the columns, each cell's text, sort value and
tooltip, which rows a filter keeps, the count badge and the hint under the table.

Dialog (``ui/cost/offer_dialog.py`` shows it): the texts a person typed → a checked
:class:`~desktopapp.model.catalog.CloudOffer`, or one message that names the field in the
person's words (``model.validation.FIELD_LABELS``) and says what is allowed. The dialog only
collects the texts and shows the result: the message under the form, each price field marked
with its own message, "Add offer" enabled only when there is an offer.

Colours are passed in (``colors``: the theme's ``warn`` and ``muted``), so the texts follow the
light or dark theme without importing it.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from desktopapp.model import units
from desktopapp.model.catalog import PRICING_MODELS, CloudOffer
from desktopapp.model.planning import KIND_LABELS, PRICING_LABELS, make_custom_offer
from desktopapp.model.price_age import FRESH, MAYBE_STALE, STALE, STALE_AFTER_MONTHS, PriceAge
from desktopapp.model.units import parse_money, shown_value
from desktopapp.model.validation import InputError, user_message

# --- the table -----------------------------------------------------------------------------------

# (key, header); price columns use the catalog's pricing names as keys.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("provider", "Provider"),
    ("instance", "Instance"),
    ("gpus", "GPUs"),
    ("region", "Region"),
    ("on_demand", "On-demand"),
    ("committed_1yr", "1-yr"),
    ("committed_3yr", "3-yr"),
    ("spot", "Spot"),
    ("price_date", "Price date"),
    ("source", "Source"),
)
COLUMN_INDEX: Mapping[str, int] = {key: i for i, (key, _h) in enumerate(COLUMNS)}
RIGHT_ALIGNED = frozenset((*PRICING_MODELS, "gpus"))
ALL_KINDS = ""
NOTES_CHARS = 400  # a tooltip shows at most this much of an offer's notes


def listed_price(offer: CloudOffer, key: str) -> float | None:
    """The offer's price in column ``key`` when it lists one above 0 (else ``None``)."""
    if key not in PRICING_MODELS:
        return None
    price = offer.price(key)
    return price if price is not None and price > 0 else None


def header_tooltip(key: str, today: date) -> str | None:
    if key in PRICING_MODELS:
        return (
            f"{PRICING_LABELS[key]} price in USD per GPU-hour. Tick a price to compare it with "
            "owning."
        )
    if key == "price_date":
        return (
            f"When the price was taken. ⚠ stale: more than {STALE_AFTER_MONTHS} months before "
            f"today ({today.isoformat()})."
        )
    return None


def cell_text(offer: CloudOffer, age: PriceAge, key: str) -> str:
    """What the table shows in column ``key``: money for prices (empty: not offered), the
    price date with ⚠ when it is stale or may be."""
    if key in PRICING_MODELS:
        price = listed_price(offer, key)
        return "" if price is None else units.format_money(price)
    if key == "gpus":
        return f"{offer.gpus}"
    if key == "price_date":
        if age.status == STALE:
            return f"{offer.price_date} ⚠ stale"
        if age.status == MAYBE_STALE:
            return f"{offer.price_date} ⚠ maybe"
        return offer.price_date or units.DASH
    text: str = getattr(offer, key)
    return text


def sort_value(offer: CloudOffer, key: str) -> float | str:
    """Numbers sort as numbers (a price not offered is ``inf``), texts without case."""
    if key in PRICING_MODELS:
        price = listed_price(offer, key)
        return math.inf if price is None else price
    if key == "gpus":
        return float(offer.gpus)
    value: str = getattr(offer, key)
    return value.lower()


def missing_sorts_last(a: object, b: object, descending: bool) -> bool | None:
    """``a < b`` for the sort when exactly one of them is a price not offered (``inf``), so
    those rows sort last in either order; ``None`` when the ordinary comparison decides."""
    a_missing = isinstance(a, float) and math.isinf(a)
    b_missing = isinstance(b, float) and math.isinf(b)
    if a_missing == b_missing:
        return None
    return a_missing if descending else b_missing


def cell_tooltip(offer: CloudOffer, age: PriceAge, key: str, colors: Mapping[str, str]) -> str:
    """Rich text: the offer, its kind and confidence, the price, its age, source and notes."""
    kind = KIND_LABELS.get(offer.kind, offer.kind)
    lines = [f"<b>{html.escape(offer.name)}</b> · {html.escape(offer.region or 'any region')}"]
    lines.append(f"{html.escape(kind)}, confidence {html.escape(offer.confidence)}")
    if not offer.rentable:
        lines.append("<i>Not rentable as listed (a market index or an assumed rate).</i>")
    price = listed_price(offer, key)
    if price is not None:
        lines.append(
            f"{PRICING_LABELS[key]}: <b>{units.format_money(price)}</b> per GPU-hour. "
            "Tick to compare it with owning."
        )
    listed = [(p, listed_price(offer, p)) for p in PRICING_MODELS]
    prices = [f"{PRICING_LABELS[p]} {units.format_money(v)}" for p, v in listed if v is not None]
    if prices:  # all of them: a narrow table folds some price columns away
        lines.append("Prices per GPU-hour: " + html.escape(", ".join(prices)))
    if age.status != FRESH:
        lines.append(f"<span style='color:{colors['warn']}'>{html.escape(age.explanation)}</span>")
    else:
        lines.append(html.escape(age.explanation))
    lines.append(f"Source: {html.escape(offer.source)}")
    if offer.notes:
        notes = offer.notes
        if len(notes) > NOTES_CHARS:
            notes = notes[: NOTES_CHARS - 1] + "…"
        lines.append(f"<span style='color:{colors['muted']}'>{html.escape(notes)}</span>")
    return "<br>".join(lines)


def filter_words(text: str) -> list[str]:
    return text.lower().split()


def offer_matches(offer: CloudOffer, kind: str, words: Sequence[str]) -> bool:
    """Kept by the filter: of ``kind`` (``ALL_KINDS``: any), and every word found in the
    provider, instance, region, source, price date or kind."""
    if kind != ALL_KINDS and offer.kind != kind:
        return False
    if not words:
        return True
    haystack = " ".join(
        (
            offer.provider,
            offer.instance,
            offer.region,
            offer.source,
            offer.price_date,
            KIND_LABELS.get(offer.kind, offer.kind),
        )
    ).lower()
    return all(word in haystack for word in words)


@dataclass(frozen=True)
class OffersSummary:
    """The badge over the table (text and tooltip) and the hint under it."""

    count: str
    count_tooltip: str
    hint: str


def offers_summary(
    offers: Sequence[CloudOffer], ages: Sequence[PriceAge], accelerator_name: str, today: date
) -> OffersSummary:
    stale = sum(1 for age in ages if age.is_stale)
    count = f"{len(offers)} offer{'' if len(offers) == 1 else 's'} · {accelerator_name}"
    tooltip = (
        f"{stale} with a price older than {STALE_AFTER_MONTHS} months "
        f"(today is {today.isoformat()})"
    )
    if offers:
        hint = (
            "Tick the prices to compare with owning; each gets a colour in the plots. "
            f"⚠ marks prices older than {STALE_AFTER_MONTHS} months. Italic rows are market "
            "indexes or assumed rates, not rentable as listed."
        )
    else:
        hint = (
            f"No cloud offer for {accelerator_name} in the catalog. Add the quote you have "
            "with “Add your offer…”."
        )
    return OffersSummary(count, tooltip, hint)


# --- the add-offer dialog ------------------------------------------------------------------------

PRICE_ALLOWED = (
    "must be a price in USD per GPU-hour above 0, such as 2.49 or $2.49 (leave it empty when "
    "not offered)"
)


@dataclass(frozen=True)
class OfferForm:
    """What the dialog's fields hold, as typed (``prices``: pricing model → text)."""

    provider: str = ""
    instance: str = ""
    gpus: int = 8
    region: str = ""
    prices: Mapping[str, str] = field(default_factory=dict)
    price_date: str = ""
    source: str = ""


@dataclass(frozen=True)
class OfferCheck:
    """The offer when the form is complete and valid; else ``problem`` says why, in the
    user's words. ``price_problems``: a message for each price field that is wrong."""

    offer: CloudOffer | None
    problem: str = ""
    price_problems: Mapping[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.offer is not None


def parse_price(pricing: str, text: str) -> float | None:
    """A price field's text → USD per GPU-hour; ``None`` when left empty (not offered).

    Accepts a leading ``$`` and the quantity suffixes (``2.5``, ``$2.49``, ``1.2k``). Raises
    :class:`InputError` naming ``pricing``, saying what is allowed."""
    typed = text.strip()
    if not typed:
        return None
    try:
        value = parse_money(typed, pricing)
    except ValueError:
        raise InputError(pricing, f"{PRICE_ALLOWED}, got {shown_value(typed)}") from None
    if not (math.isfinite(value) and value > 0):
        raise InputError(pricing, f"{PRICE_ALLOWED}, got {shown_value(typed)}")
    return value


def check_offer_form(
    form: OfferForm, accelerator_id: str, existing_ids: Iterable[str] = ()
) -> OfferCheck:
    """Check the form as :func:`~desktopapp.model.planning.make_custom_offer` does; the first
    problem (prices first, then the fields in the model's order) is the one reported."""
    prices: dict[str, float | None] = {}
    price_problems: dict[str, str] = {}
    for pricing in PRICING_MODELS:
        try:
            prices[pricing] = parse_price(pricing, form.prices.get(pricing, ""))
        except InputError as exc:
            price_problems[pricing] = user_message(exc)
            prices[pricing] = None
    try:
        offer = make_custom_offer(
            accelerator_id,
            form.provider,
            form.instance,
            form.gpus,
            form.region,
            prices,
            form.price_date,
            form.source,
            existing_ids,
        )
    except ValueError as exc:
        problem = user_message(exc)
        return OfferCheck(None, _first(price_problems) or problem, price_problems)
    if price_problems:
        return OfferCheck(None, _first(price_problems), price_problems)
    return OfferCheck(offer)


def _first(price_problems: Mapping[str, str]) -> str:
    return next(iter(price_problems.values()), "")
