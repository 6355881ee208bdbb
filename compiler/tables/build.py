"""Building a game's tables from ``rules/<game>/tables/*.yaml``: each table of each kind read
and checked (`TableBuilder`, on `PartReader`), every problem reported as a diagnostic with
file:line:col; :func:`load_tables` and :func:`all_game_tables` are the entry points."""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..diagnostics import DiagnosticSink, Position
from ..limits import MAX_DICE, MAX_DIE_SIDES
from .cells import PartReader
from .model import (
    KINDS,
    TABLE_ID,
    Cell,
    Column,
    ColumnTable,
    Fill,
    FormBlock,
    FormTable,
    ListTable,
    MatrixTable,
    Provenance,
    RangeTable,
    Result,
    Row,
    StepsTable,
    Table,
    dice_outcomes,
)

__all__ = ["TableBuilder", "all_game_tables", "load_tables"]

#: stands for a cell missing from a short row (already reported)
_PAD = object()


class TableBuilder(PartReader):
    """Builds the tables of one document, reporting problems to the sink."""

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
            if not isinstance(item, str) or not TABLE_ID.match(item):
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
            if dot and scope in scopes and TABLE_ID.match(name):
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
    from ..loader import load_yaml

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
        builder = TableBuilder(doc, sink, game)
        data = doc.data
        if not isinstance(data, Mapping) or not isinstance(data.get("tables"), Mapping):
            builder.error("table-missing", "a tables file needs a 'tables' mapping", ())
            continue
        for tid, spec in data["tables"].items():
            tpath = ("tables", tid)
            if not isinstance(tid, str) or not TABLE_ID.match(tid):
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
        from ..schema import SchemaStore
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
