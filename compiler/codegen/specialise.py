"""Specialising passes over the text of a plain method (``f_``, ``p_``, ``q_``): rewrites
that keep its meaning (the same values, the same draws of ``R()`` in the same order) and
make it cheaper to run, interpreted and under mypyc.

- ``lower_loops``: ``any``, ``sum`` and ``len`` of a comprehension become loops in the
  method's statements (a loop is about 3x cheaper than ``any()`` over a generator in
  CPython 3.11, and it stops at the first hit); so does a list comprehension only drawn from
  (``_pick``, ``_pick_optional``) or whose first item is taken (``_head``, which stops at the
  first hit if nothing in the loop calls anything); a filter of a set's members drawn from
  keeps them as a set (a mask, ``_bits(k)``), not a list. A local list only ever measured
  (``v = [...]`` assigned once, read only as ``len(v)``) becomes its count.
- ``guard_logs``: a log line whose arguments call nothing is written under ``if S[_LOG] is not
  False:``, so a playout (the log off) builds no argument tuple and makes no call for it.
- ``inline_helpers``: the prelude's ``_bits``, ``_pick`` and ``_head`` (and ``_take`` on
  request) as expressions in the method for their common case (see its section).
"""

from __future__ import annotations

import ast
import copy
import re

# ---------------------------------------------------------------------------- loops


#: a rules-position marker line (see ``forms.py``): kept through the AST as a call
_MARKER_LINE = re.compile(r"(?m)^(\s*)(#@.*)$")
_MARKER_CALL = re.compile(r"(?m)^(\s*)_marker_\('(#@.*)'\)$")


def parse_method(code: str) -> ast.Module:
    """The syntax tree of a method's text, its rules-position markers kept as calls."""
    return ast.parse(_MARKER_LINE.sub(lambda m: f"{m.group(1)}_marker_({m.group(2)!r})", code))


def method_text(tree: ast.Module) -> str:
    """The text of a tree from ``parse_method``, the markers comments again."""
    text = ast.unparse(ast.fix_missing_locations(tree))
    return _MARKER_CALL.sub(lambda m: m.group(1) + m.group(2), text)


def lower_loops(code: str) -> str:
    """``any(...)``, ``sum(...)`` and ``len([...])`` of comprehensions as loops in the
    method's statements (an ``any`` stops at the first hit), without a generator or a list
    per call. Every expression is still evaluated in the same order, and only where it was
    (the right side of ``and``/``or``, a branch of ``x if c else y``): what comes before a
    lowered part in evaluation order and may call something is evaluated into a temporary
    first."""
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    taken = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    counted = _counts_only(fn)
    low = _Lowerer(taken)
    fn.body = low.block(fn.body)
    if not low.changed and not counted:
        return code
    return method_text(tree)


def _counts_only(fn: ast.FunctionDef) -> bool:
    """Each local list only measured (assigned once, ``v = [...]``, and read only as
    ``len(v)``) as its count: ``v = len([...])`` (a loop that counts, once lowered) and
    ``v`` for ``len(v)``. Whether any was."""
    stores: dict[str, list[ast.AST]] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores.setdefault(n.id, []).append(n)
        elif isinstance(n, ast.arg):
            stores.setdefault(n.arg, []).append(n)
    lists = {
        s.targets[0].id: s
        for s in ast.walk(fn)
        if isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and isinstance(s.value, ast.ListComp)
        and len(stores[s.targets[0].id]) == 1
    }
    measured = {id(a) for n in ast.walk(fn) if (a := _builtin_call(n, "len")) is not None}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in measured:
            lists.pop(n.id, None)
    if not lists:
        return False
    for s in lists.values():
        s.value = ast.Call(_name("len"), [s.value], [])
    _Unmeasure(set(lists)).visit(fn)
    return True


class _Unmeasure(ast.NodeTransformer):
    """``len(v)`` as ``v`` for the locals ``names`` (now counts)."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Call(self, node: ast.Call) -> ast.expr:
        arg = _builtin_call(node, "len")
        if isinstance(arg, ast.Name) and arg.id in self.names:
            return _name(arg.id)
        self.generic_visit(node)
        return node


def _name(n: str, store: bool = False) -> ast.Name:
    return ast.Name(n, ast.Store() if store else ast.Load())


def assign(n: str, value: ast.expr) -> ast.Assign:
    """The statement ``n = value``."""
    return ast.Assign([_name(n, True)], value, lineno=0)


def become(node: ast.AST, new: ast.AST) -> None:
    """Turn ``node`` into ``new`` in place (its parent keeps pointing at it)."""
    node.__class__ = new.__class__
    node.__dict__.clear()
    node.__dict__.update(new.__dict__)


def _set_target(target: ast.expr, value: ast.expr) -> ast.stmt:
    return ast.Assign([target], value, lineno=0)


def _calls(e: ast.AST) -> bool:
    """Whether evaluating ``e`` may call something (anything but reads of names, constants,
    subscripts and attributes)."""
    return any(isinstance(n, (ast.Call, ast.Lambda, ast.comprehension)) for n in ast.walk(e))


def _builtin_call(e: ast.expr, name: str) -> ast.expr | None:
    """The only argument of ``name(arg)`` (a call of the builtin)."""
    if (
        isinstance(e, ast.Call)
        and isinstance(e.func, ast.Name)
        and e.func.id == name
        and len(e.args) == 1
        and not e.keywords
        and not isinstance(e.args[0], ast.Starred)
    ):
        return e.args[0]
    return None


def _one_loop(e: ast.expr | None) -> ast.ListComp | ast.GeneratorExp | None:
    """A comprehension with one loop: its other ``for``s bind one value (``for x in (v,)``)."""
    if isinstance(e, (ast.ListComp, ast.GeneratorExp)):
        loops = [g for g in e.generators if _let(g) is None]
        if len(loops) == 1 and not any(g.is_async for g in e.generators):
            return e
    return None


def _let(g: ast.comprehension) -> ast.expr | None:
    """The value ``v`` of a generator ``for x in (v,)``, which binds ``x`` once."""
    if isinstance(g.target, ast.Name) and isinstance(g.iter, ast.Tuple) and len(g.iter.elts) == 1:
        v = g.iter.elts[0]
        return None if isinstance(v, ast.Starred) else v
    return None


class _Lowerer:
    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.n = 0
        self.changed = False

    def tmp(self) -> str:
        while True:
            self.n += 1
            name = f"_w{self.n}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    # -- statements

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s: ast.stmt) -> list[ast.stmt]:
        pre: list[ast.stmt] = []
        if isinstance(s, (ast.Return, ast.Expr)) and s.value is not None:
            s.value = self.expr(s.value, pre)
        elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and s.value is not None:
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            if not any(_calls(t) for t in targets):
                s.value = self.expr(s.value, pre)
        elif isinstance(s, ast.If):
            s.test = self.expr(s.test, pre)
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
        elif isinstance(s, ast.For):
            s.iter = self.expr(s.iter, pre)
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
        elif isinstance(s, ast.While):
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
        return [*pre, s]

    # -- expressions

    def expr(self, e: ast.expr, pre: list[ast.stmt]) -> ast.expr:
        """``e`` with its loops lowered: statements appended to ``pre`` compute them."""
        taken = _taken_list(e)
        if taken is not None:
            # the other arguments (``R``) are names: nothing before the list calls anything
            assert isinstance(e, ast.Call) and isinstance(e.func, ast.Name)
            if e.func.id != "_head" and _set_filter(taken):
                e.args[-1] = self.kept_bits(taken, pre)
                return e
            first = e.func.id == "_head" and not _loop_calls(taken)
            e.args[-1] = self.listcomp(taken, pre, force=True, first=first)
            return e
        for fold in ("any", "sum", "len"):
            arg = _builtin_call(e, fold)
            comp = _one_loop(arg)
            if comp is not None and (fold != "len" or isinstance(comp, ast.ListComp)):
                return self.fold(fold, comp, pre)
        if isinstance(e, ast.BoolOp):
            return self.boolop(e, pre)
        if isinstance(e, ast.IfExp):
            return self.ifexp(e, pre)
        if isinstance(e, ast.ListComp) and _one_loop(e) is not None:
            return self.listcomp(e, pre)
        return self.generic(e, pre)

    def fold(
        self, fold: str, comp: ast.ListComp | ast.GeneratorExp, pre: list[ast.stmt]
    ) -> ast.expr:
        t = self.tmp()
        self.changed = True
        inner: list[ast.stmt] = []
        if fold == "any":
            pre.append(assign(t, ast.Constant(False)))
            elt = self.expr(comp.elt, inner)
            inner.append(ast.If(elt, [assign(t, ast.Constant(True)), ast.Break()], []))
        elif fold == "sum":
            pre.append(assign(t, ast.Constant(0)))
            elt = self.expr(comp.elt, inner)
            inner.append(ast.AugAssign(_name(t, True), ast.Add(), elt))
        else:
            pre.append(assign(t, ast.Constant(0)))
            if not isinstance(comp.elt, (ast.Name, ast.Constant)):
                # len() does not look at the elements, but they are still computed
                inner.append(ast.Expr(self.expr(comp.elt, inner)))
            inner.append(ast.AugAssign(_name(t, True), ast.Add(), ast.Constant(1)))
        pre.extend(self.nest(comp.generators, inner))
        return _name(t)

    def listcomp(
        self, comp: ast.ListComp, pre: list[ast.stmt], force: bool = False, first: bool = False
    ) -> ast.expr:
        """A list comprehension with something to lower inside (or ``force``), as a loop that
        appends (and with ``first``, stops after the first item)."""
        probe: list[ast.stmt] = []
        gens = comp.generators
        for part in copy.deepcopy(_per_item(comp)):
            self.expr(part, probe)
        if not probe and len(gens) == 1 and not force:
            gens[0].iter = self.expr(gens[0].iter, pre)
            return comp
        # lowered inside, or a value bound by a `for`: as statements of the loop's body
        t = self.tmp()
        self.changed = True
        pre.append(assign(t, ast.List([], ast.Load())))
        inner: list[ast.stmt] = []
        value = self.expr(comp.elt, inner)
        append = ast.Attribute(_name(t), "append", ast.Load())
        inner.append(ast.Expr(ast.Call(append, [value], [])))
        if first:
            inner.append(ast.Break())
        pre.extend(self.nest(gens, inner))
        return _name(t)

    def kept_bits(self, comp: ast.ListComp, pre: list[ast.stmt]) -> ast.expr:
        """The members of a set a draw is made from, ``[x for x in _bits(m) if ...]``, as the
        set of those kept, ``_bits(k)``: the filters are tested in the same order, and the
        members come in the same (increasing) order, without a list built item by item."""
        t = self.tmp()
        self.changed = True
        pre.append(assign(t, ast.Constant(0)))
        (g,) = comp.generators
        assert isinstance(g.target, ast.Name)
        member = ast.BinOp(ast.Constant(1), ast.LShift(), _name(g.target.id))
        inner: list[ast.stmt] = [assign(t, ast.BinOp(_name(t), ast.BitOr(), member))]
        pre.extend(self.nest(comp.generators, inner))
        return _call("_bits", _name(t))

    def nest(self, gens: list[ast.comprehension], inner: list[ast.stmt]) -> list[ast.stmt]:
        """The generators of a comprehension as statements around ``inner``: a loop for a
        ``for``, an assignment for a ``for x in (v,)``, an ``if`` per filter."""
        g = gens[0]
        head: list[ast.stmt] = []
        value = _let(g)
        if value is not None:
            head.append(_set_target(g.target, self.expr(value, head)))
        body = self.guarded(g.ifs, self.nest(gens[1:], inner) if gens[1:] else inner)
        if value is not None:
            return [*head, *body]
        it = self.expr(g.iter, head)
        return [*head, ast.For(g.target, it, body, [], lineno=0)]

    def guarded(self, ifs: list[ast.expr], inner: list[ast.stmt]) -> list[ast.stmt]:
        """``inner`` under the filters of a comprehension, each tested in turn."""
        if not ifs:
            return inner
        body: list[ast.stmt] = []
        cond = self.expr(ifs[0], body)
        body.append(ast.If(cond, self.guarded(ifs[1:], inner), []))
        return body

    def boolop(self, e: ast.BoolOp, pre: list[ast.stmt]) -> ast.expr:
        first = self.expr(e.values[0], pre)
        subs: list[tuple[list[ast.stmt], ast.expr]] = []
        for v in e.values[1:]:
            sub: list[ast.stmt] = []
            subs.append((sub, self.expr(v, sub)))
        if not any(sub for sub, _v in subs):
            return ast.BoolOp(e.op, [first, *(v for _s, v in subs)])
        t = self.tmp()
        pre.append(assign(t, first))
        body: list[ast.stmt] = []
        for sub, v in reversed(subs):
            step = [*sub, assign(t, v)]
            if body:
                step.append(body[0])
            test: ast.expr = _name(t)
            if isinstance(e.op, ast.Or):
                test = ast.UnaryOp(ast.Not(), test)
            body = [ast.If(test, step, [])]
        pre.extend(body)
        return _name(t)

    def ifexp(self, e: ast.IfExp, pre: list[ast.stmt]) -> ast.expr:
        test = self.expr(e.test, pre)
        sb: list[ast.stmt] = []
        so: list[ast.stmt] = []
        body, orelse = self.expr(e.body, sb), self.expr(e.orelse, so)
        if not sb and not so:
            return ast.IfExp(test, body, orelse)
        t = self.tmp()
        pre.append(ast.If(test, [*sb, assign(t, body)], [*so, assign(t, orelse)]))
        return _name(t)

    def generic(self, e: ast.expr, pre: list[ast.stmt]) -> ast.expr:
        """Operators, calls, subscripts...: their parts in evaluation order."""
        if isinstance(e, ast.Call):
            parts = [e.func, *e.args, *(k.value for k in e.keywords)]
        elif isinstance(e, ast.Compare):
            parts = [e.left, *e.comparators]
        elif isinstance(e, ast.BinOp):
            parts = [e.left, e.right]
        elif isinstance(e, ast.UnaryOp):
            parts = [e.operand]
        elif isinstance(e, ast.Subscript):
            parts = [e.value, e.slice]
        elif isinstance(e, ast.Attribute):
            parts = [e.value]
        elif isinstance(e, (ast.Tuple, ast.List)):
            parts = list(e.elts)
        else:
            return e
        if any(isinstance(p, (ast.Starred, ast.Slice)) for p in parts):
            return e
        if isinstance(e, ast.Compare) and any(_has_fold(p) for p in parts[2:]):
            return e  # a chained comparison evaluates its later parts only if need be
        return self._parts(e, parts, pre)

    def _parts(self, e: ast.expr, parts: list[ast.expr], pre: list[ast.stmt]) -> ast.expr:
        subs: list[tuple[list[ast.stmt], ast.expr]] = []
        for p in parts:
            sub: list[ast.stmt] = []
            subs.append((sub, self.expr(p, sub)))
        last = max((i for i, (sub, _v) in enumerate(subs) if sub), default=-1)
        new: list[ast.expr] = []
        for i, (sub, v) in enumerate(subs):
            pre.extend(sub)
            if i < last and _calls(v):
                t = self.tmp()
                pre.append(assign(t, v))
                v = _name(t)
            new.append(v)
        _replace(e, new)
        return e


#: calls whose list argument (the last) is only drawn from or has its first item taken
_TAKERS = {"_pick": 2, "_pick_optional": 2, "_head": 1}


def _taken_list(e: ast.expr) -> ast.ListComp | None:
    """The list comprehension (one loop) that ``_pick(R, [...])``, ``_pick_optional(R,
    [...])`` or ``_head([...])`` is given, its other argument a name."""
    if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and not e.keywords):
        return None
    if _TAKERS.get(e.func.id) != len(e.args) or not all(
        isinstance(a, ast.Name) for a in e.args[:-1]
    ):
        return None
    comp = _one_loop(e.args[-1])
    return comp if isinstance(comp, ast.ListComp) else None


def _set_filter(comp: ast.ListComp) -> bool:
    """Whether a comprehension keeps some members of a set as they are: ``[x for x in _bits(m)
    if ...]`` (one ``for``, at least one filter)."""
    gens = comp.generators
    if len(gens) != 1 or not gens[0].ifs or _builtin_call(gens[0].iter, "_bits") is None:
        return False
    t, elt = gens[0].target, comp.elt
    return isinstance(t, ast.Name) and isinstance(elt, ast.Name) and elt.id == t.id


def _loop_calls(comp: ast.ListComp) -> bool:
    """Whether what a comprehension evaluates per item may call something (what a loop that
    stops early would then leave out: a draw, an error)."""
    return any(_calls(p) for p in _per_item(comp))


def _per_item(comp: ast.ListComp) -> list[ast.expr]:
    """What a comprehension with one loop evaluates for each item: its element, its filters
    and the values its other ``for``s bind."""
    gens = comp.generators
    return [comp.elt, *(c for g in gens for c in g.ifs), *(g.iter for g in gens[1:])]


def _has_fold(e: ast.expr) -> bool:
    return any(isinstance(n, (ast.GeneratorExp, ast.ListComp)) for n in ast.walk(e))


def _replace(e: ast.expr, new: list[ast.expr]) -> None:
    """Put the lowered parts back into ``e`` (in the order ``generic`` listed them)."""
    if isinstance(e, ast.Call):
        e.func, rest = new[0], new[1:]
        e.args, kw = rest[: len(e.args)], rest[len(e.args) :]
        for k, v in zip(e.keywords, kw, strict=True):
            k.value = v
    elif isinstance(e, ast.Compare):
        e.left, e.comparators = new[0], new[1:]
    elif isinstance(e, ast.BinOp):
        e.left, e.right = new
    elif isinstance(e, ast.UnaryOp):
        (e.operand,) = new
    elif isinstance(e, ast.Subscript):
        e.value, e.slice = new
    elif isinstance(e, ast.Attribute):
        (e.value,) = new
    elif isinstance(e, (ast.Tuple, ast.List)):
        e.elts = new


# ---------------------------------------------------------------------------- logs

#: the log helpers, which do nothing while the log is off (``S[_LOG] is False``, a playout)
_LOGS = frozenset(("_log", "_log_to"))
#: what a guarded log line's arguments may hold: reads and arithmetic that cannot fail
_PLAIN_NODES = (
    ast.Name,
    ast.Constant,
    ast.Tuple,
    ast.Subscript,
    ast.Attribute,
    ast.BinOp,
    ast.UnaryOp,
    ast.Load,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.BitAnd,
    ast.BitOr,
    ast.BitXor,
    ast.LShift,
    ast.Invert,
    ast.USub,
    ast.UAdd,
    ast.Not,
)


def _log_line(s: ast.stmt) -> bool:
    """Whether ``s`` is ``_log(S, ...)`` / ``_log_to(S, ...)`` whose arguments only read."""
    if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)):
        return False
    c = s.value
    if not (isinstance(c.func, ast.Name) and c.func.id in _LOGS) or c.keywords:
        return False
    if not c.args or not (isinstance(c.args[0], ast.Name) and c.args[0].id == "S"):
        return False
    return all(isinstance(n, _PLAIN_NODES) or _decoded(n) for a in c.args[1:] for n in ast.walk(a))


def _decoded(n: ast.AST) -> bool:
    """Whether ``n`` is ``_ref(x)``: a reference slot read as a value (-1 as None), which
    only reads."""
    return (
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "_ref"
        and len(n.args) == 1
        and not n.keywords
    )


def _guard(stmts: list[ast.stmt]) -> tuple[list[ast.stmt], bool]:
    out: list[ast.stmt] = []
    changed = False
    for s in stmts:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(s, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                new, ch = _guard(block)
                setattr(s, name, new)
                changed |= ch
        for h in getattr(s, "handlers", ()):
            h.body, ch = _guard(h.body)
            changed |= ch
        if _log_line(s):
            off = ast.Compare(
                ast.Subscript(_name("S"), _name("_LOG"), ast.Load()),
                [ast.IsNot()],
                [ast.Constant(False)],
            )
            s = ast.If(off, [s], [])
            changed = True
        out.append(s)
    return out, changed


def guard_logs(code: str) -> str:
    """Each statement ``_log(S, t, args)`` (or ``_log_to``) whose arguments only read names,
    the state and the data (no call, no division) under ``if S[_LOG] is not False:``: the
    same lines while the log is on, and in a playout no tuple of arguments and no call. A
    line whose arguments call something is left as it is (what it calls still runs)."""
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    fn.body, changed = _guard(fn.body)
    if not changed:
        return code
    return method_text(tree)


# ---------------------------------------------------------------------------- helpers

# Prelude helpers inlined into a plain method (``f_``, ``p_``, ``q_``): the common case of
# ``_bits``, ``_pick``, ``_head`` and ``_take`` as an expression in the method, the helper
# itself called only for the rest (its errors, its rare cases), so every value, error and draw
# of ``R()`` stays what the helper gives. Interpreted, a call of a Python function costs more
# than what these helpers do in their common case (callgrind: about 400 instructions a call).
#
# - ``_bits(m)`` -> ``(_BITS8[m] if 0 <= m < 256 else _bits(m))``: the prelude's ``BITS8``,
#   the tuples the helper gives for a mask of the first 8 bits.
# - ``_pick(R, xs)`` -> ``(xs[0] if (n := len(xs)) == 1 else xs[int(R() * n)] if n else
#   _pick(R, xs))``: no draw for one option, one draw for more, the helper's DeadEnd for none.
# - ``_head(xs)`` -> ``(xs[0] if xs else _head(xs))``: the helper's error for an empty list.
# - ``_take(m, c)`` -> ``(m & ~(1 << c) if c is not None and m >> c & 1 else _take(m, c))``:
#   the helper's error for a card not in the set (``m`` read again: it only reads).
#
# An argument that is not a name is bound once to a temporary (``:=``) in its place in the
# order of evaluation; where Python forbids ``:=`` (a comprehension's iterable), or where an
# argument that must be read again calls something, the call is left as it is.

#: the helpers inlined, by the name generated code calls them, and their arity
_HELPERS = {"_bits": 1, "_pick": 2, "_head": 1, "_take": 2}
#: the helpers the code generator inlines: not ``_take``, whose inline shift of an untyped
#: card costs the native build more (1.059x fewer instructions a Thirty Years War game
#: without it) than the call costs interpreted (1.014x)
INLINED = frozenset({"_bits", "_pick", "_head"})


def inline_helpers(code: str, helpers: frozenset[str] = INLINED) -> str:
    """``code`` (one method) with the calls of ``helpers`` inlined (see above)."""
    if not any(h + "(" in code for h in helpers):
        return code
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    taken = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    inl = _Inliner(taken, helpers)
    inl.visit(fn)
    if not inl.changed:
        return code
    return method_text(tree)


def _load(e: ast.expr) -> ast.expr:
    """A fresh copy of a name or a read, to be evaluated again."""
    return ast.parse(ast.unparse(e), mode="eval").body


def _cmp(left: ast.expr, op: ast.cmpop, right: ast.expr) -> ast.Compare:
    return ast.Compare(left, [op], [right])


class _Inliner(ast.NodeTransformer):
    def __init__(self, taken: set[str], helpers: frozenset[str]) -> None:
        self.taken = taken
        self.helpers = helpers
        self.n = 0
        self.changed = False
        self.no_walrus = 0  # inside a comprehension's iterable

    def tmp(self, stem: str) -> str:
        while True:
            self.n += 1
            name = f"_{stem}{self.n}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def bound(self, e: ast.expr, stem: str) -> tuple[ast.expr, ast.expr] | None:
        """How ``e`` is evaluated first (itself, or ``(t := e)``) and read again (itself, or
        ``t``); None where it would need a ``:=`` Python forbids here."""
        if isinstance(e, (ast.Name, ast.Constant)):
            return e, _load(e)
        if self.no_walrus:
            return None
        t = self.tmp(stem)
        return ast.NamedExpr(_name(t, True), e), _name(t)

    # -- comprehensions: no ``:=`` in an iterable

    def _comp(self, node: ast.AST) -> ast.AST:
        gens: list[ast.comprehension] = node.generators  # type: ignore[attr-defined]
        for g in gens:
            self.no_walrus += 1
            g.iter = self.visit(g.iter)
            self.no_walrus -= 1
            g.ifs = [self.visit(c) for c in g.ifs]
        for field in ("elt", "key", "value"):
            if hasattr(node, field):
                setattr(node, field, self.visit(getattr(node, field)))
        return node

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comp

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node  # a lambda's own scope: left alone

    # -- the helpers

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if not (
            isinstance(f, ast.Name)
            and f.id in self.helpers
            and _HELPERS[f.id] == len(node.args)
            and not node.keywords
            and not any(isinstance(a, ast.Starred) for a in node.args)
        ):
            return node
        out = getattr(self, "inline" + f.id)(*node.args)
        if out is None:
            return node
        self.changed = True
        return out

    def inline_bits(self, m: ast.expr) -> ast.expr | None:
        b = self.bound(m, "m")
        if b is None:
            return None
        first, again = b
        test = ast.Compare(ast.Constant(0), [ast.LtE(), ast.Lt()], [first, ast.Constant(256)])
        table = ast.Subscript(_name("_BITS8"), again, ast.Load())
        return ast.IfExp(test, table, _call("_bits", _load(again)))

    def inline_pick(self, r: ast.expr, xs: ast.expr) -> ast.expr | None:
        if not isinstance(r, ast.Name):
            return None
        b = self.bound(xs, "o")
        if b is None or self.no_walrus:
            return None
        first, again = b
        n = self.tmp("n")
        size = ast.NamedExpr(_name(n, True), _call("len", first))
        one = ast.Subscript(again, ast.Constant(0), ast.Load())
        draw = ast.Call(
            _name("int"), [ast.BinOp(ast.Call(_load(r), [], []), ast.Mult(), _name(n))], []
        )
        drawn = ast.Subscript(_load(again), draw, ast.Load())
        none = _call("_pick", _load(r), _load(again))
        return ast.IfExp(
            _cmp(size, ast.Eq(), ast.Constant(1)), one, ast.IfExp(_name(n), drawn, none)
        )

    def inline_head(self, xs: ast.expr) -> ast.expr | None:
        b = self.bound(xs, "o")
        if b is None:
            return None
        first, again = b
        one = ast.Subscript(again, ast.Constant(0), ast.Load())
        return ast.IfExp(first, one, _call("_head", _load(again)))

    def inline_take(self, m: ast.expr, c: ast.expr) -> ast.expr | None:
        # ``m`` is evaluated before ``c``: with ``c`` a name, testing it first changes nothing
        if not isinstance(c, ast.Name) or _calls(m):
            return None
        b = self.bound(m, "m")
        if b is None:
            return None
        first, again = b
        held = ast.BinOp(ast.BinOp(first, ast.RShift(), _load(c)), ast.BitAnd(), ast.Constant(1))
        test = ast.BoolOp(ast.And(), [_cmp(_load(c), ast.IsNot(), ast.Constant(None)), held])
        out = ast.BinOp(
            again,
            ast.BitAnd(),
            ast.UnaryOp(ast.Invert(), ast.BinOp(ast.Constant(1), ast.LShift(), _load(c))),
        )
        return ast.IfExp(test, out, _call("_take", _load(m), _load(c)))


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(_name(name), list(args), [])


# ---------------------------------------------------------------------------- known lengths


def known_heads(code: str) -> str:
    """``xs[0] if xs else _head(xs)`` (``first``, inlined) as ``xs[0]`` where a test
    ``len(xs) == k`` (k >= 1) guards it and nothing in between binds ``xs``: the list is not
    empty. The native build otherwise tests a tuple whose length the test fixed by making a
    new tuple of it."""
    if "_head(" not in code or "len(" not in code:
        return code
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    changed = False
    for test in [n for n in ast.walk(fn) if isinstance(n, ast.If)]:
        xs = _nonempty(test.test)
        if xs is None or any(
            isinstance(n, ast.Name) and n.id == xs and not isinstance(n.ctx, ast.Load)
            for s in test.body
            for n in ast.walk(s)
        ):
            continue
        for s in test.body:
            for n in ast.walk(s):
                for field, value in ast.iter_fields(n):
                    if _guarded_head(value, xs):
                        setattr(n, field, value.body)  # type: ignore[union-attr]
                        changed = True
                    elif isinstance(value, list):
                        for k, item in enumerate(value):
                            if _guarded_head(item, xs):
                                value[k] = item.body  # type: ignore[union-attr]
                                changed = True
    return method_text(tree) if changed else code


def _nonempty(test: ast.expr) -> str | None:
    """The local ``xs`` of a test ``len(xs) == k`` with a constant ``k >= 1``."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and isinstance(test.comparators[0].value, int)
        and test.comparators[0].value >= 1
    ):
        return None
    arg = _builtin_call(test.left, "len")
    return arg.id if isinstance(arg, ast.Name) else None


def _guarded_head(e: object, xs: str) -> bool:
    """Whether ``e`` is ``xs[0] if xs else _head(xs)``."""
    return (
        isinstance(e, ast.IfExp)
        and isinstance(e.test, ast.Name)
        and e.test.id == xs
        and ast.unparse(e.body) == f"{xs}[0]"
        and ast.unparse(e.orelse) == f"_head({xs})"
    )
