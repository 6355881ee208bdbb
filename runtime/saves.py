"""Saves of games: the decisions that made a game, replayed to load it.

A save (``"rulecraft": 3``) is the game the way a chess PGN is: the game, scenario, constants
changed from the scenario's, seed and turn limit, who sat at each seat (when the caller says),
and every decision in the order it was applied, as ``[seat, option id]``. Loading replays the
decisions from :meth:`Game.new` through :meth:`Game.apply`, so every rule check applies; the
save cannot hold a position the rules could not reach. The position reached (by field name,
without the log) rides along as ``"position"``: after the replay it must be the same, or the
save is refused naming the first field that differs.

A *position* (``"rulecraft": 2``, :func:`rulecraft.runtime.named.save`) is a state without the
decisions that led to it: what saves were before, and what a game edited by hand can still
write (:meth:`Game.position_json`). Nothing verifies it, so only
:meth:`Game.from_position`, an API for tests and tools that trust their source, reads it.

This module reads and writes the JSON; :class:`~rulecraft.runtime.game.Game` replays.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .files import FileReadError, read_file
from .layout import LIMIT, SEED
from .named import SaveError, header, save

__all__ = [
    "SAVE_VERSION",
    "POSITION_VERSION",
    "MAX_SAVE_CHARS",
    "MAX_DECISIONS",
    "MAX_NESTING",
    "GameSave",
    "parse",
    "read_text",
    "check_version",
    "position",
    "write",
    "read",
    "compare",
]

#: a save of a game: its decisions, replayed to load it
SAVE_VERSION = 3
#: a position without its decisions (:func:`rulecraft.runtime.named.save`)
POSITION_VERSION = 2
#: the longest save read (characters): a game of 20,000 decisions with its position is
#: well under a megabyte
MAX_SAVE_CHARS = 8_000_000
#: the most decisions a save may hold (replayed at about 0.5 ms each in the longest games)
MAX_DECISIONS = 20_000
#: the deepest nesting of lists and objects read (a position nests about 8 deep)
MAX_NESTING = 64
#: the longest option id (an offer of many goods is a few hundred characters)
MAX_OPTION_ID = 2_000
#: the longest seat kind (``human:NAME``, ``ismcts:2s``)
MAX_SEAT_KIND = 100

#: the keys of a save
_KEYS = ("rulecraft", "game", "scenario", "layout", "constants", "seed", "limit", "seats")
_KEYS += ("decisions", "position")
#: the keys of a position's snapshot that the save holds at its top (or not at all)
_NOT_IN_POSITION = ("rulecraft", "game", "scenario", "layout", "constants", "log")


@dataclass(frozen=True)
class GameSave:
    """A save read and checked in its shape (not yet replayed)."""

    game: str
    scenario: str
    layout: Any
    constants: dict[str, Any]
    seed: int
    limit: int | None
    seats: tuple[str, ...] | None  # a kind per seat (human, human:NAME, mc, ...) if given
    decisions: tuple[tuple[int, str], ...]  # (player, option id)
    position: dict[str, Any] | None


def parse(text: Any) -> dict[str, Any]:
    """The JSON object of a save or position, refused in words if it is too long, not JSON,
    nested too deeply or not an object."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise SaveError("this is not a saved game (not UTF-8 text)") from None
    if not isinstance(text, str):
        raise SaveError(f"a saved game is JSON text, not {type(text).__name__}")
    if len(text) > MAX_SAVE_CHARS:
        raise SaveError(
            f"this save is {len(text):,} characters long; a save is at most "
            f"{MAX_SAVE_CHARS:,} (it cannot be a game of at most {MAX_DECISIONS:,} decisions)"
        )
    try:
        data = json.loads(text)
    except RecursionError:
        raise SaveError(
            f"this is not a saved game (not JSON: nested too deeply, a save nests at most "
            f"{MAX_NESTING} levels)"
        ) from None
    except ValueError as exc:
        raise SaveError(f"this is not a saved game (not JSON: {exc})") from None
    depth = _nesting(data)
    if depth > MAX_NESTING:
        raise SaveError(
            f"this is not a saved game: it nests lists and objects more than {MAX_NESTING} "
            "levels deep"
        )
    if not isinstance(data, dict):
        raise SaveError("this is not a saved game (not a JSON object)")
    return data


def _nesting(data: Any) -> int:
    """How deeply ``data`` nests lists and objects (without recursion; stops past the limit)."""
    deepest = 0
    todo = [(data, 1)]
    while todo:
        node, depth = todo.pop()
        if isinstance(node, dict):
            node = list(node.values())
        elif not isinstance(node, list):
            continue
        deepest = max(deepest, depth)
        if depth > MAX_NESTING:
            return depth
        todo.extend((x, depth + 1) for x in node if isinstance(x, (list, dict)))
    return deepest


def read_text(path: Any) -> str:
    """The text of the save in file ``path``, refused in words (a :class:`SaveError`) if it
    is not a regular file (a pipe, a device: :func:`~rulecraft.runtime.files.read_file`), is
    not UTF-8 or is longer than a save can be (without reading it all)."""
    try:
        data = read_file(path, MAX_SAVE_CHARS * 4)  # a character is at most 4 bytes
    except FileReadError as exc:
        raise SaveError(str(exc)) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SaveError(f"{path} is not a saved game (not UTF-8 text)") from None


def position(spec: Any, S: list[Any]) -> dict[str, Any]:
    """The position of state ``S`` as a save holds it: every field by name with ids, the
    generator, the waiting routines and answers, the result; not the log (the replay writes
    it again)."""
    snap = save(spec, S)
    # through JSON and back: compared with a saved position, value by value and type by type
    return json.loads(json.dumps({k: v for k, v in snap.items() if k not in _NOT_IN_POSITION}))


def write(
    spec: Any,
    S: list[Any],
    decisions: list[tuple[int, str]],
    seats: tuple[str, ...] | None,
) -> dict[str, Any]:
    """A save of the game in state ``S`` made by ``decisions`` from its seed."""
    out = header(spec, SAVE_VERSION)
    out["seed"] = S[SEED]
    out["limit"] = S[LIMIT]
    if seats is not None:
        out["seats"] = {seat: kind for seat, kind in zip(spec.seats, seats, strict=True)}
    out["decisions"] = [[spec.seats[p], oid] for p, oid in decisions]
    out["position"] = position(spec, S)
    return out


def check_version(data: dict[str, Any]) -> None:
    """Refuse anything but a save of version 3 in words: a position of an older rulecraft
    (version 2) cannot be verified."""
    version = data.get("rulecraft")
    if version == POSITION_VERSION:
        raise SaveError(
            "this save (version 2) is a position without the decisions that led to it: "
            "nothing can verify it, so it is not loaded as a game. Saves of rulecraft "
            "versions before 3 are positions; play the game on from its start, or load it "
            "in a test with Game.from_position, which trusts it"
        )
    if type(version) is not int or version != SAVE_VERSION:
        raise SaveError(
            f"this is not a rulecraft save of version {SAVE_VERSION} (it says {version!r})"
        )


def read(data: dict[str, Any], spec: Any) -> GameSave:
    """The parts of a save of ``spec``'s game, each checked in its shape; the caller replays
    the decisions. ``data`` has named this game and scenario (the caller found ``spec`` by
    them)."""
    check_version(data)
    extra = sorted(k for k in data if k not in _KEYS)
    if extra:
        raise SaveError(
            f"the save has an entry {extra[0]!r}, which a save does not have "
            f"(it has: {', '.join(_KEYS)})"
        )
    constants = data.get("constants", {})
    if not isinstance(constants, dict):
        raise SaveError("'constants' in the save must be an object")
    seed = data.get("seed")
    if not _whole(seed) or not -(1 << 63) <= seed < 1 << 64:
        raise SaveError(f"'seed' in the save must be a whole number of 64 bits, not {seed!r}")
    limit = data.get("limit")
    if limit is not None and (not _whole(limit) or not 1 <= limit < 1 << 63):
        raise SaveError(f"'limit' in the save must be a turn from 1, not {limit!r}")
    seats = _seats(spec, data.get("seats"))
    decisions = _decisions(spec, data.get("decisions"))
    pos = data.get("position")
    if pos is not None and not isinstance(pos, dict):
        raise SaveError("'position' in the save must be an object (or left out)")
    return GameSave(
        data["game"],
        data["scenario"],
        data.get("layout"),
        constants,
        seed,
        limit,
        seats,
        decisions,
        pos,
    )


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _seats(spec: Any, seats: Any) -> tuple[str, ...] | None:
    if seats is None:
        return None
    if not isinstance(seats, dict):
        raise SaveError("'seats' in the save must be an object: {seat: who plays it}")
    for seat in seats:
        if seat not in spec.seats:
            raise SaveError(
                f"'seats' in the save names a seat {seat!r}, which this game does not have "
                f"(it has: {', '.join(spec.seats)})"
            )
    missing = [s for s in spec.seats if s not in seats]
    if missing:
        raise SaveError(f"'seats' in the save does not say who plays {missing[0]!r}")
    for seat, kind in seats.items():
        if (
            not isinstance(kind, str)
            or not 0 < len(kind) <= MAX_SEAT_KIND
            or not kind.isprintable()
            or kind != kind.strip()
        ):
            raise SaveError(
                f"'seats.{seat}' in the save must be who plays it (human, human:NAME or a "
                f"bot such as mc), not {kind!r}"
            )
    return tuple(seats[s] for s in spec.seats)


def _decisions(spec: Any, decisions: Any) -> tuple[tuple[int, str], ...]:
    if not isinstance(decisions, list):
        raise SaveError("the save has no list of 'decisions' ([seat, option id] in order)")
    if len(decisions) > MAX_DECISIONS:
        raise SaveError(
            f"the save holds {len(decisions):,} decisions; a save holds at most {MAX_DECISIONS:,}"
        )
    out = []
    for n, row in enumerate(decisions, 1):
        if not (isinstance(row, list) and len(row) == 2):
            raise SaveError(f"decision {n} of the save is not a pair [seat, option id]: {row!r}")
        seat, oid = row
        if seat not in spec.seats:
            raise SaveError(
                f"decision {n} of the save is made by {_short(seat)}, who is not a seat of "
                f"this game (it has: {', '.join(spec.seats)})"
            )
        if not isinstance(oid, str) or not oid or len(oid) > MAX_OPTION_ID:
            raise SaveError(
                f"decision {n} of the save ({seat}) must be an option id, a text of at most "
                f"{MAX_OPTION_ID} characters, not {_short(oid)}"
            )
        out.append((spec.seats.index(seat), oid))
    return tuple(out)


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def compare(saved: dict[str, Any], replayed: dict[str, Any]) -> str | None:
    """Where the saved position first differs from the replayed one (``p.austria.units: the
    save says 50, the replay 6``), or None if they are the same. Types count: ``true`` is not
    ``1``."""
    return _difference(saved, replayed, "position")


def _difference(a: Any, b: Any, path: str) -> str | None:
    if type(a) is not type(b):
        return f"{path}: the save says {_short(a)}, the replay {_short(b)}"
    if isinstance(a, dict):
        for k in b:
            if k not in a:
                return f"{path}.{k}: the save does not have it (the replay: {_short(b[k])})"
            found = _difference(a[k], b[k], f"{path}.{k}")
            if found:
                return found
        for k in a:
            if k not in b:
                return f"{path}.{k}: the save has it, the replay does not"
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path}: the save has {len(a)} entries, the replay {len(b)}"
        return None
    if a != b:
        return f"{path}: the save says {_short(a)}, the replay {_short(b)}"
    return None
