"""Which reference parameters and results are never none: the plain forms type them ``int``.

The checker's types do not say whether a player, a card or a record may be none, so a
reference is ``Any`` to the native build (mypyc), which then boxes it and adds, compares and
indexes with it generically. This analysis finds the references that cannot be none, for
every scenario of a game at once (a method's text serves every class that inherits it):

- a parameter of a routine (a function, procedure or card effect) whose every call, in every
  scenario, passes a value that cannot be none, and that the body only assigns such values;
- the result of a function whose every ``return`` gives such a value.

A value cannot be none when it is a record, player or card named in the rules, an element of
a list whose elements cannot be none (every record of a type, the players, the cards of a
set, a list field of the scenario's fixed data, a comprehension or a literal of such values,
a function's list result of such values), ``first`` or a decision (``choose``) of such a
list, a call of a function whose result cannot be none, a field of fixed data that is not
optional, a local every binding of which gives such a value, or a parameter found above.
The analysis starts from every candidate and drops those a call, an assignment or a
``return`` refutes until none is dropped: every value comes from an expression of the kinds
above, so what is left cannot be none.

A local is read flow-sensitively too (``narrowed``): where a test against none guards the
read (``let x = choose_optional(...)``, ``if x == none: return``, then ``x``; the branch of
``x != none``; the right of ``x != none and ...``) it cannot be none, whatever its other
bindings give, until a binding of ``x`` ends what the test said. A comprehension's variable
read inside it, and a loop's variable read in a body that never binds it, is an element of
its list, whatever a local of the same name is bound to elsewhere in the routine.

A ``let`` of a reference local every binding of which (in the routine, in every scenario)
gives a value that cannot be none is typed ``int`` too (``locals``).

Routines the runtime calls with values of its own (table programs ``tbl__*``, the deal
functions ``deal__*``, the deal value function, board displays) keep ``Any``, and so does a
routine called from code outside routines (lasting effects, `playable:` conditions; a hook
is not: a copy of its body is woven into its procedure and read there).
The machine form (``r_``) keeps ``Any`` everywhere: its frames hold None before a local is
bound.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import ir
from ..effects import (
    Assign,
    Attr,
    AugAssign,
    BinOp,
    BoolOp,
    Break,
    Call,
    Comp,
    Compare,
    Expr,
    ExprStmt,
    For,
    If,
    Let,
    ListLit,
    Log,
    Move,
    MoveAll,
    Name,
    Node,
    NoneLit,
    Not,
    Pass,
    Return,
    Reveal,
    Simultaneously,
    Stmt,
    Ternary,
    While,
    walk,
)
from .data import written_fields

REF_KINDS = ("player", "card", "entity")
#: builtins whose value is an element of a list they take (``first``'s first argument,
#: ``choose``'s options): never none if the list holds no none
ELEMENT_OF = ("first", "choose")


@dataclass
class NeverNone:
    """The result: ``(routine, parameter)`` pairs and functions that are never none, and
    ``(routine, local)`` pairs of the references every ``let`` and assignment of which, in
    every scenario, gives a value that is not none."""

    params: set[tuple[str, str]] = field(default_factory=set)
    returns: set[str] = field(default_factory=set)
    locals: set[tuple[str, str]] = field(default_factory=set)


def _is_ref(t: ir.Type | None) -> bool:
    return t is not None and t.kind in REF_KINDS


def _runtime_called(r: ir.Routine, game: ir.Game) -> bool:
    """Whether the runtime calls ``r`` with values of its own (or names it in data)."""
    return r.name.startswith(("tbl__", "deal__", "board__")) or r.name == game.deal_value


def never_none(games: Iterable[ir.Game]) -> NeverNone:
    """The parameters and results that are never none in every scenario of ``games``."""
    games = list(games)
    written = written_fields(games)
    params: set[tuple[str, str]] = set()
    returns: set[str] = set()
    lists: set[str] = set()  # functions whose list result holds no none
    runtime: set[str] = set()
    for g in games:
        for r in g.routines():
            if r.kind == "main" or _runtime_called(r, g):
                runtime.add(r.name)
                continue
            params |= {(r.name, p) for p, t in r.params if _is_ref(t)}
            if r.kind == "function" and _is_ref(r.returns):
                returns.add(r.name)
            if r.kind == "function" and r.returns.kind == "list" and _is_ref(r.returns.elem):
                lists.add(r.name)
    params = {p for p in params if p[0] not in runtime}
    returns -= runtime
    lists -= runtime
    outside = [c for g in games for c in _outside_calls(g)]
    for c in outside:
        params -= {p for p in params if p[0] == c.func}
    for g in games:  # a lasting change that replaces a procedure may assign its parameters
        for change in (c for e in g.lasting for c in e.changes):
            for n in walk(change.body or []):
                if isinstance(n, Assign) and isinstance(n.target, Name):
                    params.discard((change.target, n.target.id))
    # every body: the runtime's routines call others too (the sets are shared, and shrink)
    bodies = [_Routine(g, r, params, returns, lists, written) for g in games for r in g.routines()]
    changed = True
    while changed:
        before = (len(params), len(returns), len(lists))
        for body in bodies:
            body.refute()
        changed = (len(params), len(returns), len(lists)) != before
    found: set[tuple[str, str]] = set()
    refuted: set[tuple[str, str]] = set()
    for body in bodies:
        for n in walk(body.r.body):
            if isinstance(n, Let) and _is_ref(n.declared):
                key = (body.r.name, n.name)
                (found if body.local_ok(n.name, set()) else refuted).add(key)
    return NeverNone(params, returns, found - refuted)


def _outside_calls(g: ir.Game) -> list[Call]:
    """The calls in code that is not a routine's body (a hook is not: a copy of its body is
    woven into the procedure it runs before or after, and read there)."""
    nodes: list[Any] = []
    for e in g.lasting:
        nodes += [e.until, [[c.where, c.by, c.body] for c in e.changes]]
    nodes += list(g.playable.values())
    nodes += [c.playable for c in g.cards.values() if getattr(c, "playable", None) is not None]
    return [n for n in walk(nodes) if isinstance(n, Call)]


class _Routine:
    """One routine's body: refutes the candidates its calls, assignments and returns break."""

    def __init__(
        self,
        g: ir.Game,
        r: ir.Routine,
        params: set[tuple[str, str]],
        returns: set[str],
        lists: set[str],
        written: set[tuple[str, str | None, str]],
    ) -> None:
        self.g, self.r, self.params, self.returns = g, r, params, returns
        self.lists, self.written = lists, written
        self.cards = [c.effect.name for c in g.cards.values()]
        #: every binding of each local name: (kind, expression); kind "value" (bound to it),
        #: "element" (to each element of it), "more" (a list grown by it) or "unknown"
        self.binds: dict[str, list[tuple[str, Expr | None]]] = {}
        for n in walk(r.body):
            if isinstance(n, Let):
                self.bind(n.name, "value", n.value)
            elif isinstance(n, Assign) and isinstance(n.target, Name):
                self.bind(n.target.id, "value", n.value)
            elif isinstance(n, AugAssign) and isinstance(n.target, Name):
                self.bind(n.target.id, "more", n.value)  # a list grown: xs += [...]
            elif isinstance(n, (Move, MoveAll)):
                for zone in (n.src_zone, n.dst_zone):
                    if isinstance(zone, Name):
                        self.bind(zone.id, "unknown", None)
            elif isinstance(n, (For, Comp, Simultaneously)):
                self.bind(n.var, "element", n.iter)
            elif hasattr(n, "var") or (hasattr(n, "name") and not isinstance(n, Call)):
                name = getattr(n, "var", None) or getattr(n, "name", None)
                if isinstance(name, str):
                    self.bind(name, "unknown", None)
        self.own = {p for p, _ in r.params}
        self.narrowed = narrowed(r.body)
        #: a comprehension's variable read in it, or a loop's read in a body that never binds
        #: it again (by id of the Name): an element of its list, whatever else a local of
        #: the same name is bound to elsewhere
        self.element_of: dict[int, Expr] = {}
        for n in walk(r.body):  # outer ones first: an inner one's variable wins
            if isinstance(n, Comp):
                inside: Any = [n.cond, n.elt]
            elif isinstance(n, (For, Simultaneously)) and n.var not in _bound(n.body):
                inside = n.body
            else:
                continue
            for x in walk(inside):
                if isinstance(x, Name) and x.id == n.var:
                    self.element_of[id(x)] = n.iter

    def bind(self, name: str, kind: str, e: Expr | None) -> None:
        self.binds.setdefault(name, []).append((kind, e))

    # ---------------------------------------------------------------- refutation

    def refute(self) -> None:
        r = self.r
        for p in self.own:  # a parameter assigned a value that may be none
            if (r.name, p) in self.params and not self.local_ok(p, set()):
                self.params.discard((r.name, p))
        for n in walk(r.body):
            if isinstance(n, Return) and r.name in self.returns:
                if n.value is None or not self.value_ok(n.value, set()):
                    self.returns.discard(r.name)
            if isinstance(n, Return) and r.name in self.lists:
                if n.value is None or not self.elements_ok(n.value, set()):
                    self.lists.discard(r.name)
            if not isinstance(n, Call):
                continue
            if n.func == "play" and len(n.args) > 1:
                if not self.value_ok(n.args[1], set()):
                    for card in self.cards:
                        self.params -= {p for p in self.params if p[0] == card}
                continue
            callee = self.g.routine(n.func)
            if callee is None:
                continue
            args = dict(zip([p for p, _ in callee.params], n.args, strict=False))
            args.update(n.kwargs)
            for p, _ in callee.params:
                if (callee.name, p) in self.params:
                    a = args.get(p)
                    if a is None or not self.value_ok(a, set()):
                        self.params.discard((callee.name, p))

    # ---------------------------------------------------------------- values

    def local_ok(self, name: str, seen: set[str]) -> bool:
        """Whether every binding of a local (or a parameter) gives a value that is not none."""
        if name in seen:
            return True  # a binding from itself adds no none
        seen = seen | {name}
        if name in self.own and (self.r.name, name) not in self.params:
            return False
        for kind, e in self.binds.get(name, []):
            if kind in ("unknown", "more") or e is None:
                return False
            ok = self.elements_ok(e, seen) if kind == "element" else self.value_ok(e, seen)
            if not ok:
                return False
        return name in self.own or name in self.binds

    def value_ok(self, e: Expr, seen: set[str]) -> bool:
        """Whether ``e``'s value cannot be none."""
        if isinstance(e, Name):
            ref = e.ref
            kind = ref[0] if isinstance(ref, tuple) and ref else None
            if kind in ("seat", "card", "record"):
                return True
            if kind != "local":
                return False
            if id(e) in self.narrowed:
                return True
            of = self.element_of.get(id(e))
            if of is not None:
                return self.elements_ok(of, seen)
            return self.local_ok(e.id, seen)
        if isinstance(e, Ternary):
            return self.value_ok(e.then, seen) and self.value_ok(e.orelse, seen)
        if isinstance(e, Call):
            if e.func in self.returns:
                return True
            if e.func in ELEMENT_OF and e.args:
                return self.elements_ok(e.args[1 if e.func == "choose" else 0], seen)
        if isinstance(e, Attr):
            return _fixed(e, self.written) and not self.field_of(e).optional
        return False

    def elements_ok(self, e: Expr, seen: set[str]) -> bool:
        """Whether ``e`` is a list none of whose elements is none."""
        if isinstance(e, Name):
            ref = e.ref
            kind = ref[0] if isinstance(ref, tuple) and ref else None
            if kind in ("players", "all"):
                return True
            if kind != "local" or e.id in self.own:
                return False
            key = f"[{e.id}]"  # seen as a list (a local of the same name may be a value)
            if key in seen:
                return True  # a list built from itself (xs += [...]) adds no none
            binds = self.binds.get(e.id, [])
            return bool(binds) and all(
                k in ("value", "more") and x is not None and self.elements_ok(x, seen | {key})
                for k, x in binds
            )
        if isinstance(e, Call):
            return e.func in self.lists
        if isinstance(e, Comp):
            return self.value_ok(e.elt, seen)
        if isinstance(e, ListLit):
            return all(self.value_ok(x, seen) for x in e.items)
        if isinstance(e, BinOp) and e.op == "+":
            return self.elements_ok(e.left, seen) and self.elements_ok(e.right, seen)
        if isinstance(e, Attr) and e.ty is not None and e.ty.kind == "list":
            # the cards of a zone, or a list of the scenario's fixed data
            return _is_ref(e.ty.elem) and (e.ty.elem.kind == "card" or _fixed(e, self.written))
        return False

    def field_of(self, e: Attr) -> ir.Field:
        assert isinstance(e.ref, ir.Field)
        return e.ref


def _fixed(e: Attr, written: set[tuple[str, str | None, str]]) -> bool:
    """Whether ``e`` reads a field of a player or a record that no rule changes and that is
    not an external fact (scenario data)."""
    if not isinstance(e.ref, ir.Field) or e.ref.fact or e.obj.ty is None:
        return False
    ot = e.obj.ty
    if ot.kind == "player":
        return ("p", None, e.name) not in written
    if ot.kind == "entity":
        return ("e", ot.name, e.name) not in written
    return False


# ---------------------------------------------------------------- narrowing

Facts = frozenset[str]  # the locals (and parameters) known not to be none at a point


def narrowed(body: list[Stmt]) -> set[int]:
    """The ``Name`` nodes of ``body`` (by ``id``) whose local cannot be none where they are
    read, because a test of it against none guards them: in the branch of ``x != none`` (or
    the other branch of ``x == none``), after an ``if x == none:`` whose branch returns (or
    breaks), on the right of ``x != none and ...``. A binding of ``x`` ends what its tests
    said; a loop keeps only what holds of the names its body never binds."""
    seen: dict[int, bool] = {}
    _Narrow(seen).block(body, frozenset())
    return {k for k, ok in seen.items() if ok}


class _Narrow:
    """One pass over a body: each statement is given the facts that hold before it and gives
    those that hold after it (None when it never ends normally: a return, a break)."""

    def __init__(self, seen: dict[int, bool]) -> None:
        #: id of each local's Name read -> whether every visit found it narrowed (a node may
        #: be visited more than once: a match's subject is shared by its cases' tests)
        self.seen = seen

    def block(self, stmts: list[Stmt], facts: Facts) -> Facts | None:
        for s in stmts:
            after = self.stmt(s, facts)
            if after is None:
                return None
            facts = after
        return facts

    def stmt(self, s: Stmt, facts: Facts) -> Facts | None:
        if isinstance(s, Let):
            self.expr(s.value, facts)
            return facts - {s.name}
        if isinstance(s, (Assign, AugAssign)):
            self.expr(s.value, facts)
            self.expr(s.target, facts)
            return facts - {s.target.id} if isinstance(s.target, Name) else facts
        if isinstance(s, Return):
            if s.value is not None:
                self.expr(s.value, facts)
            return None
        if isinstance(s, Break):
            return None  # after the loop, only what held all through its body holds
        if isinstance(s, If):  # a match too: its cases are tests of its subject
            ends: list[Facts] = []
            for cond, body in s.branches:
                self.expr(cond, facts)
                yes, no = _tests(cond)
                end = self.block(body, facts | yes)
                if end is not None:
                    ends.append(end)
                facts = facts | no
            end = self.block(s.orelse, facts)
            if end is not None:
                ends.append(end)
            return frozenset.intersection(*ends) if ends else None
        if isinstance(s, (For, Simultaneously)):
            self.expr(s.iter, facts)
            inner = facts - _bound(s)
            self.block(s.body, inner)
            return inner
        if isinstance(s, While):
            inner = facts - _bound(s)
            self.expr(s.cond, inner)
            self.block(s.body, inner | _tests(s.cond)[0])
            return inner
        if isinstance(s, (ExprStmt, Log, Reveal, Pass, Move, MoveAll)):
            self.children(s, facts)
            return facts - _bound(s)
        return facts - _bound(s)  # any other statement: nothing narrowed in it

    def expr(self, e: Expr, facts: Facts) -> None:
        if isinstance(e, Name):
            self.seen[id(e)] = self.seen.get(id(e), True) and e.id in facts
        elif isinstance(e, BoolOp):
            self.expr(e.left, facts)
            yes, no = _tests(e.left)
            self.expr(e.right, facts | (yes if e.op == "and" else no))
        elif isinstance(e, Ternary):
            self.expr(e.cond, facts)
            yes, no = _tests(e.cond)
            self.expr(e.then, facts | yes)
            self.expr(e.orelse, facts | no)
        elif isinstance(e, Comp):
            self.expr(e.iter, facts)
            inner = facts - {e.var}
            if e.cond is not None:
                self.expr(e.cond, inner)
            self.expr(e.elt, inner | (_tests(e.cond)[0] if e.cond is not None else frozenset()))
        else:
            self.children(e, facts)

    def children(self, node: Node, facts: Facts) -> None:
        for name in node.__dataclass_fields__:
            if name not in ("src", "ty", "ref"):
                self.value(getattr(node, name), facts)

    def value(self, v: Any, facts: Facts) -> None:
        if isinstance(v, Expr):
            self.expr(v, facts)
        elif isinstance(v, (list, tuple)):
            for x in v:
                self.value(x, facts)
        elif isinstance(v, dict):  # a call's named arguments
            for x in v.values():
                self.value(x, facts)


def _tests(cond: Expr) -> tuple[Facts, Facts]:
    """The locals not none when ``cond`` holds, and those not none when it does not."""
    if isinstance(cond, Compare) and cond.op in ("==", "!="):
        sides = (cond.left, cond.right)
        if any(isinstance(x, NoneLit) for x in sides):
            names = frozenset(x.id for x in sides if _local(x))
            return (names, frozenset()) if cond.op == "!=" else (frozenset(), names)
    if isinstance(cond, Not):
        yes, no = _tests(cond.operand)
        return no, yes
    if isinstance(cond, BoolOp):
        ly, ln = _tests(cond.left)
        ry, rn = _tests(cond.right)
        return (ly | ry, ln & rn) if cond.op == "and" else (ly & ry, ln | rn)
    return frozenset(), frozenset()


def _local(e: Expr) -> bool:
    ref = e.ref if isinstance(e, Name) else None
    return isinstance(ref, tuple) and bool(ref) and ref[0] == "local"


def _bound(s: Stmt) -> Facts:
    """Every name ``s`` binds, at any depth."""
    out: set[str] = set()
    for n in walk(s):
        if isinstance(n, Let):
            out.add(n.name)
        elif isinstance(n, (Assign, AugAssign)) and isinstance(n.target, Name):
            out.add(n.target.id)
        elif isinstance(n, (Move, MoveAll)):
            out |= {z.id for z in (n.src_zone, n.dst_zone) if isinstance(z, Name)}
        elif isinstance(getattr(n, "var", None), str):
            out.add(n.var)
        elif isinstance(getattr(n, "name", None), str) and not isinstance(n, (Call, Attr)):
            out.add(n.name)
    return frozenset(out)
