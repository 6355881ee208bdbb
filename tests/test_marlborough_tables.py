"""Marlborough's tables read back through the compiled lookups against the rulebook as printed.

Expected values are the rules-index ``table:`` transcriptions; texts are checked against the
rulebook.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
from compile_helpers import SHARED, game_tables, rules_index
from rulecraft.compiler.tables import TableGap

ROOT = Path(__file__).resolve().parents[1]
INDEX = rules_index("marlborough")
BOOK = (SHARED / "rulebooks" / "marlborough.txt").read_text(encoding="utf-8")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("–", "-")).strip()


@pytest.fixture(scope="module")
def tables() -> dict:
    return game_tables("marlborough")


def _grid(tables: dict, table_id: str, index_id: str) -> None:
    """Every printed cell of a column or matrix table equals the rules-index transcription."""
    printed = INDEX[index_id]["table"]
    t = tables[table_id]
    assert [c.label for c in t.columns] == [str(c) for c in printed["columns"][1:]]
    for r, row in enumerate(printed["rows"]):
        head, *cells = row
        ours = t.rows[r]
        assert ours.label.rstrip("*") + ("*" if ours.label.endswith("*") else "") in (
            str(head),
            str(head).rstrip("*"),
        )
        for c, want in enumerate(cells):
            cell = ours.cells[c]
            assert cell.printed_text == str(want), (table_id, head, c)


def test_crt_printed_rows(tables: dict) -> None:
    """Rules: MARL-PA18.6-01"""
    _grid(tables, "crt", "MARL-PA18.6-01")
    crt = tables["crt"]
    for r in (1, 2, 3):
        for col in crt.columns:
            assert (
                crt.lookup(odds=col.id, roll=r).code
                == INDEX["MARL-PA18.6-01"]["table"]["rows"][r - 1][crt.columns.index(col) + 1]
            )
    assert crt.counts() == {"printed": 21, "assumed": 21, "gap": 0}


def test_crt_rows_4_to_6_are_assumed_with_their_reason(tables: dict) -> None:
    """The rulebook prints rows 1-3 only; the engine needs 4-6, so they are assumed (marked,
    with the reason), never a silent value. Rules: MARL-PA18.6-01"""
    crt = tables["crt"]
    cell = crt.lookup(attacker=12, defender=5, roll=4, shifts=+1)  # 2:1, one right: 3:1
    assert cell.code == "DD" and cell.status == "assumed"
    assert "not printed" in cell.reason


def test_odds_computation_18_21(tables: dict) -> None:
    """Rules: MARL-18.21-01, MARL-18.21-02, MARL-18.21-03"""
    crt = tables["crt"]
    assert crt.column_for(14, 5) == "2:1"  # 2.8:1 rounds down
    assert crt.column_for(6, 10) == "1:2"  # 1:1.67 rounds up in the defender's favour
    assert crt.column_for(10, 6) == "1.5:1"  # at least 1.5:1 but below 2:1
    assert crt.column_for(15, 10) == "1.5:1"
    assert crt.column_for(19, 10) == "1.5:1"
    assert crt.column_for(5, 5) == "1:1"
    assert crt.column_for(7, 6) == "1:1"
    assert crt.column_for(5, 6) == "1:2"
    assert crt.column_for(10, 25) == "1:3"  # 1:2.5 rounds up to 1:3


def test_clamps_18_22(tables: dict) -> None:
    """Rules: MARL-18.22-01, MARL-18.3-01"""
    crt = tables["crt"]
    assert crt.column_for(1, 9) == "1:3"
    assert crt.column_for(30, 2) == "4:1"
    assert crt.shifted("3:1", +3) == "4:1"
    assert crt.shifted("1:2", -2) == "1:3"
    assert crt.lookup(attacker=1, defender=9, roll=3, shifts=-2).code == "AZ"


def test_shifts_example_18_3(tables: dict) -> None:
    """10 vs 6 is 1.5:1; leader +2, defender leader -1: net +1 gives 2:1.

    Rules: MARL-18.3-04, MARL-18.3-02, MARL-PA18.6-02
    """
    crt = tables["crt"]
    shifts = {"attacker_leader": 2, "defender_leader": 1}
    assert crt.net_shift(shifts) == 1
    assert crt.shifted(crt.column_for(10, 6), shifts) == "2:1"
    assert crt.lookup(attacker=10, defender=6, roll=3, shifts=shifts).code == "DD"
    assert crt.net_shift({"attacker_war_commissioner": True, "matrix": -2, "terrain": 3}) == -4


def test_crt_distribution_is_exact(tables: dict) -> None:
    """At 2:1: BB 1/3, DD 1/2 and DZ 1/6, with the assumed rows 4-6.

    Rules: MARL-PA18.6-01
    """
    crt = tables["crt"]
    assert crt.distribution("2:1") == {  # rows 4-6 assumed
        "BB": Fraction(1, 3),
        "DD": Fraction(1, 2),
        "DZ": Fraction(1, 6),
    }
    assert crt.distribution("1:1", shifts=+5) == {  # clamped to 4:1
        "BB": Fraction(1, 6),
        "DD": Fraction(1, 3),
        "DZ": Fraction(1, 2),
    }
    for col in crt.columns:
        assert sum(crt.distribution(col.id).values()) == 1


def test_crt_results_explained(tables: dict) -> None:
    """Rules: MARL-PA18.6R-01, MARL-PA18.6R-02, MARL-PA18.6R-03, MARL-PA18.6R-04, MARL-PA18.6R-05"""
    results = tables["crt"].results
    assert list(results) == ["AZ", "AA", "BB", "DD", "DZ"]
    for res in results.values():
        for line in res.effects:
            assert _norm(line) in _norm(BOOK)


def test_battle_matrix(tables: dict) -> None:
    """Rules: MARL-PA17.0A-01, MARL-17.1-02"""
    _grid(tables, "battle_matrix", "MARL-PA17.0A-01")
    bm = tables["battle_matrix"]
    assert [r.label for r in bm.rows] == INDEX["MARL-17.1-02"]["table"][
        "Battle Plan Attack Markers"
    ]
    assert [c.label for c in bm.columns] == INDEX["MARL-17.1-02"]["table"][
        "Battle Plan Defense Markers"
    ]
    cell = bm.lookup(attacker_plan="maneuver", defender_plan="entrench")
    assert cell.result.crt and cell.result.shift == 2
    assert bm.lookup(attacker_plan="skirmish", defender_plan="stand").result.code == "FA Elim"


def test_siege_matrix(tables: dict) -> None:
    """Rules: MARL-PA17.0B-01, MARL-17.31-01"""
    sm = tables["siege_matrix"]
    printed = INDEX["MARL-PA17.0B-01"]["table"]
    assert [c.label for c in sm.columns] == printed["columns"][1:]
    for r, (head, *cells) in enumerate(printed["rows"]):
        assert sm.rows[r].label == head.rstrip("*")
        assert [c.printed_text for c in sm.rows[r].cells] == cells
    assert sm.lookup(attacker_plan="storm", defender_plan="sortie").result.shift == 2
    with pytest.raises(TableGap):
        sm.lookup(attacker_plan="pillage", defender_plan="hold")
    assert sm.results["SM"].status == "assumed" and sm.results["SM"].reason


def test_matrix_shift_explanations(tables: dict) -> None:
    """Rules: MARL-PA17.0R-01"""
    printed = INDEX["MARL-PA17.0R-01"]["table"]
    for code in ("+1", "+2", "-1", "-2"):
        assert printed[code] in tables["battle_matrix"].results[f"Go to CRT {code}"].text


def test_diplomacy_table(tables: dict) -> None:
    """Rules: MARL-PA23.0-01"""
    printed = INDEX["MARL-PA23.0-01"]["table"]
    dt = tables["diplomacy_table"]
    assert [c.label for c in dt.columns] == [str(c) for c in printed["columns"][1:]]
    for r, (_head, *cells) in enumerate(printed["rows"]):
        for c, want in enumerate(cells):
            assert dt.rows[r].cells[c].printed_text == want
        for c in range(len(cells), 6):
            assert dt.rows[r].cells[c].status == "assumed" and dt.rows[r].cells[c].reason
    assert dt.counts() == {"printed": 21, "assumed": 15, "gap": 0}
    assert dt.lookup(differential=-3, roll=1).code == "R1"
    assert dt.lookup(differential=9, roll=3).code == "D1"
    assert (
        dt.lookup(
            differential=1, roll=3, modifiers={"bop_favours_phasing": 1, "occupies_capital": 1}
        ).code
        == "D1"
    )
    assert dt.lookup(differential=2, roll=1, shifts=-1).code == "R1"
    assert dt.lookup(differential=4, roll=4).code == "D2"  # assumed
    assert dt.distribution("2") == {  # rows 5-6 assumed
        "R1": Fraction(1, 6),
        "NE": Fraction(1, 3),
        "D1": Fraction(1, 3),
        "D2": Fraction(1, 6),
    }
    assert set(dt.results) == {"NE", "D1", "D2", "D3", "R1", "R2"}


def test_diplomacy_strength_modifiers(tables: dict) -> None:
    """Rules: MARL-PA23.0M-02, MARL-PA23.0M-03, MARL-PA23.0M-04
    Rules: MARL-PA23.0M-05, MARL-PA23.0M-06, MARL-PA23.0M-07, MARL-PA23.0M-08"""
    mods = tables["diplomacy_table"].modifiers
    assert len(mods) == 10 and all(m.applies_to == "column" for m in mods)
    for m in mods:
        assert _norm(m.text) in _norm(BOOK)


def test_increasing_taxes_and_pillage(tables: dict) -> None:
    """Rules: MARL-PA32.0-01, MARL-PA35.0-01"""
    for tid, iid in (("increasing_taxes", "MARL-PA32.0-01"), ("pillage", "MARL-PA35.0-01")):
        for roll, want in INDEX[iid]["table"]["rows"]:
            row = tables[tid].row_for(roll)
            assert row.cells[0].printed_text == want
    assert tables["pillage"].lookup(roll=6, modifiers={"free_corps": 3}).code == (
        "Pillage & Troops Lose Discipline"
    )
    assert tables["pillage"].distribution(modifiers={"free_corps": 1})["Pillage"] == Fraction(1, 2)
    assert tables["increasing_taxes"].distribution()["Taxes x 2"] == Fraction(1, 2)


def test_famous_victory(tables: dict) -> None:
    """Rules: MARL-PA18.6FV-01, MARL-18.5-01"""
    printed = INDEX["MARL-PA18.6FV-01"]["table"]
    fv = tables["famous_victory"]
    assert [r.label for r in fv.rows] == [
        k.replace(" units", " units").split(":")[0].replace("1 unit", "1 unit") for k in printed
    ]
    assert fv.lookup(units=1).code == "no further effects"
    assert list(fv.lookup(units=3).result.effects) == printed["2, 3 or 4 units"]
    assert list(fv.lookup(units=12).result.effects) == printed["5 or more units"]


def test_victory_levels(tables: dict) -> None:
    """Rules: MARL-28.12-01"""
    vl = tables["victory_levels"]
    for (rng, text), row in zip(INDEX["MARL-28.12-01"]["table"]["rows"], vl.rows, strict=True):
        assert row.label == rng and row.cells[0].printed_text == text
    assert vl.lookup(vp_difference=9).code == "Equilibrium"
    assert vl.lookup(vp_difference=45).code == "Continental Victory"


def test_victory_points(tables: dict) -> None:
    """Rules: MARL-28.11-01"""
    vp = tables["victory_points"]
    for label, value in INDEX["MARL-28.11-01"]["table"].items():
        row = next(r for r in vp.rows if r.label == label)
        assert row.cells[0].value == value


def _list(tables: dict, table_id: str, index_id: str) -> None:
    printed = INDEX[index_id]["table"]
    t = tables[table_id]
    assert [c.label + "".join(f"({m})" for m in c.footnotes) for c in t.columns] == printed[
        "columns"
    ][1:]
    for r, (head, *cells) in enumerate(printed["rows"]):
        assert t.rows[r].label == head
        for c, want in enumerate(cells):
            cell = t.rows[r].cells[c]
            shown = "" if cell.value is None else str(cell.value)
            shown += "".join(f"({m})" for m in cell.footnotes)
            assert (None if cell.gap and cell.value is None else shown) == (
                None if want is None else str(want)
            ), (table_id, head, c)


def test_unit_costs(tables: dict) -> None:
    """Rules: MARL-PA10.0B-01, MARL-PA10.0-01"""
    _list(tables, "unit_costs", "MARL-PA10.0B-01")
    uc = tables["unit_costs"]
    assert uc.lookup(unit_type="siege_army", column="mobilize").value == 3
    with pytest.raises(TableGap):
        uc.lookup(unit_type="battle_fleet", column="train")
    assert uc.footnote_texts == INDEX["MARL-PA10.0-01"]["table"]


def test_marker_costs(tables: dict) -> None:
    """Rules: MARL-PA10.0C-01"""
    _list(tables, "marker_costs", "MARL-PA10.0C-01")


def test_treasury_income(tables: dict) -> None:
    """Rules: MARL-PA10.0A-01"""
    printed = INDEX["MARL-PA10.0A-01"]["table"]
    ti = tables["treasury_income"]
    for row in ti.rows:
        assert printed[row.label] == row.cells[0].value
    assert ti.notes[0].endswith(printed["note"] + ".")


def test_summaries(tables: dict) -> None:
    """Rules: MARL-PA15.0A-01, MARL-PA4.0-02"""
    assert tables["march_summary"].steps == INDEX["MARL-PA15.0A-01"]["table"]
    assert tables["balance_of_power_summary"].steps == INDEX["MARL-PA4.0-02"]["table"]


def test_campaign_markers_as_printed(tables: dict) -> None:
    """Rules: MARL-PA12.6-01, MARL-PA12.6-02, MARL-PA12.6-03, MARL-PA12.6-04
    Rules: MARL-PA12.6-05, MARL-PA12.6-06, MARL-PA12.6-07, MARL-PA12.6-08"""
    cm = tables["campaign_markers"]
    assert len(cm.rows) == 8
    for row in cm.rows:
        assert f"• {row.label}. {row.cells[0].value}" in BOOK


def test_every_printed_text_is_in_the_rulebook(tables: dict) -> None:
    """Result explanations, notes and footnotes are transcribed from the rulebook text."""
    book = _norm(BOOK)
    for t in tables.values():
        for fn in t.footnote_texts.values():
            assert _norm(fn.replace("Optional Rules: ", "")) in book, fn
        for res in t.results.values():
            if res.status == "printed" and res.text and res.code not in ("NO Effect",):
                first = _norm(res.text).split(": ", 1)[-1][:60]
                assert first in book or _norm(res.text)[:60] in book, (t.id, res.code)
