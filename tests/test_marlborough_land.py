"""Marlborough's land components read back from the compiled Blenheim scenario (section 2),
and the turn's shape (3.1, 2.5), against the rulebook as printed.

The counters are not printed (the scenario marks their values assumed); what the rulebook does
say about them (2.32-2.34, 2.4) is checked here on every counter and hex of the compiled data.
"""

from __future__ import annotations

import pytest
from compile_helpers import game_tables
from rulecraft.runtime import Game, resolve

BOURBON, GRAND_ALLIANCE = 0, 1


@pytest.fixture(scope="module")
def game() -> Game:
    spec, scenario = resolve("marlborough/blenheim")
    return Game.new(spec, scenario, 1)


def _records(g: Game, kind: str) -> list[dict]:
    return list(g.state["e"][kind])


def test_combat_units_and_leaders_2_32_to_2_33(game: Game) -> None:
    """2.33: a combat unit shows a combat strength (one or more, 2.4) and a march factor; a
    parenthesised strength only defends (the garrisons); march 0 never moves (garrisons).
    Siege armies, field armies and free corps are two-sided, recruit front and veteran back
    (the back stronger); garrisons are not. 2.32: a leader shows a leadership value and a
    type (land, naval or engineer), and the combat strength of his contingent.
    Rules: MARL-2.33-01, MARL-2.33-02, MARL-2.33-03, MARL-2.33-04, MARL-2.32-01, MARL-2.4-04"""
    units = _records(game, "unit")
    kinds = {u["kind"] for u in units}
    assert kinds == {
        *("leader", "field_army", "siege_army", "free_corps", "garrison"),
        *("battle_fleet", "frigate_fleet"),  # 21.0
    }
    for u in units:
        assert u["strength"] >= 1, u["id"]
        if u["kind"] == "garrison":
            assert u["defends_only"] and u["march"] == 0 and not u["two_sided"], u["id"]
        elif u["kind"] == "leader":
            assert u["leads"] in ("general", "admiral", "engineer") and u["leadership"] >= 1, u[
                "id"
            ]
            assert u["march"] > 0 and not u["two_sided"], u["id"]
        elif u["kind"] in ("field_army", "siege_army", "free_corps"):
            assert u["two_sided"] and not u["defends_only"] and u["march"] > 0, u["id"]
            assert u["veteran_strength"] > u["strength"], u["id"]
    vauban = next(u for u in units if u["id"] == "vauban")
    assert vauban["leads"] == "engineer"


def test_combat_plan_markers_are_four_sets_2_34(game: Game) -> None:
    """2.34: four sets of combat plan markers, battle attacker and defender, siege attacker
    and defender, as 17.1 names them. Rules: MARL-2.34-01"""
    enums = game.spec.enums
    assert enums["attacker_plan"] == ("skirmish", "linear", "assault", "maneuver")
    assert enums["defender_plan"] == ("withdraw", "stand", "entrench", "counter_maneuver")
    assert enums["siege_attacker_plan"] == ("coup", "invest", "storm", "negotiate")
    assert enums["siege_defender_plan"] == ("defiance", "hold", "sortie", "negotiate")


def test_map_states_capitals_and_economic_hexes_2_1_to_2_4(game: Game) -> None:
    """2.1: a hex grid; 2.11: the map is divided into states (every land hex lies in one);
    2.4: economic hexes are fortress or city hexes; a major state has a capital hex (France:
    Paris), a minor state none (Savoy).
    Rules: MARL-2.1-01, MARL-2.11-01, MARL-2.4-03, MARL-2.4-04"""
    hexes = [h for h in _records(game, "hex") if h["on_map"]]
    nations = _records(game, "nation")
    assert len(hexes) == 60 * 40 and {h["id"] for h in hexes} >= {"h0101", "h6040", "h5807"}
    for h in hexes:
        if h["terrain"] != "sea":
            assert h["nation"] is not None, h["id"]
        if h["economic"] > 0:
            assert h["terrain"] in ("fortress", "city"), h["id"]
    capitals = {nations[h["nation"]]["id"] for h in hexes if h["capital"]}
    majors = {n["id"] for n in nations if n["major"]}
    assert capitals == majors
    assert "savoy" not in capitals
    paris = next(h for h in hexes if h["name"] == "Paris")
    assert paris["capital"] and nations[paris["nation"]]["id"] == "france"


def test_permanent_control_6_12(game: Game) -> None:
    """6.12: the Bourbon player always controls France, the Grand Alliance Austria; 6.1: every
    other state is one player's or neutral (Saxony is neutral in Blenheim).
    Rules: MARL-6.12-01, MARL-6.12-02, MARL-6.1-01"""
    nations = {n["id"]: n for n in _records(game, "nation")}
    assert nations["france"]["permanent"] == BOURBON and nations["france"]["control"] == BOURBON
    assert nations["austria"]["permanent"] == GRAND_ALLIANCE
    assert nations["austria"]["control"] == GRAND_ALLIANCE
    assert all(n["permanent"] is None for k, n in nations.items() if k not in ("france", "austria"))
    assert nations["saxony"]["control"] is None


def test_a_turn_is_a_year_and_its_phases_in_order_2_5_3_1() -> None:
    """2.5: a game turn is one year; 3.1: the phases in order (Blenheim skips Random Events and
    the Treasury on turn 1, and its one turn has no Diplomacy): Initiative, Operations,
    Provisioning, Balance of Power; then victory is checked on the last turn.
    Rules: MARL-2.5-01, MARL-3.1-01, MARL-3.1-06, MARL-3.1-07"""
    spec, scenario = resolve("marlborough/blenheim")
    g = Game.new(spec, scenario, 1)
    assert g.state["g"]["year"] == 1704
    g.apply(BOURBON, "none")
    g.apply(GRAND_ALLIANCE, "none")
    # provisioning: the Bourbons cannot pay and disband two field armies (22.5), then
    # neither side disbands more (11.4)
    for option in ("unit:france_field_army_4", "unit:france_field_army_5", "none"):
        g.apply(BOURBON, option)
    g.apply(GRAND_ALLIANCE, "none")
    assert g.finished and g.state["g"]["year"] == 1704  # the year played: the last one
    log = g.log_for(GRAND_ALLIANCE)
    order = [
        "has the initiative",
        "Bourbon passes",
        "to provision your units",
        "Balance of Power:",
        "VP",
    ]
    at = [next(i for i, line in enumerate(log) if text in line) for text in order]
    assert at == sorted(at)


def test_tables_and_charts_2_2_and_one_die_2_6() -> None:
    """2.2: the Combat Matrices (Battle and Siege), the CRT, the Diplomacy Table and the
    Expenditure Chart (unit and marker costs) are tables of the game (the Events Table and the
    State Control Chart are not printed: the nations' data stands for the latter); 2.6: one
    six-sided die, so the CRT has a row for each of 1-6.
    Rules: MARL-2.2-01, MARL-2.6-01"""
    tables = game_tables("marlborough")
    assert {
        "battle_matrix",
        "siege_matrix",
        "crt",
        "diplomacy_table",
        "unit_costs",
        "marker_costs",
    } <= set(tables)
    assert [r.label for r in tables["crt"].rows] == ["1", "2", "3", "4", "5", "6"]
