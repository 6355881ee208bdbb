"""How bots judge what they do not search: a deal by the game's declared value
(:func:`trade`), the only option (:func:`forced_or_traded`), which options to try
(:func:`sample_options`) and what a finished game is worth to a player (:func:`score`).
Shared by the Monte Carlo bots of :mod:`.agents` and the ISMCTS bot of :mod:`.ismcts`."""

from __future__ import annotations

import random
from typing import Any

from ..deals import deal_id, is_deal, parties, try_out
from ..game import Decision
from ..layout import PENDING, STACK
from ..spec import GameSpec
from ..view import determinize

__all__ = ["forced_or_traded", "offer_in", "sample_options", "score", "trade"]


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
        try_out(engine, T, deal)
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
        try_out(engine, T, deal)
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
