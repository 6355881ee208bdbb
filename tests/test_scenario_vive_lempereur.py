"""Vive l'Empereur: The Napoleonic Wars (scenario ``vive_lempereur``, base ``thirty_years_war``).

Positions are set up at the simultaneous pick of turn 1 (after the Austrian set-up choice of
the neutral country for the third army), by editing ``g.state`` and re-asking the pick.
Seats: ``blue`` is France (player 0), ``orange`` is Austria (player 1).
"""

from __future__ import annotations

import importlib
import os
import random
from collections import Counter

import pytest
from mop_helpers import (
    army,
    at_pick,
    decision,
    location,
    mark,
    new_log,
    place,
    play_random,
    replay,
)
from rulecraft.runtime import Game, resolve

SPEC, SCENARIO = resolve("march_of_progress/vive_lempereur")
engine = importlib.import_module("rulecraft.generated.march_of_progress.vive_lempereur")
CARDS = tuple(engine.CARD_ID)
CARD = {cid: i for i, cid in enumerate(CARDS)}
ALL_CARDS = list(CARDS)
FRANCE, AUSTRIA = 0, 1  # seats blue and orange
PLAYERS = (FRANCE, AUSTRIA)
FR, IT, DE, AT = 0, 1, 2, 3  # France, Italian states, German states, Austria
STOCK = None
TOTAL_VPS = 42
SET_ASIDE = ["move_2", "attack_plus_1", "recruit"]


# -- helpers (variants of tests/mop_helpers.py bound to this scenario) -------------------------
def reask(g: Game) -> None:
    """Ask the pending decision again after the state was edited (options follow the state)."""
    g.reask()


def new_game(seed: int = 1, neutral: str = "german_states") -> Game:
    """A fresh game at the pick of turn 1; Austria put its third army in ``neutral``."""
    g = Game.new(SPEC, SCENARIO, seed)
    d = decision(g)
    assert (d.player, d.kind) == (AUSTRIA, "choose-country")
    g.apply(AUSTRIA, "country:" + neutral)
    assert at_pick(g)
    return g


def cards(g: Game, p: int, zone: str) -> list[str]:
    return sorted(CARDS[c] for c in g.state["p"][p][zone])


def set_cards(g: Game, p: int, hand: list[str], discard: list[str], set_aside=None) -> None:
    P = g.state["p"][p]
    P["hand"] = [CARD[c] for c in hand]
    P["discard"] = [CARD[c] for c in discard]
    if set_aside is not None:
        P["set_aside"] = [CARD[c] for c in set_aside]
    reask(g)


def set_vps(g: Game, france: int, austria: int) -> None:
    g.state["p"][FRANCE]["vp"] = france
    g.state["p"][AUSTRIA]["vp"] = austria
    g.state["g"]["vp_stock"] = TOTAL_VPS - france - austria


def vp(g: Game, p: int) -> int:
    return g.state["p"][p]["vp"]


def stock(g: Game) -> int:
    return g.state["g"]["vp_stock"]


def pick(g: Game, france: str, austria: str) -> None:
    assert at_pick(g), g.pending()
    g.apply(FRANCE, "card:" + france)
    g.apply(AUSTRIA, "card:" + austria)


def options(g: Game) -> list[str]:
    return [o.id for o in decision(g).options]


def answer(g: Game, *ids: str) -> None:
    for oid in ids:
        d = decision(g)
        g.apply(d.player, oid)


# -- set-up ------------------------------------------------------------------------------------
def test_france_is_blue_austria_is_orange():
    """Rules: MOP-VIVE-SETUP-01"""
    g = new_game()
    assert g.state["seats"] == ["blue", "orange"]
    assert [P["name"] for P in g.state["p"]] == ["France", "Austria"]
    assert [a["name"] for a in g.state["e"]["army"]][:4] == [
        "France army 1",
        "France army 2",
        "France army 3",
        "Austria army 1",
    ]


def test_home_cards_france_and_austria():
    """Rules: MOP-VIVE-SETUP-02"""
    g = new_game()
    cs = g.state["e"]["country"]
    assert [c["id"] for c in cs] == ["france", "italian_states", "german_states", "austria"]
    assert [(c["kind"], c["owner"]) for c in cs] == [
        ("home", FRANCE),
        ("neutral", None),
        ("neutral", None),
        ("home", AUSTRIA),
    ]
    assert g.state["p"][FRANCE]["home"] == FR and g.state["p"][AUSTRIA]["home"] == AT
    # Assumed base home card data: garrison 2, VP range 0-3; neutral range 0-2
    assert [(c["garrison"], c["vp_max"]) for c in cs] == [(2, 3), (0, 2), (0, 2), (2, 3)]


def test_the_alps_neutrals_touch_both_homes_not_each_other():
    """An army in the Italian states may move to France or Austria, never to the German states.
    Rules: MOP-VIVE-SETUP-03"""
    g = new_game(neutral="italian_states")
    cs = g.state["e"]["country"]
    assert cs[IT]["adjacent"] == [FR, AT] and cs[DE]["adjacent"] == [FR, AT]
    assert cs[FR]["adjacent"] == [IT, DE] and cs[AT]["adjacent"] == [IT, DE]
    place(g, "orange_1", STOCK)
    place(g, "orange_2", STOCK)
    reask(g)
    pick(g, "fortify", "move_1")
    answer(g, "army:orange_3")
    assert options(g) == ["country:france", "country:austria"]


def test_austrian_cards_set_aside_hidden_from_france():
    """France starts with 8 cards in hand, Austria with 5; MOVE 2, ATTACK+1 and RECRUIT are
    set aside, not in hand or discard, and France sees only how many.
    Rules: MOP-VIVE-SETUP-05"""
    g = new_game()
    assert cards(g, FRANCE, "hand") == sorted(ALL_CARDS)
    assert cards(g, FRANCE, "set_aside") == []
    assert cards(g, AUSTRIA, "hand") == sorted(["move_1", "fortify", "attack", "strength", "score"])
    assert cards(g, AUSTRIA, "set_aside") == sorted(SET_ASIDE)
    assert cards(g, AUSTRIA, "discard") == []
    assert cards(g, AUSTRIA, "cards") == sorted(ALL_CARDS)
    assert g.view(FRANCE)["p"][AUSTRIA]["set_aside"] == {"hidden": 3}
    assert g.view(None)["p"][AUSTRIA]["set_aside"] == {"hidden": 3}
    assert sorted(CARDS[c] for c in g.view(AUSTRIA)["p"][AUSTRIA]["set_aside"]) == sorted(SET_ASIDE)
    # Austria cannot pick a set-aside card
    assert [o.id for o in g.legal(AUSTRIA)] == [
        "card:move_1",
        "card:fortify",
        "card:attack",
        "card:strength",
    ]


def test_vp_stock_of_42():
    """Rules: MOP-VIVE-SETUP-07"""
    g = new_game()
    assert stock(g) == 42 and vp(g, FRANCE) == 0 and vp(g, AUSTRIA) == 0


def test_france_holds_the_initiative_from_the_start():
    """No initiative roll: France has it in every game.
    Rules: MOP-VIVE-SETUP-08"""
    for seed in range(1, 8):
        g = new_game(seed)
        assert g.state["g"]["initiative"] == FRANCE
        log = g.log_for(None)
        assert "France has the initiative for the whole game" in log
        assert not any(t.startswith("Initiative roll") for t in log)


def test_both_move_france_chooses_and_keeps_the_initiative():
    """Rules: MOP-VIVE-SETUP-08, MOP-INIT-01"""
    g = new_game()
    m = mark(g)
    pick(g, "move_1", "move_1")
    d = decision(g)
    assert (d.player, d.kind) == (FRANCE, "choose-player")
    assert options(g) == ["player:blue", "player:orange"]
    answer(g, "player:orange")
    assert g.state["g"]["initiative"] == FRANCE
    answer(g, "army:orange_3", "country:austria", "army:blue_1", "country:german_states")
    log = new_log(g, m)
    assert "France keeps the initiative" in log
    assert not any("flips" in t for t in log)
    assert log.index("Austria carries out MOVE 1") < log.index("France carries out MOVE 1")
    # both attack next turn: France chooses again
    pick(g, "attack", "attack")
    d = decision(g)
    assert (d.player, d.kind) == (FRANCE, "choose-player")
    answer(g, "player:blue")
    assert g.state["g"]["initiative"] == FRANCE


def test_same_other_action_france_orders():
    """Rules: MOP-VIVE-SETUP-08, MOP-INIT-03"""
    g = new_game()
    pick(g, "fortify", "fortify")
    d = decision(g)
    assert (d.player, d.kind) == (FRANCE, "choose-player")
    answer(g, "player:orange")
    assert g.state["g"]["initiative"] == FRANCE


def test_starting_vp_dice():
    """Rules: MOP-VIVE-SETUP-09"""
    g = new_game()
    assert [c["vp_die"] for c in g.state["e"]["country"]] == [3, 1, 1, 3]


def test_starting_army_strength_two():
    """Rules: MOP-VIVE-SETUP-10"""
    g = new_game()
    assert [P["strength"] for P in g.state["p"]] == [2, 2]


@pytest.mark.parametrize("neutral,where", [("italian_states", IT), ("german_states", DE)])
def test_starting_armies_and_the_austrian_choice(neutral, where):
    """Rules: MOP-VIVE-SETUP-11"""
    g = Game.new(SPEC, SCENARIO, 3)
    d = decision(g)
    assert (d.player, d.kind, d.prompt) == (
        AUSTRIA,
        "choose-country",
        "Choose the neutral country for your third army",
    )
    assert options(g) == ["country:italian_states", "country:german_states"]
    g.apply(AUSTRIA, "country:" + neutral)
    locs = {a["id"]: a["location"] for a in g.state["e"]["army"]}
    assert locs == {
        "blue_1": FR,
        "blue_2": FR,
        "blue_3": None,
        "orange_1": AT,
        "orange_2": AT,
        "orange_3": where,
    }
    label = "Italian states" if where == IT else "German states"
    assert g.log_for(None)[0] == f"Austria places an army in {label}"


# -- Napoleon ----------------------------------------------------------------------------------
def napoleon_position(g: Game) -> None:
    """Two French armies and one Austrian army in the German states."""
    place(g, "blue_1", DE)
    place(g, "blue_2", DE)
    reask(g)


def test_napoleon_two_armies_at_strength_two_is_seven():
    """The rulebook's example: 4 + 1 + 2 = 7; the Austrian army destroyed gives France 1 VP.
    Rules: MOP-VIVE-RULE-01, MOP-VIVE-SETUP-04, MOP-VIVE-SETUP-06"""
    g = new_game()
    napoleon_position(g)
    m = mark(g)
    pick(g, "attack_plus_1", "strength")
    assert options(g) == ["country:german_states"]
    answer(g, "country:german_states")
    assert "card:attack" in options(g)
    answer(g, "card:attack")
    log = new_log(g, m)
    assert "France discards ATTACK for ATTACK+1" in log
    assert "Combat in German states: France 7 against Austria 2" in log
    assert location(g, "orange_3") is None
    assert cards(g, FRANCE, "discard") == ["attack"]


def test_attack_plus_1_discarding_another_card_is_only_plus_one():
    """Rules: MOP-VIVE-RULE-01"""
    g = new_game()
    napoleon_position(g)
    m = mark(g)
    pick(g, "attack_plus_1", "strength")
    answer(g, "country:german_states", "card:move_1")
    assert "Combat in German states: France 5 against Austria 2" in new_log(g, m)


def test_napoleon_counts_only_armies_in_the_combat():
    """A fortified French army that stays down is not in the combat: 2 + 1 + 1 = 4.
    Rules: MOP-VIVE-RULE-01"""
    g = new_game()
    place(g, "blue_1", DE, fortified=True)
    place(g, "blue_2", DE)
    reask(g)
    m = mark(g)
    pick(g, "attack_plus_1", "strength")
    answer(g, "country:german_states", "card:attack")
    d = decision(g)
    assert d.kind == "yes-no" and d.player == FRANCE
    answer(g, "no")
    assert "Combat in German states: France 4 against Austria 2" in new_log(g, m)
    assert army(g, "blue_1")["fortified"]


def test_napoleon_is_french_only():
    """Austria's ATTACK+1 discarding ATTACK gets the normal +1 only: 2 + 2 + 1 = 5.
    Rules: MOP-VIVE-RULE-01, MOP-VIVE-SETUP-04"""
    g = new_game()
    place(g, "orange_1", DE)
    place(g, "blue_1", DE)
    set_cards(
        g,
        AUSTRIA,
        ["move_1", "attack", "attack_plus_1", "strength", "score"],
        ["fortify"],
        set_aside=["move_2", "recruit"],
    )
    m = mark(g)
    pick(g, "fortify", "attack_plus_1")
    answer(g, "army:blue_2")  # France fortifies the army in France
    answer(g, "country:german_states", "card:attack")
    log = new_log(g, m)
    assert "Combat in German states: Austria 5 against France 2" in log
    assert location(g, "blue_1") is None
    assert vp(g, FRANCE) == 0  # no Austrian army was destroyed


# -- 1 VP per Austrian army destroyed ----------------------------------------------------------
def test_france_scores_for_each_austrian_army_destroyed():
    """Rules: MOP-VIVE-RULE-02"""
    g = new_game()
    place(g, "blue_1", DE)
    place(g, "blue_2", DE)
    place(g, "orange_1", DE)
    reask(g)
    m = mark(g)
    pick(g, "attack_plus_1", "strength")
    answer(g, "country:german_states", "card:move_1")  # 5 against 4
    log = new_log(g, m)
    assert "Combat in German states: France 5 against Austria 4" in log
    assert log.count("An army of Austria is destroyed: France scores 1 VP") == 2
    assert "France scores 1 VP; France now has 2 VPs" in log
    assert vp(g, FRANCE) == 2 and stock(g) == 40
    assert location(g, "orange_1") is None and location(g, "orange_3") is None


def test_bounty_also_when_austria_attacks_or_totals_are_equal():
    """Austria's failed attack and an equal combat both give France 1 VP per Austrian army;
    French armies destroyed give Austria nothing.
    Rules: MOP-VIVE-RULE-02"""
    g = new_game()
    place(g, "blue_1", DE, fortified=True)  # 3 in defence
    reask(g)
    m = mark(g)
    pick(g, "strength", "attack")
    answer(g, "country:german_states")  # Austria attacks: 2 against 3
    assert "Combat in German states: Austria 2 against France 3" in new_log(g, m)
    assert vp(g, FRANCE) == 1 and vp(g, AUSTRIA) == 0 and stock(g) == 41
    assert location(g, "orange_3") is None and location(g, "blue_1") == DE
    answer(g, "country:france")  # France's STRENGTH
    g.state["p"][FRANCE]["strength"] = 2
    # equal totals: 2 against 2, both destroyed, France still scores 1
    place(g, "orange_1", IT)
    place(g, "blue_2", IT)
    reask(g)
    m = mark(g)
    pick(g, "attack", "fortify")
    answer(g, "army:orange_2")  # Austria fortifies first (FORTIFY before ATTACK)
    answer(g, "country:italian_states")
    log = new_log(g, m)
    assert "The totals are equal: all armies in Italian states are destroyed" in log
    assert vp(g, FRANCE) == 2 and vp(g, AUSTRIA) == 0 and stock(g) == 40


# -- Army reform -------------------------------------------------------------------------------
def reform_position(g: Game, austria_vps: int = 4) -> None:
    set_vps(g, 0, austria_vps)
    set_cards(g, AUSTRIA, ["move_1", "attack", "strength", "score"], ["fortify"])


def test_army_reform_pays_two_vps_and_hides_the_card():
    """Rules: MOP-VIVE-RULE-03, MOP-VIVE-SETUP-04"""
    g = new_game()
    reform_position(g)
    m = mark(g)
    pick(g, "recruit", "score")
    d = decision(g)
    assert (d.player, d.kind) == (AUSTRIA, "choose-card")
    assert d.prompt == "Army reform: pay 2 VPs to return a set-aside card to hand?"
    assert options(g) == ["card:move_2", "card:recruit", "card:attack_plus_1", "none"]
    # France sees that Austria decides, not what it may choose
    pv = g.view(FRANCE)["pending"]
    assert pv == [{"player": AUSTRIA, "kind": "choose-card", "prompt": d.prompt}]
    answer(g, "card:attack_plus_1")
    assert at_pick(g)  # one card only, then the turn goes on
    assert cards(g, AUSTRIA, "set_aside") == ["move_2", "recruit"]
    assert "attack_plus_1" in cards(g, AUSTRIA, "hand")
    # 4 - 2 + (1 + 3 + 1) + 1 British support = 8; stock 38 + 2 - 6 = 34
    assert vp(g, AUSTRIA) == 8 and stock(g) == 34
    log = new_log(g, m)
    reform = (
        "Austria pays 2 VPs to the stock for Army reform and returns a set-aside card to hand; "
        "Austria now has 2 VPs"
    )
    assert log.index(reform) < log.index("Austria scores 5 VP; Austria now has 7 VPs")
    french = g.log_for(FRANCE)
    assert reform in french
    assert not any("ATTACK+1" in t for t in french)
    assert not any("ATTACK+1" in t for t in g.log_for(None))
    assert "Army reform: you return ATTACK+1 to your hand" in g.log_for(AUSTRIA)
    V = g.view(FRANCE)["p"][AUSTRIA]
    assert V["set_aside"] == {"hidden": 2} and V["hand"] == {"hidden": 6}


def test_army_reform_may_be_declined():
    """Rules: MOP-VIVE-RULE-03"""
    g = new_game()
    reform_position(g)
    pick(g, "recruit", "score")
    answer(g, "none")
    assert cards(g, AUSTRIA, "set_aside") == sorted(SET_ASIDE)
    assert vp(g, AUSTRIA) == 4 + 5 + 1 and stock(g) == 42 - 10
    assert not any("Army reform" in t for t in g.log_for(AUSTRIA))


def test_army_reform_needs_two_vps():
    """Rules: MOP-VIVE-RULE-03"""
    g = new_game()
    reform_position(g, austria_vps=1)
    pick(g, "recruit", "score")
    assert at_pick(g)
    assert vp(g, AUSTRIA) == 1 + 5 + 1 and cards(g, AUSTRIA, "set_aside") == sorted(SET_ASIDE)


def austria_ready(g: Game) -> None:
    """Austria holds every card not set aside except FORTIFY, which is in its discard pile."""
    aside = cards(g, AUSTRIA, "set_aside")
    hand = [c for c in ALL_CARDS if c not in aside and c != "fortify"]
    set_cards(g, AUSTRIA, hand, ["fortify"])


def test_army_reform_all_three_regained_one_per_score():
    """Each SCORE returns at most one card; once all three are back nothing is offered.
    Rules: MOP-VIVE-RULE-03"""
    g = new_game()
    regained = []
    for cid in ("recruit", "move_2", "attack_plus_1"):
        set_vps(g, 0, 4)
        austria_ready(g)
        set_cards(g, FRANCE, [c for c in ALL_CARDS if c != "move_1"], ["move_1"])
        pick(g, "recruit", "score")
        before = len(cards(g, AUSTRIA, "set_aside"))
        assert options(g)[-1] == "none" and len(options(g)) == before + 1
        answer(g, "card:" + cid)
        regained.append(cid)
        assert at_pick(g)
        assert cards(g, AUSTRIA, "set_aside") == sorted(set(SET_ASIDE) - set(regained))
    set_vps(g, 0, 4)
    austria_ready(g)
    set_cards(g, FRANCE, [c for c in ALL_CARDS if c != "move_1"], ["move_1"])
    pick(g, "recruit", "score")
    assert at_pick(g)  # no Army reform offered
    assert sorted(cards(g, AUSTRIA, "hand")) == sorted(ALL_CARDS)


def test_army_reform_when_capital_occupied():
    """Named choice army_reform_when_occupied (true): offered, but no VPs and no British support.
    Rules: MOP-VIVE-RULE-03, MOP-VIVE-RULE-04, MOP-SCORE-04"""
    g = new_game()
    reform_position(g)
    place(g, "blue_1", AT, on_capital=True)
    reask(g)
    m = mark(g)
    pick(g, "fortify", "score")
    answer(g, "army:blue_2")
    assert options(g) == ["card:move_2", "card:recruit", "card:attack_plus_1", "none"]
    answer(g, "card:recruit")
    log = new_log(g, m)
    assert "The enemy occupies Austria's capital: Austria scores no VPs" in log
    assert not any("British support" in t for t in log)
    assert vp(g, AUSTRIA) == 2 and stock(g) == 40


# -- British support ---------------------------------------------------------------------------
def test_british_support_with_an_army_abroad():
    """Rules: MOP-VIVE-RULE-04"""
    g = new_game()
    set_cards(g, AUSTRIA, ["move_1", "attack", "strength", "score"], ["fortify"])
    m = mark(g)
    pick(g, "recruit", "score")  # 0 VPs: no Army reform
    log = new_log(g, m)
    i = log.index("Austria scores 5 VP; Austria now has 5 VPs")
    assert log[i + 1 : i + 3] == [
        "British support for Austria",
        "Austria scores 1 VP; Austria now has 6 VPs",
    ]
    assert vp(g, AUSTRIA) == 6 and stock(g) == 36


def test_no_british_support_with_all_armies_in_austria():
    """Rules: MOP-VIVE-RULE-04"""
    g = new_game()
    place(g, "orange_3", STOCK)
    set_cards(g, AUSTRIA, ["move_1", "attack", "strength", "score"], ["fortify"])
    m = mark(g)
    pick(g, "recruit", "score")
    assert vp(g, AUSTRIA) == 4
    assert not any("British support" in t for t in new_log(g, m))


def test_no_british_support_for_france():
    """Rules: MOP-VIVE-RULE-04, MOP-VIVE-SETUP-04"""
    g = new_game()
    place(g, "blue_1", IT)
    set_cards(g, FRANCE, [c for c in ALL_CARDS if c != "move_1"], ["move_1"])
    m = mark(g)
    pick(g, "score", "attack")  # Austria has no army facing France
    log = new_log(g, m)
    assert vp(g, FRANCE) == 1 + 3 + 1
    assert not any("British support" in t or "Army reform" in t for t in log)
    assert not g.finished  # France controls 2 countries


# -- game end ----------------------------------------------------------------------------------
def test_france_wins_controlling_three_countries_on_score():
    """France wins on completing a SCORE with 3 countries, even behind on VPs.
    Rules: MOP-VIVE-END-01"""
    g = new_game()
    set_vps(g, 0, 15)
    place(g, "orange_3", STOCK)
    place(g, "blue_1", IT)
    place(g, "blue_2", DE)
    set_cards(g, FRANCE, [c for c in ALL_CARDS if c != "move_1"], ["move_1"])
    m = mark(g)
    pick(g, "score", "attack")
    log = new_log(g, m)
    assert vp(g, FRANCE) == 1 + 3 + 1 + 1
    assert log[-1] == "France takes all action cards back into hand"
    assert g.finished and g.pending() == []
    assert g.result == {
        "winners": [FRANCE],
        "tie": False,
        "reason": "France controls 3 countries and completes a SCORE action",
    }


def test_france_with_capital_of_austria_counts_it():
    """France, the German states and occupied Austria are 3 countries.
    Rules: MOP-VIVE-END-01"""
    g = new_game()
    place(g, "orange_3", STOCK)
    place(g, "orange_1", STOCK)
    place(g, "orange_2", STOCK)
    place(g, "blue_1", AT, on_capital=True)
    place(g, "blue_2", DE)
    set_cards(g, FRANCE, [c for c in ALL_CARDS if c != "move_1"], ["move_1"])
    m = mark(g)
    pick(g, "score", "strength")
    log = new_log(g, m)
    assert "Austria controls no country with a VP die to reduce: STRENGTH does nothing" in log
    assert vp(g, FRANCE) == 1 + 3 + 1 + 3
    assert g.result == {
        "winners": [FRANCE],
        "tie": False,
        "reason": "France controls 3 countries and completes a SCORE action",
    }


def test_austria_wins_with_twenty_at_end_of_turn():
    """Rules: MOP-VIVE-END-02"""
    g = new_game()
    set_vps(g, 10, 16)
    place(g, "orange_3", STOCK)
    set_cards(g, AUSTRIA, ["move_1", "attack", "strength", "score"], ["fortify"])
    pick(g, "recruit", "score")
    answer(g, "none")  # no Army reform
    assert vp(g, AUSTRIA) == 20
    assert g.result == {"winners": [AUSTRIA], "tie": False, "reason": "20 VPs reached"}


def test_equal_vps_france_wins():
    """Rules: MOP-VIVE-END-02"""
    g = new_game()
    set_vps(g, 16, 20)
    set_cards(g, FRANCE, [c for c in ALL_CARDS if c != "move_1"], ["move_1"])
    pick(g, "score", "attack")  # France 16 + 4 = 20
    assert vp(g, FRANCE) == 20 and vp(g, AUSTRIA) == 20
    assert g.result == {
        "winners": [FRANCE],
        "tie": False,
        "reason": "20 VPs reached; equal VPs: the French win the tie",
    }


def test_twenty_vps_end_the_game_only_at_the_end_of_the_turn():
    """France reaches 20 in combat; Austria's STRENGTH still happens that turn; 19 plays on.
    Rules: MOP-VIVE-END-02, MOP-VIVE-RULE-02"""
    g = new_game()
    set_vps(g, 18, 5)
    place(g, "blue_1", DE)
    reask(g)
    pick(g, "attack", "fortify")
    answer(g, "army:orange_1")  # Austria fortifies in Austria
    answer(g, "country:german_states")  # 2 against 2: both destroyed, France 19
    assert vp(g, FRANCE) == 19 and not g.finished and at_pick(g)
    place(g, "blue_2", DE)
    place(g, "orange_2", DE)
    reask(g)
    m = mark(g)
    pick(g, "attack_plus_1", "strength")
    answer(g, "country:german_states", "card:move_1")  # 3 against 2: France 20
    assert vp(g, FRANCE) == 20 and not g.finished
    d = decision(g)
    assert (d.player, d.kind) == (AUSTRIA, "choose-country")  # Austria's STRENGTH
    answer(g, "country:austria")
    assert "Austria carries out STRENGTH" in new_log(g, m)
    assert g.result == {"winners": [FRANCE], "tie": False, "reason": "20 VPs reached"}


# -- random-play soak --------------------------------------------------------------------------
MAX_TURNS = 300
ZONES = ("hand", "discard", "played", "revealed", "set_aside")


def check_invariants(g: Game) -> None:
    S = g.state
    assert S["g"]["vp_stock"] >= 0
    assert S["g"]["vp_stock"] + sum(P["vp"] for P in S["p"]) == TOTAL_VPS
    # set to France by the set-up step after the Austrian army placement
    assert S["g"]["initiative"] == (FRANCE if S["turn"] > 0 else None)
    for i, P in enumerate(S["p"]):
        assert 1 <= P["strength"] <= 6, P["strength"]
        zones = [c for z in ZONES for c in P[z]]
        assert len(zones) == 8 and Counter(zones) == Counter(P["cards"]), P
        assert len(P["played"]) + len(P["revealed"]) <= 1
        aside = {CARDS[c] for c in P["set_aside"]}
        assert aside <= (set(SET_ASIDE) if i == AUSTRIA else set()), aside
        in_play = [a for a in S["e"]["army"] if a["owner"] == i and a["location"] is not None]
        assert len(in_play) <= 3
    for c in S["e"]["country"]:
        assert 0 <= c["vp_die"] <= c["vp_max"]
    for a in S["e"]["army"]:
        if a["location"] is None:
            assert not a["fortified"] and not a["on_capital"]
    if g.finished:
        assert g.pending() == []
        r = g.result
        if r["reason"].startswith("France controls"):
            assert r["winners"] == [FRANCE]
        else:
            assert r["reason"].startswith("20 VPs reached")
            best = max(P["vp"] for P in S["p"])
            assert best >= 20
            top = [i for i, P in enumerate(S["p"]) if P["vp"] == best]
            assert r["winners"] == ([FRANCE] if len(top) > 1 else top)
        assert r["tie"] is False
    else:
        pend = g.pending()
        assert pend, "dead end: a running game waits for nothing"
        for d in pend:
            assert d.options, f"dead end: {d}"
    assert S["turn"] <= MAX_TURNS


def play_one(seed: int) -> tuple[Game, list]:
    g = Game.new(SPEC, SCENARIO, seed)
    check_invariants(g)
    taken = play_random(g, random.Random(seed * 7919 + 1), on_step=check_invariants)
    assert g.finished and g.turn <= MAX_TURNS
    return g, taken


def run_soak(games: int) -> Counter:
    reasons: Counter = Counter()
    for seed in range(games):
        g, taken = play_one(seed)
        reasons[g.result["reason"].split(";")[0]] += 1
        if seed % 10 == 0:
            h = Game.new(SPEC, SCENARIO, seed)
            cut = len(taken) // 2
            replay(h, taken[:cut])
            restored = Game.from_json(h.to_json())
            replay(restored, taken[cut:])
            assert restored.result == g.result
            assert restored.state["log"] == g.state["log"]  # a save holds no log: replayed
    return reasons


def test_random_play_soak_default():
    """VP conservation with the 42-VP stock, fixed initiative, army limit, strength bounds,
    8 cards per side across hand/played/revealed/discard/set-aside, no dead end, bounded length.
    Rules: MOP-VIVE-SETUP-05, MOP-VIVE-SETUP-07, MOP-VIVE-SETUP-08
    Rules: MOP-VIVE-END-01, MOP-VIVE-END-02"""
    reasons = run_soak(40)  # both kinds of end have occurred by the 11th game
    assert sum(reasons.values()) == 40
    assert reasons["20 VPs reached"] > 0
    assert sum(n for k, n in reasons.items() if k.startswith("France controls")) > 0


@pytest.mark.soak
def test_random_play_soak_long():
    """Rules: MOP-VIVE-SETUP-05, MOP-VIVE-SETUP-07, MOP-VIVE-SETUP-08
    Rules: MOP-VIVE-END-01, MOP-VIVE-END-02"""
    run_soak(int(os.environ.get("RULECRAFT_SOAK_GAMES", "2000")))
