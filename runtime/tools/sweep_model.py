"""What a parameter sweep (:mod:`.sweep`) measured: its parameters, its points and their
win shares, as a table or JSON. :mod:`.sweep_html` draws it as a page."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .simulate import BALANCE_RULE, TURN_LIMIT, Outcome, wilson

__all__ = ["NO_CLEAR_BIAS", "NO_SOLE_WINNER", "Param", "Point", "SweepData"]

#: the verdict of a point whose games put no seat clearly off an even share (yet): said so,
#: never "not decided", which reads as games without a winner
NO_CLEAR_BIAS = "no clear bias"
#: the kinds of games nobody won alone, in the order pages list them
NO_SOLE_WINNER = ("ties", "shared victories", "shared defeats", "stopped at the turn limit")


@dataclass(frozen=True)
class Param:
    """A constant or reading varied by the sweep, and its values in the order given."""

    name: str
    values: tuple[Any, ...]
    #: "reading" for a switchable reading of the rules (game.yaml ``choices``), else "constant"
    kind: str = "constant"


@dataclass
class Point:
    """One point of the grid: its values and the games played there."""

    values: dict[str, Any]
    seats: list[str] = field(default_factory=list, repr=False)
    games: int = 0
    #: games each seat won alone
    wins: dict[str, int] = field(default_factory=dict)
    turns: int = 0
    #: once decided: the seats clearly "ahead" or "behind" an even share,
    #: ("ahead", ("blue",)) or ("behind", ("red", "green"))
    decided: tuple[str, tuple[str, ...]] | None = None
    #: decided before ``max_games`` were played
    stopped_early: bool = False
    #: how the games ended: per reason the rules give (`end_game`), and for the games nobody
    #: won alone per kind (:data:`NO_SOLE_WINNER`)
    endings: dict[str, int] = field(default_factory=dict)
    no_sole: dict[str, int] = field(default_factory=dict)

    @property
    def decisive(self) -> int:
        """Games one seat won alone."""
        return sum(self.wins.values())

    def win_rate(self, seat: str) -> float:
        """``seat``'s share of the decisive games (those one seat won alone)."""
        return self.wins.get(seat, 0) / self.decisive if self.decisive else 0.0

    def interval(self, seat: str) -> tuple[float, float]:
        """The 95% Wilson interval of ``seat``'s share of the decisive games."""
        return wilson(self.wins.get(seat, 0), self.decisive)

    @property
    def tie_rate(self) -> float:
        """The share of games nobody won alone: ties, shared victories and defeats, and
        games stopped at the turn limit."""
        return (self.games - self.decisive) / self.games if self.games else 0.0

    @property
    def mean_turns(self) -> float:
        return self.turns / self.games if self.games else 0.0

    def verdict(self, labels: dict[str, str] | None = None) -> str:
        """In words ("blue ahead", "red and green behind", "no clear bias"), the seats named
        by ``labels`` where given."""
        if self.decided is None:
            return NO_CLEAR_BIAS
        side, seats = self.decided
        return " and ".join((labels or {}).get(s, s) for s in seats) + " " + side

    def add(self, outcomes: list[Outcome]) -> None:
        """Count games played at this point."""
        for o in outcomes:
            self.games += 1
            if not o[2] and len(o[1]) == 1:
                seat = self.seats[o[1][0]]
                self.wins[seat] = self.wins.get(seat, 0) + 1
            elif len(o) > 5 and o[5]:
                self._count_no_sole("stopped at the turn limit")
            elif o[2]:
                self._count_no_sole("ties")
            else:
                self._count_no_sole("shared victories" if o[1] else "shared defeats")
            if len(o) > 6 and o[6] and o[6] != TURN_LIMIT:  # (counted as no sole winner)
                self.endings[o[6]] = self.endings.get(o[6], 0) + 1
            self.turns += o[3]

    def _count_no_sole(self, kind: str) -> None:
        self.no_sole[kind] = self.no_sole.get(kind, 0) + 1

    def no_sole_text(self) -> str:
        """The games nobody won alone, by kind: "3 ties, 1 stopped at the turn limit"."""
        return ", ".join(f"{self.no_sole[k]} {k}" for k in NO_SOLE_WINNER if self.no_sole.get(k))


@dataclass
class SweepData:
    game: str
    scenario: str
    title: str
    seats: list[str]
    seat_labels: list[str]
    agents: list[str]
    seed: int
    params: list[Param]
    points: list[Point]
    max_games: int
    batch: int
    #: the confidence of the stopping test (see the module's text)
    stop_confidence: float
    seconds: float = 0.0
    executor: str = "local"

    @property
    def even(self) -> float:
        """The even share of wins: one in the number of seats."""
        return 1 / len(self.seats)

    @property
    def labels(self) -> dict[str, str]:
        """Each seat's name for players (its id where the game gives none)."""
        return dict(zip(self.seats, self.seat_labels or self.seats, strict=True))

    @property
    def games(self) -> int:
        return sum(p.games for p in self.points)

    @property
    def games_saved(self) -> int:
        """Games sequential stopping did not need to play."""
        return self.max_games * len(self.points) - self.games

    def endings(self) -> tuple[dict[str, int], dict[str, int]]:
        """How every game of the sweep ended: per reason the rules give, and the games nobody
        won alone per kind (:data:`NO_SOLE_WINNER`)."""
        reasons: dict[str, int] = {}
        kinds = dict.fromkeys(NO_SOLE_WINNER, 0)
        for p in self.points:
            for why, k in p.endings.items():
                reasons[why] = reasons.get(why, 0) + k
            for kind, k in p.no_sole.items():
                kinds[kind] += k
        return reasons, kinds

    def endings_text(self) -> str:
        """The endings in one line: "4 by Paris falls, 2 by VPs; no sole winner: 3 ties"."""
        reasons, kinds = self.endings()
        text = ", ".join(f"{k} by {why}" for why, k in reasons.items()) or "-"
        no_sole = ", ".join(f"{k} {what}" for what, k in kinds.items() if k)
        return text + (f"; no sole winner: {no_sole}" if no_sole else "")

    def command(self) -> str:
        """The command that runs this sweep again."""
        parts = [f"rulecraft sweep {self.game}/{self.scenario}"]
        for p in self.params:
            parts.append(f"--set {p.name}={','.join(_text(v) for v in p.values)}")
        parts.append(f"--games {self.max_games} --batch {self.batch} --seed {self.seed}")
        if set(self.agents) != {"random"}:
            parts.append(f"--agents {','.join(self.agents)}")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "scenario": self.scenario,
            "seats": self.seats,
            "agents": dict(zip(self.seats, self.agents, strict=True)),
            "seed": self.seed,
            "max_games": self.max_games,
            "batch": self.batch,
            "stop_confidence": self.stop_confidence,
            "even_share": self.even,
            "params": [
                {"name": p.name, "kind": p.kind, "values": list(p.values)} for p in self.params
            ],
            "games": self.games,
            "games_saved": self.games_saved,
            "seconds": round(self.seconds, 3),
            "points": [
                {
                    "values": p.values,
                    "games": p.games,
                    "wins": dict(p.wins),
                    "win_share": {s: p.win_rate(s) for s in self.seats},
                    "win_share_ci95": {s: list(p.interval(s)) for s in self.seats},
                    "decisive": p.decisive,
                    "draw_rate": p.tie_rate,
                    "mean_turns": p.mean_turns,
                    "decided": None
                    if p.decided is None
                    else {"side": p.decided[0], "seats": list(p.decided[1])},
                    "stopped_early": p.stopped_early,
                    "verdict": p.verdict(),
                    "endings": dict(p.endings),
                    "no_sole_winner": {k: p.no_sole.get(k, 0) for k in NO_SOLE_WINNER},
                }
                for p in self.points
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def table(self) -> str:
        """The sweep as a text table: a row per point."""
        names = [p.name for p in self.params]
        labels = [self.labels[s] for s in self.seats]
        agents = ", ".join(f"{s}={a}" for s, a in zip(labels, self.agents, strict=True))
        lines = [
            f"{self.game}/{self.scenario}: sweep of {' × '.join(names)}; agents {agents}; "
            f"seed {self.seed}; up to {self.max_games} games per point in batches of "
            f"{self.batch}",
            f"balanced: {BALANCE_RULE}",
            "seat columns: each seat's share of the games one seat won, with its 95% interval; "
            "no sole winner: the games nobody won alone",
            f"a point stops once a seat's {self.stop_confidence:.2%} interval excludes the even "
            f"share {self.even:.0%}",
            "",
        ]
        header = [*names, "games", *labels, "no sole winner", "turns", "verdict"]
        rows = []
        for p in self.points:
            cells = [_text(p.values[n]) for n in names] + [str(p.games)]
            for s in self.seats:
                lo, hi = p.interval(s)
                cells.append(f"{p.win_rate(s):.1%} ({lo:.0%}-{hi:.0%})")
            cells += [f"{p.tie_rate:.1%}", f"{p.mean_turns:.1f}", p.verdict(self.labels)]
            if p.stopped_early:
                cells[-1] += " (stopped early)"
            rows.append(cells)
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        last = len(header) - 1
        for r in [header, *rows]:
            lines.append(
                "  ".join(c if i == last else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip()
            )
        lines.append("")
        lines.append(f"games ended: {self.endings_text()}")
        lines.append(
            f"{self.games} games in {self.seconds:.1f} s on {self.executor}; sequential stopping "
            f"saved {self.games_saved} of {self.max_games * len(self.points)}"
        )
        return "\n".join(lines)


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
