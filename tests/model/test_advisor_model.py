"""model/advisor.py (issue 24): constraints, Pareto front, ranking, the recommendation."""

from __future__ import annotations

import math
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktopapp.model import advisor as adv
from desktopapp.model.validation import InputError

TODAY = date(2026, 11, 28)


def _offer(pricing: str = "on_demand", price_date: str = "2026-06", stale: bool = False):
    return adv.OfferRef(pricing, "Lambda", "Lambda 8x H100", "us-east", price_date, "x", "", stale)


def _train(acc="h100-sxm", gpus=8, pricing="on_demand", days=10.0, cost=1000.0, name="H100"):
    return adv.TrainOption(
        accelerator=acc,
        accelerator_name=name,
        gpus=gpus,
        precision="bf16",
        offer=_offer(pricing),
        price_usd_per_gpu_hour=2.0,
        wall_days=days,
        gpu_hours=cost / 2.0,
        cost_usd=cost,
        cost_low_usd=cost * 0.8,
        cost_high_usd=cost * 1.3,
        plan="DP 8",
    )


# --- constraints --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"deadline_days": 0}, "deadline_days"),
        ({"deadline_days": -2}, "deadline_days"),
        ({"budget_usd": 0}, "budget"),
        ({"max_gpus": 0}, "max_gpus"),
        ({"pricing": ("cheap",)}, "pricing"),
        ({"include": ("h100-sxm",), "exclude": ("h100-sxm",)}, "exclude"),
    ],
)
def test_bad_constraints_name_their_field(kwargs, field):
    with pytest.raises(InputError) as info:
        adv.Constraints(**kwargs)
    assert info.value.field == field


def test_pricing_words_accept_the_cli_spelling():
    c = adv.Constraints(pricing=("on-demand", "spot", "own", "committed-3yr"))
    assert c.pricing == ("on_demand", "spot", "owned", "committed_3yr")
    assert adv.Constraints.from_dict(c.to_dict()) == c


def test_stale_rule_is_a_year():
    assert adv.is_stale("2025-06", TODAY)
    assert not adv.is_stale("2026-03", TODAY)
    assert "stale" in _offer(stale=True).label()
    assert "stale" not in _offer().label()
    assert "2026 price" in _offer().label()


# --- Pareto front -------------------------------------------------------------------------------


def test_pareto_front_small_case():
    xs = [1.0, 2.0, 3.0, 2.0, 1.0]
    ys = [5.0, 3.0, 1.0, 4.0, 6.0]
    assert adv.pareto_mask(xs, ys) == [True, True, True, False, False]


points = st.lists(
    st.tuples(st.floats(0.1, 100, allow_nan=False), st.floats(0.1, 100, allow_nan=False)),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60)
@given(points)
def test_pareto_front_is_exactly_the_undominated_points(pts):
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    mask = adv.pareto_mask(xs, ys)

    def dominated(i):
        return any(
            xs[j] <= xs[i] and ys[j] <= ys[i] and (xs[j], ys[j]) != (xs[i], ys[i])
            for j in range(len(pts))
        )

    for i in range(len(pts)):
        assert mask[i] == (not dominated(i))


# --- ranking and recommendation -----------------------------------------------------------------


def test_ranked_by_cost_among_those_meeting_the_deadline():
    opts = [
        _train("a", days=40, cost=100),
        _train("b", days=20, cost=300),
        _train("c", days=10, cost=500),
    ]
    ranked = adv.rank_training(opts, adv.Constraints(deadline_days=30))
    assert [o.accelerator for o in ranked] == ["b", "c", "a"]
    assert [o.meets_constraints for o in ranked] == [True, True, False]
    assert "deadline" in ranked[2].misses
    assert all(o.pareto for o in ranked)


def test_budget_alone_ranks_by_time():
    opts = [_train("a", days=40, cost=100), _train("b", days=20, cost=300)]
    ranked = adv.rank_training(opts, adv.Constraints(budget_usd=500))
    assert ranked[0].accelerator == "b"


def test_recommendation_reads_like_the_issue():
    opts = [
        _train("h100-sxm", 256, days=31, cost=1.2e6, name="H100"),
        _train("h200-sxm", 512, days=22, cost=1.2e6 * 1.18, name="H200"),
    ]
    c = adv.Constraints(deadline_days=40)
    text = adv.training_recommendation(adv.rank_training(opts, c), c)
    assert text.startswith("Rent 256 H100 on-demand (Lambda us-east, 2026 price): 31 days, $1.2M")
    assert "(likely $0.96-1.6M)" in text
    assert "512 H200 on-demand is 9 days faster for 18% more." in text


def test_owning_sentence():
    top = adv.rank_training([_train()], adv.Constraints())[0]
    note = adv.OwningNote(0.7, 4.0, 0.5)
    text = adv.training_recommendation([top], adv.Constraints(), note)
    assert "Owning pays off only above 70% utilization over 4 years." in text
    never = adv.training_recommendation([top], adv.Constraints(), adv.OwningNote(1.4, 4, 0.5))
    assert "does not pay off at any utilization" in never
    unknown = adv.training_recommendation([top], adv.Constraints(), adv.OwningNote(math.nan, 0, 0))
    assert "Owning H100 is not compared: the catalog has no server price" in unknown


def test_stale_price_is_marked_in_the_recommendation():
    opt = _train()
    stale = adv.TrainOption(**{**opt.__dict__, "offer": _offer(price_date="2024-01", stale=True)})
    text = adv.training_recommendation(
        adv.rank_training([stale], adv.Constraints()), adv.Constraints()
    )
    assert "stale" in text


train_options = st.lists(
    st.builds(
        _train,
        acc=st.sampled_from(["a", "b", "c", "d"]),
        gpus=st.sampled_from([8, 64, 512]),
        days=st.floats(0.5, 200),
        cost=st.floats(1e3, 1e7),
    ),
    min_size=0,
    max_size=12,
)
constraints = st.builds(
    adv.Constraints,
    deadline_days=st.none() | st.floats(1, 100),
    budget_usd=st.none() | st.floats(1e3, 1e7),
)


@settings(max_examples=150)
@given(train_options, constraints)
def test_recommendation_names_a_meeting_option_or_the_binding_constraint(opts, c):
    ranked = adv.rank_training(opts, c)
    text = adv.training_recommendation(ranked, c)
    meeting = [o for o in ranked if o.meets_constraints]
    if meeting:
        top = ranked[0]
        assert top.meets_constraints
        assert text.startswith(f"Rent {top.gpus:,} {top.accelerator_name}")
        assert c.deadline_days is None or top.wall_days <= c.deadline_days
        assert c.budget_usd is None or top.cost_usd <= c.budget_usd
    elif ranked:
        assert text.startswith("No option meets the constraints")
        assert "bind" in text
        if c.deadline_days is not None and all(o.wall_days > c.deadline_days for o in ranked):
            assert "deadline binds" in text
        if c.budget_usd is not None and all(o.cost_usd > c.budget_usd for o in ranked):
            assert "budget binds" in text
    else:
        assert text.startswith("No option can run this workload")


@settings(max_examples=100)
@given(train_options, st.floats(1, 100), st.floats(0.1, 0.99))
def test_tighter_deadline_never_lowers_the_best_cost(opts, deadline, shrink):
    loose = adv.rank_training(opts, adv.Constraints(deadline_days=deadline))
    tight = adv.rank_training(opts, adv.Constraints(deadline_days=deadline * shrink))
    if tight and tight[0].meets_constraints:
        assert loose[0].meets_constraints
        assert tight[0].cost_usd >= loose[0].cost_usd


def test_short_names():
    assert adv.short_name("NVIDIA B200 (HGX, 1000W)", "NVIDIA") == "B200"
    assert adv.short_name("Google TPU v6e (Trillium)", "Google") == "TPU v6e"


# --- the scenario file keeps the constraints and the chosen option -------------------------------


def test_scenario_round_trip_keeps_the_choice():
    from desktopapp.model.scenario import Scenario

    choice = adv.AdvisorChoice.of(
        "train", adv.Constraints(deadline_days=30, budget_usd=2e6, pricing=("spot", "owned")),
        _train("h100-sxm", 256, "on_demand"),
    )  # fmt: skip
    text = Scenario(name="x", advisor=choice).to_json()
    back = Scenario.from_json(text)
    assert back.advisor == choice
    assert back.advisor.constraints().deadline_days == 30
    assert (back.advisor.accelerator, back.advisor.gpus) == ("h100-sxm", 256)
    assert "advisor" not in Scenario(name="y").to_dict()  # other files unchanged


def test_scenario_with_a_bad_choice_is_refused_naming_the_field():
    import json

    from desktopapp.model.scenario import Scenario, ScenarioError

    doc = Scenario(name="x", advisor=adv.AdvisorChoice(deadline_days=3)).to_dict()
    doc["advisor"]["deadline_days"] = 0
    with pytest.raises(ScenarioError, match=r"advisor\.deadline_days"):
        Scenario.from_json(json.dumps(doc))


def _serve(acc="h100-sxm", gpus=1, replicas=1, monthly=1000.0, tpot=0.03, pricing="spot"):
    return adv.ServeOption(
        accelerator=acc,
        accelerator_name=acc.upper(),
        gpus_per_replica=gpus,
        precision="bf16",
        offer=_offer(pricing),
        price_usd_per_gpu_hour=2.0,
        concurrency=64,
        replicas=replicas,
        replicas_low=replicas,
        replicas_high=replicas + 1,
        tokens_per_second_per_replica=1000.0,
        ttft_seconds=0.2,
        tpot_seconds=tpot,
        cost_per_month_usd=monthly,
        cost_low_usd=monthly,
        cost_high_usd=monthly * 1.5,
        cost_per_million_tokens=1.0,
    )


serve_options = st.lists(
    st.builds(
        _serve,
        acc=st.sampled_from(["a", "b", "c"]),
        gpus=st.sampled_from([1, 2, 8]),
        replicas=st.integers(1, 40),
        monthly=st.floats(100, 1e6),
        tpot=st.floats(0.005, 0.2),
    ),
    max_size=10,
)


@settings(max_examples=150)
@given(
    serve_options,
    st.builds(
        adv.Constraints,
        budget_usd=st.none() | st.floats(100, 1e6),
        max_gpus=st.none() | st.integers(1, 200),
    ),
)
def test_serving_recommendation_names_a_meeting_fleet_or_the_binding_constraint(opts, c):
    ranked = adv.rank_serving(opts, c)
    text = adv.serving_recommendation(ranked, c)
    costs = [o.cost_per_month_usd for o in ranked if o.meets_constraints]
    assert costs == sorted(costs)
    if any(o.meets_constraints for o in ranked):
        top = ranked[0]
        assert top.meets_constraints and text.startswith("Rent ")
        assert f"{top.replicas:,} replica" in text
        assert c.budget_usd is None or top.cost_per_month_usd <= c.budget_usd
        assert c.max_gpus is None or top.gpus <= c.max_gpus
    elif ranked:
        assert text.startswith("No option meets the constraints") and "bind" in text
    else:
        assert text.startswith("No option serves this load")


def _left_out(kind: str, n: int, reason: str) -> list[adv.Excluded]:
    return [
        adv.Excluded(accelerator=f"acc-{i}", gpus=8, pricing=None, kind=kind, reason=reason)
        for i in range(n)
    ]


def test_nothing_serves_names_what_ruled_out_the_priced_options_not_the_unpriced_ones():
    """An impossible latency target: the catalog's many unpriced options must not be named as
    the cause (they were never tried)."""
    excluded = (
        _left_out(adv.NO_PRICE, 130, "no 1-year committed catalog offer for X")
        + _left_out(adv.TARGETS, 107, "time per output token 35.6 ms > target 1.00 µs")
        + _left_out(adv.MEMORY, 40, "the weights leave no room")
    )
    text = adv.serving_recommendation([], adv.Constraints(), excluded=excluded)
    assert text.startswith(
        "No option serves this load: 107 options were left out for latency targets, "
        "e.g. time per output token 35.6 ms > target 1.00 µs."
    )
    assert text.endswith("130 more have no catalog price for the pricing searched.")
    train = adv.training_recommendation([], adv.Constraints(), excluded=excluded)
    assert train.startswith("No option can run this workload: 107 options were left out for")


def test_nothing_priced_says_so():
    excluded = _left_out(adv.NO_PRICE, 1, "no 1-year committed catalog offer for X")
    text = adv.serving_recommendation([], adv.Constraints(), excluded=excluded)
    assert text == (
        "No option serves this load: 1 option was left out for no price, "
        "e.g. no 1-year committed catalog offer for X."
    )


def test_nothing_runs_gives_the_commonest_cause_as_its_example():
    """One accelerator without interconnect data came first and stood for 100 options refused
    for another reason."""
    excluded = [
        adv.Excluded("tpu-v3", None, None, adv.NOT_MODELLED, "no interconnect data for TPU v3"),
        *[
            adv.Excluded(f"acc-{i}", 8, None, adv.NOT_MODELLED, f"8 × GPU {i}: model too odd")
            for i in range(100)
        ],
    ]
    text = adv.training_recommendation([], adv.Constraints(), excluded=excluded)
    assert "101 options were left out for not modelled, e.g. 8 × GPU 0: model too odd" in text


@pytest.mark.parametrize(
    ("low", "high", "text"),
    [
        (18e3, 89e3, "$18-89k"),
        (2e12, 5e12, "$2.0-5.0T"),
        # 1e18 requests/s printed "(likely $34821733148-104795809838B)"
        (3.48e19, 1.05e20, "$3.5×10^19-$1.0×10^20"),
    ],
)
def test_a_cost_range_reads_at_every_scale(low: float, high: float, text: str) -> None:
    assert adv._range(low, high) == text
