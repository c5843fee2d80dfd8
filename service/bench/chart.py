"""Line charts as plain SVG, for the reports the benchmark writes (no plotting library:
a few lines and labels are all a figure needs, and the file stays reviewable text)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
WIDTH, HEIGHT = 420, 280
LEFT, RIGHT, TOP, BOTTOM = 64, 28, 28, 64


@dataclass(frozen=True, slots=True)
class Series:
    name: str
    points: Sequence[tuple[float, float]]  # (x, y), x > 0 (drawn on a log scale)


@dataclass(frozen=True, slots=True)
class Panel:
    title: str
    x_label: str
    y_label: str
    series: Sequence[Series]


def _nice_top(value: float) -> float:
    """A round number at or just above `value` for the y axis's top."""
    if value <= 0:
        return 1.0
    magnitude = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * magnitude:
            return float(step * magnitude)
    return float(10 * magnitude)


def _label(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 or value == 0 else f"{value:g}"


def _panel(panel: Panel, offset_x: float) -> list[str]:
    # A point without a figure (a crowd that made no move has no CPU per move) is left out.
    panel = Panel(
        panel.title,
        panel.x_label,
        panel.y_label,
        [Series(s.name, [(x, y) for x, y in s.points if math.isfinite(y)]) for s in panel.series],
    )
    xs = sorted({x for s in panel.series for x, _ in s.points})
    ys = [y for s in panel.series for _, y in s.points]
    if not xs:
        return []
    top = _nice_top(max(ys, default=1.0) * 1.05)
    low, high = math.log10(xs[0]), math.log10(xs[-1])
    span = high - low or 1.0
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def at(x: float, y: float) -> tuple[float, float]:
        px = offset_x + LEFT + (math.log10(x) - low) / span * inner_w
        return px, TOP + inner_h - (y / top) * inner_h

    out = [
        f'<text x="{offset_x + WIDTH / 2}" y="16" text-anchor="middle" font-weight="bold">{escape(panel.title)}</text>',
        f'<text x="{offset_x + LEFT + inner_w / 2}" y="{HEIGHT - 30}" text-anchor="middle">'
        f"{escape(panel.x_label)}</text>",
        f'<text transform="translate({offset_x + 14},{TOP + inner_h / 2}) rotate(-90)" text-anchor="middle">'
        f"{escape(panel.y_label)}</text>",
    ]
    for tick in range(5):  # horizontal grid lines with their values
        value = top * tick / 4
        _, y = at(xs[0], value)
        left, right = offset_x + LEFT, offset_x + LEFT + inner_w
        out.append(f'<line x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{offset_x + LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{_label(value)}</text>')
    for x in xs:
        px, _ = at(x, 0)
        out.append(f'<text x="{px:.1f}" y="{TOP + inner_h + 16}" text-anchor="middle">{_label(x)}</text>')
    for index, series in enumerate(panel.series):
        colour = COLOURS[index % len(COLOURS)]
        points = " ".join(f"{px:.1f},{py:.1f}" for px, py in (at(x, y) for x, y in sorted(series.points)))
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>')
        for x, y in series.points:
            px, py = at(x, y)
            out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"/>')
        # The legend under the axis, one entry after another: never over a line.
        legend_x = offset_x + LEFT + index * (inner_w / max(len(panel.series), 1))
        out.append(f'<rect x="{legend_x:.1f}" y="{HEIGHT - 16}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{legend_x + 14:.1f}" y="{HEIGHT - 7}">{escape(series.name)}</text>')
    return out


def svg(panels: Sequence[Panel]) -> str:
    """The panels side by side, as one SVG document."""
    width = WIDTH * len(panels)
    body = [line for index, panel in enumerate(panels) for line in _panel(panel, index * WIDTH)]
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{HEIGHT}" '
            f'viewBox="0 0 {width} {HEIGHT}" font-family="sans-serif" font-size="11">',
            f'<rect width="{width}" height="{HEIGHT}" fill="white"/>',
            *body,
            "</svg>",
            "",
        ]
    )
