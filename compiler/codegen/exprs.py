"""Expressions of the effect language as Python source text.

Values are what the static data hold (see ``data.py``): references are indices (``None``
for none; a reference slot of the state holds -1 for none, made None where it is read as a
value and compared as it is where it can be, :meth:`ExprGen.ref_compare`), sets of cards,
players or records are bitmask ints, and a list in an expression is a Python list or tuple
(never changed in place). Reading a set field as a list gives ``_bits(mask)``; counting it,
testing membership and filtering its elements on fixed card attributes work on the mask
itself.

Queries over all records of a type that filter on a fixed attribute iterate the records
with that value only (``self.ix_T__A``); filters of a card set on fixed card attributes are
masks (``self.mk_card__A``).
"""

from __future__ import annotations

import copy
from typing import Any

from .. import ir
from ..builtins import BUILTINS
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
    ListLit,
    Name,
    Neg,
    NoneLit,
    Not,
    Return,
    Str,
    Ternary,
    walk,
)
from .data import ScenarioData, table_ids
from .hoist import hoistable
from .indexed import conjuncts, index_of, indexed_type, join_and
from .nonone import REF_KINDS as REFS


class CodegenError(Exception):
    """An internal inconsistency; the checker should have reported the problem first."""


class Scope:
    """Rule locals in scope and the Python names they compile to (unique in a routine)."""

    def __init__(self) -> None:
        self.stack: list[dict[str, str]] = [{}]
        self.used: dict[str, int] = {}
        self.declared: list[str] = []  # python names in order of declaration
        self.rule_name: dict[str, str] = {}  # python name -> the rule local it holds

    def push(self) -> None:
        self.stack.append({})

    def pop(self) -> None:
        self.stack.pop()

    def declare(self, name: str, local: bool = True) -> str:
        """A new Python name for rule local ``name``; ``local=False`` for the variable of a
        comprehension (it lives only inside the comprehension, never in a frame)."""
        n = self.used.get(name, 0) + 1
        self.used[name] = n
        py = f"v_{name}" if n == 1 else f"v_{name}_{n}"
        self.stack[-1][name] = py
        if local:
            self.declared.append(py)
            self.rule_name[py] = name
        return py

    def bind(self, name: str, py: str) -> None:
        self.stack[-1][name] = py

    def get(self, name: str) -> str:
        for frame in reversed(self.stack):
            if name in frame:
                return frame[name]
        raise CodegenError(f"local {name!r} used before it is declared")


def type_kind(t: ir.Type | None) -> str:
    """A short name of a type for option ids and log templates."""
    if t is None:
        return "any"
    if t.kind == "entity":
        return t.name
    if t.kind == "enum":
        return t.name
    return t.kind


class ExprGen:
    """Compiles expressions of one routine of one scenario."""

    def __init__(self, sd: ScenarioData, scope: Scope) -> None:
        self.sd = sd
        self.scope = scope
        self.tmp = 0
        #: in an entity label: (entity type, code of the record index)
        self.record: tuple[str, str] | None = None
        self.inlined = 0  # functions inlined so far (names their variables apart)
        #: the class's log templates (a routine's; None in labels and playable conditions)
        self.tables: Any = None
        #: while compiling a comprehension's filter: loop-invariant masks to compute once, and
        #: the scope depth of that comprehension (nothing is hoisted from deeper scopes)
        self.hoist: tuple[list[tuple[str, str]], int] | None = None
        #: Python names of references never none, ints to mypyc: parameters typed ``int``
        #: (nonone.py), locals bound once to such a value, variables of loops over
        #: :meth:`elements_never_none` lists; and the locals bound once to such a list
        self.ints: set[str] = set()
        self.int_lists: set[str] = set()
        #: parameters of references that may be none and that no statement assigns (a plain
        #: form's): those compared with a reference slot get an int copy, -1 for none, bound
        #: once at the start of the method (``_k_<name>``, in order of first use)
        self.encodable: set[str] = set()
        self.int_copies: list[str] = []

    # -- helpers

    def fresh(self, stem: str) -> str:
        self.tmp += 1
        return f"_{stem}{self.tmp}"

    def expr(self, e: Expr) -> str:
        if (
            self.hoist is not None
            and self.hoist[1] == len(self.scope.stack)
            and hoistable(e, self.scope.stack[-1])
        ):
            return self.hoisted(e)
        m = getattr(self, "e_" + type(e).__name__, None)
        if m is None:
            raise CodegenError(f"cannot compile {type(e).__name__}")
        return m(e)

    def hoisted(self, e: Expr) -> str:
        """A loop-invariant query of a comprehension, computed once before it (``hoist.py``)."""
        lets = self.hoist
        assert lets is not None
        self.hoist = None
        code = self.expr(e)
        self.hoist = lets
        name = self.fresh("h")
        lets[0].append((name, code))
        return name

    # -- fields

    def field_parts(self, e: Attr) -> tuple[str, str, str | None, ir.Field, str]:
        """``(scope, name, entity type, field, object code)`` of a field access."""
        t = e.obj.ty
        f = e.ref
        if not isinstance(f, ir.Field):
            raise CodegenError(f"unresolved field {e.name!r}")
        obj = self.expr(e.obj)
        if t.kind == "player":
            return "p", e.name, None, f, obj
        if t.kind == "entity":
            return "e", e.name, t.name, f, obj
        if t.kind == "card":
            return "c", e.name, None, f, obj
        raise CodegenError(f"attribute of {t}")

    def slot_of(self, e: Expr) -> tuple[str, Any] | None:
        """For a field that lives in the state: ``(state index code, slot info)``."""
        if isinstance(e, Name) and e.ref is not None and e.ref[0] == "global":
            info = self.sd.slot("g", e.id)
            if info is not None:
                return f"S[self.o_{info.key}]", info
            return None
        if isinstance(e, Attr) and isinstance(e.ref, ir.Field) and e.obj.ty is not None:
            if e.obj.ty.kind not in ("player", "entity") or e.name in ("id", "name"):
                return None
            scope, name, etype, _f, obj = self.field_parts(e)
            info = self.sd.slot(scope, name, etype)
            if info is None:
                return None
            return f"S[self.o_{info.key} + {obj}]", info
        return None

    def read(self, e: Expr) -> tuple[str, Any] | None:
        """:meth:`slot_of` for reading: a slot that always holds an int (an int field that
        cannot be none, or a set's bitmask) is read through ``N``, the state typed
        ``list[int]`` (see :func:`.pytext.bind_int_view`), so that the native build keeps
        the value unboxed."""
        s = self.slot_of(e)
        if s is not None and s[1].kind == "ref":  # -1 for none in the state
            return f"_ref({int_view(s[0])})", s[1]
        if s is not None and int_slot(s[1]):
            return int_view(s[0]), s[1]
        return s

    def never_none(self, e: Expr) -> bool:
        """Whether the code of ``e`` gives a reference that is never none: a player, card or
        record named in the rules, a parameter typed ``int`` or a call of a function whose
        result is (nonone.py), a field of the scenario's fixed data that is not optional,
        or a choice between such values."""
        if isinstance(e, Name) and e.ref is not None:
            if e.ref[0] in ("seat", "card", "record"):
                return True
            return e.ref[0] == "local" and self.scope.get(e.id) in self.ints
        if isinstance(e, Call) and isinstance(e.ref, ir.Routine):
            nn = self.sd.never_none
            return nn is not None and e.ref.name in nn.returns
        if isinstance(e, Attr) and isinstance(e.ref, ir.Field) and e.obj.ty is not None:
            return (
                e.obj.ty.kind in REFS
                and e.name not in ("id", "name")
                and not e.ref.optional
                and self.slot_of(e) is None
            )
        if isinstance(e, Ternary):
            return self.never_none(e.then) and self.never_none(e.orelse)
        return False

    def elements_never_none(self, e: Expr) -> bool:
        """Whether ``e`` is a list of references none of which is none: every record of a
        type, the players, a set field, a list of the scenario's fixed data, a local bound
        once to such a list, a filter of one of these."""
        if isinstance(e, Comp):
            same = isinstance(e.elt, Name) and e.elt.id == e.var
            return same and self.elements_never_none(e.iter)
        t = e.ty
        if t is None or t.kind != "list" or t.elem is None or t.elem.kind not in REFS:
            return False
        if isinstance(e, Name) and e.ref is not None:
            if e.ref[0] in ("players", "all"):
                return True
            if e.ref[0] == "local":
                return self.scope.get(e.id) in self.int_lists
        s = self.slot_of(e)
        if s is not None:
            return s[1].kind == "set"
        return (
            isinstance(e, Attr)
            and isinstance(e.ref, ir.Field)
            and e.obj.ty is not None
            and e.obj.ty.kind in REFS
        )

    def loop_var(self, var: str, it: Expr) -> str:
        """Declare the variable of a loop or a comprehension over ``it`` (an int never none
        where ``it``'s elements are: :meth:`elements_never_none`)."""
        py = self.scope.declare(var, local=False)
        if self.elements_never_none(it):
            self.ints.add(py)
        return py

    def encoded(self, e: Expr) -> str | None:
        """The code of reference ``e`` as a reference slot holds it (-1 for none) when that
        needs no conversion: none, another reference slot, a value never none; else None."""
        if isinstance(e, NoneLit):
            return "-1"
        s = self.slot_of(e)
        if s is not None and s[1].kind == "ref":
            return int_view(s[0])
        return self.expr(e) if self.never_none(e) else None

    def ref_compare(self, e: Compare) -> str | None:
        """A reference field compared with none or a value, on the int the state holds
        (-1 for none) without making a value of it: ``N[k] < 0`` for ``== none``, ``N[k]
        == x`` where ``x`` is never none or another reference slot (an int compare in the
        native build), for a parameter that may be none its int copy (``N[k] == _k_v_x``,
        :attr:`encodable`), and for a local that may be none ``S[k] == x if x is not None
        else N[k] < 0``."""
        if e.op not in ("==", "!="):
            return None
        eq = e.op == "=="
        for side, other in ((e.left, e.right), (e.right, e.left)):
            s = self.slot_of(side)
            if s is None or s[1].kind != "ref":
                continue
            k = int_view(s[0])
            if isinstance(other, NoneLit):
                return f"({k} {'<' if eq else '>='} 0)"
            x = self.encoded(other)
            if x is not None:
                return f"({k} {e.op} {x})"
            if isinstance(other, Name) and other.ref is not None and other.ref[0] == "local":
                x = self.expr(other)
                if x in self.encodable:  # its int copy, -1 for none: an int compare
                    if x not in self.int_copies:
                        self.int_copies.append(x)
                    return f"({k} {e.op} _k_{x})"
                # x is Any to mypyc: the slot compared as an object (no int boxed again)
                return f"({s[0]} {e.op} {x} if {x} is not None else {k} {'<' if eq else '>='} 0)"
        for side, other in ((e.left, e.right), (e.right, e.left)):
            # a fixed optional reference (a tuple holding None: Any to mypyc), compared with
            # a value never none: its copy as ints (-1 for none), an int compare
            fixed = self.fixed_ref_ints(side)
            if fixed is not None and not isinstance(other, NoneLit) and self.never_none(other):
                return f"({fixed} {e.op} {self.expr(other)})"
        return None

    def fixed_ref_ints(self, e: Expr) -> str | None:
        """For a fixed record attribute that names a player or a record and may be none:
        the code of its value as an int, -1 for none (``self.si_e_T__A[r]``)."""
        if not (isinstance(e, Attr) and isinstance(e.ref, ir.Field) and e.obj.ty is not None):
            return None
        if e.obj.ty.kind != "entity" or e.name in ("id", "name"):
            return None
        key = f"si_e_{e.obj.ty.name}__{e.name}"
        if key not in self.sd.data:
            return None
        return f"self.{key}[{self.expr(e.obj)}]"

    def mask(self, e: Expr) -> str | None:
        """The bitmask code of a set-valued expression (a set field, or a filter of one on
        fixed card attributes), or None if ``e`` is not one."""
        e = self.inl(e)
        s = self.read(e)
        if s is not None and s[1].kind == "set":
            return s[0]
        if isinstance(e, Comp) and isinstance(e.elt, Name) and e.elt.id == e.var:
            e = self.flatten(e)
            src = self.mask(e.iter)
            if src is not None and e.iter.ty is not None and e.iter.ty.elem == ir.CARD:
                if e.cond is None:
                    return src
                pred = self.card_predicate(e.cond, e.var)
                if pred is not None:
                    return f"({src} & {pred})"
                player = self.playable_test(e.cond, e.var)
                if player is not None:
                    return f"self.playable_in(S, {src}, {player})"
        return None

    def playable_test(self, cond: Expr, var: str) -> str | None:
        """For a filter ``playable(var, p)`` of a set of cards, ``p`` a player named by a name
        (it reads the same for every card, and reading it once cannot fail): the code of
        ``p``, which ``playable_in`` (dispatch.py) is given with the set."""
        if not (isinstance(cond, Call) and cond.func == "playable" and len(cond.args) == 2):
            return None
        if isinstance(cond.ref, ir.Routine):  # a function of the rules of that name
            return None
        card, player = cond.args
        if not (isinstance(card, Name) and card.id == var and isinstance(player, Name)):
            return None
        if player.id == var or not self.never_none(player):
            return None
        return self.expr(player)

    def card_predicate(self, cond: Expr, var: str) -> str | None:
        """A mask of the cards for which ``cond`` holds, if ``cond`` reads only fixed card
        attributes of ``var`` (compared with values that do not depend on ``var``)."""
        if isinstance(cond, BoolOp):
            a = self.card_predicate(cond.left, var)
            b = self.card_predicate(cond.right, var)
            if a is None or b is None:
                return None
            return f"({a} {'&' if cond.op == 'and' else '|'} {b})"
        if isinstance(cond, Not):
            a = self.card_predicate(cond.operand, var)
            return None if a is None else f"(self.card_all & ~{a})"
        if isinstance(cond, Compare) and cond.op in ("==", "!="):
            for side, other in ((cond.left, cond.right), (cond.right, cond.left)):
                if (
                    isinstance(side, Attr)
                    and isinstance(side.obj, Name)
                    and side.obj.id == var
                    and side.name in self.sd.game.card_attributes
                    and not _mentions(other, var)
                    and not isinstance(other, NoneLit)
                ):
                    m = f"self.mk_card__{side.name}.get({self.expr(other)}, 0)"
                    if self.hoist is not None and self.hoist[1] == len(self.scope.stack):
                        # directly in a comprehension's filter, and the same for every element
                        if not _mentions_any(other, self.scope):
                            name = self.fresh("m")
                            self.hoist[0].append((name, m))
                            m = name
                    return m if cond.op == "==" else f"(self.card_all & ~{m})"
        return None

    # -- literals and names

    def e_Int(self, e: Int) -> str:
        return repr(e.value)

    def e_Bool(self, e: Bool) -> str:
        return "True" if e.value else "False"

    def e_NoneLit(self, e: NoneLit) -> str:
        return "None"

    def e_Str(self, e: Str) -> str:
        if e.ty == ir.TABLE:  # a table id in quotes where a table is expected
            return repr(self.table_index(e.plain))
        if e.is_plain:
            return repr(e.plain)
        parts = [repr(p) if isinstance(p, str) else self.text(p) for p in e.parts]
        return '"".join((' + ", ".join(parts) + ",))"

    def text(self, e: Expr) -> str:
        """Python code giving the value of ``e`` as words for people."""
        return self.text_of(self.expr(e), e.ty)

    def text_of(self, code: str, t: ir.Type | None) -> str:
        if t is None:
            return f"str({code})"
        if t.kind == "player":
            return f"_name(self.name_player, {code})"
        if t.kind == "card":
            return f"_name(self.name_card, {code})"
        if t.kind == "entity":
            if t.name in self.sd.dynamic_labels:
                return f"self.label_{t.name}(S, {code})"
            return f"_name(self.lab_{t.name}, {code})"
        if t.kind == "bool":
            return f'("yes" if {code} else "no")'
        if t.kind == "table":
            return f"_name(self.name_table, {code})"
        if t.kind == "list":
            return f'", ".join([{self.text_of("_x", t.elem)} for _x in {code}])'
        return f"str({code})"

    def e_Name(self, e: Name) -> str:
        ref = e.ref
        if ref is None:
            raise CodegenError(f"unresolved name {e.id!r}")
        kind = ref[0]
        if kind == "local":
            return self.scope.get(e.id)
        if kind == "players":
            return "self.all_player"
        if kind == "all":
            return f"self.all_{ref[1]}"
        if kind == "enum":
            return f"self.e_{ref[1]}"
        if kind == "global":
            s = self.read(e)
            if s is not None:
                return f"_bits({s[0]})" if s[1].kind == "set" else s[0]
            return f"self.s_g_{e.id}"
        if kind == "const":
            return f"self.c_{e.id}"
        if kind == "turn":
            return "S[_TURN]"
        if kind == "seat":
            return f"self.k_player__{self.sd.seats[ref[1]][0]}"
        if kind == "card":
            return f"self.k_card__{self.sd.card_ids[ref[1]]}"
        if kind == "record":
            return f"self.k_{ref[1]}__{self.sd.records[ref[1]][ref[2]]}"
        if kind == "self" and self.record is not None:
            tname, i = self.record
            if e.id in ("id", "name"):
                return f"self.{e.id}_{tname}[{i}]"
            info = self.sd.slot("e", e.id, tname)
            if info is not None:
                code = f"[self.o_{info.key} + {i}]"
                if info.kind == "ref":
                    return f"_ref(N{code})"
                return f"{'N' if int_slot(info) else 'S'}{code}"
            return f"self.s_e_{tname}__{e.id}[{i}]"
        raise CodegenError(f"cannot compile name {e.id!r} ({kind})")

    def e_Attr(self, e: Attr) -> str:
        if e.obj.ty is not None and e.obj.ty.kind == "result":
            return self.result_field(e)
        s = self.read(e)
        if s is not None:
            return f"_bits({s[0]})" if s[1].kind == "set" else s[0]
        scope, name, etype, f, obj = self.field_parts(e)
        if scope == "c":
            if name in ("id", "name"):
                return f"self.{name}_card[{obj}]"
            return f"self.card_{name}[{obj}]"
        kind = "player" if scope == "p" else etype
        if name in ("id", "name"):
            return f"self.{name}_{kind}[{obj}]"
        key = f"s_p_{name}" if scope == "p" else f"s_e_{etype}__{name}"
        return f"self.{key}[{obj}]"

    def e_ListLit(self, e: ListLit) -> str:
        return "[" + ", ".join(self.expr(i) for i in e.items) + "]"

    # -- comprehensions and iteration

    def iterable(self, e: Expr) -> str:
        """An expression only iterated over."""
        e = self.inl(e)
        m = self.mask(e)
        if m is not None:
            return f"_bits({m})"
        return self.expr(e)

    def flatten(self, e: Comp) -> Comp:
        """``[x for x in [y for y in L if c(y)] if d(x)]`` as ``[x for x in L if c(x) and d(x)]``
        (a filter of a filter builds no list in between)."""
        while True:
            inner = self.inl(e.iter)
            if not (
                isinstance(inner, Comp)
                and isinstance(inner.elt, Name)
                and inner.elt.id == inner.var
            ):
                return e
            cond = None
            if inner.cond is not None:
                cond = _rename(copy.deepcopy(inner.cond), inner.var, e.var)
            if e.cond is not None:
                cond = e.cond if cond is None else _and(cond, e.cond)
            flat = copy.copy(e)
            flat.iter = inner.iter
            flat.cond = cond
            e = flat

    def comp_source(self, e: Comp) -> tuple[str, Expr | None]:
        """What a comprehension iterates over, and the part of its filter left to test.

        Over all records of a type, a filter ``x.A == v`` on a fixed attribute ``A`` becomes
        the records with that value (``self.ix_T__A``); ``x.A == v and x.B == w`` on two, the
        records with both (``self.ix_T__A__B``, attributes in name order)."""
        e = self.flatten(e)
        it, cond = e.iter, e.cond
        tname = indexed_type(it)
        if tname is not None and cond is not None:
            parts = self.filter_parts(cond, e.var, tname)
            for i, c in enumerate(parts):
                hit = self.static_equality(c, e.var, tname)
                if hit is not None:
                    attr, other = hit
                    rest = parts[:i] + parts[i + 1 :]
                    for j, c2 in enumerate(rest):
                        # a second fixed attribute: the records with both values
                        hit2 = self.static_equality(c2, e.var, tname)
                        pair = sorted([hit, hit2], key=lambda h: h[0]) if hit2 else []
                        key = f"ix_{tname}__" + "__".join(a for a, _o in pair)
                        if pair and pair[0][0] != pair[1][0] and key in self.sd.data:
                            vals = ", ".join(self.expr(o) for _a, o in pair)
                            others = join_and(rest[:j] + rest[j + 1 :])
                            return f"self.{key}.get(({vals}), ())", others
                    code, nn = self.expr(other), self.never_none(other)
                    src = index_of(self.sd.data, tname, attr, code, nn)
                    return src, join_and(rest)
        return self.iterable(it), cond

    def filter_parts(self, cond: Expr, var: str, tname: str) -> list[Expr]:
        """The parts of a filter of ``var`` over ``tname`` joined by ``and``; if none is an
        equality an index serves, a call among them that can be inlined is replaced by its
        body's parts (``western(p)``: ``p.side == "allies" and ...``), so that an index can
        serve a test written in a function (kept only if it then does)."""
        parts = conjuncts(cond)
        if any(self.static_equality(c, var, tname) for c in parts):
            return parts
        before = self.inlined
        out: list[Expr] = []
        for c in parts:
            sub = self.inl(c)
            out.extend(conjuncts(sub) if sub is not c else [c])
        if any(self.static_equality(c, var, tname) for c in out):
            return out
        self.inlined = before  # nothing gained: the names of inlined variables as before
        return parts

    def static_equality(self, c: Expr, var: str, tname: str) -> tuple[str, Expr] | None:
        if not (isinstance(c, Compare) and c.op == "=="):
            return None
        # a record's fixed attributes; a seat's player fields no rule changes (``s_p_F``)
        if tname == "player":
            fixed = {n for n in self.sd.game.player_fields if f"s_p_{n}" in self.sd.data}
        else:
            fixed = set(self.sd.game.entities[tname].attributes)
        for side, other in ((c.left, c.right), (c.right, c.left)):
            if (
                isinstance(side, Attr)
                and isinstance(side.obj, Name)
                and side.obj.id == var
                and side.name in fixed
                and f"ix_{tname}__{side.name}" in self.sd.data
                and not _mentions(other, var)
            ):
                return side.name, other
            # ``x.A.F``: a fixed attribute naming a seat, seen through a fixed player field
            if (
                isinstance(side, Attr)
                and isinstance(side.obj, Attr)
                and isinstance(side.obj.obj, Name)
                and side.obj.obj.id == var
                and side.obj.name in fixed
                and f"ix_{tname}__{side.obj.name}_of_{side.name}" in self.sd.data
                and not _mentions(other, var)
            ):
                return f"{side.obj.name}_of_{side.name}", other
        return None

    def fuse_sum(self, e: Expr) -> Expr:
        """``sum([sum([E for k in Ts if k.A == q and C]) for q in players if F])`` (after
        inlining, e.g. ``committed(q, c)``) as ``sum([E for k in Ts if F' and C])``, ``F'``
        being ``F`` of ``k.A``: each record counts once, for the seat its fixed attribute
        ``A`` names, if that seat passes ``F`` (ints: the order of the terms does not
        matter). One loop, which an index by ``A``'s seat's fields can serve (``k.A.side``),
        instead of a loop per seat. Else ``e`` as it is."""
        before = self.inlined
        out = self._fuse_sum(e)
        if out is e:
            self.inlined = before  # nothing fused: the names of inlined variables as before
        return out

    def _fuse_sum(self, e: Expr) -> Expr:
        if not (isinstance(e, Comp) and e.cond is not None):
            return e
        outer = self.flatten(e)
        if indexed_type(outer.iter) != "player":
            return e
        inner = self.inl(outer.elt)
        if not (
            isinstance(inner, Call)
            and not isinstance(inner.ref, ir.Routine)
            and inner.func == "sum"
            and len(inner.args) == 1
            and isinstance(inner.args[0], Comp)
        ):
            return e
        ic = self.flatten(inner.args[0])
        tname = indexed_type(ic.iter)
        if tname in (None, "player") or ic.cond is None or ic.var == outer.var:
            return e
        parts = conjuncts(ic.cond)
        et = self.sd.game.entities[tname]
        for i, c in enumerate(parts):
            if not (isinstance(c, Compare) and c.op == "=="):
                continue
            for side, other in ((c.left, c.right), (c.right, c.left)):
                f = et.attributes.get(side.name) if isinstance(side, Attr) else None
                if (
                    f is not None
                    and f.type == ir.PLAYER
                    and not f.optional
                    and isinstance(side.obj, Name)
                    and side.obj.id == ic.var
                    and isinstance(other, Name)
                    and other.id == outer.var
                    and other.ref == ("local", outer.var)
                    and not _binds(ic, outer.var)
                    and not _binds(outer.cond, ic.var)
                ):
                    cond = _put(copy.deepcopy(outer.cond), outer.var, side)
                    # only where an index of A's seats' fields serves the seats' filter
                    hits = [self.static_equality(p, ic.var, tname) for p in conjuncts(cond)]
                    if not any(h and h[0].startswith(f"{side.name}_of_") for h in hits):
                        return e
                    rest = [_put(copy.deepcopy(p), outer.var, side) for p in parts[i + 1 :]]
                    rest = [_put(copy.deepcopy(p), outer.var, side) for p in parts[:i]] + rest
                    fused = copy.copy(ic)
                    fused.cond = join_and([cond, *rest])
                    fused.elt = _put(copy.deepcopy(ic.elt), outer.var, side)
                    return fused
        return e

    def e_Comp(self, e: Comp) -> str:
        m = self.mask(e)
        if m is not None:
            return f"_bits({m})"
        src, cond = self.comp_source(e)
        self.scope.push()
        var = self.loop_var(e.var, e.iter)
        hoisted: list[tuple[str, str]] = []
        outer, self.hoist = self.hoist, (hoisted, len(self.scope.stack))
        elt = self.expr(e.elt)
        test = f" if {self.expr(cond)}" if cond is not None else ""
        self.hoist = outer
        self.scope.pop()
        lets = "".join(f" for {name} in ({code},)" for name, code in hoisted)
        if lets:
            return f"[{elt}{lets} for {var} in {src}{test}]"
        return f"[{elt} for {var} in {src}{test}]"

    def element_count(self, comp: Comp, test: bool = False) -> str | None:
        """``count([c for c in xs if c == v])`` as ``xs.count(v)`` (with ``test``, whether
        there is one: ``v in xs``), counted in C without a loop in Python; None if ``comp``
        is not such a filter (its element the variable itself, its filter the variable
        equal to a name or a constant, which evaluates once without failing where the loop
        evaluated it per element; of a type compared as Python compares it: not a list or a
        set). Both compare with ``==`` as the filter does."""
        if not (isinstance(comp.elt, Name) and comp.elt.id == comp.var) or self.mask(comp):
            return None
        src, cond = self.comp_source(comp)
        if not (isinstance(cond, Compare) and cond.op == "=="):
            return None
        for side, other in ((cond.left, cond.right), (cond.right, cond.left)):
            if (
                isinstance(side, Name)
                and side.id == comp.var
                and side.ty is not None
                and side.ty.kind not in ("list", "set")
                and isinstance(other, (Name, Int, Str, Bool))
                and not _mentions(other, comp.var)
            ):
                value = self.expr(other)
                return f"({value} in {src})" if test else f"{src}.count({value})"
        return None

    def any_of(self, comp: Comp) -> str:
        """``count(comp) > 0`` without building the list."""
        m = self.mask(comp)
        if m is not None:
            return f"({m} != 0)"
        found = self.element_count(comp, test=True)
        if found is not None:
            return found
        src, cond = self.comp_source(comp)
        if cond is None:
            return f"(len({src}) > 0)"
        self.scope.push()
        var = self.loop_var(comp.var, comp.iter)
        hoisted: list[tuple[str, str]] = []
        outer, self.hoist = self.hoist, (hoisted, len(self.scope.stack))
        test = self.expr(cond)
        self.hoist = outer
        self.scope.pop()
        lets = "".join(f" for {name} in ({code},)" for name, code in hoisted)
        return f"any({test}{lets} for {var} in {src})"

    # -- operators

    def e_BinOp(self, e: BinOp) -> str:
        if e.op == "+" and e.ty is not None and e.ty.kind == "list":
            return f"[*{self.iterable(e.left)}, *{self.iterable(e.right)}]"
        return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"

    def e_Compare(self, e: Compare) -> str:
        left, right = e.left, e.right
        if isinstance(right, Int) and right.value == 0 and e.op in (">", "!=", "=="):
            if isinstance(left, Call) and left.func == "count" and len(left.args) == 1:
                arg = self.inl(left.args[0])
                m = self.mask(arg)
                if m is not None:
                    return f"({m} {'==' if e.op == '==' else '!='} 0)"
                if isinstance(arg, Comp):
                    test = self.any_of(arg)
                    return f"(not {test})" if e.op == "==" else test
        ref = self.ref_compare(e)
        if ref is not None:
            return ref
        if (
            isinstance(right, NoneLit)
            or isinstance(left, NoneLit)
            or (e.op in ("==", "!=") and (isinstance(right, Bool) or isinstance(left, Bool)))
        ):
            # `x == true` of an optional bool: `is` (an equality with True is E712)
            op = {"==": "is", "!=": "is not"}[e.op]
            return f"({self.expr(left)} {op} {self.expr(right)})"
        if left.ty is not None and left.ty.kind == "list" and e.op in ("==", "!="):
            return f"(list({self.iterable(left)}) {e.op} list({self.iterable(right)}))"
        return f"({self.expr(left)} {e.op} {self.expr(right)})"

    def e_In(self, e: In) -> str:
        m = self.mask(e.coll)
        if m is not None:
            item = self.expr(e.item)
            test = f"_has({m}, {item})"
            return f"(not {test})" if e.negate else test
        op = "not in" if e.negate else "in"
        return f"({self.expr(e.item)} {op} {self.expr(e.coll)})"

    def e_BoolOp(self, e: BoolOp) -> str:
        return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"

    def e_Not(self, e: Not) -> str:
        return f"(not {self.expr(e.operand)})"

    def e_Neg(self, e: Neg) -> str:
        if isinstance(e.operand, Neg):
            # -(-x) is x (an int): `-(-x)` in Python, in any parentheses, fails lint (B002)
            return self.expr(e.operand.operand)
        return f"(-{self.expr(e.operand)})"

    def e_Ternary(self, e: Ternary) -> str:
        return f"({self.expr(e.then)} if {self.expr(e.cond)} else {self.expr(e.orelse)})"

    # -- calls that compute values

    def e_Call(self, e: Call) -> str:
        if isinstance(e.ref, ir.Routine):
            if e.ref.kind != "function":
                raise CodegenError(f"procedure {e.func!r} in an expression")
            sub = self.inl(e)
            if sub is not e:
                return f"({self.expr(sub)})"
            codes = [self.expr(a) for a in e.args]
            return f"self.f_{e.func}({', '.join(['S', *codes])})"
        b = BUILTINS.get(e.func)
        if b is None or b.emit is None:
            raise CodegenError(f"{e.func}() is not an expression")
        return b.emit(self, e)

    def table_index(self, tid: str) -> int:
        """The number of a table of the game (its index in the scenario's tables)."""
        return table_ids(self.sd.game).index(tid)

    def static_table(self, a: Expr) -> str | None:
        """The id of a table named in quotes, or None for a table value."""
        return a.plain if isinstance(a, Str) and a.is_plain else None

    def result_field(self, e: Attr) -> str:
        """A field of a table result record ``(table, cell, code, value, permanent)``."""
        r = self.expr(e.obj)
        index = {"table": 0, "code": 2, "value": 3, "permanent": 4, "roll": 5, "column": 6}
        if e.name in index:
            return f"{r}[{index[e.name]}]"
        tid = e.obj.ty.name if e.obj.ty is not None else ""
        if e.name == "shift":
            if not tid:
                return f"_cell_shift(self.tabs[{r}[0]], {r}[1])"
            if not any(
                c.result is not None and c.result.shift for c in self.sd.game.tables[tid].cells()
            ):
                return "0"
            return f"self.t_{tid}[8][{r}[1]]"
        assert e.name == "text"
        if tid:
            return f"self.t_{tid}[7][{r}[1]]"
        return f"self.tabs[{r}[0]][7][{r}[1]]"

    # -- inlining

    def inl(self, e: Expr) -> Expr:
        """``e``, or the body of the function it calls when that can stand in its place."""
        while isinstance(e, Call) and isinstance(e.ref, ir.Routine) and e.ref.kind == "function":
            sub = self.inline_ast(e)
            if sub is None:
                break
            e = sub
        return e

    def inline_ast(self, c: Call) -> Expr | None:
        """A function that only returns an expression, as that expression with its
        parameters replaced by the arguments (comprehension variables renamed apart), when
        it is the same in every scenario, not recursive, and no argument is evaluated twice."""
        r = c.ref
        assert isinstance(r, ir.Routine)
        if r.name in self.sd.recursive() or r.name not in self.sd.stable:
            return None
        body = r.body
        if len(body) != 1 or not isinstance(body[0], Return) or body[0].value is None:
            return None
        value = body[0].value
        params = {name for name, _t in r.params}
        uses: dict[str, int] = {}
        for n in walk(value):
            if isinstance(n, Name) and n.ref is not None and n.ref[0] == "local":
                uses[n.id] = uses.get(n.id, 0) + 1
        args = dict(zip([p for p, _ in r.params], c.args, strict=True))
        for name, a in args.items():
            if uses.get(name, 0) > 1 and not isinstance(a, (Name, Int, Bool, NoneLit)):
                return None
        self.inlined += 1
        return _substitute(copy.deepcopy(value), args, params, f"__{self.inlined}")


def _substitute(e: Any, args: dict[str, Expr], params: set[str], suffix: str) -> Any:
    """Replace parameter names by (copies of) arguments; rename comprehension variables."""
    renamed: dict[str, str] = {}

    def visit(node: Any) -> Any:
        if isinstance(node, Name) and node.ref is not None and node.ref[0] == "local":
            if node.id in renamed:
                node.id = renamed[node.id]
                node.ref = ("local", node.id)
                return node
            if node.id in params:
                return copy.deepcopy(args[node.id])
            return node
        if isinstance(node, Comp):
            renamed[node.var] = node.var + suffix
            node.var = renamed[node.var]
        for name, value in list(vars(node).items()):
            if name in ("src", "ty", "ref"):
                continue
            if isinstance(value, Expr):
                setattr(node, name, visit(value))
            elif isinstance(value, list):
                setattr(node, name, [visit(x) if isinstance(x, Expr) else x for x in value])
            elif isinstance(value, dict):  # a call's named arguments
                setattr(
                    node,
                    name,
                    {k: visit(x) if isinstance(x, Expr) else x for k, x in value.items()},
                )
        return node

    return visit(e)


def _binds(e: Any, name: str) -> bool:
    """Whether a comprehension inside ``e`` binds ``name``."""
    return any(isinstance(n, Comp) and n.var == name for n in walk(e))


def _map_children(e: Any, f: Any) -> Any:
    """``e`` with ``f`` applied to each expression it holds (in lists and a call's named
    arguments too; not its source, type or reference)."""
    for key, v in list(vars(e).items()):
        if key in ("src", "ty", "ref"):
            continue
        if isinstance(v, Expr):
            setattr(e, key, f(v))
        elif isinstance(v, list):
            setattr(e, key, [f(x) if isinstance(x, Expr) else x for x in v])
        elif isinstance(v, dict):  # a call's named arguments
            setattr(e, key, {k: f(x) if isinstance(x, Expr) else x for k, x in v.items()})
    return e


def _put(e: Any, name: str, value: Expr) -> Any:
    """``e`` with local ``name`` replaced by (a copy of) ``value`` (no comprehension in ``e``
    binds ``name``: :func:`_binds`)."""
    if isinstance(e, Name) and e.id == name and e.ref == ("local", name):
        return copy.deepcopy(value)
    return _map_children(e, lambda x: _put(x, name, value))


def _rename(e: Any, old: str, new: str) -> Any:
    """Rename local ``old`` to ``new`` in an expression (not inside a comprehension of the
    same name)."""
    if isinstance(e, Name) and e.id == old and e.ref is not None and e.ref[0] == "local":
        e.id = new
        e.ref = ("local", new)
        return e
    if isinstance(e, Comp) and e.var == old:
        e.iter = _rename(e.iter, old, new)
        return e
    return _map_children(e, lambda x: _rename(x, old, new))


def _and(a: Expr, b: Expr) -> Expr:
    out = BoolOp(a.src, a.off, "and", a, b)
    out.ty = ir.BOOL
    return out


def _mentions_any(e: Expr, scope: Scope) -> bool:
    """Whether ``e`` reads a variable bound by the innermost scope (a comprehension's)."""
    inner = scope.stack[-1]
    return any(isinstance(n, Name) and n.id in inner for n in walk(e))


def _mentions(e: Expr, var: str) -> bool:
    return any(isinstance(n, Name) and n.id == var for n in walk(e))


def int_view(code: str) -> str:
    """The code of a state slot (``S[...]``) read or written through the int view ``N``
    (:func:`.pytext.bind_int_view`), which the native build keeps unboxed."""
    return "N" + code[1:]


def int_slot(info: Any) -> bool:
    """Whether a state slot always holds an int: an int field that cannot be none, a set (a
    bitmask) or a reference (-1 for none)."""
    return info.kind in ("set", "ref") or (info.kind == "int" and not info.field.optional)
