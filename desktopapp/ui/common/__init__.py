"""Widgets and helpers shared by every tab.

- ``theme``: palette, fonts, style sheet (``apply_theme``), memory/plot colours.
- ``quantity_edit``: line edit parsing ``110M`` / ``7B`` / ``1.5e9`` with invalid marking.
- ``result_card``: headline value + unit + caption, formula tooltips.
- ``range_bar``: planning range (low … high) as a band.
- ``band_slider``: percent slider with a painted "typical" band.
- ``accelerator_combo``: catalog accelerator picker with type-to-search.
- ``section``: titled card for groups of inputs or results.
- ``rich_label``: a word-wrapped rich-text label that lays a long text out once per width.
- ``workers`` / ``timers``: registered QThreads (generation counter drops stale results) and
  registered timers; ``leaks.find_leaks`` reports what is left running.
- ``plots``: lazy pyqtgraph with the app's look; ``axes``: tick labels with SI prefixes and
  units, never exponents; plot colours come from ``theme.plot_palette()``.
- ``layouts``: page layout plus responsive pieces (``card_grid`` 4 → 2×2 → 1, ``plot_row``,
  ``StackingSplitter``); ``geometry``: ``find_cut``/``assert_nothing_cut`` for tests.
- ``about``, ``placeholder``, ``icons``, ``qt_compat``.
"""
