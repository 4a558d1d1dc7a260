"""The application layer: Qt-free state, policy and presenters between the views (``ui/``)
and the model.

- :mod:`~desktopapp.application.plan`: :class:`PlanState`, the plan the window shows (workload
  inputs and estimates, the price in use, the cost plan and its comparison) with change
  listeners; ``ui.state.AppState`` adapts it to Qt signals.
- :mod:`~desktopapp.application.scenario`: the plan ⇄ ``model.scenario.Scenario``.
- Workload tab: :mod:`~desktopapp.application.workload` (presenter: estimates → views) and
  :mod:`~desktopapp.application.workload_policy` (price source, utilization default,
  precisions: ``WorkloadController``).
- Cost tab: :mod:`~desktopapp.application.cost` (presenter and the owning-fields policy).
- Monitor tab: :mod:`~desktopapp.application.monitor` (problems by kind, gaps, idle price).
- Hardware tab: :mod:`~desktopapp.application.hardware` (labels, best results, the measured
  accelerator) and :mod:`~desktopapp.application.hardware_jobs` (device-layer calls and the
  benchmark job, run in worker threads by the tab).
- :mod:`~desktopapp.application.compare`: a scenario as rows for the compare view and report.
- :mod:`~desktopapp.application.text`: ``CardView`` and shared text helpers.

Nothing here imports Qt, pyqtgraph or ``desktopapp.ui`` (import-linter contract in
pyproject.toml, checked by tests/test_layers.py).
"""
