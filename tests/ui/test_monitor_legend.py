"""The Monitor's plot headers keep every legend entry on one line: the CPU plot's heat-strip
entry broke as "per core, 0" / "→ 100%" at the default window size."""

from __future__ import annotations

import re

from desktopapp.ui.monitor.layout import CurveSpec, PlotSpec
from desktopapp.ui.monitor.plot_card import _legend_html


def _visible_text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_every_legend_entry_of_the_cpu_header_is_one_unbreakable_run() -> None:
    spec = PlotSpec(
        key="cpu",
        title="CPU · total and 2 cores",
        kind="cpu",
        curves=(
            CurveSpec("cpu.total", "CPU", "#2F6FEB", fill=True),
            CurveSpec("cpu.max_core", "busiest core", "#E0812E", dashed=True),
        ),
        strip_channels=("cpu.core0", "cpu.core1"),
    )
    text = _visible_text(_legend_html(spec))
    # Entries are separated by "&nbsp; " (the only breakable spaces); inside one, none.
    entries = [e.strip() for e in text.split("&nbsp; ") if e.strip()]
    assert any("per" in e and "100%" in e for e in entries)
    breakable = [e for e in entries[1:] if " " in e.replace("&nbsp;", "")]
    assert not breakable, breakable
