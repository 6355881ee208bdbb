"""The builtins of the effect language, one row each.

A row holds everything the compiler knows of one builtin: how it is called and what it gives
(the language reference's table is made from the rows, see :func:`markdown_table`), where it
may stand, whether it waits for a decision or changes the game, its type rule (read by the
checker) and how it is compiled (read by the expression generator, and for statements and
decisions by the routine generator). Adding a builtin touches this package only.

The rules take the checker or the generator as their first argument; this package imports
neither (they import it; the annotations name them only for type checkers).

The rows are in this module; their type rules in ``rules.py``, their emitters in ``emit.py``.
Run ``python -m rulecraft.compiler.builtins --write docs/language.md`` to rewrite the table of
builtins in the language reference (``--check`` exits 1 when it differs from the rows).
"""

from __future__ import annotations

from .. import ir
from ..effects import Int
from .emit import (
    answered_report,
    emit_count,
    emit_crosses,
    emit_distance,
    emit_first,
    emit_graph,
    emit_lookup,
    emit_minmax,
    emit_nth,
    emit_playable,
    emit_plural,
    emit_promised,
    emit_resolve,
    emit_table_program,
    emit_table_terms,
    options_allocate,
    options_choose_number,
    options_choose_some,
    options_propose,
    resume_play,
    run_apply,
    run_end_game,
    run_play,
)
from .row import Builtin, Decision
from .rules import (
    check_allocate,
    check_apply,
    check_choose,
    check_choose_number,
    check_choose_optional,
    check_choose_some,
    check_choose_yes_no,
    check_crosses,
    check_distance,
    check_end_game,
    check_first,
    check_lookup,
    check_minmax,
    check_nth,
    check_path_cost,
    check_promised,
    check_propose,
    check_reachable,
    check_report,
    check_resolve,
    check_shuffled,
    check_table_sum,
    takes,
)

#: the rows, in the order of the language reference
_ROWS = [
    Builtin(
        "count",
        ("list",),
        "the number of elements of a list",
        takes(ir.list_of(ir.ANY), gives=ir.INT),
        emit_count,
        quiet=True,
    ),
    Builtin(
        "sum",
        ("list",),
        "the sum of a list of numbers",
        takes(ir.list_of(ir.INT), gives=ir.INT),
        lambda eg, c: f"sum({eg.expr(eg.fuse_sum(c.args[0]))})",
        quiet=True,
    ),
    Builtin(
        "min",
        ("...",),
        "the smallest of its arguments, or of a list: `min(a, b)`, `min(list)`",
        check_minmax,
        emit_minmax,
        quiet=lambda c: len(c.args) != 1,  # a list may be empty
    ),
    Builtin(
        "max",
        ("...",),
        "the largest of its arguments, or of a list: `max(a, b)`, `max(list)`",
        check_minmax,
        emit_minmax,
        quiet=lambda c: len(c.args) != 1,
    ),
    Builtin(
        "abs",
        ("x",),
        "the absolute value of a number",
        takes(ir.INT, gives=ir.INT),
        lambda eg, c: f"abs({eg.expr(c.args[0])})",
        quiet=True,
    ),
    Builtin(
        "div_down",
        ("a", "b"),
        "`a` divided by `b`, rounded down (halve down: `div_down(x, 2)`)",
        takes(ir.INT, ir.INT, gives=ir.INT),
        lambda eg, c: f"({eg.expr(c.args[0])} // {eg.expr(c.args[1])})",
        # quiet when it cannot divide by 0
        quiet=lambda c: isinstance(c.args[1], Int) and c.args[1].value != 0,
    ),
    Builtin(
        "div_up",
        ("a", "b"),
        "`a` divided by `b`, rounded up (halve up: `div_up(x, 2)`)",
        takes(ir.INT, ir.INT, gives=ir.INT),
        lambda eg, c: f"(-(-{eg.expr(c.args[0])} // {eg.expr(c.args[1])}))",
        quiet=lambda c: isinstance(c.args[1], Int) and c.args[1].value != 0,
    ),
    Builtin(
        "first",
        ("list",),
        "the first element of a non-empty list (of an empty one, a rules error)",
        check_first,
        emit_first,
    ),
    Builtin(
        "nth",
        ("list", "i"),
        "element `i` of a list, written `xs[i]`: `xs[0]` the first, `xs[-1]` the last (an index "
        "out of range is a rules error). A set lists its elements in the order `cards.yaml` or "
        "the scenario declares them",
        check_nth,
        emit_nth,
    ),
    Builtin(
        "reversed",
        ("list",),
        "the list in the opposite order: reactions in reverse order of play "
        "`for p in reversed(order): ...`",
        check_shuffled,
        lambda eg, c: f"_reverse({eg.iterable(c.args[0])})",
        quiet=True,
    ),
    Builtin(
        "plural",
        ("n", '"singular"', '"plural"'),
        'the singular for 1 and -1, else the plural (`let w = plural(n, "DP", "DPs")` then '
        '`log "{n} {w}"`)',
        takes(ir.INT, ir.STR, ir.STR, gives=ir.STR),
        emit_plural,
        quiet=True,
    ),
    Builtin(
        "roll",
        ("sides",),
        "a roll of a die with that many sides, from the game's seeded generator: `roll(6)` "
        "(undo stops at a roll)",
        takes(ir.INT, gives=ir.INT),
        lambda eg, c: f"_roll(S, {eg.expr(c.args[0])})",
    ),
    Builtin(
        "shuffled",
        ("list",),
        "the list in a random order from the same generator: `deck = shuffled(cards_of_deck)`, "
        "a random order of play `order = shuffled(players)`",
        check_shuffled,
        lambda eg, c: f"_shuffled(S, {eg.iterable(c.args[0])})",
    ),
    Builtin(
        "reachable",
        ("start", "through"),
        "the records reachable from `start` along its `adjacent` attribute, stepping only on "
        "records of `through` (start included): a chain of friendly areas. On a board (see "
        "[Boards](#boards-boardyaml)): `within=` the most points a way may spend (each step "
        "1, or what `costs=` a cost scheme says), `stop=` records that end a way when entered "
        "(and are never stepped to from another of them): zones of control",
        check_reachable,
        emit_graph,
        kwargs={"within": "n", "costs": '"march"', "stop": "zoc"},
        quiet=True,
    ),
    Builtin(
        "path_cost",
        ("start", "goal", "free", "passable"),
        "the fewest records outside `free` passed through (start and goal not counted) on a "
        "path from `start` to `goal` over `passable` records; -1 if there is none: a retreat "
        "that loses a unit per unfriendly area. With `costs=` a board's cost scheme: the "
        "fewest points to reach `goal` (every hex entered costs, the goal too; `free` ones "
        "nothing)",
        check_path_cost,
        emit_graph,
        kwargs={"costs": '"march"'},
        quiet=True,
    ),
    Builtin(
        "distance",
        ("a", "b"),
        "the number of hexes from hex `a` to hex `b` of the board, counting `b`, not `a` "
        "(neighbours: 1); a box off the map is a rules error",
        check_distance,
        emit_distance,
    ),
    Builtin(
        "crosses",
        ("a", "b", '"river"'),
        "whether the hexside between hexes `a` and `b` of the board has that feature (false "
        "if they do not touch)",
        check_crosses,
        emit_crosses,
    ),
    Builtin(
        "lookup",
        ("table", "keys..."),
        "the **result record** of a table in `rules/<game>/tables/` for its keys (see "
        "[Tables in effects](#tables-in-effects))",
        check_lookup,
        emit_lookup,
    ),
    Builtin(
        "resolve",
        ("table", "attack", "defence"),
        "resolve a combat results table: the odds column of `attack` to `defence` (or the "
        "column of one value), shifted and clamped as the table declares, a roll of its dice; "
        "logged, and gives the **result record** with its `roll` and `column` (see "
        "[Combat results tables](#combat-results-tables-resolve))",
        check_resolve,
        emit_resolve,
        kwargs={"terrain": "1", "modifier": "n"},
        open_kwargs=True,
    ),
    Builtin(
        "modifiers",
        ("table", "args..."),
        "the sum of the table's modifiers whose conditions hold",
        check_table_sum(ir.INT),
        emit_table_program("mods", "0"),
    ),
    Builtin(
        "modifier_terms",
        ("table", "args..."),
        "the table's modifiers that add something now, named for a log line: "
        '`", Afterword -3, Oslo +1"` (each after a comma; empty when none does), the parts of '
        '`modifiers()`: `log "die {d}{modifier_terms(t, c)} = {n}"`. A modifier is named by '
        "its `name:`, else by its text without the *Add 2* or *Subtract 1* it starts with",
        check_table_sum(ir.STR),
        emit_table_terms,
    ),
    Builtin(
        "allows",
        ("table", "args..."),
        "whether every condition of the table that has a `when:` holds",
        check_table_sum(ir.BOOL),
        emit_table_program("allows", "True"),
    ),
    Builtin(
        "apply",
        ("result", "args..."),
        "run the program of the row a table result came from (see "
        "[Tables in effects](#tables-in-effects))",
        check_apply,
        run=run_apply,
        statement=True,
        changes=True,
    ),
    Builtin(
        "playable",
        ("card", "p"),
        "whether `p` may play the card (its `playable` condition)",
        takes(ir.CARD, ir.PLAYER, gives=ir.BOOL),
        emit_playable,
    ),
    Builtin(
        "play",
        ("card", "p"),
        "carry out a card's effect for `p`",
        takes(ir.CARD, ir.PLAYER, gives=ir.VOID),
        run=run_play,
        statement=True,
        waits="card",
        stops=True,
        changes=True,
        resume=resume_play,
    ),
    Builtin(
        "choose",
        ("p", "options", '"prompt"'),
        "`p` picks one of `options` (players, cards, records or enum values)",
        check_choose,
        statement=True,
        waits="decision",
        decision=Decision(2, "_pick(R, {opts})"),
        stops=True,
    ),
    Builtin(
        "choose_optional",
        ("p", "options", '"prompt"', '"decline label"'),
        "`p` picks one of `options`, or declines (gives `none`)",
        check_choose_optional,
        statement=True,
        waits="decision",
        decision=Decision(2, "_pick_optional(R, {opts})", decline=3),
        stops=True,
    ),
    Builtin(
        "choose_yes_no",
        ("p", '"prompt"'),
        "`p` answers yes (`true`) or no (`false`)",
        check_choose_yes_no,
        statement=True,
        waits="decision",
        decision=Decision(1, "(R() < 0.5)", "yes-no", lambda g, c: ("(True, False)", "yes-no")),
        stops=True,
    ),
    Builtin(
        "choose_number",
        ("p", "lowest", "highest", '"prompt"'),
        "`p` picks a whole number from `lowest` to `highest` (options `number:N`)",
        check_choose_number,
        statement=True,
        waits="decision",
        decision=Decision(3, "_pick(R, {opts})", "choose-number", options_choose_number),
        stops=True,
    ),
    Builtin(
        "allocate",
        ("p", "points", "targets", '"prompt"'),
        "`p` splits up to `points` points over `targets` in one secret decision; gives the "
        "list of targets, one element per point placed (see below)",
        check_allocate,
        kwargs={"max_each": "n"},
        statement=True,
        waits="decision",
        decision=Decision(3, "_pick(R, {opts})", "allocate", options_allocate, lazy=True),
        stops=True,
    ),
    Builtin(
        "choose_some",
        ("p", "options", '"prompt"'),
        "`p` picks several of `options` as one decision: from `min` (default 1) to `max` "
        "(default all) of them, and only picks for which the function `where` holds (given "
        "its arguments and the pick); gives the list picked, in the order of `options` (see "
        "[Several picks](#several-picks-choose_some))",
        check_choose_some,
        kwargs={"min": "n", "max": "n", "where": "f(...)"},
        statement=True,
        waits="decision",
        # the playout gives the pick as a list: a local that held another list takes it (the
        # native build types such a local as a list; the machine form's locals are untyped,
        # and a saved frame loads its values as tuples)
        decision=Decision(2, "list(_pick(R, {opts}))", "choose-some", options_choose_some),
        stops=True,
    ),
    Builtin(
        "report",
        ("p", '"prompt"'),
        "`p` reports one change of an external fact, or that nothing changed: `true` if a "
        "fact changed (see [External facts](#external-facts))",
        check_report,
        statement=True,
        waits="decision",
        decision=Decision(
            1,
            # a random reporter says "nothing changed" half of the time, or the game would
            # only ever report (a fact alone may have a thousand values)
            "_report(S, None if R() < 0.5 else _pick(R, {opts}), self.facts)",
            "report",
            lambda g, c: ("_report_options(S, self.facts)", "report"),
            decline="Nothing changed",
            lazy=True,
            answered=answered_report,
        ),
        stops=True,
        changes=True,
    ),
    Builtin(
        "end_game",
        ("winners", '"reason"'),
        "the game ends; more than one winner (or none) is a tie, unless `shared=true`: then "
        "the winners **share** the victory (not a tie), and no winner means all share in "
        "defeat",
        check_end_game,
        run=run_end_game,
        kwargs={"shared": "true"},
        statement=True,
        stops=True,
        changes=True,
    ),
    Builtin(
        "next_turn",
        (),
        "start the next turn (the flow of play does this)",
        takes(gives=ir.VOID),
        run=lambda g, c: "self.next_turn(S)",
        statement=True,
        changes=True,
    ),
    Builtin(
        "propose",
        ("p", "seats", '"prompt"'),
        "`p` offers a deal to some of `seats`, or passes (`none`); see [Negotiation](#negotiation)",
        check_propose,
        statement=True,
        waits="decision",
        decision=Decision(
            2,
            # a random proposer passes half of the time, or a window would never close
            "(None if R() < 0.5 else _pick_optional(R, {opts}))",
            "propose",
            options_propose,
            decline="Pass",
            lazy=True,
        ),
        stops=True,
    ),
    Builtin(
        "deal_parties",
        ("d",),
        "the players a deal concerns, in seat order",
        takes(ir.DEAL, gives=ir.list_of(ir.PLAYER)),
        lambda eg, c: f"_deal_parties({eg.expr(c.args[0])})",
        quiet=True,
    ),
    Builtin(
        "carry_out",
        ("d",),
        "carry out every item of a deal, in order",
        takes(ir.DEAL, gives=ir.VOID),
        run=lambda g, c: f"_carry_out(self, S, {g.expr(c.args[0])})",
        statement=True,
        changes=True,
    ),
    Builtin(
        "promised",
        ('"truce"', "a", "b"),
        "`a` has promised `b` the promise `truce` (a good with `promise:`), and it is still in "
        'force; `promised("keep_out", a, b, x)`: the promise about `x` (a promise with `item`)',
        check_promised,
        emit_promised,
        quiet=True,
    ),
]

#: every builtin by name, in the order of the language reference
BUILTINS: dict[str, Builtin] = {b.name: b for b in _ROWS}

#: builtins that wait for a decision; they may only stand alone in a statement
DECISIONS = frozenset(b.name for b in _ROWS if b.waits == "decision")


# ---------------------------------------------------------------------------- the reference

BEGIN = "<!-- builtins: generated by `python -m rulecraft.compiler.builtins --write` -->"
END = "<!-- /builtins -->"


def markdown_table() -> str:
    """The table of builtins of ``docs/language.md``, from the rows."""
    lines = ["| builtin | gives | stands |", "|---|---|---|"]
    for b in _ROWS:
        where = "in an expression"
        if b.waits == "decision":
            where = "on its own line; waits for a decision"
        elif b.statement:
            where = "on its own line"
        lines.append(f"| `{b.usage()}` | {b.doc} | {where} |")
    return "\n".join(lines) + "\n"


def with_table(text: str) -> str:
    """``text`` (the language reference) with its marked table of builtins made anew."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no region {BEGIN} ... {END}")
    return text[: start + len(BEGIN)] + "\n" + markdown_table() + text[end:]
