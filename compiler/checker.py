"""Names and types: give every effect-language expression a type, or say why not.

The checker resolves every name (locals, parameters, state fields, constants, functions,
builtins), checks types and argument counts, keeps decisions at statement level, keeps
functions free of side effects, and works out which routines may wait for a decision
(``Routine.suspends``).  It also checks the values a scenario gives the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import ir
from .builtins import BUILTINS, DECISIONS
from .declarations import (
    check_card_attributes,
    check_programs_that_do_not_wait,
    check_special_fields,
)
from .diagnostics import DiagnosticSink, Position, did_you_mean
from .displays import PREFIX as DISPLAY
from .displays import check_displays
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
    Expr,
    ExprStmt,
    For,
    If,
    In,
    Int,
    Let,
    ListLit,
    Log,
    Match,
    Move,
    MoveAll,
    Name,
    Neg,
    NoneLit,
    Not,
    Pass,
    Return,
    Reveal,
    Simultaneously,
    Stmt,
    Str,
    Ternary,
    While,
    walk,
)
from .lasting import lasting_call_name
from .nones import breaks, check_nones
from .scenario_values import ScenarioChecker
from .typerules import article, compatible, refines, untyped_list

#: the fields of a table result record and their types (``value`` depends on the table)
RESULT_FIELDS = {
    "code": ir.STR,
    "permanent": ir.BOOL,
    "text": ir.STR,
    "table": ir.TABLE,
    "shift": ir.INT,
}
#: the fields only a result of `resolve` has
ROLLED_FIELDS = {"roll": ir.INT, "column": ir.STR}


@dataclass
class Binding:
    type: ir.Type
    kind: str  # local | param
    node: Any = None  # the `let` that declared a local, whose type an assignment may refine
    of_empty: bool = False  # a loop's variable over a list started as [] of no known type yet


class Checker:
    def __init__(self, game: ir.Game, sink: DiagnosticSink):
        self.game = game
        self.sink = sink
        self.routine: ir.Routine | None = None
        self.scopes: list[dict[str, Binding]] = []
        self.loop_depth = 0

    # -- reporting

    def error(self, code: str, message: str, node: Any, hint: str | None = None) -> None:
        pos = node if isinstance(node, Position) else node.pos
        self.sink.error(code, message, pos, hint)

    # -- entry point

    def check(self) -> None:
        g = self.game
        for r in g.routines():
            self.check_routine(r)
        for card in g.cards.values():
            if card.playable is not None:
                self.routine = card.effect
                self.scopes = [{"me": Binding(ir.PLAYER, "param")}]
                t = self.expr(card.playable)
                self.expect(card.playable, t, ir.BOOL, "a card's playable condition")
        for et in g.entities.values():
            if et.label is not None:
                self.routine = None
                self.scopes = [{}]
                self.label_expr(et, et.label)
        check_card_attributes(g, self.sink)
        check_special_fields(g, self.sink)
        check_displays(g, self.sink)
        self.find_suspending()
        check_programs_that_do_not_wait(g, self.sink)
        check_nones(g, self.sink)
        for sc in g.scenarios.values():
            ScenarioChecker(g, sc, self.sink).check()

    def label_expr(self, et: ir.EntityType, label: Expr) -> None:
        # In a label, bare names are the record's own attributes and fields.
        for node in walk(label):
            if isinstance(node, Name):
                member = et.member(node.id) or (
                    ir.Field(node.id, ir.STR, et.origin, const=True)
                    if node.id in ("id", "name")
                    else None
                )
                if member is None:
                    self.error(
                        "unknown-name",
                        f"{et.name} has no attribute or field {node.id!r}",
                        node,
                        did_you_mean(node.id, [*et.attributes, *et.fields, "id", "name"]),
                    )
                    node.ty = ir.ANY
                else:
                    node.ref = ("self", member)
                    node.ty = member.type

    # -- routines

    def check_routine(self, r: ir.Routine) -> None:
        self.routine = r
        self.scopes = [{name: Binding(t, "param") for name, t in r.params}]
        self.block(r.body)
        # an empty body is one that did not parse (its syntax error is reported)
        if r.returns.kind not in ("void", "any") and r.body and _may_finish(r.body):
            # the engine would hand back None where the rules promise a value
            last = r.body[-1] if r.body else None
            self.sink.error(
                "missing-return",
                f"{r.kind} {r.name!r} must return {article(r.returns)}, but can reach its end "
                "without a return",
                last.pos if last is not None else r.origin.pos,
                "end every path with `return ...`: give the last `if` an `else:` that returns, "
                "or add a return at the end",
            )

    def lookup(self, name: str) -> Binding | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def declare(self, name: str, t: ir.Type, node: Any) -> None:
        if isinstance(node, (Let, For, Simultaneously)):
            node.declared = t
        if self.lookup(name) is not None:
            self.error(
                "duplicate-name",
                f"{name!r} is already defined here",
                node,
                f"assign to it with `{name} = ...`, or choose another name",
            )
        if name in self.game.constants or name in self.game.globals or name in BUILTINS:
            self.error(
                "duplicate-name",
                f"{name!r} would hide the game's {self.describe_global(name)} of that name",
                node,
            )
        self.scopes[-1][name] = Binding(t, "local", node)

    def describe_global(self, name: str) -> str:
        if name in self.game.constants:
            return "constant"
        if name in self.game.globals:
            return "global field"
        return "builtin"

    def block(self, stmts: list[Stmt]) -> None:
        self.scopes.append({})
        for s in stmts:
            self.stmt(s)
        self.scopes.pop()

    @property
    def is_function(self) -> bool:
        return self.routine is not None and self.routine.kind == "function"

    def no_effects(self, node: Any, what: str) -> None:
        r = self.routine
        if r is not None and r.name.startswith(DISPLAY) and what != "write to the log":
            self.error(
                "side-effect",
                f"board display {r.name[len(DISPLAY) :]!r} may not {what}",
                node,
                "a display shows the game as it is: compute with functions and log the lines",
            )
        if self.is_function:
            assert self.routine is not None
            self.error(
                "side-effect",
                f"function {lasting_call_name(self.routine.name)!r} may not {what}",
                node,
                "functions compute values; move this into a procedure",
            )

    def stmt(self, s: Stmt) -> None:
        if isinstance(s, Let):
            t = self.value(s.value)
            if t.kind == "void":
                self.error("type", "this call gives no value", s.value)
            self.declare(s.name, t, s)
        elif isinstance(s, Assign):
            self.assign(s, s.target, s.value)
        elif isinstance(s, AugAssign):
            tt = self.target(s.target)
            vt = self.expr(s.value)
            self.expect(s.target, tt, ir.INT, f"the target of {s.op}")
            self.expect(s.value, vt, ir.INT, f"the value of {s.op}")
        elif isinstance(s, Move):
            self.no_effects(s, "move cards")
            it = self.expr(s.item)
            self.expect(s.item, it, ir.CARD, "the card to move")
            self.zone(s.src_zone)
            self.zone(s.dst_zone)
        elif isinstance(s, MoveAll):
            self.no_effects(s, "move cards")
            self.zone(s.src_zone)
            self.zone(s.dst_zone)
        elif isinstance(s, Log):
            self.no_effects(s, "write to the log")
            if s.audience is not None:
                at = self.expr(s.audience)
                if not (compatible(at, ir.PLAYER) or compatible(at, ir.list_of(ir.PLAYER))):
                    self.error(
                        "type",
                        f"a log audience is a player or a list of players, not {at}",
                        s.audience,
                    )
            self.expr(s.text)
        elif isinstance(s, Return):
            self.ret(s)
        elif isinstance(s, Break):
            if self.loop_depth == 0:
                self.error("syntax", "'break' outside a loop", s)
        elif isinstance(s, Pass):
            pass
        elif isinstance(s, ExprStmt):
            if not isinstance(s.expr, Call):
                self.error("unused", "this expression does nothing on its own line", s.expr)
                self.expr(s.expr)
            else:
                self.value(s.expr)
        elif isinstance(s, Reveal):
            self.reveal(s)
        elif isinstance(s, Match):
            self.match(s)
        elif isinstance(s, If):
            for cond, body in s.branches:
                self.expect(cond, self.expr(cond), ir.BOOL, "a condition")
                self.block(body)
            self.block(s.orelse)
        elif isinstance(s, For):
            it = self.expr(s.iter)
            elem = self.elem_of(s.iter, it)
            self.scopes.append({})
            self.declare(s.var, elem, s)
            if untyped_list(it):  # over a list started as [] that nothing typed yet
                self.scopes[-1][s.var].of_empty = True
            self.loop_depth += 1
            for b in s.body:
                self.stmt(b)
            self.loop_depth -= 1
            self.scopes.pop()
        elif isinstance(s, While):
            self.expect(s.cond, self.expr(s.cond), ir.BOOL, "a loop condition")
            self.loop_depth += 1
            self.block(s.body)
            self.loop_depth -= 1
        elif isinstance(s, Simultaneously):
            self.simultaneously(s)
        elif isinstance(s, AtOnce):
            self.at_once(s)
        else:  # pragma: no cover - the parser makes no other statements
            raise AssertionError(s)

    def simultaneously(self, s: Simultaneously) -> None:
        self.no_effects(s, "ask for decisions")
        it = self.expr(s.iter)
        self.expect(s.iter, it, ir.list_of(ir.PLAYER), "the players who decide")
        first = s.body[0] if s.body else None
        ok = (
            isinstance(first, Let)
            and isinstance(first.value, Call)
            and first.value.func in DECISIONS
            and first.value.args
            and isinstance(first.value.args[0], Name)
            and first.value.args[0].id == s.var
        )
        if not ok:
            self.error(
                "simultaneous",
                f"a simultaneously block starts with `let x = choose({s.var}, ...)`",
                first if first is not None else s,
                "each player's decision comes first; what follows runs once all have decided",
            )
        self.scopes.append({})
        self.declare(s.var, ir.PLAYER, s)
        for b in s.body:
            self.stmt(b)
        for b in s.body[1:]:
            for node in walk(b):
                if isinstance(node, Call) and _waits(node.func):
                    self.error(
                        "simultaneous",
                        "only the first statement of a simultaneously block may ask for a decision",
                        node,
                    )
                if isinstance(node, (Simultaneously,)):
                    self.error("simultaneous", "simultaneously blocks do not nest", node)
        self.scopes.pop()

    def at_once(self, s: AtOnce) -> None:
        """``simultaneously:``: each line a decision of its own player, asked at once; the
        answers are locals of the routine once all have decided."""
        self.no_effects(s, "ask for decisions")
        hint = "write one `let x = choose(player, ...)` per line, each for another player"
        names: set[str] = set()
        for b in s.body:
            ok = (
                isinstance(b, Let)
                and isinstance(b.value, Call)
                and b.value.func in DECISIONS
                and b.value.func not in ("report", "propose")
                and bool(b.value.args)
            )
            if not ok:
                self.error(
                    "simultaneous", "each line of `simultaneously:` asks a decision", b, hint
                )
                continue
            assert isinstance(b, Let) and isinstance(b.value, Call)
            for node in walk(b.value):
                if isinstance(node, Name) and node.id in names:
                    self.error(
                        "simultaneous",
                        f"{node.id!r} is not known yet: the decisions of `simultaneously:` "
                        "are asked at once",
                        node,
                    )
            self.stmt(b)
            names.add(b.name)
        if len(s.body) < 2:
            self.error("simultaneous", "`simultaneously:` asks two or more decisions", s, hint)

    def reveal(self, s: Reveal) -> None:
        self.no_effects(s, "reveal hidden values")
        t = self.expr(s.target)
        member = s.target.ref if isinstance(s.target, Attr) else None
        if t.kind == "entity" and t.name in self.game.entities and self.game.entities[t.name].fog:
            member = self.game.entities[t.name].fields[ir.FOG_SEEN]  # a record in the fog
            member = ir.Field(member.name, member.type, member.origin, revealable=True)
        if isinstance(s.target, Name) and s.target.ref and s.target.ref[0] == "global":
            member = s.target.ref[1]
        if not isinstance(member, ir.Field):
            self.error(
                "type",
                "reveal shows a field (`reveal k.dps to players`) or a record in the fog of "
                "war (`reveal u to p`, a type with `fog:`)",
                s.target,
            )
        elif not member.revealable:
            self.error(
                "reveal",
                f"field {member.name!r} is not revealable",
                s.target,
                "declare it hidden and revealable: {visible: owner, revealable: true}",
            )
        if s.audience is not None:
            at = self.expr(s.audience)
            if not (compatible(at, ir.PLAYER) or compatible(at, ir.list_of(ir.PLAYER))):
                self.error(
                    "type", f"reveal shows to a player or a list of players, not {at}", s.audience
                )

    def match(self, s: Match) -> None:
        assert s.subject is not None
        st = self.expr(s.subject)
        codes: list[str] | None = None
        if (
            isinstance(s.subject, Attr)
            and s.subject.name == "code"
            and s.subject.obj.ty is not None
            and s.subject.obj.ty.kind == "result"
            and s.subject.obj.ty.name
        ):
            codes = self.result_codes(s.subject.obj.ty.name)
        seen: set[Any] = set()
        for values in s.cases:
            for v in values:
                vt = self.expr(v)
                if not compatible(vt, st):
                    self.error("type", f"a case of {article(st)} cannot be {article(vt)}", v)
                elif st.kind == "enum" and isinstance(v, Str):
                    self.enum_literal(v, st)
                key = v.plain if isinstance(v, Str) and v.is_plain else getattr(v, "value", None)
                if key in seen and key is not None:
                    self.error("duplicate-name", f"case {key!r} is given twice", v)
                seen.add(key)
                if codes is not None and isinstance(v, Str) and v.is_plain and v.plain not in codes:
                    self.error(
                        "unknown-name",
                        f"table {s.subject.obj.ty.name!r} has no result {v.plain!r}",  # type: ignore[union-attr]
                        v,
                        did_you_mean(v.plain, codes) or "results: " + ", ".join(codes),
                    )
        for cond, body in s.branches:
            cond.ty = ir.BOOL
            self.block(body)
        self.block(s.orelse)

    def ret(self, s: Return) -> None:
        r = self.routine
        assert r is not None
        if r.returns.kind == "void":
            if s.value is not None:
                self.error("type", f"{r.kind} {r.name!r} returns no value", s.value)
            return
        if s.value is None:
            self.error("type", f"{r.kind} {r.name!r} must return a {r.returns}", s)
            return
        t = self.expr(s.value)
        self.expect(s.value, t, r.returns, f"the value of {r.name!r}")

    def assign(self, s: Stmt, target: Expr, value: Expr) -> None:
        tt = self.target(target)
        vt = self.value(value)
        if (
            isinstance(value, Call)
            and self.is_statement_call(value)
            and not (isinstance(target, Name) and target.ref == ("local", target.id))
        ):
            self.error("decision", "the answer to a decision goes into a local variable", value)
        self.expect(value, vt, tt, "the assigned value")
        if isinstance(target, Name) and target.ref == ("local", target.id) and refines(tt, vt):
            self.refine(target, vt)

    def refine(self, target: Name, t: ir.Type) -> None:
        """A local started as ``[]`` or ``none`` takes the type of what is given to it
        (``typerules.refines``): the uses after it know what it holds."""
        b = self.lookup(target.id)
        if b is None:
            return
        b.type = t
        target.ty = t
        if isinstance(b.node, Let):
            b.node.declared = t

    def target(self, t: Expr) -> ir.Type:
        if isinstance(t, Name):
            b = self.lookup(t.id)
            if b is not None:
                if b.kind == "param":
                    self.error("assign", f"parameter {t.id!r} cannot be changed", t)
                t.ref = ("local", t.id)
                t.ty = b.type
                return b.type
            if t.id in self.game.globals:
                self.no_effects(t, "change the game state")
                t.ref = ("global", self.game.globals[t.id])
                t.ty = self.game.globals[t.id].type
                return t.ty
            if t.id in self.game.constants:
                self.error("assign", f"{t.id!r} is a constant and cannot be changed", t)
                return ir.ANY
            if t.id == "turn":
                self.error(
                    "assign",
                    "'turn' is the turn number, which only the flow of play advances",
                    t,
                    "to end the turn early, call next_turn(); to count something else, "
                    "declare a global",
                )
                return ir.ANY
            self.error(
                "unknown-name",
                f"unknown name {t.id!r}",
                t,
                f"declare a local with `let {t.id} = ...`",
            )
            return ir.ANY
        if isinstance(t, Attr):
            ty = self.expr(t)
            member = t.ref if isinstance(t.ref, ir.Field) else None
            if member is not None and member.const:
                self.error("assign", f"{t.name!r} is a fixed attribute and cannot be changed", t)
            elif member is None and ty != ir.ANY:
                self.error("assign", f"{t.name!r} cannot be changed", t)
            self.no_effects(t, "change the game state")
            return ty
        self.error("assign", "only a variable or a field can be assigned", t)
        return ir.ANY

    @staticmethod
    def may_be_absent(side: Expr, other: ir.Type) -> bool:
        """``side`` reads a field declared ``optional`` and is compared with ``none``."""
        if other != ir.NONE:
            return False
        if isinstance(side, Name) and isinstance(side.ref, tuple) and side.ref[0] == "global":
            return bool(side.ref[1].optional)
        return isinstance(side, Attr) and isinstance(side.ref, ir.Field) and side.ref.optional

    def zone(self, z: Expr) -> None:
        t = self.expr(z)
        member = z.ref if isinstance(z, Attr) and isinstance(z.ref, ir.Field) else None
        if isinstance(z, Name) and isinstance(z.ref, tuple) and z.ref[0] == "global":
            member = z.ref[1]  # a shared pile: a card field of the game (a deck, a discard)
        if member is None or t != ir.list_of(ir.CARD) or member.const:
            if t != ir.ANY:
                self.error(
                    "type",
                    "cards move between card fields: a player's, like `p.hand`, or the "
                    "game's, like `draw_pile`",
                    z,
                )

    # -- expressions

    def result_codes(self, tid: str) -> list[str]:
        """The results a table's lookups may give: its cells' codes, and the results it
        explains that no cell prints (a CRT's result no printed row gives), each once."""
        table = self.game.tables[tid]
        codes = [c.code for c in table.cells() if c.code is not None]
        return list(dict.fromkeys([*codes, *(getattr(table, "results", None) or {})]))

    def result_code(self, side: Expr, literal: Expr) -> None:
        """``r.code == "8+"``: the text must be a result of the table ``r`` comes from."""
        if not (isinstance(literal, Str) and literal.is_plain and isinstance(side, Attr)):
            return
        ot = side.obj.ty
        if side.name != "code" or ot is None or ot.kind != "result" or not ot.name:
            return
        codes = self.result_codes(ot.name)
        if literal.plain not in codes:
            self.error(
                "unknown-name",
                f"table {ot.name!r} has no result {literal.plain!r}",
                literal,
                did_you_mean(literal.plain, codes) or "results: " + ", ".join(codes),
            )

    def table_literal(self, node: Any) -> bool:
        """A table id in quotes where a table is expected: checked, then typed a table."""
        if not (isinstance(node, Str) and node.is_plain):
            return False
        if node.plain not in self.game.tables:
            self.error(
                "unknown-name",
                f"unknown table {node.plain!r}",
                node,
                did_you_mean(node.plain, self.game.tables) or "tables are in rules/<game>/tables/",
            )
        node.ty = ir.TABLE
        return True

    def expect(self, node: Any, got: ir.Type, want: ir.Type, what: str) -> None:
        if want.kind == "table" and got == ir.STR and self.table_literal(node):
            return
        if not compatible(got, want):
            self.error("type", f"{what} must be {article(want)}, not {article(got)}", node)
        elif want.kind == "enum" and isinstance(node, Str):
            self.enum_literal(node, want)

    def enum_literal(self, s: Str, t: ir.Type) -> None:
        values = self.game.enums[t.name].values
        if s.is_plain and s.plain not in values:
            self.error(
                "unknown-name",
                f"{s.plain!r} is not a value of {t.name}",
                s,
                did_you_mean(s.plain, values) or "values: " + ", ".join(values),
            )

    def elem_of(self, node: Expr, t: ir.Type) -> ir.Type:
        if t.kind == "list":
            assert t.elem is not None
            return t.elem
        if t != ir.ANY:
            self.error("type", f"expected a list here, not {article(t)}", node)
        return ir.ANY

    def is_statement_call(self, c: Call) -> bool:
        if c.func in BUILTINS:
            return BUILTINS[c.func].statement
        r = self.game.functions.get(c.func)
        return r is not None and r.kind == "procedure"

    def value(self, e: Expr) -> ir.Type:
        """Type of an expression that stands alone (a statement may call procedures here)."""
        if isinstance(e, Call):
            return self.call(e, statement=True)
        return self.expr(e)

    def expr(self, e: Expr) -> ir.Type:
        t = self._expr(e)
        e.ty = t
        return t

    def _expr(self, e: Expr) -> ir.Type:
        if isinstance(e, Int):
            return ir.INT
        if isinstance(e, Bool):
            return ir.BOOL
        if isinstance(e, NoneLit):
            return ir.NONE
        if isinstance(e, Str):
            for part in e.parts:
                if not isinstance(part, str):
                    self.expr(part)
            return ir.STR
        if isinstance(e, Name):
            return self.name(e)
        if isinstance(e, Attr):
            return self.attr(e)
        if isinstance(e, Call):
            return self.call(e, statement=False)
        if isinstance(e, ListLit):
            if not e.items:
                return ir.list_of(ir.ANY)
            types = [self.expr(i) for i in e.items]
            for item, t in zip(e.items[1:], types[1:], strict=True):
                self.expect(item, t, types[0], "every element of a list")
            return ir.list_of(types[0])
        if isinstance(e, Comp):
            it = self.expr(e.iter)
            elem = self.elem_of(e.iter, it)
            self.scopes.append({})
            self.declare(e.var, elem, e)
            if e.cond is not None:
                self.expect(e.cond, self.expr(e.cond), ir.BOOL, "a filter condition")
            t = self.expr(e.elt)
            self.scopes.pop()
            return ir.list_of(t)
        if isinstance(e, BinOp):
            lt, rt = self.expr(e.left), self.expr(e.right)
            if e.op == "+" and lt.kind == "list":
                self.expect(e.right, rt, lt, "the right side of '+'")
                return rt if untyped_list(lt) and rt.kind == "list" else lt
            if e.op == "+" and lt == ir.STR:
                self.expect(e.right, rt, ir.STR, "the right side of '+'")
                return ir.STR
            self.expect(e.left, lt, ir.INT, f"the left side of '{e.op}'")
            self.expect(e.right, rt, ir.INT, f"the right side of '{e.op}'")
            return ir.INT
        if isinstance(e, Compare):
            lt, rt = self.expr(e.left), self.expr(e.right)
            if e.op in ("==", "!="):
                for side, other in ((e.left, e.right), (e.right, e.left)):
                    self.result_code(side, other)
                if lt.kind == "table" and rt == ir.STR and self.table_literal(e.right):
                    return ir.BOOL
                if rt.kind == "table" and lt == ir.STR and self.table_literal(e.left):
                    return ir.BOOL
                if self.may_be_absent(e.left, rt) or self.may_be_absent(e.right, lt):
                    return ir.BOOL  # `c.bonus != none`: an optional int or bool omitted
                if not compatible(lt, rt):
                    self.error("type", f"cannot compare {article(lt)} with {article(rt)}", e)
                elif lt.kind == "enum" and isinstance(e.right, Str):
                    self.enum_literal(e.right, lt)
                elif rt.kind == "enum" and isinstance(e.left, Str):
                    self.enum_literal(e.left, rt)
            else:
                self.expect(e.left, lt, ir.INT, f"the left side of '{e.op}'")
                self.expect(e.right, rt, ir.INT, f"the right side of '{e.op}'")
            return ir.BOOL
        if isinstance(e, In):
            it, ct = self.expr(e.item), self.expr(e.coll)
            elem = self.elem_of(e.coll, ct)
            if not compatible(it, elem):
                self.error("type", f"{article(it)} is never in a list of {elem}", e)
            elif elem.kind == "enum" and isinstance(e.item, Str):
                self.enum_literal(e.item, elem)
            return ir.BOOL
        if isinstance(e, BoolOp):
            self.expect(e.left, self.expr(e.left), ir.BOOL, f"each side of '{e.op}'")
            self.expect(e.right, self.expr(e.right), ir.BOOL, f"each side of '{e.op}'")
            return ir.BOOL
        if isinstance(e, Not):
            self.expect(e.operand, self.expr(e.operand), ir.BOOL, "the operand of 'not'")
            return ir.BOOL
        if isinstance(e, Neg):
            self.expect(e.operand, self.expr(e.operand), ir.INT, "the operand of '-'")
            return ir.INT
        if isinstance(e, Ternary):
            self.expect(e.cond, self.expr(e.cond), ir.BOOL, "a condition")
            a, b = self.expr(e.then), self.expr(e.orelse)
            if not compatible(b, a):
                self.error("type", f"both branches must have one type, not {a} and {b}", e.orelse)
            return a if a.kind != "none" else b
        raise AssertionError(e)  # pragma: no cover

    def name(self, e: Name) -> ir.Type:
        g = self.game
        b = self.lookup(e.id)
        if b is not None:
            e.ref = ("local", e.id)
            return b.type
        if e.id == "players":
            e.ref = ("players",)
            return ir.list_of(ir.PLAYER)
        plurals = g.plural_types()
        if e.id in plurals:
            e.ref = ("all", plurals[e.id])
            return ir.list_of(ir.entity(plurals[e.id]))
        if e.id in g.enums:
            e.ref = ("enum", e.id)
            return ir.list_of(ir.enum(e.id))
        if e.id in g.globals:
            e.ref = ("global", g.globals[e.id])
            return g.globals[e.id].type
        if e.id in g.constants:
            e.ref = ("const", g.constants[e.id])
            return g.constants[e.id].type
        if e.id == "turn":  # the turn number (1 in the first turn, 0 during set-up)
            e.ref = ("turn",)
            return ir.INT
        # The ids of the scenario's seats, cards and records name those things.
        sc = g.scenario if len(g.scenarios) == 1 else None
        seats = [s for s, _ in sc.seats] if sc else []
        if e.id in seats:
            e.ref = ("seat", seats.index(e.id))
            return ir.PLAYER
        if e.id in g.cards:
            e.ref = ("card", g.cards[e.id].index)
            return ir.CARD
        for tname, ids in sc.records.items() if sc else ():
            if e.id in ids:
                e.ref = ("record", tname, ids.index(e.id))
                return ir.entity(tname)
        if e.id in g.functions or e.id in BUILTINS:
            self.error("type", f"{e.id!r} is a function; call it with ()", e)
            return ir.ANY
        known = [
            *(n for s in self.scopes for n in s),
            "players",
            "turn",
            *plurals,
            *g.enums,
            *g.globals,
            *g.constants,
            *seats,
            *g.cards,
            *(i for ids in (sc.records.values() if sc else ()) for i in ids),
        ]
        self.error("unknown-name", f"unknown name {e.id!r}", e, did_you_mean(e.id, known))
        return ir.ANY

    def attr(self, e: Attr) -> ir.Type:
        ot = self.expr(e.obj)
        g = self.game
        member: ir.Field | None = None
        candidates: list[str] = []
        if ot.kind == "player":
            member = g.player_fields.get(e.name)
            if e.name in ("id", "name") and member is None:
                member = ir.Field(e.name, ir.STR, g.origin, const=True)
            candidates = [*g.player_fields, "id", "name"]
        elif ot.kind == "entity":
            et = g.entities[ot.name]
            member = et.member(e.name)
            if e.name in ("id", "name") and member is None:
                member = ir.Field(e.name, ir.STR, et.origin, const=True)
            candidates = [*et.attributes, *et.fields, "id", "name"]
        elif ot.kind == "card":
            member = g.card_attributes.get(e.name)
            if e.name in ("id", "name") and member is None:
                member = ir.Field(e.name, ir.STR, g.origin, const=True)
            candidates = [*g.card_attributes, "id", "name"]
        elif ot.kind == "result":
            if e.name == "value":
                return self.result_value_type(ot.name)
            if e.name in RESULT_FIELDS:
                return RESULT_FIELDS[e.name]
            if e.name in ROLLED_FIELDS and ot.elem is not None:
                return ROLLED_FIELDS[e.name]
            known = [*RESULT_FIELDS, "value", *(ROLLED_FIELDS if ot.elem is not None else ())]
            hint = did_you_mean(e.name, known) or "fields: " + ", ".join(known)
            if e.name in ROLLED_FIELDS:
                hint = "only a result of resolve() has a roll and a column"
            self.error(
                "unknown-name",
                f"a table result has no field {e.name!r}",
                e.src.pos(e.name_off),
                hint,
            )
            return ir.ANY
        elif ot == ir.ANY:
            b = self.lookup(e.obj.id) if isinstance(e.obj, Name) else None
            if b is not None and b.of_empty:
                self.error(
                    "type",
                    f"the type of {e.obj.id!r} is not known here, "
                    f"so {e.name!r} cannot be looked up",
                    e.obj,
                    "a list started as [] takes the type of the first list assigned to it "
                    "(`xs = xs + [p]`); use it after that assignment, or start it with a "
                    "value of its type",
                )
            return ir.ANY
        else:
            self.error("type", f"{article(ot)} has no attributes", e.obj)
            return ir.ANY
        if member is None:
            self.error(
                "unknown-name",
                f"{ot} has no field {e.name!r}",
                e.src.pos(e.name_off),
                did_you_mean(e.name, candidates) or "fields: " + ", ".join(sorted(candidates)),
            )
            return ir.ANY
        e.ref = member
        return member.type

    def call(self, c: Call, statement: bool) -> ir.Type:
        g = self.game
        r = g.routine(c.func)
        if r is not None:
            c.ref = r
            if c.kwargs:
                name = next(iter(c.kwargs))
                self.error("arity", f"{c.func}() takes no argument {name}=", c.kwargs[name])
            if r.kind == "procedure" and not statement:
                self.error(
                    "decision",
                    f"procedure {c.func!r} can only be called on its own line",
                    c,
                    "procedures change the game; functions compute values",
                )
            if r.kind == "procedure":
                called = lasting_call_name(c.func)
                self.no_effects(c, called if called != c.func else f"call procedure {c.func!r}")
            self.arity(c, len(r.params))
            called = lasting_call_name(c.func)
            for arg, (pname, pt) in zip(c.args, r.params, strict=False):
                self.expect(arg, self.expr(arg), pt, f"argument {pname!r} of {called!r}")
            return r.returns
        if c.func not in BUILTINS:
            self.error(
                "unknown-name",
                f"unknown function {c.func!r}",
                c,
                did_you_mean(c.func, [*g.functions, *BUILTINS]),
            )
            for a in c.args:
                self.expr(a)
            return ir.ANY
        b = BUILTINS[c.func]
        c.ref = b
        extra = [] if b.open_kwargs else [k for k in c.kwargs if k not in b.kwargs]
        if extra:
            takes = tuple(b.kwargs)
            self.error(
                "arity",
                f"{c.func}() takes no argument {extra[0]}=",
                c.kwargs[extra[0]],
                f"{c.func}() takes {'=, '.join(takes)}=" if takes else None,
            )
        if b.statement and not statement:
            what = "asks for a decision" if c.func in DECISIONS else "changes the game"
            self.error(
                "decision",
                f"{c.func}() {what}; call it on its own line",
                c,
                f"for example: let x = {c.func}(...)" if c.func in DECISIONS else None,
            )
        if b.statement:
            self.no_effects(c, f"call {c.func}()")
        return b.check(self, c)

    def arity(self, c: Call, n: int, most: int | None = None) -> bool:
        most = n if most is None else most
        if not n <= len(c.args) <= most:
            want = str(n) if n == most else f"{n} to {most}"
            self.error(
                "arity",
                f"{c.func}() takes {want} argument{'s' if most != 1 else ''}, not {len(c.args)}",
                c,
            )
            for a in c.args:
                self.expr(a)
            return False
        return True

    def args(self, c: Call, *types: ir.Type) -> list[ir.Type]:
        if not self.arity(c, len(types)):
            return [ir.ANY] * len(types)
        out = []
        for i, (a, t) in enumerate(zip(c.args, types, strict=True)):
            got = self.expr(a)
            self.expect(a, got, t, f"argument {i + 1} of {c.func}()")
            out.append(got)
        return out

    def result_value_type(self, tid: str) -> ir.Type:
        if not tid:
            return ir.STR
        values = [cell.value for cell in self.game.tables[tid].cells() if not cell.gap]
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return ir.INT
        return ir.STR

    def prompt_arg(self, c: Call, i: int) -> None:
        """Argument ``i`` of a decision (its prompt) is a text in quotes."""
        if len(c.args) > i and not isinstance(c.args[i], Str):
            self.error("type", f"argument {i + 1} of {c.func}() is a text in quotes", c.args[i])

    def option_type(self, c: Call, opts: ir.Type) -> ir.Type:
        """The type of one option of a decision over the list ``opts`` (argument 2)."""
        elem = opts.elem if opts.kind == "list" and opts.elem is not None else ir.ANY
        if elem.kind not in ("player", "card", "entity", "enum", "any"):
            self.error(
                "type",
                f"options to choose from are players, cards, entities or enum values, not {elem}",
                c.args[1],
            )
        return elem

    # -- which routines wait for decisions

    def find_suspending(self) -> None:
        g = self.game
        block_kinds = ("card", "phase", "main")
        for r in g.routines():
            r.suspends = r.kind in block_kinds
        changed = True
        while changed:
            changed = False
            for r in g.routines():
                if r.suspends:
                    continue
                for node in walk(r.body):
                    if isinstance(node, (Simultaneously, AtOnce)) or (
                        isinstance(node, Call)
                        and (
                            _stops(node.func)
                            or (isinstance(node.ref, ir.Routine) and node.ref.suspends)
                        )
                    ):
                        r.suspends = True
                        changed = True
                        break


def _may_finish(stmts: list[Stmt]) -> bool:
    """Whether running ``stmts`` can reach their end (and so go on after them). A loop may
    run no time at all, except ``while true`` without a ``break`` of its own."""
    return all(_may_go_on(s) for s in stmts)


def _may_go_on(s: Stmt) -> bool:
    if isinstance(s, Return):
        return False
    if isinstance(s, If):  # and match
        return any(_may_finish(body) for _cond, body in s.branches) or _may_finish(s.orelse)
    if isinstance(s, While) and isinstance(s.cond, Bool) and s.cond.value:
        return breaks(s.body)
    return True


def _waits(func: str) -> bool:
    """Whether a call of ``func`` may wait (a decision, a card played)."""
    return func in BUILTINS and BUILTINS[func].waits != ""


def _stops(func: str) -> bool:
    return func in BUILTINS and BUILTINS[func].stops


def check_game(game: ir.Game, sink: DiagnosticSink) -> None:
    """Type-check every routine of the game and the values of every scenario."""
    Checker(game, sink).check()
