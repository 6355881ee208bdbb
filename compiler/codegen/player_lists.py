"""A list of players built in a loop and only read, as the set of them: no list per call.

``actors_of(grp)``, inlined where its result is kept (``inline_calls.py``), builds a list of
the players who act: ``_w1 = []``, ``for p in self.all_player: if ...: _w1.append(p)``, six
times a turn in The March of Progress, each list allocated, filled and freed. Where the list
is only read afterwards (measured, indexed, iterated, tested for a member or for being empty,
drawn from, its first item taken), directly or through a local it is copied to, the loop
sets bits instead (``_w1_m = _w1_m | 1 << p``) and the list becomes the tuple of those
players, in increasing order as the loop met them: ``_BITS8[_w1_m]``, a tuple made once for
all. The same players in the same order, read the same way.

Only a loop over every player qualifies (``self.all_player``: a handful, and in increasing
order); the pass runs on the plain methods once functions are inlined, so a function's list
is seen where its caller keeps it.
"""

from __future__ import annotations

import ast

from .specialise import method_text, parse_method

#: helpers that only read the list they are given (the prelude's, as generated code names them)
_READERS = frozenset(("len", "_pick", "_pick_optional", "_head", "_bits", "tuple", "list"))


def player_lists_as_sets(code: str) -> str:
    """One method's text with its player lists that are only read built as sets (see the
    module)."""
    if ".append(" not in code or "self.all_player" not in code:
        return code
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    changed = False
    for block in _blocks(fn):
        i = 0
        while i < len(block):
            parents = {id(c): p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
            changed |= _rewrite(fn, block, i, parents)
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


def _rewrite(fn: ast.FunctionDef, block: list[ast.stmt], i: int, parents: dict) -> bool:
    """If ``block[i]`` starts a list of players only read (``T = []``, statements that do not
    name ``T``, the loop that appends), rewrite it in place; whether it did."""
    s = block[i]
    if not (
        isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and isinstance(s.value, ast.List)
        and not s.value.elts
    ):
        return False
    name = s.targets[0].id
    j = i + 1
    while j < len(block) and not isinstance(block[j], ast.For) and not _names(block[j], name):
        j += 1
    loop = block[j] if j < len(block) else None
    if not isinstance(loop, ast.For):
        return False
    if not (_all_players(loop.iter) and isinstance(loop.target, ast.Name) and not loop.orelse):
        return False
    appends = [n for n in ast.walk(loop) if _names(n, name) and isinstance(n, ast.Name)]
    adds = [n for b in loop.body for n in ast.walk(b) if _append_of(n, name, loop.target.id)]
    if len(adds) != 1 or len(appends) != 1 or _nested_loop(adds[0], loop, parents):
        return False
    others: list[ast.Assign] = []
    known = {id(s.targets[0]), id(appends[0])}
    if not _only_read(fn, name, known, parents, {name}, others):
        return False
    for other in others:  # a copy's other values: tuples too (one type, for the native build)
        other.value = ast.Call(ast.Name("tuple", ast.Load()), [other.value], [])
    mask = name + "_m"
    if any(isinstance(n, ast.Name) and n.id == mask for n in ast.walk(fn)):
        return False
    s.targets[0].id = mask
    s.value = ast.Constant(0)
    bit = ast.BinOp(ast.Constant(1), ast.LShift(), ast.Name(loop.target.id, ast.Load()))
    update = ast.Assign(
        [ast.Name(mask, ast.Store())],
        ast.BinOp(ast.Name(mask, ast.Load()), ast.BitOr(), bit),
        lineno=0,
    )
    _become(adds[0], update)
    small = ast.Compare(
        ast.Constant(0), [ast.LtE(), ast.Lt()], [ast.Name(mask, ast.Load()), ast.Constant(256)]
    )
    table = ast.Subscript(ast.Name("_BITS8", ast.Load()), ast.Name(mask, ast.Load()), ast.Load())
    other = ast.Call(ast.Name("_bits", ast.Load()), [ast.Name(mask, ast.Load())], [])
    block.insert(
        j + 1, ast.Assign([ast.Name(name, ast.Store())], ast.IfExp(small, table, other), lineno=0)
    )
    return True


def _all_players(e: ast.expr) -> bool:
    return (
        isinstance(e, ast.Attribute)
        and isinstance(e.value, ast.Name)
        and e.value.id == "self"
        and e.attr == "all_player"
    )


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


def _become(node: ast.AST, new: ast.AST) -> None:
    node.__class__ = new.__class__
    node.__dict__.clear()
    node.__dict__.update(new.__dict__)
