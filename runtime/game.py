"""The public API of a running game: :class:`Game`."""

from __future__ import annotations

import json
import marshal
from dataclasses import dataclass
from typing import Any

from .machine import (
    GameError,
    IllegalDecision,
    MalformedDecision,
    RulesError,
    State,
    answer,
    reask,
    run,
)
from .registry import load_spec, resolve
from .rng import seed_state
from .spec import GameSpec, ScenarioSpec
from .view import log_for, view

__all__ = ["Option", "Decision", "Game", "load_spec", "resolve", "undo_barrier", "new_state"]


@dataclass(frozen=True, slots=True)
class Option:
    """A legal option: a stable id such as ``card:move_2`` and a readable label."""

    id: str
    label: str


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision the game waits for."""

    player: int
    seat: str
    kind: str
    prompt: str
    options: tuple[Option, ...]


# Options are immutable values; games re-offer the same few (id, label) pairs all the time, so
# share the instances instead of building a frozen dataclass per option per decision.
_OPTIONS: dict[tuple[str, str], Option] = {}
_OPTIONS_MAX = 1 << 14


def _options(raw: list[list[Any]]) -> tuple[Option, ...]:
    cache = _OPTIONS
    out = []
    for o in raw:
        key = (o[0], o[1])
        opt = cache.get(key)
        if opt is None:
            if len(cache) >= _OPTIONS_MAX:
                cache.clear()
            opt = cache[key] = Option(o[0], o[1])
        out.append(opt)
    return tuple(out)


def new_state(spec: GameSpec, scenario: str, seed: int) -> State:
    """The state of a new game before the machine ran (see ``docs/runtime.md``)."""
    sc = _scenario(spec, scenario)
    init = sc.init()
    seats = list(sc.seats)
    if len(init["p"]) != len(seats):
        raise RulesError(
            f"scenario {scenario!r} sets up {len(init['p'])} players for {len(seats)} seats"
        )
    return {
        "game": spec.game,
        "scenario": scenario,
        "seats": seats,
        "seed": seed,
        "rng": seed_state(seed),
        "draws": 0,
        "reveals": 0,
        "steps": 0,
        "turn": init.get("turn", 0),
        "c": init.get("c", {}),
        "g": init["g"],
        "p": init["p"],
        "e": init.get("e", {}),
        "stack": [[sc.entry, {}]],
        "pending": None,
        "simultaneous": False,
        "asked": None,
        "answer": None,
        "answers": {},
        "log": [],
        "result": None,
    }


def _scenario(spec: GameSpec, scenario: str) -> ScenarioSpec:
    try:
        return spec.scenarios[scenario]
    except KeyError:
        known = ", ".join(spec.scenarios)
        raise RulesError(
            f"game {spec.game!r} has no scenario {scenario!r} (known: {known})"
        ) from None


def undo_barrier(before: State, after: State) -> str | None:
    """Why the decisions between ``before`` and ``after`` cannot be taken back, or None."""
    if after["draws"] != before["draws"]:
        return "dice were rolled"
    if after["reveals"] != before["reveals"]:
        return "hidden information was revealed"
    return None


class Game:
    """A game in progress: always either waiting for decisions or finished."""

    __slots__ = ("spec", "state", "_blocks", "max_turns")

    def __init__(self, spec: GameSpec, state: State) -> None:
        self.spec = spec
        self.state = state
        self._blocks = spec.blocks
        #: a game past this turn raises TurnLimit (the scenario's max_turns unless changed)
        self.max_turns = _scenario(spec, state["scenario"]).max_turns

    @classmethod
    def new(cls, spec: GameSpec, scenario: str, seed: int) -> Game:
        """Set up ``scenario`` with ``seed`` and run to the first decision."""
        game = cls(spec, new_state(spec, scenario, seed))
        game._run()
        return game

    @classmethod
    def named(cls, name: str, seed: int) -> Game:
        """``Game.named("game/scenario", seed)``."""
        spec, scenario = resolve(name)
        return cls.new(spec, scenario, seed)

    def _run(self) -> None:
        run(self.state, self._blocks, self.max_turns, self.spec.origins)

    # -- observing ---------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.state["result"] is not None

    @property
    def result(self) -> dict[str, Any] | None:
        return self.state["result"]

    @property
    def turn(self) -> int:
        return self.state["turn"]

    def pending(self) -> list[Decision]:
        """The decisions the game waits for (empty when finished)."""
        S = self.state
        seats = S["seats"]
        return [
            Decision(
                d["player"], seats[d["player"]], d["kind"], d["prompt"], _options(d["options"])
            )
            for d in S["pending"] or ()
        ]

    def legal(self, player: int) -> list[Option]:
        """The legal options of ``player`` now (empty if the game does not wait for them)."""
        for d in self.state["pending"] or ():
            if d["player"] == player:
                return list(_options(d["options"]))
        return []

    def is_legal(self, player: int, option_id: str) -> bool:
        for d in self.state["pending"] or ():
            if d["player"] == player:
                return any(o[0] == option_id for o in d["options"])
        return False

    def view(self, player: int | None) -> dict[str, Any]:
        """What ``player`` (None: a spectator) may see, as JSON data."""
        return view(self.state, player, self.spec)

    def log_for(self, player: int | None) -> list[str]:
        return log_for(self.state, player)

    # -- acting ------------------------------------------------------------------------
    def apply(self, player: int, option_id: str) -> None:
        """Apply ``player``'s decision ``option_id`` and run to the next decision."""
        S = self.state
        if type(player) is not int or not 0 <= player < len(S["seats"]):
            raise MalformedDecision(f"no player {player!r} (players are 0..{len(S['seats']) - 1})")
        if not isinstance(option_id, str):
            raise MalformedDecision(f"an option id is a string, not {option_id!r}")
        if S["result"] is not None:
            raise IllegalDecision("the game is over")
        pending = S["pending"] or ()
        k = 0
        for d in pending:
            if d["player"] == player:
                break
            k += 1
        else:
            waiting = ", ".join(S["seats"][d["player"]] for d in pending) or "nobody"
            raise IllegalDecision(
                f"{S['seats'][player]} has no decision to make (waiting for {waiting})"
            )
        for opt in d["options"]:
            if opt[0] == option_id:
                break
        else:
            ids = ", ".join(o[0] for o in d["options"])
            raise IllegalDecision(
                f"{option_id!r} is not a legal option for {S['seats'][player]} "
                f"({d['kind']}); legal: {ids}"
            )
        answer(S, k, opt)
        if S["pending"] is None:
            run(S, self._blocks, self.max_turns, self.spec.origins)

    def apply_index(self, player: int, index: int) -> None:
        """Apply the ``index``-th option of ``player``'s decision (for fast playouts)."""
        self.apply(player, self.legal(player)[index].id)

    # -- copying -----------------------------------------------------------------------
    def reask(self) -> None:
        """Offer the pending decisions again after ``state`` was edited (tests, examples of
        play that start from a position): the options follow the edited state."""
        if not self.state["pending"]:
            raise GameError("no decision is pending")
        reask(self.state, self._blocks)

    def clone(self) -> Game:
        """An independent copy (fast: a marshal round trip of plain data)."""
        return Game(self.spec, marshal.loads(marshal.dumps(self.state)))

    def to_json(self) -> str:
        return json.dumps(self.state, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, spec: GameSpec | None = None) -> Game:
        """Restore a saved game; ``spec`` defaults to the compiled game named in it."""
        S = json.loads(text)
        if spec is None:
            spec = load_spec(S["game"], S.get("scenario"))
        elif spec.game != S["game"]:
            raise RulesError(f"saved game is {S['game']!r}, not {spec.game!r}")
        return cls(spec, S)
