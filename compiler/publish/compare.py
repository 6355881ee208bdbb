"""Scenarios side by side (`sheet: {scenarios: side_by_side}`): the resolved set-ups lined up,
a column per scenario, scenarios that print the same sharing one."""

from __future__ import annotations

import re
from typing import Any

from .scenarios import Names, resolved_doc, scenario_view
from .views import CompareRow, CompareTable, Comparison, ScenarioView, SetupTable

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


def comparison(
    views: list[ScenarioView], known: dict[str, tuple[str, Any]], names: Names
) -> Comparison:
    """The scenarios' set-ups resolved (a scenario with a base as a complete set-up) and lined
    up, one column per scenario; scenarios whose set-ups print the same share a column."""
    numbers = {v.id: v.numbers for v in views}
    resolved: list[ScenarioView] = []
    for v in views:
        doc = resolved_doc(v.id, known)
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
        resolved.append(scenario_view(v.id, {**known, v.id: (v.title, doc)}, names, marks=marks))
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
