"""Printable reference sheets: a game's tables, sequence of play, cards and set-up as HTML or PDF.

The sheet is built in two steps. `build_sheet` reads `rules/<game>/` (tables through
`tables.load_tables`, and the optional `game.yaml`, flow, cards and scenarios files) into a small
view model of plain dataclasses; `render_html` renders that model through the Jinja2 templates
`templates/sheet*.j2` with a print stylesheet, and `render_pdf` turns the HTML into PDF through
WeasyPrint.

Printed, assumed and gap cells are told apart everywhere: assumed cells are italic and hatched with
a numbered dagger and listed with their reasons in a footnote; gaps are shown as gaps, never filled.
For die-driven columns the sheet prints the exact result probabilities computed by the table.

The PDF is byte-for-byte reproducible: no dates or random identifiers are written, and the font
subsets WeasyPrint embeds get a fixed timestamp (fontTools reads `SOURCE_DATE_EPOCH`).

With a saved game (`record=`, `rulecraft sheet --record SAVE.json`) the sheet is the game's record
forms (`kind: form` tables) only, their cells filled in from the save as the tables say (`seat:` on
columns, `fill:`/`format:`/`skip_zero:` on rows, `when:` on blocks; see docs/sheets.md). The save
is read as JSON by field name (`g`, `p` by seat); the game's engine is not needed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import jinja2
import markupsafe
import yaml
from rulecraft.runtime.files import FileReadError, read_file

__all__ = [
    "PAPERS",
    "SaveFileError",
    "SavedRecord",
    "SheetError",
    "build_sheet",
    "default_rules_root",
    "list_games",
    "render_html",
    "read_save",
    "render_pdf",
]

PAPERS = {"a4": "A4", "letter": "letter"}
# The fixed timestamp written into embedded font subsets (1 January 2000, UTC).
_FIXED_EPOCH = "946684800"


class SheetError(Exception):
    """A sheet cannot be made (unknown game, scenario or paper, or broken rules data)."""


class SaveFileError(SheetError):
    """The saved game given to fill the record forms cannot be used (unreadable, not JSON, not a
    save, or a save of another game or scenario). `rulecraft sheet` exits 2 on it."""


# --------------------------------------------------------------------------------------------
# View model


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
_LONG_FACT = 36


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
        for title in _SCENARIO_SECTIONS:
            items = self.by_phase.get(title, [])
            tables = self.aid_tables if title == "Play aids" else []
            if items or tables:
                out.append((title, items, tables))
        return out

    @property
    def short_facts(self) -> list[tuple[str, str]]:
        """The facts printed two to a line."""
        return [(k, v) for k, v in self.facts if len(v) <= _LONG_FACT]

    @property
    def long_facts(self) -> list[tuple[str, str]]:
        """The facts with long values (the sides, a list of cards): one to a line."""
        return [(k, v) for k, v in self.facts if len(v) > _LONG_FACT]

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

    @property
    def gap_groups(self) -> list[GapGroup]:
        return _group_gaps(self.gaps)

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


# --------------------------------------------------------------------------------------------
# Reading the rules folder


def default_rules_root() -> Path:
    """The repository's `rules/` folder (the compiler lives in `<repo>/compiler/`)."""
    return Path(__file__).resolve().parents[2] / "rules"


def list_games(rules_root: Path | None = None) -> list[str]:
    """The games that have a folder under the rules root, sorted."""
    root = Path(rules_root) if rules_root else default_rules_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def _read_yaml(path: Path) -> Any:
    try:
        text = read_file(path).decode("utf-8")
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except FileReadError as exc:
        raise SheetError(f"{path}: cannot read: {exc.why}") from None
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SheetError(f"{path}: cannot read: {str(exc).splitlines()[0]}") from None


def _optional_docs(game_dir: Path, stem: str) -> list[tuple[Path, Any]]:
    """`<stem>.yaml` and every YAML file in `<stem>/`, sorted by path; missing ones are skipped."""
    found: list[Path] = []
    for ext in ("yaml", "yml"):
        if (game_dir / f"{stem}.{ext}").is_file():
            found.append(game_dir / f"{stem}.{ext}")
    sub = game_dir / stem
    if sub.is_dir():
        found.extend(sorted(p for p in sub.rglob("*.y*ml") if p.is_file()))
    return [(p, _read_yaml(p)) for p in found]


def _humanize(key: Any) -> str:
    text = str(key)
    if "_" in text or text.islower():
        text = text.replace("_", " ")
        text = text[:1].upper() + text[1:]
    return text


def _fmt_scalar(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        return str(value) if value.denominator != 1 else str(value.numerator)
    return str(value)


# Keys of the rules files that hold code or machinery, not text for players.
_SKIP_KEYS = frozenset(
    {
        "do",
        "effect",
        "effects_code",
        "body",
        "params",
        "returns",
        "when",
        "rules",
        "schema",
        "visible",
        "type",
        "version",
        "game",
        "values",
        "per_seat",
        "adjacent",
        "enums",
        "state",
        "playable",
        "unplayable",
    }
)


def _readable(value: Any) -> Any:
    """Drops code and machinery keys; a mapping that only documents itself becomes its `doc`."""
    if isinstance(value, dict):
        kept = {k: _readable(v) for k, v in value.items() if str(k) not in _SKIP_KEYS}
        if "doc" in kept and all(k in ("doc", "value") for k in kept):
            doc = str(kept["doc"])
            return f"{_fmt_scalar(kept['value'])} — {doc}" if "value" in kept else doc
        return {k: v for k, v in kept.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [_readable(v) for v in value]
    return value


def _node(value: Any, depth: int = 0) -> Node:
    """Free-form YAML (dicts, lists, scalars) as a printable tree; very deep data is flattened."""
    if depth == 0:
        value = _readable(value)
    if (
        isinstance(value, dict)
        and value
        and all(not isinstance(v, (dict, list)) for v in value.values())
    ):
        if len(value) > 1 or depth > 1:  # a record of scalars reads best on one line
            return Node("text", text=_join_fields(value))
    if isinstance(value, list) and value and all(not isinstance(v, (dict, list)) for v in value):
        if sum(len(_fmt_scalar(v)) for v in value) < 160 and not any(" " in str(v) for v in value):
            return Node("text", text=", ".join(_fmt_scalar(v) for v in value))
    if isinstance(value, dict):
        if depth > 6:
            return Node("text", text=", ".join(f"{k}: {_fmt_scalar(v)}" for k, v in value.items()))
        return Node("map", items=[(_humanize(k), _node(v, depth + 1)) for k, v in value.items()])
    if isinstance(value, list):
        ordered = all(not isinstance(v, (dict, list)) for v in value) and len(value) > 1
        return Node("list", items=[_node(v, depth + 1) for v in value], ordered=ordered)
    return Node("text", text=_fmt_scalar(value))


def _join_fields(value: dict[Any, Any]) -> str:
    """ "Pick: Both players pick ... time. Reveal: ..." — no ".;" where a text ends a sentence."""
    out = ""
    for k, v in value.items():
        if out:
            out += " " if out.endswith((".", "!", "?")) else "; "
        out += f"{_humanize(k)}: {_fmt_scalar(v)}"
    return out


_TITLE_KEYS = ("title", "name", "label", "id")


def _title_of(value: Any, fallback: str) -> str:
    if isinstance(value, dict):
        for key in _TITLE_KEYS:
            if isinstance(value.get(key), (str, int)):
                return str(value[key])
    return fallback


def _without_title(value: Any) -> Any:
    if isinstance(value, dict):
        for key in _TITLE_KEYS:
            if isinstance(value.get(key), (str, int)):
                return {k: v for k, v in value.items() if k != key}
    return value


def _entries(doc: Any, list_keys: tuple[str, ...]) -> list[tuple[str, Any]]:
    """The entries of a cards/scenarios document: a list, a mapping by id, or one under a key."""
    if isinstance(doc, dict):
        for key in list_keys:
            if key in doc and isinstance(doc[key], (list, dict)):
                return _entries(doc[key], ())
        items = [(str(k), v) for k, v in doc.items() if k not in ("game", "schema", "version")]
        return [(_title_of(v, _humanize(k)), v) for k, v in items]
    if isinstance(doc, list):
        return [(_title_of(v, f"#{i + 1}"), v) for i, v in enumerate(doc)]
    return []


def _scenario_ids(docs: list[tuple[Path, Any]]) -> dict[str, tuple[str, Any]]:
    """Scenario id -> (title, data) from the scenarios documents."""
    out: dict[str, tuple[str, Any]] = {}
    for path, doc in docs:
        if (
            isinstance(doc, dict)
            and ("scenario" in doc or "id" in doc)
            and path.parent.name == "scenarios"
        ):
            sid = str(doc.get("scenario") or doc.get("id"))
            out[sid] = (_title_of(doc, _humanize(sid)), doc)
            continue
        if isinstance(doc, dict) and isinstance(doc.get("scenarios"), (list, dict)):
            doc = doc["scenarios"]
        if isinstance(doc, dict):
            for k, v in doc.items():
                if k in ("game", "schema", "version"):
                    continue
                sid = str(v.get("id", k)) if isinstance(v, dict) else str(k)
                out[sid] = (_title_of(v, _humanize(k)), v)
        elif isinstance(doc, list):
            for i, v in enumerate(doc):
                sid = (
                    str(v.get("id", v.get("scenario", i + 1)))
                    if isinstance(v, dict)
                    else str(i + 1)
                )
                out[sid] = (_title_of(v, _humanize(sid)), v)
    return out


# --------------------------------------------------------------------------------------------
# Tables
#
# The printed layout comes from the table YAML as documented in docs/tables.md (titles, columns,
# rows, cells with their `assumed`/`gap` marks, footnotes, notes); `tables.load_tables` validates
# the same files and supplies the exact distributions of die tables.

_PROVENANCE_KEYS = ("assumed", "gap")


def _table_docs(game_dir: Path) -> list[tuple[str, dict[str, Any], int]]:
    """(id, raw table, position) for every table in `rules/<game>/tables/*.yaml`, in file order."""
    paths = sorted((game_dir / "tables").glob("*.y*ml")) if (game_dir / "tables").is_dir() else []
    out: list[tuple[str, dict[str, Any], int]] = []
    for path in paths:
        doc = _read_yaml(path)
        tables = doc.get("tables") if isinstance(doc, dict) else None
        if not isinstance(tables, dict):
            raise SheetError(f"{path}: expected a mapping 'tables:'")
        for table_id, raw in tables.items():
            if isinstance(raw, dict):
                out.append((str(table_id), raw, len(out)))
    out.sort(key=lambda t: (t[1].get("order", 1_000_000), t[2]))
    return out


def _compiled_tables(game_dir: Path) -> dict[str, Any]:
    """The game's tables through `tables.load_tables`; its errors become a `SheetError`."""
    try:
        from .. import tables as tables_mod
    except ImportError:  # the tables stage is not there: sheets print without odds
        return {}
    sink = _new_sink()
    result = tables_mod.load_tables(game_dir, sink)
    errors = _sink_errors(sink)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise SheetError(f"{errors[0]}{more}")
    return dict(result or {})


def _new_sink() -> Any:
    from .. import diagnostics

    return diagnostics.DiagnosticSink()


def _sink_errors(sink: Any) -> list[str]:
    diags = getattr(sink, "diagnostics", None)
    if diags is None:
        diags = getattr(sink, "items", None) or []
    out = []
    for d in diags:
        severity = str(getattr(d, "severity", "error")).lower()
        if "error" not in severity:
            continue
        header = getattr(d, "header", None)
        text = header() if callable(header) else (header or str(d))
        out.append(str(text).splitlines()[0])
    return out


def _is_numeric(text: str) -> bool:
    t = text.replace("+", "").replace("-", "").replace("−", "").replace(" ", "")
    return bool(t) and t.isdigit()


def _pct(p: Fraction) -> str:
    value = p * 100
    if value.denominator == 1:
        return f"{value.numerator}%"
    return f"{float(value):.1f}%"


def _marks(footnotes: Any) -> str:
    return "".join(f" {m}" for m in footnotes) if isinstance(footnotes, list) else ""


class _Numberer:
    """Collects assumed and gap cells of a sheet, numbering the assumed ones in reading order."""

    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        #: result explanations already printed: (code, text) -> title of the table
        self.results_seen: dict[tuple[str, str], str] = {}

    def cell(
        self, raw: Any, table: str, at: str = "", *, inherited: dict[str, Any] | None = None
    ) -> Cell:
        """A printed cell from a scalar or a mapping with `value`/`result` and provenance keys.

        `table` is the table's title and `at` names the cell in it ("row / column")."""
        where = f"{table} / {at}" if at else table
        prov = dict(inherited or {})
        text_value: Any = raw
        footnotes = None
        if isinstance(raw, dict):
            for key in _PROVENANCE_KEYS:
                if raw.get(key):
                    prov = {key: raw[key]}
            text_value = raw.get("value", raw.get("result", raw.get("text")))
            footnotes = raw.get("footnotes")
        if prov.get("gap"):
            self.sheet.gaps.append(Footnote(0, where, "", str(prov["gap"]), table, at))
            return Cell(text="", state="gap")
        text = (
            ""
            if text_value is None and isinstance(raw, dict) and "value" in raw
            else _fmt_scalar(text_value)
            if text_value is not None
            else ""
        )
        text += _marks(footnotes)
        if prov.get("assumed"):
            n = len(self.sheet.assumed) + 1
            self.sheet.assumed.append(Footnote(n, where, text, str(prov["assumed"]), table, at))
            return Cell(text=text, state="assumed", mark=n, numeric=_is_numeric(text))
        return Cell(text=text, numeric=_is_numeric(text))


def _group_gaps(gaps: list[Footnote]) -> list[GapGroup]:
    """Gap cells of one table with one reason become one note: "rows 4, 5, 6 × columns a, b"."""
    groups: dict[tuple[str, str], list[str]] = {}
    for g in gaps:
        groups.setdefault((g.table or g.where, g.reason), []).append(g.cell)
    out = []
    for (table, reason), cells in groups.items():
        pairs = [c.split(" / ", 1) for c in cells if c]
        text = ", ".join(c for c in cells if c)
        if len(pairs) > 1 and all(len(p) == 2 for p in pairs):
            rows = list(dict.fromkeys(p[0] for p in pairs))
            cols = list(dict.fromkeys(p[1] for p in pairs))
            if len(rows) * len(cols) == len(set(map(tuple, pairs))):
                if len(rows) == 1:
                    text = f"{rows[0]} / " + ", ".join(cols)
                elif len(cols) == 1:
                    text = ", ".join(rows) + f" / {cols[0]}"
                else:
                    text = f"rows {', '.join(rows)} × columns {', '.join(cols)}"
        out.append(GapGroup(table, text, reason))
    return out


def _row_prov(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in _PROVENANCE_KEYS if row.get(k)}


def _table_view(
    table_id: str,
    raw: dict[str, Any],
    compiled: Any,
    num: _Numberer,
    record: SavedRecord | None = None,
) -> TableView:
    """One table of the YAML format (docs/tables.md) as a printable view; a record form is filled
    in from `record` when given."""
    title = str(raw.get("title") or _humanize(table_id))
    kind = raw.get("kind")
    columns_raw = [c if isinstance(c, dict) else {"id": str(c)} for c in raw.get("columns") or []]
    col_labels = [
        str(c.get("label", c.get("id", ""))) + _marks(c.get("footnotes")) for c in columns_raw
    ]
    rows: list[Row] = []
    blocks: list[BlockView] = []
    columns: list[str] = []
    corner = str(raw.get("corner") or raw.get("key_label") or "")
    has_labels = True

    if kind == "range":
        columns = [str(raw.get("result_label") or "Result")]
        corner = str(raw.get("key_label") or "Roll")
        for row in raw.get("rows") or []:
            result = row.get("result")
            text = row.get("text")
            shown = _fmt_scalar(result) if result is not None else ""
            if shown in (str(row.get("range", "")), str(row.get("label", ""))) and text:
                shown = ""  # the result only repeats the row's heading: print the text alone
            if text and _norm(str(text)).startswith(_norm(shown)):
                shown = str(text)  # the text begins with the result: print it once
            elif text and str(text) != shown:
                shown = f"{shown} — {text}" if shown else str(text)
            if row.get("permanent"):
                shown += " *"
            cellraw = {"value": shown, "footnotes": row.get("footnotes")}
            label = str(row.get("label", row.get("range", "")))
            rows.append(Row(label, [num.cell(cellraw, title, label, inherited=_row_prov(row))]))
    elif kind in ("column", "matrix", "list"):
        columns = col_labels
        for row in raw.get("rows") or []:
            label = str(row.get("label", row.get("range", row.get("id", "")))) + _marks(
                row.get("footnotes")
            )
            prov = _row_prov(row)
            cells_raw = row.get("cells") or ([None] * len(columns) if prov else [])
            cells = [
                num.cell(
                    c,
                    title,
                    " / ".join(x for x in (label, columns[i] if i < len(columns) else "") if x),
                    inherited=prov,
                )
                for i, c in enumerate(cells_raw)
            ]
            rows.append(Row(label, cells))
        if kind == "column":
            corner = str(raw.get("key_label") or "Roll")
            if raw.get("column_label"):
                corner = f"{corner} \\ {raw['column_label']}"
    elif kind == "steps":
        has_labels = False
        for step in raw.get("steps") or []:
            rows.append(Row("", [num.cell(step, title)]))
    elif kind == "form":
        columns = col_labels
        col_ids = [str(c.get("id", "")) for c in columns_raw]
        entries: dict[tuple[str, str, str], str] = {}
        if record is not None and hasattr(compiled, "filled"):
            entries = compiled.filled(record.globals, record.players)
        for block in raw.get("blocks") or []:
            block_title = str(block.get("title", block.get("id", "")))
            block_title = entries.get((str(block.get("id", "")), "", ""), block_title)
            rows.append(Row(block_title, [Cell("") for _ in columns], heading=True))
            view = BlockView(block_title, [])
            for r in block.get("rows") or []:
                key = (str(block.get("id", "")), str(r.get("id", "")))
                cells = [
                    Cell(entries[key + (cid,)], state="filled")
                    if key + (cid,) in entries
                    else Cell("")
                    for cid in col_ids
                ]
                row = Row(str(r.get("label", r.get("id", ""))), cells)
                rows.append(row)
                view.rows.append(row)
            if not view.rows:  # a block without rows still prints its title
                view.rows.append(Row("", [Cell("") for _ in columns]))
            blocks.append(view)

    group_by = _sheet_option(raw, "group_by")
    if isinstance(group_by, list) and kind in ("column", "matrix", "list"):
        rows, columns, has_labels = _grouped(rows, columns_raw, columns, [str(g) for g in group_by])
        if not has_labels:
            corner = ""

    if kind != "steps" and all(not c for c in columns) and not corner:
        columns = []
    if kind in ("list",) and not any(columns) and not corner:
        columns = []

    notes: list[str] = []
    extras: list[SetupTable] = []
    for cond in raw.get("conditions") or []:
        notes.append(
            "Condition: " + _fmt_scalar(cond.get("text") if isinstance(cond, dict) else cond)
        )
    for key, what in (("modifiers", "Modifier"), ("shifts", "Column shift")):
        items = [x for x in raw.get(key) or [] if x]
        as_table = _amount_table(items, what, key == "shifts")
        if as_table is not None:
            extras.append(as_table)
            continue
        for item in items:
            notes.append(
                f"{what}: " + _fmt_scalar(item.get("text") if isinstance(item, dict) else item)
            )
    notes += _result_notes(raw.get("results") or {}, title, num.results_seen)
    restated = {
        _norm(f"{title} result {r.get('range', r.get('label', ''))}")
        for r in raw.get("rows") or []
        if isinstance(r, dict) and r.get("text")
    }
    for note in raw.get("notes") or []:
        text_of = note.get("text") if isinstance(note, dict) else note
        if _norm(str(text_of).split(":", 1)[0]) in restated and not _row_prov(
            note if isinstance(note, dict) else {}
        ):
            continue  # "Ulster result 8+: ..." restates a row printed in full just above
        if isinstance(note, dict):
            cell = num.cell(note, title, "note")
            notes.append(cell.text + (f" †{cell.mark}" if cell.mark else ""))
        else:
            notes.append(str(note))
    for mark, text in (raw.get("footnotes") or {}).items():
        notes.append(f"{mark} {text}")
    if raw.get("data_missing"):
        notes.append(f"Not printed in the rulebook: {raw['data_missing']}")

    source = raw.get("source") or {}
    prov_parts = []
    if source.get("section") and _norm(str(source["section"])) != _norm(title):
        prov_parts.append(f"Rulebook: {source['section']}")  # (a section named as the table: once)
    if source.get("rules"):
        prov_parts.append("Rules: " + _rule_ranges(source["rules"]))
    return TableView(
        id=table_id,
        title=title,
        intro=str(raw.get("intro") or ""),
        provenance="; ".join(prov_parts),
        columns=columns,
        rows=rows,
        has_row_labels=has_labels,
        corner=corner,
        notes=notes,
        odds=_odds_for(raw, compiled),
        wide=any(len(c.text) > 45 for r in rows for c in r.cells) or any(r.heading for r in rows),
        blocks=blocks,
        form=kind == "form",
        extras=extras,
        group=str(raw.get("group") or ""),
    )


def _grouped(
    rows: list[Row], columns_raw: list[dict[str, Any]], columns: list[str], group_by: list[str]
) -> tuple[list[Row], list[str], bool]:
    """`sheet: {group_by: [label, basis]}`: consecutive rows that share the row heading
    (`label`) and the named columns print under one heading row ("Germany — Receives ...")
    instead of repeating them; those columns are left out."""
    ids = [str(c.get("id", "")) for c in columns_raw]
    idx = [ids.index(g) for g in group_by if g in ids]
    by_label = "label" in group_by
    out: list[Row] = []
    prev: list[str] | None = None
    for r in rows:
        if r.heading:
            out.append(r)
            prev = None
            continue
        key = ([r.label] if by_label else []) + [r.cells[i].text for i in idx if i < len(r.cells)]
        if key != prev:
            out.append(Row(" — ".join(k for k in key if k), [], heading=True))
            prev = key
        cells = [c for i, c in enumerate(r.cells) if i not in idx]
        out.append(Row("" if by_label else r.label, cells, r.label_state))
    kept = [c for i, c in enumerate(columns) if i not in idx]
    return out, kept, not by_label


def _rule_ranges(ids: list[str]) -> str:
    """Rules-index ids, runs of one prefix shortened: "TR-DIP-FINI-01–07, TR-DP-GB-01, 03"."""
    groups: dict[str, list[str]] = {}
    for rid in ids:
        prefix, _, num = str(rid).rpartition("-")
        if not prefix or not num.isdigit():
            prefix, num = str(rid), ""
        groups.setdefault(prefix, [])
        if num and num not in groups[prefix]:
            groups[prefix].append(num)
    out = []
    for prefix, nums in groups.items():
        if not nums:
            out.append(prefix)
            continue
        nums.sort(key=int)
        runs: list[list[str]] = []
        for n in nums:
            if runs and int(n) == int(runs[-1][-1]) + 1:
                runs[-1].append(n)
            else:
                runs.append([n])
        parts = [r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs]
        out.append(f"{prefix}-" + ", ".join(parts))
    return ", ".join(out)


def _same_words(a: str, b: str) -> bool:
    return _norm(a) == _norm(b)


def _result_notes(
    results: dict[Any, Any], table: str, seen: dict[tuple[str, str], str]
) -> list[str]:
    """A results table's explanations, each code once: a label or text that repeats the code
    or each other is printed once; a result that is another's code plus a suffix ("Go to CRT
    +1" after "Go to CRT") prints only what it adds; results explained the same way in an
    earlier table are named once, "as under <table>"."""
    texts: dict[str, str] = {}
    raw_texts: dict[str, str] = {}
    for code, res in results.items():
        if not isinstance(res, dict):
            continue
        label = str(res.get("label") or "")
        text = " ".join(str(res.get("text") or "").split())
        raw_texts[str(code)] = text
        parts: list[str] = []
        if label and not _same_words(label, str(code)) and not _norm(text).startswith(_norm(label)):
            parts.append(label)
        if text and not (parts and _same_words(text, parts[0])):
            parts.append(text)
        parts += [str(e) for e in res.get("effects") or []]
        if len(parts) == 1 and _same_words(parts[0], str(code)):
            parts = []  # "No Effect: No Effect." explains nothing
        texts[str(code)] = " — ".join(parts)
    notes: list[str] = []
    earlier: dict[str, list[str]] = {}
    for code, text in texts.items():
        if not text:
            continue
        where = seen.get((code, text))
        if where is not None:
            earlier.setdefault(where, []).append(code)
            continue
        seen[(code, text)] = table
        shown = text
        raw = raw_texts[code]
        for base, base_raw in raw_texts.items():
            # "Go to CRT +1" explained as "Go to CRT"'s text plus "+1: ...": print the "+1" part
            if base != code and code.startswith(base) and base_raw and raw.startswith(base_raw):
                suffix = code[len(base) :].strip()
                rest = raw[len(base_raw) :].strip(" —")
                if suffix and rest.startswith(f"{suffix}:"):
                    rest = rest[len(suffix) + 1 :].strip()
                if rest:
                    shown = f"{base}; {rest[:1].lower()}{rest[1:]}"
                break
        notes.append(f"{code}: {shown}")
    for where, codes in earlier.items():
        notes.append(f"{', '.join(codes)}: as under {where}.")
    return notes


_AMOUNT = re.compile(r"^\s*([+\-−±?][^:]{0,24}):\s+(.+)$", re.S)


def _amount_table(items: list[Any], what: str, shifts: bool) -> SetupTable | None:
    """Modifiers or column shifts as one table ("Shift" | "For") when each states its amount:
    a text "+1 (right): attacker War Commissioner marker", or a shift's `direction`/`amount`.
    None when they are sentences ("Add 2 if ..."), which stay notes."""
    rows: list[list[str]] = []
    for item in items:
        text = " ".join(str(item.get("text") if isinstance(item, dict) else item).split())
        m = _AMOUNT.match(text)
        if m:
            rows.append([m.group(1).strip(), m.group(2).strip()])
            continue
        if not (shifts and isinstance(item, dict) and item.get("direction")):
            return None
        direction = str(item["direction"])
        sign = {"right": "+", "left": "−"}.get(direction, "±")
        amount = item.get("amount")
        head = f"{sign}{amount if amount is not None else ''} ({direction})"
        rows.append([head, text])
    if not rows:
        return None
    plural = "Column shifts" if shifts else "Modifiers"
    return SetupTable(plural, [what if shifts else "Modifier", "For" if shifts else "When"], rows)


def _filled_from(record: SavedRecord, form: Any, labels: _Names) -> str:
    """The line under a filled-in form: the save, its scenario, and the globals the form reads
    ("Filled in from save.json (scenario x): Year 1940, Season spring.")."""
    names: list[str] = []
    for block in getattr(form, "blocks", []):
        if block.title_fill is not None:
            names.append(block.title_fill)
        for name in block.when:
            names.append(name)
        for row in block.rows:
            if row.fill is not None and row.fill.scope == "g":
                names.append(row.fill.field)
    facts = [
        f"{labels.label(n, labels.titles)} {_fmt_scalar(record.globals[n])}"
        for n in dict.fromkeys(names)
        if n in record.globals
    ]
    text = f"Filled in from {Path(record.path).name}"
    if record.scenario:
        text += f" (scenario {record.scenario})"
    text += ": " + ", ".join(facts) + "." if facts else "."
    return text + " Blank cells are not in the save: write them in by hand."


# --------------------------------------------------------------------------------------------
# Saved games


def read_save(path: str | Path, game: str, game_ids: tuple[str, ...] = ()) -> SavedRecord:
    """The fields of a saved game (`rulecraft` save, position or named state) for `game`'s
    record forms.

    A save of a game (`Game.to_json`: its decisions) is replayed by the compiled engine and the
    forms read the position it reaches. A position or named state is a JSON object naming its
    "game" and "scenario", with the globals by name under "g" and each seat's player fields
    under "p" (a mapping by seat id, as `runtime.named.save` writes it, or a list of records
    with an "id", as `to_named` does). `game_ids` are other names of the game (its game.yaml
    `game:`). Anything else is a `SaveFileError` naming the file."""
    name = str(path)
    try:
        text = read_file(path).decode("utf-8-sig")
    except FileReadError as exc:
        raise SaveFileError(f"{name}: cannot read the save: {exc.why}") from None
    except UnicodeDecodeError:
        raise SaveFileError(f"{name}: not a saved game (not UTF-8 text)") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SaveFileError(f"{name}: not a saved game (not JSON: {first})") from None
    if not isinstance(data, dict):
        raise SaveFileError(f"{name}: not a saved game (not a JSON object)")
    saved_game = data.get("game")
    if not isinstance(saved_game, str) or not saved_game:
        raise SaveFileError(f'{name}: not a saved game (no "game" named)')
    if saved_game not in (game, *game_ids):
        raise SaveFileError(f"{name}: a saved game of {saved_game!r}, not of {game!r}")
    scenario = data.get("scenario")
    if "decisions" in data or data.get("rulecraft") == 3:
        data = _replayed(name, text)  # a save of a game: its decisions, replayed
    globals_ = data.get("g", {})
    if not isinstance(globals_, dict):
        raise SaveFileError(f'{name}: not a saved game ("g", the globals, is not an object)')
    raw_players = data.get("p", {})
    players: dict[str, dict[str, Any]] = {}
    if isinstance(raw_players, dict) and all(isinstance(v, dict) for v in raw_players.values()):
        players = {str(seat): dict(fields) for seat, fields in raw_players.items()}
    elif isinstance(raw_players, list) and all(
        isinstance(v, dict) and isinstance(v.get("id"), str) for v in raw_players
    ):
        players = {v["id"]: {k: x for k, x in v.items() if k != "id"} for v in raw_players}
    else:
        raise SaveFileError(f'{name}: not a saved game ("p", the players by seat, is malformed)')
    return SavedRecord(
        name, saved_game, scenario if isinstance(scenario, str) else None, dict(globals_), players
    )


def _replayed(name: str, text: str) -> dict[str, Any]:
    """The position a save of a game (its decisions, `rulecraft.runtime.saves`) reaches when
    the compiled engine replays it: what a record form is filled in from, never a position
    the save merely claims."""
    from rulecraft.runtime.game import Game
    from rulecraft.runtime.machine import GameError
    from rulecraft.runtime.saves import position

    try:
        game = Game.from_json(text)
    except GameError as exc:  # a decision that does not replay, a game not compiled here
        raise SaveFileError(f"{name}: {exc}") from None
    return position(game.spec, game.raw)


def _sheet_option(raw: dict[str, Any], name: str) -> Any:
    """A table's sheet option (`sheet: {odds: ..., group_by: [...]}`), None if not given."""
    opts = raw.get("sheet")
    return opts.get(name) if isinstance(opts, dict) else None


def _modified_roll(raw: dict[str, Any], compiled: Any) -> bool:
    """A range table read with a modified roll: it has modifiers, or it prints rows the bare
    dice cannot roll (a 0 or an 8+ on one die)."""
    if raw.get("modifiers"):
        return True
    try:
        from ..tables import dice_outcomes
    except ImportError:  # pragma: no cover
        return False
    rolls = set(dice_outcomes(str(raw["dice"])))
    lo, hi = min(rolls), max(rolls)
    for row in getattr(compiled, "rows", []):
        rng = getattr(row, "range", None)
        if rng is None:
            continue
        if (rng.lo is not None and rng.lo > hi) or (rng.hi is not None and rng.hi < lo):
            return True
    return False


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else ("0" if n == 0 else f"−{-n}")


def _odds_for(raw: dict[str, Any], compiled: Any) -> list[Odds]:
    """Exact result probabilities of a die table: one row per column of a column table; for a
    range table one row for the bare roll, or with `sheet: {odds: {by_modifier: [lo, hi]}}` one
    row per net modifier. A modified roll's table prints none unless it asks (docs/sheets.md);
    `sheet: {odds: none}` prints none. Rows that are a single 100% are left out."""
    if not raw.get("dice") or compiled is None or not hasattr(compiled, "distribution"):
        return []
    option = _sheet_option(raw, "odds")
    if option == "none":
        return []
    kind = raw.get("kind")
    labelled: list[tuple[str, dict[Any, Fraction]]] = []
    corner = ""
    if kind == "column":
        for col in raw.get("columns") or []:
            cid = col.get("id") if isinstance(col, dict) else col
            label = col.get("label", cid) if isinstance(col, dict) else cid
            labelled.append((f"at {label}", compiled.distribution(cid)))
    elif kind == "range" and isinstance(option, dict) and option.get("by_modifier"):
        lo, hi = (int(x) for x in option["by_modifier"])
        corner = "Net modifier"
        for mod in range(lo, hi + 1):
            labelled.append((_signed(mod), compiled.distribution(modifiers=mod)))
    elif kind == "range":
        if _modified_roll(raw, compiled) and option != "unmodified":
            return []  # the bare roll's odds would mislead: the roll is always modified
        labelled.append((f"{raw['dice']}", compiled.distribution()))
    else:
        return []
    labelled = [(label, dist) for label, dist in labelled if len(dist) > 1]
    if not labelled:
        return []
    results: list[str] = []
    for _label, dist in labelled:
        for outcome in dist:
            key = _fmt_scalar(outcome)
            if key not in results:
                results.append(key)
    rows = []
    for label, dist in labelled:
        by_key: dict[str, Fraction] = {}
        for outcome, p in dist.items():
            key = _fmt_scalar(outcome)
            by_key[key] = by_key.get(key, Fraction(0)) + Fraction(p)
        rows.append(OddsRow(label, [_pct(by_key[k]) if k in by_key else "–" for k in results]))
    shown = ["gap" if r in ("GAP", "(gap)") else r for r in results]
    return [Odds(f"Exact result probabilities ({raw['dice']})", corner, shown, rows)]


# --------------------------------------------------------------------------------------------
# Scenario set-ups
#
# A scenario file (schemas/scenario.schema.json) states seats, constants, globals, players and
# entities; one with `base:` states only what it changes relative to its base. The sheet prints
# each scenario's own title and, as compact tables with readable labels, what it states: the
# whole set-up for a scenario without a base, the changes for one with a base.

#: English spellings of words in names; a game adds its own terms (`words:` in game.yaml)
_WORDS = {"setup": "set-up"}
_SCENARIO_HANDLED = frozenset(
    {
        "scenario",
        "id",
        "base",
        "text",
        "max_turns",
        "simulate",
        "assumed",
        "title",
        "name",
        "doc",
        "rules",
        "seats",
        "constants",
        "globals",
        "players",
        "entities",
        "cards",
        "flow",
        "functions",
        "procedures",
        "hooks",
        "enums",
        "state",
        "game",
        "schema",
        "version",
    }
)


def _label(
    key: Any, titles: dict[str, str] | None = None, spelled: dict[str, str] | None = None
) -> str:
    """A readable label for a field or id: its declared `title`, else its words, spelled as
    the game says (`words:` in game.yaml): vp_max -> "VP max" with `words: {vp: VP}`."""
    if titles and str(key) in titles:
        return titles[str(key)]
    spelled = _WORDS if spelled is None else spelled
    words = [w for w in str(key).replace("-", "_").split("_") if w]
    text = " ".join(spelled.get(w.lower(), w) for w in words)
    return text[:1].upper() + text[1:]


def _titles_in(value: Any, out: dict[str, str]) -> None:
    """Field titles declared anywhere under `state:` (a `title:` next to a field's `type:`),
    by name, and by scope: ``players.<f>``, ``globals.<f>``, ``entities.<kind>.<f>`` (two
    kinds may title a field of the same name differently)."""
    if not isinstance(value, dict):
        return
    scopes: list[tuple[str, Any]] = [
        ("globals", value.get("globals")),
        ("players", value.get("player")),
    ]
    entities = value.get("entities")
    for kind, decl in entities.items() if isinstance(entities, dict) else []:
        for part in ("attributes", "fields"):
            scopes.append((f"entities.{kind}", decl.get(part) if isinstance(decl, dict) else None))
    for scope, decls in scopes:
        for k, v in decls.items() if isinstance(decls, dict) else []:
            if isinstance(v, dict) and isinstance(v.get("title"), str):
                out.setdefault(str(k), v["title"])
                out[f"{scope}.{k}"] = v["title"]


class _Names:
    """Printed names of seats, entities and cards, gathered from the game and its scenarios."""

    def __init__(self, game_dir: Path, meta: dict[str, Any], docs: dict[str, Any]) -> None:
        self.things: dict[str, str] = {}
        self.titles: dict[str, str] = {}
        self.plurals: dict[str, str] = {}
        words = meta.get("words")
        self.words = {**_WORDS, **(words if isinstance(words, dict) else {})}
        player_state = (meta.get("state") or {}).get("player")
        # the player fields in the order game.yaml declares them
        self.player_fields = list(map(str, player_state)) if isinstance(player_state, dict) else []
        entities_state = (meta.get("state") or {}).get("entities") or {}
        # Fields typed by an enum hold values, not ids: they are printed as they are.
        enums = set(meta.get("enums") or {})
        self.enum_values: dict[str, list[str]] = {
            str(k): [str(v) for v in (d.get("values") or [])]
            for k, d in (meta.get("enums") or {}).items()
            if isinstance(d, dict)
        }
        self.enum_fields: set[str] = set()
        for kind_decl in entities_state.values() if isinstance(entities_state, dict) else []:
            for part in ("attributes", "fields"):
                decls = kind_decl.get(part) if isinstance(kind_decl, dict) else None
                for f, d in decls.items() if isinstance(decls, dict) else []:
                    if isinstance(d, dict) and d.get("type") in enums:
                        self.enum_fields.add(str(f))
        #: the declared type of each entity field, by "kind.field" (enum names, "table", ...)
        self.field_types: dict[str, str] = {}
        for kind, kind_decl in entities_state.items() if isinstance(entities_state, dict) else []:
            for part in ("attributes", "fields"):
                decls = kind_decl.get(part) if isinstance(kind_decl, dict) else None
                for f, d in decls.items() if isinstance(decls, dict) else []:
                    if isinstance(d, dict) and isinstance(d.get("type"), str):
                        self.field_types[f"{kind}.{f}"] = d["type"]
        self.enums = enums
        #: the base game's flow steps, by "phase.step": their doc (a removed step is named)
        self.steps: dict[str, str] = {}
        for _path, fdoc in _optional_docs(game_dir, "flow"):
            body = fdoc.get("flow", fdoc) if isinstance(fdoc, dict) else None
            for phase, steps in body.items() if isinstance(body, dict) else []:
                for step, rec in steps.items() if isinstance(steps, dict) else []:
                    if _doc_of(rec):
                        self.steps[f"{phase}.{step}"] = _doc_of(rec)
        #: table titles by id: a field typed `table` prints the table's title
        self.tables = {
            tid: str(raw.get("title") or _humanize(tid)) for tid, raw, _p in _table_docs(game_dir)
        }
        _titles_in(meta.get("state"), self.titles)
        #: entity types the rules declare internal (not pieces players see): not printed
        self.internal_kinds = {
            str(k)
            for k, decl in (entities_state.items() if isinstance(entities_state, dict) else [])
            if isinstance(decl, dict) and decl.get("internal")
        }
        for kind, decl in entities_state.items() if isinstance(entities_state, dict) else []:
            if isinstance(decl, dict) and isinstance(decl.get("plural"), str):
                self.plurals[str(kind)] = decl["plural"]
        for _path, doc in _optional_docs(game_dir, "cards"):
            cards = doc.get("cards", doc) if isinstance(doc, dict) else None
            for cid, card in cards.items() if isinstance(cards, dict) else []:
                if isinstance(card, dict) and card.get("name"):
                    self.things[str(cid)] = str(card["name"])
        for doc in docs.values():
            if not isinstance(doc, dict):
                continue
            _titles_in(doc.get("state"), self.titles)
            for recs in (doc.get("entities") or {}).values():
                for rid, rec in recs.items() if isinstance(recs, dict) else []:
                    if isinstance(rec, dict) and rec.get("name"):
                        self.things.setdefault(str(rid), str(rec["name"]))
            for op in ("add", "replace"):
                cards = (
                    (doc.get("cards") or {}).get(op) if isinstance(doc.get("cards"), dict) else None
                )
                for cid, card in cards.items() if isinstance(cards, dict) else []:
                    if isinstance(card, dict) and card.get("name"):
                        self.things.setdefault(str(cid), str(card["name"]))

    def label(self, key: Any, titles: dict[str, str] | None = None) -> str:
        """A readable label for a field or id, in the game's own spelling."""
        return _label(key, titles, self.words)

    def field_value(self, kind: str, f: str, value: Any, seats: dict[str, str]) -> str:
        """A record's field as printed: an enum value in words ("axis_ally" -> "Axis ally"),
        a table by its title, anything else as `of`."""
        typ = self.field_types.get(f"{kind}.{f}")
        if typ == "table" and isinstance(value, str):
            return self.tables.get(value, self.label(value))
        if typ in self.enums and isinstance(value, str):
            return self.label(value)
        return self.of(value, seats)

    def of(self, value: Any, seats: dict[str, str]) -> str:
        """A value as printed: ids become names, lists are joined, booleans read yes/no, enum
        values read as words."""
        if isinstance(value, list):
            if not value:
                return "none"
            shown = [self.of(v, seats) for v in value]
            counts = {x: shown.count(x) for x in dict.fromkeys(shown)}
            return ", ".join(x if n == 1 else f"{x} ×{n}" for x, n in counts.items())
        if isinstance(value, dict):
            if "value" in value:
                return self.of(value["value"], seats)
            return "; ".join(
                f"{self.label(k, self.titles)}: {self.of(v, seats)}" for k, v in value.items()
            )
        if isinstance(value, str):
            if value in seats:
                return seats[value]
            if value in self.things:
                return self.things[value]
            if any(value in vals for vals in self.enum_values.values()):
                return self.label(value)
            return value
        return _fmt_scalar(value)


def _scenario_chain(sid: str, known: dict[str, tuple[str, Any]]) -> list[dict[str, Any]]:
    """The scenario's documents from the root base to itself (a cycle stops the walk)."""
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    cur: str | None = sid
    while cur and cur in known and cur not in seen:
        seen.add(cur)
        doc = known[cur][1]
        if not isinstance(doc, dict):
            break
        chain.insert(0, doc)
        cur = str(doc["base"]) if doc.get("base") else None
    return chain


def _card_text(rec: Any) -> str:
    """A card as a player reads it: its printed `text:`, else its `doc`."""
    if isinstance(rec, dict) and rec.get("text"):
        return " ".join(str(rec["text"]).split())
    return _player_text(_doc_of(rec))


def _is_zero(value: Any) -> bool:
    """0, no, none or empty: what a complete set-up leaves out ("not listed: 0, no or none")."""
    if isinstance(value, dict) and "value" in value:
        value = value["value"]
    return value is None or value is False or value == 0 or value in ("", [], {})


def _kinds(doc: dict[str, Any]) -> list[dict[str, Any]]:
    ents = doc.get("entities")
    return [v for v in ents.values() if isinstance(v, dict)] if isinstance(ents, dict) else []


def _record_name(rid: Any, rec: dict[str, Any], names: _Names) -> str:
    return str(rec.get("name") or names.things.get(str(rid)) or names.label(rid))


def _doc_of(rec: Any) -> str:
    if isinstance(rec, dict) and rec.get("doc"):
        return " ".join(str(rec["doc"]).split())
    return ""


def _scenario_view(
    sid: str,
    known: dict[str, tuple[str, Any]],
    names: _Names,
    num: _Numberer | None = None,
    marks: dict[str, int] | None = None,
) -> ScenarioView:
    """One scenario's block. `marks` (path -> note number): mark these paths with notes
    already numbered instead of numbering the scenario's own `assumed:` (a resolved scenario,
    see `_compared`)."""
    title, doc = known[sid]
    view = ScenarioView(id=sid, title=title)
    if not isinstance(doc, dict):
        view.other = _node(doc)
        return view
    base = str(doc["base"]) if doc.get("base") else ""
    if base:
        view.base_title = known[base][0] if base in known else names.label(base)
    # the player wording (`text:`) if the scenario has it, else its description
    view.doc = _player_text(doc["text"]) if doc.get("text") else _player_text(_doc_of(doc))
    complete = not base
    seats: dict[str, str] = {}
    for d in _scenario_chain(sid, known):
        for seat, rec in (d.get("seats") or {}).items():
            seats[str(seat)] = str(
                rec.get("name", names.label(seat)) if isinstance(rec, dict) else rec
            )
    t = names.titles
    assumed = doc.get("assumed") if isinstance(doc.get("assumed"), dict) else {}
    numbers: dict[str, int] = view.numbers
    if marks is not None:
        assumed, num = dict(marks), None
        numbers.update(marks)
    for what, why in assumed.items() if marks is None else []:
        label = _assumed_label(str(what), names, t)
        view.assumed.append((label, " ".join(str(why).split())))
        if num is not None:
            n = len(num.sheet.assumed) + 1
            num.sheet.assumed.append(
                Footnote(n, f"{title} / {label}", "", " ".join(str(why).split()), title, label)
            )
            numbers[str(what)] = n

    def mark(path: str) -> str:
        """` †n` after what the scenario says it assumed (its reason is note n)."""
        if path not in assumed:
            return ""
        return f" †{numbers[path]}" if path in numbers else " †"

    if isinstance(doc.get("seats"), dict):
        view.facts.append(
            (
                "Sides",
                "; ".join(
                    names.label(k)
                    if seats.get(str(k)) == names.label(k)
                    else f"{names.label(k)}: {seats[str(k)]}"
                    for k in doc["seats"]
                ),
            )
        )
    for k, v in (doc.get("constants") or {}).items():
        # a constant is printed under its title; one without (a reading the engine names, a
        # switch for self-play) is not a rule a player looks up
        if isinstance(v, dict) and isinstance(v.get("title"), str):
            view.facts.append((v["title"] + mark(f"constants.{k}"), names.of(v, seats)))
    for k, v in (doc.get("globals") or {}).items():
        if complete and _is_zero(v):
            view.left_out = True
            continue
        view.facts.append((names.label(k, t) + mark(f"globals.{k}"), names.of(v, seats)))

    players = doc.get("players")
    if isinstance(players, dict) and players:
        shared = players.get("all") if isinstance(players.get("all"), dict) else {}
        cols = list(seats) if shared else [str(k) for k in players if k != "all"]
        cols += [str(k) for k in players if k != "all" and str(k) not in cols]
        fields: list[str] = []
        for rec in players.values():
            for f in rec if isinstance(rec, dict) else []:
                if f not in fields:
                    fields.append(f)
        order = names.player_fields
        fields.sort(key=lambda f: order.index(f) if f in order else len(order))
        rows = []
        for f in fields:
            cells = []
            for seat in cols:
                own = players.get(seat) if isinstance(players.get(seat), dict) else {}
                value = own.get(f, shared.get(f, None)) if (f in own or f in shared) else None
                cards = own.get("cards", shared.get("cards"))
                if complete and _is_zero(value) and value is not None:
                    view.left_out = True
                    cells.append("")
                elif value is None:
                    cells.append("")
                elif f == "hand" and value == cards:
                    cells.append("all its cards")
                else:
                    cells.append(names.of(value, seats))
            if not any(cells):
                continue  # every seat starts at 0 / no
            rows.append(
                [names.label(f"players.{f}", t) if f"players.{f}" in t else names.label(f, t)]
                + cells
            )
            rows[-1][0] += mark(f"players.{f}")
        heads = [
            seats[c]
            if c in seats and seats[c] != names.label(c) and not seats[c].startswith(names.label(c))
            else seats.get(c, names.label(c))
            for c in cols
        ]
        heads = [
            f"{h} ({names.label(c)})" if c in seats and h != names.label(c) else h
            for h, c in zip(heads, cols, strict=True)
        ]
        view.tables.append(SetupTable("Players", ["Player"] + heads, rows))

    for kind, recs in (doc.get("entities") or {}).items():
        if not isinstance(recs, dict) or str(kind) in names.internal_kinds:
            continue
        plural = names.label(names.plurals.get(str(kind), f"{kind}s"))
        records = {k: v for k, v in recs.items() if isinstance(v, dict)}
        if isinstance(recs.get("remove"), list):
            view.facts.append(
                (f"{plural} removed", ", ".join(names.of(x, seats) for x in recs["remove"]))
            )
        if "per_seat" in recs:
            view.facts.append((plural, f"{_fmt_scalar(recs['per_seat'])} per player"))
        if records and all(set(r) <= {"owner", "number"} for r in records.values()):
            counts: dict[str, int] = {}
            for r in records.values():
                who = names.of(r.get("owner", ""), seats)
                counts[who] = counts.get(who, 0) + 1
            view.facts.append((plural, ", ".join(f"{w} {n}" for w, n in counts.items())))
        elif records:
            fields = []
            for r in records.values():
                for f in r:
                    if f != "name" and f not in fields:
                        fields.append(f)
            if complete:  # a field at 0 / no / none in every record is left out
                zero = [f for f in fields if all(_is_zero(r.get(f)) for r in records.values())]
                view.left_out = view.left_out or bool(zero)
                fields = [f for f in fields if f not in zero]
            refs = (
                set(seats)
                | set(names.things)
                | {str(rid) for d in _scenario_chain(sid, known) for k in _kinds(d) for rid in k}
            )
            if fields and all(
                isinstance(r.get(f), str) and r[f] in refs
                for r in records.values()
                for f in fields
                if f in r
            ):
                # bookkeeping records that only pair other things (one per power and country)
                what = ", ".join(names.label(f, t) for f in fields)
                view.facts.append((plural, f"{len(records)}, one per {what.lower()}"))
                continue
            if any(k.startswith(f"entities.{kind}.") for k in t):
                # a kind that titles its fields shows players those; the untitled ones are
                # the engine's (which table comes next, membership of a group), unless the
                # scenario says it assumed them: assumed data is always shown
                fields = [
                    f
                    for f in fields
                    if f"entities.{kind}.{f}" in t or f"entities.{kind}.{f}" in assumed
                ]
            if len(fields) == 1:
                # one field: the records listed by its value ("Controlled by — Axis: Rome, ...")
                f = fields[0]
                by_value: dict[str, list[str]] = {}
                for rid, r in records.items():
                    if f in r:
                        shown = names.field_value(str(kind), f, r[f], seats)
                        by_value.setdefault(shown, []).append(_record_name(rid, r, names))
                head = t.get(f"entities.{kind}.{f}") or names.label(f, t)
                where = f"{plural}{mark(f'entities.{kind}')}"
                head += mark(f"entities.{kind}.{f}")
                view.groups.append(
                    (f"{where} — {head}", [(v, ", ".join(rs)) for v, rs in by_value.items()])
                )
                continue
            rows = [
                [_record_name(rid, r, names)]
                + [
                    ""
                    if f not in r or (complete and _is_zero(r[f]))
                    else names.field_value(str(kind), f, r[f], seats)
                    for f in fields
                ]
                for rid, r in records.items()
            ]
            heads = [
                (t.get(f"entities.{kind}.{f}") or names.label(f, t)) + mark(f"entities.{kind}.{f}")
                for f in fields
            ]
            view.tables.append(
                SetupTable(
                    plural + mark(f"entities.{kind}"),
                    [names.label(kind) + mark(f"entities.{kind}")] + heads,
                    rows,
                )
            )

    cards = doc.get("cards")
    if isinstance(cards, dict):
        for op, what in (("remove", "removed"), ("add", "added"), ("replace", "changed")):
            ids = cards.get(op)
            if isinstance(ids, (list, dict)) and ids:
                view.facts.append(
                    (f"Cards {what}", ", ".join(names.of(str(x), seats) for x in ids))
                )
            if isinstance(ids, dict):
                for cid, rec in ids.items():
                    text = _card_text(rec)
                    if text:
                        view.by_phase.setdefault("Special rules", []).append(
                            f"{names.of(str(cid), seats)}: {text}"
                        )

    flow = doc.get("flow")
    for phase, ops in flow.items() if isinstance(flow, dict) else []:
        where = _PHASE_TITLES.get(str(phase), "Special rules")
        for op, steps in ops.items() if isinstance(ops, dict) else []:
            if op == "remove" and isinstance(steps, list):
                for x in steps:
                    was = names.steps.get(f"{phase}.{x}")
                    view.by_phase.setdefault(where, []).append(
                        f"Not in this scenario: {was}" if was else f"{names.label(x)}: left out."
                    )
            elif isinstance(steps, dict):
                for _step, rec in steps.items():
                    if _doc_of(rec):
                        view.by_phase.setdefault(where, []).append(_player_text(_doc_of(rec)))
    rest = {k: v for k, v in doc.items() if str(k) not in _SCENARIO_HANDLED}
    if rest:
        view.other = _node(rest)
    return view


def _resolved_doc(sid: str, known: dict[str, tuple[str, Any]]) -> dict[str, Any]:
    """The scenario as a complete set-up: its base's seats, constants, globals, players and
    entities with its own on top (a record field by field, `remove:` drops records) and what
    the chain says it assumed. Flow, cards and texts stay the scenario's own."""
    out: dict[str, Any] = {}
    for d in _scenario_chain(sid, known):
        for key in ("seats", "constants", "globals", "assumed"):
            if isinstance(d.get(key), dict):
                out[key] = {**out.get(key, {}), **d[key]}
        for key in ("players", "entities"):
            mine = d.get(key)
            if not isinstance(mine, dict):
                continue
            merged = dict(out.get(key, {}))
            for name, recs in mine.items():
                old = merged.get(name) if isinstance(merged.get(name), dict) else {}
                if not isinstance(recs, dict):
                    merged[name] = recs
                    continue
                new = {k: v for k, v in old.items() if k not in (recs.get("remove") or [])}
                for rid, rec in recs.items():
                    if isinstance(rec, dict) and isinstance(new.get(rid), dict):
                        new[rid] = {**new[rid], **rec}
                    elif rid != "remove" or key == "players":
                        new[rid] = rec
                merged[name] = new
            out[key] = merged
    return out


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


_MARK = re.compile(r" ?†\d*")


def _unmarked(text: str) -> tuple[str, str]:
    """("Season †1") -> ("Season", " †1"): a label and the marks in it."""
    return _MARK.sub("", text), "".join(_MARK.findall(text))


def _union(lists: list[list[str]]) -> list[str]:
    return list(dict.fromkeys(x for xs in lists for x in xs))


def _compared(views: list[ScenarioView], columns: list[str]) -> Comparison:
    """Lines up the resolved views of the scenarios (one per column, marks in their labels):
    facts by label, a player table by field and seat, an entity table by record and field (its
    fields the same in every scenario as leading columns), records listed by value by value."""
    out = Comparison(columns, [], any(v.left_out for v in views))
    blank = "–"

    def marks_of(texts: list[str]) -> str:
        return "".join(dict.fromkeys(m for t in texts for m in _MARK.findall(t)))

    facts = [{_unmarked(k)[0]: v + _unmarked(k)[1] for k, v in w.facts} for w in views]
    rows = [
        CompareRow([k], [f.get(k, blank) for f in facts]) for k in _union([list(f) for f in facts])
    ]
    if rows:
        out.tables.append(CompareTable("", [""], rows))

    by_title: dict[str, list[SetupTable | None]] = {}
    for i, w in enumerate(views):
        for t in w.tables:
            by_title.setdefault(_unmarked(t.title)[0], [None] * len(views))[i] = t
    for title, tables in by_title.items():
        out.tables.append(_compared_table(title, tables, blank))

    by_group: dict[str, list[dict[str, str] | None]] = {}
    group_marks: dict[str, str] = {}
    for i, w in enumerate(views):
        for gt, items in w.groups:
            key = _unmarked(gt)[0]
            by_group.setdefault(key, [None] * len(views))[i] = dict(items)
            group_marks[key] = marks_of([group_marks.get(key, ""), gt])
    for gt, groups in by_group.items():
        values = _union([list(g) for g in groups if g is not None])
        rows = [CompareRow([v], [(g or {}).get(v) or blank for g in groups]) for v in values]
        out.tables.append(CompareTable(gt + group_marks[gt], [""], rows))
    return out


def _assumed_label(path: str, names: _Names, t: dict[str, str]) -> str:
    """``entities.area.points`` as "Areas: Territory points", ``players.debt`` as "Players:
    Debts", ``entities.goal`` as "Goals"."""
    parts = path.split(".")
    if parts[0] == "entities" and len(parts) >= 2:
        plural = names.label(names.plurals.get(parts[1], f"{parts[1]}s"))
        if len(parts) == 2:
            return plural
        return f"{plural}: {t.get(path) or names.label(parts[2], t)}"
    if len(parts) == 2:
        return f"{names.label(parts[0])}: {t.get(path) or names.label(parts[1], t)}"
    return path


def _scenario_order(known: dict[str, tuple[str, Any]]) -> list[str]:
    """Scenarios without a base first, then each after its base, otherwise by id."""

    def depth(sid: str) -> int:
        return len(_scenario_chain(sid, known))

    return sorted(known, key=lambda sid: (depth(sid), sid))


#: the headings of what a scenario changes, in the order a player looks them up; each flow
#: section has its heading (`_PHASE_TITLES`), changed cards are special rules
_SCENARIO_SECTIONS = ("Set-up", "Play aids", "Special rules", "Game end and victory")
_PHASE_TITLES = {"setup": "Set-up", "turn": "Special rules", "end_of_turn": "Game end and victory"}

# --------------------------------------------------------------------------------------------
# Building the sheet


def build_sheet(
    game: str,
    scenario: str | None = None,
    rules_root: Path | None = None,
    record: str | Path | None = None,
) -> Sheet:
    """Reads `rules/<game>/` into the sheet's view model; with `record` (a saved game's file),
    only the record forms, filled in from it."""
    root = Path(rules_root) if rules_root else default_rules_root()
    game_dir = root / game
    if not game or "/" in game or not game_dir.is_dir():
        known = ", ".join(list_games(root)) or "none"
        raise SheetError(f"unknown game '{game}' (known: {known})")

    meta: dict[str, Any] = {}
    for name in ("game.yaml", "game.yml"):
        if (game_dir / name).is_file():
            doc = _read_yaml(game_dir / name)
            meta = doc if isinstance(doc, dict) else {}
            break
    sheet = Sheet(
        game=game,
        title=str(meta.get("title") or _humanize(game)),
        source=str(meta.get("source") or f"rules/{game}/"),
    )
    if record is not None:
        other = (str(meta["game"]),) if isinstance(meta.get("game"), str) else ()
        sheet.record = read_save(record, game, other)
        saved = sheet.record.scenario
        if scenario is not None and saved is not None and saved != scenario:
            raise SaveFileError(f"{record}: a save of scenario {saved!r}, not {scenario!r}")

    scenario_docs = _optional_docs(game_dir, "scenarios")
    known_scenarios = _scenario_ids(scenario_docs)
    if scenario is not None:
        if scenario not in known_scenarios:
            known = ", ".join(sorted(known_scenarios)) or "none"
            raise SheetError(f"unknown scenario '{scenario}' for {game} (known: {known})")
        sheet.scenario = scenario
        sheet.scenario_title = known_scenarios[scenario][0]

    compiled = _compiled_tables(game_dir)
    num = _Numberer(sheet)
    for table_id, raw, _pos in _table_docs(game_dir):
        if scenario is not None and not _for_scenario(
            raw.get("group"), scenario, sheet.scenario_title
        ):
            continue
        if sheet.record is not None and raw.get("kind") != "form":
            continue
        if scenario is not None and raw.get("key") == "scenario":
            raw = _rows_of_scenario(raw, scenario, sheet.scenario_title or "")
        sheet.tables.append(_table_view(table_id, raw, compiled.get(table_id), num, sheet.record))
    previous = None
    sizes: dict[str, int] = {}
    for view in sheet.tables:
        sizes[view.group] = sizes.get(view.group, 0) + 1
    for view in sheet.tables:
        # a group of one table needs no heading over its title
        view.group_heading = bool(view.group) and view.group != previous and sizes[view.group] > 1
        previous = view.group
    if sheet.record is not None:
        if not sheet.tables:
            raise SheetError(f"{game} has no record form to fill in (no table of kind: form)")
        names = _Names(game_dir, meta, {k: v for k, (_t, v) in known_scenarios.items()})
        for view in sheet.tables:  # globals named as the game titles them ("Year 1940")
            view.filled_from = _filled_from(sheet.record, compiled.get(view.id), names)
        return sheet  # the record forms only

    resolved = _resolved(root, game, scenario) if scenario is not None else None
    if resolved is not None:
        # the scenario's own sequence of play: its base's steps with its changes
        for section in _FLOW_SECTIONS:
            docs = [_player_text(r.origin.doc) for r in resolved.flow(section)]
            if any(docs):
                sheet.flow.append(Section(_label(section, None, _WORDS), _steps([docs])))
    else:
        for _path, doc in _optional_docs(game_dir, "flow"):
            body = doc.get("flow", doc) if isinstance(doc, dict) else doc
            for phase, steps in body.items() if isinstance(body, dict) else []:
                if phase not in _FLOW_SECTIONS or not isinstance(steps, dict):
                    continue  # procedures are what the steps call, not steps of play
                docs = [_player_text(_doc_of(rec)) for rec in steps.values()]
                if any(docs):
                    sheet.flow.append(Section(_label(phase, None, _WORDS), _steps([docs])))

    for _path, doc in _optional_docs(game_dir, "cards"):
        for title, value in _entries(doc, ("cards",)):
            if isinstance(value, dict) and value.get("text"):
                # a card with its printed text: the text is what a player reads
                text = " ".join(str(value["text"]).split())
                if value.get("unplayable"):
                    text += f" ({' '.join(str(value['unplayable']).split())}.)"
                sheet.cards.append(Section(title, Node("text", text=text)))
            else:
                sheet.cards.append(Section(title, _node(_without_title(value))))

    if resolved is not None:
        # the scenario's own cards: replaced ones as it plays them, removed ones gone
        sheet.cards = []
        for c in sorted(resolved.cards.values(), key=lambda c: c.index):
            text = " ".join((c.text or c.origin.doc).split()) or "Text not printed in the rulebook."
            if c.unplayable:
                text += f" ({' '.join(c.unplayable.split())}.)"
            sheet.cards.append(Section(c.name, Node("text", text=text)))
    names = _Names(game_dir, meta, {k: v for k, (_t, v) in known_scenarios.items()})
    for sid in _scenario_order(known_scenarios) if scenario is None else [scenario]:
        view = _scenario_view(sid, known_scenarios, names, num)
        # the scenario's play aids (tables grouped "Scenario: <title>") print in its block
        view.aid_tables = [
            t
            for t in sheet.tables
            if t.group.lower().startswith("scenario") and _for_scenario(t.group, sid, view.title)
        ]
        for t in view.aid_tables:
            t.group_heading = False
        sheet.scenarios.append(view)
    shown = {id(t) for v in sheet.scenarios for t in v.aid_tables}
    sheet.tables = [t for t in sheet.tables if id(t) not in shown]
    layout = _sheet_option(meta, "scenarios")
    if layout not in (None, "one_by_one", "side_by_side"):
        raise SheetError(
            f"{game}: game.yaml sheet: scenarios: {layout!r} is not one_by_one or side_by_side"
        )
    if scenario is None and len(sheet.scenarios) > 1 and layout == "side_by_side":
        sheet.comparison = _comparison(sheet.scenarios, known_scenarios, names)
    return sheet


def _compared_table(title: str, tables: list[SetupTable | None], blank: str) -> CompareTable:
    """One set-up table of every scenario (None: not in it) as one table: a row per record
    (a player table's seats are its records); a field the same in every scenario is a column
    of its own (for all records but one in ten: the others print their values " / " in
    scenario order); the first of the others, the table's main field, fills the scenario
    columns, each other field set follows it by name ("Axis ally; At war; German factors: 8")."""
    present = [t for t in tables if t is not None]
    players = _unmarked(present[0].columns[0])[0] == "Player"
    heads = _union([[_unmarked(c)[0] for c in t.columns[1:]] for t in present])
    rows = _union([[_unmarked(r[0])[0] for r in t.rows] for t in present])
    grids: list[dict[tuple[str, str], str]] = []
    for t in tables:
        grid: dict[tuple[str, str], str] = {}
        grids.append(grid)
        if t is None:
            continue  # not in this scenario
        for r in t.rows:
            for c, v in zip(t.columns[1:], r[1:], strict=False):
                key = (_unmarked(c)[0], _unmarked(r[0])[0])
                grid[key if players else key[::-1]] = v
    # (record, field): a player table has the fields down the side, the seats across
    records, fields = (heads, rows) if players else (rows, heads)
    marks = {
        f: "".join(
            dict.fromkeys(
                m
                for t in present
                for x in ([r[0] for r in t.rows] if players else t.columns[1:])
                if _unmarked(x)[0] == f
                for m in _MARK.findall(x)
            )
        )
        for f in fields
    }
    title_marks = "".join(
        dict.fromkeys(m for t in present for m in _MARK.findall(t.title + t.columns[0]))
    )

    def values(n: str, f: str) -> list[str]:
        return [g.get((n, f)) or blank for g in grids]

    def varies(f: str) -> int:
        return sum(len(set(values(n, f))) > 1 for n in records)

    leading = [f for f in fields if varies(f) <= len(records) // 10]
    rest = [f for f in fields if f not in leading]
    # where a record's value of a leading field differs, it is named in the scenario columns
    odd = {(n, f) for n in records for f in leading if len(set(values(n, f))) > 1}
    first = "Player" if players else _unmarked(present[0].columns[0])[0]
    head = title + title_marks + (f" — {rest[0]}{marks[rest[0]]}" if rest else "")
    out = CompareTable(head, [first] + [f + marks[f] for f in leading], [], bool(rest or odd))
    for n in records:
        lead = ["" if (n, f) in odd else values(n, f)[0] for f in leading]
        cells = []
        for g in grids:
            parts = [g.get((n, rest[0])) or ""] if rest else []
            for f in rest[1:] + [f for f in leading if (n, f) in odd]:
                v = g.get((n, f)) or ""
                if v == "yes":
                    parts.append(f)
                elif v and v != "no":
                    parts.append(f"{f}: {v}")
            cells.append("; ".join(p for p in parts if p) or blank)
        out.rows.append(CompareRow([n, *lead], cells if out.compare else []))
    return out


def _comparison(
    views: list[ScenarioView], known: dict[str, tuple[str, Any]], names: _Names
) -> Comparison:
    """The scenarios' set-ups resolved (a scenario with a base as a complete set-up) and lined
    up, one column per scenario; scenarios whose set-ups print the same share a column."""
    numbers = {v.id: v.numbers for v in views}
    resolved: list[ScenarioView] = []
    for v in views:
        doc = _resolved_doc(v.id, known)
        chain: list[str] = []  # its base's notes, then its own
        cur = v.id
        while cur in known and cur not in chain:
            chain.insert(0, cur)
            base = known[cur][1].get("base") if isinstance(known[cur][1], dict) else None
            cur = str(base) if base else ""
        marks: dict[str, int] = {}
        for sid in chain:
            # a value the scenario sets itself is not its base's assumption
            own = known[sid][1] if isinstance(known[sid][1], dict) else {}
            marks = {p: n for p, n in marks.items() if not _sets(own, p)}
            marks.update(numbers.get(sid, {}))
        marks = {p: n for p, n in marks.items() if p in (doc.get("assumed") or {})}
        resolved.append(_scenario_view(v.id, {**known, v.id: (v.title, doc)}, names, marks=marks))
    columns: list[tuple[list[str], ScenarioView]] = []
    for v, r in zip(views, resolved, strict=True):
        shown = (r.facts, r.tables, r.groups)
        same = next((c for c in columns if (c[1].facts, c[1].tables, c[1].groups) == shown), None)
        if same is None:
            columns.append(([v.title], r))
        else:
            same[0].append(v.title)
    return _compared([r for _t, r in columns], [_joined_titles(t) for t, _r in columns])


def _joined_titles(titles: list[str]) -> str:
    """Scenarios sharing a column: "The Long Game, Spring 1700 / (two players)" (words the
    first title begins with are not repeated)."""
    out = [titles[0]]
    for t in titles[1:]:
        words, first = t.split(" "), titles[0].split(" ")
        n = 0
        while n < min(len(words), len(first)) and words[n] == first[n]:
            n += 1
        out.append(" ".join(words[n:]) or t)
    return " / ".join(out)


def _sets(doc: dict[str, Any], path: str) -> bool:
    """Whether a scenario document sets what `path` names ("globals.season", "players.vp",
    "entities.city.control", "entities.country")."""
    parts = path.split(".")
    where = doc.get(parts[0])
    if not isinstance(where, dict) or len(parts) < 2:
        return False
    if parts[0] == "players":
        return any(isinstance(r, dict) and parts[1] in r for r in where.values())
    if parts[0] == "entities":
        recs = where.get(parts[1])
        if not isinstance(recs, dict):
            return False
        return len(parts) == 2 or any(isinstance(r, dict) and parts[2] in r for r in recs.values())
    return parts[1] in where


#: the sections of a flow, in order of play (a flow's `procedures` are what its steps call)
_FLOW_SECTIONS = ("setup", "turn", "end_of_turn")
#: a parenthesis that only names the engine's own things or rules-index ids: "(choice
#: end_by_agreement)", "(constant report_board_changes)", "(TR-DIP-UKRAINE-04/05)"
_ENGINE_NOTE = re.compile(
    r"\s*\((?:(?:choice|constant|function|procedure|step|global)s?\s+[a-z][a-z0-9_]*"
    r"|[A-Z]+(?:-[A-Za-z0-9./]+)+(?:,\s*[A-Z]+(?:-[A-Za-z0-9./]+)+)*)\)"
)


#: a parenthesis that names an engine identifier ("(at most reports_per_turn changes ...)")
_ENGINE_ASIDE = re.compile(r"\s*\([^()]*\b[a-z][a-z0-9]*_[a-z0-9_]+\b[^()]*\)")


def _player_text(text: str) -> str:
    """A rules `doc` as a player reads it: one line, without parentheses that only name the
    engine's choices and constants or rules-index ids, or that speak of engine identifiers."""
    text = _ENGINE_NOTE.sub("", " ".join(str(text or "").split()))
    return _ENGINE_ASIDE.sub("", text)


def _steps(groups: list[list[str]]) -> Node:
    """Steps of play as a numbered list (the empty ones left out)."""
    items = [Node("text", text=d) for docs in groups for d in docs if d]
    return Node("list", items=items, ordered=True)


def _rows_of_scenario(raw: dict[str, Any], scenario: str, title: str) -> dict[str, Any]:
    """A table keyed by scenario (`key: scenario`, one row each) keeps only the row of the
    scenario printed (row id = scenario id, or its label part of the scenario's title)."""
    rows = [
        r
        for r in raw.get("rows") or []
        if isinstance(r, dict)
        and (
            str(r.get("id")) == scenario
            or (bool(_norm(str(r.get("label", "")))) and _norm(str(r["label"])) in _norm(title))
        )
    ]
    return {**raw, "rows": rows} if rows else raw


def _resolved(root: Path, game: str, scenario: str) -> Any:
    """The scenario as the compiler resolves it (its base with every overlay applied: the
    variants stage), or None for a game without an engine (tables only)."""
    if not (root / game / "flow.yaml").is_file():
        return None
    try:
        from ..project import Project, compile_project, new_sink
    except ImportError:  # pragma: no cover - the compiler is not there
        return None
    rules = Path(root).resolve()  # a project's rules folder, whatever its name
    project = Project(rules.parent, rules, rules.parent / "generated", "generated")
    sink = new_sink(project)
    result = compile_project(project, sink, [game], generate=False)
    if sink.has_errors:
        first = sink.render_all().strip().splitlines()[0]
        raise SheetError(f"{game}: the rules do not compile: {first}")
    return result.games.get(f"{game}/{scenario}")


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _for_scenario(group: Any, scenario: str, title: str | None) -> bool:
    """A table grouped "Scenario: <title>" belongs to that scenario only; others to every one."""
    if not isinstance(group, str) or not group.lower().startswith("scenario"):
        return True
    name = _norm(group.split(":", 1)[-1])
    return bool(name) and (
        name == _norm(scenario)
        # "Scenario: World War 1 in the West" names "The War to End War: World War 1 in the West"
        or (title is not None and (name in _norm(title) or name.startswith(_norm(title))))
    )


def _strip_meta(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k not in ("game", "schema", "version")}
    return value


# --------------------------------------------------------------------------------------------
# Rendering


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).with_name("templates"))),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def _css_string(text: str) -> markupsafe.Markup:
    """Text for a CSS string literal inside <style>: escaped for CSS, not for HTML."""
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return markupsafe.Markup(text.replace("<", "\\3C "))


def render_html(
    game: str,
    scenario: str | None = None,
    paper: str = "a4",
    *,
    rules_root: Path | None = None,
    record: str | Path | None = None,
) -> str:
    """The reference sheet of `game` (optionally one scenario) as a standalone HTML page; with
    `record` (a saved game's file), the game's record forms filled in from it."""
    if paper not in PAPERS:
        raise SheetError(f"unknown paper '{paper}' (use: {', '.join(PAPERS)})")
    sheet = build_sheet(game, scenario, rules_root, record)
    env = _env()
    running = sheet.title + (f" — {sheet.scenario_title}" if sheet.scenario_title else "")
    css = env.get_template("sheet.css.j2").render(
        page_size=PAPERS[paper],
        record=sheet.record is not None,
        running_title=_css_string(running),
        running_source=_css_string(
            "rulecraft record form" if sheet.record else "rulecraft reference sheet"
        ),
    )
    return env.get_template("sheet.html.j2").render(sheet=sheet, css=markupsafe.Markup(css))


@contextlib.contextmanager
def _fixed_font_timestamps() -> Iterator[None]:
    """fontTools stamps each embedded font subset with the time unless SOURCE_DATE_EPOCH is set."""
    old = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = _FIXED_EPOCH
    try:
        yield
    finally:
        if old is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = old


def html_to_pdf(html: str) -> bytes:
    """HTML to PDF through WeasyPrint, reproducibly (same HTML, same bytes)."""
    try:
        import weasyprint
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise SheetError(
            f"PDF output needs WeasyPrint and its system libraries ({exc}): "
            "pip install 'rulecraft[sheets]', or --format html"
        ) from None
    base = str(Path(__file__).with_name("templates"))
    with _fixed_font_timestamps():
        return weasyprint.HTML(string=html, base_url=base).write_pdf(pdf_identifier=False)


def render_pdf(
    game: str,
    scenario: str | None = None,
    paper: str = "a4",
    *,
    rules_root: Path | None = None,
    record: str | Path | None = None,
) -> bytes:
    """The reference sheet as PDF bytes (byte-for-byte reproducible); `record` as for
    `render_html`."""
    return html_to_pdf(render_html(game, scenario, paper, rules_root=rules_root, record=record))
