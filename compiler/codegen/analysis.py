"""What the routine generator needs to know of routines before it writes them: which may
wait for a decision, which expressions are quiet (the playout form may leave their log lines
out), which lists of options hold no repeats."""

from __future__ import annotations

from typing import Any

from .. import ir
from ..builtins import BUILTINS
from ..effects import (
    Assign,
    AtOnce,
    Attr,
    Call,
    Comp,
    Expr,
    If,
    Let,
    ListLit,
    Name,
    Return,
    Simultaneously,
    Stmt,
    Ternary,
    While,
    walk,
)
from ..secrecy import Secrecy
from .data import ScenarioData
from .exprs import ExprGen


def secrecy_of(sd: ScenarioData) -> Secrecy:
    """The secrecy of the scenario's routines (:mod:`..secrecy`), found once."""
    found = sd.__dict__.get("_secrecy")
    if found is None:
        found = sd.__dict__["_secrecy"] = Secrecy(sd.game)
    return found


def card_routines_suspend(game: ir.Game) -> bool:
    """Whether some card effect may wait (then ``play`` may wait)."""
    return any(c.effect.suspends for c in game.cards.values())


def find_suspending(game: ir.Game, forced: set[str] = frozenset()) -> set[str]:  # type: ignore[assignment]
    """Mark the routines that may wait for a decision; returns their names.

    A routine waits if it asks, calls a routine that waits, or plays a card while some card
    effect waits; ``forced`` routines count as waiting (they wait in another scenario of the
    game: one calling convention for all scenarios keeps the callers' code the same). The flow
    of play (``main``) always runs as the machine's bottom frame. A routine that never waits
    has one form for both the machine and playouts.
    """
    routines = game.routines()
    for r in routines:
        r.suspends = r.kind == "main" or (r.kind != "function" and r.name in forced)
    changed = True
    while changed:
        changed = False
        cards_wait = card_routines_suspend(game)
        for r in routines:
            if r.suspends or r.kind == "function":
                continue
            for node in walk(r.body):
                if isinstance(node, (Simultaneously, AtOnce)) or (
                    isinstance(node, Call)
                    and (
                        builtin_waits(node, cards_wait)
                        or (isinstance(node.ref, ir.Routine) and node.ref.suspends)
                    )
                ):
                    r.suspends = True
                    changed = True
                    break
    return {r.name for r in routines if r.suspends}


def builtin_waits(c: Call, cards_wait: bool) -> bool:
    """Whether a call of a builtin waits: a decision, or ``play`` while some card effect
    waits."""
    b = BUILTINS.get(c.func)
    return b is not None and (b.waits == "decision" or (b.waits == "card" and cards_wait))


def stops(node: Any, game: ir.Game) -> bool:
    """Whether a statement contains a resume point (machine form)."""
    cards_wait = card_routines_suspend(game)
    for n in walk(node):
        if isinstance(n, (Simultaneously, AtOnce)):
            return True
        if isinstance(n, Call):
            if builtin_waits(n, cards_wait):
                return True
            if isinstance(n.ref, ir.Routine) and n.ref.suspends:
                return True
    return False


def quiet(node: Any, seen: frozenset[str] = frozenset()) -> bool:
    """Whether evaluating ``node`` (an expression, or a function's body) can neither change
    the state (a die, a shuffle) nor stop the game with an error (``first`` of an empty
    list, a table without the row, a division by a number that may be 0, a loop that runs
    away). The playout form leaves out only log lines whose arguments are quiet: any other
    is run as in the machine form (with the log off it writes nothing), so the playout
    rolls the same dice and stops at the same error."""
    for n in walk(node):
        if isinstance(n, While):
            return False
        if not isinstance(n, Call):
            continue
        if isinstance(n.ref, ir.Routine):
            r = n.ref
            if r.kind != "function" or r.name in seen or not ends_in_return(r.body):
                return False
            if not quiet(r.body, seen | {r.name}):
                return False
        elif n.func not in BUILTINS or not BUILTINS[n.func].is_quiet(n):
            return False
    return True


def method_stem(r: ir.Routine) -> str:
    return r.name


def ends_in_return(body: list[Stmt]) -> bool:
    if not body:
        return False
    last = body[-1]
    if isinstance(last, Return):
        return True
    if isinstance(last, If) and last.orelse:
        return all(ends_in_return(b) for _, b in last.branches) and ends_in_return(last.orelse)
    return False


def may_repeat(seq: Expr, eg: ExprGen, unique_locals: set[str] | None = None) -> bool:
    """Whether a list of options may hold a value twice (then options are de-duplicated)."""
    return not _unique(seq, eg.sd, unique_locals or set())


def _unique(e: Expr, sd: ScenarioData, unique_locals: set[str]) -> bool:
    """Whether a list never holds a value twice: all players, records or enum values, a set,
    fixed data, a filter of one of these, either branch of a ternary of these (``x.location.
    adjacent if x.location != none else []``), a local that only ever holds such lists."""
    if isinstance(e, Name) and e.ref is not None:
        if e.ref[0] in ("players", "all", "enum"):
            return True
        if e.ref[0] == "local":
            return e.id in unique_locals
        if e.ref[0] == "global":
            info = sd.slot("g", e.id)
            return info is None or info.kind == "set"
        return False
    if isinstance(e, Comp) and isinstance(e.elt, Name) and e.elt.id == e.var:
        return _unique(e.iter, sd, unique_locals)
    if isinstance(e, Attr) and isinstance(e.ref, ir.Field) and e.obj.ty is not None:
        t = e.obj.ty
        scope = "p" if t.kind == "player" else "e" if t.kind == "entity" else None
        if scope is None:
            return False
        info = sd.slot(scope, e.name, t.name if scope == "e" else None)
        return info is None or info.kind == "set"  # fixed data is de-duplicated when built
    if isinstance(e, ListLit):
        return len(e.items) <= 1
    if isinstance(e, Ternary):
        return _unique(e.then, sd, unique_locals) and _unique(e.orelse, sd, unique_locals)
    if isinstance(e, Call) and isinstance(e.ref, ir.Routine) and e.ref.kind == "function":
        # a function that only returns a list without repeats (not recursive: depth-bounded)
        body = e.ref.body
        if len(body) == 1 and isinstance(body[0], Return) and body[0].value is not None:
            depth = getattr(_unique, "depth", 0)
            if depth < 4:
                _unique.depth = depth + 1  # type: ignore[attr-defined]
                try:
                    return _unique(body[0].value, sd, set())
                finally:
                    _unique.depth = depth  # type: ignore[attr-defined]
    return False


def unique_locals(r: ir.Routine, sd: ScenarioData) -> set[str]:
    """Rule locals whose every value is a list without repeats (see :func:`_unique`)."""
    assigned: dict[str, list[Expr]] = {}
    for n in walk(r.body):
        if isinstance(n, Let):
            assigned.setdefault(n.name, []).append(n.value)
        elif isinstance(n, Assign) and isinstance(n.target, Name):
            assigned.setdefault(n.target.id, []).append(n.value)
    out = set(assigned)
    changed = True
    while changed:
        changed = False
        for name in sorted(out):
            if not all(_unique(v, sd, out) for v in assigned[name]):
                out.discard(name)
                changed = True
    return out
