"""The Age of Marlborough (scenario ``age_of_marlborough``, base ``thirty_years_war``).

Seats: ``blue`` is France (player 0), ``orange`` the Dutch Republic (player 1). Countries in
order: France, the Spanish Netherlands, the Electorate of Bavaria, the Dutch Republic.
"""

from __future__ import annotations

import importlib
import random
from collections import Counter

from rulecraft.runtime import Game, resolve

SPEC, SCENARIO = resolve("march_of_progress/age_of_marlborough")
engine = importlib.import_module("rulecraft.generated.march_of_progress.age_of_marlborough")
CARDS = tuple(engine.CARD_ID)
FRANCE, DUTCH = 0, 1
FR, SN, BAV, NL = 0, 1, 2, 3
SEVEN = ["move_1", "move_2", "recruit", "fortify", "attack", "strength", "score"]


def new_game(seed: int = 1) -> Game:
    g = Game.new(SPEC, SCENARIO, seed)
    assert sorted(d.player for d in g.pending()) == [FRANCE, DUTCH]
    return g


def reask(g: Game) -> None:
    """Ask the pending decision again after the state was edited (options follow the state)."""
    g.reask()


def names(g: Game, zone: list[int]) -> list[str]:
    return [CARDS[c] for c in zone]


def pick(g: Game, france: str, dutch: str) -> None:
    g.apply(FRANCE, "card:" + france)
    g.apply(DUTCH, "card:" + dutch)


def answer_all(g: Game, *ids: str) -> None:
    for oid in ids:
        (d,) = g.pending()
        g.apply(d.player, oid)


def test_home_cards_neutral_countries_and_adjacency():
    """Rules: MOP-AOM-SETUP-01, MOP-AOM-SETUP-02"""
    S = new_game().state
    assert [p["name"] for p in S["p"]] == ["France", "The Dutch Republic"]
    countries = S["e"]["country"]
    assert [c["name"] for c in countries] == [
        "France",
        "Spanish Netherlands",
        "Electorate of Bavaria",
        "The Dutch Republic",
    ]
    assert [c["kind"] for c in countries] == ["home", "neutral", "neutral", "home"]
    assert sorted(countries[SN]["adjacent"]) == [FR, BAV, NL]
    assert sorted(countries[BAV]["adjacent"]) == [FR, SN, NL]
    assert sorted(countries[FR]["adjacent"]) == [SN, BAV]
    assert S["p"][FRANCE]["home"] == FR and S["p"][DUTCH]["home"] == NL


def test_attack_plus_1_removed_seven_card_hands():
    """Rules: MOP-AOM-SETUP-03"""
    g = new_game()
    assert "attack_plus_1" not in CARDS
    for p in (FRANCE, DUTCH):
        assert names(g, g.state["p"][p]["hand"]) == SEVEN
    ids = {o.id for o in g.legal(FRANCE)}
    assert ids == {f"card:{c}" for c in SEVEN if c != "score"}


def test_play_aid_table_is_part_of_the_rules():
    """The play aid is data the sheets print: rules/march_of_progress/tables/play_aids.yaml.

    Rules: MOP-AOM-SETUP-04
    """
    from compile_helpers import REPO

    text = (REPO / "rules" / "march_of_progress" / "tables" / "play_aids.yaml").read_text()
    assert "aom_play_aid:" in text and "MOP-AOM-RULE-01" in text


def test_stock_of_36_vps_is_limited():
    """Rules: MOP-AOM-SETUP-05"""
    g = new_game()
    S = g.state
    assert S["g"]["vp_stock"] == 36
    S["g"]["vp_stock"] = 2
    S["p"][FRANCE]["discard"] = [CARDS.index("move_1")]
    S["p"][FRANCE]["hand"].remove(CARDS.index("move_1"))
    reask(g)
    pick(g, "score", "fortify")
    while not all(d.kind == "choose-card" for d in g.pending()):
        (d,) = g.pending()
        g.apply(d.player, d.options[0].id)
    assert S["p"][FRANCE]["vp"] == 2 and S["g"]["vp_stock"] == 0


def test_initiative_rolled_as_in_the_thirty_years_war():
    """Rules: MOP-AOM-SETUP-06"""
    log = new_game(3).log_for(None)
    assert any(line.startswith("Initiative roll: France ") for line in log)
    holders = {Game.new(SPEC, SCENARIO, s).state["g"]["initiative"] for s in range(20)}
    assert holders == {FRANCE, DUTCH}


def test_neutral_vp_dice_rolled_through_the_play_aid_table():
    """The set-up step looks the rolls up in the table the sheet prints (1-2: 1, 3-4: 2, 5-6: 3).

    Rules: MOP-AOM-SETUP-07
    """
    seen = Counter()
    for seed in range(60):
        g = Game.new(SPEC, SCENARIO, seed)
        S = g.state
        assert S["e"]["country"][FR]["vp_die"] == 3 and S["e"]["country"][NL]["vp_die"] == 3
        for c, name in ((SN, "Spanish Netherlands"), (BAV, "Electorate of Bavaria")):
            line = next(t for t in g.log_for(None) if t.startswith(name + ": rolled"))
            roll = int(line.split("rolled ")[1].split(",")[0])
            assert S["e"]["country"][c]["vp_die"] == {1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3}[roll]
            seen[S["e"]["country"][c]["vp_die"]] += 1
    assert set(seen) == {1, 2, 3}
    table = engine.TABLE_AOM_NEUTRAL_VP
    assert table[2] == ((1, 2), (3, 4), (5, 6))  # the rows' ranges
    assert [cell[1] for cell in table[4]] == [1, 2, 3]  # their values


def test_strength_one_and_one_army_at_home():
    """Rules: MOP-AOM-SETUP-08, MOP-AOM-SETUP-09"""
    S = new_game().state
    assert [p["strength"] for p in S["p"]] == [1, 1]
    placed = [(a["owner"], a["location"]) for a in S["e"]["army"] if a["location"] is not None]
    assert placed == [(FRANCE, FR), (DUTCH, NL)]
    assert sum(a["location"] is None for a in S["e"]["army"]) == 4


def test_strength_cannot_take_home_vp_die_below_2():
    """Rules: MOP-AOM-RULE-01"""
    g = new_game()
    S = g.state
    S["e"]["country"][FR]["vp_die"] = 2
    pick(g, "strength", "fortify")
    while g.pending() and g.pending()[0].kind != "choose-card":
        (d,) = g.pending()
        assert d.player == DUTCH  # France is never asked: no VP die it may reduce
        g.apply(d.player, d.options[0].id)
    assert any("STRENGTH does nothing" in line for line in g.log_for(None))
    assert S["e"]["country"][FR]["vp_die"] == 2 and S["p"][FRANCE]["strength"] == 1
    g2 = new_game()
    g2.state["e"]["country"][FR]["vp_die"] = 3
    pick(g2, "strength", "fortify")
    while g2.pending() and g2.pending()[0].kind != "choose-card":
        (d,) = g2.pending()
        assert d.kind != "choose-country" or [o.id for o in d.options] == ["country:france"]
        g2.apply(d.player, d.options[0].id)
    assert g2.state["e"]["country"][FR]["vp_die"] == 2 and g2.state["p"][FRANCE]["strength"] == 2


def test_no_home_vps_while_an_enemy_army_is_in_your_home():
    """Rules: MOP-AOM-RULE-02"""
    for enemy_inside in (False, True):
        g = new_game()
        S = g.state
        S["p"][FRANCE]["discard"] = [CARDS.index("move_1")]
        S["p"][FRANCE]["hand"].remove(CARDS.index("move_1"))
        if enemy_inside:
            dutch = next(a for a in S["e"]["army"] if a["owner"] == DUTCH and a["location"] is None)
            dutch["location"] = FR
        reask(g)
        pick(g, "score", "fortify")
        while not all(d.kind == "choose-card" for d in g.pending()):
            (d,) = g.pending()
            g.apply(d.player, d.options[0].id)
        # 1 VP for scoring, plus France's VP die (3) unless a Dutch army is in France.
        assert S["p"][FRANCE]["vp"] == (1 if enemy_inside else 4)


def test_first_to_18_wins_and_both_at_once_tie():
    """Rules: MOP-AOM-END-01"""
    for fr, nl, winners, tie in ((18, 17, [FRANCE], False), (18, 20, [FRANCE, DUTCH], True)):
        g = new_game()
        S = g.state
        S["p"][FRANCE]["vp"], S["p"][DUTCH]["vp"] = fr, nl
        S["g"]["vp_stock"] = 36 - fr - nl
        pick(g, "fortify", "fortify")
        while not g.finished:
            (d,) = g.pending()
            g.apply(d.player, d.options[0].id)
        assert sorted(g.result["winners"]) == winners and g.result["tie"] is tie


def test_random_play_keeps_the_stock_and_ends():
    """Rules: MOP-AOM-SETUP-05, MOP-AOM-END-01"""
    for seed in range(40):
        g = Game.new(SPEC, SCENARIO, seed)
        rng = random.Random(seed)
        while not g.finished:
            S = g.state
            assert S["g"]["vp_stock"] + sum(p["vp"] for p in S["p"]) == 36
            assert all(0 <= c["vp_die"] <= c["vp_max"] for c in S["e"]["country"])
            d = rng.choice(g.pending())
            g.apply(d.player, rng.choice(d.options).id)
        assert g.turn < 1000
