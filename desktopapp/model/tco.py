"""Cost of owning accelerators against renting them (pure Python + numpy).

Everything is per GPU and per wall-clock hour first, then scaled to the fleet:

    fixed  F  = capex / (life · H_year) + ops_fraction · capex / H_year + facility · kW / H_month
    energy E(u) = (kW_idle + u · (kW_full − kW_idle)) · PUE · $/kWh = a + b·u
    owning per wall GPU-hour   C(u) = F + a + b·u
    owning per useful GPU-hour C(u) / u
    cloud per useful GPU-hour  P = price · (1 + spot overhead, for spot only)

(capex, kW per GPU = per server ÷ GPUs per server). A cloud GPU is paid only for the hours it
works, so owning wins when C(u)/u ≤ P, i.e. above the break-even utilization

    u* = (F + a) / (P − b)            (= (F + E) / P when power does not depend on u)

which can exceed 1 ("never pays off"); it is infinite when P ≤ b. Committed cloud prices are
treated the same way, as the rate per used GPU-hour (commit only to what you use).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from desktopapp.model.assumptions import Assumption
from desktopapp.model.catalog import PRICING_MODELS, cloud_defaults, tco_defaults
from desktopapp.model.demand import DEMAND_SHAPES
from desktopapp.model.units import (
    HOURS_PER_MONTH,
    HOURS_PER_YEAR,
    format_money,
    format_percent,
    plural,
)
from desktopapp.model.validation import (
    InputError,
    require_choice,
    require_fraction,
    require_int,
    require_non_negative,
    require_positive,
    require_range,
)

FloatArray = npt.NDArray[np.float64]

# Defaults; each equals the value in resources/tco_defaults.json or cloud_prices.json (tested),
# where its source is recorded.
DEFAULT_LIFE_YEARS = 4.0
DEFAULT_PUE = 1.5
DEFAULT_KWH_PRICE = 0.10
DEFAULT_OPS_FRACTION = 0.10
DEFAULT_FACILITY_USD_PER_KW_MONTH = 0.0
DEFAULT_UTILIZATION = 0.5
DEFAULT_SPOT_OVERHEAD = 0.10
DEFAULT_GPUS_PER_SERVER = 8

LIFE_YEARS_RANGE = (1.0, 10.0)  # typical 3-6; the GUI slider may be narrower
PUE_RANGE = (1.0, 3.0)
_EPS = 1e-9

TCO_FORMULA = (
    "Per GPU: owning per wall GPU-hour C(u) = capex/(life·8766 h) + ops_fraction·capex/8766 h "
    "+ facility $/kW-month·kW/730.5 h + (kW_idle + u·(kW_full − kW_idle))·PUE·$/kWh; "
    "owning per useful GPU-hour = C(u)/u; cloud per useful GPU-hour P = price × (1 + spot "
    "overhead, spot only); break-even u* = (fixed + idle energy) / (P − load energy), "
    "= (fixed + energy)/P when power does not depend on u; u* > 1 means owning never pays off."
)

CUMULATIVE_FORMULA = (
    "owning by month m = capex × purchases (one now, another at each end of life) + (ops + "
    "facility + energy) per month × m; cloud by month m = GPUs × utilization × 730.5 h × P × m; "
    "payback = first month with owning ≤ cloud, within the life"
)


# --- inputs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OnPremInputs:
    """Owned servers. Money in USD, power in kW per server, ``utilization`` = fraction of the
    hours the GPUs do useful work. ``power_kw_idle`` None means power does not depend on
    utilization (the servers draw ``power_kw`` all the time)."""

    server_price: float  # USD per server, everything you capitalise (server, fabric share, install)
    power_kw: float  # per server at full load
    gpus: int = DEFAULT_GPUS_PER_SERVER  # GPUs owned in total
    gpus_per_server: int = DEFAULT_GPUS_PER_SERVER
    life_years: float = DEFAULT_LIFE_YEARS
    power_kw_idle: float | None = None
    pue: float = DEFAULT_PUE
    kwh_price: float = DEFAULT_KWH_PRICE
    ops_fraction: float = DEFAULT_OPS_FRACTION  # of capex per year: staff, maintenance, space
    facility_usd_per_kw_month: float = DEFAULT_FACILITY_USD_PER_KW_MONTH
    utilization: float = DEFAULT_UTILIZATION
    server_price_source: str = ""
    power_source: str = ""

    def __post_init__(self) -> None:
        require_non_negative("server_price", self.server_price)
        require_non_negative("power_kw", self.power_kw)
        gpus = require_int("gpus", self.gpus, minimum=1)
        per_server = require_int("gpus_per_server", self.gpus_per_server, minimum=1)
        object.__setattr__(self, "gpus", gpus)  # 8.0 → 8
        object.__setattr__(self, "gpus_per_server", per_server)
        if gpus % per_server:
            raise InputError(
                "gpus",
                f"must be a whole number of servers of {per_server} GPUs, got {self.gpus!r}",
            )
        require_range("life_years", self.life_years, *LIFE_YEARS_RANGE)
        if self.power_kw_idle is not None:
            idle = require_non_negative("power_kw_idle", self.power_kw_idle)
            if idle > float(self.power_kw):
                raise InputError(
                    "power_kw_idle",
                    f"must be at most the power at full load ({self.power_kw:g} kW), "
                    f"got {self.power_kw_idle:g}",
                )
        require_range("pue", self.pue, *PUE_RANGE)
        require_non_negative("kwh_price", self.kwh_price)
        require_range("ops_fraction", self.ops_fraction, 0.0, 1.0)
        require_non_negative("facility_usd_per_kw_month", self.facility_usd_per_kw_month)
        require_fraction("utilization", self.utilization)

    # Per server / fleet ------------------------------------------------------------------------
    @property
    def servers(self) -> int:
        return self.gpus // self.gpus_per_server

    @property
    def idle_kw(self) -> float:
        return float(self.power_kw if self.power_kw_idle is None else self.power_kw_idle)

    @property
    def capex_usd(self) -> float:
        """Up-front purchase for the whole fleet."""
        return float(self.server_price) * self.servers

    # Per GPU-hour ------------------------------------------------------------------------------
    @property
    def capex_per_gpu_hour(self) -> float:
        return float(self.server_price) / self.gpus_per_server / (self.life_years * HOURS_PER_YEAR)

    @property
    def ops_per_gpu_hour(self) -> float:
        return self.ops_fraction * float(self.server_price) / self.gpus_per_server / HOURS_PER_YEAR

    @property
    def facility_per_gpu_hour(self) -> float:
        kw_per_gpu = float(self.power_kw) / self.gpus_per_server
        return self.facility_usd_per_kw_month * kw_per_gpu / HOURS_PER_MONTH

    @property
    def fixed_per_gpu_hour(self) -> float:
        """Capex + ops + facility: paid every hour whether the GPU works or not."""
        return self.capex_per_gpu_hour + self.ops_per_gpu_hour + self.facility_per_gpu_hour

    @property
    def energy_idle_per_gpu_hour(self) -> float:
        """``a``: energy cost of an idle GPU-hour (its share of the idle server draw)."""
        return self.idle_kw / self.gpus_per_server * self.pue * self.kwh_price

    @property
    def energy_load_per_gpu_hour(self) -> float:
        """``b``: extra energy cost of a fully busy GPU-hour over an idle one."""
        extra_kw = float(self.power_kw) - self.idle_kw
        return extra_kw / self.gpus_per_server * self.pue * self.kwh_price


@dataclass(frozen=True)
class CloudInputs:
    """A cloud price per GPU-hour (USD) under one pricing model; for ``spot`` the interruption
    overhead is the fraction of extra GPU-hours lost to restarts and redone work."""

    cloud_price: float
    pricing: str = "on_demand"
    spot_overhead: float = DEFAULT_SPOT_OVERHEAD
    price_source: str = ""

    def __post_init__(self) -> None:
        require_positive("cloud_price", self.cloud_price)
        require_choice("pricing", self.pricing, PRICING_MODELS)
        require_range("spot_overhead", self.spot_overhead, 0.0, 1.0)

    @property
    def overhead(self) -> float:
        """The overhead actually applied (0 unless spot)."""
        return float(self.spot_overhead) if self.pricing == "spot" else 0.0

    @property
    def effective_price(self) -> float:
        """Cost per useful GPU-hour."""
        return float(self.cloud_price) * (1.0 + self.overhead)


# --- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class HourlyCost:
    """Owning, per wall-clock GPU-hour at one utilization (USD)."""

    capex: float
    ops: float
    facility: float
    energy: float

    @property
    def total(self) -> float:
        return self.capex + self.ops + self.facility + self.energy

    def to_dict(self) -> dict[str, float]:
        return {
            "capex": self.capex,
            "ops": self.ops,
            "facility": self.facility,
            "energy": self.energy,
            "total": self.total,
        }


@dataclass(frozen=True)
class YearlyCost:
    """Owning the whole fleet for one year (USD)."""

    capex: float  # straight-line depreciation
    energy: float
    ops: float
    facility: float

    @property
    def total(self) -> float:
        return self.capex + self.energy + self.ops + self.facility

    def to_dict(self) -> dict[str, float]:
        return {
            "capex": self.capex,
            "energy": self.energy,
            "ops": self.ops,
            "facility": self.facility,
        }


@dataclass(frozen=True)
class CloudYearly:
    """Renting the same useful GPU-hours for one year (USD)."""

    compute: float
    spot_overhead: float

    @property
    def total(self) -> float:
        return self.compute + self.spot_overhead

    def to_dict(self) -> dict[str, float]:
        return {"compute": self.compute, "spot_overhead": self.spot_overhead}


@dataclass(frozen=True, eq=False)
class CumulativeCosts:
    """Money spent by the end of each month: owning pays capex up front (again at every end of
    life), cloud pays monthly. ``payback_month`` is the first month at whose end owning has cost
    no more than renting, within the hardware's life (None: never)."""

    months: npt.NDArray[np.int64]  # 0 … horizon
    onprem_usd: FloatArray
    cloud_usd: FloatArray
    payback_month: int | None
    assumptions: tuple[Assumption, ...] = ()
    formula: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "month": self.months.tolist(),
            "onprem_usd": self.onprem_usd.tolist(),
            "cloud_usd": self.cloud_usd.tolist(),
            "payback_month": self.payback_month,
        }


@dataclass(frozen=True, eq=False)
class CostCurves:
    """Cost per useful GPU-hour against utilization, for plots; the curves cross at
    ``break_even_utilization`` when it is within (0, 1]."""

    utilization: FloatArray
    onprem_per_useful_hour: FloatArray
    cloud_per_useful_hour: FloatArray
    break_even_utilization: float
    assumptions: tuple[Assumption, ...] = ()
    formula: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "utilization": self.utilization.tolist(),
            "onprem_per_useful_hour": self.onprem_per_useful_hour.tolist(),
            "cloud_per_useful_hour": self.cloud_per_useful_hour.tolist(),
            "break_even_utilization": self.break_even_utilization,
        }


@dataclass(frozen=True, eq=False)
class TcoResult:
    onprem: OnPremInputs
    cloud: CloudInputs
    hourly: HourlyCost  # owning, per wall GPU-hour at onprem.utilization
    onprem_cost_per_gpu_hour: float
    onprem_cost_per_useful_gpu_hour: float
    cloud_cost_per_gpu_hour: float  # per useful GPU-hour (spot overhead included)
    break_even_utilization: float  # may be > 1 or inf
    pays_off: bool  # break-even within (0, 1]
    owning_cheaper: bool  # at onprem.utilization
    onprem_yearly: YearlyCost
    cloud_yearly: CloudYearly
    cumulative: CumulativeCosts
    assumptions: tuple[Assumption, ...]
    formula: str = TCO_FORMULA

    @property
    def horizon_months(self) -> int:
        return int(self.cumulative.months[-1])

    @property
    def onprem_horizon_usd(self) -> float:
        return float(self.cumulative.onprem_usd[-1])

    @property
    def cloud_horizon_usd(self) -> float:
        return float(self.cumulative.cloud_usd[-1])

    @property
    def payback_month(self) -> int | None:
        return self.cumulative.payback_month

    def to_dict(self) -> dict[str, Any]:
        return {
            "onprem_cost_per_gpu_hour": self.onprem_cost_per_gpu_hour,
            "onprem_cost_per_useful_gpu_hour": self.onprem_cost_per_useful_gpu_hour,
            "onprem_cost_breakdown_per_gpu_hour": self.hourly.to_dict(),
            "onprem_fixed_cost_per_gpu_hour": self.onprem.fixed_per_gpu_hour,
            "cloud_cost_per_gpu_hour": self.cloud_cost_per_gpu_hour,
            "cloud_list_price_per_gpu_hour": float(self.cloud.cloud_price),
            "break_even_utilization": self.break_even_utilization,
            "pays_off": self.pays_off,
            "owning_cheaper_at_utilization": self.owning_cheaper,
            "onprem_yearly_usd": self.onprem_yearly.total,
            "onprem_yearly_breakdown_usd": self.onprem_yearly.to_dict(),
            "cloud_yearly_usd": self.cloud_yearly.total,
            "cloud_yearly_breakdown_usd": self.cloud_yearly.to_dict(),
            "horizon_months": self.horizon_months,
            "onprem_horizon_usd": self.onprem_horizon_usd,
            "cloud_horizon_usd": self.cloud_horizon_usd,
            "saving_vs_cloud_horizon_usd": self.cloud_horizon_usd - self.onprem_horizon_usd,
            "payback_month": self.payback_month,
            "cumulative": self.cumulative.to_dict(),
            "assumptions": [a.to_dict() for a in self.assumptions],
            "formula": self.formula,
        }


# --- formulas ----------------------------------------------------------------------------------


def _check_utilizations(values: object) -> FloatArray:
    array = np.atleast_1d(np.asarray(values, dtype=np.float64))
    if array.ndim != 1 or array.size == 0:
        raise InputError("utilization", "expected a non-empty 1-D array of fractions")
    if not np.all(np.isfinite(array)) or np.any(array <= 0) or np.any(array > 1):
        raise InputError("utilization", "every value must be in (0, 1]")
    return array


def onprem_hourly(onprem: OnPremInputs, utilization: float | None = None) -> HourlyCost:
    """Owning cost per wall-clock GPU-hour at ``utilization`` (default: the inputs')."""
    u = onprem.utilization if utilization is None else require_fraction("utilization", utilization)
    energy = onprem.energy_idle_per_gpu_hour + u * onprem.energy_load_per_gpu_hour
    return HourlyCost(
        capex=onprem.capex_per_gpu_hour,
        ops=onprem.ops_per_gpu_hour,
        facility=onprem.facility_per_gpu_hour,
        energy=energy,
    )


def onprem_cost_per_useful_hour(onprem: OnPremInputs, utilization: object) -> FloatArray:
    """C(u)/u for each utilization in (0, 1]: decreasing in u."""
    u = _check_utilizations(utilization)
    fixed = onprem.fixed_per_gpu_hour + onprem.energy_idle_per_gpu_hour
    result: FloatArray = fixed / u + onprem.energy_load_per_gpu_hour
    return result


def cloud_cost_per_useful_hour(cloud: CloudInputs) -> float:
    return cloud.effective_price


def break_even_utilization(onprem: OnPremInputs, cloud: CloudInputs) -> float:
    """u* where owning per useful GPU-hour equals the cloud price; inf when never."""
    numerator = onprem.fixed_per_gpu_hour + onprem.energy_idle_per_gpu_hour
    denominator = cloud.effective_price - onprem.energy_load_per_gpu_hour
    if denominator <= 0:
        return math.inf
    return numerator / denominator


def onprem_yearly(onprem: OnPremInputs, utilization: float | None = None) -> YearlyCost:
    """Fleet cost of owning for one year at ``utilization``."""
    hourly = onprem_hourly(onprem, utilization)
    gpu_hours = onprem.gpus * HOURS_PER_YEAR
    return YearlyCost(
        capex=hourly.capex * gpu_hours,
        energy=hourly.energy * gpu_hours,
        ops=hourly.ops * gpu_hours,
        facility=hourly.facility * gpu_hours,
    )


def cloud_yearly(
    onprem: OnPremInputs, cloud: CloudInputs, utilization: float | None = None
) -> CloudYearly:
    """Renting the useful GPU-hours the owned fleet would deliver in a year."""
    u = onprem.utilization if utilization is None else require_fraction("utilization", utilization)
    useful_hours = onprem.gpus * u * HOURS_PER_YEAR
    compute = useful_hours * float(cloud.cloud_price)
    return CloudYearly(compute=compute, spot_overhead=compute * cloud.overhead)


def cost_curves(
    onprem: OnPremInputs, cloud: CloudInputs, utilizations: object | None = None
) -> CostCurves:
    """Owning and cloud cost per useful GPU-hour over ``utilizations`` (default 2%…100%)."""
    u = np.linspace(0.02, 1.0, 99) if utilizations is None else _check_utilizations(utilizations)
    return CostCurves(
        utilization=u,
        onprem_per_useful_hour=onprem_cost_per_useful_hour(onprem, u),
        cloud_per_useful_hour=np.full_like(u, cloud.effective_price),
        break_even_utilization=break_even_utilization(onprem, cloud),
        assumptions=tco_assumptions(onprem, cloud),
        formula=TCO_FORMULA,
    )


def _monthly_running(onprem: OnPremInputs) -> float:
    """Fleet ops + facility + energy per month at the inputs' utilization."""
    hourly = onprem_hourly(onprem)
    return (hourly.ops + hourly.facility + hourly.energy) * onprem.gpus * HOURS_PER_MONTH


def _monthly_cloud(onprem: OnPremInputs, cloud: CloudInputs) -> float:
    return onprem.gpus * onprem.utilization * HOURS_PER_MONTH * cloud.effective_price


def payback_month(onprem: OnPremInputs, cloud: CloudInputs) -> int | None:
    """First month at whose end cumulative owning ≤ cumulative renting, if within the life."""
    margin = _monthly_cloud(onprem, cloud) - _monthly_running(onprem)
    capex = onprem.capex_usd
    if capex <= 0:
        return 0 if margin >= 0 else None
    if margin <= 0:
        return None
    month = math.ceil(capex / margin - _EPS)
    life_months = onprem.life_years * 12.0
    return month if month <= life_months + _EPS else None


def cumulative_costs(
    onprem: OnPremInputs, cloud: CloudInputs, months: int | None = None
) -> CumulativeCosts:
    """Cumulative spend for months 0…``months`` (default: the hardware life)."""
    life_months = onprem.life_years * 12.0
    horizon = (
        max(1, round(life_months)) if months is None else require_int("months", months, minimum=1)
    )
    m = np.arange(horizon + 1, dtype=np.int64)
    purchases = np.maximum(1, np.ceil(m / life_months - _EPS))
    onprem_usd = onprem.capex_usd * purchases + _monthly_running(onprem) * m
    cloud_usd = _monthly_cloud(onprem, cloud) * m.astype(np.float64)
    return CumulativeCosts(
        months=m,
        onprem_usd=onprem_usd.astype(np.float64),
        cloud_usd=cloud_usd,
        payback_month=payback_month(onprem, cloud),
        assumptions=tco_assumptions(onprem, cloud),
        formula=CUMULATIVE_FORMULA,
    )


def _source(name: str, value: float, default: float) -> str:
    if math.isclose(float(value), default, rel_tol=1e-12, abs_tol=1e-12):
        return f"default: {tco_defaults().get(name).source}"
    return "input"


def tco_assumptions(onprem: OnPremInputs, cloud: CloudInputs) -> tuple[Assumption, ...]:
    """Every figure the comparison relied on, with where it comes from."""
    idle = (
        "same as full load (power does not depend on utilization)"
        if onprem.power_kw_idle is None
        else f"{onprem.idle_kw:.4g} kW idle"
    )
    out = [
        Assumption(
            "capex per server",
            f"{format_money(float(onprem.server_price))} × {plural(onprem.servers, 'server')} of "
            f"{plural(onprem.gpus_per_server, 'GPU')}",
            onprem.server_price_source or "input",
        ),
        Assumption(
            "depreciation",
            f"straight line over {onprem.life_years:g} years, no resale value",
            _source("life_years", onprem.life_years, DEFAULT_LIFE_YEARS),
        ),
        Assumption(
            "server power",
            f"{float(onprem.power_kw):.4g} kW at full load; {idle}",
            onprem.power_source or "input",
        ),
        Assumption("PUE", f"{onprem.pue:g}", _source("pue", onprem.pue, DEFAULT_PUE)),
        Assumption(
            "electricity",
            f"${onprem.kwh_price:g}/kWh",
            _source("kwh_price", onprem.kwh_price, DEFAULT_KWH_PRICE),
        ),
        Assumption(
            "operations",
            f"{format_percent(onprem.ops_fraction)} of capex per year (staff, maintenance, space)",
            _source("ops_fraction", onprem.ops_fraction, DEFAULT_OPS_FRACTION),
        ),
        Assumption(
            "facility",
            f"${onprem.facility_usd_per_kw_month:g} per kW-month",
            _source(
                "facility_usd_per_kw_month",
                onprem.facility_usd_per_kw_month,
                DEFAULT_FACILITY_USD_PER_KW_MONTH,
            ),
        ),
        Assumption(
            "utilization",
            f"{format_percent(onprem.utilization)} of hours busy (yearly totals; break-even "
            "does not depend on it)",
            _source("utilization", onprem.utilization, DEFAULT_UTILIZATION),
        ),
        Assumption(
            "hours",
            f"{HOURS_PER_YEAR:,.0f} h per year, {HOURS_PER_MONTH:g} h per month (365.25 days)",
            "model.units",
        ),
        Assumption(
            "cloud price",
            f"{format_money(float(cloud.cloud_price))}/GPU-hour ({cloud.pricing})",
            cloud.price_source or "input",
        ),
        Assumption(
            "cloud billing",
            "only used GPU-hours are paid (instances stopped when idle); committed prices are "
            "taken as the rate per used hour; storage, egress and support are not included",
            "model.tco",
        ),
    ]
    if cloud.pricing == "spot":
        default = cloud_defaults().spot_overhead
        source = (
            f"default: {default.source}"
            if math.isclose(float(cloud.spot_overhead), default.value)
            else "input"
        )
        out.append(
            Assumption(
                "spot interruption overhead",
                f"{format_percent(float(cloud.spot_overhead))} extra GPU-hours",
                source,
            )
        )
    return tuple(out)


def estimate_tco(onprem: OnPremInputs, cloud: CloudInputs, months: int | None = None) -> TcoResult:
    """Compare owning ``onprem`` with renting at ``cloud`` over ``months`` (default: life)."""
    hourly = onprem_hourly(onprem)
    u = onprem.utilization
    per_useful = hourly.total / u
    u_star = break_even_utilization(onprem, cloud)
    return TcoResult(
        onprem=onprem,
        cloud=cloud,
        hourly=hourly,
        onprem_cost_per_gpu_hour=hourly.total,
        onprem_cost_per_useful_gpu_hour=per_useful,
        cloud_cost_per_gpu_hour=cloud.effective_price,
        break_even_utilization=u_star,
        pays_off=u_star <= 1.0,
        owning_cheaper=per_useful <= cloud.effective_price,
        onprem_yearly=onprem_yearly(onprem),
        cloud_yearly=cloud_yearly(onprem, cloud),
        cumulative=cumulative_costs(onprem, cloud, months),
        assumptions=tco_assumptions(onprem, cloud),
    )


# --- demand profiles and hybrid ----------------------------------------------------------------


def demand_profile(
    shape: str,
    months: int,
    gpus: float,
    *,
    growth: float = 0.05,
    burst_probability: float = 0.25,
    burst_multiplier: float = 3.0,
    seed: int = 0,
) -> FloatArray:
    """GPU-hours needed per month: ``gpus`` busy all month (``flat``), growing by ``growth``
    per month from ``gpus`` (``growing``), or ``gpus`` with months of ``burst_multiplier`` ×
    the base picked at random with ``burst_probability`` (``bursty``, reproducible by seed)."""
    require_choice("shape", shape, DEMAND_SHAPES)
    n = require_int("months", months, minimum=1, maximum=1200)
    base = require_non_negative("gpus", gpus) * HOURS_PER_MONTH
    if shape == "flat":
        return np.full(n, base, dtype=np.float64)
    if shape == "growing":
        rate = require_range("growth", growth, -0.5, 1.0)
        profile: FloatArray = base * (1.0 + rate) ** np.arange(n, dtype=np.float64)
        return profile
    probability = require_fraction("burst_probability", burst_probability, allow_zero=True)
    multiplier = require_range("burst_multiplier", burst_multiplier, 1.0, 1000.0)
    seed_value = require_int("seed", seed, minimum=0)
    bursts = np.random.default_rng(seed_value).random(n) < probability
    return np.where(bursts, base * multiplier, base).astype(np.float64)


@dataclass(frozen=True, eq=False)
class HybridResult:
    """Own ``best_gpus`` and rent the rest of a monthly demand (GPU-hours per month)."""

    demand_gpu_hours: FloatArray
    best_gpus: int
    best_cost_usd: float
    owned_gpu_hours: FloatArray  # per month, at best_gpus
    cloud_gpu_hours: FloatArray
    all_cloud_cost_usd: float  # best_gpus = 0
    all_owned_gpus: int  # enough to serve the peak month
    all_owned_cost_usd: float
    gpus_grid: npt.NDArray[np.int64]  # for plots: cost against GPUs owned
    cost_grid: FloatArray
    assumptions: tuple[Assumption, ...]
    formula: str

    @property
    def saving_vs_all_cloud_usd(self) -> float:
        return self.all_cloud_cost_usd - self.best_cost_usd

    @property
    def saving_vs_all_owned_usd(self) -> float:
        return self.all_owned_cost_usd - self.best_cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {
            "months": int(self.demand_gpu_hours.size),
            "demand_gpu_hours": self.demand_gpu_hours.tolist(),
            "best_gpus": self.best_gpus,
            "best_cost_usd": self.best_cost_usd,
            "owned_gpu_hours": self.owned_gpu_hours.tolist(),
            "cloud_gpu_hours": self.cloud_gpu_hours.tolist(),
            "all_cloud_cost_usd": self.all_cloud_cost_usd,
            "all_owned_gpus": self.all_owned_gpus,
            "all_owned_cost_usd": self.all_owned_cost_usd,
            "saving_vs_all_cloud_usd": self.saving_vs_all_cloud_usd,
            "saving_vs_all_owned_usd": self.saving_vs_all_owned_usd,
            "assumptions": [a.to_dict() for a in self.assumptions],
            "formula": self.formula,
        }


HYBRID_FORMULA = (
    "cost(K) = K·(fixed + idle energy)·730.5 h·months + load energy·Σ min(D_m, K·730.5 h) "
    "+ P·Σ max(D_m − K·730.5 h, 0), D_m = GPU-hours needed in month m, P = cloud per useful "
    "GPU-hour. cost(K) is piecewise linear in K with corners at D_m/730.5 h, so the best K is "
    "found exactly among 0, the peak and the whole numbers next to each corner; owning pays "
    "for a GPU that is busy in more than a u* share of the months."
)


def _hybrid_costs(
    onprem: OnPremInputs, cloud: CloudInputs, demand: FloatArray, gpus: npt.NDArray[np.int64]
) -> FloatArray:
    capacity = gpus.astype(np.float64)[:, None] * HOURS_PER_MONTH  # (K, 1)
    owned = np.minimum(demand[None, :], capacity)
    rented = demand[None, :] - owned
    fixed = (onprem.fixed_per_gpu_hour + onprem.energy_idle_per_gpu_hour) * HOURS_PER_MONTH
    costs: FloatArray = (
        gpus.astype(np.float64) * fixed * demand.size
        + onprem.energy_load_per_gpu_hour * owned.sum(axis=1)
        + cloud.effective_price * rented.sum(axis=1)
    )
    return costs


def hybrid_plan(
    onprem: OnPremInputs,
    cloud: CloudInputs,
    demand_gpu_hours: Sequence[float] | FloatArray,
    *,
    gpu_step: int = 1,
) -> HybridResult:
    """Best number of GPUs to own (a multiple of ``gpu_step``) when the rest of the demand is
    rented. Uses the per-GPU costs of ``onprem`` (its ``gpus`` and ``utilization`` are not
    used). Never costs more than all-cloud (K = 0) or all-owned (K = peak)."""
    demand = np.atleast_1d(np.asarray(demand_gpu_hours, dtype=np.float64))
    if demand.ndim != 1 or demand.size == 0:
        raise InputError("demand", "expected GPU-hours for at least one month")
    if not np.all(np.isfinite(demand)) or np.any(demand < 0):
        raise InputError("demand", "GPU-hours per month must be finite and 0 or more")
    step = require_int("gpu_step", gpu_step, minimum=1)
    per_gpu = demand / HOURS_PER_MONTH
    peak = math.ceil(float(per_gpu.max()) / step - _EPS) * step
    corners = per_gpu / step
    candidates = np.unique(
        np.clip(
            np.concatenate(
                [[0, peak], np.floor(corners + _EPS) * step, np.ceil(corners - _EPS) * step]
            ),
            0,
            peak,
        ).astype(np.int64)
    )
    costs = _hybrid_costs(onprem, cloud, demand, candidates)
    best_index = int(np.argmin(costs))  # first minimum: the smallest K among ties
    best = int(candidates[best_index])
    all_cloud = float(costs[candidates == 0][0])
    all_owned = float(costs[candidates == peak][0])
    if peak // step <= 2000:
        grid = np.arange(0, peak + 1, step, dtype=np.int64)
    else:
        grid = np.unique(
            np.concatenate([np.linspace(0, peak // step, 1001).round() * step, candidates])
        ).astype(np.int64)
    owned = np.minimum(demand, best * HOURS_PER_MONTH)
    per_gpu_assumptions = tco_assumptions(replace(onprem, gpus=onprem.gpus_per_server), cloud)
    assumptions = (
        *(a for a in per_gpu_assumptions if a.name != "utilization"),
        Assumption(
            "hybrid",
            f"owned GPUs in steps of {step}, costed pro rata per GPU; owned GPUs serve demand "
            "first, the cloud takes the rest month by month; capex spread evenly over the life",
            "model.tco",
        ),
    )
    return HybridResult(
        demand_gpu_hours=demand,
        best_gpus=best,
        best_cost_usd=float(costs[best_index]),
        owned_gpu_hours=owned,
        cloud_gpu_hours=demand - owned,
        all_cloud_cost_usd=all_cloud,
        all_owned_gpus=peak,
        all_owned_cost_usd=all_owned,
        gpus_grid=grid,
        cost_grid=_hybrid_costs(onprem, cloud, demand, grid),
        assumptions=assumptions,
        formula=HYBRID_FORMULA,
    )


# --- idle cost ---------------------------------------------------------------------------------


def idle_cost(price_per_hour: float, idle_hours: float) -> float:
    """USD paid for GPU-hours nobody used: price × hours."""
    price = require_non_negative("price_per_hour", price_per_hour)
    hours = require_non_negative("idle_hours", idle_hours)
    return price * hours


@dataclass(frozen=True)
class IdleWaste:
    price_per_hour: float
    idle_fraction: float
    gpus: int
    monthly_usd: float
    yearly_usd: float
    assumptions: tuple[Assumption, ...] = field(default=())
    formula: str = ""


def monthly_idle_waste(
    price_per_hour: float, idle_fraction: float = 1.0, gpus: int = 1
) -> IdleWaste:
    """What idle GPUs cost per month: price × 730.5 h × idle fraction × GPUs.

    An A100 idle all month at $2-4/h costs $1,461-2,922 (730.5 h; the often quoted
    "$1,400-2,800" rounds the month to 700 h).
    """
    price = require_non_negative("price_per_hour", price_per_hour)
    fraction = require_fraction("idle_fraction", idle_fraction, allow_zero=True)
    count = require_int("gpus", gpus, minimum=1)
    monthly = idle_cost(price, HOURS_PER_MONTH * fraction) * count
    return IdleWaste(
        price_per_hour=price,
        idle_fraction=fraction,
        gpus=count,
        monthly_usd=monthly,
        yearly_usd=monthly * 12.0,
        assumptions=(
            Assumption(
                "hours per month",
                f"{HOURS_PER_MONTH:g} h (365.25 days / 12)",
                "model.units.HOURS_PER_MONTH",
            ),
            Assumption(
                "price",
                f"{format_money(price)}/GPU-hour, paid whether the GPU works or not",
                "input",
            ),
        ),
        formula="idle cost per month = price per GPU-hour × 730.5 h × idle fraction × GPUs",
    )


__all__ = [
    "DEFAULT_FACILITY_USD_PER_KW_MONTH",
    "DEFAULT_KWH_PRICE",
    "DEFAULT_LIFE_YEARS",
    "DEFAULT_OPS_FRACTION",
    "DEFAULT_PUE",
    "DEFAULT_SPOT_OVERHEAD",
    "DEFAULT_UTILIZATION",
    "DEMAND_SHAPES",
    "CloudInputs",
    "CloudYearly",
    "CostCurves",
    "CumulativeCosts",
    "HourlyCost",
    "HybridResult",
    "IdleWaste",
    "OnPremInputs",
    "TcoResult",
    "YearlyCost",
    "break_even_utilization",
    "cloud_cost_per_useful_hour",
    "cloud_yearly",
    "cost_curves",
    "cumulative_costs",
    "demand_profile",
    "estimate_tco",
    "hybrid_plan",
    "idle_cost",
    "monthly_idle_waste",
    "onprem_cost_per_useful_hour",
    "onprem_hourly",
    "onprem_yearly",
    "payback_month",
]
