"""``python -m desktopapp``: the same entry point as the ``desktopapp`` command."""

import sys

from desktopapp.cli import main

if __name__ == "__main__":
    sys.exit(main())
