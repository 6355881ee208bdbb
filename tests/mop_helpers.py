"""Helpers for The March of Progress tests: set up positions and play turns like the rulebook.

A position is set up while both players stand at the simultaneous card pick (the first decision
after set-up is the pick of turn 1): edit the state with the helpers below, then call
``pick(g, blue_card, orange_card)`` and answer the decisions that follow with ``answer``.
"""

from __future__ import annotations

import random
from typing import Any

from rulecraft.generated.march_of_progress import SPEC
from rulecraft.generated.march_of_progress import thirty_years_war as engine
from rulecraft.runtime import Game

SCENARIO = "thirty_years_war"
BLUE, ORANGE = 0, 1
PLAYERS = (BLUE, ORANGE)
BLUE_HOME, NEUTRAL, ORANGE_HOME = 0, 1, 2
STOCK = None
CARDS = tuple(engine.CARD_ID)  # card number -> card id
CARD = {cid: i for i, cid in enumerate(CARDS)}  # card id -> card number
ALL_CARDS = list(CARDS)


# -- starting a game ---------------------------------------------------------------------------
def new_game(seed: int = 1, initiative: int | None = None) -> Game:
    """A fresh Thirty Years War game at the pick of turn 1; optionally force the initiative."""
    g = Game.new(SPEC, SCENARIO, seed)
    if initiative is not None:
        g.state["g"]["initiative"] = initiative
    return g


def reask(g: Game) -> None:
    """Ask the pending decision again after the state was edited (options follow the state)."""
    g.reask()


# -- reading the state -------------------------------------------------------------------------
def army(g: Game, aid: str) -> dict[str, Any]:
    for a in g.state["e"]["army"]:
        if a["id"] == aid:
            return a
    raise KeyError(aid)


def country(g: Game, c: int) -> dict[str, Any]:
    return g.state["e"]["country"][c]


def location(g: Game, aid: str) -> int | None:
    return army(g, aid)["location"]


def armies_of(g: Game, p: int, where: Any = "any") -> list[str]:
    """Ids of player ``p``'s armies in play (or at ``where``; STOCK = None for the stock)."""
    out = []
    for a in g.state["e"]["army"]:
        if a["owner"] != p:
            continue
        if where == "any" and a["location"] is not None:
            out.append(a["id"])
        elif where != "any" and a["location"] == where:
            out.append(a["id"])
    return out


def vp(g: Game, p: int) -> int:
    return g.state["p"][p]["vp"]


def strength(g: Game, p: int) -> int:
    return g.state["p"][p]["strength"]


def vp_die(g: Game, c: int) -> int:
    return country(g, c)["vp_die"]


def cards(g: Game, p: int, zone: str) -> list[str]:
    """Card ids in a zone (hand, played, revealed, discard, cards) of player ``p``, sorted."""
    return sorted(CARDS[c] for c in g.state["p"][p][zone])


def initiative(g: Game) -> int:
    return g.state["g"]["initiative"]


# -- editing the state -------------------------------------------------------------------------
def place(g: Game, aid: str, where: int | None, fortified: bool = False, on_capital: bool = False):
    """Put army ``aid`` on a country (None: back to the stock)."""
    a = army(g, aid)
    a["location"] = where
    a["fortified"] = fortified and where is not None
    a["on_capital"] = on_capital and where is not None


def set_hand(g: Game, p: int, hand: list[str], discard: list[str] | None = None) -> None:
    """Give player ``p`` exactly ``hand``; the other cards go to the discard pile (or are
    ``discard`` if given). Re-asks the pick so the offered cards follow."""
    P = g.state["p"][p]
    if discard is None:
        discard = [c for c in ALL_CARDS if c not in hand]
    P["hand"] = [CARD[c] for c in hand]
    P["discard"] = [CARD[c] for c in discard]
    if g.state["pending"]:
        reask(g)


def set_vps(g: Game, blue: int, orange: int, stock: int | None = None) -> None:
    """Set both players' VPs; the stock keeps the total at 35 unless given."""
    g.state["p"][BLUE]["vp"] = blue
    g.state["p"][ORANGE]["vp"] = orange
    g.state["g"]["vp_stock"] = 35 - blue - orange if stock is None else stock


# -- playing -----------------------------------------------------------------------------------
def options(g: Game, player: int | None = None) -> list[str]:
    """Option ids of the pending decision of ``player`` (default: the only pending decision)."""
    pend = g.pending()
    if player is None:
        assert len(pend) == 1, f"expected 1 pending decision, got {pend}"
        return [o.id for o in pend[0].options]
    return [o.id for o in g.legal(player)]


def decision(g: Game):
    """The single pending decision."""
    pend = g.pending()
    assert len(pend) == 1, f"expected 1 pending decision, got {pend}"
    return pend[0]


def answer(g: Game, *ids: str) -> None:
    """Answer the pending (single) decisions in turn with option ids."""
    for oid in ids:
        d = decision(g)
        g.apply(d.player, oid)


def pick(g: Game, blue: str, orange: str) -> None:
    """Both players pick their card for the turn (card ids such as ``move_2``)."""
    kinds = sorted((d.player, d.kind) for d in g.pending())
    assert kinds == [(BLUE, "choose-card"), (ORANGE, "choose-card")], kinds
    g.apply(BLUE, "card:" + blue)
    g.apply(ORANGE, "card:" + orange)


def at_pick(g: Game) -> bool:
    """Whether the game waits for the simultaneous card pick of a new turn."""
    return sorted((d.player, d.kind) for d in g.pending()) == [
        (BLUE, "choose-card"),
        (ORANGE, "choose-card"),
    ]


def new_log(g: Game, since: int) -> list[str]:
    """Public and private log lines (text only) appended since index ``since``."""
    return [t for t, _ in g.state["log"][since:]]


def mark(g: Game) -> int:
    return len(g.state["log"])


def play_random(g: Game, rng: random.Random, on_step=None, max_steps: int = 100000) -> list:
    """Play uniform random legal options for every seat until the end; return the decisions
    taken as (player, option id). ``on_step(g)`` runs after every decision."""
    taken = []
    for _ in range(max_steps):
        if g.finished:
            return taken
        pend = g.pending()
        assert pend, "a running game has no pending decision"
        d = pend[0] if len(pend) == 1 else pend[rng.randrange(len(pend))]
        oid = d.options[rng.randrange(len(d.options))].id
        g.apply(d.player, oid)
        taken.append((d.player, oid))
        if on_step is not None:
            on_step(g)
    raise AssertionError("game did not finish")


def replay(g: Game, decisions) -> None:
    for p, oid in decisions:
        g.apply(p, oid)
