"""Hardware tab, left column: what this machine has (device cards, machine line, problems).

It renders a :class:`~desktopapp.application.hardware_machine.DevicesView`; which cards to show
and why there is no GPU are decided there.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout

from desktopapp.application.hardware_machine import DevicesView
from desktopapp.ui.common.layouts import scrolling_column
from desktopapp.ui.common.theme import SPACING
from desktopapp.ui.hardware.cards import (
    cpu_card,
    gpu_card,
    machine_line,
    no_gpu_card,
    other_device_card,
    torch_card,
)
from desktopapp.ui.hardware.widgets import DeviceCard, Notice


class MachinePanel:
    """The widgets of the left column; ``area`` is the scroll area to put in the tab."""

    def __init__(self) -> None:
        title = QLabel("This machine")
        title.setObjectName("PanelTitle")
        self.redetect_button = QPushButton("Detect again")
        self.redetect_button.setObjectName("LinkButton")
        self.redetect_button.setToolTip("Read CPU, GPUs and PyTorch again (after a driver install)")
        heading = QHBoxLayout()
        heading.addWidget(title)
        heading.addStretch(1)
        heading.addWidget(self.redetect_button)
        self.machine_label = QLabel("")
        self.machine_label.setObjectName("Muted")
        self.machine_label.setWordWrap(True)
        self.problems = Notice("To get more out of this machine")
        self.problems.setVisible(False)
        self.cards_box = QVBoxLayout()
        self.cards_box.setSpacing(SPACING)
        self.cards: list[DeviceCard] = []
        self.cpu_card: DeviceCard | None = None
        self.gpu_cards: list[DeviceCard] = []
        self.no_gpu_card: DeviceCard | None = None
        self.torch_card: DeviceCard | None = None
        self.area: QScrollArea = scrolling_column(
            (heading, self.machine_label, self.problems, self.cards_box), spacing=SPACING - 4
        )
        self.area.setMinimumWidth(380)

    def _clear_cards(self) -> None:
        for card in self.cards:
            self.cards_box.removeWidget(card)
            card.setParent(None)
            card.deleteLater()
        self.cards = []
        self.gpu_cards = []
        self.no_gpu_card = None

    def render(self, view: DevicesView) -> None:
        self._clear_cards()
        self.cpu_card = cpu_card(view.cpu, view.memory, view.cpu_catalog)
        self.cards.append(self.cpu_card)
        if view.looking:
            placeholder = no_gpu_card("Looking for GPUs…")
            placeholder.title_label.setText("GPUs")
            self.no_gpu_card = placeholder
            self.cards.append(placeholder)
        for gpu in view.gpus:
            self.gpu_cards.append(gpu_card(gpu))
        for device in view.others:
            self.gpu_cards.append(other_device_card(device))
        self.cards.extend(self.gpu_cards)
        if view.no_gpu:
            self.no_gpu_card = no_gpu_card(view.no_gpu)
            self.cards.append(self.no_gpu_card)
        self.torch_card = torch_card(
            None if view.looking else view.torch, view.torch_probing, view.has_nvidia
        )
        self.cards.append(self.torch_card)
        for card in self.cards:
            self.cards_box.addWidget(card)
        if view.system is None:
            self.machine_label.setText(html.escape(view.hostname))
        else:
            self.machine_label.setText(machine_line(view.hostname, *view.system))
        self.problems.set_lines(list(view.problems))


__all__ = ["MachinePanel"]
