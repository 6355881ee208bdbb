"""A list of players (or records) built and only read, as the set of them: no list per call.

``actors_of(grp)``, inlined where its result is kept (``inline_calls.py``), builds a list of
the players who act: ``_w1 = []``, ``for p in self.all_player: if ...: _w1.append(p)``, six
times a turn in The March of Progress, each list allocated, filled and freed; ``let mine =
[a for a in armies if a.owner == me and ...]`` builds one per card played. Where the list is
only read afterwards (measured, indexed, iterated, tested for a member or for being empty,
drawn from, its first item taken), directly or through a local it is copied to, the loop
sets bits instead (``_w1_m = _w1_m | 1 << p``; a comprehension becomes such a loop) and the
list becomes the tuple of those members, in increasing order as the loop met them:
``_BITS8[_w1_m]``, a tuple made once for all. The same members in the same order, read the
same way; a copy's other values (a scenario's own function called instead) are made tuples
too, since the native build gives a local one type.

Only a loop over distinct indices in increasing order, of a kind with at most 8 in every
scenario (a mask below 256), qualifies: every player or record of such a type
(``self.all_K``), or those with one value of a fixed attribute (``self.ixt_T__A[k]``, in
record order). The pass runs on the plain methods once functions are inlined, so a
function's list is seen where its caller keeps it.
"""

from __future__ import annotations

import ast

from .specialise import assign, become, method_text, parse_method

#: helpers that only read the list they are given (the prelude's, as generated code names them)
_READERS = frozenset(("len", "_pick", "_pick_optional", "_head", "_bits", "tuple", "list"))


def player_lists_as_sets(code: str, small: frozenset[str] = frozenset({"player"})) -> str:
    """One method's text with its lists of players (or of the records of a type in ``small``:
    at most 8 in every scenario) that are only read built as sets (see the module)."""
    if "self.all_" not in code and "self.ixt_" not in code:
        return code
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    changed = False
    for block in _blocks(fn):
        i = 0
        while i < len(block):
            parents = {id(c): p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
            changed |= _rewrite(fn, block, i, parents, small)
            i += 1
    if not changed:
        return code
    return method_text(tree)


def _blocks(fn: ast.FunctionDef) -> list[list[ast.stmt]]:
    """Every list of statements in the method (bodies, branches)."""
    out = [fn.body]
    for n in ast.walk(fn):
        for field in ("body", "orelse", "finalbody"):
            b = getattr(n, field, None)
            if n is not fn and isinstance(b, list) and b and isinstance(b[0], ast.stmt):
                out.append(b)
    return out


def _rewrite(
    fn: ast.FunctionDef, block: list[ast.stmt], i: int, parents: dict, small: frozenset[str]
) -> bool:
    """If ``block[i]`` builds a list of players only read, rewrite it in place; whether it
    did. Either the loop a comprehension was lowered to (``T = []``, statements that do not
    name ``T``, the loop that appends) or the comprehension itself (``T = [x for x in ...
    if ...]``, which becomes such a loop)."""
    s = block[i]
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1):
        return False
    if not isinstance(s.targets[0], ast.Name):
        return False
    name = s.targets[0].id
    mask = name + "_m"
    if any(isinstance(n, ast.Name) and n.id == mask for n in ast.walk(fn)):
        return False
    update = ast.Assign(
        [ast.Name(mask, ast.Store())],
        ast.BinOp(ast.Name(mask, ast.Load()), ast.BitOr(), ast.Constant(0)),  # the bit, below
        lineno=0,
    )
    if isinstance(s.value, ast.ListComp):
        loop, j = _comp_loop(fn, s.value, update, small), i
        if loop is None:
            return False
        known = {id(s.targets[0])}
    elif isinstance(s.value, ast.List) and not s.value.elts:
        j = i + 1
        while j < len(block) and not isinstance(block[j], ast.For) and not _names(block[j], name):
            j += 1
        loop = block[j] if j < len(block) else None
        if not (
            isinstance(loop, ast.For)
            and _small_source(loop.iter, small)
            and isinstance(loop.target, ast.Name)
            and not loop.orelse
        ):
            return False
        appends = [n for n in ast.walk(loop) if isinstance(n, ast.Name) and n.id == name]
        adds = [n for b in loop.body for n in ast.walk(b) if _append_of(n, name, loop.target.id)]
        if len(adds) != 1 or len(appends) != 1 or _nested_loop(adds[0], loop, parents):
            return False
        known = {id(s.targets[0]), id(appends[0])}
    else:
        return False
    others: list[ast.Assign] = []
    if not _only_read(fn, name, known, parents, {name}, others):
        return False
    for other in others:  # a copy's other values: tuples too (one type, for the native build)
        other.value = ast.Call(ast.Name("tuple", ast.Load()), [other.value], [])
    assert isinstance(loop.target, ast.Name)
    update.value.right = ast.BinOp(  # type: ignore[attr-defined]
        ast.Constant(1), ast.LShift(), ast.Name(loop.target.id, ast.Load())
    )
    if isinstance(s.value, ast.ListComp):
        block[i : i + 1] = [assign(mask, ast.Constant(0)), loop]
        j = i + 1
    else:
        become(adds[0], update)
        s.targets[0].id = mask
        s.value = ast.Constant(0)
    cut = ast.Compare(
        ast.Constant(0), [ast.LtE(), ast.Lt()], [ast.Name(mask, ast.Load()), ast.Constant(256)]
    )
    table = ast.Subscript(ast.Name("_BITS8", ast.Load()), ast.Name(mask, ast.Load()), ast.Load())
    other = ast.Call(ast.Name("_bits", ast.Load()), [ast.Name(mask, ast.Load())], [])
    block.insert(j + 1, assign(name, ast.IfExp(cut, table, other)))
    return True


def small_kinds(datas: list[dict]) -> frozenset[str]:
    """The players and the types of records with at most 8 in every scenario (``datas``: the
    engine data of each): a set of them is a mask below 256, its members a tuple of ``_BITS8``."""
    counts: dict[str, list[int]] = {}
    for d in datas:
        for k, v in d.items():
            if k.startswith("n_") and isinstance(v, int) and not isinstance(v, bool):
                counts.setdefault(k[2:], []).append(v)
    return frozenset(k for k, ns in counts.items() if len(ns) == len(datas) and max(ns) <= 8)


def _comp_loop(
    fn: ast.FunctionDef, comp: ast.ListComp, update: ast.stmt, small: frozenset[str]
) -> ast.For | None:
    """``[x for x in src if c ...]`` as ``for x in src: if c: ... update``, where ``x`` is
    the element, ``src`` a small source and ``x`` named nowhere else in ``fn`` (the loop binds
    it in the method's scope)."""
    if len(comp.generators) != 1:
        return None
    g = comp.generators[0]
    x = g.target
    if not (
        isinstance(x, ast.Name)
        and isinstance(comp.elt, ast.Name)
        and comp.elt.id == x.id
        and not g.is_async
        and _small_source(g.iter, small)
    ):
        return None
    inside = {id(n) for n in ast.walk(comp)}
    if any(isinstance(n, ast.Name) and n.id == x.id and id(n) not in inside for n in ast.walk(fn)):
        return None
    body: list[ast.stmt] = [update]
    for cond in reversed(g.ifs):
        body = [ast.If(cond, body, [])]
    return ast.For(ast.Name(x.id, ast.Store()), g.iter, body, [], lineno=0)


def _small_source(e: ast.expr, small: frozenset[str]) -> bool:
    """Whether ``e`` gives distinct indices in increasing order, of a kind with few: every
    player or record of a small type (``self.all_K``), or those with one value of a fixed
    attribute (``self.ixt_T__A[...]``, in record order)."""
    if isinstance(e, ast.Subscript):
        e = e.value
        prefix = "ixt_"
    else:
        prefix = "all_"
    if not (
        isinstance(e, ast.Attribute)
        and isinstance(e.value, ast.Name)
        and e.value.id == "self"
        and e.attr.startswith(prefix)
    ):
        return False
    return e.attr[len(prefix) :].split("__")[0] in small


def _names(n: ast.AST, name: str) -> bool:
    return any(isinstance(x, ast.Name) and x.id == name for x in ast.walk(n))


def _append_of(n: ast.AST, name: str, var: str) -> bool:
    """Whether ``n`` is the statement ``name.append(var)``."""
    return (
        isinstance(n, ast.Expr)
        and isinstance(n.value, ast.Call)
        and isinstance(n.value.func, ast.Attribute)
        and n.value.func.attr == "append"
        and isinstance(n.value.func.value, ast.Name)
        and n.value.func.value.id == name
        and len(n.value.args) == 1
        and isinstance(n.value.args[0], ast.Name)
        and n.value.args[0].id == var
    )


def _nested_loop(n: ast.AST, loop: ast.For, parents: dict) -> bool:
    """Whether ``n`` is inside a loop or a function nested in ``loop``."""
    p = parents.get(id(n))
    while p is not None and p is not loop:
        if isinstance(p, (ast.For, ast.While, ast.Lambda, ast.comprehension)):
            return True
        p = parents.get(id(p))
    return False


def _only_read(
    fn: ast.FunctionDef,
    name: str,
    known: set[int],
    parents: dict,
    seen: set[str],
    others: list[ast.Assign],
    own: bool = True,
) -> bool:
    """Whether every other use of local ``name`` in ``fn`` only reads a sequence (a tuple
    serves): and where it is copied to a local (``v = name``), every use of that local.
    ``own``: the list itself, which nothing else may bind; a copy's other bindings
    (``v = f(...)``, a sequence read alike) are added to ``others``, to be made tuples: the
    native build gives a local one type."""
    for n in ast.walk(fn):
        if not (isinstance(n, ast.Name) and n.id == name) or id(n) in known:
            continue
        if not isinstance(n.ctx, ast.Load):
            p = parents.get(id(n))
            if own or not (
                isinstance(p, ast.Assign)
                and p.targets == [n]
                and not isinstance(p.value, (ast.Constant, ast.Name))
            ):
                return False
            others.append(p)
            continue
        p = parents.get(id(n))
        if isinstance(p, ast.Assign) and len(p.targets) == 1 and p.value is n:
            t = p.targets[0]
            if not isinstance(t, ast.Name):
                return False
            if t.id not in seen:
                seen.add(t.id)
                known.add(id(t))
                if not _only_read(fn, t.id, known, parents, seen, others, False):
                    return False
            continue
        if not _reads(n, p, parents):
            return False
    return True


def _reads(n: ast.Name, p: ast.AST | None, parents: dict) -> bool:
    """Whether ``n``'s use in its parent ``p`` only reads it as a sequence."""
    if isinstance(p, ast.Call):
        return isinstance(p.func, ast.Name) and p.func.id in _READERS and n in p.args
    if isinstance(p, ast.Subscript):
        return p.value is n and not isinstance(p.slice, ast.Slice)
    if isinstance(p, (ast.For, ast.comprehension)):
        return p.iter is n
    if isinstance(p, ast.Compare):
        return n in p.comparators and all(isinstance(o, (ast.In, ast.NotIn)) for o in p.ops)
    if isinstance(p, (ast.If, ast.While, ast.IfExp)):
        return p.test is n
    if isinstance(p, ast.UnaryOp):
        return isinstance(p.op, ast.Not)
    if isinstance(p, ast.BoolOp):  # its value may be the sequence: only as a test
        q = parents.get(id(p))
        return isinstance(q, (ast.If, ast.While, ast.IfExp)) and q.test is p
    return False
