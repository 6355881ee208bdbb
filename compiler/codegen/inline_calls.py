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

The dispatch methods (``play_q``, ``play_p``: a chain of calls by card) are inlined the same
way where a plain method calls one as a statement (``q_perform``'s ``self.play_q(S, R, c,
p)``), whatever their length; their ``return``s, none in a loop, leave a ``while True:`` that
runs once. So are the steps of the straight-line turn in ``q_turns``' loop (``inline_turn``),
each under its flag, with the state read as ``N`` once; then ``hoist_data`` reads the
scenario's data that loop uses into locals once a game. Thirty Years War interpreted:
callgrind 2.936 -> 2.632 M instructions a game (1.115x), native 0.363 -> 0.358 M (1.014x).
Other procedures are not: measured, inlining every small one paid 0.8% for 420 more
generated lines.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from .specialise import method_text, parse_method

#: the flag of a function inlined under a test (``inl_f_X``), in each scenario's data
FLAG = "inl_"
#: the most statements (nested ones too, its ``return`` included) a function inlined has: a
#: longer body costs more code for what the call costs
MAX_STATEMENTS = 8
#: the dispatch methods (``dispatch.py``), inlined whatever their length: a chain of calls
DISPATCH = frozenset(("play_q", "play_p"))


def inlinable(code: str, name: str = "f_", step: bool = False) -> ast.FunctionDef | None:
    """The definition of a function or procedure ``name`` that can be inlined (see the
    module), or None; ``step``: a step of the turn, inlined into ``q_turns`` whatever its
    length."""
    fn = parse_method(code).body[0]
    assert isinstance(fn, ast.FunctionDef)
    body = _without_doc(fn.body)
    function = name.startswith("f_")
    whole = step or name in DISPATCH
    if (step and function) or (not function and not whole):
        return None
    if function and (not body or not isinstance(body[-1], ast.Return) or body[-1].value is None):
        return None
    size = sum(isinstance(n, ast.stmt) for s in body for n in ast.walk(s))
    if not whole and size > MAX_STATEMENTS:
        return None
    params = {a.arg for a in fn.args.args[2:]}
    if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.defaults:
        return None
    looped = {
        id(n)
        for s in body
        for lp in ast.walk(s)
        if isinstance(lp, (ast.For, ast.While))
        for n in ast.walk(lp)
    }
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, (ast.Lambda, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)):
                return None
            if isinstance(n, ast.Return):
                if function and n is not body[-1]:
                    return None
                # a procedure's returns become the `break` of a loop around its body
                if not function and (id(n) in looped or not _none(n.value)):
                    return None
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n.id in params:
                return None
    return fn


def _none(e: ast.expr | None) -> bool:
    return e is None or (isinstance(e, ast.Constant) and e.value is None)


def _without_doc(body: list[ast.stmt]) -> list[ast.stmt]:
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return body[1:]
    return body


def inline_calls(code: str, callees: dict[str, ast.FunctionDef], flagged: set[str]) -> str:
    """``code`` (a plain method) with each statement ``v = self.f_X(S, args)`` of a function
    in ``callees``, and each ``self.play_q(S, args)`` of a dispatch method, replaced by its
    body; under ``if self.inl_<name>:`` for those in ``flagged``."""
    if not any(f"self.{n}(" in code for n in callees):
        return code
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    callees = {n: f for n, f in callees.items() if n != fn.name}  # not into itself
    taken = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    taken |= {a.arg for a in fn.args.args}
    sites = _Sites(callees, flagged, taken)
    fn.body = sites.block(fn.body)
    return method_text(tree) if sites.changed else code


class _Sites:
    def __init__(
        self,
        callees: dict[str, ast.FunctionDef],
        flagged: set[str],
        taken: set[str],
        alias: bool = False,
    ) -> None:
        self.callees = callees
        self.flagged = flagged
        self.taken = taken
        #: the caller reads the state as N itself (``pytext.bind_int_view`` binds it once at its
        #: top): a body's ``N: list[int] = S`` is left out
        self.alias = alias
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
        target = s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1 else None
        call = s.value if isinstance(s, (ast.Assign, ast.Expr)) else None
        if not (
            isinstance(call, ast.Call)
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
        function = call.func.attr.startswith("f_")
        if function != isinstance(target, ast.Name):
            return [s]  # a function's result assigned to a local; a procedure's call alone
        fn = self.callees[call.func.attr]
        params = [a.arg for a in fn.args.args[2:]]
        if len(params) != len(call.args) - 1:
            return [s]
        self.changed = True
        self.n += 1
        body = copy.deepcopy(_without_doc(fn.body))
        if self.alias:
            body = [b for b in body if not _is_alias(b)]
        if function:
            ret = body.pop()
            assert isinstance(ret, ast.Return) and ret.value is not None
            body.append(ast.Assign([target], ret.value, lineno=0))
        stored = {
            n.id
            for b in body
            for n in ast.walk(b)
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) and n is not target
        } - ({ALIAS} if self.alias else set())
        renames: dict[str, ast.expr] = dict(zip(params, call.args[1:], strict=True))
        for name in sorted(stored):
            renames[name] = ast.Name(self.fresh(name), ast.Load())
        _Rename(renames, target).visit(ast.Module(body, []))
        if not function and any(isinstance(n, ast.Return) for b in body for n in ast.walk(b)):
            # its returns leave a loop that runs once
            body = [ast.While(ast.Constant(True), [*_Leave().visit_all(body), ast.Break()], [])]
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


class _Leave(ast.NodeTransformer):
    """A procedure's ``return`` as ``break``."""

    def visit_all(self, body: list[ast.stmt]) -> list[ast.stmt]:
        self.visit(ast.Module(body, []))
        return body

    def visit_Return(self, node: ast.Return) -> ast.stmt:
        return ast.Break()


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


#: the state read as a list of ints (``N: list[int] = S``, ``pytext.bind_int_view``)
ALIAS = "N"


def _is_alias(s: ast.stmt) -> bool:
    return (
        isinstance(s, ast.AnnAssign)
        and isinstance(s.target, ast.Name)
        and s.target.id == ALIAS
        and isinstance(s.value, ast.Name)
        and s.value.id == "S"
    )


def _straight_turn(fn: ast.FunctionDef) -> ast.While | None:
    """``q_turns``' straight-line turn (dispatch.py): its last statement, a ``while True:``
    that starts the next turn, then calls the steps."""
    loop = fn.body[-1] if fn.body else None
    if not (isinstance(loop, ast.While) and loop.body and isinstance(loop.body[0], ast.Expr)):
        return None
    call = loop.body[0].value
    if isinstance(call, ast.Call) and ast.unparse(call.func) == "self.next_turn":
        return loop
    return None


def inline_turn(code: str, steps: dict[str, ast.FunctionDef], flagged: set[str]) -> str:
    """``q_turns`` (``code``) with each step of its straight-line turn in ``steps`` inlined
    (under ``if self.inl_<name>:`` for those in ``flagged``): one loop a turn, no call per
    step, and the state read as N once (bound by ``pytext.bind_int_view``)."""
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    loop = _straight_turn(fn)
    if loop is None:
        return code
    taken = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)} | {ALIAS}
    sites = _Sites(steps, flagged, taken, alias=True)
    loop.body = sites.block(loop.body)
    return method_text(tree) if sites.changed else code


def hoist_data(code: str, data: set[str]) -> str:
    """``q_turns`` (``code``) with the scenario's data its straight-line turn reads
    (``self.X`` for X in ``data``: offsets, tables, flags, never assigned once the engine is
    made) read into locals once a game, before the turn's loop, not once a use."""
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    loop = _straight_turn(fn)
    if loop is None:
        return code
    used: list[str] = []

    class Hoist(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
            self.generic_visit(node)
            if (
                isinstance(node.value, ast.Name)
                and node.value.id == "self"
                and node.attr in data
                and isinstance(node.ctx, ast.Load)
            ):
                if node.attr not in used:
                    used.append(node.attr)
                return ast.Name(HOISTED + node.attr, ast.Load())
            return node

    loop.body = [Hoist().visit(s) for s in loop.body]
    if not used:
        return code
    reads = [ast.parse(f"{HOISTED}{a} = self.{a}").body[0] for a in sorted(used)]
    fn.body[-1:] = reads + [loop]
    return method_text(tree)


#: the prefix of a datum of the scenario read into a local (``hoist_data``)
HOISTED = "_d_"


def inline_functions(classes: dict[str, Any], compiled: dict[str, Any], root_sid: str) -> None:
    """Inline the root class's inlinable functions and procedures into the plain methods
    (``f_``, ``p_``, ``q_``) of every class that has the root's definition of them; one some
    scenario's class defines otherwise under its flag, set in each scenario's data
    (``classes`` are the ``module.ClassGen`` of each scenario, ``compiled`` its ``Compiled``,
    by id; ``root_sid`` the root class's)."""
    root = classes[root_sid]
    callees: dict[str, ast.FunctionDef] = {}
    steps: dict[str, ast.FunctionDef] = {}
    turn = set(root.names.get("FLOW_TURN", ()))
    for name, text in root.methods.items():
        if (fn := inlinable(text, name)) is not None:
            callees[name] = fn
        elif name.partition("_")[2] in turn and (fn := inlinable(text, name, step=True)):
            steps[name] = fn
    both = {**callees, **steps}
    same = {
        sid: {n for n in both if cls.method(n) == root.methods[n]} for sid, cls in classes.items()
    }
    # a step of the turn is always under its flag: the straight-line turn says which step
    # each part of it is (`if self.inl_q_turn__pick: ... else: self.q_turn__pick(S, R)`)
    flagged = {n for n in both if any(n not in s for s in same.values())} | set(steps)
    used: set[str] = set()
    for cls in {id(c): c for c in classes.values()}.values():
        mine = {n: fn for n, fn in callees.items() if cls.method(n) == root.methods[n]}
        my_steps = {n: fn for n, fn in steps.items() if cls.method(n) == root.methods[n]}
        for name, text in list(cls.methods.items()):
            if name.startswith(("f_", "p_", "q_")):
                # q_turns: the turn's steps first, then what they call (a function, play_q)
                turned = inline_turn(text, my_steps, flagged) if name == "q_turns" else text
                new = inline_calls(turned, mine, flagged)
                if new != text:
                    cls.methods[name] = new
                    used |= {n for n in flagged if f"self.{FLAG}{n}" in new}
    for name in sorted(used):
        root.attrs[FLAG + name] = "bool"
        for sid, c in compiled.items():
            c.sd.data[FLAG + name] = c.sd.primary[FLAG + name] = name in same[sid]
