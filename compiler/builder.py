"""Build the model of a game (`ir.Game`) from its validated rules files.

A game is a folder ``rules/<game>/`` with ``game.yaml`` (state, enums, readings a designer can
switch), ``rules.yaml`` (constants, functions, procedures), ``cards.yaml``, ``flow.yaml`` and
``scenarios/*.yaml``.  Every effect string is parsed here, with a position mapper back into
its YAML file.  Names and types are left to the checker.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import ir
from .board import build_board
from .diagnostics import DiagnosticSink, Position, did_you_mean
from .effects import Snippet, parse_into
from .loader import Document, YPath, load_yaml
from .schema import SchemaStore

GAME_FILES = {
    "game.yaml": "game",
    "rules.yaml": "rules",
    "cards.yaml": "cards",
    "flow.yaml": "flow",
    "board.yaml": "board",
}

# Keys of a card that are not attributes.
CARD_KEYS = {"name", "rules", "doc", "text", "playable", "unplayable", "effect"}

# Flow sections and the prefix of their steps' routine names.
FLOW_SECTIONS = {"setup": "setup", "turn": "turn", "end_of_turn": "end"}

SCALAR_TYPES = {
    "int": ir.INT,
    "bool": ir.BOOL,
    "str": ir.STR,
    "player": ir.PLAYER,
    "card": ir.CARD,
    "table": ir.TABLE,
}
PLURAL_SCALARS = {"ints": ir.INT, "players": ir.PLAYER, "cards": ir.CARD}


@dataclass
class Sources:
    """The loaded documents of one game, by file name relative to the game folder."""

    root: Path
    game_dir: Path
    docs: dict[str, Document]
    #: scenarios whose file did not load or validate (their errors are reported): left out,
    #: and so are the scenarios based on them, while the rest of the game is checked
    broken: set[str] = field(default_factory=set)


def load_sources(
    game_dir: Path, root: Path, sink: DiagnosticSink, schemas: SchemaStore
) -> Sources | None:
    """Load and validate every rules file of one game.  None if a file could not be loaded."""
    docs: dict[str, Document] = {}
    broken: set[str] = set()
    ok = True
    files = [game_dir / name for name in GAME_FILES if (game_dir / name).exists()]
    files += sorted((game_dir / "scenarios").glob("*.yaml"))
    for path in files:
        rel = path.relative_to(game_dir).as_posix()
        display = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        doc = load_yaml(path, display, sink)
        schema = GAME_FILES.get(rel, "scenario")
        valid = doc is not None and schemas.validate(doc, schema, sink)
        if not valid and doc is not None:
            # its errors are reported; without the keys they name the file may still be
            # valid, and then the rest of it is checked in the same run
            valid = prune_invalid(doc, schema, schemas)
        if not valid and rel not in GAME_FILES:
            broken.add(path.stem)  # one broken scenario hides no error of the others
            continue
        if doc is None:
            ok = False
            continue
        if not valid:
            ok = False
        docs[rel] = doc
    if "game.yaml" not in docs and ok:
        sink.error(
            "missing-file",
            f"game folder {game_dir.name!r} has no game.yaml",
            Position(game_dir.relative_to(root).as_posix(), 1, 1),
            "every game folder starts with a game.yaml naming the game",
        )
        return None
    return Sources(root, game_dir, docs, broken) if ok else None


def prune_invalid(doc: Document, schema: str, schemas: SchemaStore) -> bool:
    """Leaves out of ``doc`` the mapping keys its schema errors name (an unknown key, a value
    of the wrong type under an optional key), once its errors are reported; True when what
    is left is valid, so that the later stages report the file's other errors too (never the
    same twice: the keys left out are not looked at). False (``doc`` unchanged) when leaving
    them out is not enough, e.g. a required key is wrong."""
    validator = schemas.validator(schema)
    data = copy.deepcopy(doc.data)
    for _round in range(3):
        errors = list(validator.iter_errors(data))
        if not errors:
            doc.data = data
            return True
        for error in errors:
            path = list(error.absolute_path)
            if error.validator in ("additionalProperties", "unevaluatedProperties"):
                parent = _at(data, path)
                known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
                extra = [k for k in parent if k not in known] if isinstance(parent, dict) else []
                if error.validator == "additionalProperties" and isinstance(error.schema, dict):
                    patterns = list(error.schema.get("patternProperties", {}))
                    extra = [k for k in extra if not any(re.search(p, str(k)) for p in patterns)]
                if not extra:
                    return False
                for k in extra:
                    parent.pop(k, None)
            elif path and isinstance(path[-1], str) and error.validator != "required":
                parent = _at(data, path[:-1])
                if not isinstance(parent, dict):
                    return False
                parent.pop(path[-1], None)
            else:
                return False
    return False


def _at(data: Any, path: list[Any]) -> Any:
    for step in path:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return None
    return data


class Builder:
    """Fills an `ir.Game` from validated documents; reports problems to the sink."""

    def __init__(self, src: Sources, sink: DiagnosticSink):
        self.src = src
        self.sink = sink

    # -- helpers

    def doc(self, rel: str) -> Document | None:
        return self.src.docs.get(rel)

    def origin(self, doc: Document, ypath: YPath, node: Any = None) -> ir.Origin:
        rules: tuple[str, ...] = ()
        text = ""
        if isinstance(node, dict):
            rules = tuple(node.get("rules") or ())
            text = str(node.get("doc") or "")
        return ir.Origin(doc.key_pos(ypath) if ypath else doc.pos(ypath), rules, text)

    def snippet(self, doc: Document, ypath: YPath, what: str) -> Snippet:
        text = doc.get(ypath)
        return Snippet(str(text), lambda off, d=doc, p=ypath: d.scalar_pos(p, off), what)

    def program(self, doc: Document, ypath: YPath, what: str) -> list | None:
        return parse_into(self.snippet(doc, ypath, what), self.sink)  # type: ignore[return-value]

    def expression(self, doc: Document, ypath: YPath, what: str) -> Any:
        return parse_into(self.snippet(doc, ypath, what), self.sink, expression=True)

    def type_of(self, game: ir.Game, spec: str, doc: Document, ypath: YPath) -> ir.Type:
        spec = str(spec)
        if spec in SCALAR_TYPES:
            return SCALAR_TYPES[spec]
        if spec in PLURAL_SCALARS:
            return ir.list_of(PLURAL_SCALARS[spec])
        if spec in game.enums:
            return ir.enum(spec)
        if spec in game.entities:
            return ir.entity(spec)
        plurals = game.plural_types()
        if spec in plurals:
            return ir.list_of(ir.entity(plurals[spec]))
        known = sorted([*SCALAR_TYPES, *PLURAL_SCALARS, *game.enums, *game.entities, *plurals])
        self.sink.error(
            "unknown-name",
            f"unknown type {spec!r}",
            doc.pos(ypath),
            "known types: " + ", ".join(known),
        )
        return ir.ANY

    # -- the game

    def build(self) -> ir.Game | None:
        gdoc = self.doc("game.yaml")
        assert gdoc is not None
        g = gdoc.data
        game = ir.Game(
            id=g["game"],
            title=g.get("title", g["game"]),
            source=g.get("source", ""),
            words={str(k): str(v) for k, v in (g.get("words") or {}).items()},
            origin=self.origin(gdoc, ()),
            sources=[d.path for r, d in self.src.docs.items() if not r.startswith("scenarios/")],
            documents=dict(self.src.docs),
        )
        if game.id != self.src.game_dir.name:
            self.sink.error(
                "name-mismatch",
                f"game id {game.id!r} does not match its folder {self.src.game_dir.name!r}",
                gdoc.pos(("game",)),
                "the folder name under rules/ is the game id",
            )
        self._enums(game, gdoc)
        self._state(game, gdoc)
        bdoc = self.doc("board.yaml")
        if bdoc is not None:
            game.board = build_board(bdoc, game, self.sink)
        self._constants(game, gdoc)
        rdoc = self.doc("rules.yaml")
        if rdoc is not None:
            self._routines(game, rdoc, ("functions",), "function")
            self._routines(game, rdoc, ("procedures",), "procedure")
        cdoc = self.doc("cards.yaml")
        if cdoc is not None:
            self._cards(game, cdoc)
        fdoc = self.doc("flow.yaml")
        if fdoc is not None:
            self._routines(game, fdoc, ("procedures",), "procedure")
            self._flow(game, fdoc)
        return game

    def _enums(self, game: ir.Game, doc: Document) -> None:
        for name, spec in (doc.data.get("enums") or {}).items():
            values = spec["values"] if isinstance(spec, dict) else spec
            node = spec if isinstance(spec, dict) else None
            game.enums[name] = ir.EnumDecl(
                name, tuple(str(v) for v in values), self.origin(doc, ("enums", name), node)
            )

    def _field(
        self, game: ir.Game, doc: Document, ypath: YPath, name: str, spec: dict, const: bool
    ) -> ir.Field:
        return ir.Field(
            name=name,
            type=self.type_of(game, spec["type"], doc, (*ypath, "type")),
            origin=self.origin(doc, ypath, spec),
            optional=bool(spec.get("optional", False)),
            visible=spec.get("visible", "all"),
            min=spec.get("min"),
            max=spec.get("max"),
            const=const,
            ordered=bool(spec.get("ordered", False)),
            fact=bool(spec.get("fact", False)),
            revealable=bool(spec.get("revealable", False)),
            internal=bool(spec.get("internal", False)),
            title=str(spec.get("title") or ""),
            scale=int(spec.get("scale", 1)),
        )

    def _state(self, game: ir.Game, doc: Document) -> None:
        state = doc.data.get("state") or {}
        # Entity types first, so that fields may have entity types.
        for name, spec in (state.get("entities") or {}).items():
            label = None
            if "label" in spec:
                label_src = Snippet(
                    '"' + str(spec["label"]).replace('"', '\\"') + '"',
                    lambda off, d=doc, p=("state", "entities", name, "label"): d.scalar_pos(
                        p, max(off - 1, 0)
                    ),
                    f"label of {name}",
                )
                label = parse_into(label_src, self.sink, expression=True)
            game.entities[name] = ir.EntityType(
                name=name,
                plural=spec.get("plural", name + "s"),
                origin=self.origin(doc, ("state", "entities", name), spec),
                label=label,  # type: ignore[arg-type]
                deck=bool(spec.get("deck", False)),
                internal=bool(spec.get("internal", False)),
            )
        for name, spec in (state.get("entities") or {}).items():
            et = game.entities[name]
            base = ("state", "entities", name)
            for fname, fspec in (spec.get("attributes") or {}).items():
                et.attributes[fname] = self._field(
                    game, doc, (*base, "attributes", fname), fname, fspec, True
                )
            for fname, fspec in (spec.get("fields") or {}).items():
                et.fields[fname] = self._field(
                    game, doc, (*base, "fields", fname), fname, fspec, False
                )
        for name, spec in (state.get("entities") or {}).items():
            if "fog" in spec:
                self._fog(game.entities[name], doc, ("state", "entities", name, "fog"), spec["fog"])
        for fname, fspec in (state.get("globals") or {}).items():
            game.globals[fname] = self._field(
                game, doc, ("state", "globals", fname), fname, fspec, False
            )
        for fname, fspec in (state.get("player") or {}).items():
            game.player_fields[fname] = self._field(
                game, doc, ("state", "player", fname), fname, fspec, False
            )
        # Who has seen each revealable value: a companion field `<name>_seen`.
        holders = [game.globals, game.player_fields, *(et.fields for et in game.entities.values())]
        for fields in holders:
            for f in list(fields.values()):
                if f.revealable:
                    seen = f"{f.name}_seen"
                    fields[seen] = ir.Field(
                        seen,
                        ir.list_of(ir.PLAYER),
                        ir.Origin(f.origin.pos, f.origin.rules, f"who has seen {f.name}"),
                        internal=True,
                    )
        for fname, fspec in (state.get("cards") or {}).items():
            game.card_attributes[fname] = self._field(
                game, doc, ("state", "cards", fname), fname, fspec, True
            )

    def _fog(self, et: ir.EntityType, doc: Document, ypath: YPath, spec: dict) -> None:
        """Fog of war over an entity type: its fields (but its position and those declared
        public) are hidden from all but the record's owner, the position is hidden record by
        record (a view shows only the places that hold the owner's records), and the record
        gets the field `seen`: who has been shown it."""
        fog = ir.Fog(
            at=str(spec["at"]),
            label=str(spec.get("label") or ir.Fog.label),
            public=tuple(str(x) for x in spec.get("public") or ()),
        )
        at = et.fields.get(fog.at)
        if at is None or at.type.kind != "entity":
            self.sink.error(
                "fog",
                f"fog of war needs a field {fog.at!r} of {et.name} that holds a record (a place)",
                doc.pos((*ypath, "at")),
                f"declare it under fields: {fog.at}: {{type: hex, optional: true}}",
            )
            return
        if et.member("owner") is None or et.member("owner").type != ir.PLAYER:  # type: ignore[union-attr]
            self.sink.error(
                "fog",
                f"fog of war hides {et.plural} from all but their owner: {et.name} needs "
                "an attribute 'owner' of type player",
                doc.pos(ypath),
            )
            return
        for k, name in enumerate(fog.public):
            if name not in et.fields:
                self.sink.error(
                    "fog",
                    f"{et.name} has no field {name!r} to show in the fog",
                    doc.pos((*ypath, "public", k)),
                )
        if ir.FOG_SEEN in et.fields:
            self.sink.error(
                "fog",
                f"a fogged {et.name} keeps who has seen it in the field {ir.FOG_SEEN!r}: "
                "rename your field",
                doc.pos((*ypath[:-1], "fields", ir.FOG_SEEN)),
            )
            return
        hidden = [fog.at]
        for f in et.fields.values():
            if f.name not in fog.public and f.name != "owner" and f.visible == "all":
                f.visible = "owner"
                if f.name != fog.at:
                    hidden.append(f.name)
        fog.fields = tuple(hidden)
        fog.place = at.type.name or ""
        et.fields[ir.FOG_SEEN] = ir.Field(
            ir.FOG_SEEN,
            ir.list_of(ir.PLAYER),
            ir.Origin(et.origin.pos, et.origin.rules, f"who has seen a {et.name} in the fog"),
            internal=True,
        )
        et.fog = fog

    def _constants(self, game: ir.Game, gdoc: Document) -> None:
        for name, spec in (gdoc.data.get("choices") or {}).items():
            game.constants[name] = self._constant(gdoc, ("choices", name), name, spec, True)
        rdoc = self.doc("rules.yaml")
        if rdoc is not None:
            for name, spec in (rdoc.data.get("constants") or {}).items():
                if name in game.constants:
                    self.sink.error(
                        "duplicate-name",
                        f"constant {name!r} is declared twice",
                        rdoc.key_pos(("constants", name)),
                    )
                game.constants[name] = self._constant(rdoc, ("constants", name), name, spec, False)

    def _constant(
        self, doc: Document, ypath: YPath, name: str, spec: dict, is_choice: bool
    ) -> ir.Constant:
        value = spec["value"]
        t = ir.BOOL if isinstance(value, bool) else ir.INT if isinstance(value, int) else ir.STR
        return ir.Constant(
            name,
            t,
            value,
            self.origin(doc, ypath, spec),
            is_choice,
            title=str(spec.get("title") or ""),
            board=bool(spec.get("board", False)),
        )

    def _params(self, game: ir.Game, doc: Document, ypath: YPath, spec: dict) -> list:
        return [
            (p, self.type_of(game, t, doc, (*ypath, "params", p)))
            for p, t in (spec.get("params") or {}).items()
        ]

    def _routines(
        self, game: ir.Game, doc: Document, ypath: YPath, kind: str, mode: str = "add"
    ) -> None:
        """Declare (``add``) or redefine (``replace``) the routines in a mapping."""
        for name, spec in (doc.get(ypath) or {}).items():
            path = (*ypath, name)
            if mode == "add" and game.routine(name) is not None:
                self.sink.error(
                    "duplicate-name",
                    f"{kind} {name!r} is already declared",
                    doc.key_pos(path),
                    "to change it in a scenario, put it under replace:",
                )
                continue
            if mode == "replace":
                old = game.functions.get(name)
                if old is None or old.kind != kind:
                    self.missing(
                        kind,
                        name,
                        [n for n, r in game.functions.items() if r.kind == kind],
                        doc,
                        path,
                    )
                    continue
            game.functions[name] = self.routine(game, doc, path, name, kind, spec)

    def routine(
        self, game: ir.Game, doc: Document, path: YPath, name: str, kind: str, spec: dict
    ) -> ir.Routine:
        body = self.program(doc, (*path, "body"), f"{kind} {name!r}")
        returns = ir.VOID
        if "returns" in spec:
            returns = self.type_of(game, spec["returns"], doc, (*path, "returns"))
        return ir.Routine(
            name=name,
            kind=kind,
            params=self._params(game, doc, path, spec),
            returns=returns,
            body=body or [],
            origin=self.origin(doc, path, spec),
        )

    def missing(
        self, what: str, name: str, known: Any, doc: Document, path: YPath, value: bool = False
    ) -> None:
        """Report an overlay that targets something that does not exist (at its key, or at
        the value that names it)."""

        names = sorted(known)
        self.sink.error(
            "undefined",
            f"there is no {what} {name!r} to change",
            doc.pos(path) if value else doc.key_pos(path),
            did_you_mean(name, names) or (f"{what}s: " + ", ".join(names) if names else None),
        )

    def _cards(
        self, game: ir.Game, doc: Document, ypath: YPath = ("cards",), mode: str = "add"
    ) -> None:
        for cid, spec in (doc.get(ypath) or {}).items():
            path = (*ypath, cid)
            if mode == "add" and cid in game.cards:
                self.sink.error(
                    "duplicate-name",
                    f"card {cid!r} already exists",
                    doc.key_pos(path),
                    "to change it in a scenario, put it under replace:",
                )
                continue
            if mode == "replace" and cid not in game.cards:
                self.missing("card", cid, game.cards, doc, path)
                continue
            game.cards[cid] = self.card(game, doc, path, cid, spec)
        for index, card in enumerate(game.cards.values()):
            card.index = index

    def card(self, game: ir.Game, doc: Document, path: YPath, cid: str, spec: dict) -> ir.Card:
        body = self.program(doc, (*path, "effect"), f"effect of card {cid!r}")
        origin = self.origin(doc, path, spec)
        attrs = {k: spec[k] for k in game.card_attributes if k in spec}
        for k, f in game.card_attributes.items():
            if k not in spec and not f.optional:  # an optional one is none where omitted
                self.sink.error(
                    "schema",
                    f"card {cid!r} has no {k!r}",
                    doc.key_pos(path),
                    f"every card gives a value for {k!r} (declared in game.yaml state.cards)",
                )
        valid = sorted(CARD_KEYS | set(game.card_attributes))
        for k in spec:
            if k not in game.card_attributes and k not in CARD_KEYS:
                close = did_you_mean(str(k), valid, cutoff=0.6)
                attrs_hint = ", ".join(game.card_attributes) or "none declared"
                self.sink.error(
                    "unknown-key",
                    f"card {cid!r}: unknown key {k!r}" + (f" ({close})" if close else ""),
                    doc.key_pos((*path, k)),
                    f"valid keys of a card: {', '.join(valid)} (its attributes, from game.yaml "
                    f"state.cards: {attrs_hint})",
                )
        playable = None
        if "playable" in spec:
            playable = self.expression(doc, (*path, "playable"), f"playable of card {cid!r}")
        effect = ir.Routine(
            name=f"card__{cid}",
            kind="card",
            params=[("me", ir.PLAYER)],
            returns=ir.VOID,
            body=body or [],
            origin=origin,
        )
        return ir.Card(
            cid,
            str(spec.get("name", cid)),
            attrs,
            origin,
            effect,
            playable,
            text=" ".join(str(spec.get("text") or "").split()),
            unplayable=" ".join(str(spec.get("unplayable") or "").split()),
        )

    def _flow(self, game: ir.Game, doc: Document) -> None:
        for section in FLOW_SECTIONS:
            for name, spec in (doc.data.get(section) or {}).items():
                game.flow(section).append(self.step(doc, (section, name), section, name, spec))
        game.flow_pos = doc.key_pos(("turn",)) if doc.has(("turn",)) else doc.pos(())

    def step(self, doc: Document, path: YPath, section: str, name: str, spec: dict) -> ir.Routine:
        body = self.program(doc, (*path, "do"), f"{section} step {name!r}")
        return ir.Routine(
            name=f"{FLOW_SECTIONS[section]}__{name}",
            kind="phase",
            params=[],
            returns=ir.VOID,
            body=body or [],
            origin=self.origin(doc, path, spec),
        )

    def main(self, game: ir.Game) -> None:
        """The flow of play as one routine: set-up steps, then turns until a game end."""
        lines = [f"{r.name}()" for r in game.setup]
        lines.append("while true:")
        lines.append("    next_turn()")
        lines += [f"    {r.name}()" for r in game.turn + game.end_of_turn]
        text = "\n".join(lines) + "\n"
        pos = game.flow_pos or game.origin.pos
        main_src = Snippet(text, lambda off, p=pos: p, "the flow of play")
        game.main = ir.Routine(
            name="main",
            kind="main",
            params=[],
            returns=ir.VOID,
            body=parse_into(main_src, self.sink) or [],  # type: ignore[arg-type]
            origin=ir.Origin(pos, (), "The flow of play: set-up, then turns."),
        )
