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

from collections.abc import Sequence
from heapq import heappop, heappush
from itertools import combinations
from math import comb
from typing import Any, Final, NoReturn

from . import deals
from .layout import (
    DRAWS,
    LIMIT,
    LOG,
    NO_REF,
    PENDING,
    RESULT,
    REVEALS,
    RNG,
    TURN,
    UNWIND,
    bits,
    ref,
    unref,
)
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
    "BITS8",
    "mask",
    "count",
    "has",
    "first",
    "head",
    "nth",
    "reverse",
    "take",
    "take_card",
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
    "reach",
    "path_cost_by",
    "distance",
    "offers",
    "carry_out",
    "deal_parties",
    "name",
    "dead",
    "endless_loop",
    "turn_limit",
    "lookup",
    "resolve",
    "cell_shift",
    "tcall",
    "programs",
    "terms",
    "report_options",
    "report",
    "subsets",
    "tabulate",
    "ref",
    "unref",
]

#: the most times one loop of the rules may run (between two decisions, for a loop that asks
#: none): a bound on runaway rules (`while true: pass`), far above what a game needs
MAX_LOOP: Final = 1_000_000

#: the most picks a `choose_some` decision may list (every pick is an option)
MAX_SUBSETS: Final = 100_000

#: ``bits(m)`` of every mask below 256, for code that reads it without the call
#: (``compiler/codegen/inline.py``): the same tuples, and a definition here the native
#: build's copy of the prelude keeps
BITS8: Final = tuple(bits(m) for m in range(256))


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


def tabulate(f: Any, domain: Any) -> tuple[Any, ...] | None:
    """The values of ``f(S, x)``, a function of one argument that reads no state, for every
    ``x`` of ``domain`` (the records of a type, numbered from 0), as a tuple the engine
    indexes by ``x`` instead of calling ``f`` (``rulecraft.compiler.codegen.purefn``); None
    when some value fails (the calls then stay calls, and fail where the rules call it), is
    not a number, a string or none (a list a caller could change), or the domain is not
    ``0..n-1``."""
    if domain is None or tuple(domain) != tuple(range(len(domain))):
        return None
    try:
        values = tuple(f([], x) for x in domain)
    except Exception:
        return None
    # a list could be changed by a caller: only values nothing can change are shared
    if all(v is None or isinstance(v, (int, str)) for v in values):
        return values
    return None


def head(t: Any) -> Any:
    """The first element of a list (a RulesError if it is empty)."""
    if not t:
        raise RulesError("first() of an empty list")
    return t[0]


def nth(t: Sequence[Any], i: int) -> Any:
    """Element ``i`` of a list or tuple, from the end if ``i`` is negative (a RulesError if
    there is none: ``xs[i]`` in the rules); the native build passes either."""
    n = len(t)
    if i < -n or i >= n:
        raise RulesError(f"index {i} is out of range of a list of {n}")
    return t[i]


def reverse(t: Any) -> tuple[Any, ...]:
    """The elements of ``t`` in the opposite order (``reversed(xs)`` in the rules)."""
    return tuple(t)[::-1]


def take(m: int, c: Any) -> int:
    """The set ``m`` without card ``c``, which must be in it."""
    if c is None:
        raise RulesError(f"card {c!r} is not in the zone it is moved from")
    k: int = c  # typed: the native build shifts it unboxed
    if not (m >> k) & 1:
        raise RulesError(f"card {c!r} is not in the zone it is moved from")
    return m & ~(1 << k)


def take_card(m: int, c: int) -> int:
    """``take`` of a card that cannot be none (typed: the native build passes it unboxed)."""
    if not (m >> c) & 1:
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


def reach(
    adjacent: Any, steps: Any, start: Any, through: set[Any], within: int, stop: Any
) -> list[Any]:
    """The records reachable from ``start`` stepping only on ``through`` (start included),
    spending at most ``within`` points (-1: no limit); a step costs 1, or what ``steps``
    (per record, its ``(neighbour, cost)`` pairs: a board's cost scheme) says. A record of
    ``stop`` ends a way when entered, and a way never steps from one record of ``stop``
    straight into another (zones of control)."""
    best = {start: 0}
    heap = [(0, start)]
    while heap:
        cost, a = heappop(heap)
        if cost > best[a]:
            continue
        if stop is not None and a in stop and a != start:
            continue
        out = steps[a] if steps is not None else [(b, 1) for b in adjacent[a]]
        for b, c in out:
            if b not in through or (stop is not None and a in stop and b in stop):
                continue
            n = cost + c
            if (within < 0 or n <= within) and n < best.get(b, n + 1):
                best[b] = n
                heappush(heap, (n, b))
    return sorted(best)


def path_cost_by(
    adjacent: Any, steps: Any, start: Any, goal: Any, free: set[Any], passable: set[Any]
) -> int:
    """The fewest points from ``start`` to ``goal`` over ``passable`` records, each step
    costing what ``steps`` says (1 without it), a step into a record of ``free`` nothing
    (the goal is counted, the start not); -1 if there is no way."""
    best = {start: 0}
    heap = [(0, start)]
    while heap:
        cost, a = heappop(heap)
        if a == goal:
            return cost
        if cost > best[a]:
            continue
        out = steps[a] if steps is not None else [(b, 1) for b in adjacent[a]]
        for b, c in out:
            if b not in passable:
                continue
            n = cost + (0 if b in free else c)
            if n < best.get(b, n + 1):
                best[b] = n
                heappush(heap, (n, b))
    return -1


def distance(axial: Any, a: Any, b: Any) -> int:
    """The number of hexes from hex ``a`` to hex ``b`` (``axial``: each record's axial
    coordinates, None for a box off the map)."""
    pa, pb = axial[a], axial[b]
    if pa is None or pb is None:
        raise RulesError("distance() to a box off the map")
    dq, dr = pb[0] - pa[0], pb[1] - pa[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


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
    tname, by_range, rows, cols, cells, clamp_low, clamp_high, _texts, _shifts, _combat = table
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


def cell_shift(table: Any, i: int) -> int:
    """The column shift the result of cell ``i`` of ``table`` carries (``r.shift``)."""
    shifts = table[8]
    return 0 if shifts is None else int(shifts[i])


def resolve(
    S: list[Any],
    table: Any,
    t: int,
    template: int,
    strengths: tuple[int, ...],
    shifts: tuple[tuple[str, int, Any, int], ...],
    modifier: int,
) -> Any:
    """Resolve a column table (a CRT): the column from the attack and defence strengths (odds,
    rounded as the table says) or from one value, the ``shifts`` (``(label, sign, max,
    amount)``: sign 1 right, -1 left, 0 either way) and the clamp the table declares, then a
    roll of its dice plus ``modifier``; logs the reckoning. The result record ``(table, cell,
    code, value, permanent, roll, column)``."""
    tname, _by_range, rows, cols, cells, clamp_low, clamp_high, _texts, _shifts, combat = table
    title, by_odds, bounds, attacker_up, defender_up, clamp, dice = combat
    last = len(cols) - 1
    if by_odds:
        start = odds_column(bounds, strengths[0], strengths[1], attacker_up, defender_up)
    else:
        start = value_column(tname, bounds, strengths[0], clamp)
    col = start
    for _label, sign, cap, n in shifts:
        col += shift_amount(sign, cap, n)
    if col < 0 or col > last:
        if not clamp:
            raise RulesError(f"table {tname}: the shifts take the column off the table")
        col = 0 if col < 0 else last
    count, sides, d66 = dice
    if d66:
        rolled: tuple[int, ...] = (roll(S, 6), roll(S, 6))
        total = rolled[0] * 10 + rolled[1]
    else:
        rolled = tuple(roll(S, sides) for _ in range(count))
        total = sum(rolled)
    key = total + modifier
    r = -1
    for k, (lo, hi) in enumerate(rows):
        if (lo is None or key >= lo) and (hi is None or key <= hi):
            r = k
            break
    if r < 0:
        if clamp_low and rows[0][0] is not None and key < rows[0][0]:
            r = 0
        elif clamp_high and rows[-1][1] is not None and key > rows[-1][1]:
            r = len(rows) - 1
        else:
            raise RulesError(f"table {tname}: a roll of {key} is off the table")
    i = r * len(cols) + col
    code, value, permanent, gap = cells[i]
    if S[LOG] is not False:
        said = tuple((label, shift_amount(sign, cap, n)) for label, sign, cap, n in shifts)
        told = (title, strengths, cols[start], said, cols[col], rolled, total, modifier, code)
        S[LOG] = (template, (told,), None, S[LOG])
    if gap is not None:
        raise RulesError(f"table {tname}: column {cols[col]}, roll {key} falls in a gap ({gap})")
    return (t, i, code, value, permanent, key, cols[col])


def shift_amount(sign: int, cap: Any, n: int) -> int:
    """The columns one shift moves (right +): ``sign`` 1 right, -1 left, 0 either way (signed
    ``n``), at most ``cap`` (None: no cap)."""
    if sign == 0:
        return n if cap is None else max(-cap, min(cap, n))
    n = abs(n) if cap is None else min(abs(n), cap)
    return n if sign > 0 else -n


def odds_column(
    ratios: tuple[tuple[int, int], ...],
    attack: int,
    defence: int,
    attacker_up: bool,
    defender_up: bool,
) -> int:
    """The column of the odds ``attack:defence`` among columns of ratios ``(num, den)``, left
    to right: with the attacker stronger, the listed ratio at or below (``attacker_up``: at or
    above); with the defender stronger, 1:n with n = defence/attack rounded up
    (``defender_up``, in the defender's favour) or down, then the listed ratio at or below;
    beyond either end, that end."""
    last = len(ratios) - 1
    if attack <= 0:
        return 0
    if defence <= 0:
        return last
    if attack >= defence:
        if attacker_up:
            for k, (num, den) in enumerate(ratios):
                if num * defence >= attack * den:
                    return k
            return last
        num_r, den_r = attack, defence
    else:
        n = -(-defence // attack) if defender_up else defence // attack
        num_r, den_r = 1, n
    found = 0
    for k, (num, den) in enumerate(ratios):
        if num * den_r <= num_r * den:
            found = k
    return found


def value_column(tname: str, ranges: tuple[Any, ...], value: int, clamp: bool) -> int:
    """The column whose range holds ``value``; beyond either end that end if ``clamp``."""
    for k, (lo, hi) in enumerate(ranges):
        if (lo is None or value >= lo) and (hi is None or value <= hi):
            return k
    if clamp and ranges and ranges[0][0] is not None and value < ranges[0][0]:
        return 0
    if clamp and ranges and ranges[-1][1] is not None and value > ranges[-1][1]:
        return len(ranges) - 1
    raise RulesError(f"table {tname}: {value} is off the table")


def tcall(
    engine: Any, names: tuple[Any, ...], t: int, default: Any, S: list[Any], *args: Any
) -> Any:
    """Call the program ``names[t]`` of table number ``t`` (``default`` if it has none)."""
    program = names[t]
    return default if program is None else getattr(engine, program)(S, *args)


def programs(engine: Any, names: Any, default: Any) -> tuple[Any, ...]:
    """The program of each table (``names``: method names by table number, None where a
    table has none) as bound methods of ``engine``, a function giving ``default`` where a
    table has none: generated code calls ``self.tfun_<part>[t](S, ...)`` without a lookup
    by name (what :func:`tcall` does)."""

    def none(S: list[Any], *args: Any) -> Any:
        return default

    return tuple(none if n is None else getattr(engine, n) for n in names or ())


def terms(names: tuple[str, ...], values: Any) -> str:
    """The modifiers that add something, as a log line names them: ``", Afterword -3,
    Oslo +1"`` (each after a comma; empty when none adds anything)."""
    out = ""
    for i, v in enumerate(values or ()):
        if v:
            out += f", {names[i]} {v:+d}"
    return out


def report_options(S: list[Any], facts: Any) -> Any:
    """Every change of one external fact: ``(state index, new value)`` (numbered, not listed);
    a reference's value is its index or None (its slot holds -1 for none)."""
    return Changes(
        tuple(
            (off + i, values, ref(S[off + i]) if is_ref else S[off + i])
            for off, n, values, is_ref in facts
            for i in range(n)
        )
    )


def report(S: list[Any], change: Any, facts: Any = ()) -> bool:
    """Make a reported change (None: nothing changed); a reference's none is stored as -1."""
    if change is None:
        return False
    k, v = change
    if v is None:
        for off, n, _values, is_ref in facts:
            if off <= k < off + n and is_ref:
                v = NO_REF
    S[k] = v
    return True


# -- several picks


def subsets(targets: Any, lo: int, hi: int) -> tuple[tuple[Any, ...], ...]:
    """The options of ``choose_some``: every pick of ``lo`` to ``hi`` (-1: all) of
    ``targets`` (repeats dropped), the fewest first, each in the order of ``targets``."""
    items = tuple(dict.fromkeys(targets))
    n = len(items)
    hi = n if hi < 0 else min(hi, n)
    lo = max(lo, 0)
    if sum(comb(n, k) for k in range(lo, hi + 1)) > MAX_SUBSETS:
        raise RulesError(
            f"choose_some lists every pick: {n} options give more than {MAX_SUBSETS:,} picks "
            "(offer fewer options, or lower max=)"
        )
    return tuple(c for k in range(lo, hi + 1) for c in combinations(items, k))
