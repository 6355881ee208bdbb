"""The HTML page of a parameter sweep (:mod:`.sweep`): what the swept rules did to balance.

:func:`render_html` draws a self-contained page, inline CSS and inline SVG only, no scripts
and no external resources, with the standard library alone (the runtime never imports jinja2
or a plotting library). The last swept parameter is the x axis of every chart:

* one parameter: a chart of every seat's win rate against it (a line per seat, its 95%
  interval as a translucent band, the even share dashed) and a chart of the mean game length;
* two or more: the same charts as small multiples, one per combination of the other
  parameters; for two, a heatmap of the first seat's win rate over the whole grid too;
* then a table of every point and a note on sequential stopping.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from .balance import PAGE_CSS, seat_colours
from .simulate import BALANCE_RULE
from .sweep_model import NO_CLEAR_BIAS

if TYPE_CHECKING:
    from .sweep_model import Param, Point, SweepData

__all__ = ["render_html"]

_LENGTH = "#8c8577"  # the game-length line, as the balance page's length bars
_BEHIND = (150, 150, 150)  # heatmap: the first seat behind, when it has no single rival
_SATURATE = 0.25  # heatmap: this far from an even share is the full colour
_LABEL_CHARS = 14  # an x label longer than this is cut short (in full in its tooltip)
_CHAR_W = 6.4  # the rough width of a character of an 11px label

_SHARE = "(each seat's share of the decisive games, those one seat won alone)"

_EXTRA_CSS = """
h3{font-size:13px;margin:0 0 2px}
.panels{display:flex;flex-wrap:wrap;gap:10px 18px}
.panel{flex:0 0 auto;max-width:100%}
.panel h3{max-width:340px;overflow-wrap:anywhere}
.key{color:#555;margin:2px 0 8px}
.key span{display:inline-block;margin-right:14px;white-space:nowrap}
.key svg{display:inline-block;vertical-align:-2px;margin-right:4px}
.legend span{overflow-wrap:anywhere}
table.points th{white-space:normal;max-width:14em;vertical-align:bottom;
 overflow-wrap:break-word}
table.points td.v,table.points th.v{text-align:left}
table.points td.v{white-space:normal;max-width:16em;overflow-wrap:break-word}
.wide{overflow-x:auto;max-width:100%}
table.heat td{text-align:center;padding:6px 10px;border:1px solid #fff;font-size:12px}
table.heat td.d{font-weight:bold}
table.heat th{text-align:center;white-space:normal;max-width:12em;overflow-wrap:break-word}
table.heat th.row{text-align:right;padding-right:8px}
table.heat td.none{background:#f1efea;color:#999}
.early{color:#3f7f4f}
.again code{overflow-wrap:anywhere;white-space:normal}
h1{overflow-wrap:anywhere}
"""


# -- small helpers -----------------------------------------------------------------------------
def _value(v: Any) -> str:
    """A parameter value as the command line writes it (booleans as true/false)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _key(v: Any) -> tuple[str, str]:
    # True == 1 and hash alike: key by type and text so a point is found by its own values
    return (type(v).__name__, repr(v))


def _short(text: str, limit: int = _LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _num(x: float) -> str:
    return f"{x:g}"


def _seat_label(result: SweepData, seat: str) -> str:
    return result.labels.get(seat, seat)


def _verdict(result: SweepData, p: Point) -> str:
    """The point's verdict ("France ahead", "no clear bias") in the seats' display names."""
    return p.verdict(result.labels)


def _sides(p: Point) -> dict[str, str]:
    """The seats a decided point names, each "above" or "below" the even share."""
    if p.decided is None:
        return {}
    side, seats = p.decided
    return dict.fromkeys(seats, "above" if side == "ahead" else "below")


def _where(params: Sequence[Param], values: Sequence[Any]) -> str:
    return ", ".join(f"{p.name} = {_value(v)}" for p, v in zip(params, values, strict=True))


def _nice_max(v: float) -> float:
    """The smallest round number (1, 2, 2.5, 5 times a power of ten) at least ``v``."""
    if not v > 0 or not math.isfinite(v):
        return 1.0
    unit = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * unit >= v - 1e-12:
            return m * unit
    return 10 * unit  # pragma: no cover - the loop ends at 10


class _Frame:
    """A chart's plot area: categorical x slots evenly spaced, y as a fraction 0..1."""

    def __init__(
        self, width: int, height: int, left: int, right: int, top: int, bottom: int, n: int
    ):
        self.width, self.height = width, height
        self.left, self.top = left, top
        self.plot_w = width - left - right
        self.plot_h = height - top - bottom
        self.n = max(1, n)
        self.slot = self.plot_w / self.n

    def x(self, i: int) -> float:
        return self.left + (i + 0.5) * self.slot

    def y(self, frac: float) -> float:
        return self.top + (1 - min(1.0, max(0.0, frac))) * self.plot_h

    @property
    def bottom(self) -> float:
        return self.top + self.plot_h

    @property
    def right(self) -> float:
        return self.left + self.plot_w


def _open_svg(width: int, height: int, cls: str, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(label)}">'
    )


def _runs(
    cells: Sequence[Point | None], count: Callable[[Point], int]
) -> list[list[tuple[int, Point]]]:
    """Runs of neighbouring x slots with games to show (slot and point; ``count`` says how
    many): a line joins a run, a gap (a point without them) splits it."""
    out: list[list[tuple[int, Point]]] = []
    run: list[tuple[int, Point]] = []
    for i, p in enumerate(cells):
        if p is not None and count(p) > 0:
            run.append((i, p))
        elif run:
            out.append(run)
            run = []
    if run:
        out.append(run)
    return out


def _x_axis(
    o: list[str],
    f: _Frame,
    param: Param,
    cells: Sequence[Point | None],
    counts: bool,
    axis_title: bool,
) -> None:
    """Tick labels under the plot (thinned and cut short when they would not fit), each
    point's number of games under them (``counts``) and the parameter's name."""
    labels = [_value(v) for v in param.values]
    # a long label is cut short to 6 characters before labels are left out
    longest = max((len(t) for t in labels), default=1)
    need = min(6, max(3, longest)) * _CHAR_W + 6
    most = max((p.games for p in cells if p is not None), default=0)
    need = max(need, len(f"n={most}") * 5.8 + 6)  # the same labels with the counts or not
    every = max(1, math.ceil(need / f.slot)) if f.slot > 0 else 1
    fit = max(3, int(f.slot * every / _CHAR_W) - 1)
    y = f.bottom
    for i, text in enumerate(labels):
        x = f.x(i)
        o.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y:.1f}" y2="{y + 4:.1f}" stroke="#aaa"/>')
        if i % every:
            continue
        o.append(
            f'<text x="{x:.1f}" y="{y + 15:.1f}" font-size="11" fill="#444" '
            f'text-anchor="middle">{escape(_short(text, min(fit, _LABEL_CHARS)))}'
            f"<title>{escape(param.name)} = {escape(text)}</title></text>"
        )
        if counts:
            p = cells[i] if i < len(cells) else None
            n = p.games if p is not None else 0
            o.append(
                f'<text x="{x:.1f}" y="{y + 27:.1f}" font-size="9.5" fill="#999" '
                f'text-anchor="middle">n={n}</text>'
            )
    if axis_title:
        o.append(
            f'<text x="{f.left + f.plot_w / 2:.1f}" y="{f.height - 3:.1f}" font-size="11" '
            f'fill="#666" text-anchor="middle">{escape(_short(param.name, 60))}</text>'
        )


# -- the charts --------------------------------------------------------------------------------
def _plot_area(f: _Frame, fracs: Sequence[float], label: Callable[[float], str]) -> str:
    """The plot's background, and a grid line at each height in ``fracs`` labelled on the
    left."""
    o = [
        f'<rect x="{f.left}" y="{f.top}" width="{f.plot_w:.1f}" height="{f.plot_h:.1f}" '
        'fill="#f7f6f2"/>'
    ]
    for frac in fracs:
        y = f.y(frac)
        o.append(
            f'<line x1="{f.left}" x2="{f.right:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e6e3dc"/>'
            f'<text x="{f.left - 5}" y="{y + 3.5:.1f}" font-size="10" fill="#888" '
            f'text-anchor="end">{label(frac)}</text>'
        )
    return "".join(o)


def _polyline(
    f: _Frame, runs: list[list[tuple[int, Point]]], value: Callable[[Point], float], colour: str
) -> str:
    """A line through the points of each run (a run of one point draws none); ``value`` is
    the point's height as a fraction of the chart."""
    d = [
        "M" + "L".join(f"{f.x(i):.1f},{f.y(value(p)):.1f}" for i, p in run)
        for run in runs
        if len(run) > 1
    ]
    if not d:
        return ""
    return (
        f'<path class="line" d="{"".join(d)}" fill="none" stroke="{colour}" '
        'stroke-width="2" stroke-linejoin="round"/>'
    )


def _win_chart(
    result: SweepData,
    colours: list[str],
    param: Param,
    cells: Sequence[Point | None],
    where: str,
    width: int,
    height: int,
) -> str:
    """Every seat's win rate against ``param``: a line per seat with a dot at each point
    (filled: decided, hollow: not), its 95% interval as a band, the even share dashed, and a
    small triangle over each point that stopped early."""
    seats = list(result.seats)
    f = _Frame(width, height, 44, 62, 16, 46, len(param.values))
    label = f"win rate against {param.name}" + (f" ({where})" if where else "")
    o = [_open_svg(width, height, "chart win", label), _plot_area(f, (0, 0.25, 0.5, 0.75, 1), _pct)]
    _x_axis(o, f, param, cells, counts=True, axis_title=True)
    runs = _runs(cells, lambda p: p.decisive)
    # bands under the lines, lines under the dots
    half = min(6.0, f.slot / 4)
    for k, seat in enumerate(seats):
        d = []
        for run in runs:
            iv = [(i, *p.interval(seat)) for i, p in run]
            if len(run) == 1:
                i, lo, hi = iv[0]
                x = f.x(i)
                d.append(
                    f"M{x - half:.1f},{f.y(hi):.1f}H{x + half:.1f}V{f.y(lo):.1f}H{x - half:.1f}Z"
                )
                continue
            top = "L".join(f"{f.x(i):.1f},{f.y(hi):.1f}" for i, _, hi in iv)
            low = "L".join(f"{f.x(i):.1f},{f.y(lo):.1f}" for i, lo, _ in reversed(iv))
            d.append(f"M{top}L{low}Z")
        o.append(
            f'<path class="band" d="{"".join(d)}" fill="{colours[k]}" fill-opacity="0.16" '
            'stroke="none"/>'
        )
    even = result.even
    ey = f.y(even)
    o.append(
        f'<line class="even-line" x1="{f.left}" x2="{f.right:.1f}" y1="{ey:.1f}" y2="{ey:.1f}" '
        'stroke="#666" stroke-width="1.2" stroke-dasharray="5,4"><title>an even share: '
        f"{100 * even:.1f}% (one in {len(seats)} seats)</title></line>"
    )
    o.append(
        f'<text x="{f.right + 5:.1f}" y="{ey - 2:.1f}" font-size="10" fill="#555">even share</text>'
        f'<text x="{f.right + 5:.1f}" y="{ey + 10:.1f}" font-size="10" fill="#555">'
        f"{100 * even:.3g}%</text>"
    )
    for k, seat in enumerate(seats):
        o.append(_polyline(f, runs, lambda p, s=seat: p.win_rate(s), colours[k]))
    radius = min(4.2, max(2.2, f.slot / 3))
    for k, seat in enumerate(seats):
        name = _seat_label(result, seat)
        for run in runs:
            for i, p in run:
                rate, (lo, hi) = p.win_rate(seat), p.interval(seat)
                at = _where([param], [param.values[i]])
                tip = (
                    f"{name} at {at}{', ' + where if where else ''}: {100 * rate:.1f}% of "
                    f"{p.decisive} decisive games (95% interval {100 * lo:.1f}–"
                    f"{100 * hi:.1f}); {p.games} games, {100 * p.tie_rate:.0f}% without a sole "
                    "winner; "
                    f"{_verdict(result, p)}"
                )
                if p.decided:
                    style = f'fill="{colours[k]}" stroke="#fff" stroke-width="1.2"'
                else:
                    style = f'fill="#fff" stroke="{colours[k]}" stroke-width="1.8"'
                o.append(
                    f'<circle class="dot{" decided" if p.decided else ""}" cx="{f.x(i):.1f}" '
                    f'cy="{f.y(rate):.1f}" r="{radius:.1f}" {style}><title>{escape(tip)}</title>'
                    "</circle>"
                )
    for i, p in enumerate(cells):
        if p is not None and p.stopped_early:
            x, y = f.x(i), f.top + 1
            o.append(
                f'<path class="early" d="M{x - 4:.1f},{y:.1f}H{x + 4:.1f}L{x:.1f},{y + 6:.1f}Z" '
                f'fill="#3f7f4f"><title>{escape(_where([param], [param.values[i]]))}: stopped '
                f"early, decided after {p.games} of {result.max_games} games "
                f"({escape(_verdict(result, p))})</title></path>"
            )
        if p is None or p.decisive == 0:
            x, y = f.x(i), f.bottom - 5
            what = "no game won alone" if p is not None and p.games else "no games"
            tip = f"{_where([param], [param.values[i]])}: {what}"
            o.append(
                f'<path class="gap" d="M{x - 3:.1f},{y - 3:.1f}l6,6m0,-6l-6,6" stroke="#999" '
                f'stroke-width="1.4"><title>{escape(tip)}</title></path>'
            )
            if f.slot >= 56:
                o.append(
                    f'<text x="{x:.1f}" y="{f.top + f.plot_h / 2:.1f}" font-size="10" '
                    f'fill="#aaa" text-anchor="middle">{what.replace("every game ", "all ")}</text>'
                )
    o.append("</svg>")
    return "".join(o)


def _length_chart(
    param: Param,
    cells: Sequence[Point | None],
    where: str,
    top_turns: float,
    width: int,
    height: int,
) -> str:
    """The mean game length in turns at each point, from 0."""
    f = _Frame(width, height, 44, 62, 10, 22, len(param.values))
    label = f"game length against {param.name}" + (f" ({where})" if where else "")
    o = [
        _open_svg(width, height, "chart length", label),
        _plot_area(f, (0, 0.5, 1), lambda frac: _num(frac * top_turns)),
    ]
    o.append(
        f'<text x="{f.right + 5:.1f}" y="{f.top + 9:.1f}" font-size="10" fill="#888">turns</text>'
    )
    _x_axis(o, f, param, cells, counts=False, axis_title=False)
    runs = _runs(cells, lambda p: p.games)
    o.append(_polyline(f, runs, lambda p: p.mean_turns / top_turns, _LENGTH))
    radius = min(3.4, max(1.8, f.slot / 3))
    for run in runs:
        for i, p in run:
            tip = f"{_where([param], [param.values[i]])}{', ' + where if where else ''}: "
            tip += f"{p.mean_turns:.1f} turns on average over {p.games} games"
            o.append(
                f'<circle cx="{f.x(i):.1f}" cy="{f.y(p.mean_turns / top_turns):.1f}" '
                f'r="{radius:.1f}" '
                f'fill="{_LENGTH}" stroke="#fff" stroke-width="1"><title>{escape(tip)}</title>'
                "</circle>"
            )
    o.append("</svg>")
    return "".join(o)


# -- the heatmap and the table -----------------------------------------------------------------
def _mix(rgb: tuple[int, int, int], t: float) -> str:
    """White mixed with ``rgb``: ``t`` 0 is white, 1 the colour."""
    t = min(1.0, max(0.0, t))
    r, g, b = (round(255 + (c - 255) * t) for c in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _heat_colour(
    rate: float, even: float, ahead: tuple[int, int, int], behind: tuple[int, int, int]
) -> tuple[str, bool]:
    """The cell's colour, diverging around the even share from ``behind`` to ``ahead``, and
    whether its text is white."""
    if rate >= even:
        span = min(_SATURATE, 1 - even)
        t = (rate - even) / span if span > 0 else 0.0
        rgb = ahead
    else:
        span = min(_SATURATE, even)
        t = (even - rate) / span if span > 0 else 0.0
        rgb = behind
    t = min(1.0, t)
    return _mix(rgb, t), t > 0.62


def _heatmap(result: SweepData, index: dict[tuple, Point], colours: list[str]) -> str:
    rows_p, cols_p = result.params[0], result.params[1]
    seat = result.seats[0]
    name = escape(_seat_label(result, seat))
    # the first seat's colour where it is ahead; its rival's (or grey) where it is behind
    ahead = _rgb(colours[0])
    behind = _rgb(colours[1]) if len(colours) == 2 else _BEHIND
    rival = escape(_seat_label(result, result.seats[1])) if len(colours) == 2 else ""
    even = result.even
    head = "".join(
        f'<th title="{escape(cols_p.name)} = {escape(_value(v))}">'
        f"{escape(_short(_value(v), 24))}</th>"
        for v in cols_p.values
    )
    rows = []
    for rv in rows_p.values:
        cells = []
        for cv in cols_p.values:
            p = index.get((_key(rv), _key(cv)))
            where = _where([rows_p, cols_p], [rv, cv])
            if p is None or p.decisive == 0:
                n = p.games if p is not None else 0
                what = "no game won alone" if n else "no games"
                cells.append(f'<td class="cell none" title="{escape(where)}: {what}">– n={n}</td>')
                continue
            rate, (lo, hi) = p.win_rate(seat), p.interval(seat)
            bg, white = _heat_colour(rate, even, ahead, behind)
            fg = "#fff" if white else "#222"
            cls = "cell d" if p.decided else "cell"
            early = "; stopped early" if p.stopped_early else ""
            tip = f"{where}: {p.decisive} decisive games of {p.games}; {_verdict(result, p)}{early}"
            cells.append(
                f'<td class="{cls}" style="background:{bg};color:{fg}" title="{escape(tip)}">'
                f"{100 * rate:.0f}% ({100 * lo:.0f}–{100 * hi:.0f}) n={p.games}</td>"
            )
        rows.append(
            f'<tr><th class="row" title="{escape(rows_p.name)} = {escape(_value(rv))}">'
            f"{escape(_short(_value(rv), 24))}</th>{''.join(cells)}</tr>"
        )
    corner = f"{escape(rows_p.name)} ↓ &nbsp; {escape(cols_p.name)} →"
    return (
        f"<section><h2>{name}'s win rate over the grid <small>(95% interval, games)</small></h2>"
        f'<div class="wide"><table class="heat"><tr><th class="row">{corner}</th>{head}</tr>'
        f"{''.join(rows)}</table></div>"
        f'<p class="note">In {name}\'s colour: {name} wins more than an even share '
        f"({_pct(even)}); in {f'{rival}' + chr(39) + 's colour' if rival else 'grey'}: "
        f"less; white: near even (full colour at {_pct(_SATURATE)} off it). Bold: the point is "
        "decided (a seat's interval excludes the even share); hover a cell for its verdict.</p>"
        "</section>"
    )


def _points_table(result: SweepData, colours: list[str]) -> str:
    seats = list(result.seats)
    head = "".join(f'<th title="{escape(p.kind)}">{escape(p.name)}</th>' for p in result.params)
    head += "<th>games</th>"
    head += "".join(
        f'<th style="color:{c}">{escape(_seat_label(result, s))} wins</th>'
        for s, c in zip(seats, colours, strict=True)
    )
    head += '<th>no sole winner</th><th>turns</th><th class="v">verdict</th><th>stopped early</th>'
    rows = []
    for p in result.points:
        cells = "".join(
            f'<td class="v">{escape(_value(p.values.get(q.name, "")))}</td>' for q in result.params
        )
        cells += f"<td>{p.games}</td>"
        sides = _sides(p)
        for s in seats:
            if p.decisive == 0:
                cells += "<td>–</td>"
                continue
            lo, hi = p.interval(s)
            mark = ""
            if s in sides:
                arrow = "▲" if sides[s] == "above" else "▼"
                mark = f' <span class="flag" title="{sides[s]} an even share">{arrow}</span>'
            cells += (
                f'<td>{100 * p.win_rate(s):.1f}% <span class="ci">({100 * lo:.1f}–'
                f"{100 * hi:.1f})</span>{mark}</td>"
            )
        ties = f"{100 * p.tie_rate:.1f}%" if p.games else "–"  # nobody won alone
        if p.no_sole:
            ties += f'<br><span class="ci">{escape(p.no_sole_text())}</span>'
        turns = f"{p.mean_turns:.1f}" if p.games else "–"
        early = f'<span class="early">yes, after {p.games}</span>' if p.stopped_early else "no"
        cells += (
            f'<td>{ties}</td><td>{turns}</td><td class="v">{escape(_verdict(result, p))}</td>'
            f"<td>{early}</td>"
        )
        rows.append(f"<tr>{cells}</tr>")
    return (
        "<section><h2>Every point <small>(each seat's share of the decisive games, with its "
        "95% interval; ▲/▼: the verdict's seat above/below an even share; no sole winner: the "
        "games nobody won alone)</small></h2>"
        f'<div class="wide"><table class="points"><tr>{head}</tr>{"".join(rows)}</table></div>'
        "</section>"
    )


# -- the page ----------------------------------------------------------------------------------
def _key_html(colours: list[str], result: SweepData) -> str:
    legend = "".join(
        f'<span><i style="background:{c}"></i>{escape(_seat_label(result, s))}'
        + (
            f' <small style="color:#888">({escape(s)})</small>'
            if _seat_label(result, s) != s
            else ""
        )
        + "</span>"
        for s, c in zip(result.seats, colours, strict=True)
    )
    grey = "#777"
    sym = '<svg width="{w}" height="12" viewBox="0 0 {w} 12">{body}</svg>'
    key = "".join(
        f"<span>{sym.format(w=w, body=body)}{text}</span>"
        for w, body, text in (
            (12, f'<circle cx="6" cy="6" r="4.2" fill="{grey}"/>', "decided"),
            (
                12,
                f'<circle cx="6" cy="6" r="4" fill="#fff" stroke="{grey}" stroke-width="1.8"/>',
                NO_CLEAR_BIAS,
            ),
            (12, '<path d="M2,2H10L6,8Z" fill="#3f7f4f"/>', "stopped early"),
            (
                18,
                f'<rect x="0" y="1" width="18" height="10" fill="{grey}" fill-opacity="0.25"/>',
                "95% interval",
            ),
            (
                22,
                '<line x1="0" x2="22" y1="6" y2="6" stroke="#666" stroke-width="1.2" '
                'stroke-dasharray="5,4"/>',
                f"even share ({100 * result.even:.3g}%)",
            ),
        )
    )
    return f'<div class="legend">{legend}</div><div class="key">{key}</div>'


def _summary(result: SweepData) -> str:
    counts = Counter(_verdict(result, p) for p in result.points)
    n = len(result.points)
    undecided = counts.pop(NO_CLEAR_BIAS, 0)
    parts = [f"{k} {escape(v)}" for v, k in sorted(counts.items(), key=lambda kv: -kv[1])]
    if undecided:
        parts.append(f"{undecided} {NO_CLEAR_BIAS}")
    early = sum(1 for p in result.points if p.stopped_early)
    text = f"{n} point{'s' if n != 1 else ''}: " + (", ".join(parts) or "none")
    text += f"; {early} stopped early." if early else "."
    return f'<p class="summary-line"><b>{text}</b></p>'


def _endings_section(result: SweepData) -> str:
    """How the games ended, over every point: per reason the rules give, and the games nobody
    won alone by kind (they count in no seat's share)."""
    reasons, kinds = result.endings()
    n = result.games
    rows = [(f"ended by {why}", k) for why, k in reasons.items()]
    rows += [(f"no sole winner: {what}", k) for what, k in kinds.items() if k]
    body = "".join(
        f"<tr><td>{escape(what)}</td><td>{k}</td><td>{_pct(k / n) if n else '–'}</td></tr>"
        for what, k in rows
    )
    return (
        "<section><h2>How the games ended <small>(every point together; a game nobody won "
        "alone counts in no seat's share)</small></h2>"
        f'<table class="endings"><tr><th>games</th><th>count</th><th>share</th></tr>{body}'
        f"<tr><td>all games</td><td>{n}</td><td></td></tr></table></section>"
    )


def render_html(result: SweepData) -> str:
    """A self-contained page: inline CSS and SVG, no scripts, no external resources."""
    seats = list(result.seats)
    colours = seat_colours(seats)
    params = list(result.params)
    names = [p.name for p in params]
    scenario_title = result.title or f"{result.game}/{result.scenario}"
    heading = f"{scenario_title}: sweep of {' × '.join(names)}"
    agents = ", ".join(
        f"{_seat_label(result, s)} {a}" for s, a in zip(seats, result.agents, strict=False)
    )
    planned = result.max_games * len(result.points)
    varied = "; ".join(
        f"{p.name} ({p.kind}): {', '.join(_value(v) for v in p.values)}" for p in params
    )
    sub = (
        f"{escape(result.game)}/{escape(result.scenario)}. Agents: {escape(agents)}; seed "
        f"{result.seed}; up to {result.max_games} games per point in batches of {result.batch}; "
        f"executor {escape(str(result.executor))}. {result.games:,} games in "
        f"{result.seconds:.1f} s; sequential stopping saved {result.games_saved:,} of "
        f"{planned:,}.<br>Varied: {escape(varied)}.<br>Balanced means: {escape(BALANCE_RULE)}."
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(heading)}</title>",
        f"<style>{PAGE_CSS}{_EXTRA_CSS}</style></head><body>",
        f"<h1>{escape(heading)}</h1>",
        f'<p class="sub">{sub}</p>',
        f'<p class="note again">Again: <code>{escape(result.command())}</code></p>',
        _summary(result),
    ]
    index: dict[tuple, Point] = {}
    for p in result.points:
        index.setdefault(tuple(_key(p.values.get(n)) for n in names), p)
    if params:
        # across: the parameter with the most values (the last of equals); one panel for
        # each combination of the others
        xi = max(range(len(params)), key=lambda i: (len(params[i].values), i))
        xparam, others = params[xi], params[:xi] + params[xi + 1 :]
        played = [p.mean_turns for p in result.points if p.games > 0]
        top_turns = _nice_max(max(played, default=0.0))
        panels = []
        for combo in itertools.product(*(q.values for q in others)):
            cells = []
            for xv in xparam.values:
                at = dict(zip([q.name for q in others], combo, strict=True))
                at[xparam.name] = xv
                cells.append(index.get(tuple(_key(at[n]) for n in names)))
            panels.append((_where(others, combo), cells))
        key = _key_html(colours, result)
        if not others:
            cells = panels[0][1]
            parts.append(
                f"<section><h2>Win rate against {escape(xparam.name)} <small>{_SHARE}"
                f"</small></h2>{key}"
                f"{_win_chart(result, colours, xparam, cells, '', 820, 330)}</section>"
                f"<section><h2>Game length <small>(mean turns per game)</small></h2>"
                f"{_length_chart(xparam, cells, '', top_turns, 820, 150)}</section>"
            )
        else:
            boxes = "".join(
                f'<div class="panel"><h3>{escape(where)}</h3>'
                f"{_win_chart(result, colours, xparam, cells, where, 340, 240)}"
                f"{_length_chart(xparam, cells, where, top_turns, 340, 100)}</div>"
                for where, cells in panels
            )
            parts.append(
                f"<section><h2>Win rate against {escape(xparam.name)}, for each "
                f"{escape(' × '.join(q.name for q in others))} <small>{_SHARE}; under "
                "each, the mean game length in turns, on one scale</small></h2>"
                f'{key}<div class="panels">{boxes}</div></section>'
            )
        if len(params) == 2 and seats:
            parts.append(_heatmap(result, index, colours))
    parts.append(_endings_section(result))
    parts.append(_points_table(result, colours))
    parts.append(
        '<p class="note">Sequential stopping: each point is played in batches of '
        f"{result.batch}, up to {result.max_games} games; a point stops once a seat's "
        f"{100 * result.stop_confidence:.2f}% interval lies wholly above or below the even share "
        f"({100 * result.even:.3g}%). The stopping test uses that wider interval because it looks "
        "after every batch, which keeps the chance of calling a balanced point decided under "
        "5%. The intervals shown are 95% Wilson intervals of the decisive games played.</p>"
        "</body></html>"
    )
    return "\n".join(parts)
