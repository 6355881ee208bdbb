"""Bots. An agent sees only its player's view and the decision: never the true state.

``choose(view, decision, spec) -> option id``: ``view`` is the compact view of the agent's
player (:meth:`Game.view_state`), given only to agents that ``needs_view``.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from ..game import Decision
from ..layout import LIMIT, PENDING, RESULT, TURN
from ..machine import DeadEnd, GameError, TurnLimit, answer, playout, run
from ..spec import GameSpec
from ..view import determinize

__all__ = ["Agent", "RandomAgent", "MonteCarloAgent", "make_agent", "AGENTS", "score", "apply_id"]


class Agent(Protocol):
    """``needs_view``: whether ``choose`` reads its ``view``. Drivers build the view only for
    agents that need it and pass None to the others; an agent without the attribute is
    treated as needing it. Either way an agent never gets the true state."""

    needs_view: bool

    def choose(self, view: list[Any] | None, decision: Decision, spec: GameSpec) -> str:
        """The id of the option to take."""
        ...


class RandomAgent:
    """Uniform over the legal options, from its own generator; it does not look at the view."""

    needs_view = False

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: list[Any] | None, decision: Decision, spec: GameSpec) -> str:
        options = decision.options
        if decision.kind == "report" and self.rng.random() < 0.5:
            return "done"  # a random reporter: nothing changed, half of the time
        return options[self.rng.randrange(len(options))].id


def score(result: Any, player: int) -> float:
    """1 for a win (also a shared one), 0.5 for a tie the player is part of, else 0.

    ``result`` is ``(winners, tie, reason)`` as in a state, or the dict of ``Game.result``."""
    if isinstance(result, dict):
        winners, tie = result["winners"], result["tie"]
    else:
        winners, tie = result[0], result[1]
    if tie:
        return 0.5 if not winners or player in winners else 0.0
    return 1.0 if player in winners else 0.0


def apply_id(spec: GameSpec, S: list[Any], player: int, option_id: str) -> bool:
    """Answer ``player``'s pending decision in ``S`` with ``option_id`` and run the machine
    on (trusted: no validation beyond finding the option). False if there is no such option."""
    for k, d in enumerate(S[PENDING] or ()):
        if d[0] == player:
            found, value = spec.find_option(d, option_id, S)
            if not found:
                return False
            ready, v = answer(S, k, value, spec.sites[d[1]].simultaneous)
            if ready:
                run(spec, S, v)
            return True
    return False


class MonteCarloAgent:
    """Flat Monte Carlo: for each option, ``playouts`` random games from determinized views.

    A playout runs at most ``depth`` more turns and counts as a draw beyond them: in scenarios
    whose random games last hundreds of turns it would otherwise cost minutes."""

    needs_view = True

    #: a decision with more options than this (an allocation) is judged on a random sample
    sample = 24

    def __init__(self, seed: int, playouts: int = 16, depth: int = 100) -> None:
        self.rng = random.Random(seed)
        self.playouts = playouts
        self.depth = depth

    def choose(self, view: list[Any], decision: Decision, spec: GameSpec) -> str:
        options: Any = decision.options
        if len(options) == 1:
            return options[0].id
        if len(options) > self.sample:
            picks = sorted({self.rng.randrange(len(options)) for _ in range(self.sample)})
            options = [options[i] for i in picks]
        me = decision.player
        rng = self.rng
        rand = rng.random
        best, best_score = options[0].id, -1.0
        for opt in options:
            total = 0.0
            for _ in range(self.playouts):
                S = determinize(spec, view, rng)
                S[LIMIT] = min(S[LIMIT], S[TURN] + self.depth)
                try:
                    if not apply_id(spec, S, me, opt.id):
                        continue
                    playout(spec, S, rand)
                except (DeadEnd, TurnLimit):
                    # A determinized world deals the unseen cards at random and may be one
                    # the real history could not reach (a dead end), or a playout may run
                    # past its depth: it says nothing about this option.
                    total += 0.5
                    continue
                total += score(S[RESULT], me) if S[RESULT] is not None else 0.5
            if total > best_score:
                best, best_score = opt.id, total
        return best


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
