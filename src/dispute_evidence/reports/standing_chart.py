"""The standing's chart, standing.svg: the last months' ratio per card network against its
program's threshold, drawn with reportlab's graphics (already a dependency for the PDFs: no
plotting library to add). A module of its own, loaded when there is a month to draw: a run on
an empty state does without reportlab."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from reportlab.graphics import renderSVG
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, String
from reportlab.graphics.widgets.markers import makeMarker
from reportlab.lib import colors

from dispute_evidence.networks import COLOURS
from dispute_evidence.standing.counts import NAMES


def chart_svg(recent: pd.DataFrame) -> str:
    """`recent` (the standing's last months) as each month's ratio per network (solid) against
    its program's threshold (dashed)."""
    months = sorted(set(recent["month"]))
    drawing = Drawing(520, 280)
    plot = LinePlot()
    plot.x, plot.y, plot.width, plot.height = 40, 62, 470, 180
    data: list[list[tuple[float, float]]] = []
    styles: list[tuple[str, tuple[int, ...] | None, float]] = []
    legend: list[tuple[Any, str]] = []
    for net, rows in recent.groupby("network", sort=False):
        colour = COLOURS.get(str(net), "#444444")
        at = rows.set_index("month")
        for segment in _segments(months, at["ratio_percent"]):
            data.append(segment)
            styles.append((colour, None, 2.0))
        for segment in _segments(months, at["threshold_percent"]):
            data.append(_steps(segment))
            styles.append((colour, (4, 3), 1.0))
        legend.append((colors.HexColor(colour), NAMES.get(str(net), str(net))))
    plot.data = data or [[(0, 0)]]
    for i, (colour, dash, width) in enumerate(styles):
        plot.lines[i].strokeColor = colors.HexColor(colour)
        plot.lines[i].strokeWidth = width
        plot.lines[i].strokeDashArray = dash
        if dash is None:  # each month a dot: a month alone is a point, no line shows it
            plot.lines[i].symbol = makeMarker(
                "FilledCircle", size=5, fillColor=colors.HexColor(colour)
            )
    _axes(plot, months, data)
    drawing.add(plot)
    drawing.add(_legend(legend))
    drawing.add(
        String(
            8,
            262,
            "Dispute ratio by month, %: solid yours, dashed the program's threshold",
            fontSize=13,
            fillColor=colors.HexColor("#222222"),
        )
    )
    return str(renderSVG.drawToString(drawing))


def _segments(months: list[str], values: pd.Series) -> list[list[tuple[float, float]]]:
    """Runs of months with a value, as (month index, value): a gap breaks the line."""
    runs: list[list[tuple[float, float]]] = [[]]
    for i, month in enumerate(months):
        value = values.get(month)
        if value is None or value != value:
            runs.append([])
        else:
            runs[-1].append((float(i), float(value)))
    return [r for r in runs if r]


def _steps(segment: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """A threshold holds for a whole month and changes at its first day: drawn as steps."""
    points: list[tuple[float, float]] = []
    for x, y in segment:
        points += [(x - 0.5, y), (x + 0.5, y)]
    return points


def _axes(plot: LinePlot, months: list[str], data: list[list[tuple[float, float]]]) -> None:
    top = max([y for series in data for _, y in series] + [1.0])
    plot.xValueAxis.valueMin, plot.xValueAxis.valueMax = -0.5, max(len(months) - 1, 1) + 0.5
    plot.xValueAxis.valueSteps = list(range(len(months)))
    plot.xValueAxis.labelTextFormat = lambda i: _month_label(months, i)
    plot.xValueAxis.labels.fontSize = 11
    plot.xValueAxis.labels.angle = 40
    plot.xValueAxis.labels.boxAnchor = "ne"
    plot.yValueAxis.valueMin, plot.yValueAxis.valueMax = 0, math.ceil(top * 1.15 * 2) / 2
    plot.yValueAxis.labelTextFormat = "%.1f"
    plot.yValueAxis.labels.fontSize = 11
    plot.yValueAxis.visibleGrid = True
    plot.yValueAxis.gridStrokeColor = colors.HexColor("#e3e3e3")


def _month_label(months: list[str], i: float) -> str:
    k = int(round(i))
    if not 0 <= k < len(months):
        return ""
    return str(pd.Period(months[k], freq="M").strftime("%b %y"))


def _legend(items: list[tuple[Any, str]]) -> Legend:
    legend = Legend()
    legend.x, legend.y = 40, 12
    legend.alignment = "right"
    legend.columnMaximum = 1
    legend.fontSize = 11
    legend.dx, legend.dy, legend.deltax = 16, 5, 120
    legend.colorNamePairs = items or [(colors.HexColor("#444444"), "no data")]
    return legend
