"""Loop variables that walk indices, typed ``i64`` (``pytext.REF``) for the native build.

A ``for`` over the scenario's index tuples (``self.all_army``, ``self.ixt_army__owner[p]``,
``self.ix_...get(...)``) or over the members of a set (``_BITS8[m] if ... else _bits(m)``)
binds a seat, card or record index. Left to inference, mypyc types it ``int`` (tagged, of
any size): every ``self.o_x + v_a`` and comparison made with it goes through checked helpers.
Declared ``v_a: i64`` at the start of the method, each item is unboxed once and the rest is C
arithmetic. Interpreted, a local's annotation is never evaluated: nothing changes.

Only a name every binding of which is such a loop is declared: not a parameter, not a name
annotated already, not one a statement, a tuple target or ``:=`` binds too (a comprehension's
variables are its own).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .pytext import REF
from .specialise import method_text, parse_method


def _indices(it: ast.expr) -> bool:
    """Whether ``it`` iterates indices (see the module)."""
    if isinstance(it, ast.IfExp):  # _BITS8[m] if 0 <= m < 256 else _bits(m)
        return (
            isinstance(it.body, ast.Subscript)
            and isinstance(it.body.value, ast.Name)
            and it.body.value.id == "_BITS8"
            and isinstance(it.orelse, ast.Call)
            and isinstance(it.orelse.func, ast.Name)
            and it.orelse.func.id == "_bits"
        )
    if isinstance(it, ast.Subscript):
        it = it.value
        prefixes: tuple[str, ...] = ("ixt_",)
    elif isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "get":
        it = it.func.value
        prefixes = ("ix_",)
    else:
        prefixes = ("all_",)
    return (
        isinstance(it, ast.Attribute)
        and isinstance(it.value, ast.Name)
        and it.value.id == "self"
        and it.attr.startswith(prefixes)
    )


def _scope(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a method's own scope: not those of the comprehensions' generators (their
    variables are the comprehension's), nor of nested functions and lambdas."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.Lambda)):
            continue
        if isinstance(child, ast.comprehension):
            yield from _scope(child.iter)  # its iterable's `:=` binds in the method
            for cond in child.ifs:
                yield from _scope(cond)
            continue
        yield child
        yield from _scope(child)


def index_loops(code: str) -> str:
    """``code`` (a plain method) with ``name: i64`` declared for each loop variable that only
    ever walks indices."""
    if "for " not in code:
        return code
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    taken = {a.arg for a in fn.args.args}
    loops = set()
    for node in _scope(fn):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            if _indices(node.iter):
                loops.add(id(node.target))
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            taken.add(node.target.id)
    good: set[str] = set()
    for node in _scope(fn):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            (good if id(node) in loops else taken).add(node.id)
    names = sorted(good - taken)
    if not names:
        return code
    first = fn.body[0] if fn.body else None
    doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
    decls: list[ast.stmt] = [
        ast.AnnAssign(ast.Name(n, ast.Store()), ast.Name(REF, ast.Load()), None, 1) for n in names
    ]
    fn.body[int(doc) : int(doc)] = decls
    return method_text(tree)
