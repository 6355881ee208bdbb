"""`rulecraft explain <game>/<scenario>`: the resolved scenario, and where each part came from.

Every value, card, function, procedure, flow step and hook is listed with the file, line and
layer (the game's own files, or the scenario file that set or changed it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .registry import CLIError, command

if TYPE_CHECKING:
    from .. import ir


def _layer(pos: Any) -> str:
    path = Path(str(pos.file))
    return path.stem if path.parent.name == "scenarios" else "game"


def explain(game: ir.Game) -> dict[str, list[dict[str, Any]]]:
    """The resolved scenario as rows of (what, value, where, layer), grouped by section."""
    sc = game.scenario
    out: dict[str, list[dict[str, Any]]] = {}

    def row(section: str, what: str, value: Any, pos: Any, layer: str | None = None) -> None:
        out.setdefault(section, []).append(
            {"what": what, "value": value, "where": str(pos), "layer": layer or _layer(pos)}
        )

    for sid, name in sc.seats:
        row(
            "seats",
            sid,
            name,
            sc.doc.pos(("seats", sid)) if sc.doc.has(("seats", sid)) else sc.origin.pos,
        )
    for name, c in sorted(game.constants.items()):
        v = sc.values.get(f"c.{name}")
        if v is not None:
            row("constants", name, v.value, v.pos, v.layer)
        else:
            row("constants", name, c.value, c.origin.pos)
    for key, v in sc.values.items():
        if not key.startswith("c."):
            section = {"g": "globals", "p": "players", "e": "entities"}[key[0]]
            row(section, key[2:], v.value, v.pos, v.layer)
    for card in game.cards.values():
        row("cards", card.id, card.name, card.origin.pos)
    for r in game.functions.values():
        if not r.name.endswith("__rules"):
            row(f"{r.kind}s", r.name, r.origin.doc, r.origin.pos)
    for section in ("setup", "turn", "end_of_turn"):
        for r in game.flow(section):
            row(f"flow {section}", r.name.split("__", 1)[1], r.origin.doc, r.origin.pos)
    for h in game.hooks.values():
        row("hooks", h.name, f"{h.when} {h.target}", h.origin.pos)
    # what the scenario's own file takes away from its base
    data = getattr(sc.doc, "data", None) or {}
    removed: list[tuple[str, Any, tuple]] = []
    for etype, recs in (data.get("entities") or {}).items():
        if isinstance(recs, dict) and isinstance(recs.get("remove"), list):
            removed.append((etype, recs["remove"], ("entities", etype, "remove")))
    for part in ("cards", "functions", "procedures"):
        ops = data.get(part)
        if isinstance(ops, dict) and isinstance(ops.get("remove"), list):
            removed.append((part, ops["remove"], (part, "remove")))
    for section, ops in (data.get("flow") or {}).items():
        if isinstance(ops, dict) and isinstance(ops.get("remove"), list):
            removed.append((f"flow {section}", ops["remove"], ("flow", section, "remove")))
    for what, ids, path in removed:
        row("removed", what, ", ".join(map(str, ids)), sc.doc.pos(path))
    return out


#: the width explain's text fits in
WIDTH = 100


def render(name: str, game: ir.Game, table: dict[str, list[dict[str, Any]]]) -> str:
    """The table as text within WIDTH columns: what, its value (cut short with ...), and
    where it came from (the file under rules/<game>/, line and column), right-aligned."""
    sc = game.scenario
    prefix = f"rules/{game.id}/"
    lines = [f"{name}: {sc.title}", "layers:"]
    lines += [f"  {layer.removeprefix(prefix)}" for layer in sc.layers]
    lines.append("")
    for section, rows in table.items():
        lines.append(f"{section}:")
        width = min(max(len(r["what"]) for r in rows), 32)
        wheres = max(len(r["where"].removeprefix(prefix)) for r in rows)
        room = max(WIDTH - 2 - width - 2 - 2 - wheres, 16)
        for r in rows:
            value = r["value"]
            shown = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
            shown = " ".join(shown.split())
            where = r["where"].removeprefix(prefix)
            what = r["what"] if len(r["what"]) <= width else r["what"][: width - 3] + "..."
            if len(shown) > room:
                shown = shown[: room - 3] + "..."
            lines.append(f"  {what:<{width}}  {shown:<{room}}  {where}".rstrip())
        lines.append("")
    return "\n".join(lines)


def _add(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="GAME/SCENARIO, as in rulecraft play")
    p.add_argument("--json", action="store_true", help="print the table as JSON")


def _run(args: argparse.Namespace) -> int:
    from ..project import ProjectError, bundled_project, compile_project, new_sink
    from .registry import project_of

    game_id, _, scenario = args.name.partition("/")
    root = project_of(args, required=False)
    if root is None or not (root.rules / game_id).is_dir():
        bundled = bundled_project()  # a game bundled with rulecraft
        if root is None or (bundled.rules / game_id).is_dir():
            root = bundled
    try:
        sink = new_sink(root)
        result = compile_project(root, sink, [game_id], generate=False)
    except ProjectError as exc:
        raise CLIError(str(exc)) from None
    if sink.has_errors:
        print(sink.render_all())
        return 1
    names = sorted(k for k in result.games if k.startswith(game_id + "/"))
    if not scenario:
        if len(names) > 1:
            raise CLIError(f"{game_id} has {len(names)} scenarios: name one ({', '.join(names)})")
        scenario = names[0].split("/", 1)[1] if names else ""
    key = f"{game_id}/{scenario}"
    if key not in result.games:
        raise CLIError(f"no scenario {key!r} (known: {', '.join(names)})")
    game = result.games[key]
    table = explain(game)
    print(
        json.dumps(table, indent=2, ensure_ascii=False) if args.json else render(key, game, table)
    )
    return 0


command("explain", "show a resolved scenario and where every part of it came from", _add, _run)
