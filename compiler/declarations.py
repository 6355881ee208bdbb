"""Checks of a game's declarations that need no scope: special fields (scales, revealable
values, reported facts), cards' attribute values, and what a table's result program may do.
The checker (:mod:`.checker`) runs them with the routines' checks."""

from __future__ import annotations

from . import ir
from .builtins import DECISIONS
from .diagnostics import DiagnosticSink
from .effects import Call, walk
from .typerules import article


def check_special_fields(game: ir.Game, sink: DiagnosticSink) -> None:
    """Facts a report can set have a finite set of values; revealable values are hidden."""
    g = game
    for name, f in g.globals.items():
        if name in g.enums or name in g.plural_types():
            sink.error(
                "duplicate-name",
                f"global {name!r} has the name of "
                + ("enum" if name in g.enums else "a list of records")
                + f" {name!r}, which the name means in effects",
                f.origin.pos,
                f"rename one of them (e.g. the enum {name}_name)",
            )
    fields = [*g.globals.values(), *g.player_fields.values()]
    for et in g.entities.values():
        fields += et.fields.values()
    for f in fields:
        if f.scale != 1 and f.type != ir.INT:
            sink.error(
                "type",
                f"field {f.name!r} has a scale but is {article(f.type)}",
                f.origin.pos,
                "only an int counts fractions (scale: 2 keeps halves)",
            )
        if f.revealable and f.visible == "all":
            sink.error(
                "reveal",
                f"field {f.name!r} is revealable but everyone sees it",
                f.origin.pos,
                "hide it first: visible: owner (or none)",
            )
        if not f.fact:
            continue
        k = f.type.kind
        if k == "int" and not (isinstance(f.min, int) and isinstance(f.max, int)):
            sink.error(
                "report",
                f"fact {f.name!r} is an int without whole-number bounds",
                f.origin.pos,
                "give it min and max (a report offers every value between)",
            )
        elif k not in ("int", "bool", "enum", "player", "entity"):
            sink.error(
                "report",
                f"fact {f.name!r} is {article(f.type)}; facts are int, bool, an enum, "
                "a player or a record",
                f.origin.pos,
            )


#: routines run where no decision can be waited for: (name prefix, what they are, where to ask)
_NO_WAITING = (
    (
        "tbl__",
        "a table's result program",
        "ask in the procedure that calls apply(), before or after it",
    ),
    (
        "deal__",
        "what giving a good does (a deal is carried out the moment both sides agree)",
        "ask in a flow step after the negotiation window, or make the choice part of the good "
        "(item: and from:)",
    ),
)


def check_programs_that_do_not_wait(game: ir.Game, sink: DiagnosticSink) -> None:
    """Table result programs and negotiation goods change the game but may not ask for
    decisions: they run inside another decision's handling."""
    for name, r in game.functions.items():
        what = next(((w, hint) for prefix, w, hint in _NO_WAITING if name.startswith(prefix)), None)
        if what is None or not r.suspends:
            continue
        for node in walk(r.body):
            if isinstance(node, Call) and (
                node.func in DECISIONS or (isinstance(node.ref, ir.Routine) and node.ref.suspends)
            ):
                sink.error(
                    "decision", f"{what[0]} may not ask a player for a decision", node.pos, what[1]
                )
                break


def check_card_attributes(game: ir.Game, sink: DiagnosticSink) -> None:
    """A card's enum attributes hold values of their enum."""
    for card in game.cards.values():
        for name, value in card.attributes.items():
            f = game.card_attributes[name]
            if f.type.kind == "enum":
                values = game.enums[f.type.name].values
                if str(value) not in values:
                    sink.error(
                        "type",
                        f"{value!r} is not a value of {f.type.name}",
                        card.origin.pos,
                        "values: " + ", ".join(values),
                    )
