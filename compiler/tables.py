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
"""

from __future__ import annotations

import itertools
import math
import re
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from .diagnostics import DiagnosticSink, Position
from .limits import MAX_DICE, MAX_DIE_SIDES

__all__ = [
    "GAP",
    "Cell",
    "Column",
    "Fill",
    "ColumnTable",
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
    "TableGap",
    "TableLookupError",
    "all_game_tables",
    "dice_outcomes",
    "load_tables",
    "parse_range",
]

GAP = "(gap)"
"""Key of :meth:`Table.distribution` for the chance of landing on a gap (or off the table)."""

KINDS = ("range", "column", "matrix", "list", "steps", "form")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_PAD = object()  # stands for a cell missing from a short row (already reported)


class TableLookupError(LookupError):
    """A lookup that cannot be answered: unknown key or column, value off the table."""


class TableGap(TableLookupError):
    """A lookup landed on a cell the rulebook does not print (an explicit gap)."""

    def __init__(self, table: str, keys: Mapping[str, Any], reason: str) -> None:
        self.table = table
        self.keys = dict(keys)
        self.reason = reason
        where = ", ".join(f"{k}={v!r}" for k, v in self.keys.items())
        super().__init__(f"table {table!r}: no data at {where}: {reason}")


# ----------------------------------------------------------------------------------------------
# Ranges


@dataclass(frozen=True)
class Range:
    """An inclusive integer range as printed; ``lo``/``hi`` None is an open end."""

    lo: int | None
    hi: int | None
    text: str

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int):
            return False
        return (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi)

    def __str__(self) -> str:
        return self.text


_N = r"(-?\d+)"
_RANGE_FORMS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"^{_N}$"), "one"),
    (re.compile(rf"^{_N}\s*(?:-|–|to)\s*{_N}$"), "two"),
    (re.compile(rf"^{_N}\s*(?:\+|or more|or higher|≥)$"), "up"),
    (re.compile(rf"^≥\s*{_N}$"), "up"),
    (re.compile(rf"^{_N}\s*(?:or less|or lower)$"), "down"),
    (re.compile(rf"^≤\s*{_N}$"), "down"),
]


def parse_range(text: str) -> Range | None:
    """Parse a printed range ("4", "2-4", "-1-0", "7+", "0 or less", "≤0", "5≥"); None if
    malformed."""
    s = text.strip()
    for pattern, form in _RANGE_FORMS:
        m = pattern.match(s)
        if not m:
            continue
        a = int(m.group(1))
        if form == "one":
            return Range(a, a, s)
        if form == "two":
            b = int(m.group(2))
            return Range(a, b, s) if a <= b else None
        if form == "up":
            return Range(a, None, s)
        return Range(None, a, s)
    return None


# ----------------------------------------------------------------------------------------------
# Dice


_DICE = re.compile(r"^([1-9][0-9]*)d([1-9][0-9]*)$")


def dice_outcomes(dice: str) -> dict[int, Fraction]:
    """Exact distribution of the total of ``dice`` ("1d6", "2d6", "NdM", or "d66": tens and
    ones)."""
    if dice == "d66":
        return {10 * a + b: Fraction(1, 36) for a in range(1, 7) for b in range(1, 7)}
    m = _DICE.match(dice)
    if not m:
        raise ValueError(f"unknown dice {dice!r}")
    # the distribution takes dice x sides x totals steps: bound them, or a typo never ends
    if len(dice) > 7 or int(m.group(1)) > MAX_DICE or int(m.group(2)) > MAX_DIE_SIDES:
        shown = dice if len(dice) <= 12 else dice[:8] + "..."
        most = f"at most {MAX_DICE} dice of at most {MAX_DIE_SIDES} sides"
        raise ValueError(f"dice {shown!r}: {most}")
    n, sides = int(m.group(1)), int(m.group(2))
    dist: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(n):
        nxt: dict[int, Fraction] = {}
        for total, p in dist.items():
            for face in range(1, sides + 1):
                nxt[total + face] = nxt.get(total + face, Fraction(0)) + p / sides
        dist = nxt
    return dict(sorted(dist.items()))


# ----------------------------------------------------------------------------------------------
# Model


@dataclass(frozen=True)
class Provenance:
    """Where a table or element comes from: rules-index ids, rulebook section, file position."""

    rules: tuple[str, ...] = ()
    section: str | None = None
    page: str | None = None
    pos: Position | None = None

    def __str__(self) -> str:
        parts = [p for p in (self.section, ", ".join(self.rules)) if p]
        return "; ".join(parts)


@dataclass
class Result:
    """A printed result and its explanation (e.g. ``DD`` Defender Defeated)."""

    code: str
    label: str | None = None
    text: str | None = None
    effects: tuple[str, ...] = ()
    crt: bool = False
    shift: int = 0
    permanent: bool = False
    footnotes: tuple[str, ...] = ()
    status: str = "printed"
    reason: str | None = None
    rules: tuple[str, ...] = ()
    pos: Position | None = None

    def __str__(self) -> str:
        return self.code


@dataclass
class Cell:
    """One cell: its printed value, result, status (printed/assumed/gap), reason and position.

    ``keys`` holds the lookup keys that reach the cell (e.g. ``{"roll": "1", "odds": "2:1"}``).
    """

    value: Any
    status: str = "printed"
    reason: str | None = None
    result: Result | None = None
    explanation: str | None = None
    permanent: bool = False
    footnotes: tuple[str, ...] = ()
    note: str | None = None
    rules: tuple[str, ...] = ()
    keys: dict[str, Any] = field(default_factory=dict)
    pos: Position | None = None

    @property
    def gap(self) -> bool:
        """True for a cell the rulebook does not print and we did not fill."""
        return self.status == "gap"

    @property
    def assumed(self) -> bool:
        """True for a cell filled in by the encoder (not printed)."""
        return self.status == "assumed"

    @property
    def printed(self) -> bool:
        """True for a cell printed in the rulebook."""
        return self.status == "printed"

    @property
    def code(self) -> str | None:
        """The result code (distribution key), or the printed value as a string."""
        if self.gap:
            return None
        if self.result is not None:
            return self.result.code
        return None if self.value is None else str(self.value)

    @property
    def text(self) -> str:
        """What the sheet prints in the cell (for a gap, only what the rulebook prints there, if
        anything)."""
        return self.printed_text

    @property
    def printed_text(self) -> str:
        """The cell as the rulebook prints it: a leading ``*`` on permanent results, footnote
        marks."""
        if self.gap and self.value is None:
            return ""
        if self.explanation is not None:
            return ("*" if self.permanent else "") + self.explanation
        shown = "" if self.value is None else str(self.value)
        return shown + "".join(m for m in self.footnotes if not shown.endswith(m))

    def __str__(self) -> str:
        return self.text


@dataclass
class Column:
    """A column heading: id (used in lookups), printed label, and for value columns its range.

    ``seats`` (form tables): the seats of the game whose values a record fills into the column
    (one, or several sharing the column, printed ``"a / b"``)."""

    id: str
    label: str
    range: Range | None = None
    ratio: Fraction | None = None
    footnotes: tuple[str, ...] = ()
    status: str = "printed"
    reason: str | None = None
    seats: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True)
class Fill:
    """How a form row is filled in from a saved game (``fill:``, ``format:``, ``skip_zero:``).

    ``scope`` is ``"g"`` (a global: the same value in every column) or ``"p"`` (a player field:
    the value of each column's seat); ``field`` is the field name in the save."""

    scope: str
    field: str
    format: str | None = None
    skip_zero: bool = False

    @property
    def path(self) -> str:
        """The field as written in the rules: ``p.yss_brps``, ``g.year``."""
        return f"{self.scope}.{self.field}"

    def text(self, value: Any) -> str:
        """What the form prints for a saved value ("" for none, or a zero with skip_zero)."""
        if value is None or value == "" or value == []:
            return ""
        if self.skip_zero and not isinstance(value, bool) and value == 0:
            return ""
        if isinstance(value, bool):
            shown: Any = "yes" if value else "no"
        elif isinstance(value, list):
            shown = ", ".join(str(v) for v in value)
        elif isinstance(value, dict):
            return ""
        else:
            shown = value
        if self.format is None:
            return str(shown)
        try:
            return self.format.format(value=shown)
        except (ValueError, TypeError):  # a format spec that does not suit the value ({value:d})
            return str(shown)


@dataclass
class Row:
    """A row: id (range text for die rows), printed label, range and cells.

    ``fill`` (form tables): how a saved game fills the row in, if it does."""

    id: str
    label: str
    cells: list[Cell]
    range: Range | None = None
    status: str = "printed"
    reason: str | None = None
    pos: Position | None = None
    fill: Fill | None = None


@dataclass
class Modifier:
    """A modifier of a table's key (die roll or column value)."""

    id: str
    text: str
    value: int | None = None
    per: str | None = None
    max: int | None = None
    applies_to: str = "roll"
    status: str = "printed"
    reason: str | None = None
    rules: tuple[str, ...] = ()


@dataclass
class Shift:
    """A kind of column shift (leaders, terrain, matrix results, markers...)."""

    id: str
    text: str
    direction: str
    max: int | None = None
    amount: int | None = None
    status: str = "printed"
    reason: str | None = None
    rules: tuple[str, ...] = ()


@dataclass
class Condition:
    """A printed condition on using a table (e.g. when a country may be named)."""

    text: str
    status: str = "printed"
    reason: str | None = None
    rules: tuple[str, ...] = ()


@dataclass
class OddsColumn:
    """One die-driven column the sheet prints probabilities for."""

    column: str | None
    label: str
    modifiers: int = 0


@dataclass
class FormBlock:
    """A block of rows on a record form.

    ``when`` (``when: {g.season: spring}``): the global fields and the values (any of) a saved
    game must have for the block's rows to be filled in; empty: always. ``title_fill``
    (``title_fill: g.year``): a global whose saved value follows the title ("YSS 1940")."""

    id: str
    title: str
    rows: list[Row]
    when: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    title_fill: str | None = None

    def applies(self, globals_: Mapping[str, Any]) -> bool:
        """True when the saved globals match every ``when`` condition (a missing field: no)."""
        for name, wanted in self.when.items():
            if name not in globals_ or not any(_same(globals_[name], w) for w in wanted):
                return False
        return True


def _same(saved: Any, wanted: Any) -> bool:
    """A saved value equals a value written in the rules (``true`` is not ``1``)."""
    if isinstance(saved, bool) or isinstance(wanted, bool):
        return isinstance(saved, bool) and isinstance(wanted, bool) and saved == wanted
    return bool(saved == wanted)


@dataclass
class Table:
    """A table of a game. Subclasses implement the kinds; all share these fields."""

    id: str
    title: str
    kind: str
    provenance: Provenance
    game: str | None = None
    group: str | None = None
    order: int | None = None
    intro: str | None = None
    notes: list[str] = field(default_factory=list)
    footnote_texts: dict[str, str] = field(default_factory=dict)
    data_missing: str | None = None
    columns: list[Column] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    results: dict[str, Result] = field(default_factory=dict)
    corner: str | None = None
    pos: Position | None = None
    #: where the table is written (its programs are parsed from there; see table_programs)
    doc: Any = field(default=None, repr=False, compare=False)
    ypath: tuple[Any, ...] = ()
    #: the params its programs take, set when the game is built
    params: list[Any] = field(default_factory=list)

    @property
    def footnotes(self) -> list[str]:
        """Footnotes as printed lines (``"* text"``), for sheets."""
        return [f"{mark} {text}" for mark, text in self.footnote_texts.items()]

    @property
    def source(self) -> Provenance:
        """Alias of :attr:`provenance`."""
        return self.provenance

    def cells(self) -> Iterator[Cell]:
        """Every cell of the table, row by row."""
        for row in self.rows:
            yield from row.cells

    def counts(self) -> dict[str, int]:
        """Number of printed, assumed and gap cells."""
        out = {"printed": 0, "assumed": 0, "gap": 0}
        for cell in self.cells():
            out[cell.status] += 1
        return out

    def odds_columns(self) -> list[OddsColumn]:
        """The die-driven columns whose distributions a sheet prints (none for non-die tables)."""
        return []

    def lookup(self, **keys: Any) -> Any:
        """Look a value up; see the subclasses."""
        raise TableLookupError(f"table {self.id!r} ({self.kind}) has no lookup")

    def distribution(
        self, column: str | None = None, modifiers: Any = 0, shifts: Any = 0
    ) -> dict[str, Fraction]:
        """Exact probability of each result; see the die-driven subclasses."""
        raise TableLookupError(f"table {self.id!r} ({self.kind}) is not die-driven")

    # -- helpers shared by the die tables ----------------------------------------------------

    def _check_cell(self, cell: Cell) -> Cell:
        if cell.gap:
            raise TableGap(self.id, cell.keys, cell.reason or "not printed")
        return cell


def _modifier_total(table_id: str, mods: list[Modifier], given: Any, applies_to: str) -> int:
    """Net modifier from an int or a mapping {modifier id: count}."""
    if given is None:
        return 0
    if isinstance(given, bool):
        raise TableLookupError(f"table {table_id!r}: modifiers must be an integer or a mapping")
    if isinstance(given, int):
        return given if applies_to == "roll" else 0
    if not isinstance(given, Mapping):
        raise TableLookupError(f"table {table_id!r}: modifiers must be an integer or a mapping")
    by_id = {m.id: m for m in mods}
    total = 0
    for name, count in given.items():
        mod = by_id.get(name)
        if mod is None:
            known = ", ".join(sorted(by_id)) or "none"
            raise TableLookupError(
                f"table {table_id!r}: unknown modifier {name!r} (known: {known})"
            )
        if mod.applies_to != applies_to:
            continue
        if mod.value is None:
            raise TableLookupError(
                f"table {table_id!r}: modifier {name!r} is not a number; apply it before the lookup"
            )
        n = int(count)
        if mod.max is not None:
            n = max(-mod.max, min(mod.max, n))
        total += n * mod.value
    return total


def _resolve_range(rows: list[Row], value: int, below_first: str, above_last: str) -> Row | None:
    for row in rows:
        if row.range is not None and value in row.range:
            return row
    if not rows:
        return None
    first, last = rows[0].range, rows[-1].range
    if below_first == "first" and first is not None and first.lo is not None and value < first.lo:
        return rows[0]
    if above_last == "last" and last is not None and last.hi is not None and value > last.hi:
        return rows[-1]
    return None


@dataclass
class RangeTable(Table):
    """One integer key picks a row (die tables, VP levels, Famous Victory)."""

    key: str = "roll"
    key_label: str | None = None
    result_label: str | None = None
    dice: str | None = None
    below_first: str = "error"
    above_last: str = "error"
    modifiers: list[Modifier] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)

    def row_for(self, value: int) -> Row:
        """The row for an already modified value (open ends and lower-than-first applied)."""
        row = _resolve_range(self.rows, value, self.below_first, self.above_last)
        if row is None:
            raise TableLookupError(f"table {self.id!r}: {self.key} {value} is off the table")
        return row

    def lookup(self, **keys: Any) -> Cell:
        """``lookup(roll=3, modifiers=1)``: the cell of the row the modified key falls in."""
        mods = keys.pop("modifiers", 0)
        if self.key not in keys:
            raise TableLookupError(f"table {self.id!r}: lookup needs {self.key}=")
        value = keys.pop(self.key)
        if keys:
            raise TableLookupError(f"table {self.id!r}: unknown lookup keys {sorted(keys)}")
        total = int(value) + _modifier_total(self.id, self.modifiers, mods, "roll")
        return self._check_cell(self.row_for(total).cells[0])

    def distribution(
        self, column: str | None = None, modifiers: Any = 0, shifts: Any = 0
    ) -> dict[str, Fraction]:
        """Exact probability of each result for a die roll plus ``modifiers``."""
        if self.dice is None:
            raise TableLookupError(f"table {self.id!r} is not a die table")
        mod = _modifier_total(self.id, self.modifiers, modifiers, "roll")
        return _distribute(
            self.dice,
            mod,
            lambda v: _resolve_range(self.rows, v, self.below_first, self.above_last),
        )

    def odds_columns(self) -> list[OddsColumn]:
        """A die table has one die-driven column (unmodified roll)."""
        return [OddsColumn(None, self.title)] if self.dice else []


def _distribute(dice: str, mod: int, pick: Any) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for roll, p in dice_outcomes(dice).items():
        row = pick(roll + mod)
        cell = row.cells[0] if isinstance(row, Row) else row
        key = GAP if cell is None or cell.gap else (cell.code or GAP)
        out[key] = out.get(key, Fraction(0)) + p
    return out


@dataclass
class ColumnTable(Table):
    """Die rows by columns chosen from odds or a value, with column shifts and clamps (CRT)."""

    key: str = "roll"
    key_label: str | None = None
    dice: str = "1d6"
    column_by: str = "value"
    column_key: str = "column"
    column_label: str | None = None
    attacker_stronger: str = "round_down"
    defender_stronger: str = "round_up"
    clamp: bool = False
    below_first: str = "error"
    above_last: str = "error"
    modifiers: list[Modifier] = field(default_factory=list)
    shifts: list[Shift] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)

    # -- columns -----------------------------------------------------------------------------

    def _index(self, column: str | int) -> int:
        if isinstance(column, int) and not isinstance(column, bool):
            if 0 <= column < len(self.columns):
                return column
        for i, c in enumerate(self.columns):
            if column in (c.id, c.label):
                return i
        known = ", ".join(c.id for c in self.columns)
        raise TableLookupError(f"table {self.id!r}: unknown column {column!r} (known: {known})")

    def column_for(self, *args: int, **kw: Any) -> str:
        """The column before shifts: ``column_for(attacker, defender)`` for odds tables (18.21),
        ``column_for(value)`` for value tables; beyond either end counts as that end."""
        return self.columns[self._column_index_for(*args, **kw)].id

    def _column_index_for(self, *args: int, **kw: Any) -> int:
        if self.column_by == "odds":
            if len(args) == 2:
                attacker, defender = args
            else:
                attacker, defender = kw["attacker"], kw["defender"]
            return self._odds_index(int(attacker), int(defender))
        value = args[0] if args else kw[self.column_key]
        value = int(value) + _modifier_total(self.id, self.modifiers, kw.get("modifiers"), "column")
        for i, c in enumerate(self.columns):
            if c.range is not None and value in c.range:
                return i
        first, last = self.columns[0].range, self.columns[-1].range
        if self.clamp and first is not None and first.lo is not None and value < first.lo:
            return 0
        if self.clamp and last is not None and last.hi is not None and value > last.hi:
            return len(self.columns) - 1
        raise TableLookupError(f"table {self.id!r}: {self.column_key} {value} is off the table")

    def _odds_index(self, attacker: int, defender: int) -> int:
        ratios = [c.ratio or Fraction(0) for c in self.columns]
        if attacker <= 0:
            return 0
        if defender <= 0:
            return len(ratios) - 1
        if attacker >= defender:
            r = Fraction(attacker, defender)
            if self.attacker_stronger == "round_up":
                above = [i for i, q in enumerate(ratios) if q >= r]
                return above[0] if above else len(ratios) - 1
        else:
            q = Fraction(defender, attacker)
            n = math.ceil(q) if self.defender_stronger == "round_up" else math.floor(q)
            r = Fraction(1, n)
        below = [i for i, q in enumerate(ratios) if q <= r]
        return below[-1] if below else 0

    def net_shift(self, shifts: Any) -> int:
        """Net columns (right +) from an int or a mapping {shift id: amount}."""
        if shifts is None:
            return 0
        if isinstance(shifts, int) and not isinstance(shifts, bool):
            return shifts
        if not isinstance(shifts, Mapping):
            raise TableLookupError(f"table {self.id!r}: shifts must be an integer or a mapping")
        by_id = {s.id: s for s in self.shifts}
        total = 0
        for name, amount in shifts.items():
            spec = by_id.get(name)
            if spec is None:
                known = ", ".join(sorted(by_id)) or "none"
                raise TableLookupError(
                    f"table {self.id!r}: unknown shift {name!r} (known: {known})"
                )
            n = spec.amount if amount is True and spec.amount is not None else int(amount)
            if spec.direction == "either":
                total += n if spec.max is None else max(-spec.max, min(spec.max, n))
                continue
            n = abs(n) if spec.max is None else min(abs(n), spec.max)
            total += n if spec.direction == "right" else -n
        return total

    def shifted(self, column: str | int, shifts: Any = 0) -> str:
        """The final column after shifts, clamped to the ends (18.22, 18.3)."""
        return self.columns[self._shifted_index(self._index(column), shifts)].id

    def _shifted_index(self, index: int, shifts: Any) -> int:
        i = index + self.net_shift(shifts)
        if 0 <= i < len(self.columns):
            return i
        if self.clamp:
            return max(0, min(len(self.columns) - 1, i))
        raise TableLookupError(f"table {self.id!r}: shifted off the table")

    # -- lookups -----------------------------------------------------------------------------

    def lookup(self, **keys: Any) -> Cell:
        """``lookup(attacker=12, defender=5, roll=4, shifts=+1)`` or ``lookup(odds="2:1", roll=3)``.

        Value tables take ``<column_key>=`` (modifiers with ``applies_to: column`` are added to it).
        """
        shifts = keys.pop("shifts", 0)
        mods = keys.pop("modifiers", 0)
        if self.key not in keys:
            raise TableLookupError(f"table {self.id!r}: lookup needs {self.key}=")
        roll = int(keys.pop(self.key)) + _modifier_total(self.id, self.modifiers, mods, "roll")
        if self.column_by == "odds" and "attacker" in keys and "defender" in keys:
            col = self._odds_index(int(keys.pop("attacker")), int(keys.pop("defender")))
        elif self.column_key in keys:
            given = keys.pop(self.column_key)
            if self.column_by == "value" and not isinstance(given, str):
                col = self._column_index_for(given, modifiers=mods)
            else:
                col = self._index(given)
        elif "column" in keys:
            col = self._index(keys.pop("column"))
        else:
            raise TableLookupError(f"table {self.id!r}: lookup needs {self.column_key}=")
        if keys:
            raise TableLookupError(f"table {self.id!r}: unknown lookup keys {sorted(keys)}")
        col = self._shifted_index(col, shifts)
        row = _resolve_range(self.rows, roll, self.below_first, self.above_last)
        if row is None:
            raise TableLookupError(f"table {self.id!r}: {self.key} {roll} is off the table")
        return self._check_cell(row.cells[col])

    def distribution(
        self, column: str | int | None = None, modifiers: Any = 0, shifts: Any = 0
    ) -> dict[str, Fraction]:
        """Exact probability of each result in ``column`` after ``shifts``, die roll +
        ``modifiers``.

        The chance of landing on a gap is reported under :data:`GAP`.
        """
        if column is None:
            raise TableLookupError(f"table {self.id!r}: distribution needs a column")
        col = self._shifted_index(self._index(column), shifts)
        mod = _modifier_total(self.id, self.modifiers, modifiers, "roll")

        def pick(v: int) -> Cell | None:
            row = _resolve_range(self.rows, v, self.below_first, self.above_last)
            return None if row is None else row.cells[col]

        return _distribute(self.dice, mod, pick)

    def odds_columns(self) -> list[OddsColumn]:
        """Every column is die-driven."""
        return [OddsColumn(c.id, c.label) for c in self.columns]


@dataclass
class MatrixTable(Table):
    """Two named axes (e.g. attacker plan by defender plan)."""

    row_key: str = "row"
    row_label: str | None = None
    column_key: str = "column"
    column_label: str | None = None

    def lookup(self, **keys: Any) -> Cell:
        """``lookup(attacker_plan="skirmish", defender_plan="stand")``: the cell (gap raises)."""
        if self.row_key not in keys or self.column_key not in keys:
            raise TableLookupError(
                f"table {self.id!r}: lookup needs {self.row_key}= and {self.column_key}="
            )
        r, c = keys.pop(self.row_key), keys.pop(self.column_key)
        if keys:
            raise TableLookupError(f"table {self.id!r}: unknown lookup keys {sorted(keys)}")
        row = next((x for x in self.rows if r in (x.id, x.label)), None)
        if row is None:
            known = ", ".join(x.id for x in self.rows)
            raise TableLookupError(
                f"table {self.id!r}: unknown {self.row_key} {r!r} (known: {known})"
            )
        idx = next((i for i, x in enumerate(self.columns) if c in (x.id, x.label)), None)
        if idx is None:
            known = ", ".join(x.id for x in self.columns)
            raise TableLookupError(
                f"table {self.id!r}: unknown {self.column_key} {c!r} (known: {known})"
            )
        return self._check_cell(row.cells[idx])


@dataclass
class ListTable(Table):
    """Records by id with named columns (costs, allotments, income)."""

    key: str = "id"
    key_label: str | None = None

    def lookup(self, **keys: Any) -> Any:
        """``lookup(unit_type="siege_army")`` → :class:`Row`; with ``column="mobilize"`` →
        :class:`Cell`."""
        column = keys.pop("column", None)
        if self.key not in keys:
            raise TableLookupError(f"table {self.id!r}: lookup needs {self.key}=")
        wanted = keys.pop(self.key)
        if keys:
            raise TableLookupError(f"table {self.id!r}: unknown lookup keys {sorted(keys)}")
        row = next((x for x in self.rows if wanted in (x.id, x.label)), None)
        if row is None:
            known = ", ".join(x.id for x in self.rows)
            raise TableLookupError(
                f"table {self.id!r}: unknown {self.key} {wanted!r} (known: {known})"
            )
        if column is None:
            return row
        idx = next((i for i, x in enumerate(self.columns) if column in (x.id, x.label)), None)
        if idx is None:
            known = ", ".join(x.id for x in self.columns)
            raise TableLookupError(f"table {self.id!r}: unknown column {column!r} (known: {known})")
        return self._check_cell(row.cells[idx])


@dataclass
class StepsTable(Table):
    """A printed summary or procedure: ordered lines (one cell each)."""

    @property
    def steps(self) -> list[str]:
        """The printed lines in order."""
        return [row.cells[0].text for row in self.rows]


@dataclass
class FormTable(Table):
    """A blank record form: columns and blocks of labelled rows, plus printed example entries."""

    blocks: list[FormBlock] = field(default_factory=list)
    examples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def fillable(self) -> bool:
        """True when a saved game fills in some of its cells (a row has ``fill:``)."""
        return any(row.fill is not None for b in self.blocks for row in b.rows)

    def filled(
        self, globals_: Mapping[str, Any], players: Mapping[str, Mapping[str, Any]]
    ) -> dict[tuple[str, str, str], str]:
        """The texts a saved game puts in the form: ``{(block, row, column): text}``.

        ``globals_`` are the saved global fields by name, ``players`` each seat's fields by
        name. A row without ``fill:``, a block whose ``when`` does not match, a column without
        a seat (for a player field) and a field missing from the save give no entry. A column of
        several seats prints each seat's text, joined by " / ", when any of them has one.
        ``(block, "", "")`` holds a block's title followed by its ``title_fill`` value."""
        out: dict[tuple[str, str, str], str] = {}
        for block in self.blocks:
            if block.title_fill is not None:
                shown = Fill("g", block.title_fill).text(globals_.get(block.title_fill))
                if shown:
                    out[(block.id, "", "")] = f"{block.title} {shown}"
            if not block.applies(globals_):
                continue
            for row in block.rows:
                fill = row.fill
                if fill is None:
                    continue
                for col in self.columns:
                    if fill.scope == "g":
                        text = fill.text(globals_.get(fill.field))
                    else:
                        parts = [
                            fill.text((players.get(s) or {}).get(fill.field)) for s in col.seats
                        ]
                        text = " / ".join(parts).strip() if any(parts) else ""
                    if text:
                        out[(block.id, row.id, col.id)] = text
        return out

    def cells(self) -> Iterator[Cell]:
        """Each column heading and each row label is one printed cell."""
        for c in self.columns:
            yield Cell(c.label, c.status, c.reason, keys={"column": c.id})
        for block in self.blocks:
            for row in block.rows:
                yield from row.cells
        for ex in self.examples:
            yield Cell(ex.get("entry"), keys={"example": ex.get("row")})


# ----------------------------------------------------------------------------------------------
# Building tables from loaded documents


class _Builder:
    """Builds the tables of one document, reporting problems to the sink."""

    def __init__(self, doc: Any, sink: DiagnosticSink, game: str | None) -> None:
        self.doc = doc
        self.sink = sink
        self.game = game

    # -- reporting -------------------------------------------------------------------------

    def pos(self, path: tuple[Any, ...]) -> Position | None:
        try:
            return self.doc.pos(path)
        except Exception:  # noqa: BLE001 - a position is best effort; never hide the error itself
            return None

    def key_pos(self, path: tuple[Any, ...]) -> Position | None:
        try:
            return self.doc.key_pos(path)
        except Exception:  # noqa: BLE001
            return self.pos(path)

    def error(
        self,
        code: str,
        message: str,
        path: tuple[Any, ...],
        hint: str | None = None,
        key: bool = False,
    ) -> None:
        self.sink.error(code, message, self.key_pos(path) if key else self.pos(path), hint)

    # -- small readers ---------------------------------------------------------------------

    def text(
        self, data: Mapping[str, Any], name: str, path: tuple[Any, ...], required: bool = False
    ) -> str | None:
        value = data.get(name)
        if value is None:
            if required:
                self.error("table-missing", f"missing '{name}'", path)
            return None
        if not isinstance(value, str):
            self.error(
                "table-type",
                f"'{name}' must be a string, not {type(value).__name__}",
                path + (name,),
                hint=f'quote it: {name}: "{value}"',
            )
            return str(value)
        return value

    def rules(self, data: Mapping[str, Any], path: tuple[Any, ...]) -> tuple[str, ...]:
        value = data.get("rules", [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.error("table-type", "'rules' must be a list of rules-index ids", path + ("rules",))
            return ()
        return tuple(value)

    def status(
        self,
        data: Any,
        path: tuple[Any, ...],
        inherited: tuple[str, str | None] = ("printed", None),
    ) -> tuple[str, str | None]:
        if not isinstance(data, Mapping):
            return inherited
        assumed, gap = data.get("assumed"), data.get("gap")
        if assumed is not None and gap is not None:
            self.error("table-status", "an element cannot be both 'assumed' and a 'gap'", path)
        for name, value in (("gap", gap), ("assumed", assumed)):
            if value is None:
                continue
            if not isinstance(value, str) or not value.strip():
                self.error("table-status", f"'{name}' needs the reason as text", path + (name,))
                return name, None
            return name, value
        return inherited

    def footmarks(
        self, data: Any, path: tuple[Any, ...], known: Mapping[str, str]
    ) -> tuple[str, ...]:
        if not isinstance(data, Mapping) or "footnotes" not in data:
            return ()
        marks = data["footnotes"]
        if not isinstance(marks, list):
            self.error("table-type", "'footnotes' must be a list of marks", path + ("footnotes",))
            return ()
        for i, m in enumerate(marks):
            if str(m) not in known:
                self.error(
                    "table-footnote",
                    f"unknown footnote mark {m!r}",
                    path + ("footnotes", i),
                    hint="add it to the table's footnotes",
                )
        return tuple(str(m) for m in marks)

    def range_of(self, value: Any, path: tuple[Any, ...]) -> Range | None:
        if isinstance(value, int) and not isinstance(value, bool):
            self.error(
                "table-range",
                f"range {value} must be a quoted string",
                path,
                hint=f'write "{value}"',
            )
            return Range(value, value, str(value))
        if not isinstance(value, str):
            self.error("table-range", 'a range must be a string such as "2-4" or "7+"', path)
            return None
        parsed = parse_range(value)
        if parsed is None:
            self.error(
                "table-range",
                f"malformed range {value!r}",
                path,
                hint='write "4", "2-4", "-1 to 0", "7+" or "0 or less"',
            )
        return parsed

    def check_ranges(self, items: list[tuple[Range | None, tuple[Any, ...]]], what: str) -> None:
        """Ranges must ascend, not overlap, leave no holes; open ends only at the ends."""
        prev: Range | None = None
        for i, (rng, path) in enumerate(items):
            if rng is None:
                prev = None
                continue
            if rng.lo is None and i != 0:
                self.error(
                    "table-open-end", f"open-ended {what} {rng.text!r} is allowed only first", path
                )
            if rng.hi is None and i != len(items) - 1:
                self.error(
                    "table-open-end", f"open-ended {what} {rng.text!r} is allowed only last", path
                )
            if prev is not None and prev.hi is not None and rng.lo is not None:
                if rng.lo <= prev.hi:
                    self.error("table-overlap", f"{what} {rng.text!r} overlaps {prev.text!r}", path)
                elif rng.lo > prev.hi + 1:
                    missing = (
                        f"{prev.hi + 1}" if rng.lo == prev.hi + 2 else f"{prev.hi + 1}-{rng.lo - 1}"
                    )
                    self.error(
                        "table-hole",
                        f"no {what} covers {missing} (between {prev.text!r} and {rng.text!r})",
                        path,
                        hint="add a row with 'gap: <reason>' if it is not printed",
                    )
            elif prev is not None and (prev.hi is None or rng.lo is None):
                self.error("table-overlap", f"{what} {rng.text!r} overlaps {prev.text!r}", path)
            prev = rng

    def results(
        self, data: Any, path: tuple[Any, ...], notes: Mapping[str, str]
    ) -> dict[str, Result]:
        out: dict[str, Result] = {}
        if data is None:
            return out
        if not isinstance(data, Mapping):
            self.error("table-type", "'results' must be a mapping from result to explanation", path)
            return out
        for code, spec in data.items():
            p = path + (code,)
            spec = spec if isinstance(spec, Mapping) else {}
            status, reason = self.status(spec, p)
            effects = spec.get("effects", [])
            out[str(code)] = Result(
                code=str(code),
                label=self.text(spec, "label", p),
                text=self.text(spec, "text", p),
                effects=tuple(str(e) for e in effects) if isinstance(effects, list) else (),
                crt=bool(spec.get("crt", False)),
                shift=int(spec.get("shift", 0) or 0),
                permanent=bool(spec.get("permanent", False)),
                footnotes=self.footmarks(spec, p, notes),
                status=status,
                reason=reason,
                rules=self.rules(spec, p),
                pos=self.key_pos(p),
            )
        return out

    def modifiers(self, data: Any, path: tuple[Any, ...]) -> list[Modifier]:
        out: list[Modifier] = []
        seen: set[str] = set()
        for i, spec in enumerate(data or []):
            p = path + (i,)
            if not isinstance(spec, Mapping):
                self.error("table-type", "a modifier must be a mapping", p)
                continue
            mid = self.ident(spec.get("id"), p + ("id",), "modifier id")
            if mid in seen:
                self.error("table-duplicate", f"duplicate modifier id {mid!r}", p + ("id",))
            seen.add(mid)
            status, reason = self.status(spec, p)
            value = spec.get("value")
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                self.error("table-type", "modifier 'value' must be an integer", p + ("value",))
                value = None
            out.append(
                Modifier(
                    mid,
                    self.text(spec, "text", p, True) or "",
                    value,
                    spec.get("per"),
                    spec.get("max"),
                    spec.get("applies_to", "roll"),
                    status,
                    reason,
                    self.rules(spec, p),
                )
            )
        return out

    def shifts(self, data: Any, path: tuple[Any, ...]) -> list[Shift]:
        out: list[Shift] = []
        for i, spec in enumerate(data or []):
            p = path + (i,)
            if not isinstance(spec, Mapping):
                self.error("table-type", "a shift must be a mapping", p)
                continue
            direction = spec.get("direction")
            if direction not in ("right", "left", "either"):
                self.error(
                    "table-shift",
                    f"shift direction must be right, left or either, not {direction!r}",
                    p + ("direction",),
                )
            status, reason = self.status(spec, p)
            out.append(
                Shift(
                    self.ident(spec.get("id"), p + ("id",), "shift id"),
                    self.text(spec, "text", p, True) or "",
                    str(direction),
                    spec.get("max"),
                    spec.get("amount"),
                    status,
                    reason,
                    self.rules(spec, p),
                )
            )
        return out

    def conditions(self, data: Any, path: tuple[Any, ...]) -> list[Condition]:
        out = []
        for i, spec in enumerate(data or []):
            p = path + (i,)
            if isinstance(spec, str):
                out.append(Condition(spec))
            elif isinstance(spec, Mapping):
                status, reason = self.status(spec, p)
                out.append(
                    Condition(
                        self.text(spec, "text", p, True) or "", status, reason, self.rules(spec, p)
                    )
                )
            else:
                self.error("table-type", "a condition must be text or a mapping", p)
        return out

    def ident(self, value: Any, path: tuple[Any, ...], what: str) -> str:
        if not isinstance(value, str) or not _ID.match(value):
            self.error("table-id", f"{what} must be lower_snake_case, not {value!r}", path)
            return str(value)
        return value

    def lines(self, data: Any, path: tuple[Any, ...]) -> list[str]:
        out = []
        for i, item in enumerate(data or []):
            if isinstance(item, Mapping):
                out.append(str(item.get("text", "")))
            elif isinstance(item, str):
                out.append(item)
            else:
                self.error("table-type", "a note must be text", path + (i,))
        return out

    def cell(
        self,
        raw: Any,
        path: tuple[Any, ...],
        results: Mapping[str, Result] | None,
        inherited: tuple[str, str | None],
        keys: dict[str, Any],
        notes: Mapping[str, str],
    ) -> Cell:
        """A cell from a scalar or a mapping; results (if given) must list its result."""
        status, reason = self.status(raw, path, inherited)
        if isinstance(raw, Mapping):
            value = raw.get("result", raw.get("value"))
            marks = self.footmarks(raw, path, notes)
            note, rules = raw.get("note"), self.rules(raw, path)
        else:
            value, marks, note, rules = raw, (), None, ()
        result = None
        if status != "gap" and results is not None:
            result = results.get(str(value)) if value is not None else None
            if result is None:
                known = ", ".join(repr(k) for k in results) or "none"
                self.error(
                    "table-result",
                    f"unknown result {value!r}",
                    path,
                    hint=f"list it under 'results' (known: {known})",
                )
        return Cell(
            value,
            status,
            reason,
            result,
            footnotes=marks,
            note=note,
            rules=rules,
            keys=keys,
            pos=self.pos(path),
        )

    # -- tables ----------------------------------------------------------------------------

    def table(self, tid: str, data: Any, path: tuple[Any, ...]) -> Table | None:
        if not isinstance(data, Mapping):
            self.error("table-type", f"table {tid!r} must be a mapping", path)
            return None
        kind = data.get("kind")
        if kind not in KINDS:
            self.error(
                "table-kind",
                f"unknown table kind {kind!r}",
                path + ("kind",),
                hint="one of: " + ", ".join(KINDS),
            )
            return None
        src = data.get("source")
        if not isinstance(src, Mapping):
            self.error(
                "table-missing",
                f"table {tid!r} needs a 'source' with its rules-index ids",
                path,
                key=True,
            )
            src = {}
        prov = Provenance(
            self.rules(src, path + ("source",)),
            src.get("section"),
            src.get("page"),
            self.key_pos(path),
        )
        notes = data.get("footnotes") or {}
        if not isinstance(notes, Mapping):
            self.error("table-type", "'footnotes' must map marks to texts", path + ("footnotes",))
            notes = {}
        notes = {str(k): str(v) for k, v in notes.items()}
        common: dict[str, Any] = dict(
            id=tid,
            title=self.text(data, "title", path, True) or tid,
            kind=kind,
            provenance=prov,
            game=self.game,
            group=data.get("group"),
            order=data.get("order"),
            intro=data.get("intro"),
            notes=self.lines(data.get("notes"), path + ("notes",)),
            footnote_texts=notes,
            data_missing=data.get("data_missing"),
            corner=data.get("corner"),
            pos=self.key_pos(path),
        )
        inherited = self.status(data, path)
        build = getattr(self, f"_{kind}")
        return build(tid, data, path, common, inherited, notes)

    def _range(
        self,
        tid: str,
        data: Mapping[str, Any],
        path: tuple[Any, ...],
        common: dict[str, Any],
        inherited: tuple[str, str | None],
        notes: Mapping[str, str],
    ) -> Table:
        key = data.get("key", "roll")
        results = self.results(data.get("results"), path + ("results",), notes)
        rows: list[Row] = []
        ranges = []
        for i, spec in enumerate(self.rows_of(data, path)):
            p = path + ("rows", i)
            if not isinstance(spec, Mapping):
                self.error("table-type", "a row must be a mapping with 'range'", p)
                continue
            rng = self.range_of(spec.get("range"), p + ("range",))
            ranges.append((rng, p + ("range",)))
            status, reason = self.status(spec, p, inherited)
            result = spec.get("result")
            res = results.get(str(result)) if result is not None else None
            if res is None and result is not None:
                res = Result(
                    str(result),
                    text=spec.get("text"),
                    effects=tuple(spec.get("effects") or ()),
                    permanent=bool(spec.get("permanent", False)),
                )
            text = spec.get("text")
            value = result if result is not None else text
            if status != "gap" and value is None and not spec.get("effects"):
                self.error("table-missing", "a row needs a 'result', a 'text' or a 'gap'", p)
            label = str(spec.get("label", spec.get("range")))
            cell = Cell(
                value,
                status,
                reason,
                res,
                explanation=text,
                permanent=bool(spec.get("permanent", False)),
                footnotes=self.footmarks(spec, p, notes),
                note=spec.get("note"),
                rules=self.rules(spec, p),
                keys={key: str(spec.get("range"))},
                pos=self.pos(p),
            )
            if res is not None and spec.get("effects"):
                res.effects = tuple(str(e) for e in spec["effects"])
            rows.append(
                Row(str(spec.get("range")), label, [cell], rng, status, reason, self.pos(p))
            )
        self.check_ranges(ranges, "range")
        dice = self.dice(data, path)
        return RangeTable(
            **common,
            rows=rows,
            results=results,
            key=key,
            key_label=data.get("key_label"),
            result_label=data.get("result_label"),
            dice=dice,
            below_first=data.get("below_first", "error"),
            above_last=data.get("above_last", "error"),
            modifiers=self.modifiers(data.get("modifiers"), path + ("modifiers",)),
            conditions=self.conditions(data.get("conditions"), path + ("conditions",)),
        )

    def dice(self, data: Mapping[str, Any], path: tuple[Any, ...]) -> str | None:
        dice = data.get("dice")
        if dice is None:
            return None
        try:
            dice_outcomes(str(dice))
        except ValueError as exc:
            self.error(
                "table-dice",
                str(exc),
                path + ("dice",),
                hint=f"write 1d6, 2d6, NdM (N up to {MAX_DICE}, M up to {MAX_DIE_SIDES}) or d66",
            )
            return None
        return str(dice)

    def rows_of(self, data: Mapping[str, Any], path: tuple[Any, ...]) -> list[Any]:
        rows = data.get("rows")
        if not isinstance(rows, list):
            self.error("table-missing", "the table needs 'rows' (a list)", path, key=True)
            return []
        return rows

    def axis(
        self,
        data: Any,
        path: tuple[Any, ...],
        odds: bool,
        value_ranges: bool,
        notes: Mapping[str, str],
    ) -> list[Column]:
        if not isinstance(data, list) or not data:
            self.error("table-missing", "the table needs 'columns' (a non-empty list)", path)
            return []
        out: list[Column] = []
        seen: set[str] = set()
        for i, spec in enumerate(data):
            p = path + (i,)
            if isinstance(spec, str):
                spec = {"id": spec}
            if not isinstance(spec, Mapping) or "id" not in spec:
                self.error("table-type", "a column must be a mapping with 'id'", p)
                continue
            cid = spec["id"]
            if not isinstance(cid, str):
                self.error(
                    "table-type",
                    f"column id {cid!r} must be a quoted string",
                    p + ("id",),
                    hint=f'write id: "{cid}"',
                )
                cid = str(cid)
            if cid in seen:
                self.error("table-duplicate", f"duplicate column {cid!r}", p + ("id",))
            seen.add(cid)
            status, reason = self.status(spec, p)
            col = Column(
                cid,
                str(spec.get("label", cid)),
                footnotes=self.footmarks(spec, p, notes),
                status=status,
                reason=reason,
            )
            if odds:
                m = re.match(r"^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$", cid)
                if not m:
                    self.error(
                        "table-odds",
                        f'odds column {cid!r} must read like "1:2" or "1.5:1"',
                        p + ("id",),
                    )
                else:
                    col.ratio = Fraction(m.group(1)) / Fraction(m.group(2))
            if value_ranges:
                if "range" not in spec:
                    self.error("table-missing", "a value column needs a 'range'", p)
                else:
                    col.range = self.range_of(spec["range"], p + ("range",))
            out.append(col)
        if odds:
            ratios = [c.ratio for c in out if c.ratio is not None]
            for a, b, i in zip(ratios, ratios[1:], itertools.count(1), strict=False):
                if b <= a:
                    self.error(
                        "table-odds", "odds columns must increase from left to right", path + (i,)
                    )
        if value_ranges:
            self.check_ranges([(c.range, path + (i, "range")) for i, c in enumerate(out)], "column")
        return out

    def _column(
        self,
        tid: str,
        data: Mapping[str, Any],
        path: tuple[Any, ...],
        common: dict[str, Any],
        inherited: tuple[str, str | None],
        notes: Mapping[str, str],
    ) -> Table:
        column_by = data.get("column_by")
        if column_by not in ("odds", "value"):
            self.error(
                "table-kind",
                f"column_by must be odds or value, not {column_by!r}",
                path + ("column_by",),
            )
            column_by = "value"
        columns = self.axis(
            data.get("columns"),
            path + ("columns",),
            column_by == "odds",
            column_by == "value",
            notes,
        )
        results = self.results(data.get("results"), path + ("results",), notes)
        key = data.get("key", "roll")
        column_key = data.get("column_key", "odds" if column_by == "odds" else "column")
        rows: list[Row] = []
        ranges = []
        for i, spec in enumerate(self.rows_of(data, path)):
            p = path + ("rows", i)
            if not isinstance(spec, Mapping):
                self.error("table-type", "a row must be a mapping with 'range' and 'cells'", p)
                continue
            rng = self.range_of(spec.get("range"), p + ("range",))
            ranges.append((rng, p + ("range",)))
            status, reason = self.status(spec, p, inherited)
            label = str(spec.get("range"))
            cells = self.row_cells(
                spec,
                p,
                label,
                columns,
                results,
                (status, reason),
                key,
                column_key,
                notes,
                gap_ok=True,
            )
            rows.append(
                Row(label, str(spec.get("label", label)), cells, rng, status, reason, self.pos(p))
            )
        self.check_ranges(ranges, "range")
        odds = data.get("odds") if isinstance(data.get("odds"), Mapping) else {}
        if column_by == "odds" and not odds:
            self.error(
                "table-odds",
                "an odds table needs 'odds' (how strengths are rounded)",
                path,
                key=True,
            )
        return ColumnTable(
            **common,
            columns=columns,
            rows=rows,
            results=results,
            key=key,
            key_label=data.get("key_label"),
            dice=self.dice(data, path) or "1d6",
            column_by=column_by,
            column_key=column_key,
            column_label=data.get("column_label"),
            attacker_stronger=odds.get("attacker_stronger", "round_down"),
            defender_stronger=odds.get("defender_stronger", "round_up"),
            clamp=bool(data.get("clamp", False)),
            below_first=data.get("below_first", "error"),
            above_last=data.get("above_last", "error"),
            modifiers=self.modifiers(data.get("modifiers"), path + ("modifiers",)),
            shifts=self.shifts(data.get("shifts"), path + ("shifts",)),
            conditions=self.conditions(data.get("conditions"), path + ("conditions",)),
        )

    def _matrix(
        self,
        tid: str,
        data: Mapping[str, Any],
        path: tuple[Any, ...],
        common: dict[str, Any],
        inherited: tuple[str, str | None],
        notes: Mapping[str, str],
    ) -> Table:
        columns = self.axis(data.get("columns"), path + ("columns",), False, False, notes)
        results = self.results(data.get("results"), path + ("results",), notes)
        row_key = data.get("row_key", "row")
        column_key = data.get("column_key", "column")
        rows = self.named_rows(data, path, columns, results, inherited, notes, row_key, column_key)
        return MatrixTable(
            **common,
            columns=columns,
            rows=rows,
            results=results,
            row_key=row_key,
            row_label=data.get("row_label"),
            column_key=column_key,
            column_label=data.get("column_label"),
        )

    def named_rows(
        self,
        data: Mapping[str, Any],
        path: tuple[Any, ...],
        columns: list[Column],
        results: Mapping[str, Result] | None,
        inherited: tuple[str, str | None],
        notes: Mapping[str, str],
        row_key: str,
        column_key: str,
    ) -> list[Row]:
        rows: list[Row] = []
        seen: set[str] = set()
        for i, spec in enumerate(self.rows_of(data, path)):
            p = path + ("rows", i)
            if not isinstance(spec, Mapping) or "id" not in spec:
                self.error("table-type", "a row must be a mapping with 'id' and 'cells'", p)
                continue
            rid = str(spec["id"])
            if rid in seen:
                self.error("table-duplicate", f"duplicate row {rid!r}", p + ("id",))
            seen.add(rid)
            status, reason = self.status(spec, p, inherited)
            cells = self.row_cells(
                spec,
                p,
                rid,
                columns,
                results if results else None,
                (status, reason),
                row_key,
                column_key,
                notes,
                gap_ok=False,
            )
            rows.append(
                Row(rid, str(spec.get("label", rid)), cells, None, status, reason, self.pos(p))
            )
        return rows

    def row_cells(
        self,
        spec: Mapping[str, Any],
        p: tuple[Any, ...],
        label: str,
        columns: list[Any],
        results: Any,
        status: tuple[str, str | None],
        row_key: str,
        column_key: str,
        notes: Any,
        gap_ok: bool,
    ) -> list[Cell]:
        """The cells of one row, checked against the columns (a short row is padded with gaps)."""
        raw = spec.get("cells")
        if raw is None and gap_ok and status[0] == "gap":
            raw = [None] * len(columns)
        if not isinstance(raw, list):
            need = "a row needs 'cells' (or 'gap: <reason>')" if gap_ok else "a row needs 'cells'"
            self.error("table-missing", need, p, key=True)
            raw = [None] * len(columns)
        elif len(raw) != len(columns):
            self.error(
                "table-width",
                f"row {label!r} has {len(raw)} cells but the table has {len(columns)} columns",
                p + ("cells",),
            )
            raw = (raw + [_PAD] * len(columns))[: len(columns)]
        return [
            self.cell(
                c,
                p + ("cells", j),
                results,
                status,
                {row_key: label, column_key: columns[j].id},
                notes,
            )
            if c is not _PAD
            else Cell(None, "gap", "missing cell")
            for j, c in enumerate(raw)
        ]

    def _list(
        self,
        tid: str,
        data: Mapping[str, Any],
        path: tuple[Any, ...],
        common: dict[str, Any],
        inherited: tuple[str, str | None],
        notes: Mapping[str, str],
    ) -> Table:
        columns = self.axis(data.get("columns"), path + ("columns",), False, False, notes)
        key = data.get("key", "id")
        rows = self.named_rows(data, path, columns, None, inherited, notes, key, "column")
        return ListTable(
            **common, columns=columns, rows=rows, key=key, key_label=data.get("key_label")
        )

    def _steps(
        self,
        tid: str,
        data: Mapping[str, Any],
        path: tuple[Any, ...],
        common: dict[str, Any],
        inherited: tuple[str, str | None],
        notes: Mapping[str, str],
    ) -> Table:
        rows = []
        steps = data.get("steps")
        if not isinstance(steps, list):
            self.error("table-missing", "a steps table needs 'steps' (a list)", path, key=True)
            steps = []
        for i, item in enumerate(steps):
            p = path + ("steps", i)
            status, reason = self.status(item, p, inherited)
            text = item.get("text") if isinstance(item, Mapping) else item
            if not isinstance(text, str):
                self.error("table-type", "a step must be text", p)
                text = str(text)
            rules = self.rules(item, p) if isinstance(item, Mapping) else ()
            cell = Cell(text, status, reason, rules=rules, keys={"step": i + 1}, pos=self.pos(p))
            rows.append(Row(str(i + 1), "", [cell], None, status, reason, self.pos(p)))
        return StepsTable(**common, rows=rows)

    def _form(
        self,
        tid: str,
        data: Mapping[str, Any],
        path: tuple[Any, ...],
        common: dict[str, Any],
        inherited: tuple[str, str | None],
        notes: Mapping[str, str],
    ) -> Table:
        columns = self.axis(data.get("columns"), path + ("columns",), False, False, notes)
        raw_columns = data.get("columns") if isinstance(data.get("columns"), list) else []
        by_id = {c.id: c for c in columns}
        for i, spec in enumerate(raw_columns):
            if isinstance(spec, Mapping) and "seat" in spec and str(spec.get("id")) in by_id:
                by_id[str(spec.get("id"))].seats = self.seats(
                    spec["seat"], path + ("columns", i, "seat")
                )
        blocks: list[FormBlock] = []
        row_ids: dict[str, set[str]] = {}
        for i, spec in enumerate(data.get("blocks") or []):
            p = path + ("blocks", i)
            if not isinstance(spec, Mapping):
                self.error("table-type", "a block must be a mapping", p)
                continue
            bid = self.ident(spec.get("id"), p + ("id",), "block id")
            when = self.when(spec.get("when"), p + ("when",)) if "when" in spec else {}
            title_fill = None
            if "title_fill" in spec:
                found = self.field_path(spec["title_fill"], p + ("title_fill",), "g")
                title_fill = found[1] if found else None
            rows = []
            for j, r in enumerate(spec.get("rows") or []):
                q = p + ("rows", j)
                if not isinstance(r, Mapping):
                    self.error("table-type", "a form row must be a mapping with id and label", q)
                    continue
                rid = self.ident(r.get("id"), q + ("id",), "row id")
                status, reason = self.status(r, q, inherited)
                cell = Cell(
                    r.get("label"),
                    status,
                    reason,
                    note=r.get("note"),
                    rules=self.rules(r, q),
                    keys={"block": bid, "row": rid},
                    pos=self.pos(q),
                )
                fill = self.fill(r, q, columns)
                rows.append(
                    Row(rid, str(r.get("label")), [cell], None, status, reason, self.pos(q), fill)
                )
            row_ids[bid] = {r.id for r in rows}
            blocks.append(FormBlock(bid, str(spec.get("title", bid)), rows, when, title_fill))
        examples = []
        for i, ex in enumerate(data.get("examples") or []):
            p = path + ("examples", i)
            if not isinstance(ex, Mapping):
                self.error("table-type", "an example must be a mapping", p)
                continue
            if ex.get("block") not in row_ids:
                self.error("table-unknown", f"unknown block {ex.get('block')!r}", p + ("block",))
            elif ex.get("row") not in row_ids[ex["block"]]:
                self.error(
                    "table-unknown",
                    f"unknown row {ex.get('row')!r} in block {ex['block']!r}",
                    p + ("row",),
                )
            examples.append(dict(ex))
        table = FormTable(**common, columns=columns, blocks=blocks, examples=examples)
        table.rows = [row for b in blocks for row in b.rows]
        return table

    # -- record forms filled from a save (docs/sheets.md) ------------------------------------

    def seats(self, value: Any, path: tuple[Any, ...]) -> tuple[str, ...]:
        """A column's ``seat:``: one seat id, or a list of seat ids sharing the column."""
        items = value if isinstance(value, list) else [value]
        out: list[str] = []
        for j, item in enumerate(items):
            p = path + (j,) if isinstance(value, list) else path
            if not isinstance(item, str) or not _ID.match(item):
                self.error(
                    "table-fill", f"a seat must be a seat id (lower_snake_case), not {item!r}", p
                )
            elif item in out:
                self.error("table-duplicate", f"seat {item!r} is named twice in one column", p)
            else:
                out.append(item)
        if not out and not isinstance(value, str):
            self.error("table-fill", "'seat' needs at least one seat id", path)
        return tuple(out)

    def field_path(self, value: Any, path: tuple[Any, ...], scopes: str) -> tuple[str, str] | None:
        """``g.<field>`` or ``p.<field>`` (the scopes allowed) as (scope, field); None if bad."""
        allowed = " or ".join(f"{sc}.<field>" for sc in scopes)
        if isinstance(value, str):
            scope, dot, name = value.partition(".")
            if dot and scope in scopes and _ID.match(name):
                return scope, name
        self.error(
            "table-fill",
            f"expected a field of the saved game, {allowed}, not {value!r}",
            path,
            hint="g.<field> is a global (g.year); p.<field> a player field (p.vp), per seat",
        )
        return None

    def when(self, value: Any, path: tuple[Any, ...]) -> dict[str, tuple[Any, ...]]:
        """A block's ``when: {g.season: spring}``: global field -> the values (any of) it needs."""
        if not isinstance(value, Mapping) or not value:
            self.error(
                "table-fill", "'when' must map global fields to values: {g.season: spring}", path
            )
            return {}
        out: dict[str, tuple[Any, ...]] = {}
        for key, wanted in value.items():
            found = self.field_path(key, path + (key,), "g")
            values = tuple(wanted) if isinstance(wanted, list) else (wanted,)
            if not values or any(isinstance(v, (list, Mapping)) or v is None for v in values):
                self.error(
                    "table-fill",
                    f"'when' needs a value or a list of values for {key}",
                    path + (key,),
                )
                continue
            if found is not None:
                out[found[1]] = values
        return out

    def fill(
        self, row: Mapping[str, Any], path: tuple[Any, ...], columns: list[Column]
    ) -> Fill | None:
        """A form row's ``fill:`` (with ``format:`` and ``skip_zero:``), checked."""
        extra = [k for k in ("format", "skip_zero") if k in row]
        if "fill" not in row:
            for k in extra:
                self.error(
                    "table-fill", f"'{k}' needs a 'fill' on the same row", path + (k,), key=True
                )
            return None
        found = self.field_path(row["fill"], path + ("fill",), "gp")
        fmt = row.get("format")
        if fmt is not None:
            fmt = self.fill_format(fmt, path + ("format",))
        skip_zero = row.get("skip_zero", False)
        if not isinstance(skip_zero, bool):
            self.error("table-type", "'skip_zero' must be true or false", path + ("skip_zero",))
            skip_zero = False
        if found is None:
            return None
        if found[0] == "p" and not any(c.seats for c in columns):
            self.error(
                "table-fill",
                f"row fills the player field {row['fill']!r} but no column names a 'seat'",
                path + ("fill",),
                hint="give the columns a seat: {id: germany, label: GERMANY, seat: germany}",
            )
        return Fill(found[0], found[1], fmt, skip_zero)

    def fill_format(self, value: Any, path: tuple[Any, ...]) -> str | None:
        """``format:`` text with one placeholder, ``{value}`` (a format spec is allowed)."""
        if not isinstance(value, str):
            self.error("table-type", "'format' must be text such as \"FA -{value}\"", path)
            return None
        try:
            parts = [(f, spec) for _lit, f, spec, _conv in string.Formatter().parse(value)]
            names = [f for f, spec in parts if f is not None]
            if any(spec and "{" in spec for _f, spec in parts):
                names.append("(nested)")  # "{value:{width}}": no other placeholder
        except ValueError as exc:
            self.error(
                "table-fill",
                f"bad format {value!r}: {exc}",
                path,
                hint="write {{ and }} for braces",
            )
            return None
        if names != ["value"]:
            self.error(
                "table-fill",
                f"format {value!r} must hold {{value}} once and no other placeholder",
                path,
                hint='e.g. format: "FA -{value}"',
            )
            return None
        return value


def _game_of(game_dir: Path) -> str:
    return game_dir.resolve().name


def _table_files(game_dir: Path) -> list[Path]:
    files = sorted((game_dir / "tables").glob("*.yaml")) if (game_dir / "tables").is_dir() else []
    single = game_dir / "tables.yaml"
    return ([single] if single.is_file() else []) + files


class _Shared:
    """A loaded document kept by reference: copies of a game share it."""

    def __init__(self, doc: Any) -> None:
        self.doc = doc

    def __deepcopy__(self, memo: Any) -> _Shared:
        return self

    def __getattr__(self, name: str) -> Any:
        return getattr(self.doc, name)


def load_tables(game_dir: Path, sink: DiagnosticSink) -> dict[str, Table]:
    """Load, validate and build every table of the game in ``game_dir`` (``tables/*.yaml``).

    Problems go to ``sink`` as diagnostics (file:line:col); tables with errors are left out. The
    result is keyed by table id, in file order.
    """
    from .loader import load_yaml

    store = _schema_store()
    game = _game_of(Path(game_dir))
    out: dict[str, Table] = {}
    where: dict[str, Position | None] = {}
    for path in _table_files(Path(game_dir)):
        before = sink.error_count
        doc = load_yaml(path, sink.display_path(path), sink)
        if doc is None:
            continue
        if store is not None:
            store.validate(doc, "tables", sink)
        if sink.error_count > before:
            continue
        builder = _Builder(doc, sink, game)
        data = doc.data
        if not isinstance(data, Mapping) or not isinstance(data.get("tables"), Mapping):
            builder.error("table-missing", "a tables file needs a 'tables' mapping", ())
            continue
        for tid, spec in data["tables"].items():
            tpath = ("tables", tid)
            if not isinstance(tid, str) or not _ID.match(tid):
                builder.error(
                    "table-id", f"table id must be lower_snake_case, not {tid!r}", tpath, key=True
                )
                continue
            if tid in out or tid in where:
                builder.error(
                    "table-duplicate",
                    f"duplicate table id {tid!r}",
                    tpath,
                    hint=f"first defined at {where.get(tid)}",
                    key=True,
                )
                continue
            errors = sink.error_count
            table = builder.table(tid, spec, tpath)
            if table is not None:
                table.doc, table.ypath = _Shared(doc), tpath
            where[tid] = builder.key_pos(tpath)
            if table is not None and sink.error_count == errors:
                out[tid] = table
    return out


def _schema_store() -> Any:
    """The project's schema store, when the schema stage is available."""
    try:
        from .schema import SchemaStore
    except ImportError:
        return None
    return SchemaStore.default()


def all_game_tables(rules_root: Path, sink: DiagnosticSink) -> dict[str, dict[str, Table]]:
    """Tables of every game under ``rules_root`` (each ``rules_root/<game>/``), keyed by game id."""
    out: dict[str, dict[str, Table]] = {}
    for game_dir in sorted(p for p in Path(rules_root).iterdir() if p.is_dir()):
        if _table_files(game_dir):
            out[game_dir.name] = load_tables(game_dir, sink)
    return out
