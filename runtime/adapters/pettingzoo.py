"""A PettingZoo AEC environment for every compiled scenario (extra `rulecraft[pettingzoo]`).

::

    env = RulecraftEnv("<game>/<scenario>")
    env.reset(seed=1)

- **Agents** are the seats (the ids of ``spec.seats``); the agent selected is a player the game
  waits for. A simultaneous decision (a secret pick) is asked of its players one after the
  other; none sees the others' answers before all have answered (the view hides them), and
  the game goes on when the last has answered.
- **Actions** are ``Discrete(n)``, the same numbering as the OpenSpiel adapter (see
  :mod:`.encoding`: an action per listable option id, then ``max_options`` numbered slots
  for numbers, allocations, reports and offers). An illegal action raises ``ValueError``.
- **Observations** are ``{"observation": int32 vector, "action_mask": int8 vector}``: the
  vector of :class:`~.encoding.ObservationEncoder` read from the agent's view (hidden
  values never reach it), and the legal actions of the agent now (all zeros when the game
  does not wait for it). ``infos[agent]`` holds the prompt and the option ids of its
  decision.
- **Rewards**, at the end only: a win 1 (each winner of a shared victory gets 1), a loss -1;
  in a tie the tied seats 0, the others -1. The game is *truncated* (rewards 0) after
  ``max_moves`` decisions or when it runs past the scenario's turn limit.
- The dice come from the engine's generator: ``reset(seed=s)`` plays the same game for the
  same decisions.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces  # type: ignore[import-untyped, import-not-found, unused-ignore]
from pettingzoo import AECEnv  # type: ignore[import-untyped, import-not-found, unused-ignore]

from ..game import Game
from ..machine import TurnLimit
from ..registry import load_spec, resolve
from .encoding import ActionMap, Legal, ObservationEncoder, option_id, returns_of

__all__ = ["RulecraftEnv", "env"]


class RulecraftEnv(AECEnv):  # type: ignore[misc]
    """One compiled scenario as an AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "name": "rulecraft_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        name: str,
        max_options: int = 64,
        max_moves: int = 10_000,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        spec, scenario = resolve(name)
        if scenario != spec.scenario:
            spec = load_spec(spec.game, scenario)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']}")
        self.spec = spec
        self.render_mode = render_mode
        self.max_moves = max_moves
        self.actions = ActionMap(spec, max_options)
        self.encoder = ObservationEncoder(spec)
        self.possible_agents = list(spec.seats)
        self._player = {seat: i for i, seat in enumerate(spec.seats)}
        vector = spaces.Box(
            low=self.encoder.low.astype(np.int32),
            high=self.encoder.high.astype(np.int32),
            dtype=np.int32,
        )
        mask = spaces.Box(low=0, high=1, shape=(self.actions.size,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": vector, "action_mask": mask})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.actions.size) for a in self.possible_agents}
        self._rng = random.Random()
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- the game
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = Game.new(self.spec, None, self._rng.getrandbits(63))
        self.moves = 0
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._legal: dict[int, Legal] = {}
        self._next()

    def _next(self) -> None:
        """Select the next agent the game waits for; fill in the infos."""
        game = self.game
        assert game is not None
        self._legal = {legal.player: legal for legal in self.actions.legal(game)}
        for a in self.agents:
            self.infos[a] = {}
        for d in game.pending():
            self.infos[d.seat] = {"prompt": d.prompt, "kind": d.kind}
        if self._legal:
            self.agent_selection = self.spec.seats[next(iter(self._legal))]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.game is not None
        player = self._player[agent]
        vector = np.zeros(self.encoder.size, dtype=np.int32)
        self.encoder.encode(self.game, player, vector)
        return {"observation": vector, "action_mask": self.actions.mask(self._legal.get(player))}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None
        player = self._player[agent]
        legal = self._legal[player]
        index = legal.option_index(int(action))
        if index is None:
            raise ValueError(f"action {action} is not legal for {agent} now")
        self._cumulative_rewards[agent] = 0.0
        cut = False
        try:
            game.apply_index(player, index)
        except TurnLimit:
            cut = True
        self.moves += 1
        cut = cut or (self.moves >= self.max_moves and not game.finished)
        if cut or game.finished:
            for a, r in zip(self.possible_agents, returns_of(game, truncated=cut), strict=True):
                if a in self.rewards:
                    self.rewards[a] = r
                    self.terminations[a] = not cut
                    self.truncations[a] = cut
            self._legal = {}
            self.agent_selection = self.agents[0]
        else:
            self._clear_rewards()
            self._next()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def option_of(self, agent: str, action: int) -> str:
        """The option id ``action`` chooses for ``agent`` now."""
        assert self.game is not None
        legal = self._legal.get(self._player[agent])
        index = legal.option_index(action) if legal else None
        if index is None:
            raise ValueError(f"action {action} is not legal for {agent} now")
        return option_id(self.game, self._player[agent], index)

    def render(self) -> str | None:
        """The log lines a spectator reads and who the game waits for."""
        if self.game is None:
            return None
        lines = self.game.log_for(None)[-10:]
        waiting = ", ".join(d.seat for d in self.game.pending())
        lines.append(
            f"result: {self.game.result}" if self.game.finished else f"waiting for {waiting}"
        )
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.game = None


def env(name: str, **kwargs: Any) -> RulecraftEnv:
    """``RulecraftEnv(name, **kwargs)``, as PettingZoo environments are made."""
    return RulecraftEnv(name, **kwargs)
