"""Routines of the effect language as methods of the generated engine class.

Every routine compiles to plain Python methods (``self`` is the scenario's engine object,
holding its static data; ``S`` is the state list):

``f_<name>(S, ...)``
    a function: computes a value, changes nothing.
``p_<name>(S, ...)``
    the *machine form* of a procedure, card effect or flow step that never waits: it changes
    the state and writes the log.
``r_<name>(S, F, v, ...)``
    the machine form of one that may wait for a decision. Straight-line Python between
    resume points; where it must wait it returns ``SUSPEND`` after appending its frame
    ``(routine id, resume pc, *locals)`` to ``S[UNWIND]``. The driver resumes a frame ``F``
    with ``v``, the answer or the value the routine it called returned. Only constructs
    that contain a resume point are split into arms of a ``pc`` switch.
``q_<name>(S, R, ...)``
    the *playout form*: the same rules as plain calls, every decision drawn with ``R()``
    (uniform over the options, a forced choice draws nothing) and no log.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import ir
from ..checker import DECISIONS
from ..effects import (
    Assign,
    Attr,
    AugAssign,
    Bool,
    Break,
    Call,
    Comp,
    Expr,
    ExprStmt,
    For,
    If,
    Int,
    Let,
    ListLit,
    Log,
    Move,
    MoveAll,
    Name,
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
from ..secrecy import Secrecy
from ..table_programs import routine_name
from .data import ScenarioData
from .exprs import CodegenError, ExprGen, Scope, type_kind

VISIBILITY_RANK = {"none": 0, "owner": 1, "all": 2}


# ---------------------------------------------------------------------------- tables


@dataclass
class Tables:
    """The log templates, decision sites and routine ids of a class (a scenario's engine
    class extends its parent's tables; equal entries keep their ids)."""

    templates: list[tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)
    sites: list[tuple[Any, ...]] = field(default_factory=list)
    routines: list[str] = field(default_factory=list)
    #: (routine id, resume pc) -> ((frame local, stand-in, method or None), ...): the locals
    #: that may hold a hidden value (see :mod:`..secrecy`) and how a bot's world fills them;
    #: made anew for each class, as every routine is compiled for it
    secrets: dict[tuple[int, int], tuple[tuple[int, Any, Any], ...]] = field(default_factory=dict)
    #: the decision sites whose prompt shows a secret value (hidden from the seats not asked)
    secret_prompts: set[int] = field(default_factory=set)

    @classmethod
    def new(cls) -> Tables:
        """The tables of a game's engine class: template 0 is "Turn N" (``next_turn``) and
        routine 0 is the flow of play (``r_main``)."""
        return cls([(("Turn ", ""), ("int",))], [], ["main"])

    def copy(self) -> Tables:
        return Tables(list(self.templates), list(self.sites), list(self.routines))

    def template(self, parts: tuple[str, ...], kinds: tuple[str, ...]) -> int:
        key = (parts, kinds)
        try:
            return self.templates.index(key)
        except ValueError:
            self.templates.append(key)
            return len(self.templates) - 1

    def site(self, entry: tuple[Any, ...]) -> int:
        try:
            return self.sites.index(entry)
        except ValueError:
            self.sites.append(entry)
            return len(self.sites) - 1

    def rid(self, name: str) -> int:
        if name not in self.routines:
            self.routines.append(name)
        return self.routines.index(name)


# ---------------------------------------------------------------------------- analysis


#: the argument that is a decision's prompt (``choose_optional``'s decline text follows it)
PROMPT_ARG = {
    "choose": 2,
    "choose_optional": 2,
    "choose_yes_no": 1,
    "choose_number": 3,
    "allocate": 3,
    "report": 1,
    "propose": 2,
}


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
                if isinstance(node, Simultaneously) or (
                    isinstance(node, Call)
                    and (
                        node.func in DECISIONS
                        or (node.func == "play" and cards_wait)
                        or (isinstance(node.ref, ir.Routine) and node.ref.suspends)
                    )
                ):
                    r.suspends = True
                    changed = True
                    break
    return {r.name for r in routines if r.suspends}


def stops(node: Any, game: ir.Game) -> bool:
    """Whether a statement contains a resume point (machine form)."""
    cards_wait = card_routines_suspend(game)
    for n in walk(node):
        if isinstance(n, Simultaneously):
            return True
        if isinstance(n, Call):
            if n.func in DECISIONS:
                return True
            if n.func == "play" and cards_wait:
                return True
            if isinstance(n.ref, ir.Routine) and n.ref.suspends:
                return True
    return False


#: builtins that compute a value without a die, a shuffle or a way to fail
QUIET_BUILTINS = frozenset(
    {"count", "sum", "abs", "plural", "reachable", "path_cost", "deal_parties", "promised"}
)


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
            if r.kind != "function" or r.name in seen or not _ends_in_return(r.body):
                return False
            if not quiet(r.body, seen | {r.name}):
                return False
        elif n.func in ("div_down", "div_up"):
            d = n.args[1]
            if not (isinstance(d, Int) and d.value != 0):
                return False
        elif n.func in ("min", "max"):
            if len(n.args) == 1:  # of a list, which may be empty
                return False
        elif n.func not in QUIET_BUILTINS:
            return False
    return True


def method_stem(r: ir.Routine) -> str:
    return r.name


# ---------------------------------------------------------------------------- arms


class Jump:
    """A jump to an arm, rendered once arm indices are known."""

    def __init__(self, target: Any, tail: bool) -> None:
        self.target = target
        self.tail = tail


@dataclass
class Arm:
    index: int
    lines: list[tuple[int, Any]] = field(default_factory=list)  # (indent, text | Jump)
    closed: bool = False


# ---------------------------------------------------------------------------- routines


class RoutineGen:
    """Compiles one routine of one scenario into one form.

    ``form``: ``F`` (function), ``P`` (machine, never waits), ``R`` (machine, may wait),
    ``Q`` (playout).
    """

    def __init__(self, sd: ScenarioData, tables: Tables, r: ir.Routine, form: str) -> None:
        self.sd = sd
        self.game = sd.game
        self.tables = tables
        self.r = r
        self.form = form
        self.scope = Scope()
        self.eg = ExprGen(sd, self.scope)
        self.cards_wait = card_routines_suspend(self.game)
        # machine form with resume points
        self.arms: list[Arm] = []
        self.cur: Arm | None = None
        self.loops: list[tuple[str, Any, Any]] = []  # ("py", -, -) or ("arm", head, after)
        self.tokens: dict[str, Any] = {}
        self.frame_order: list[str] = []
        self.entries: list[tuple[Any, Any]] = []  # (resume arm, ask arm or None)
        self.break_tokens: dict[str, Any] = {}
        self.live: list[set[str]] = []
        self.skipped: set[int] = set()  # arms that only jump (see thread_jumps)
        self.rid = tables.rid(r.name) if form == "R" else -1
        self.unique: set[str] | None = None
        #: secret locals defined by a pure expression: python name -> the expression's code
        self.recompute: dict[str, str] = {}
        #: the methods that compute them again for a frame (name -> code; see note_secrets)
        self.recompute_defs: dict[str, str] = {}

    # -- small helpers

    def origin(self, node: Any) -> str:
        """A marker line naming the rules position of a statement; ``module.py`` turns the
        markers into the module's ``_ORIGINS`` table after formatting."""
        return f"#@{node.pos}"

    def fresh(self, stem: str) -> str:
        return self.eg.fresh(stem)

    def expr(self, e: Expr) -> str:
        return tidy(self.eg.expr(e))

    def iterable(self, e: Expr) -> str:
        return tidy(self.eg.iterable(e))

    # ------------------------------------------------------------------ signatures

    def params(self) -> list[tuple[str, ir.Type]]:
        out = []
        for name, t in self.r.params:
            out.append((self.scope.declare(name), t))
        return out

    @staticmethod
    def annotation(t: ir.Type) -> str:
        if t == ir.INT:
            return "int"
        if t == ir.BOOL:
            return "bool"
        return "Any"

    def returns(self) -> str:
        t = self.r.returns
        if t.kind == "void":
            return "None"
        return self.annotation(t)

    # ------------------------------------------------------------------ plain forms

    def plain(self) -> str:
        """The F, P or Q form: one method with structured Python."""
        r = self.r
        prefix = {"F": "f", "P": "p", "Q": "q"}[self.form]
        params = self.params()
        args = ["self", "S: list[Any]"]
        if self.form == "Q":
            args.append("R: Any")
        args += [f"{py}: {self.annotation(t)}" for py, t in params]
        ret = self.returns()
        lines = [f"def {prefix}_{method_stem(r)}({', '.join(args)}) -> {ret}:"]
        lines.append(f"    {_doc(r)}")
        body: list[str] = []
        self.simple_body(r.body, body, 1)
        lines.extend(body)
        if r.returns.kind != "void" and not _ends_in_return(r.body):
            msg = f"{r.name} ended without a value"
            lines.append(f"    raise RulesError({msg!r}, {str(r.origin.pos)!r})")
        return _mark_unused("\n".join(lines), self.scope.declared)

    # ------------------------------------------------------------------ statements

    def simple_body(self, body: list[Stmt], out: list[str], ind: int) -> None:
        self.scope.push()
        start = len(out)
        for s in body:
            self.simple(s, out, ind)
        if _only_markers(out[start:]):
            out.append("    " * ind + "pass")
        self.scope.pop()

    def line(self, out: list[str], ind: int, text: str) -> None:
        out.append("    " * ind + text)

    def simple(self, s: Stmt, out: list[str], ind: int) -> None:
        """A statement without a resume point, as structured Python."""
        if isinstance(s, Log) and self.form in ("F", "Q") and quiet([s.text, s.audience]):
            return
        self.line(out, ind, self.origin(s))
        if isinstance(s, Let):
            if isinstance(s.value, Call) and s.value.func in DECISIONS:
                value = self.random_decision(s.value)
                py = self.scope.declare(s.name)
                self.line(out, ind, f"{py} = {value}")
                return
            value = self.value(s.value)
            py = self.scope.declare(s.name)
            self.line(out, ind, f"{py} = {value}")
            if self.form == "R" and secrecy_of(self.sd).definition(self.r.name, s.name) is s:
                self.recompute[py] = value
        elif isinstance(s, Assign):
            if isinstance(s.value, Call) and s.value.func in DECISIONS:
                self.store(out, ind, s.target, self.random_decision(s.value), None)
            else:
                self.store(out, ind, s.target, self.value(s.value), None)
        elif isinstance(s, AugAssign):
            self.store(out, ind, s.target, self.expr(s.value), s.op[0])
        elif isinstance(s, Move):
            self.move(out, ind, s)
        elif isinstance(s, MoveAll):
            self.move_all(out, ind, s)
        elif isinstance(s, Log):
            self.log(out, ind, s)
        elif isinstance(s, Return):
            result = self.expr(s.value) if s.value is not None else "None"
            self.line(out, ind, f"return {result}")
        elif isinstance(s, Break):
            if self.loops and self.loops[-1][0] == "arm":
                for text in self.break_lines():
                    self.line(out, ind, text)
            else:
                self.line(out, ind, "break")
        elif isinstance(s, Pass):
            self.line(out, ind, "pass")
        elif isinstance(s, ExprStmt):
            self.call_stmt(out, ind, s.expr)
        elif isinstance(s, If):
            for i, (cond, body) in enumerate(s.branches):
                kw = "if" if i == 0 else "elif"
                self.line(out, ind, f"{kw} {self.expr(cond)}:")
                self.simple_body(body, out, ind + 1)
            if s.orelse:
                self.line(out, ind, "else:")
                self.simple_body(s.orelse, out, ind + 1)
        elif isinstance(s, For):
            it = self.iterable(s.iter)
            self.scope.push()
            var = self.scope.declare(s.var)
            self.line(out, ind, f"for {var} in {it}:")
            self.loops.append(("py", None, None))
            self.simple_body(s.body, out, ind + 1)
            self.loops.pop()
            self.scope.pop()
        elif isinstance(s, While):
            # a bound on runaway rules: the loop's count of runs (see MAX_LOOP)
            runs = f"_runs{len(self.loops)}"
            self.line(out, ind, f"{runs} = 0")
            self.line(out, ind, f"while {self.expr(s.cond)}:")
            self.line(out, ind + 1, f"{runs} += 1")
            self.line(out, ind + 1, f"if {runs} > MAX_LOOP:")
            self.line(out, ind + 2, "_endless_loop()")
            self.loops.append(("py", None, None))
            self.simple_body(s.body, out, ind + 1)
            self.loops.pop()
        elif isinstance(s, Simultaneously):
            if self.form != "Q":
                raise CodegenError("a simultaneous decision outside the playout form")
            self.random_simultaneously(out, ind, s)
        elif isinstance(s, Reveal):
            self.reveal(out, ind, s)
        else:
            raise CodegenError(f"cannot emit {type(s).__name__}")

    def seen_slot(self, target: Expr) -> tuple[str, Any] | None:
        """The state slot of who has seen a revealable field (``<name>_seen``)."""
        if isinstance(target, Name):
            info = self.sd.slot("g", target.id + "_seen")
            return (f"S[self.o_{info.key}]", info) if info is not None else None
        assert isinstance(target, Attr)
        scope, name, etype, _f, _obj = self.eg.field_parts(target)
        info = self.sd.slot(scope, name + "_seen", etype)
        return (f"S[self.o_{info.key} + {{}}]", info) if info is not None else None

    def reveal(self, out: list[str], ind: int, s: Reveal) -> None:
        """Show a hidden value to players: add them to who has seen it."""
        found = self.seen_slot(s.target)
        if found is None:
            raise CodegenError("reveal of a field that keeps no record of who has seen it")
        code, _info = found
        if isinstance(s.target, Attr):
            obj = self.expr(s.target.obj)
            if not _simple(obj):
                tmp = self.fresh("r")
                self.line(out, ind, f"{tmp} = {obj}")
                obj = tmp
            code = code.format(obj)
        if s.audience is None:
            mask = "((1 << self.n_player) - 1)"
        elif s.audience.ty == ir.PLAYER:
            mask = f"(1 << {self.expr(s.audience)})"
        else:
            mask = f"_mask({self.iterable(s.audience)})"
        self.line(out, ind, f"{code} |= {mask}")
        self.line(out, ind, "S[_REVEALS] += 1")

    def value(self, e: Expr) -> str:
        """An expression in statement position: may call a procedure that returns a value."""
        if isinstance(e, Call) and isinstance(e.ref, ir.Routine) and e.ref.kind != "function":
            return self.call_code(e)
        return self.expr(e)

    def call_code(self, c: Call) -> str:
        """A call to a procedure (or flow step) that does not wait (or any, in a playout)."""
        r = c.ref
        assert isinstance(r, ir.Routine)
        args = [self.expr(a) for a in c.args]
        if r.suspends:
            if self.form != "Q":
                raise CodegenError(f"call to {r.name!r}, which may wait, outside a resume point")
            return f"self.q_{method_stem(r)}({', '.join(['S', 'R', *args])})"
        return f"self.p_{method_stem(r)}({', '.join(['S', *args])})"

    def call_stmt(self, out: list[str], ind: int, c: Expr) -> None:
        assert isinstance(c, Call)
        if c.func == "next_turn":
            self.line(out, ind, "self.next_turn(S)")
        elif c.func == "end_game":
            shared = c.kwargs.get("shared")
            flag = ", True" if isinstance(shared, Bool) and shared.value else ""
            self.line(
                out, ind, f"_end(S, {self.iterable(c.args[0])}, {self.expr(c.args[1])}{flag})"
            )
        elif c.func == "carry_out":
            self.line(out, ind, f"_carry_out(self, S, {self.expr(c.args[0])})")
        elif c.func == "play":
            card, player = self.expr(c.args[0]), self.expr(c.args[1])
            if self.form == "Q":
                self.line(out, ind, f"self.play_q(S, R, {card}, {player})")
            elif self.cards_wait:
                raise CodegenError("play() of a card that may wait outside a resume point")
            else:
                self.line(out, ind, f"self.card_p[{card}](S, {player})")
        elif c.func in DECISIONS:
            self.line(out, ind, self.random_decision(c))
        elif c.func == "apply":
            self.line(out, ind, self.apply_code(c))
        else:
            self.line(out, ind, self.value(c))

    def apply_code(self, c: Call) -> str:
        """Run the program of the row a table result came from (its cell, for range tables)."""
        r = self.expr(c.args[0])
        if not _simple(r):
            r = f"({r})"
        args = [self.expr(a) for a in c.args[1:]]
        rt = c.args[0].ty
        tid = rt.name if rt is not None and rt.kind == "result" else ""
        if tid:
            prog = self.sd.game.functions.get(routine_name(tid, "apply"))
            if prog is None:
                return "pass"
            return f"self.p_{prog.name}({', '.join(['S', *args, f'{r}[1]'])})"
        return f"_tcall(self, self.tprog_apply, {r}[0], None, {', '.join(['S', *args, f'{r}[1]'])})"

    # -- stores

    def store(self, out: list[str], ind: int, target: Expr, value: str, aug: str | None) -> None:
        """Assign (or add to) a local or a field; int fields clamp to their bounds."""
        if isinstance(target, Name) and target.ref is not None and target.ref[0] == "local":
            py = self.scope.get(target.id)
            self.line(out, ind, f"{py} {aug}= {value}" if aug else f"{py} = {value}")
            return
        slot = self.eg.slot_of(target)
        if slot is None:
            raise CodegenError("assignment to a field that is not in the state")
        code, info = slot
        f: ir.Field = info.field
        obj = None
        if isinstance(target, Attr):
            code, obj = self.record_slot(out, ind, target, info)
        if info.kind == "set":
            self.line(out, ind, f"{code} = _mask({value})")
            return
        if info.kind == "seq":
            self.line(out, ind, f"{code} = tuple({value})")
            return
        if f.revealable:
            seen = self.seen_slot(target)
            if seen is not None:
                self.line(out, ind, f"{seen[0].format(obj)} = 0")
        if aug is not None:
            value = f"{code} {aug} {value}"
        if f.type == ir.INT:
            lo = self.bound(f.min, info, obj)
            hi = self.bound(f.max, info, obj)
            if lo is not None and hi is not None:
                value = f"min(max({value}, {lo}), {hi})"
            elif lo is not None:
                value = f"max({value}, {lo})"
            elif hi is not None:
                value = f"min({value}, {hi})"
        self.line(out, ind, f"{code} = {value}")

    def bound(self, b: Any, info: Any, obj: str | None) -> str | None:
        if b is None:
            return None
        if isinstance(b, int):
            return repr(b)
        if obj is None:
            raise CodegenError(f"bound {b!r} needs a record")
        key = info.key.rpartition("__")[0] if info.scope == "e" else None
        if info.scope == "e":
            slot = self.sd.slot("e", b, info.etype)
            if slot is not None:
                return f"S[self.o_{slot.key} + {obj}]"
            return f"self.s_{key}__{b}[{obj}]"
        slot = self.sd.slot("p", b)
        if slot is not None:
            return f"S[self.o_{slot.key} + {obj}]"
        return f"self.s_p_{b}[{obj}]"

    # -- cards

    def zone(self, out: list[str], ind: int, z: Expr) -> tuple[str, Any]:
        slot = self.eg.slot_of(z)
        if slot is None:
            raise CodegenError("cards move between card fields of the state")
        code, info = slot
        if isinstance(z, Attr):
            code, _ = self.record_slot(out, ind, z, info)
        return code, info

    def record_slot(self, out: list[str], ind: int, target: Attr, info: Any) -> tuple[str, str]:
        """The state slot of a record's field, the record evaluated once (into a local when
        it is not a simple name): ``(S[...] code, record code)``."""
        obj = self.expr(target.obj)
        if not _simple(obj):
            tmp = self.fresh("r")
            self.line(out, ind, f"{tmp} = {obj}")
            obj = tmp
        return f"S[self.o_{info.key} + {obj}]", obj

    def reveals(self, src: Any, dst: Any) -> bool:
        return VISIBILITY_RANK[dst.field.visible] > VISIBILITY_RANK[src.field.visible]

    def move(self, out: list[str], ind: int, s: Move) -> None:
        item = self.fresh("c")
        self.line(out, ind, f"{item} = {self.expr(s.item)}")
        src, sinfo = self.zone(out, ind, s.src_zone)
        dst, dinfo = self.zone(out, ind, s.dst_zone)
        if sinfo.kind == "set":
            self.line(out, ind, f"{src} = _take({src}, {item})")
        else:
            self.line(out, ind, f"{src} = _remove({src}, {item})")
        if dinfo.kind == "set":
            self.line(out, ind, f"{dst} |= 1 << {item}")
        else:
            self.line(out, ind, f"{dst} = {dst} + ({item},)")
        if self.reveals(sinfo, dinfo):
            self.line(out, ind, "S[_REVEALS] += 1")

    def move_all(self, out: list[str], ind: int, s: MoveAll) -> None:
        src, sinfo = self.zone(out, ind, s.src_zone)
        dst, dinfo = self.zone(out, ind, s.dst_zone)
        z = self.fresh("z")
        self.line(out, ind, f"{z} = {src}")
        if self.reveals(sinfo, dinfo):
            self.line(out, ind, f"if {z}:")
            self.line(out, ind + 1, "S[_REVEALS] += 1")
        if dinfo.kind == "set":
            self.line(out, ind, f"{dst} |= {z if sinfo.kind == 'set' else f'_mask({z})'}")
        else:
            self.line(out, ind, f"{dst} = {dst} + {z if sinfo.kind == 'seq' else f'_bits({z})'}")
        self.line(out, ind, f"{src} = {0 if sinfo.kind == 'set' else '()'}")

    # -- log

    def template(self, text: Expr, extra: list[Expr] | None = None) -> tuple[int, list[str]]:
        """The template id of a text and the code of its arguments."""
        assert isinstance(text, Str)
        parts: list[str] = []
        kinds: list[str] = []
        args: list[str] = []
        buf = ""
        for p in text.parts:
            if isinstance(p, str):
                buf += p
                continue
            parts.append(buf)
            buf = ""
            kind, code = self.arg(p)
            kinds.append(kind)
            args.append(code)
        parts.append(buf)
        return self.tables.template(tuple(parts), tuple(kinds)), args

    def arg(self, e: Expr) -> tuple[str, str]:
        """How a template argument is kept in the log: its kind and the code of its value."""
        t = e.ty
        code = self.expr(e)
        if t is None:
            return "str", code
        if t.kind == "entity" and t.name in self.sd.dynamic_labels:
            return "text", f"self.label_{t.name}(S, {code})"
        if t.kind == "list":
            elem = t.elem
            if elem is not None and elem.kind == "entity" and elem.name in self.sd.dynamic_labels:
                return "list:text", f"tuple([self.label_{elem.name}(S, _x) for _x in {code}])"
            return f"list:{_kind(elem)}", f"tuple({self.iterable(e)})"
        return _kind(t), code

    def log(self, out: list[str], ind: int, s: Log) -> None:
        tid, args = self.template(s.text)
        packed = _pack(args)
        if s.audience is None:
            self.line(out, ind, f"_log(S, {tid}, {packed})")
            return
        if s.audience.ty == ir.PLAYER:
            aud = f"({self.expr(s.audience)},)"
        else:
            aud = f"tuple({self.iterable(s.audience)})"
        self.line(out, ind, f"_log_to(S, {tid}, {packed}, {aud})")

    # -- decisions drawn at random (playout form)

    def options_code(self, c: Call) -> tuple[str, str]:
        """Code of the option values of a decision (a tuple or list, no repeats) and the
        kind of option (``player``, ``card``, an entity type, ``enum:E``, ``yes-no``,
        ``number``)."""
        if c.func == "choose_yes_no":
            return "(True, False)", "yes-no"
        if c.func == "choose_number":
            lo, hi = self.expr(c.args[1]), self.expr(c.args[2])
            return f"tuple(range({lo}, {hi} + 1))", "number"
        if c.func == "report":
            return "_report_options(S, self.facts)", "report"
        if c.func == "propose":
            return f"_offers(self, S, {self.expr(c.args[0])}, {self.iterable(c.args[1])})", "offer"
        if c.func == "allocate":
            seq = c.args[2]
            elem = seq.ty.elem if seq.ty is not None else None
            kind = type_kind(elem)
            if elem is not None and elem.kind == "enum":
                kind = "enum:" + elem.name
            cap = c.kwargs.get("max_each")
            most = f", {self.expr(cap)}" if cap is not None else ""
            points = self.expr(c.args[1])
            return f"Split({points}, {self.iterable(seq)}{most})", "alloc:" + kind
        seq = c.args[1]
        elem = seq.ty.elem if seq.ty is not None else None
        code = self.iterable(seq)
        if self.unique is None:
            self.unique = unique_locals(self.r, self.sd)
        if _may_repeat(seq, self.eg, self.unique):
            code = f"_uniq({code})"
        kind = type_kind(elem)
        if elem is not None and elem.kind == "enum":
            kind = "enum:" + elem.name
        return code, kind

    def random_decision(self, c: Call) -> str:
        opts, kind = self.options_code(c)
        if c.func == "choose_yes_no":
            return "(R() < 0.5)"
        if c.func == "report":
            # a random reporter says "nothing changed" half of the time, or the game would
            # only ever report (a fact alone may have a thousand values)
            return f"_report(S, None if R() < 0.5 else _pick(R, {opts}))"
        if c.func == "choose_optional":
            return f"_pick_optional(R, {opts})"
        if c.func == "propose":
            # a random proposer passes half of the time, or a window would never close
            return f"(None if R() < 0.5 else _pick_optional(R, {opts}))"
        return f"_pick(R, {opts})"

    def random_simultaneously(self, out: list[str], ind: int, s: Simultaneously) -> None:
        first = s.body[0]
        assert isinstance(first, Let) and isinstance(first.value, Call)
        ps = self.fresh("ps")
        ans = self.fresh("ans")
        self.line(out, ind, f"{ps} = tuple({self.iterable(s.iter)})")
        self.scope.push()
        var = self.scope.declare(s.var)
        self.line(out, ind, f"{ans} = [")
        self.line(out, ind + 1, f"{self.random_decision(first.value)} for {var} in {ps}")
        self.line(out, ind, "]")
        py = self.scope.declare(first.name)
        self.loops.append(("py", None, None))
        body: list[str] = []
        for b in s.body[1:]:
            self.simple(b, body, ind + 1)
        if _only_markers(body):  # nothing left once the playout form drops the log
            self.line(body, ind + 1, "pass")
        self.loops.pop()
        self.scope.pop()
        # the comprehension above binds the player too: a body that does not read it marks
        # it unused (a leading _), or linters see a loop variable the loop never uses (B007)
        target = var if any(re.search(rf"\b{var}\b", line) for line in body) else "_" + var
        self.line(out, ind, f"for {target}, {py} in zip({ps}, {ans}, strict=True):")
        out.extend(body)

    # ------------------------------------------------------------------ machine form

    def late(self, fn: Any) -> str:
        """A token in a line, replaced by ``fn()`` once the routine is compiled."""
        token = f"\x00{len(self.tokens)}\x00"
        self.tokens[token] = fn
        return token

    def arm_index(self, ref: Arm | ArmRef) -> str:
        return self.late(lambda: str(ref.index if isinstance(ref, Arm) else ref.get().index))

    def frame(self, resume: Arm | ArmRef, ask: Arm | None = None) -> str:
        """Code of this routine's frame, resumed at ``resume`` (for a decision asked in arm
        ``ask``, also re-entered there to ask again): the locals still needed from there."""
        i = len(self.entries)
        self.entries.append((resume, ask))

        def text() -> str:
            target, ask_arm = self.entries[i]  # after jump threading
            layout = self.layout_of(target, ask_arm)
            self.note_secrets(_index(target), layout)
            return "(" + ", ".join([str(self.rid), str(_index(target)), *layout]) + ")"

        return self.late(text)

    def note_secrets(self, pc: int, layout: list[str]) -> None:
        """Record which slots of the frame resumed at ``pc`` hold secret locals, each with
        the stand-in a bot's imagined world puts there and, for a local defined by a pure
        expression of the frame's other (shown) locals, a method that computes it again
        from that world's state."""
        secret = secrecy_of(self.sd).locals.get(self.r.name, {})
        found = {}
        hidden = {py for py in layout if self.scope.rule_name.get(py) in secret}
        for k, py in enumerate(layout):
            if py not in hidden:
                continue
            found[k] = (
                k,
                secret[self.scope.rule_name[py]],
                self.recompute_method(pc, k, py, layout, hidden),
            )
        if found:
            key = (self.rid, pc)
            for row in self.tables.secrets.get(key, ()):
                found.setdefault(row[0], row)
            self.tables.secrets[key] = tuple(found[k] for k in sorted(found))

    def recompute_method(
        self, pc: int, k: int, py: str, layout: list[str], hidden: set[str]
    ) -> str | None:
        code = self.recompute.get(py)
        if code is None:
            return None
        declared = set(self.scope.declared)
        used = {n for n in _NAMES.findall(code) if n in declared}
        if not used <= set(layout) - hidden:
            return None  # it reads a local the frame does not keep, or one that is hidden
        name = f"z_{method_stem(self.r)}__{pc}_{k}"
        lines = [
            f"def {name}(self, S: list[Any], F: Any) -> Any:",
            f'    "Local {self.scope.rule_name[py]!r} of a frame, '
            "computed again in a bot's world.\"",
        ]
        for j, other in enumerate(layout):
            if other in used:
                lines.append(f"    {other} = F[{j + 2}]")
        lines.append(f"    return {code}")
        self.recompute_defs[name] = "\n".join(lines)
        return name

    def layout_of(self, resume: Arm | ArmRef, ask: Arm | None) -> list[str]:
        live = self.live[_index(resume)]
        if ask is not None:
            live = live | self.live[ask.index]
        return [n for n in self.frame_order if n in live]

    def thread_jumps(self) -> None:
        """An arm whose only line is a jump is skipped: jumps and resume points that lead
        to it lead to where it jumps. Its number stays unused."""
        alias: dict[int, Arm] = {}
        for arm in self.arms:
            if len(arm.lines) == 1 and isinstance(arm.lines[0][1], Jump) and arm.lines[0][0] == 0:
                alias[arm.index] = arm

        def final(ref: Any) -> Arm:
            arm = ref if isinstance(ref, Arm) else ref.get()
            seen = set()
            while arm.index in alias and arm.index not in seen:
                seen.add(arm.index)
                nxt = alias[arm.index].lines[0][1].target
                arm = nxt if isinstance(nxt, Arm) else nxt.get()
            return arm

        if not alias:
            return
        for arm in self.arms:
            arm.lines = [
                (ind, Jump(final(t.target), t.tail) if isinstance(t, Jump) else t)
                for ind, t in arm.lines
            ]
        self.entries = [(final(resume), ask) for resume, ask in self.entries]
        for token, ref in list(self.break_tokens.items()):
            target = final(ref)
            self.break_tokens[token] = target
            self.tokens[token] = _constant(str(target.index))
        self.skipped = {i for i in alias if final(self.arms[i]).index != i}

    def liveness(self) -> None:
        """For each arm, the frame locals that may be read from its start on before they
        are assigned (a safe over-estimate: only unconditional assignments at the arm's top
        level count as assignments).

        An arm may leave before its end (a ``break`` or a branch's jump inside an ``if``):
        each way out is an edge that only the assignments above it hide. A local assigned
        after a conditional ``break`` is still live on the way out through the ``break``.
        """
        order = set(self.frame_order)
        uses: list[set[str]] = []
        # per arm, its ways out: (target arm, the locals assigned before leaving that way)
        exits: list[list[tuple[int, frozenset[str]]]] = []
        defs: list[frozenset[str]] = []
        for arm in self.arms:
            used: set[str] = set()
            defined: set[str] = set()
            outs: list[tuple[int, frozenset[str]]] = []
            for ind, text in arm.lines:
                if isinstance(text, Jump):
                    outs.append((_index(text.target), frozenset(defined)))
                    continue
                m = _ASSIGN_ANY.match(text)
                f = _FOR_LINE.match(text) if m is None else None
                if m is not None and m.group(2) in order:
                    # an assignment reads only its right side; only one at the arm's top
                    # level is sure to run (a conditional one hides nothing)
                    rhs = {n for n in _NAMES.findall(m.group(3)) if n in order}
                    used |= rhs - defined
                    if ind == 0 and not m.group(1) and m.group(2) not in rhs:
                        defined.add(m.group(2))
                elif f is not None:
                    # a loop reads what it loops over, not its variables (it sets them)
                    used |= {n for n in _NAMES.findall(f.group(2)) if n in order} - defined
                else:
                    used |= {n for n in _NAMES.findall(text) if n in order} - defined
                for token, ref in self.break_tokens.items():
                    if token in text:
                        outs.append((_index(ref), frozenset(defined)))
            uses.append(used)
            exits.append(outs)
            defs.append(frozenset(defined))
        for resume, ask in self.entries:
            if ask is not None:
                # the question ends its arm: every assignment of the arm comes before it
                exits[ask.index].append((_index(resume), defs[ask.index]))
        live = [set(u) for u in uses]
        changed = True
        while changed:
            changed = False
            for i in range(len(self.arms) - 1, -1, -1):
                for j, hidden in exits[i]:
                    more = live[j] - hidden - live[i]
                    if more:
                        live[i] |= more
                        changed = True
        self.live = live

    def machine(self) -> str:
        """The R form: a ``pc`` switch whose arms start at resume points."""
        r = self.r
        self.tokens = {}
        params = self.params()
        self.cur = self.new_arm()
        self.lower_body(r.body, top=True)
        if not self.cur.closed:
            self.arm_line(0, "return None")
            self.cur.closed = True
        self.thread_jumps()
        names = {p for p, _ in params}
        locals_ = [py for py in self.scope.declared if py not in names]
        self.frame_order = [py for py, _ in params] + locals_
        self.liveness()
        unpack: dict[int, list[str]] = {}
        for resume, ask in self.entries:
            layout = self.layout_of(resume, ask)
            unpack[_index(resume)] = layout
            if ask is not None:
                unpack[ask.index] = layout
        args = ["self", "S: list[Any]", "F: Any", "v: Any"]
        args += [f"{py}: {self.annotation(t)} = {_zero(t)}" for py, t in params]
        out = [f"def r_{method_stem(r)}({', '.join(args)}) -> Any:", f"    {_doc(r)}"]
        for py in locals_:
            out.append(f"    {py}: Any = None")
        multi = len(self.arms) - len(self.skipped) > 1
        if multi:
            out.append("    pc: int = 0 if F is None else F[1]")
            # a frame that names no resume point (a forged position) is an error, not a loop
            # that never ends
            points = ", ".join(map(str, sorted(unpack))) + ("," if len(unpack) == 1 else "")
            out.append(f"    if F is not None and pc not in ({points}):")
            out.append(f"        raise RulesError(f'routine {r.name}: no resume point {{pc}}')")
        # a loop around the arms only if some jump goes back (or out of a loop: break)
        loop = bool(self.break_tokens) or any(
            isinstance(t, Jump) and not (t.tail and _index(t.target) > arm.index)
            for arm in self.arms
            if arm.index not in self.skipped
            for _ind, t in arm.lines
        )
        if loop:
            out.append("    while True:")
        base = (3 if loop else 2) if multi else 1
        for arm in self.arms:
            if arm.index in self.skipped:
                continue
            if multi:
                out.append("    " * (base - 1) + f"if pc == {arm.index}:")
            pad = "    " * base
            saved = unpack.get(arm.index)
            if saved is not None:
                out.append(f"{pad}if F is not None:")
                if saved:
                    out.append(
                        f"{pad}    {', '.join(saved)}{',' if len(saved) == 1 else ''} = F[2:]"
                    )
                out.append(f"{pad}    F = None")
            if not arm.lines:
                out.append(pad + "pass")
            for ind, text in arm.lines:
                pad = "    " * (base + ind)
                if isinstance(text, Jump):
                    k = _index(text.target)
                    out.append(f"{pad}pc = {k}")
                    if not (text.tail and k > arm.index):
                        out.append(f"{pad}continue")
                else:
                    out.append(pad + text)
        code = "\n".join(out)
        while "\x00" in code:
            for token, fn in self.tokens.items():
                code = code.replace(token, fn())
        code = _mark_unused(code, self.scope.declared)
        return "\n\n".join([code, *(self.recompute_defs[n] for n in sorted(self.recompute_defs))])

    def new_arm(self) -> Arm:
        arm = Arm(len(self.arms))
        self.arms.append(arm)
        return arm

    def arm_line(self, ind: int, text: Any) -> None:
        assert self.cur is not None
        self.cur.lines.append((ind, text))

    def jump(self, target: Arm | ArmRef, ind: int = 0) -> None:
        """End the current arm (or a branch of it, at ``ind``) with a jump."""
        assert self.cur is not None
        self.cur.lines.append((ind, Jump(target, tail=True)))
        if ind == 0:
            self.cur.closed = True

    def break_lines(self) -> list[str]:
        """``break`` out of a loop that was split into arms."""
        after = self.loops[-1][2]
        token = self.arm_index(after)
        self.break_tokens[token] = after
        return [f"pc = {token}", "continue"]

    def lower_body(self, body: list[Stmt], top: bool = False) -> None:
        self.scope.push()
        for s in body:
            if self.cur is None or self.cur.closed:
                # unreachable code after return or break: an arm of its own
                self.cur = self.new_arm()
            self.lower_stmt(s)
        self.scope.pop()

    def lower_stmt(self, s: Stmt) -> None:
        assert self.cur is not None
        if not stops(s, self.game):
            lines: list[str] = []
            self.simple(s, lines, 0)
            for text in lines:
                self.arm_line(0, text)
            if isinstance(s, Return) or (
                isinstance(s, Break) and self.loops and self.loops[-1][0] == "arm"
            ):
                self.cur.closed = True
            return
        self.arm_line(0, self.origin(s))
        if isinstance(s, (Let, Assign)) and isinstance(s.value, Call):
            self.lower_call(s.value, s)
        elif isinstance(s, ExprStmt) and isinstance(s.expr, Call):
            self.lower_call(s.expr, None)
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

    def assign_result(self, s: Stmt | None) -> None:
        """In the resume arm: the answer (or returned value) ``v`` into the statement's target."""
        if s is None:
            return
        lines: list[str] = []
        if isinstance(s, Let):
            lines.append(f"{self.scope.declare(s.name)} = v")
        else:
            assert isinstance(s, Assign)
            self.store(lines, 0, s.target, "v", None)
        for text in lines:
            self.arm_line(0, text)

    def lower_call(self, c: Call, s: Stmt | None) -> None:
        if c.func in DECISIONS:
            self.lower_decision(c, s)
            return
        if c.func == "play":
            card, player = self.expr(c.args[0]), self.expr(c.args[1])
            call = f"self.play_r(S, {card}, {player})"
        else:
            r = c.ref
            assert isinstance(r, ir.Routine)
            args = "".join(", " + self.expr(a) for a in c.args)
            call = f"self.r_{method_stem(r)}(S, None, None{args})"
        resume = ArmRef()
        test = f"(v := {call})" if s is not None else call
        self.arm_line(0, f"if {test} is SUSPEND:")
        self.arm_line(1, f"return _wait(S, {self.frame(resume)})")
        arm = resume.set(self.new_arm())
        self.jump(arm)
        self.cur = arm
        self.assign_result(s)

    def decision_parts(self, c: Call) -> tuple[str, str, int, int, list[str]]:
        """(options code, option kind, prompt template, decline template, argument codes)."""
        opts, kind = self.options_code(c)
        tid, args = self.template(c.args[PROMPT_ARG[c.func]])
        decline = -1
        if c.func == "choose_optional":
            decline, more = self.template(c.args[3])
            args = args + more
        elif c.func == "report":
            decline, _ = self.template(Str(c.src, c.off, ["Nothing changed"]))
        elif c.func == "propose":
            decline, _ = self.template(Str(c.src, c.off, ["Pass"]))
        return opts, kind, tid, decline, args

    @staticmethod
    def site_kind(c: Call, kind: str) -> str:
        if c.func == "choose_yes_no":
            return "yes-no"
        if c.func == "choose_number":
            return "choose-number"
        if c.func in ("allocate", "report", "propose"):
            return c.func
        return "choose-" + kind.split(":")[-1]

    def ask_arm(self) -> Arm:
        """The arm a decision is asked in: re-entered to ask again (``reask``), so nothing
        before the question may be in it."""
        assert self.cur is not None
        if all(isinstance(t, str) and t.startswith("#@") for _, t in self.cur.lines):
            return self.cur
        ask = self.new_arm()
        self.jump(ask)
        self.cur = ask
        return ask

    def note_prompt(self, site: int, c: Call, simultaneous: bool) -> None:
        """Record a decision site whose prompt (or decline text) shows a secret value."""
        at = PROMPT_ARG[c.func]
        texts = c.args[at : at + 2] if c.func == "choose_optional" else c.args[at : at + 1]
        if any(secrecy_of(self.sd).secret(self.r.name, t) for t in texts):
            self.tables.secret_prompts.add(site)

    def lower_decision(self, c: Call, s: Stmt | None) -> None:
        ask = self.ask_arm()
        opts, kind, tid, decline, args = self.decision_parts(c)
        site_kind = self.site_kind(c, kind)
        player = self.expr(c.args[0])
        site = self.tables.site((site_kind, tid, kind, decline, self.rid, ask.index, False))
        self.note_prompt(site, c, False)
        resume = ArmRef()
        frame = self.frame(resume, ask)
        more = f", {_pack(args)}" if args else ""
        if c.func not in ("allocate", "report", "propose"):
            opts = _as_tuple(opts)
        self.arm_line(0, f"return self.ask(S, {frame}, {player}, {site}, {opts}{more})")
        ask.closed = True
        self.cur = resume.set(self.new_arm())
        if c.func == "report":
            said = self.tables.template(("Reported: ", ""), ("report",))
            self.arm_line(0, "if v is not None:")
            self.arm_line(1, f"_log(S, {said}, (v,))")
            self.arm_line(0, "v = _report(S, v)")
        self.assign_result(s)

    def lower_simultaneously(self, s: Simultaneously) -> None:
        first = s.body[0]
        assert isinstance(first, Let) and isinstance(first.value, Call)
        c = first.value
        ask = self.ask_arm()
        ps = self.scope.declare("_ps")
        self.arm_line(0, f"{ps} = tuple({self.iterable(s.iter)})")
        self.scope.push()
        var = self.scope.declare(s.var)
        opts, kind, tid, decline, args = self.decision_parts(c)
        site_kind = self.site_kind(c, kind)
        site = self.tables.site((site_kind, tid, kind, decline, self.rid, ask.index, True))
        self.note_prompt(site, c, True)
        resume = ArmRef()
        self.arm_line(0, "_d = []")
        self.arm_line(0, f"for {var} in {ps}:")
        lazy = c.func in ("allocate", "report", "propose")
        self.arm_line(1, f"_o = {opts if lazy else _as_tuple(opts)}")
        if c.func not in ("choose_optional", "report", "propose"):
            self.arm_line(1, "if not _o:")
            self.arm_line(2, f"_dead({site_kind!r}, {var})")
        self.arm_line(1, f"_d.append(({var}, {site}, _o, {_pack(args)}))")
        self.arm_line(0, f"return _ask_all(S, {self.frame(resume, ask)}, _d)")
        ask.closed = True
        self.cur = resume.set(self.new_arm())
        self.arm_line(0, "_a = dict(v)")
        self.arm_line(0, f"for {var} in {ps}:")
        self.arm_line(1, f"{self.scope.declare(first.name)} = _a[{var}]")
        self.loops.append(("py", None, None))
        lines: list[str] = []
        for b in s.body[1:]:
            self.simple(b, lines, 1)
        if _only_markers(lines):
            lines.append("    pass")
        for text in lines:
            self.arm_line(0, text)
        self.loops.pop()
        self.scope.pop()

    def lower_if(self, s: If) -> None:
        head = self.cur
        assert head is not None
        after = ArmRef()
        for i, (cond, body) in enumerate(s.branches):
            kw = "if" if i == 0 else "elif"
            self.cur = head
            head.lines.append((0, f"{kw} {self.expr(cond)}:"))
            self.branch(head, body, after)
        self.cur = head
        head.lines.append((0, "else:"))
        self.branch(head, s.orelse, after)
        head.closed = True
        self.cur = after.set(self.new_arm())

    def branch(self, head: Arm, body: list[Stmt], after: ArmRef) -> None:
        """One branch of an ``if`` another branch of which waits: inline if it does not."""
        if not stops(body, self.game):
            lines: list[str] = []
            if body:
                self.simple_body(body, lines, 1)
            for text in lines:
                head.lines.append((0, text))
            if not (body and isinstance(body[-1], (Return, Break))):
                head.lines.append((1, Jump(after, tail=True)))
            return
        arm = self.new_arm()
        head.lines.append((1, Jump(arm, tail=True)))
        self.cur = arm
        self.lower_body(body)
        if not self.cur.closed:
            self.jump(after)

    def lower_while(self, s: While) -> None:
        # a bound on runaway rules, counted across the decisions the loop asks (see MAX_LOOP)
        runs = self.scope.declare("_runs")
        self.arm_line(0, f"{runs} = 0")
        enter = (f"{runs} += 1", f"if {runs} > MAX_LOOP: _endless_loop()")
        self.lower_loop(lambda: self.expr(s.cond), enter, s.body)

    def lower_for(self, s: For) -> None:
        it = self.scope.declare("_it")
        i = self.scope.declare("_i")
        self.arm_line(0, f"{it} = tuple({self.iterable(s.iter)})")
        self.arm_line(0, f"{i} = 0")
        self.scope.push()
        var = self.scope.declare(s.var)
        self.lower_loop(lambda: f"{i} < len({it})", (f"{var} = {it}[{i}]", f"{i} += 1"), s.body)
        self.scope.pop()

    def lower_loop(self, test: Callable[[], str], enter: Sequence[str], body_stmts: Any) -> None:
        """A loop across resume points: a head arm tests ``test()`` (read in the head), runs
        the ``enter`` lines and jumps to the body, whose end jumps back to the head."""
        head = self.new_arm()
        self.jump(head)
        self.cur = head
        body = self.new_arm()
        after = ArmRef()
        self.arm_line(0, f"if {test()}:")
        for line in enter:
            self.arm_line(1, line)
        self.arm_line(1, Jump(body, tail=True))
        self.arm_line(0, "else:")
        self.arm_line(1, Jump(after, tail=True))
        head.closed = True
        self.cur = body
        self.loops.append(("arm", head, after))
        self.lower_body(body_stmts)
        if not self.cur.closed:
            self.jump(head)
        self.loops.pop()
        self.cur = after.set(self.new_arm())


# ---------------------------------------------------------------------------- arms


class ArmRef:
    """An arm that is created later (arms are numbered in program order)."""

    def __init__(self) -> None:
        self.arm: Arm | None = None

    def set(self, arm: Arm) -> Arm:
        self.arm = arm
        return arm

    def get(self) -> Arm:
        if self.arm is None:
            raise CodegenError("a jump to an arm that was never made")
        return self.arm


def _mark_unused(code: str, names: list[str]) -> str:
    """Locals a method only assigns (never reads) get a leading underscore, as Python's
    linters expect: a rule may compute a value this form of the routine does not use (the
    player of a decision drawn at random in a playout, say)."""
    # one pass over the code for all the names (a pass per name is quadratic in a long rule)
    wanted = set(names)
    uses = Counter(w for w in _WORD.findall(code) if w in wanted)
    writes: Counter[str] = Counter()
    for m in _WRITE.finditer(code):
        writes[m.group(1)] += 1
    for m in _FOR.finditer(code):
        writes.update(g for g in m.groups() if g is not None)
    unused = {n for n, k in uses.items() if k == writes[n]}
    if not unused:
        return code
    return _WORD.sub(lambda m: "_" + m.group() if m.group() in unused else m.group(), code)


_WORD = re.compile(r"\b\w+\b")
_WRITE = re.compile(r"(?m)^\s*(\w+)(?:: Any)? = ")
_FOR = re.compile(r"\bfor (\w+)(?:, (\w+))? in\b")


def _only_markers(lines: list[str]) -> bool:
    """Whether a block holds no statement, only rules-position markers (a block of log lines
    in a form without a log): Python needs a ``pass`` there."""
    return all(line.lstrip().startswith("#@") for line in lines)


def _constant(text: str) -> Any:
    return lambda: text


_NAMES = re.compile(r"\bv_\w+")
_ASSIGN_ANY = re.compile(r"^(\s*)(v_\w+) = (.*)$")
_FOR_LINE = re.compile(r"^\s*for (v_\w+(?:, v_\w+)?) in (.*):$")


def _index(ref: Any) -> int:
    return ref.index if isinstance(ref, Arm) else ref.get().index


_TIDY: dict[str, str] = {}


class _Unparser(ast._Unparser):  # type: ignore[name-defined,misc]
    """``ast.unparse``, without doubling the parentheses of a call's only argument when
    it is a generator expression (``any(x for x in y)``)."""

    def visit_Call(self, node: ast.Call) -> None:
        if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.GeneratorExp):
            self.set_precedence(ast._Precedence.ATOM, node.func)  # type: ignore[attr-defined]
            self.traverse(node.func)
            self.traverse(node.args[0])
            return
        super().visit_Call(node)


def tidy(code: str) -> str:
    """An expression with only the parentheses Python needs (the generator writes them all)."""
    out = _TIDY.get(code)
    if out is None:
        out = _TIDY[code] = _Unparser().visit(ast.parse(code, mode="eval"))
    return out


def _as_tuple(code: str) -> str:
    return code if code.startswith("(") or code.startswith("_bits(") else f"tuple({code})"


def _pack(args: list[str]) -> str:
    return f"({args[0]},)" if len(args) == 1 else "(" + ", ".join(args) + ")"


def _doc(r: ir.Routine) -> str:
    text = " ".join((r.origin.doc or r.name).split())
    rules = f" ({', '.join(r.origin.rules)})" if r.origin.rules else ""
    return repr(f"{text}{rules} [{r.origin.pos}]")


def _zero(t: ir.Type) -> str:
    if t == ir.INT:
        return "0"
    if t == ir.BOOL:
        return "False"
    return "None"


def _kind(t: ir.Type | None) -> str:
    if t is None:
        return "str"
    if t.kind in ("player", "card", "int", "bool", "table", "deal"):
        return t.kind
    if t.kind == "entity":
        return "e:" + t.name
    return "str"


def _simple(code: str) -> bool:
    return code.isidentifier() or code.replace("self.", "").replace("_", "").isalnum()


def _ends_in_return(body: list[Stmt]) -> bool:
    if not body:
        return False
    last = body[-1]
    if isinstance(last, Return):
        return True
    if isinstance(last, If) and last.orelse:
        return all(_ends_in_return(b) for _, b in last.branches) and _ends_in_return(last.orelse)
    return False


def _may_repeat(seq: Expr, eg: ExprGen, unique_locals: set[str] | None = None) -> bool:
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
