"""Tables as data: die tables, matrices and results tables with odds columns, shifts and clamps.

A game's tables live in ``rules/<game>/tables/*.yaml`` (format: ``docs/tables.md``, schema:
``schemas/tables.schema.json``). :func:`load_tables` loads and checks them, reporting every
problem in the data as a diagnostic with file:line:col, and returns :class:`Table` objects that

* answer lookups (``crt.lookup(attacker=12, defender=5, roll=4, shifts=+1)``), raising
  :class:`TableGap` when the answer is a cell the rulebook does not print;
* compute the exact distribution of results of every die-driven column (as
  :class:`fractions.Fraction`);
* carry everything a reference sheet prints: titles, headings, cells with their status
  (``printed``, ``assumed`` or ``gap``) and reason, results, footnotes and provenance.

The package: :mod:`.model` (ranges, dice, cells, rows, the table kinds with lookups and exact
distributions), :mod:`.cells` and :mod:`.build` (reading and checking the YAML into the
model), :mod:`.programs` (a table's ``params``/``when``/``effect`` compiled into routines of the
game; imported on its own, it needs the effect language).
"""

from __future__ import annotations

from .build import TableBuilder, all_game_tables, load_tables
from .model import (
    GAP,
    KINDS,
    Cell,
    Column,
    ColumnTable,
    Condition,
    Fill,
    FormBlock,
    FormTable,
    ListTable,
    MatrixTable,
    Modifier,
    OddsColumn,
    Provenance,
    Range,
    RangeTable,
    Result,
    Row,
    Shift,
    StepsTable,
    Table,
    TableGap,
    TableLookupError,
    dice_outcomes,
    parse_range,
)

__all__ = [
    "GAP",
    "KINDS",
    "Cell",
    "Column",
    "ColumnTable",
    "Condition",
    "Fill",
    "FormBlock",
    "FormTable",
    "ListTable",
    "MatrixTable",
    "Modifier",
    "OddsColumn",
    "Provenance",
    "Range",
    "RangeTable",
    "Result",
    "Row",
    "Shift",
    "StepsTable",
    "Table",
    "TableBuilder",
    "TableGap",
    "TableLookupError",
    "all_game_tables",
    "dice_outcomes",
    "load_tables",
    "parse_range",
]
