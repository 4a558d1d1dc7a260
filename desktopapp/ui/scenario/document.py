"""The scenario document of one window: file, name, notes, unsaved changes, autosave, recovery.

:class:`ScenarioDocument` is the only place that turns the window's planning state into a
:class:`~desktopapp.model.scenario.Scenario` and back (through
:mod:`desktopapp.application.scenario`). It knows the file the scenario came from, whether
the state differs from what was last opened or saved ("modified"), the recent-files list, and
it autosaves while there are unsaved changes.

"Modified" compares the scenario the window shows with the one last opened or saved, so undoing
an edit clears the mark. Tabs re-publish what they were given in their own form (a loaded file's
``method: auto`` becomes the tab's ``6nd``); that happens while a file is opened (the window
flushes its tabs through :attr:`ScenarioDocument.settle`) or while a tab is first built, and
neither counts as an edit.

Everything that would show a dialog goes through a replaceable callable so tests (and other
front ends) can answer without a window: :attr:`ask_unsaved`, :attr:`show_error`,
:attr:`choose_open_path`, :attr:`choose_save_path`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from desktopapp import scenario_files
from desktopapp.application.cost_plan import cost_inputs_from_plan, default_onprem
from desktopapp.application.scenario import (
    UNTITLED,
    apply_runs_per_month,
    apply_workload,
    cost_plan_of,
    name_after_save_as,
)
from desktopapp.model.scenario import (
    FILE_SUFFIX,
    CostPlan,
    LoadedScenario,
    Scenario,
    ScenarioError,
    load_scenario,
)
from desktopapp.model.validation import user_message
from desktopapp.scenario_files import Autosave
from desktopapp.ui.common.timers import register_timer
from desktopapp.ui.state import AppState

if TYPE_CHECKING:
    from desktopapp.model.planning import CostInputs  # the cost model loads when first used

AUTOSAVE_INTERVAL_MS = 60_000
SAVE, DISCARD, CANCEL = "save", "discard", "cancel"
FILE_FILTER = "Scenario files (*.json);;All files (*)"

AskUnsaved = Callable[[str], str]
ShowError = Callable[[str, str], None]
ChooseOpen = Callable[[], Path | None]
ChooseSave = Callable[[str], Path | None]


class ScenarioDocument(QObject):
    """File, name, notes and unsaved-changes state of the window's scenario.

    Signals:

    - ``changed()``: the file, the name or the modified mark changed (update the title).
    - ``text_changed()``: name or notes were replaced from outside (open, new, recovery).
    - ``recent_changed()``: the recent-files list changed.
    - ``problem(str)``: a file could not be used; the line to show (dialogs are separate).
    """

    changed = Signal()
    text_changed = Signal()
    recent_changed = Signal()
    problem = Signal(str)

    def __init__(
        self,
        state: AppState,
        parent: QObject | None = None,
        *,
        autosave_interval_ms: int = AUTOSAVE_INTERVAL_MS,
        autosave_folder: Path | None = None,
        recent_file: Path | None = None,
        session: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.state = state
        self.session = session or scenario_files.new_session_id()
        self.autosave_folder = autosave_folder
        self.recent_file = recent_file
        self.dialog_parent: QWidget | None = None
        # Replaceable front-end hooks (see the module docstring).
        self.ask_unsaved: AskUnsaved = self._ask_unsaved_dialog
        self.show_error: ShowError = self._error_dialog
        self.choose_open_path: ChooseOpen = self._open_dialog
        self.choose_save_path: ChooseSave = self._save_dialog
        self.settle: Callable[[], None] = lambda: None

        self._path: Path | None = None
        self._name = UNTITLED
        self._notes = ""
        self._baseline: Scenario | None = None
        self._file_cost: tuple[CostInputs | None, CostPlan] | None = None
        self._modified = False
        self._quiet = 0
        self._last_autosave: Scenario | None = None
        self.last_autosave_path: Path | None = None
        self._recent: tuple[str, ...] = scenario_files.load_recent(recent_file)

        from desktopapp.ui.cost.state import cost_state

        self._cost_state = cost_state(state)
        state.workload_changed.connect(self._refresh_modified)
        state.runs_per_month_changed.connect(self._refresh_modified)
        self._cost_state.inputs_changed.connect(self._refresh_modified)
        self._cost_state.result_changed.connect(self._refresh_modified)

        self.autosave_timer = register_timer(QTimer(self))
        self.autosave_timer.setObjectName("scenario-autosave")
        self.autosave_timer.setInterval(max(1, int(autosave_interval_ms)))
        self.autosave_timer.timeout.connect(self.autosave_now)
        self._baseline = self.current_scenario()

    # --- what the window shows ------------------------------------------------------------------
    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def name(self) -> str:
        return self._name

    @property
    def notes(self) -> str:
        return self._notes

    def display_name(self) -> str:
        """The file name, or the scenario's name while it has no file."""
        return self._path.name if self._path is not None else self._name

    def is_modified(self) -> bool:
        return self._modified

    def is_fresh(self) -> bool:
        """No file and nothing changed: the window shows just the app's name."""
        return self._path is None and not self._modified

    def cost_plan(self) -> CostPlan:
        """The cost section to save: the file's own plan while the Cost tab still holds what
        was made of it (and the runs per month are the file's), else the tab's current plan."""
        inputs = self._cost_state.inputs
        if (
            self._file_cost is not None
            and inputs == self._file_cost[0]
            and self.state.runs_per_month == self._file_cost[1].demand.runs_per_month
        ):
            return self._file_cost[1]
        plan = cost_plan_of(self.state.plan)
        if plan is not None:
            return plan
        return self._file_cost[1] if self._file_cost is not None else CostPlan()

    def current_scenario(self) -> Scenario:
        return Scenario(
            name=self._name,
            notes=self._notes,
            training=self.state.training,
            memory=self.state.memory,
            inference=self.state.inference,
            cost=self.cost_plan(),
            advisor=self.state.plan.advisor_choice,  # issue 24: What to run on
        )

    def set_name(self, name: str) -> None:
        name = name.strip() or UNTITLED
        Scenario(name=name)  # ValueError "name: …" when too long
        if name != self._name:
            self._name = name
            self._refresh_modified()
            self.changed.emit()

    def set_notes(self, notes: str) -> None:
        Scenario(notes=notes)  # ValueError "notes: …" when too long
        if notes != self._notes:
            self._notes = notes
            self._refresh_modified()

    # --- modified -------------------------------------------------------------------------------
    def _refresh_modified(self, *_args: object) -> None:
        if self._quiet:
            return
        modified = self._baseline is None or self.current_scenario() != self._baseline
        if modified != self._modified:
            self._modified = modified
            self.changed.emit()

    @contextmanager
    def _applying(self) -> Iterator[None]:
        """State changes inside are the document's own (opening, new, recovery)."""
        self._quiet += 1
        try:
            yield
        finally:
            self._quiet -= 1

    def _rebaseline(self, modified: bool = False) -> None:
        """What the window now shows counts as the saved state (or, ``modified``, not)."""
        if self._file_cost is not None:
            self._file_cost = (self._cost_state.inputs, self._file_cost[1])
        self._baseline = None if modified else self.current_scenario()
        was = self._modified
        self._modified = modified
        if was != modified:
            self.changed.emit()

    def tab_loaded(self, was_modified: bool) -> None:
        """A tab was just built and published its first values: not an edit by the user."""
        if was_modified:
            self._refresh_modified()
        else:
            self._rebaseline()

    @contextmanager
    def tab_loading(self) -> Iterator[None]:
        """Wrap the building of a tab: what it publishes meanwhile is not an edit."""
        was_modified = self._modified
        with self._applying():
            yield
        self.tab_loaded(was_modified)

    # --- applying a scenario --------------------------------------------------------------------
    def _apply(
        self, scenario: Scenario, keep_file_cost: bool = True, preset_id: str | None = None
    ) -> None:
        with self._applying():
            self._name = scenario.name or UNTITLED
            self._notes = scenario.notes
            apply_workload(self.state.plan, scenario, preset_id)
            plan = scenario.cost
            apply_runs_per_month(self.state.plan, plan)
            inputs = cost_inputs_from_plan(plan, scenario.training)
            if inputs is not None:
                self._cost_state.set_inputs(inputs)
            self._file_cost = (inputs, plan) if keep_file_cost else None
            self.settle()
            if self._file_cost is not None:
                self._file_cost = (self._cost_state.inputs, plan)
        self.text_changed.emit()

    def default_scenario(self) -> Scenario:
        """What File → New starts from: the Workload tab's default preset, catalog price, and
        owning defaults for its accelerator."""
        from desktopapp.model.presets import get_preset
        from desktopapp.model.training import with_catalog_price
        from desktopapp.ui.estimate.tab import DEFAULT_PRESET

        preset = get_preset(DEFAULT_PRESET)
        training = with_catalog_price(preset.to_training_inputs())
        memory = preset.to_memory_inputs() if preset.has_memory_estimate else None
        onprem = None if training.accelerator is None else default_onprem(training.accelerator)
        cost = CostPlan(accelerator=training.accelerator, on_prem=onprem)
        return Scenario(name=UNTITLED, training=training, memory=memory, cost=cost)

    # --- file actions ---------------------------------------------------------------------------
    def confirm_discard(self) -> bool:
        """Before replacing or closing modified work: Save / Discard / Cancel. True: go on."""
        if not self._modified:
            return True
        answer = self.ask_unsaved(self.display_name())
        if answer == SAVE:
            return self.save()
        return answer == DISCARD

    def new(self) -> bool:
        if not self.confirm_discard():
            return False
        from desktopapp.ui.estimate.tab import DEFAULT_PRESET

        self._apply(self.default_scenario(), keep_file_cost=False, preset_id=DEFAULT_PRESET)
        self._path = None
        self._rebaseline()
        self._last_autosave = None
        self.changed.emit()
        self.state.show_status("New scenario", 4000)
        return True

    def open_dialog(self) -> bool:
        if not self.confirm_discard():
            return False
        path = self.choose_open_path()
        return False if path is None else self.open(path, confirm=False)

    def open(self, path: str | Path, *, confirm: bool = True, dialog: bool = True) -> bool:
        """Open a scenario file. A file that cannot be used changes nothing: the message goes to
        :attr:`show_error` (``dialog``) or the ``problem`` signal, and to the status bar."""
        target = Path(path)
        if confirm and not self.confirm_discard():
            return False
        try:
            loaded = load_scenario(target)
        except ScenarioError as exc:
            self._report(f"Could not open {target.name}", user_message(exc), dialog)
            if "file not found" in str(exc):
                self._set_recent(scenario_files.remove_recent(self._recent, target))
            return False
        self._open_loaded(target, loaded)
        return True

    def _open_loaded(self, target: Path, loaded: LoadedScenario) -> None:
        self._apply(loaded.scenario)
        self._path = Path(scenario_files.normalise_path(target))
        self._rebaseline()
        self._last_autosave = None
        self._set_recent(scenario_files.add_recent(self._recent, self._path))
        self.changed.emit()
        if loaded.migrated:
            self.state.show_status(
                f"Opened {target.name}: converted from format version {loaded.stored_version} "
                "to the current one; saving will upgrade the file",
                0,
            )
        else:
            self.state.show_status(f"Opened {target.name}: {loaded.scenario.name}", 8000)

    def save(self) -> bool:
        if self._path is None:
            return self.save_as()
        return self._write(self._path)

    def save_as(self, path: str | Path | None = None) -> bool:
        target = Path(path) if path is not None else self.choose_save_path(self._suggested_name())
        if target is None:
            return False
        if not target.suffix:
            target = target.with_suffix(FILE_SUFFIX)
        previous = self._name
        self._name = name_after_save_as(previous, self._path, target)
        if self._name != previous:
            self.text_changed.emit()
        if self._write(target):
            return True
        if self._name != previous:  # nothing was saved: the name stays what it was
            self._name = previous
            self.text_changed.emit()
        return False

    def _suggested_name(self) -> str:
        if self._path is not None:
            return str(self._path)
        stem = "".join(c if c.isalnum() or c in "-_ ." else "_" for c in self._name).strip()
        return f"{stem or 'scenario'}{FILE_SUFFIX}"

    def _write(self, target: Path) -> bool:
        why = self.state.plan.not_current_text()
        if why:  # the state holds the last valid inputs: a file would mix old and new sections
            self._report(f"Could not save {target.name}", f"Not saved: {why}.", True)
            return False
        scenario = self.current_scenario()
        try:
            scenario.save(target)
        except (OSError, ScenarioError) as exc:
            detail = (
                exc.strerror if isinstance(exc, OSError) and exc.strerror else user_message(exc)
            )
            self._report(f"Could not save {target.name}", f"{target.name}: {detail}", True)
            return False
        self._path = Path(scenario_files.normalise_path(target))
        self._file_cost = (self._cost_state.inputs, scenario.cost)
        self._baseline = scenario
        self._modified = False
        self._last_autosave = None
        scenario_files.clear_autosaves(self.session, folder=self.autosave_folder)
        self.last_autosave_path = None
        self._set_recent(scenario_files.add_recent(self._recent, self._path))
        self.changed.emit()
        self.state.show_status(f"Saved {target.name}", 6000)
        return True

    def _report(self, title: str, message: str, dialog: bool) -> None:
        self.state.show_status(message, 0)
        self.problem.emit(message)
        if dialog:
            self.show_error(title, message)

    # --- recent files ---------------------------------------------------------------------------
    @property
    def recent(self) -> tuple[str, ...]:
        """Recent files that still exist, newest first."""
        return scenario_files.existing_recent(self._recent)

    def _set_recent(self, recent: Sequence[str]) -> None:
        recent = tuple(recent)
        if recent == self._recent:
            return
        self._recent = recent
        try:
            scenario_files.save_recent(recent, self.recent_file)
        except OSError as exc:
            self.state.show_status(f"Could not remember recent files: {exc}", 6000)
        self.recent_changed.emit()

    def clear_recent(self) -> None:
        self._set_recent(())

    # --- autosave and recovery ------------------------------------------------------------------
    def start_autosave(self) -> None:
        self.autosave_timer.start()

    def autosave_now(self) -> Path | None:
        """Write this session's autosave if there are unsaved changes not yet autosaved."""
        if not self._modified:
            return None
        scenario = self.current_scenario()
        if scenario == self._last_autosave and self.last_autosave_path is not None:
            return self.last_autosave_path
        try:
            written = scenario_files.write_autosave(
                scenario, self._path, self.session, folder=self.autosave_folder
            )
        except (OSError, ScenarioError) as exc:
            self.state.show_status(f"Autosave failed: {exc}", 8000)
            return None
        if self.last_autosave_path is not None and self.last_autosave_path != written:
            scenario_files.discard_autosave(self.last_autosave_path)
        self._last_autosave = scenario
        self.last_autosave_path = written
        return written

    def recovery_candidates(self) -> list[Autosave]:
        """Autosaves of earlier sessions that ended without saving (newest first)."""
        return scenario_files.recovery_candidates(
            self.session,
            folder=self.autosave_folder,
            is_running=scenario_files.process_is_running,  # looked up now: tests replace it
        )

    def restore(self, autosave: Autosave) -> None:
        """Show recovered work: the autosave's scenario, unsaved, for its document."""
        self._apply(autosave.scenario, keep_file_cost=False)
        self._path = autosave.document
        self._rebaseline(modified=True)
        scenario_files.discard_autosave(autosave)
        self.changed.emit()
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(autosave.saved_at))
        self.state.show_status(
            f"Recovered unsaved work of {autosave.title} from {when}; save it to keep it", 0
        )

    def discard_recovery(self, autosaves: Sequence[Autosave]) -> None:
        for autosave in autosaves:
            scenario_files.discard_autosave(autosave)

    def shutdown(self, clean: bool = True) -> None:
        """Stop autosaving; a clean exit removes this session's autosaves."""
        self.autosave_timer.stop()
        if clean:
            scenario_files.clear_autosaves(self.session, folder=self.autosave_folder)

    # --- default dialogs ------------------------------------------------------------------------
    def _ask_unsaved_dialog(self, name: str) -> str:
        box = QMessageBox(self.dialog_parent)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Unsaved changes")
        box.setText(f"Save the changes to {name}?")
        box.setInformativeText("Your changes are lost if you don't save them.")
        buttons = QMessageBox.StandardButton
        box.setStandardButtons(buttons.Save | buttons.Discard | buttons.Cancel)
        box.setDefaultButton(buttons.Save)
        answer = box.exec()
        if answer == buttons.Save:
            return SAVE
        return DISCARD if answer == buttons.Discard else CANCEL

    def _error_dialog(self, title: str, message: str) -> None:
        box = QMessageBox(self.dialog_parent)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(title)
        box.setText(title)
        box.setInformativeText(message)
        box.exec()

    def _open_dialog(self) -> Path | None:
        start = str(self._path.parent) if self._path is not None else ""
        name, _filter = QFileDialog.getOpenFileName(
            self.dialog_parent, "Open scenario", start, FILE_FILTER
        )
        return Path(name) if name else None

    def _save_dialog(self, suggested: str) -> Path | None:
        name, _filter = QFileDialog.getSaveFileName(
            self.dialog_parent, "Save scenario as", suggested, FILE_FILTER
        )
        return Path(name) if name else None
