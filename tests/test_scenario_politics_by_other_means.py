"""The March of Progress, Politics By Other Means (3 players), checked rule by rule.

Blue and Orange play the Thirty Years War; the Neutral player (seat ``neutral_player``) plays
the neutral country with PROPAGANDA, PARTISANS and MILITIA. Positions are set up at the pick
of turn 1, where all three seats pick at once, then the pick is asked again (``reask``).
Each test names the rules-index items it checks in the last line of its docstring.
"""

from __future__ import annotations

import importlib
import json
import os
import random
from collections import Counter

import pytest
from mop_helpers import play_random, replay
from rulecraft.runtime import Game, resolve

SCENARIO = "politics_by_other_means"
SPEC, _SC = resolve("march_of_progress/" + SCENARIO)
engine = importlib.import_module("rulecraft.generated.march_of_progress." + SCENARIO)
CARDS = tuple(engine.CARD_ID)
CARD = {cid: i for i, cid in enumerate(CARDS)}
BLUE, ORANGE, NP = 0, 1, 2
POWERS = (BLUE, ORANGE)
BLUE_HOME, NEUTRAL, ORANGE_HOME = 0, 1, 2
BASE = ["move_1", "move_2", "recruit", "fortify", "attack", "attack_plus_1", "strength", "score"]
NEUTRAL_CARDS = ["propaganda", "partisans", "militia"]
TOTAL_VPS = 37


# -- helpers -------------------------------------------------------------------------------------
def new_game(seed: int = 1, initiative: int | None = BLUE) -> Game:
    g = Game.new(SPEC, SCENARIO, seed)
    if initiative is not None:
        g.state["g"]["initiative"] = initiative
    return g


def reask(g: Game) -> None:
    """Ask the pending decision again after the state was edited (options follow the state)."""
    g.reask()


def army(g: Game, aid: str) -> dict:
    return next(a for a in g.state["e"]["army"] if a["id"] == aid)


def place(g: Game, aid: str, where: int | None, fortified: bool = False) -> None:
    a = army(g, aid)
    a["location"] = where
    a["fortified"] = fortified and where is not None
    a["on_capital"] = False


def neutral(g: Game) -> dict:
    return g.state["e"]["country"][NEUTRAL]


def set_hand(g: Game, p: int, hand: list[str]) -> None:
    """Power ``p`` holds exactly ``hand``; its other cards are in its discard pile."""
    P = g.state["p"][p]
    P["hand"] = [CARD[c] for c in hand]
    P["discard"] = [CARD[c] for c in BASE if c not in hand]


def setup(g: Game, **kw) -> None:
    """Edit globals/players then re-ask the pick: vps=(b, o, n), stock=, cubes=, level=."""
    S = g.state
    if "vps" in kw:
        for p, v in zip((BLUE, ORANGE, NP), kw["vps"], strict=True):
            S["p"][p]["vp"] = v
    if "cubes" in kw:
        neutral(g)["cubes"] = kw["cubes"]
    if "level" in kw:
        S["g"]["propaganda_level"] = kw["level"]
    if "stock" in kw:
        S["g"]["vp_stock"] = kw["stock"]
    else:
        S["g"]["vp_stock"] = (
            TOTAL_VPS - sum(P["vp"] for P in S["p"]) - sum(c["cubes"] for c in S["e"]["country"])
        )
    reask(g)


def pick(g: Game, blue: str, orange: str, neutral_card: str) -> None:
    kinds = sorted((d.player, d.kind) for d in g.pending())
    assert kinds == [(BLUE, "choose-card"), (ORANGE, "choose-card"), (NP, "choose-card")], kinds
    g.apply(BLUE, "card:" + blue)
    g.apply(ORANGE, "card:" + orange)
    g.apply(NP, "card:" + neutral_card)


def decision(g: Game):
    pend = g.pending()
    assert len(pend) == 1, f"expected 1 pending decision, got {pend}"
    return pend[0]


def options(g: Game) -> list[str]:
    return [o.id for o in decision(g).options]


def answer(g: Game, *ids: str) -> None:
    for oid in ids:
        d = decision(g)
        g.apply(d.player, oid)


def mark(g: Game) -> int:
    return len(g.state["log"])


def new_log(g: Game, since: int) -> list[str]:
    """Public log lines appended since index ``since``."""
    return [t for t, aud in g.state["log"][since:] if aud is None]


def at_pick(g: Game) -> bool:
    return sorted((d.player, d.kind) for d in g.pending()) == [
        (BLUE, "choose-card"),
        (ORANGE, "choose-card"),
        (NP, "choose-card"),
    ]


def strength_back(g: Game) -> None:
    """Orange takes its STRENGTH card back into hand (to play it again next turn)."""
    P = g.state["p"][ORANGE]
    P["discard"].remove(CARD["strength"])
    P["hand"].append(CARD["strength"])
    reask(g)


def cards(g: Game, p: int, zone: str) -> list[str]:
    return sorted(CARDS[c] for c in g.state["p"][p][zone])


# ---------------------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------------------
def test_three_seats_on_the_thirty_years_war_setup():
    """Three seats; the Thirty Years War countries; one army of Blue and Orange at home; the
    initiative is rolled between Blue and Orange; all three pick at once.
    Rules: MOP-POL-SETUP-01"""
    g = Game.new(SPEC, SCENARIO, 3)
    S = g.state
    assert [P["id"] for P in S["p"]] == ["blue", "orange", "neutral_player"]
    assert [P["name"] for P in S["p"]] == ["Blue", "Orange", "Neutral player"]
    assert [(c["id"], c["kind"], c["owner"]) for c in S["e"]["country"]] == [
        ("blue_home", "home", BLUE),
        ("neutral", "neutral", None),
        ("orange_home", "home", ORANGE),
    ]
    assert [(a["id"], a["location"]) for a in S["e"]["army"] if a["location"] is not None] == [
        ("blue_1", BLUE_HOME),
        ("orange_1", ORANGE_HOME),
    ]
    for seed in range(20):
        assert Game.new(SPEC, SCENARIO, seed).state["g"]["initiative"] in POWERS
    assert at_pick(g)
    log = g.log_for(None)
    assert log[0].startswith("Initiative roll: Blue ") and ", Orange " in log[0]


def test_neutral_player_has_no_armies_and_three_cards():
    """Rules: MOP-POL-SETUP-02"""
    g = new_game()
    S = g.state
    assert sorted(a["id"] for a in S["e"]["army"]) == [
        "blue_1",
        "blue_2",
        "blue_3",
        "orange_1",
        "orange_2",
        "orange_3",
    ]
    assert all(a["owner"] in POWERS for a in S["e"]["army"])
    assert CARDS == tuple(BASE + NEUTRAL_CARDS)
    assert cards(g, NP, "cards") == sorted(NEUTRAL_CARDS)
    assert cards(g, NP, "hand") == sorted(NEUTRAL_CARDS)
    assert [o.id for o in g.legal(NP)] == ["card:propaganda", "card:partisans", "card:militia"]
    for p in POWERS:
        assert cards(g, p, "cards") == sorted(BASE)
        assert not any(o.id in ("card:propaganda", "card:militia") for o in g.legal(p))


def test_propaganda_level_starts_at_1_and_stock_at_37():
    """Rules: MOP-POL-SETUP-03, MOP-POL-SETUP-04"""
    g = new_game()
    assert g.state["g"]["propaganda_level"] == 1
    assert g.state["g"]["vp_stock"] == 37
    assert [c["cubes"] for c in g.state["e"]["country"]] == [0, 0, 0]
    assert [P["vp"] for P in g.state["p"]] == [0, 0, 0]


# ---------------------------------------------------------------------------------------------
# Playing the Neutral player's cards
# ---------------------------------------------------------------------------------------------
def test_neutral_card_picked_face_down_and_revealed_with_the_others():
    """Rules: MOP-POL-RULE-01"""
    g = new_game()
    g.apply(NP, "card:propaganda")
    # face down: Blue and Orange see that a card is played, not which
    assert g.state["p"][NP]["played"] == [] and g.state["p"][NP]["revealed"] == []
    m = mark(g)
    g.apply(BLUE, "card:recruit")
    g.apply(ORANGE, "card:recruit")
    log = new_log(g, m)
    assert log[:4] == [
        "All players have played an action card face down",
        "Blue reveals RECRUIT",
        "Orange reveals RECRUIT",
        "Neutral player reveals PROPAGANDA",
    ]
    assert "You play PROPAGANDA face down" in [t for t, aud in g.state["log"] if aud == [NP]]


def test_neutral_cards_resolve_after_all_other_actions():
    """PARTISANS resolves after SCORE, the last row of the Sequence of Actions card.
    Rules: MOP-POL-RULE-02"""
    g = new_game()
    set_hand(g, BLUE, ["score", "move_1"])
    place(g, "blue_1", NEUTRAL)
    setup(g)
    m = mark(g)
    pick(g, "score", "recruit", "partisans")
    assert options(g) == ["partisans_option:place_cube", "partisans_option:take_cubes"]
    answer(g, "partisans_option:place_cube")
    log = new_log(g, m)
    i_score = log.index("Blue carries out SCORE")
    i_recruit = log.index("Orange carries out RECRUIT")
    i_part = log.index("Neutral player carries out PARTISANS")
    assert i_recruit < i_score < i_part
    assert log[i_part + 1] == "A 1VP cube from the stock goes onto Neutral (1 there)"


def test_militia_option_2_is_asked_when_the_attack_is_carried_out():
    """After the attacker's choices (ATTACK+1 discard), before the combat is fought.
    Rules: MOP-POL-RULE-02, MOP-POL-RULE-10"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    setup(g, cubes=1)
    m = mark(g)
    pick(g, "attack_plus_1", "recruit", "militia")
    answer(g, "no", "country:neutral")  # no counter-insurgency; attack in Neutral
    d = decision(g)
    assert d.player == BLUE and d.kind == "choose-card"  # discard for ATTACK+1 first
    answer(g, "card:fortify")
    d = decision(g)
    assert d.player == NP
    assert [o.id for o in d.options] == ["player:blue", "player:orange", "none"]
    assert not any(t.startswith("Combat in") for t in new_log(g, m))
    answer(g, "player:orange")
    log = new_log(g, m)
    assert "Neutral player's militia adds +1 to Orange in Neutral" in log
    # Blue 1 + 1 (ATTACK+1) against Orange 1 + 1 (militia): all destroyed
    assert "Combat in Neutral: Blue 2 against Orange 2" in log


def test_neutral_card_returns_to_hand_at_end_of_turn():
    """Rules: MOP-POL-RULE-03"""
    g = new_game()
    pick(g, "recruit", "attack", "propaganda")
    assert at_pick(g)
    assert cards(g, NP, "hand") == sorted(NEUTRAL_CARDS)
    for zone in ("played", "revealed", "discard"):
        assert cards(g, NP, zone) == []
    assert cards(g, BLUE, "discard") == ["recruit"]
    offered = sorted(o.id for o in g.legal(NP))
    assert offered == ["card:militia", "card:partisans", "card:propaganda"]


def test_vp_cubes_on_the_neutral_card_come_from_the_stock():
    """Cubes on the neutral card are VP cubes: they leave the stock and belong to nobody.
    Rules: MOP-POL-RULE-04, MOP-POL-RULE-05"""
    g = new_game()
    place(g, "orange_1", NEUTRAL)
    setup(g, vps=(3, 2, 1), cubes=2)
    assert g.state["g"]["vp_stock"] == 37 - 6 - 2
    pick(g, "recruit", "attack", "partisans")
    answer(g, "partisans_option:place_cube")
    assert neutral(g)["cubes"] == 3
    assert g.state["g"]["vp_stock"] == 37 - 6 - 3
    assert [P["vp"] for P in g.state["p"]] == [3, 2, 1]


def test_partisans_option_1_needs_an_army_in_the_neutral_country():
    """Rules: MOP-POL-RULE-05"""
    g = new_game()
    setup(g, cubes=1)
    m = mark(g)
    pick(g, "recruit", "attack", "partisans")
    answer(g, "partisans_option:place_cube")
    assert "There is no army in Neutral: PARTISANS option 1 does nothing" in new_log(g, m)
    assert neutral(g)["cubes"] == 1 and g.state["g"]["vp_stock"] == 36


def test_partisans_option_2_takes_all_cubes():
    """Rules: MOP-POL-RULE-06"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    setup(g, vps=(0, 0, 2), cubes=3)
    m = mark(g)
    pick(g, "recruit", "attack", "partisans")
    answer(g, "partisans_option:take_cubes")
    assert "Neutral player takes 3 VP from Neutral; Neutral player now has 5 VPs" in new_log(g, m)
    assert neutral(g)["cubes"] == 0 and g.state["p"][NP]["vp"] == 5
    assert g.state["g"]["vp_stock"] == 32
    # with no cubes, nothing
    m = mark(g)
    pick(g, "fortify", "recruit", "partisans")
    answer(g, "army:blue_1", "partisans_option:take_cubes")
    assert "There is no VP cube on Neutral: PARTISANS option 2 does nothing" in new_log(g, m)
    assert g.state["p"][NP]["vp"] == 5


def test_propaganda_rises_after_score_while_controlling_the_neutral_country():
    """Rules: MOP-POL-RULE-07"""
    g = new_game()
    set_hand(g, BLUE, ["score", "move_1"])
    place(g, "blue_1", NEUTRAL)
    setup(g)
    m = mark(g)
    pick(g, "score", "recruit", "propaganda")
    assert "PROPAGANDA: the Propaganda level rises to 2" in new_log(g, m)
    assert g.state["g"]["propaganda_level"] == 2
    # next turn: nobody scores or depletes the neutral die: nothing
    m = mark(g)
    pick(g, "move_1", "fortify", "propaganda")
    answer(g, "army:blue_1", "country:blue_home", "army:orange_1")
    assert g.state["g"]["propaganda_level"] == 2
    assert (
        "PROPAGANDA does nothing: nobody scored while controlling Neutral or depleted its VP die"
        " this turn" in new_log(g, m)
    )


def test_propaganda_not_raised_by_score_without_controlling_the_neutral_country():
    """Orange has an army in the neutral country too: Blue does not control it.
    Rules: MOP-POL-RULE-07"""
    g = new_game()
    set_hand(g, BLUE, ["score", "move_1"])
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    setup(g)
    pick(g, "score", "recruit", "propaganda")
    assert g.state["g"]["propaganda_level"] == 1
    assert g.state["p"][BLUE]["vp"] == 4  # 1 + home die 3; the neutral die does not count


def test_propaganda_rises_after_strength_depletes_the_neutral_die_and_stops_at_6():
    """Rules: MOP-POL-RULE-07, MOP-POL-SETUP-03"""
    g = new_game()
    place(g, "orange_1", NEUTRAL)
    setup(g, level=5)
    pick(g, "recruit", "strength", "propaganda")
    answer(g, "country:neutral")
    assert neutral(g)["vp_die"] == 1
    assert g.state["g"]["propaganda_level"] == 6
    strength_back(g)
    m = mark(g)
    pick(g, "fortify", "strength", "propaganda")
    answer(g, "army:blue_1", "country:neutral")
    assert neutral(g)["vp_die"] == 0 and g.state["g"]["propaganda_level"] == 6
    assert "PROPAGANDA: the Propaganda level is already at its maximum of 6" in new_log(g, m)


def test_strength_on_the_home_die_does_not_raise_propaganda():
    """Rules: MOP-POL-RULE-07"""
    g = new_game()
    pick(g, "strength", "recruit", "propaganda")
    answer(g, "country:blue_home")
    assert g.state["g"]["propaganda_level"] == 1


def test_propaganda_depletion_to_zero_reading():
    """The alternative reading: only a STRENGTH that takes the neutral die to 0 counts.
    Rules: MOP-POL-RULE-07"""
    g = new_game()
    g.state["c"]["propaganda_depletion_to_zero"] = True
    place(g, "orange_1", NEUTRAL)
    setup(g)
    pick(g, "recruit", "strength", "propaganda")
    answer(g, "country:neutral")
    assert neutral(g)["vp_die"] == 1 and g.state["g"]["propaganda_level"] == 1
    strength_back(g)
    pick(g, "fortify", "strength", "propaganda")
    answer(g, "army:blue_1", "country:neutral")
    assert neutral(g)["vp_die"] == 0 and g.state["g"]["propaganda_level"] == 2


def test_militia_option_1_puts_a_cube_when_no_army_is_in_the_neutral_country():
    """Rules: MOP-POL-RULE-09"""
    g = new_game()
    m = mark(g)
    pick(g, "recruit", "attack", "militia")
    d = decision(g)
    assert d.player == NP and [o.id for o in d.options] == ["yes", "no"]
    answer(g, "yes")
    assert "A 1VP cube from the stock goes onto Neutral (1 there)" in new_log(g, m)
    assert neutral(g)["cubes"] == 1 and g.state["g"]["vp_stock"] == 36
    # with an army in the neutral country: nothing, and nothing is asked
    place(g, "blue_1", NEUTRAL)
    reask(g)
    m = mark(g)
    pick(g, "fortify", "score", "militia")
    answer(g, "army:blue_1")
    assert at_pick(g)
    assert "Armies stand in Neutral: MILITIA option 1 does nothing" in new_log(g, m)
    assert neutral(g)["cubes"] == 1


def test_militia_option_2_needs_a_cube_and_declining_keeps_option_1():
    """Rules: MOP-POL-RULE-10"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    setup(g, cubes=0)
    m = mark(g)
    pick(g, "attack", "recruit", "militia")
    answer(g, "country:neutral")
    # no cube: the combat is fought at once, the Neutral player is not asked
    assert "Combat in Neutral: Blue 1 against Orange 1" in new_log(g, m)
    assert decision(g).player == NP and options(g) == ["yes", "no"]  # option 1: no army left
    # a cube; the Neutral player declines; the armies are gone, so option 1 is offered
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    setup(g, cubes=1)
    m = mark(g)
    pick(g, "attack", "recruit", "militia")
    answer(g, "country:neutral")
    assert decision(g).player == NP and options(g) == ["player:blue", "player:orange", "none"]
    answer(g, "none")
    log = new_log(g, m)
    assert "Combat in Neutral: Blue 1 against Orange 1" in log
    assert not any("militia adds" in t for t in log)
    d = decision(g)
    assert d.player == NP and [o.id for o in d.options] == ["yes", "no"]
    answer(g, "no")
    assert "Neutral player does not use MILITIA option 1" in new_log(g, m)


def test_militia_plus_1_to_the_attacker_in_another_country():
    """The combat can be in any country.
    Rules: MOP-POL-RULE-10"""
    g = new_game()
    place(g, "blue_1", ORANGE_HOME)
    place(g, "orange_1", NEUTRAL)
    g.state["p"][BLUE]["strength"] = 2
    setup(g, cubes=1)
    m = mark(g)
    pick(g, "attack", "recruit", "militia")
    answer(g, "country:orange_home", "player:blue")
    log = new_log(g, m)
    # Blue 2 + 1 against the garrison 2 (Orange's recruit went to its home: + 1 army)
    assert "Combat in Orange home: Blue 3 against Orange 3" in log
    assert g.state["g"]["militia_for"] is None


def test_militia_option_2_scores_when_the_neutral_country_is_emptied():
    """Rules: MOP-POL-RULE-11"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    g.state["p"][BLUE]["strength"] = 2
    setup(g, cubes=1)
    m = mark(g)
    pick(g, "attack", "recruit", "militia")
    answer(g, "country:neutral", "player:orange")
    log = new_log(g, m)
    assert "Combat in Neutral: Blue 2 against Orange 2" in log
    assert log[-3:] == [
        "The militia fought in Neutral and no army is left there",
        "Neutral player scores 1 VP; Neutral player now has 1 VPs",
        "Turn 2",
    ]
    assert g.state["p"][NP]["vp"] == 1 and g.state["g"]["vp_stock"] == 35
    assert neutral(g)["cubes"] == 1


def test_militia_option_2_no_vp_when_an_army_stays_or_combat_elsewhere():
    """Rules: MOP-POL-RULE-11"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    setup(g, cubes=1)
    m = mark(g)
    pick(g, "attack", "recruit", "militia")
    # Blue 2 against Orange 1: Blue stays in the neutral country
    answer(g, "country:neutral", "player:blue")
    log = new_log(g, m)
    assert "Combat in Neutral: Blue 2 against Orange 1" in log
    assert log[-2:] == ["MILITIA option 2 scores no VP this turn", "Turn 2"]
    assert g.state["p"][NP]["vp"] == 0
    # combat in Orange's home, neutral country empty at the end of the turn: no VP
    g = new_game()
    place(g, "blue_1", ORANGE_HOME)
    g.state["p"][BLUE]["strength"] = 3
    setup(g, cubes=1)
    m = mark(g)
    pick(g, "attack", "fortify", "militia")
    answer(g, "army:orange_1", "country:orange_home", "player:orange")
    log = new_log(g, m)
    assert "Combat in Orange home: Blue 3 against Orange 5" in log  # fortified 2 + garrison 2 + 1
    assert log[-2:] == ["MILITIA option 2 scores no VP this turn", "Turn 2"]
    assert g.state["p"][NP]["vp"] == 0


def test_counter_insurgency_removes_a_cube_to_the_stock():
    """Rules: MOP-POL-RULE-12"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)  # instead of attacking the enemy army there
    setup(g, cubes=2)
    m = mark(g)
    pick(g, "attack_plus_1", "recruit", "propaganda")
    d = decision(g)
    assert d.player == BLUE and [o.id for o in d.options] == ["yes", "no"]
    answer(g, "yes")
    assert options(g) == ["card:move_1", "card:move_2"]
    answer(g, "card:move_2")
    log = new_log(g, m)
    assert (
        "Blue discards MOVE 2: counter-insurgency removes 1 VP cube from Neutral to the stock"
        in log
    )
    assert not any(t.startswith("Combat in") for t in log)
    assert neutral(g)["cubes"] == 1 and g.state["g"]["vp_stock"] == 36
    assert cards(g, BLUE, "discard") == ["attack_plus_1", "move_2"]
    assert cards(g, BLUE, "hand") == sorted(c for c in BASE if c not in ("attack_plus_1", "move_2"))


def test_counter_insurgency_declined_is_an_ordinary_attack_plus_1():
    """Rules: MOP-POL-RULE-12"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    setup(g, cubes=1)
    m = mark(g)
    pick(g, "attack_plus_1", "recruit", "propaganda")
    answer(g, "no", "country:neutral", "card:move_1")
    assert "Combat in Neutral: Blue 2 against Orange 1" in new_log(g, m)
    assert neutral(g)["cubes"] == 1


def test_counter_insurgency_needs_a_move_card_a_cube_and_an_army_there():
    """Rules: MOP-POL-RULE-12"""
    # no MOVE card in hand: not offered, the ATTACK+1 finds nobody to attack
    g = new_game()
    set_hand(g, BLUE, ["attack_plus_1", "recruit"])
    place(g, "blue_1", NEUTRAL)
    setup(g, cubes=1)
    m = mark(g)
    pick(g, "attack_plus_1", "recruit", "propaganda")
    assert "Blue has no army facing an enemy: the attack does nothing" in new_log(g, m)
    assert neutral(g)["cubes"] == 1 and at_pick(g)
    # no cube: not offered
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    setup(g, cubes=0)
    pick(g, "attack_plus_1", "recruit", "propaganda")
    assert at_pick(g)
    # no army in the neutral country: not offered (counter_insurgency_needs_army)
    g = new_game()
    setup(g, cubes=1)
    pick(g, "attack_plus_1", "recruit", "propaganda")
    assert at_pick(g) and neutral(g)["cubes"] == 1
    # the other reading: offered without an army there
    g = new_game()
    g.state["c"]["counter_insurgency_needs_army"] = False
    setup(g, cubes=1)
    pick(g, "attack_plus_1", "recruit", "propaganda")
    answer(g, "yes", "card:move_1")
    assert neutral(g)["cubes"] == 0 and g.state["g"]["vp_stock"] == 37


# ---------------------------------------------------------------------------------------------
# Game end and victory
# ---------------------------------------------------------------------------------------------
def test_game_ends_when_the_stock_is_empty_neutral_counts_vps_times_propaganda():
    """Blue takes the last VP; the Neutral player's 8 VPs at level 3 (24) beat Blue's 21.
    Rules: MOP-POL-RULE-08, MOP-POL-END-01"""
    g = new_game()
    set_hand(g, BLUE, ["score", "move_1"])
    setup(g, vps=(20, 8, 8), level=3, stock=1)
    m = mark(g)
    pick(g, "score", "recruit", "partisans")
    answer(g, "partisans_option:place_cube")  # after SCORE: the stock is empty, nothing
    log = new_log(g, m)
    assert "Blue scores 1 VP (the stock held only 1); Blue now has 21 VPs" in log
    assert "The VP stock is empty: no cube is put on Neutral" not in log  # no army there
    assert g.finished
    assert g.result["winners"] == [NP] and not g.result["tie"]
    # at level 2 the Neutral player's 16 lose to Blue's 21
    g = new_game()
    set_hand(g, BLUE, ["score", "move_1"])
    setup(g, vps=(20, 8, 8), level=2, stock=1)
    pick(g, "score", "recruit", "propaganda")
    assert g.finished and g.result["winners"] == [BLUE]


def test_game_goes_on_while_the_stock_holds_vps_and_ties_on_equal_tallies():
    """18 VPs no longer end the game; equal tallies at the end are a tie.
    Rules: MOP-POL-END-01, MOP-POL-RULE-08"""
    g = new_game()
    set_hand(g, BLUE, ["score", "move_1"])
    setup(g, vps=(20, 2, 0), stock=15)
    pick(g, "score", "recruit", "propaganda")
    assert not g.finished and at_pick(g) and g.state["p"][BLUE]["vp"] == 24
    g = new_game()
    set_hand(g, BLUE, ["score", "move_1"])
    setup(g, vps=(16, 10, 10), level=2, stock=4)
    pick(g, "score", "recruit", "propaganda")
    assert g.state["g"]["vp_stock"] == 0
    assert g.finished and g.result["winners"] == [BLUE, NP] and g.result["tie"]


# ---------------------------------------------------------------------------------------------
# Hidden information with three seats
# ---------------------------------------------------------------------------------------------
def test_view_same_when_only_the_neutral_face_down_card_differs():
    """Rules: MOP-POL-RULE-01, MOP-SEQ-01"""
    g = new_game(5)
    g.apply(NP, "card:militia")
    h = g.clone()
    assert str(NP) in h.state["answers"]
    h.state["answers"][str(NP)] = CARD["propaganda"]
    h.state["rng"] ^= 0xDEADBEEF
    h.state["seed"] += 17
    for viewer in (BLUE, ORANGE, None):
        assert g.view(viewer) == h.view(viewer)
    assert g.view(NP) != h.view(NP)


def test_view_same_when_only_a_power_face_down_card_differs_for_the_neutral_player():
    """Rules: MOP-POL-RULE-01, MOP-SEQ-01"""
    g = new_game(5)
    g.apply(BLUE, "card:fortify")
    h = g.clone()
    h.state["answers"][str(BLUE)] = CARD["attack"]
    for viewer in (ORANGE, NP, None):
        assert g.view(viewer) == h.view(viewer)
    assert g.view(BLUE) != h.view(BLUE)


def test_view_same_when_only_another_hand_differs():
    """Mid-turn (after the reveal), hands differ; the others' views do not.
    Rules: MOP-POL-RULE-01, MOP-SEQ-01"""
    g = new_game(6)
    pick(g, "fortify", "recruit", "partisans")
    assert decision(g).player == BLUE
    for secret in (BLUE, NP):
        h = g.clone()
        hand = list(h.state["p"][secret]["hand"])
        # same number of cards (the size of a hand is public), other cards (a hand is a set:
        # one card is swapped for a card not in it)
        other = next(c for c in range(len(CARDS)) if c not in hand)
        h.state["p"][secret]["hand"] = [other, *hand[1:]]
        others = [v for v in (BLUE, ORANGE, NP, None) if v != secret]
        for viewer in others:
            assert g.view(viewer) == h.view(viewer), (secret, viewer)
        assert g.view(secret) != h.view(secret)


def test_random_play_never_leaks_the_neutral_pick():
    """Along random games, at every three-way pick, Blue's view does not depend on the
    Neutral player's face-down answer.
    Rules: MOP-POL-RULE-01"""
    rng = random.Random(3)
    g = new_game(11, initiative=None)
    checked = 0
    while not g.finished and checked < 15:
        if at_pick(g):
            g.apply(NP, rng.choice([o.id for o in g.legal(NP)]))
            h = g.clone()
            other = [c for c in g.state["p"][NP]["hand"] if c != h.state["answers"][str(NP)]]
            h.state["answers"][str(NP)] = other[0]
            assert g.view(BLUE) == h.view(BLUE) and g.view(ORANGE) == h.view(ORANGE)
            checked += 1
        d = g.pending()[0]
        g.apply(d.player, rng.choice(d.options).id)
    assert checked >= 5


# ---------------------------------------------------------------------------------------------
# Random-play soak with three seats
# ---------------------------------------------------------------------------------------------
MAX_TURNS = 300
ZONES = ("hand", "discard", "played", "revealed")


def check_invariants(g: Game) -> None:
    S = g.state
    cubes = sum(c["cubes"] for c in S["e"]["country"])
    assert S["g"]["vp_stock"] >= 0 and cubes >= 0
    assert S["g"]["vp_stock"] + sum(P["vp"] for P in S["p"]) + cubes == TOTAL_VPS
    assert all(c["cubes"] == 0 for c in S["e"]["country"] if c["id"] != "neutral")
    assert S["g"]["initiative"] in POWERS
    assert 1 <= S["g"]["propaganda_level"] <= 6
    assert S["g"]["militia_for"] is None  # only set inside a combat
    for i, P in enumerate(S["p"]):
        assert 1 <= P["strength"] <= 6, P["strength"]
        zones = [c for z in ZONES for c in P[z]]
        n = 3 if i == NP else 8
        assert len(zones) == n and Counter(zones) == Counter(P["cards"]), P
        assert len(P["played"]) + len(P["revealed"]) <= 1
        mine = [a for a in S["e"]["army"] if a["owner"] == i]
        assert len(mine) == (0 if i == NP else 3)
        assert len([a for a in mine if a["location"] is not None]) <= 3
    assert S["p"][NP]["discard"] == []
    assert sorted(CARDS[c] for c in S["p"][NP]["cards"]) == sorted(NEUTRAL_CARDS)
    for c in S["e"]["country"]:
        assert 0 <= c["vp_die"] <= c["vp_max"]
    for a in S["e"]["army"]:
        if a["location"] is None:
            assert not a["fortified"] and not a["on_capital"]
    if g.finished:
        assert g.pending() == []
        assert S["g"]["vp_stock"] == 0
        level = S["g"]["propaganda_level"]
        tally = [P["vp"] * (level if i == NP else 1) for i, P in enumerate(S["p"])]
        best = max(tally)
        assert g.result["winners"] == [i for i, t in enumerate(tally) if t == best]
        assert g.result["tie"] == (len(g.result["winners"]) > 1)
    else:
        pend = g.pending()
        assert pend, "dead end: a running game waits for nothing"
        for d in pend:
            assert d.options, f"dead end: {d}"
            assert len({o.id for o in d.options}) == len(d.options)
        if len(pend) > 1:
            assert {d.player for d in pend} <= {BLUE, ORANGE, NP}
    assert S["turn"] <= MAX_TURNS


def play_one(seed: int) -> tuple[Game, list]:
    g = Game.new(SPEC, SCENARIO, seed)
    check_invariants(g)
    taken = play_random(g, random.Random(seed * 7919 + 1), on_step=check_invariants)
    assert g.finished and g.turn <= MAX_TURNS
    return g, taken


def run_soak(games: int) -> dict:
    seen: Counter = Counter()
    for seed in range(games):
        g, taken = play_one(seed)
        log = g.log_for(None)
        seen["counter_insurgency"] += any("counter-insurgency removes" in t for t in log)
        seen["militia_2"] += any("militia adds +1" in t for t in log)
        seen["propaganda"] += any("Propaganda level rises" in t for t in log)
        seen["neutral_wins"] += NP in g.result["winners"]
        if seed % 10 == 0:
            h = Game.from_json(Game.new(SPEC, SCENARIO, seed).to_json())
            replay(h, taken)
            assert h.state["log"] == g.state["log"] and h.result == g.result
            assert json.loads(h.to_json()) == json.loads(g.to_json())
    return seen


def test_random_play_soak_three_seats():
    """20 random 3-seat games (``-m soak`` plays thousands): VP conservation with the stock
    and the neutral card's cubes, armies, strength and die bounds, cards per seat, no dead
    end, bounded length, victory by tally; every Neutral mechanism occurs.
    Rules: MOP-POL-SETUP-02, MOP-POL-RULE-03, MOP-POL-RULE-04, MOP-POL-RULE-08, MOP-POL-END-01"""
    seen = run_soak(20)  # every mechanism has occurred by the 17th game
    for k in ("counter_insurgency", "militia_2", "propaganda", "neutral_wins"):
        assert seen[k] > 0, (k, seen)


@pytest.mark.soak
def test_random_play_soak_three_seats_long():
    """Rules: MOP-POL-SETUP-02, MOP-POL-SETUP-04, MOP-POL-RULE-04, MOP-POL-END-01"""
    run_soak(int(os.environ.get("RULECRAFT_SOAK_GAMES", "3000")))
