"""Fakes shared by several test suites (``tests/`` is on ``sys.path`` through its conftest)."""
