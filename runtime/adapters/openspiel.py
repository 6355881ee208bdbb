"""An OpenSpiel game for every compiled scenario (``pip install 'rulecraft[openspiel]'``).

Importing this module registers the game ``rulecraft`` with ``pyspiel``::

    game = pyspiel.load_game("rulecraft(game=<game>/<scenario>)")

Parameters: ``game`` (``game/scenario``, required), ``seed`` (the dice of the first game;
each new initial state takes the next seed, ``derive_seed(seed, n)``), ``max_options`` (the
numbered action slots, see :mod:`.encoding`), ``max_moves`` (a game still running after
that many moves ends as a draw: OpenSpiel needs a bound on a game's length).

- **Dynamics: simultaneous.** A node where several players are asked at once (a secret
  pick) is a simultaneous node; the players not asked there have no legal action (and the
  action OpenSpiel passes for them is ignored). Every other node belongs to one player.
- **Chance: sampled stochastic.** The engine rolls its own dice from the generator kept in
  its state, so there are no chance nodes; a clone rolls the same dice as its original.
- **Returns**, at the end only: a win 1 (each winner of a shared victory gets 1), a loss -1;
  in a tie the tied seats 0, the others -1. A game cut short (``max_moves``, or the
  scenario's turn limit) gives 0 to everyone. The utility is general-sum.
- **Observations** come from the player's view (hidden values never reach them): the
  observation string is the view by field name as JSON (without the log), the tensor the
  vector of :class:`~.encoding.ObservationEncoder`. The information-state string is the
  player's seat, then one line per move: the player's own option id (``-`` when another
  player moved) and a digest of what the player saw after it, then the current observation:
  perfect recall. The information-state tensor is the observation tensor followed by how
  many times the player took each action: it is not perfect recall (a fixed-size vector
  cannot be); use the string where that matters.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found, import-untyped, unused-ignore]

from ..game import Game
from ..layout import LOG, PENDING
from ..machine import TurnLimit
from ..named import save
from ..registry import resolve
from ..rng import derive_seed
from .encoding import ActionMap, ObservationEncoder, digest, observation_text, returns_of

__all__ = ["GAME_TYPE", "RulecraftGame", "RulecraftState", "load_game"]

_PARAMS = {"game": "", "seed": 0, "max_options": 64, "max_moves": 10_000}

GAME_TYPE = pyspiel.GameType(
    short_name="rulecraft",
    long_name="A game compiled by rulecraft",
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=64,
    min_num_players=1,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=_PARAMS,
)


class Match:
    """A game in progress with what the adapter adds: the moves so far and each player's
    trace (for the information state), and whether it was cut short.

    A state's Python attributes are deep-copied when OpenSpiel clones it and pickled when it
    serializes it: a match copies as a game does (one list copy) and pickles as a save."""

    def __init__(
        self, game: Game, start: Game, traces: tuple[tuple[str, ...], ...], moves: int = 0
    ) -> None:
        self.game = game
        self.start = start  # the first position (never changed: shared by clones)
        self.traces = traces
        self.moves = moves
        self.cut = False
        self.counts: tuple[tuple[int, ...], ...] = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> Match:
        m = Match(self.game.clone(), self.start, self.traces, self.moves)
        m.cut, m.counts = self.cut, self.counts
        return m

    def __reduce__(self) -> tuple[Any, ...]:
        saves = (self.game.to_json(), self.start.to_json())
        return (_restore, (*saves, self.traces, self.moves, self.cut, self.counts))


def _restore(save: str, start: str, traces: Any, moves: int, cut: bool, counts: Any) -> Match:
    m = Match(Game.from_json(save), Game.from_json(start), traces, moves)
    m.cut, m.counts = cut, counts
    return m


class RulecraftGame(pyspiel.Game):
    """One compiled scenario as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_PARAMS, **(params or {})}
        name = params["game"]
        if not name:
            raise ValueError("name the scenario: rulecraft(game=<game>/<scenario>)")
        spec, scenario = resolve(name)
        if scenario != spec.scenario:
            from ..registry import load_spec

            spec = load_spec(spec.game, scenario)
        self.spec = spec
        self.actions = ActionMap(spec, int(params["max_options"]))
        self.encoder = ObservationEncoder(spec)
        self.seed = int(params["seed"])
        self.max_moves = int(params["max_moves"])
        self._made = 0
        super().__init__(
            GAME_TYPE,
            pyspiel.GameInfo(
                num_distinct_actions=self.actions.size,
                max_chance_outcomes=0,
                num_players=len(spec.seats),
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=None,
                max_game_length=self.max_moves,
            ),
            params,
        )

    def new_initial_state(self) -> RulecraftState:
        """A new game; each one rolls other dice (``derive_seed(seed, n)`` for the n-th)."""
        seed = derive_seed(self.seed, self._made)
        self._made += 1
        return RulecraftState(self, Game.new(self.spec, None, seed))

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Observer:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return Observer(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class RulecraftState(pyspiel.State):
    """A position: the rulecraft :class:`~rulecraft.runtime.Game` in ``match.game``."""

    def __init__(self, game: RulecraftGame, rules: Game) -> None:
        super().__init__(game)
        self.match = Match(rules, rules.clone(), tuple(() for _ in rules.spec.seats))

    def _adapter(self) -> RulecraftGame:
        return self.get_game()  # type: ignore[no-any-return]

    # -- whose move
    def current_player(self) -> int:
        m = self.match
        if m.cut or m.game.finished:
            return pyspiel.PlayerId.TERMINAL
        pending = m.game.raw[PENDING]
        if len(pending) > 1:
            return pyspiel.PlayerId.SIMULTANEOUS
        return int(pending[0][0])

    def is_terminal(self) -> bool:
        return self.match.cut or self.match.game.finished

    def _legal_actions(self, player: int) -> list[int]:
        for legal in self._adapter().actions.legal(self.match.game):
            if legal.player == player:
                return list(legal.actions)
        return []

    def _action_to_string(self, player: int, action: int) -> str:
        return self._adapter().actions.name(action, self.match.game, player)

    # -- moves
    def _apply_action(self, action: int) -> None:
        self._play({self.current_player(): action})

    def _apply_actions(self, actions: list[int]) -> None:
        self._play(dict(enumerate(actions)))

    def _play(self, chosen: dict[int, int]) -> None:
        adapter = self._adapter()
        m = self.match
        plays = []
        for legal in adapter.actions.legal(m.game):
            i = legal.option_index(chosen[legal.player])
            if i is None:
                raise ValueError(
                    f"action {chosen[legal.player]} is not legal for "
                    f"{adapter.spec.seats[legal.player]}"
                )
            plays.append((legal.player, i, chosen[legal.player]))
        taken = {p: adapter.actions.name(a, m.game, p) for p, _i, a in plays}
        counts = [list(c) for c in m.counts] or [[] for _ in adapter.spec.seats]
        for p, _i, a in plays:
            counts[p].append(a)
        m.counts = tuple(tuple(c) for c in counts)
        try:
            for p, i, _a in plays:
                m.game.apply_index(p, i)
        except TurnLimit:
            m.cut = True
        m.moves += 1
        if m.moves >= adapter.max_moves and not m.game.finished:
            m.cut = True
        m.traces = tuple(
            (*trace, f"{taken.get(p, '-')} {digest(observation_text(m.game, p))}")
            for p, trace in enumerate(m.traces)
        )

    # -- outcome
    def returns(self) -> list[float]:
        return returns_of(self.match.game, truncated=self.match.cut)

    def __str__(self) -> str:
        """The whole position as a save by field name (every secret included), without the
        log, which only grows (a clone shares it)."""
        m = self.match
        S = m.game.raw[:]
        S[LOG] = None
        head = f"moves {m.moves}{' (cut short)' if m.cut else ''}\n"
        return head + json.dumps(save(m.game.spec, S), separators=(",", ":"))


class Observer:
    """OpenSpiel's Python observer: the default one gives observations, the perfect-recall one
    information states; with ``private_info`` NONE it shows what a spectator sees now (and
    no player's own moves)."""

    def __init__(self, game: RulecraftGame, iig_obs_type: Any) -> None:
        self.game = game
        self.recall = bool(iig_obs_type.perfect_recall)
        self.public = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        n = game.encoder.size
        size = n + (game.actions.size if self.recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:n]}
        if self.recall:
            self.dict["own_actions"] = self.tensor[n:]

    def set_from(self, state: RulecraftState, player: int) -> None:
        viewer = None if self.public else player
        self.game.encoder.encode(state.match.game, viewer, self.dict["observation"])
        if self.recall:
            own = self.dict["own_actions"]
            own.fill(0)
            counts = state.match.counts
            if counts and not self.public:
                for a in counts[player]:
                    own[a] += 1

    def string_from(self, state: RulecraftState, player: int) -> str:
        viewer = None if self.public else player
        now = observation_text(state.match.game, viewer)
        if not self.recall or self.public:
            return now  # a spectator's observation: no one's trace
        seat = self.game.spec.seats[player]
        m = state.match
        start = digest(observation_text(m.start, viewer))
        return "\n".join((f"seat {seat}", f"start {start}", *m.traces[player], now))


def load_game(name: str, **params: Any) -> Any:
    """``pyspiel.load_game("rulecraft", {"game": name, **params})``."""
    return pyspiel.load_game("rulecraft", {"game": name, **params})


pyspiel.register_game(GAME_TYPE, RulecraftGame)
