"""Westphalia tables read back through the compiled lookups, against the rules index."""

from __future__ import annotations

import pytest
from compile_helpers import game_tables, rules_index
from rulecraft.compiler import tables


@pytest.fixture(scope="module")
def t():
    return game_tables("westphalia")


@pytest.fixture(scope="module")
def index():
    return rules_index("westphalia")


def test_setup(t, index):
    """Rules: WEST-2-01, WEST-2-02, WEST-2-03, WEST-I4-02"""
    for table_id, rule in (("setup_hre", "WEST-2-01"), ("setup_netherlands", "WEST-2-02")):
        printed = index[rule]["table"]
        table = t[table_id]
        assert [r.label for r in table.rows] == list(printed)
        for area, pieces in printed.items():
            assert table.lookup(area=area, column="pieces").value == pieces
    tracks = index["WEST-2-03"]["table"]
    for label, value in tracks.items():
        assert t["setup_tracks"].lookup(track=label, column="start").value == value
    war = index["WEST-I4-02"]["table"]
    for power, enemies in war.items():
        assert t["starting_hostilities"].lookup(
            power=power, column="at_war_with"
        ).value == ", ".join(enemies)


def test_starting_debts_agree_with_the_scenario(t):
    """Rules: WEST-I3D-02, WEST-2-09, WEST-2-05"""
    import yaml
    from rulecraft.compiler.publish.sheets import default_rules_root

    powers = t["setup_powers"]
    assert powers.lookup(power="dutch", column="debts").value == 16
    assert powers.lookup(power="spain", column="debts").value == 20
    # the Powers cards are not printed: the table assumes what the scenario assumes, so that
    # the sheet's set-up table and its scenario block print the same Debts
    scenario = yaml.safe_load(
        (default_rules_root() / "westphalia" / "scenarios" / "congress.yaml").read_text()
    )
    for power, seat in scenario["players"].items():
        cell = powers.lookup(power=power, column="debts")
        assert cell.value == seat["debt"], power
        assert cell.status == ("printed" if power in ("dutch", "spain") else "assumed")


def test_starting_debts_printed(index):
    """Rules: WEST-I3D-02, WEST-2-09"""
    assert "16" in index["WEST-I3D-02"]["rule"] and "20 Debt" in index["WEST-2-09"]["rule"]


def test_diplomacy_steps(t, index):
    """Rules: WEST-4-01"""
    assert [c.value for c in t["diplomacy_steps"].cells()] == index["WEST-4-01"]["table"]


def test_arrears_table_is_assumed_whole(t, index):
    """Rules: WEST-4B-01"""
    assert "Arrears Table" in index["WEST-4B-01"]["data_missing"]
    arrears = t["arrears"]
    assert arrears.counts() == {"printed": 0, "assumed": 30, "gap": 0}
    # rises with Debts, falls with Prestige (the assumed shape)
    assert arrears.lookup(debts=5, prestige=0).value == 2
    assert arrears.lookup(debts=45, prestige=0).value == 6
    assert arrears.lookup(debts=45, prestige=9).value == 3


def test_battle_numbers(t, index):
    """Rules: WEST-5C-04, WEST-5C-05, WEST-5C-06, WEST-5C-07, WEST-5C-08"""
    b = t["battle"]
    assert b.lookup(item="defense_strength", column="rule").value.startswith("2 ×")
    assert "2 x" in index["WEST-5C-04"]["rule"]
    assert "sum of two dice" in b.lookup(item="attack_strength", column="rule").value
    assert "greater than" in b.lookup(item="winner", column="rule").value
    assert "doubles" in b.lookup(item="doubles", column="rule").value
    assert "lesser of the two dice" in b.lookup(item="losses", column="rule").value


def test_debt_resolution_order(t, index):
    """Rules: WEST-9-01, WEST-9E-02"""
    assert [r.label for r in t["debt_resolution"].rows] == index["WEST-9-01"]["table"]
    printed = index["WEST-9E-02"]["table"]
    rights = t["rights_reductions"]
    for power, value in printed.items():
        assert rights.lookup(power=power, column="reduces_debt_by").value == value


def test_victory_and_scoring(t, index):
    """Rules: WEST-10B-01, WEST-10F-01, WEST-11-01, WEST-11B-01"""
    th = t["victory_thresholds"]
    assert th.lookup(power="spain", column="debts_below").value == 25
    assert th.lookup(power="france", column="debts_below").value == 20
    assert "fewer than 25" in index["WEST-10B-01"]["rule"]
    assert "fewer than 20" in index["WEST-10F-01"]["rule"]
    vc = t["victory_conditions"]
    assert {r.id for r in vc.rows} == {"bavaria", "spain", "austria", "dutch", "sweden", "france"}
    scoring = t["final_scoring"]
    assert scoring.lookup(group="all", column="vps").value == "−1 per Debt"
    with pytest.raises(tables.TableGap):
        scoring.lookup(group="catholic", column="members")
    assert scoring.counts()["gap"] == 4
