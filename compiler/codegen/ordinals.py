"""The cards with each value of an enum, looked up by the value's position, not its text.

``for grp in action_group: ... [c for c in p.revealed if c.group == grp] ...`` looks up the
cards of group ``grp`` in a dict by a string (``self.mk_card__group.get(v_grp, 0)``) once
per value and per use: a hash lookup, about 130 instructions natively. In a loop over an
enum's values that never assigns its variable, the value's position is at hand: the loop
counts it (``for _e1, v_grp in enumerate(self.e_action_group):``) and the lookup becomes an
index into a tuple of the masks by position (``self.mkt_card__group__action_group[_e1]``,
``runtime.layout.engine_data``). The same masks, in the same order: nothing else changes.

It runs on the plain methods' text once functions are inlined (``inline_calls.py``), so a
lookup in an inlined function's body is seen in its caller's loop.
"""

from __future__ import annotations

import ast
from typing import Any

from .specialise import become, method_text, parse_method

#: the prefix of a tuple of card masks by an enum's positions (runtime.layout.engine_data)
PREFIX = "mkt_card__"


def enum_ordinals(classes: dict[str, Any], compiled: dict[str, Any]) -> None:
    """Rewrite the plain methods of every class (``module.ClassGen``) as the module says, and
    declare the tuples they read on the root class, typed by their values in every
    scenario's data (``compiled``: each scenario's ``Compiled``)."""
    used: set[str] = set()
    for cls in {id(c): c for c in classes.values()}.values():
        for name, text in list(cls.methods.items()):
            if name.startswith(("f_", "p_", "q_")) and ".get(" in text:
                new, keys = ordinal_lookups(text)
                if keys:
                    cls.methods[name] = new
                    used |= keys
    if not used:
        return
    root = next(c for c in classes.values() if c.parent is None)
    for key in sorted(used):
        values = [c.sd.data[key] for c in compiled.values() if key in c.sd.data]
        root.attrs[key] = "tuple[int, ...]" if values else "Any"


def ordinal_lookups(code: str) -> tuple[str, set[str]]:
    """One method's text with its lookups by an enum loop's value made by position, and the
    tuples (data keys) it now reads."""
    tree = parse_method(code)
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    taken = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    keys: set[str] = set()
    for loop in [n for n in ast.walk(fn) if isinstance(n, ast.For)]:
        enum = _enum_loop(loop)
        if enum is None:
            continue
        var = loop.target.id  # type: ignore[attr-defined]
        lookups = [n for s in loop.body for n in ast.walk(s) if _lookup(n, var) is not None]
        if not lookups:
            continue
        i = 1
        while f"_e{i}" in taken:
            i += 1
        pos = f"_e{i}"
        taken.add(pos)
        loop.target = ast.Tuple([ast.Name(pos, ast.Store()), loop.target], ast.Store())
        loop.iter = ast.Call(ast.Name("enumerate", ast.Load()), [loop.iter], [])
        for call in lookups:
            key = f"{PREFIX}{_lookup(call, var)}__{enum}"
            keys.add(key)
            table = ast.Attribute(ast.Name("self", ast.Load()), key, ast.Load())
            become(call, ast.Subscript(table, ast.Name(pos, ast.Load()), ast.Load()))
    if not keys:
        return code, keys
    return method_text(tree), keys


def _enum_loop(loop: ast.For) -> str | None:
    """The enum ``X`` of a loop ``for v in self.e_X:`` whose body never binds ``v``."""
    it, target = loop.iter, loop.target
    if not (
        isinstance(target, ast.Name)
        and isinstance(it, ast.Attribute)
        and isinstance(it.value, ast.Name)
        and it.value.id == "self"
        and it.attr.startswith("e_")
        and not loop.orelse
    ):
        return None
    for s in loop.body:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and n.id == target.id and not isinstance(n.ctx, ast.Load):
                return None
    return it.attr[2:]


def _lookup(n: ast.AST, var: str) -> str | None:
    """The card attribute ``A`` of ``self.mk_card__A.get(var, 0)``."""
    if not (
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "get"
        and isinstance(n.func.value, ast.Attribute)
        and isinstance(n.func.value.value, ast.Name)
        and n.func.value.value.id == "self"
        and n.func.value.attr.startswith("mk_card__")
        and len(n.args) == 2
        and not n.keywords
        and isinstance(n.args[0], ast.Name)
        and n.args[0].id == var
        and isinstance(n.args[1], ast.Constant)
        and n.args[1].value == 0
    ):
        return None
    return n.func.value.attr[len("mk_card__") :]
