"""Bots. An agent sees only its player's view and the decision: never the true state.

``choose(view, decision, spec) -> option id``: ``view`` is the compact view of the agent's
player (:meth:`Game.view_state`), given only to agents that ``needs_view``.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from ..deals import carry_out, deal_id, is_deal, parties
from ..game import Decision
from ..layout import LIMIT, PENDING, RESULT, STACK, TURN
from ..machine import DECLINE_HALF, GameError, RulesError, answer, playout, run
from ..spec import GameSpec
from ..view import determinize

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


def offer_in(view: list[Any], player: int) -> Any:
    """The deal ``player`` is asked to answer: one in the locals of the routine waiting for
    the answer (the negotiation window), ``player`` a party to it."""
    st = view[STACK]
    if st is None:
        return None
    for x in st[0][2:]:
        if is_deal(x) and player in parties(x):
            return x
    return None


def trade(
    view: list[Any], decision: Decision, spec: GameSpec, rng: random.Random, sample: int = 40
) -> str | None:
    """A deal decision judged by the game's declared value (`negotiation: value:`): propose
    the sampled deal that raises the proposer's value most without lowering any other
    party's, or pass; accept an offer that does not lower one's own value. None: not a deal
    decision, or the game declares no value."""
    value = spec.engine.deal_value
    if value is None:
        return None
    me = decision.player
    engine = spec.engine
    if decision.kind == "yes-no":
        deal = offer_in(view, me)
        if deal is None:
            return None
        S = determinize(spec, view, rng)
        T = S[:]
        carry_out(engine, T, deal)
        return "yes" if value(T, me) >= value(S, me) else "no"
    if decision.kind != "propose":
        return None
    offers = next(d[2] for d in view[PENDING] if d[0] == me)  # its own: never hidden
    if len(offers) == 0:
        return "pass"
    S = determinize(spec, view, rng)
    base = {q: value(S, q) for q in range(len(spec.seats))}
    best, best_gain = None, 0
    for i in sorted({rng.randrange(len(offers)) for _ in range(min(sample, len(offers)))}):
        deal = offers[i]
        T = S[:]
        carry_out(engine, T, deal)
        gain = value(T, me) - base[me]
        if gain > best_gain and all(value(T, q) >= base[q] for q in parties(deal) if q != me):
            best, best_gain = deal, gain
    return "pass" if best is None else deal_id(spec, best)


def forced_or_traded(
    view: list[Any], decision: Decision, spec: GameSpec, rng: random.Random
) -> str | None:
    """What a searching bot answers without searching: the only option, or a deal judged by
    the game's declared value (:func:`trade`); None when it must search."""
    if len(decision.options) == 1:
        return decision.options[0].id
    return trade(view, decision, spec, rng)


def sample_options(n: int, sample: int, rng: random.Random) -> list[int]:
    """The indices of the options a searching bot judges: all ``n``, or at most ``sample``
    drawn at random when there are more (an allocation's splits)."""
    if n <= sample:
        return list(range(n))
    return sorted({rng.randrange(n) for _ in range(sample)})


class TraderAgent:
    """Trades by the game's declared value (see :func:`trade`); random otherwise."""

    needs_view = True

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.fallback = RandomAgent(seed + 1)

    def choose(self, view: list[Any], decision: Decision, spec: GameSpec) -> str:
        picked = trade(view, decision, spec, self.rng)
        return picked if picked is not None else self.fallback.choose(view, decision, spec)


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
