"""Building a sheet: the game's tables, sequence of play, cards and scenarios gathered into the
view model (`views.Sheet`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .board_map import map_view
from .compare import comparison
from .records import filled_from, read_save
from .scenarios import Names, scenario_order, scenario_view
from .source import (
    default_rules_root,
    document,
    entries,
    game_model,
    game_tables,
    list_games,
    node_of,
    scenario_ids,
    without_title,
)
from .table_views import Numberer, for_scenario, rows_of_scenario, sheet_option, table_view
from .text import WORDS, fmt_scalar, humanize, player_text, readable_label, with_values
from .views import Node, SaveFileError, Section, Sheet, SheetError


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

    found = game_model(root, game)  # the checked model: one run of the pipeline
    model = found.model
    meta = document(model, "game.yaml") or {}
    sheet = Sheet(
        game=game,
        title=str(meta.get("title") or humanize(game)),
        source=str(meta.get("source") or f"rules/{game}/"),
    )
    if record is not None:
        other = (str(meta["game"]),) if isinstance(meta.get("game"), str) else ()
        sheet.record = read_save(record, game, other)
        saved = sheet.record.scenario
        if scenario is not None and saved is not None and saved != scenario:
            raise SaveFileError(f"{record}: a save of scenario {saved!r}, not {scenario!r}")

    known_scenarios = scenario_ids(model)
    if scenario is not None:
        if scenario not in known_scenarios:
            known = ", ".join(sorted(known_scenarios)) or "none"
            raise SheetError(f"unknown scenario '{scenario}' for {game} (known: {known})")
        sheet.scenario = scenario
        sheet.scenario_title = known_scenarios[scenario][0]

    tables = game_tables(model)  # the model's tables, with the data each was built from
    compiled = {tid: t for tid, _raw, t in tables}
    aids = {sid: sc.play_aids for sid, sc in model.scenarios.items()}
    num = Numberer(sheet)
    for table_id, raw, _table in tables:
        if scenario is not None and not for_scenario(table_id, scenario, aids):
            continue
        if sheet.record is not None and raw.get("kind") != "form":
            continue
        if scenario is not None and raw.get("key") == "scenario":
            raw = rows_of_scenario(raw, scenario, sheet.scenario_title or "")
        sheet.tables.append(table_view(table_id, raw, compiled.get(table_id), num, sheet.record))
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
        names = Names(model, {k: v for k, (_t, v) in known_scenarios.items()})
        for view in sheet.tables:  # globals named as the game titles them ("Year 1940")
            view.filled_from = filled_from(sheet.record, compiled.get(view.id), names)
        return sheet  # the record forms only

    if model.board is not None:  # after the tables: its notes follow theirs
        sheet.map = map_view(model.board, sheet)
    resolved = found.resolved.get(scenario) if scenario is not None else None
    # the constants a player needs (`board: true`: a goal, a limit) under their titles; a
    # rules text that names a titled constant in backquotes reads its title and value
    constants = (resolved or model).constants
    values = {name: (c.title, fmt_scalar(c.value)) for name, c in constants.items() if c.title}
    sheet.values = [values[n] for n, c in sorted(constants.items()) if c.board and c.title]
    # the sequence of play: with a scenario, its base's steps with its changes
    for section in FLOW_SECTIONS:
        flow = (resolved or model).flow(section)
        docs = [with_values(player_text(r.origin.doc), values) for r in flow]
        if any(docs):
            sheet.flow.append(Section(readable_label(section, None, WORDS), _steps([docs])))

    if resolved is not None:
        # the scenario's own cards: replaced ones as it plays them, removed ones gone
        for c in sorted(resolved.cards.values(), key=lambda c: c.index):
            text = " ".join((c.text or c.origin.doc).split()) or "Text not printed in the rulebook."
            if c.unplayable:
                text += f" ({' '.join(c.unplayable.split())}.)"
            sheet.cards.append(Section(c.name, Node("text", text=text)))
    else:
        for title, value in entries(document(model, "cards.yaml"), ("cards",)):
            if isinstance(value, dict) and value.get("text"):
                # a card with its printed text: the text is what a player reads
                text = " ".join(str(value["text"]).split())
                if value.get("unplayable"):
                    text += f" ({' '.join(str(value['unplayable']).split())}.)"
                sheet.cards.append(Section(title, Node("text", text=text)))
            else:
                sheet.cards.append(Section(title, node_of(without_title(value))))
    sheet.effects = [
        Section(e.title, Node("text", text=effect_text(e))) for e in (resolved or model).lasting
    ]
    names = Names(model, {k: v for k, (_t, v) in known_scenarios.items()})
    shown: set[str] = set()
    for sid in scenario_order(known_scenarios) if scenario is None else [scenario]:
        view = scenario_view(sid, known_scenarios, names, num)
        # the scenario's play aids (`play_aids:`) print in its block, a table in the first
        # block that names it (a base's, before the scenarios that inherit its list)
        view.aid_tables = [t for t in sheet.tables if t.id in aids[sid] and t.id not in shown]
        for t in view.aid_tables:
            t.group_heading = False
            shown.add(t.id)
        sheet.scenarios.append(view)
    sheet.tables = [t for t in sheet.tables if t.id not in shown]
    layout = sheet_option(meta, "scenarios")  # one_by_one or side_by_side (the schema's check)
    if scenario is None and len(sheet.scenarios) > 1 and layout == "side_by_side":
        sheet.comparison = comparison(sheet.scenarios, known_scenarios, names)
    return sheet


#: how the sheet says what a lasting effect changes (`effects:` in rules.yaml)
CHANGES = {
    "modifies": "adds {text} to {target}",
    "forbids": "forbids {target}",
    "permits": "permits {target}",
    "replaces": "replaces {target}",
}


def effect_text(effect: Any) -> str:
    """One lasting effect as the sheet prints it: what it does, on whom, what it changes
    while in force, and what ends it."""
    parts = [" ".join(effect.origin.doc.split())] if effect.origin.doc else []
    scope = "" if effect.scope is None else effect.scope[0]
    on = "the whole game" if effect.scope is None else f"one {effect.scope[1]} ({scope})"
    parts.append(f"In force on {on}.")
    changes = []
    for c in effect.changes:
        by, _, where = c.text.partition(" where ") if c.kind == "modifies" else ("", "", c.text)
        text = CHANGES[c.kind].format(text=by, target=c.target)
        changes.append(text + (f" where {where}" if where and where != "true" else ""))
    if changes:
        parts.append("While in force it " + "; ".join(changes) + ".")
    ends = [f"end {effect.name}({scope})"]
    if effect.until is not None:
        after = "".join(f" and after {p}" for p, _pos in effect.check_after)
        ends.append(f"until {effect.until_text} (checked when each flow step ends{after})")
    if effect.ends_at is not None:
        ends.append(f"when {effect.ends_at[0]} ends")
    parts.append("Ends: " + "; ".join(ends) + ".")
    return " ".join(parts)


#: the sections of a flow, in order of play (a flow's `procedures` are what its steps call)
FLOW_SECTIONS = ("setup", "turn", "end_of_turn")


def _steps(groups: list[list[str]]) -> Node:
    """Steps of play as a numbered list (the empty ones left out)."""
    items = [Node("text", text=d) for docs in groups for d in docs if d]
    return Node("list", items=items, ordered=True)
