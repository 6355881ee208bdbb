"""Values that may be none: reading a field of one needs a test first.

The answer of ``choose_optional`` may be ``none``, and so may a field declared ``optional:
true`` (an army's ``location``: none while in the stock), a local given ``none`` or such a
value; reading a field of it (``o.value``, ``a.location.owner``) fails when the game is
played. This stage, run on checked (typed) code, follows each routine (and each card's
playable condition and each record's label) and refuses such a read unless a test on the
way makes the value known not to be none:

- ``if x != none:`` (or ``x == y`` with ``y`` never none, or ``x in some_list``) in an ``if``,
  ``elif``, ``while``, ternary or comprehension condition, and across ``and`` / ``or`` / ``not``;
- ``if x == none:`` whose block ends with ``return`` or ``break``, for what follows it.

A test holds until the value may change: an assignment to it, or (for a field) a
procedure call or a builtin that changes the game (``apply``, ``play``, ``report``, ...).
Invariants the rules keep (an army chosen from the armies in play has a location) are not
seen here: the rules state them with a test.
"""

from __future__ import annotations

from typing import Any

from . import ir
from .builtins import BUILTINS
from .diagnostics import DiagnosticSink
from .effects import (
    Assign,
    AtOnce,
    Attr,
    AugAssign,
    BinOp,
    Bool,
    BoolOp,
    Break,
    Call,
    Comp,
    Compare,
    ExprStmt,
    For,
    If,
    In,
    Let,
    Name,
    Neg,
    Node,
    NoneLit,
    Not,
    Return,
    Simultaneously,
    Stmt,
    Str,
    Ternary,
    While,
)

__all__ = ["check_nones"]

#: the paths known not to be none at a point of a routine; a block that returns or breaks
#: has no facts after it (None)
Facts = frozenset[str]
_NOTHING: Facts = frozenset()


def check_nones(game: ir.Game, sink: DiagnosticSink) -> None:
    """Report every read of a field of a value that may be none where no test rules it out."""
    for r in game.routines():
        _Walker(game, sink).block(r.body, _NOTHING)
    for card in game.cards.values():
        if card.playable is not None:
            _Walker(game, sink).expr(card.playable, _NOTHING)
    for et in game.entities.values():
        if et.label is not None:
            _Walker(game, sink).expr(et.label, _NOTHING)


def _key(e: Any) -> str | None:
    """The path of a value the tests can speak about: a name or fields from a name."""
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Attr):
        obj = _key(e.obj)
        return None if obj is None else f"{obj}.{e.name}"
    return None


class _Walker:
    def __init__(self, game: ir.Game, sink: DiagnosticSink) -> None:
        self.game = game
        self.sink = sink
        self.maybe_locals: set[str] = set()  # locals that may hold none
        self.reported: set[int] = set()

    # -- what may be none, and what a condition tells

    def maybe_none(self, e: Any, facts: Facts) -> bool:
        key = _key(e)
        if key is not None and key in facts:
            return False
        if isinstance(e, NoneLit):
            return True
        if isinstance(e, Name):
            ref = e.ref
            if isinstance(ref, tuple) and ref[:1] == ("local",):
                return e.id in self.maybe_locals
            # a global, or a record's own field in its label
            if isinstance(ref, tuple) and ref[:1] in (("global",), ("self",)):
                return isinstance(ref[1], ir.Field) and ref[1].optional
            return False
        if isinstance(e, Attr):
            return isinstance(e.ref, ir.Field) and e.ref.optional
        if isinstance(e, Call):
            return e.func == "choose_optional"
        if isinstance(e, Ternary):
            return self.maybe_none(e.then, facts) or self.maybe_none(e.orelse, facts)
        return False

    def when(self, cond: Any, truth: bool, facts: Facts) -> Facts:
        """The paths known not none when ``cond`` is ``truth``."""
        if isinstance(cond, Not):
            return self.when(cond.operand, not truth, facts)
        if isinstance(cond, BoolOp):
            both = (cond.op == "and") == truth
            left = self.when(cond.left, truth, facts)
            right = self.when(cond.right, truth, facts | left if both else facts)
            return left | right if both else left & right
        if isinstance(cond, Compare) and cond.op in ("==", "!="):
            equal = (cond.op == "==") == truth
            out: set[str] = set()
            for side, other in ((cond.left, cond.right), (cond.right, cond.left)):
                key = _key(side)
                if key is None:
                    continue
                if isinstance(other, NoneLit) and not equal:
                    out.add(key)
                elif equal and not isinstance(other, NoneLit) and not self.maybe_none(other, facts):
                    out.add(key)
            return frozenset(out)
        if isinstance(cond, In) and not cond.negate and truth:
            key = _key(cond.item)
            return frozenset([key]) if key is not None else _NOTHING
        return _NOTHING

    # -- expressions

    def expr(self, e: Any, facts: Facts) -> None:
        if e is None or not isinstance(e, Node):
            return
        if isinstance(e, Attr):
            self.expr(e.obj, facts)
            if self.maybe_none(e.obj, facts) and id(e) not in self.reported:
                self.reported.add(id(e))
                what = _key(e.obj) or "this value"
                self.sink.error(
                    "maybe-none",
                    f"{what} may be none here: reading its {e.name!r} fails when it is",
                    e.obj.pos,
                    f"test it first: `if {what} != none:` (or return early when it is none)",
                )
            return
        if isinstance(e, (BinOp, Neg)) or (isinstance(e, Compare) and e.op not in ("==", "!=")):
            for side in (e.operand,) if isinstance(e, Neg) else (e.left, e.right):
                self.number(side, facts)
        if isinstance(e, BoolOp):
            self.expr(e.left, facts)
            self.expr(e.right, facts | self.when(e.left, e.op == "and", facts))
            return
        if isinstance(e, Ternary):
            self.expr(e.cond, facts)
            self.expr(e.then, facts | self.when(e.cond, True, facts))
            self.expr(e.orelse, facts | self.when(e.cond, False, facts))
            return
        if isinstance(e, Comp):
            self.expr(e.iter, facts)
            inner = _kill_name(facts, e.var)
            saved = e.var in self.maybe_locals
            self.maybe_locals.discard(e.var)  # a list's elements are never none
            if e.cond is not None:
                self.expr(e.cond, inner)
                inner = inner | self.when(e.cond, True, inner)
            self.expr(e.elt, inner)
            if saved:
                self.maybe_locals.add(e.var)
            return
        if isinstance(e, Str):
            for part in e.parts:
                self.expr(part, facts)
            return
        for name in e.__dataclass_fields__:
            if name in ("src", "ty", "ref"):
                continue
            value = getattr(e, name)
            for item in value.values() if isinstance(value, dict) else _items(value):
                self.expr(item, facts)

    def number(self, e: Any, facts: Facts) -> None:
        """An optional int in arithmetic or an order (``n + c.bonus``) needs a test first."""
        if e.ty != ir.INT or not self.maybe_none(e, facts) or id(e) in self.reported:
            return
        self.reported.add(id(e))
        what = _key(e) or "this value"
        self.sink.error(
            "maybe-none",
            f"{what} may be none here: counting with it fails when it is",
            e.pos,
            f"test it first: `if {what} != none:` (or return early when it is none)",
        )

    # -- statements: each returns the facts after it (None: it does not go on)

    def block(self, stmts: list[Stmt], facts: Facts) -> Facts | None:
        current: Facts | None = facts
        for s in stmts:
            if current is None:
                return None
            current = self.stmt(s, current)
        return current

    def stmt(self, s: Stmt, facts: Facts) -> Facts | None:
        if isinstance(s, Let):
            self.expr(s.value, facts)
            maybe = self.maybe_none(s.value, facts)
            (self.maybe_locals.add if maybe else self.maybe_locals.discard)(s.name)
            after = _kill_fields(facts) if self.changes_state(s.value) else facts
            return _kill_name(after, s.name)
        if isinstance(s, (Assign, AugAssign)):
            self.target(s.target, facts)
            self.expr(s.value, facts)
            if isinstance(s, AugAssign):
                self.number(s.value, facts)
            after = _kill_fields(facts) if self.changes_state(s.value) else facts
            after = _kill_write(after, s.target)
            if isinstance(s, Assign) and isinstance(s.target, Name):
                if self.maybe_none(s.value, facts):
                    self.maybe_locals.add(s.target.id)
                else:
                    self.maybe_locals.discard(s.target.id)
            return after
        if isinstance(s, Return):
            self.expr(s.value, facts)
            return None
        if isinstance(s, Break):
            return None
        if isinstance(s, ExprStmt):
            self.expr(s.expr, facts)
            return _kill_fields(facts) if self.changes_state(s.expr) else facts
        if isinstance(s, If):  # and match
            exits: list[Facts] = []
            rest = facts
            for cond, body in s.branches:
                self.expr(cond, rest)
                out = self.block(body, rest | self.when(cond, True, rest))
                if out is not None:
                    exits.append(out)
                rest = rest | self.when(cond, False, rest)
            out = self.block(s.orelse, rest)
            if out is not None:
                exits.append(out)
            if not exits:
                return None
            return frozenset.intersection(*exits)
        if isinstance(s, AtOnce):
            return self.block(s.body, facts)
        if isinstance(s, (For, Simultaneously)):
            self.expr(s.iter, facts)
            inside = self.loop_facts(s.body, _kill_name(facts, s.var))
            self.maybe_locals.discard(s.var)
            self.block(s.body, inside)
            return self.loop_facts(s.body, facts)
        if isinstance(s, While):
            inside = self.loop_facts(s.body, facts)
            self.expr(s.cond, inside)
            self.block(s.body, inside | self.when(s.cond, True, inside))
            if isinstance(s.cond, Bool) and s.cond.value and not breaks(s.body):
                return None
            return inside
        # move, move all, log, reveal, pass: they read values and change no reference
        for name in s.__dataclass_fields__:
            if name not in ("src", "ty", "ref"):
                for item in _items(getattr(s, name)):
                    self.expr(item, facts)
        return facts

    def target(self, t: Any, facts: Facts) -> None:
        """Writing ``a.location = ...`` reads ``a`` (not ``a.location``)."""
        if isinstance(t, Attr):
            self.expr(t, facts)

    def changes_state(self, e: Any) -> bool:
        if not isinstance(e, Call):
            return False
        if e.func in self.game.functions:
            return self.game.functions[e.func].kind != "function"
        # a builtin that changes the game (or, ``report``, its facts): a field tested before
        # may differ after it
        return e.func in BUILTINS and BUILTINS[e.func].changes

    def loop_facts(self, body: list[Stmt], facts: Facts) -> Facts:
        """What holds on every pass of a loop: ``facts`` without what its body changes."""
        out = facts
        for node in _walk_stmts(body):
            if isinstance(node, Let):
                out = _kill_name(out, node.name)
                if self.changes_state(node.value):
                    out = _kill_fields(out)
            elif isinstance(node, (Assign, AugAssign)):
                out = _kill_write(out, node.target)
                if self.changes_state(node.value):
                    out = _kill_fields(out)
            elif isinstance(node, ExprStmt) and self.changes_state(node.expr):
                out = _kill_fields(out)
            elif isinstance(node, (For, Simultaneously)):
                out = _kill_name(out, node.var)
        return out


def _items(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        out: list[Any] = []
        for v in value:
            out.extend(_items(v))
        return out
    return [value] if isinstance(value, Node) else []


def _walk_stmts(stmts: list[Stmt]) -> list[Stmt]:
    out: list[Stmt] = []
    todo = list(stmts)
    while todo:
        s = todo.pop()
        out.append(s)
        if isinstance(s, If):
            for _cond, body in s.branches:
                todo.extend(body)
            todo.extend(s.orelse)
        elif isinstance(s, (For, Simultaneously, While, AtOnce)):
            todo.extend(s.body)
    return out


def breaks(stmts: list[Stmt]) -> bool:
    """Whether ``stmts`` hold a ``break`` of the loop they are the body of."""
    for s in stmts:
        if isinstance(s, Break):
            return True
        if isinstance(s, If) and (
            any(breaks(body) for _cond, body in s.branches) or breaks(s.orelse)
        ):
            return True
    return False


def _kill_name(facts: Facts, name: str) -> Facts:
    return frozenset(k for k in facts if k != name and not k.startswith(name + "."))


def _kill_write(facts: Facts, target: Any) -> Facts:
    key = _key(target)
    out = facts
    if key is not None:
        out = _kill_name(out, key)
    if isinstance(target, Attr):  # the same field of another record may be this one
        field = f".{target.name}."
        out = frozenset(k for k in out if field not in f".{k}.")
    return out


def _kill_fields(facts: Facts) -> Facts:
    """A procedure may change any field: only tests on locals and parameters still hold."""
    return frozenset(k for k in facts if "." not in k)
