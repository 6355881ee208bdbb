"""The helpers every generated engine calls: dice, card sets as bitmasks, decisions, the log,
the end of the game, maps, tables and deals.

A generated engine imports every name in :data:`__all__` under the name its code calls it
by, ``_`` and the name (``roll as _roll``, ``REVEALS as _REVEALS``), except
:data:`MAX_LOOP`, which keeps its own (see ``rulecraft.compiler.codegen.module``). The header
slots are :mod:`.layout`'s and the die is :mod:`.rng`'s: one implementation of each,
whether the rules, the runtime or a test rolls.

The helpers sit in the hot loop of every playout: they are plain module-level functions,
imported by name, so a call costs what a call of a function defined in the engine's own
module costs. The native build (``rulecraft compile --native``) compiles them with the
engines: it writes this module and the functions it imports from :mod:`.rng` and
:mod:`.layout` out as one module beside them (``rulecraft.compiler.native``).

``S`` is a game's state (:mod:`.layout`), ``F`` a suspended routine's frame, ``R`` a
playout's source of random numbers in ``[0, 1)``.
"""

from __future__ import annotations

from typing import Any, Final, NoReturn

from . import deals
from .layout import DRAWS, LIMIT, LOG, PENDING, RESULT, REVEALS, RNG, TURN, UNWIND, bits
from .layout import mask_of as mask
from .machine import SUSPEND, DeadEnd, GameEnded, RulesError, TurnLimit
from .rng import roll
from .split import Changes

__all__ = [
    "RNG",
    "DRAWS",
    "REVEALS",
    "TURN",
    "LIMIT",
    "RESULT",
    "PENDING",
    "LOG",
    "UNWIND",
    "MAX_LOOP",
    "roll",
    "bits",
    "mask",
    "count",
    "has",
    "first",
    "head",
    "take",
    "remove",
    "uniq",
    "pick",
    "pick_optional",
    "ask_all",
    "wait",
    "log",
    "log_to",
    "end",
    "shuffled",
    "reachable",
    "path_cost",
    "offers",
    "carry_out",
    "deal_parties",
    "name",
    "dead",
    "endless_loop",
    "turn_limit",
    "lookup",
    "tcall",
    "report_options",
    "report",
]

#: the most times one loop of the rules may run (between two decisions, for a loop that asks
#: none): a bound on runaway rules (`while true: pass`), far above what a game needs
MAX_LOOP: Final = 1_000_000


# -- sets of cards, players and records (bitmasks) and lists


def count(m: int) -> int:
    """The number of elements of a set."""
    return len(bits(m))


def has(m: int, x: Any) -> bool:
    """Whether ``x`` (an index, or None for none) is in the set ``m``."""
    return x is not None and (m >> x) & 1 == 1


def first(m: int) -> int:
    """The lowest element of a set (a RulesError if it is empty)."""
    if m == 0:
        raise RulesError("first() of an empty list")
    return (m & -m).bit_length() - 1


def head(t: Any) -> Any:
    """The first element of a list (a RulesError if it is empty)."""
    if not t:
        raise RulesError("first() of an empty list")
    return t[0]


def take(m: int, c: Any) -> int:
    """The set ``m`` without card ``c``, which must be in it."""
    if c is None or not (m >> c) & 1:
        raise RulesError(f"card {c!r} is not in the zone it is moved from")
    return m & ~(1 << c)


def remove(t: tuple[Any, ...], c: Any) -> tuple[Any, ...]:
    """The list ``t`` without the first ``c``, which must be in it."""
    for i in range(len(t)):
        if t[i] == c:
            return t[:i] + t[i + 1 :]
    raise RulesError(f"card {c!r} is not in the zone it is moved from")


def uniq(seq: Any) -> list[Any]:
    """The elements of ``seq`` without repeats, in their first order."""
    return list(dict.fromkeys(seq))


def name(names: tuple[Any, ...], i: Any) -> str:
    """The name of element ``i`` (``"none"`` for None)."""
    return "none" if i is None else str(names[i])


# -- decisions and the machine


def pick(R: Any, opts: Any) -> Any:
    """A decision drawn at random in a playout (a DeadEnd if there is no option)."""
    n = len(opts)
    if n == 1:
        return opts[0]
    if n == 0:
        raise DeadEnd("a decision with no legal option")
    return opts[int(R() * n)]


def pick_optional(R: Any, opts: Any) -> Any:
    """An optional decision drawn at random in a playout: an option or None."""
    n = len(opts)
    i = int(R() * (n + 1))
    return opts[i] if i < n else None


def ask_all(S: list[Any], F: Any, decisions: list[Any]) -> Any:
    """Wait for several players' secret decisions at once."""
    if not decisions:
        dead("simultaneous", None)
    S[UNWIND].append(F)
    S[PENDING] = tuple(decisions)
    return SUSPEND


def wait(S: list[Any], F: Any) -> Any:
    """A routine this one called waits: this one's frame goes below it on the stack."""
    S[UNWIND].append(F)
    return SUSPEND


def dead(kind: str, player: Any) -> NoReturn:
    """A decision with no legal option."""
    raise DeadEnd(f"decision {kind!r} for player {player} has no legal option")


def endless_loop() -> NoReturn:
    """A loop of the rules ran :data:`MAX_LOOP` times."""
    raise RulesError(f"a loop ran {MAX_LOOP:,} times (an endless loop?)")


def turn_limit(S: list[Any], origin: str) -> NoReturn:
    """The game went beyond its last turn (``origin``: the rules position of the flow)."""
    raise TurnLimit(f"game runs endlessly: turn {S[TURN]} exceeds the limit of {S[LIMIT]}", origin)


# -- the log and the end


def log(S: list[Any], template: int, args: tuple[Any, ...]) -> None:
    """A log line for everyone (nothing while the log is off, in a playout)."""
    if S[LOG] is not False:
        S[LOG] = (template, args, None, S[LOG])


def log_to(S: list[Any], template: int, args: tuple[Any, ...], audience: Any) -> None:
    """A log line only the players in ``audience`` may read."""
    if S[LOG] is not False:
        S[LOG] = (template, args, audience, S[LOG])


def end(S: list[Any], winners: Any, reason: str, shared: bool = False) -> NoReturn:
    """The game ends; more than one winner (or none) is a tie, unless the winners share the
    victory (``shared``: several winners, or none, all sharing in defeat)."""
    w = tuple(winners)
    S[RESULT] = (w, len(w) != 1 and not shared, reason)
    raise GameEnded


# -- chance


def shuffled(S: list[Any], seq: Any) -> tuple[Any, ...]:
    """``seq`` in a random order from the game's generator (Fisher-Yates, one draw a card;
    never a fixed roll)."""
    out = list(seq)
    for i in range(len(out) - 1, 0, -1):
        j = roll(S, i + 1, False) - 1
        out[i], out[j] = out[j], out[i]
    return tuple(out)


# -- maps


def reachable(adjacent: Any, start: Any, through: set[Any]) -> list[Any]:
    """The records reachable from ``start`` stepping only on ``through`` (start included)."""
    seen = {start}
    todo = [start]
    while todo:
        a = todo.pop()
        for b in adjacent[a]:
            if b not in seen and b in through:
                seen.add(b)
                todo.append(b)
    return sorted(seen)


def path_cost(adjacent: Any, start: Any, goal: Any, free: set[Any], passable: set[Any]) -> int:
    """The fewest records outside ``free`` stepped through (start and goal not counted) on a
    path from ``start`` to ``goal`` over ``passable`` records; -1 if there is none."""
    if start == goal:
        return 0
    best = {start: 0}
    frontier = [start]
    cost = 0
    while frontier:
        nxt: list[Any] = []
        for a in frontier:
            for b in adjacent[a]:
                if b not in passable or b in best:
                    continue
                if b == goal:
                    return cost
                best[b] = cost
                (frontier if b in free else nxt).append(b)
        frontier = nxt
        cost += 1
    return -1


# -- deals


def offers(engine: Any, S: list[Any], p: Any, seats: Any) -> Any:
    """The listed deals ``p`` may propose to ``seats`` (numbered, not listed)."""
    return deals.Offers(engine, S, p, seats)


def carry_out(engine: Any, S: list[Any], deal: Any) -> None:
    """Carry out an accepted deal."""
    if deal is None:
        raise RulesError("carry_out() of no deal")
    deals.carry_out(engine, S, deal)


def deal_parties(deal: Any) -> tuple[Any, ...]:
    """The players a deal concerns, in seat order."""
    return () if deal is None else deals.parties(deal)


# -- tables and reports


def lookup(table: Any, t: int, *keys: Any) -> Any:
    """The result record ``(table, cell, code, value, permanent)`` of ``table`` (number ``t``)
    for its keys: a range table by one number (open ends and the first row for lower rolls as
    the table says), a column table by a number and a column id, a matrix or list table by
    a row id and a column id."""
    tname, by_range, rows, cols, cells, clamp_low, clamp_high, _texts = table
    key = keys[0]
    if by_range:
        found = [
            i
            for i, (lo, hi) in enumerate(rows)
            if (lo is None or key >= lo) and (hi is None or key <= hi)
        ]
        if found:
            r = found[0]
        elif clamp_low and rows[0][0] is not None and key < rows[0][0]:
            r = 0
        elif clamp_high and rows[-1][1] is not None and key > rows[-1][1]:
            r = len(rows) - 1
        else:
            raise RulesError(f"table {tname}: {key} is off the table")
    elif key in rows:
        r = rows.index(key)
    else:
        raise RulesError(f"table {tname}: no row {key!r} (rows: {', '.join(rows)})")
    c = 0
    if cols:
        if keys[-1] not in cols:
            raise RulesError(f"table {tname}: no column {keys[-1]!r} (columns: {', '.join(cols)})")
        c = cols.index(keys[-1])
    i = r * max(len(cols), 1) + c
    code, value, permanent, gap = cells[i]
    if gap is not None:
        raise RulesError(f"table {tname}: {', '.join(map(str, keys))} falls in a gap ({gap})")
    return (t, i, code, value, permanent)


def tcall(
    engine: Any, names: tuple[Any, ...], t: int, default: Any, S: list[Any], *args: Any
) -> Any:
    """Call the program ``names[t]`` of table number ``t`` (``default`` if it has none)."""
    program = names[t]
    return default if program is None else getattr(engine, program)(S, *args)


def report_options(S: list[Any], facts: Any) -> Any:
    """Every change of one external fact: ``(state index, new value)`` (numbered, not listed)."""
    return Changes(
        tuple((off + i, values, S[off + i]) for off, n, values in facts for i in range(n))
    )


def report(S: list[Any], change: Any) -> bool:
    """Make a reported change (None: nothing changed)."""
    if change is None:
        return False
    S[change[0]] = change[1]
    return True
