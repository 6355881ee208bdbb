"""The public API of a running game: :class:`Game`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import saves
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
    UnknownGame,
    answer,
    reask,
    run,
)
from .named import NamedState, SaveError, load, save, to_named
from .registry import load_spec, resolve
from .rng import seed_state
from .spec import GameSpec, Site
from .view import in_fog, log_for, mask_prompt, view

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
    #: the decision site (``GameSpec.sites``) that asks it
    site: int = -1


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
        for oid, label, _v in self.rows:  # the rows' own order (an offer list makes it faster)
            yield Option(oid, label)


def _options(rows: Any) -> Any:
    if isinstance(rows, list):
        return tuple(Option(i, label) for i, label, _v in rows)
    return _LazyOptions(rows)


#: the legal options an error lists at most
_LISTED = 20


def _shown(option_id: str) -> str:
    """An option id as an error quotes it: whole if short, else its first 60 characters."""
    return repr(option_id) if len(option_id) <= 60 else repr(option_id[:60]) + "..."


def _option_id(spec: GameSpec, site: Site, value: Any) -> str:
    """The id of the option ``value`` of a decision asked at ``site``."""
    if site.options.startswith("alloc:"):
        return spec.split_id(site.options[6:], value or ())
    return spec.option_id(site, value)


#: why a game made from a compact state cannot be saved as a game
_FROM_RAW = "it was made from a compact state (Game(spec, raw)), not played from Game.new"


class Game:
    """A game in progress: always either waiting for decisions or finished.

    ``raw`` is the compact state (a list, see :mod:`rulecraft.runtime.layout`); ``state`` is
    a live view of it by field name, for tests, examples and tools. A game made by
    :meth:`new` records its decisions as they are applied (:meth:`decisions`): they are its
    save (:meth:`to_json`). ``seat_kinds``, if the caller sets it, says who plays each seat
    (``human``, ``human:NAME``, a bot's name); a save keeps it.
    """

    __slots__ = ("spec", "raw", "_decisions", "_record", "_unverified", "seat_kinds")

    def __init__(self, spec: GameSpec, raw: list[Any]) -> None:
        self.spec = spec
        self.raw = raw
        self._decisions: tuple[Any, list[Decision]] | None = None
        #: the decisions applied, newest first: ``((player, id or None, site, value), older)``
        #: (a clone shares it; an id is made from the value when a save asks for it)
        self._record: Any = None
        #: None, or why the recorded decisions do not make this game (it cannot be saved)
        self._unverified: str | None = _FROM_RAW
        self.seat_kinds: tuple[str, ...] | None = None

    @classmethod
    def new(cls, spec: GameSpec, scenario: str | None = None, seed: int = 0) -> Game:
        """Set up the scenario with ``seed`` and run to the first decision."""
        if scenario is not None and scenario != spec.scenario:
            spec = load_spec(spec.game, scenario)
        game = cls(spec, new_state(spec, seed))
        game._unverified = None
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
        fogged = bool(spec.data.get("fog"))  # the prompt as the seat asked may read it
        out = [
            Decision(
                d[0],
                seats[d[0]],
                spec.sites[d[1]].kind,
                spec.prompt(mask_prompt(spec, S, in_fog(spec, S, d[0]), d) if fogged else d, S),
                _options(spec.options(d, S)),
                d[1],
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
            self._answer(k, d, value, option_id)
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
        self._answer(k, d, d[2][index] if index < len(d[2]) else None, None)

    def _answer(self, k: int, d: tuple[Any, ...], value: Any, option_id: str | None) -> None:
        S = self.raw
        # recorded before the machine runs: a decision the rules then fail on was made
        self._record = ((d[0], option_id, d[1], value), self._record)
        ready, v = answer(S, k, value, self.spec.sites[d[1]].simultaneous)
        if ready:
            run(self.spec, S, v)

    # -- the record --------------------------------------------------------------------
    def decisions(self) -> list[tuple[int, str]]:
        """The decisions applied since :meth:`new`, in order: ``(player, option id)``."""
        out = []
        node = self._record
        spec = self.spec
        while node is not None:
            (player, oid, site, value), node = node
            if oid is None:
                oid = _option_id(spec, spec.sites[site], value)
            out.append((player, oid))
        out.reverse()
        return out

    @property
    def unverified(self) -> str | None:
        """None if the game is the one its decisions make from its seed (it can be saved);
        otherwise why not: its state was edited by hand, it was made from a compact state or
        loaded from a position."""
        return self._unverified or self.spec.unverified

    def _edit(self, why: str) -> None:
        """The state was changed other than by a decision: the record no longer makes it."""
        if self._unverified is None:
            self._unverified = why

    # -- copying -----------------------------------------------------------------------
    def reask(self) -> None:
        """Offer the pending decisions again after ``state`` was edited (tests, examples of
        play that start from a position): the options follow the edited state."""
        if not self.raw[PENDING]:
            raise GameError("no decision is pending")
        self._edit("its pending decision was asked again (Game.reask, after an edit)")
        reask(self.spec, self.raw)

    def clone(self) -> Game:
        """An independent copy (every slot of a state is immutable: a list copy; the record
        of decisions is shared, being immutable too)."""
        g = Game(self.spec, self.raw[:])
        g._record = self._record
        g._unverified = self._unverified
        g.seat_kinds = self.seat_kinds
        return g

    def to_json(self, seats: Any = None) -> str:
        """The game as a save (:mod:`rulecraft.runtime.saves`): its seed, its decisions and
        the position they reach, every secret included; ``seats`` (default
        :attr:`seat_kinds`) says who plays each seat. :meth:`from_json` replays it.

        A game whose state was edited by hand has no decisions that make it: it is refused
        (:class:`SaveError`, saying why); :meth:`position_json` writes its position."""
        why = self.unverified
        if why is not None:
            raise SaveError(
                f"this game cannot be saved as a game: {why}, so its decisions do not replay "
                "to it. Game.position_json() writes the position alone (only "
                "Game.from_position reads it, trusting it)"
            )
        kinds = self.seat_kinds if seats is None else tuple(seats)
        if kinds is not None and (
            len(kinds) != len(self.spec.seats) or not all(isinstance(k, str) for k in kinds)
        ):
            raise SaveError(f"name who plays each of the {len(self.spec.seats)} seats: {kinds!r}")
        decisions = self.decisions()
        if len(decisions) != self.raw[STEPS]:  # answered past Game.apply, on game.raw
            raise SaveError(
                f"this game cannot be saved as a game: its state counts {self.raw[STEPS]} "
                f"decisions, but {len(decisions)} were applied through Game.apply"
            )
        if len(decisions) > saves.MAX_DECISIONS:
            raise SaveError(
                f"this game has {len(decisions):,} decisions; a save holds at most "
                f"{saves.MAX_DECISIONS:,}"
            )
        data = saves.write(self.spec, self.raw, decisions, kinds)
        return json.dumps(data, separators=(",", ":"))

    def position_json(self) -> str:
        """The position alone, every secret included, edited or not; nothing verifies it, so
        only :meth:`from_position` reads it (for tests and tools that trust their source)."""
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
        # compact: json's C encoder, ten times faster than an indented dump (a board of
        # thousands of hexes is a megabyte)
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str, spec: GameSpec | None = None) -> Game:
        """Load a save (:meth:`to_json`): replay its decisions from :meth:`new` with its seed
        through :meth:`apply`, so that every rule check applies, then check that the position
        saved with them is the one they reach. ``spec`` defaults to the compiled game the
        save names. Anything else is a :class:`SaveError` naming what is wrong: a decision
        that is not legal (its number, seat, option id and why), a field of the position
        that differs, a position without decisions (a save of rulecraft before version 3)."""
        data = saves.parse(text)
        saves.check_version(data)
        spec = _spec_of(data, spec)
        got = saves.read(data, spec)
        if got.constants:
            try:
                spec = spec.with_constants(**got.constants)
            except RulesError as exc:
                raise SaveError(f"'constants' in the save: {exc}") from None
        g = cls._replay(spec, got.seed, got.limit, got.decisions)
        if got.position is not None:
            if got.layout != spec.layout.hash:
                raise SaveError(
                    f"the position in this save was written for another version of "
                    f"{spec.game}/{spec.scenario} (layout {got.layout!r}, this engine has "
                    f"{spec.layout.hash!r}) and cannot be checked against the replay; leave "
                    "'position' out of the save to load its decisions alone under these rules"
                )
            where = saves.compare(got.position, saves.position(spec, g.raw))
            if where is not None:
                raise SaveError(
                    f"the position in the save is not the one its decisions reach: {where} "
                    "(the save was edited, or the rules changed since it was written; leave "
                    "'position' out of the save to load its decisions alone)"
                )
        g.seat_kinds = got.seats
        return g

    @classmethod
    def _replay(cls, spec: GameSpec, seed: int, limit: int | None, decisions: Any) -> Game:
        """The game ``decisions`` make from ``seed`` (a SaveError at the first that fails)."""
        S = new_state(spec, seed)
        if limit is not None:
            S[LIMIT] = limit
        g = cls(spec, S)
        g._unverified = None
        try:
            run(spec, S, None)
        except GameError as exc:
            raise SaveError(f"the game cannot be set up again from the save: {exc}") from None
        for n, (player, oid) in enumerate(decisions, 1):
            try:
                g.apply(player, oid)
            except GameError as exc:
                raise SaveError(
                    f"decision {n} of the save ({spec.seats[player]}: {oid!r}) cannot be "
                    f"replayed: {exc}"
                ) from None
        return g

    @classmethod
    def from_position(cls, text: str, spec: GameSpec | None = None) -> Game:
        """Load a position (:meth:`position_json`, or a save of rulecraft before version 3)
        **trusting it**: its values are checked against the fields' types and bounds, but
        nothing checks that the rules can reach it. For tests and tools that made the
        position themselves; a game loaded so cannot be saved as a game. ``rulecraft play
        --load`` never reads positions (it uses :meth:`from_json`)."""
        data = saves.parse(text)
        if data.get("rulecraft") == saves.SAVE_VERSION:
            raise SaveError("this is a save of a game (version 3): load it with Game.from_json")
        spec = _spec_of(data, spec)
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
        g._unverified = "it was loaded from a position (Game.from_position), which nothing verifies"
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


def _spec_of(data: dict[str, Any], spec: GameSpec | None) -> GameSpec:
    """The compiled scenario a save names (``spec``: the caller's, which must be its game)."""
    game, scenario = data.get("game"), data.get("scenario")
    if not isinstance(game, str) or not isinstance(scenario, str):
        raise SaveError("this is not a saved game (no game and scenario named)")
    if not game or not scenario:  # load_spec would take "" for the game's first scenario
        raise SaveError("the save's 'game' and 'scenario' must name them, not be empty")
    if spec is None:
        try:
            spec = load_spec(game, scenario)
        except UnknownGame as exc:
            raise SaveError(f"the save is of {game}/{scenario}: {exc}") from None
    if spec.game != game:
        raise SaveError(f"saved game is {game!r}, not {spec.game!r}")
    if spec.scenario != scenario:
        raise SaveError(f"the save is of scenario {scenario!r}, not {spec.scenario!r}")
    return spec
