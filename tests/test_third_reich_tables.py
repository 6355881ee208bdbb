"""Third Reich diplomacy variant: every country's results, DP allotments and gains, the record
sheet.

Expected values are the rules-index ``table:`` transcriptions; texts are checked against the
rulebook.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from compile_helpers import SHARED, game_tables, rules_index
from rulecraft.compiler.tables import RangeTable, parse_range

ROOT = Path(__file__).resolve().parents[1]
INDEX = rules_index("third_reich_diplomacy")
BOOK = re.sub(
    r"\s+", " ", (SHARED / "rulebooks" / "third_reich_diplomacy.txt").read_text(encoding="utf-8")
)

COUNTRIES = {
    "bulgaria_hungary_rumania_inactive": "TR-DIP-BHRI-06",
    "finland_inactive": "TR-DIP-FINI-07",
    "france": "TR-DIP-FRANCE-02",
    "italy": "TR-DIP-ITALY-06",
    "belgium_luxembourg": "TR-DIP-BELGIUM-02",
    "bulgaria_active": "TR-DIP-BULGARIA-05",
    "egypt": "TR-DIP-EGYPT-03",
    "finland_active": "TR-DIP-FINA-03",
    "greece": "TR-DIP-GREECE-06",
    "hungary_active": "TR-DIP-HUNGARY-04",
    "iraq": "TR-DIP-IRAQ-02",
    "japan": "TR-DIP-JAPAN-04",
    "persia": "TR-DIP-PERSIA-06",
    "portugal": "TR-DIP-PORTUGAL-02",
    "rumania_active": "TR-DIP-RUMANIA-04",
    "soviet_union": "TR-DIP-USSR-09",
    "spain_franco": "TR-DIP-SPAIN-FRANCO-04",
    "spain_loyalist": "TR-DIP-SPAIN-LOYAL-07",
    "spain_communist": "TR-DIP-SPAIN-COMM-05",
    "sweden": "TR-DIP-SWEDEN-04",
    "turkey": "TR-DIP-TURKEY-10",
    "ukraine": "TR-DIP-UKRAINE-06",
    "ulster": "TR-DIP-ULSTER-02",
    "usa": "TR-DIP-USA-03",
    "vichy_france": "TR-DIP-VICHY-02",
    "yugoslavia": "TR-DIP-YUGO-03",
}


@pytest.fixture(scope="module")
def tables() -> dict:
    return game_tables("third_reich_diplomacy")


@pytest.mark.parametrize("table_id", sorted(COUNTRIES))
def test_country_results_as_printed(tables: dict, table_id: str) -> None:
    """Every printed result, read back through the lookup at each roll of its range.

    Rules: TR-DIP-ATT-12, TR-DIP-ATT-13 and each country's results item (COUNTRIES)
    """
    t = tables[table_id]
    assert isinstance(t, RangeTable) and t.dice == "1d6" and t.below_first == "first"
    assert COUNTRIES[table_id] in t.provenance.rules
    printed = INDEX[COUNTRIES[table_id]]["table"]
    assert [r.id for r in t.rows] == list(printed)
    for key, text in printed.items():
        rng = parse_range(str(key))
        probe = rng.lo if rng.lo is not None else rng.hi
        cell = t.lookup(roll=probe)
        assert cell.printed_text == text
        assert cell.permanent == text.startswith("*")
        assert cell.code == str(key)


@pytest.mark.parametrize("table_id", sorted(COUNTRIES))
def test_country_open_ends(tables: dict, table_id: str) -> None:
    """A roll lower than the first number counts as the first; '+' covers all higher rolls.

    Rules: TR-DIP-ATT-12
    """
    t = tables[table_id]
    assert t.lookup(roll=-20) is t.rows[0].cells[0]
    assert t.lookup(roll=20) is t.rows[-1].cells[0]
    assert sum(t.distribution(modifiers=-3).values()) == 1


@pytest.mark.parametrize("table_id", sorted(COUNTRIES))
def test_country_texts_are_in_the_rulebook(tables: dict, table_id: str) -> None:
    for row in tables[table_id].rows:
        text = re.sub(r"\s+", " ", row.cells[0].explanation)
        assert text[:80] in BOOK, (table_id, row.id)


def test_turkey_modifiers_and_distribution(tables: dict) -> None:
    """Rules: TR-DIP-TURKEY-01, TR-DIP-TURKEY-03
    Rules: TR-DIP-TURKEY-08, TR-DIP-TURKEY-09, TR-DIP-TURKEY-10"""
    t = tables["turkey"]
    mods = {m.rules[0]: m for m in t.modifiers}
    assert mods["TR-DIP-TURKEY-03"].value == 1 and mods["TR-DIP-TURKEY-09"].value == -3
    assert mods["TR-DIP-TURKEY-08"].per
    assert t.conditions[0].rules == ("TR-DIP-TURKEY-01",)
    assert t.lookup(roll=1, modifiers={"m09": 1}).code == "-2"
    assert t.lookup(roll=1, modifiers={"m08": 2}).code == "-1-7"
    assert t.distribution(modifiers=-6) == {"-2": Fraction(2, 3), "-1-7": Fraction(1, 3)}
    assert t.distribution(modifiers=4) == {"-1-7": Fraction(1, 2), "8+": Fraction(1, 2)}


def test_permanent_results_marked(tables: dict) -> None:
    """Rules: TR-DIP-ATT-13, TR-DIP-SWEDEN-04, TR-DIP-USSR-09"""
    sweden = tables["sweden"]
    assert [r.cells[0].permanent for r in sweden.rows] == [False, False, True, True]
    assert tables["soviet_union"].lookup(roll=-1).code == "-1-0"


def test_every_country_modifier_and_condition_is_cited(tables: dict) -> None:
    """Every modifier and condition item of each country is encoded on its table."""
    encoded = {
        r
        for tid in COUNTRIES
        for x in tables[tid].modifiers + tables[tid].conditions
        for r in x.rules
    }
    for item in INDEX.values():
        m = re.match(r"TR-DIP-(?!ATT|ALLOT|AID|COMMIT|VAR|AFTER|SPAIN-\d)", item["id"])
        if m and item["kind"] in ("modifier", "condition") and "result" not in item["section"]:
            assert item["id"] in encoded, item["id"]


def test_spain_government_rolls(tables: dict) -> None:
    """Rules: TR-DIP-SPAIN-01"""
    first = tables["spain_government"]
    assert first.distribution() == {
        "Franco's Spain": Fraction(5, 6),
        "Loyalists won; roll again": Fraction(1, 6),
    }
    assert tables["spain_loyalist_government"].lookup(roll=6).code == "Communistic Spain"


def test_basic_dp_allotment(tables: dict) -> None:
    """Rules: TR-DIP-ALLOT-01"""
    t = tables["dp_allotment"]
    assert {r.label: r.cells[0].value for r in t.rows} == INDEX["TR-DIP-ALLOT-01"]["table"]
    assert t.lookup(power="germany", column="dp").value == 3


def test_foreign_aid_limits(tables: dict) -> None:
    """Rules: TR-DIP-AID-01, TR-DIP-AID-02, TR-DIP-AID-03"""
    t = tables["foreign_aid"]
    allot = {r.id: r.cells[0].value for r in tables["dp_allotment"].rows}
    for row in t.rows:
        assert row.cells[0].value == 5 and row.cells[1].value == "5%"
        assert row.cells[2].value == allot[row.id]


def test_dp_gains_and_losses_as_printed(tables: dict) -> None:
    """Rules: TR-DP-NOTE-04, TR-DP-GER-01, TR-DP-GB-01
    Rules: TR-DP-US-01, TR-DP-USSR-01, TR-DP-FRA-01, TR-DP-ITA-01"""
    printed = INDEX["TR-DP-NOTE-04"]["table"]
    t = tables["dp_gains_losses"]
    expected = [
        (power, header, line)
        for power in (
            "Germany",
            "Great Britain",
            "United States",
            "Soviet Russia",
            "France",
            "Italy",
        )
        for header, lines in printed[power].items()
        for line in lines
    ]
    got = [(r.label, r.cells[0].value, f"{r.cells[1].value}: {r.cells[2].value}") for r in t.rows]
    assert got == expected
    assert any(printed["Notes"] == n for n in t.notes)


def test_record_sheet_layout(tables: dict) -> None:
    """Rules: TR-REC-01, TR-REC-02, TR-REC-04, TR-REC-05"""
    form = tables["record_sheet"]
    assert [form.corner] + [c.label for c in form.columns] == ["Third Reich"] + INDEX["TR-REC-01"][
        "table"
    ][1:]
    assert [r.label for r in form.blocks[0].rows] == INDEX["TR-REC-02"]["table"]
    seasons = INDEX["TR-REC-04"]["table"]
    assert [b.title for b in form.blocks[1:]] == seasons["blocks"]
    for block in form.blocks[1:]:
        assert [r.label for r in block.rows] == seasons["rows"]
    assert [[e["label"], e["entry"], e["value"]] for e in form.examples] == INDEX["TR-REC-05"][
        "table"
    ]["rows"]
