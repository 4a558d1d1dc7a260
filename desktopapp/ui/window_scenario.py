"""The main window's scenario commands beyond open and save (those are
:class:`~desktopapp.ui.scenario.document.ScenarioDocument`'s): the Compare dialog, File →
Export report (a PDF of the current scenario and the pinned ones) and the crash-recovery
banner. Texts and paths come from :mod:`desktopapp.application.scenario`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QFileDialog, QWidget

from desktopapp.application.scenario import (
    recovery_text,
    report_saved_text,
    report_target,
    scenario_label,
    suggested_report_path,
)
from desktopapp.ui.common.theme import current_scale, current_theme
from desktopapp.ui.scenario.document import ScenarioDocument
from desktopapp.ui.scenario.panels import MessageBanner

if TYPE_CHECKING:
    from desktopapp.application.compare import ScenarioSummary
    from desktopapp.ui.scenario.compare import CompareDialog
    from desktopapp.ui.scenario.report import ReportInfo


class ScenarioCommands:
    """Compare, export and recovery for one window (``parent``): ``choose_report_path`` (the
    window's, replaceable in tests) picks where a report goes, ``show_status`` reports."""

    def __init__(
        self,
        parent: QWidget,
        document: ScenarioDocument,
        banner: MessageBanner,
        show_status: Callable[[str, int], None],
        choose_report_path: Callable[[str], Path | None],
    ) -> None:
        self.parent = parent
        self.document = document
        self.banner = banner
        self.show_status = show_status
        self.choose_report_path = choose_report_path
        self.compare: CompareDialog | None = None

    # --- the current scenario -------------------------------------------------------------------
    def _file_name(self) -> str:
        path = self.document.path
        return path.name if path is not None else ""

    def current_label(self) -> str:
        return scenario_label(self.document.name, self.document.path)

    def current_summary(self) -> ScenarioSummary:
        from desktopapp.application.compare import summarize

        return summarize(self.document.current_scenario(), self.current_label(), self._file_name())

    # --- compare --------------------------------------------------------------------------------
    def show_compare(self, page: int | None = None) -> CompareDialog:
        """The Compare dialog (not modal); the current scenario is pinned when none is."""
        from desktopapp.ui.scenario.compare import CompareDialog

        if self.compare is None:
            doc = self.document
            self.compare = CompareDialog(
                lambda: (doc.current_scenario(), self.current_label(), self._file_name()),
                self.export_report,
                self.parent,
            )
            self.compare.show_error = doc.show_error
        dialog = self.compare
        why = self.document.state.plan.not_current_text()
        if why:  # said where the eye is: the current scenario's figures are the last valid ones
            self.show_status(f"Not current: {why}. Compare shows the last valid workload.", 0)
        if not dialog.view.pins:
            dialog.pin_current()
        if page is not None:
            dialog.view.pages.setCurrentIndex(page)
        if current_theme() != "light" or current_scale() != 1.0:
            dialog.restyle()
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    def report_summaries(self) -> list[ScenarioSummary]:
        """The current scenario first, then the other scenarios pinned in the Compare dialog."""
        summaries = [self.current_summary()]
        if self.compare is not None:
            summaries += [pin.summary for pin in self.compare.view.pins if not pin.current]
        return summaries

    # --- export ---------------------------------------------------------------------------------
    def export_report(
        self, summaries: Sequence[ScenarioSummary] | None = None
    ) -> ReportInfo | None:
        """File → Export report: a PDF of the current scenario (and the pinned ones)."""
        from desktopapp.ui.scenario.report import write_report

        doc = self.document
        why = doc.state.plan.not_current_text()
        if why:  # the state holds the last valid inputs: the report would show stale figures
            message = f"Not exported: {why}."
            self.show_status(message, 0)
            doc.show_error("Could not export the report", message)
            return None
        chosen = list(summaries) if summaries else self.report_summaries()
        chosen_path = self.choose_report_path(str(suggested_report_path(doc.path, doc.name)))
        if chosen_path is None:
            return None
        target = report_target(chosen_path)
        try:
            info = write_report(target, chosen, file_name=self._file_name())
        except (OSError, ValueError) as exc:
            message = f"{target.name}: {exc}"
            self.show_status(f"Could not write the report: {message}", 0)
            doc.show_error("Could not write the report", message)
            return None
        self.show_status(report_saved_text(target.name, info.page_count), 8000)
        return info

    # --- recovery -------------------------------------------------------------------------------
    def offer_recovery(self) -> list[Any]:
        """After a crash: offer the newest autosave of an ended session in the banner (not a
        blocking dialog). Returns the candidates found (newest first)."""
        from desktopapp import scenario_files

        doc = self.document
        with contextlib.suppress(OSError):
            scenario_files.prune_autosave_dir(folder=doc.autosave_folder)
        candidates = doc.recovery_candidates()
        if not candidates:
            return []
        newest = candidates[0]
        self.banner.show_message(
            recovery_text(newest.title, newest.saved_at, len(candidates) - 1),
            "warn",
            (
                ("&Restore", lambda: self._restore(newest)),
                ("&Discard", lambda: doc.discard_recovery(candidates)),
            ),
        )
        return candidates

    def _restore(self, autosave: Any) -> None:
        if self.document.confirm_discard():
            self.document.restore(autosave)

    def close(self) -> None:
        if self.compare is not None:
            self.compare.close()


def report_path_dialog(parent: QWidget, suggested: str) -> Path | None:
    """Ask where to write the PDF (``None``: cancelled)."""
    name, _filter = QFileDialog.getSaveFileName(
        parent, "Export report", suggested, "PDF document (*.pdf)"
    )
    return Path(name) if name else None
