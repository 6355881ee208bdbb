"""Scenario blocks: a scenario's own title, text, set-up tables and what it changes in the rules,
with readable labels from the game's declarations."""

from __future__ import annotations

from typing import Any

from .source import document, game_tables, node_of
from .table_views import Numberer
from .text import WORDS, doc_of, fmt_scalar, humanize, player_text, readable_label
from .views import Footnote, ScenarioView, SetupTable

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
        "play_aids",
    }
)


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


class Names:
    """Printed names of seats, entities and cards, gathered from the game and its scenarios."""

    def __init__(self, model: Any, docs: dict[str, Any]) -> None:
        """`model`: the game's `ir.Game` (the data of its game.yaml and cards.yaml, its flow
        steps and tables); `docs`: each scenario's data, by id."""
        meta = document(model, "game.yaml") or {}
        self.things: dict[str, str] = {}
        self.titles: dict[str, str] = {}
        self.plurals: dict[str, str] = {}
        words = meta.get("words")
        self.words = {**WORDS, **(words if isinstance(words, dict) else {})}
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
        for phase in ("setup", "turn", "end_of_turn"):
            for r in model.flow(phase):
                if r.origin.doc.split():  # the step's doc, on one line
                    step = r.name.split("__", 1)[1]
                    self.steps[f"{phase}.{step}"] = " ".join(r.origin.doc.split())
        #: table titles by id: a field typed `table` prints the table's title
        self.tables = {
            tid: str(raw.get("title") or humanize(tid)) for tid, raw, _t in game_tables(model)
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
        cards_doc = document(model, "cards.yaml")
        cards = cards_doc.get("cards", cards_doc) if isinstance(cards_doc, dict) else None
        for cid, card in cards.items() if isinstance(cards, dict) else []:
            if isinstance(card, dict) and card.get("name"):
                self.things[str(cid)] = str(card["name"])
        board = getattr(model, "board", None)
        for c in board.cells if board is not None else []:  # hexes by number, or name
            named = c.name != c.number and c.number
            self.things[c.id] = f"{c.name} ({c.number})" if named else c.name
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
        return readable_label(key, titles, self.words)

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
        return fmt_scalar(value)


def scenario_chain(sid: str, known: dict[str, tuple[str, Any]]) -> list[dict[str, Any]]:
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


def card_text(rec: Any) -> str:
    """A card as a player reads it: its printed `text:`, else its `doc`."""
    if isinstance(rec, dict) and rec.get("text"):
        return " ".join(str(rec["text"]).split())
    return player_text(doc_of(rec))


def _is_zero(value: Any) -> bool:
    """0, no, none or empty: what a complete set-up leaves out ("not listed: 0, no or none")."""
    if isinstance(value, dict) and "value" in value:
        value = value["value"]
    return value is None or value is False or value == 0 or value in ("", [], {})


def _kinds(doc: dict[str, Any]) -> list[dict[str, Any]]:
    ents = doc.get("entities")
    return [v for v in ents.values() if isinstance(v, dict)] if isinstance(ents, dict) else []


def _record_name(rid: Any, rec: dict[str, Any], names: Names) -> str:
    return str(rec.get("name") or names.things.get(str(rid)) or names.label(rid))


def scenario_view(
    sid: str,
    known: dict[str, tuple[str, Any]],
    names: Names,
    num: Numberer | None = None,
    marks: dict[str, int] | None = None,
) -> ScenarioView:
    """One scenario's block. `marks` (path -> note number): mark these paths with notes
    already numbered instead of numbering the scenario's own `assumed:` (a resolved scenario,
    see `compare.py`)."""
    title, doc = known[sid]
    view = ScenarioView(id=sid, title=title)
    if not isinstance(doc, dict):
        view.other = node_of(doc)
        return view
    base = str(doc["base"]) if doc.get("base") else ""
    if base:
        view.base_title = known[base][0] if base in known else names.label(base)
    # the player wording (`text:`) if the scenario has it, else its description
    view.doc = player_text(doc["text"]) if doc.get("text") else player_text(doc_of(doc))
    complete = not base
    seats: dict[str, str] = {}
    for d in scenario_chain(sid, known):
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
            view.facts.append((plural, f"{fmt_scalar(recs['per_seat'])} per player"))
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
                | {str(rid) for d in scenario_chain(sid, known) for k in _kinds(d) for rid in k}
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
                    text = card_text(rec)
                    if text:
                        view.by_phase.setdefault("Special rules", []).append(
                            f"{names.of(str(cid), seats)}: {text}"
                        )

    flow = doc.get("flow")
    for phase, ops in flow.items() if isinstance(flow, dict) else []:
        where = PHASE_TITLES.get(str(phase), "Special rules")
        for op, steps in ops.items() if isinstance(ops, dict) else []:
            if op == "remove" and isinstance(steps, list):
                for x in steps:
                    was = names.steps.get(f"{phase}.{x}")
                    view.by_phase.setdefault(where, []).append(
                        f"Not in this scenario: {was}" if was else f"{names.label(x)}: left out."
                    )
            elif isinstance(steps, dict):
                for _step, rec in steps.items():
                    if doc_of(rec):
                        view.by_phase.setdefault(where, []).append(player_text(doc_of(rec)))
    rest = {k: v for k, v in doc.items() if str(k) not in _SCENARIO_HANDLED}
    if rest:
        view.other = node_of(rest)
    return view


def resolved_doc(sid: str, known: dict[str, tuple[str, Any]]) -> dict[str, Any]:
    """The scenario as a complete set-up: its base's seats, constants, globals, players and
    entities with its own on top (a record field by field, `remove:` drops records) and what
    the chain says it assumed. Flow, cards and texts stay the scenario's own."""
    out: dict[str, Any] = {}
    for d in scenario_chain(sid, known):
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


def _assumed_label(path: str, names: Names, t: dict[str, str]) -> str:
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


def scenario_order(known: dict[str, tuple[str, Any]]) -> list[str]:
    """Scenarios without a base first, then each after its base, otherwise by id."""

    def depth(sid: str) -> int:
        return len(scenario_chain(sid, known))

    return sorted(known, key=lambda sid: (depth(sid), sid))


PHASE_TITLES = {"setup": "Set-up", "turn": "Special rules", "end_of_turn": "Game end and victory"}
