"""The view model of a reference sheet: plain dataclasses the templates render (tables, odds,
scenario blocks, comparisons, notes), and the errors of the sheets wing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class SheetError(Exception):
    """A sheet cannot be made (unknown game, scenario or paper, or broken rules data)."""


class SaveFileError(SheetError):
    """The saved game given to fill the record forms cannot be used (unreadable, not JSON, not a
    save, or a save of another game or scenario). `rulecraft sheet` exits 2 on it."""


@dataclass
class Cell:
    text: str
    state: str = "printed"  # printed | assumed | gap
    mark: int | None = None  # footnote number of an assumed cell
    numeric: bool = False


@dataclass
class Row:
    label: str
    cells: list[Cell]
    label_state: str = "printed"
    heading: bool = False  # a block title inside a form (spans the row)


@dataclass
class OddsRow:
    label: str
    values: list[str]


@dataclass
class Odds:
    title: str
    corner: str
    results: list[str]
    rows: list[OddsRow]
    #: what the percentages leave out (rolls landing on rows the rulebook does not print)
    note: str = ""


@dataclass
class SetupTable:
    """A compact table (a scenario's set-up, a table's shifts): a header row and rows led by a
    row label."""

    title: str
    columns: list[str]
    rows: list[list[str]]


@dataclass
class BlockView:
    """A block of a record form: its title (printed down the left) and its rows."""

    title: str
    rows: list[Row]


@dataclass
class TableView:
    id: str
    title: str
    provenance: str
    columns: list[str]
    rows: list[Row]
    has_row_labels: bool = True
    corner: str = ""
    intro: str = ""
    notes: list[str] = field(default_factory=list)
    odds: list[Odds] = field(default_factory=list)
    wide: bool = False  # long texts in cells: the table takes the full width
    blocks: list[BlockView] = field(default_factory=list)  # a record form's blocks
    form: bool = False  # a record form: rows tall enough to write in by hand
    filled_from: str = ""  # a record form filled in from a save: where from, what it says
    #: small tables printed under the table and its odds (column shifts, modifiers)
    extras: list[SetupTable] = field(default_factory=list)
    group: str = ""  # `group:`, printed once as a heading over the tables that share it
    group_heading: bool = False  # the first table of its group: the heading goes above it
    #: notes of assumed blocks (cells sharing one reason), marked once after the title
    marks: list[int] = field(default_factory=list)

    @property
    def long(self) -> bool:
        """Longer than about half a page: it is not kept whole (a table kept whole would move
        to the next page and leave this one half empty); it breaks between rows instead."""
        lines = sum(1 + sum(len(c.text) for c in r.cells) // 90 for r in self.rows)
        return not self.form and lines > 30


@dataclass
class SavedRecord:
    """What a record form reads from a saved game: fields by name (see `read_save`)."""

    path: str  # as the user gave it, for messages and the sheet
    game: str
    scenario: str | None
    globals: dict[str, Any]
    players: dict[str, dict[str, Any]]  # seat id -> fields


@dataclass
class Node:
    """A piece of free-form YAML data (flow, cards, scenarios) ready to print."""

    kind: str  # text | list | map
    text: str = ""
    items: list[Any] = field(default_factory=list)
    ordered: bool = False


@dataclass
class Section:
    title: str
    body: Node


@dataclass
class Footnote:
    n: int
    where: str
    text: str
    reason: str
    table: str = ""
    cell: str = ""


@dataclass
class GapGroup:
    """Gap cells of one table sharing one reason, printed as one note."""

    table: str
    cells: str
    reason: str


#: a fact whose value is longer than this prints on a line of its own
LONG_FACT = 36


@dataclass
class ScenarioView:
    """One scenario: its own title, its base (if it states only changes), its set-up tables."""

    id: str
    title: str
    base_title: str = ""
    doc: str = ""
    facts: list[tuple[str, str]] = field(default_factory=list)
    tables: list[SetupTable] = field(default_factory=list)
    aid_tables: list[TableView] = field(default_factory=list)  # its play aids, in its block
    #: what the scenario says it assumed (`assumed:`): (what, reason), marked † in its tables
    assumed: list[tuple[str, str]] = field(default_factory=list)
    other: Node | None = None
    #: what the scenario changes in the flow and the cards, by heading ("Set-up", ...)
    by_phase: dict[str, list[str]] = field(default_factory=dict)
    #: records of one field listed by value: (title, [(value, names)])
    groups: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    left_out: bool = False  # a complete set-up left out values at 0 / no / none
    #: the note numbers of what the scenario assumed, by path ("players.yss_brps" -> 6)
    numbers: dict[str, int] = field(default_factory=dict)

    @property
    def sections(self) -> list[tuple[str, list[str], list[TableView]]]:
        """What the scenario changes, as a player looks it up: set-up, its play aids, special
        rules (steps of the turn, cards), game end and victory."""
        out = []
        for title in SCENARIO_SECTIONS:
            items = self.by_phase.get(title, [])
            tables = self.aid_tables if title == "Play aids" else []
            if items or tables:
                out.append((title, items, tables))
        return out

    @property
    def short_facts(self) -> list[tuple[str, str]]:
        """The facts printed two to a line."""
        return [(k, v) for k, v in self.facts if len(v) <= LONG_FACT]

    @property
    def long_facts(self) -> list[tuple[str, str]]:
        """The facts with long values (the sides, a list of cards): one to a line."""
        return [(k, v) for k, v in self.facts if len(v) > LONG_FACT]

    @property
    def facts_wide(self) -> bool:
        """Facts with long labels: the grid's columns take fixed shares and wrap their text
        (as wide as their content, two pairs a line would overflow the page)."""
        return any(len(k) > 28 for k, _v in self.short_facts)

    @property
    def long(self) -> bool:
        """Too long to keep on one page: it may break between its tables (a short one is
        kept whole, on the next page if need be)."""
        lines = sum(len(t.rows) for t in self.tables) + len(self.assumed) + len(self.facts) // 2
        return lines + sum(len(g) for _t, g in self.groups) > 40


@dataclass
class Sheet:
    game: str
    title: str
    source: str
    scenario: str | None = None
    scenario_title: str | None = None
    tables: list[TableView] = field(default_factory=list)
    flow: list[Section] = field(default_factory=list)
    cards: list[Section] = field(default_factory=list)
    scenarios: list[ScenarioView] = field(default_factory=list)
    assumed: list[Footnote] = field(default_factory=list)
    gaps: list[Footnote] = field(default_factory=list)
    record: SavedRecord | None = None  # the record forms only, filled in from this save
    #: the scenarios' set-ups side by side (then their blocks print only their own texts)
    comparison: Comparison | None = None
    #: the map of the game's board (board.yaml), if it has one (board_map.MapView)
    map: Any = None
    #: the game's values a player needs (constants with `board: true`): (title, value)
    values: list[tuple[str, str]] = field(default_factory=list)
    #: the lasting effects (`effects:` in rules.yaml): what each changes and what ends it
    effects: list[Section] = field(default_factory=list)

    @property
    def gap_groups(self) -> list[GapGroup]:
        return group_gaps(self.gaps)

    @property
    def assumed_groups(self) -> list[list[Footnote]]:
        """Assumed notes in order, those in a row with one table and one reason together (the
        30 cells of an assumed table make one note, not 30)."""
        out: list[list[Footnote]] = []
        for f in self.assumed:
            last = out[-1][-1] if out else None
            if last is not None and f.table and (last.table, last.reason) == (f.table, f.reason):
                out[-1].append(f)
            else:
                out.append([f])
        return out


def group_gaps(gaps: list[Footnote]) -> list[GapGroup]:
    """Gap cells of one table with one reason become one note: "rows 4, 5, 6 × columns a, b"."""
    groups: dict[tuple[str, str], list[str]] = {}
    for g in gaps:
        groups.setdefault((g.table or g.where, g.reason), []).append(g.cell)
    return [
        GapGroup(table, cells_summary(cells), reason) for (table, reason), cells in groups.items()
    ]


#: a block of cells that is no rectangle is named cell by cell up to this many, else counted
_MAX_LISTED = 8


def cells_summary(cells: list[str]) -> str:
    """Cells of a table named as "row / column" (or by row alone) in a few words: "rows 4, 5,
    6 × columns a, b", "4 / a, b", "rows 5, 6", else the cells one by one, or their count."""
    cells = [c for c in cells if c]
    pairs = [c.split(" / ", 1) for c in cells]
    if len(pairs) > 1 and all(len(p) == 1 for p in pairs):
        return "rows " + ", ".join(dict.fromkeys(cells))
    if len(pairs) > 1 and all(len(p) == 2 for p in pairs):
        rows = list(dict.fromkeys(p[0] for p in pairs))
        cols = list(dict.fromkeys(p[1] for p in pairs))
        if len(rows) * len(cols) == len(set(map(tuple, pairs))):
            if len(rows) == 1:
                return f"{rows[0]} / " + ", ".join(cols)
            if len(cols) == 1:
                return ", ".join(rows) + f" / {cols[0]}"
            return f"rows {', '.join(rows)} × columns {', '.join(cols)}"
    if len(cells) > _MAX_LISTED:
        return f"{len(cells)} hatched cells"
    return ", ".join(cells)


@dataclass
class CompareRow:
    """A row of a scenario comparison: its labels (a record, then its fields the same in every
    scenario) and one value per scenario column."""

    labels: list[str]
    cells: list[str]

    @property
    def same(self) -> bool:
        """The same value in every scenario: printed once, across the columns."""
        return len(set(self.cells)) == 1 and len(self.cells) > 1

    @property
    def runs(self) -> list[tuple[str, int]]:
        """The cells as printed: a value the same in neighbouring scenarios once, across
        their columns ("Axis ally", 2)."""
        out: list[tuple[str, int]] = []
        for c in self.cells:
            if out and out[-1][0] == c:
                out[-1] = (c, out[-1][1] + 1)
            else:
                out.append((c, 1))
        return out


@dataclass
class CompareTable:
    title: str
    heads: list[str]  # the label columns' headings
    rows: list[CompareRow]
    compare: bool = True  # False: nothing differs, no scenario columns

    @property
    def share(self) -> int:
        """The percentage of the width the scenario columns share: what the label columns,
        as wide as their longest label (a fact's wraps at 40%), leave."""
        if len(self.heads) > 1:
            return 58
        longest = max([len(r.labels[0]) for r in self.rows] + [len(self.title) // 2, 8])
        return 100 - min(40, int(longest * 0.75))


@dataclass
class Comparison:
    """The scenarios' set-ups side by side (game.yaml `sheet: {scenarios: side_by_side}`): a
    column per scenario (scenarios with the same values share one), a row per fact."""

    columns: list[str]
    tables: list[CompareTable]
    left_out: bool = False


#: the headings of what a scenario changes, in the order a player looks them up; each flow
#: section has its heading (`PHASE_TITLES`), changed cards are special rules
SCENARIO_SECTIONS = ("Set-up", "Play aids", "Special rules", "Game end and victory")
