"""Scenarios in the window: the document (open, save, autosave, recovery), compare view,
sensitivity charts and the PDF report.

- ``desktopapp.application.scenario``: the window's plan ⇄ ``model.scenario.Scenario`` (no Qt).
- :mod:`.document`: :class:`~.document.ScenarioDocument`, file actions and unsaved changes.
- :mod:`.panels`: the Notes dock and the message banner.
- ``desktopapp.application.compare``: a scenario's inputs, results and sources as rows (no Qt).
- :mod:`.charts`: compare plots and the tornado chart.
- :mod:`.compare`: :class:`~.compare.CompareView` and :class:`~.compare.CompareDialog`.
- :mod:`.report`: :func:`~.report.write_report`, the PDF.
- :mod:`.pagination`: page breaks that keep table rows and headings together.

Import the submodules where they are used: pyqtgraph loads only when a chart is built.
"""
