"""What the research adapters share: a fixed action space, a fixed-size observation, returns.

Both adapters (:mod:`.openspiel`, :mod:`.pettingzoo`) number a scenario's options the same
way and read the same vector from a player's view, so a policy trained in one runs in the
other. Everything here is computed from the compiled spec; nothing knows a game by name.

**Actions.** Each scenario has ``n`` actions, fixed when the adapter is made:

- one action per option id the rules can offer in a listable domain, in the order the
  decision sites first name them: ``card:move_2``, ``country:bohemia``, ``player:blue``,
  ``yes``/``no``, an enum value ``<enum>:<value>``, and the declines ``none``, ``done``,
  ``pass``. An action means the same option in every state.
- then ``max_options`` numbered slots ``#0 .. #K-1`` for the decisions whose options are
  numbers, allocations (``alloc:...``), several picks (``some:...``), reports or offers:
  slot ``j`` is the ``j``-th of the options the adapter exposes for the decision now. When
  a decision has more than ``K`` such options, ``K`` of them, evenly spaced in the engine's
  order (the first and the last included), are exposed; the others cannot be chosen
  through the adapter. A scenario without such decisions has no slots (``K`` is 0).

The legal actions and the masks are exactly the exposed options of the pending decision.

**Observation.** A flat vector from :func:`~rulecraft.runtime.view.view`, the one place
visibility is enforced, so a hidden value never reaches it: the viewer's seat, who is asked
now, which decision site asks, the turn, whether the game is over; then every field of the
state in layout order (an int as itself, a flag as 0/1, a reference or an enum one-hot, a
set multi-hot with its size, a list as counts and first positions of its elements with its
length, a text as 0/1 for "set"); a field another player may not see has a "hidden" cell,
and a hidden set or list still shows its size (as the view does). Prompt arguments, the
routines' locals, texts and one's own answer to a secret pick still waiting for the others
appear only in the OpenSpiel strings.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..game import Game
from ..layout import NO_REF, PENDING, TURN, bits
from ..named import Hidden, to_named
from ..spec import GameSpec, Site

__all__ = ["ActionMap", "ObservationEncoder", "returns_of", "observation_text", "digest"]

#: the bound of an int field that declares none (a value beyond it is clipped)
BIG = 1_000_000
#: numbers shown per list of numbers (a ``seq`` that refers to nothing)
SEQ_NUMBERS = 8
#: the option kinds whose options are numbered slots
_NUMBERED = ("number", "any", "report", "offer")


def _numbered(site: Site) -> bool:
    return site.options in _NUMBERED or site.options.startswith(("alloc:", "some:"))


def _decline(site: Site) -> str:
    return {"report": "done", "offer": "pass"}.get(site.options, "none")


def _domain(spec: GameSpec, site: Site) -> list[str]:
    """Every option id a listable site can offer."""
    kind = site.options
    if kind == "yes-no":
        return ["yes", "no"]
    if kind.startswith("enum:"):
        return [f"{kind[5:]}:{v}" for v in spec.enums[kind[5:]]]
    return [f"{kind}:{i}" for i in spec.ids[kind]]


def spread(n: int, k: int) -> list[int]:
    """``k`` of the indices ``0..n-1``, evenly spaced, first and last included (all if n <= k)."""
    if n <= k:
        return list(range(n))
    if k == 1:
        return [0]
    return [round(j * (n - 1) / (k - 1)) for j in range(k)]


@dataclass(frozen=True)
class Legal:
    """The legal actions of one pending decision: ``actions[i]`` chooses option ``index[i]``
    (an index for :meth:`Game.apply_index`)."""

    player: int
    actions: tuple[int, ...]
    index: tuple[int, ...]

    def option_index(self, action: int) -> int | None:
        for a, i in zip(self.actions, self.index, strict=True):
            if a == action:
                return i
        return None


class ActionMap:
    """The fixed action space of a scenario (see the module docstring)."""

    def __init__(self, spec: GameSpec, max_options: int = 64) -> None:
        if max_options < 1:
            raise ValueError("max_options must be at least 1")
        self.spec = spec
        ids: dict[str, int] = {}
        numbered = False
        for site in spec.sites:
            if _numbered(site):
                numbered = True
                names = []
            else:
                names = _domain(spec, site)
            if site.optional:
                names.append(_decline(site))
            for name in names:
                ids.setdefault(name, len(ids))
        self.ids = ids
        self.names = list(ids)
        #: the first numbered slot
        self.base = len(ids)
        self.slots = max_options if numbered else 0
        self.size = self.base + self.slots

    def legal(self, game: Game) -> list[Legal]:
        """The legal actions of every pending decision, in the engine's order."""
        spec, S = self.spec, game.raw
        out = []
        for d in S[PENDING] or ():
            site = spec.sites[d[1]]
            values = d[2]
            if _numbered(site):
                pairs = [(self.base + j, i) for j, i in enumerate(spread(len(values), self.slots))]
            else:
                pairs = [(self.ids[spec.option_id(site, v)], i) for i, v in enumerate(values)]
            if site.optional:
                pairs.append((self.ids[_decline(site)], len(values)))
            pairs.sort()
            out.append(Legal(d[0], tuple(a for a, _ in pairs), tuple(i for _, i in pairs)))
        return out

    def mask(self, legal: Legal | None) -> np.ndarray:
        m = np.zeros(self.size, dtype=np.int8)
        if legal is not None:
            m[list(legal.actions)] = 1
        return m

    def name(self, action: int, game: Game | None = None, player: int | None = None) -> str:
        """The option an action chooses now (its id), or the action's name if not legal."""
        if game is not None and player is not None and action >= self.base:
            for legal in self.legal(game):
                if legal.player == player:
                    i = legal.option_index(action)
                    if i is not None:
                        return option_id(game, player, i)
        if 0 <= action < self.base:
            return self.names[action]
        return f"#{action - self.base}"


def option_id(game: Game, player: int, index: int) -> str:
    """The id of option ``index`` of ``player``'s pending decision."""
    for d in game.raw[PENDING] or ():
        if d[0] == player:
            rows = game.spec.options(d, game.raw)
            return rows[index][0]
    raise ValueError(f"{game.spec.seats[player]} has no decision pending")


class ObservationEncoder:
    """The fixed-size vector of a player's view (see the module docstring)."""

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        P = len(spec.seats)
        lows: list[float] = []
        highs: list[float] = []

        def cells(n: int, lo: float = 0, hi: float = 1) -> int:
            start = len(lows)
            lows.extend([lo] * n)
            highs.extend([hi] * n)
            return start

        self.seat = cells(P)
        self.asked = cells(P)
        self.site = cells(len(spec.sites))
        self.turn = cells(1, 0, spec.max_turns + 1)
        self.over = cells(1)
        plan: list[tuple[Any, ...]] = []
        for slot in spec.layout.slots:
            hideable = slot.visible != "all"
            kind = slot.kind
            for i in range(slot.count):
                k = slot.offset + i
                hidden = cells(1) if hideable else -1
                if kind == "int":
                    lo = slot.lo[i] if isinstance(slot.lo, tuple) else slot.lo
                    hi = slot.hi[i] if isinstance(slot.hi, tuple) else slot.hi
                    lo = -BIG if lo is None else lo
                    hi = BIG if hi is None else hi
                    plan.append(("int", k, hidden, cells(1, lo, hi), lo, hi))
                elif kind in ("bool", "str"):
                    plan.append((kind, k, hidden, cells(1)))
                elif kind == "enum":
                    names = spec.enums[slot.ref or ""]
                    at = {v: j for j, v in enumerate(names)}
                    plan.append(("enum", k, hidden, cells(len(names)), at))
                elif kind == "ref":
                    plan.append(("ref", k, hidden, cells(len(spec.ids[slot.ref or ""]))))
                elif kind == "set":
                    n = len(spec.ids[slot.ref or ""])
                    plan.append(("set", k, hidden, cells(n), cells(1, 0, n), n))
                elif kind == "seq" and slot.ref is not None:
                    n = len(spec.ids[slot.ref])
                    plan.append(
                        ("seq", k, hidden, cells(n, 0, BIG), cells(n, 0, BIG), cells(1, 0, BIG))
                    )
                else:  # a list of numbers
                    plan.append(
                        ("nums", k, hidden, cells(SEQ_NUMBERS, -BIG, BIG), cells(1, 0, BIG))
                    )
        self.plan = plan
        self.size = len(lows)
        self.low = np.array(lows, dtype=np.float64)
        self.high = np.array(highs, dtype=np.float64)

    def encode(self, game: Game, player: int | None, out: np.ndarray) -> None:
        """Write what ``player`` (None: a spectator) sees into ``out`` (length ``size``)."""
        out.fill(0)
        V = game.view_state(player, log=False)
        if player is not None:
            out[self.seat + player] = 1
        for d in V[PENDING] or ():
            out[self.asked + d[0]] = 1
            out[self.site + d[1]] = 1
        out[self.turn] = min(V[TURN], self.spec.max_turns + 1)
        out[self.over] = 1 if game.finished else 0
        for row in self.plan:
            kind, k, hidden = row[0], row[1], row[2]
            v = V[k]
            if isinstance(v, Hidden):
                out[hidden] = 1
                if kind == "set":
                    out[row[4]] = v.size or 0
                elif kind == "seq":
                    out[row[5]] = min(v.size or 0, BIG)
                elif kind == "nums":
                    out[row[4]] = min(v.size or 0, BIG)
                continue
            if v is None or (kind == "ref" and v == NO_REF):
                continue
            if kind == "int":
                out[row[3]] = min(max(v, row[4]), row[5])
            elif kind == "bool" or kind == "str":
                out[row[3]] = 1 if v else 0
            elif kind == "enum":
                out[row[3] + row[4][v]] = 1
            elif kind == "ref":
                out[row[3] + v] = 1
            elif kind == "set":
                b = bits(v)
                out[[row[3] + j for j in b]] = 1
                out[row[4]] = len(b)
            elif kind == "seq":
                for pos, e in enumerate(v):
                    out[row[3] + e] += 1
                    if not out[row[4] + e]:
                        out[row[4] + e] = min(pos + 1, BIG)
                out[row[5]] = min(len(v), BIG)
            else:
                for j, x in enumerate(v[:SEQ_NUMBERS]):
                    out[row[3] + j] = min(max(x, -BIG), BIG)
                out[row[4]] = min(len(v), BIG)


def observation_text(game: Game, player: int | None) -> str:
    """What ``player`` sees now as JSON by field name (``Game.view`` without the log)."""
    v = to_named(game.spec, game.view_state(player, log=False), player)
    v.pop("log", None)
    return json.dumps(v, separators=(",", ":"), sort_keys=True)


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def returns_of(game: Game, truncated: bool = False) -> list[float]:
    """Each seat's return: a win 1 (each winner of a shared victory gets 1), a loss -1; in a
    tie the tied seats 0 and the others -1; a game not over, or cut short, 0 for all."""
    n = len(game.spec.seats)
    result = game.result
    if truncated or result is None:
        return [0.0] * n
    winners = set(result["winners"])
    if result["tie"]:
        if not winners:
            return [0.0] * n
        return [0.0 if p in winners else -1.0 for p in range(n)]
    return [1.0 if p in winners else -1.0 for p in range(n)]
