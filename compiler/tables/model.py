"""The table model: ranges, dice, cells, rows, columns and the table kinds with their lookups
and exact distributions (built by :mod:`.build` from ``rules/<game>/tables/*.yaml``)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..diagnostics import Position
from ..limits import MAX_DICE, MAX_DIE_SIDES

__all__ = [
    "GAP",
    "KINDS",
    "TABLE_ID",
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
    "TableGap",
    "TableLookupError",
    "dice_outcomes",
    "parse_range",
]

GAP = "(gap)"
"""Key of :meth:`Table.distribution` for the chance of landing on a gap (or off the table)."""

KINDS = ("range", "column", "matrix", "list", "steps", "form")
#: a table id, and an id in a table (lower_snake_case)
TABLE_ID = re.compile(r"^[a-z][a-z0-9_]*$")


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
    #: where the table is written (its programs are parsed from there; see programs.py)
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
