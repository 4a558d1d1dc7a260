"""Find the data files in ``resources/`` from a checkout and from an installed wheel.

In a wheel the folder is packaged as ``desktopapp/resources`` (see pyproject's force-include);
in a checkout (or an editable install) it is ``<repo>/resources`` beside the package.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def resources_dir() -> Path:
    for candidate in (_PACKAGE_DIR / "resources", _PACKAGE_DIR.parent / "resources"):
        if (candidate / "accelerators.json").is_file():
            return candidate
    raise FileNotFoundError(
        "resources folder not found: expected desktopapp/resources (installed) or "
        "resources/ beside the package (checkout); reinstall the package"
    )


def resource_path(*parts: str) -> Path:
    """Path of a file under the resources folder (it may not exist)."""
    return resources_dir().joinpath(*parts)
