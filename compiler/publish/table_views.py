"""A table as printed: its cells (printed, assumed, gap; numbered notes), its notes, shifts and
modifiers, result explanations, provenance and exact result probabilities."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from .text import fmt_scalar, humanize, norm
from .views import (
    BlockView,
    Cell,
    Footnote,
    Odds,
    OddsRow,
    Row,
    SavedRecord,
    SetupTable,
    Sheet,
    TableView,
    cells_summary,
    group_gaps,
)

_PROVENANCE_KEYS = ("assumed", "gap")


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


class Numberer:
    """Collects assumed and gap cells of a sheet, numbering the assumed ones in reading order.

    Within a table (between `open_table` and `close_table`) the assumed cells that share one
    reason are one block: more than one of them take a single note, marked once after the
    table's title, not a dagger in every cell (the 30 cells of an assumed table make one
    note and one mark)."""

    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        #: result explanations already printed: (code, text) -> title of the table
        self.results_seen: dict[tuple[str, str], str] = {}
        #: the assumed cells of the open table: (its note, the cell)
        self._open: list[tuple[Footnote, Cell]] | None = None

    def open_table(self) -> None:
        """Starts a table: its assumed cells are grouped into blocks by `close_table`."""
        self._open = []

    def close_table(self) -> list[int]:
        """Ends a table: each reason shared by several of its assumed cells becomes one note
        naming the cells, and their daggers go; returns the numbers of those notes (marked
        after the table's title). The notes are numbered again in reading order."""
        cells, self._open = self._open or [], None
        if not cells:
            return []
        by_reason: dict[str, list[tuple[Footnote, Cell]]] = {}
        for f, c in cells:
            by_reason.setdefault(f.reason, []).append((f, c))
        first = cells[0][0].n
        del self.sheet.assumed[first - 1 : first - 1 + len(cells)]
        marks: list[int] = []
        done: set[str] = set()
        for f, c in cells:
            group = by_reason[f.reason]
            n = len(self.sheet.assumed) + 1
            if len(group) == 1:
                f.n, c.mark = n, n
                self.sheet.assumed.append(f)
                continue
            if f.reason in done:
                continue
            done.add(f.reason)
            for _f, gc in group:
                gc.mark = None
            what = cells_summary([g.cell for g, _c in group])
            self.sheet.assumed.append(Footnote(n, f.table, what, f.reason, f.table, ""))
            marks.append(n)
        return marks

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
            else fmt_scalar(text_value)
            if text_value is not None
            else ""
        )
        text += _marks(footnotes)
        if prov.get("assumed"):
            n = len(self.sheet.assumed) + 1
            note = Footnote(n, where, text, str(prov["assumed"]), table, at)
            self.sheet.assumed.append(note)
            cell = Cell(text=text, state="assumed", mark=n, numeric=_is_numeric(text))
            if self._open is not None:
                self._open.append((note, cell))
            return cell
        return Cell(text=text, numeric=_is_numeric(text))


def _row_prov(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in _PROVENANCE_KEYS if row.get(k)}


def table_view(
    table_id: str,
    raw: dict[str, Any],
    compiled: Any,
    num: Numberer,
    record: SavedRecord | None = None,
) -> TableView:
    """One table of the YAML format (docs/tables.md) as a printable view; a record form is filled
    in from `record` when given."""
    title = str(raw.get("title") or humanize(table_id))
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
    num.open_table()
    gaps_before = len(num.sheet.gaps)

    if kind == "range":
        columns = [str(raw.get("result_label") or "Result")]
        corner = str(raw.get("key_label") or "Roll")
        for row in raw.get("rows") or []:
            result = row.get("result")
            text = row.get("text")
            shown = fmt_scalar(result) if result is not None else ""
            if shown in (str(row.get("range", "")), str(row.get("label", ""))) and text:
                shown = ""  # the result only repeats the row's heading: print the text alone
            if text and norm(str(text)).startswith(norm(shown)):
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

    group_by = sheet_option(raw, "group_by")
    if isinstance(group_by, list) and kind in ("column", "matrix", "list"):
        rows, columns, has_labels = _grouped(rows, columns_raw, columns, [str(g) for g in group_by])
        if not has_labels:
            corner = ""

    if kind != "steps" and all(not c for c in columns) and not corner:
        columns = []
    if kind in ("list",) and not any(columns) and not corner:
        columns = []

    marks = num.close_table()
    notes: list[str] = []
    extras: list[SetupTable] = []
    for cond in raw.get("conditions") or []:
        notes.append(
            "Condition: " + fmt_scalar(cond.get("text") if isinstance(cond, dict) else cond)
        )
    for key, what in (("modifiers", "Modifier"), ("shifts", "Column shift")):
        items = [x for x in raw.get(key) or [] if x]
        as_table = _amount_table(items, what, key == "shifts")
        if as_table is not None:
            extras.append(as_table)
            continue
        for item in items:
            notes.append(
                f"{what}: " + fmt_scalar(item.get("text") if isinstance(item, dict) else item)
            )
    notes += _result_notes(raw.get("results") or {}, title, num.results_seen)
    restated = {
        norm(f"{title} result {r.get('range', r.get('label', ''))}")
        for r in raw.get("rows") or []
        if isinstance(r, dict) and r.get("text")
    }
    for note in raw.get("notes") or []:
        text_of = note.get("text") if isinstance(note, dict) else note
        if norm(str(text_of).split(":", 1)[0]) in restated and not _row_prov(
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
    for g in group_gaps(num.sheet.gaps[gaps_before:]):
        # a cell the rulebook does not print is left blank (hatched): one note says which and why
        notes.append(f"Left blank ({g.cells}): {g.reason}")

    source = raw.get("source") or {}
    prov_parts = []
    if source.get("section") and norm(str(source["section"])) != norm(title):
        prov_parts.append(f"Rulebook: {source['section']}")  # (a section named as the table: once)
    if source.get("rules"):
        prov_parts.append("Rules: " + rule_ranges(source["rules"]))
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
        odds=odds_for(raw, compiled),
        wide=any(len(c.text) > 45 for r in rows for c in r.cells) or any(r.heading for r in rows),
        blocks=blocks,
        form=kind == "form",
        extras=extras,
        group=str(raw.get("group") or ""),
        marks=marks,
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


def rule_ranges(ids: list[str]) -> str:
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
    return norm(a) == norm(b)


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
        if label and not _same_words(label, str(code)) and not norm(text).startswith(norm(label)):
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


def sheet_option(raw: dict[str, Any], name: str) -> Any:
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


def odds_for(raw: dict[str, Any], compiled: Any) -> list[Odds]:
    """Exact result probabilities of a die table: one row per column of a column table; for a
    range table one row for the bare roll, or with `sheet: {odds: {by_modifier: [lo, hi]}}` one
    row per net modifier. A modified roll's table prints none unless it asks (docs/sheets.md);
    `sheet: {odds: none}` prints none. Rows that are a single 100% are left out."""
    if not raw.get("dice") or compiled is None or not hasattr(compiled, "distribution"):
        return []
    option = sheet_option(raw, "odds")
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
            key = fmt_scalar(outcome)
            if key not in results:
                results.append(key)
    # a roll landing on a cell the rulebook does not print has no result to give odds for
    results = [r for r in results if r not in _GAP_KEYS]
    if not results:
        return []
    rows = []
    for label, dist in labelled:
        by_key: dict[str, Fraction] = {}
        for outcome, p in dist.items():
            key = fmt_scalar(outcome)
            by_key[key] = by_key.get(key, Fraction(0)) + Fraction(p)
        rows.append(OddsRow(label, [_pct(by_key[k]) if k in by_key else "–" for k in results]))
    unprinted = any(fmt_scalar(o) in _GAP_KEYS for _label, dist in labelled for o in dist)
    note = (
        "Printed results only: the other rolls land on cells the rulebook does not print."
        if unprinted
        else ""
    )
    return [Odds(f"Exact result probabilities ({raw['dice']})", corner, results, rows, note)]


#: the key of `Table.distribution` for landing on a cell not printed (`tables.model.GAP`)
_GAP_KEYS = ("GAP", "(gap)")


def rows_of_scenario(raw: dict[str, Any], scenario: str, title: str) -> dict[str, Any]:
    """A table keyed by scenario (`key: scenario`, one row each) keeps only the row of the
    scenario printed (row id = scenario id, or its label part of the scenario's title)."""
    rows = [
        r
        for r in raw.get("rows") or []
        if isinstance(r, dict)
        and (
            str(r.get("id")) == scenario
            or (bool(norm(str(r.get("label", "")))) and norm(str(r["label"])) in norm(title))
        )
    ]
    return {**raw, "rows": rows} if rows else raw


def for_scenario(table: str, scenario: str, aids: dict[str, tuple[str, ...]]) -> bool:
    """Whether a table prints on the sheet of `scenario`: a table some scenario names as a play
    aid (`aids`: scenario id -> its `play_aids` in the model) belongs to those scenarios only;
    any other to every one."""
    return table in aids.get(scenario, ()) or not any(table in ids for ids in aids.values())
