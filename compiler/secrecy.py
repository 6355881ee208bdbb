"""Which locals of a routine may hold a hidden value: the visibility of values in locals.

A field declared ``visible: owner`` or ``none`` is hidden by the runtime's view wherever it
sits in the state. A local that holds such a value, or anything computed from one, must be
hidden too while its routine waits for a decision: the waiting routine's frame is part of
the state a view is made from. This analysis finds those locals, once per routine, from the
checked rules; the code generator records, for every resume point of every routine, which
frame slots they are (the engine's ``SECRETS``), and :func:`rulecraft.runtime.view.view`
hides them from every seat. A decision whose prompt shows a secret value has its prompt's
arguments hidden from the seats it does not ask (the engine's ``SECRET_PROMPTS``).

A local is *secret* when any value assigned to it may depend on hidden data:

- a read of a hidden field (an attribute, a global or a card's own field), of a secret
  local, or a call of a function whose result reads hidden data;
- the answer of a decision whose options or prompt are secret, or of a decision asked in a
  ``simultaneously`` block (the others' answers are secret until all have answered);
- an assignment under a condition, or in a loop over a list, that is secret (the branch
  taken tells what the condition read);
- a routine's parameter that some call passes a secret value (a card that is played is
  shown: which card it is does not make its effect's locals secret, a secret player does).

The analysis is flow-insensitive (a local secret at one assignment is secret everywhere in
its routine) and so errs on the side of hiding: a view may hide a local a seat could have
worked out, never show one it may not see. Deals in locals are not judged here: the view
shows an offer to its parties only.
"""

from __future__ import annotations

from typing import Any

from . import ir
from .builtins import DECISIONS
from .effects import (
    Assign,
    AtOnce,
    Attr,
    AugAssign,
    Call,
    For,
    If,
    Let,
    Name,
    Node,
    Return,
    Simultaneously,
    Stmt,
    While,
    walk,
)

__all__ = ["Secrecy", "stand_in", "SIMULTANEOUS_PLAYERS"]

#: the rule-level name of the list of players a ``simultaneously`` block asks (a frame local)
SIMULTANEOUS_PLAYERS = "_ps"

#: builtins that give only the size of a list
_SIZES = {"count", "len"}


def _hidden_field(f: Any) -> bool:
    return isinstance(f, ir.Field) and f.visible != "all"


class _Analysis:
    def __init__(self, game: ir.Game) -> None:
        self.game = game
        self.routines = {r.name: r for r in game.routines()}
        self.secret: dict[str, set[str]] = {name: set() for name in self.routines}
        self.types: dict[str, dict[str, ir.Type]] = {
            name: dict(r.params) for name, r in self.routines.items()
        }
        self.reads_hidden: dict[str, bool] = {name: False for name in self.routines}
        self.changed = True

    # -- expressions

    def sec(self, e: Any, name: str, simultaneous: bool = False) -> bool:
        """Whether the value of ``e`` in routine ``name`` may depend on hidden data."""
        mine = self.secret[name]
        stack = [e]
        while stack:
            n = stack.pop()
            if isinstance(n, Call) and n.func in _SIZES and len(n.args) == 1:
                if self._hidden_whole(n.args[0], name):
                    continue  # how many a hidden list holds is seen (views keep its size)
            if isinstance(n, Attr) and _hidden_field(n.ref):
                return True
            if isinstance(n, Name):
                ref = n.ref
                if isinstance(ref, tuple) and ref:
                    if ref[0] == "local" and ref[1] in mine:
                        return True
                    if ref[0] in ("global", "self") and _hidden_field(ref[1]):
                        return True
            if isinstance(n, Call):
                if isinstance(n.ref, ir.Routine) and self.reads_hidden.get(n.ref.name, False):
                    return True
                if simultaneous and n.func in DECISIONS:
                    return True
            if isinstance(n, Node):
                for fname in n.__dataclass_fields__:
                    if fname not in ("src", "ty", "ref", "declared"):
                        v = getattr(n, fname)
                        if isinstance(v, (list, tuple)):
                            stack.extend(v)
                        elif isinstance(v, dict):
                            stack.extend(v.values())
                        else:
                            stack.append(v)
        return False

    def _hidden_whole(self, e: Any, name: str) -> bool:
        """A hidden list read whole (``count(p.hand)``) of a public record or player: views
        keep the size of a hidden list, so its size is no secret."""
        if isinstance(e, Attr) and _hidden_field(e.ref) and e.ref.type.kind == "list":
            return not self.sec(e.obj, name)
        if isinstance(e, Name) and isinstance(e.ref, tuple) and e.ref[:1] == ("global",):
            f = e.ref[1]
            return _hidden_field(f) and f.type.kind == "list"
        return False

    def mark(self, name: str, local: str) -> None:
        if local not in self.secret[name]:
            self.secret[name].add(local)
            self.changed = True

    def calls(self, e: Any, name: str) -> None:
        """A call passing a secret argument makes that parameter secret in the callee. A call
        under a secret condition does not: that the callee runs shows in every view (its
        frame), and its arguments are what they are."""
        for n in walk(e):
            if not isinstance(n, Call):
                continue
            callee = n.ref if isinstance(n.ref, ir.Routine) else None
            if n.func == "play":
                # a card played is shown (its effect runs in the open): only a secret player
                # makes the effects' parameters secret
                if len(n.args) > 1 and self.sec(n.args[1], name):
                    for c in self.game.cards.values():
                        for pname, _t in c.effect.params:
                            self.mark(c.effect.name, pname)
                continue
            if callee is None or callee.name not in self.secret:
                continue
            for arg, (pname, _t) in zip(n.args, callee.params, strict=False):
                if self.sec(arg, name):
                    self.mark(callee.name, pname)

    def typed(self, name: str, local: str, t: ir.Type | None) -> None:
        if t is not None and t.kind not in ("any", "none") and local not in self.types[name]:
            self.types[name][local] = t

    # -- statements

    def body(self, stmts: list[Stmt], name: str, ctx: bool) -> None:
        for s in stmts:
            self.stmt(s, name, ctx)

    def stmt(self, s: Stmt, name: str, ctx: bool) -> None:
        if isinstance(s, If):
            cond = ctx
            for test, body in s.branches:
                self.calls(test, name)
                cond = cond or self.sec(test, name)
                self.body(body, name, cond)
            subject = getattr(s, "subject", None)
            if subject is not None:
                cond = cond or self.sec(subject, name)
            self.body(s.orelse, name, cond)
            return
        if isinstance(s, While):
            self.calls(s.cond, name)
            self.body(s.body, name, ctx or self.sec(s.cond, name))
            return
        if isinstance(s, For):
            self.typed(name, s.var, s.declared)
            self.calls(s.iter, name)
            inner = ctx or self.sec(s.iter, name)
            if inner:
                self.mark(name, s.var)
            self.body(s.body, name, inner)
            return
        if isinstance(s, AtOnce):
            # each answer is secret until all have answered (and kept so: flow-insensitive)
            for b in s.body:
                if isinstance(b, Let):
                    self.typed(name, b.name, b.declared)
                    self.calls(b.value, name)
                    self.mark(name, b.name)
            return
        if isinstance(s, Simultaneously):
            self.typed(name, s.var, ir.PLAYER)
            self.typed(name, SIMULTANEOUS_PLAYERS, ir.list_of(ir.PLAYER))
            self.calls(s.iter, name)
            inner = ctx or self.sec(s.iter, name)
            if inner:
                self.mark(name, s.var)
                self.mark(name, SIMULTANEOUS_PLAYERS)
            first, *rest = s.body
            if isinstance(first, Let):
                self.typed(name, first.name, first.declared)
                self.calls(first.value, name)
                if inner or self.sec(first.value, name, simultaneous=True):
                    self.mark(name, first.name)
            else:
                self.stmt(first, name, inner)
            self.body(rest, name, inner)
            return
        self.calls(s, name)
        if isinstance(s, Let):
            self.typed(name, s.name, s.declared)
            if ctx or self.sec(s.value, name):
                self.mark(name, s.name)
        elif isinstance(s, (Assign, AugAssign)) and isinstance(s.target, Name):
            if ctx or self.sec(s.value, name):
                self.mark(name, s.target.id)
        elif isinstance(s, Return) and s.value is not None:
            if (ctx or self.sec(s.value, name)) and not self.reads_hidden[name]:
                # the result depends on hidden data whatever the arguments: callers' results
                # are secret (a secret argument makes them secret at the call anyway)
                if not self._only_params(s.value, name, ctx):
                    self.reads_hidden[name] = True
                    self.changed = True

    def _only_params(self, e: Any, name: str, ctx: bool) -> bool:
        """Whether ``e`` is secret only through parameters made secret by a caller (then the
        caller's own arguments already make its result secret)."""
        if ctx:
            return False
        params = {p for p, _t in self.routines[name].params}
        saved = self.secret[name]
        self.secret[name] = saved - params
        try:
            return not self.sec(e, name)
        finally:
            self.secret[name] = saved

    def run(self) -> dict[str, dict[str, Any]]:
        while self.changed:
            self.changed = False
            for name, r in self.routines.items():
                self.body(r.body, name, False)
        return {
            name: {x: stand_in(self.game, self.types[name].get(x)) for x in sorted(secret)}
            for name, secret in self.secret.items()
            if secret
        }


#: builtins that read the state and change nothing (a hidden local defined by a pure
#: expression of them can be worked out again in a bot's imagined world)
_PURE = {
    "count", "sum", "min", "max", "abs", "div_down", "div_up", "first", "plural", "lookup",
    "modifiers", "allows", "playable", "reachable", "path_cost", "deal_parties", "len",
    "nth", "reversed",
}  # fmt: skip


def _definitions(game: ir.Game, routine: ir.Routine) -> dict[str, Let]:
    """The locals of ``routine`` assigned once, by a ``let`` of a pure expression: the value
    they held can be computed again from the state (in a bot's world, see
    :meth:`Secrecy.definition`)."""
    assigned: dict[str, list[Any]] = {}
    for n in walk(routine.body):
        if isinstance(n, Let):
            assigned.setdefault(n.name, []).append(n)
        elif isinstance(n, (Assign, AugAssign)) and isinstance(n.target, Name):
            assigned.setdefault(n.target.id, []).append(n)
        elif isinstance(n, (For, Simultaneously)):
            assigned.setdefault(n.var, []).append(n)
    return {
        name: nodes[0]
        for name, nodes in assigned.items()
        if len(nodes) == 1 and isinstance(nodes[0], Let) and _pure(game, nodes[0].value, set())
    }


def _pure(game: ir.Game, e: Any, seen: set[str]) -> bool:
    for n in walk(e):
        if isinstance(n, Call):
            if isinstance(n.ref, ir.Routine):
                r = n.ref
                if r.kind != "function":
                    return False
                if r.name not in seen:
                    seen.add(r.name)
                    if not _pure(game, r.body, seen):
                        return False
            elif n.func not in _PURE:
                return False
            if any(not _pure(game, v, seen) for v in getattr(n, "kwargs", {}).values()):
                return False
    return True


class Secrecy:
    """The secrecy of a checked game's routines: :attr:`locals` holds, for each routine that
    has some, its secret locals and parameters by rule name, each with its stand-in
    (:func:`stand_in`); :meth:`secret` tells whether an expression of a routine is."""

    def __init__(self, game: ir.Game) -> None:
        self._analysis = _Analysis(game)
        self.locals = self._analysis.run()
        self._definitions: dict[str, dict[str, Let]] = {}

    def definition(self, routine: str, local: str) -> Let | None:
        """The ``let`` that alone gives secret ``local`` of ``routine`` its value, if it is a
        pure expression: a bot's imagined world computes it again there."""
        defs = self._definitions.get(routine)
        if defs is None:
            r = self._analysis.routines.get(routine)
            defs = self._definitions[routine] = (
                {} if r is None else _definitions(self._analysis.game, r)
            )
        return defs.get(local) if local in self.locals.get(routine, {}) else None

    def secret(self, routine: str, e: Any, simultaneous: bool = False) -> bool:
        if routine not in self._analysis.secret:
            return True  # not a routine the analysis saw: hide rather than guess
        return self._analysis.sec(e, routine, simultaneous)


def stand_in(game: ir.Game, t: ir.Type | None) -> Any:
    """A value of type ``t`` that a bot's imagined world holds where a secret local was:
    any legal value serves (the bot does not know the real one), and a value of the right
    type keeps the routine running as the rules wrote it."""
    if t is None:
        return None
    if t.kind == "int":
        return 0
    if t.kind == "bool":
        return False
    if t.kind in ("player", "card", "entity"):
        return 0
    if t.kind == "enum":
        values = game.enums[t.name].values if t.name in game.enums else ()
        return values[0] if values else None
    if t.kind == "str":
        return ""
    if t.kind == "list":
        return ()
    return None
