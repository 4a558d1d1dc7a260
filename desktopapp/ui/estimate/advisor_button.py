"""The Workload tab's entry to the "What to run on" view (issue 24): a button under the hardware
inputs. The view itself (:mod:`desktopapp.ui.estimate.advisor`, and the search behind it) is
imported when the button is first clicked, not while the tab opens."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QPushButton


def install(tab: Any) -> QPushButton:
    """The Workload tab's entry: a "What to run on…" button under the hardware inputs that
    opens the view (one per tab, kept while the tab lives)."""
    button = QPushButton("What to run on…")
    button.setObjectName("WhatToRunOn")
    button.setToolTip(
        "Rank every catalog accelerator, fleet size and price (rented or owned) for this "
        "workload, and apply one"
    )

    def open_view() -> None:
        dialog = getattr(tab, "advisor_dialog", None)
        if dialog is None:
            from desktopapp.ui.estimate.advisor import AdvisorDialog

            dialog = AdvisorDialog(tab.state, tab)
            tab.advisor_dialog = dialog
        dialog.show()
        dialog.raise_()

    button.clicked.connect(open_view)
    tab.inputs.hardware_section.add_wide(button)
    tab.advisor_button = button
    return button
