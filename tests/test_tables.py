"""The tables engine: ranges, dice, odds, shifts, clamps, distributions and errors in table data."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from rulecraft.compiler.diagnostics import DiagnosticSink
from rulecraft.compiler.tables import (
    GAP,
    TableGap,
    TableLookupError,
    dice_outcomes,
    load_tables,
    parse_range,
)

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "schemas" / "tables.schema.json"


def _load(tmp_path: Path, text: str) -> tuple[dict, DiagnosticSink]:
    game = tmp_path / "game"
    (game / "tables").mkdir(parents=True)
    (game / "tables" / "t.yaml").write_text(text, encoding="utf-8")
    sink = DiagnosticSink(root=tmp_path)
    return load_tables(game, sink), sink


def _codes(sink: DiagnosticSink) -> list[tuple[str, int, int]]:
    return [(d.code, d.pos.line, d.pos.col) for d in sink.sorted() if d.pos is not None]


DIE = """tables:
  t:
    title: T
    kind: range
    dice: 1d6
    below_first: first
    source: {rules: [X-1-01]}
    modifiers:
      - {id: plus, value: 1, max: 1, text: "+1"}
    rows:
      - {range: "0", result: low}
      - {range: "1-5", result: mid}
      - {range: "6+", result: high}
"""


def test_parse_range_forms() -> None:
    """Printed range forms, open ends and negatives.

    Rules: TR-DIP-ATT-12
    """
    assert (parse_range("4").lo, parse_range("4").hi) == (4, 4)
    assert (parse_range("-1-0").lo, parse_range("-1-0").hi) == (-1, 0)
    assert (parse_range("-1 to 7").lo, parse_range("-1 to 7").hi) == (-1, 7)
    assert parse_range("7+").hi is None and parse_range("5≥").lo == 5
    assert parse_range("0 or less").lo is None and parse_range("≤0").hi == 0
    assert parse_range("30 or more").lo == 30
    assert parse_range("5-2") is None and parse_range("two") is None


def test_dice_outcomes_are_exact() -> None:
    assert dice_outcomes("1d6") == {i: Fraction(1, 6) for i in range(1, 7)}
    two = dice_outcomes("2d6")
    assert two[7] == Fraction(1, 6) and sum(two.values()) == 1
    assert len(dice_outcomes("d66")) == 36 and 11 in dice_outcomes("d66")


def test_die_table_lower_than_first_and_open_end(tmp_path: Path) -> None:
    """Rules: TR-DIP-ATT-12"""
    tables, sink = _load(tmp_path, DIE)
    assert not sink.has_errors, sink.render_all()
    t = tables["t"]
    assert t.lookup(roll=-4).code == "low"
    assert t.lookup(roll=9).code == "high"
    assert t.lookup(roll=5, modifiers={"plus": True}).code == "high"
    assert t.distribution(modifiers=-2) == {"low": Fraction(1, 3), "mid": Fraction(2, 3)}
    assert t.distribution(modifiers={"plus": 1}) == {"mid": Fraction(2, 3), "high": Fraction(1, 3)}
    with pytest.raises(TableLookupError, match="unknown modifier"):
        t.lookup(roll=1, modifiers={"nope": 1})


def test_overlap_and_hole_are_diagnostics(tmp_path: Path) -> None:
    text = DIE.replace(
        '"1-5", result: mid}', '"0-3", result: mid}\n      - {range: "5", result: x}'
    )
    tables, sink = _load(tmp_path, text)
    codes = [c for c, _, _ in _codes(sink)]
    assert "table-overlap" in codes and "table-hole" in codes
    overlap = next(d for d in sink.sorted() if d.code == "table-overlap")
    assert overlap.pos.file.endswith("t.yaml") and overlap.pos.line == 12
    assert "t" not in tables


def test_malformed_range_has_position(tmp_path: Path) -> None:
    tables, sink = _load(tmp_path, DIE.replace('"1-5"', '"one to five"'))
    assert ("table-range", 12, 17) in _codes(sink)


CRT = """tables:
  crt:
    title: CRT
    kind: column
    dice: 1d6
    source: {rules: [MARL-PA18.6-01]}
    column_by: odds
    odds: {attacker_stronger: round_down, defender_stronger: round_up}
    clamp: true
    columns:
      - {id: "1:2"}
      - {id: "1:1"}
      - {id: "2:1"}
    shifts:
      - {id: leader, direction: right, max: 3, text: "+ leader"}
      - {id: terrain, direction: left, text: "- terrain"}
    rows:
      - {range: "1-3", cells: [A, B, C]}
      - {range: "4-6", cells: [A, {gap: not printed}, C]}
    results:
      A: {label: a}
      B: {label: b}
      C: {label: c}
"""


def test_wrong_width_row_and_unknown_result(tmp_path: Path) -> None:
    text = CRT.replace("cells: [A, B, C]", "cells: [A, B]").replace("[A, {gap", "[Z, {gap")
    tables, sink = _load(tmp_path, text)
    codes = _codes(sink)
    assert codes == [("table-width", 18, 31), ("table-result", 19, 32)]
    assert not tables


def test_unquoted_odds_is_refused(tmp_path: Path) -> None:
    """YAML 1.1 reads 1:2 as 62: the loader or the schema must refuse it."""
    tables, sink = _load(tmp_path, CRT.replace('{id: "1:2"}', "{id: 1:2}"))
    assert sink.has_errors and not tables
    assert any(d.pos is not None and d.pos.line == 11 for d in sink.sorted())


def test_duplicate_table_id_across_files(tmp_path: Path) -> None:
    tables, sink = _load(tmp_path, CRT)
    (tmp_path / "game" / "tables" / "u.yaml").write_text(CRT, encoding="utf-8")
    sink = DiagnosticSink(root=tmp_path)
    load_tables(tmp_path / "game", sink)
    dup = [d for d in sink.sorted() if d.code == "table-duplicate"]
    assert len(dup) == 1 and dup[0].pos.file.endswith("u.yaml") and "t.yaml" in (dup[0].hint or "")


def test_odds_shifts_clamp_and_gap(tmp_path: Path) -> None:
    """Rules: MARL-18.21-02, MARL-18.21-03, MARL-18.22-01, MARL-18.3-01"""
    tables, sink = _load(tmp_path, CRT)
    assert not sink.has_errors, sink.render_all()
    crt = tables["crt"]
    assert crt.column_for(1, 9) == "1:2"  # clamped
    assert crt.column_for(9, 1) == "2:1"  # clamped
    assert (
        crt.lookup(attacker=4, defender=4, roll=1, shifts={"leader": 5}).code == "C"
    )  # max 3, clamp
    assert crt.lookup(attacker=4, defender=4, roll=1, shifts={"terrain": 1}).code == "A"
    with pytest.raises(TableGap) as err:
        crt.lookup(odds="1:1", roll=5)
    assert err.value.reason == "not printed" and err.value.table == "crt"
    assert crt.distribution("1:1") == {"B": Fraction(1, 2), GAP: Fraction(1, 2)}
    with pytest.raises(TableLookupError, match="unknown column"):
        crt.lookup(odds="7:1", roll=1)
    with pytest.raises(TableLookupError, match="unknown shift"):
        crt.lookup(odds="1:1", roll=1, shifts={"weather": 1})


def test_missing_loader_data_is_not_a_traceback(tmp_path: Path) -> None:
    tables, sink = _load(tmp_path, "tables:\n  t: {title: T, kind: spiral, source: {rules: []}}\n")
    assert sink.has_errors and not tables


def _walk(node: object, path: str, missing: list[str]) -> None:
    if isinstance(node, dict):
        for name in ("properties",):
            for key, sub in node.get(name, {}).items():
                if not (isinstance(sub, dict) and ("description" in sub or "$ref" in sub)):
                    missing.append(f"{path}.{key}")
        for key, sub in node.items():
            _walk(sub, f"{path}.{key}", missing)
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            _walk(sub, f"{path}[{i}]", missing)


def test_schema_is_2020_12_and_every_key_is_described() -> None:
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "https://rulecraft.dev/schemas/tables.schema.json"
    missing: list[str] = []
    _walk(schema, "$", missing)
    assert not missing


def test_every_game_table_file_validates_and_builds() -> None:
    from rulecraft.compiler.tables import all_game_tables

    sink = DiagnosticSink(root=ROOT)
    games = all_game_tables(ROOT / "rules", sink)
    mine = {g: t for g, t in games.items() if g in ("marlborough", "third_reich_diplomacy")}
    assert not [
        d for d in sink.sorted() if "marlborough" in str(d.pos) or "third_reich" in str(d.pos)
    ]
    assert set(mine) == {"marlborough", "third_reich_diplomacy"}
    for tables in mine.values():
        for table in tables.values():
            for cell in table.cells():
                assert cell.status in ("printed", "assumed", "gap")
                assert cell.status == "printed" or cell.reason
            assert table.provenance.rules
