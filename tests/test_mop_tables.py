"""The March of Progress tables read back through the compiled lookups, against the rules index."""

from __future__ import annotations

from fractions import Fraction

import pytest
from compile_helpers import game_tables, rules_index


@pytest.fixture(scope="module")
def t():
    return game_tables("march_of_progress")


@pytest.fixture(scope="module")
def index():
    return rules_index("march_of_progress")


def test_sequence_of_actions(t, index):
    """Rules: MOP-SOA-01, MOP-SEQ-03"""
    printed = index["MOP-SOA-01"]["table"]
    soa = t["sequence_of_actions"]
    assert [c.value for c in soa.cells()] == printed["order"]
    assert soa.footnotes == [printed["note"]] or printed["note"].lstrip("* ") in " ".join(
        soa.footnotes
    )


def test_vp_stock(t, index):
    """Rules: MOP-SETUP-05, MOP-AOM-SETUP-05, MOP-VIVE-SETUP-07
    Rules: MOP-WW1-SETUP-05, MOP-WW2-SETUP1-06, MOP-POL-SETUP-04
    """
    stock = t["vp_stock"]
    for row, rule in (
        ("thirty_years_war", "MOP-SETUP-05"),
        ("age_of_marlborough", "MOP-AOM-SETUP-05"),
        ("vive_lempereur", "MOP-VIVE-SETUP-07"),
        ("ww1", "MOP-WW1-SETUP-05"),
        ("ww2", "MOP-WW2-SETUP1-06"),
        ("politics", "MOP-POL-SETUP-04"),
    ):
        printed = index[rule]["table"]
        for column in ("black", "white", "total_vp"):
            assert stock.lookup(scenario=row, column=column).value == printed[column], (row, column)


def test_aom_neutral_vp_roll(t, index):
    """Rules: MOP-AOM-SETUP-07"""
    printed = index["MOP-AOM-SETUP-07"]["table"]["roll"]
    table = t["aom_neutral_vp"]
    for rng, vp in printed.items():
        lo, hi = map(int, rng.split("-"))
        for roll in range(lo, hi + 1):
            assert table.lookup(roll=roll).value == vp
    assert set(table.distribution().values()) == {Fraction(1, 3)}


def test_ww2_vp_dice(t, index):
    """Rules: MOP-WW2-SETUP1-08"""
    printed = index["MOP-WW2-SETUP1-08"]["table"]
    for label, value in printed.items():
        assert t["ww2_vp_dice"].lookup(country=label, column="vp_die").value == value


def test_play_aids_are_assumed_with_reasons(t, index):
    """Rules: MOP-AOM-RULE-01, MOP-VIVE-RULE-01, MOP-WW1-RULE-01
    Rules: MOP-WW2-RULE-01, MOP-POL-RULE-01
    """
    for table_id in (
        "aom_play_aid",
        "vive_play_aid",
        "ww1_play_aid",
        "ww2_play_aid",
        "politics_play_aid",
    ):
        cells = list(t[table_id].cells())
        assert cells and all(c.assumed and c.reason for c in cells), table_id
        assert "not printed" in cells[0].reason
