"""The values a scenario gives the game: constants, globals, seats, records and the paths
it says it assumed, each checked against the game's names and types (after the checker has
checked the effects)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from . import ir
from .diagnostics import DiagnosticSink, Position, did_you_mean


class ScenarioChecker:
    """Checks the values a scenario gives to constants, globals, seats and entities."""

    def __init__(self, game: ir.Game, sc: ir.Scenario, sink: DiagnosticSink):
        self.game = game
        self.sc = sc
        self.sink = sink
        #: each record type's ids, as a set (a board's hexes name thousands of others)
        self.ids = {tname: set(ids) for tname, ids in sc.records.items()}

    def check_assumed(self) -> None:
        """Every path the scenario says it assumed (`assumed:`) names something of the game."""
        doc = self.sc.doc
        data = getattr(doc, "data", None)
        if not isinstance(data, dict) or not isinstance(data.get("assumed"), dict):
            return
        g = self.game
        for path in data["assumed"]:
            parts = str(path).split(".")
            head, name = parts[0], parts[1] if len(parts) > 1 else ""
            if head == "entities":
                et = g.entities.get(name)
                known = et is not None and (len(parts) == 2 or et.member(parts[2]) is not None)
                names = sorted(g.entities) if et is None else sorted([*et.attributes, *et.fields])
            else:
                where = {"globals": g.globals, "players": g.player_fields, "constants": g.constants}
                names = sorted(where.get(head, {}))
                known = name in where.get(head, {})
            if not known:
                self.sink.error(
                    "unknown-name",
                    f"assumed: {path!r} names nothing of the game",
                    doc.key_pos(("assumed", path)),
                    did_you_mean(parts[-1], names) or "known: " + ", ".join(names[:12]),
                )

    def check(self) -> None:
        g, sc = self.game, self.sc
        self.check_assumed()
        seats = [s for s, _ in sc.seats]
        for key, v in sc.values.items():
            kind, _, rest = key.partition(".")
            if kind == "c":
                c = g.constants.get(rest)
                if c is not None:
                    self.value(v, c.type, f"constant {rest!r}")
            elif kind == "g":
                f = g.globals.get(rest)
                if f is None:
                    self.unknown("global field", rest, g.globals, v)
                else:
                    self.value(v, f.type, f"global {rest!r}", f.optional)
            elif kind == "p":
                seat, _, name = rest.partition(".")
                f = g.player_fields.get(name)
                if f is None:
                    self.unknown("player field", name, g.player_fields, v)
                else:
                    who = "every seat" if v.shared else seat
                    self.value(v, f.type, f"{who}'s {name!r}", f.optional)
            elif kind == "e":
                tname, rid, name = rest.split(".", 2)
                et = g.entities[tname]
                f = et.member(name)
                if name == "name":
                    continue
                if f is None:
                    self.unknown(f"{tname} field", name, {**et.attributes, **et.fields}, v)
                else:
                    self.value(v, f.type, f"{rid}'s {name!r}", f.optional)
        for seat in seats:
            given = sc.player_values(seat)
            for name, f in g.player_fields.items():
                if name not in given and f.type.kind == "entity" and not f.optional:
                    self.sink.error(
                        "missing-value",
                        f"seat {seat!r} has no value for {name!r}",
                        sc.origin.pos,
                        f"give it under players: {seat}: {name}: ...",
                    )
        by_owner = sc.grouped()
        for tname, et in g.entities.items():
            if tname not in sc.records:
                self.sink.error(
                    "missing-value",
                    f"scenario {sc.id!r} lists no {et.plural}",
                    sc.origin.pos,
                    f"list them under entities: {tname}:",
                )
                continue
            for rid in sc.records[tname]:
                given = by_owner.get(f"e.{tname}.{rid}.", {})
                for name, f in et.attributes.items():
                    if name not in given and not f.optional:
                        self.sink.error(
                            "missing-value",
                            f"{tname} {rid!r} has no value for attribute {name!r}",
                            given["name"].pos if "name" in given else sc.origin.pos,
                        )

    def unknown(self, what: str, name: str, known: Any, v: ir.Value) -> None:
        self.sink.error(
            "unknown-name",
            f"unknown {what} {name!r}",
            v.pos,
            did_you_mean(name, known) or "known: " + ", ".join(sorted(known)),
        )

    def value(self, v: ir.Value, t: ir.Type, what: str, optional: bool = False) -> None:
        if t.kind == "list" and isinstance(v.value, list):
            assert t.elem is not None
            for i, item in enumerate(v.value):
                self.check_value(item, t.elem, v.item_pos(i), what, False)
            return
        self.check_value(v.value, t, v.pos, what, optional)

    def check_value(self, v: Any, t: ir.Type, pos: Position, what: str, optional: bool) -> None:
        bad = None
        if v is None:
            if not optional and t.kind not in ("player", "entity", "card"):
                bad = "a value"
        elif t.kind == "int":
            if not isinstance(v, int) or isinstance(v, bool):
                bad = "a whole number"
        elif t.kind == "bool":
            if not isinstance(v, bool):
                bad = "true or false"
        elif t.kind == "str":
            if not isinstance(v, str):
                bad = "a text"
        elif t.kind == "player":
            seats = [s for s, _ in self.sc.seats]
            if v not in seats:
                self.sink.error(
                    "unknown-name", f"{what}: unknown seat {v!r}", pos, "seats: " + ", ".join(seats)
                )
        elif t.kind == "card":
            if v not in self.game.cards:
                self.sink.error(
                    "unknown-name",
                    f"{what}: undefined card {v!r}",
                    pos,
                    did_you_mean(str(v), self.game.cards),
                )
        elif t.kind == "enum":
            values = self.game.enums[t.name].values
            if str(v) not in values:
                self.sink.error(
                    "unknown-name",
                    f"{what}: {v!r} is not a value of {t.name}",
                    pos,
                    "values: " + ", ".join(values),
                )
        elif t.kind == "entity":
            if not isinstance(v, Hashable) or v not in self.ids.get(t.name, ()):
                ids = self.sc.records.get(t.name, [])
                plural = self.game.entities[t.name].plural
                self.sink.error(
                    "unknown-name",
                    f"{what}: unknown {t.name} {v!r}",
                    pos,
                    did_you_mean(str(v), ids) or f"{plural}: " + ", ".join(ids),
                )
        elif t.kind == "table":
            if v not in self.game.tables and not self.game.tables_incomplete:
                self.sink.error(
                    "unknown-name",
                    f"{what}: unknown table {v!r}",
                    pos,
                    did_you_mean(str(v), self.game.tables) or "tables are in rules/<game>/tables/",
                )
        elif t.kind == "list":
            if not isinstance(v, list):
                bad = "a list"
            else:
                assert t.elem is not None
                for item in v:
                    self.check_value(item, t.elem, pos, what, False)
        if bad:
            self.sink.error("type", f"{what} must be {bad}, not {v!r}", pos)
