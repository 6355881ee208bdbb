"""The March of Progress, Introduction: The Thirty Years War, checked rule by rule.

Each test names the rules-index items it checks in the last line of its docstring.
Positions are set up at the pick of turn 1 (see tests/mop_helpers.py).
"""

from __future__ import annotations

import re

from mop_helpers import (
    BLUE,
    BLUE_HOME,
    CARD,
    NEUTRAL,
    ORANGE,
    ORANGE_HOME,
    SPEC,
    STOCK,
    answer,
    armies_of,
    army,
    at_pick,
    cards,
    country,
    decision,
    engine,
    initiative,
    location,
    mark,
    new_game,
    new_log,
    options,
    pick,
    place,
    set_hand,
    set_vps,
    strength,
    vp,
    vp_die,
)

BASE = ["move_1", "move_2", "recruit", "fortify", "attack", "attack_plus_1", "strength", "score"]


def without(*ids: str) -> list[str]:
    return [c for c in BASE if c not in ids]


def combat_line(log: list[str]) -> str:
    lines = [t for t in log if t.startswith("Combat in ")]
    assert len(lines) == 1, log
    return lines[0]


# ---------------------------------------------------------------------------------------------
# Components and country cards
# ---------------------------------------------------------------------------------------------
def test_three_country_cards_two_homes_and_a_neutral():
    """Rules: MOP-COMP-01"""
    g = new_game()
    cs = g.state["e"]["country"]
    assert [(c["id"], c["kind"], c["owner"]) for c in cs] == [
        ("blue_home", "home", BLUE),
        ("neutral", "neutral", None),
        ("orange_home", "home", ORANGE),
    ]
    assert g.state["p"][BLUE]["home"] == BLUE_HOME and g.state["p"][ORANGE]["home"] == ORANGE_HOME


def test_no_scenario_specific_cards_in_the_introductory_game():
    """The introductory game uses only the base cards: 8 base action cards a side, the 2 base
    home cards and the neutral card, no scenario replacement cards.
    Rules: MOP-COMP-02"""
    g = new_game()
    assert tuple(engine.CARD_ID) == tuple(BASE)
    for p in (BLUE, ORANGE):
        assert cards(g, p, "cards") == sorted(BASE)
    assert len(g.state["e"]["country"]) == 3
    assert list(SPEC.scenarios) == ["thirty_years_war"]


def test_initiative_card_shows_one_colour_and_flips():
    """Rules: MOP-COMP-03"""
    g = new_game(3, initiative=ORANGE)
    assert initiative(g) in (BLUE, ORANGE)
    pick(g, "move_1", "move_1")
    answer(g, "player:orange")
    assert initiative(g) == BLUE
    assert "The initiative card flips to Blue" in g.log_for(None)


def test_sequence_of_actions_card_order():
    """The Sequence of Actions card is public data: its rows in resolution order.
    Rules: MOP-COMP-04, MOP-SETUP-04"""
    assert tuple(engine.E_ACTION_GROUP) == (
        "move",
        "recruit",
        "fortify",
        "attack",
        "strength",
        "score",
    )
    assert dict(zip(engine.CARD_ID, engine.CARD_GROUP, strict=True)) == {
        "move_1": "move",
        "move_2": "move",
        "recruit": "recruit",
        "fortify": "fortify",
        "attack": "attack",
        "attack_plus_1": "attack",
        "strength": "strength",
        "score": "score",
    }
    # revealed cards are visible to both players and the spectator
    g = new_game()
    pick(g, "recruit", "fortify")
    for who in (BLUE, ORANGE, None):
        V = g.view(who)
        assert "Blue reveals RECRUIT" in g.log_for(who) and "Orange reveals FORTIFY" in g.log_for(
            who
        )
        assert V["p"][BLUE]["revealed"] == [CARD["recruit"]]
        assert V["p"][ORANGE]["revealed"] == [CARD["fortify"]]


def test_eight_action_cards_per_player():
    """Rules: MOP-COMP-05, MOP-ACT-01"""
    assert tuple(engine.CARD_NAME) == (
        "MOVE 1",
        "MOVE 2",
        "RECRUIT",
        "FORTIFY",
        "ATTACK",
        "ATTACK+1",
        "STRENGTH",
        "SCORE",
    )
    g = new_game()
    total = 0
    for p in (BLUE, ORANGE):
        assert cards(g, p, "cards") == sorted(BASE) and cards(g, p, "hand") == sorted(BASE)
        total += len(g.state["p"][p]["cards"])
    assert total == 16


def test_three_armies_per_colour_never_more():
    """Rules: MOP-COMP-06, MOP-RECRUIT-03"""
    g = new_game()
    by_owner = {
        p: [a["id"] for a in g.state["e"]["army"] if a["owner"] == p] for p in (BLUE, ORANGE)
    }
    assert by_owner == {
        BLUE: ["blue_1", "blue_2", "blue_3"],
        ORANGE: ["orange_1", "orange_2", "orange_3"],
    }
    place(g, "blue_2", NEUTRAL)
    place(g, "blue_3", BLUE_HOME)
    m = mark(g)
    pick(g, "recruit", "fortify")
    answer(g, "army:orange_1")
    assert "Blue has no army in the stock: RECRUIT does nothing" in new_log(g, m)
    assert len(armies_of(g, BLUE)) == 3


def test_vp_cubes_35_in_play_of_42():
    """42 VPs of cubes (12x1 + 6x5); the introductory game uses 5 black + 10 white = 35.
    Rules: MOP-COMP-07, MOP-SETUP-05"""
    assert 12 * 1 + 6 * 5 == 42
    g = new_game()
    assert g.state["g"]["vp_stock"] == 5 * 5 + 10 * 1 == 35
    assert vp(g, BLUE) == vp(g, ORANGE) == 0


def test_dice_are_six_sided():
    """Initiative dice show 1-6; VP dice within 0..vp_max; army strength within 1..6.
    Rules: MOP-COMP-08"""
    for seed in range(40):
        g = new_game(seed)
        rolls = [
            int(x) for line in g.log_for(None) if "roll" in line for x in re.findall(r"\d+", line)
        ]
        assert rolls and all(1 <= r <= 6 for r in rolls)
        for c in g.state["e"]["country"]:
            assert 0 <= c["vp_die"] <= c["vp_max"]
        for p in (BLUE, ORANGE):
            assert 1 <= strength(g, p) <= 6


def test_home_card_garrison_vp_range_and_strength_range():
    """Rules: MOP-CARD-01, MOP-STR-02"""
    g = new_game()
    for c in (BLUE_HOME, ORANGE_HOME):
        assert country(g, c)["garrison"] == 2 and country(g, c)["vp_max"] == 3
    # army strength never goes over 6
    g.state["p"][BLUE]["strength"] = 6
    m = mark(g)
    pick(g, "strength", "fortify")
    answer(g, "army:orange_1", "country:blue_home")
    assert strength(g, BLUE) == 6
    assert vp_die(g, BLUE_HOME) == 2
    assert "Blue reduces the VP die of Blue home to 2; army strength is now 6" in new_log(g, m)


def test_neutral_card_has_vp_range_0_2_and_no_capital():
    """Rules: MOP-CARD-02"""
    g = new_game()
    n = country(g, NEUTRAL)
    assert (n["kind"], n["owner"], n["garrison"], n["vp_max"]) == ("neutral", None, 0, 2)
    # a lone enemy army in the neutral country is not helped by any garrison
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    g.state["p"][BLUE]["strength"] = 2
    m = mark(g)
    pick(g, "attack", "fortify")
    answer(g, "army:orange_1", "country:neutral")
    assert combat_line(new_log(g, m)) == "Combat in Neutral: Blue 2 against Orange 2"


def test_starting_dice_within_base_ranges():
    """The introductory game starts every die within its printed base range.
    Rules: MOP-CARD-03"""
    g = new_game()
    assert [(c["vp_die"], c["vp_max"]) for c in g.state["e"]["country"]] == [(3, 3), (2, 2), (3, 3)]


# ---------------------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------------------
def test_each_player_takes_armies_cards_dice_of_their_colour():
    """Rules: MOP-SETUP-01"""
    g = new_game()
    for p, home in ((BLUE, BLUE_HOME), (ORANGE, ORANGE_HOME)):
        P = g.state["p"][p]
        assert P["home"] == home and country(g, home)["owner"] == p
        assert len([a for a in g.state["e"]["army"] if a["owner"] == p]) == 3
        assert len(P["hand"]) == 8 and P["strength"] == 1


def test_neutral_between_the_home_cards():
    """Home cards are adjacent to the neutral card (and, in a row, not to each other).
    Rules: MOP-SETUP-02, MOP-MOVE-01"""
    g = new_game()
    assert country(g, BLUE_HOME)["adjacent"] == [NEUTRAL]
    assert country(g, ORANGE_HOME)["adjacent"] == [NEUTRAL]
    assert sorted(country(g, NEUTRAL)["adjacent"]) == [BLUE_HOME, ORANGE_HOME]
    pick(g, "move_1", "fortify")
    answer(g, "army:blue_1")
    assert options(g) == ["country:neutral"]


def test_starting_hand_is_the_eight_cards():
    """Rules: MOP-SETUP-03"""
    g = new_game()
    for p in (BLUE, ORANGE):
        assert cards(g, p, "hand") == sorted(BASE)
        assert g.state["p"][p]["discard"] == [] and g.state["p"][p]["played"] == []


def test_vp_stock_runs_out():
    """Rules: MOP-SETUP-06, MOP-SCORE-01"""
    g = new_game()
    set_vps(g, 10, 23, stock=2)
    set_hand(g, BLUE, without("move_1"))
    set_hand(g, ORANGE, without("move_1"))
    m = mark(g)
    pick(g, "score", "score")
    answer(g, "player:blue")  # both SCORE: initiative holder orders (no flip)
    log = new_log(g, m)
    assert "Blue scores 2 VP (the stock held only 2); Blue now has 12 VPs" in log
    assert "Orange scores 0 VP (the stock held only 0); Orange now has 23 VPs" in log
    assert g.state["g"]["vp_stock"] == 0 and vp(g, BLUE) == 12 and vp(g, ORANGE) == 23


def test_initiative_roll_highest_wins_ties_rerolled():
    """Rules: MOP-SETUP-07"""
    saw_tie = False
    for seed in range(60):
        g = new_game(seed)
        log = g.log_for(None)
        rolls = [line for line in log if "roll" in line]
        last = re.search(r"Blue (\d), Orange (\d)", rolls[-1])
        b, o = int(last.group(1)), int(last.group(2))
        assert b != o
        for line in rolls[:-1]:
            x = re.search(r"Blue (\d), Orange (\d)", line)
            assert x.group(1) == x.group(2)
        if len(rolls) > 1:
            saw_tie = True
            assert rolls[1].startswith("Tie; re-roll: ")
        assert initiative(g) == (BLUE if b > o else ORANGE)
        assert f"{'Blue' if b > o else 'Orange'} has the initiative" in log
    assert saw_tie


def test_starting_vp_dice():
    """Rules: MOP-SETUP-08"""
    g = new_game()
    assert (vp_die(g, BLUE_HOME), vp_die(g, NEUTRAL), vp_die(g, ORANGE_HOME)) == (3, 2, 3)


def test_starting_army_strength():
    """Rules: MOP-SETUP-09"""
    g = new_game()
    assert strength(g, BLUE) == strength(g, ORANGE) == 1


def test_one_army_on_each_home_card_others_in_stock():
    """Rules: MOP-SETUP-10, MOP-SETUP-11"""
    g = new_game()
    assert armies_of(g, BLUE, BLUE_HOME) == ["blue_1"]
    assert armies_of(g, ORANGE, ORANGE_HOME) == ["orange_1"]
    assert armies_of(g, BLUE, NEUTRAL) == armies_of(g, ORANGE, NEUTRAL) == []
    assert armies_of(g, BLUE, STOCK) == ["blue_2", "blue_3"]
    assert armies_of(g, ORANGE, STOCK) == ["orange_2", "orange_3"]
    assert not any(a["fortified"] or a["on_capital"] for a in g.state["e"]["army"])


# ---------------------------------------------------------------------------------------------
# Sequence of play and initiative
# ---------------------------------------------------------------------------------------------
def test_simultaneous_secret_pick():
    """Rules: MOP-SEQ-01"""
    g = new_game()
    assert at_pick(g) and g.state["simultaneous"]
    g.apply(BLUE, "card:fortify")
    # Blue's card is face down: Orange still picks, nothing is revealed
    assert [d.player for d in g.pending()] == [ORANGE]
    # the face-down card is Blue's recorded answer; it is not in play yet
    assert g.state["answers"] == {str(BLUE): CARD["fortify"]}
    log = g.log_for(None)
    assert not any("reveals" in t or "FORTIFY" in t for t in log)
    g.apply(ORANGE, "card:recruit")
    assert "You play FORTIFY face down" in g.log_for(BLUE)
    assert "You play FORTIFY face down" not in g.log_for(ORANGE)
    assert "Both players have played an action card face down" in g.log_for(None)


def test_played_cards_revealed_together():
    """Rules: MOP-SEQ-02"""
    g = new_game()
    m = mark(g)
    pick(g, "move_2", "recruit")
    log = new_log(g, m)
    i = log.index("Both players have played an action card face down")
    assert log[i + 1 : i + 3] == ["Blue reveals MOVE 2", "Orange reveals RECRUIT"]
    assert cards(g, BLUE, "revealed") == ["move_2"] and g.state["p"][BLUE]["played"] == []


def test_resolution_order_follows_the_sequence_card():
    """SCORE (f) after MOVE (a); RECRUIT (b) before FORTIFY (c); ATTACK (d) before STRENGTH (e).
    Rules: MOP-SEQ-03, MOP-SOA-01"""
    g = new_game()
    set_hand(g, BLUE, without("recruit"))
    m = mark(g)
    pick(g, "score", "move_1")
    answer(g, "army:orange_1", "country:neutral")
    log = new_log(g, m)
    assert log.index("Orange carries out MOVE 1") < log.index("Blue carries out SCORE")
    assert at_pick(g)
    m = mark(g)
    pick(g, "fortify", "recruit")
    answer(g, "army:blue_1")
    log = new_log(g, m)
    assert log.index("Orange carries out RECRUIT") < log.index("Blue carries out FORTIFY")
    # ATTACK resolves before STRENGTH: the attack uses the old strength
    g = new_game(initiative=BLUE)
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    g.state["p"][ORANGE]["strength"] = 2
    m = mark(g)
    pick(g, "strength", "attack")
    answer(g, "country:neutral")  # orange attacks
    log = new_log(g, m)
    assert combat_line(log) == "Combat in Neutral: Orange 2 against Blue 1"
    assert log.index("Orange carries out ATTACK") < log.index("Blue carries out STRENGTH")
    assert "Blue controls no country with a VP die to reduce: STRENGTH does nothing" not in log
    assert location(g, "blue_1") is None


def test_played_card_goes_to_discard_until_score():
    """Rules: MOP-SEQ-04"""
    g = new_game()
    pick(g, "fortify", "recruit")
    answer(g, "army:blue_1")
    assert cards(g, BLUE, "discard") == ["fortify"] and cards(g, ORANGE, "discard") == ["recruit"]
    assert "card:fortify" not in options(g, BLUE)
    assert cards(g, BLUE, "revealed") == []
    pick(g, "recruit", "fortify")
    answer(g, "army:orange_1")
    assert cards(g, BLUE, "discard") == ["fortify", "recruit"]
    assert "card:fortify" not in options(g, BLUE) and "card:recruit" not in options(g, BLUE)


def test_discard_piles_visible_to_both():
    """Rules: MOP-SEQ-05"""
    g = new_game()
    pick(g, "fortify", "recruit")
    answer(g, "army:blue_1")
    for who in (BLUE, ORANGE, None):
        V = g.view(who)
        assert V["p"][BLUE]["discard"] == [CARD["fortify"]]
        assert V["p"][ORANGE]["discard"] == [CARD["recruit"]]


def test_turns_repeat_until_18_vps():
    """Rules: MOP-SEQ-06, MOP-END-01"""
    g = new_game()
    set_vps(g, 13, 0)
    set_hand(g, BLUE, without("move_1"))
    pick(g, "score", "fortify")  # 13 + 1 + 3 + 0 = 17: play on
    answer(g, "army:orange_1")
    assert vp(g, BLUE) == 17 and not g.finished and at_pick(g) and g.turn == 2
    assert g.log_for(None)[-1] == "Turn 2"
    set_hand(g, BLUE, without("move_1"))
    pick(g, "score", "recruit")  # 17 + 4 = 21 >= 18
    assert g.finished and g.result == {"winners": [BLUE], "tie": False, "reason": "18 VPs reached"}
    assert g.pending() == []


def test_both_move_initiative_chooses_and_flips():
    """Rules: MOP-INIT-01, MOP-INIT-02, MOP-SOA-01"""
    g = new_game(initiative=ORANGE)
    m = mark(g)
    pick(g, "move_1", "move_2")
    d = decision(g)
    assert (d.player, d.kind) == (ORANGE, "choose-player")
    assert [o.id for o in d.options] == ["player:blue", "player:orange"]
    answer(g, "player:orange")
    assert initiative(g) == BLUE
    answer(g, "army:orange_1", "country:neutral", "army:blue_1", "country:neutral")
    log = new_log(g, m)
    assert log.index("Orange carries out MOVE 2") < log.index("Blue carries out MOVE 1")
    assert "The initiative card flips to Blue" in log
    # both attack: the new holder (Blue) chooses and the card flips back
    pick(g, "attack", "attack")
    d = decision(g)
    assert (d.player, d.kind) == (BLUE, "choose-player")
    answer(g, "player:orange")
    assert initiative(g) == ORANGE


def test_initiative_does_not_flip_otherwise():
    """One MOVE and one ATTACK: no order choice, no flip.
    Rules: MOP-INIT-02"""
    g = new_game(initiative=BLUE)
    place(g, "orange_1", NEUTRAL)
    pick(g, "move_1", "attack")
    d = decision(g)
    assert d.kind == "choose-army" and d.player == BLUE
    answer(g, "army:blue_1", "country:neutral", "country:neutral")
    assert initiative(g) == BLUE
    assert not any("flips" in t for t in g.log_for(None))


def test_same_other_action_initiative_orders_without_flip():
    """Rules: MOP-INIT-03"""
    g = new_game(initiative=BLUE)
    m = mark(g)
    pick(g, "recruit", "recruit")
    d = decision(g)
    assert (d.player, d.kind, d.prompt) == (
        BLUE,
        "choose-player",
        "Both players play recruit actions: who goes first?",
    )
    answer(g, "player:orange")
    log = new_log(g, m)
    assert log.index("Orange carries out RECRUIT") < log.index("Blue carries out RECRUIT")
    assert initiative(g) == BLUE and not any("flips" in t for t in log)


# ---------------------------------------------------------------------------------------------
# Movement
# ---------------------------------------------------------------------------------------------
def test_move_1_moves_one_army_to_an_adjacent_card():
    """Rules: MOP-MOVE-01"""
    g = new_game()
    place(g, "blue_2", BLUE_HOME)
    pick(g, "move_1", "fortify")
    assert options(g) == ["army:blue_1", "army:blue_2"]
    answer(g, "army:blue_2")
    assert options(g) == ["country:neutral"]
    m = mark(g)
    answer(g, "country:neutral", "army:orange_1")
    assert "Blue moves an army from Blue home to Neutral" in new_log(g, m)
    assert location(g, "blue_2") == NEUTRAL and location(g, "blue_1") == BLUE_HOME


def test_move_2_moves_a_group_of_two_together():
    """Rules: MOP-MOVE-02, MOP-MOVE-03"""
    g = new_game()
    place(g, "blue_2", BLUE_HOME)
    place(g, "blue_3", NEUTRAL)
    pick(g, "move_2", "fortify")
    answer(g, "army:blue_1")
    d = decision(g)
    # only an army in the same country may join (not blue_3 in Neutral)
    assert [o.id for o in d.options] == ["army:blue_2", "none"]
    answer(g, "army:blue_2")
    # one destination for the group
    assert options(g) == ["country:neutral"]
    answer(g, "country:neutral", "army:orange_1")
    assert [location(g, a) for a in ("blue_1", "blue_2", "blue_3")] == [NEUTRAL, NEUTRAL, NEUTRAL]
    assert at_pick(g)


def test_move_2_single_army_moves_once():
    """Rules: MOP-MOVE-02, MOP-MOVE-03"""
    g = new_game()
    place(g, "blue_2", BLUE_HOME)
    m = mark(g)
    pick(g, "move_2", "fortify")
    answer(g, "army:blue_1", "none", "country:neutral", "army:orange_1")
    assert location(g, "blue_1") == NEUTRAL and location(g, "blue_2") == BLUE_HOME
    assert sum("moves an army" in t for t in new_log(g, m)) == 1


def test_must_move_if_possible_else_nothing():
    """Rules: MOP-MOVE-04"""
    g = new_game()
    pick(g, "move_1", "fortify")
    assert "none" not in options(g)
    g = new_game()
    place(g, "blue_1", STOCK)
    m = mark(g)
    pick(g, "move_1", "fortify")
    answer(g, "army:orange_1")
    assert "Blue has no army in play: MOVE 1 does nothing" in new_log(g, m)
    g = new_game()
    place(g, "blue_1", STOCK)
    m = mark(g)
    pick(g, "move_2", "fortify")
    answer(g, "army:orange_1")
    assert "Blue has no army in play: MOVE 2 does nothing" in new_log(g, m)


def test_enemy_armies_do_not_block():
    """Rules: MOP-MOVE-05"""
    g = new_game()
    place(g, "orange_2", NEUTRAL)
    place(g, "orange_3", NEUTRAL)
    place(g, "blue_1", NEUTRAL)
    pick(g, "move_1", "fortify")
    answer(g, "army:blue_1")
    assert options(g) == ["country:blue_home", "country:orange_home"]
    answer(g, "country:orange_home", "army:orange_1")
    assert location(g, "blue_1") == ORANGE_HOME and not army(g, "blue_1")["on_capital"]


def test_moving_fortified_army_stands_it_up():
    """Rules: MOP-MOVE-06"""
    g = new_game()
    place(g, "blue_1", BLUE_HOME, fortified=True)
    pick(g, "move_1", "recruit")
    answer(g, "army:blue_1", "country:neutral")
    assert location(g, "blue_1") == NEUTRAL and army(g, "blue_1")["fortified"] is False


# ---------------------------------------------------------------------------------------------
# Recruit and fortify
# ---------------------------------------------------------------------------------------------
def test_recruit_places_a_stock_army_at_home():
    """Rules: MOP-RECRUIT-01"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    m = mark(g)
    pick(g, "recruit", "fortify")
    answer(g, "army:orange_1")
    assert "Blue recruits an army in Blue home" in new_log(g, m)
    assert armies_of(g, BLUE, BLUE_HOME) == ["blue_2"] and armies_of(g, BLUE, STOCK) == ["blue_3"]


def test_recruit_does_nothing_when_capital_occupied():
    """Rules: MOP-RECRUIT-02, MOP-CTRL-01"""
    g = new_game()
    place(g, "orange_2", BLUE_HOME, on_capital=True)
    m = mark(g)
    pick(g, "recruit", "fortify")
    answer(g, "army:orange_1")
    assert "The enemy occupies Blue's capital: RECRUIT does nothing" in new_log(g, m)
    assert armies_of(g, BLUE) == ["blue_1"]
    # an enemy army in the country but not on the capital does not stop recruiting
    g = new_game()
    place(g, "orange_2", BLUE_HOME)
    pick(g, "recruit", "fortify")
    answer(g, "army:orange_1")
    assert armies_of(g, BLUE, BLUE_HOME) == ["blue_1", "blue_2"]


def test_recruit_does_nothing_without_stock():
    """Rules: MOP-RECRUIT-02, MOP-RECRUIT-03"""
    g = new_game()
    place(g, "blue_2", NEUTRAL)
    place(g, "blue_3", NEUTRAL)
    m = mark(g)
    pick(g, "recruit", "fortify")
    answer(g, "army:orange_1")
    assert "Blue has no army in the stock: RECRUIT does nothing" in new_log(g, m)
    assert armies_of(g, BLUE, BLUE_HOME) == ["blue_1"]


def test_fortify_lays_an_army_on_its_side():
    """Rules: MOP-FORT-01"""
    g = new_game()
    place(g, "blue_2", NEUTRAL)
    pick(g, "fortify", "recruit")
    assert options(g) == ["army:blue_1", "army:blue_2"]
    m = mark(g)
    answer(g, "army:blue_2")
    assert "Blue fortifies an army in Neutral" in new_log(g, m)
    assert army(g, "blue_2")["fortified"] and not army(g, "blue_1")["fortified"]


def test_fortify_does_nothing_without_armies():
    """Rules: MOP-FORT-02"""
    g = new_game()
    place(g, "blue_1", STOCK)
    m = mark(g)
    pick(g, "fortify", "recruit")
    assert "Blue has no army to fortify: FORTIFY does nothing" in new_log(g, m)
    assert at_pick(g)


# ---------------------------------------------------------------------------------------------
# Attacks and combat
# ---------------------------------------------------------------------------------------------
def test_attack_all_non_fortified_armies_fight_all_enemy_forces():
    """Rules: MOP-ATT-01, MOP-COMBAT-01, MOP-COMBAT-04, MOP-COMBAT-07"""
    g = new_game()
    place(g, "blue_1", ORANGE_HOME)
    place(g, "blue_2", ORANGE_HOME)
    place(g, "orange_2", ORANGE_HOME)
    g.state["p"][BLUE]["strength"] = 3
    g.state["p"][ORANGE]["strength"] = 1
    m = mark(g)
    pick(g, "attack", "fortify")
    answer(g, "army:orange_1")  # orange fortifies first
    assert options(g) == ["country:orange_home"]
    answer(g, "country:orange_home")
    log = new_log(g, m)
    # 2 blue armies x 3 = 6 against orange: 1 + (1 + 1 fortified) + garrison 2 = 5
    assert combat_line(log) == "Combat in Orange home: Blue 6 against Orange 5"
    assert "Blue wins: Orange's armies in Orange home are destroyed" in log
    assert armies_of(g, ORANGE) == [] and sorted(armies_of(g, BLUE, ORANGE_HOME)) == [
        "blue_1",
        "blue_2",
    ]


def test_must_attack_and_cannot_withhold():
    """Rules: MOP-ATT-02"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "blue_2", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    g.state["p"][ORANGE]["strength"] = 3
    m = mark(g)
    pick(g, "attack", "recruit")
    assert options(g) == ["country:neutral"]  # no way to decline
    answer(g, "country:neutral")
    log = new_log(g, m)
    assert combat_line(log) == "Combat in Neutral: Blue 2 against Orange 3"
    assert armies_of(g, BLUE) == []


def test_attack_plus_1_adds_one_after_discard():
    """Rules: MOP-ATT-03, MOP-COMBAT-03"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    m = mark(g)
    pick(g, "attack_plus_1", "recruit")
    answer(g, "country:neutral", "card:fortify")
    log = new_log(g, m)
    assert "Blue discards FORTIFY for ATTACK+1" in log
    assert combat_line(log) == "Combat in Neutral: Blue 2 against Orange 1"
    assert cards(g, BLUE, "discard") == ["attack_plus_1", "fortify"]
    assert location(g, "orange_1") is None and location(g, "blue_1") == NEUTRAL


def test_attack_plus_1_discard_never_score():
    """Rules: MOP-ATT-04"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    set_hand(g, BLUE, ["attack_plus_1", "move_2", "score"])
    pick(g, "attack_plus_1", "recruit")
    answer(g, "country:neutral")
    d = decision(g)
    assert (d.kind, [o.id for o in d.options]) == ("choose-card", ["card:move_2"])


def test_attack_plus_1_with_only_score_is_a_plain_attack():
    """Rules: MOP-ATT-04, MOP-COMBAT-03"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    set_hand(g, BLUE, ["attack_plus_1", "score"])
    m = mark(g)
    pick(g, "attack_plus_1", "recruit")
    answer(g, "country:neutral")
    log = new_log(g, m)
    assert not any("discards" in t for t in log)
    assert combat_line(log) == "Combat in Neutral: Blue 1 against Orange 1"
    assert cards(g, BLUE, "hand") == ["score"]


def test_fortified_attackers_may_stand_up_and_join():
    """Rules: MOP-ATT-05, MOP-COMBAT-02"""
    for stand, expected in (("yes", "Blue 2"), ("no", "Blue 1")):
        g = new_game()
        place(g, "blue_1", NEUTRAL)
        place(g, "blue_2", NEUTRAL, fortified=True)
        place(g, "orange_1", NEUTRAL)
        g.state["p"][ORANGE]["strength"] = 5
        m = mark(g)
        pick(g, "attack", "recruit")
        answer(g, "country:neutral")
        d = decision(g)
        assert (d.player, [o.id for o in d.options]) == (BLUE, ["yes", "no"])
        answer(g, stand)
        assert combat_line(new_log(g, m)) == f"Combat in Neutral: {expected} against Orange 5"


def test_only_fortified_armies_attack_is_optional():
    """Rules: MOP-ATT-05, MOP-ATT-02"""
    g = new_game()
    place(g, "blue_1", NEUTRAL, fortified=True)
    place(g, "orange_1", NEUTRAL)
    m = mark(g)
    pick(g, "attack", "recruit")
    assert options(g) == ["country:neutral", "none"]
    answer(g, "none")
    assert "Blue does not attack" in new_log(g, m)
    assert army(g, "blue_1")["fortified"] and location(g, "orange_1") == NEUTRAL


def test_attacker_chooses_which_fortified_army_stands_up():
    """Rules: MOP-ATT-05"""
    g = new_game()
    for aid in ("blue_1", "blue_2", "blue_3"):
        place(g, aid, NEUTRAL, fortified=True)
    place(g, "orange_1", NEUTRAL)
    m = mark(g)
    pick(g, "attack", "recruit")
    answer(g, "country:neutral")
    d = decision(g)
    assert d.player == BLUE
    assert d.prompt == "Choose the fortified army that stands up to attack in Neutral"
    assert [o.id for o in d.options] == ["army:blue_1", "army:blue_2", "army:blue_3"]
    answer(g, "army:blue_2")
    # the armies left are asked by name, in order; blue_2 already stands
    d = decision(g)
    assert d.prompt == "Stand up Blue army 1 (fortified) in Neutral to join the attack?"
    answer(g, "no")
    assert decision(g).prompt == "Stand up Blue army 3 (fortified) in Neutral to join the attack?"
    answer(g, "yes")
    assert combat_line(new_log(g, m)) == "Combat in Neutral: Blue 2 against Orange 1"
    assert location(g, "orange_1") is None
    assert army(g, "blue_1")["fortified"] and not army(g, "blue_2")["fortified"]


def test_a_lone_fortified_attacker_stands_up_without_a_question():
    """Rules: MOP-ATT-05"""
    g = new_game()
    place(g, "blue_1", NEUTRAL, fortified=True)
    place(g, "orange_1", NEUTRAL)
    m = mark(g)
    pick(g, "attack", "recruit")
    answer(g, "country:neutral")
    assert combat_line(new_log(g, m)) == "Combat in Neutral: Blue 1 against Orange 1"


def test_attack_does_nothing_without_a_target_and_no_discard():
    """Rules: MOP-ATT-06"""
    g = new_game()
    m = mark(g)
    pick(g, "attack_plus_1", "recruit")
    log = new_log(g, m)
    assert "Blue has no army facing an enemy: the attack does nothing" in log
    assert cards(g, BLUE, "discard") == ["attack_plus_1"]
    assert len(g.state["p"][BLUE]["hand"]) == 7


def test_example_of_play():
    """The rulebook's Example of Play, turn by turn.
    Rules: MOP-ATT-07, MOP-STR-05, MOP-INIT-01"""
    g = new_game(initiative=BLUE)
    pick(g, "move_1", "recruit")
    answer(g, "army:blue_1", "country:neutral")
    pick(g, "strength", "move_2")
    answer(g, "army:orange_1", "army:orange_2", "country:neutral")
    # Blue no longer controls the neutral country: only the home VP die can be used
    assert options(g) == ["country:blue_home"]
    answer(g, "country:blue_home")
    assert (vp_die(g, BLUE_HOME), vp_die(g, NEUTRAL), strength(g, BLUE)) == (2, 2, 2)
    m = mark(g)
    orange_hand = cards(g, ORANGE, "hand")
    pick(g, "attack_plus_1", "attack_plus_1")
    answer(g, "player:blue", "country:neutral")
    d = decision(g)
    assert "card:score" not in [o.id for o in d.options] and "card:move_2" in [
        o.id for o in d.options
    ]
    answer(g, "card:move_2")
    log = new_log(g, m)
    assert combat_line(log) == "Combat in Neutral: Blue 3 against Orange 2"
    assert "Orange has no army facing an enemy: the attack does nothing" in log
    assert armies_of(g, ORANGE) == [] and armies_of(g, BLUE) == ["blue_1"]
    assert cards(g, ORANGE, "hand") == sorted(c for c in orange_hand if c != "attack_plus_1")
    assert cards(g, ORANGE, "discard") == ["attack_plus_1", "move_2", "recruit"]
    assert initiative(g) == ORANGE and at_pick(g)


def test_fortified_army_adds_one_in_defence_only():
    """A fortified defender is worth its army strength + 1 (rules-index reading); a fortified
    army that does not stand up adds nothing to an attack.
    Rules: MOP-COMBAT-02, MOP-FORT-01"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    place(g, "orange_1", NEUTRAL, fortified=True)
    g.state["p"][BLUE]["strength"] = 3
    g.state["p"][ORANGE]["strength"] = 2
    m = mark(g)
    pick(g, "attack", "recruit")
    answer(g, "country:neutral")
    log = new_log(g, m)
    assert combat_line(log) == "Combat in Neutral: Blue 3 against Orange 3"
    assert "The totals are equal: all armies in Neutral are destroyed" in log


def test_garrison_defends_only():
    """Rules: MOP-COMBAT-04"""
    g = new_game()
    place(g, "orange_2", BLUE_HOME)
    g.state["p"][ORANGE]["strength"] = 3
    m = mark(g)
    pick(g, "recruit", "attack")  # Blue recruits (RECRUIT before ATTACK), Orange attacks
    answer(g, "country:blue_home")
    log = new_log(g, m)
    # 3 against 2 blue armies (1 each) + garrison 2 = 4; the garrison never adds to an attacker
    assert combat_line(log) == "Combat in Blue home: Orange 3 against Blue 4"
    assert location(g, "orange_2") is None
    # Blue attacking in its own home gets no garrison
    g = new_game()
    place(g, "orange_2", BLUE_HOME)
    m = mark(g)
    pick(g, "attack", "recruit")
    answer(g, "country:blue_home")
    assert combat_line(new_log(g, m)) == "Combat in Blue home: Blue 1 against Orange 1"


def test_occupied_capital_has_no_garrison_for_either_side():
    """Rules: MOP-COMBAT-05, MOP-CTRL-03"""
    g = new_game()
    place(g, "blue_1", ORANGE_HOME, on_capital=True)
    place(g, "blue_2", ORANGE_HOME)
    m = mark(g)
    pick(g, "attack", "recruit")  # orange cannot recruit: capital occupied
    answer(g, "country:orange_home")
    log = new_log(g, m)
    assert "The enemy occupies Orange's capital: RECRUIT does nothing" in log
    assert combat_line(log) == "Combat in Orange home: Blue 2 against Orange 1"
    assert army(g, "blue_1")["on_capital"] and armies_of(g, ORANGE) == []
    # Orange attacking the occupier in its own home gets no garrison either
    g = new_game()
    place(g, "blue_1", ORANGE_HOME, on_capital=True)
    place(g, "orange_1", ORANGE_HOME)
    m = mark(g)
    pick(g, "recruit", "attack")
    answer(g, "country:orange_home")
    assert combat_line(new_log(g, m)) == "Combat in Orange home: Orange 1 against Blue 1"


def test_equal_totals_destroy_all_armies_garrison_unaffected():
    """Rules: MOP-COMBAT-06"""
    g = new_game()
    place(g, "blue_1", ORANGE_HOME)
    place(g, "blue_2", ORANGE_HOME)
    g.state["p"][BLUE]["strength"] = 3
    g.state["p"][ORANGE]["strength"] = 4
    m = mark(g)
    pick(g, "attack", "strength")
    answer(g, "country:orange_home")
    log = new_log(g, m)
    assert combat_line(log) == "Combat in Orange home: Blue 6 against Orange 6"
    assert "The totals are equal: all armies in Orange home are destroyed" in log
    assert armies_of(g, BLUE) == [] and armies_of(g, ORANGE) == []
    assert country(g, ORANGE_HOME)["garrison"] == 2
    assert armies_of(g, BLUE, STOCK) == ["blue_1", "blue_2", "blue_3"]


def test_lower_total_destroyed_higher_unaffected():
    """Rules: MOP-COMBAT-07"""
    g = new_game()
    place(g, "blue_1", NEUTRAL, fortified=True)
    place(g, "blue_2", NEUTRAL)
    place(g, "orange_1", NEUTRAL)
    g.state["p"][ORANGE]["strength"] = 3
    m = mark(g)
    pick(g, "attack", "recruit")
    answer(g, "country:neutral", "no")
    log = new_log(g, m)
    assert combat_line(log) == "Combat in Neutral: Blue 1 against Orange 3"
    assert "Orange wins: Blue's armies in Neutral are destroyed" in log
    # the whole losing side goes, the fortified army that stayed out included
    assert armies_of(g, BLUE) == [] and location(g, "orange_1") == NEUTRAL
    assert not army(g, "orange_1")["fortified"]


def test_winning_in_defenders_home_occupies_the_capital():
    """Rules: MOP-COMBAT-08, MOP-CTRL-03"""
    g = new_game()
    place(g, "blue_1", ORANGE_HOME)
    place(g, "blue_2", ORANGE_HOME)
    g.state["p"][BLUE]["strength"] = 2
    m = mark(g)
    pick(g, "attack", "strength")
    answer(g, "country:orange_home")
    log = new_log(g, m)
    assert combat_line(log) == "Combat in Orange home: Blue 4 against Orange 3"
    assert "Blue occupies the capital of Orange home" in log
    assert [army(g, a)["on_capital"] for a in ("blue_1", "blue_2")] == [True, False]
    # Orange's STRENGTH came after: Orange no longer controls its home, no VP die to reduce
    assert "Orange controls no country with a VP die to reduce: STRENGTH does nothing" in log
    # blue now controls Orange home: SCORE counts its VP die (1 + 3 + 3)
    m = mark(g)
    pick(g, "score", "fortify")
    log = new_log(g, m)
    assert "Blue scores 7 VP; Blue now has 7 VPs" in log
    # the occupier moves off: the capital is free again
    # (MOVE resolves before RECRUIT, so Orange may recruit again the same turn)
    m = mark(g)
    pick(g, "move_1", "recruit")
    answer(g, "army:blue_1", "country:neutral")
    assert not army(g, "blue_1")["on_capital"]
    assert "Orange recruits an army in Orange home" in new_log(g, m)
    assert armies_of(g, ORANGE, ORANGE_HOME) == ["orange_1"]


# ---------------------------------------------------------------------------------------------
# Strength
# ---------------------------------------------------------------------------------------------
def test_strength_reduces_a_controlled_vp_die_and_removes_it_at_zero():
    """Rules: MOP-STR-01, MOP-STR-02"""
    g = new_game()
    place(g, "blue_1", NEUTRAL)
    country(g, NEUTRAL)["vp_die"] = 1
    pick(g, "strength", "recruit")
    assert options(g) == ["country:blue_home", "country:neutral"]
    m = mark(g)
    answer(g, "country:neutral")
    assert "Blue reduces the VP die of Neutral to 0; army strength is now 2" in new_log(g, m)
    assert (vp_die(g, NEUTRAL), strength(g, BLUE)) == (0, 2)
    set_hand(g, BLUE, BASE)
    pick(g, "strength", "fortify")
    answer(g, "army:orange_1")
    assert options(g) == ["country:blue_home"]  # the removed die is not offered again


def test_strength_raises_every_army():
    """Rules: MOP-STR-02, MOP-COMBAT-01"""
    g = new_game(initiative=BLUE)
    place(g, "blue_2", NEUTRAL)
    place(g, "blue_3", NEUTRAL)
    place(g, "orange_2", NEUTRAL)
    g.state["p"][ORANGE]["strength"] = 4
    pick(g, "strength", "fortify")
    answer(g, "army:orange_1", "country:blue_home")  # orange fortifies home; blue 1 -> 2
    assert strength(g, BLUE) == 2
    m = mark(g)
    pick(g, "attack", "recruit")
    answer(g, "country:neutral")
    assert combat_line(new_log(g, m)) == "Combat in Neutral: Blue 4 against Orange 4"
    assert country(g, BLUE_HOME)["garrison"] == 2


def test_strength_does_nothing_without_a_vp_die():
    """Rules: MOP-STR-03"""
    g = new_game()
    country(g, BLUE_HOME)["vp_die"] = 0
    m = mark(g)
    pick(g, "strength", "recruit")
    assert "Blue controls no country with a VP die to reduce: STRENGTH does nothing" in new_log(
        g, m
    )
    assert strength(g, BLUE) == 1 and at_pick(g)
    # nor with an occupied capital and no other controlled country
    g = new_game()
    place(g, "orange_2", BLUE_HOME, on_capital=True)
    m = mark(g)
    pick(g, "strength", "fortify")
    answer(g, "army:orange_1")
    assert "Blue controls no country with a VP die to reduce: STRENGTH does nothing" in new_log(
        g, m
    )
    assert strength(g, BLUE) == 1 and vp_die(g, BLUE_HOME) == 3


def test_strength_never_traded_back_for_vps():
    """Only VP dice are offered; army strength never goes down.
    Rules: MOP-STR-04"""
    g = new_game()
    g.state["p"][BLUE]["strength"] = 4
    pick(g, "strength", "recruit")
    assert all(o.startswith("country:") for o in options(g))
    answer(g, "country:blue_home")
    assert strength(g, BLUE) == 5 and vp_die(g, BLUE_HOME) == 2
    pick(g, "score", "fortify")
    answer(g, "army:orange_1")
    assert strength(g, BLUE) == 5 and vp_die(g, BLUE_HOME) == 2 and vp(g, BLUE) == 3


# ---------------------------------------------------------------------------------------------
# Score and control
# ---------------------------------------------------------------------------------------------
def test_score_one_plus_controlled_dice_and_cards_back():
    """Rules: MOP-SCORE-01, MOP-SCORE-02, MOP-CTRL-02"""
    g = new_game()
    place(g, "blue_2", NEUTRAL)
    set_hand(g, BLUE, ["move_1", "score"])
    m = mark(g)
    pick(g, "score", "recruit")
    log = new_log(g, m)
    assert "Blue scores 6 VP; Blue now has 6 VPs" in log
    assert "Blue takes all action cards back into hand" in log
    assert vp(g, BLUE) == 6 and g.state["g"]["vp_stock"] == 29
    assert cards(g, BLUE, "hand") == sorted(BASE) and cards(g, BLUE, "discard") == []


def test_neutral_needs_my_army_and_none_of_theirs():
    """Rules: MOP-CTRL-02"""
    g = new_game()
    place(g, "blue_2", NEUTRAL)
    place(g, "orange_2", NEUTRAL)
    set_hand(g, BLUE, ["move_1", "score"])
    set_hand(g, ORANGE, ["move_1", "score"])
    m = mark(g)
    pick(g, "score", "score")
    answer(g, "player:orange")
    log = new_log(g, m)
    assert (
        "Blue scores 4 VP; Blue now has 4 VPs" in log
        and "Orange scores 4 VP; Orange now has 4 VPs" in log
    )


def test_score_needs_a_discarded_card():
    """Rules: MOP-SCORE-03"""
    g = new_game()
    assert "card:score" not in options(g, BLUE) and "card:score" not in options(g, ORANGE)
    pick(g, "fortify", "recruit")
    answer(g, "army:blue_1")
    assert "card:score" in options(g, BLUE)
    pick(g, "score", "fortify")
    answer(g, "army:orange_1")
    # just played SCORE: discard pile empty, SCORE not offered on the next turn
    assert cards(g, BLUE, "discard") == []
    assert "card:score" not in options(g, BLUE)
    assert len(options(g, BLUE)) == 7


def test_score_with_occupied_capital_scores_nothing():
    """Rules: MOP-SCORE-04, MOP-CTRL-01"""
    g = new_game()
    place(g, "blue_2", NEUTRAL)
    place(g, "orange_2", BLUE_HOME, on_capital=True)
    set_hand(g, BLUE, ["move_1", "score"])
    m = mark(g)
    pick(g, "score", "fortify")
    answer(g, "army:orange_1")
    log = new_log(g, m)
    assert "The enemy occupies Blue's capital: Blue scores no VPs" in log
    assert vp(g, BLUE) == 0 and g.state["g"]["vp_stock"] == 35
    assert cards(g, BLUE, "hand") == sorted(BASE)


def test_enemy_army_in_home_but_not_on_capital_keeps_control():
    """Rules: MOP-CTRL-01"""
    g = new_game()
    place(g, "orange_2", BLUE_HOME)
    set_hand(g, BLUE, ["move_1", "score"])
    m = mark(g)
    pick(g, "score", "fortify")
    answer(g, "army:orange_1")
    assert "Blue scores 4 VP; Blue now has 4 VPs" in new_log(g, m)


# ---------------------------------------------------------------------------------------------
# Game end
# ---------------------------------------------------------------------------------------------
def test_most_vps_wins():
    """Rules: MOP-END-02, MOP-AIM-01"""
    g = new_game()
    set_vps(g, 10, 17)
    set_hand(g, ORANGE, ["move_1", "score"])
    pick(g, "fortify", "score")
    answer(g, "army:blue_1")
    assert g.finished and g.result == {
        "winners": [ORANGE],
        "tie": False,
        "reason": "18 VPs reached",
    }
    # the player who reaches 18 at the end of the turn wins over one who led before
    g = new_game()
    set_vps(g, 14, 17)
    set_hand(g, BLUE, ["move_1", "score"])
    pick(g, "score", "fortify")
    answer(g, "army:orange_1")
    assert (vp(g, BLUE), vp(g, ORANGE)) == (18, 17)
    assert g.result == {"winners": [BLUE], "tie": False, "reason": "18 VPs reached"}


def test_equal_vps_is_a_tie():
    """With 35 VPs two players cannot both reach 18; the position gives the stock more cubes
    to check the tie rule itself.
    Rules: MOP-END-02, MOP-AIM-01"""
    g = new_game()
    set_vps(g, 14, 14, stock=20)
    set_hand(g, BLUE, ["move_1", "score"])
    set_hand(g, ORANGE, ["move_1", "score"])
    pick(g, "score", "score")
    answer(g, "player:blue")
    assert vp(g, BLUE) == vp(g, ORANGE) == 18
    assert g.result == {"winners": [BLUE, ORANGE], "tie": True, "reason": "18 VPs reached"}


def test_game_ends_by_agreement():
    """With the reading end_by_agreement switched on, both players are asked in secret at the
    end of every turn; the game ends only if both agree, and most VPs wins.

    Rules: MOP-END-01, MOP-SEQ-06
    """
    g = new_game()
    g.state["c"]["end_by_agreement"] = True
    set_vps(g, 4, 2)
    pick(g, "recruit", "recruit")
    while not any(d.kind == "yes-no" for d in g.pending()):
        answer(g, options(g)[0])
    assert sorted(d.player for d in g.pending()) == [BLUE, ORANGE]
    g.apply(BLUE, "yes")
    g.apply(ORANGE, "no")
    assert not g.finished
    assert "The game goes on (1 of 2 agreed to end it)" in g.log_for(None)
    pick(g, "fortify", "fortify")
    while not any(d.kind == "yes-no" for d in g.pending()):
        answer(g, options(g)[0])
    g.apply(BLUE, "yes")
    g.apply(ORANGE, "yes")
    assert g.finished
    assert g.result["winners"] == [BLUE] and not g.result["tie"]
    assert g.result["reason"] == "the players agreed to end the game"


def test_agreement_is_not_asked_by_default():
    """Rules: MOP-END-01"""
    g = new_game()
    assert g.state["c"]["end_by_agreement"] is False
    pick(g, "recruit", "recruit")
    while g.pending() and g.pending()[0].kind != "choose-card":
        answer(g, options(g)[0])
    assert all(d.kind == "choose-card" for d in g.pending()) and g.turn == 2
