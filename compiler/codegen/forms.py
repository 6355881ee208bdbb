"""The plain forms of a routine: one method of structured Python each.

``f_<name>(S, ...)`` (a function), ``p_<name>(S, ...)`` (the machine form of one that never
waits) and ``q_<name>(S, R, ...)`` (the playout form: every decision drawn with ``R()``, no
log). The statements here are also the straight-line parts of the machine form
(``machine.py``).
"""

from __future__ import annotations

import re
from typing import Any, NoReturn

from .. import ir
from ..builtins import BUILTINS, DECISIONS, Decision
from ..effects import (
    Assign,
    AtOnce,
    Attr,
    AugAssign,
    Break,
    Call,
    Expr,
    ExprStmt,
    For,
    If,
    Let,
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
    While,
    walk,
)
from .analysis import (
    card_routines_suspend,
    ends_in_return,
    may_repeat,
    method_stem,
    quiet,
    secrecy_of,
    unique_locals,
)
from .class_tables import ClassTables
from .data import ScenarioData
from .exprs import REFS, CodegenError, ExprGen, Scope, int_slot, int_view, type_kind
from .indexed import loop_source
from .pytext import (
    DRAW,
    REF,
    doc_string,
    is_simple,
    mark_unused,
    only_markers,
    pack,
    tidy,
    value_kind,
)

#: an int written out (a bound or a value known when generating)
_INT = re.compile(r"-?\d+")

VISIBILITY_RANK = {"none": 0, "owner": 1, "all": 2}


class PlainForms:
    """Compiles one routine of one scenario into one form.

    ``form``: ``F`` (function), ``P`` (machine, never waits), ``R`` (machine, may wait: see
    :class:`.machine.MachineForm`), ``Q`` (playout).
    """

    def __init__(self, sd: ScenarioData, tables: ClassTables, r: ir.Routine, form: str) -> None:
        self.sd = sd
        self.game = sd.game
        self.tables = tables
        self.r = r
        self.form = form
        self.scope = Scope()
        self.eg = ExprGen(sd, self.scope)
        self.eg.tables = tables
        self.cards_wait = card_routines_suspend(self.game)
        self.loops: list[tuple[str, Any, Any]] = []  # ("py", -, -) or ("arm", head, after)
        self.rid = tables.rid(r.name) if form == "R" else -1
        self.unique: set[str] | None = None
        #: secret locals defined by a pure expression: python name -> the expression's code
        self.recompute: dict[str, str] = {}
        #: rule locals some statement assigns after their ``let`` (or a move changes)
        self.reassigned = reassigned(r.body)

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
        nn = self.sd.never_none
        if nn is not None and self.r.name in nn.returns:
            return REF
        return self.annotation(t)

    def never_none_local(self, name: str) -> bool:
        """Whether the reference local ``name`` is never none (nonone.py): typed ``REF`` in
        the plain forms (the machine form's frames hold None before a local is bound)."""
        nn = self.sd.never_none
        return self.form != "R" and nn is not None and (self.r.name, name) in nn.locals

    def param_annotation(self, name: str, t: ir.Type) -> str:
        """A parameter's type: ``REF`` for a reference never none (nonone.py)."""
        nn = self.sd.never_none
        if nn is not None and (self.r.name, name) in nn.params:
            return REF
        return self.annotation(t)

    # ------------------------------------------------------------------ plain forms

    def plain(self) -> str:
        """The F, P or Q form: one method with structured Python."""
        r = self.r
        prefix = {"F": "f", "P": "p", "Q": "q"}[self.form]
        params = self.params()
        args = ["self", "S: list[Any]"]
        if self.form == "Q":
            args.append(f"R: {DRAW}")
        typed = [
            (py, self.param_annotation(name, t))
            for (py, t), (name, _) in zip(params, r.params, strict=True)
        ]
        args += [f"{py}: {ann}" for py, ann in typed]
        # references compared with reference slots on ints (ExprGen.ref_compare): those
        # typed int, and an int copy of the others that no statement assigns
        self.eg.ints = {py for py, ann in typed if ann == REF}
        self.eg.encodable = {
            py
            for (py, t), (name, _), (_py, ann) in zip(params, r.params, typed, strict=True)
            if ann != REF and t.kind in REFS and name not in self.reassigned
        }
        ret = self.returns()
        lines = [f"def {prefix}_{method_stem(r)}({', '.join(args)}) -> {ret}:"]
        lines.append(f"    {doc_string(r)}")
        body: list[str] = []
        self.simple_body(r.body, body, 1)
        for py in self.eg.int_copies:
            lines.append(f"    _k_{py}: {REF} = -1 if {py} is None else {py}")
        lines.extend(body)
        if r.returns.kind != "void" and not ends_in_return(r.body):
            msg = f"{r.name} ended without a value"
            lines.append(f"    raise RulesError({msg!r}, {str(r.origin.pos)!r})")
        return mark_unused("\n".join(lines), self.scope.declared)

    def note_ref(self, py: str, name: str, value: Expr) -> None:
        """A local bound once (no statement assigns it again) to a reference never none, or
        to a list of such references, in a plain form: ExprGen compares it with reference
        slots as an int."""
        if self.form == "R" or name in self.reassigned:
            return
        if self.eg.never_none(value):
            self.eg.ints.add(py)
        elif self.eg.elements_never_none(value):
            self.eg.int_lists.add(py)

    # ------------------------------------------------------------------ statements

    def simple_body(self, body: list[Stmt], out: list[str], ind: int) -> None:
        self.scope.push()
        start = len(out)
        for s in body:
            self.simple(s, out, ind)
        if only_markers(out[start:]):
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
                typed = self.never_none_local(s.name)
                self.line(out, ind, f"{py}: {REF} = {value}" if typed else f"{py} = {value}")
                return
            value = self.value(s.value)
            py = self.scope.declare(s.name)
            self.note_ref(py, s.name, s.value)
            if value == "[]" and self.form != "R":  # a list grown later: typed for mypy(c)
                self.line(out, ind, f"{py}: list[Any] = []")
            elif self.never_none_local(s.name):
                self.line(out, ind, f"{py}: {REF} = {value}")
            else:
                self.line(out, ind, f"{py} = {value}")
            if self.form == "R" and secrecy_of(self.sd).definition(self.r.name, s.name) is s:
                self.recompute[py] = value
        elif isinstance(s, Assign):
            if isinstance(s.value, Call) and s.value.func in DECISIONS:
                self.store(out, ind, s.target, self.random_decision(s.value), None)
            else:
                self.store(out, ind, s.target, self.value(s.value), None, s.value)
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
            it, loop_body = loop_source(self, s)
            self.scope.push()
            var = self.scope.declare(s.var)
            if s.var not in self.reassigned and self.eg.elements_never_none(s.iter):
                self.eg.ints.add(var)
            self.line(out, ind, f"for {var} in {it}:")
            self.loops.append(("py", None, None))
            self.simple_body(loop_body, out, ind + 1)
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
        elif isinstance(s, AtOnce):
            if self.form != "Q":
                raise CodegenError("a simultaneous decision outside the playout form")
            self.random_at_once(out, ind, s)
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

    def fogged(self, t: ir.Type | None) -> ir.Fog | None:
        """The fog of war over records of type ``t``, if it is a fogged entity type."""
        if t is None or t.kind != "entity" or t.name not in self.game.entities:
            return None
        return self.game.entities[t.name].fog

    def reveal(self, out: list[str], ind: int, s: Reveal) -> None:
        """Show a hidden value to players: add them to who has seen it."""
        record = self.fogged(s.target.ty) is not None  # a whole record in the fog
        if record:
            info = self.sd.slot("e", ir.FOG_SEEN, s.target.ty.name)  # type: ignore[union-attr]
            found = (f"S[self.o_{info.key} + {{}}]", info) if info is not None else None
        else:
            found = self.seen_slot(s.target)
        if found is None:
            raise CodegenError("reveal of a field that keeps no record of who has seen it")
        code, _info = found
        if record:
            obj = self.expr(s.target)
            if not is_simple(obj):
                tmp = self.fresh("r")
                self.line(out, ind, f"{tmp} = {obj}")
                obj = tmp
            code = code.format(obj)
        elif isinstance(s.target, Attr):
            obj = self.expr(s.target.obj)
            if not is_simple(obj):
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
        self.line(out, ind, "N[_REVEALS] = N[_REVEALS] + 1")

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
        b = BUILTINS.get(c.func)
        if b is not None and b.decision is not None:
            self.line(out, ind, self.random_decision(c))
        elif b is not None and b.run is not None:
            self.line(out, ind, b.run(self, c))  # type: ignore[arg-type]
        else:
            self.line(out, ind, self.value(c))

    def break_lines(self) -> list[str]:
        """``break`` out of a loop split into arms: only the machine form splits loops."""
        raise CodegenError("a loop split into arms outside the machine form")

    def atom(self, code: str) -> str:
        """``code`` in parentheses, unless it is a name or an attribute."""
        return code if is_simple(code) else f"({code})"

    def fail(self, message: str) -> NoReturn:
        """Stop at an inconsistency the checker should have reported."""
        raise CodegenError(message)

    # -- stores

    def store(
        self,
        out: list[str],
        ind: int,
        target: Expr,
        value: str,
        aug: str | None,
        src: Expr | None = None,
    ) -> None:
        """Assign (or add to) a local or a field (``value`` the code of expression ``src``,
        if there is one); int fields clamp to their bounds, a reference slot holds -1 for
        none."""
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
        if int_slot(info):
            code = int_view(code)
        if info.kind == "set":
            self.line(out, ind, f"{code} = _mask({value})")
            return
        if info.kind == "seq":
            self.line(out, ind, f"{code} = tuple({value})")
            return
        if info.kind == "ref":  # -1 for none in the state
            encoded = None if src is None else self.eg.encoded(src)
            value = f"_unref({value})" if encoded is None else tidy(encoded)
        if f.revealable:
            seen = self.seen_slot(target)
            if seen is not None:
                self.line(out, ind, f"{seen[0].format(obj)} = 0")
        fog = self.fogged(target.obj.ty) if isinstance(target, Attr) else None
        if fog is not None and f.name == fog.at:
            # a record that moves is in the fog again (`reveal` shows it until it moves)
            seen_info = self.sd.slot("e", ir.FOG_SEEN, target.obj.ty.name)  # type: ignore[union-attr]
            if seen_info is not None:
                self.line(out, ind, f"S[self.o_{seen_info.key} + {obj}] = 0")
        if aug is not None:
            value = f"{code} {aug} {_operand(aug, value)}"
        if f.type == ir.INT:
            lo = self.bound(f.min, info, obj)
            hi = self.bound(f.max, info, obj)
            value = self.clamped(out, ind, value, lo, hi)
        self.line(out, ind, f"{code} = {value}")

    def clamped(self, out: list[str], ind: int, value: str, lo: str | None, hi: str | None) -> str:
        """``value`` kept within the bounds of an int field (None: no bound). A constant
        within constant bounds is clamped here; with constant bounds (``lo <= hi``) the value
        is put in ``_clamp`` and compared (what ``min(max(v, lo), hi)`` gives, without two
        calls); bounds read from a record stay ``min``/``max``, which also settle ``lo > hi``."""
        if lo is None and hi is None:
            return value
        ints = [b for b in (value, lo, hi) if b is not None and _INT.fullmatch(b)]
        if len(ints) == 1 + (lo is not None) + (hi is not None):
            v = int(value)
            if lo is not None:
                v = max(v, int(lo))
            if hi is not None:
                v = min(v, int(hi))
            return str(v)
        constant = [b for b in (lo, hi) if b is not None and _INT.fullmatch(b)]
        if len(constant) == (lo is not None) + (hi is not None) and (
            lo is None or hi is None or int(lo) <= int(hi)
        ):
            self.line(out, ind, f"_clamp = {value}")
            if lo is not None and hi is not None:
                return f"{lo} if _clamp < {lo} else {hi} if _clamp > {hi} else _clamp"
            if lo is not None:
                return f"{lo} if _clamp < {lo} else _clamp"
            return f"{hi} if _clamp > {hi} else _clamp"
        if lo is not None and hi is not None:
            return f"min(max({value}, {lo}), {hi})"
        if lo is not None:
            return f"max({value}, {lo})"
        return f"min({value}, {hi})"

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
        if int_slot(info):  # a bitmask
            code = int_view(code)
        return code, info

    def record_slot(self, out: list[str], ind: int, target: Attr, info: Any) -> tuple[str, str]:
        """The state slot of a record's field, the record evaluated once (into a local when
        it is not a simple name): ``(S[...] code, record code)``."""
        obj = self.expr(target.obj)
        if not is_simple(obj):
            tmp = self.fresh("r")
            self.line(out, ind, f"{tmp} = {obj}")
            obj = tmp
        return f"S[self.o_{info.key} + {obj}]", obj

    def reveals(self, src: Any, dst: Any) -> bool:
        return VISIBILITY_RANK[dst.field.visible] > VISIBILITY_RANK[src.field.visible]

    def move(self, out: list[str], ind: int, s: Move) -> None:
        item = self.fresh("c")
        typed = f": {REF}" if self.eg.never_none(s.item) else ""
        self.line(out, ind, f"{item}{typed} = {self.expr(s.item)}")
        src, sinfo = self.zone(out, ind, s.src_zone)
        dst, dinfo = self.zone(out, ind, s.dst_zone)
        if sinfo.kind == "set":
            take = "_take_card" if typed else "_take"  # a card never none: passed unboxed
            self.line(out, ind, f"{src} = {take}({src}, {item})")
        else:
            self.line(out, ind, f"{src} = _remove({src}, {item})")
        if dinfo.kind == "set":  # not `|=`: mypyc augments a list item as an object
            self.line(out, ind, f"{dst} = {dst} | 1 << {item}")
        else:
            self.line(out, ind, f"{dst} = {dst} + ({item},)")
        if self.reveals(sinfo, dinfo):
            self.line(out, ind, "N[_REVEALS] = N[_REVEALS] + 1")

    def move_all(self, out: list[str], ind: int, s: MoveAll) -> None:
        src, sinfo = self.zone(out, ind, s.src_zone)
        dst, dinfo = self.zone(out, ind, s.dst_zone)
        z = self.fresh("z")
        self.line(out, ind, f"{z} = {src}")
        if self.reveals(sinfo, dinfo):
            self.line(out, ind, f"if {z}:")
            self.line(out, ind + 1, "N[_REVEALS] = N[_REVEALS] + 1")
        if dinfo.kind == "set":
            self.line(out, ind, f"{dst} = {dst} | {z if sinfo.kind == 'set' else f'_mask({z})'}")
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
            return f"list:{value_kind(elem)}", f"tuple({self.iterable(e)})"
        scale = field_scale(e)
        if scale != 1:
            return f"scaled:{scale}", code
        return value_kind(t), code

    def log(self, out: list[str], ind: int, s: Log) -> None:
        tid, args = self.template(s.text)
        packed = pack(args)
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
        d = decision_of(c)
        if d.options is not None:
            return d.options(self, c)  # type: ignore[arg-type]
        seq = c.args[1]
        code = self.iterable(seq)
        if self.unique is None:
            self.unique = unique_locals(self.r, self.sd)
        if may_repeat(seq, self.eg, self.unique):
            code = f"_uniq({code})"
        return code, self.option_kind(seq.ty.elem if seq.ty is not None else None)

    @staticmethod
    def option_kind(elem: ir.Type | None) -> str:
        """The kind of an option of that type (``enum:E`` for an enum value)."""
        if elem is not None and elem.kind == "enum":
            return "enum:" + elem.name
        return type_kind(elem)

    def random_decision(self, c: Call) -> str:
        """The playout's answer to a decision, drawn with ``R()``."""
        opts, _kind = self.options_code(c)
        return decision_of(c).draw.replace("{opts}", opts)

    def random_at_once(self, out: list[str], ind: int, s: AtOnce) -> None:
        """``simultaneously:`` in a playout: each line's decision drawn in turn."""
        lets = [b for b in s.body if isinstance(b, Let) and isinstance(b.value, Call)]
        who = [self.expr(b.value.args[0]) for b in lets]  # type: ignore[union-attr]
        self.line(out, ind, f"if len({{{', '.join(who)}}}) < {len(who)}:")
        self.line(out, ind + 1, f"raise RulesError({SAME_PLAYER!r})")
        for b in lets:
            assert isinstance(b.value, Call)
            self.line(out, ind, f"{self.scope.declare(b.name)} = {self.random_decision(b.value)}")

    def random_simultaneously(self, out: list[str], ind: int, s: Simultaneously) -> None:
        first = s.body[0]
        assert isinstance(first, Let) and isinstance(first.value, Call)
        ps = self.fresh("ps")
        ans = self.fresh("ans")
        self.line(out, ind, f"{ps} = tuple({self.iterable(s.iter)})")
        self.scope.push()
        var = self.scope.declare(s.var)
        if s.var not in self.reassigned and self.eg.elements_never_none(s.iter):
            self.eg.ints.add(var)
        self.line(out, ind, f"{ans} = [")
        self.line(out, ind + 1, f"{self.random_decision(first.value)} for {var} in {ps}")
        self.line(out, ind, "]")
        py = self.scope.declare(first.name)
        typed = self.never_none_local(first.name)
        if typed:
            self.eg.ints.add(py)
        self.loops.append(("py", None, None))
        body: list[str] = []
        for b in s.body[1:]:
            self.simple(b, body, ind + 1)
        if only_markers(body):  # nothing left once the playout form drops the log
            self.line(body, ind + 1, "pass")
        self.loops.pop()
        self.scope.pop()
        # the comprehension above binds the player too: a body that does not read it marks
        # it unused (a leading _), or linters see a loop variable the loop never uses (B007).
        # The answers are one per player by construction; indexed, not a strict zip, which
        # the native build calls generically (with keywords)
        target = var if any(re.search(rf"\b{var}\b", line) for line in body) else "_" + var
        i = self.fresh("i")
        if any(re.search(rf"\b{py}\b", line) for line in body):
            if typed:
                self.line(out, ind, f"{py}: {REF}")
            body.insert(0, "    " * (ind + 1) + f"{py} = {ans}[{i}]")
        self.line(out, ind, f"for {i}, {target} in enumerate({ps}):")
        out.extend(body)


#: the rules error of a `simultaneously:` block that asks one player twice
SAME_PLAYER = "a `simultaneously:` block asks one player twice: each line is another player's"


def decision_of(c: Call) -> Decision:
    """How the decision a call asks is compiled (its builtin's row)."""
    d = BUILTINS[c.func].decision
    assert d is not None
    return d


def field_scale(e: Expr) -> int:
    """The scale of the field an expression reads (``scale: 2``: it counts halves), else 1."""
    ref = e.ref if isinstance(e, Attr) else None
    if isinstance(e, Name) and isinstance(e.ref, tuple) and e.ref[0] == "global":
        ref = e.ref[1]
    return ref.scale if isinstance(ref, ir.Field) else 1


def _operand(aug: str, value: str) -> str:
    """``value`` as the right operand of ``aug`` in ``field = field <aug> value``: in
    parentheses when it binds more loosely (``p.pp -= 2 if c else 1`` subtracts the whole
    conditional, not 2 alone)."""
    import ast

    node = ast.parse(value, mode="eval").body
    if isinstance(node, ast.BinOp):
        loose = not (aug == "+" and isinstance(node.op, (ast.Add, ast.Sub)))
        loose = loose and not isinstance(node.op, (ast.Mult, ast.FloorDiv, ast.Mod, ast.Div))
        return f"({value})" if loose else value
    if isinstance(node, (ast.IfExp, ast.BoolOp, ast.Compare, ast.Lambda, ast.NamedExpr)):
        return f"({value})"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return f"({value})"
    return value


def reassigned(body: list[Stmt]) -> set[str]:
    """The rule locals a statement of ``body`` assigns, adds to or moves cards of."""
    out: set[str] = set()
    for n in walk(body):
        if isinstance(n, (Assign, AugAssign)) and isinstance(n.target, Name):
            out.add(n.target.id)
        elif isinstance(n, (Move, MoveAll)):
            out |= {z.id for z in (n.src_zone, n.dst_zone) if isinstance(z, Name)}
    return out
