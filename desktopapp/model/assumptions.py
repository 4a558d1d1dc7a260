"""An assumption is a default or figure a result relied on, shown next to the result."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Assumption:
    """One figure an estimate rests on, formatted with its unit, and where it comes from."""

    name: str  # what it is: "utilization (MFU)"
    value: str  # formatted with its unit: "40% (typical band 30-50%)"
    source: str = ""  # where the figure comes from, if anywhere

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "value": self.value, "source": self.source}
