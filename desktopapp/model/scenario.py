"""Scenario files: the whole planning state as a versioned JSON document.

A :class:`Scenario` holds the estimation inputs (training, memory, inference), the cost plan
(chosen accelerator and offer, the demand, the compared prices, custom offers, on-prem and cloud
inputs), a name and notes::

    {"format": "desktopapp-scenario", "version": 3, "name": "…", "notes": "…",
     "training": {…TrainingInputs fields…} | null, "memory": {…} | null,
     "inference": {…} | null, "cost": {…CostPlan fields…}}

Each input section lists the fields of its dataclass by name; a missing field takes the
dataclass default, an unknown one is an error (with a "did you mean" hint), because a typo
silently falling back to a default would give a wrong plan.

Reading treats the file as hostile: size is checked with ``stat`` before reading, nesting depth
is checked before parsing (so the JSON parser cannot recurse away), numbers must be finite and
below :data:`MAX_ABS_NUMBER`, strings and lists are bounded, duplicate keys are refused, and
every problem becomes one :class:`ScenarioError` line naming the file and the field. Loading
never writes to the file. Saving goes through :mod:`desktopapp.model.atomic`.

Older versions are upgraded on load by :data:`MIGRATIONS` (one step per version); the file on
disk keeps its old version until the user saves. See ``docs/scenario-format.md``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import os
import re
import stat
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from desktopapp.model.atomic import atomic_write_bytes
from desktopapp.model.catalog import PRICING_MODELS, CloudOffer
from desktopapp.model.demand import DEMAND_SHAPES
from desktopapp.model.inference import InferenceInputs
from desktopapp.model.memory import MemoryInputs
from desktopapp.model.training import TrainingInputs
from desktopapp.model.validation import (
    InputError,
    require_choice,
    require_int,
    require_non_negative,
    require_positive,
)

if TYPE_CHECKING:
    # The What to run on view's choice: imported when a scenario is decoded (``_hints``,
    # ``_decode_current``), not when the window starts.
    from desktopapp.model.advisor import AdvisorChoice
    from desktopapp.model.tco import CloudInputs, OnPremInputs

FORMAT = "desktopapp-scenario"
VERSION = 3
FILE_SUFFIX = ".json"

# --- limits (docs/scenario-format.md lists them) ---------------------------------------------
MAX_FILE_BYTES = 10_000_000  # 10 MB, checked with stat() before reading
MAX_DEPTH = 32  # nesting of objects and arrays
MAX_ABS_NUMBER = 1e30  # any number in the file (FLOP budgets stay far below)
MAX_NAME_CHARS = 200
MAX_NOTES_CHARS = 100_000
MAX_STRING_CHARS = 1_000  # any other text field
MAX_ITEMS = 1_000  # entries of any list or mapping
MAX_MESSAGE_CHARS = 300  # an error message never quotes more than this

T = TypeVar("T")


class ScenarioError(ValueError):
    """A scenario file that cannot be used, with one short user-facing line.

    ``str(error)`` is ``"<source>: <problem>"``, e.g. ``"plan.json: training.params: must be
    greater than 0, got -1"``. ``source`` is the file name (or ``"scenario"`` for text),
    ``field`` the dotted field path when one field is to blame (the GUI can mark it), else "".
    """

    def __init__(self, source: str, problem: str, field: str = "") -> None:
        problem = _clip(problem.splitlines()[0] if problem else "unusable scenario")
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem
        self.field = field


class _Problem(Exception):
    """Raised inside parsing; becomes a ScenarioError once the source name is known."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.field = field


def _clip(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _show(value: object) -> str:
    """A JSON-ish, length-bounded rendering of a value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, _HugeNumber):
        return f"a {value.digits}-digit number"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, int):
        return str(value) if value.bit_length() < 100 else "a huge number"
    if isinstance(value, str):
        return repr(_clip(value, 40))
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


# --- the cost plan and the scenario ----------------------------------------------------------

_OFFER_TEXT_FIELDS = (
    "id",
    "provider",
    "instance",
    "accelerator_id",
    "region",
    "price_date",
    "source",
    "confidence",
    "notes",
    "kind",
)


def check_custom_offer(offer: CloudOffer) -> CloudOffer:
    """Checks a user-typed offer (the catalog's own rows are trusted and not checked here).

    Raises ``ValueError("<field>: …")``: texts bounded (id not empty), ``gpus`` a whole number
    of at least 1, every price None or a finite number of 0 or more.
    """
    if not isinstance(offer, CloudOffer):
        raise InputError("custom_offers", f"expected cloud offers, got {_show(offer)}")
    for name in _OFFER_TEXT_FIELDS:
        limit = MAX_NOTES_CHARS if name == "notes" else MAX_STRING_CHARS
        _require_text(name, getattr(offer, name), limit, allow_empty=name != "id")
    _require_count("gpus", offer.gpus)
    for pricing in PRICING_MODELS:
        price = getattr(offer, pricing)
        if price is not None:
            _require_amount(pricing, price)
    if not isinstance(offer.rentable, bool):
        raise InputError("rentable", f"must be true or false, got {_show(offer.rentable)}")
    return offer


# How the Cost tab gets the GPU-hours needed per month (``CostDemand.source``).
DEMAND_AUTO = "auto"  # from the workload when the scenario has training inputs, else typed
DEMAND_TYPED = "typed"  # the figure typed in (gpu_hours_per_month)
DEMAND_RUNS = "runs"  # the Workload tab's GPU-hours per run × runs per month
DEMAND_SPREAD = "spread"  # the Workload tab's GPU-hours of the run ÷ horizon months
DEMAND_SOURCES: tuple[str, ...] = (DEMAND_AUTO, DEMAND_TYPED, DEMAND_RUNS, DEMAND_SPREAD)
DEFAULT_GPU_HOURS_PER_MONTH = 5000.0
DEFAULT_RUNS_PER_MONTH = 1.0
DEFAULT_HORIZON_MONTHS = 48
MAX_HORIZON_MONTHS = 120


@dataclass(frozen=True)
class CostDemand:
    """The Cost tab's demand: where the GPU-hours per month come from (``source``), the figure
    typed in, how often the Workload tab's run repeats, the horizon and the month-by-month shape
    (``model.demand.DEMAND_SHAPES``) of the hybrid plan.

    ``gpu_hours_per_month`` is the typed figure; with another source it is kept (not used) so
    switching back to "typed" finds it again. None: no figure typed.
    """

    source: str = DEMAND_AUTO
    gpu_hours_per_month: float | None = DEFAULT_GPU_HOURS_PER_MONTH
    runs_per_month: float = DEFAULT_RUNS_PER_MONTH
    horizon_months: int = DEFAULT_HORIZON_MONTHS
    profile: str = "flat"

    def __post_init__(self) -> None:
        require_choice("source", self.source, DEMAND_SOURCES)
        if self.gpu_hours_per_month is not None:
            hours = require_positive("gpu_hours_per_month", self.gpu_hours_per_month)
            object.__setattr__(self, "gpu_hours_per_month", hours)
        runs = require_non_negative("runs_per_month", self.runs_per_month)
        object.__setattr__(self, "runs_per_month", runs)
        months = require_int("horizon_months", self.horizon_months, maximum=MAX_HORIZON_MONTHS)
        object.__setattr__(self, "horizon_months", months)
        require_choice("profile", self.profile, DEMAND_SHAPES)


@dataclass(frozen=True)
class ComparedPrice:
    """One cloud price the Cost tab compares: an offer (catalog or custom id) and one of its
    pricing columns (``on_demand``, ``committed_1yr``, ``committed_3yr``, ``spot``)."""

    offer: str
    pricing: str = "on_demand"

    def __post_init__(self) -> None:
        _require_text("offer", self.offer, MAX_STRING_CHARS, allow_empty=False)
        require_choice("pricing", self.pricing, PRICING_MODELS)

    @property
    def key(self) -> tuple[str, str]:
        return (self.offer, self.pricing)


@dataclass(frozen=True)
class CostPlan:
    """The Cost tab's state: accelerator and offer chosen (the hybrid plan's price), the
    demand, the compared prices (None: the tab's default spread of catalog prices), user-typed
    offers (catalog ``CloudOffer`` rows with ``kind`` "custom"), and the owning and renting
    inputs."""

    accelerator: str | None = None  # catalog id
    offer: str | None = None  # id of a catalog offer or of one of custom_offers
    pricing: str = "on_demand"  # which price column of the offer is used
    demand: CostDemand = field(default_factory=CostDemand)
    compared: tuple[ComparedPrice, ...] | None = None
    custom_offers: tuple[CloudOffer, ...] = ()
    on_prem: OnPremInputs | None = None
    cloud: CloudInputs | None = None

    def __post_init__(self) -> None:
        if self.accelerator is not None:
            _require_text("accelerator", self.accelerator, MAX_STRING_CHARS, allow_empty=False)
        if self.offer is not None:
            _require_text("offer", self.offer, MAX_STRING_CHARS, allow_empty=False)
        if self.pricing not in PRICING_MODELS:
            raise InputError(
                "pricing", f"must be one of {', '.join(PRICING_MODELS)}, got {_show(self.pricing)}"
            )
        if not isinstance(self.demand, CostDemand):
            raise InputError("demand", f"expected CostDemand, got {_show(self.demand)}")
        if self.compared is not None:
            compared = tuple(self.compared)
            if len(compared) > MAX_ITEMS:
                raise InputError("compared", f"at most {MAX_ITEMS} prices, got {len(compared)}")
            keys: set[tuple[str, str]] = set()
            for price in compared:
                if not isinstance(price, ComparedPrice):
                    raise InputError("compared", f"expected compared prices, got {_show(price)}")
                if price.key in keys:
                    raise InputError(
                        "compared",
                        f"the {price.pricing} price of {_show(price.offer)} is listed twice",
                    )
                keys.add(price.key)
            object.__setattr__(self, "compared", compared)
        offers = tuple(self.custom_offers)
        if len(offers) > MAX_ITEMS:
            raise InputError("custom_offers", f"at most {MAX_ITEMS} offers, got {len(offers)}")
        seen: set[str] = set()
        for index, offer in enumerate(offers):
            try:
                check_custom_offer(offer)
            except ValueError as exc:
                raise InputError("custom_offers", f"offer {index + 1}: {exc}") from None
            if offer.id in seen:
                raise InputError("custom_offers", f"the id {_show(offer.id)} is used twice")
            seen.add(offer.id)
        object.__setattr__(self, "custom_offers", offers)
        if self.on_prem is not None or self.cloud is not None:
            # a plan not costed yet does not import the cost model (start-up)
            from desktopapp.model.tco import CloudInputs, OnPremInputs

            if self.on_prem is not None and not isinstance(self.on_prem, OnPremInputs):
                raise InputError("on_prem", f"expected OnPremInputs, got {_show(self.on_prem)}")
            if self.cloud is not None and not isinstance(self.cloud, CloudInputs):
                raise InputError("cloud", f"expected CloudInputs, got {_show(self.cloud)}")

    def custom_offer(self, offer_id: str) -> CloudOffer | None:
        return next((o for o in self.custom_offers if o.id == offer_id), None)

    @property
    def compared_keys(self) -> tuple[tuple[str, str], ...] | None:
        """The compared prices as ``(offer id, pricing)`` pairs (None: the default spread)."""
        return None if self.compared is None else tuple(p.key for p in self.compared)


@dataclass(frozen=True)
class Scenario:
    """The whole planning state; a section is None when that tab has nothing set."""

    name: str = "Untitled"
    notes: str = ""
    training: TrainingInputs | None = None
    memory: MemoryInputs | None = None
    inference: InferenceInputs | None = None
    cost: CostPlan = field(default_factory=CostPlan)
    # the "What to run on" view's constraints and chosen option (issue 24); None: not used
    advisor: AdvisorChoice | None = None

    def __post_init__(self) -> None:
        _require_text("name", self.name, MAX_NAME_CHARS)
        _require_text("notes", self.notes, MAX_NOTES_CHARS)
        for name, kind in _SECTIONS.items():
            value = getattr(self, name)
            if value is not None and not isinstance(value, kind):
                raise InputError(name, f"expected {kind.__name__}, got {_show(value)}")
        if not isinstance(self.cost, CostPlan):
            raise InputError("cost", f"expected CostPlan, got {_show(self.cost)}")

    # -- conversion ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The version-:data:`VERSION` document as plain JSON types."""
        doc: dict[str, Any] = {"format": FORMAT, "version": VERSION}
        doc.update(_encode(self))
        if doc.get("advisor") is None:
            doc.pop("advisor", None)  # files without the What to run on view stay as they were
        return doc

    def to_json(self) -> str:
        """Indented UTF-8 JSON text ending in a newline (stable key order, diff-friendly)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    @classmethod
    def from_dict(cls, document: object, source: str = "scenario") -> Scenario:
        """Validate (and migrate) a parsed document; raises :class:`ScenarioError`."""
        return scenario_from_document(document, source).scenario

    @classmethod
    def from_json(cls, text: str | bytes, source: str = "scenario") -> Scenario:
        return parse_scenario(text, source).scenario

    # -- files --------------------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: readers see the old file or the new one, never a mix."""
        data = self.to_json().encode("utf-8")
        target = Path(path)
        if len(data) > MAX_FILE_BYTES:
            raise ScenarioError(
                target.name,
                f"the scenario is {_megabytes(len(data))}; scenario files are at most "
                f"{_megabytes(MAX_FILE_BYTES)}",
            )
        atomic_write_bytes(target, data)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Scenario:
        return load_scenario(path).scenario


_SECTIONS: Mapping[str, type] = {
    "training": TrainingInputs,
    "memory": MemoryInputs,
    "inference": InferenceInputs,
}


@dataclass(frozen=True)
class LoadedScenario:
    """A scenario as read, with the version it was stored in (older ones were migrated)."""

    scenario: Scenario
    source: str  # file name or "scenario"
    stored_version: int

    @property
    def migrated(self) -> bool:
        """True when the file is in an older format; saving it writes the current one."""
        return self.stored_version != VERSION


# --- field checks (ValueError "field: …", like model.validation) ---------------------------


def _require_text(name: str, value: object, limit: int, *, allow_empty: bool = True) -> str:
    if not isinstance(value, str):
        raise InputError(name, f"expected text, got {_show(value)}")
    if len(value) > limit:
        raise InputError(name, f"at most {limit:,} characters, got {len(value):,}")
    if not allow_empty and not value.strip():
        raise InputError(name, "must not be empty")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(name, "contains characters that are not valid Unicode") from None
    return value


def _require_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(name, f"expected a whole number, got {_show(value)}")
    if not 1 <= value <= 1_000_000:  # also false for NaN; no float() of a huge int
        raise InputError(name, f"must be between 1 and 1000000, got {_show(value)}")
    if value != int(value):
        raise InputError(name, f"must be a whole number, got {_show(value)}")
    return int(value)


def _require_amount(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(name, f"expected a number, got {_show(value)}")
    if not 0 <= value <= MAX_ABS_NUMBER:  # also false for NaN
        raise InputError(name, f"must be a finite number of 0 or more, got {_show(value)}")
    return float(value)


# --- generic dataclass codec -----------------------------------------------------------------


def _encode(obj: Any) -> Any:
    """Dataclass fields (init ones, in order) → JSON types. Non-finite floats are a bug."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _encode(getattr(obj, f.name)) for f in dataclasses.fields(obj) if f.init}
    if isinstance(obj, enum.Enum):
        return _encode(obj.value)
    if isinstance(obj, list | tuple):
        return [_encode(v) for v in obj]
    if isinstance(obj, Mapping):
        return {str(k): _encode(v) for k, v in obj.items()}
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    raise TypeError(f"cannot store {type(obj).__name__} in a scenario")


@cache
def _hints(cls: type) -> dict[str, Any]:
    from desktopapp.model.advisor import AdvisorChoice  # only annotations name these here
    from desktopapp.model.tco import CloudInputs, OnPremInputs

    names = {
        "AdvisorChoice": AdvisorChoice,
        "CloudInputs": CloudInputs,
        "OnPremInputs": OnPremInputs,
    }
    return typing.get_type_hints(cls, localns=names)


def _init_fields(cls: type) -> list[dataclasses.Field[Any]]:
    return [f for f in dataclasses.fields(cls) if f.init]


def _text_limit(name: str) -> int:
    return MAX_NOTES_CHARS if name == "notes" else MAX_STRING_CHARS


def _decode_dataclass(cls: type[T], raw: object, where: str) -> T:
    if not isinstance(raw, dict):
        raise _Problem(f"{where}: expected an object, got {_show(raw)}", where)
    fields = _init_fields(cls)
    names = [f.name for f in fields]
    for key in raw:
        if key not in names:
            import difflib

            close = difflib.get_close_matches(key, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _Problem(f"{where}.{_clip(key, 40)}: unknown field{hint}", f"{where}.{key}")
    hints = _hints(typing.cast(type, cls))
    kwargs: dict[str, Any] = {}
    for f in fields:
        path = f"{where}.{f.name}"
        if f.name in raw:
            kwargs[f.name] = _decode_value(hints[f.name], raw[f.name], path, f.name)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise _Problem(f"{path}: missing (it has no default)", path)
    try:
        return cls(**kwargs)
    except ValueError as exc:
        message = str(exc).splitlines()[0] if str(exc) else "invalid value"
        name, sep, rest = message.partition(": ")
        if sep and name in names:
            raise _Problem(f"{where}.{name}: {rest}", f"{where}.{name}") from None
        raise _Problem(f"{where}: {message}", where) from None
    except (TypeError, ArithmeticError) as exc:  # a check the input class lacks; still one line
        raise _Problem(f"{where}: unusable values ({exc})", where) from None


def _decode_value(hint: Any, value: object, path: str, name: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        if value is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return _decode_value(options[0], value, path, name)
        for option in options:  # e.g. float | str: the first whose JSON type matches
            try:
                return _decode_value(option, value, path, name)
            except _Problem:
                continue
        raise _Problem(f"{path}: unexpected value {_show(value)}", path)
    if origin is typing.Literal:
        if value in args:
            return value
        allowed = ", ".join(str(a) for a in args)
        raise _Problem(f"{path}: must be one of {allowed}, got {_show(value)}", path)
    if origin is tuple:
        if not isinstance(value, list):
            raise _Problem(f"{path}: expected a list, got {_show(value)}", path)
        if len(value) > MAX_ITEMS:
            raise _Problem(f"{path}: at most {MAX_ITEMS} entries, got {len(value)}", path)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(
                _decode_value(args[0], v, f"{path}[{i}]", name) for i, v in enumerate(value)
            )
        if len(value) != len(args):
            raise _Problem(f"{path}: expected {len(args)} entries, got {len(value)}", path)
        return tuple(
            _decode_value(a, v, f"{path}[{i}]", name)
            for i, (a, v) in enumerate(zip(args, value, strict=True))
        )
    if origin in (dict, Mapping, typing.Mapping) or hint in (dict, Mapping):
        if not isinstance(value, dict):
            raise _Problem(f"{path}: expected an object, got {_show(value)}", path)
        if len(value) > MAX_ITEMS:
            raise _Problem(f"{path}: at most {MAX_ITEMS} entries, got {len(value)}", path)
        value_hint = args[1] if len(args) == 2 else Any
        return {
            _decode_value(str, k, path, name): _decode_value(value_hint, v, f"{path}.{k}", name)
            for k, v in value.items()
        }
    if hint is bool:
        if not isinstance(value, bool):
            raise _Problem(f"{path}: must be true or false, got {_show(value)}", path)
        return value
    if hint is float or hint is int:
        return _decode_number(hint, value, path)
    if hint is str:
        if not isinstance(value, str):
            raise _Problem(f"{path}: expected text, got {_show(value)}", path)
        try:
            return _require_text(path, value, _text_limit(name))
        except ValueError as exc:
            raise _Problem(str(exc), path) from None
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            allowed = ", ".join(str(m.value) for m in hint)
            raise _Problem(f"{path}: must be one of {allowed}, got {_show(value)}", path) from None
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _decode_dataclass(hint, value, path)
    raise TypeError(f"{path}: scenario files cannot hold a field of type {hint!r}")


def _decode_number(hint: type, value: object, path: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Problem(f"{path}: expected a number, got {_show(value)}", path)
    if isinstance(value, float) and math.isnan(value):
        raise _Problem(f"{path}: must be a finite number, got NaN", path)
    if abs(value) > MAX_ABS_NUMBER:
        raise _Problem(
            f"{path}: must be a finite number no larger than {MAX_ABS_NUMBER:.0e}, "
            f"got {_show(value)}",
            path,
        )
    if hint is int:
        if value != int(value):
            raise _Problem(f"{path}: must be a whole number, got {_show(value)}", path)
        return int(value)
    return float(value)


# --- document → Scenario ---------------------------------------------------------------------

_TOP_KEYS = (
    "format",
    "version",
    "name",
    "notes",
    "training",
    "memory",
    "inference",
    "cost",
    "advisor",
)


def _scenario_from_document(document: object) -> tuple[Scenario, int]:
    if not isinstance(document, dict):
        raise _Problem(
            f"not a scenario: the top level is {_show(document)}, expected an object "
            f'with "format": "{FORMAT}"'
        )
    marker = document.get("format")
    if marker != FORMAT:
        found = "no format marker" if marker is None else f"format {_show(marker)}"
        raise _Problem(f'not a scenario file ({found}; expected "format": "{FORMAT}")', "format")
    if "version" not in document:
        raise _Problem("no format version", "version")
    version = document["version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise _Problem(f"format version must be a whole number, got {_show(version)}", "version")
    if version > VERSION:
        raise _Problem(
            f"format version {version} is newer than this app supports ({VERSION}); "
            "update the app to open it",
            "version",
        )
    if version < 0:
        raise _Problem(f"unknown format version {version}", "version")
    stored = version
    doc: dict[str, Any] = document
    while version < VERSION:
        doc = MIGRATIONS[version](doc)
        version += 1
    return _decode_current(doc), stored


def _decode_current(doc: dict[str, Any]) -> Scenario:
    for key in doc:
        if key not in _TOP_KEYS:
            import difflib

            close = difflib.get_close_matches(key, _TOP_KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _Problem(f"{_clip(key, 40)}: unknown field{hint}", key)
    kwargs: dict[str, Any] = {}
    if "name" in doc:
        kwargs["name"] = _decode_text(doc["name"], "name", MAX_NAME_CHARS)
    if "notes" in doc:
        kwargs["notes"] = _decode_text(doc["notes"], "notes", MAX_NOTES_CHARS)
    for section, kind in _SECTIONS.items():
        raw = doc.get(section)
        if raw is not None:
            kwargs[section] = _decode_dataclass(kind, raw, section)
    if doc.get("cost") is not None:
        kwargs["cost"] = _decode_dataclass(CostPlan, doc["cost"], "cost")
    if doc.get("advisor") is not None:
        from desktopapp.model.advisor import AdvisorChoice

        kwargs["advisor"] = _decode_dataclass(AdvisorChoice, doc["advisor"], "advisor")
    try:
        return Scenario(**kwargs)
    except ValueError as exc:  # defensive: the sections were checked above
        raise _Problem(str(exc)) from None


def _decode_text(value: object, path: str, limit: int) -> str:
    try:
        return _require_text(path, value, limit)
    except ValueError as exc:
        raise _Problem(str(exc), path) from None


# --- migrations ------------------------------------------------------------------------------
#
# Version 0 was the prototype's flat layout: one training plan, keys at the top level.
#   {"format": "desktopapp-scenario", "version": 0, "title": "…", "description": "…",
#    "model_params": 7e9, "dataset_tokens": 2e12, "epochs": 1, "gpu": "h100-sxm",
#    "gpu_tflops": 989, "num_gpus": 64, "mfu": 0.4, "dtype": "bf16", "price_per_gpu_hour": 2.5}
# Every key is optional except the marker and version.

_V0_TRAINING_KEYS: Mapping[str, str] = {
    "model_params": "params",
    "dataset_tokens": "tokens",
    "epochs": "epochs",
    "gpu": "accelerator",
    "gpu_tflops": "peak_tflops",
    "num_gpus": "gpus",
    "mfu": "utilization",
    "dtype": "precision",
    "price_per_gpu_hour": "price",
}
_V0_KEYS = frozenset({"format", "version", "title", "description", *_V0_TRAINING_KEYS})


def _migrate_0_to_1(doc: Mapping[str, Any]) -> dict[str, Any]:
    for key in doc:
        if key not in _V0_KEYS:
            raise _Problem(f"{_clip(key, 40)}: unknown field in a version 0 file", key)
    training = {new: doc[old] for old, new in _V0_TRAINING_KEYS.items() if old in doc}
    out: dict[str, Any] = {"format": FORMAT, "version": 1}
    if "title" in doc:
        out["name"] = doc["title"]
    if "description" in doc:
        out["notes"] = doc["description"]
    if training:
        out["training"] = training
    if isinstance(training.get("accelerator"), str):
        out["cost"] = {"accelerator": training["accelerator"]}
    return out


# Version 1 had no place for the Cost tab's demand or its compared prices. Version 2 adds
# ``cost.demand`` and ``cost.compared``; a version 1 cost section gets the defaults below (the
# demand source "auto" and the default spread of prices are what opening a version 1 file did).
# They are written out here, not taken from CostDemand, so a later change of the defaults does
# not change what a version 1 file means.
_V1_DEMAND: Mapping[str, Any] = {
    "source": "auto",
    "gpu_hours_per_month": 5000.0,
    "runs_per_month": 1.0,
    "horizon_months": 48,
    "profile": "flat",
}


def _migrate_1_to_2(doc: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(doc)
    out["version"] = 2
    cost = doc.get("cost")
    if isinstance(cost, dict):  # anything else is refused by the version 2 checks
        for key in ("demand", "compared"):
            if key in cost:
                raise _Problem(f"cost.{key}: unknown field in a version 1 file", f"cost.{key}")
        out["cost"] = {**cost, "demand": dict(_V1_DEMAND), "compared": None}
    return out


# Version 2 wrote ``training.goodput_overhead`` 0 both for "not given" and for "none": every
# save wrote the default 0, and 0 meant "the published goodput" to the modelled run. Version 3
# writes null for not given, so 0 can mean no overhead at all; a version 2 file's 0 is null.
def _migrate_2_to_3(doc: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(doc)
    out["version"] = 3
    training = doc.get("training")
    overhead = training.get("goodput_overhead") if isinstance(training, dict) else None
    if isinstance(training, dict) and type(overhead) in (int, float) and overhead == 0:
        out["training"] = {**training, "goodput_overhead": None}
    return out


MIGRATIONS: Mapping[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    0: _migrate_0_to_1,
    1: _migrate_1_to_2,
    2: _migrate_2_to_3,
}


# --- text / file → Scenario ------------------------------------------------------------------

# A JSON string, or an unterminated one running to the end of the text. This pattern cannot
# fail once it has matched the opening quote, so every character is looked at once (a pattern
# that could fail would be retried from each later quote: quadratic on hostile input).
_STRING = re.compile(r'"[^"\\]*(?:\\(?:.|\Z)[^"\\]*)*(?:"|\Z)', re.DOTALL)


def nesting_depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` outside strings, without recursion (linear, numpy)."""
    skeleton = _STRING.sub('""', text).encode("utf-8", errors="replace")
    chars = np.frombuffer(skeleton, dtype=np.uint8)
    opens = (chars == ord("[")) | (chars == ord("{"))
    closes = (chars == ord("]")) | (chars == ord("}"))
    steps = opens.astype(np.int32) - closes.astype(np.int32)
    return int(np.cumsum(steps, dtype=np.int32).max(initial=0))


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Problem(f"the key {_show(key)} appears twice in one object", key)
        out[key] = value
    return out


class _HugeNumber(float):
    """An integer literal of more than 30 digits: always beyond MAX_ABS_NUMBER."""

    digits: int


def _parse_int(text: str) -> int | float:
    # int() refuses more than 4300 digits with an unhelpful message; such numbers fail the
    # magnitude check anyway, so they become a float (inf when huge) that remembers its length.
    if len(text) <= 30:
        return int(text)
    number = _HugeNumber(text)
    number.digits = len(text.lstrip("-"))
    return number


def _unclosed(text: str) -> bool:
    """More ``[``/``{`` opened than closed outside strings, or a string left open."""
    skeleton = _STRING.sub(lambda m: '""' if m.group().endswith('"') else "[", text)
    opened = skeleton.count("[") + skeleton.count("{")
    return opened > skeleton.count("]") + skeleton.count("}")


def _json_error(exc: json.JSONDecodeError, text: str) -> str:
    where = f"line {exc.lineno}, column {exc.colno}"
    body = text.rstrip()
    on_last_line = "\n" not in body[exc.pos :]
    if exc.pos >= len(body) or (on_last_line and _unclosed(body)):
        return f"not valid JSON: the file ends too early, it may be truncated ({where})"
    return f"not valid JSON: {exc.msg[:1].lower()}{exc.msg[1:]} ({where})"


def _decode_document(data: str | bytes) -> object:
    """Bytes or text → parsed JSON, after the size, encoding and nesting checks."""
    if isinstance(data, bytes):
        if len(data) > MAX_FILE_BYTES:
            raise _Problem(
                f"file is {_megabytes(len(data))}; scenario files are at most "
                f"{_megabytes(MAX_FILE_BYTES)}"
            )
        data = data.removeprefix(b"\xef\xbb\xbf")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Problem(
                f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
            ) from None
    else:
        text = data.removeprefix("\ufeff")
    if not text.strip():
        raise _Problem("the file is empty")
    # Cheap bound first: with few brackets the nesting cannot be too deep.
    if text.count("[") + text.count("{") > MAX_DEPTH:
        depth = nesting_depth(text)
        if depth > MAX_DEPTH:
            raise _Problem(f"nested {depth} levels deep; at most {MAX_DEPTH} are allowed")
    try:
        return json.loads(
            text,
            object_pairs_hook=_reject_duplicates,
            parse_int=_parse_int,
            parse_constant=float,  # NaN/Infinity: parsed, then refused naming the field
        )
    except json.JSONDecodeError as exc:
        raise _Problem(_json_error(exc, text)) from None
    except RecursionError:  # unreachable after the depth check; kept as a backstop
        raise _Problem(f"nested more than {MAX_DEPTH} levels deep") from None


def parse_json_document(data: str | bytes, source: str = "scenario") -> object:
    """The hostile-input JSON reader scenarios use, for other app files (autosaves, lists).

    Applies the size, UTF-8, nesting and duplicate-key checks; numbers beyond 30 digits and
    NaN/Infinity come back as floats for the caller to refuse. Raises :class:`ScenarioError`.
    """
    try:
        return _decode_document(data)
    except _Problem as problem:
        raise ScenarioError(source, problem.message, problem.field) from None


def parse_scenario(data: str | bytes, source: str = "scenario") -> LoadedScenario:
    """Check, parse, migrate and validate a scenario document; raises :class:`ScenarioError`."""
    try:
        scenario, stored = _scenario_from_document(_decode_document(data))
    except _Problem as problem:
        raise ScenarioError(source, problem.message, problem.field) from None
    return LoadedScenario(scenario, source, stored)


def scenario_from_document(document: object, source: str = "scenario") -> LoadedScenario:
    """Validate (and migrate) an already parsed document, e.g. one embedded in an autosave."""
    try:
        scenario, stored = _scenario_from_document(document)
    except _Problem as problem:
        raise ScenarioError(source, problem.message, problem.field) from None
    return LoadedScenario(scenario, source, stored)


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size % 1_000_000 else f"{size // 1_000_000} MB"


def read_scenario_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes after the size check; opens read-only, never writes.

    Raises :class:`ScenarioError` for a missing, unreadable, non-regular or too large file.
    """
    target = Path(path)
    source = target.name or str(target)
    try:
        info = target.stat()
    except FileNotFoundError:
        raise ScenarioError(source, "file not found") from None
    except OSError as exc:
        raise ScenarioError(source, f"cannot read the file ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise ScenarioError(source, "not a regular file")
    too_big = (
        f"file is {_megabytes(info.st_size)}; scenario files are at most "
        f"{_megabytes(MAX_FILE_BYTES)}"
    )
    if info.st_size > MAX_FILE_BYTES:
        raise ScenarioError(source, too_big)
    try:
        with target.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)  # the file may grow after stat()
    except OSError as exc:
        raise ScenarioError(source, f"cannot read the file ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ScenarioError(source, f"file is larger than {_megabytes(MAX_FILE_BYTES)}")
    return data


def load_scenario(path: str | os.PathLike[str]) -> LoadedScenario:
    """Read and validate a scenario file; raises :class:`ScenarioError` with one line."""
    target = Path(path)
    data = read_scenario_bytes(target)
    return parse_scenario(data, target.name or str(target))


# --- headless use (CLI) ----------------------------------------------------------------------


def _section(path: str | os.PathLike[str], name: str, overrides: Mapping[str, Any] | None) -> Any:
    target = Path(path)
    scenario = load_scenario(target).scenario
    inputs = getattr(scenario, name)
    if inputs is None:
        raise ScenarioError(target.name, f"has no {name} inputs (the {name} section is empty)")
    changes = {k: v for k, v in (overrides or {}).items() if v is not None}
    if isinstance(inputs, TrainingInputs):
        changes = _switch_training_rule(inputs, changes)
    # A bad override raises the dataclass's own "field: …" ValueError, which the CLI maps to
    # the option of the same name.
    return dataclasses.replace(inputs, **changes) if changes else inputs


_RULE_FIELDS: Mapping[str, tuple[str, str]] = {
    "6nd": ("params", "tokens"),
    "forward": ("forward_flops", "samples"),
}


def _switch_training_rule(inputs: TrainingInputs, changes: dict[str, Any]) -> dict[str, Any]:
    """Overriding with the other compute rule's figures replaces the scenario's workload:
    ``--forward-flops``/``--samples`` on a 6ND scenario drop its params/tokens, and back."""
    current = inputs.resolved_method
    other = "forward" if current == "6nd" else "6nd"
    if not changes.keys() & set(_RULE_FIELDS[other]) or changes.keys() & set(_RULE_FIELDS[current]):
        return changes
    cleared = dict.fromkeys(_RULE_FIELDS[current])
    if inputs.method != "auto":
        cleared["method"] = "auto"
    return cleared | changes


def training_inputs_from_scenario(
    path: str | os.PathLike[str], overrides: Mapping[str, Any] | None = None
) -> TrainingInputs:
    """The scenario's training inputs, with ``overrides`` (None values skipped) applied.

    Raises :class:`ScenarioError` for a bad file or one without training inputs, and
    ``ValueError("field: …")`` for a bad override.
    """
    inputs: TrainingInputs = _section(path, "training", overrides)
    return inputs


def memory_inputs_from_scenario(
    path: str | os.PathLike[str], overrides: Mapping[str, Any] | None = None
) -> MemoryInputs:
    """Like :func:`training_inputs_from_scenario` for the memory section."""
    inputs: MemoryInputs = _section(path, "memory", overrides)
    return inputs


def inference_inputs_from_scenario(
    path: str | os.PathLike[str], overrides: Mapping[str, Any] | None = None
) -> InferenceInputs:
    """Like :func:`training_inputs_from_scenario` for the inference section."""
    inputs: InferenceInputs = _section(path, "inference", overrides)
    return inputs
