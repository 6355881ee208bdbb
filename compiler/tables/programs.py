"""Tables as programs: a table's `params`, its modifiers' and conditions' `when`/`times`
and its rows' `effect`, compiled into routines of the game.

For a table ``T`` with programs the game gets (names no rules file can declare, since rule
names have no double underscore):

- function ``tbl__T__mods(params) -> int``: the sum of ``value × times`` of every modifier
  whose ``when`` holds (a modifier with neither ``when`` nor ``times`` is printed only: the
  rules apply it some other way, e.g. "double all Axis DPs");
- function ``tbl__T__terms(params) -> list of int``: one number per modifier with a ``when``
  or ``times``, what it adds now (0 when its ``when`` fails), in the order of
  ``game.table_terms[T]``, the modifiers' names (``name:``, else their text without the
  "Add 2"/"Subtract 1" it starts with): `modifier_terms()` names them in a log line;
- function ``tbl__T__allows(params) -> bool``: every condition with a ``when`` holds;
- procedure ``tbl__T__apply(params, _row: int)``: the ``effect`` of row ``_row`` (range
  tables), or of the result in cell ``_row`` (column and matrix tables: the ``effect`` of
  the result code under ``results:``, e.g. a CRT's "DD").

`modifiers()`, `allows()` and `apply()` in effects call them (see ``codegen/exprs.py``).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from .. import ir
from ..diagnostics import DiagnosticSink
from ..effects import (
    AugAssign,
    BinOp,
    Bool,
    Compare,
    If,
    In,
    Int,
    Let,
    ListLit,
    Name,
    Not,
    Pass,
    Return,
    Snippet,
    Stmt,
    Ternary,
)

__all__ = ["add_table_programs", "routine_name", "has_routine"]

PROGRAM_KEYS = ("when", "times")


def modifier_name(m: dict[str, Any]) -> str:
    """How a log line names a modifier: its ``name:``, else its text without the "Add 2" or
    "Subtract 1" it starts with, the part in brackets and the full stop."""
    if m.get("name"):
        return " ".join(str(m["name"]).split())
    text = " ".join(str(m.get("text") or m.get("id") or "").split())
    text = re.sub(r"^(add|subtract)( a further)? [0-9]+( each)? ", "", text, flags=re.I)
    text = re.sub(r" \([^)]*\)", "", text).rstrip(".")
    return text or str(m.get("id") or "modifier")


def routine_name(tid: str, part: str) -> str:
    """``tbl__<tid>__<part>``: ``mods``, ``terms``, ``allows`` or ``apply``."""
    return f"tbl__{tid}__{part}"


def has_routine(game: ir.Game, tid: str, part: str) -> bool:
    return routine_name(tid, part) in game.functions


def _has_programs(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    if "params" in data:
        return True
    for key in ("modifiers", "conditions"):
        for m in data.get(key) or ():
            if isinstance(m, dict) and any(k in m for k in PROGRAM_KEYS):
                return True
    if any(isinstance(r, dict) and "effect" in r for r in data.get("rows") or ()):
        return True
    results = data.get("results")
    return isinstance(results, dict) and any(
        isinstance(r, dict) and "effect" in r for r in results.values()
    )


def add_table_programs(b: Any, game: ir.Game, sink: DiagnosticSink) -> None:
    """Add the routines of every table with programs to ``game`` (``b`` is the Builder)."""
    for tid, table in game.tables.items():
        doc, ypath = getattr(table, "doc", None), getattr(table, "ypath", ())
        if doc is None:
            continue
        data = doc.get(ypath)
        if not _has_programs(data):
            continue
        origin = ir.Origin(doc.key_pos(ypath), tuple(table.provenance.rules), "")
        here = Snippet(tid, lambda off, d=doc, p=ypath: d.key_pos(p), f"table {tid!r}")
        params: list[tuple[str, ir.Type]] = [
            (str(n), b.type_of(game, t, doc, (*ypath, "params", n)))
            for n, t in (data.get("params") or {}).items()
        ]
        game.table_params[tid] = params

        # -- modifiers
        total = "_total"
        body: list[Stmt] = [Let(here, 0, total, Int(here, 0, 0))]
        names: list[str] = []
        terms: list[Any] = []
        for i, m in enumerate(data.get("modifiers") or ()):
            if not isinstance(m, dict) or not any(k in m for k in PROGRAM_KEYS):
                continue
            mpath = (*ypath, "modifiers", i)
            value = m.get("value")
            if not isinstance(value, int) or isinstance(value, bool):
                sink.error(
                    "table-type",
                    f"modifier {m.get('id')!r} of table {tid!r} has a `when` or `times` but no "
                    "whole-number `value`",
                    doc.key_pos(mpath),
                    "give the number it adds per application: value: -1",
                )
                continue
            term: Any = Int(here, 0, value)
            if "times" in m:
                times = b.expression(doc, (*mpath, "times"), f"times of modifier {m.get('id')!r}")
                if times is None:
                    continue
                term = BinOp(times.src, 0, "*", term, times)
            stmt: Stmt = AugAssign(term.src, 0, Name(here, 0, total), "+", term)
            said: Any = copy.deepcopy(term)
            if "when" in m:
                cond = b.expression(doc, (*mpath, "when"), f"when of modifier {m.get('id')!r}")
                if cond is None:
                    continue
                stmt = If(cond.src, 0, [(cond, [stmt])], [])
                said = Ternary(cond.src, 0, copy.deepcopy(cond), said, Int(here, 0, 0))
            body.append(stmt)
            names.append(modifier_name(m))
            terms.append(said)
        body.append(Return(here, 0, Name(here, 0, total)))
        game.functions[routine_name(tid, "mods")] = ir.Routine(
            routine_name(tid, "mods"), "function", list(params), ir.INT, body, origin
        )
        if terms:
            game.table_terms[tid] = tuple(names)
            game.functions[routine_name(tid, "terms")] = ir.Routine(
                routine_name(tid, "terms"),
                "function",
                list(params),
                ir.list_of(ir.INT),
                [Return(here, 0, ListLit(here, 0, terms))],
                origin,
            )

        # -- conditions
        body = []
        for i, c in enumerate(data.get("conditions") or ()):
            if not isinstance(c, dict) or "when" not in c:
                continue
            cond = b.expression(doc, (*ypath, "conditions", i, "when"), "when of a condition")
            if cond is None:
                continue
            refuse: list[Stmt] = [Return(here, 0, Bool(here, 0, False))]
            body.append(If(cond.src, 0, [(Not(cond.src, 0, cond), refuse)], []))
        body.append(Return(here, 0, Bool(here, 0, True)))
        game.functions[routine_name(tid, "allows")] = ir.Routine(
            routine_name(tid, "allows"), "function", list(params), ir.BOOL, body, origin
        )

        # -- row programs
        branches: list[tuple[Any, list[Stmt]]] = []
        for i, row in enumerate(data.get("rows") or ()):
            if not isinstance(row, dict) or "effect" not in row:
                continue
            if table.kind != "range":
                sink.error(
                    "table-type",
                    f"only rows of range tables carry an effect ({tid!r} is a {table.kind} table)",
                    doc.key_pos((*ypath, "rows", i, "effect")),
                )
                continue
            what = f"effect of row {i + 1} of {tid!r}"
            stmts = b.program(doc, (*ypath, "rows", i, "effect"), what)
            if stmts is None:
                continue
            test = Compare(here, 0, "==", Name(here, 0, "_row"), Int(here, 0, i))
            branches.append((test, stmts))
        branches += _result_programs(b, table, doc, ypath, data, here, sink)
        apply_body: list[Stmt] = [If(here, 0, branches, [])] if branches else [Pass(here, 0)]
        game.functions[routine_name(tid, "apply")] = ir.Routine(
            routine_name(tid, "apply"),
            "procedure",
            [*params, ("_row", ir.INT)],
            ir.VOID,
            apply_body,
            origin,
        )


def _result_programs(
    b: Any, table: Any, doc: Any, ypath: tuple[Any, ...], data: Any, here: Snippet, sink: Any
) -> list[tuple[Any, list[Stmt]]]:
    """The branches of ``apply`` for the results of a column or matrix table that carry an
    ``effect``: run when the result record came from a cell holding that result (``_row`` is
    the cell's number, row by row)."""
    tid = table.id
    results = data.get("results")
    if not isinstance(results, dict):
        return []
    width = max(len(table.columns), 1)
    cells: dict[str, list[int]] = {}
    if table.kind in ("column", "matrix"):
        for r, row in enumerate(table.rows):
            for c, cell in enumerate(row.cells[:width]):
                if not cell.gap and cell.code is not None:
                    cells.setdefault(cell.code, []).append(r * width + c)
    branches: list[tuple[Any, list[Stmt]]] = []
    for code, result in results.items():
        if not isinstance(result, dict) or "effect" not in result:
            continue
        where = (*ypath, "results", code, "effect")
        if table.kind not in ("column", "matrix"):
            sink.error(
                "table-type",
                f"only results of column and matrix tables carry an effect ({tid!r} is a "
                f"{table.kind} table)",
                doc.key_pos(where),
                "on a range table, write the effect on its rows",
            )
            continue
        stmts = b.program(doc, where, f"effect of result {code!r} of {tid!r}")
        if stmts is None or code not in cells:
            continue  # a result no cell prints (DZ) has a program nobody runs
        found = ListLit(here, 0, [Int(here, 0, i) for i in cells[code]])
        branches.append((In(here, 0, Name(here, 0, "_row"), found, False), stmts))
    return branches
