"""Hidden information in The March of Progress: hands and face-down cards stay secret.

A player may see everything except the other player's hand, the other's face-down played card
(until the reveal) and the generator state / seed.
"""

from __future__ import annotations

import random

from mop_helpers import (
    BLUE,
    CARD,
    CARDS,
    ORANGE,
    SCENARIO,
    SPEC,
    new_game,
    pick,
    play_random,
    reask,
)
from rulecraft.runtime import Game, determinize
from rulecraft.runtime.tools.agents import RandomAgent


def blue_picked(seed: int = 1, card: str = "fortify") -> Game:
    """Blue has played a card face down; Orange has not picked yet."""
    g = new_game(seed)
    g.apply(BLUE, "card:" + card)
    return g


def other_secrets(g: Game, secret: int, card: str) -> Game:
    """The same game except for what ``1 - secret`` cannot see: ``secret``'s face-down card
    is ``card`` and the generator state and seed differ."""
    h = g.clone()
    # until both have picked, a face-down card is the recorded answer of the simultaneous pick
    assert str(secret) in h.state["answers"]
    h.state["answers"][str(secret)] = CARD[card]
    h.state["rng"] ^= 0xDEADBEEF
    h.state["seed"] += 17
    return h


def test_view_same_when_only_the_others_face_down_card_differs():
    """Rules: MOP-SEQ-01"""
    g = blue_picked(card="fortify")
    h = other_secrets(g, BLUE, "attack")
    assert g.state["answers"] != h.state["answers"]
    assert g.view(ORANGE) == h.view(ORANGE)
    assert g.view(None) == h.view(None)
    assert g.view(BLUE) != h.view(BLUE)


def test_view_same_when_only_the_others_hand_differs():
    """Rules: MOP-SEQ-01"""
    g = new_game(4)
    pick(g, "fortify", "recruit")
    g.apply(BLUE, "army:blue_1")
    h = g.clone()
    # Orange's hand swapped for another of the same size (the discard pile is public; a hand
    # is a set: one card is swapped for a card not in it)
    hand = list(h.state["p"][ORANGE]["hand"])
    other = next(c for c in range(len(CARDS)) if c not in hand)
    h.state["p"][ORANGE]["hand"] = [other, *hand[1:]]
    h.state["rng"] += 1
    h.state["seed"] = 999
    assert g.view(BLUE) == h.view(BLUE)
    assert g.view(ORANGE) != h.view(ORANGE)


def test_view_same_across_seeds_with_the_same_public_history():
    """Two games with different seeds but the same initiative roll and hands look the same."""
    g = new_game(1)
    h = new_game(1)
    h.state["rng"] = 12345
    h.state["seed"] = 2
    for p in (BLUE, ORANGE, None):
        assert g.view(p) == h.view(p)
        V = g.view(p)
        assert "rng" not in V and V["seed"] is None


def test_hand_hidden_from_the_other_player_and_shown_to_its_owner():
    """Rules: MOP-SEQ-01"""
    g = blue_picked()
    VO = g.view(ORANGE)
    assert VO["p"][BLUE]["hand"] == {"hidden": 8}
    assert VO["p"][BLUE]["played"] == {"hidden": 0}
    assert VO["answers"] == {}
    VB = g.view(BLUE)
    assert VB["answers"] == {str(BLUE): CARD["fortify"]}
    # once both have picked, the card lies face down... and is revealed at once
    h = g.clone()
    h.apply(ORANGE, "card:recruit")
    assert h.view(ORANGE)["p"][BLUE]["revealed"] == [CARD["fortify"]]
    assert VB["p"][ORANGE]["hand"] == {"hidden": 8}
    # Orange's pending options (its hand) are hidden from Blue
    assert all("options" not in d for d in VB["pending"] if d["player"] == ORANGE)
    assert any("options" in d for d in VO["pending"] if d["player"] == ORANGE)


def test_log_never_names_the_other_face_down_card_before_reveal():
    """Rules: MOP-SEQ-01, MOP-SEQ-02"""
    for seed in range(30):
        g = new_game(seed)
        rng = random.Random(seed)
        for _turn in range(12):
            if g.finished:
                break
            picks = {}
            for p in (BLUE, ORANGE):
                opts = g.legal(p)
                picks[p] = opts[rng.randrange(len(opts))]
            start = len(g.state["log"])
            g.apply(BLUE, picks[BLUE].id)
            # before the reveal Orange's log does not name Blue's card
            assert g.log_for(ORANGE)[start:] == []
            assert g.log_for(BLUE)[start:] == []
            g.apply(ORANGE, picks[ORANGE].id)
            lines = g.state["log"][start:]
            reveal = next(i for i, (t, _) in enumerate(lines) if " reveals " in t)
            for p in (BLUE, ORANGE):
                q = 1 - p
                seen = [t for t, a in lines[:reveal] if a is None or p in a]
                name = picks[q].label
                assert not any(name in t for t in seen if not t.startswith("You play")), seen
                assert f"You play {picks[p].label} face down" in seen
                assert f"You play {name} face down" not in seen or name == picks[p].label
            # finish the turn at random
            while not g.finished and len(g.pending()) == 1:
                d = g.pending()[0]
                g.apply(d.player, d.options[rng.randrange(len(d.options))].id)


def test_bot_input_never_contains_the_others_hand():
    """A random agent's view: the other player's hand and face-down card are placeholders."""
    g = new_game(9)
    rng = random.Random(3)
    checked = 0
    while not g.finished and checked < 400:
        for d in g.pending():
            V = g.view(d.player)
            other = V["p"][1 - d.player]
            assert other["hand"] == {"hidden": len(g.state["p"][1 - d.player]["hand"])}
            assert other["played"] == {"hidden": len(g.state["p"][1 - d.player]["played"])}
            assert "rng" not in V and V["seed"] is None
            assert set(V["answers"]) <= {str(d.player)}
            checked += 1
        d = g.pending()[rng.randrange(len(g.pending()))]
        agent = RandomAgent(rng.randrange(1 << 30))
        oid = agent.choose(g.view_state(d.player), _raw(g, d.player), SPEC)
        g.apply(d.player, oid)
    assert checked > 20


def _raw(g: Game, player: int):
    for d in g.pending():
        if d.player == player:
            return d
    raise AssertionError


def test_discard_piles_visible_to_both():
    """Rules: MOP-SEQ-05"""
    g = new_game(2)
    pick(g, "fortify", "recruit")
    g.apply(BLUE, "army:blue_1")
    for p in (BLUE, ORANGE, None):
        V = g.view(p)
        assert V["p"][BLUE]["discard"] == [CARD["fortify"]]
        assert V["p"][ORANGE]["discard"] == [CARD["recruit"]]


def test_determinize_never_uses_the_hidden_truth():
    """determinize(view) gives the same state for two truths that look the same to the viewer."""
    g = blue_picked(5, "fortify")
    h = other_secrets(g, BLUE, "attack_plus_1")
    assert g.view(ORANGE) == h.view(ORANGE)
    Vg, Vh = g.view_state(ORANGE), h.view_state(ORANGE)
    assert Vg == Vh
    for k in range(20):
        Sg = determinize(SPEC, Vg, random.Random(k))
        Sh = determinize(SPEC, Vh, random.Random(k))
        assert Sg == Sh
        Dg = Game(SPEC, Sg).state
        # consistent with the view: Orange's own cards are the truth, Blue's sizes are kept
        assert Dg["p"][ORANGE]["hand"] == g.state["p"][ORANGE]["hand"]
        assert len(Dg["p"][BLUE]["hand"]) + len(Dg["p"][BLUE]["played"]) == 8
        assert sorted(
            Dg["p"][BLUE]["hand"] + Dg["p"][BLUE]["played"] + Dg["p"][BLUE]["discard"]
        ) == sorted(Dg["p"][BLUE]["cards"])
        assert Dg["rng"] != g.state["rng"]


def test_determinize_mid_game_keeps_public_facts():
    g = Game.new(SPEC, SCENARIO, 77)
    rng = random.Random(1)
    for _ in range(25):
        d = g.pending()[0]
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
        if g.finished:
            break
    for p in (BLUE, ORANGE):
        S = determinize(SPEC, g.view_state(p), random.Random(2))
        D = Game(SPEC, S).state
        assert D["p"][1 - p]["discard"] == g.state["p"][1 - p]["discard"]
        assert D["p"][p]["hand"] == g.state["p"][p]["hand"]
        assert D["e"] == g.state["e"] and D["g"] == g.state["g"]
        assert len(D["p"][1 - p]["hand"]) == len(g.state["p"][1 - p]["hand"])
        # a game continued from the determinized state runs to its end
        play_random(Game(SPEC, S), random.Random(3))


def test_reask_keeps_view_equal():
    """Re-asking a pick (helpers) changes nothing a player can see."""
    g = new_game(6)
    before = g.view(BLUE)
    reask(g)
    assert g.view(BLUE) == before
