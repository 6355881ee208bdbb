"""Rise of Totalitarianism tables read back through the compiled lookups, against the index."""

from __future__ import annotations

import pytest
from compile_helpers import game_tables, rules_index


@pytest.fixture(scope="module")
def t():
    return game_tables("rise_of_totalitarianism")


@pytest.fixture(scope="module")
def index():
    return rules_index("rise_of_totalitarianism")


def test_pp_costs(t, index):
    """Rules: ROT-CHIT-03"""
    printed = index["ROT-CHIT-03"]["table"]
    pp = t["pp_costs"]
    expect = {
        "putsch_chit": "2 PPs",
        "other_chit": "1 PP",
        "pool_cube": "1 PP",
        "reserve_cube": "+1 PP",
    }
    for (row, cost), line in zip(expect.items(), printed, strict=False):
        cell = pp.lookup(item=row, column="cost")
        assert cell.printed and cell.value == cost
        assert line.startswith(cost if row != "reserve_cube" else "+1 PP per cube")
        label = pp.lookup(item=row).label
        assert label in line
    assert pp.footnotes and printed[-1].startswith("*:")
    assert "Cube Allowance" in " ".join(pp.footnotes)


def test_reforms_and_law_difficulty(t, index):
    """Rules: ROT-LAW-01, ROT-LAW-03, ROT-LAW-04, ROT-LAW-05"""
    printed = index["ROT-LAW-01"]["table"]
    reforms = t["reform_types"]
    for row, name in (
        ("social", "Social Reform"),
        ("economic", "Economic Reform"),
        ("nationalization", "Nationalization Reform"),
    ):
        assert reforms.lookup(reform=row, column="difficulty").value == printed[name]
    assert printed["Law Card"] == "card's Difficulty Value"
    assert (
        "Difficulty Value"
        in t["action_difficulty"].lookup(action="law_card", column="difficulty").value
    )


def test_action_difficulties(t, index):
    """Rules: ROT-ARR-02, ROT-REL-01, ROT-PROP-01, ROT-PROP-02, ROT-UNR-01, ROT-PUT-01"""
    ad = t["action_difficulty"]
    assert ad.lookup(action="release", column="difficulty").value == 4
    assert ad.lookup(action="arrest_squads_leader", column="difficulty").value == 2
    assert "rounding up" in ad.lookup(action="arrest_squads_chit", column="difficulty").value
    assert (
        "never lower than 0"
        in ad.lookup(action="propaganda_battleground", column="difficulty").value
    )
    assert "+1" in ad.lookup(action="propaganda_major_power", column="difficulty").value
    assert ad.lookup(action="putsch", column="difficulty").value == "as Unrest"
    assert "4" in index["ROT-REL-01"]["rule"] and "2" in index["ROT-ARR-02"]["rule"]


def test_leader_harassment(t, index):
    """Rules: ROT-LHT-01"""
    printed = index["ROT-LHT-01"]["table"]
    a, b = t["leader_harassment_uncommitted"], t["leader_harassment_committed"]
    for roll in range(1, 7):
        want = printed["A. not Committed"]["1-2" if roll <= 2 else "3-6"]
        assert a.lookup(roll=roll).value == want
    assert "1-3 (not Death Value)" in printed["B. Committed"]
    for roll in range(1, 7):
        assert b.lookup(roll=roll).value == ("Captured" if roll <= 3 else "not captured")
    assert a.distribution() == {
        "Captured": pytest.approx(1 / 3),
        "not captured": pytest.approx(2 / 3),
    }
    assert "Killed" in " ".join(b.footnotes)


def test_stability_modifiers(t, index):
    """Rules: ROT-MAJ-03"""
    printed = index["ROT-MAJ-03"]["table"]
    mods = t["major_power_stability_modifiers"]
    for row, line in zip(mods.rows, printed, strict=True):
        text = mods.lookup(modifier=row.id, column="when").value
        assert line == f"{row.label} {text}"


def test_vp_awards_game_end_tie_break(t, index):
    """Rules: ROT-VP-01, ROT-VP-02, ROT-VP-03, ROT-VIC-03, ROT-OOP-03"""
    vp = t["vp_awards"]
    assert vp.lookup(award="elections_sd", column="vp").value == 4
    assert vp.lookup(award="elections_fascism", column="vp").value == 3
    assert vp.lookup(award="elections_communism", column="vp").value == 3
    assert vp.lookup(award="regime_germany", column="vp").value == 5
    assert vp.lookup(award="regime_italy", column="vp").value == 4
    assert "+4 VP to Social-Democracy" in index["ROT-VP-01"]["rule"]
    assert "+5 VP" in index["ROT-VP-02"]["rule"]
    assert t["game_end"].lookup(condition="vp_difference", column="value").value == 30
    assert "at least 30" in index["ROT-VP-03"]["rule"]
    order = [
        t["tie_breaking_order"].lookup(rank=str(i), column="ideology").value for i in (1, 2, 3)
    ]
    assert order == ["Communism", "Fascism", "Social-Democracy"]
    assert "Communism, Fascism, Social-Democracy" in index["ROT-VIC-03"]["rule"]


def test_sequence_of_play(t, index):
    """Rules: ROT-SEQ-01"""
    printed = index["ROT-SEQ-01"]["table"]
    steps = [c.value for c in t["sequence_of_play"].cells()]
    assert len(steps) == len(printed) == 4
    for line, (title, substeps) in zip(steps, printed.items(), strict=True):
        assert line.startswith(title)
        for sub in substeps:
            assert sub in line
