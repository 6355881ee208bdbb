"""Bots. An agent sees only its player's view and the decision: never the true state.

``choose(view, decision, spec) -> option id``: ``view`` is the compact view of the agent's
player (:meth:`Game.view_state`), given only to agents that ``needs_view``.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from ..game import Decision
from ..layout import LIMIT, PENDING, RESULT, TURN
from ..machine import DECLINE_HALF, GameError, RulesError, answer, playout, run
from ..spec import GameSpec
from ..view import determinize
from .judging import forced_or_traded, offer_in, sample_options, score, trade

__all__ = [
    "Agent",
    "RandomAgent",
    "MonteCarloAgent",
    "TraderAgent",
    "make_agent",
    "AGENTS",
    "AGENT_NAMES",
    "score",
    "apply_id",
    "trade",
    "offer_in",
]


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
        if decision.kind in DECLINE_HALF and self.rng.random() < 0.5:
            return options[len(options) - 1].id  # nothing changed, or pass
        return options[self.rng.randrange(len(options))].id


class TraderAgent:
    """Trades by the game's declared value (see :func:`trade`); random otherwise."""

    needs_view = True

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.fallback = RandomAgent(seed + 1)

    def choose(self, view: list[Any], decision: Decision, spec: GameSpec) -> str:
        picked = trade(view, decision, spec, self.rng)
        return picked if picked is not None else self.fallback.choose(view, decision, spec)


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
        picked = forced_or_traded(view, decision, spec, self.rng)
        if picked is not None:
            return picked
        options: Any = decision.options
        if len(options) > self.sample:
            options = [options[i] for i in sample_options(len(options), self.sample, self.rng)]
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
                except RulesError:
                    # A determinized world deals the unseen cards at random and holds
                    # stand-ins for the hidden values in the routines' locals: it may be one
                    # the real history could not reach (a dead end, a card not where a
                    # routine holds it), or a playout may run past its depth: it says nothing
                    # about this option.
                    total += 0.5
                    continue
                total += score(S[RESULT], me) if S[RESULT] is not None else 0.5
            if total > best_score:
                best, best_score = opt.id, total
        return best


AGENTS = {"random": RandomAgent, "mc": MonteCarloAgent, "trader": TraderAgent}


#: the most playouts per option a Monte Carlo bot may be given (a bound on its thinking time:
#: a decision of ten options then takes some seconds, not hours)
MAX_PLAYOUTS = 10_000


#: the names :func:`make_agent` knows, as its error message and the command's help list them
AGENT_NAMES = "random, mc, mc:PLAYOUTS, ismcts, ismcts:ITERATIONS, ismcts:SECONDSs, trader"


def make_agent(name: str, seed: int) -> Any:
    """An agent by name: ``random``, ``mc``, ``mc:PLAYOUTS``, ``ismcts``,
    ``ismcts:ITERATIONS``, ``ismcts:SECONDSs`` (a time budget per decision, ``ismcts:2s``,
    ``ismcts:0.5s``) or ``trader``."""
    kind, _, arg = name.partition(":")
    if kind == "ismcts":
        from .ismcts import MAX_ITERATIONS, MAX_SECONDS, ISMCTSAgent

        if not arg:
            return ISMCTSAgent(seed)
        if arg.isascii() and arg.isdigit() and len(arg) <= 7 and 1 <= int(arg) <= MAX_ITERATIONS:
            return ISMCTSAgent(seed, int(arg))
        number = arg[:-1]
        if (
            arg.endswith("s")
            and number.replace(".", "", 1).isdigit()
            and number.isascii()
            and len(number) <= 8
            and 0 < float(number) <= MAX_SECONDS
        ):
            return ISMCTSAgent(seed, seconds=float(number))
        raise GameError(
            f"bad agent {name!r}: write ismcts, ismcts:ITERATIONS with ITERATIONS from 1 to "
            f"{MAX_ITERATIONS:,}, or ismcts:SECONDSs (seconds per decision, above 0 and at "
            f"most {MAX_SECONDS:g}: ismcts:2s, ismcts:0.5s)"
        )
    if kind == "mc":
        if not arg:
            return MonteCarloAgent(seed)
        if not (arg.isascii() and arg.isdigit() and len(arg) <= 6) or not (
            1 <= int(arg) <= MAX_PLAYOUTS
        ):
            raise GameError(
                f"bad agent {name!r}: write mc, or mc:PLAYOUTS with PLAYOUTS from 1 to "
                f"{MAX_PLAYOUTS:,}"
            )
        return MonteCarloAgent(seed, int(arg))
    if kind == "random" and not arg:
        return RandomAgent(seed)
    if kind == "trader" and not arg:
        return TraderAgent(seed)
    raise GameError(f"unknown agent {name!r} (known: {AGENT_NAMES})")
