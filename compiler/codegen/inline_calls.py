"""Functions of the rules inlined where a plain method assigns their result to a local
(``v = self.f_X(S, a, b)``): the body of the root class's ``f_X`` in the caller, its
parameters read as the arguments, its locals renamed, and its ``return E`` as ``v = E``.
Interpreted, a method call costs more than a small function's body (Thirty Years War's
``actors_of``, called six times a turn).

A function some scenario defines otherwise is inlined under a flag, ``if self.inl_f_X:`` (the
body) ``else:`` (the call), the flag True in the data of each scenario whose ``f_X`` is the
root's: one copy of each caller, not one per scenario that redefines the function. Only
what stays the same is inlined: a function whose parameters its body never assigns, whose
only ``return`` is its last statement, that makes no lambda and has at most
``MAX_STATEMENTS`` statements; arguments that are names or constants.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterable
from typing import Any

from .specialise import method_text, parse_method

#: the flag of a function inlined under a test (``inl_f_X``), in each scenario's data
FLAG = "inl_"
#: the most statements (nested ones too, its ``return`` included) a function inlined has: a
#: longer body costs more code for what the call costs
MAX_STATEMENTS = 8


def inlinable(code: str) -> ast.FunctionDef | None:
    """The definition of a function that can be inlined (see the module), or None."""
    fn = parse_method(code).body[0]
    assert isinstance(fn, ast.FunctionDef)
    body = _without_doc(fn.body)
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return None
    if sum(isinstance(n, ast.stmt) for s in body for n in ast.walk(s)) > MAX_STATEMENTS:
        return None
    params = {a.arg for a in fn.args.args[2:]}
    if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.defaults:
        return None
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, (ast.Lambda, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)):
                return None
            if isinstance(n, ast.Return) and n is not body[-1]:
                return None
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id in params:
                return None
    return fn


def _without_doc(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return body[1:]
    return body


def inline_calls(code: str, callees: dict[str, ast.FunctionDef], flagged: set[str]) -> str:
    """``code`` (a plain method) with each statement ``v = self.f_X(S, args)`` of a function
    in ``callees`` replaced by its body; under ``if self.inl_f_X:`` for those in
    ``flagged``."""
    if not any(f"self.{n}(" in code for n in callees):
        return code
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    if fn.name in callees:
        return code
    taken = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    taken |= {a.arg for a in fn.args.args}
    sites = _Sites(callees, flagged, taken)
    fn.body = sites.block(fn.body)
    return method_text(tree) if sites.changed else code


class _Sites:
    def __init__(
        self, callees: dict[str, ast.FunctionDef], flagged: set[str], taken: set[str]
    ) -> None:
        self.callees = callees
        self.flagged = flagged
        self.taken = taken
        self.n = 0
        self.changed = False

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for s in stmts:
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(s, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    setattr(s, name, self.block(inner))
            out.extend(self.site(s))
        return out

    def site(self, s: ast.stmt) -> list[ast.stmt]:
        call = s.value if isinstance(s, ast.Assign) else None
        if not (
            isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
            and isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "self"
            and call.func.attr in self.callees
            and not call.keywords
            and call.args
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id == "S"
            and all(isinstance(a, (ast.Name, ast.Constant)) for a in call.args[1:])
        ):
            return [s]
        fn = self.callees[call.func.attr]
        params = [a.arg for a in fn.args.args[2:]]
        if len(params) != len(call.args) - 1:
            return [s]
        self.changed = True
        self.n += 1
        body = copy.deepcopy(_without_doc(fn.body))
        ret = body.pop()
        assert isinstance(ret, ast.Return) and ret.value is not None
        body.append(ast.Assign([s.targets[0]], ret.value, lineno=0))
        stored = {
            n.id
            for b in body[:-1]
            for n in ast.walk(b)
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        }
        renames: dict[str, ast.expr] = dict(zip(params, call.args[1:], strict=True))
        for name in sorted(stored):
            renames[name] = ast.Name(self.fresh(name), ast.Load())
        _Rename(renames, s.targets[0]).visit(ast.Module(body, []))
        if fn.name not in self.flagged:
            return body
        flag = ast.Attribute(ast.Name("self", ast.Load()), FLAG + fn.name, ast.Load())
        return [ast.If(flag, body, [s])]

    def fresh(self, name: str) -> str:
        k = self.n
        while f"{name}__i{k}" in self.taken:
            k += 1
        self.taken.add(f"{name}__i{k}")
        return f"{name}__i{k}"


class _Rename(ast.NodeTransformer):
    """Parameters as the arguments, locals by their new names (not the caller's target)."""

    def __init__(self, renames: dict[str, ast.expr], target: ast.expr) -> None:
        self.renames = renames
        self.target = target

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node is self.target or node.id not in self.renames:
            return node
        new = copy.deepcopy(self.renames[node.id])
        if isinstance(new, ast.Name):
            new.ctx = node.ctx
        return new


def inline_functions(
    classes: Iterable[Any], root: Any, compiled: dict[str, Any], root_sid: str
) -> None:
    """Inline the root class's inlinable functions into every class's plain methods
    (``f_``, ``p_``, ``q_``); a function some scenario of ``compiled`` defines otherwise
    under its flag, set in each scenario's data (``classes`` are ``module.ClassGen``s,
    ``compiled`` the ``Compiled`` scenarios by id, ``root_sid`` the root class's)."""
    own = compiled[root_sid].methods
    callees: dict[str, ast.FunctionDef] = {}
    for name, text in root.methods.items():
        if name.startswith("f_") and (fn := inlinable(text)) is not None:
            callees[name] = fn
    flagged = {
        name for name in callees if any(c.methods.get(name) != own[name] for c in compiled.values())
    }
    used: set[str] = set()
    for cls in classes:
        for name, text in list(cls.methods.items()):
            if name.startswith(("f_", "p_", "q_")):
                new = inline_calls(text, callees, flagged)
                if new != text:
                    cls.methods[name] = new
                    used |= {n for n in flagged if f"self.{FLAG}{n}" in new}
    for name in sorted(used):
        root.attrs[FLAG + name] = "bool"
        for c in compiled.values():
            same = c.methods.get(name) == own[name]
            c.sd.data[FLAG + name] = c.sd.primary[FLAG + name] = same
