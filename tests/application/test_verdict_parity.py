"""Issue 21 item 3 / issue 25 "one Cost story": for the same demand and prices, ``estimate tco
--json``, the Cost tab's comparison and presenter, and ``report --json`` show the same
recommendation, hybrid, fleet and totals (one rule: ``model.planning.make_verdict``, with the
hybrid renting at the cheapest compared price)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktopapp.application.cost_hybrid import hybrid_view
from desktopapp.application.verdict import verdict_text
from desktopapp.cli import run_command
from desktopapp.model.catalog import offers_for
from desktopapp.model.planning import RENT, CostInputs, compare, default_onprem
from desktopapp.model.scenario import DEMAND_TYPED, Scenario

ACC, HOURS, MONTHS, PROFILE = "h100-sxm", 4000.0, 36, "bursty"


def _cli_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    capsys.readouterr()
    assert run_command(argv) == 0
    return json.loads(capsys.readouterr().out)


def _cost_inputs(cli_offer: str) -> CostInputs:
    """The CLI's price and a dearer hyperscaler on-demand price, as the Cost tab compares them."""
    hyperscaler = min(
        (o for o in offers_for(ACC) if o.kind == "hyperscaler" and (o.price("on_demand") or 0) > 0),
        key=lambda o: o.price("on_demand") or 0.0,
    )
    onprem = default_onprem(ACC)
    assert onprem is not None
    return CostInputs(
        accelerator_id=ACC,
        onprem=onprem,
        demand_source=DEMAND_TYPED,
        typed_gpu_hours=HOURS,
        horizon_months=MONTHS,
        profile=PROFILE,
        compared=((hyperscaler.id, "on_demand"), (cli_offer, "on_demand")),
    )


def test_cli_cost_tab_and_report_give_one_verdict(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cli = _cli_json(
        capsys,
        ["estimate", "tco", "--accelerator", ACC, "--gpu-hours-per-month", f"{HOURS:g}",
         "--horizon-months", str(MONTHS), "--profile", PROFILE, "--json"],
    )  # fmt: skip
    plan = cli["plan"]
    inputs = _cost_inputs(cli["cloud_price_source"]["offer_id"])
    comparison = compare(inputs, None, 1.0)
    verdict = comparison.verdict
    assert verdict is not None and comparison.fleet is not None
    # the Cost tab (model + presenter) against the CLI
    assert verdict_text(verdict) == plan["recommendation"]["text"]
    assert verdict.choice == plan["recommendation"]["choice"]
    assert comparison.fleet.gpus == plan["fleet"]["gpus"]
    hybrid = verdict.plan("hybrid")
    assert hybrid is not None
    assert f"own {hybrid.owned_gpus} GPUs" in plan["recommendation"]["text"]
    rent = verdict.plan(RENT)
    assert rent is not None and rent.cost_usd == pytest.approx(plan["renting_usd"])
    # the hybrid panel shows the verdict's hybrid, not another one
    recommendation = comparison.recommendation
    assert recommendation is not None and recommendation.choice == verdict.choice
    view = hybrid_view(comparison, "#777")
    assert not isinstance(view, str)
    assert f"Own {hybrid.owned_gpus} GPUs" in view.summary
    # the report of a scenario holding the same cost plan
    path = tmp_path / "parity.json"
    path.write_text(Scenario(name="parity", cost=inputs.to_plan()).to_json(), encoding="utf-8")
    report = _cli_json(capsys, ["report", str(path), "--json"])
    assert report["verdict"]["text"] == plan["recommendation"]["text"]


def test_cli_text_shows_the_cost_tabs_fleet_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 25 "one Cost story": with a demand, ``estimate tco``'s text describes the fleet the
    plan owns (servers, capex in total, how busy the demand keeps it, the owning rate at that
    utilization, the capex assumption), as the Cost tab's cards and assumptions do, not the
    one-server reference at --utilization."""
    from desktopapp.application.cost import fleet_assumptions, owning_card
    from desktopapp.application.text import busy_percent
    from desktopapp.model import units

    argv = ["estimate", "tco", "--accelerator", ACC, "--gpu-hours-per-month", f"{HOURS:g}",
            "--horizon-months", str(MONTHS), "--profile", PROFILE]  # fmt: skip
    cli = _cli_json(capsys, [*argv, "--json"])
    assert run_command(argv) == 0
    text = capsys.readouterr().out
    comparison = compare(_cost_inputs(cli["cloud_price_source"]["offer_id"]), None, 1.0)
    fleet = comparison.fleet
    assert fleet is not None and fleet.servers > 1  # a fleet unlike the one-server reference
    card = owning_card(comparison)
    row = f"Owning per useful GPU-hour at {busy_percent(fleet.utilization)}"
    line = next(line for line in text.splitlines() if line.startswith(row))
    assert line.split()[-1] == card.value
    assert f"{fleet.gpus} GPUs in {units.plural(fleet.servers, 'server')}" in text
    capex = float(comparison.onprem.server_price) * fleet.servers
    assert f"{units.format_money(capex)} in total" in text
    (assumption,) = [a for a in fleet_assumptions(comparison) if a.name == "capex"]
    flat = " ".join(text.split())
    assert (
        f"× {units.plural(fleet.servers, 'server')}" in flat
        and f"{fleet.servers} servers" in assumption.value
    )
    assert units.format_money(capex) in assumption.value
    assert f"{units.format_percent(comparison.onprem.utilization, 0)}" in flat
