"""Balance of a game: self-play of every scenario, as a table, JSON or an HTML page.

For each compiled scenario of a game, :func:`balance` runs two pairings through
:func:`rulecraft.runtime.tools.simulate.simulate`: random against random, and the Monte Carlo bot
(``mc:PLAYOUTS``) against itself. Each pairing of a scenario uses the run seed unchanged, so a
row can be reproduced alone: :func:`reproduce` gives its command (``rulecraft simulate
game/scenario --games N --seed S --agents A [--bot-max-turns T]``).

Bot games stop as draws at the scenario's bot turn limit (its data, ``simulate:
bot_max_turns``; else :data:`DEFAULT_BOT_MAX_TURNS`) unless the caller gives one for all.

Standard library only (the runtime never imports jinja2): the HTML page is built here, with
inline CSS and inline SVG, no scripts and no external resources.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from html import escape
from typing import Any, TextIO

from ..machine import GameError, UnknownGame
from ..registry import game_module, known_games, load_spec
from ..spec import GameSpec
from .executors import Executor
from .simulate import BALANCE_RULE, TURN_LIMIT, SimResult, off_even_share, simulate, wilson
from .simulate import bot_max_turns as scenario_bot_limit

__all__ = [
    "PAGE_CSS",
    "balance",
    "scenarios_of",
    "off_even",
    "reproduce",
    "BalanceReport",
    "ScenarioBalance",
    "Pairing",
]

DEFAULT_GAMES = 200
DEFAULT_BOT_GAMES = 10
DEFAULT_PLAYOUTS = 4
DEFAULT_BOT_MAX_TURNS = 200
#: a pairing with fewer games is a small sample: its intervals are wide (about +-13 points
#: at 50 games), so the page draws it faint and the summary weighs it less
SMALL_SAMPLE = 50


def scenarios_of(game: str) -> list[tuple[GameSpec, str]]:
    """Every compiled scenario of ``game`` as ``(spec, scenario id)``, in ``SCENARIOS`` order.

    A generated game package (``rulecraft.generated.<game>``, or a project's) has
    ``SCENARIOS`` (the order) and ``SPECS``: scenario id -> that scenario's spec. A game
    registered by hand (no package) has just the scenario of its spec.
    """
    if "/" in game:
        raise GameError(f"expected a game name, not a scenario: {game!r}")
    spec = load_spec(game)  # a clear UnknownGame if it is not compiled
    try:
        module = game_module(game)
    except (ImportError, UnknownGame):
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
    #: the turn limit of the bot games (the pairing ``mc``): where it came from is
    #: ``limit_from``: "scenario" (its data), "default" or "option" (the caller's)
    bot_max_turns: int = DEFAULT_BOT_MAX_TURNS
    limit_from: str = "default"

    def max_turns(self, p: Pairing) -> int | None:
        """The turn limit the pairing's games were played at (None: the scenario's own)."""
        return self.bot_max_turns if p.name == "mc" else None


def _shared(r: SimResult) -> int:
    """Extra wins counted by shared victories (a shared victory counts for each winner)."""
    return sum(len(o[1]) - 1 for o in r.outcomes if not o[2] and len(o[1]) > 1)


def off_even(r: SimResult, seats: list[str]) -> dict[str, str]:
    """The seats whose share of the decisive games (won by one seat alone), its 95% interval,
    excludes an even share (1 / number of seats): seat -> ``"above"`` or ``"below"``, in seat
    order. Empty: no evidence of a bias. The sweep judges its points the same way
    (:data:`~.simulate.BALANCE_RULE`)."""
    return off_even_share(r.sole_wins, seats)


def _small(r: SimResult) -> bool:
    return r.games < SMALL_SAMPLE


def _pairing_dict(
    report: BalanceReport, sb: ScenarioBalance, p: Pairing, r: SimResult
) -> dict[str, Any]:
    d = r.to_dict()
    d = {"pairing": p.name, "agent": p.agent, **d}
    d["shared_wins"] = _shared(r)
    d["decisive"] = r.decisive  # the games one seat won alone: what off_even judges
    d["sole_wins"] = r.sole_wins
    d["max_turns"] = sb.max_turns(p)
    d["off_even"] = off_even(r, sb.seats)
    d["small_sample"] = _small(r)
    d["reproduce"] = reproduce(report, sb, p)
    return d


def reproduce(report: BalanceReport, sb: ScenarioBalance, p: Pairing) -> str:
    """The command that plays one row again alone, game for game: ``rulecraft simulate
    game/scenario --games N --seed S --agents A`` (and the bot games' turn limit)."""
    argv = ["rulecraft", "simulate", f"{report.game}/{sb.scenario}", "--games", str(p.games)]
    argv += ["--seed", str(report.seed), "--agents", p.agent]
    limit = sb.max_turns(p)
    if limit is not None:
        argv += ["--bot-max-turns", str(limit)]
    if report.jobs > 1:
        argv += ["--jobs", str(report.jobs)]
    return shlex.join(argv)


@dataclass
class BalanceReport:
    game: str
    title: str
    seed: int
    pairings: list[Pairing]
    scenarios: list[ScenarioBalance]
    playouts: int = DEFAULT_PLAYOUTS
    #: the turn limit the caller gave for every scenario's bot games (None: each its own)
    bot_max_turns: int | None = None
    #: the scenarios the caller asked for (None: all)
    only: list[str] | None = None
    jobs: int = 1

    @property
    def command(self) -> str:
        """The command that plays the whole report again."""
        by = {p.name: p for p in self.pairings}
        argv = ["rulecraft", "simulate", "--all", self.game]
        if "random" in by:
            argv += ["--games", str(by["random"].games)]
        argv += ["--bot-games", str(by["mc"].games if "mc" in by else 0)]
        if "mc" in by:
            argv += ["--playouts", str(self.playouts)]
        argv += ["--seed", str(self.seed)]
        if self.bot_max_turns is not None:
            argv += ["--bot-max-turns", str(self.bot_max_turns)]
        if self.only is not None:
            argv += ["--scenarios", ",".join(sb.scenario for sb in self.scenarios)]
        if self.jobs > 1:
            argv += ["--jobs", str(self.jobs)]
        return shlex.join(argv)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "title": self.title,
            "seed": self.seed,
            "command": self.command,
            "pairings": [
                {"pairing": p.name, "agent": p.agent, "games": p.games} for p in self.pairings
            ],
            "scenarios": [
                {
                    "scenario": sb.scenario,
                    "title": sb.title,
                    "seats": list(sb.seats),
                    "seat_labels": list(sb.seat_labels),
                    "bot_max_turns": sb.bot_max_turns,
                    "bot_max_turns_from": sb.limit_from,
                    "results": [_pairing_dict(self, sb, p, r) for p, r in sb.results],
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
    bot_max_turns: int | None = None,
    executor: Executor | None = None,
) -> BalanceReport:
    """Self-play every scenario of ``game`` (or only ``scenarios``, reported in the game's
    order): ``games`` random-vs-random games and ``bot_games`` games of ``mc:playouts``
    against itself (0 skips a pairing). Bot games stop as draws at a turn limit: two bots
    that each refuse every losing move can stall a scenario whose only end is decisive. The
    limit is ``bot_max_turns`` if given, else the scenario's own (``simulate:
    bot_max_turns`` in its file), else :data:`DEFAULT_BOT_MAX_TURNS`. The games run on
    ``executor`` (default: ``jobs`` local processes)."""
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
    report = BalanceReport(
        game,
        found[0][0].title,
        seed,
        pairings,
        [],
        playouts=playouts,
        bot_max_turns=bot_max_turns,
        only=None if scenarios is None else [sid for _, sid in found],
        jobs=jobs,
    )
    for spec, sid in found:
        sb = ScenarioBalance(
            sid, spec.scenario_title, list(spec.seats), list(spec.seat_labels or spec.seats)
        )
        own = scenario_bot_limit(spec)
        if bot_max_turns is not None:
            sb.bot_max_turns, sb.limit_from = bot_max_turns, "option"
        elif own is not None:
            sb.bot_max_turns, sb.limit_from = own, "scenario"
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
                    executor=executor,
                    max_turns=sb.max_turns(p),
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
    if not n:
        return "-"  # no game to take a share of (no decisive game)
    lo, hi = wilson(k, n)
    rate = k / n if n else 0.0
    return f"{_pct(rate)}% ({_pct(lo)}-{_pct(hi)})"


def _endings(r: SimResult) -> list[tuple[str, int]]:
    """How many games ended for each reason the rules give (the turn limit apart)."""
    return [(why, k) for why, k in r.endings.items() if why != TURN_LIMIT]


def _limit_note(sb: ScenarioBalance, p: Pairing) -> str:
    limit = sb.max_turns(p)
    if limit is None:
        return "the scenario's own turn limit"
    source = {
        "scenario": "the scenario's bot turn limit",
        "option": "the turn limit of --bot-max-turns",
        "default": "the default bot turn limit",
    }
    return f"{source[sb.limit_from]}, {limit}"


def render_table(report: BalanceReport) -> str:
    """The balance table as plain text: one block per scenario, one row per pairing."""
    ps = ", ".join(f"{p.agent} vs {p.agent} x{p.games}" for p in report.pairings)
    lines = [
        f"{report.title} ({report.game}): balance, seed {report.seed}; {ps}",
        f"balanced: {BALANCE_RULE}",
        f"seat columns: share of the decisive games in %, 95% Wilson intervals in brackets; "
        f"! the interval excludes an even share; no sole winner: share of all games; ~ fewer "
        f"than {SMALL_SAMPLE} games, weak evidence",
        f"again: {report.command}",
    ]
    for sb in report.scenarios:
        lines.append("")
        seats = ", ".join(f"{s}={lab}" for s, lab in zip(sb.seats, sb.seat_labels, strict=True))
        lines.append(f"{sb.title} [{sb.scenario}]  seats: {seats}")
        head = ["pairing", "games", "decisive", *sb.seats, "no sole winner", "turns", "decisions"]
        rows = []
        for p, r in sb.results:
            off = off_even(r, sb.seats)
            sole, decisive = r.sole_wins, r.decisive
            rows.append(
                [
                    f"{p.agent} vs {p.agent}",
                    str(r.games) + (" ~" if _small(r) else ""),
                    str(decisive),
                    *[_cell(sole[s], decisive) + (" !" if s in off else "") for s in sb.seats],
                    _cell(r.games - decisive, r.games),
                    f"{r.mean_turns:.1f}",
                    f"{r.mean_decisions:.1f}",
                ]
            )
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
        for p, r in sb.results:
            ended = ", ".join(f"{why} {k}" for why, k in _endings(r))
            lines.append(f"  {p.agent} vs {p.agent} ended: {ended or '-'}{_no_sole(r)}")
            lines.append(
                f"    {r.turn_limit} of {r.games} games stopped at {_limit_note(sb, p)}"
                + (" (no sole winner)" if r.turn_limit else "")
            )
            lines.append(f"    again: {reproduce(report, sb, p)}")
        for p, msg in sb.errors:
            lines.append(f"  {p.agent} vs {p.agent}: FAILED: {msg}")
    return "\n".join(lines)


def _no_sole(r: SimResult) -> str:
    """The games nobody won alone, by kind ("; no sole winner: 3 ties, 1 shared victory")."""
    kinds = _no_sole_kinds(r)
    return "; no sole winner: " + ", ".join(f"{k} {what}" for what, k in kinds) if kinds else ""


def _no_sole_kinds(r: SimResult) -> list[tuple[str, int]]:
    """The games nobody won alone: (kind, count) for the kinds that occurred. A game stopped
    at the turn limit counts there, not among the ties."""
    limit = r.turn_limit
    kinds = [
        ("ties", r.ties - limit if r.outcomes else r.ties),
        ("shared victories", r.shared_victories),
        ("shared defeats", r.shared_defeats),
        ("stopped at the turn limit", limit),
    ]
    return [(what, k) for what, k in kinds if k > 0]


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
_WEAK = "0.45"  # the opacity of a small sample

PAGE_CSS = """
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;color:#222;background:#faf9f6;
 margin:0;padding:24px 32px;font-size:13px}
h1{font-size:22px;margin:0 0 4px}
.sub{color:#666;margin:0 0 18px}
section{background:#fff;border:1px solid #e2dfd8;border-radius:8px;padding:14px 18px 10px;
 margin:0 0 18px;break-inside:avoid;page-break-inside:avoid;overflow-x:auto}
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
table.results{width:100%}
table.results td,table.results th{white-space:normal;padding:3px 6px}
td.share .ci,td.share .flag{display:block;white-space:nowrap}
.summary table{width:100%;table-layout:fixed}
.summary th:first-child{width:14%}
.summary th.limit-col{width:7%}
.note{color:#777;font-size:11px;margin:6px 0 0}
.error{color:#a12a1f;font-size:12px;margin:6px 0 0}
code{font-size:11px}
.summary td,.summary th{text-align:left;vertical-align:top;white-space:normal;
 padding:4px 14px 4px 0}
.summary td.num{text-align:right;white-space:nowrap}
.summary a{color:#222;text-decoration:none}
.weak{opacity:0.45}
.flag{color:#a12a1f;font-weight:bold}
.even{color:#3f7f4f}
.limit{color:#a12a1f}
.seat{margin-right:10px;white-space:nowrap}
.again code{background:#f3f1ec;padding:1px 4px;border-radius:3px}
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
    """Per pairing: a stacked bar of the games each seat won alone and those nobody won alone,
    a dot-and-whisker panel of every seat's share of the decisive games with its 95% interval
    (dashed: an even share), and the mean length."""
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
    o.append(
        f'<text x="{ci_x}" y="12" font-size="11" fill="#777">share of decisive games, 95%</text>'
    )
    o.append(f'<text x="{len_x}" y="12" font-size="11" fill="#777">mean length (turns)</text>')
    even = 1 / n_seats if n_seats else 0.5
    for row, (p, r) in enumerate(sb.results):
        y0 = top + row * row_h
        cy = y0 + row_h / 2
        n = r.games
        # a small sample is drawn faint: its wide intervals weigh little
        o.append(f'<g class="weak" opacity="{_WEAK}">' if _small(r) else "<g>")
        o.append(
            f'<text x="0" y="{cy - 3:.1f}" font-size="12" font-weight="bold" fill="#222">'
            f"{escape(p.agent)} vs {escape(p.agent)}</text>"
        )
        few = " (few)" if _small(r) else ""
        o.append(f'<text x="0" y="{cy + 11:.1f}" font-size="11" fill="#777">{n} games{few}</text>')
        if row:
            o.append(
                f'<line x1="0" x2="{len_x + len_w:.1f}" y1="{y0:.1f}" y2="{y0:.1f}" stroke="#eee"/>'
            )
        # stacked bar: the first seat from the left, the last from the right, draws (and any
        # seats between) in the middle, so the first and last seats get exact whiskers
        bh = 20
        by = cy - bh / 2
        sole, decisive = r.sole_wins, r.decisive
        segs = [(sole[s] / n if n else 0.0, colours[i], s) for i, s in enumerate(sb.seats)]
        hatch = f"url(#hatch-{uid})"
        draw = ((n - decisive) / n if n else 0.0, hatch, "no sole winner")
        order = [*segs[:-1], draw, segs[-1]] if n_seats > 1 else [*segs, draw]
        total = sum(x for x, _, _ in order)
        scale = bar_w / max(1.0, total)
        x: float = bar_x
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
            lo, hi = wilson(sole[sb.seats[0]], n)
            _whisker(o, bar_x + lo * scale, bar_x + hi * scale, by + bh + 6, colours[0])
            if n_seats > 1:
                lo, hi = wilson(sole[sb.seats[-1]], n)
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
        for i, s in enumerate(sb.seats if decisive else ()):  # no decisive game: no share
            yy = y0 + 11 + i * ((row_h - 18) / max(1, n_seats - 1)) if n_seats > 1 else cy
            lo, hi = wilson(sole[s], decisive)
            rate = sole[s] / decisive if decisive else 0.0
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
        o.append("</g>")
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
    head = "".join(f"<th>{escape(lab)}</th>" for lab in sb.seat_labels)
    rows = []
    for p, r in sb.results:
        off = off_even(r, sb.seats)
        cells = []
        sole, decisive = r.sole_wins, r.decisive
        shares = [(s, sole[s], decisive) for s in sb.seats]
        for who, k, n in [*shares, ("", r.games - decisive, r.games)]:
            lo, hi = wilson(k, n)
            rate = k / n if n else 0.0
            flag = f' <span class="flag">{_ARROW[off[who]]}</span>' if who in off else ""
            if not n:
                cells.append('<td class="share">&ndash;</td>')  # no decisive game
                continue
            cells.append(
                f'<td class="share">{100 * rate:.1f}% <span class="ci">({100 * lo:.1f}&ndash;'
                f"{100 * hi:.1f})</span>{flag}</td>"
            )
        weak = ' class="weak"' if _small(r) else ""
        rows.append(
            f"<tr{weak}><td>{escape(p.agent)} vs {escape(p.agent)}</td><td>{r.games}</td>"
            f"<td>{decisive}</td>"
            + "".join(cells)
            + f"<td>{r.mean_turns:.1f}</td><td>{r.mean_decisions:.1f}</td></tr>"
        )
    return (
        f'<table class="results"><tr><th>pairing</th><th>games</th><th>decisive</th>{head}'
        f"<th>no sole winner</th><th>turns</th><th>decisions</th></tr>{''.join(rows)}</table>"
        '<p class="note">Seat columns: share of the decisive games (those one seat won alone), '
        "95% interval in brackets; no sole winner: share of all games.</p>"
    )


_MARK = {"above": "&#9650;", "below": "&#9660;"}
_ARROW = {d: f'<span title="{d} an even share">{m} {d}</span>' for d, m in _MARK.items()}


def _endings_html(sb: ScenarioBalance) -> str:
    """Why the games ended: per reason the rules give, and at the turn limit, per pairing."""
    reasons: list[str] = []
    for _, r in sb.results:
        reasons += [why for why, _ in _endings(r) if why not in reasons]
    head = "".join(f"<th>{escape(p.agent)} vs {escape(p.agent)}</th>" for p, _ in sb.results)
    rows = []
    for why in reasons:
        cells = "".join(
            f"<td>{_count_pct(r.endings.get(why, 0), r.games)}</td>" for _, r in sb.results
        )
        rows.append(f"<tr><td>{escape(why)}</td>{cells}</tr>")
    cells = ""
    for p, r in sb.results:
        limit = sb.max_turns(p)
        at = f" at {limit}" if limit is not None else ""
        cls = ' class="limit"' if r.turn_limit else ""
        cells += f"<td{cls}>{_count_pct(r.turn_limit, r.games)}{at}</td>"
    rows.append(f"<tr><td>stopped at the turn limit (no sole winner)</td>{cells}</tr>")
    for what in ("ties", "shared victories", "shared defeats"):
        counts = [dict(_no_sole_kinds(r)).get(what, 0) for _, r in sb.results]
        if any(counts):
            cells = "".join(
                f"<td>{_count_pct(k, r.games)}</td>"
                for k, (_, r) in zip(counts, sb.results, strict=True)
            )
            rows.append(f"<tr><td>of which {what} (no sole winner)</td>{cells}</tr>")
    return f'<table class="endings"><tr><th>games ended by</th>{head}</tr>{"".join(rows)}</table>'


def _percent(k: int, n: int) -> str:
    """``k`` of ``n`` in whole percent; a share under 1% but not 0 is ``<1%``."""
    pct = 100 * k / n if n else 0.0
    return "<1%" if 0 < pct < 1 else f"{pct:.0f}%"


def _count_pct(k: int, n: int) -> str:
    return f"{k} ({_percent(k, n)})" if n else str(k)


def _summary_html(report: BalanceReport) -> str:
    """One row per scenario, in the game's order: per pairing the seats' win rates, which seat
    an interval puts off an even share, and how many games stopped at the turn limit."""
    head = "".join(
        f'<th>{escape(p.agent)} vs {escape(p.agent)}</th><th class="limit-col">turn limit</th>'
        for p in report.pairings
    )
    rows = []
    for sb in report.scenarios:
        colours = seat_colours(sb.seats)
        got = {p.name: r for p, r in sb.results}
        failed = {p.name for p, _ in sb.errors}
        cells = []
        for p in report.pairings:
            r = got.get(p.name)
            if r is None:
                what = "failed" if p.name in failed else "not played"
                cells.append(f'<td class="flag">{what}</td><td></td>')
                continue
            off = off_even(r, sb.seats)
            sole, decisive = r.sole_wins, r.decisive
            seats = " ".join(  # a space between seats: the line may break there
                f'<span class="seat" style="color:{c}">{escape(lab)} '
                + (f"{100 * sole[s] / decisive:.0f}%" if decisive else "&ndash;")
                + (f" {_MARK[off[s]]}" if s in off else "")
                + "</span>"
                for s, lab, c in zip(sb.seats, sb.seat_labels, colours, strict=True)
            )
            if not decisive:
                verdict = '<span class="flag">no game won alone: no share to judge</span>'
            elif off:
                names = ", ".join(
                    f"{sb.seat_labels[sb.seats.index(s)]} {d}" for s, d in off.items()
                )
                verdict = f'<span class="flag">&#9873; {escape(names)} an even share</span>'
            else:
                verdict = '<span class="even">every interval holds an even share</span>'
            ended = ", ".join(
                f"{escape(why)} {_percent(k, r.games)}" for why, k in _endings(r) if k
            )
            few = f"ended: {ended or '-'}{escape(_no_sole(r))}"
            few += f"; {r.games} games, {decisive} decisive"
            few += ", few: weak evidence" if _small(r) else ""
            weak = ' class="weak"' if _small(r) else ""
            cls = ' class="num limit"' if r.turn_limit else ' class="num"'
            cells.append(
                f"<td{weak}>{seats}<br>{verdict}<br><small>{few}</small></td>"
                f"<td{cls}>{r.turn_limit} of {r.games}</td>"
            )
        rows.append(
            f'<tr><td><a href="#{_anchor(sb)}">{escape(sb.title)}</a><br>'
            f"<small>{escape(sb.scenario)}</small></td>{''.join(cells)}</tr>"
        )
    return (
        '<section class="summary"><h2>Summary</h2><table>'
        f"<tr><th>scenario</th>{head}</tr>{''.join(rows)}</table>"
        f'<p class="note">Balanced means: {escape(BALANCE_RULE)}. Percentages: each seat\'s '
        "share of the decisive games. &#9873;: a seat's 95% interval excludes an even share; "
        f"faint: fewer than {SMALL_SAMPLE} games, weak evidence either way. Turn limit: games "
        "stopped without a sole winner.</p></section>"
    )


def _anchor(sb: ScenarioBalance) -> str:
    return f"s-{sb.scenario}"


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
        f"<style>{PAGE_CSS}</style></head><body>",
        f"<h1>{escape(report.title)}: balance</h1>",
        f'<p class="sub">Self-play of every scenario ({ps}; seed {report.seed}). '
        f"Balanced means: {escape(BALANCE_RULE)}. Bars: share of all games each seat won "
        "alone and that nobody won alone (first seat from the left, last seat from the right, "
        "whiskers: their 95% Wilson intervals). Dots: every seat's share of the decisive "
        "games with its 95% interval; the dashed line is an even share.</p>",
        _summary_html(report),
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
            "</svg>no sole winner</span>"
        )
        parts.append(
            f'<section id="{_anchor(sb)}"><h2>{escape(sb.title)} '
            f"<small>{escape(sb.scenario)}</small></h2>"
            f'<div class="legend">{legend}</div>'
            + (
                f"{_chart(sb, colours, max_turns, str(k))}{_table_html(sb)}{_endings_html(sb)}"
                if sb.results
                else ""
            )
        )
        for p, _ in sb.results:
            parts.append(
                f'<p class="note again">{escape(p.agent)} vs {escape(p.agent)} again: '
                f"<code>{escape(reproduce(report, sb, p))}</code></p>"
            )
        for p, msg in sb.errors:
            parts.append(
                f'<p class="error">{escape(p.agent)} vs {escape(p.agent)} failed: '
                f"<code>{escape(msg)}</code></p>"
            )
        parts.append("</section>")
    parts.append(
        f'<p class="note again">The whole page again: <code>{escape(report.command)}</code>; '
        "each row alone: the command under its scenario (the same games, one by one).</p>"
        "</body></html>"
    )
    return "\n".join(parts)
