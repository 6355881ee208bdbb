"""Loop-invariant queries in a comprehension, computed once before it.

``[a for a in areas if placed_discs(p) < p.discs and ...]`` (after inlining) recounts the
discs of ``p`` over every area for each area: quadratic, though the count is the same for
every element. The expression generator asks :func:`hoistable` of each expression it meets
directly in a comprehension's element or filter, and computes those it accepts once, before
the loop (``[... for _h1 in (sum(...),) for a in areas if _h1 < ...]``).

Evaluated once up front, such an expression also runs when the filter would have skipped it
(after a false ``and``) or when there is no element at all, so only expressions that cannot
fail and change nothing are accepted: queries (comprehensions, ``count``, ``sum``, ``len``)
over names, literals, comparisons and arithmetic that cannot fail, whose field reads are of
their own comprehensions' elements (never of a value that may be none). And only those worth
it: an expression that holds a comprehension.
"""

from __future__ import annotations

from typing import Any

from .. import ir
from ..effects import (
    Attr,
    BinOp,
    Bool,
    BoolOp,
    Call,
    Comp,
    Compare,
    Expr,
    In,
    Int,
    Name,
    Neg,
    NoneLit,
    Not,
    Str,
    walk,
)

#: builtins that never fail and change nothing, over values that cannot be none
QUERIES = frozenset({"count", "sum", "len"})
#: operators that cannot fail on ints and lists
SAFE_OPS = frozenset({"+", "-", "*"})


def hoistable(e: Expr, inner: dict[str, str]) -> bool:
    """Whether ``e`` may be computed once before the comprehension whose variables are the
    rule names in ``inner``: it reads none of them, holds a comprehension, cannot fail and
    changes nothing."""
    if not isinstance(e, (Call, Comp, BinOp, Compare)):
        return False
    nodes = list(walk(e))
    if not any(isinstance(n, Comp) for n in nodes):
        return False
    own = {n.var for n in nodes if isinstance(n, Comp)}
    return all(_safe(n, own) for n in nodes) and not any(
        isinstance(n, Name) and n.id in inner and n.id not in own for n in nodes
    )


def _safe(n: Any, own: set[str]) -> bool:
    if isinstance(n, (Int, Bool, NoneLit, Name, Comp, Compare, BoolOp, Not, In, Neg)):
        return True
    if isinstance(n, Str):
        return n.is_plain
    if isinstance(n, BinOp):
        return n.op in SAFE_OPS
    if isinstance(n, Call):
        return n.func in QUERIES and not isinstance(n.ref, ir.Routine) and not n.kwargs
    if isinstance(n, Attr):
        # a field of an element of one of its own comprehensions (a record, never none)
        return (
            isinstance(n.ref, ir.Field)
            and isinstance(n.obj, Name)
            and n.obj.id in own
            and n.obj.ty is not None
            and n.obj.ty.kind in ("player", "entity", "card")
        )
    return False
