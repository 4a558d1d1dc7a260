"""The plan ⇄ scenario mapping without Qt (application.scenario over PlanState)."""

from __future__ import annotations

from desktopapp.application import scenario as mapping
from desktopapp.application.cost_plan import cost_inputs_from_plan
from desktopapp.application.plan import PlanState
from desktopapp.model import planning
from desktopapp.model.memory import MemoryInputs
from desktopapp.model.scenario import CostPlan, Scenario
from desktopapp.model.training import TrainingInputs

TRAINING = TrainingInputs(params=7e9, tokens=1e11, accelerator="h100-sxm", gpus=8, price=2.0)


def test_applying_a_scenario_computes_its_estimates() -> None:
    plan = PlanState()
    scenario = Scenario(name="x", training=TRAINING, memory=MemoryInputs(params=7e9))
    assert mapping.apply_workload(plan, scenario)
    assert plan.estimate is not None and plan.estimate.inputs == TRAINING
    assert plan.memory_estimate is not None and plan.inference_estimate is None
    back = mapping.scenario_from_state(plan, name="back", notes="n")
    assert back.training == TRAINING and back.cost == CostPlan()


def test_the_cost_plan_goes_round_through_cost_inputs() -> None:
    plan = PlanState()
    inputs = cost_inputs_from_plan(CostPlan(), TRAINING)
    assert inputs is not None and inputs.accelerator_id == "h100-sxm"
    assert inputs.demand_source == planning.DEMAND_RUNS  # "auto" with a training workload
    assert inputs.compared == planning.default_compared(planning.offers_with_custom("h100-sxm", ()))
    plan.set_cost_inputs(inputs)
    saved = mapping.cost_plan_of(plan)
    assert saved is not None
    again = cost_inputs_from_plan(saved, TRAINING)
    assert again is not None and again.onprem == inputs.onprem
    assert again.compared == inputs.compared
    mapping.apply_runs_per_month(plan, saved)
    assert plan.runs_per_month == saved.demand.runs_per_month


def test_an_opened_scenarios_price_reaches_every_tab_before_the_workload_tab_is_built() -> None:
    """The Monitor's idle cost follows the workload's price, but the state got it only when
    the Workload tab recomputed: a scenario opened on the Monitor tab costed idle GPUs at the
    $2.00 default instead of the file's price."""
    from desktopapp.application.monitor import idle_price
    from desktopapp.model.scenario import load_scenario
    from tests.application.test_one_answer import REPO

    owned = load_scenario(REPO / "resources/examples/a100-16x-owned.json").scenario
    assert owned.training is not None and owned.training.price is not None
    state = PlanState()
    mapping.apply_workload(state, owned)
    assert state.price.usd_per_gpu_hour == owned.training.price
    assert state.price.source == owned.training.price_source
    shown = idle_price(None, state.price)
    assert shown.usd_per_gpu_hour == owned.training.price
    assert shown.source.startswith("From the Workload tab")
    # a catalog price names its offer, as the Workload tab's does
    rented = load_scenario(REPO / "resources/examples/h100-8x-rented.json").scenario
    mapping.apply_workload(state, rented)
    assert state.price.from_catalog and state.price.offer_name
