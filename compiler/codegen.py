"""Generate a Python engine from the checked model of a game.

Routines that never wait for a decision become plain Python functions.  Routines that may
wait (card effects, flow steps, procedures that ask) are lowered into *blocks*: straight-line
Python functions ``block(S, F)`` that end by jumping (``F[0] = next``), calling another
routine, returning, or asking for a decision.  Their locals live in the frame (``F[1]``), so
the position of the machine is part of the game state and a game can be saved, restored and
cloned at any decision.

Nothing from the YAML reaches the code unescaped: names become prefixed identifiers checked
by the schemas and the checker (``v_name``, ``f_name``, ``L["name"]``) and every string or
value goes through ``repr``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from . import ir
from .checker import BUILTINS, DECISIONS
from .effects import (
    Assign,
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
    Move,
    MoveAll,
    Name,
    Neg,
    NoneLit,
    Not,
    Pass,
    Return,
    Simultaneously,
    Stmt,
    Str,
    Ternary,
    While,
    walk,
)

VISIBILITY_RANK = {"none": 0, "owner": 1, "all": 2}
# Builtins that stop the current block: decisions, calls into blocks, the end of the game.
STOPPING = DECISIONS | {"play", "end_game"}


class CodegenError(Exception):
    """An internal inconsistency; the checker should have reported the problem first."""


# ---------------------------------------------------------------------------- expressions


class ExprGen:
    """Compiles expressions to Python source text."""

    def __init__(self, game: ir.Game, block_mode: bool):
        self.game = game
        self.block_mode = block_mode
        self.comp_vars: list[set[str]] = []
        self.tmp = 0

    def local(self, name: str) -> str:
        for scope in reversed(self.comp_vars):
            if name in scope:
                return f"v_{name}"
        return f'L["{name}"]' if self.block_mode else f"v_{name}"

    def expr(self, e: Expr) -> str:
        m = getattr(self, "e_" + type(e).__name__)
        return m(e)

    def e_Int(self, e: Int) -> str:
        return repr(e.value)

    def e_Bool(self, e: Bool) -> str:
        return "True" if e.value else "False"

    def e_NoneLit(self, e: NoneLit) -> str:
        return "None"

    def e_Str(self, e: Str) -> str:
        if e.is_plain:
            return repr(e.plain)
        parts = [repr(p) if isinstance(p, str) else self.text(p) for p in e.parts]
        return '"".join((' + ", ".join(parts) + ",))"

    def text(self, e: Expr) -> str:
        """Python text of a value rendered for people (names, not indices)."""
        return text_of(self.expr(e), e.ty)

    def e_Name(self, e: Name) -> str:
        ref = e.ref
        kind = ref[0]
        if kind == "local":
            return self.local(e.id)
        if kind == "players":
            return 'list(range(len(S["p"])))'
        if kind == "all":
            return f'list(range(len(S["e"][{ref[1]!r}])))'
        if kind == "enum":
            return f"E_{ref[1].upper()}"
        if kind == "global":
            return f'S["g"][{e.id!r}]'
        if kind == "const":
            return f'S["c"][{e.id!r}]'
        if kind == "self":
            return f"r[{e.id!r}]"
        if kind in ("seat", "card"):
            return repr(ref[1])
        if kind == "record":
            return repr(ref[2])
        raise CodegenError(f"unresolved name {e.id!r}")

    def e_Attr(self, e: Attr) -> str:
        obj = self.expr(e.obj)
        t = e.obj.ty
        if t.kind == "player":
            return f'S["p"][{obj}][{e.name!r}]'
        if t.kind == "entity":
            return f'S["e"][{t.name!r}][{obj}][{e.name!r}]'
        if t.kind == "card":
            return f"CARD_{e.name.upper()}[{obj}]"
        raise CodegenError(f"attribute of {t}")

    def e_ListLit(self, e: ListLit) -> str:
        return "[" + ", ".join(self.expr(i) for i in e.items) + "]"

    def iterable(self, e: Expr) -> str:
        """An expression only iterated over: the list of all players or records is a range."""
        if isinstance(e, Name) and e.ref is not None and e.ref[0] == "players":
            return 'range(len(S["p"]))'
        if isinstance(e, Name) and e.ref is not None and e.ref[0] == "all":
            return f'range(len(S["e"][{e.ref[1]!r}]))'
        return self.expr(e)

    def e_Comp(self, e: Comp) -> str:
        it = self.iterable(e.iter)
        self.comp_vars.append({e.var})
        elt = self.expr(e.elt)
        cond = f" if {self.expr(e.cond)}" if e.cond is not None else ""
        self.comp_vars.pop()
        return f"[{elt} for v_{e.var} in {it}{cond}]"

    def e_BinOp(self, e: BinOp) -> str:
        return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"

    def e_Compare(self, e: Compare) -> str:
        test = self.emptiness(e)
        if test is not None:
            return test
        op = e.op
        if isinstance(e.right, NoneLit) or isinstance(e.left, NoneLit):
            op = {"==": "is", "!=": "is not"}[op]
        return f"({self.expr(e.left)} {op} {self.expr(e.right)})"

    def emptiness(self, e: Compare) -> str | None:
        """``count([... if c]) > 0`` as ``any(c for ...)``: no list is built."""
        left, right = e.left, e.right
        if not (isinstance(right, Int) and right.value == 0 and e.op in (">", "!=", "==")):
            return None
        if not (isinstance(left, Call) and left.func == "count" and len(left.args) == 1):
            return None
        comp = left.args[0]
        if not isinstance(comp, Comp):
            return None
        it = self.iterable(comp.iter)
        self.comp_vars.append({comp.var})
        cond = self.expr(comp.cond) if comp.cond is not None else "True"
        self.comp_vars.pop()
        test = f"any({cond} for v_{comp.var} in {it})"
        return f"(not {test})" if e.op == "==" else test

    def e_In(self, e: In) -> str:
        op = "not in" if e.negate else "in"
        return f"({self.expr(e.item)} {op} {self.expr(e.coll)})"

    def e_BoolOp(self, e: BoolOp) -> str:
        return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"

    def e_Not(self, e: Not) -> str:
        return f"(not {self.expr(e.operand)})"

    def e_Neg(self, e: Neg) -> str:
        return f"(-{self.expr(e.operand)})"

    def e_Ternary(self, e: Ternary) -> str:
        return f"({self.expr(e.then)} if {self.expr(e.cond)} else {self.expr(e.orelse)})"

    def e_Call(self, e: Call) -> str:
        args = [self.expr(a) for a in e.args]
        if isinstance(e.ref, ir.Routine):
            return f"f_{e.func}(S, {', '.join(args)})" if args else f"f_{e.func}(S)"
        f = e.func
        if f == "count":
            return f"len({args[0]})"
        if f in ("sum", "abs"):
            return f"{f}({args[0]})"
        if f in ("min", "max"):
            return f"{f}({', '.join(args)})"
        if f == "div_down":
            return f"({args[0]} // {args[1]})"
        if f == "div_up":
            return f"(-(-{args[0]} // {args[1]}))"
        if f == "first":
            return f"{args[0]}[0]"
        if f == "roll":
            return f"roll(S, {args[0]})"
        if f == "playable":
            return f"CARD_PLAYABLE[{args[0]}](S, {args[1]})"
        if f == "lookup":
            tid = e.args[0].plain  # type: ignore[attr-defined]
            return f"_lookup({tid!r}, TABLE_{tid.upper()}, {args[1]})"
        raise CodegenError(f"{f}() is not an expression")


def text_of(code: str, t: ir.Type) -> str:
    """Python text turning the value ``code`` of type ``t`` into words for the log."""
    if t.kind == "player":
        return f"_name_player(S, {code})"
    if t.kind == "entity":
        return f"_name_{t.name}(S, {code})"
    if t.kind == "card":
        return f"_name_card({code})"
    if t.kind in ("str", "enum"):
        return f"str({code})"
    if t.kind == "bool":
        return f'("yes" if {code} else "no")'
    if t.kind == "list":
        assert t.elem is not None
        return f'", ".join([{text_of("_x", t.elem)} for _x in {code}])'
    return f"str({code})"


# ---------------------------------------------------------------------------- statements


@dataclass
class Block:
    index: int
    origin: str
    lines: list[str] = field(default_factory=list)
    closed: bool = False

    @property
    def uses_locals(self) -> bool:
        return any("L[" in line for line in self.lines)


def contains_stop(node: Any) -> bool:
    """Whether the statement(s) may stop the current block (decision, call into blocks, end)."""
    for n in walk(node):
        if isinstance(n, Simultaneously):
            return True
        if isinstance(n, Call):
            if n.func in STOPPING:
                return True
            if isinstance(n.ref, ir.Routine) and n.ref.suspends:
                return True
    return False


class RoutineGen:
    """Compiles one routine: to a plain function, or to blocks."""

    def __init__(self, mod: ModuleGen, routine: ir.Routine):
        self.mod = mod
        self.game = mod.game
        self.r = routine
        self.blocks: list[Block] = []
        self.cur: Block | None = None
        self.eg = ExprGen(self.game, block_mode=routine.suspends)
        self.counter = 0
        # loop stack: ("py",) for loops emitted as Python, ("block", head, after) when lowered
        self.loops: list[tuple] = []

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"_{stem}{self.counter}"

    # -- shared statement emission (structured Python)

    def emit(self, lines: list[str], indent: int, text: str) -> None:
        lines.append("    " * indent + text)

    def zone(self, z: Expr) -> tuple[str, ir.Field]:
        assert isinstance(z, Attr) and isinstance(z.ref, ir.Field)
        return self.eg.expr(z), z.ref

    def reveals(self, src: ir.Field, dst: ir.Field) -> bool:
        return VISIBILITY_RANK[dst.visible] > VISIBILITY_RANK[src.visible]

    def store(self, lines: list[str], ind: int, target: Expr, value: str, aug: str | None) -> None:
        """Assign ``value`` (or add/subtract it) to a variable or field, clamping to bounds."""
        eg = self.eg
        if isinstance(target, Name):
            ref = target.ref
            if ref[0] == "local":
                dst = eg.local(target.id)
                f = None
                rec = None
            else:  # a global field
                f = ref[1]
                rec = 'S["g"]'
                dst = f"{rec}[{target.id!r}]"
        else:
            assert isinstance(target, Attr) and isinstance(target.ref, ir.Field)
            f = target.ref
            t = target.obj.ty
            obj = eg.expr(target.obj)
            rec = self.fresh("r")
            if t.kind == "player":
                self.emit(lines, ind, f'{rec} = S["p"][{obj}]')
            else:
                self.emit(lines, ind, f'{rec} = S["e"][{t.name!r}][{obj}]')
            dst = f"{rec}[{target.name!r}]"
        if aug is not None:
            value = f"{dst} {aug} {value}"
        if f is not None and f.type == ir.INT:
            lo = bound(f.min, rec)
            hi = bound(f.max, rec)
            if lo is not None and hi is not None:
                value = f"min(max({value}, {lo}), {hi})"
            elif lo is not None:
                value = f"max({value}, {lo})"
            elif hi is not None:
                value = f"min({value}, {hi})"
        self.emit(lines, ind, f"{dst} = {value}")

    def simple(self, s: Stmt, lines: list[str], ind: int) -> None:
        """Emit a statement that does not stop the block, as structured Python."""
        eg = self.eg
        if isinstance(s, Let):
            self.emit(lines, ind, f"{eg.local(s.name)} = {self.value(s.value)}")
        elif isinstance(s, Assign):
            self.store(lines, ind, s.target, self.value(s.value), None)
        elif isinstance(s, AugAssign):
            self.store(lines, ind, s.target, eg.expr(s.value), s.op[0])
        elif isinstance(s, Move):
            src, sf = self.zone(s.src_zone)
            dst, df = self.zone(s.dst_zone)
            item = self.fresh("c")
            self.emit(lines, ind, f"{item} = {eg.expr(s.item)}")
            self.emit(lines, ind, f"{src}.remove({item})")
            self.emit(lines, ind, f"{dst}.append({item})")
            if self.reveals(sf, df):
                self.emit(lines, ind, "reveal(S)")
        elif isinstance(s, MoveAll):
            src, sf = self.zone(s.src_zone)
            dst, df = self.zone(s.dst_zone)
            z = self.fresh("z")
            self.emit(lines, ind, f"{z} = {src}")
            if self.reveals(sf, df):
                self.emit(lines, ind, f"if {z}:")
                self.emit(lines, ind + 1, "reveal(S)")
            self.emit(lines, ind, f"{dst}.extend({z})")
            self.emit(lines, ind, f"{z}.clear()")
        elif isinstance(s, Log):
            text = eg.expr(s.text)
            if s.audience is None:
                self.emit(lines, ind, f'S["log"].append([{text}, None])')
            else:
                aud = eg.expr(s.audience)
                if s.audience.ty == ir.PLAYER:
                    aud = f"[{aud}]"
                self.emit(lines, ind, f'S["log"].append([{text}, {aud}])')
        elif isinstance(s, Return):
            self.ret(s, lines, ind)
        elif isinstance(s, Break):
            if self.loops and self.loops[-1][0] == "block":
                self.emit(lines, ind, f"F[0] = {self.loops[-1][2]}")
                self.emit(lines, ind, "return")
            else:
                self.emit(lines, ind, "break")
        elif isinstance(s, Pass):
            self.emit(lines, ind, "pass")
        elif isinstance(s, ExprStmt):
            c = s.expr
            assert isinstance(c, Call)
            if c.func == "next_turn":
                self.emit(lines, ind, 'S["turn"] += 1')
                self.emit(lines, ind, 'S["log"].append(["Turn " + str(S["turn"]), None])')
            else:
                self.emit(lines, ind, self.value(c))
        elif isinstance(s, If):
            for i, (cond, body) in enumerate(s.branches):
                kw = "if" if i == 0 else "elif"
                self.emit(lines, ind, f"{kw} {eg.expr(cond)}:")
                self.simple_body(body, lines, ind + 1)
            if s.orelse:
                self.emit(lines, ind, "else:")
                self.simple_body(s.orelse, lines, ind + 1)
        elif isinstance(s, For):
            if self.r.suspends:
                v = self.fresh("v")
                self.emit(lines, ind, f"for {v} in {eg.iterable(s.iter)}:")
                self.emit(lines, ind + 1, f"{eg.local(s.var)} = {v}")
            else:
                self.emit(lines, ind, f"for {eg.local(s.var)} in {eg.iterable(s.iter)}:")
            self.loops.append(("py",))
            self.simple_body(s.body, lines, ind + 1)
            self.loops.pop()
        elif isinstance(s, While):
            self.emit(lines, ind, f"while {eg.expr(s.cond)}:")
            self.loops.append(("py",))
            self.simple_body(s.body, lines, ind + 1)
            self.loops.pop()
        else:
            raise CodegenError(f"cannot emit {type(s).__name__} here")

    def simple_body(self, body: list[Stmt], lines: list[str], ind: int) -> None:
        if not body:
            self.emit(lines, ind, "pass")
        for s in body:
            self.simple(s, lines, ind)

    def value(self, e: Expr) -> str:
        """An expression in statement position: may call procedures that do not stop."""
        if isinstance(e, Call) and isinstance(e.ref, ir.Routine):
            args = ", ".join(["S", *(self.eg.expr(a) for a in e.args)])
            return f"f_{e.func}({args})"
        return self.eg.expr(e)

    def ret(self, s: Return, lines: list[str], ind: int) -> None:
        value = self.eg.expr(s.value) if s.value is not None else None
        if self.r.suspends:
            if value is not None:
                self.emit(lines, ind, f'S["ret"] = {value}')
            self.emit(lines, ind, 'S["stack"].pop()')
            self.emit(lines, ind, "return")
        else:
            self.emit(lines, ind, f"return {value}" if value is not None else "return")

    # -- plain functions

    def function(self) -> str:
        params = ", ".join(["S", *(f"v_{p}" for p, _ in self.r.params)])
        lines = [f"def f_{self.r.name}({params}):"]
        doc = self.r.origin.doc or self.r.name
        lines.append(f"    {doc_literal(doc, self.r.origin)}")
        self.simple_body(self.r.body, lines, 1)
        if self.r.returns.kind != "void":
            lines.append(
                f"    raise RulesError({f'{self.r.name} ended without a value'!r}, "
                f"{str(self.r.origin.pos)!r})"
            )
        return "\n".join(lines)

    # -- block routines

    def new_block(self, origin: ir.Origin | Stmt | None = None) -> Block:
        pos = origin.pos if origin is not None else self.r.origin.pos
        b = self.mod.new_block(str(pos), self.r)
        self.blocks.append(b)
        return b

    def jump(self, target: int) -> None:
        assert self.cur is not None
        if not self.cur.closed:
            self.cur.lines.append(f"    F[0] = {target}")
            self.cur.closed = True

    def lower(self) -> int:
        """Lower the routine into blocks; returns the entry block index."""
        entry = self.new_block(self.r.origin)
        self.cur = entry
        self.lower_body(self.r.body)
        if not self.cur.closed:
            self.cur.lines.append('    S["stack"].pop()')
            self.cur.closed = True
        return entry.index

    def lower_body(self, body: list[Stmt]) -> None:
        for s in body:
            if self.cur is None or self.cur.closed:
                # Unreachable code after return/break: give it a block of its own anyway.
                self.cur = self.new_block(s)
            self.lower_stmt(s)

    def lower_stmt(self, s: Stmt) -> None:
        assert self.cur is not None
        if not contains_stop(s):
            self.simple(s, self.cur.lines, 1)
            if isinstance(s, (Return,)) or (
                isinstance(s, Break) and self.loops and self.loops[-1][0] == "block"
            ):
                self.cur.closed = True
            return
        if isinstance(s, (Let, Assign)) and isinstance(s.value, Call):
            target = s.name if isinstance(s, Let) else None
            self.lower_call(s.value, s, target, s)
        elif isinstance(s, ExprStmt) and isinstance(s.expr, Call):
            self.lower_call(s.expr, s, None, None)
        elif isinstance(s, If):
            self.lower_if(s)
        elif isinstance(s, While):
            self.lower_while(s)
        elif isinstance(s, For):
            self.lower_for(s)
        elif isinstance(s, Simultaneously):
            self.lower_simultaneously(s)
        else:
            raise CodegenError(f"cannot lower {type(s).__name__}")

    def assign_answer(self, block: Block, s: Stmt | None, source: str) -> None:
        """In ``block``, store the decision's answer (``source``) into the let/assign target."""
        if s is None:
            return
        if isinstance(s, Let):
            block.lines.append(f"    {self.eg.local(s.name)} = {source}")
        else:
            assert isinstance(s, Assign)
            self.store(block.lines, 1, s.target, source, None)

    def ask_blocks(self, s: Stmt) -> tuple[Block, Block]:
        """The block that asks (a block of its own: determinization re-enters it to rebuild
        the options) and the block that goes on with the answer."""
        assert self.cur is not None
        ask_block = self.cur if not self.cur.lines else self.new_block(s)
        if ask_block is not self.cur:
            self.jump(ask_block.index)
        return ask_block, self.new_block(s)

    def options(self, c: Call, lines: list[str], indent: str) -> tuple[str, str]:
        """Emit ``_o = <the options of decision c>``; returns its kind and prompt code."""
        eg = self.eg
        if c.func == "choose_yes_no":
            lines.append(indent + '_o = [["yes", "Yes", True], ["no", "No", False]]')
            return "yes-no", eg.expr(c.args[1])
        if c.func == "choose_number":
            lo, hi = eg.expr(c.args[1]), eg.expr(c.args[2])
            lines.append(
                f'{indent}_o = [["number:" + str(n), str(n), n] for n in range({lo}, {hi} + 1)]'
            )
            return "choose-number", eg.expr(c.args[3])
        elem = c.args[1].ty.elem
        lines.append(f"{indent}_o = {options_fn(elem)}(S, {eg.expr(c.args[1])})")
        if c.func == "choose_optional":
            lines.append(f'{indent}_o.append(["none", {eg.expr(c.args[3])}, None])')
        return f"choose-{type_word(elem)}", eg.expr(c.args[2])

    def lower_call(self, c: Call, s: Stmt, target: str | None, assign: Stmt | None) -> None:
        eg = self.eg
        if c.func in DECISIONS:
            ask_block, resume = self.ask_blocks(s)
            lines = ask_block.lines
            player = eg.expr(c.args[0])
            kind, prompt = self.options(c, lines, "    ")
            lines.append(f"    ask(S, F, {player}, {kind!r}, {prompt}, _o, {resume.index})")
            ask_block.closed = True
            self.cur = resume
            self.assign_answer(resume, assign, 'S["answer"]')
            return
        if c.func == "end_game":
            winners = eg.expr(c.args[0])
            reason = eg.expr(c.args[1])
            w = self.fresh("w")
            self.cur.lines.append(f"    {w} = {winners}")
            self.cur.lines.append(f"    finish(S, {w}, len({w}) != 1, {reason})")
            self.cur.closed = True
            self.cur = self.new_block(s)
            return
        cont = self.new_block(s)
        if c.func == "play":
            card, player = eg.expr(c.args[0]), eg.expr(c.args[1])
            self.cur.lines.append(
                f'    call(S, F, CARD_ENTRY[{card}], {{"me": {player}}}, {cont.index})'
            )
        else:
            r = c.ref
            assert isinstance(r, ir.Routine)
            local = ", ".join(
                f'"{p}": {eg.expr(a)}' for (p, _), a in zip(r.params, c.args, strict=True)
            )
            entry = self.mod.entry_name(r)
            self.cur.lines.append(f"    F[0] = {cont.index}")
            self.cur.lines.append(f'    S["stack"].append([{entry}, {{{local}}}])')
        self.cur.closed = True
        self.cur = cont
        self.assign_answer(cont, assign, 'S["ret"]')

    def lower_if(self, s: If) -> None:
        eg = self.eg
        head = self.cur
        after = self.new_block(s)
        targets: list[tuple[str, list[Stmt]]] = []
        for i, (cond, body) in enumerate(s.branches):
            kw = "if" if i == 0 else "elif"
            b = self.new_block(body[0] if body else s)
            head.lines.append(f"    {kw} {eg.expr(cond)}:")
            head.lines.append(f"        F[0] = {b.index}")
            targets.append((str(b.index), body))
            self.cur = b
            self.lower_body(body)
            if not self.cur.closed:
                self.jump(after.index)
        head.lines.append("    else:")
        if s.orelse:
            b = self.new_block(s.orelse[0])
            head.lines.append(f"        F[0] = {b.index}")
            self.cur = b
            self.lower_body(s.orelse)
            if not self.cur.closed:
                self.jump(after.index)
        else:
            head.lines.append(f"        F[0] = {after.index}")
        head.closed = True
        self.cur = after

    def lower_while(self, s: While) -> None:
        test = self.eg.expr(s.cond)
        self.lower_loop(
            s, s.body, lambda body, after: [f"    F[0] = {body} if {test} else {after}"]
        )

    def lower_for(self, s: For) -> None:
        it, i = self.fresh("it"), self.fresh("i")
        assert self.cur is not None
        self.cur.lines.append(f'    L["{it}"] = list({self.eg.expr(s.iter)})')
        self.cur.lines.append(f'    L["{i}"] = 0')
        var = self.eg.local(s.var)
        self.lower_loop(
            s,
            s.body,
            lambda body, after: [
                f'    if L["{i}"] < len(L["{it}"]):',
                f'        {var} = L["{it}"][L["{i}"]]',
                f'        L["{i}"] += 1',
                f"        F[0] = {body}",
                "    else:",
                f"        F[0] = {after}",
            ],
        )

    def lower_loop(self, s: Stmt, stmts: list[Stmt], head_lines: Any) -> None:
        """A loop that may wait inside: a head block (``head_lines(body, after)`` picks the
        next block), the body ending with a jump back to the head, and the block after."""
        head = self.new_block(s)
        self.jump(head.index)
        body = self.new_block(stmts[0] if stmts else s)
        after = self.new_block(s)
        head.lines += head_lines(body.index, after.index)
        head.closed = True
        self.loops.append(("block", head.index, after.index))
        self.cur = body
        self.lower_body(stmts)
        if not self.cur.closed:
            self.jump(head.index)
        self.loops.pop()
        self.cur = after

    def lower_simultaneously(self, s: Simultaneously) -> None:
        eg = self.eg
        first = s.body[0]
        assert isinstance(first, Let) and isinstance(first.value, Call)
        c = first.value
        ask_block, resume = self.ask_blocks(s)
        var = eg.local(s.var)
        lines = ask_block.lines
        lines.append("    _d = []")
        lines.append(f"    for _v in {eg.expr(s.iter)}:")
        lines.append(f"        {var} = _v")
        kind, prompt = self.options(c, lines, "        ")
        lines.append(f"        _d.append(({var}, {kind!r}, {prompt}, _o))")
        lines.append(f"    ask_all(S, F, _d, {resume.index})")
        ask_block.closed = True
        resume.lines.append('    _a = S["answers"]')
        resume.lines.append(f"    for _v in {eg.expr(s.iter)}:")
        resume.lines.append(f"        {var} = _v")
        resume.lines.append(f"        {eg.local(first.name)} = _a[str(_v)]")
        self.loops.append(("py",))
        for b in s.body[1:]:
            self.simple(b, resume.lines, 2)
        self.loops.pop()
        self.cur = resume


def bound(b: int | str | None, rec: str | None) -> str | None:
    if b is None:
        return None
    if isinstance(b, int):
        return repr(b)
    if rec is None:
        raise CodegenError(f"bound {b!r} needs a record")
    return f"{rec}[{b!r}]"


def type_word(t: ir.Type | None) -> str:
    if t is None:
        return "any"
    if t.kind in ("entity", "enum"):
        return t.name
    return t.kind


def options_fn(t: ir.Type | None) -> str:
    return f"_options_{type_word(t)}"


def doc_literal(doc: str, origin: ir.Origin) -> str:
    text = " ".join(doc.split())
    where = f"{origin.pos}"
    rules = f" ({', '.join(origin.rules)})" if origin.rules else ""
    return repr(f"{text}{rules} [{where}]")


# ---------------------------------------------------------------------------- module


JUMP = re.compile(r"^( *)F\[0\] = (\d+)$")


def chain_forward_jumps(blocks: list[Block]) -> None:
    """A jump to a later block that ends its block calls that block directly.

    The driver would call it next anyway; calling it here saves a round through the driver.
    Only forward jumps are chained, so the chain is as deep as the number of blocks at most
    (loops jump backwards and go through the driver).
    """
    for b in blocks:
        out = []
        lines = b.lines
        for i, line in enumerate(lines):
            out.append(line)
            m = JUMP.match(line)
            if m is None or int(m.group(2)) <= b.index:
                continue
            indent = m.group(1)
            nxt = lines[i + 1] if i + 1 < len(lines) else None
            outer = indent[:-4] if len(indent) >= 8 else None
            ends_branch = nxt is None or (
                outer is not None and (nxt == outer + "else:" or nxt.startswith(outer + "elif "))
            )
            if ends_branch:
                out.append(f"{indent}_b{m.group(2)}(S, F)")
        b.lines = out


class ModuleGen:
    def __init__(self, game: ir.Game):
        self.game = game
        self.blocks: list[Block] = []
        self.entries: dict[str, int] = {}

    def new_block(self, origin: str, routine: ir.Routine) -> Block:
        b = Block(len(self.blocks), origin)
        self.blocks.append(b)
        return b

    def entry_name(self, r: ir.Routine) -> str:
        return f"ENTRY_{r.name.upper()}"

    def generate(self) -> dict[str, Any]:
        g = self.game
        functions = []
        block_routines = []
        for r in g.routines():
            if r.suspends:
                block_routines.append(r)
            else:
                functions.append(RoutineGen(self, r).function())
        lowered = []
        for r in block_routines:
            rg = RoutineGen(self, r)
            entry = rg.lower()
            self.entries[r.name] = entry
            lowered.append((r, entry))
        chain_forward_jumps(self.blocks)
        return {
            "functions": functions,
            "blocks": self.blocks,
            "entries": [(self.entry_name(r), e, r) for r, e in lowered],
        }


def py_value(v: Any) -> str:
    """A Python literal for plain data (ints, strs, bools, None, lists, dicts)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {py_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(py_value(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + "".join(py_value(x) + ", " for x in v) + ")"
    if v is None or isinstance(v, (bool, int, str)):
        return repr(v)
    raise CodegenError(f"cannot write {type(v).__name__} as a literal")


def default_value(f: ir.Field) -> Any:
    t = f.type
    if t.kind == "int":
        return f.min if isinstance(f.min, int) else 0
    if t.kind == "bool":
        return False
    if t.kind == "list":
        return []
    return None


class StateBuilder:
    """Turns a scenario's values into the initial state (ids become indices)."""

    def __init__(self, game: ir.Game, sc: ir.Scenario):
        self.game = game
        self.sc = sc
        self.seats = [s for s, _ in sc.seats]
        self.index = {t: {rid: i for i, rid in enumerate(ids)} for t, ids in sc.records.items()}
        self.cards = {cid: c.index for cid, c in game.cards.items()}

    def convert(self, v: Any, t: ir.Type) -> Any:
        if v is None:
            return None
        if t.kind == "player":
            return self.seats.index(v)
        if t.kind == "entity":
            return self.index[t.name][v]
        if t.kind == "card":
            return self.cards[v]
        if t.kind == "list":
            assert t.elem is not None
            return [self.convert(x, t.elem) for x in v]
        if t.kind == "enum":
            return str(v)
        return v

    def record_name(self, tname: str, rid: str, given: dict[str, ir.Value]) -> str:
        """A record's given name; a seat's numbered pieces are named after the seat."""
        if "name" in given:
            return str(given["name"].value)
        if "owner" in given and "number" in given:
            seat = dict(self.sc.seats).get(given["owner"].value, given["owner"].value)
            return f"{seat} {tname} {given['number'].value}"
        return rid

    def fields(self, decl: dict[str, ir.Field], values: dict[str, ir.Value]) -> dict[str, Any]:
        out = {}
        for name, f in decl.items():
            v = values.get(name)
            out[name] = self.convert(v.value, f.type) if v is not None else default_value(f)
        return out

    def build(self) -> dict[str, Any]:
        g, sc = self.game, self.sc
        consts = {n: c.value for n, c in sorted(g.constants.items())}
        consts.update(sc.constants)
        players = []
        for seat, name in sc.seats:
            p = {"id": seat, "name": name}
            p.update(self.fields(g.player_fields, sc.player_values(seat)))
            players.append(p)
        entities = {}
        for tname, et in g.entities.items():
            recs = []
            for rid in sc.records.get(tname, []):
                given = sc.record_values(tname, rid)
                r = {"id": rid, "name": self.record_name(tname, rid, given)}
                r.update(self.fields(et.attributes, given))
                r.update(self.fields(et.fields, given))
                recs.append(r)
            entities[tname] = recs
        return {
            "c": consts,
            "g": self.fields(g.globals, sc.prefixed("g.")),
            "p": players,
            "e": entities,
            "turn": 0,
        }


def _visibility(game: ir.Game) -> dict[str, str]:
    vis = {}
    for name, f in game.globals.items():
        if f.visible != "all":
            vis[f"g.{name}"] = f.visible
    for name, f in game.player_fields.items():
        if f.visible != "all":
            vis[f"p.{name}"] = f.visible
    for tname, et in game.entities.items():
        for name, f in et.fields.items():
            if f.visible != "all":
                vis[f"e.{tname}.{name}"] = f.visible
    return vis


def _refs(game: ir.Game) -> dict[str, str]:
    """Fields holding references (players, cards, entities), for readable boards."""

    def kind(t: ir.Type) -> str | None:
        if t.kind == "list":
            return kind(t.elem) if t.elem is not None else None
        if t.kind in ("player", "card"):
            return t.kind
        if t.kind == "entity":
            return t.name
        return None

    out = {}
    fields = [(f"g.{n}", f) for n, f in game.globals.items()]
    fields += [(f"p.{n}", f) for n, f in game.player_fields.items()]
    for tname, et in game.entities.items():
        fields += [(f"e.{tname}.{n}", f) for n, f in {**et.attributes, **et.fields}.items()]
    for path, f in fields:
        k = kind(f.type)
        if k is not None:
            out[path] = k
    return out


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["py"] = py_value
    env.filters["tuple"] = tuple
    return env


def label_code(game: ir.Game, et: ir.EntityType) -> str:
    """The body expression of ``_name_<type>(S, i)`` (``r`` is the record)."""
    if et.label is None:
        return 'r["name"]'
    eg = ExprGen(game, block_mode=False)
    label = et.label
    assert isinstance(label, Str)
    parts = []
    for p in label.parts:
        if isinstance(p, str):
            parts.append(repr(p))
        else:
            parts.append(text_of(eg.expr(p), p.ty))
    return '"".join((' + ", ".join(parts) + ",))"


def table_rows(table: Any) -> tuple:
    """A range table as data for ``_lookup``: ((lo, hi, value, gap reason), ...) and clamps."""
    rows = []
    for r in table.rows:
        cell = r.cells[0]
        gap = (cell.reason or "not printed") if cell.gap else None
        rows.append((r.range.lo, r.range.hi, None if gap else cell.value, gap))
    return (tuple(rows), table.below_first == "first", table.above_last == "last")


def generate_module(game: ir.Game) -> str:
    """The source text of a scenario's engine module (before formatting: see `format_many`)."""
    mod = ModuleGen(game).generate()
    cards = sorted(game.cards.values(), key=lambda c: c.index)
    card_attrs = {
        name.upper(): tuple(c.attributes.get(name) for c in cards) for name in game.card_attributes
    }
    used_options = sorted(
        {
            type_word(n.args[1].ty.elem)
            for r in game.routines()
            for n in walk(r.body)
            if isinstance(n, Call) and n.func in ("choose", "choose_optional")
        }
    )
    scenarios = []
    for sid, sc in sorted(game.scenarios.items()):
        scenarios.append(
            {
                "id": sid,
                "title": sc.title,
                "seats": tuple(s for s, _ in sc.seats),
                "labels": tuple(n for _, n in sc.seats),
                "state": StateBuilder(game, sc).build(),
                "max_turns": sc.max_turns,
            }
        )
    looked_up = sorted(
        {
            n.args[0].plain
            for r in game.routines()
            for n in walk(r.body)
            if isinstance(n, Call) and n.func == "lookup"
        }
    )
    tables = [(tid.upper(), table_rows(game.tables[tid])) for tid in looked_up]
    playable = {}
    for c in cards:
        if c.playable is not None:
            eg = ExprGen(game, block_mode=False)
            playable[c.id] = eg.expr(c.playable)
    body_text = "\n".join(
        [*mod["functions"], *(line for b in mod["blocks"] for line in b.lines), *playable.values()]
    )
    imports = sorted(
        n
        for n in ("ask", "ask_all", "call", "finish", "log", "ret", "reveal", "roll", "RulesError")
        if n + "(" in body_text
    )
    imports = sorted(
        {*imports, "GameSpec", "ScenarioSpec", "register", *(["RulesError"] if tables else [])}
    )
    text = (
        _environment()
        .get_template("engine.py.j2")
        .render(
            game=game,
            imports=imports,
            sources=sorted(game.sources),
            enums=sorted(game.enums.values(), key=lambda e: e.name),
            cards=cards,
            card_attrs=card_attrs,
            functions=mod["functions"],
            blocks=mod["blocks"],
            entries=mod["entries"],
            main_entry=mod["entries"][-1][1] if mod["entries"] else 0,
            entities=[(et, label_code(game, et)) for et in game.entities.values()],
            options=[o for o in used_options if o not in ("any",)],
            entity_names=set(game.entities),
            enum_names={e.upper(): e for e in game.enums},
            scenarios=scenarios,
            playable=playable,
            visibility=_visibility(game),
            refs=_refs(game),
            tables=tables,
            builtins=BUILTINS,
        )
    )
    return text


RUFF = [sys.executable, "-m", "ruff", "format", "--isolated", "--line-length", "100"]


def format_python(text: str) -> str:
    """Format generated code with ruff (pinned), so it passes ``ruff format --check``."""
    return format_many({"module.py": text})["module.py"]


def format_many(texts: dict[str, str]) -> dict[str, str]:
    """Format several generated modules with one run of ruff (names are file names)."""
    with tempfile.TemporaryDirectory(prefix="rulecraft-") as tmp:
        for name, text in texts.items():
            Path(tmp, name).write_text(text, encoding="utf-8")
        proc = subprocess.run([*RUFF, tmp], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise CodegenError("generated code does not parse:\n" + proc.stderr)
        return {name: Path(tmp, name).read_text(encoding="utf-8") for name in texts}
