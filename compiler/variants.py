"""Scenarios as keyed overlays: each scenario names its base and states only what changes.

A scenario file gives the starting values of a game (seats, constants, globals, players,
entities) and may change the rules themselves with keyed overlays:

``cards``, ``functions``, ``procedures``
    ``add:`` new ones, ``replace:`` existing ones, ``remove:`` a list of names.
``flow``
    per section (``setup``, ``turn``, ``end_of_turn``): ``add:`` steps (placed with
    ``before:``/``after:`` another step, else at the end), ``replace:``, ``remove:``.
``state``
    new fields (``globals``, ``player``, ``cards``) and entity types or their fields.
``enums``, ``choices``, ``constants``
    new enums; values for the readings a designer can switch; constants (new or changed).
``hooks``
    named code that runs ``before:`` or ``after:`` a procedure, with its parameters.
``play_aids``
    the ids of the game's tables that are the scenario's play aids (the reference sheet prints
    them with the scenario); a scenario's own list replaces its base's.

With ``base: <scenario>`` everything of that scenario, values and overlays, is inherited.
Targeting something that does not exist is an error at the overlay's key.  Every value
remembers the file, line and scenario that wrote it (``rulecraft explain``).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from . import ir
from .board import board_values
from .builder import FLOW_SECTIONS, Builder, Sources
from .diagnostics import DiagnosticSink, did_you_mean
from .displays import add_displays
from .effects import Call, ExprStmt, Name, Snippet, parse_into
from .lasting import add_lasting, weave_lasting
from .loader import Document, YPath
from .negotiation import add_negotiation
from .tables.programs import add_table_programs
from .windows import add_windows, weave_windows


def base_model(
    src: Sources, sink: DiagnosticSink, tables: dict[str, Any] | None = None
) -> ir.Game | None:
    """The game before any scenario: its files built, with its tables (``rules/<game>/tables``,
    which effects look up) and their programs, its negotiation and its board displays."""
    b = Builder(src, sink)
    base = b.build()
    if base is None:
        return None
    base.tables = dict(tables or {})
    add_table_programs(b, base, sink)
    add_negotiation(b, base, sink)
    add_windows(b, base, sink)
    add_displays(b, base, sink)
    add_lasting(b, base, sink)
    for tid, params in base.table_params.items():
        base.tables[tid].params = params
    return base


def resolve_scenarios(
    src: Sources,
    sink: DiagnosticSink,
    tables: dict[str, Any] | None = None,
    base: ir.Game | None = None,
) -> dict[str, ir.Game]:
    """One resolved (not yet checked) model per scenario: the base game plus its overlays.

    ``base`` is the game's `base_model` if the caller has it (it is not changed), else it is
    built here from ``src`` and ``tables``.
    """
    b = Builder(src, sink)
    if base is None:
        base = base_model(src, sink, tables)
        if base is None:
            return {}
    docs = {
        doc.data["scenario"]: doc
        for rel, doc in sorted(src.docs.items())
        if rel.startswith("scenarios/")
    }
    for sid, doc in docs.items():
        expected = Path(doc.path).stem
        if sid != expected:
            sink.error(
                "name-mismatch",
                f"scenario id {sid!r} does not match its file name {expected!r}",
                doc.pos(("scenario",)),
            )
    resolved: dict[str, ir.Game] = {}
    visiting: set[str] = set()

    def resolve(sid: str) -> ir.Game | None:
        if sid in resolved:
            return resolved[sid]
        doc = docs[sid]
        parent_id = doc.data.get("base")
        parent = None
        if parent_id is not None:
            if parent_id in src.broken:
                return None  # its file's errors are reported; this one waits for them
            if parent_id not in docs:
                sink.error(
                    "undefined",
                    f"unknown base scenario {parent_id!r}",
                    doc.pos(("base",)),
                    did_you_mean(parent_id, docs) or "scenarios: " + ", ".join(sorted(docs)),
                )
                return None
            if parent_id in visiting:
                sink.error("cycle", f"scenario {sid!r} is its own base", doc.pos(("base",)))
                return None
            visiting.add(sid)
            parent = resolve(parent_id)
            visiting.discard(sid)
            if parent is None:
                return None
        game = copy.deepcopy(parent if parent is not None else base)
        Overlay(b, game, doc, sid, parent.scenario if parent else None).apply()
        resolved[sid] = game
        return game

    for sid in docs:
        resolve(sid)
    # every scenario based on another has copied it: each is finished in place
    return {sid: finish(b, resolved[sid]) for sid in docs if sid in resolved}


def finish(b: Builder, game: ir.Game) -> ir.Game:
    """``game`` (changed in place) ready for checking: hooks woven into their procedures,
    the main routine made."""
    weave_windows(b, game)
    weave_lasting(b, game)
    weave_hooks(b, game)
    b.main(game)
    return game


class Overlay:
    """Applies one scenario file to a copy of its base."""

    def __init__(
        self, b: Builder, game: ir.Game, doc: Document, sid: str, parent: ir.Scenario | None
    ):
        self.b = b
        self.sink = b.sink
        self.game = game
        self.doc = doc
        self.sid = sid
        self.parent = parent

    def apply(self) -> None:
        d = self.doc.data
        self.game.sources = sorted({*self.game.sources, self.doc.path})
        self.state()
        self.enums()
        self.choices_and_constants()
        self.keyed("cards", self.cards)
        self.keyed("functions", lambda mode, path: self.routines(mode, path, "function"))
        self.keyed("procedures", lambda mode, path: self.routines(mode, path, "procedure"))
        for section in FLOW_SECTIONS:
            if self.doc.has(("flow", section)):
                self.keyed_at(
                    ("flow", section), lambda mode, path, s=section: self.flow(s, mode, path)
                )
        self.hooks()
        self.game.scenarios = {self.sid: self.scenario_values()}
        if d.get("title"):
            self.game.scenarios[self.sid].title = str(d["title"])

    # -- keyed overlays

    def keyed(self, key: str, fn: Any) -> None:
        if self.doc.has((key,)):
            self.keyed_at((key,), fn)

    def keyed_at(self, path: YPath, fn: Any) -> None:
        section = self.doc.get(path) or {}
        for mode in ("remove", "replace", "add"):
            if mode in section:
                fn(mode, (*path, mode))

    def removed(self, path: YPath, existing: Any, what: str) -> list[str]:
        names = []
        for i, name in enumerate(self.doc.get(path) or []):
            if name not in existing:
                self.b.missing(what, name, existing, self.doc, (*path, i))
            else:
                names.append(name)
        return names

    def cards(self, mode: str, path: YPath) -> None:
        g = self.game
        if mode == "remove":
            for cid in self.removed(path, g.cards, "card"):
                del g.cards[cid]
            for index, card in enumerate(g.cards.values()):
                card.index = index
        else:
            self.b._cards(g, self.doc, path, mode)

    def routines(self, mode: str, path: YPath, kind: str) -> None:
        g = self.game
        if mode == "remove":
            known = [n for n, r in g.functions.items() if r.kind == kind]
            for name in self.removed(path, known, kind):
                del g.functions[name]
        else:
            self.b._routines(g, self.doc, path, kind, mode)

    def flow(self, section: str, mode: str, path: YPath) -> None:
        steps = self.game.flow(section)
        prefix = FLOW_SECTIONS[section]
        names = [r.name.split("__", 1)[1] for r in steps]
        what = f"{section} step"
        if mode == "remove":
            for name in self.removed(path, names, what):
                steps.pop([r.name for r in steps].index(f"{prefix}__{name}"))
            return
        for name, spec in (self.doc.get(path) or {}).items():
            here = (*path, name)
            names = [r.name.split("__", 1)[1] for r in steps]
            step = self.b.step(self.doc, here, section, name, spec)
            if mode == "replace":
                if name not in names:
                    self.b.missing(what, name, names, self.doc, here)
                    continue
                steps[names.index(name)] = step
                continue
            if name in names:
                self.sink.error(
                    "duplicate-name",
                    f"{what} {name!r} already exists",
                    self.doc.key_pos(here),
                    "to change it, put it under replace:",
                )
                continue
            index = len(steps)
            for where, delta in (("before", 0), ("after", 1)):
                if where in spec:
                    anchor = spec[where]
                    if anchor not in names:
                        self.b.missing(what, anchor, names, self.doc, (*here, where), value=True)
                        break
                    index = names.index(anchor) + delta
            steps.insert(index, step)

    def hooks(self) -> None:
        g = self.game
        for name, spec in (self.doc.get(("hooks",)) or {}).items():
            path = ("hooks", name)
            if name in g.hooks:
                self.sink.error(
                    "duplicate-name", f"hook {name!r} already exists", self.doc.key_pos(path)
                )
                continue
            when = "before" if "before" in spec else "after"
            target = spec[when]
            proc = g.functions.get(target)
            if proc is None or proc.kind != "procedure":
                known = [n for n, r in g.functions.items() if r.kind == "procedure"]
                self.b.missing("procedure", target, known, self.doc, (*path, when), value=True)
                continue
            body = self.b.program(self.doc, (*path, "do"), f"hook {name!r}") or []
            g.hooks[name] = ir.Hook(name, when, target, body, self.b.origin(self.doc, path, spec))

    # -- declarations

    def state(self) -> None:
        g, doc, b = self.game, self.doc, self.b
        st = doc.get(("state",)) or {}
        for tname, spec in (st.get("entities") or {}).items():
            if tname not in g.entities:
                g.entities[tname] = ir.EntityType(
                    tname,
                    spec.get("plural", tname + "s"),
                    b.origin(doc, ("state", "entities", tname), spec),
                    None,
                )
        for tname, spec in (st.get("entities") or {}).items():
            et = g.entities[tname]
            base = ("state", "entities", tname)
            for part, const in (("attributes", True), ("fields", False)):
                for fname, fspec in (spec.get(part) or {}).items():
                    path = (*base, part, fname)
                    if et.member(fname) is not None:
                        self.exists(f"{tname} field", fname, path)
                        continue
                    target = et.attributes if const else et.fields
                    target[fname] = b._field(g, doc, path, fname, fspec, const)
        for part, target in (
            ("globals", g.globals),
            ("player", g.player_fields),
            ("cards", g.card_attributes),
        ):
            for fname, fspec in (st.get(part) or {}).items():
                path = ("state", part, fname)
                if fname in target:
                    self.exists(f"{part} field", fname, path)
                    continue
                target[fname] = b._field(g, doc, path, fname, fspec, part == "cards")

    def exists(self, what: str, name: str, path: YPath) -> None:
        self.sink.error(
            "duplicate-name",
            f"{what} {name!r} already exists",
            self.doc.key_pos(path),
            "a scenario adds new fields; to start an existing one at another value, set it",
        )

    def enums(self) -> None:
        for name, spec in (self.doc.get(("enums",)) or {}).items():
            path = ("enums", name)
            if name in self.game.enums:
                self.exists("enum", name, path)
                continue
            values = spec["values"] if isinstance(spec, dict) else spec
            self.game.enums[name] = ir.EnumDecl(
                name, tuple(str(v) for v in values), self.b.origin(self.doc, path)
            )

    def choices_and_constants(self) -> None:
        g, doc = self.game, self.doc
        for name, value in (doc.get(("choices",)) or {}).items():
            path = ("choices", name)
            c = g.constants.get(name)
            if c is None or not c.is_choice:
                known = [n for n, k in g.constants.items() if k.is_choice]
                self.b.missing("choice", name, known, doc, path)
                continue
            if not isinstance(value, type(c.value)):
                self.sink.error(
                    "type", f"choice {name!r} takes {c.type}, not {value!r}", doc.pos(path)
                )
        for name, spec in (doc.get(("constants",)) or {}).items():
            if name not in g.constants:
                spec = spec if isinstance(spec, dict) else {"value": spec}
                g.constants[name] = self.b._constant(doc, ("constants", name), name, spec, False)

    # -- values

    def scenario_values(self) -> ir.Scenario:
        doc, d, parent = self.doc, self.doc.data, self.parent
        sid = self.sid
        values: dict[str, ir.Value] = dict(parent.values) if parent else {}
        records = {t: list(ids) for t, ids in parent.records.items()} if parent else {}

        def put(key: str, value: Any, path: YPath, shared: bool = False) -> None:
            values[key] = ir.Value(value, doc.pos(path), sid, shared, doc, path)

        board = self.game.board
        if parent is None and board is not None:  # the board's hexes and boxes come first
            bdoc = board.doc
            records[board.entity] = [c.id for c in board.cells]
            for rid, attr, value, pos, bpath in board_values(board):
                layer = Path(bdoc.path).stem
                key = f"e.{board.entity}.{rid}.{attr}"
                values[key] = ir.Value(value, pos, layer, False, bdoc if bpath else None, bpath)

        if "seats" in d:
            seats = [(s, str((v or {}).get("name", s))) for s, v in (d.get("seats") or {}).items()]
        elif parent is not None:
            seats = list(parent.seats)
        else:
            seats = []
            self.sink.error("schema", f"scenario {sid!r} has no seats", doc.pos(()))
        seat_ids = [s for s, _ in seats]
        for name, spec in (d.get("constants") or {}).items():
            put(f"c.{name}", spec["value"] if isinstance(spec, dict) else spec, ("constants", name))
        for name, value in (d.get("choices") or {}).items():
            put(f"c.{name}", value, ("choices", name))
        for name, value in (d.get("globals") or {}).items():
            put(f"g.{name}", value, ("globals", name))
        players = d.get("players") or {}
        for key in players:
            if key != "all" and key not in seat_ids:
                self.sink.error(
                    "unknown-name",
                    f"unknown seat {key!r}",
                    doc.key_pos(("players", key)),
                    "seats of this scenario: " + ", ".join(seat_ids),
                )
        for name, value in (players.get("all") or {}).items():
            for seat in seat_ids:
                put(f"p.{seat}.{name}", value, ("players", "all", name), shared=True)
        for seat in seat_ids:
            for name, value in (players.get(seat) or {}).items():
                put(f"p.{seat}.{name}", value, ("players", seat, name))
        for tname, spec in (d.get("entities") or {}).items():
            path = ("entities", tname)
            if tname not in self.game.entities:
                self.b.missing("entity type", tname, self.game.entities, doc, path)
                continue
            spec = spec or {}
            if "per_seat" in spec:
                for rid in records.get(tname, []):
                    for k in [k for k in values if k.startswith(f"e.{tname}.{rid}.")]:
                        del values[k]
                records[tname] = []
                for seat, _ in seats:
                    for n in range(1, int(spec["per_seat"]) + 1):
                        rid = f"{seat}_{n}"
                        records[tname].append(rid)
                        put(f"e.{tname}.{rid}.owner", seat, (*path, "per_seat"))
                        put(f"e.{tname}.{rid}.number", n, (*path, "per_seat"))
                        for k, v in (spec.get("values") or {}).items():
                            put(f"e.{tname}.{rid}.{k}", v, (*path, "values", k))
                continue
            ids = records.setdefault(tname, [])
            for i, rid in enumerate(spec.get("remove") or []):
                if rid not in ids:
                    self.b.missing(tname, rid, ids, doc, (*path, "remove", i))
                    continue
                ids.remove(rid)
                for k in [k for k in values if k.startswith(f"e.{tname}.{rid}.")]:
                    del values[k]
            for rid, fields in spec.items():
                if rid == "remove":
                    continue
                if rid not in ids:
                    ids.append(rid)
                    put(f"e.{tname}.{rid}.name", str(rid), (*path, rid))
                for k, v in (fields or {}).items():
                    put(f"e.{tname}.{rid}.{k}", v, (*path, rid, k))
        play_aids = parent.play_aids if parent else ()
        if "play_aids" in d:  # its own list replaces its base's
            play_aids = tuple(self.tables_named(("play_aids",)))
        max_turns = int(d.get("max_turns", parent.max_turns if parent else 1000))
        bot_max_turns = parent.bot_max_turns if parent else None
        sim = d.get("simulate")
        if isinstance(sim, dict) and isinstance(sim.get("bot_max_turns"), int):
            bot_max_turns = sim["bot_max_turns"]
        if bot_max_turns is not None and bot_max_turns > max_turns:
            own = isinstance(sim, dict) and "bot_max_turns" in sim
            at = (
                ("simulate", "bot_max_turns") if own else ("max_turns",) if "max_turns" in d else ()
            )
            self.sink.error(
                "schema",
                f"bot_max_turns {bot_max_turns} is above the scenario's max_turns {max_turns}",
                doc.pos(at),
            )
        return ir.Scenario(
            id=sid,
            title=str(d.get("title") or (parent.title if parent else sid)),
            origin=self.b.origin(doc, (), d),
            seats=seats,
            values=values,
            records=records,
            base=d.get("base"),
            layers=(*(parent.layers if parent else ()), doc.path),
            max_turns=max_turns,
            bot_max_turns=bot_max_turns,
            doc=doc,
            play_aids=play_aids,
        )

    def tables_named(self, path: YPath) -> list[str]:
        """The table ids listed at ``path``; an id that is not a table of the game is an error
        at it (unless some table had errors and was left out: its id is not known)."""
        out = []
        for i, tid in enumerate(self.doc.get(path) or []):
            if tid in self.game.tables or self.game.tables_incomplete:
                out.append(str(tid))
                continue
            known = sorted(self.game.tables)
            self.sink.error(
                "undefined",
                f"unknown table {tid!r}",
                self.doc.pos((*path, i)),
                did_you_mean(tid, known)
                or ("tables: " + ", ".join(known) if known else "the game has no tables/"),
            )
        return out


def weave_hooks(b: Builder, game: ir.Game) -> None:
    """Each procedure with hooks becomes: before-hooks, the original body, after-hooks."""
    by_target: dict[str, list[ir.Hook]] = {}
    for hook in game.hooks.values():
        by_target.setdefault(hook.target, []).append(hook)
    for target, hooks in sorted(by_target.items()):
        proc = game.functions[target]
        inner = copy.copy(proc)
        inner.name = f"{target}__rules"
        game.functions[inner.name] = inner
        args = ", ".join(p for p, _ in proc.params)
        src = Snippet(
            f"{inner.name}({args})\n", lambda off, p=proc.origin.pos: p, f"procedure {target!r}"
        )
        call = parse_into(src, b.sink)
        assert isinstance(call, list) and isinstance(call[0], ExprStmt)
        assert isinstance(call[0].expr, Call) and all(
            isinstance(a, Name) for a in call[0].expr.args
        )
        body = []
        for h in hooks:
            if h.when == "before":
                body += copy.deepcopy(h.body)
        body += call
        for h in hooks:
            if h.when == "after":
                body += copy.deepcopy(h.body)
        game.functions[target] = ir.Routine(
            target, proc.kind, proc.params, proc.returns, body, proc.origin
        )
