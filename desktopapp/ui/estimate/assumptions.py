"""The Workload tab's assumptions: every default a result relied on, with its source."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from desktopapp.model.assumptions import Assumption
from desktopapp.model.units import DASH
from desktopapp.ui.common.rich_label import RichLabel
from desktopapp.ui.common.section import Section
from desktopapp.ui.common.theme import COLORS


class AssumptionsPanel(Section):
    """Every assumption the results above relied on, grouped by result, with sources."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(
            "Assumptions",
            "Every default and figure the results rely on. Hover a result for its formula.",
            parent=parent,
        )
        # 16 KB of HTML tables: laid out once per width, not once per size question
        self.text = RichLabel()
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.add(self.text)
        self._groups: list[tuple[str, tuple[Assumption, ...]]] = []
        self._holding = False  # see hold()
        self._pending: str | None = None  # the text waiting for release()

    def hold(self) -> None:
        """Keep new lists out of the label until :meth:`release` (the tab's first paint): the
        list is below the first screen, and laying its tables out costs the first window a
        tenth of a second. :meth:`names` is current all the time."""
        self._holding = True

    def release(self) -> None:
        """Show the latest list now and from now on as it comes."""
        self._holding = False
        pending, self._pending = self._pending, None
        if pending is not None:
            self.text.setText(pending)

    @property
    def is_current(self) -> bool:
        """The label shows the latest list (nothing held back)."""
        return self._pending is None

    def set_groups(self, groups: list[tuple[str, tuple[Assumption, ...]]]) -> None:
        self._groups = groups
        html_text = self._html(groups)
        if self._holding:
            self._pending = html_text
        else:
            self.text.setText(html_text)

    def _html(self, groups: list[tuple[str, tuple[Assumption, ...]]]) -> str:
        muted = COLORS["muted"]
        parts = []
        for title, assumptions in groups:
            if not assumptions:
                continue
            rows = "".join(
                "<tr>"
                f"<td style='padding:3px 12px 3px 0; color:{muted}' width='30%'>"
                f"{html.escape(a.name)}</td>"
                f"<td style='padding:3px 12px 3px 0'><b>{html.escape(a.value)}</b>"
                + (_source_html(a.source, muted) if a.source else "")
                + "</td></tr>"
                for a in assumptions
            )
            parts.append(
                f"<p style='margin:8px 0 2px 0; font-weight:700'>{html.escape(title)}</p>"
                f"<table width='100%' cellspacing='0'>{rows}</table>"
            )
        return "".join(parts) or f"<span style='color:{muted}'>{DASH}</span>"

    def names(self) -> list[str]:
        return [a.name for _title, group in self._groups for a in group]


def _source_html(source: str, muted: str) -> str:
    return f"<br><span style='color:{muted}; font-size:small'>{html.escape(source)}</span>"
