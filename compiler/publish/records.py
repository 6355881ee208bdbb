"""Record forms filled in from a saved game: reading the save (a game's decisions are replayed
by its compiled engine), and the line that says what the form was filled in from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rulecraft.runtime.files import FileReadError, read_file

from .scenarios import Names
from .text import fmt_scalar
from .views import SavedRecord, SaveFileError


def filled_from(record: SavedRecord, form: Any, labels: Names) -> str:
    """The line under a filled-in form: the save, its scenario, and the globals the form reads
    ("Filled in from save.json (scenario x): Year 1940, Season spring.")."""
    names: list[str] = []
    for block in getattr(form, "blocks", []):
        if block.title_fill is not None:
            names.append(block.title_fill)
        for name in block.when:
            names.append(name)
        for row in block.rows:
            if row.fill is not None and row.fill.scope == "g":
                names.append(row.fill.field)
    facts = [
        f"{labels.label(n, labels.titles)} {fmt_scalar(record.globals[n])}"
        for n in dict.fromkeys(names)
        if n in record.globals
    ]
    text = f"Filled in from {Path(record.path).name}"
    if record.scenario:
        text += f" (scenario {record.scenario})"
    text += ": " + ", ".join(facts) + "." if facts else "."
    return text + " Blank cells are not in the save: write them in by hand."


def read_save(path: str | Path, game: str, game_ids: tuple[str, ...] = ()) -> SavedRecord:
    """The fields of a saved game (`rulecraft` save, position or named state) for `game`'s
    record forms.

    A save of a game (`Game.to_json`: its decisions) is replayed by the compiled engine and the
    forms read the position it reaches. A position or named state is a JSON object naming its
    "game" and "scenario", with the globals by name under "g" and each seat's player fields
    under "p" (a mapping by seat id, as `runtime.named.save` writes it, or a list of records
    with an "id", as `to_named` does). `game_ids` are other names of the game (its game.yaml
    `game:`). Anything else is a `SaveFileError` naming the file."""
    name = str(path)
    try:
        text = read_file(path).decode("utf-8-sig")
    except FileReadError as exc:
        raise SaveFileError(f"{name}: cannot read the save: {exc.why}") from None
    except UnicodeDecodeError:
        raise SaveFileError(f"{name}: not a saved game (not UTF-8 text)") from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SaveFileError(f"{name}: not a saved game (not JSON: {first})") from None
    if not isinstance(data, dict):
        raise SaveFileError(f"{name}: not a saved game (not a JSON object)")
    saved_game = data.get("game")
    if not isinstance(saved_game, str) or not saved_game:
        raise SaveFileError(f'{name}: not a saved game (no "game" named)')
    if saved_game not in (game, *game_ids):
        raise SaveFileError(f"{name}: a saved game of {saved_game!r}, not of {game!r}")
    scenario = data.get("scenario")
    if "decisions" in data or data.get("rulecraft") == 3:
        data = _replayed(name, text)  # a save of a game: its decisions, replayed
    globals_ = data.get("g", {})
    if not isinstance(globals_, dict):
        raise SaveFileError(f'{name}: not a saved game ("g", the globals, is not an object)')
    raw_players = data.get("p", {})
    players: dict[str, dict[str, Any]] = {}
    if isinstance(raw_players, dict) and all(isinstance(v, dict) for v in raw_players.values()):
        players = {str(seat): dict(fields) for seat, fields in raw_players.items()}
    elif isinstance(raw_players, list) and all(
        isinstance(v, dict) and isinstance(v.get("id"), str) for v in raw_players
    ):
        players = {v["id"]: {k: x for k, x in v.items() if k != "id"} for v in raw_players}
    else:
        raise SaveFileError(f'{name}: not a saved game ("p", the players by seat, is malformed)')
    return SavedRecord(
        name, saved_game, scenario if isinstance(scenario, str) else None, dict(globals_), players
    )


def _replayed(name: str, text: str) -> dict[str, Any]:
    """The position a save of a game (its decisions, `rulecraft.runtime.saves`) reaches when
    the compiled engine replays it: what a record form is filled in from, never a position
    the save merely claims."""
    from rulecraft.runtime.game import Game
    from rulecraft.runtime.machine import GameError
    from rulecraft.runtime.saves import position

    try:
        game = Game.from_json(text)
    except GameError as exc:  # a decision that does not replay, a game not compiled here
        raise SaveFileError(f"{name}: {exc}") from None
    return position(game.spec, game.raw)
