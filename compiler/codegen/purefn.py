"""Functions of one record that read no state, as tables.

A function of the rules whose only parameter is a player or a record of a type (``enemy(p)``:
the other player) and whose body reads only the scenario's fixed data gives the same value
for the same argument in every state. The engine then builds a tuple of its values when it is
made (``rulecraft.runtime.prelude.tabulate``: the function called once per record) and every
call ``self.f_X(S, a)`` reads ``self.tab_X[a]`` instead: no call, and no list the function
builds per call. Where the table could not be built (some value fails, as ``first`` of an
empty list for the Neutral player of a scenario: the rules never ask it) it is None and the
call stays::

    (self.tab_X[a] if self.tab_X is not None else self.f_X(S, a))

The state is what a table cannot know, so a function qualifies by the text of every
definition of it in the game's classes: ``S`` only passed on to functions that qualify too,
no ``N``, ``R`` or ``F``, ``self`` only for data attributes (what ``__init__`` takes from the
scenario's data) and those functions, and calls only of the pure helpers below and of list
and dict methods (``append``, ``get``, ...) on values the function holds.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from .. import ir
from .pytext import REF

#: helpers and builtins that compute a value from their arguments alone (no state, no die)
PURE_CALLS = frozenset(
    {
        "_head",
        "_bits",
        "_count",
        "_has",
        "_first",
        "_nth",
        "_reverse",
        "_remove",
        "_uniq",
        "_mask",
        "_take",
        "_reachable",
        "_path_cost",
        "_distance",
        "len",
        "min",
        "max",
        "abs",
        "sum",
        "any",
        "all",
        "bool",
        "int",
        "tuple",
        "list",
        "sorted",
        "set",
        "range",
        "zip",
        "enumerate",
    }
)
#: methods of values a function holds (lists, dicts, tuples) that change nothing of the state
PURE_METHODS = frozenset({"get", "append", "extend", "count", "index", "keys", "values", "items"})
#: the parameter kinds a table is indexed by, and the data key of their records
_DOMAIN_KINDS = ("player", "entity")


def domain_key(t: ir.Type) -> str | None:
    """The key of the scenario's data listing the values of a parameter of type ``t``
    (``all_player``, ``all_<entity type>``), or None if no table is indexed by it."""
    if t.kind == "player":
        return "all_player"
    if t.kind == "entity" and t.name:
        return f"all_{t.name}"
    return None


def pure_text(code: str, pure: set[str], data_attrs: set[str]) -> bool:
    """Whether a method's text (``def f_X(self, S, ...)``) reads no state: see the module's
    docstring. ``pure`` are the functions already known to qualify."""
    tree = ast.parse(code)
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        return False
    allowed_s: set[int] = set()  # ids of `S` names passed to a pure function
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                if f.value.id == "self":
                    if f.attr not in pure:
                        return False
                    if node.args and isinstance(node.args[0], ast.Name):
                        allowed_s.add(id(node.args[0]))
                    continue
            if isinstance(f, ast.Attribute):
                if f.attr not in PURE_METHODS:
                    return False
            elif not (isinstance(f, ast.Name) and f.id in PURE_CALLS):
                return False
        elif isinstance(node, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)):
            return False
    body_nodes = [n for stmt in fn.body for n in ast.walk(stmt)]
    for node in body_nodes:
        if isinstance(node, ast.Name):
            if node.id == "S" and id(node) not in allowed_s:
                return False
            if node.id in ("N", "R", "F"):
                return False
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "self" and node.attr not in data_attrs and node.attr not in pure:
                return False
    return True


def tabulable(
    definitions: dict[str, list[str]],
    data_attrs: set[str],
    games: Iterable[ir.Game],
) -> dict[str, str]:
    """The functions to tabulate, by method name (``f_X``), with the data key of their
    parameter's domain. ``definitions`` gives every text of each ``f_`` method in the game's
    classes; a function qualifies when every definition reads no state (those it calls
    qualifying too) and, in every scenario, it has one parameter of a player or a record."""
    params: dict[str, set[str | None]] = {}
    for g in games:
        for name, r in g.functions.items():
            if r.kind != "function":
                continue
            key = domain_key(r.params[0][1]) if len(r.params) == 1 else None
            params.setdefault("f_" + name, set()).add(key)
    pure: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, texts in sorted(definitions.items()):
            if name in pure or not name.startswith("f_"):
                continue
            if all(pure_text(t, pure, data_attrs) for t in texts):
                pure.add(name)
                changed = True
    out: dict[str, str] = {}
    for name in sorted(pure):
        keys = params.get(name, {None})
        if len(keys) == 1 and None not in keys:
            out[name] = next(iter(keys))  # type: ignore[arg-type]
    return out


def _call_end(text: str, start: int) -> int:
    """The index just past the ``)`` closing the call whose ``(`` is at ``start``."""
    depth = 0
    i = start
    quote = ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced call")


def use_tables(code: str, tables: Iterable[str]) -> str:
    """Every call ``self.f_X(S, a)`` of a tabulated function in ``code`` as a read of its
    table (the call kept for a scenario whose table is None)."""
    for name in tables:
        head = f"self.{name}(S, "
        out: list[str] = []
        pos = 0
        while True:
            i = code.find(head, pos)
            if i < 0:
                break
            if i > 0 and (code[i - 1].isalnum() or code[i - 1] in "_."):
                out.append(code[pos : i + len(head)])
                pos = i + len(head)
                continue
            end = _call_end(code, i + len(head) - len("S, ") - 1)
            arg = code[i + len(head) : end - 1].strip().rstrip(",")
            tab = "self.tab_" + name[2:]
            out.append(code[pos:i])
            out.append(f"({tab}[{arg}] if {tab} is not None else self.{name}(S, {arg}))")
            pos = end
        out.append(code[pos:])
        code = "".join(out)
    return code


def table_type(code: str) -> str:
    """The type of a function's table, from the return annotation of its text."""
    fn = ast.parse(code).body[0]
    assert isinstance(fn, ast.FunctionDef)
    ret = ast.unparse(fn.returns) if fn.returns is not None else "Any"
    elem = "int" if ret == REF else ret if ret in ("int", "bool", "str") else "Any"
    return f"tuple[{elem}, ...] | None"
