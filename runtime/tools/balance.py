"""Balance of a game: self-play of every scenario, as a table, JSON or an HTML page.

For each compiled scenario of a game, :func:`balance` runs two pairings through
:func:`rulecraft.runtime.tools.simulate.simulate`: random against random, and the Monte Carlo bot
(``mc:PLAYOUTS``) against itself. Each pairing of a scenario uses the run seed unchanged, so a
row can be reproduced alone with ``rulecraft simulate game/scenario --games N --seed S
--agents A``.

Standard library only (the runtime never imports jinja2): the HTML page is built here, with
inline CSS and inline SVG, no scripts and no external resources.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field
from html import escape
from typing import Any, TextIO

from ..machine import GameError, UnknownGame
from ..registry import known_games, load_spec
from ..spec import GameSpec
from .simulate import SimResult, simulate, wilson

__all__ = ["balance", "scenarios_of", "BalanceReport", "ScenarioBalance", "Pairing"]

DEFAULT_GAMES = 200
DEFAULT_BOT_GAMES = 10
DEFAULT_PLAYOUTS = 4
DEFAULT_BOT_MAX_TURNS = 200


def scenarios_of(game: str) -> list[tuple[GameSpec, str]]:
    """Every compiled scenario of ``game`` as ``(spec, scenario id)``, in ``SCENARIOS`` order.

    A generated game package ``rulecraft.generated.<game>`` has ``SCENARIOS`` (the order) and
    ``SPECS``: scenario id -> that scenario's spec. A game registered by hand (no package)
    has just the scenario of its spec.
    """
    if "/" in game:
        raise GameError(f"expected a game name, not a scenario: {game!r}")
    spec = load_spec(game)  # a clear UnknownGame if it is not compiled
    try:
        module = importlib.import_module(f"rulecraft.generated.{game}")
    except ImportError:
        module = None
    specs = getattr(module, "SPECS", None)
    if isinstance(specs, dict) and specs:
        order = getattr(module, "SCENARIOS", None) or tuple(specs)
        out = [(specs[sid], sid) for sid in order if sid in specs]
    else:  # registered by hand: every scenario registered under the game's name
        sids = [n.split("/", 1)[1] for n in known_games() if n.startswith(game + "/")]
        out = [(load_spec(game, sid), sid) for sid in sids] or [(spec, spec.scenario)]
    if not out:
        raise UnknownGame(f"game {game!r} has no scenario")
    return out


@dataclass
class Pairing:
    """One agent for every seat, ``games`` games."""

    name: str  # "random", "mc"
    agent: str  # "random", "mc:8"
    games: int


@dataclass
class ScenarioBalance:
    """The results of every pairing in one scenario."""

    scenario: str
    title: str
    seats: list[str]
    seat_labels: list[str]
    results: list[tuple[Pairing, SimResult]] = field(default_factory=list)
    #: pairings that failed (a rules error during play): (pairing, message)
    errors: list[tuple[Pairing, str]] = field(default_factory=list)


def _shared(r: SimResult) -> int:
    """Extra wins counted by shared victories (a shared victory counts for each winner)."""
    return sum(len(o[1]) - 1 for o in r.outcomes if not o[2] and len(o[1]) > 1)


def _pairing_dict(p: Pairing, r: SimResult) -> dict[str, Any]:
    d = r.to_dict()
    d = {"pairing": p.name, "agent": p.agent, **d}
    d["shared_wins"] = _shared(r)
    return d


@dataclass
class BalanceReport:
    game: str
    title: str
    seed: int
    pairings: list[Pairing]
    scenarios: list[ScenarioBalance]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "title": self.title,
            "seed": self.seed,
            "pairings": [
                {"pairing": p.name, "agent": p.agent, "games": p.games} for p in self.pairings
            ],
            "scenarios": [
                {
                    "scenario": sb.scenario,
                    "title": sb.title,
                    "seats": list(sb.seats),
                    "seat_labels": list(sb.seat_labels),
                    "results": [_pairing_dict(p, r) for p, r in sb.results],
                    "errors": [
                        {"pairing": p.name, "agent": p.agent, "error": msg} for p, msg in sb.errors
                    ],
                }
                for sb in self.scenarios
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @property
    def failed(self) -> bool:
        """Whether some pairing stopped on an error (its row is missing)."""
        return any(sb.errors for sb in self.scenarios)

    def table(self) -> str:
        return render_table(self)

    def html(self) -> str:
        return render_html(self)


def balance(
    game: str,
    games: int = DEFAULT_GAMES,
    bot_games: int = DEFAULT_BOT_GAMES,
    playouts: int = DEFAULT_PLAYOUTS,
    seed: int = 0,
    jobs: int = 1,
    progress: TextIO | bool | None = None,
    scenarios: list[str] | None = None,
    bot_max_turns: int | None = DEFAULT_BOT_MAX_TURNS,
) -> BalanceReport:
    """Self-play every scenario of ``game`` (or only ``scenarios``): ``games``
    random-vs-random games and ``bot_games`` games of ``mc:playouts`` against itself
    (0 skips a pairing). Bot games stop as draws after ``bot_max_turns`` turns: two bots
    that each refuse every losing move can stall a scenario whose only end is decisive."""
    if games < 0 or bot_games < 0:
        raise GameError("the number of games cannot be negative")
    if playouts < 1:
        raise GameError("the number of playouts must be at least 1")
    pairings = [
        p
        for p in (Pairing("random", "random", games), Pairing("mc", f"mc:{playouts}", bot_games))
        if p.games > 0
    ]
    if not pairings:
        raise GameError("nothing to play: both --games and --bot-games are 0")
    found = scenarios_of(game)
    if scenarios is not None:
        unknown = sorted(set(scenarios) - {sid for _, sid in found})
        if unknown:
            known = ", ".join(sid for _, sid in found)
            raise UnknownGame(f"game {game!r} has no scenario {unknown[0]!r} (known: {known})")
        found = [(spec, sid) for spec, sid in found if sid in scenarios]
    report = BalanceReport(game, found[0][0].title, seed, pairings, [])
    for spec, sid in found:
        sb = ScenarioBalance(
            sid, spec.scenario_title, list(spec.seats), list(spec.seat_labels or spec.seats)
        )
        for p in pairings:
            label = f"{game}/{sid} {p.agent}"
            try:
                r = simulate(
                    spec,
                    sid,
                    p.games,
                    seed,
                    [p.agent],
                    jobs=jobs,
                    progress=progress,
                    label=label,
                    max_turns=bot_max_turns if p.name == "mc" else None,
                )
            except GameError as exc:  # report it and go on with the other scenarios
                sb.errors.append((p, f"{type(exc).__name__}: {exc}"))
                continue
            sb.results.append((p, r))
        report.scenarios.append(sb)
    return report


# -- text ---------------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _cell(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    rate = k / n if n else 0.0
    return f"{_pct(rate)}% ({_pct(lo)}-{_pct(hi)})"


def render_table(report: BalanceReport) -> str:
    """The balance table as plain text: one block per scenario, one row per pairing."""
    ps = ", ".join(f"{p.agent} vs {p.agent} x{p.games}" for p in report.pairings)
    lines = [
        f"{report.title} ({report.game}): balance, seed {report.seed}; {ps}",
        "win and draw rates in %, 95% Wilson intervals in brackets",
    ]
    for sb in report.scenarios:
        lines.append("")
        seats = ", ".join(f"{s}={lab}" for s, lab in zip(sb.seats, sb.seat_labels, strict=True))
        lines.append(f"{sb.title} [{sb.scenario}]  seats: {seats}")
        head = ["pairing", "games", *sb.seats, "draws", "turns", "decisions"]
        rows = []
        for p, r in sb.results:
            rows.append(
                [
                    f"{p.agent} vs {p.agent}",
                    str(r.games),
                    *[_cell(r.wins[s], r.games) for s in sb.seats],
                    _cell(r.ties, r.games),
                    f"{r.mean_turns:.1f}",
                    f"{r.mean_decisions:.1f}",
                ]
            )
            if _shared(r):
                rows[-1][0] += " *"
        widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
        lines.append(
            "  "
            + "  ".join(
                _align(h, w, i) for i, (h, w) in enumerate(zip(head, widths, strict=True))
            ).rstrip()
        )
        for row in rows:
            lines.append(
                "  "
                + "  ".join(
                    _align(c, w, i) for i, (c, w) in enumerate(zip(row, widths, strict=True))
                ).rstrip()
            )
        if any(_shared(r) for _, r in sb.results):
            lines.append("  * shared victories count as a win for each winner")
        for p, r in sb.results:
            if r.turn_limit:
                lines.append(
                    f"  {p.agent} vs {p.agent}: {r.turn_limit} of {r.games} games stopped "
                    "at the turn limit (counted as draws)"
                )
        for p, msg in sb.errors:
            lines.append(f"  {p.agent} vs {p.agent}: FAILED: {msg}")
    return "\n".join(lines)


def _align(text: str, width: int, col: int) -> str:
    return text.ljust(width) if col == 0 else text.rjust(width)


# -- HTML -----------------------------------------------------------------------------------------
_NAMED = {
    "blue": "#3a6ea5",
    "orange": "#e0862d",
    "red": "#c0392b",
    "green": "#3f8f5a",
    "yellow": "#d4a72c",
    "purple": "#7b5ea7",
    "black": "#3c3c3c",
    "white": "#b9b4a8",
    "grey": "#7f7f7f",
    "gray": "#7f7f7f",
    "brown": "#8b5a2b",
    "pink": "#d16d9e",
    "teal": "#2a9d8f",
}
_PALETTE = ("#3a6ea5", "#e0862d", "#3f8f5a", "#7b5ea7", "#c0392b", "#2a9d8f", "#8b5a2b")
_DRAW = "#c9c6bf"

_CSS = """
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;color:#222;background:#faf9f6;
 margin:0;padding:24px 32px;font-size:13px}
h1{font-size:22px;margin:0 0 4px}
.sub{color:#666;margin:0 0 18px}
section{background:#fff;border:1px solid #e2dfd8;border-radius:8px;padding:14px 18px 10px;
 margin:0 0 18px;break-inside:avoid;page-break-inside:avoid}
h2{font-size:16px;margin:0 0 6px}
h2 small{font-weight:normal;color:#888;font-size:12px}
.legend{margin:0 0 6px;color:#444}
.legend span{display:inline-block;margin-right:14px}
.legend i{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:5px;
 vertical-align:-1px}
svg{display:block}
svg text{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif}
table{border-collapse:collapse;margin:6px 0 4px;font-size:12px}
th,td{padding:3px 10px;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left;padding-left:0}
th{color:#666;font-weight:normal;border-bottom:1px solid #ddd}
td .ci{color:#888;font-size:11px}
.note{color:#777;font-size:11px;margin:6px 0 0}
.error{color:#a12a1f;font-size:12px;margin:6px 0 0}
code{font-size:11px}
@page{size:A4 landscape;margin:8mm}
"""


def seat_colours(seats: list[str]) -> list[str]:
    """A colour per seat: the seat's own colour if it is named after one, else a palette."""
    out: list[str] = []
    spare = [c for c in _PALETTE]
    for s in seats:
        c = _NAMED.get(s.lower())
        if c is not None and c not in out:
            out.append(c)
            if c in spare:
                spare.remove(c)
        else:
            out.append("")
    for i, c in enumerate(out):
        if not c:
            out[i] = spare.pop(0) if spare else _PALETTE[i % len(_PALETTE)]
    return out


def _chart(sb: ScenarioBalance, colours: list[str], max_turns: float, uid: str = "0") -> str:
    """Per pairing: a stacked bar of seat wins and draws, a dot-and-whisker panel of every
    seat's win rate with its 95% interval (dashed: an even share), and the mean length."""
    n_seats = len(sb.seats)
    bar_x, bar_w = 150, 330  # the pairing labels fill 0..bar_x
    ci_x, ci_w = bar_x + bar_w + 40, 250
    len_x, len_w = ci_x + ci_w + 40, 120
    width = len_x + len_w + 80
    row_h = max(44, 14 * n_seats + 18)
    top = 22
    height = top + row_h * len(sb.results) + 22
    o: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{escape(sb.title)}: win rates per pairing">',
        f'<defs><pattern id="hatch-{uid}" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#dedbd4"/>'
        '<line x1="0" y1="0" x2="0" y2="6" stroke="#bdb9b0" stroke-width="3"/></pattern></defs>',
    ]
    # column headings
    o.append(f'<text x="{bar_x}" y="12" font-size="11" fill="#777">share of games</text>')
    o.append(f'<text x="{ci_x}" y="12" font-size="11" fill="#777">win rate, 95% interval</text>')
    o.append(f'<text x="{len_x}" y="12" font-size="11" fill="#777">mean length (turns)</text>')
    even = 1 / n_seats if n_seats else 0.5
    for row, (p, r) in enumerate(sb.results):
        y0 = top + row * row_h
        cy = y0 + row_h / 2
        n = r.games
        o.append(
            f'<text x="0" y="{cy - 3:.1f}" font-size="12" font-weight="bold" fill="#222">'
            f"{escape(p.agent)} vs {escape(p.agent)}</text>"
        )
        o.append(f'<text x="0" y="{cy + 11:.1f}" font-size="11" fill="#777">{n} games</text>')
        if row:
            o.append(
                f'<line x1="0" x2="{len_x + len_w:.1f}" y1="{y0:.1f}" y2="{y0:.1f}" stroke="#eee"/>'
            )
        # stacked bar: the first seat from the left, the last from the right, draws (and any
        # seats between) in the middle, so the first and last seats get exact whiskers
        bh = 20
        by = cy - bh / 2
        segs = [(r.wins[s] / n if n else 0.0, colours[i], s) for i, s in enumerate(sb.seats)]
        hatch = f"url(#hatch-{uid})"
        draw = (r.ties / n if n else 0.0, hatch, "draws")
        order = [*segs[:-1], draw, segs[-1]] if n_seats > 1 else [*segs, draw]
        total = sum(x for x, _, _ in order)
        scale = bar_w / max(1.0, total)  # shared victories can overfill; keep it in the box
        x = bar_x
        o.append(f'<rect x="{bar_x}" y="{by:.1f}" width="{bar_w}" height="{bh}" fill="#f1efea"/>')
        for share, colour, name in order:
            w = share * scale
            if w <= 0:
                continue
            o.append(
                f'<rect x="{x:.1f}" y="{by:.1f}" width="{w:.1f}" height="{bh}" '
                f'fill="{colour}"><title>{escape(name)}: {100 * share:.1f}%</title></rect>'
            )
            if w >= 34:
                fill = "#fff" if colour != hatch else "#555"
                o.append(
                    f'<text x="{x + w / 2:.1f}" y="{by + 14:.1f}" font-size="11" '
                    f'text-anchor="middle" fill="{fill}">{100 * share:.0f}%</text>'
                )
            x += w
        if n_seats == 2:
            mid = bar_x + bar_w / 2
            for y1, y2 in ((by - 3, by), (by + bh, by + bh + 3)):
                o.append(
                    f'<line x1="{mid:.1f}" x2="{mid:.1f}" y1="{y1:.1f}" y2="{y2:.1f}" '
                    'stroke="#555" stroke-width="1.5"/>'
                )
        if n and total <= 1.0 + 1e-9:
            lo, hi = wilson(r.wins[sb.seats[0]], n)
            _whisker(o, bar_x + lo * scale, bar_x + hi * scale, by + bh + 6, colours[0])
            if n_seats > 1:
                lo, hi = wilson(r.wins[sb.seats[-1]], n)
                end = bar_x + bar_w
                _whisker(o, end - hi * scale, end - lo * scale, by - 6, colours[-1])
        # dot and whisker panel
        o.append(
            f'<rect x="{ci_x}" y="{y0 + 4:.1f}" width="{ci_w}" height="{row_h - 8}" '
            'fill="#f7f6f2"/>'
        )
        ex = ci_x + even * ci_w
        o.append(
            f'<line x1="{ex:.1f}" x2="{ex:.1f}" y1="{y0 + 4:.1f}" y2="{y0 + row_h - 4:.1f}" '
            'stroke="#999" stroke-dasharray="3,3"/>'
        )
        for i, s in enumerate(sb.seats):
            yy = y0 + 11 + i * ((row_h - 18) / max(1, n_seats - 1)) if n_seats > 1 else cy
            lo, hi = wilson(r.wins[s], n)
            rate = r.wins[s] / n if n else 0.0
            c = colours[i]
            o.append(
                f'<line x1="{ci_x + lo * ci_w:.1f}" x2="{ci_x + hi * ci_w:.1f}" '
                f'y1="{yy:.1f}" y2="{yy:.1f}" stroke="{c}" stroke-width="2.5" '
                'stroke-linecap="round"/>'
            )
            o.append(
                f'<circle cx="{ci_x + rate * ci_w:.1f}" cy="{yy:.1f}" r="4.5" fill="{c}" '
                f'stroke="#fff" stroke-width="1.2"><title>{escape(s)}: {100 * rate:.1f}% '
                f"({100 * lo:.1f}-{100 * hi:.1f})</title></circle>"
            )
        # mean length bar
        lw = (r.mean_turns / max_turns) * len_w if max_turns > 0 else 0
        o.append(
            f'<rect x="{len_x}" y="{cy - 7:.1f}" width="{lw:.1f}" height="14" '
            'fill="#8c8577" rx="2"/>'
        )
        o.append(
            f'<text x="{len_x + lw + 6:.1f}" y="{cy + 4:.1f}" font-size="12" fill="#333">'
            f"{r.mean_turns:.1f}</text>"
        )
        o.append(
            f'<text x="{len_x}" y="{cy + 20:.1f}" font-size="10" fill="#888">'
            f"{r.mean_decisions:.1f} decisions</text>"
        )
    # axes under the last row
    ay = top + row_h * len(sb.results) + 4
    for frac in (0, 0.25, 0.5, 0.75, 1):
        for x0, w0 in ((bar_x, bar_w), (ci_x, ci_w)):
            xx = x0 + frac * w0
            o.append(
                f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{ay:.1f}" y2="{ay + 4:.1f}" stroke="#aaa"/>'
            )
            o.append(
                f'<text x="{xx:.1f}" y="{ay + 15:.1f}" font-size="10" fill="#888" '
                f'text-anchor="middle">{int(frac * 100)}%</text>'
            )
    o.append("</svg>")
    return "\n".join(o)


def _whisker(o: list[str], x1: float, x2: float, y: float, colour: str) -> None:
    o.append(
        f'<path d="M{x1:.1f},{y - 3:.1f}v6M{x1:.1f},{y:.1f}H{x2:.1f}M{x2:.1f},{y - 3:.1f}v6" '
        f'stroke="{colour}" stroke-width="1.3" fill="none"/>'
    )


def _table_html(sb: ScenarioBalance) -> str:
    head = "".join(f"<th>{escape(lab)} wins</th>" for lab in sb.seat_labels)
    rows = []
    for p, r in sb.results:
        cells = []
        for k in [*(r.wins[s] for s in sb.seats), r.ties]:
            lo, hi = wilson(k, r.games)
            rate = k / r.games if r.games else 0.0
            cells.append(
                f'<td>{100 * rate:.1f}% <span class="ci">({100 * lo:.1f}&ndash;'
                f"{100 * hi:.1f})</span></td>"
            )
        rows.append(
            f"<tr><td>{escape(p.agent)} vs {escape(p.agent)}</td><td>{r.games}</td>"
            + "".join(cells)
            + f"<td>{r.mean_turns:.1f}</td><td>{r.mean_decisions:.1f}</td></tr>"
        )
    return (
        f"<table><tr><th>pairing</th><th>games</th>{head}<th>draws</th><th>turns</th>"
        f"<th>decisions</th></tr>{''.join(rows)}</table>"
    )


def render_html(report: BalanceReport) -> str:
    """A self-contained page: inline CSS and SVG, no scripts, no external resources."""
    max_turns = max((r.mean_turns for sb in report.scenarios for _, r in sb.results), default=0.0)
    ps = "; ".join(
        f"{escape(p.agent)} vs {escape(p.agent)}: {p.games} games" for p in report.pairings
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(report.title)}: balance</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{escape(report.title)}: balance</h1>",
        f'<p class="sub">Self-play of every scenario ({ps}; seed {report.seed}). '
        "Bars: share of games won by each seat and drawn (first seat from the left, last "
        "seat from the right, whiskers: their 95% Wilson intervals). Dots: every seat's win "
        "rate with its 95% interval; the dashed line is an even share.</p>",
    ]
    for k, sb in enumerate(report.scenarios):
        colours = seat_colours(sb.seats)
        legend = "".join(
            f'<span><i style="background:{c}"></i>{escape(lab)} '
            f'<small style="color:#888">({escape(s)})</small></span>'
            for s, lab, c in zip(sb.seats, sb.seat_labels, colours, strict=True)
        )
        legend += (
            '<span><svg width="11" height="11" style="display:inline-block;margin-right:5px;'
            'vertical-align:-1px"><rect width="11" height="11" rx="2" fill="#dedbd4"/>'
            '<path d="M-2,4 4,-2M-2,10 10,-2M4,13 13,4" stroke="#bdb9b0" stroke-width="2.2"/>'
            "</svg>draw</span>"
        )
        parts.append(
            f"<section><h2>{escape(sb.title)} <small>{escape(sb.scenario)}</small></h2>"
            f'<div class="legend">{legend}</div>'
            + (f"{_chart(sb, colours, max_turns, str(k))}{_table_html(sb)}" if sb.results else "")
        )
        if any(_shared(r) for _, r in sb.results):
            parts.append('<p class="note">A shared victory counts as a win for each winner.</p>')
        for p, msg in sb.errors:
            parts.append(
                f'<p class="error">{escape(p.agent)} vs {escape(p.agent)} failed: '
                f"<code>{escape(msg)}</code></p>"
            )
        parts.append("</section>")
    parts.append(
        '<p class="note">Reproduce one row: <code>rulecraft simulate GAME/SCENARIO --games N '
        f"--seed {report.seed} --agents AGENT</code>.</p></body></html>"
    )
    return "\n".join(parts)
