"""Loops over the records of a type that act on those with one value of a fixed attribute.

``for k in commitments: if k.owner == p and ...: ...`` visits every commitment to act on
the few of ``p``. The records with each value of a fixed attribute are listed once, in
record order, in the engine's data (``self.ix_T__A``, as comprehensions use them:
``ExprGen.comp_source``); such a loop walks that list instead, and tests only the rest of
its condition: ``for k in self.ix_commitment__owner.get(p, ()): if ...: ...``.

The same records in the same order reach the body, provided the value compared with does
not change while the loop runs: it must be a constant, a record, a seat, or a local that
the loop's body never assigns (a global could be changed by a procedure the body calls).
The attribute is fixed, so a record's value cannot change either.

Seats are indexed the same way by player fields no rule changes (``self.ix_player__F``):
``for q in players: if q.side == p.side: ...`` walks the seats of ``p``'s side.
"""

from __future__ import annotations

import re
from typing import Any

from .. import ir
from ..effects import Assign, AugAssign, Bool, BoolOp, Expr, For, If, Int, Name, Stmt, Str, walk

#: references that name a value that never changes while a routine runs
_FIXED_REFS = frozenset({"const", "seat", "record", "enum", "card"})


def loop_source(gen: Any, s: For) -> tuple[str, list[Stmt]]:
    """The code a ``for`` statement iterates over, and the statements of its body: the
    records with one value of a fixed attribute and the rest of the condition, for a loop
    whose body is one ``if`` (no ``elif``, no ``else``) testing that value; else the loop's
    own source and body. ``gen`` is the routine generator (its ``expr``, ``iterable`` and
    expression generator ``eg``)."""
    it = s.iter
    tname = indexed_type(it)
    if (
        tname is not None
        and len(s.body) == 1
        and isinstance(s.body[0], If)
        and len(s.body[0].branches) == 1
        and not s.body[0].orelse
    ):
        test = s.body[0]
        cond, inner = test.branches[0]
        parts = gen.eg.filter_parts(cond, s.var, tname)
        for i, c in enumerate(parts):
            hit = gen.eg.static_equality(c, s.var, tname)
            if hit is None or not _steady(hit[1], s.body):
                continue
            attr, other = hit
            src = index_of(gen.eg.sd.data, tname, attr, gen.expr(other), gen.eg.never_none(other))
            rest = join_and(parts[:i] + parts[i + 1 :])
            if rest is None:
                return src, inner
            kept = If(test.src, test.off, [(rest, inner)], [])
            return src, [kept]
    return gen.iterable(it), s.body


#: a key read twice at no cost and with nothing else happening: a local or an attribute
_PLAIN_KEY = re.compile(r"(self\.)?[A-Za-z_]\w*")


def index_of(
    data: dict[str, Any], tname: str, attr: str, key: str, never_none: bool = False
) -> str:
    """The code of the records of ``tname`` whose fixed attribute ``attr`` has the value
    ``key`` (code): ``ix_T__A``'s entry, or where ``A`` names a player or a record and the
    key is a name, ``ixt_T__A`` indexed by it (none by -1, its last entry: one subscript, of
    one type, which the native build iterates as ints). A key ``never_none`` (an int), any
    expression, indexes it as it is: not tested against None, which the native build would box
    it to compare, so read once."""
    if f"ixt_{tname}__{attr}" in data and never_none:
        return f"self.ixt_{tname}__{attr}[{key}]"  # read once: any expression
    if f"ixt_{tname}__{attr}" in data and _PLAIN_KEY.fullmatch(key):
        if key == "None":  # `a == none`: the records without one (typed, for the native build)
            return f"self.ixt_{tname}__{attr}[-1]"
        return f"self.ixt_{tname}__{attr}[{key} if {key} is not None else -1]"
    return f"self.ix_{tname}__{attr}.get({key}, ())"


def indexed_type(it: Expr) -> str | None:
    """The type whose every value ``it`` names (``all`` records of a type, or ``players``:
    ``"player"``), whose indexes a filtered loop over it may walk; else None."""
    if isinstance(it, Name) and it.ref is not None:
        if it.ref[0] == "all":
            return str(it.ref[1])
        if it.ref[0] == "players":
            return "player"
    return None


def _steady(e: Expr, body: list[Stmt]) -> bool:
    """Whether ``e`` has the same value on every run of ``body``."""
    if isinstance(e, (Int, Str, Bool)):
        return not isinstance(e, Str) or e.is_plain
    if not isinstance(e, Name) or e.ref is None:
        return False
    if e.ref[0] in _FIXED_REFS:
        return True
    if e.ref[0] != "local":
        return False
    for n in walk(body):
        if isinstance(n, (Assign, AugAssign)) and any(
            isinstance(t, Name) and t.id == e.id for t in walk(n.target)
        ):
            return False
        # a statement that binds the name (let, for, simultaneously): not the same local
        if isinstance(n, Stmt) and e.id in (getattr(n, "name", None), getattr(n, "var", None)):
            return False
    return True


def conjuncts(e: Expr) -> list[Expr]:
    """The parts of a condition joined by ``and``."""
    if isinstance(e, BoolOp) and e.op == "and":
        return [*conjuncts(e.left), *conjuncts(e.right)]
    return [e]


def join_and(parts: list[Expr]) -> Expr | None:
    """The parts joined by ``and`` again (None for no part)."""
    if not parts:
        return None
    out = parts[0]
    for p in parts[1:]:
        b = BoolOp(p.src, p.off, "and", out, p)
        b.ty = ir.BOOL
        out = b
    return out
