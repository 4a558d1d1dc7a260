"""The PDF report's text, as HTML for ``QTextDocument``: built from scenario summaries, no Qt.

:mod:`desktopapp.ui.scenario.report` lays this HTML out and paints it page by page; the plots
it holds are ``img://name`` resources that the view renders and adds (``overlay0`` to
``overlay3``, ``tornado-cost``, ``tornado-hours``).

Contents, in this order: title, date, notes, key results, warnings about inputs beyond any real
system, results and every input; scaling plots; sensitivity (tornado) charts; the side-by-side
comparison (two or more scenarios); every assumption and the source of every catalog figure.

Colours are passed in (``colors``: a theme palette with ``text``, ``muted``, ``accent_dark``,
``accent_soft``, ``surface_alt``, ``border``, ``good``, ``bad``; ``series``: one colour per
scenario), so this module needs no theme; the report is printed with the light one.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from datetime import datetime

from desktopapp import APP_NAME, __version__
from desktopapp.application.compare import (
    Row,
    ScenarioSummary,
    delta_text,
    relative_change,
    union_keys,
)
from desktopapp.application.workload import training_headline

RESULTS = "Results"
KEY_RESULTS = ("Total compute", "Wall time", "GPU-hours", "Cost of the run")
DETAIL_MAX_CHARS = 400  # longer details (a whole formula dump) are left out of the tables
MISSING = "—"

STYLE = """
body {{ color: {text}; }}
h1 {{ font-size: 20pt; font-weight: 700; margin-bottom: 2px; color: {text}; }}
h2 {{ font-size: 13pt; font-weight: 700; margin-top: 16px; margin-bottom: 6px;
      color: {accent_dark}; }}
h3 {{ font-size: 10pt; font-weight: 700; margin-top: 10px; margin-bottom: 4px; color: {text}; }}
h4 {{ font-size: 8.5pt; font-weight: 700; margin-top: 6px; margin-bottom: 2px; color: {text}; }}
p {{ margin-top: 2px; margin-bottom: 4px; }}
.sub {{ color: {muted}; font-size: 9pt; }}
.lead {{ font-size: 12pt; color: {text}; margin-bottom: 6px; }}
.muted {{ color: {muted}; }}
.small {{ font-size: 7.5pt; color: {muted}; }}
.section {{ font-weight: 700; color: {accent_dark}; background-color: {surface_alt}; }}
.value {{ font-weight: 600; }}
.big {{ font-size: 15pt; font-weight: 600; color: {text}; white-space: nowrap; }}
.caption {{ font-size: 7.5pt; font-weight: 700; color: {muted}; }}
.good {{ color: {good}; font-weight: 600; }}
.bad {{ color: {bad}; font-weight: 600; }}
.diff {{ background-color: {accent_soft}; font-weight: 600; }}
"""


def report_style(colors: Mapping[str, str]) -> str:
    """The document's default style sheet in the palette ``colors``."""
    return STYLE.format(**colors)


def report_title(summaries: Sequence[ScenarioSummary]) -> str:
    """The report's title: the first scenario's name, else its label."""
    first = summaries[0]
    return first.scenario.name or first.label


def page_texts(title: str, created: datetime, index: int, count: int) -> tuple[str, ...]:
    """The running header (left, right) and footer (left, right) of page ``index``."""
    return (
        f"{APP_NAME} · scenario report",
        title,
        f"Generated {created:%Y-%m-%d %H:%M}",
        f"Page {index + 1} of {count}",
    )


def _esc(text: object) -> str:
    return html.escape(str(text))


# --- parts --------------------------------------------------------------------------------------


def _headline(summary: ScenarioSummary) -> str:
    """The Workload tab's hero sentence for this scenario (the same words as the tab and
    ``desktopapp estimate train``); nothing when there is no training estimate."""
    figures = None if summary.snapshot is None else summary.snapshot.training
    if figures is None:
        return ""
    return f"<p class='lead'><b>{_esc(training_headline(figures))}</b></p>"


def _key_cards(summary: ScenarioSummary, colors: Mapping[str, str]) -> str:
    cells = []
    for label in KEY_RESULTS:
        row = summary.row(RESULTS, label)
        value = row.text if row is not None else MISSING
        cells.append(
            f"<td width='25%' bgcolor='{colors['surface_alt']}' style='padding: 8px'>"
            f"<span class='caption'>{_esc(label.upper())}</span><br>"
            f"<span class='big'>{_esc(value)}</span></td>"
        )
    project = next(
        (r for r in summary.rows if r.section == RESULTS and r.label.startswith("Whole project")),
        None,
    )
    note = (
        "<p class='small'>Low end: this estimate, compute only. "
        f"{_esc(project.label)} for experiments, tuning, failed and repeated runs: "
        f"{_esc(project.text)}.</p>"
        if project is not None
        else ""
    )
    return (
        "<table width='100%' cellspacing='6' cellpadding='0'><tr>"
        + "".join(cells)
        + "</tr></table>"
        + note
    )


def _rows_table(summary: ScenarioSummary, results: bool, colors: Mapping[str, str]) -> str:
    """The results (``results``) or every other row of one scenario, grouped by section."""
    lines = [
        "<table width='100%' cellspacing='0' cellpadding='4' "
        f"style='border-collapse: collapse; border-color: {colors['border']}'>"
    ]
    section = None
    for row in summary.rows:
        if (row.section == RESULTS) != results:
            continue
        if row.section != section and not results:
            section = row.section
            lines.append(f"<tr><td colspan='3' class='section'>{_esc(section.upper())}</td></tr>")
        detail = (
            f"<span class='small'>{_esc(row.detail)}</span>"
            if row.detail and row.detail != row.text and len(row.detail) < DETAIL_MAX_CHARS
            else ""
        )
        lines.append(
            f"<tr><td width='26%' class='muted'>{_esc(row.label)}</td>"
            f"<td width='34%' class='value'>{_esc(row.text)}</td><td>{detail}</td></tr>"
        )
    lines.append("</table>")
    return "".join(lines)


def _comparison_cell(section: str, row: Row | None, reference: Row | None) -> str:
    """One scenario's cell against the first one's: highlighted where it differs; results
    with their change, coloured good or bad by the row's ``better``."""
    text = MISSING if row is None else row.text
    differs = (row is None) != (reference is None) or (
        row is not None and reference is not None and row.text != reference.text
    )
    css = " class='diff'" if differs else ""
    extra = ""
    if section == RESULTS and row is not None and reference is not None:
        change = relative_change(row.value, reference.value)
        if change is not None and abs(change) >= 0.0005:
            good = row.better and ((change < 0) == (row.better == "lower"))
            kind = "good" if good else ("bad" if row.better else "muted")
            extra = f" <span class='{kind}'>{delta_text(change)}</span>"
    return f"<td{css}>{_esc(text)}{extra}</td>"


def _comparison_table(summaries: Sequence[ScenarioSummary], series: Sequence[str]) -> str:
    width = int(70 / max(1, len(summaries)))
    head = "".join(
        f"<th width='{width}%' align='left' style='color: {series[i % len(series)]}'>"
        f"■ {_esc(s.label)}</th>"
        for i, s in enumerate(summaries)
    )
    lines = [
        "<table width='100%' cellspacing='0' cellpadding='4'>",
        f"<tr><th width='30%'></th>{head}</tr>",
    ]
    section = None
    for sec, label in union_keys(summaries):
        if sec != section:
            section = sec
            lines.append(
                f"<tr><td colspan='{len(summaries) + 1}' class='section'>"
                f"{_esc(sec.upper())}</td></tr>"
            )
        reference = summaries[0].row(sec, label)
        cells = [f"<td>{_esc(MISSING if reference is None else reference.text)}</td>"]
        cells += [_comparison_cell(sec, s.row(sec, label), reference) for s in summaries[1:]]
        lines.append(f"<tr><td class='muted'>{_esc(label)}</td>{''.join(cells)}</tr>")
    lines.append("</table>")
    return "".join(lines)


def _warnings(summary: ScenarioSummary) -> str:
    """Inputs beyond any real system: still computed, but worth a second look."""
    if not summary.warnings:
        return ""
    items = "".join(f"<li>{_esc(w)}</li>" for w in summary.warnings)
    return f"<p class='bad'>Check these inputs:</p><ul>{items}</ul>"


def _assumptions(summaries: Sequence[ScenarioSummary]) -> list[str]:
    parts = ["<h2>Assumptions</h2>"]
    for summary in summaries:
        if len(summaries) > 1:
            parts.append(f"<h3>{_esc(summary.label)}</h3>")
        for title, assumptions in summary.assumptions:
            parts.append(f"<h4>{_esc(title)}</h4>")  # a heading: kept with its table
            parts.append("<table width='100%' cellspacing='0' cellpadding='3'>")
            for a in assumptions:
                parts.append(
                    f"<tr><td width='24%' class='muted'>{_esc(a.name)}</td>"
                    f"<td width='30%' class='value'>{_esc(a.value)}</td>"
                    f"<td class='small'>{_esc(a.source)}</td></tr>"
                )
            parts.append("</table>")
        if summary.problems:
            parts.append(
                "<p class='bad'>Not computable: " + _esc("; ".join(summary.problems)) + "</p>"
            )
        if len(summaries) > 1:
            parts.append(_warnings(summary))
    return parts


def _sources(summaries: Sequence[ScenarioSummary]) -> list[str]:
    """Every catalog figure of every scenario, once."""
    parts = [
        "<h2>Sources of catalog figures</h2>",
        "<p class='small'>Every catalog number the results used, with where it comes from, "
        "when it was taken and how confident the catalog is in it.</p>",
        "<table width='100%' cellspacing='0' cellpadding='3'>"
        "<tr><th align='left' width='26%'>Figure</th><th align='left' width='22%'>Value</th>"
        "<th align='left'>Source</th><th align='left' width='10%'>Date</th></tr>",
    ]
    seen: set[tuple[str, str]] = set()
    for summary in summaries:
        for source in summary.sources:
            key = (source.what, source.source)
            if key in seen:
                continue
            seen.add(key)
            confidence = f" · {source.confidence} confidence" if source.confidence else ""
            parts.append(
                f"<tr><td class='value'>{_esc(source.what)}</td>"
                f"<td>{_esc(source.value)}</td>"
                f"<td class='small'>{_esc(source.source)}{_esc(confidence)}</td>"
                f"<td>{_esc(source.date or MISSING)}</td></tr>"
            )
    parts.append("</table>")
    return parts


def _assumptions_and_sources(summaries: Sequence[ScenarioSummary]) -> str:
    return "".join(_assumptions(summaries) + _sources(summaries))


def _opening(
    summaries: Sequence[ScenarioSummary],
    file_name: str,
    created: datetime,
    colors: Mapping[str, str],
) -> list[str]:
    """Title, subtitle, notes, key results, problems, warnings, results and inputs."""
    first = summaries[0]
    others = [s.label for s in summaries[1:]]
    subtitle = " · ".join(
        part
        for part in (
            "Scenario report",
            file_name,
            f"compared with {', '.join(others)}" if others else "",
            created.strftime("%Y-%m-%d %H:%M"),
        )
        if part
    )
    notes = (
        f"<table width='100%' cellpadding='8' bgcolor='{colors['surface_alt']}'><tr><td>"
        f"<span class='caption'>NOTES</span><br>"
        f"{_esc(first.scenario.notes).replace(chr(10), '<br>')}</td></tr></table>"
        if first.scenario.notes.strip()
        else ""
    )
    problems = (
        f"<p class='bad'>Not computable: {_esc('; '.join(first.problems))}</p>"
        if first.problems
        else ""
    )
    return [
        f"<h1>{_esc(report_title(summaries))}</h1>",
        f"<p class='sub'>{_esc(subtitle)}</p>",
        notes,
        "<h2>Key results</h2>",
        _headline(first),
        _key_cards(first, colors),
        problems,
        _warnings(first),
        "<h2>Results</h2>",
        _rows_table(first, True, colors),
        "<h2>Inputs and assumptions</h2>",
        _rows_table(first, False, colors),
    ]


def _plots(summaries: Sequence[ScenarioSummary], text_width_px: float) -> list[str]:
    """The scaling plots (two by two) and the first scenario's tornado charts."""
    half = int(text_width_px / 2 - 6)
    full = int(text_width_px)
    return [
        "<h2>Scaling</h2>",
        "<p class='muted'>Every curve comes from the model's sweeps with all other inputs as "
        "given; the dots mark each scenario's own choice."
        + (" One colour per scenario." if len(summaries) > 1 else "")
        + "</p>",
        "<table cellspacing='0' cellpadding='2'>"
        f"<tr><td><img src='img://overlay0' width='{half}'></td>"
        f"<td><img src='img://overlay1' width='{half}'></td></tr>"
        f"<tr><td><img src='img://overlay2' width='{half}'></td>"
        f"<td><img src='img://overlay3' width='{half}'></td></tr></table>",
        "<p class='small'>Cost against utilization: model FLOPs utilization of the run. Owning "
        "against renting: cost of a useful GPU-hour of an owned fleet at each fleet "
        "utilization (solid) and of the rented price (dashed); they cross at the break-even.</p>",
        "<h2>Sensitivity</h2>",
        f"<p class='muted'>{_esc(summaries[0].label)}: how the result moves when one input is "
        "25% lower or higher and everything else stays as given. Blue: input lower; orange: "
        "input higher. The longest bars are the inputs worth pinning down first.</p>",
        f"<p><img src='img://tornado-cost' width='{full}'></p>",
        f"<p><img src='img://tornado-hours' width='{full}'></p>",
    ]


def report_html(
    summaries: Sequence[ScenarioSummary],
    *,
    file_name: str,
    created: datetime,
    text_width_px: float,
    colors: Mapping[str, str],
    series: Sequence[str],
    with_plots: bool = True,
) -> str:
    """The report as HTML for ``QTextDocument`` (images as ``img://name`` resources), images
    ``text_width_px`` CSS pixels wide in all. ``with_plots`` False: the text only (a report
    written without Qt, ``desktopapp report --html``)."""
    if not summaries:
        raise ValueError("summaries: give at least one scenario")
    parts = _opening(summaries, file_name, created, colors)
    parts += [_verdict(summaries[0])]
    if with_plots:
        parts += _plots(summaries, text_width_px)
    if len(summaries) > 1:
        parts += [
            "<h2>Comparison</h2>",
            "<p class='muted'>Highlighted: differs from the first scenario. Changes are against "
            "the first scenario; green is better, red worse.</p>",
            _comparison_table(summaries, series),
        ]
    parts.append(_assumptions_and_sources(summaries))
    from desktopapp.application.advisor import report_section  # issue 24: What to run on

    parts.append(report_section(summaries[0].scenario, with_plots, text_width_px))
    parts.append(
        f"<p class='small'>Generated by {_esc(APP_NAME)} {_esc(__version__)}. Estimates, not "
        "quotes: check prices with the provider before you commit.</p>"
    )
    return "".join(p for p in parts if p)


def _verdict(summary: ScenarioSummary) -> str:
    """The rent/own/hybrid verdict of the scenario's snapshot, rendered once
    (:mod:`desktopapp.application.verdict`)."""
    snap = summary.snapshot
    if snap is None or snap.verdict is None:
        return ""
    from desktopapp.application.verdict import verdict_html

    demand = ""
    if snap.cost is not None and snap.cost.demand.gpu_hours_per_month is not None:
        demand = f"<p class='muted'>Demand: {_esc(snap.cost.demand.rule)}</p>"
    return "<h2>Rent or buy</h2>" + verdict_html(snap.verdict) + demand


# The light palette the PDF is printed with, for a report written without Qt (the ui theme's
# LIGHT_COLORS; kept here so that the application layer needs no Qt).
REPORT_COLORS: Mapping[str, str] = {
    "text": "#1E2733",
    "muted": "#5E6A7A",
    "accent_dark": "#1D4FB8",
    "accent_soft": "#E6EEFD",
    "surface_alt": "#F9FAFC",
    "border": "#DCE1E8",
    "good": "#187A43",
    "bad": "#BE3434",
}
REPORT_SERIES = ("#2F6FEB", "#E8710A", "#1E8E4F", "#9334E6")


def standalone_html(
    summaries: Sequence[ScenarioSummary], *, file_name: str = "", created: datetime | None = None
) -> str:
    """The report's text as a complete HTML page (no plots: they need Qt; the PDF has them)."""
    created = created or datetime.now()
    body = report_html(
        summaries,
        file_name=file_name,
        created=created,
        text_width_px=640.0,
        colors=REPORT_COLORS,
        series=REPORT_SERIES,
        with_plots=False,
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{_esc(report_title(summaries))}</title>"
        f"<style>{report_style(REPORT_COLORS)}</style></head><body>{body}</body></html>\n"
    )
