"""The public API of a running game: :class:`Game`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .layout import (
    ANSWERS,
    DRAWS,
    LIMIT,
    LOG,
    PENDING,
    RESULT,
    REVEALS,
    RNG,
    SEED,
    STACK,
    STEPS,
    TURN,
)
from .machine import (
    GameError,
    IllegalDecision,
    MalformedDecision,
    RulesError,
    answer,
    reask,
    run,
)
from .named import NamedState, SaveError, load, save, to_named
from .registry import load_spec, resolve
from .rng import seed_state
from .spec import GameSpec
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


def new_state(spec: GameSpec, seed: int) -> list[Any]:
    """The state of a new game before the machine ran: the scenario's initial state, the
    generator seeded, the flow of play about to start."""
    S = list(spec.init)
    S[SEED] = seed
    S[RNG] = seed_state(seed)
    S[STACK] = ((spec.main_rid, 0, 0), None)
    return S


def undo_barrier(before: Any, after: Any) -> str | None:
    """Why the decisions between two states (or games) cannot be taken back, or None."""
    b: Any = before.raw if isinstance(before, Game) else before
    a: Any = after.raw if isinstance(after, Game) else after
    if isinstance(b, list):
        draws = (b[DRAWS], a[DRAWS])
        reveals = (b[REVEALS], a[REVEALS])
    else:  # named states
        draws = (b["draws"], a["draws"])
        reveals = (b["reveals"], a["reveals"])
    if draws[0] != draws[1]:
        return "dice were rolled"
    if reveals[0] != reveals[1]:
        return "hidden information was revealed"
    return None


class _LazyOptions:
    """The options of a decision with too many to list (an allocation), made on demand."""

    __slots__ = ("rows",)

    def __init__(self, rows: Any) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int) -> Option:
        oid, label, _v = self.rows[i]
        return Option(oid, label)

    def __iter__(self) -> Any:
        for i in range(len(self)):
            yield self[i]


def _options(rows: Any) -> Any:
    if isinstance(rows, list):
        return tuple(Option(i, label) for i, label, _v in rows)
    return _LazyOptions(rows)


#: the legal options an error lists at most
_LISTED = 20


def _shown(option_id: str) -> str:
    """An option id as an error quotes it: whole if short, else its first 60 characters."""
    return repr(option_id) if len(option_id) <= 60 else repr(option_id[:60]) + "..."


class Game:
    """A game in progress: always either waiting for decisions or finished.

    ``raw`` is the compact state (a list, see :mod:`rulecraft.runtime.layout`); ``state`` is
    a live view of it by field name, for tests, examples and tools.
    """

    __slots__ = ("spec", "raw", "_decisions")

    def __init__(self, spec: GameSpec, raw: list[Any]) -> None:
        self.spec = spec
        self.raw = raw
        self._decisions: tuple[Any, list[Decision]] | None = None

    @classmethod
    def new(cls, spec: GameSpec, scenario: str | None = None, seed: int = 0) -> Game:
        """Set up the scenario with ``seed`` and run to the first decision."""
        if scenario is not None and scenario != spec.scenario:
            spec = load_spec(spec.game, scenario)
        game = cls(spec, new_state(spec, seed))
        run(spec, game.raw, None)
        return game

    @classmethod
    def named(cls, name: str, seed: int) -> Game:
        """``Game.named("game/scenario", seed)``."""
        spec, _scenario = resolve(name)
        return cls.new(spec, None, seed)

    # -- observing ---------------------------------------------------------------------
    @property
    def state(self) -> NamedState:
        return NamedState(self)

    @property
    def finished(self) -> bool:
        return self.raw[RESULT] is not None

    @property
    def result(self) -> dict[str, Any] | None:
        r = self.raw[RESULT]
        if r is None:
            return None
        return {"winners": list(r[0]), "tie": bool(r[1]), "reason": r[2]}

    @property
    def turn(self) -> int:
        return self.raw[TURN]

    @property
    def max_turns(self) -> int:
        """The turn a game may not go beyond (a TurnLimit error); lower it to stop early."""
        return self.raw[LIMIT]

    @max_turns.setter
    def max_turns(self, value: int) -> None:
        self.raw[LIMIT] = value

    def pending(self) -> list[Decision]:
        """The decisions the game waits for (empty when finished)."""
        S = self.raw
        pending = S[PENDING]
        if not pending:
            return []
        key = (pending, S[STEPS])
        cached = self._decisions
        if cached is not None and cached[0] == key:
            return list(cached[1])
        spec = self.spec
        seats = spec.seats
        for d in pending:
            if type(d[0]) is not int or not 0 <= d[0] < len(seats):
                site = spec.sites[d[1]]
                raise RulesError(f"a decision ({site.kind}) is asked of no player: {d[0]!r}")
        out = [
            Decision(
                d[0],
                seats[d[0]],
                spec.sites[d[1]].kind,
                spec.prompt(d, S),
                _options(spec.options(d, S)),
            )
            for d in pending
        ]
        self._decisions = (key, out)
        return list(out)

    def legal(self, player: int) -> list[Option]:
        """The legal options of ``player`` now (empty if the game does not wait for them)."""
        for d in self.pending():
            if d.player == player:
                return list(d.options)
        return []

    def is_legal(self, player: int, option_id: str) -> bool:
        for d in self.raw[PENDING] or ():
            if d[0] == player:
                return self.spec.find_option(d, option_id, self.raw)[0]
        return False

    def view(self, player: int | None) -> dict[str, Any]:
        """What ``player`` (None: a spectator) may see, as JSON data by field name."""
        return to_named(self.spec, view(self.spec, self.raw, player), player)

    def view_state(self, player: int | None, log: bool = False) -> list[Any]:
        """What ``player`` may see, as a compact state with holes (for bots)."""
        return view(self.spec, self.raw, player, log)

    def log_for(self, player: int | None) -> list[str]:
        return log_for(self.spec, self.raw, player)

    def displays(self, player: int | None) -> list[tuple[str, list[str]]]:
        """The rules' board displays (`board:` in rules.yaml) now: (title, lines) as ``player``
        reads them. A display reads only what every player sees (the compiler checks it)."""
        out = []
        for title, method in self.spec.data.get("board_displays", ()):
            S = self.raw[:]
            S[LOG] = None  # the display's lines are logged into a log of its own
            getattr(self.spec.engine, method)(S)
            out.append((title, log_for(self.spec, S, player)))
        return out

    # -- acting ------------------------------------------------------------------------
    def _decision_of(self, player: Any) -> tuple[int, tuple[Any, ...]]:
        S = self.raw
        if type(player) is not int or not 0 <= player < len(self.spec.seats):
            raise MalformedDecision(
                f"no player {player!r} (players are 0..{len(self.spec.seats) - 1})"
            )
        if S[RESULT] is not None:
            raise IllegalDecision("the game is over")
        pending = S[PENDING] or ()
        for k, d in enumerate(pending):
            if d[0] == player:
                return k, d
        waiting = ", ".join(self.spec.seats[d[0]] for d in pending) or "nobody"
        raise IllegalDecision(
            f"{self.spec.seats[player]} has no decision to make (waiting for {waiting})"
        )

    def apply(self, player: int, option_id: str) -> None:
        """Apply ``player``'s decision ``option_id`` and run to the next decision."""
        if not isinstance(option_id, str):
            raise MalformedDecision(f"an option id is a string, not {option_id!r}")
        k, d = self._decision_of(player)
        found, value = self.spec.find_option(d, option_id, self.raw)
        if found:
            self._answer(k, d, value)
            return
        kind = self.spec.sites[d[1]].kind
        shown = _shown(option_id)
        why = self.spec.why_refused(d, option_id, self.raw)
        if why is not None:
            raise IllegalDecision(f"{shown} is refused: {why}")
        if kind == "propose":
            legal = "an offer such as offer:<good>:<giver>><receiver>=<n>;... or pass"
        elif kind == "allocate":
            split = d[2]
            targets = ", ".join(
                self.spec.target_id(self.spec.sites[d[1]].options[6:], t) for t in split.targets
            )
            legal = (
                f"an allocation such as alloc:<target>=<n>,... of at most {split.points} "
                f"points, at most {split.max_each} on one, over: {targets}"
            )
        else:
            rows = self.spec.options(d, self.raw)  # numbered, not listed: a report has thousands
            legal = "legal: " + ", ".join(rows[k][0] for k in range(min(len(rows), _LISTED)))
            if len(rows) > _LISTED:
                legal += f" and {len(rows) - _LISTED} more"
        raise IllegalDecision(
            f"{shown} is not a legal option for {self.spec.seats[player]} ({kind}); {legal}"
        )

    def apply_index(self, player: int, index: int) -> None:
        """Apply the ``index``-th option of ``player``'s decision (0-based)."""
        k, d = self._decision_of(player)
        if type(index) is not int:
            raise MalformedDecision(f"an option index is a whole number, not {index!r}")
        site = self.spec.sites[d[1]]
        n = len(d[2]) + site.optional
        if not 0 <= index < n:
            raise IllegalDecision(f"option {index} does not exist (there are {n}: 0..{n - 1})")
        self._answer(k, d, d[2][index] if index < len(d[2]) else None)

    def _answer(self, k: int, d: tuple[Any, ...], value: Any) -> None:
        S = self.raw
        ready, v = answer(S, k, value, self.spec.sites[d[1]].simultaneous)
        if ready:
            run(self.spec, S, v)

    # -- copying -----------------------------------------------------------------------
    def reask(self) -> None:
        """Offer the pending decisions again after ``state`` was edited (tests, examples of
        play that start from a position): the options follow the edited state."""
        if not self.raw[PENDING]:
            raise GameError("no decision is pending")
        reask(self.spec, self.raw)

    def clone(self) -> Game:
        """An independent copy (every slot of a state is immutable: a list copy)."""
        return Game(self.spec, self.raw[:])

    def to_json(self) -> str:
        """The whole game, every secret included (to resume it: :meth:`from_json`)."""
        return json.dumps(save(self.spec, self.raw), separators=(",", ":"))

    def export(self, player: int | None) -> str:
        """What ``player`` (None: a spectator) sees of the game, as JSON, to share a position
        without its secrets: the view by field name and the log they read. It cannot be
        resumed (a save, :meth:`to_json`, holds what the others hide)."""
        data = {
            "rulecraft_view": 1,
            "game": self.spec.game,
            "scenario": self.spec.scenario,
            "seat": None if player is None else self.spec.seats[player],
            "view": self.view(player),
            "log": self.log_for(player),
            "displays": [{"title": t, "lines": lines} for t, lines in self.displays(player)],
        }
        return json.dumps(data, indent=1)

    @classmethod
    def from_json(cls, text: str, spec: GameSpec | None = None) -> Game:
        """Restore a saved game; ``spec`` defaults to the compiled game named in it. The
        pending decision is asked again from the saved position, never read from the save."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise SaveError(f"this is not a saved game (not JSON: {exc})") from None
        if not isinstance(data, dict):
            raise SaveError("this is not a saved game (not a JSON object)")
        game, scenario = data.get("game"), data.get("scenario")
        if not isinstance(game, str) or not isinstance(scenario, str):
            raise SaveError("this is not a saved game (no game and scenario named)")
        if spec is None:
            spec = load_spec(game, scenario)
        elif spec.game != game:
            raise SaveError(f"saved game is {game!r}, not {spec.game!r}")
        constants = data.get("constants")
        if constants:
            if not isinstance(constants, dict):
                raise SaveError("'constants' in the save must be an object")
            try:
                spec = spec.with_constants(**constants)
            except RulesError as exc:
                raise SaveError(str(exc)) from None
        S = load(spec, data)
        g = cls(spec, S)
        asked = data.get("asked")
        if S[RESULT] is None:
            if not isinstance(asked, int) or not 0 <= asked < len(spec.sites):
                raise SaveError("the save does not say which decision the game waits for")
            site = spec.sites[asked]
            F = S[STACK][0]
            if F[0] != site.routine:
                raise SaveError("the saved position does not ask the decision the save names")
            answers = S[ANSWERS]
            S[STACK] = ((F[0], site.ask_pc, *F[2:]), S[STACK][1])
            S[PENDING] = None
            S[ANSWERS] = None
            try:
                run(spec, S, None)
            except (RulesError, TypeError, IndexError, ValueError) as exc:
                raise SaveError(f"the saved position cannot be resumed: {exc}") from None
            if not S[PENDING] or S[PENDING][0][1] != asked:
                raise SaveError("the saved position does not ask the decision the save names")
            if answers:
                for p, v in answers:
                    for k, d in enumerate(S[PENDING] or ()):
                        if d[0] == p:
                            if v not in d[2] and not (v is None and spec.sites[d[1]].optional):
                                raise SaveError(
                                    f"the saved answer of {spec.seats[p]} is not one of its options"
                                )
                            answer(S, k, v, True)
                            S[STEPS] -= 1
                            break
                    else:
                        raise SaveError(
                            f"the save holds an answer of {spec.seats[p]}, who is not asked"
                        )
        S[LOG] = S[LOG] if S[LOG] is not False else None
        try:
            g.pending()  # the decisions are built from the saved routines' locals: check them
        except GameError as exc:
            raise SaveError(f"the saved position cannot be resumed: {exc}") from None
        except (TypeError, IndexError, ValueError, KeyError, AttributeError) as exc:
            raise SaveError(
                f"the saved position cannot be resumed: its routines' locals are damaged ({exc})"
            ) from None
        return g
