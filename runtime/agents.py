"""Bots. An agent sees only ``(view, decision, spec)``: never the true state."""

from __future__ import annotations

import random
from typing import Any, Protocol

from .game import Decision
from .machine import DeadEnd, GameError, State, TurnLimit, answer, run
from .spec import GameSpec
from .view import determinize

__all__ = ["Agent", "RandomAgent", "MonteCarloAgent", "make_agent", "AGENTS", "playout", "score"]


class Agent(Protocol):
    """``needs_view``: whether ``choose`` reads its ``view``. Drivers build the view (a copy of
    everything the player may see) only for agents that need it and pass None to the others;
    an agent without the attribute is treated as needing it. Either way an agent never gets
    the true state."""

    needs_view: bool

    def choose(self, view: dict[str, Any] | None, decision: Decision, spec: GameSpec) -> str:
        """The id of the option to take."""
        ...


class RandomAgent:
    """Uniform over the legal options, from its own generator; it does not look at the view."""

    needs_view = False

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any] | None, decision: Decision, spec: GameSpec) -> str:
        options = decision.options
        return options[self.rng.randrange(len(options))].id


def score(result: dict[str, Any], player: int) -> float:
    """1 for a win (also a shared one), 0.5 for a tie the player is part of, else 0."""
    winners = result["winners"]
    if result["tie"]:
        return 0.5 if not winners or player in winners else 0.0
    return 1.0 if player in winners else 0.0


def playout(S: State, spec: GameSpec, rng: random.Random) -> dict[str, Any]:
    """Play ``S`` to the end with uniformly random decisions (in place); the result."""
    blocks = spec.blocks
    max_turns = spec.scenarios[S["scenario"]].max_turns
    origins = spec.origins
    rand = rng.random
    while S["result"] is None:
        options = S["pending"][0]["options"]
        answer(S, 0, options[int(rand() * len(options))])
        if S["pending"] is None:
            run(S, blocks, max_turns, origins)
    return S["result"]


class MonteCarloAgent:
    """Flat Monte Carlo: for each option, ``playouts`` random games from determinized views."""

    needs_view = True

    def __init__(self, seed: int, playouts: int = 16, depth: int = 400) -> None:
        self.rng = random.Random(seed)
        self.playouts = playouts
        # A playout stops after this many decisions and counts as a draw: in scenarios
        # whose random games run for hundreds of turns it would otherwise cost minutes.
        self.depth = depth

    def choose(self, view: dict[str, Any], decision: Decision, spec: GameSpec) -> str:
        options = decision.options
        if len(options) == 1:
            return options[0].id
        me = decision.player
        rng = self.rng
        rand = rng.random
        blocks = spec.blocks
        origins = spec.origins
        max_turns = spec.scenarios[view["scenario"]].max_turns
        # Blocks only append to the log; a playout never reads it, so do not copy it
        # (determinize copies its whole input) for every playout.
        if view.get("log"):
            view = dict(view)
            view["log"] = []
        best, best_score = options[0].id, -1.0
        for opt in options:
            oid = opt.id
            total = 0.0
            for _ in range(self.playouts):
                S = determinize(view, spec, rng)
                if not _apply(S, me, oid):
                    continue
                try:
                    # the bare machine loop (as in :func:`playout`), inlined
                    if S["pending"] is None:
                        run(S, blocks, max_turns, origins)
                    left = self.depth
                    while S["result"] is None and left:
                        choices = S["pending"][0]["options"]
                        answer(S, 0, choices[int(rand() * len(choices))])
                        if S["pending"] is None:
                            run(S, blocks, max_turns, origins)
                        left -= 1
                    if S["result"] is None:
                        total += 0.5
                        continue
                except (DeadEnd, TurnLimit):
                    # A determinized world deals the unseen cards at random and may be one
                    # the real history could not reach (a dead end), or a playout may run
                    # past the turn limit: it says nothing about this option.
                    total += 0.5
                    continue
                total += score(S["result"], me)
            if total > best_score:
                best, best_score = oid, total
        return best


def _apply(S: State, player: int, option_id: str) -> bool:
    for k, d in enumerate(S["pending"] or ()):
        if d["player"] == player:
            for opt in d["options"]:
                if opt[0] == option_id:
                    answer(S, k, opt)
                    return True
    return False


AGENTS = {"random": RandomAgent, "mc": MonteCarloAgent}


def make_agent(name: str, seed: int) -> RandomAgent | MonteCarloAgent:
    """An agent by name: ``random``, ``mc`` or ``mc:PLAYOUTS``."""
    kind, _, arg = name.partition(":")
    if kind == "mc":
        if arg and not arg.isdigit():
            raise GameError(f"bad agent {name!r}: write mc or mc:PLAYOUTS")
        return MonteCarloAgent(seed, int(arg)) if arg else MonteCarloAgent(seed)
    if kind == "random" and not arg:
        return RandomAgent(seed)
    raise GameError(f"unknown agent {name!r} (known: random, mc, mc:PLAYOUTS)")
