"""The window's plan (:class:`~desktopapp.application.plan.PlanState`) ⇄
:class:`~desktopapp.model.scenario.Scenario`, in one place, without Qt.

What a scenario file holds and where it lives in the window:

=====================  ==========================================================
scenario               window
=====================  ==========================================================
``training``           ``PlanState.training`` (Workload tab)
``memory``             ``PlanState.memory``
``inference``          ``PlanState.inference``
``cost``               ``PlanState.cost_inputs`` (Cost tab), through ``to_plan``
``cost.demand``        ``CostInputs`` demand fields; ``runs_per_month`` is
                       ``PlanState.runs_per_month``
``cost.compared``      ``CostInputs.compared`` (None: the tab's default spread)
``name``, ``notes``    the scenario document (Notes panel)
=====================  ==========================================================

A cost plan read from a file becomes Cost tab inputs with
:func:`desktopapp.application.cost_plan.cost_inputs_from_plan`. The measured accelerator and
the estimates are not part of a scenario (the estimates are recomputed from the inputs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from desktopapp.application.plan import PlanState, PriceChoice
from desktopapp.model.scenario import MAX_NAME_CHARS, CostPlan, Scenario

UNTITLED = "Untitled"


def name_after_save_as(name: str, old_path: Path | None, new_path: Path) -> str:
    """The scenario's name once it is saved as ``new_path`` (File → Save As).

    A name the program gave follows the file: "Untitled", or the old file's stem ("a" of
    ``a.json``, the name a copy would otherwise keep, so three copies read "a, a, a")
    becomes the new file's stem. A name the user typed (anything else) is kept. Saving to the
    same file changes nothing.
    """
    if old_path is not None and Path(old_path) == Path(new_path):
        return name
    stem = Path(new_path).stem.strip()[:MAX_NAME_CHARS] or UNTITLED
    automatic = name.strip() in ("", UNTITLED) or (
        old_path is not None and name.strip() == Path(old_path).stem.strip()[:MAX_NAME_CHARS]
    )
    return stem if automatic else name


def scenario_from_state(
    state: PlanState, *, name: str, notes: str, cost: CostPlan | None = None
) -> Scenario:
    """The scenario the window shows (``cost`` defaults to the Cost tab's plan, if any)."""
    plan = cost if cost is not None else cost_plan_of(state)
    return Scenario(
        name=name,
        notes=notes,
        training=state.training,
        memory=state.memory,
        inference=state.inference,
        cost=plan if plan is not None else CostPlan(),
        advisor=getattr(state, "advisor_choice", None),  # issue 24: What to run on
    )


def apply_workload(state: PlanState, scenario: Scenario, preset_id: str | None = None) -> bool:
    """Put the scenario's estimation inputs into the state (the tabs follow its signals).

    ``preset_id`` names the workload preset the inputs are (File → New); a scenario file names
    none. The Workload tab computes the estimates when it is open; when it is not (the Cost tab
    was opened first), the estimates of the new inputs are computed here with the model, so the
    other tabs never plan with the previous scenario's figures.
    """
    changed = state.set_workload(
        training=scenario.training,
        memory=scenario.memory,
        inference=scenario.inference,
        preset_id=preset_id,
    )
    state.advisor_choice = scenario.advisor  # issue 24: the What to run on view's choice
    if scenario.training is not None:
        # the scenario's price for every tab at once (the Monitor's idle cost follows it), as
        # the Workload tab publishes it when it recomputes; it may not be built yet
        state.set_price(price_choice_of(scenario.training))
    refresh_estimates(state)
    return changed


def price_choice_of(training: Any) -> PriceChoice:
    """The training price and where it came from, with the catalog offer its source names."""
    from desktopapp.model.catalog import offer_named_in

    offer = offer_named_in(training.price_source) if training.price is not None else None
    return PriceChoice(
        training.price,
        training.price_source,
        from_catalog=offer is not None,
        offer_name="" if offer is None else offer.name,
        offer_date="" if offer is None else offer.price_date,
    )


def refresh_estimates(state: PlanState) -> None:
    """Estimates for the state's inputs where the state holds none for exactly these inputs."""
    from desktopapp.application.snapshot import Snapshot, WorkloadRequest, compute_snapshot
    from desktopapp.model.inference import estimate_inference

    # the training headline and the plan's memory as the Workload tab shows them (issue 21:
    # one snapshot), also while that tab is not built
    snap: list[Snapshot] = []

    def snapshot(_inputs: Any) -> Snapshot:
        if not snap:
            request = WorkloadRequest(
                training=state.training,
                memory=state.memory,
                preset_id=state.preset_id,
                measured_busbw=state.measured_busbw,
                with_verdict=False,
            )
            snap.append(compute_snapshot(request))
        return snap[0]

    _refresh(
        state.training,
        state.estimate,
        lambda t: snapshot(t).training_estimate,
        state.set_estimate,
    )
    _refresh(
        state.memory,
        state.memory_estimate,
        lambda m: snapshot(m).memory,
        state.set_memory_estimate,
    )
    _refresh(
        state.inference,
        state.inference_estimate,
        estimate_inference,
        state.set_inference_estimate,
    )


def _refresh(
    inputs: Any,
    current: Any,
    estimate: Callable[[Any], Any],
    publish: Callable[[Any], object],
) -> None:
    """Publish ``estimate(inputs)`` unless ``current`` already is for these inputs; None when
    there are no inputs or they cannot be estimated."""
    if inputs is None:
        publish(None)
    elif current is None or current.inputs != inputs:
        try:
            publish(estimate(inputs))
        except ValueError:
            publish(None)


def cost_plan_of(state: PlanState) -> CostPlan | None:
    """The Cost tab's plan (with the plan's runs per month), or None while it has no inputs."""
    try:
        return state.cost_plan(state.runs_per_month)
    except ValueError:  # inputs the model refuses: nothing valid to save
        return None


def apply_runs_per_month(state: PlanState, plan: CostPlan) -> None:
    """The plan's runs per month into the shared state (the Cost tab follows its signal)."""
    state.set_runs_per_month(plan.demand.runs_per_month)


# --- the window's document policies (title, labels, recent files, report path), without Qt ---

MAX_RECENT_SHORTCUTS = 9  # Ctrl+Alt+1 … Ctrl+Alt+9
REPORT_SUFFIX = ".pdf"


def window_title(app_name: str, display_name: str, fresh: bool) -> str:
    """``"plan.json[*] — ML Capacity Planner"`` (Qt shows ``[*]`` as "*" while modified);
    just the app's name for a fresh window (no file, nothing changed)."""
    return app_name if fresh else f"{display_name}[*] — {app_name}"


def scenario_label(name: str, path: Path | None) -> str:
    """What the compare view and report call the window's scenario: the file name, or
    ``"name (file.json)"`` when the name is not the file's stem, or the name without a file."""
    if path is None:
        return name
    return path.name if name == path.stem else f"{name} ({path.name})"


def recent_entries(recent: Sequence[str]) -> list[tuple[str, str, int | None]]:
    """File → Open Recent: (menu text, path, shortcut digit or None) per file, newest first:
    ``("&1 plan.json", "/w/plan.json", 1)``; the tenth and later have no accelerator key."""
    out: list[tuple[str, str, int | None]] = []
    for index, path in enumerate(recent):
        name = Path(path).name
        text = f"&{index + 1} {name}" if index < 9 else name
        out.append((text, path, index + 1 if index < MAX_RECENT_SHORTCUTS else None))
    return out


def suggested_report_path(path: Path | None, name: str) -> Path:
    """Where File → Export Report suggests writing: ``<file stem>-report.pdf`` beside the
    scenario's file, else ``<name>-report.pdf``; characters a file name cannot hold become
    ``_``."""
    stem = path.stem if path is not None else (name or "scenario")
    safe = "".join(c if c.isalnum() or c in "-_ " else "_" for c in stem).strip() or "report"
    file_name = f"{safe}-report{REPORT_SUFFIX}"
    return path.parent / file_name if path is not None else Path(file_name)


def report_target(chosen: Path) -> Path:
    """The file a report is written to: ``.pdf`` added or replacing another suffix."""
    return chosen if chosen.suffix.lower() == REPORT_SUFFIX else chosen.with_suffix(REPORT_SUFFIX)


def report_saved_text(file_name: str, page_count: int) -> str:
    """The status line after a report was written."""
    pages = f"{page_count} page{'s' if page_count != 1 else ''}"
    return f"Report saved: {file_name} ({pages})"


def recovery_text(title: str, saved_at: float, older: int) -> str:
    """The banner offering work autosaved by a session that ended unexpectedly (rich text):
    its title, when it was saved (local time) and how many older autosaves there are."""
    import html
    import time

    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(saved_at))
    extra = f" ({older} older autosave{'s' if older != 1 else ''} too)" if older else ""
    return (
        "<b>Unsaved work was found</b> from a session that ended unexpectedly: "
        f"{html.escape(title)}, autosaved {when}{extra}."
    )
